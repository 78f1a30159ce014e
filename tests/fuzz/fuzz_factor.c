/*
 * fuzz_factor.c - fuzz target for the literal factors of a pattern
 * (scanners/rules/rule_factor.c), with an oracle: the input's first line
 * is a pattern, the rest a subject.
 *
 * The engine puts a rule's factors in the Hyperscan database instead of
 * its pattern and confirms each factor's hit with PCRE2 on the window
 * around it (docs/architecture.md, "Rules in, one database out"). That is
 * exact only if every match of the pattern holds one of the factors; a
 * match that holds none is a match the engine never looks for, a miss. So:
 * the pattern is compiled with PCRE2 as the loader compiles it, every
 * match in the subject is found, and each must contain a factor (compared
 * without ASCII case, as Hyperscan compares them). Patterns PCRE2 refuses
 * are skipped (the loader refuses them too); nothing may crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rule.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Does s[0..n) hold f, without ASCII case? */
static int
holds(const char *s, size_t n, const char *f)
{
	size_t fl = strlen(f), i, j;

	for (i = 0; i + fl <= n; i++) {
		for (j = 0; j < fl; j++) {
			unsigned char a = (unsigned char)s[i + j];
			unsigned char b = (unsigned char)f[j];

			if (a >= 'A' && a <= 'Z')
				a = (unsigned char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (unsigned char)(b - 'A' + 'a');
			if (a != b)
				break;
		}
		if (j == fl)
			return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *nl = memchr(in, '\n', size);
	size_t plen = nl ? (size_t)(nl - in) : size, slen, nf = 0, minlen = 0, i;
	const char *subj = nl ? nl + 1 : in + size;
	char *pat, **f = NULL;
	pcre2_compile_context *cc;
	pcre2_match_context *mc;
	pcre2_match_data *md;
	pcre2_code *re;
	PCRE2_SIZE off, pos = 0, *ov;
	int err, rc;

	if (plen > 512 || memchr(in, '\0', plen) != NULL)
		return 0;
	slen = size - (size_t)(subj - in);
	if ((pat = malloc(plen + 1)) == NULL)
		abort();
	memcpy(pat, in, plen);
	pat[plen] = '\0';
	if ((cc = pcre2_compile_context_create(NULL)) == NULL ||
	    pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF) != 0)
		abort();
	re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
	    PCRE2_MULTILINE | PCRE2_USE_OFFSET_LIMIT, &err, &off, cc);
	pcre2_compile_context_free(cc);
	if (re == NULL) {
		free(pat);
		return 0;
	}
	if (rule_pattern_factors(pat, plen, &f, &nf, &minlen) < 0)
		abort(); /* only out of memory may fail */
	for (i = 0; i < nf; i++)
		if (strlen(f[i]) < minlen)
			abort();
	if (nf > 0 && minlen > 0) {
		md = pcre2_match_data_create_from_pattern(re, NULL);
		mc = pcre2_match_context_create(NULL);
		if (md == NULL || mc == NULL)
			abort();
		pcre2_set_match_limit(mc, 100000);
		pcre2_set_depth_limit(mc, 1000);
		ov = pcre2_get_ovector_pointer(md);
		while (pos <= slen && (rc = pcre2_match(re, (PCRE2_SPTR)subj,
		    slen, pos, 0, md, mc)) > 0) {
			for (i = 0; i < nf; i++)
				if (holds(subj + ov[0], ov[1] - ov[0], f[i]))
					break;
			if (i == nf)
				abort(); /* a match with no factor: a miss */
			pos = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
		}
		pcre2_match_context_free(mc);
		pcre2_match_data_free(md);
	}
	for (i = 0; i < nf; i++)
		free(f[i]);
	free(f);
	pcre2_code_free(re);
	free(pat);
	return 0;
}
