/*
 * fold.c - person names to their comparison key; see fold.h for the safe
 * set and why it is a set.
 *
 * Trust: input is hostile; every code point is decoded strictly and either
 * mapped by the table below or refused. Output is bounded by cap.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "fold.h"
#include "util.h"

static int
is_space(uint32_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xa0 ||
	    (c >= 0x2000 && c <= 0x200a) || c == 0x202f || c == 0x205f ||
	    c == 0x3000;
}

/*
 * The folding of one code point (not a space) into m[] (at most two code
 * points): how many, or 0 when it is outside the safe set.
 */
static int
fold_one(uint32_t c, uint32_t m[2])
{
	if (c >= 0xff01 && c <= 0xff5e)
		c -= 0xfee0;      /* fullwidth to ASCII, then as ASCII */
	if (c < 0x80) {
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-' || c == '@' ||
		    c == '\'' || c == '+') {
			m[0] = c;
			return 1;
		}
		return 0;
	}
	switch (c) {
	case 0xaa: m[0] = 'a'; return 1;
	case 0xba: m[0] = 'o'; return 1;
	case 0xb2: m[0] = '2'; return 1;
	case 0xb3: m[0] = '3'; return 1;
	case 0xb9: m[0] = '1'; return 1;
	case 0xd7: case 0xf7: return 0;           /* x and / signs */
	case 0xdf: m[0] = m[1] = 's'; return 2;
	case 0x130: case 0x13f: case 0x140: case 0x149: return 0;
	case 0x131: case 0x138: m[0] = c; return 1;
	case 0x132: case 0x133: m[0] = 'i'; m[1] = 'j'; return 2;
	case 0x178: m[0] = 0xff; return 1;
	case 0x17f: m[0] = 's'; return 1;
	default: break;
	}
	if (c >= 0xc0 && c <= 0xde) {
		m[0] = c + 0x20;
		return 1;
	}
	if (c >= 0xe0 && c <= 0xff) {
		m[0] = c;
		return 1;
	}
	/* Latin Extended-A: pairs, upper case first; the pairs start on an
	 * odd code point in 0139..0148 and 0179..017E. */
	if ((c >= 0x100 && c <= 0x137) || (c >= 0x14a && c <= 0x177)) {
		m[0] = c | 1;
		return 1;
	}
	if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) {
		m[0] = (c & 1) ? c + 1 : c;
		return 1;
	}
	return 0;
}

static size_t
utf8_encode(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	o[0] = (char)(0xc0 | c >> 6);     /* the set ends below U+0800 */
	o[1] = (char)(0x80 | (c & 0x3f));
	return 2;
}

int
al_name_fold(char *out, size_t cap, const char *in, size_t n, size_t *start,
    size_t *len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0, o = 0, k, first = n, last = 0;
	int pending = 0, nm, j;
	uint32_t c, m[2];

	if (cap < AL_FOLD_MAX + 1)
		return al_err_set(AL_EINVAL, "fold: buffer too small");
	while (i < n) {
		if ((k = al_utf8_seq(p + i, n - i, &c)) == 0)
			return al_err_set(AL_EINVAL, "a name is UTF-8 text");
		if (is_space(c)) {
			pending = o > 0;
			i += k;
			continue;
		}
		if ((nm = fold_one(c, m)) == 0)
			return al_err_set(AL_EINVAL, "a person's name may not "
			    "hold U+%04X: names are compared after NFKC case "
			    "folding, which this gate does faithfully only for "
			    "ASCII letters, digits and . _ - @ ' +, Latin-1 and "
			    "Latin Extended-A letters, fullwidth forms and "
			    "spaces", (unsigned)c);
		if (pending) {
			if (o + 1 > AL_FOLD_MAX)
				goto long_name;
			out[o++] = ' ';
			pending = 0;
		}
		for (j = 0; j < nm; j++) {
			if (o + 2 > AL_FOLD_MAX)
				goto long_name;
			o += utf8_encode(m[j], out + o);
		}
		if (first == n)
			first = i;
		i += k;
		last = i;
	}
	if (o == 0)
		return al_err_set(AL_EINVAL, "a person's name is not empty");
	out[o] = '\0';
	if (start != NULL)
		*start = first;
	if (len != NULL)
		*len = last - first;
	return (int)o;
long_name:
	return al_err_set(AL_EINVAL, "a person's name is at most %d bytes "
	    "once folded", AL_FOLD_MAX);
}
