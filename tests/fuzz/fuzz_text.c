/*
 * fuzz_text.c - fuzz target for common/'s decoders of hostile text, which
 * every reader and every output path relies on: the line cursor and
 * bounded decimals (text.c), the UTF-8 decoder, sanitizer and terminal
 * escaper (util.c), and the checks of names and link targets (path.c).
 * Arbitrary bytes; for the path checks the first line is a member's name
 * and the second a link target (each up to a NUL).
 *
 * Nothing may crash, and each answer is checked against a reference
 * worked out here another way: the lines put back together are the
 * input; a decimal is its digits' value, or refused past the bound; a
 * UTF-8 sequence is one of the well-formed ones of Unicode's table 3-7;
 * sanitized text is valid UTF-8 without NUL (valid text unchanged);
 * escaped text has no control character, C1 control or invisible and bidi
 * code point; a link leaves the tree exactly when the name's directory
 * joined with the target climbs above the top; a name al_name_problem
 * passes is relative, without control characters or a '..' component.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dynbuf.h"
#include "path.h"
#include "text.h"
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

/* ---- the line cursor --------------------------------------------------- */

static void
lines(const char *p, size_t n)
{
	struct al_text t;
	const char *line;
	size_t len, at = 0;
	uint64_t count = 0;

	al_text_init(&t, p, n);
	while (al_text_next(&t, &line, &len)) {
		count++;
		if (line != p + at || len > n - at ||
		    memchr(line, '\n', len) != NULL || t.line != count)
			abort();
		at += len;
		if (at < n) {
			if (p[at] != '\n')
				abort();
			at++;
		}
	}
	if (at != n)
		abort();
}

/* ---- decimals ---------------------------------------------------------- */

static void
decimals(const char *p, size_t n)
{
	static const uint64_t maxes[] = {UINT64_MAX, 65535, 0, 9, 1000000};
	size_t i, k;

	for (i = 0; i < n && i < 64; i++)
		for (k = 0; k < sizeof(maxes) / sizeof(maxes[0]); k++) {
			const char *q = p + i, *end = p + n;
			unsigned __int128 v = 0;
			uint64_t got = 0;
			size_t j = i;
			int over = 0, rc;

			while (j < n && p[j] >= '0' && p[j] <= '9') {
				if (!over)
					v = v * 10 + (unsigned)(p[j] - '0');
				over |= v > maxes[k];
				j++;
			}
			rc = al_dec_parse(&q, end, maxes[k], &got);
			if (j == i || over) {
				if (rc != -1 || q != p + i)
					abort();
			} else if (rc != 0 || got != (uint64_t)v || q != p + j) {
				abort();
			}
		}
}

/* ---- UTF-8 ------------------------------------------------------------- */

/* The length of the well-formed sequence at p (table 3-7), or 0. */
static size_t
ref_utf8(const unsigned char *p, size_t n)
{
	unsigned lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

static int
valid_utf8(const unsigned char *p, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		if ((k = ref_utf8(p + i, n - i)) == 0)
			return 0;
		i += k;
	}
	return 1;
}

static void
utf8(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	struct dynbuf out;
	size_t i, count = 0, k;
	int clean = 1;

	for (i = 0; i < n; i += k ? k : 1) {
		uint32_t cp = 0;
		size_t want = ref_utf8(u + i, n - i);

		k = al_utf8_seq(u + i, n - i, &cp);
		if (k != want)
			abort();
		if (k > 0 && cp == 0)
			clean = 0;
		if (k == 0)
			clean = 0;
		count++;
	}
	if (al_utf8_count(p, n) != count)
		abort();
	dynbuf_init(&out, 4 * n + 16);
	if (al_utf8_sanitize(&out, p, n) < 0)
		abort();
	if (!valid_utf8((const unsigned char *)out.data, out.len) ||
	    (out.len > 0 && memchr(out.data, '\0', out.len) != NULL) ||
	    (clean && (out.len != n || memcmp(out.data, p, n) != 0)))
		abort();
	dynbuf_free(&out);
	dynbuf_init(&out, 16 * n + 16);
	if (al_term_escape(&out, p, n) < 0)
		abort();
	if (!valid_utf8((const unsigned char *)out.data, out.len))
		abort();
	for (i = 0; i < out.len; i += k) {
		uint32_t cp = 0;

		k = al_utf8_seq((const unsigned char *)out.data + i,
		    out.len - i, &cp);
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
		    al_is_deceptive_cp(cp))
			abort();
	}
	dynbuf_free(&out);
}

/* ---- names and links --------------------------------------------------- */

/* Reference: the link's directory and its target joined, then read
 * component by component from the top; 1 if it climbs above it. */
static int
ref_escapes(const char *relpath, const char *target)
{
	const char *base = strrchr(relpath, '/');
	size_t dn = base ? (size_t)(base - relpath) : 0;
	char *joined;
	const char *p;
	long depth = 0;
	int out = 0;

	if (target[0] == '/' || target[0] == '\0')
		return 1;
	if ((joined = malloc(dn + strlen(target) + 2)) == NULL)
		abort();
	memcpy(joined, relpath, dn);
	joined[dn] = '/';
	memcpy(joined + dn + 1, target, strlen(target) + 1);
	for (p = joined; *p && !out;) {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.')
			out = --depth < 0;
		else if (len > 0 && !(len == 1 && p[0] == '.'))
			depth++;
		p += len;
		if (*p == '/')
			p++;
	}
	free(joined);
	return out;
}

static void
names(const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n), *s;
	char name[4096], target[4096];
	size_t a = nl ? (size_t)(nl - p) : n, b = 0;

	if (a >= sizeof(name))
		a = sizeof(name) - 1;
	memcpy(name, p, a);
	name[a] = '\0';
	if (nl != NULL) {
		b = n - (size_t)(nl + 1 - p);
		if (b >= sizeof(target))
			b = sizeof(target) - 1;
		memcpy(target, nl + 1, b);
	}
	target[b] = '\0';
	if (al_link_escapes(name, target) != ref_escapes(name, target))
		abort();
	if (al_name_problem(name, 0) == NULL) {
		if (name[0] == '/' || name[0] == '\\' ||
		    (name[0] != '\0' && name[1] == ':'))
			abort();
		for (s = name; *s; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				abort();
		for (s = name; *s;) {
			size_t len = strcspn(s, "/\\");

			if ((len == 2 && s[0] == '.' && s[1] == '.') ||
			    al_git_component(s, len) == 2)
				abort();
			s += len + (s[len] != '\0');
		}
	}
	if (al_name_problem(name, 1) == NULL && al_name_problem(name, 0) != NULL)
		abort();      /* git_exact only ever adds a refusal */
	(void)al_link_into_git(target);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* In a buffer of exactly its size: no NUL after it. */
	char *p = malloc(size ? size : 1);

	if (p == NULL)
		abort();
	memcpy(p, data, size);
	lines(p, size);
	decimals(p, size);
	utf8(p, size);
	names(p, size);
	free(p);
	return 0;
}
