/*
 * fuzz_fold.c - fuzz target for the folding of person names
 * (common/fold.c: NFKC case folding over a safe set), which every name in
 * a request goes through before the database compares it: arbitrary bytes
 * as a name.
 *
 * Nothing may crash, and a key must be what fold.h says: at most
 * AL_FOLD_MAX bytes, NUL-terminated at its length, strict UTF-8 of code
 * points the folding maps to themselves (folding a key gives the key),
 * single spaces between words and none around them; the same name in
 * other ASCII letter cases has the same key; the name shown (*start,
 * *len) lies within the input and folds to the same key; a refusal says
 * why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fold.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
check_key(const char *key, int n)
{
	const unsigned char *u = (const unsigned char *)key;
	size_t i = 0;

	if (n <= 0 || n > AL_FOLD_MAX || strlen(key) != (size_t)n ||
	    key[0] == ' ' || key[n - 1] == ' ' || strstr(key, "  ") != NULL)
		abort();
	while (i < (size_t)n) {
		uint32_t cp;
		size_t k = al_utf8_seq(u + i, (size_t)n - i, &cp);

		if (k == 0 || cp < 0x20 || (cp >= 'A' && cp <= 'Z'))
			abort();
		i += k;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char key[AL_FOLD_MAX + 1], again[AL_FOLD_MAX + 1];
	char other[AL_FOLD_MAX + 1], *in, *flip;
	size_t start = 0, len = 0, i;
	int n, m;

	/* In buffers of exactly their size: no NUL after the name. */
	if ((in = malloc(size ? size : 1)) == NULL ||
	    (flip = malloc(size ? size : 1)) == NULL)
		abort();
	memcpy(in, data, size);
	n = al_name_fold(key, sizeof(key), in, size, &start, &len);
	if (n < 0) {
		if (n != AL_EINVAL || al_err_msg()[0] == '\0')
			abort();
		goto out;
	}
	check_key(key, n);
	if (start + len > size || len == 0)
		abort();
	/* Idempotent: a key is its own key. */
	m = al_name_fold(again, sizeof(again), key, (size_t)n, NULL, NULL);
	if (m != n || memcmp(again, key, (size_t)n + 1) != 0)
		abort();
	/* The name as shown has the same key. */
	m = al_name_fold(again, sizeof(again), in + start, len, NULL, NULL);
	if (m != n || memcmp(again, key, (size_t)n + 1) != 0)
		abort();
	/* ASCII case does not matter (multi-byte sequences have no ASCII
	 * bytes, so flipping these cannot change another code point). */
	for (i = 0; i < size; i++)
		flip[i] = (char)((in[i] >= 'a' && in[i] <= 'z') ? in[i] - 32 :
		    (in[i] >= 'A' && in[i] <= 'Z') ? in[i] + 32 : in[i]);
	m = al_name_fold(other, sizeof(other), flip, size, NULL, NULL);
	if (m != n || memcmp(other, key, (size_t)n + 1) != 0)
		abort();
out:
	free(flip);
	free(in);
	return 0;
}
