/*
 * scan_xor.c - the XOR view: a file's literals decoded with its own literal
 * keys (scan_xor.h).
 *
 * The reader is the same for every language: quoted literals (' " `, with
 * backslash escapes), arrays of integers in [ ], { } or ( ), numbers, and
 * names. It does not know which literal a program XORs with which key; it
 * tries the file's keys on every literal, and only what then reads as text
 * (and better than before) is kept. What the rules find in it is what they
 * would find in the payload written out.
 *
 * Trust: the text is hostile. Each function reads the text once or a
 * bounded number of times (the keys' names are found in one pass); nothing
 * is allocated; a literal is decoded to at most XOR_BLOB_MAX bytes.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "bytes16.h"
#include "scan_decode.h"
#include "scan_xor.h"
#include "text.h"

#define NAME_MAX_LEN 64 /* longer names are not keys' names */
#define XOR_LINES 64    /* lines with XOR whose keys are read */
#define WRAP_MAX 48     /* bytes of `bytes(`, `[]byte{`, ... before a literal */

static int
is_word(unsigned char c)
{
	return isalnum(c) || c == '_';
}

static int
is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* ---- XOR expressions ---------------------------------------------------- */

/* The ^ at i is a binary operator: an operand ends before it and one
 * starts after it (after `=` for ^=). Not a regex's ^ ([^a], /^a/, '^'),
 * and not one between two numbers (2^32, 10 ^ 6, 0x41 ^ 0x20): a
 * constant, as in prose about sizes, not a value decoded with a key. */
static int
xor_at(const char *t, size_t n, size_t i)
{
	size_t a = i, b = i + 1, w;
	unsigned char p, q;

	while (a > 0 && is_blank((unsigned char)t[a - 1]))
		a--;
	if (a == 0)
		return 0;
	p = (unsigned char)t[a - 1];
	if (!is_word(p) && p != ')' && p != ']' && p != '}')
		return 0;
	if (b < n && t[b] == '=')
		b++;
	while (b < n && is_blank((unsigned char)t[b]))
		b++;
	if (b >= n)
		return 0;
	q = (unsigned char)t[b];
	if (is_word(p) && isdigit(q) && t[i + 1] != '=') {
		for (w = a; w > 0 && is_word((unsigned char)t[w - 1]); w--)
			;
		if (isdigit((unsigned char)t[w]))
			return 0;
	}
	return is_word(q) || q == '(' || q == '$' || q == '[' || q == '\'' ||
	    q == '"';
}

/* PowerShell's -bxor at i (the '-'), between blanks. */
static int
bxor_at(const char *t, size_t n, size_t i)
{
	return i + 6 <= n && strncasecmp(t + i, "-bxor", 5) == 0 &&
	    is_blank((unsigned char)t[i + 5]) &&
	    (i == 0 || is_blank((unsigned char)t[i - 1]));
}

/* The offset of the next XOR expression at or after i, or n. Each of the
 * two searches goes on from where it stopped: the text is read once. */
static size_t
next_xor(const char *t, size_t n, size_t i)
{
	const char *c = NULL, *d = NULL;
	size_t ci = i, di = i;

	for (;;) {
		if (c == NULL && ci < n &&
		    (c = memchr(t + ci, '^', n - ci)) == NULL)
			ci = n;
		if (d == NULL && di < n &&
		    (d = memchr(t + di, '-', n - di)) == NULL)
			di = n;
		if (c == NULL && d == NULL)
			return n;
		if (d != NULL && (c == NULL || d < c)) {
			if (bxor_at(t, n, (size_t)(d - t)))
				return (size_t)(d - t);
			di = (size_t)(d - t) + 1;
			d = NULL;
		} else {
			if (xor_at(t, n, (size_t)(c - t)))
				return (size_t)(c - t);
			ci = (size_t)(c - t) + 1;
			c = NULL;
		}
	}
}

int
scan_xor_uses(const char *t, size_t n)
{
	return next_xor(t, n, 0) < n;
}

/* ---- literals ------------------------------------------------------------ */

/*
 * The quoted literal at i (t[i] is its quote): its content's bytes in
 * [*cs, *ce), *end past the closing quote. A literal ends at its line's end
 * unless it is a backtick one. Returns 0 if it is not closed (then *end is
 * i + 1).
 */
