/*
 * scan_norm.c - the normalised view of a line (see scan_norm.h).
 *
 * Attackers who read our rules write `getattr(os, 'sys'+'tem')`, `c''url`,
 * `\x63url`, `ｅｘｅｃ` or `String.fromCharCode(99,117,114,108)`: the same
 * program as the spelling a rule knows, to an interpreter. Each pass below
 * undoes one family of such tricks with literals only (nothing is run, no
 * variable is followed); the passes run in an order where each one's
 * output is the next one's input, and the join pass runs again after the
 * passes that make new literals (chr(99) + chr(117) -> 'c' + 'u' -> 'cu').
 *
 * Every pass shrinks or keeps the line, so a view fits in the input's
 * length. Lines are read as bytes; what is not ASCII is copied unless a
 * pass folds it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scan_norm.h"

static int
is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

static int
is_quote(unsigned char c)
{
	return c == '\'' || c == '"' || c == '`';
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
printable(unsigned c)
{
	return c >= 0x20 && c < 0x7f;
}

/* ---- pass 1: characters ------------------------------------------------- */

/*
 * Unicode look-alikes an interpreter or a shell reads as ASCII, or
 * ignores: fullwidth forms (U+FF01-FF5E), the ideographic space, dashes
 * (PowerShell takes U+2013 for '-'), typographic quotes (PowerShell takes
 * them for quotes), mathematical letters and digits, and zero-width
 * characters. Returns the bytes of the sequence at p (0 if none) and the
 * ASCII byte in *c (0: drop it).
 */
static size_t
fold_unicode(const unsigned char *p, size_t n, unsigned char *c)
{
	uint32_t cp;

	if (n >= 3 && p[0] == 0xef && p[1] == 0xbc && p[2] >= 0x81 &&
	    p[2] <= 0xbf) {
		*c = (unsigned char)(p[2] - 0x81 + 0x21);
		return 3;
	}
	if (n >= 3 && p[0] == 0xef && p[1] == 0xbd && p[2] >= 0x80 &&
	    p[2] <= 0x9e) {
		*c = (unsigned char)(p[2] - 0x80 + 0x60);
		return 3;
	}
	if (n >= 3 && p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80) {
		*c = ' ';
		return 3;
	}
	if (n >= 3 && p[0] == 0xe2 && p[1] == 0x80) {
		if (p[2] >= 0x90 && p[2] <= 0x95)
			*c = '-';
		else if (p[2] >= 0x98 && p[2] <= 0x9b)
			*c = '\'';
		else if (p[2] >= 0x9c && p[2] <= 0x9f)
			*c = '"';
		else if (p[2] >= 0x8b && p[2] <= 0x8d)
			*c = 0;
		else
			return 0;
		return 3;
	}
	if (n >= 3 && p[0] == 0xe2 && p[1] == 0x88 && p[2] == 0x92) {
		*c = '-';
		return 3;
	}
	if (n >= 3 && p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0xa0) {
		*c = 0;
		return 3;
	}
	if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		*c = 0;
		return 3;
	}
	if (n >= 4 && p[0] == 0xf0 && p[1] == 0x9d && (p[2] & 0xc0) == 0x80 &&
	    (p[3] & 0xc0) == 0x80) {
		cp = 0x1d000 | (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
		if (cp >= 0x1d400 && cp <= 0x1d6a3) {
			unsigned k = (cp - 0x1d400) % 52;

			*c = (unsigned char)(k < 26 ? 'A' + k : 'a' + k - 26);
			return 4;
		}
		if (cp >= 0x1d7ce && cp <= 0x1d7ff) {
			*c = (unsigned char)('0' + (cp - 0x1d7ce) % 10);
			return 4;
		}
	}
	return 0;
}

/* An escape at p that stands for a printable ASCII byte: its length, the
 * byte in *c; 0 if none. \\ is its own (length 2, *c 0: copied). */
