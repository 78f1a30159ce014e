/*
 * scan_finding.h - findings: what a scan reports about a file, the list
 * that holds them, and the built-in rules whose findings airlock makes
 * itself (scan_finding.c). scan_engine.h includes this header, so whatever
 * includes the engine sees findings as before.
 *
 * Trust: findings are made on both sides of the sandbox: in the scan child
 * from hostile bytes, in the parent by the walker and from the child's
 * frames. A finding's path and excerpt may hold any bytes; the printers
 * escape them (term.c, gate/report.c).
 */
#ifndef AIRLOCK_SCAN_FINDING_H
#define AIRLOCK_SCAN_FINDING_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "rule.h"

struct finding {
	const struct rule *rule;  /* borrowed from the rule set or built-ins */
	enum al_severity severity; /* the rule's, or raised by context */
	char *path;               /* display path */
	uint64_t line;            /* 1-based; 0 = the whole file */
	uint64_t column;          /* 1-based, in code points; 0 with line 0 */
	char *excerpt;            /* redacted line excerpt, or a message */
	/* 128 bits in hex, stable across line moves (scan_finding.c). */
	char fingerprint[33];
};

struct finding_list {
	struct finding *v;
	size_t n;
	size_t cap;
};

/* Built-in findings the engine and the walker report themselves. */
#define AL_RULE_UNSCANNABLE "airlock.unscannable"
#define AL_RULE_SYMLINK "airlock.symlink"
#define AL_RULE_SYMLINK_ESCAPE "airlock.symlink-escape"
#define AL_RULE_SPECIAL "airlock.special-file"
#define AL_RULE_ENCODED_TEXT "airlock.encoded-text"
#define AL_RULE_ARCHIVE_PATH "airlock.archive-path"
#define AL_RULE_ARCHIVE_HARDLINK "airlock.archive-hardlink"
#define AL_RULE_ARCHIVE_MODE "airlock.archive-mode"
#define AL_RULE_ARCHIVE_DUPLICATE "airlock.archive-duplicate"
#define AL_RULE_EXECUTABLE "airlock.executable"
#define AL_RULE_TYPE_MISMATCH "airlock.type-mismatch"
#define AL_RULE_PATCH_PATH "airlock.patch-path"
#define AL_RULE_SUBMODULE "airlock.submodule"
#define AL_RULE_EXEC_MODE "airlock.executable-mode"
#define AL_RULE_BUNDLE_INCOMPLETE "airlock.bundle-incomplete"
#define AL_RULE_KIND_MISMATCH "airlock.kind-mismatch"
/* Renames, copies and mode changes into runnable places (scan_patch.c). */
#define AL_RULE_BASE_CONTENT "airlock.content-from-base"
#define AL_RULE_SYMLINK_GIT "airlock.symlink-git"
/* NUL bytes between the characters of a text file (scan_worker.c). */
#define AL_RULE_NUL_TEXT "airlock.nul-in-text"
/* A pickle whose load resolves or calls code (scan_pickle.c). */
#define AL_RULE_PICKLE "airlock.pickle-code"

const struct rule *scan_builtin_rule(const char *id);
/* The built-in rules, for SARIF's rule table. */
const struct rule *const *scan_builtin_rules(size_t *n_out);

/* Appends a built-in finding about a whole file (line 0). */
int finding_add_builtin(struct finding_list *l, const char *rule_id,
    const char *path, const char *message);
/* The same with the message formatted (cut at AL_MAX_PATH + 511 bytes). */
int finding_add_builtinf(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int finding_add_builtinv(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

void finding_list_free(struct finding_list *l);
/* Sorts by path, line, column, rule id. */
void finding_list_sort(struct finding_list *l);
/* Moves all findings of src to the end of dst. */
int finding_list_move(struct finding_list *dst, struct finding_list *src);

#endif
