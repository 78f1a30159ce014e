/*
 * scan_bundle.h - git bundles (`git bundle create`, v2 and v3), read as
 * `git fetch` would read them, in the scan child.
 *
 * Trust: the bundle is hostile; this runs only inside the sandboxed child.
 * The header (prerequisites, refs) is parsed strictly; the pack is indexed
 * in memory (no file is written: the child cannot open one), every object
 * id is recomputed from its content and the pack checksum is verified, so
 * what is scanned is what git would store (the pack reader is scan_pack.h,
 * our own: libgit2 cannot index a pack in memory). Then every commit
 * reachable from the refs is walked: its message and identities are
 * scanned as text, and each blob it brings is scanned once per (object id,
 * path) with that path.
 */
#ifndef AIRLOCK_SCAN_BUNDLE_H
#define AIRLOCK_SCAN_BUNDLE_H

#include <stddef.h>

#include "scan_engine.h"

/*
 * Scans the bundle held in memory. Findings are reported under
 * "PATH!/<commit>" for a commit's message and "PATH!/<commit>!/file" for
 * the files it brings (<commit>: the first 12 hex digits of the commit that
 * first brought that version of the file). A bundle with prerequisites is
 * scanned for what it carries and says so (airlock.bundle-incomplete);
 * deltas against objects it does not carry, an unsupported object format,
 * a bad checksum or a limit make it unscannable.
 */
int scan_bundle_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out);

#endif
