/*
 * term.h - what people read in a terminal: hostile strings escaped, sizes
 * for humans, and findings grouped by path. `airlock scan` prints its own
 * findings with it, the client those the gate sends, so that both look
 * the same and both are escaped the same way.
 *
 * Trust: every string printed here may come from an artifact or a server
 * (paths, excerpts, severities, rule ids) and is escaped (al_term_escape):
 * it can neither drive the terminal nor hide what it says.
 */
#ifndef AIRLOCK_TERM_H
#define AIRLOCK_TERM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Prints s escaped for a terminal ("(too long to show)" past 1 MiB). */
void al_term_put(FILE *out, const char *s);

/* "12.3 MiB", "1.0 KiB", "17 bytes" (powers of 1024). */
void al_human_size(char *buf, size_t n, int64_t bytes);

/* The colour of a severity by name (an unknown one is dim). */
const char *al_sev_color(const char *severity);

/* One finding as printed; every string is borrowed. */
struct al_finding_row {
	const char *path;
	int64_t line;             /* 0 or less: the whole file */
	int64_t column;
	const char *severity;     /* a name; from a server it may be anything */
	const char *rule;
	const char *title;        /* NULL: not shown */
	const char *excerpt;      /* NULL or "": none */
};

/*
 * Prints the rows (sorted by path) grouped by path, each with its
 * position, severity, rule, title and excerpt, then the count line
 * "N findings (a critical, b high...)" up to, without, its end: callers
 * add what they know (files, time) and the newline.
 */
void al_findings_print(FILE *out, const struct al_finding_row *rows,
    size_t n, int color);

#endif