static size_t
escape_at(const unsigned char *p, size_t n, unsigned char *c)
{
	unsigned v = 0;
	size_t i;

	if (n < 2 || p[0] != '\\')
		return 0;
	if (p[1] == '\\') {
		*c = 0;
		return 2;
	}
	if ((p[1] == 'x' || p[1] == 'X') && n >= 4 && hexval(p[2]) >= 0 &&
	    hexval(p[3]) >= 0) {
		v = (unsigned)(hexval(p[2]) << 4 | hexval(p[3]));
		i = 4;
	} else if (p[1] == 'u' && n >= 6 && p[2] != '{') {
		for (i = 2; i < 6; i++) {
			if (hexval(p[i]) < 0)
				return 0;
			v = v << 4 | (unsigned)hexval(p[i]);
		}
	} else if (p[1] == 'u' && n >= 5 && p[2] == '{') {
		for (i = 3; i < n && i < 10 && p[i] != '}'; i++) {
			if (hexval(p[i]) < 0)
				return 0;
			v = v << 4 | (unsigned)hexval(p[i]);
		}
		if (i >= n || p[i] != '}' || i == 3)
			return 0;
		i++;
	} else if (n >= 4 && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' &&
	    p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
		v = (unsigned)((p[1] - '0') << 6 | (p[2] - '0') << 3 |
		    (p[3] - '0'));
		i = 4;
	} else {
		return 0;
	}
	if (!printable(v))
		return 0;
	*c = (unsigned char)v;
	return i;
}

/* Three or more %HH in a row, each printable: their count. */
static size_t
percent_run(const unsigned char *p, size_t n)
{
	size_t k = 0;

	while (3 * (k + 1) <= n && p[3 * k] == '%' &&
	    hexval(p[3 * k + 1]) >= 0 && hexval(p[3 * k + 2]) >= 0 &&
	    printable((unsigned)(hexval(p[3 * k + 1]) << 4 |
	    hexval(p[3 * k + 2]))))
		k++;
	return k >= 3 ? k : 0;
}

static size_t
pass_chars(const unsigned char *p, size_t n, unsigned char *o, unsigned *via)
{
	size_t i = 0, k = 0, m, r, j;
	unsigned char c;

	while (i < n) {
		if (p[i] >= 0xe2 && (m = fold_unicode(p + i, n - i, &c)) > 0) {
			if (c != 0)
				o[k++] = c;
			i += m;
			*via |= NORM_UNICODE;
		} else if (p[i] == '\\' && (m = escape_at(p + i, n - i, &c))) {
			if (c == 0) {
				o[k++] = p[i];
				o[k++] = p[i + 1];
			} else {
				o[k++] = c;
				*via |= NORM_ESCAPES;
			}
			i += m;
		} else if (p[i] == '%' && (r = percent_run(p + i, n - i)) > 0) {
			for (j = 0; j < r; j++)
				o[k++] = (unsigned char)(hexval(p[i + 3 * j + 1])
				    << 4 | hexval(p[i + 3 * j + 2]));
			i += 3 * r;
			*via |= NORM_ESCAPES;
		} else {
			o[k++] = p[i++];
		}
	}
	return k;
}

/* ---- pass 2: literals joined, shell quoting ----------------------------- */

/* Is the word before the quote at i a string prefix (f"", rb'', u'')? */
static int
str_prefix(const unsigned char *p, size_t i)
{
	size_t w = i;

	while (w > 0 && is_word(p[w - 1]))
		w--;
	if (i - w > 2)
		return 0;
	for (; w < i; w++)
		if (strchr("bfruBFRU", p[w]) == NULL)
			return 0;
	return 1;
}

/*
 * 'a' + 'b' (Python, JavaScript, Ruby, PowerShell, Java), "a" . "b" (PHP,
 * Perl), 'a' .. 'b' (Lua), "a" & "b" (VBScript) and 'a' 'b' (Python's and
 * C's adjacent literals) become one literal: the closing quote, the
 * operator and the opening quote go. In a shell word, quotes are removed
 * (c''url, "cu"rl, c"ur"l: curl), as are backslashes between letters and
 * $IFS / ${IFS}, which split to a space.
 */
