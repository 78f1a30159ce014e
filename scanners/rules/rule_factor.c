/*
 * rule_factor.c - the literal factors of a pattern: a small set of strings
 * such that every match of the pattern contains at least one of them.
 *
 * Why: Hyperscan runs fastest on literals. A rule pattern full of bounded
 * repeats and alternations (`\b(?:cat|cp|tar)\s[^\n]{0,80}?~/\.aws/...`)
 * compiles into automata that run at every byte, and a few hundred of them
 * slow the one pass over the artifact by an order of magnitude. So the
 * database holds a pattern's factors instead ("/.aws/"), and each hit is
 * confirmed by the rule's PCRE2 regex on the window around it. Every match
 * contains a factor and is at most max_width long, so the window around the
 * factor's hit holds the whole match: nothing is missed.
 *
 * The reading is conservative, like rule_lit.c: optional parts contribute
 * nothing, an alternation contributes the union of its branches' factors,
 * and a sequence the best factor set of its elements (the one whose shortest
 * string is longest). Factors are compared case-insensitively by the engine,
 * which only widens the candidate set. Input: operator-written patterns.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

#define FACTOR_MAX_SET 64   /* more alternatives than this: no factor set */
#define FACTOR_MAX_LEN 64   /* bytes kept of a long literal run */

struct fset {
	char v[FACTOR_MAX_SET][FACTOR_MAX_LEN + 1];
	size_t n;
	size_t minlen;          /* shortest string; 0 = no usable set */
};

struct fp {
	const char *p;
	size_t n;
	size_t i;
};

static void fp_alt(struct fp *s, struct fset *out, int depth);

static int
fset_better(const struct fset *a, const struct fset *b)
{
	return a->n > 0 && (b->n == 0 || a->minlen > b->minlen ||
	    (a->minlen == b->minlen && a->n < b->n));
}

/* One literal byte at s->i, or -1 for an atom that is not one. Case pairs
 * ([Aa]) read as the lower-case byte. */
static int
fp_atom(struct fp *s)
{
	char c = s->p[s->i];

	if (c == '\\' && s->i + 1 < s->n) {
		char e = s->p[s->i + 1];

		s->i += 2;
		if (e == 'x' && s->i + 1 < s->n && isxdigit((unsigned char)s->p[s->i]) &&
		    isxdigit((unsigned char)s->p[s->i + 1])) {
			char hex[3] = {s->p[s->i], s->p[s->i + 1], 0};
			int v = (int)strtol(hex, NULL, 16);

			s->i += 2;
			return v >= 0x80 ? -1 : v; /* keep factors ASCII */
		}
		if (strchr("bBAzZG", e) != NULL)
			return -2; /* zero width */
		if (e == 'n')
			return '\n';
		if (e == 't')
			return '\t';
		if (e == 'r')
			return '\r';
		if (isalnum((unsigned char)e)) {
			/* \d \w \s, \p{..}, \x{..}: not a literal byte */
			if (s->i < s->n && s->p[s->i] == '{' && (e == 'p' || e == 'P' ||
			    e == 'x')) {
				const char *end = memchr(s->p + s->i, '}', s->n - s->i);

				s->i = end ? (size_t)(end - s->p) + 1 : s->n;
			}
			return -1;
		}
		return (unsigned char)e;
	}
	if (c == '[') {
		/* [Aa] or [x] or [.] */
		size_t j = s->i + 1;
		int a = -1, b = -1, count = 0;

		while (j < s->n && s->p[j] != ']' && count < 3) {
			int ch = (unsigned char)s->p[j];

			if (ch == '\\' && j + 1 < s->n && !isalnum((unsigned char)s->p[j + 1])) {
				ch = (unsigned char)s->p[j + 1];
				j++;
			} else if (ch == '\\' || ch == '^' || ch == '-' || ch == '[') {
				count = 3;
				break;
			}
			if (count == 0)
				a = ch;
			else
				b = ch;
			count++;
			j++;
		}
		/* Skip the class whatever it was. */
		{
			size_t k = s->i + 1;

			if (k < s->n && s->p[k] == '^')
				k++;
			if (k < s->n && s->p[k] == ']')
				k++;
			while (k < s->n && s->p[k] != ']') {
				if (s->p[k] == '\\' && k + 1 < s->n)
					k++;
				else if (s->p[k] == '[' && k + 1 < s->n &&
				    s->p[k + 1] == ':') {
					const char *end = memchr(s->p + k, ']', s->n - k);

					k = end ? (size_t)(end - s->p) : s->n;
				}
				k++;
			}
			s->i = k < s->n ? k + 1 : s->n;
		}
		if (count == 1 && a < 0x80)
			return a;
		if (count == 2 && a != b && a < 0x80 && b < 0x80 &&
		    tolower(a) == tolower(b))
			return tolower(a);
		return -1;
	}
	if (strchr(".^$", c) != NULL) {
		s->i++;
		return c == '.' ? -1 : -2; /* -2: zero width */
	}
	s->i++;
	return (unsigned char)c >= 0x80 ? -1 : (unsigned char)c;
}

