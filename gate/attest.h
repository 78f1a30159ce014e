/*
 * attest.h - release attestations: an in-toto Statement v1 in a DSSE
 * envelope, signed with the gate's Ed25519 key (libcrypto).
 *
 * DSSE signs PAE(type, body) = "DSSEv1" SP len(type) SP type SP len(body)
 * SP body, so that neither the payload type nor the payload can be swapped
 * without breaking the signature. The key id is the SHA-256 (hex) of the
 * public key's DER encoding.
 *
 * Trust: verification reads an attestation from anywhere (CI): it is
 * hostile until the signature checks, and even then only what it states
 * about the artifact's digest is used.
 */
#ifndef AIRLOCK_ATTEST_H
#define AIRLOCK_ATTEST_H

#include <jansson.h>
#include <openssl/evp.h>

#define ATTEST_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define ATTEST_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define ATTEST_PREDICATE_TYPE "https://airlock.dev/release/v1"

struct dynbuf;
/* Where the gate's private key is: $AIRLOCK_SIGNING_KEY if it is set (a
 * file outside the data directory, so that a copy of the data directory
 * is not a copy of the key: docs/operations.md), else
 * DATA/keys/signing.key. *external (if not NULL): 1 for the former. */
int attest_key_path(const char *datadir, struct dynbuf *out, int *external);
/* The gate's private key, from attest_key_path(): refused unless it is a
 * regular file only its owner may read or write, an Ed25519 key, and the
 * data directory's current key (DATA/keys/signing.pub); a key outside with
 * one inside is refused too (attest_key_not_inside). */
int attest_key_load(const char *datadir, EVP_PKEY **out);
/* With the key at path, outside: the data directory may not hold a key of
 * its own (keys/signing.key), or a copy of the directory would be a copy
 * of a key (AL_EINVAL, saying so). */
int attest_key_not_inside(const char *datadir, const char *path);
/* A public key from a PEM file (or the public half of a private key). */
int attest_pub_load(const char *path, EVP_PKEY **out);
/* SHA-256 hex of the public key's DER (SubjectPublicKeyInfo). */
int attest_keyid(EVP_PKEY *k, char out[65]);

/* Signs statement (serialised compactly, keys sorted) into a DSSE envelope
 * (JSON text, malloc'd). */
int attest_sign(EVP_PKEY *key, const json_t *statement, char **out);

/*
 * A keyring: the public keys a verifier trusts (the gate's current key and
 * the ones it retired), each with its key id. An attestation's key id
 * selects the key; the keyring never tries keys it was not told of.
 */
#define ATTEST_KEYRING_MAX 64     /* a key a rotation, for decades */
struct attest_keyring {
	size_t n;
	EVP_PKEY *key[ATTEST_KEYRING_MAX];
	char id[ATTEST_KEYRING_MAX][65];
};

/* Adds k (ownership passes, also on failure); a key already there is
 * dropped. */
int attest_keyring_add(struct attest_keyring *kr, EVP_PKEY *k);
/* Adds every Ed25519 key of a PEM file (PUBLIC KEY blocks, or a private
 * key's public half); a file of none, or of another kind, is AL_EINVAL,
 * one that cannot be read AL_EIO. */
int attest_keyring_load(struct attest_keyring *kr, const char *path);
void attest_keyring_clear(struct attest_keyring *kr);

/*
 * Verifies an envelope against a keyring: JSON shape, payload type; a
 * signature whose key id is in the keyring and which verifies with that
 * key over PAE; then the statement's type and predicate type, and that
 * the statement names the same key (predicate.gate_key). On success
 * *statement_out is the statement (caller json_decref) and keyid_out the
 * key that signed it. Every failure is AL_EINVAL with the reason.
 */
int attest_verify_keyring(const char *envelope, size_t n,
    const struct attest_keyring *kr, json_t **statement_out,
    char keyid_out[65]);
/* The same with a keyring of one key. */
int attest_verify(const char *envelope, size_t n, EVP_PKEY *pub,
    json_t **statement_out);

#endif
