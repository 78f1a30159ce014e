/*
 * scan_decode.c - base64, hex and \xHH decoders; see scan_decode.h.
 */
#include <stdint.h>

#include "scan_decode.h"
#include "util.h"

const char *
scan_encoding_name(enum scan_encoding e)
{
	switch (e) {
	case ENC_BASE64:
		return "base64";
	case ENC_HEX:
		return "hex";
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

static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = al_lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

ssize_t
scan_decode_hex(const char *p, size_t n, unsigned char *out)
{
	size_t i;

	if (n % 2 != 0)
		return -1;
	for (i = 0; i < n; i += 2) {
		int hi = hex_value((unsigned char)p[i]);
		int lo = hex_value((unsigned char)p[i + 1]);

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
		hi = hex_value((unsigned char)p[i + 2]);
		lo = hex_value((unsigned char)p[i + 3]);
		if (hi < 0 || lo < 0)
			return -1;
		out[o++] = (unsigned char)(hi << 4 | lo);
	}
	return (ssize_t)o;
}

int
scan_is_text(const unsigned char *p, size_t n)
{
	size_t i = 0, bad = 0, printable = 0;
	uint32_t cp;

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
