/*
 * note.c - C2SP signed notes and tlog checkpoints; see note.h.
 *
 * Trust: note_verify(), note_vkey_parse() and checkpoint_parse() read
 * hostile bytes (a checkpoint an auditor was handed, a verifier key pasted
 * into a config); they take (pointer, length), read nothing past it, and
 * refuse with the line (and byte) of the fault. Signing uses the gate's
 * key and is given only text the gate wrote.
 *
 * Base64 here is our own strict decoder rather than libcrypto's
 * EVP_DecodeBlock, which skips blanks and accepts stray bits after the
 * last byte: a note or a checkpoint must have one spelling, so that
 * checkpoint_parse() and checkpoint_format() are inverses.
 */
#include <inttypes.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "dynbuf.h"
#include "err.h"
#include "note.h"
#include "text.h"
#include "util.h"

#define NOTE_ALG_ED25519 0x01
#define NOTE_SIG_PREFIX "\xe2\x80\x94 "  /* U+2014 EM DASH, a space */
#define NOTE_SIG_PREFIX_LEN 4u
#define NOTE_ED25519_SIG 64u
/* A verifier key string: a name, 8 hex digits, base64 of a few hundred
 * bytes at most (an Ed25519 key is 44 characters). */
#define NOTE_VKEY_MAX 1024u

/* Go's unicode.IsSpace: the White_Space property. */
static int
is_space(uint32_t cp)
{
	switch (cp) {
	case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
	case 0x85: case 0xa0: case 0x1680: case 0x2028: case 0x2029:
	case 0x202f: case 0x205f: case 0x3000:
		return 1;
	default:
		return cp >= 0x2000 && cp <= 0x200a;
	}
}

/* NULL when name[0..len) is a key name but perhaps for its length, else
 * what is wrong with it. */
static const char *
name_flaw(const char *name, size_t len)
{
	const unsigned char *u = (const unsigned char *)name;
	size_t i = 0;

	if (len == 0)
		return "the key name is empty";
	while (i < len) {
		uint32_t cp;
		size_t k = al_utf8_seq(u + i, len - i, &cp);

		if (k == 0)
			return "the key name is not UTF-8";
		if (cp < 0x20)
			return "the key name holds a control character";
		if (is_space(cp))
			return "the key name holds a space";
		if (cp == '+')
			return "the key name holds a '+'";
		i += k;
	}
	return NULL;
}

int
note_name_ok(const char *name, size_t len)
{
	return len <= NOTE_NAME_MAX && name_flaw(name, len) == NULL;
}

/* A caller's key name (NUL-terminated): its length, or an error. */
static int
name_check(const char *what, const char *name, size_t *len_out)
{
	size_t len = name == NULL ? 0 : strnlen(name, NOTE_NAME_MAX + 1);
	const char *flaw;

	if (len > NOTE_NAME_MAX)
		return al_err_set(AL_EINVAL, "%s: the key name is longer than %u "
		    "bytes", what, NOTE_NAME_MAX);
	if ((flaw = name_flaw(name, len)) != NULL)
		return al_err_set(AL_EINVAL, "%s: %s", what, flaw);
	*len_out = len;
	return 0;
}

/*
 * Checks that p[0..n) may be in a note: UTF-8 without control characters
 * but newline. The message counts lines from 1 and bytes from 0.
 */
static int
text_check(const char *what, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, line = 1;

	while (i < n) {
		uint32_t cp;
		size_t k;

		if (u[i] >= 0x20 && u[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = al_utf8_seq(u + i, n - i, &cp)) == 0)
			return al_err_set(AL_EINVAL, "%s: line %zu: not UTF-8 at byte "
			    "%zu", what, line, i);
		if (cp == '\n')
			line++;
		else if (cp < 0x20)
			return al_err_set(AL_EINVAL, "%s: line %zu: control character "
			    "0x%02x at byte %zu", what, line, (unsigned)cp, i);
		i += k;
	}
	return 0;
}

/* The 32 bytes of an Ed25519 key's public half. */
static int
raw_public(unsigned char pub[32], EVP_PKEY *key, const char *what)
{
	size_t n = 32;

	if (key == NULL || EVP_PKEY_get_base_id(key) != EVP_PKEY_ED25519 ||
	    EVP_PKEY_get_raw_public_key(key, pub, &n) != 1 || n != 32) {
		ERR_clear_error();
		return al_err_set(AL_EINVAL, "%s: not an Ed25519 key", what);
	}
	return 0;
}

