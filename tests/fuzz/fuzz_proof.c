/*
 * fuzz_proof.c - fuzz target for audit proof files (gate/audit.c,
 * gate_proof_check), which an auditor may be handed by anyone: arbitrary
 * bytes as a proof checked against a fixed key; and, for inputs that
 * begin with 'E', byte edits (offset, value pairs) applied to a valid
 * proof this target builds at start (five entries of a tree it keeps in
 * memory, a checkpoint signed with that key), so that the fuzzer works
 * near the accepted shape.
 *
 * Nothing may crash, leak or read past the input. A refusal is AL_EINVAL
 * with a message; an accepted file's entries are each ok with an entry
 * that starts as a version 1 entry of its index, or not ok with a reason.
 * The valid proof itself must verify whole (checked at start). With
 * FUZZ_PROOF_SEED=FILE the valid proof is written there (the corpus seed).
 */
#include <inttypes.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "b64.h"
#include "err.h"
#include "merkle.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ORIGIN "airlock/00000000fuzz0000"
#define NLEAVES 5

static struct attest_keyring kr;
static char *valid;
static size_t valid_len;

/* The tree's nodes in memory: level L, index I at nodes[L][I]. */
static uint8_t nodes[4][8][32];

static int
get(void *ctx, unsigned level, uint64_t idx, uint8_t out[32])
{
	(void)ctx;
	if (level >= 4 || idx >= 8)
		return al_err_set(AL_ENOTFOUND, "no node");
	memcpy(out, nodes[level][idx], 32);
	return 0;
}

static int
put(void *ctx, unsigned level, uint64_t idx, const uint8_t h[32])
{
	(void)ctx;
	if (level >= 4 || idx >= 8)
		return al_err_set(AL_EINVAL, "no room");
	memcpy(nodes[level][idx], h, 32);
	return 0;
}

static json_t *
b64j(const void *p, size_t n)
{
	struct dynbuf b;
	json_t *j;

	dynbuf_init(&b, 1 << 16);
	if (al_b64_add(&b, p, n) < 0)
		abort();
	j = json_stringn(b.data ? b.data : "", b.len);
	dynbuf_free(&b);
	return j;
}

static void
build_valid(EVP_PKEY *key)
{
	struct checkpoint c = {0};
	struct note_signer sg = {FUZZ_ORIGIN, key};
	uint8_t path[MERKLE_MAX_PROOF][32];
	char entry[256], *text = NULL, *note = NULL;
	size_t tlen = 0, nlen = 0, np, i, k;
	json_t *arr = json_array(), *j;

	for (i = 0; i < NLEAVES; i++) {
		uint8_t leaf[32];

		snprintf(entry, sizeof(entry), "airlock audit entry v1\nindex %zu\n"
		    "event %zu\nat 1\naction note\nactor 0\nactor-name \n"
		    "actor-role \nperson 0\nperson-name \nsubmission 0\nsha256 \n"
		    "detail fuzz %zu\n", i, i + 1, i);
		merkle_leaf_hash(entry, strlen(entry), leaf);
		if (merkle_append(get, put, NULL, i, leaf) < 0)
			abort();
	}
	c.origin = (char *)FUZZ_ORIGIN;
	c.size = NLEAVES;
	if (merkle_root(get, NULL, NLEAVES, c.root) < 0 ||
	    checkpoint_format(&text, &tlen, &c) < 0 ||
	    note_sign(&note, &nlen, text, tlen, &sg, 1) < 0)
		abort();
	for (i = 0; i < NLEAVES; i++) {
		json_t *pj = json_array();

		snprintf(entry, sizeof(entry), "airlock audit entry v1\nindex %zu\n"
		    "event %zu\nat 1\naction note\nactor 0\nactor-name \n"
		    "actor-role \nperson 0\nperson-name \nsubmission 0\nsha256 \n"
		    "detail fuzz %zu\n", i, i + 1, i);
		if (merkle_inclusion_proof(get, NULL, i, NLEAVES, path, &np) < 0)
			abort();
		for (k = 0; k < np; k++)
			json_array_append_new(pj, b64j(path[k], 32));
		json_array_append_new(arr, json_pack("{s:I, s:o, s:o}", "index",
		    (json_int_t)i, "entry", b64j(entry, strlen(entry)), "path", pj));
	}
	j = json_pack("{s:i, s:s, s:o}", "airlock_audit_proof", PROOF_FORMAT,
	    "checkpoint", note, "entries", arr);
	if (j == NULL || (valid = json_dumps(j, JSON_INDENT(1))) == NULL)
		abort();
	valid_len = strlen(valid);
	json_decref(j);
	free(text);
	free(note);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const unsigned char seed[32] = {
		7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
		7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	};
	struct proof_check pc;
	unsigned char pub[32];
	size_t publen = sizeof(pub), i;
	EVP_PKEY *key, *pk;
	const char *dump = getenv("FUZZ_PROOF_SEED");

	(void)argc;
	(void)argv;
	key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed,
	    sizeof(seed));
	if (key == NULL || EVP_PKEY_get_raw_public_key(key, pub, &publen) != 1 ||
	    (pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub,
	    publen)) == NULL || attest_keyring_add(&kr, pk) < 0)
		abort();
	build_valid(key);
	EVP_PKEY_free(key);
	/* The valid proof verifies whole, or this target tests nothing. */
	if (gate_proof_check(valid, valid_len, &kr, &pc) < 0 ||
	    pc.n != NLEAVES)
		abort();
	for (i = 0; i < pc.n; i++)
		if (!pc.v[i].ok || pc.v[i].index != i)
			abort();
	gate_proof_check_clear(&pc);
	if (dump != NULL) {
		FILE *f = fopen(dump, "w");

		if (f == NULL || fwrite(valid, 1, valid_len, f) != valid_len ||
		    fclose(f) != 0)
			abort();
	}
	return 0;
}

static void
check(const char *text, size_t len)
{
	struct proof_check pc;
	size_t i;
	int rc = gate_proof_check(text, len, &kr, &pc);

	if (rc < 0) {
		if (rc != AL_EINVAL || al_err_msg()[0] == '\0')
			abort();
		return;
	}
	for (i = 0; i < pc.n; i++) {
		char head[64];

		if (!pc.v[i].ok) {
			if (pc.v[i].why[0] == '\0' || pc.v[i].entry != NULL)
				abort();
			continue;
		}
		snprintf(head, sizeof(head), "airlock audit entry v1\nindex %"
		    PRIu64 "\n", pc.v[i].index);
		if (pc.v[i].entry == NULL || pc.v[i].len < strlen(head) ||
		    memcmp(pc.v[i].entry, head, strlen(head)) != 0 ||
		    pc.v[i].index >= pc.c.size)
			abort();
	}
	gate_proof_check_clear(&pc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	size_t i;

	if (size > 0 && data[0] == 'E') {
		if ((buf = malloc(valid_len)) == NULL)
			abort();
		memcpy(buf, valid, valid_len);
		for (i = 1; i + 2 < size; i += 3)
			buf[((size_t)data[i] << 8 | data[i + 1]) % valid_len] =
			    (char)data[i + 2];
		check(buf, valid_len);
		free(buf);
		return 0;
	}
	if ((buf = malloc(size ? size : 1)) == NULL)
		abort();
	memcpy(buf, data, size);
	check(buf, size);
	free(buf);
	return 0;
}
