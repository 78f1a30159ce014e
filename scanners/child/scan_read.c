/*
 * scan_read.c - reading a file the way its consumer reads it (see
 * scan_read.h): UTF-16 to UTF-8, lone CRs for the prefilter, and the
 * printable strings of binaries.
 *
 * PowerShell ISE and Notepad save UTF-16 (a BOM, then two bytes per
 * character); PowerShell, cmd and Python read such files as text, so the
 * rules must too. Python's site reads `.pth` files, and npm its ini files,
 * splitting lines at a lone CR as well as at LF. And a binary still holds
 * strings: a token compiled into an ELF, a `curl | sh` in a PNG's text
 * chunk, a key in an SQLite fixture.
 */
#include <string.h>

#include "scan_read.h"

static int
printable_ascii(unsigned char c)
{
	return c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7f);
}

/* A NUL at an offset of parity par among the first bytes after a BOM. */
static int
has_nul_at(const unsigned char *p, size_t n, size_t par)
{
	size_t i;

	if (n > 8192)
		n = 8192;
	for (i = 2 + par; i < n; i += 2)
		if (p[i] == 0)
			return 1;
	return 0;
}

enum scan_utf16
scan_utf16_sniff(const unsigned char *p, size_t n, size_t *bom)
{
	size_t i, units, le = 0, be = 0, le_bad = 0, be_bad = 0;

	*bom = 0;
	/* A BOM followed by bytes with no NUL where UTF-16's ASCII would put
	 * it is not believed: `\xff\xfe` before ASCII lines is read as ASCII
	 * by a shell, and those lines must be read as it reads them. */
	if (n >= 2 && p[0] == 0xff && p[1] == 0xfe &&
	    !(n >= 4 && p[2] == 0 && p[3] == 0) && has_nul_at(p, n, 1)) {
		*bom = 2;
		return SCAN_UTF16_LE;
	}
	if (n >= 2 && p[0] == 0xfe && p[1] == 0xff && has_nul_at(p, n, 0)) {
		*bom = 2;
		return SCAN_UTF16_BE;
	}
	if (n > 512)
		n = 512;
	units = n / 2;
	if (units < 8)
		return SCAN_UTF16_NO;
	for (i = 0; i < units; i++) {
		unsigned char a = p[2 * i], b = p[2 * i + 1];

		if (b == 0 && printable_ascii(a))
			le++;
		else if (b == 0 || a == 0)
			le_bad++; /* NUL units and 00 xx: not LE text */
		if (a == 0 && printable_ascii(b))
			be++;
		else if (a == 0 || b == 0)
			be_bad++;
	}
	/* Nearly every unit ASCII, a few others (accented letters) at most,
	 * and no NUL character: text, not an array of small numbers. */
	if (le_bad == 0 && le * 8 >= units * 7)
		return SCAN_UTF16_LE;
	if (be_bad == 0 && be * 8 >= units * 7)
		return SCAN_UTF16_BE;
	return SCAN_UTF16_NO;
}

static size_t
put_utf8(unsigned char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (unsigned char)(0xc0 | c >> 6);
		o[1] = (unsigned char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (unsigned char)(0xe0 | c >> 12);
		o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | c >> 18);
	o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (c & 0x3f));
	return 4;
}

/* One code unit; at most 7 bytes out (a U+FFFD and a character). */
static size_t
u16_unit(struct scan_u16 *d, uint32_t u, unsigned char *o)
{
	size_t k = 0;

	if (d->high != 0) {
		if (u >= 0xdc00 && u <= 0xdfff) {
			uint32_t c = 0x10000 + ((d->high - 0xd800) << 10) +
			    (u - 0xdc00);

			d->high = 0;
			return put_utf8(o, c);
		}
		d->high = 0;
		k = put_utf8(o, 0xfffd);
	}
	if (u >= 0xd800 && u <= 0xdbff)
		d->high = u;
	else if (u >= 0xdc00 && u <= 0xdfff)
		k += put_utf8(o + k, 0xfffd);
	else
		k += put_utf8(o + k, u);
	return k;
}