static size_t
pass_join(const unsigned char *p, size_t n, unsigned char *o, unsigned *via)
{
	size_t i = 0, k = 0, j;
	unsigned char q = 0;

	while (i < n) {
		unsigned char c = p[i];

		if (q != 0) {
			if (c == '\\' && q != '\'' && i + 1 < n) {
				o[k++] = p[i++];
				o[k++] = p[i++];
				continue;
			}
			if (c != q) {
				o[k++] = p[i++];
				continue;
			}
			/* The literal closes: is another one joined to it? */
			j = i + 1;
			while (j < n && (p[j] == ' ' || p[j] == '\t'))
				j++;
			if (j < n && (p[j] == '+' || p[j] == '&'))
				j++;
			else if (j + 1 < n && p[j] == '.' && p[j + 1] == '.')
				j += 2;
			else if (j < n && p[j] == '.')
				j++;
			while (j < n && (p[j] == ' ' || p[j] == '\t'))
				j++;
			if (j < n && is_quote(p[j]) && (j > i + 1 || p[j] == q)) {
				q = p[j];
				i = j + 1;
				*via |= NORM_JOIN;
				continue;
			}
			/* A quote that ends inside a word: shell quoting. */
			o[k++] = p[i++];
			q = 0;
			continue;
		}
		if (is_quote(c) && c != '`') {
			/* c''url, cu"r"l, "cu"rl: a quoted part of a word. */
			size_t e = i + 1;

			while (e < n && p[e] != c && !(c == '"' && p[e] == '\\'))
				e++;
			if (e < n && p[e] == c && e - i <= 64) {
				int left = i > 0 && is_word(p[i - 1]);
				int right = e + 1 < n && is_word(p[e + 1]);
				int ok = (left || right) &&
				    !(left && !right && str_prefix(p, i));

				for (j = i + 1; ok && j < e; j++)
					if (!is_word(p[j]) && p[j] != '-' &&
					    p[j] != '.' && p[j] != '/')
						ok = 0;
				if (ok) {
					memcpy(o + k, p + i + 1, e - i - 1);
					k += e - i - 1;
					i = e + 1;
					*via |= NORM_SHELL;
					continue;
				}
			}
			q = c;
			o[k++] = p[i++];
			continue;
		}
		if (c == '\\' && i > 0 && i + 1 < n && is_word(p[i - 1]) &&
		    ((p[i + 1] >= 'a' && p[i + 1] <= 'z') ||
		    (p[i + 1] >= 'A' && p[i + 1] <= 'Z')) &&
		    p[i + 1] != 'n' && p[i + 1] != 't' && p[i + 1] != 'r') {
			i++;
			*via |= NORM_SHELL;
			continue;
		}
		if (c == '$' && i + 4 <= n && memcmp(p + i + 1, "IFS", 3) == 0 &&
		    !(i + 4 < n && is_word(p[i + 4]))) {
			o[k++] = ' ';
			i += 4;
			*via |= NORM_SHELL;
			continue;
		}
		if (c == '$' && i + 6 <= n && memcmp(p + i + 1, "{IFS", 4) == 0) {
			for (j = i + 5; j < n && j < i + 12 && p[j] != '}'; j++)
				;
			if (j < n && p[j] == '}') {
				o[k++] = ' ';
				i = j + 1;
				*via |= NORM_SHELL;
				continue;
			}
		}
		o[k++] = p[i++];
	}
	return k;
}

/* ---- pass 3: reflection and character codes ----------------------------- */

/* At p: optional blanks, a quote, an identifier (dots allowed when dots),
 * the same quote. Its end in *end and the name in [*s, *e). */
static int
quoted_name(const unsigned char *p, size_t n, size_t at, int dots,
    size_t *s, size_t *e, size_t *end)
{
	size_t i = at;
	unsigned char q;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i >= n || !is_quote(p[i]))
		return 0;
	q = p[i++];
	*s = i;
	while (i < n && (is_word(p[i]) || (dots && p[i] == '.')))
		i++;
	if (i >= n || p[i] != q || i == *s || (p[*s] >= '0' && p[*s] <= '9'))
		return 0;
	*e = i;
	*end = i + 1;
	return 1;
}

static size_t
skip_blank(const unsigned char *p, size_t n, size_t i)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

/* The index after the last byte before i that is not a blank. */
static size_t
back_blank(const unsigned char *p, size_t i)
{
	while (i > 0 && (p[i - 1] == ' ' || p[i - 1] == '\t'))
		i--;
	return i;
}

