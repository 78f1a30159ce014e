/*
 * scan_check.c - the checks behind unicode rules; see scan_check.h.
 *
 * Each check is tuned to flag deception without flagging the ordinary use of
 * the same characters: right-to-left prose (balanced or no bidi controls),
 * emoji sequences (ZWJ between pictographs, tag characters in subdivision
 * flags), Persian text (ZWNJ between Arabic letters), mathematical Greek
 * (Δt: Δ looks like no Latin letter).
 */
#include <stdint.h>
#include <string.h>

#include "scan_check.h"
#include "util.h"

static const char *const check_names[] = {
	"none", "bidi-unbalanced", "zero-width-in-identifier",
	"tag-characters", "mixed-script-identifier",
};

const char *
scan_check_name(int check)
{
	if (check >= 0 &&
	    (size_t)check < sizeof(check_names) / sizeof(check_names[0]))
		return check_names[check];
	return "unknown";
}

int
scan_check_parse(const char *name)
{
	size_t i;

	for (i = 1; i < sizeof(check_names) / sizeof(check_names[0]); i++)
		if (strcmp(name, check_names[i]) == 0)
			return (int)i;
	return -1;
}

/* Decodes the code point at p (invalid bytes decode as themselves). */
static size_t
cp_at(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len = al_utf8_seq(p, n, cp);

	if (len == 0) {
		*cp = p[0];
		return 1;
	}
	return len;
}

/* Start of the code point that ends just before offset i. */
static size_t
cp_start_before(const unsigned char *line, size_t i)
{
	size_t j = i - 1, k = 0;

	while (j > 0 && k < 3 && (line[j] & 0xc0) == 0x80) {
		j--;
		k++;
	}
	return j;
}

static int
is_zero_width(uint32_t cp)
{
	return (cp >= 0x200b && cp <= 0x200d) || cp == 0x2060 || cp == 0xfeff;
}

static int
is_ascii_ident(uint32_t cp)
{
	return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
	    (cp >= '0' && cp <= '9') || cp == '_';
}

/* Letters of scripts identifiers are written in (not symbols or emoji). */
static int
is_letterish(uint32_t cp)
{
	return is_ascii_ident(cp) || (cp >= 0xc0 && cp <= 0x2af && cp != 0xd7 &&
	    cp != 0xf7) || (cp >= 0x370 && cp <= 0x52f) ||
	    (cp >= 0x590 && cp <= 0x6ff) || (cp >= 0x3040 && cp <= 0x9fff) ||
	    (cp >= 0xac00 && cp <= 0xd7af);
}

static int
bidi_unbalanced(const unsigned char *line, size_t len)
{
	size_t i = 0, emb = 0, iso = 0;
	uint32_t cp;

	while (i < len) {
		i += cp_at(line + i, len - i, &cp);
		if (cp >= 0x202a && cp <= 0x202e && cp != 0x202c)
			emb++;                   /* LRE, RLE, LRO, RLO */
		else if (cp == 0x202c && emb > 0)
			emb--;                   /* PDF */
		else if (cp >= 0x2066 && cp <= 0x2068)
			iso++;                   /* LRI, RLI, FSI */
		else if (cp == 0x2069 && iso > 0) {
			iso--;                   /* PDI also closes embeddings */
			emb = 0;
		}
	}
	return emb > 0 || iso > 0;
}

static int
zero_width_ident(const unsigned char *line, size_t len, size_t ms, size_t me,
    int file_start)
{
	uint32_t cp, prev = 0, next = 0;
	size_t i, steps;

	(void)cp_at(line + ms, len - ms, &cp);
	if (cp == 0xfeff && ms == 0 && file_start)
		return 0; /* a byte-order mark where it belongs */
	/* Neighbours, skipping further zero-width characters. */
	for (i = ms, steps = 0; i > 0 && steps < 8; steps++) {
		i = cp_start_before(line, i);
		(void)cp_at(line + i, len - i, &prev);
		if (!is_zero_width(prev))
			break;
		prev = 0;
	}
	for (i = me, steps = 0; i < len && steps < 8; steps++) {
		i += cp_at(line + i, len - i, &next);
		if (!is_zero_width(next))
			break;
		next = 0;
	}
	return is_letterish(prev) && is_letterish(next) &&
	    (is_ascii_ident(prev) || is_ascii_ident(next));
}

