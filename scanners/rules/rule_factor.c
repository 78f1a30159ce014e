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
 * and a sequence its best run of bytes that every match holds in a row (the
 * set whose shortest string is longest), where a group that can only match
 * one of a few literals is part of the run: `os\.(?:Create|WriteFile)\(`
 * gives `os.create(` and `os.writefile(`, not `create` and `writefile`,
 * which ordinary prose is full of. Factors are compared case-insensitively by the engine,
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
	int oom;
	int bad;                /* a construct not followed: no factors */
};

static void fp_alt(struct fp *s, struct fset *out, int *exact, int depth);

static int
fset_better(const struct fset *a, const struct fset *b)
{
	return a->n > 0 && (b->n == 0 || a->minlen > b->minlen ||
	    (a->minlen == b->minlen && a->n < b->n));
}

/*
 * At k, "[:" (or "[." or "[="): where a POSIX class such as [:alpha:]
 * ends (its ']'), as PCRE2's check_posix_syntax reads one, or k when it is
 * not one (the '[' is then an ordinary member of the class).
 */
static size_t
posix_class_end(const struct fp *s, size_t k)
{
	char t = s->p[k + 1];
	size_t j;

	for (j = k + 2; j + 1 < s->n; j++) {
		if (s->p[j] == '\\' && (s->p[j + 1] == ']' || s->p[j + 1] == '\\'))
			j++;
		else if ((s->p[j] == '[' && s->p[j + 1] == t) || s->p[j] == ']')
			return k;
		else if (s->p[j] == t && s->p[j + 1] == ']')
			return j + 1;
	}
	return k;
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
		if (e == 'x') {
			/* \xH: one digit is a byte too; \x{HHH}. */
			if (s->i < s->n && s->p[s->i] == '{') {
				const char *end = memchr(s->p + s->i, '}', s->n - s->i);

				s->i = end ? (size_t)(end - s->p) + 1 : s->n;
			} else if (s->i < s->n && isxdigit((unsigned char)s->p[s->i]))
				s->i++;
			return -1;
		}
		if (e == '0') {
			/* \0, \0o, \0oo: one byte in octal. */
			if (s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '7')
				s->i++;
			if (s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '7')
				s->i++;
			return -1;
		}
		if (e == 'c') {
			/* \cX: one control byte. */
			if (s->i < s->n)
				s->i++;
			return -1;
		}
		if (strchr("123456789gkKQEN", e) != NULL && !(e == 'N' &&
		    (s->i >= s->n || s->p[s->i] != '{'))) {
			/* Back references (or octal), \K, \Q..\E, \N{..}. */
			s->bad = 1;
			return -1;
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
			    e == 'x' || e == 'o')) {
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
				if (s->p[k] == '\\' && k + 1 < s->n) {
					k++;
					/* \cX is one byte; \Q..\E not followed */
					if (s->p[k] == 'c' && k + 1 < s->n)
						k++;
					else if (s->p[k] == 'Q' || s->p[k] == 'E')
						s->bad = 1;
				} else if (s->p[k] == '[' && k + 1 < s->n &&
				    strchr(":.=", s->p[k + 1]) != NULL)
					k = posix_class_end(s, k);
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

/* Opens a group after '('; returns 0 plain, 1 consumed whole, 2 look-around. */
/*
 * Opens a group after '(': 0 a group to read, 1 consumed whole and zero
 * width (an option setting, a comment), 2 a look-around to read (zero
 * width). Anything else PCRE2 knows (verbs such as (*ACCEPT), recursion,
 * conditions, back references, extended mode) marks the pattern as one
 * this reading does not follow: it then has no factors.
 */
static int
fp_group_open(struct fp *s)
{
	size_t j;

	if (s->i < s->n && s->p[s->i] == '*') {
		s->bad = 1;
		return 0;
	}
	if (s->i >= s->n || s->p[s->i] != '?')
		return 0;
	s->i++;
	if (s->i >= s->n)
		return 0;
	switch (s->p[s->i]) {
	case '#':
		/* A comment, to the first ')' (no escapes in it). */
		while (s->i < s->n && s->p[s->i] != ')')
			s->i++;
		if (s->i < s->n)
			s->i++;
		return 1;
	case ':':
	case '>':
	case '|':
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
		if (s->p[s->i] == 'P' && (s->i + 1 >= s->n || s->p[s->i + 1] != '<')) {
			s->bad = 1; /* (?P=name) (?P>name) */
			return 0;
		}
		if (s->p[s->i] == 'P')
			s->i++;
		s->i++;
		while (s->i < s->n && (isalnum((unsigned char)s->p[s->i]) ||
		    s->p[s->i] == '_'))
			s->i++;
		if (s->i < s->n && (s->p[s->i] == '>' || s->p[s->i] == '\''))
			s->i++;
		else
			s->bad = 1;
		return 0;
	default:
		/* Option letters, then ')' or ':'. */
		for (j = s->i; j < s->n && (isalpha((unsigned char)s->p[j]) ||
		    s->p[j] == '-' || s->p[j] == '^'); j++)
			if (s->p[j] == 'x' || !strchr("imnsJU-^", s->p[j]))
				s->bad = 1; /* x: white space is not literal */
		if (j == s->i || j >= s->n || (s->p[j] != ')' && s->p[j] != ':'))
			s->bad = 1;
		s->i = j < s->n ? j + 1 : s->n;
		return j < s->n && s->p[j] == ')' ? 1 : 0;
	}
}

static void
fset_minlen(struct fset *f)
{
	size_t k;

	f->minlen = f->n > 0 ? strlen(f->v[0]) : 0;
	for (k = 1; k < f->n; k++)
		if (strlen(f->v[k]) < f->minlen)
			f->minlen = strlen(f->v[k]);
}

/* f := the one string of byte c (the empty string if c is NUL). */
static void
fset_byte(struct fset *f, char c)
{
	f->n = 1;
	f->v[0][0] = c;
	f->v[0][1] = '\0';
	f->minlen = c != '\0';
}

/* Every string of f followed by byte c; 0 (f unchanged) if one is
 * already FACTOR_MAX_LEN long. */
static int
fset_append(struct fset *f, char c)
{
	size_t k, l;

	for (k = 0; k < f->n; k++)
		if (strlen(f->v[k]) >= FACTOR_MAX_LEN)
			return 0;
	for (k = 0; k < f->n; k++) {
		l = strlen(f->v[k]);
		f->v[k][l] = c;
		f->v[k][l + 1] = '\0';
	}
	fset_minlen(f);
	return 1;
}

/* f := f followed by each string of g (every pairing), into tmp; 0 if the
 * product has more strings than a set holds. */
static int
fset_product(struct fset *f, const struct fset *g, struct fset *tmp)
{
	size_t a, b, la, lb;

	if (f->n * g->n > FACTOR_MAX_SET)
		return 0;
	tmp->n = 0;
	for (a = 0; a < f->n; a++)
		for (b = 0; b < g->n; b++) {
			la = strlen(f->v[a]);
			lb = strlen(g->v[b]);
			if (la + lb > FACTOR_MAX_LEN)
				return 0;
			memcpy(tmp->v[tmp->n], f->v[a], la);
			memcpy(tmp->v[tmp->n] + la, g->v[b], lb + 1);
			tmp->n++;
		}
	memcpy(f->v, tmp->v, sizeof(f->v));
	f->n = tmp->n;
	fset_minlen(f);
	return 1;
}

/*
 * One branch of an alternation. The bytes every match must hold in a row
 * are gathered as a set `cur` of strings, one of which every match holds:
 * a literal byte is appended to each, a group that can only match one of a
 * few literal strings (`(?:Create|WriteFile)`, exact) multiplies the set
 * (`os.Create(`, `os.WriteFile(`), and anything else ends the run. The
 * best run is the branch's factor set; *exact says the branch matches
 * exactly one of its strings (then they are the whole branch).
 */
static void
fp_seq(struct fp *s, struct fset *best, int *exact, int depth)
{
	struct fset *cur = calloc(3, sizeof(*cur)), *cand, *tmp;
	int seq_exact = 1;

	best->n = 0;
	best->minlen = 0;
	*exact = 0;
	if (cur == NULL) {
		s->oom = 1;
		s->i = s->n;
		return;
	}
	cand = cur + 1;
	tmp = cur + 2;
#define END_RUN()                                                             \
	do {                                                                  \
		if (cur->n > 0 && fset_better(cur, best))                     \
			*best = *cur;                                         \
		cur->n = 0;                                                   \
		cur->minlen = 0;                                              \
	} while (0)
	while (s->i < s->n && s->p[s->i] != '|' && s->p[s->i] != ')') {
		unsigned min;
		int qexact, c;

		if (s->p[s->i] == '(') {
			int kind, sub_exact = 0;

			s->i++;
			kind = fp_group_open(s);
			if (kind == 1) {
				/* A quantifier after a comment repeats what came
				 * before it: not followed. */
				if (s->i < s->n && strchr("?*+{", s->p[s->i]))
					s->bad = 1;
				continue;
			}
			cand->n = 0;
			cand->minlen = 0;
			if (depth < 32)
				fp_alt(s, cand, &sub_exact, depth + 1);
			if (s->i < s->n && s->p[s->i] == ')')
				s->i++;
			fp_quant(s, &min, &qexact);
			if (kind == 2)
				continue;
			if (min >= 1 && qexact && sub_exact && cand->n > 0) {
				if (cur->n == 0 || fset_product(cur, cand, tmp)) {
					if (cur->n == 0)
						*cur = *cand;
					continue;
				}
				/* Too many strings: a new run starts. */
				seq_exact = 0;
				END_RUN();
				*cur = *cand;
				continue;
			}
			seq_exact = 0;
			END_RUN();
			if (min >= 1 && fset_better(cand, best))
				*best = *cand;
			continue;
		}
		c = fp_atom(s);
		if (c == -2)
			continue;
		fp_quant(s, &min, &qexact);
		if (c < 0 || min == 0) {
			seq_exact = 0;
			END_RUN();
			continue;
		}
		if (cur->n == 0)
			fset_byte(cur, '\0');
		if (!fset_append(cur, (char)tolower(c))) {
			/* A run this long is factor enough: a new one starts. */
			seq_exact = 0;
			END_RUN();
			fset_byte(cur, (char)tolower(c));
		}
		if (!qexact) {
			seq_exact = 0;
			END_RUN();
			fset_byte(cur, (char)tolower(c));
		}
	}
	if (seq_exact && cur->n == 0)
		fset_byte(cur, '\0'); /* an empty branch matches "" */
	END_RUN();
#undef END_RUN
	*exact = seq_exact && best->n > 0;
	free(cur);
}

static void
fp_alt(struct fp *s, struct fset *out, int *exact, int depth)
{
	struct fset *branch = calloc(1, sizeof(*branch));
	int bexact;

	if (branch == NULL) {
		s->oom = 1;
		s->i = s->n;
		out->n = 0;
		*exact = 0;
		return;
	}
	fp_seq(s, out, exact, depth);
	while (s->i < s->n && s->p[s->i] == '|') {
		size_t k;

		s->i++;
		fp_seq(s, branch, &bexact, depth);
		*exact = *exact && bexact;
		if (out->n == 0 || branch->n == 0 ||
		    out->n + branch->n > FACTOR_MAX_SET) {
			out->n = 0;
			out->minlen = 0;
			*exact = 0;
			/* Keep reading the other branches to stay in step. */
			continue;
		}
		for (k = 0; k < branch->n; k++)
			memcpy(out->v[out->n++], branch->v[k], FACTOR_MAX_LEN + 1);
		if (branch->minlen < out->minlen)
			out->minlen = branch->minlen;
	}
	free(branch);
}

int
rule_pattern_factors(const char *pattern, size_t len, char ***out,
    size_t *nout, size_t *minlen)
{
	struct fp s = {pattern, len, 0, 0, 0};
	struct fset *f = calloc(1, sizeof(*f));
	size_t k, j;
	int exact;

	*out = NULL;
	*nout = 0;
	*minlen = 0;
	if (f == NULL)
		return -1;
	fp_alt(&s, f, &exact, 0);
	if (s.oom) {
		free(f);
		return -1;
	}
	if (s.i < s.n || s.bad)
		f->n = 0; /* a stray ')', or a construct not followed */
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
