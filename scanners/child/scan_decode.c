/*
 * scan_decode.c - base64, hex and \xHH decoders; see scan_decode.h.
 */
#include <stdint.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dynbuf.h"
#include "err.h"
#include "scan_decode.h"
#include "text.h"
#include "util.h"

const char *
scan_encoding_name(enum scan_encoding e)
{
	switch (e) {
	case ENC_BASE64:
		return "base64";
	case ENC_HEX:
		return "hex";
	case ENC_BASE64_UTF16:
		return "base64 (UTF-16LE)";
	case ENC_BASE64_ZLIB:
		return "base64 (compressed)";
	default:
		return "\\x escapes";
	}
}

size_t
scan_decoded_max(size_t n)
{
	return n / 4 * 3 + 3;
}

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

ssize_t
scan_decode_base64(const char *p, size_t n, unsigned char *out)
{
	uint32_t acc = 0;
	size_t i, bits = 0, o = 0;

	while (n > 0 && p[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return -1; /* no base64 text has this length */
	for (i = 0; i < n; i++) {
		int v = b64_value((unsigned char)p[i]);

		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return (ssize_t)o;
}

ssize_t
scan_decode_hex(const char *p, size_t n, unsigned char *out)
{
	size_t i;

	if (n % 2 != 0)
		return -1;
	for (i = 0; i < n; i += 2) {
		int hi = al_hex_digit((unsigned char)p[i]);
		int lo = al_hex_digit((unsigned char)p[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return (ssize_t)(n / 2);
}

ssize_t
scan_decode_xesc(const char *p, size_t n, unsigned char *out)
{
	size_t i, o = 0;

	if (n % 4 != 0)
		return -1;
	for (i = 0; i < n; i += 4) {
		int hi, lo;

		if (p[i] != '\\' || (p[i + 1] != 'x' && p[i + 1] != 'X'))
			return -1;
		hi = al_hex_digit((unsigned char)p[i + 2]);
		lo = al_hex_digit((unsigned char)p[i + 3]);
		if (hi < 0 || lo < 0)
			return -1;
		out[o++] = (unsigned char)(hi << 4 | lo);
	}
	return (ssize_t)o;
}

int
scan_is_text(const unsigned char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	size_t i = 0, bad = 0, printable = 0;
	uint32_t cp;

	/* Printable ASCII (0x20 to 0x7e), most text's bytes, 8 at a time:
	 * no byte below 0x20, none with its high bit, none 0x7f. The rest,
	 * from the first word with another, one code point at a time. */
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, p + i, 8);
		y = x ^ (ones * 0x7f);
		if ((((x - ones * 0x20) & ~x) | x | ((y - ones) & ~y)) & high)
			break;
	}
	printable = i;
	while (i < n) {
		size_t len = al_utf8_seq(p + i, n - i, &cp);

		if (len == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' &&
		    cp != '\r') || cp == 0x7f) {
			bad++;
			len = len ? len : 1;
		} else {
			printable++;
		}
		i += len;
	}
	/* Almost all of it must be readable; a few stray bytes are allowed. */
	return printable >= 8 && bad * 50 <= printable;
}

int
scan_inflate(const void *p, size_t n, size_t max, unsigned char **out,
    size_t *out_len, size_t *used)
{
	z_stream z;
	unsigned char *buf;
	unsigned char spare;
	int r;

	*out = NULL;
	*out_len = 0;
	/* Deflate yields at most 1032 bytes per byte read (a 258-byte copy
	 * in two bits): a stated size past what n bytes can give is a lie,
	 * and nothing is allocated for it (a 20-byte object header claiming
	 * 512 MiB had the child allocate 512 MiB). */
	if (n <= (SIZE_MAX - 258) / 1032 && max > n * 1032 + 258)
		return al_err_set(AL_EINVAL, "corrupt zlib stream: %zu bytes "
		    "cannot inflate to %zu", n, max);
	if ((buf = malloc(max ? max : 1)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		free(buf);
		return al_err_set(AL_ENOMEM, "zlib cannot start");
	}
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)(n > UINT_MAX ? UINT_MAX : n);
	z.next_out = max ? buf : &spare;
	z.avail_out = (uInt)(max ? max : 1);
	r = inflate(&z, Z_FINISH);
	if (r == Z_BUF_ERROR && max > 0 && z.avail_out == 0) {
		/* Full: the stream must end here, not have more. */
		z.next_out = &spare;
		z.avail_out = 1;
		r = inflate(&z, Z_FINISH);
	}
	if (r != Z_STREAM_END || z.total_out > max) {
		inflateEnd(&z);
		free(buf);
		return al_err_set(AL_EINVAL, "corrupt zlib stream");
	}
	*out_len = z.total_out;
	if (used != NULL)
		*used = z.total_in;
	inflateEnd(&z);
	*out = buf;
	return 0;
}

int
scan_delta_inserts(const unsigned char *p, size_t n, struct dynbuf *out)
{
	size_t i = 0;
	int hdr;

	for (hdr = 0; hdr < 2; hdr++) {   /* source and target sizes */
		while (i < n && (p[i] & 0x80))
			i++;
		if (i++ >= n)
			return -1;
	}
	while (i < n) {
		unsigned op = p[i++];

		if (op & 0x80) {          /* copy: offset and size bytes */
			unsigned bit;

			for (bit = 0; bit < 7; bit++)
				if ((op & (1u << bit)) && i++ >= n)
					return -1;
		} else if (op != 0) {     /* insert op bytes */
			if (op > n - i || dynbuf_add(out, p + i, op) < 0 ||
			    dynbuf_addc(out, '\n') < 0)
				return -1;
			i += op;
		} else {
			return -1;
		}
	}
	return 0;
}
