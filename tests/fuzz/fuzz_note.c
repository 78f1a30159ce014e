/*
 * fuzz_note.c - fuzz target for signed notes and checkpoints (gate/note.c),
 * which an auditor reads from anywhere: arbitrary bytes as a note verified
 * against two fixed keys (a key of our own, whose seeds in the corpus are
 * checkpoints it signed, and the reference's PeterNeumann key, whose seed
 * is the reference's signed note), as a checkpoint text, and as a verifier
 * key string.
 *
 * Nothing may crash, leak or read past the input (it sits in a buffer of
 * its own size). A refusal has a known code and a message. A note that
 * verifies has its text end in a newline followed by the blank line, and
 * that text can be signed again into a note that verifies to the same
 * text. A checkpoint that parses formats back to the same bytes, and
 * signed it verifies as exactly that text. A verifier key that parses
 * formats back to itself (its key id in lowercase).
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "note.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NAME "fuzz.example/log"
#define PETER_VKEY "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"

static EVP_PKEY *key;
static struct note_verifier keys[2];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const unsigned char seed[32] = {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	};

	(void)argc;
	(void)argv;
	key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed,
	    sizeof(seed));
	if (key == NULL || note_verifier_init(&keys[0], FUZZ_NAME, key) < 0 ||
	    note_vkey_parse(&keys[1], PETER_VKEY, strlen(PETER_VKEY)) < 0)
		abort();
	return 0;
}

static void
refused(int rc)
{
	if ((rc != AL_EINVAL && rc != AL_ELIMIT && rc != AL_ENOTFOUND) ||
	    al_err_msg()[0] == '\0')
		abort();
}

/* Signs text with our key; the note must verify as exactly that text.
 * Only a text too near the limit for one more line may not be signed. */
static void
resign(const char *text, size_t len)
{
	struct note_signer s = { FUZZ_NAME, key };
	size_t n, tl, nv, line = 4 + strlen(FUZZ_NAME) + 1 + 92 + 1;
	char *note;
	int rc = note_sign(&note, &n, text, len, &s, 1);

	if (rc == AL_ELIMIT && len + 1 + line > NOTE_MAX_BYTES)
		return;
	if (rc < 0)
		abort();
	if (note_verify(&tl, &nv, note, n, keys, 2) < 0 || tl != len ||
	    nv != 1 || memcmp(note, text, len) != 0)
		abort();
	free(note);
}

static void
check_note(const char *in, size_t size)
{
	struct checkpoint c;
	size_t tl = 0, nv = 0, n;
	char *back;
	int rc = note_verify(&tl, &nv, in, size, keys, 2);

	if (rc < 0) {
		refused(rc);
		if (tl != 0 || nv != 0)
			abort();
		return;
	}
	if (tl == 0 || tl + 2 > size || in[tl - 1] != '\n' || in[tl] != '\n' ||
	    nv == 0 || nv > 2)
		abort();
	resign(in, tl);
	if (checkpoint_parse(&c, in, tl) == 0) {
		if (checkpoint_format(&back, &n, &c) < 0 || n != tl ||
		    memcmp(back, in, n) != 0)
			abort();
		free(back);
		checkpoint_clear(&c);
	}
}

static void
check_checkpoint(const char *in, size_t size)
{
	struct checkpoint c;
	size_t n;
	char *back;
	int rc = checkpoint_parse(&c, in, size);

	if (rc < 0) {
		refused(rc);
		if (c.origin != NULL || c.extensions != NULL)
			abort();
		return;
	}
	if (c.origin == NULL || c.origin[0] == '\0' ||
	    c.size > (uint64_t)INT64_MAX ||
	    (c.extensions != NULL && c.extensions[0] == '\0'))
		abort();
	if (checkpoint_format(&back, &n, &c) < 0 || n != size ||
	    memcmp(back, in, n) != 0)
		abort();
	free(back);
	resign(in, size);
	checkpoint_clear(&c);
}

static void
check_vkey(const char *in, size_t size)
{
	struct note_verifier v;
	char *back;
	size_t i, nlen;
	int rc = note_vkey_parse(&v, in, size);

	if (rc < 0) {
		refused(rc);
		if (v.pub != NULL)
			abort();
		return;
	}
	nlen = strlen(v.name);
	if (!note_name_ok(v.name, nlen) ||
	    note_vkey_format(&back, v.name, v.pub) < 0 ||
	    strlen(back) != size)
		abort();
	for (i = 0; i < size; i++) {
		char a = in[i];

		/* The id may have been in capitals. */
		if (i > nlen && i <= nlen + 8 && a >= 'A' && a <= 'F')
			a = (char)(a - 'A' + 'a');
		if (a != back[i])
			abort();
	}
	free(back);
	note_verifier_clear(&v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size ? size : 1);

	if (in == NULL)
		abort();
	memcpy(in, data, size);
	check_note(in, size);
	check_checkpoint(in, size);
	check_vkey(in, size);
	free(in);
	return 0;
}