static int
quoted(const char *t, size_t n, size_t i, size_t *cs, size_t *ce,
    size_t *end)
{
	char q = t[i];
	size_t j = i + 1;

	*end = i + 1;
	while (j < n && t[j] != q) {
		if (t[j] == '\n' && q != '`')
			return 0;
		if (t[j] == '\\' && j + 1 < n)
			j++;
		j++;
	}
	if (j >= n)
		return 0;
	*cs = i + 1;
	*ce = j;
	*end = j + 1;
	return 1;
}

/* A literal's content with its escapes decoded (\xHH, \uHHHH, octal,
 * \n \r \t \0, a quoted character), into out, at most cap bytes. */
static size_t
unescape(const char *t, size_t s, size_t e, unsigned char *out, size_t cap,
    size_t *spelled)
{
	size_t o = 0, i = s;

	while (i < e && o < cap) {
		unsigned char c = (unsigned char)t[i++];
		unsigned v = 0, k;

		if (c != '\\' || i >= e) {
			out[o++] = c;
			continue;
		}
		c = (unsigned char)t[i++];
		switch (c) {
		case 'x':
		case 'u':
			for (k = 0; k < (c == 'x' ? 2u : 4u) && i < e &&
			    al_hex_digit((unsigned char)t[i]) >= 0; k++)
				v = v * 16 + (unsigned)al_hex_digit(
				    (unsigned char)t[i++]);
			out[o++] = (unsigned char)(v <= 0xff ? v : '?');
			(*spelled)++;
			break;
		case 'n':
			out[o++] = '\n';
			break;
		case 'r':
			out[o++] = '\r';
			break;
		case 't':
			out[o++] = '\t';
			break;
		default:
			if (c >= '0' && c <= '7') {
				v = c - '0';
				for (k = 1; k < 3 && i < e && t[i] >= '0' &&
				    t[i] <= '7'; k++)
					v = v * 8 + (unsigned)(t[i++] - '0');
				out[o++] = (unsigned char)v;
				(*spelled)++;
			} else {
				out[o++] = c;
			}
		}
	}
	return o;
}

/* A number at i: 0xHH or decimal, with an optional '-'; its value in *v and
 * its end in *end. 0 if there is none or it does not fit in 32 bits. */
static int
number(const char *t, size_t n, size_t i, long *v, size_t *end)
{
	int neg = 0, digits = 0;
	long x = 0;

	if (i < n && t[i] == '-') {
		neg = 1;
		i++;
	}
	if (i + 1 < n && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
		for (i += 2; i < n && al_hex_digit((unsigned char)t[i]) >= 0 &&
		    digits < 9; i++, digits++)
			x = x * 16 + al_hex_digit((unsigned char)t[i]);
	} else {
		for (; i < n && t[i] >= '0' && t[i] <= '9' && digits < 10;
		    i++, digits++)
			x = x * 10 + (t[i] - '0');
	}
	if (digits == 0 || digits >= 9 || (i < n && is_word((unsigned char)t[i])))
		return 0;
	*v = neg ? -x : x;
	*end = i;
	return 1;
}

/* An array of byte values at i (t[i] is [, { or ( ): every element a
 * number from -128 to 255, separated by commas and white space, written
 * into out (at most cap; the rest is read and not kept). Returns the
 * count, 0 if it is not such an array; *end past its close. */
static size_t
int_array(const char *t, size_t n, size_t i, unsigned char *out, size_t cap,
    size_t *end)
{
	char close = t[i] == '[' ? ']' : t[i] == '{' ? '}' : ')';
	size_t j = i + 1, k = 0;
	long v;

	for (;;) {
		while (j < n && (isspace((unsigned char)t[j]) || t[j] == ','))
			j++;
		if (j < n && t[j] == close)
			break;
		if (!number(t, n, j, &v, &j) || v < -128 || v > 255)
			return 0;
		if (k < cap)
			out[k] = (unsigned char)v;
		k++;
		/* Commas, or white space alone (a shell array). */
		if (j < n && t[j] != ',' && t[j] != close &&
		    !isspace((unsigned char)t[j]))
			return 0;
	}
	*end = j + 1;
	return k;
}

