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

/* The gate's private key (DATA/keys/signing.key). */
int attest_key_load(const char *datadir, EVP_PKEY **out);
/* A public key from a PEM file (or the public half of a private key). */
int attest_pub_load(const char *path, EVP_PKEY **out);
/* SHA-256 hex of the public key's DER (SubjectPublicKeyInfo). */
int attest_keyid(EVP_PKEY *k, char out[65]);

/* Signs statement (serialised compactly, keys sorted) into a DSSE envelope
 * (JSON text, malloc'd). */
int attest_sign(EVP_PKEY *key, const json_t *statement, char **out);

/*
 * Verifies an envelope against pub: JSON shape, payload type, a signature
 * by pub over PAE; then the statement's type and predicate type. On
 * success *statement_out is the statement (caller json_decref). Every
 * failure is AL_EINVAL with the reason.
 */
int attest_verify(const char *envelope, size_t n, EVP_PKEY *pub,
    json_t **statement_out);

#endif