/* SHA-256(name || 0x0A || enc)[:4], big-endian; enc is the signature
 * type byte and the public key. */
static uint32_t
keyid_hash(const char *name, size_t nlen, const unsigned char *enc,
    size_t elen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	AL_ASSERT(ctx != NULL);
	AL_ASSERT(EVP_DigestInit_ex(ctx, al_sha256_md(), NULL) == 1 &&
	    EVP_DigestUpdate(ctx, name, nlen) == 1 &&
	    EVP_DigestUpdate(ctx, "\n", 1) == 1 &&
	    EVP_DigestUpdate(ctx, enc, elen) == 1 &&
	    EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32);
	EVP_MD_CTX_free(ctx);
	return (uint32_t)md[0] << 24 | (uint32_t)md[1] << 16 |
	    (uint32_t)md[2] << 8 | md[3];
}

/* The type byte and the public key: what the key id and the verifier key
 * string encode. */
static int
key_encoding(unsigned char enc[33], EVP_PKEY *key, const char *what)
{
	enc[0] = NOTE_ALG_ED25519;
	return raw_public(enc + 1, key, what);
}

int
note_keyid(uint32_t *out, const char *name, EVP_PKEY *key)
{
	unsigned char enc[33];
	size_t nlen;
	int rc;

	if ((rc = name_check("note key", name, &nlen)) < 0 ||
	    (rc = key_encoding(enc, key, "note key")) < 0)
		return rc;
	*out = keyid_hash(name, nlen, enc, sizeof(enc));
	return 0;
}

int
note_verifier_init(struct note_verifier *out, const char *name,
    EVP_PKEY *key)
{
	unsigned char enc[33];
	size_t nlen;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = name_check("note verifier", name, &nlen)) < 0 ||
	    (rc = key_encoding(enc, key, "note verifier")) < 0)
		return rc;
	out->pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, enc + 1,
	    32);
	if (out->pub == NULL) {
		ERR_clear_error();
		return al_err_set(AL_EENGINE, "note verifier: libcrypto refuses "
		    "the public key");
	}
	memcpy(out->name, name, nlen);
	out->id = keyid_hash(name, nlen, enc, sizeof(enc));
	return 0;
}

int
note_vkey_parse(struct note_verifier *out, const char *vkey, size_t len)
{
	const char *end = vkey + len, *p1, *p2, *flaw;
	unsigned char key[NOTE_VKEY_MAX];
	size_t nlen, klen, i;
	uint32_t id = 0, want;

	memset(out, 0, sizeof(*out));
	if (len > NOTE_VKEY_MAX)
		return al_err_set(AL_ELIMIT, "verifier key: longer than %u bytes",
		    NOTE_VKEY_MAX);
	if ((p1 = memchr(vkey, '+', len)) == NULL)
		return al_err_set(AL_EINVAL, "verifier key: not NAME+ID+KEY (no "
		    "'+')");
	nlen = (size_t)(p1 - vkey);
	if ((flaw = name_flaw(vkey, nlen)) != NULL)
		return al_err_set(AL_EINVAL, "verifier key: %s", flaw);
	if (nlen > NOTE_NAME_MAX)
		return al_err_set(AL_EINVAL, "verifier key: the key name is longer "
		    "than %u bytes", NOTE_NAME_MAX);
	if ((p2 = memchr(p1 + 1, '+', (size_t)(end - p1 - 1))) == NULL)
		return al_err_set(AL_EINVAL, "verifier key: not NAME+ID+KEY (no "
		    "'+' after the key id)");
	if (p2 - p1 - 1 != 8)
		return al_err_set(AL_EINVAL, "verifier key: the key id is not 8 "
		    "hex digits");
	for (i = 1; i <= 8; i++) {
		int d = al_hex_digit((unsigned char)p1[i]);

		if (d < 0)
			return al_err_set(AL_EINVAL, "verifier key: the key id is not "
			    "8 hex digits");
		id = id << 4 | (uint32_t)d;
	}
	if (al_b64_decode(key, sizeof(key), &klen, p2 + 1, (size_t)(end - p2 - 1)) <
	    0)
		return al_err_set(AL_EINVAL, "verifier key: the key is not "
		    "canonical standard base64");
	/* The reference's order: the id, then the type, then the length. */
	if ((want = keyid_hash(vkey, nlen, key, klen)) != id)
		return al_err_set(AL_EINVAL, "verifier key: key id %08" PRIx32
		    " is not the name's and key's (%08" PRIx32 ")", id, want);
	if (key[0] != NOTE_ALG_ED25519)
		return al_err_set(AL_EINVAL, "verifier key: unknown signature type "
		    "0x%02x (only Ed25519, 0x01)", key[0]);
	if (klen != 33)
		return al_err_set(AL_EINVAL, "verifier key: an Ed25519 key is 32 "
		    "bytes, not %zu", klen - 1);
	out->pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, key + 1,
	    32);
	if (out->pub == NULL) {
		ERR_clear_error();
		return al_err_set(AL_EENGINE, "verifier key: libcrypto refuses the "
		    "public key");
	}
	memcpy(out->name, vkey, nlen);
	out->id = id;
	return 0;
}