/* The content [s, e) is hex (at least 24 digits) or base64 (at least 16
 * characters): decoded into out; -1 if it is neither. */
static long
encoded(const char *t, size_t s, size_t e, unsigned char *out)
{
	size_t i, len = e - s, hex = 1;
	ssize_t k;

	if (len < 16)
		return -1;
	for (i = s; i < e; i++) {
		unsigned char c = (unsigned char)t[i];

		if (al_hex_digit(c) < 0)
			hex = 0;
		if (!isalnum(c) && c != '+' && c != '/' && c != '-' &&
		    c != '_' && !(c == '=' && e - i <= 2))
			return -1;
	}
	if (hex && len >= 24 && len % 2 == 0) {
		if (len > 2 * (size_t)XOR_BLOB_MAX)
			len = 2 * (size_t)XOR_BLOB_MAX;
		k = scan_decode_hex(t + s, len, out);
		if (k >= 0)
			return k;
	}
	if (len > (size_t)XOR_BLOB_MAX / 3 * 4)
		len = (size_t)XOR_BLOB_MAX / 3 * 4;
	k = scan_decode_base64(t + s, len, out);
	return k;
}

/* Another quoted literal joined to the one ending at i: after white
 * space, at most one + or . and a line continuation. */
static int
joined(const char *t, size_t n, size_t i, size_t *cs, size_t *ce,
    size_t *end)
{
	size_t a, b, c;
	int op = 0;

	for (; i < n; i++) {
		if (isspace((unsigned char)t[i]) || (t[i] == '\\' &&
		    i + 1 < n && t[i + 1] == '\n'))
			continue;
		if ((t[i] == '+' || t[i] == '.') && !op) {
			op = 1;
			continue;
		}
		break;
	}
	/* Python's b"", r"", rb"" */
	if (i + 1 < n && strchr("bBrRuU", t[i]) != NULL && (t[i + 1] == '"' ||
	    t[i + 1] == '\'' || (i + 2 < n && strchr("bBrR", t[i + 1]) !=
	    NULL && (t[i + 2] == '"' || t[i + 2] == '\''))))
		i += t[i + 1] == '"' || t[i + 1] == '\'' ? 1 : 2;
	if (i >= n || (t[i] != '\'' && t[i] != '"' && t[i] != '`') ||
	    !quoted(t, n, i, &a, &b, &c))
		return 0;
	*cs = a;
	*ce = b;
	*end = c;
	return 1;
}

size_t
scan_xor_blob(const char *t, size_t n, size_t *pos, unsigned char *out,
    size_t *s, size_t *e)
{
	size_t i = *pos, cs, ce, end, k, spelled;
	long m;

	while (i < n) {
		unsigned char c = (unsigned char)t[i];

		if (c == '\'' || c == '"' || c == '`') {
			if (!quoted(t, n, i, &cs, &ce, &end)) {
				i++;
				continue;
			}
			k = 0;
			spelled = 0;
			/* Literals joined by juxtaposition, + or . (over
			 * lines) are one: "\x43\x47" "\x5a" ... */
			for (;;) {
				if (ce - cs >= 16 && k + scan_decoded_max(ce -
				    cs) <= XOR_BLOB_MAX &&
				    (m = encoded(t, cs, ce, out + k)) >= 0) {
					k += (size_t)m;
					spelled += (size_t)m;
				} else {
					k += unescape(t, cs, ce, out + k,
					    XOR_BLOB_MAX - k, &spelled);
				}
				if (!joined(t, n, end, &cs, &ce, &end) ||
				    k >= XOR_BLOB_MAX)
					break;
			}
			/* Words written as words are no payload: text is a
			 * payload only when spelled as codes (escapes, hex,
			 * base64; arrays below). */
			if (spelled * 2 < k && scan_is_text(out, k)) {
				i = end;
				continue;
			}
		} else if (c == '[' || c == '{' || c == '(') {
			if ((k = int_array(t, n, i, out, XOR_BLOB_MAX,
			    &end)) == 0) {
				i++;
				continue;
			}
			if (k > XOR_BLOB_MAX)
				k = XOR_BLOB_MAX;
		} else {
			/* To the next byte a literal starts with, 16 bytes
			 * at a time (bytes16.h). */
			for (i++; i + 16 <= n; i += 16) {
				unsigned msk = al_bytes16(
				    (const unsigned char *)t + i, "'\"`[{(", 6);

				if (msk != 0) {
					i += al_low_bit(msk);
					break;
				}
			}
			continue;
		}
		if (k >= XOR_BLOB_MIN) {
			*s = i;
			*e = end;
			*pos = end;
			return k;
		}
		i = end;
	}
	*pos = n;
	return 0;
}

