/*
 * attest.c - DSSE envelopes of in-toto statements; see attest.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest.h"
#include "dynbuf.h"
#include "err.h"
#include "util.h"

int
attest_key_path(const char *datadir, struct dynbuf *out, int *external)
{
	const char *env = getenv("AIRLOCK_SIGNING_KEY");
	int ext = env != NULL && env[0] != '\0';

	dynbuf_reset(out);
	if (external != NULL)
		*external = ext;
	if ((ext ? dynbuf_adds(out, env) : dynbuf_addf(out,
	    "%s/keys/signing.key", datadir)) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	return 0;
}

/* The private key in path: a regular file that nobody but its owner may
 * read or write. external, pub_only: for the message when it is not
 * there. */
static int
key_read(const char *path, int external, int pub_only, EVP_PKEY **out)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return al_err_set(AL_EIO, "the signing key %s: %s (%s)", path,
		    strerror(errno), external ? "AIRLOCK_SIGNING_KEY or "
		    "--signing-key names it" : errno == ENOENT && pub_only ?
		    "the data directory holds only its public half: name the "
		    "key with --signing-key or AIRLOCK_SIGNING_KEY" :
		    "run airlock init");
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return al_err_set(AL_EINVAL, "the signing key %s is not a "
		    "regular file", path);
	}
	if ((st.st_mode & 077) != 0) {
		close(fd);
		return al_err_set(AL_EINVAL, "the signing key %s may be read or "
		    "written by others (mode %04o): chmod 600 it", path,
		    (unsigned)(st.st_mode & 07777));
	}
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	}
	*out = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (*out == NULL || EVP_PKEY_get_base_id(*out) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(*out);
		*out = NULL;
		return al_err_set(AL_EINVAL, "the signing key %s is not an "
		    "Ed25519 private key", path);
	}
	return 0;
}

/* k is the data directory's current key (keys/signing.pub): what it signs
 * verifies with the keyring verifiers are given. */
static int
key_is_current(const char *datadir, const char *path, EVP_PKEY *k)
{
	struct dynbuf p;
	EVP_PKEY *pub = NULL;
	char id[65], cur[65];
	int rc;

	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "%s/keys/signing.pub", datadir) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = attest_keyid(k, id)) < 0 ||
	    (rc = attest_pub_load(dynbuf_str(&p), &pub)) < 0 ||
	    (rc = attest_keyid(pub, cur)) < 0)
		goto out;
	if (strcmp(id, cur) != 0)
		rc = al_err_set(AL_EINVAL, "the signing key %s (key id %.16s) is "
		    "not the data directory's current key (%s, key id %.16s): "
		    "what it signed would not verify", path, id,
		    dynbuf_str(&p), cur);
out:
	EVP_PKEY_free(pub);
	dynbuf_free(&p);
	return rc;
}

int
attest_key_not_inside(const char *datadir, const char *path)
{
	struct dynbuf in;
	int rc = 0;

	dynbuf_init(&in, 8192);
	if (dynbuf_addf(&in, "%s/keys/signing.key", datadir) < 0)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	else if (access(dynbuf_str(&in), F_OK) == 0)
		rc = al_err_set(AL_EINVAL, "%s is a signing key inside the data "
		    "directory while the gate's key is %s: move it there (mv) "
		    "or remove it", dynbuf_str(&in), path);
	dynbuf_free(&in);
	return rc;
}

/* DATA/keys/signing.pub is there (the key may be kept elsewhere). */
static int
pub_only(const char *datadir)
{
	struct dynbuf p;
	int there;

	dynbuf_init(&p, 8192);
	there = dynbuf_addf(&p, "%s/keys/signing.pub", datadir) == 0 &&
	    access(dynbuf_str(&p), F_OK) == 0;
	dynbuf_free(&p);
	return there;
}

