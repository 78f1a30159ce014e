/*
 * rule_int.h - what the two files of the rule loader share, private to
 * them: the loading context (struct loader), its problem reporter, and the
 * helpers that free a rule's lists. Nothing else includes it; the rest of
 * airlock sees only rule.h.
 *
 * Files: rule_load.c lists a directory's rule files, validates and
 * compiles each rule, sorts the set and computes its digest, and owns what
 * a rule set holds; rule_yaml.c reads one rule file with libyaml.
 *
 * Trust: rule files are written by the gate's operator, not by agents;
 * the loader runs in the parent (airlock scan, rules and serve), before
 * any scan child is forked. They are still read defensively: sizes are
 * bounded (al_limits.h), and every problem is reported with its file and
 * line.
 */
#ifndef AIRLOCK_RULE_INT_H
#define AIRLOCK_RULE_INT_H

#include <stddef.h>

#include "rule.h"

/* Loading context for one rule set. */
struct loader {
	struct dynbuf *diags;
	size_t nerrors;
	unsigned flags;             /* RULE_LOAD_* */
	struct rule **rules;
	size_t nrules;
	size_t cap;
};

/* ---- the loader (rule_load.c) ------------------------------------------- */

/*
 * Records a problem: "file:line: rule ID: message\n" appended to the
 * diagnostics (without "rule ID: " when id is NULL), and counted.
 */
void rule_diag(struct loader *l, const char *file, int line, const char *id,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Free a list of strings (left empty) or an array of n examples. */
void rule_strv_free(struct rule_strv *sv);
void rule_examples_free(struct rule_example *ex, size_t n);

/* ---- reading one file (rule_yaml.c) ------------------------------------ */

/* Reads one file's rules into l; YAML errors are reported, not returned. */
int rule_load_file(struct loader *l, const char *path);

#endif