/* ---- keys ---------------------------------------------------------------- */

static void
key_add(struct xor_key *keys, size_t *nk, size_t max,
    const unsigned char *k, size_t n)
{
	size_t i;

	if (n == 0 || n > XOR_KEY_MAX || *nk >= max)
		return;
	for (i = 0; i < *nk; i++)
		if (keys[i].n == n && memcmp(keys[i].k, k, n) == 0)
			return;
	keys[*nk].n = n;
	memcpy(keys[*nk].k, k, n);
	(*nk)++;
}

/* The literal at i, if it is one a key can be: a string, a byte array, a
 * number that is a byte. Returns its end, or i if there is none. */
static size_t
key_literal(const char *t, size_t n, size_t i, struct xor_key *keys,
    size_t *nk, size_t max)
{
	unsigned char buf[XOR_KEY_MAX + 1];
	size_t cs, ce, end, k, sp = 0;
	long v;

	if (t[i] == '\'' || t[i] == '"' || t[i] == '`') {
		if (!quoted(t, n, i, &cs, &ce, &end))
			return i;
		if (ce - cs <= 4 * XOR_KEY_MAX) {
			k = unescape(t, cs, ce, buf, sizeof(buf), &sp);
			if (k <= XOR_KEY_MAX)
				key_add(keys, nk, max, buf, k);
		}
		return end;
	}
	if (t[i] == '[' || t[i] == '{' || t[i] == '(') {
		k = int_array(t, n, i, buf, sizeof(buf), &end);
		if (k == 0)
			return i;
		if (k <= XOR_KEY_MAX)
			key_add(keys, nk, max, buf, k);
		return end;
	}
	if ((t[i] == '-' || isdigit((unsigned char)t[i])) &&
	    (i == 0 || !is_word((unsigned char)t[i - 1])) &&
	    number(t, n, i, &v, &end)) {
		if (v > 0 && v <= 255) {
			buf[0] = (unsigned char)v;
			key_add(keys, nk, max, buf, 1);
		}
		return end;
	}
	return i;
}

struct names {
	size_t n;
	size_t s[XOR_NAMES], len[XOR_NAMES]; /* in the text */
};

static int
names_has(const struct names *nm, const char *t, size_t s, size_t len)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (nm->len[i] == len && memcmp(t + nm->s[i], t + s, len) == 0)
			return 1;
	return 0;
}

/* One line with XOR: its literals are keys, its names may hold keys. */
static void
xor_line(const char *t, size_t ls, size_t le, struct xor_key *keys,
    size_t *nk, size_t max, struct names *nm)
{
	size_t i = ls, e;

	while (i < le) {
		unsigned char c = (unsigned char)t[i];

		if (is_word(c) && !isdigit(c) &&
		    (i == ls || !is_word((unsigned char)t[i - 1]))) {
			for (e = i; e < le && is_word((unsigned char)t[e]); e++)
				;
			if (e - i <= NAME_MAX_LEN && nm->n < XOR_NAMES &&
			    !names_has(nm, t, i, e - i)) {
				nm->s[nm->n] = i;
				nm->len[nm->n++] = e - i;
			}
			i = e;
			continue;
		}
		e = key_literal(t, le, i, keys, nk, max);
		i = e > i ? e : i + 1;
	}
}

/* The literal a name is given at i (after the name): `= lit`, `:= lit`,
 * `: lit`, `=> lit`, through a wrapper such as bytes(, []byte{, b, new
 * Uint8Array([, [byte[]]. */
