/*
 * scan.h - the facade of scanners/: everything the rest of airlock may use
 * of it, and the only header of scanners/ that gate/ and db/ include
 * (make lint checks that for the service and db/, and nm that their
 * objects call no parser).
 *
 * What it offers:
 * - the rule set: loading and proving the YAML packs, finding a rule,
 *   path globs (rule.h);
 * - the engine compiled from it, findings and what a scan read
 *   (scan_engine.h, scan_finding.h); a worker scans trusted bytes in the
 *   calling process (a rule's own examples, for `airlock rules test`);
 * - the directory walker of `airlock scan` (scan_walk.h);
 * - the ways to scan artifact bytes: a sandboxed child per thread for
 *   `airlock scan` (scan_child_start), a launcher per scanning slot for
 *   the service, forking a fresh child per artifact (scan_launcher_*),
 *   and the in-process backend for --no-sandbox (scan_inproc_start); all
 *   in scan_child.h;
 * - airlock pull's unpacking of an archive: a sandboxed child writes it
 *   beneath a fresh directory, this side checks and moves it (extract.h).
 *
 * Trust: this header is where the door is. Artifact bytes handed to a
 * child or a launcher are parsed only inside the sandboxed child
 * (scanners/child/); what comes back is checked as hostile
 * (scanners/parent/). Nothing here parses artifact bytes in the caller,
 * except the two marked below.
 */
#ifndef AIRLOCK_SCAN_H
#define AIRLOCK_SCAN_H

#include <stddef.h>

#include "extract.h"
#include "rule.h"
#include "scan_child.h"
#include "scan_engine.h"
#include "scan_walk.h"
#include "vocab.h"

#endif
