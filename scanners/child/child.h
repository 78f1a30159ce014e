/*
 * child.h - what runs in a scan child (private to scanners/): getting
 * ready while files can still be opened, then serving scans inside the
 * sandbox. parent.c forks children that run child_main(); the launcher
 * forks one per artifact that runs child_scan() once.
 *
 * Trust: a child parses hostile bytes and must be assumed compromised
 * once it has; nothing it sends is believed (parent.c checks it all).
 */
#ifndef AIRLOCK_CHILD_H
#define AIRLOCK_CHILD_H

#include "dynbuf.h"
#include "scan_engine.h"

/* The test hook's setting ($AIRLOCK_TEST_CHILD_FAULT), read before the
 * sandbox: makes the child misbehave on purpose (tests/e2e_scan.sh). */
const char *child_test_fault(void);

/* Everything a scan needs from the file system, before the sandbox
 * closes; exits (PROTO_EXIT_PREPARE) on failure. */
struct scan_worker *child_prepare(const struct scan_engine *e);

/* A child of airlock scan: greets (HELLO), enters the sandbox, serves
 * batches on sock, and exits when it closes. */
void child_main(const struct scan_engine *e, int sock);

/* Scans fd as the SCAN payload in `in` asks; appends the reply frames
 * (ITEM, FINDING..., MEMBER..., ITEM_END) to reply, sending early when
 * it grows large. out is scratch. Exits on a malformed request. */
int child_scan(struct scan_worker *w, int sock, int fd, const char *fault,
    const struct dynbuf *in, struct dynbuf *out, struct dynbuf *reply);

#endif