static void
name_value(const char *t, size_t n, size_t i, struct xor_key *keys,
    size_t *nk, size_t max)
{
	size_t lim;

	while (i < n && is_blank((unsigned char)t[i]))
		i++;
	if (i + 1 < n && t[i] == ':' && t[i + 1] == '=')
		i += 2;
	else if (i + 1 < n && t[i] == '=' && t[i + 1] == '>')
		i += 2;
	else if (i < n && (t[i] == '=' || t[i] == ':') &&
	    !(i + 1 < n && (t[i + 1] == '=' || t[i + 1] == ':')))
		i++;
	else
		return;
	while (i < n && is_blank((unsigned char)t[i]))
		i++;
	for (lim = i + WRAP_MAX; i < n && i < lim && t[i] != '\n'; i++) {
		if (key_literal(t, n, i, keys, nk, max) > i)
			return;
		if (!is_word((unsigned char)t[i]) && !strchr(".[]<>:( {", t[i]))
			return;
	}
}

/* The name whose value may follow the `=` or `:` at p: the word [*s, *e)
 * that ends before it, blanks apart. 0 if there is none. */
static int
name_before(const char *t, size_t p, size_t *s, size_t *e)
{
	size_t b;

	while (p > 0 && is_blank((unsigned char)t[p - 1]))
		p--;
	for (b = p; b > 0 && is_word((unsigned char)t[b - 1]); b--)
		;
	*s = b;
	*e = p;
	return b < p;
}

/* The next `=` or `:` at or after from (n if none); next[0] and next[1]
 * hold the last ones found of each (SIZE_MAX: not looked for yet). */
static size_t
next_op(const char *t, size_t n, size_t from, size_t next[2])
{
	static const char ops[2] = {'=', ':'};
	size_t k;

	for (k = 0; k < 2; k++)
		if (next[k] < from || next[k] == SIZE_MAX) {
			const char *q = memchr(t + from, ops[k], n - from);

			next[k] = q ? (size_t)(q - t) : n;
		}
	return next[0] < next[1] ? next[0] : next[1];
}

/*
 * The literals given to names, in one pass over the text: those given to
 * the names of nm first (in order), then those given to any name, up to
 * max keys in all, distinct. A name is found from the `=` or `:` after it
 * (name_value says which forms give a value), so only those bytes are
 * looked at, not every word.
 */
static void
named_values(const char *t, size_t n, const struct names *nm,
    struct xor_key *keys, size_t *nk, size_t max)
{
	struct xor_key other[2 * XOR_KEYS], one;
	size_t p, s, e, no = 0, n1, k, next[2] = {SIZE_MAX, SIZE_MAX};
	int more = 1; /* other keys still wanted */

	for (p = next_op(t, n, 0, next); p < n && *nk < max;
	    p = next_op(t, n, p + 1, next)) {
		/* a name is reached from the first operator after it: one
		 * after another (==, :=) has no word before it */
		if (!name_before(t, p, &s, &e))
			continue;
		n1 = 0;
		if (nm->n > 0 && e - s <= NAME_MAX_LEN &&
		    names_has(nm, t, s, e - s)) {
			name_value(t, n, e, keys, nk, max);
			/* its value is among the others too: the second pass
			 * of the rule (any name) would have found it there */
			continue;
		}
		if (!more)
			continue;
		name_value(t, n, e, &one, &n1, 1);
		if (n1 == 1)
			key_add(other, &no, 2 * XOR_KEYS, one.k, one.n);
		more = no < 2 * XOR_KEYS;
	}
	for (k = 0; k < no; k++)
		key_add(keys, nk, max, other[k].k, other[k].n);
}

size_t
scan_xor_keys(const char *t, size_t n, struct xor_key *keys, size_t max)
{
	struct names nm = {0};
	size_t nk = 0, i, lines = 0, le = 0;

	if (max > XOR_KEYS)
		max = XOR_KEYS;
	/* Each line once: the next XOR is searched for after the line. */
	for (i = next_xor(t, n, 0); i < n && lines < XOR_LINES;
	    i = le < n ? next_xor(t, n, le + 1) : n) {
		const char *p = memrchr(t + le, '\n', i - le);
		size_t ls = p ? (size_t)(p - t) + 1 : le;
		const char *q = memchr(t + i, '\n', n - i);

		le = q ? (size_t)(q - t) : n;
		lines++;
		xor_line(t, ls, le, keys, &nk, max, &nm);
	}
	if (lines == 0)
		return 0;
	/* The values given to those names, anywhere in the text; then any
	 * literal given a name: a key passed to the function that XORs as an
	 * argument ($salt, $Key) is a literal some name holds. */
	named_values(t, n, &nm, keys, &nk, max);
	return nk;
}