size_t
scan_u16_decode(struct scan_u16 *d, const unsigned char *in, size_t n,
    size_t *used, unsigned char *out, size_t cap, int final)
{
	size_t i = 0, k = 0;

	while (i < n && cap - k >= 8) {
		uint32_t u;

		if (!d->have_odd) {
			d->odd = in[i++];
			d->have_odd = 1;
			continue;
		}
		u = d->order == SCAN_UTF16_BE ? (uint32_t)d->odd << 8 | in[i] :
		    (uint32_t)in[i] << 8 | d->odd;
		i++;
		d->have_odd = 0;
		k += u16_unit(d, u, out + k);
	}
	*used = i;
	if (final && i == n && cap - k >= 8) {
		if (d->high != 0 || d->have_odd)
			k += put_utf8(out + k, 0xfffd);
		d->high = 0;
		d->have_odd = 0;
	}
	return k;
}

int
scan_lone_cr(const char *p, size_t n, char *out)
{
	const char *cr = memchr(p, '\r', n);
	size_t i;
	int changed = 0;

	if (cr == NULL)
		return 0;
	for (i = (size_t)(cr - p); i < n; i++)
		if (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n'))
			break;
	if (i == n)
		return 0; /* only CRLFs */
	memcpy(out, p, n);
	for (; i < n; i++)
		if (p[i] == '\r' && (i + 1 == n || p[i + 1] != '\n')) {
			out[i] = '\n';
			changed = 1;
		}
	return changed;
}

/* ---- strings of binaries ------------------------------------------------- */

/* The characters of a string: tab and printable ASCII. */
static const unsigned char str_tab[256] = {
	['\t'] = 1,
	[0x20] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* What the bytes since the last character were (scan_strings.st). */
enum {
	ST_OTHER = 0,             /* some byte that is neither NUL nor one */
	ST_CHAR,                  /* none: the last byte was a character */
	ST_NULS,                  /* NULs only, after a character */
};

void
scan_strings_init(struct scan_strings *x, unsigned flags)
{
	struct scan_strrun *r[] = {&x->a, &x->w[0], &x->w[1], &x->j};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		r[i]->len = 0;
		r[i]->nul_edge = r[i]->gap = r[i]->notwide = 0;
	}
	x->flags = flags;
	x->prev = 0;
	x->st = ST_OTHER;
	x->a_held = 0;
	x->nuls = 0;
	x->next = 0;
}

void
scan_strings_start_at(struct scan_strings *x, uint64_t off, unsigned char prev)
{
	x->next = off;
	x->prev = prev;
	x->st = off > 0 && str_tab[prev] ? ST_CHAR : ST_OTHER;
}

/* Is the run, of the kind given, one to report? */
static int
run_shown(const struct scan_strings *x, const struct scan_strrun *r, int kind)
{
	if (r->len < SCAN_STR_MIN)
		return 0;
	if (kind == SCAN_STR_JOINED)
		return r->gap && r->notwide;
	if (!(x->flags & SCAN_STR_NUL_EDGES))
		return 1;
	return kind == SCAN_STR_ASCII && r->nul_edge;
}

/* Reports the run so far (if it is one to) and empties it; what an ASCII
 * run is known to be stays, for its next piece (a joined run's piece is
 * judged on its own: joined_add). */
static int
run_end(struct scan_strings *x, struct scan_strrun *r, scan_str_fn fn,
    void *ctx, int kind)
{
	size_t n = r->len;
	int shown = run_shown(x, r, kind);

	r->len = 0;
	return shown ? fn(ctx, r->start, r->s, n, kind) : 0;
}

/* The run is over: reported, and forgotten. */
static int
run_close(struct scan_strings *x, struct scan_strrun *r, scan_str_fn fn,
    void *ctx, int kind)
{
	int rc = run_end(x, r, fn, ctx, kind);

	r->nul_edge = r->gap = r->notwide = 0;
	return rc;
}

/* Adds the n characters at s, the first at file offset at (a character
 * is step bytes long), cutting the run at SCAN_STR_MAX. */
static int
run_add(struct scan_strings *x, struct scan_strrun *r, const unsigned char *s,
    size_t n, uint64_t at, unsigned step, scan_str_fn fn, void *ctx, int kind)
{
	int rc;

	while (n > 0) {
		size_t k;

		if (r->len == SCAN_STR_MAX &&
		    (rc = run_end(x, r, fn, ctx, kind)) != 0)
			return rc;
		if (r->len == 0)
			r->start = at;
		k = SCAN_STR_MAX - r->len < n ? SCAN_STR_MAX - r->len : n;
		memcpy(r->s + r->len, s, k);
		r->len += k;
		s += k;
		n -= k;
		at += k * step;
	}
	return 0;
}

/* A UTF-16LE unit, character lo at offset at: its run goes on if the unit
 * is the one it expects, else the run ends and a new one starts. */
static int
wide_unit(struct scan_strings *x, unsigned char lo, uint64_t at,
    scan_str_fn fn, void *ctx)
{
	struct scan_strrun *r = &x->w[at & 1];
	int rc;

	if (r->len > 0 && r->next != at &&
	    (rc = run_close(x, r, fn, ctx, SCAN_STR_WIDE)) != 0)
		return rc;
	if ((rc = run_add(x, r, &lo, 1, at, 2, fn, ctx, SCAN_STR_WIDE)) != 0)
		return rc;
	r->next = at + 2;
	return 0;
}

/* The span p[i..j) of characters, in the joined run: NULs alone between
 * it and the run's last character are dropped; any other byte between
 * them ended the run already. */
static int
joined_add(struct scan_strings *x, const unsigned char *p, size_t i, size_t j,
    uint64_t base, scan_str_fn fn, void *ctx)
{
	struct scan_strrun *r = &x->j;
	int rc;

	/* A full run is cut here, and its next piece is reported for what
	 * it holds itself (span_add gives no more than a piece's room). */
	if (r->len == SCAN_STR_MAX) {
		if ((rc = run_end(x, r, fn, ctx, SCAN_STR_JOINED)) != 0)
			return rc;
		r->gap = r->notwide = 0;
	}
	if (r->len > 0 && x->st == ST_NULS)
		r->gap = 1;
	/* UTF-16's shape is one character, one NUL: two characters side by
	 * side (in the span, or across the chunk's start), or NULs other
	 * than one, are not it. */
	if (j - i >= 2 || (r->len > 0 && (x->st == ST_CHAR ||
	    (x->st == ST_NULS && x->nuls != 1))))
		r->notwide = 1;
	return run_add(x, r, p + i, j - i, base + i, 1, fn, ctx,
	    SCAN_STR_JOINED);
}

/* The room a run has before its next piece is cut off: a full run is
 * cut (reported) before its next character is added. */
static size_t
room_of(const struct scan_strrun *r)
{
	return r->len < SCAN_STR_MAX ? SCAN_STR_MAX - r->len : SCAN_STR_MAX;
}

/* Adds the span p[i..j) to the ASCII run, the joined run, or both, in
 * pieces that end where either is cut: the pieces of the two are then
 * reported in the order of their bytes, however the file is cut into
 * chunks (the one a span reaches first, first). */
static int
span_add(struct scan_strings *x, const unsigned char *p, size_t i, size_t j,
    uint64_t base, int to_a, int to_j, scan_str_fn fn, void *ctx)
{
	int rc;

	while (i < j) {
		size_t k = j - i;

		if (to_a && room_of(&x->a) < k)
			k = room_of(&x->a);
		if (to_j && room_of(&x->j) < k)
			k = room_of(&x->j);
		if (to_a && (rc = run_add(x, &x->a, p + i, k, base + i, 1, fn,
		    ctx, SCAN_STR_ASCII)) != 0)
			return rc;
		if (to_j && (rc = joined_add(x, p, i, i + k, base, fn,
		    ctx)) != 0)
			return rc;
		x->st = ST_CHAR; /* the next piece follows this one's last */
		i += k;
	}
	return 0;
}

/*
 * ASCII runs are spans of str_tab bytes, added whole. A UTF-16LE unit is
 * a str_tab byte with a NUL after it, so it is the last byte of a span that
 * a NUL ends (or, at a chunk's start, the previous chunk's last byte). A
 * wide run goes on while its units follow each other at its alignment,
 * and ends when the next unit found is not the one it expects (or at the
 * end). A joined run goes on over bytes that are all NUL, and ends at any
 * other byte that is not a character. With SCAN_STR_NUL_EDGES, an ASCII
 * run a NUL ends is held until the next byte that is not NUL says
 * whether the NULs stood between two characters. The runs come, in the
 * order, that a byte-by-byte reading gives, however the file is cut into
 * chunks.
 */
int
scan_strings_feed(struct scan_strings *x, const unsigned char *p, size_t n,
    scan_str_fn fn, void *ctx)
{
	uint64_t base = x->next;
	int edges = (x->flags & SCAN_STR_NUL_EDGES) != 0;
	int drop = (x->flags & SCAN_STR_DROP_NUL) != 0;
	size_t i = 0, j;
	int rc, to_a, to_j;

	if (n == 0)
		return 0;
	if (!edges && base > 0 && p[0] == 0 && str_tab[x->prev] &&
	    (rc = wide_unit(x, x->prev, base - 1, fn, ctx)) != 0)
		return rc;
	while (i < n) {
		if (!str_tab[p[i]]) {
			int other = 0;

			if (x->a.len > 0 && !x->a_held) {
				if (edges && p[i] == 0)
					x->a_held = 1;
				else if ((rc = run_close(x, &x->a, fn, ctx,
				    SCAN_STR_ASCII)) != 0)
					return rc;
			}
			/* Whether the stretch is all NULs matters only right
			 * after a character (or NULs after one). */
			if (x->st == ST_OTHER) {
				while (++i < n && !str_tab[p[i]])
					;
				continue;
			}
			if (x->st == ST_CHAR)
				x->nuls = 0;
			for (; i < n && p[i] == 0; i++)
				x->nuls += x->nuls < 2;
			if (i < n && !str_tab[p[i]]) {
				other = 1;
				while (++i < n && !str_tab[p[i]])
					;
			}
			if (other) {
				x->st = ST_OTHER;
				if (x->a_held) {
					x->a_held = 0;
					if ((rc = run_close(x, &x->a, fn, ctx,
					    SCAN_STR_ASCII)) != 0)
						return rc;
				}
				if (drop && (rc = run_close(x, &x->j, fn, ctx,
				    SCAN_STR_JOINED)) != 0)
					return rc;
			} else if (x->st == ST_CHAR) {
				x->st = ST_NULS;
			}
			continue;
		}
		for (j = i + 1; j < n && str_tab[p[j]]; j++)
			;
		if (x->a_held) {
			/* NULs between two characters ended it. */
			x->a_held = 0;
			x->a.nul_edge = 1;
			if ((rc = run_close(x, &x->a, fn, ctx,
			    SCAN_STR_ASCII)) != 0)
				return rc;
		}
		/* Most spans of a binary are short and end in the chunk: not
		 * a string, nothing to keep. A joined run is one NULs go on:
		 * a span that starts none and has no NUL after it would end
		 * one at once. */
		to_a = x->a.len > 0 || j - i >= SCAN_STR_MIN || j == n;
		to_j = drop && (x->st != ST_OTHER || j == n || p[j] == 0);
		if (to_a && x->a.len == 0 && x->st == ST_NULS)
			x->a.nul_edge = 1;
		if ((rc = span_add(x, p, i, j, base, to_a, to_j, fn, ctx)) != 0)
			return rc;
		x->st = ST_CHAR;
		if (!edges && j < n && p[j] == 0 &&
		    (rc = wide_unit(x, p[j - 1], base + j - 1, fn, ctx)) != 0)
			return rc;
		i = j;
	}
	x->prev = p[n - 1];
	x->next = base + n;
	return 0;
}

int
scan_strings_end(struct scan_strings *x, scan_str_fn fn, void *ctx)
{
	int rc;

	x->a_held = 0;
	x->st = ST_OTHER;
	if ((rc = run_close(x, &x->a, fn, ctx, SCAN_STR_ASCII)) != 0 ||
	    (rc = run_close(x, &x->w[0], fn, ctx, SCAN_STR_WIDE)) != 0 ||
	    (rc = run_close(x, &x->w[1], fn, ctx, SCAN_STR_WIDE)) != 0)
		return rc;
	return run_close(x, &x->j, fn, ctx, SCAN_STR_JOINED);
}

int
scan_nul_text(const unsigned char *p, size_t n)
{
	size_t i, text = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == 0)
			continue;
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' &&
		    c != '\r' && c != 0x1b) || c == 0x7f)
			return 0;
		text++;
	}
	return text > 0;
}
