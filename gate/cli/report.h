/*
 * report.h - scan results as text (for people), JSON and SARIF 2.1.0.
 *
 * Every string taken from an artifact (paths, excerpts) goes into JSON by
 * the text scheme (common/json_text.h: replaced by U+FFFD where it is not
 * UTF-8, its bytes in "<key>_hex" beside it); SARIF, which has no such
 * siblings, gets the replaced text in its own fields, the bytes in the
 * result's property bag ("path_hex", "excerpt_hex") and the path's bytes
 * percent-encoded in its URI. Text output escapes them for the terminal.
 * So hostile bytes can neither break a consumer's parser nor drive a
 * reviewer's terminal, and none is lost. A document that cannot be made
 * whole is not made (NULL): no finding is ever left out of one.
 */
#ifndef AIRLOCK_REPORT_H
#define AIRLOCK_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "scan.h"

struct scan_report {
	const struct rule_set *rs;
	const struct finding_list *findings; /* sorted */
	uint64_t files;
	uint64_t bytes;
	double seconds;
	uint64_t allowed;  /* findings removed by the allow-list (text only) */
};

/* Returns malloc'd documents (NULL when out of memory: none, rather
 * than one with a finding left out). */
char *report_json(const struct scan_report *r);
char *report_sarif(const struct scan_report *r);
int report_text(FILE *out, const struct scan_report *r, int color);

/* SARIF level for a severity: error, warning or note. */
const char *report_sarif_level(enum al_severity s);

#endif
