/*
 * attest.c - DSSE envelopes of in-toto statements; see attest.h.
 */
#include <errno.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "dynbuf.h"
#include "err.h"
#include "util.h"

int
attest_key_load(const char *datadir, EVP_PKEY **out)
{
	struct dynbuf p;
	FILE *f;

	*out = NULL;
	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "%s/keys/signing.key", datadir) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	f = fopen(dynbuf_str(&p), "re");
	if (f == NULL) {
		int rc = al_err_set(AL_EIO, "%s: %s (run airlock init)",
		    dynbuf_str(&p), strerror(errno));

		dynbuf_free(&p);
		return rc;
	}
	*out = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	dynbuf_free(&p);
	if (*out == NULL || EVP_PKEY_get_base_id(*out) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(*out);
		*out = NULL;
		return al_err_set(AL_EINVAL, "the signing key is not an Ed25519 "
		    "private key");
	}
	return 0;
}

int
attest_pub_load(const char *path, EVP_PKEY **out)
{
	FILE *f = fopen(path, "re");

	*out = NULL;
	if (f == NULL)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	*out = PEM_read_PUBKEY(f, NULL, NULL, NULL);
	if (*out == NULL) {
		rewind(f);
		*out = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	}
	fclose(f);
	if (*out == NULL || EVP_PKEY_get_base_id(*out) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(*out);
		*out = NULL;
		return al_err_set(AL_EINVAL, "%s is not an Ed25519 key in PEM",
		    path);
	}
	return 0;
}

int
attest_keyid(EVP_PKEY *k, char out[65])
{
	unsigned char *der = NULL;
	int len = i2d_PUBKEY(k, &der);

	if (len <= 0) {
		OPENSSL_free(der);
		return al_err_set(AL_EENGINE, "cannot encode the public key");
	}
	al_sha256_hex(out, der, (size_t)len);
	OPENSSL_free(der);
	return 0;
}

/* PAE(type, body) into b. */
static int
pae(struct dynbuf *b, const char *type, const unsigned char *body, size_t n)
{
	return dynbuf_addf(b, "DSSEv1 %zu %s %zu ", strlen(type), type, n) < 0 ||
	    dynbuf_add(b, body, n) < 0 ? AL_ENOMEM : 0;
}

static char *
b64_encode(const unsigned char *p, size_t n)
{
	char *out = malloc(4 * ((n + 2) / 3) + 1);

	if (out != NULL)
		EVP_EncodeBlock((unsigned char *)out, p, (int)n);
	return out;
}

/* Standard base64 with padding; NULL when it is not that. */
static unsigned char *
b64_decode(const char *s, size_t *n_out)
{
	size_t n = strlen(s), pad = 0;
	unsigned char *out;
	int len;

	if (n == 0 || n % 4 != 0 || n > (64u << 20))
		return NULL;
	if (s[n - 1] == '=')
		pad++;
	if (s[n - 2] == '=')
		pad++;
	if ((out = malloc(n / 4 * 3 + 1)) == NULL)
		return NULL;
	len = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
	if (len < 0 || (size_t)len < pad) {
		free(out);
		return NULL;
	}
	*n_out = (size_t)len - pad;
	return out;
}

