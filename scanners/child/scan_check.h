/*
 * scan_check.h - checks in code for what a regular expression cannot decide:
 * a rule's pattern finds the candidate cheaply, and its `check` decides
 * whether the match is reported, looking at the whole line around it.
 *
 * Trust: the line is hostile bytes from an artifact; every check is a
 * bounded, allocation-free walk over (pointer, length).
 */
#ifndef AIRLOCK_SCAN_CHECK_H
#define AIRLOCK_SCAN_CHECK_H

#include <stddef.h>

enum rule_check {
	CHECK_NONE = 0,
	CHECK_BIDI_UNBALANCED,   /* an embedding, override or isolate left open */
	CHECK_ZERO_WIDTH_IDENT,  /* a zero-width character inside an identifier */
	CHECK_TAG_CHARS,         /* tag characters that are not an emoji flag */
	CHECK_MIXED_SCRIPT,      /* Latin mixed with Cyrillic/Greek look-alikes */
};

/* The check's name in rule files, and back; -1 for an unknown name. */
const char *scan_check_name(int check);
int scan_check_parse(const char *name);

/*
 * Decides a match [ms, me) on a line of len bytes (no newline). file_start
 * is set when line[0] is the first byte of the file. Returns 1 to report.
 */
int scan_check_run(int check, const unsigned char *line, size_t len,
    size_t ms, size_t me, int file_start);

#endif
