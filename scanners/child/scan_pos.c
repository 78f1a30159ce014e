/*
 * scan_pos.c - where a finding is: the cursor (offset, line, column) that
 * follows the hits through a worker's buffer.
 *
 * Line and column. A cursor (offset, line, column) moves with the hits, so
 * each byte is counted about once; before the buffer slides, the cursor is
 * moved to the new start so that what leaves the buffer is already counted.
 * Lines are 1-based; columns count code points (an invalid UTF-8 byte
 * counts as one), and a finding's column is the cursor's plus one.
 *
 * Trust: the bytes counted are hostile; this runs in the sandboxed scan
 * child, as part of the worker (scan_worker.c). It reads only inside the
 * worker's buffer, between buf_off and the offset it is asked for, which
 * the worker keeps inside the buffer.
 */
#include <stdint.h>
#include <string.h>

#include "scan_engine_int.h"

/*
 * Code points in a span: every byte that is not a UTF-8 continuation, and
 * every continuation byte that follows an ASCII byte (a stray one, shown as
 * U+FFFD in JSON, so it must count as one). prev is the byte before p, or
 * 0 when unknown; the count does not depend on where a span is split.
 */
static uint64_t
count_cps(const char *p, size_t n, unsigned char prev)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)p[i];

		c += (b & 0xc0) != 0x80 || (prev & 0x80) == 0;
		prev = b;
	}
	return c;
}

/* The byte before file offset abs, if the buffer holds it. */
static unsigned char
byte_before(const struct scan_worker *w, uint64_t abs)
{
	return abs > w->buf_off ?
	    (unsigned char)w->buf[abs - w->buf_off - 1] : 0;
}

static uint64_t
count_nl(const char *p, size_t n, const char **last)
{
	const char *end = p + n, *q;
	uint64_t c = 0;

	*last = NULL;
	while (p < end && (q = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		c++;
		*last = q;
		p = q + 1;
	}
	return c;
}

/* Moves the cursor to file offset abs (inside the buffer). */
void
eng_cursor_to(struct scan_worker *w, uint64_t abs)
{
	const char *base = w->buf - w->buf_off; /* base + abs = byte at abs */
	const char *last;
	uint64_t k;

	if (abs >= w->cur_abs) {
		k = count_nl(base + w->cur_abs, abs - w->cur_abs, &last);
		if (k > 0) {
			w->cur_line += k;
			w->cur_col = count_cps(last + 1,
			    (size_t)(base + abs - (last + 1)), '\n');
		} else {
			w->cur_col += count_cps(base + w->cur_abs,
			    abs - w->cur_abs, byte_before(w, w->cur_abs));
		}
	} else {
		k = count_nl(base + abs, w->cur_abs - abs, &last);
		w->cur_line -= k;
		last = memrchr(w->buf, '\n', abs - w->buf_off);
		if (last != NULL)
			w->cur_col = count_cps(last + 1,
			    (size_t)(base + abs - (last + 1)), '\n');
		else
			w->cur_col = w->base_col + count_cps(w->buf,
			    abs - w->buf_off, w->prev_byte);
	}
	w->cur_abs = abs;
}
