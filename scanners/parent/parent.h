/*
 * parent.h - the parent's side of a scan child (private to scanners/):
 * the state it keeps of one child and the steps the launcher shares with
 * airlock scan's children (send a request, read and check the reply, say
 * why a file could not be scanned).
 *
 * Trust: everything read from a child is hostile input.
 */
#ifndef AIRLOCK_PARENT_H
#define AIRLOCK_PARENT_H

#include <stddef.h>
#include <sys/types.h>

#include "dynbuf.h"
#include "scan_child.h"

struct scan_child {
	const struct scan_engine *e;
	pid_t pid;              /* 0: no child running */
	int sock;               /* the parent's end */
	struct dynbuf rbuf;     /* bytes read from the child, not yet parsed */
	size_t rpos;            /* parsed up to here */
	double timeout;         /* seconds per file */
	struct dynbuf in;       /* the last frame's payload */
	struct scan_worker *inproc; /* set: no child, scans in this process
	                         * (--no-sandbox; inproc.c) */
	int report;             /* while pid != 0: the read end of the
	                         * child's sanitizer report, or -1 (sbx.h) */
};

/*
 * A child's sanitizer report, in sanitized builds (sbx.h): the parent
 * makes a pipe before the fork (parent_report_pipe: both ends -1 in other
 * builds, or when it cannot); the child makes its write end fd 2
 * (parent_report_child); the parent relays what arrives on the read end
 * to its own stderr (parent_relay_report): each line escaped for a
 * terminal (al_term_escape) and prefixed "airlock: scan child PID: ", at
 * most PARENT_REPORT_MAX bytes shown; read until the child's end closes
 * (it exited), or on a non-blocking fd until nothing more is there.
 * Returns the bytes the child wrote.
 */
#define PARENT_REPORT_MAX (1u << 20)
void parent_report_pipe(int fds[2]);
void parent_report_child(int fds[2]);
size_t parent_relay_report(int fd, pid_t pid);

/* Queues files in the child: their fds and SCAN requests, one message. */
int parent_request(struct scan_child *c, const struct scan_req *r, size_t k,
    char *why, size_t n);
/* Reads and checks the child's answer for r: ITEM, FINDING..., ITEM_END,
 * by the state table; adds what it reports to r. */
int parent_reply(struct scan_child *c, const struct scan_req *r,
    double deadline, char *why, size_t n);
/* How a child that ended with this wait status died, for the reason. */
void parent_describe_status(int status, char *why, size_t n);
/* The file r could not be scanned: an unscannable finding saying why. */
/* Forgets the member bytes kept for r (a failed child's are not
 * believed). */
void parent_drop_content(const struct scan_req *r);
int parent_unscannable(const struct scan_req *r, const char *why);
/* Drops the findings of l from index n on. */
void parent_truncate(struct finding_list *l, size_t n);

/* The in-process backend's batch (inproc.c). */
int inproc_scan_batch(struct scan_child *c, const struct scan_req *reqs,
    size_t nreqs);

#endif
