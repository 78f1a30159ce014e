/*
 * fuzz_norm.c - fuzz target for the normalised view of a line
 * (scanners/child/scan_norm.c): arbitrary bytes as one line.
 *
 * Nothing may crash or read or write out of bounds (the buffers are exactly
 * the line's length, so AddressSanitizer sees any overrun), the view is
 * never longer than the line, a view without a reason is reported
 * unchanged, and the reason names only known passes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_norm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in, *out, *tmp, via_s[128];
	unsigned via = 0;
	size_t n;

	if (memchr(data, '\n', size) != NULL)
		return 0; /* one line */
	in = malloc(size ? size : 1);
	out = malloc(size ? size : 1);
	tmp = malloc(size ? size : 1);
	if (in == NULL || out == NULL || tmp == NULL)
		abort();
	memcpy(in, data, size);
	n = scan_norm_line(in, size, out, tmp, &via);
	if (n > size || (via & ~0x1ffu) != 0 || (size == 0 && via != 0))
		abort();
	if (via != 0 && strlen(scan_norm_via(via, via_s, sizeof(via_s))) == 0)
		abort();
	if (memcmp(in, data, size) != 0)
		abort(); /* the input is not written */
	free(in);
	free(out);
	free(tmp);
	return 0;
}
