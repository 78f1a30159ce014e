/*
 * auth.c - tokens and the signing key; see auth.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest.h"
#include "auth.h"
#include "dynbuf.h"
#include "err.h"
#include "os.h"
#include "util.h"

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int
gate_token_new(char out[GATE_TOKEN_MAX])
{
	unsigned char r[33];      /* 264 bits: 44 characters, no padding */
	size_t i, o = 4;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return al_err_set(AL_EIO, "no randomness: %s", strerror(errno));
	memcpy(out, "alk_", 4);
	for (i = 0; i < sizeof(r); i += 3) {
		uint32_t v = (uint32_t)r[i] << 16 | (uint32_t)r[i + 1] << 8 |
		    r[i + 2];

		out[o++] = b64url[v >> 18 & 63];
		out[o++] = b64url[v >> 12 & 63];
		out[o++] = b64url[v >> 6 & 63];
		out[o++] = b64url[v & 63];
	}
	out[o] = '\0';
	OPENSSL_cleanse(r, sizeof(r));
	return 0;
}

int
gate_token_wellformed(const char *s, size_t n)
{
	size_t i;

	if (n != 48 || memcmp(s, "alk_", 4) != 0)
		return 0;
	for (i = 4; i < n; i++)
		if (strchr(b64url, s[i]) == NULL || s[i] == '\0')
			return 0;
	return 1;
}

void
gate_token_hash(const char *token, size_t n, char out[65])
{
	al_sha256_hex(out, token, n);
}

int
gate_hash_equal(const char *a, const char *b)
{
	return strlen(a) == 64 && strlen(b) == 64 &&
	    CRYPTO_memcmp(a, b, 64) == 0;
}

const char *
gate_token_refusal(char *buf, size_t n, int64_t revoked_at,
    int64_t expires_at, int64_t now)
{
	int expired = expires_at != 0 && expires_at <= now;
	char iso[32];

	if (revoked_at == 0 && !expired)
		return NULL;
	if (revoked_at != 0 && (!expired || revoked_at < expires_at)) {
		al_time_iso(revoked_at, iso);
		(void)snprintf(buf, n, "token revoked at %s", iso);
	} else {
		al_time_iso(expires_at, iso);
		(void)snprintf(buf, n, "token expired at %s", iso);
	}
	return buf;
}

int
gate_parse_duration(const char *s, int64_t *ms_out)
{
	char *end;
	unsigned long long v;
	int64_t unit;

	errno = 0;
	if (s[0] < '0' || s[0] > '9')
		return al_err_set(AL_EINVAL, "a duration is a number and a unit "
		    "(s, m, h, d): 30m, 8h, 7d");
	v = strtoull(s, &end, 10);
	if (errno != 0 || end[0] == '\0' || end[1] != '\0')
		return al_err_set(AL_EINVAL, "a duration is a number and a unit "
		    "(s, m, h, d): 30m, 8h, 7d");
	switch (end[0]) {
	case 's': unit = 1000; break;
	case 'm': unit = 60000; break;
	case 'h': unit = 3600000; break;
	case 'd': unit = 86400000; break;
	default:
		return al_err_set(AL_EINVAL, "unknown duration unit '%c' (s, m, "
		    "h, d)", end[0]);
	}
	if (v == 0 || v > 365ULL * 86400000 / (unsigned long long)unit)
		return al_err_set(AL_EINVAL, "a duration from 1s to 365d");
	*ms_out = (int64_t)v * unit;
	return 0;
}

/* Writes a PEM file with mode, failing if it exists. */
static int
write_pem(const char *path, mode_t mode, EVP_PKEY *k, int private)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	FILE *f;
	int ok;

	if (fd < 0)
		return al_err_set(errno == EEXIST ? AL_EEXIST : AL_EIO, "%s: %s",
		    path, strerror(errno));
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	}
	ok = private ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) :
	    PEM_write_PUBKEY(f, k);
	ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		(void)unlink(path);
		return al_err_set(AL_EIO, "cannot write %s", path);
	}
	return 0;
}

/* A key made outside the data directory: its public half goes in
 * (DATA/keys/signing.pub), unless it is there (attest_key_load checks that
 * they match). */
static int
key_adopt(const char *path, const char *pub)
{
	EVP_PKEY *k = NULL;
	int rc;

	if (access(pub, F_OK) == 0)
		return AL_EEXIST;
	if ((rc = attest_pub_load(path, &k)) == 0)
		rc = write_pem(pub, 0644, k, 0);
	EVP_PKEY_free(k);
	return rc < 0 ? rc : AL_EEXIST;
}

int
gate_key_create(const char *datadir)
{
	struct dynbuf p, pub;
	EVP_PKEY *k = NULL;
	int rc, external = 0;

	dynbuf_init(&p, 8192);
	dynbuf_init(&pub, 8192);
	if (dynbuf_addf(&pub, "%s/keys", datadir) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if (mkdir(dynbuf_str(&pub), 0700) < 0 && errno != EEXIST) {
		rc = al_err_set(AL_EIO, "%s: %s", dynbuf_str(&pub),
		    strerror(errno));
		goto out;
	}
	if (dynbuf_adds(&pub, "/signing.pub") < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = attest_key_path(datadir, &p, &external)) < 0 ||
	    (external && (rc = attest_key_not_inside(datadir, dynbuf_str(&p))) < 0))
		goto out;
	if (access(dynbuf_str(&p), F_OK) == 0) {
		rc = external ? key_adopt(dynbuf_str(&p), dynbuf_str(&pub)) :
		    al_err_set(AL_EEXIST, "%s exists", dynbuf_str(&p));
		goto out;
	}
	if (external && access(dynbuf_str(&pub), F_OK) == 0) {
		rc = al_err_set(AL_EINVAL, "%s names a key already, and %s does "
		    "not exist: a new key would not be that one (to keep the "
		    "data directory's key outside it, move keys/signing.key "
		    "there)", dynbuf_str(&pub), dynbuf_str(&p));
		goto out;
	}
	if ((k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")) == NULL) {
		rc = al_err_set(AL_EENGINE, "libcrypto cannot make an Ed25519 key");
		goto out;
	}
	if ((rc = write_pem(dynbuf_str(&p), 0600, k, 1)) < 0)
		goto out;
	(void)unlink(dynbuf_str(&pub)); /* the public half follows the key */
	rc = write_pem(dynbuf_str(&pub), 0644, k, 0);
out:
	EVP_PKEY_free(k);
	dynbuf_free(&p);
	dynbuf_free(&pub);
	return rc;
}
