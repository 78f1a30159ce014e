/*
 * scan_norm.h - the normalised view of a line (scan_norm.c): the line as
 * an interpreter would read it once literal-only tricks are undone, for
 * the rules to read again.
 *
 * Trust: the line is hostile. A pure function over caller buffers: no
 * allocation, no recursion, output never longer than the input.
 */
#ifndef AIRLOCK_SCAN_NORM_H
#define AIRLOCK_SCAN_NORM_H

#include <stddef.h>

/* What changed the line (the finding says "via: ..."). */
enum {
	NORM_UNICODE = 1u << 0,   /* compatibility forms, dashes, quotes */
	NORM_ESCAPES = 1u << 1,   /* \xHH, \uHHHH, \NNN, %HH%HH%HH */
	NORM_JOIN = 1u << 2,      /* 'a' + 'b', "a" . "b", 'a' 'b' */
	NORM_SHELL = 1u << 3,     /* c''url, "cu"rl, c\url, ${IFS} */
	NORM_REFLECT = 1u << 4,   /* getattr, __import__, globals()[...] */
	NORM_CHARCODE = 1u << 5,  /* fromCharCode, chr(N), [char]N */
	NORM_SUBSCRIPT = 1u << 6, /* obj['name'] as obj.name */
	NORM_REVERSE = 1u << 7,   /* 'hs|lruc'[::-1], .reverse().join('') */
	NORM_ROT13 = 1u << 8,     /* codecs.decode('...', 'rot13') */
	NORM_ALIAS = 1u << 9,     /* a name the file gave (scan_alias.h) */
	NORM_XOR = 1u << 10,      /* a literal XORed with a literal key */
};

/*
 * Normalises the n bytes of one line (no LF in it) into out, which has
 * room for n bytes (the view is never longer). Returns the view's length
 * and sets *via to what changed it; *via is 0 when nothing did (out is
 * then undefined). tmp is scratch of n bytes.
 */
size_t scan_norm_line(const char *in, size_t n, char *out, char *tmp,
    unsigned *via);

/* "string join, getattr" for the bits of via, in buf (size len). */
const char *scan_norm_via(unsigned via, char *buf, size_t len);

#endif