static int
is_tag(const unsigned char *p, size_t n, uint32_t *cp)
{
	return n >= 4 && al_utf8_seq(p, n, cp) == 4 && *cp >= 0xe0000 &&
	    *cp <= 0xe007f;
}

/* Tag characters are legitimate in one place: an emoji subdivision flag,
 * U+1F3F4 then lower-case letters or digits as tags, then CANCEL TAG. */
static int
tag_chars(const unsigned char *line, size_t len, size_t ms)
{
	size_t rs = ms, re, count = 0;
	uint32_t cp, last = 0;
	int plain = 1;

	while (rs >= 4 && is_tag(line + rs - 4, 4, &cp))
		rs -= 4;
	re = rs;
	while (re < len && is_tag(line + re, len - re, &cp)) {
		if (!((cp >= 0xe0030 && cp <= 0xe0039) ||
		    (cp >= 0xe0061 && cp <= 0xe007a) || cp == 0xe007f))
			plain = 0;
		last = cp;
		re += 4;
		count++;
	}
	if (plain && last == 0xe007f && count >= 3 && count <= 8 && rs >= 4 &&
	    memcmp(line + rs - 4, "\xf0\x9f\x8f\xb4", 4) == 0)
		return 0;
	return 1;
}

/* Cyrillic and Greek letters that look like Latin ones. */
static int
is_confusable(uint32_t cp)
{
	static const uint16_t table[] = {
		/* Greek capitals and small letters */
		0x0391, 0x0392, 0x0395, 0x0396, 0x0397, 0x0399, 0x039a, 0x039c,
		0x039d, 0x039f, 0x03a1, 0x03a4, 0x03a5, 0x03a7, 0x03b9, 0x03ba,
		0x03bd, 0x03bf, 0x03c1, 0x03c5,
		/* Cyrillic */
		0x0405, 0x0406, 0x0408, 0x0410, 0x0412, 0x0415, 0x041a, 0x041c,
		0x041d, 0x041e, 0x0420, 0x0421, 0x0422, 0x0423, 0x0425, 0x0430,
		0x0435, 0x043e, 0x0440, 0x0441, 0x0443, 0x0445, 0x0455, 0x0456,
		0x0458, 0x04ae, 0x04af, 0x04bb, 0x04c0, 0x04cf, 0x0501, 0x051b,
		0x051d,
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (cp == table[i])
			return 1;
	return 0;
}

static int
mixed_script(const unsigned char *line, size_t len, size_t ms)
{
	size_t s = ms, e = ms, steps;
	uint32_t cp;
	int latin = 0, confusable = 0;

	/* The identifier around the match, at most 256 code points each way. */
	for (steps = 0; s > 0 && steps < 256; steps++) {
		size_t b = cp_start_before(line, s);

		(void)cp_at(line + b, len - b, &cp);
		if (!is_letterish(cp))
			break;
		s = b;
	}
	for (steps = 0; e < len && steps < 512; steps++) {
		size_t n = cp_at(line + e, len - e, &cp);

		if (!is_letterish(cp))
			break;
		latin |= (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
		confusable |= is_confusable(cp);
		e += n;
	}
	return latin && confusable;
}

int
scan_check_run(int check, const unsigned char *line, size_t len, size_t ms,
    size_t me, int file_start)
{
	if (ms > len || me > len || ms > me)
		return 1; /* cannot happen; fail towards reporting */
	switch (check) {
	case CHECK_BIDI_UNBALANCED:
		return bidi_unbalanced(line, len);
	case CHECK_ZERO_WIDTH_IDENT:
		return zero_width_ident(line, len, ms, me, file_start);
	case CHECK_TAG_CHARS:
		return tag_chars(line, len, ms);
	case CHECK_MIXED_SCRIPT:
		return mixed_script(line, len, ms);
	default:
		return 1;
	}
}
