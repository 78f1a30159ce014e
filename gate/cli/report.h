/*
 * report.h - scan results as text (for people), JSON and SARIF 2.1.0.
 *
 * Every string taken from an artifact (paths, excerpts) is made valid UTF-8
 * for JSON and SARIF, and escaped for the terminal in text output, so hostile
 * bytes can neither break a consumer's parser nor drive a reviewer's
 * terminal.
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

/* Returns malloc'd documents (NULL when out of memory). */
char *report_json(const struct scan_report *r);
char *report_sarif(const struct scan_report *r);
int report_text(FILE *out, const struct scan_report *r, int color);

/* SARIF level for a severity: error, warning or note. */
const char *report_sarif_level(enum al_severity s);

#endif
