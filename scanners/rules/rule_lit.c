/*
 * rule_lit.c - how long a literal must every match of a pattern contain?
 *
 * Hyperscan is fast when it can search for a literal factor of each pattern;
 * a pattern made only of classes and repeats ([A-Za-z0-9]{40}) makes it run
 * an automaton over every byte. Rules with such patterns must declare
 * keywords. This is a small recursive-descent reader of the regex syntax
 * that returns a conservative answer: alternatives count for their weakest
 * branch, optional parts count for nothing, and a class of one byte or of
 * one letter's two cases ([Aa]) counts as a literal byte.
 *
 * Input: rule patterns (trusted, operator-written); recursion depth is
 * bounded by nesting, which the pattern length bounds.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

struct lit {
	const char *p;
	size_t n;
	size_t i;
};

static size_t lit_alt(struct lit *s, int depth);

/* Reads one class member's byte at s->i (a plain byte or an escape);
 * returns -1 for a member that stands for many bytes (\d, [:alpha:]). */
static int
lit_class_byte(struct lit *s)
{
	char c = s->p[s->i];

	if (c == '[' && s->i + 1 < s->n && s->p[s->i + 1] == ':') {
		const char *end = memchr(s->p + s->i, ']', s->n - s->i);

		s->i = end ? (size_t)(end - s->p) + 1 : s->n;
		return -1;
	}
	if (c == '\\' && s->i + 1 < s->n) {
		char e = s->p[s->i + 1];

		s->i += 2;
		if (e == 'x' && s->i + 1 < s->n &&
		    isxdigit((unsigned char)s->p[s->i]) &&
		    isxdigit((unsigned char)s->p[s->i + 1])) {
			char hex[3] = {s->p[s->i], s->p[s->i + 1], 0};

			s->i += 2;
			return (int)strtol(hex, NULL, 16);
		}
		if (isalnum((unsigned char)e))
			return -1;
		return (unsigned char)e;
	}
	s->i++;
	return (unsigned char)c;
}

/*
 * Classes count as a literal byte when they are one byte, one letter's two
 * cases ([Aa]), or only bytes >= 0x80 (UTF-8 lead or continuation bytes:
 * rare in source text, so Hyperscan still skips ahead quickly).
 */
static int
lit_class(struct lit *s)
{
	int members[2];
	size_t count = 0;
	int simple = 1, high = 1, neg = 0;

	s->i++; /* '[' */
	if (s->i < s->n && s->p[s->i] == '^') {
		neg = 1;
		s->i++;
	}
	if (s->i < s->n && s->p[s->i] == ']') {
		members[count++] = ']';
		high = 0;
		s->i++;
	}
	while (s->i < s->n && s->p[s->i] != ']') {
		int lo = lit_class_byte(s), hi = lo;

		if (s->i + 1 < s->n && s->p[s->i] == '-' &&
		    s->p[s->i + 1] != ']') {
			s->i++;
			hi = lit_class_byte(s);
			simple = 0;
		}
		if (lo < 0 || hi < 0) {
			simple = high = 0;
			continue;
		}
		if (lo < 0x80)
			high = 0;
		if (count < 2)
			members[count] = lo;
		count++;
	}
	if (s->i < s->n)
		s->i++; /* ']' */
	if (neg || count == 0)
		return 0;
	if (high)
		return 1;
	if (!simple || count > 2)
		return 0;
	if (count == 1)
		return 1;
	return members[0] != members[1] &&
	    tolower(members[0]) == tolower(members[1]);
}

/* Reads a quantifier if one follows; sets *min_out (0, 1 or more) and
 * *exact_one (no quantifier or {1}). */
static void
lit_quant(struct lit *s, unsigned *min_out, int *exact_one)
{
	*min_out = 1;
	*exact_one = 1;
	if (s->i >= s->n)
		return;
	switch (s->p[s->i]) {
	case '?':
	case '*':
		*min_out = 0;
		*exact_one = 0;
		s->i++;
		break;
	case '+':
		*exact_one = 0;
		s->i++;
		break;
	case '{': {
		size_t j = s->i + 1;
		unsigned lo = 0;
		int has_digit = 0, has_comma = 0;

		while (j < s->n && isdigit((unsigned char)s->p[j])) {
			lo = lo * 10 + (unsigned)(s->p[j++] - '0');
			has_digit = 1;
			if (lo > 100000)
				lo = 100000;
		}
		if (!has_digit)
			return; /* a literal '{' */
		if (j < s->n && s->p[j] == ',') {
			has_comma = 1;
			j++;
			while (j < s->n && isdigit((unsigned char)s->p[j]))
				j++;
		}
		if (j >= s->n || s->p[j] != '}')
			return;
		s->i = j + 1;
		*min_out = lo;
		*exact_one = lo == 1 && !has_comma;
		break;
	}
	default:
		return;
	}
	if (s->i < s->n && (s->p[s->i] == '?' || s->p[s->i] == '+'))
		s->i++; /* lazy or possessive */
}

