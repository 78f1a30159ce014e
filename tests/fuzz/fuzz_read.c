/*
 * fuzz_read.c - fuzz target for reading a file as its consumer does
 * (scanners/child/scan_read.c): the UTF-16 sniff and decoder, the lone-CR
 * view and the strings of binaries, on arbitrary bytes.
 *
 * Nothing may crash or read out of bounds, and: the decoder writes valid
 * UTF-8 (only U+FFFD for what does not decode) and the same text however
 * the input is cut into chunks and however little room each call has;
 * the lone-CR view differs from the input only where a CR not followed
 * by LF stood; the strings are the same however the input is cut, each
 * one at its offset, of printable characters, 8 to SCAN_STR_MAX long (a
 * joined string: those characters with only NULs between them, some
 * dropped); with SCAN_STR_NUL_EDGES, the strings are exactly the ASCII
 * ones of the plain reading that NULs between two characters start or
 * end; scan_nul_text agrees with a plain count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_read.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Strict UTF-8 (no surrogates, no overlongs, at most U+10FFFF). */
static int
valid_utf8(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		size_t k, len;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		else
			return 0;
		if (i + len > n)
			return 0;
		for (k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/* Decodes all of p in pieces of at most step bytes with room bytes of
 * output a call; returns the length written to out. */
static size_t
decode(enum scan_utf16 order, const unsigned char *p, size_t n, size_t step,
    size_t room, unsigned char *out)
{
	struct scan_u16 d = {order, 0, 0, 0};
	size_t at = 0, k = 0;

	for (;;) {
		size_t piece = n - at < step ? n - at : step, used = 0;
		int final = at + piece == n;
		size_t w = scan_u16_decode(&d, p + at, piece, &used, out + k,
		    room, final);

		if (used > piece || w > room)
			abort();
		k += w;
		at += used;
		if (final && used == piece && w == 0)
			break;
		if (used == 0 && w == 0)
			abort(); /* no progress with room to spare */
	}
	return k;
}

struct strs {
	uint64_t off[4096];
	size_t len[4096];
	unsigned char kind[4096];
	unsigned char edge[4096]; /* ASCII: NULs between characters at an end */
	uint64_t sum;
	size_t n;
	const uint8_t *data;
	size_t size;
};

static int
is_char(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c < 0x7f);
}

/* Is there a character before data[at] with only NULs (at least one)
 * between? After data[at - 1], the same forwards. */
static int
nuls_back_to_char(const struct strs *x, uint64_t at)
{
	uint64_t k = at;

	while (k > 0 && x->data[k - 1] == 0)
		k--;
	return k < at && k > 0 && is_char(x->data[k - 1]);
}

static int
nuls_on_to_char(const struct strs *x, uint64_t at)
{
	uint64_t k = at;

	while (k < x->size && x->data[k] == 0)
		k++;
	return k > at && k < x->size && is_char(x->data[k]);
}

static int
on_str(void *ctx, uint64_t off, const char *s, size_t n, int kind)
{
	struct strs *x = ctx;
	uint64_t at = off;
	size_t i, step = kind == SCAN_STR_WIDE ? 2 : 1;

	if (n < SCAN_STR_MIN || n > SCAN_STR_MAX || kind < SCAN_STR_ASCII ||
	    kind > SCAN_STR_JOINED || off + step * n > x->size)
		abort();
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_char(c))
			abort();
		if (kind == SCAN_STR_JOINED && i > 0)
			while (at < x->size && x->data[at] == 0)
				at++;
		if (at >= x->size || x->data[at] != c ||
		    (kind == SCAN_STR_WIDE && x->data[at + 1] != 0))
			abort();
		at += step;
	}
	/* A joined string dropped a NUL, else it is a plain one. */
	if (kind == SCAN_STR_JOINED && at == off + n)
		abort();
	if (x->n < 4096) {
		x->off[x->n] = off;
		x->len[x->n] = n;
		x->kind[x->n] = (unsigned char)kind;
		x->edge[x->n] = (unsigned char)(kind == SCAN_STR_ASCII &&
		    (nuls_back_to_char(x, off) || nuls_on_to_char(x, at)));
	}
	x->n++;
	x->sum += off * 31 + n;
	return 0;
}

static void
same_strings(const struct strs *a, const struct strs *b)
{
	size_t i;

	if (a->n != b->n || a->sum != b->sum)
		abort();
	for (i = 0; i < a->n && i < 4096; i++)
		if (a->off[i] != b->off[i] || a->len[i] != b->len[i] ||
		    a->kind[i] != b->kind[i])
			abort();
}

