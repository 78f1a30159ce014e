/*
 * scan_blob.c - encoded blobs: runs of base64, hex or \xHH escapes found in
 * each chunk, decoded piece by piece, and what reads as text scanned again
 * one level deeper; its findings are reported at the blob's position, the
 * excerpt naming the decoding.
 *
 * Runs of at least AL_DECODE_MIN_CHARS characters are decoded in pieces of
 * at most AL_DECODE_MAX_BLOB bytes, to AL_DECODE_DEPTH levels, and at most
 * AL_DECODE_MAX_FILE decoded bytes per file (beyond that the file is
 * unscannable). The search skips through the text (a byte M-1 ahead that is
 * not in the alphabet rules out a run before it), so it costs little on
 * ordinary code.
 *
 * Trust: the bytes are hostile, and so are the decoded ones; this runs in
 * the sandboxed scan child, as part of the worker (scan_worker.c). Decoded
 * bytes go into the worker's own buffer (scan_decoded_max of a piece), and
 * the nested scan is an ordinary scan with its own worker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "al_limits.h"
#include "scan_decode.h"
#include "scan_engine_int.h"
#include "scan_read.h"

/* Moves what the scan of a decoded blob at [s, e) found into this file's
 * findings, at the blob's position, the excerpt naming the decoding. */
static void
adopt_decoded(struct scan_worker *w, enum scan_encoding enc, uint64_t s,
    uint64_t e, struct finding_list *inner)
{
	size_t i;

	eng_cursor_to(w, s);
	for (i = 0; i < inner->n && !w->stop; i++) {
		const struct finding *in = &inner->v[i];
		size_t ri = rule_set_index(w->e->rs, in->rule->id);
		struct finding *f;
		struct fmeta *m;
		struct dynbuf x;

		if (strcmp(in->rule->category, "secret") == 0 &&
		    eng_span_push(w, s, e) < 0) {
			w->nomem = w->stop = 1;
			return;
		}
		if (!in->rule->builtin) {
			if (ri >= w->e->rs->nrules ||
			    w->last_line[ri] == w->cur_line)
				continue;
			w->last_line[ri] = w->cur_line;
		}
		if ((f = eng_new_finding(w, &m)) == NULL)
			return;
		m->decoded = 1;
		al_sha256_hex(m->hash, in->fingerprint,
		    strlen(in->fingerprint));
		f->rule = in->rule;
		f->severity = in->severity;
		f->line = w->cur_line;
		f->column = w->cur_col + 1;
		f->path = strdup(w->path);
		dynbuf_init(&x, 4 * AL_EXCERPT_BYTES + 256);
		/* The excerpt is bounded, so this fits; if it did not, the
		 * file must not pass with a finding that says less. */
		if (dynbuf_addf(&x, "decoded %s: %s", scan_encoding_name(enc),
		    in->excerpt) < 0)
			w->nomem = w->stop = 1;
		f->excerpt = dynbuf_take(&x, NULL);
		if (f->path == NULL || f->excerpt == NULL)
			w->nomem = w->stop = 1;
	}
}

/*
 * Decoded bytes that are UTF-16LE text (no BOM: PowerShell encodes without
 * one), transcoded to UTF-8 in place of them: the new length, or -1.
 * The UTF-8 of ASCII is half the size; other characters may take three
 * bytes for two, so the transcoding goes through a second buffer.
 */
static ssize_t
utf16_text(struct scan_worker *w, size_t len)
{
	struct scan_u16 d = {SCAN_UTF16_LE, 0, 0, 0};
	size_t bom, used, k, cap = scan_decoded_max(AL_DECODE_MAX_BLOB);
	unsigned char *t;

	if (scan_utf16_sniff(w->dec, len, &bom) != SCAN_UTF16_LE)
		return -1;
	if ((t = malloc(cap * 3 / 2 + 16)) == NULL) {
		w->nomem = w->stop = 1;
		return -1;
	}
	k = scan_u16_decode(&d, w->dec + bom, len - bom, &used, t,
	    cap * 3 / 2 + 16, 1);
	if (used != len - bom || k > cap) {
		free(t);
		return -1;
	}
	memcpy(w->dec, t, k);
	free(t);
	return (ssize_t)k;
}

