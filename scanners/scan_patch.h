/*
 * scan_patch.h - patches (unified and git diffs) and `git format-patch`
 * mailboxes, read the way `git apply` and `git am` read them, in the scan
 * child.
 *
 * Trust: the patch is hostile; this runs only inside the sandboxed child.
 * libgit2 parses each diff; what it rejects (mismatched file headers, hunks
 * whose counts lie, header-only files) git rejects too, and the patch is
 * unscannable rather than read some other way. What is scanned is what
 * applying adds: added lines with their post-image line numbers, whole new
 * files, binary files decoded; plus the commit message and author, which a
 * human reads. Removed and context lines are not the submitter's content.
 */
#ifndef AIRLOCK_SCAN_PATCH_H
#define AIRLOCK_SCAN_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "scan_engine.h"

/* Loads libgit2 (call before the sandbox: it reads nothing later). */
int scan_git_init(void);

/* 1 if the text starts like a mailbox (a "From " separator line or mail
 * headers); 1 if it starts like a diff, or a .patch/.diff file holds one. */
int scan_looks_mbox(const char *p, size_t n);
int scan_looks_patch(const char *p, size_t n, const char *relpath);

/*
 * Scans a patch held in memory. Findings about a file the patch writes are
 * reported under "PATH!/file" (in a mailbox of several messages,
 * "PATH!/0002!/file"); the commit message under PATH (or "PATH!/0002").
 * mbox: read as `git am` would (messages, headers, body), else as `git
 * apply` would (text before the first diff is ignored by git but scanned).
 */
int scan_patch_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, int mbox, struct finding_list *out);

#endif
