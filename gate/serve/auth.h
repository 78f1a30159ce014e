/*
 * auth.h - tokens and the gate's signing key.
 *
 * A token is "alk_" and 43 base64url characters (256 random bits from the
 * kernel). It is shown once; the database keeps only its SHA-256, so a copy
 * of the database grants nothing. Lookups are by hash (a random token's hash
 * leaks nothing through timing); the stored and computed hashes are then
 * compared in constant time all the same.
 */
#ifndef AIRLOCK_AUTH_H
#define AIRLOCK_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define GATE_TOKEN_MAX 64         /* buffer size for a token */

int gate_token_new(char out[GATE_TOKEN_MAX]);
/* 1 if s has the shape of a token (before any lookup). */
int gate_token_wellformed(const char *s, size_t n);
void gate_token_hash(const char *token, size_t n, char out[65]);
/* Constant-time equality of two hex hashes. */
int gate_hash_equal(const char *a, const char *b);

/*
 * Why a token that was found is refused: "token revoked at ISO" or "token
 * expired at ISO" (UTC, to the second) in buf, and buf; NULL while it is
 * good. Said only to the holder of that token and only of it: an unknown
 * token gets the generic answer, so nothing is learnt of other tokens. When
 * both apply, what came first is said.
 */
const char *gate_token_refusal(char *buf, size_t n, int64_t revoked_at,
    int64_t expires_at, int64_t now);

/* "90s", "30m", "8h", "7d" (at most 365 days) to milliseconds. */
int gate_parse_duration(const char *s, int64_t *ms_out);

/*
 * Creates keys/ in datadir with an Ed25519 key pair: the private key
 * (PKCS#8 PEM, mode 0600) where attest_key_path() says (keys/signing.key,
 * or $AIRLOCK_SIGNING_KEY outside the data directory) and signing.pub
 * (PEM). Never overwrites: AL_EEXIST when the private key is there (a key
 * made outside gets its signing.pub written if it has none). With a key
 * outside, a keys/signing.key inside is an error (AL_EINVAL).
 */
int gate_key_create(const char *datadir);

#endif
