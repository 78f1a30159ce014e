/*
 * text.c - line cursor and bounded numbers over text in memory; see text.h.
 */
#include <string.h>

#include "text.h"

void
al_text_init(struct al_text *t, const char *p, size_t n)
{
	t->p = p;
	t->end = p + n;
	t->line = 0;
}

int
al_text_next(struct al_text *t, const char **line, size_t *len)
{
	const char *next;

	if (t->p >= t->end)
		return 0;
	*line = t->p;
	*len = al_line_len(t->p, t->end, &next);
	t->p = next;
	t->line++;
	return 1;
}

size_t
al_line_len(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	*next = nl ? nl + 1 : end;
	return nl ? (size_t)(nl - p) : (size_t)(end - p);
}

int
al_starts(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	return n >= k && memcmp(p, s, k) == 0;
}

int
al_dec_parse(const char **p, const char *end, uint64_t max, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;

	if (q >= end || *q < '0' || *q > '9')
		return -1;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');

		if (d > max || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	*p = q;
	return 0;
}

int
al_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