static void
strings(const uint8_t *data, size_t size, size_t cut1, size_t cut2,
    unsigned flags, struct strs *x)
{
	static struct scan_strings s;

	memset(x, 0, sizeof(*x));
	x->data = data;
	x->size = size;
	scan_strings_init(&s, flags);
	if (scan_strings_feed(&s, data, cut1, on_str, x) != 0 ||
	    scan_strings_feed(&s, data + cut1, cut2 - cut1, on_str, x) != 0 ||
	    scan_strings_feed(&s, data + cut2, size - cut2, on_str, x) != 0 ||
	    scan_strings_end(&s, on_str, x) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct strs a, b, c;
	size_t bom = 0, cap = 4 * (size / 2) + 8, i, step, room;
	enum scan_utf16 o = scan_utf16_sniff(data, size, &bom);
	unsigned char *whole = malloc(cap), *cut = malloc(cap);
	char *cr = malloc(size ? size : 1);
	size_t n1, n2, cut1, cut2;
	int order, long_run;
	unsigned flags;

	if (whole == NULL || cut == NULL || cr == NULL)
		abort();
	if (bom > 2 || (bom != 0 && o == SCAN_UTF16_NO))
		abort();
	/* Both byte orders, whatever the sniff said. */
	step = size ? (size_t)data[0] % 7 + 1 : 1;
	room = size > 1 ? (size_t)data[1] % 13 + 8 : 8;
	for (order = SCAN_UTF16_LE; order <= SCAN_UTF16_BE; order++) {
		n1 = decode((enum scan_utf16)order, data, size, size + 1, cap,
		    whole);
		n2 = decode((enum scan_utf16)order, data, size, step, room,
		    cut);
		if (n1 != n2 || memcmp(whole, cut, n1) != 0 ||
		    !valid_utf8(whole, n1) || n1 > 2 * size + 3)
			abort();
	}
	/* The lone-CR view. */
	if (size > 0 && scan_lone_cr((const char *)data, size, cr)) {
		for (i = 0; i < size; i++) {
			int lone = data[i] == '\r' &&
			    (i + 1 == size || data[i + 1] != '\n');

			if ((unsigned char)cr[i] != (lone ? '\n' : data[i]))
				abort();
		}
	} else {
		for (i = 0; i < size; i++)
			if (data[i] == '\r' && (i + 1 == size ||
			    data[i + 1] != '\n'))
				abort(); /* a lone CR it did not see */
	}
	/* Strings: whole against cut in three, in each reading. */
	cut1 = size ? (size_t)data[size - 1] * 7 % (size + 1) : 0;
	cut2 = cut1 + (size - cut1) / 2;
	for (flags = 0; flags <= SCAN_STR_DROP_NUL; flags++) {
		strings(data, size, size, size, flags, &a);
		strings(data, size, cut1, cut2, flags, &b);
		same_strings(&a, &b);
		for (i = 0; i < a.n && i < 4096; i++)
			if (a.kind[i] == SCAN_STR_JOINED && !flags)
				abort();
	}
	/* The plain reading (a, from the loop's last round) against the
	 * NUL-edges one: exactly its ASCII strings with an edge, in order,
	 * when the plain one was not cut short by the record's size and
	 * has no run cut at SCAN_STR_MAX (a piece inside a long run is
	 * reported for what the run's start was). */
	strings(data, size, size, size, SCAN_STR_NUL_EDGES, &b);
	strings(data, size, cut1, cut2, SCAN_STR_NUL_EDGES, &c);
	same_strings(&b, &c);
	long_run = 0;
	for (i = 0; i < a.n && i < 4096; i++)
		long_run |= a.len[i] == SCAN_STR_MAX;
	if (a.n < 4096 && !long_run) {
		size_t k = 0;

		for (i = 0; i < a.n; i++) {
			if (a.kind[i] != SCAN_STR_ASCII || !a.edge[i])
				continue;
			if (k >= b.n || b.off[k] != a.off[i] ||
			    b.len[k] != a.len[i] || b.kind[k] != SCAN_STR_ASCII)
				abort();
			k++;
		}
		if (k != b.n)
			abort();
	}
	/* A reading started in the middle (a NUL found after the first
	 * chunk): every string it gives is of the bytes from there on. */
	{
		static struct scan_strings m;

		memset(&c, 0, sizeof(c));
		c.data = data;
		c.size = size;
		scan_strings_init(&m, SCAN_STR_NUL_EDGES);
		scan_strings_start_at(&m, cut1, cut1 > 0 ? data[cut1 - 1] : 0);
		if (scan_strings_feed(&m, data + cut1, size - cut1, on_str,
		    &c) != 0 || scan_strings_end(&m, on_str, &c) != 0)
			abort();
		for (i = 0; i < c.n && i < 4096; i++)
			if (c.off[i] < cut1 || c.kind[i] != SCAN_STR_ASCII)
				abort();
	}
	/* scan_nul_text, counted plainly. */
	{
		size_t text = 0, bad = 0;

		for (i = 0; i < size; i++) {
			unsigned char ch = data[i];

			if (ch == 0)
				continue;
			if (ch == 0x7f || (ch < 0x20 && ch != '\t' &&
			    ch != '\n' && ch != '\f' && ch != '\r' && ch != 0x1b))
				bad++;
			else
				text++;
		}
		if (scan_nul_text(data, size) != (bad == 0 && text > 0))
			abort();
	}
	free(whole);
	free(cut);
	free(cr);
	return 0;
}
