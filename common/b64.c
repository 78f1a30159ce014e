/*
 * b64.c - standard base64, strict when decoding (b64.h says why).
 *
 * Trust: decodes hostile text (signed notes, proof files) into a buffer
 * of a size the caller states; nothing is written past it.
 */
#include <stdint.h>

#include "b64.h"
#include "err.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Canonical standard base64: padded, no blanks, zero bits after the
 * last byte (b64.h). */
int
al_b64_decode(unsigned char *out, size_t cap, size_t *out_len, const char *s,
    size_t n)
{
	size_t i, o = 0, pad = 0;

	if (n == 0 || n % 4 != 0)
		return -1;
	if (s[n - 1] == '=')
		pad = s[n - 2] == '=' ? 2 : 1;
	if (n / 4 * 3 - pad > cap)
		return -1;
	for (i = 0; i < n; i += 4) {
		uint32_t w = 0;
		size_t j;

		for (j = 0; j < 4; j++) {
			int v = i + j >= n - pad ? 0 :
			    b64_value((unsigned char)s[i + j]);

			if (v < 0)
				return -1;
			w = w << 6 | (uint32_t)v;
		}
		out[o++] = (unsigned char)(w >> 16);
		if (i + 4 < n || pad < 2)
			out[o++] = (unsigned char)(w >> 8);
		if (i + 4 < n || pad < 1)
			out[o++] = (unsigned char)w;
		else if ((w & (pad == 2 ? 0xffffu : 0xffu)) != 0)
			return -1; /* stray bits: another spelling of out */
	}
	*out_len = o;
	return 0;
}

int
al_b64_add(struct dynbuf *b, const void *vp, size_t n)
{
	const unsigned char *p = vp;
	size_t i;

	for (i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)p[i] << 16;
		char q[4];

		if (i + 1 < n)
			w |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			w |= p[i + 2];
		q[0] = b64_alphabet[w >> 18 & 63];
		q[1] = b64_alphabet[w >> 12 & 63];
		q[2] = i + 1 < n ? b64_alphabet[w >> 6 & 63] : '=';
		q[3] = i + 2 < n ? b64_alphabet[w & 63] : '=';
		if (dynbuf_add(b, q, 4) < 0)
			return AL_ELIMIT;
	}
	return 0;
}
