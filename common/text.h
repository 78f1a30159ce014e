/*
 * text.h - reading text held in memory, line by line, with line numbers:
 * the patch, mailbox and bundle readers and the gate's own small config
 * files all walk text this way.
 *
 * Trust: the text is hostile. Everything takes (pointer, length) or
 * (pointer, end), never relies on a terminating NUL and never reads past
 * end; a line is what lies before a '\n' (the last may have none).
 */
#ifndef AIRLOCK_TEXT_H
#define AIRLOCK_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* A cursor over [p, end). */
struct al_text {
	const char *p;            /* the next line starts here */
	const char *end;
	uint64_t line;            /* number of the line last given (1-based;
	                           * 0 before the first) */
};

void al_text_init(struct al_text *t, const char *p, size_t n);
/* The line at the cursor, without its '\n', in *line and *len; the cursor
 * moves past it. 0 when there is no line left, else 1. */
int al_text_next(struct al_text *t, const char **line, size_t *len);

/* The length of the line at p, without its '\n', and where the next line
 * begins (end when there is none). */
size_t al_line_len(const char *p, const char *end, const char **next);

/* The value of a hex digit (either case), or -1. */
int al_hex_digit(int c);

/* 1 if the n bytes at p begin with the string s. */
int al_starts(const char *p, size_t n, const char *s);

/*
 * Decimal digits at *p, before end: their value in *out and *p moved past
 * them. -1 (nothing moved) when *p is not a digit or the value passes max.
 * A digit run longer than max allows is refused, never wrapped.
 */
int al_dec_parse(const char **p, const char *end, uint64_t max,
    uint64_t *out);

#endif