void
note_verifier_clear(struct note_verifier *v)
{
	EVP_PKEY_free(v->pub);
	v->pub = NULL;
}

int
note_vkey_format(char **out, const char *name, EVP_PKEY *key)
{
	unsigned char enc[33];
	struct dynbuf b;
	size_t nlen;
	int rc;

	*out = NULL;
	if ((rc = name_check("verifier key", name, &nlen)) < 0 ||
	    (rc = key_encoding(enc, key, "verifier key")) < 0)
		return rc;
	dynbuf_init(&b, NOTE_VKEY_MAX);
	if (dynbuf_addf(&b, "%s+%08" PRIx32 "+", name,
	    keyid_hash(name, nlen, enc, sizeof(enc))) < 0 ||
	    al_b64_add(&b, enc, sizeof(enc)) < 0) {
		dynbuf_free(&b);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	*out = dynbuf_take(&b, NULL);
	return 0;
}

/* Checks a text to be signed, as note_verify() will read it. */
static int
sign_text_check(const char *text, size_t len)
{
	if (len == 0)
		return al_err_set(AL_EINVAL, "note: the text is empty");
	if (len > NOTE_MAX_BYTES)
		return al_err_set(AL_ELIMIT, "note: the text is longer than %u "
		    "bytes", NOTE_MAX_BYTES);
	if (text[len - 1] != '\n')
		return al_err_set(AL_EINVAL, "note: the text does not end with a "
		    "newline");
	return text_check("note", text, len);
}

/* Appends the signature line of one signer over text. */
static int
sign_line(struct dynbuf *b, const struct note_signer *s, const char *text,
    size_t len, uint32_t *id_out)
{
	EVP_MD_CTX *ctx = NULL;
	unsigned char raw[4 + NOTE_ED25519_SIG];
	size_t siglen = NOTE_ED25519_SIG, nlen;
	uint32_t id;
	int rc;

	if ((rc = name_check("note signer", s->name, &nlen)) < 0 ||
	    (rc = note_keyid(&id, s->name, s->key)) < 0)
		return rc;
	raw[0] = (unsigned char)(id >> 24);
	raw[1] = (unsigned char)(id >> 16);
	raw[2] = (unsigned char)(id >> 8);
	raw[3] = (unsigned char)id;
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, s->key) != 1 ||
	    EVP_DigestSign(ctx, raw + 4, &siglen, (const unsigned char *)text,
	    len) != 1 || siglen != NOTE_ED25519_SIG) {
		EVP_MD_CTX_free(ctx);
		ERR_clear_error();
		return al_err_set(AL_EENGINE, "note: libcrypto cannot sign as %s "
		    "(not an Ed25519 private key?)", s->name);
	}
	EVP_MD_CTX_free(ctx);
	if (dynbuf_adds(b, NOTE_SIG_PREFIX) < 0 || dynbuf_adds(b, s->name) < 0 ||
	    dynbuf_addc(b, ' ') < 0 || al_b64_add(b, raw, sizeof(raw)) < 0 ||
	    dynbuf_addc(b, '\n') < 0)
		return al_err_set(AL_ELIMIT, "note: the signed note would be "
		    "longer than %u bytes", NOTE_MAX_BYTES);
	*id_out = id;
	return 0;
}