/* Does the line at i start with word w (and not in the middle of one)? */
static int
word_at(const unsigned char *p, size_t n, size_t i, const char *w)
{
	size_t l = strlen(w);

	return i + l <= n && memcmp(p + i, w, l) == 0 &&
	    (i == 0 || !is_word(p[i - 1]) || !is_word((unsigned char)w[0]));
}

/* A list of character codes "99, 117,0x72" up to ')' or ']': written as
 * the characters (quoted with q) at o; returns the bytes written and the
 * end in *end, or 0. */
static size_t
char_codes(const unsigned char *p, size_t n, size_t i, unsigned char close,
    unsigned char *o, size_t room, size_t *end)
{
	size_t k = 1;

	o[0] = '"';
	for (;;) {
		unsigned v = 0;
		size_t d = 0;

		i = skip_blank(p, n, i);
		if (i + 1 < n && p[i] == '0' && (p[i + 1] == 'x' ||
		    p[i + 1] == 'X')) {
			for (i += 2; i < n && hexval(p[i]) >= 0 && d < 4; d++)
				v = v << 4 | (unsigned)hexval(p[i++]);
		} else {
			for (; i < n && p[i] >= '0' && p[i] <= '9' && d < 4; d++)
				v = v * 10 + (unsigned)(p[i++] - '0');
		}
		if (d == 0 || !printable(v) || v == '"' || v == '\\' ||
		    k + 2 > room)
			return 0;
		o[k++] = (unsigned char)v;
		i = skip_blank(p, n, i);
		if (i < n && p[i] == ',') {
			i++;
			continue;
		}
		if (i < n && p[i] == close)
			break;
		return 0;
	}
	o[k++] = '"';
	*end = i + 1;
	return k;
}

/* A literal at p[i] (a quote): its closing quote's index, or 0. */
static size_t
literal_end(const unsigned char *p, size_t n, size_t i)
{
	size_t j;

	for (j = i + 1; j < n && p[j] != p[i]; j++)
		if (p[j] == '\\')
			return 0; /* escapes: not a plain literal */
	return j < n ? j : 0;
}

static int
starts(const unsigned char *p, size_t n, size_t i, const char *w)
{
	size_t l = strlen(w);

	return i + l <= n && memcmp(p + i, w, l) == 0;
}

/*
 * 'hs|lruc'[::-1] (Python), "...".split("").reverse().join("") (JavaScript)
 * and codecs.decode('...', 'rot13') (Python): the literal as it evaluates.
 * Returns the bytes consumed (the output is as long as the literal), or 0.
 */
static size_t
literal_op(const unsigned char *p, size_t n, size_t i, unsigned char *o,
    unsigned *via)
{
	static const char *const rev[] = {
		"[::-1]", ".split('').reverse().join('')",
		".split(\"\").reverse().join(\"\")",
	};
	size_t e = literal_end(p, n, i), j, k;

	if (e == 0)
		return 0;
	for (k = 0; k < sizeof(rev) / sizeof(rev[0]); k++)
		if (starts(p, n, e + 1, rev[k]))
			break;
	if (k == sizeof(rev) / sizeof(rev[0]))
		return 0;
	o[0] = p[i];
	for (j = i + 1; j < e; j++)
		o[e - j] = p[j];
	o[e - i] = p[e];
	*via |= NORM_REVERSE;
	return e + 1 - i + strlen(rev[k]);
}

static unsigned char
rot13(unsigned char c)
{
	if (c >= 'a' && c <= 'z')
		return (unsigned char)('a' + (c - 'a' + 13) % 26);
	if (c >= 'A' && c <= 'Z')
		return (unsigned char)('A' + (c - 'A' + 13) % 26);
	return c;
}

/* codecs.decode('...', 'rot13') or 'rot_13': the decoded literal. */
static size_t
rot13_call(const unsigned char *p, size_t n, size_t i, unsigned char *o,
    unsigned *via)
{
	size_t a = skip_blank(p, n, i + 14), e, j, c, s2, e2, end;

	if (a >= n || !is_quote(p[a]) || (e = literal_end(p, n, a)) == 0)
		return 0;
	c = skip_blank(p, n, e + 1);
	if (c >= n || p[c] != ',' ||
	    !quoted_name(p, n, c + 1, 0, &s2, &e2, &end) ||
	    !((e2 - s2 == 5 && memcmp(p + s2, "rot13", 5) == 0) ||
	    (e2 - s2 == 6 && memcmp(p + s2, "rot_13", 6) == 0)))
		return 0;
	end = skip_blank(p, n, end);
	if (end >= n || p[end] != ')')
		return 0;
	o[0] = p[a];
	for (j = a + 1; j < e; j++)
		o[j - a] = rot13(p[j]);
	o[e - a] = p[e];
	*via |= NORM_ROT13;
	return end + 1 - i;
}