/*
 * Decoded bytes that are a zlib or gzip stream (Python's
 * exec(zlib.decompress(b64decode(...))), PowerShell's GzipStream), inflated
 * in place of them: at most a decoded piece's size comes out (a bomb gives
 * its first bytes), and a stream cut by the piece's end gives what it had.
 * The new length, or -1.
 */
static ssize_t
inflated_text(struct scan_worker *w, size_t len)
{
	size_t cap = scan_decoded_max(AL_DECODE_MAX_BLOB), k;
	const unsigned char *d = w->dec;
	unsigned char *t;
	z_stream z;
	int bits, r;

	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		bits = 15 + 16;
	else if (len >= 2 && (d[0] & 0x0f) == 8 && (d[0] >> 4) <= 7 &&
	    ((unsigned)d[0] << 8 | d[1]) % 31 == 0)
		bits = 15;
	else
		return -1;
	if ((t = malloc(cap)) == NULL) {
		w->nomem = w->stop = 1;
		return -1;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, bits) != Z_OK) {
		free(t);
		return -1;
	}
	z.next_in = (Bytef *)(uintptr_t)d;
	z.avail_in = (uInt)len;
	z.next_out = t;
	z.avail_out = (uInt)cap;
	r = inflate(&z, Z_NO_FLUSH);
	k = cap - z.avail_out;
	inflateEnd(&z);
	if ((r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) || k == 0) {
		free(t);
		return -1;
	}
	memcpy(w->dec, t, k);
	free(t);
	return (ssize_t)k;
}

/* Decodes the blob [s, e) piece by piece; scans what reads as text. */
static void
try_blob(struct scan_worker *w, uint64_t s, uint64_t e, int hex_only,
    int xesc)
{
	const char *base = w->buf - w->buf_off;
	uint64_t p;

	for (p = s; p < e && !w->stop;) {
		size_t n = e - p < AL_DECODE_MAX_BLOB ? (size_t)(e - p) :
		    AL_DECODE_MAX_BLOB;
		enum scan_encoding enc = xesc ? ENC_XESC : ENC_HEX;
		struct finding_list inner = {0};
		ssize_t len = -1;

		if (xesc)
			len = scan_decode_xesc(base + p, n, w->dec);
		else if (hex_only)
			len = scan_decode_hex(base + p, n, w->dec);
		if (!xesc && (len < 0 || !scan_is_text(w->dec, (size_t)len))) {
			enc = ENC_BASE64;
			len = scan_decode_base64(base + p, n, w->dec);
		}
		p += n;
		/* PowerShell's -EncodedCommand is base64 of UTF-16LE: read as
		 * the text PowerShell runs. */
		if (len > 0 && enc == ENC_BASE64 &&
		    !scan_is_text(w->dec, (size_t)len)) {
			ssize_t t;

			if ((t = utf16_text(w, (size_t)len)) > 0) {
				len = t;
				enc = ENC_BASE64_UTF16;
			} else if ((t = inflated_text(w, (size_t)len)) > 0) {
				len = t;
				enc = ENC_BASE64_ZLIB;
			}
		}
		if (len <= 0 || !scan_is_text(w->dec, (size_t)len))
			continue;
		w->decoded_total += (uint64_t)len;
		if (w->decoded_total > AL_DECODE_MAX_FILE) {
			eng_unscannable(w, "more than %u bytes of encoded "
			    "text; not all of it was decoded",
			    AL_DECODE_MAX_FILE);
			return;
		}
		if (e - s >= AL_ENCODED_TEXT_REPORT && p - n == s) {
			char msg[128];
			struct finding *f;

			eng_cursor_to(w, s);
			snprintf(msg, sizeof(msg), "%llu bytes of %s decode to "
			    "text", (unsigned long long)(e - s),
			    scan_encoding_name(enc));
			if (eng_meta_reserve(w,
			    (size_t)eng_file_findings(w) + 1) < 0 ||
			    finding_add_builtin(w->out, AL_RULE_ENCODED_TEXT,
			    w->path, msg) < 0) {
				w->nomem = w->stop = 1;
				return;
			}
			f = &w->out->v[w->out->n - 1];
			f->line = w->cur_line;
			f->column = w->cur_col + 1;
			memset(&w->meta[eng_file_findings(w) - 1], 0,
			    sizeof(*w->meta));
		}
		if (eng_scan_nested(w, w->dec, (size_t)len, &inner) < 0) {
			finding_list_free(&inner);
			w->nomem = w->stop = 1;
			return;
		}
		adopt_decoded(w, enc, s, e, &inner);
		finding_list_free(&inner);
	}
}

