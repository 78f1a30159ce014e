/*
 * fuzz_alias.c - fuzz target for the alias view (scanners/child/
 * scan_alias.c): arbitrary bytes as a file's text.
 *
 * Nothing may crash, leak or read or write out of bounds (the text and each
 * view's room are allocated to their exact size, so AddressSanitizer sees
 * any overrun); the set is bounded (ALIAS_MAX names, ALIAS_ALTS targets
 * each, names and targets terminated and within their limits); a view never
 * exceeds its room, is the same when asked twice, and there is none when the
 * set is empty; the input is not written. The reader skips the lines that
 * cannot define anything and the assigned values that cannot be targets:
 * the set is the same as when every line and value is read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_alias.h"

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
check_set(const struct alias_set *as)
{
	size_t i, n = scan_alias_count(as);
	unsigned a, alts = scan_alias_alts(as);

	if (n > ALIAS_MAX || alts > ALIAS_ALTS || (n == 0) != (alts == 0))
		abort();
	for (i = 0; i < n; i++) {
		const char *nm = scan_alias_name(as, i);

		if (nm == NULL || strlen(nm) == 0 ||
		    strlen(nm) > ALIAS_NAME_MAX)
			abort();
		for (a = 0; a < alts; a++) {
			const char *t = scan_alias_target(as, i, a);

			if (t == NULL || strlen(t) == 0 ||
			    strlen(t) > ALIAS_TARGET_MAX)
				abort();
		}
	}
}

/* The two sets are the same: names, kinds of use, targets, in order. */
static void
same_sets(const struct alias_set *a, const struct alias_set *b)
{
	size_t i, n = scan_alias_count(a);
	unsigned k, alts = scan_alias_alts(a);

	if (n != scan_alias_count(b) || alts != scan_alias_alts(b))
		abort();
	for (i = 0; i < n; i++) {
		if (strcmp(scan_alias_name(a, i), scan_alias_name(b, i)) != 0)
			abort();
		for (k = 0; k < alts; k++)
			if (strcmp(scan_alias_target(a, i, k),
			    scan_alias_target(b, i, k)) != 0)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct alias_set *as, *every;
	size_t ls = 0, cap = size ? 16 + (size_t)data[0] * 8 : 16;
	char *v1 = malloc(cap), *v2 = malloc(cap);
	unsigned alt;

	if (text == NULL || v1 == NULL || v2 == NULL)
		abort();
	memcpy(text, data, size);
	if ((as = scan_alias_collect(text, size)) == NULL)
		abort(); /* only out of memory */
	check_set(as);
	if ((every = scan_alias_collect(text, 0)) == NULL ||
	    scan_alias_read_every_line(every, text, size) < 0)
		abort();
	same_sets(as, every);
	while (ls < size) {
		const char *nl = memchr(text + ls, '\n', size - ls);
		size_t le = nl ? (size_t)(nl - text) : size;

		for (alt = 0; alt <= ALIAS_ALTS; alt++) {
			size_t k1 = scan_alias_line(as, alt, text + ls, le - ls,
			    v1, cap);
			size_t k2 = scan_alias_line(as, alt, text + ls, le - ls,
			    v2, cap);

			if (k1 > cap || k1 != k2 || memcmp(v1, v2, k1) != 0)
				abort();
			k2 = scan_alias_line(every, alt, text + ls, le - ls,
			    v2, cap);
			if (k1 != k2 || memcmp(v1, v2, k1) != 0 ||
			    (scan_alias_count(as) == 0 && k1 != 0))
				abort();
		}
		ls = le + 1;
	}
	if (memcmp(text, data, size) != 0)
		abort();
	scan_alias_free(as);
	scan_alias_free(every);
	free(text);
	free(v1);
	free(v2);
	return 0;
}