int
attest_key_load(const char *datadir, EVP_PKEY **out)
{
	struct dynbuf p;
	int rc, external = 0;

	*out = NULL;
	dynbuf_init(&p, 8192);
	if ((rc = attest_key_path(datadir, &p, &external)) == 0 &&
	    (!external || (rc = attest_key_not_inside(datadir,
	    dynbuf_str(&p))) == 0) &&
	    (rc = key_read(dynbuf_str(&p), external, pub_only(datadir),
	    out)) == 0 &&
	    (rc = key_is_current(datadir, dynbuf_str(&p), *out)) < 0) {
		EVP_PKEY_free(*out);
		*out = NULL;
	}
	dynbuf_free(&p);
	return rc;
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
attest_keyring_add(struct attest_keyring *kr, EVP_PKEY *k)
{
	char id[65];
	size_t i;

	if (k == NULL || EVP_PKEY_get_base_id(k) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(k);
		return al_err_set(AL_EINVAL, "not an Ed25519 key");
	}
	if (attest_keyid(k, id) < 0) {
		EVP_PKEY_free(k);
		return AL_EENGINE;
	}
	for (i = 0; i < kr->n; i++)
		if (strcmp(kr->id[i], id) == 0) {
			EVP_PKEY_free(k);
			return 0;
		}
	if (kr->n == ATTEST_KEYRING_MAX) {
		EVP_PKEY_free(k);
		return al_err_set(AL_ELIMIT, "more than %d keys", ATTEST_KEYRING_MAX);
	}
	kr->key[kr->n] = k;
	memcpy(kr->id[kr->n], id, sizeof(id));
	kr->n++;
	return 0;
}

int
attest_keyring_load(struct attest_keyring *kr, const char *path)
{
	FILE *f = fopen(path, "re");
	char *name = NULL, *header = NULL;
	unsigned char *data = NULL;
	long len = 0;
	size_t added = 0;
	int rc = 0;

	if (f == NULL)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	/* Block by block: every one must be an Ed25519 key. */
	while (rc == 0 && PEM_read(f, &name, &header, &data, &len) == 1) {
		const unsigned char *p = data;
		EVP_PKEY *k = NULL;

		if (strcmp(name, "PUBLIC KEY") == 0)
			k = d2i_PUBKEY(NULL, &p, len);
		else if (strcmp(name, "PRIVATE KEY") == 0)
			k = d2i_AutoPrivateKey(NULL, &p, len);
		if (k == NULL || EVP_PKEY_get_base_id(k) != EVP_PKEY_ED25519) {
			EVP_PKEY_free(k);
			rc = al_err_set(AL_EINVAL, "%s: a PEM block that is not an "
			    "Ed25519 key", path);
		} else if ((rc = attest_keyring_add(kr, k)) == 0)
			added++;
		OPENSSL_free(name);
		OPENSSL_free(header);
		OPENSSL_free(data);
		name = header = NULL;
		data = NULL;
	}
	fclose(f);
	if (rc == 0 && added == 0)
		rc = al_err_set(AL_EINVAL, "%s is not an Ed25519 key in PEM", path);
	return rc;
}

void
attest_keyring_clear(struct attest_keyring *kr)
{
	size_t i;

	for (i = 0; i < kr->n; i++)
		EVP_PKEY_free(kr->key[i]);
	kr->n = 0;
}

/* The key of id in kr, or NULL. */
static EVP_PKEY *
keyring_find(const struct attest_keyring *kr, const char *id)
{
	size_t i;

	for (i = 0; id != NULL && i < kr->n; i++)
		if (strcmp(kr->id[i], id) == 0)
			return kr->key[i];
	return NULL;
}

/* A key id as it may be printed: 64 hex digits, else "?". */
static const char *
printable_id(const char *id)
{
	return al_is_hex(id, 64) ? id : "?";
}

int
attest_verify_keyring(const char *envelope, size_t n,
    const struct attest_keyring *kr, json_t **statement_out,
    char keyid_out[65])
{
	json_error_t jerr;
	json_t *env = json_loadb(envelope, n, JSON_REJECT_DUPLICATES, &jerr);
	json_t *sigs, *st = NULL;
	const char *type = NULL, *p64 = NULL, *unknown = NULL, *bad = NULL;
	const char *signer = NULL, *named;
	unsigned char *payload = NULL;
	size_t plen = 0, i;
	struct dynbuf m;
	int rc = 0;

	*statement_out = NULL;
	keyid_out[0] = '\0';
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
	/* The key id selects the key; one valid signature by a key of the
	 * keyring will do. */
	for (i = 0; i < json_array_size(sigs) && signer == NULL; i++) {
		json_t *sj = json_array_get(sigs, i);
		const char *id = json_string_value(json_object_get(sj, "keyid"));
		const char *s64 = json_string_value(json_object_get(sj, "sig"));
		EVP_PKEY *pub = keyring_find(kr, id);
		unsigned char *sig;
		size_t slen = 0;
		EVP_MD_CTX *ctx;

		if (pub == NULL) {
			if (unknown == NULL)
				unknown = printable_id(id);
			continue;
		}
		bad = id;
		if (s64 == NULL || (sig = b64_decode(s64, &slen)) == NULL)
			continue;
		if ((ctx = EVP_MD_CTX_new()) != NULL &&
		    EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pub) == 1 &&
		    EVP_DigestVerify(ctx, sig, slen, (const unsigned char *)m.data,
		    m.len) == 1)
			signer = id;
		EVP_MD_CTX_free(ctx);
		free(sig);
	}
	if (signer == NULL) {
		if (bad != NULL)
			rc = al_err_set(AL_EINVAL, "the signature by key %.16s… does "
			    "not verify", bad);
		else if (unknown != NULL)
			rc = al_err_set(AL_EINVAL, "signed by key %.16s…, which is not "
			    "in the keyring", unknown);
		else
			rc = al_err_set(AL_EINVAL, "no signature");
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
	/* The signed statement names its key: the unsigned key id of the
	 * envelope must agree with it. */
	named = json_string_value(json_object_get(json_object_get(st,
	    "predicate"), "gate_key"));
	if (named == NULL || strcmp(named, signer) != 0) {
		/* (named lives in st: said before st is let go.) */
		rc = al_err_set(AL_EINVAL, "the statement names key %.16s…, but key "
		    "%.16s… signed it", printable_id(named), signer);
		json_decref(st);
		goto out;
	}
	memcpy(keyid_out, signer, 65);
	*statement_out = st;
out:
	json_decref(env);
	free(payload);
	dynbuf_free(&m);
	return rc;
}

int
attest_verify(const char *envelope, size_t n, EVP_PKEY *pub,
    json_t **statement_out)
{
	struct attest_keyring kr;
	char id[65];
	int rc;

	kr.n = 0;
	*statement_out = NULL;
	if (EVP_PKEY_up_ref(pub) != 1)
		return al_err_set(AL_EENGINE, "libcrypto");
	if ((rc = attest_keyring_add(&kr, pub)) == 0)
		rc = attest_verify_keyring(envelope, n, &kr, statement_out, id);
	attest_keyring_clear(&kr);
	return rc;
}