int
note_sign(char **out, size_t *out_len, const char *text, size_t len,
    const struct note_signer *signers, size_t n)
{
	uint32_t ids[NOTE_MAX_SIGS];
	struct dynbuf b;
	size_t i, j;
	int rc;

	*out = NULL;
	*out_len = 0;
	if (n == 0 || n > NOTE_MAX_SIGS)
		return al_err_set(AL_EINVAL, "note: %zu signers (1 to %u)", n,
		    NOTE_MAX_SIGS);
	if ((rc = sign_text_check(text, len)) < 0)
		return rc;
	/* What would not verify is not made. */
	dynbuf_init(&b, NOTE_MAX_BYTES);
	if (dynbuf_add(&b, text, len) < 0 || dynbuf_addc(&b, '\n') < 0) {
		rc = al_err_set(AL_ELIMIT, "note: the signed note would be longer "
		    "than %u bytes", NOTE_MAX_BYTES);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if ((rc = sign_line(&b, &signers[i], text, len, &ids[i])) < 0)
			goto out;
		for (j = 0; j < i; j++)
			if (ids[j] == ids[i] &&
			    strcmp(signers[j].name, signers[i].name) == 0) {
				rc = al_err_set(AL_EINVAL, "note: signers %zu and %zu are "
				    "the same key (%s+%08" PRIx32 ")", j + 1, i + 1,
				    signers[i].name, ids[i]);
				goto out;
			}
	}
	*out = dynbuf_take(&b, out_len);
	return 0;
out:
	dynbuf_free(&b);
	return rc;
}

/* 1 if sig (n bytes) is v's Ed25519 signature of text. */
static int
sig_verifies(const struct note_verifier *v, const unsigned char *sig,
    size_t n, const char *text, size_t len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx != NULL && v->pub != NULL &&
	    EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, v->pub) == 1 &&
	    EVP_DigestVerify(ctx, sig, n, (const unsigned char *)text, len) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

/* Where the separating blank line is (the last "\n\n"): the index of its
 * first newline, which ends the text; len when there is none. */
static size_t
last_blank_line(const char *p, size_t len)
{
	size_t i;

	for (i = len; i >= 2; i--)
		if (p[i - 2] == '\n' && p[i - 1] == '\n')
			return i - 2;
	return len;
}