/* Bytes of encoded blobs: 1 base64 only, 3 base64 and hex. */
static const unsigned char blob_class[256] = {
	['A' ... 'F'] = 3, ['G' ... 'Z'] = 1,
	['a' ... 'f'] = 3, ['g' ... 'z'] = 1,
	['0' ... '9'] = 3,
	['+'] = 1, ['/'] = 1, ['-'] = 1, ['_'] = 1,
};

/*
 * Finds base64 and hex runs of at least AL_DECODE_MIN_CHARS in [from, to)
 * and decodes them. Most bytes of source text belong to the base64
 * alphabet, so the search skips: if the byte M-1 ahead is not in the
 * alphabet, no run of M can start before it. A run that reaches `to` before
 * the end of the file may go on in the next chunk: its start is returned so
 * that the search resumes there (its head is decoded now if it is too long
 * to stay in the kept window).
 */
uint64_t
eng_find_b64hex(struct scan_worker *w, uint64_t from, uint64_t to, int final)
{
	const unsigned char *base = (const unsigned char *)w->buf - w->buf_off;
	const uint64_t m = AL_DECODE_MIN_CHARS;
	uint64_t i = from, r, e, pad, k;

	while (i + m <= to && !w->stop) {
		int hex_only = 1;

		if (blob_class[base[i + m - 1]] == 0) {
			i += m;
			continue;
		}
		for (r = i + m - 1; r > i && blob_class[base[r - 1]] != 0; r--)
			;
		for (e = i + m; e < to && blob_class[base[e]] != 0; e++)
			;
		if (e - r < m && e < to) {
			i = e + 1;
			continue;
		}
		for (pad = e; pad < to && base[pad] == '=' && pad - e < 2;
		    pad++)
			;
		if (pad == to && !final) {
			uint64_t head;

			if (to - r < KEEP / 2)
				return r;
			/* Decode a 4-aligned head now; the rest stays. */
			head = (to - r - KEEP / 4) / 4 * 4;
			for (k = r; k < r + head; k++)
				hex_only &= blob_class[base[k]] == 3;
			try_blob(w, r, r + head, hex_only, 0);
			return r + head;
		}
		if (e - r >= m) {
			for (k = r; k < e; k++)
				hex_only &= blob_class[base[k]] == 3;
			try_blob(w, r, pad, hex_only, 0);
		}
		i = pad + 1;
	}
	if (!final && i < to) {
		/* A run at the very end may go on in the next chunk. */
		for (r = to; r > i && blob_class[base[r - 1]] != 0; r--)
			;
		return r;
	}
	return to;
}

/* Finds runs of at least AL_DECODE_MIN_CHARS / 4 "\xHH" escapes. */
uint64_t
eng_find_xesc(struct scan_worker *w, uint64_t from, uint64_t to, int final)
{
	const unsigned char *base = (const unsigned char *)w->buf - w->buf_off;
	uint64_t i = from;

	while (i < to && !w->stop) {
		const unsigned char *p = memchr(base + i, '\\', to - i);
		uint64_t s, k;

		if (p == NULL)
			break;
		s = k = (uint64_t)(p - base);
		while (k + 3 < to && base[k] == '\\' &&
		    (base[k + 1] == 'x' || base[k + 1] == 'X') &&
		    blob_class[base[k + 2]] == 3 &&
		    blob_class[base[k + 3]] == 3)
			k += 4;
		if (!final && k + 4 > to && to - s < KEEP / 2)
			return s;
		if (k - s >= AL_DECODE_MIN_CHARS)
			try_blob(w, s, k, 0, 1);
		i = k > s ? k : s + 1;
	}
	return final || to < from + 3 ? to : to - 3;
}
