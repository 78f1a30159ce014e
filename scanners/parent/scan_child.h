/*
 * scan_child.h - scanning in a sandboxed child process.
 *
 * The gate never hands artifact bytes to the engine in its own process: a
 * scan child, forked with the rules and the compiled database already in
 * memory, enters the sandbox (sbx.c) and then receives one open file at a
 * time over a socketpair (the fd travels as SCM_RIGHTS, since the child can
 * open nothing itself). It answers in frames (proto.c). The parent trusts
 * nothing it says: frames are checked against the state table, findings must
 * name known rules, and a child that dies, hangs past the timeout or sends a
 * malformed frame makes that file `unscannable`, with the reason; the next
 * file gets a new child.
 */
#ifndef AIRLOCK_SCAN_CHILD_H
#define AIRLOCK_SCAN_CHILD_H

#include <stdint.h>

#include "scan_engine.h"
#include "vocab.h"

struct scan_child;

/* Forks a child serving scans with engine e, allowing it timeout seconds
 * per file (0: AL_CHILD_TIMEOUT). Call before threads start where possible
 * (the child is forked from the calling thread). */
int scan_child_start(struct scan_child **out, const struct scan_engine *e,
    double timeout);

/* One file to scan in a batch. */
struct scan_req {
	int fd;                   /* open regular file, not closed here */
	const char *path;
	const char *relpath;
	struct finding_list *out;
	uint64_t *bytes;
	char *digest;             /* AL_SHA256_HEX bytes, or NULL */
	enum al_kind kind;      /* how to read it (MEMBER: file or archive) */
	struct scan_item_list *items; /* what was read is added here; NULL:
	                           * not wanted (nothing hashed for it) */
	enum al_kind *kind_read;  /* the kind it was read as (the content's,
	                           * FILE..BUNDLE), or NULL; left as it was
	                           * when the child failed on it */
};

/*
 * Scans the files in order, as scan_fd() would, in the child: a batch of
 * them goes over in one message. A child failure makes the file it was on
 * unscannable (with the reason; the findings it sent stay) and a new child
 * takes the rest. Returns a negative code only when the parent runs out of
 * memory.
 */
int scan_child_scan_batch(struct scan_child *c, const struct scan_req *reqs,
    size_t nreqs);

/* Ends the child (closes its socket, waits for it). NULL-safe. */
void scan_child_stop(struct scan_child *c);

/*
 * The same API without a child, for `airlock scan --no-sandbox`
 * (debugging only): scan_child_scan_batch() then scans in the calling
 * thread, and hostile bytes reach the parsers unconfined. One per thread;
 * start it before the threads (it loads libgit2, the archive readers'
 * character sets and libmagic).
 */
int scan_inproc_start(struct scan_child **out, const struct scan_engine *e);

/*
 * The gate service's way: a launcher process, forked before any thread
 * starts, forks a fresh sandboxed child for each artifact (see the design
 * note in launcher.c). One launcher per scanning thread.
 */
struct scan_launcher;

int scan_launcher_start(struct scan_launcher **out,
    const struct scan_engine *e, double timeout);
/*
 * Scans r->fd (r->kind: how to read it) in a new child. A child that dies,
 * hangs past the timeout or lies makes the artifact unscannable with the
 * reason (what it reported is dropped: a failed child's findings are not
 * believed). A negative code only when the launcher itself is gone
 * (AL_EIO: the caller must stop scanning) or memory ran out.
 */
int scan_launcher_scan(struct scan_launcher *l, const struct scan_req *r);
void scan_launcher_stop(struct scan_launcher *l); /* NULL-safe */
/* 0 when the launcher has gone (its end of the control socket closed, or
 * it said something unasked); 1 while it waits for work. Between scans. */
int scan_launcher_alive(struct scan_launcher *l);
/* Kills the launcher and the child it runs (a scan in flight then fails
 * with AL_EIO, and its artifact is left to be scanned again). */
void scan_launcher_abort(struct scan_launcher *l);

#endif