static size_t
count_lines(const char *p, size_t n)
{
	const char *end = p + n, *q;
	size_t lines = 0;

	while ((q = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		lines++;
		p = q + 1;
	}
	return lines;
}

/*
 * One signature line (line, without its newline): its name, key id and
 * signature. Sets the message and returns an error when it is malformed.
 */
static int
sig_parse(const char *p, size_t n, size_t lineno, const char **name,
    size_t *nlen, uint32_t *id, unsigned char *raw, size_t *rawlen)
{
	const char *end = p + n, *sp, *b64, *flaw;

	if (n > NOTE_MAX_SIG_LINE)
		return al_err_set(AL_ELIMIT, "note: line %zu: a signature line of "
		    "more than %u bytes", lineno, NOTE_MAX_SIG_LINE);
	if (!al_starts(p, n, NOTE_SIG_PREFIX))
		return al_err_set(AL_EINVAL, "note: line %zu: not a signature line "
		    "(an em dash U+2014 and a space, the key name, a space, the "
		    "base64 signature)", lineno);
	*name = p + NOTE_SIG_PREFIX_LEN;
	if ((sp = memchr(*name, ' ', (size_t)(end - *name))) == NULL)
		return al_err_set(AL_EINVAL, "note: line %zu: no space between the "
		    "key name and the signature", lineno);
	*nlen = (size_t)(sp - *name);
	if ((flaw = name_flaw(*name, *nlen)) != NULL)
		return al_err_set(AL_EINVAL, "note: line %zu: %s", lineno, flaw);
	b64 = sp + 1;
	if (b64 == end)
		return al_err_set(AL_EINVAL, "note: line %zu: no signature after "
		    "the key name", lineno);
	if (memchr(b64, ' ', (size_t)(end - b64)) != NULL)
		return al_err_set(AL_EINVAL, "note: line %zu: a space in the "
		    "signature (a key name has none)", lineno);
	if (al_b64_decode(raw, NOTE_MAX_SIG_LINE / 4 * 3, rawlen, b64,
	    (size_t)(end - b64)) < 0)
		return al_err_set(AL_EINVAL, "note: line %zu: the signature is not "
		    "canonical standard base64", lineno);
	if (*rawlen < 5)
		return al_err_set(AL_EINVAL, "note: line %zu: a signature of %zu "
		    "bytes (a 4-byte key id, then the signature)", lineno, *rawlen);
	*id = (uint32_t)raw[0] << 24 | (uint32_t)raw[1] << 16 |
	    (uint32_t)raw[2] << 8 | raw[3];
	return 0;
}

/* The verifier of (name, id) in keys: its index, nkeys when there is none,
 * or an error when there are two. */
static int
key_find(size_t *out, const struct note_verifier *keys, size_t nkeys,
    const char *name, size_t nlen, uint32_t id, size_t lineno)
{
	size_t i;

	*out = nkeys;
	if (nlen > NOTE_NAME_MAX)
		return 0; /* no verifier has such a name */
	for (i = 0; i < nkeys; i++) {
		if (keys[i].id != id || strlen(keys[i].name) != nlen ||
		    memcmp(keys[i].name, name, nlen) != 0)
			continue;
		if (*out != nkeys)
			return al_err_set(AL_EINVAL, "note: line %zu: the verifier set "
			    "holds key %s+%08" PRIx32 " more than once", lineno,
			    keys[i].name, id);
		*out = i;
	}
	return 0;
}

int
note_verify(size_t *text_len, size_t *nverified, const char *note,
    size_t len, const struct note_verifier *keys, size_t nkeys)
{
	unsigned char raw[NOTE_MAX_SIG_LINE / 4 * 3];
	size_t seen[NOTE_MAX_SIGS], nseen = 0, nsigs = 0, split, lineno, i;
	const char *p, *end = note + len;
	int rc;

	*text_len = 0;
	*nverified = 0;
	if (len > NOTE_MAX_BYTES)
		return al_err_set(AL_ELIMIT, "note: longer than %u bytes",
		    NOTE_MAX_BYTES);
	if ((rc = text_check("note", note, len)) < 0)
		return rc;
	if ((split = last_blank_line(note, len)) == len)
		return al_err_set(AL_EINVAL, "note: no blank line between the text "
		    "and the signatures");
	p = note + split + 2;
	if (p == end)
		return al_err_set(AL_EINVAL, "note: no signature line after the "
		    "blank line");
	if (end[-1] != '\n')
		return al_err_set(AL_EINVAL, "note: the last signature line does "
		    "not end with a newline");
	lineno = count_lines(note, split + 1) + 2;
	for (; p < end; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *name = NULL;
		size_t nlen = 0, rawlen = 0, k;
		uint32_t id = 0;

		if (++nsigs > NOTE_MAX_SIGS)
			return al_err_set(AL_ELIMIT, "note: more than %u signatures",
			    NOTE_MAX_SIGS);
		if ((rc = sig_parse(p, (size_t)(nl - p), lineno, &name, &nlen, &id,
		    raw, &rawlen)) < 0 ||
		    (rc = key_find(&k, keys, nkeys, name, nlen, id, lineno)) < 0)
			return rc;
		p = nl + 1;
		if (k == nkeys)
			continue; /* unknown: ignored */
		for (i = 0; i < nseen && seen[i] != k; i++)
			;
		if (i < nseen)
			continue; /* a repeat: the reference drops it unread */
		seen[nseen++] = k;
		if (!sig_verifies(&keys[k], raw + 4, rawlen - 4, note, split + 1))
			return al_err_set(AL_EINVAL, "note: line %zu: signature by %s "
			    "(key id %08" PRIx32 ") does not verify", lineno,
			    keys[k].name, id);
	}
	if (nseen == 0)
		return al_err_set(AL_ENOTFOUND, "note: no signature by a known key "
		    "(signatures: %zu, known keys: %zu)", nsigs, nkeys);
	*text_len = split + 1;
	*nverified = nseen;
	return 0;
}

/* The next line of p[0..end) (end[-1] is a newline): its length, *next
 * moved past its newline. */
static size_t
next_line(const char **next, const char *end)
{
	const char *p = *next, *nl = memchr(p, '\n', (size_t)(end - p));

	*next = nl + 1;
	return (size_t)(nl - p);
}

/* Line 2: decimal without sign or leading zero, at most
 * CHECKPOINT_SIZE_MAX. */
static int
size_parse(uint64_t *out, const char *p, size_t n)
{
	const char *q = p;
	size_t i;

	if (n == 0)
		return al_err_set(AL_EINVAL, "checkpoint: line 2: the tree size is "
		    "empty");
	for (i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return al_err_set(AL_EINVAL, "checkpoint: line 2: the tree "
			    "size is not decimal digits only");
	if (n > 1 && p[0] == '0')
		return al_err_set(AL_EINVAL, "checkpoint: line 2: the tree size has "
		    "a leading zero");
	if (al_dec_parse(&q, p + n, CHECKPOINT_SIZE_MAX, out) < 0)
		return al_err_set(AL_EINVAL, "checkpoint: line 2: the tree size is "
		    "larger than 2^63-1");
	return 0;
}

/* Line 3: the canonical base64 of 32 bytes. */
static int
root_parse(uint8_t root[32], const char *p, size_t n)
{
	unsigned char buf[33];
	size_t got;

	if (n != 44)
		return al_err_set(AL_EINVAL, "checkpoint: line 3: the root hash is "
		    "%zu characters, not the 44 of base64 of 32 bytes", n);
	if (al_b64_decode(buf, sizeof(buf), &got, p, n) < 0)
		return al_err_set(AL_EINVAL, "checkpoint: line 3: the root hash is "
		    "not canonical standard base64");
	if (got != 32)
		return al_err_set(AL_EINVAL, "checkpoint: line 3: the root hash is "
		    "%zu bytes, not 32", got);
	memcpy(root, buf, 32);
	return 0;
}

int
checkpoint_parse(struct checkpoint *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *origin, *rp, *ext;
	size_t olen, slen, rlen, lineno;
	struct checkpoint c = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > NOTE_MAX_BYTES)
		return al_err_set(AL_ELIMIT, "checkpoint: longer than %u bytes",
		    NOTE_MAX_BYTES);
	if (len == 0)
		return al_err_set(AL_EINVAL, "checkpoint: empty");
	if (text[len - 1] != '\n')
		return al_err_set(AL_EINVAL, "checkpoint: the text does not end "
		    "with a newline");
	if ((rc = text_check("checkpoint", text, len)) < 0)
		return rc;
	origin = p;
	if ((olen = next_line(&p, end)) == 0)
		return al_err_set(AL_EINVAL, "checkpoint: line 1: the origin is "
		    "empty");
	if (olen > CHECKPOINT_ORIGIN_MAX)
		return al_err_set(AL_ELIMIT, "checkpoint: line 1: an origin of more "
		    "than %u bytes", CHECKPOINT_ORIGIN_MAX);
	if (p == end)
		return al_err_set(AL_EINVAL, "checkpoint: no line 2 (the tree "
		    "size)");
	rp = p;
	slen = next_line(&p, end);
	if ((rc = size_parse(&c.size, rp, slen)) < 0)
		return rc;
	if (p == end)
		return al_err_set(AL_EINVAL, "checkpoint: no line 3 (the root "
		    "hash)");
	rp = p;
	rlen = next_line(&p, end);
	if ((rc = root_parse(c.root, rp, rlen)) < 0)
		return rc;
	/* Extension lines, if any, must be non-empty. */
	for (ext = p, lineno = 4; p < end; lineno++)
		if (next_line(&p, end) == 0)
			return al_err_set(AL_EINVAL, "checkpoint: line %zu: an empty "
			    "extension line", lineno);
	if ((c.origin = strndup(origin, olen)) == NULL ||
	    (ext < end && (c.extensions = strndup(ext, (size_t)(end - ext))) ==
	    NULL)) {
		checkpoint_clear(&c);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	*out = c;
	return 0;
}

int
checkpoint_format(char **out, size_t *len, const struct checkpoint *c)
{
	struct checkpoint back;
	struct dynbuf b;
	int rc;

	*out = NULL;
	*len = 0;
	/* A newline would make a field of the origin's tail. */
	if (c->origin == NULL || strchr(c->origin, '\n') != NULL)
		return al_err_set(AL_EINVAL, "checkpoint: the origin is %s",
		    c->origin == NULL ? "missing" : "more than one line");
	if (c->size > CHECKPOINT_SIZE_MAX)
		return al_err_set(AL_EINVAL, "checkpoint: a tree size larger than "
		    "2^63-1");
	dynbuf_init(&b, NOTE_MAX_BYTES);
	if (dynbuf_addf(&b, "%s\n%" PRIu64 "\n", c->origin, c->size) < 0 ||
	    al_b64_add(&b, c->root, sizeof(c->root)) < 0 ||
	    dynbuf_addc(&b, '\n') < 0 ||
	    (c->extensions != NULL && dynbuf_adds(&b, c->extensions) < 0)) {
		dynbuf_free(&b);
		return al_err_set(AL_ELIMIT, "checkpoint: longer than %u bytes",
		    NOTE_MAX_BYTES);
	}
	/* Checked as it will be read: what parse refuses is not made. */
	if ((rc = checkpoint_parse(&back, b.data, b.len)) < 0) {
		dynbuf_free(&b);
		return rc;
	}
	checkpoint_clear(&back);
	*out = dynbuf_take(&b, len);
	return 0;
}

void
checkpoint_clear(struct checkpoint *c)
{
	free(c->origin);
	free(c->extensions);
	c->origin = NULL;
	c->extensions = NULL;
}
