/*
 * fuzz_xor.c - fuzz target for the XOR view (scanners/child/scan_xor.c):
 * arbitrary bytes as a file's text.
 *
 * Nothing may crash, leak or read or write out of bounds (the text and the
 * buffers are allocated to their exact sizes, so AddressSanitizer sees any
 * overrun); at most the asked number of keys, each of 1 to XOR_KEY_MAX
 * bytes, distinct; the keys are the same when asked twice; no keys without
 * an XOR expression; the payloads come in order, each inside the text, at
 * least XOR_BLOB_MIN and at most XOR_BLOB_MAX bytes; a decoded payload is
 * the payload XORed with the key reported (a literal key or one byte), and
 * it reads as text; the input is not written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_decode.h"
#include "scan_xor.h"

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
check_keys(const struct xor_key *k, size_t n, size_t max)
{
	size_t i, j;

	if (n > max)
		abort();
	for (i = 0; i < n; i++) {
		if (k[i].n == 0 || k[i].n > XOR_KEY_MAX)
			abort();
		for (j = 0; j < i; j++)
			if (k[j].n == k[i].n &&
			    memcmp(k[j].k, k[i].k, k[i].n) == 0)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	unsigned char *in = malloc(XOR_BLOB_MAX), *out = malloc(XOR_BLOB_MAX);
	struct xor_key k1[XOR_KEYS], k2[XOR_KEYS], key;
	size_t n1, n2, pos = 0, last = 0, s, e, m, i, max;
	int blobs = 0;

	if (text == NULL || in == NULL || out == NULL)
		abort();
	memcpy(text, data, size);
	max = size ? (size_t)data[0] % (XOR_KEYS + 1) : XOR_KEYS;
	n1 = scan_xor_keys(text, size, k1, max);
	check_keys(k1, n1, max);
	n2 = scan_xor_keys(text, size, k2, max);
	if (n1 != n2)
		abort();
	for (i = 0; i < n1; i++)
		if (k1[i].n != k2[i].n || memcmp(k1[i].k, k2[i].k, k1[i].n) != 0)
			abort();
	if (n1 > 0 && !scan_xor_uses(text, size))
		abort();
	while ((m = scan_xor_blob(text, size, &pos, in, &s, &e)) > 0) {
		if (m < XOR_BLOB_MIN || m > XOR_BLOB_MAX || s < last ||
		    s >= e || e > size || pos < e || pos > size)
			abort();
		last = e;
		if (++blobs > 64)
			break; /* the keys are tried on a few */
		if (!scan_xor_try(in, m, k1, n1, out, &key))
			continue;
		if (key.n == 0 || key.n > XOR_KEY_MAX ||
		    !scan_is_text(out, m))
			abort();
		for (i = 0; i < m; i++)
			if (out[i] != (in[i] ^ key.k[i % key.n]))
				abort();
	}
	if (size > 0 && memcmp(text, data, size) != 0)
		abort();
	free(text);
	free(in);
	free(out);
	return 0;
}