/* ---- decoding ------------------------------------------------------------ */

/* How much each byte counts toward reading as words and code (code_score):
 * a space 4, a small letter 2, another letter or digit, a line end, a tab
 * or the punctuation programs are written with 1, anything else 0. */
static unsigned char score_of[256];

__attribute__((constructor)) static void
score_init(void)
{
	static const char punct[] = "()[]{}.,;:'\"=/_-$|&\n\t";
	unsigned c;

	for (c = 0; c < 256; c++)
		score_of[c] = c == ' ' ? 4 : (c >= 'a' && c <= 'z') ? 2 :
		    ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    (c != 0 && strchr(punct, (int)c) != NULL)) ? 1 : 0;
}

/* How much of p reads as words and code: letters, digits, white space and
 * the punctuation programs are written with; spaces and small letters,
 * which text has most of, count more (a key that turns text into other
 * letters loses its spaces). */
static size_t
code_score(const unsigned char *p, size_t n)
{
	size_t i, s = 0;

	for (i = 0; i < n; i++)
		s += score_of[p[i]];
	return s;
}

static int
printable(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r';
}

static void
apply(const unsigned char *in, size_t n, const unsigned char *k, size_t kn,
    unsigned char *out)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++) {
		out[i] = in[i] ^ k[j];
		if (++j == kn)
			j = 0;
	}
}

/* Reads as text, and mostly as words and code, and better than `than`
 * (its score in *score): the score first, which costs less. */
static int
reads_better(const unsigned char *p, size_t n, size_t than, size_t *score)
{
	*score = code_score(p, n);
	return *score > than && *score * 10 >= n * 12 && scan_is_text(p, n);
}

static size_t
blanks(const unsigned char *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == ' ' || p[i] == '\n' || p[i] == '\t';
	return k;
}

int
scan_xor_try(const unsigned char *in, size_t n,
    const struct xor_key *keys, size_t nkeys, unsigned char *out,
    struct xor_key *key)
{
	size_t i, j, before = blanks(in, n), s, sp, best_s = 0;
	size_t score_in = code_score(in, n);
	int text = scan_is_text(in, n);
	struct xor_key one = {1, {0}};
	const struct xor_key *best = NULL;

	if (n == 0)
		return 0;
	/* The literal key that makes it read best. Text XORed with a small
	 * key may still be printable: then the key must give it the spaces
	 * and line ends that words have, or make it read clearly better. */
	for (i = 0; i < nkeys; i++) {
		apply(in, n, keys[i].k, keys[i].n, out);
		if (!reads_better(out, n, best_s, &s))
			continue;
		sp = blanks(out, n);
		if (text && !(sp >= 2 && sp * 25 >= n && sp > 2 * before) &&
		    s < score_in + n / 8)
			continue;
		best = &keys[i];
		best_s = s;
	}
	/* Not text, and no literal key makes it so: the single byte that
	 * makes it read best (the file's own key, when one works, is better
	 * evidence than any score). A byte that does not make the first ones
	 * printable is not tried further. */
	for (i = 1; i < 256 && !text && best == NULL; i++) {
		one.k[0] = (unsigned char)i;
		for (j = 0; j < n && j < 16 && printable(in[j] ^ one.k[0]); j++)
			;
		if (j < n && j < 16)
			continue;
		apply(in, n, one.k, 1, out);
		if (reads_better(out, n, best_s, &s)) {
			*key = one;
			best_s = s;
		}
	}
	if (best == NULL && best_s > 0)
		best = key;
	if (best == NULL)
		return 0;
	if (best != key)
		*key = *best;
	apply(in, n, key->k, key->n, out);
	return 1;
}
