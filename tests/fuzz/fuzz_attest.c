/*
 * fuzz_attest.c - fuzz target for attestation verification, which CI runs on
 * files from anywhere: arbitrary bytes as a DSSE envelope, verified with a
 * fixed key (the seeds are envelopes signed by it, so mutations reach the
 * statement checks too). Nothing may crash or leak; a forged envelope must
 * never verify unless it is byte for byte a signed one.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>

#include "attest.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static EVP_PKEY *key;

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
	if (key == NULL)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *st = NULL;

	if (attest_verify((const char *)data, size, key, &st) == 0) {
		/* Verified: then it must be a statement with a subject. */
		if (!json_is_array(json_object_get(st, "subject")))
			abort();
		json_decref(st);
	}
	return 0;
}