int
attest_sign(EVP_PKEY *key, const json_t *statement, char **out)
{
	char *payload = json_dumps(statement, JSON_COMPACT | JSON_SORT_KEYS);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[64];
	size_t siglen = sizeof(sig);
	struct dynbuf m;
	char keyid[65], *p64 = NULL, *s64 = NULL;
	json_t *env = NULL;
	int rc = 0;

	*out = NULL;
	dynbuf_init(&m, 64u << 20);
	if (payload == NULL || ctx == NULL || pae(&m, ATTEST_PAYLOAD_TYPE,
	    (const unsigned char *)payload, strlen(payload)) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if (attest_keyid(key, keyid) < 0 ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) != 1 ||
	    EVP_DigestSign(ctx, sig, &siglen, (const unsigned char *)m.data,
	    m.len) != 1 || siglen != 64) {
		rc = al_err_set(AL_EENGINE, "libcrypto cannot sign");
		goto out;
	}
	p64 = b64_encode((const unsigned char *)payload, strlen(payload));
	s64 = b64_encode(sig, siglen);
	if (p64 == NULL || s64 == NULL || (env = json_pack("{s:s, s:s, "
	    "s:[{s:s, s:s}]}", "payloadType", ATTEST_PAYLOAD_TYPE, "payload",
	    p64, "signatures", "keyid", keyid, "sig", s64)) == NULL ||
	    (*out = json_dumps(env, JSON_INDENT(2) | JSON_SORT_KEYS)) == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory");
out:
	json_decref(env);
	free(p64);
	free(s64);
	free(payload);
	EVP_MD_CTX_free(ctx);
	dynbuf_free(&m);
	return rc;
}

int
attest_verify(const char *envelope, size_t n, EVP_PKEY *pub,
    json_t **statement_out)
{
	json_error_t jerr;
	json_t *env = json_loadb(envelope, n, JSON_REJECT_DUPLICATES, &jerr);
	json_t *sigs, *st = NULL;
	const char *type = NULL, *p64 = NULL;
	unsigned char *payload = NULL;
	size_t plen = 0, i;
	struct dynbuf m;
	int ok = 0, rc = 0;

	*statement_out = NULL;
	dynbuf_init(&m, 64u << 20);
	if (env == NULL || json_unpack(env, "{s:s, s:s, s:o}", "payloadType",
	    &type, "payload", &p64, "signatures", &sigs) < 0 ||
	    !json_is_array(sigs)) {
		rc = al_err_set(AL_EINVAL, "not a DSSE envelope");
		goto out;
	}
	if (strcmp(type, ATTEST_PAYLOAD_TYPE) != 0) {
		rc = al_err_set(AL_EINVAL, "payload type is not %s",
		    ATTEST_PAYLOAD_TYPE);
		goto out;
	}
	if ((payload = b64_decode(p64, &plen)) == NULL ||
	    pae(&m, type, payload, plen) < 0) {
		rc = al_err_set(AL_EINVAL, "the payload is not base64");
		goto out;
	}
	/* Any one signature by this key will do. */
	for (i = 0; i < json_array_size(sigs) && !ok; i++) {
		const char *s64 = json_string_value(json_object_get(
		    json_array_get(sigs, i), "sig"));
		unsigned char *sig;
		size_t slen = 0;
		EVP_MD_CTX *ctx;

		if (s64 == NULL || (sig = b64_decode(s64, &slen)) == NULL)
			continue;
		if ((ctx = EVP_MD_CTX_new()) != NULL &&
		    EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pub) == 1 &&
		    EVP_DigestVerify(ctx, sig, slen, (const unsigned char *)m.data,
		    m.len) == 1)
			ok = 1;
		EVP_MD_CTX_free(ctx);
		free(sig);
	}
	if (!ok) {
		rc = al_err_set(AL_EINVAL, "no valid signature by this key");
		goto out;
	}
	st = json_loadb((const char *)payload, plen, JSON_REJECT_DUPLICATES,
	    &jerr);
	if (st == NULL || !json_is_string(json_object_get(st, "_type")) ||
	    strcmp(json_string_value(json_object_get(st, "_type")),
	    ATTEST_STATEMENT_TYPE) != 0 ||
	    !json_is_string(json_object_get(st, "predicateType")) ||
	    strcmp(json_string_value(json_object_get(st, "predicateType")),
	    ATTEST_PREDICATE_TYPE) != 0) {
		json_decref(st);
		rc = al_err_set(AL_EINVAL, "signed, but not an airlock release "
		    "statement");
		goto out;
	}
	*statement_out = st;
out:
	json_decref(env);
	free(payload);
	dynbuf_free(&m);
	return rc;
}