static size_t
pass_reflect(const unsigned char *p, size_t n, unsigned char *o, unsigned *via)
{
	static const char *const scopes[] = {
		"globals()", "locals()", "vars()", "__builtins__.__dict__",
		"builtins.__dict__", "__builtins__",
	};
	/* The bytes the forms below start with: any other is copied. */
	static const unsigned char first[256] = {
		['\''] = 1, ['"'] = 1, ['`'] = 1, ['['] = 1, ['_'] = 1,
		['S'] = 1, ['b'] = 1, ['c'] = 1, ['g'] = 1, ['i'] = 1,
		['l'] = 1, ['v'] = 1,
	};
	size_t i = 0, k = 0, s, e, end, j, m;

	while (i < n) {
		if (!first[p[i]]) {
			o[k++] = p[i++];
			continue;
		}
		if (is_quote(p[i]) && (m = literal_op(p, n, i, o + k, via))) {
			k += literal_end(p, n, i) + 1 - i;
			i += m;
			continue;
		}
		if (p[i] == 'c' && word_at(p, n, i, "codecs.decode(") &&
		    (m = rot13_call(p, n, i, o + k, via)) > 0) {
			k += literal_end(p, n, skip_blank(p, n, i + 14)) + 1 -
			    skip_blank(p, n, i + 14);
			i += m;
			continue;
		}
		/* getattr(X, 'name') -> X.name */
		if (p[i] == 'g' && word_at(p, n, i, "getattr")) {
			size_t a = skip_blank(p, n, i + 7), x0, x1;

			if (a < n && p[a] == '(') {
				x0 = skip_blank(p, n, a + 1);
				for (x1 = x0; x1 < n && (is_word(p[x1]) ||
				    p[x1] == '.'); x1++)
					;
				j = skip_blank(p, n, x1);
				if (x1 > x0 && j < n && p[j] == ',' &&
				    quoted_name(p, n, j + 1, 0, &s, &e, &end) &&
				    (end = skip_blank(p, n, end)) < n &&
				    p[end] == ')' &&
				    (x1 - x0) + 1 + (e - s) <= end + 1 - i) {
					memcpy(o + k, p + x0, x1 - x0);
					k += x1 - x0;
					o[k++] = '.';
					memcpy(o + k, p + s, e - s);
					k += e - s;
					i = end + 1;
					*via |= NORM_REFLECT;
					continue;
				}
			}
		}
		/* __import__('os'), importlib.import_module('os') -> os */
		if ((p[i] == '_' && word_at(p, n, i, "__import__")) ||
		    (p[i] == 'i' && word_at(p, n, i, "importlib.import_module"))) {
			size_t a = skip_blank(p, n, i + (p[i] == '_' ? 10 : 23));

			if (a < n && p[a] == '(' &&
			    quoted_name(p, n, a + 1, 1, &s, &e, &end) &&
			    (end = skip_blank(p, n, end)) < n && p[end] == ')') {
				memcpy(o + k, p + s, e - s);
				k += e - s;
				i = end + 1;
				*via |= NORM_REFLECT;
				continue;
			}
		}
		/* globals()['eval'] -> eval */
		for (j = 0; j < sizeof(scopes) / sizeof(scopes[0]); j++) {
			size_t a;

			if (p[i] != (unsigned char)scopes[j][0] ||
			    !word_at(p, n, i, scopes[j]))
				continue;
			a = skip_blank(p, n, i + strlen(scopes[j]));
			if (a < n && p[a] == '[' &&
			    quoted_name(p, n, a + 1, 0, &s, &e, &end) &&
			    (end = skip_blank(p, n, end)) < n && p[end] == ']')
				break;
		}
		if (j < sizeof(scopes) / sizeof(scopes[0])) {
			memcpy(o + k, p + s, e - s);
			k += e - s;
			i = end + 1;
			*via |= NORM_REFLECT;
			continue;
		}
		/* X['name'] and X ['name'] -> X.name */
		if (p[i] == '[' && (j = back_blank(p, i)) > 0 &&
		    (is_word(p[j - 1]) || p[j - 1] == ')' || p[j - 1] == ']') &&
		    quoted_name(p, n, i + 1, 0, &s, &e, &end) &&
		    (end = skip_blank(p, n, end)) < n && p[end] == ']') {
			while (k > 0 && (o[k - 1] == ' ' || o[k - 1] == '\t'))
				k--;
			o[k++] = '.';
			memcpy(o + k, p + s, e - s);
			k += e - s;
			i = end + 1;
			*via |= NORM_SUBSCRIPT;
			continue;
		}
		/* String.fromCharCode(99,117) and its .apply(null, [...]) */
		if (p[i] == 'S' && word_at(p, n, i, "String.fromCharCode")) {
			size_t a = skip_blank(p, n, i + 19);
			unsigned char close = ')';

			if (a + 6 < n && memcmp(p + a, ".apply", 6) == 0) {
				a = skip_blank(p, n, a + 6);
				if (a < n && p[a] == '(') {
					for (a++; a < n && p[a] != '['; a++)
						;
				}
				close = ']';
			}
			if (a < n && (p[a] == '(' || p[a] == '[') &&
			    (m = char_codes(p, n, a + 1, close, o + k,
			    n - i, &end)) > 0) {
				if (close == ']') {
					end = skip_blank(p, n, end);
					if (end < n && p[end] == ')')
						end++;
				}
				k += m;
				i = end;
				*via |= NORM_CHARCODE;
				continue;
			}
		}
		/* chr(99) (Python, PHP, Perl, Ruby's .chr aside), [char]99 */
		if ((p[i] == 'c' && word_at(p, n, i, "chr")) ||
		    (p[i] == '[' && i + 6 <= n &&
		    (memcmp(p + i, "[char]", 6) == 0 ||
		    memcmp(p + i, "[Char]", 6) == 0))) {
			size_t a = skip_blank(p, n, i + (p[i] == 'c' ? 3 : 6));

			if (p[i] == 'c' && a < n && p[a] == '(' &&
			    (m = char_codes(p, n, a + 1, ')', o + k, n - i,
			    &end)) == 3) {
				k += m;
				i = end;
				*via |= NORM_CHARCODE;
				continue;
			}
			if (p[i] == '[' && a < n && p[a] >= '0' && p[a] <= '9') {
				unsigned v = 0;
				size_t d = 0;

				for (; a < n && p[a] >= '0' && p[a] <= '9' &&
				    d < 4; d++)
					v = v * 10 + (unsigned)(p[a++] - '0');
				if (printable(v) && v != '"' && v != '\\' &&
				    !(a < n && is_word(p[a]))) {
					o[k++] = '"';
					o[k++] = (unsigned char)v;
					o[k++] = '"';
					i = a;
					*via |= NORM_CHARCODE;
					continue;
				}
			}
		}
		o[k++] = p[i++];
	}
	return k;
}

size_t
scan_norm_line(const char *in, size_t n, char *out, char *tmp,
    unsigned *via)
{
	unsigned char *a = (unsigned char *)out, *b = (unsigned char *)tmp;
	size_t k;

	*via = 0;
	if (n == 0)
		return 0;
	k = pass_chars((const unsigned char *)in, n, a, via);
	k = pass_join(a, k, b, via);
	k = pass_reflect(b, k, a, via);
	k = pass_join(a, k, b, via);
	memcpy(out, tmp, k);
	return k;
}

const char *
scan_norm_via(unsigned via, char *buf, size_t len)
{
	static const char *const names[] = {
		"Unicode look-alikes", "escapes", "string join",
		"shell quoting", "reflection", "character codes",
		"subscript", "reversed string", "rot13", "alias",
		"XOR with a literal key",
	};
	size_t i, k = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int r;

		if (!(via & 1u << i))
			continue;
		r = snprintf(buf + k, len - k, "%s%s", k ? ", " : "", names[i]);
		if (r < 0 || (size_t)r >= len - k)
			break;
		k += (size_t)r;
	}
	return buf;
}