/* Skips a group opening after '('; returns 0 for a capturing or
 * non-capturing group, 1 for a flags-only or zero-width construct that has
 * been consumed whole (e.g. `(?i)`), 2 for a look-around. */
static int
lit_group_open(struct lit *s)
{
	if (s->i >= s->n || s->p[s->i] != '?')
		return 0;
	s->i++;
	if (s->i >= s->n)
		return 0;
	switch (s->p[s->i]) {
	case ':':
	case '>':
	case '|':
		s->i++;
		return 0;
	case '=':
	case '!':
		s->i++;
		return 2;
	case '#': {
		const char *end = memchr(s->p + s->i, ')', s->n - s->i);

		s->i = end ? (size_t)(end - s->p) + 1 : s->n;
		return 1;
	}
	case '<':
		if (s->i + 1 < s->n && (s->p[s->i + 1] == '=' ||
		    s->p[s->i + 1] == '!')) {
			s->i += 2;
			return 2;
		}
		/* FALLTHROUGH */
	case 'P':
	case '\'': {
		/* Named group: skip to the end of the name. */
		s->i++;
		while (s->i < s->n && s->p[s->i] != '>' && s->p[s->i] != '\'')
			s->i++;
		if (s->i < s->n)
			s->i++;
		return 0;
	}
	default:
		/* Inline flags: (?i) or (?i:...). */
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

/* One concatenation up to '|' or ')'. */
static size_t
lit_seq(struct lit *s, int depth)
{
	size_t run = 0, best = 0;

	while (s->i < s->n && s->p[s->i] != '|' && s->p[s->i] != ')') {
		char c = s->p[s->i];
		int literal = 0, zero_width = 0, group = 0;
		size_t sub = 0;
		unsigned min;
		int exact;

		if (c == '(') {
			int kind;

			s->i++;
			kind = lit_group_open(s);
			if (kind == 1)
				continue;
			sub = depth < 64 ? lit_alt(s, depth + 1) : 0;
			if (s->i < s->n && s->p[s->i] == ')')
				s->i++;
			if (kind == 2) {
				lit_quant(s, &min, &exact);
				continue;
			}
			group = 1;
		} else if (c == '[') {
			literal = lit_class(s);
		} else if (c == '\\' && s->i + 1 < s->n) {
			char e = s->p[s->i + 1];

			s->i += 2;
			if (strchr("bBAzZG", e) != NULL) {
				zero_width = 1;
			} else if (e == 'x') {
				literal = 1;
				if (s->i < s->n && s->p[s->i] == '{') {
					const char *end = memchr(s->p + s->i, '}',
					    s->n - s->i);

					s->i = end ? (size_t)(end - s->p) + 1 : s->n;
				} else {
					size_t k;

					for (k = 0; k < 2 && s->i < s->n &&
					    isxdigit((unsigned char)s->p[s->i]); k++)
						s->i++;
				}
			} else if (e == 'p' || e == 'P') {
				if (s->i < s->n && s->p[s->i] == '{') {
					const char *end = memchr(s->p + s->i, '}',
					    s->n - s->i);

					s->i = end ? (size_t)(end - s->p) + 1 : s->n;
				} else if (s->i < s->n) {
					s->i++;
				}
			} else if (strchr("ntrfae0", e) != NULL) {
				literal = 1;
			} else if (!isalnum((unsigned char)e)) {
				literal = 1;
			}
		} else if (c == '^' || c == '$') {
			zero_width = 1;
			s->i++;
		} else if (c == '.') {
			s->i++;
		} else {
			literal = 1;
			s->i++;
		}
		if (zero_width)
			continue;
		lit_quant(s, &min, &exact);
		if (group) {
			if (min >= 1 && sub > best)
				best = sub;
			run = 0;
		} else if (literal && min >= 1) {
			run++;
			if (run > best)
				best = run;
			if (!exact)
				run = 1;
		} else {
			run = 0;
		}
	}
	return best;
}

static size_t
lit_alt(struct lit *s, int depth)
{
	size_t best = lit_seq(s, depth);

	while (s->i < s->n && s->p[s->i] == '|') {
		size_t b;

		s->i++;
		b = lit_seq(s, depth);
		if (b < best)
			best = b;
	}
	return best;
}

size_t
rule_pattern_literal(const char *pattern, size_t len)
{
	struct lit s = {pattern, len, 0};
	size_t best = 0;

	/* A stray ')' at top level: keep reading what follows. */
	for (;;) {
		size_t b = lit_alt(&s, 0);

		if (b > best)
			best = b;
		if (s.i >= s.n)
			break;
		s.i++;
	}
	return best;
}
