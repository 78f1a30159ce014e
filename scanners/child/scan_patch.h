/*
 * scan_patch.h - patches (unified and git diffs), read the way `git apply`
 * reads them, in the scan child; the mailbox reader (scan_mbox.h) reads
 * each message's diff with scan_patch_diff.
 *
 * Trust: the patch is hostile; this runs only inside the sandboxed child.
 * libgit2 parses each diff; what it rejects (mismatched file headers, hunks
 * whose counts lie, header-only files) git rejects too, and the patch is
 * unscannable rather than read some other way. What is scanned is what
 * applying adds: added lines with their post-image line numbers, whole new
 * files, binary files decoded; plus the text before the first diff, which
 * a human reads. Removed and context lines are not the submitter's content.
 */
#ifndef AIRLOCK_SCAN_PATCH_H
#define AIRLOCK_SCAN_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "scan_engine.h"

/* Loads libgit2 (call before the sandbox: it reads nothing later). */
int scan_git_init(void);

/* 1 if the text holds a diff anywhere (git apply skips what comes before
 * the first one); the name plays no part. */
int scan_looks_patch(const char *p, size_t n);

/* The first line of [p, end) where a diff starts ("diff --git", or "--- "
 * followed by "+++ "), or end. */
const char *scan_patch_find_diff(const char *p, const char *end);

/*
 * Scans a patch held in memory as `git apply` would read it: findings
 * about a file the patch writes are reported under "PATH!/file"; the text
 * before the first diff (ignored by git, but read by a human) under PATH.
 */
int scan_patch_apply_mem(struct scan_worker *w, const char *data,
    size_t len, const char *path, struct finding_list *out);

/* How runnable a file at path with this mode is once written: 0 data or
 * a document, 1 a script by its name or an executable (mode 100755), 2 a
 * place that runs by itself, where an install-hook or persistence rule's
 * paths point (*rule: that rule, else NULL). */
int scan_runnable(const struct scan_worker *w, const char *path,
    uint32_t mode, const struct rule **rule);


/* Scans the diff in [p, p + n): findings about a file it writes under
 * prefix followed by the file's name, problems with it as a whole under
 * item. */
int scan_patch_diff(struct scan_worker *w, const char *p, size_t n,
    const char *prefix, const char *item, struct finding_list *out);

#endif
