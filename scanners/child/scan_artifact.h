/*
 * scan_artifact.h - how an artifact is read, in the scan child: its kind,
 * from its first bytes or as the caller forces it, decides whether the
 * archive, patch, mailbox or bundle reader reads it or the engine scans it
 * as a file.
 *
 * Trust: the artifact is hostile; this runs only inside the sandboxed child
 * (or with --no-sandbox, for debugging). This is the one place that knows
 * every reader: a reader that finds a file inside what it reads (a bundle's
 * blob, a binary hunk) hands it back here (scan_blob_mem), so that it need
 * not know which other reader opens it.
 */
#ifndef AIRLOCK_SCAN_ARTIFACT_H
#define AIRLOCK_SCAN_ARTIFACT_H

#include <stddef.h>
#include <stdint.h>

#include "scan_engine.h"
#include "scan.h"
#include "vocab.h"

/*
 * The kind the first bytes of an artifact show (never MEMBER or AUTO):
 * archive magic, bundle header, mailbox or patch headers (top: a whole
 * artifact; else a file in a tree, which is an archive or a file). Only
 * the child sniffs: everyone else goes by the kind it reported.
 */
enum al_kind scan_sniff_kind(const char *h, size_t n, const char *relpath,
    int top);
/*
 * Scans the file open at fd as kind (MEMBER and AUTO: the kind its content
 * shows; patches, mailboxes and bundles only with AUTO, since a .patch
 * file inside a tree is just a file to its consumer). digest as scan_fd's;
 * archives, patches and bundles get no digest (the allow-list does not
 * apply inside them). *kind_out, when set, receives the kind read.
 */
int scan_artifact_fd(struct scan_worker *w, int fd, const char *path,
    const char *relpath, enum al_kind kind, struct finding_list *out,
    uint64_t *bytes, char *digest, enum al_kind *kind_out);

/*
 * Scans a patch held in memory, or with mbox a mailbox: read as `git am`
 * would (messages, headers, body; see scan_mbox.h), else as `git apply`
 * would (text before the first diff is ignored by git but scanned; see
 * scan_patch.h). Findings about a file the patch writes are reported under
 * "PATH!/file" (in a mailbox of several messages, "PATH!/0002!/file"); the
 * commit message under PATH (or "PATH!/0002").
 */
int scan_patch_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, int mbox, struct finding_list *out);

/* Scans a file held in memory (a blob of a bundle, a binary hunk): opened as
 * an archive when it is one, else scanned as a file. */
int scan_blob_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, const char *relpath, struct finding_list *out);

#endif