/* Quantifier after an atom: min count and whether it is exactly one. */
static void
fp_quant(struct fp *s, unsigned *min, int *exact)
{
	*min = 1;
	*exact = 1;
	if (s->i >= s->n)
		return;
	if (s->p[s->i] == '?' || s->p[s->i] == '*') {
		*min = 0;
		*exact = 0;
		s->i++;
	} else if (s->p[s->i] == '+') {
		*exact = 0;
		s->i++;
	} else if (s->p[s->i] == '{' && s->i + 1 < s->n &&
	    isdigit((unsigned char)s->p[s->i + 1])) {
		size_t j = s->i + 1;
		unsigned lo = 0;
		int comma = 0;

		while (j < s->n && isdigit((unsigned char)s->p[j])) {
			if (lo < 100000)
				lo = lo * 10 + (unsigned)(s->p[j] - '0');
			j++;
		}
		if (j < s->n && s->p[j] == ',') {
			comma = 1;
			j++;
			while (j < s->n && isdigit((unsigned char)s->p[j]))
				j++;
		}
		if (j < s->n && s->p[j] == '}') {
			s->i = j + 1;
			*min = lo;
			*exact = lo == 1 && !comma;
		}
	} else {
		return;
	}
	if (s->i < s->n && (s->p[s->i] == '?' || s->p[s->i] == '+'))
		s->i++;
}

static void
fset_single(struct fset *f, const char *run, size_t len)
{
	f->n = 1;
	f->minlen = len;
	memcpy(f->v[0], run, len);
	f->v[0][len] = '\0';
}

/* Opens a group after '('; returns 0 plain, 1 consumed whole, 2 look-around. */
static int
fp_group_open(struct fp *s)
{
	if (s->i >= s->n || s->p[s->i] != '?')
		return 0;
	s->i++;
	if (s->i >= s->n)
		return 0;
	switch (s->p[s->i]) {
	case ':':
	case '>':
		s->i++;
		return 0;
	case '=':
	case '!':
		s->i++;
		return 2;
	case '<':
		if (s->i + 1 < s->n && (s->p[s->i + 1] == '=' || s->p[s->i + 1] == '!')) {
			s->i += 2;
			return 2;
		}
		/* FALLTHROUGH */
	case 'P':
	case '\'':
		s->i++;
		while (s->i < s->n && s->p[s->i] != '>' && s->p[s->i] != '\'')
			s->i++;
		if (s->i < s->n)
			s->i++;
		return 0;
	default:
		while (s->i < s->n && s->p[s->i] != ')' && s->p[s->i] != ':')
			s->i++;
		if (s->i < s->n && s->p[s->i] == ')') {
			s->i++;
			return 1;
		}
		if (s->i < s->n)
			s->i++;
		return 0;
	}
}

static void
fp_seq(struct fp *s, struct fset *best, int depth)
{
	char run[FACTOR_MAX_LEN + 1];
	size_t rlen = 0;
	struct fset cand;

	best->n = 0;
	best->minlen = 0;
#define END_RUN()                                                             \
	do {                                                                  \
		if (rlen > 0) {                                               \
			fset_single(&cand, run, rlen);                        \
			if (fset_better(&cand, best))                         \
				*best = cand;                                 \
		}                                                             \
		rlen = 0;                                                     \
	} while (0)
	while (s->i < s->n && s->p[s->i] != '|' && s->p[s->i] != ')') {
		unsigned min;
		int exact, c;

		if (s->p[s->i] == '(') {
			struct fset sub;
			int kind;

			s->i++;
			kind = fp_group_open(s);
			if (kind == 1)
				continue;
			sub.n = 0;
			sub.minlen = 0;
			if (depth < 32)
				fp_alt(s, &sub, depth + 1);
			if (s->i < s->n && s->p[s->i] == ')')
				s->i++;
			fp_quant(s, &min, &exact);
			if (kind == 2)
				continue;
			END_RUN();
			if (min >= 1 && fset_better(&sub, best))
				*best = sub;
			continue;
		}
		c = fp_atom(s);
		if (c == -2)
			continue;
		fp_quant(s, &min, &exact);
		if (c < 0 || min == 0) {
			END_RUN();
			continue;
		}
		if (rlen < FACTOR_MAX_LEN)
			run[rlen++] = (char)tolower(c);
		if (!exact) {
			END_RUN();
			run[rlen++] = (char)tolower(c);
		}
	}
	END_RUN();
#undef END_RUN
}

static void
fp_alt(struct fp *s, struct fset *out, int depth)
{
	struct fset branch;

	fp_seq(s, out, depth);
	while (s->i < s->n && s->p[s->i] == '|') {
		size_t k;

		s->i++;
		fp_seq(s, &branch, depth);
		if (out->n == 0 || branch.n == 0 ||
		    out->n + branch.n > FACTOR_MAX_SET) {
			out->n = 0;
			out->minlen = 0;
			/* Keep reading the other branches to stay in step. */
			continue;
		}
		for (k = 0; k < branch.n; k++)
			memcpy(out->v[out->n++], branch.v[k], FACTOR_MAX_LEN + 1);
		if (branch.minlen < out->minlen)
			out->minlen = branch.minlen;
	}
}

int
rule_pattern_factors(const char *pattern, size_t len, char ***out,
    size_t *nout, size_t *minlen)
{
	struct fp s = {pattern, len, 0};
	struct fset *f = calloc(1, sizeof(*f));
	size_t k, j;

	*out = NULL;
	*nout = 0;
	*minlen = 0;
	if (f == NULL)
		return -1;
	fp_alt(&s, f, 0);
	if (s.i < s.n)
		f->n = 0; /* a stray ')': do not guess */
	if (f->n > 0) {
		*out = calloc(f->n, sizeof(char *));
		if (*out == NULL) {
			free(f);
			return -1;
		}
		for (k = 0; k < f->n; k++) {
			/* Drop duplicates (case-folded branches). */
			for (j = 0; j < *nout; j++)
				if (strcmp((*out)[j], f->v[k]) == 0)
					break;
			if (j < *nout)
				continue;
			(*out)[*nout] = strdup(f->v[k]);
			if ((*out)[*nout] == NULL) {
				free(f);
				return -1;
			}
			(*nout)++;
		}
		*minlen = f->minlen;
	}
	free(f);
	return 0;
}
