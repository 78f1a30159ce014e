/*
 * launcher.c - the gate service's way to scan: a fresh sandboxed child per
 * artifact, forked by a launcher process; see scan_child.h.
 *
 * Trust: the launcher is trusted and parses nothing: it is forked by the
 * gate before any thread starts, holds the engine and a ready worker, and
 * per request forks a child that enters the sandbox and scans that one
 * artifact. The child's socket goes to the gate, which reads and checks
 * its frames itself (parent.c); the launcher reports how the child ended.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "al_limits.h"
#include "child.h"
#include "err.h"
#include "fdpass.h"
#include "os.h"
#include "parent.h"
#include "proto.h"
#include "sbx.h"

/*
 * The gate service must not fork from its threads (a lock held by another
 * thread at fork time stays held in the child), so one launcher per scan
 * thread is forked before any thread starts. It is single-threaded, holds the
 * engine and a ready worker, parses nothing, and per request forks a child
 * that enters the sandbox, scans the one artifact it was given and exits.
 * The child's socket goes back to the gate, which reads and checks its
 * frames itself; the launcher then reports how the child ended.
 *
 * Launcher protocol on the control socket (the launcher is trusted; the
 * child is not and never writes to it):
 *   gate -> launcher: the artifact fd and a SCAN frame (as for a child)
 *   launcher -> gate: the child's socket fd with its pid (8 bytes)
 *   launcher -> gate: pid (8 bytes) and wait status (4 bytes), at its end
 */

struct scan_launcher {
	const struct scan_engine *e;
	pid_t pid;
	int ctl;
	double timeout;
};

static void
launcher_main(const struct scan_engine *e, int ctl)
{
	const char *fault = child_test_fault();
	struct scan_worker *w = NULL;
	struct dynbuf in, out, reply;

	/* Its own process group, with its children: the gate can end a
	 * scan in flight when it stops (scan_launcher_abort). It dies with
	 * the gate, even a gate killed with SIGKILL. */
	(void)setpgid(0, 0);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(PROTO_EXIT_OK);
	/* Answering a submitter comes before scanning: the scans take the
	 * CPU intake leaves (the queue is durable; a scan can wait). */
	(void)setpriority(PRIO_PROCESS, 0, 19);
	/* Only the control socket stays open: nothing of the gate's. */
	if (ctl > 3)
		(void)close_range(3, (unsigned)ctl - 1, 0);
	(void)close_range((unsigned)ctl + 1, ~0U, 0);
	w = child_prepare(e);
	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	dynbuf_init(&out, PROTO_MAX_PAYLOAD);
	dynbuf_init(&reply, (AL_MAX_FINDINGS_PER_FILE + 8) *
	    (PROTO_HEADER + 4 * AL_EXCERPT_BYTES + 256));
	for (;;) {
		unsigned char started[PROTO_LAUNCH_STARTED];
		unsigned char ended[PROTO_LAUNCH_ENDED];
		int fd, sv[2], rep[2], type, status = 0;
		size_t nfd = 0;
		struct dynbuf pidbuf;
		pid_t pid;
		int rc = fdpass_recv(ctl, &fd, &nfd);

		if (rc == AL_ENOTFOUND)
			_exit(PROTO_EXIT_OK);
		if (rc < 0 || nfd != 1 || proto_read(ctl, &type, &in) < 0 ||
		    type != PROTO_SCAN)
			_exit(PROTO_EXIT_REQUEST);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			_exit(PROTO_EXIT_PAYLOAD);
		parent_report_pipe(rep);
		pid = fork();
		if (pid < 0)
			_exit(PROTO_EXIT_PAYLOAD);
		if (pid == 0) {
			struct sbx_limits lim;
			int keep[2] = {sv[1], fd};

			close(ctl);
			close(sv[0]);
			parent_report_child(rep);
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			sbx_default_limits(&lim);
			if (sbx_enter(keep, 2, &lim) < 0)
				_exit(PROTO_EXIT_SANDBOX);
			if (child_scan(w, sv[1], fd, fault, &in, &out, &reply) < 0 ||
			    proto_send(sv[1], &reply) < 0)
				_exit(PROTO_EXIT_REPLY);
			_exit(PROTO_EXIT_OK);
		}
		close(sv[1]);
		close(fd);
		if (rep[1] >= 0)
			close(rep[1]);
		proto_launch_started(started, pid);
		dynbuf_init(&pidbuf, sizeof(started));
		if (dynbuf_add(&pidbuf, started, sizeof(started)) < 0 ||
		    fdpass_send(ctl, &sv[0], 1, &pidbuf) < 0)
			_exit(PROTO_EXIT_SCAN);
		dynbuf_free(&pidbuf);
		close(sv[0]);
		/* A sanitized build's child: its report, until it exits (or
		 * the gate kills it), onto the gate's stderr. */
		if (rep[0] >= 0) {
			(void)parent_relay_report(rep[0], pid);
			close(rep[0]);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		proto_launch_ended(ended, pid, status);
		if (al_write_full(ctl, ended, sizeof(ended)) < 0)
			_exit(PROTO_EXIT_SCAN);
	}
}

int
scan_launcher_start(struct scan_launcher **out, const struct scan_engine *e,
    double timeout)
{
	struct scan_launcher *l = calloc(1, sizeof(*l));
	int sv[2];

	*out = NULL;
	if (l == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		free(l);
		return al_err_set(AL_EIO, "socketpair: %s", strerror(errno));
	}
	l->e = e;
	l->timeout = timeout > 0 ? timeout : AL_CHILD_TIMEOUT;
	l->pid = fork();
	if (l->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		free(l);
		return al_err_set(AL_EIO, "fork: %s", strerror(errno));
	}
	if (l->pid == 0) {
		close(sv[0]);
		launcher_main(e, sv[1]);
		_exit(PROTO_EXIT_RETURNED);
	}
	close(sv[1]);
	l->ctl = sv[0];
	*out = l;
	return 0;
}

void
scan_launcher_abort(struct scan_launcher *l)
{
	if (l != NULL && l->pid > 0) {
		(void)kill(-l->pid, SIGKILL);
		(void)kill(l->pid, SIGKILL);
	}
}

int
scan_launcher_alive(struct scan_launcher *l)
{
	struct pollfd p = {l->ctl, POLLIN, 0};
	int n;

	/* An idle launcher writes nothing: readable means closed (or a
	 * launcher that is not ours any more). */
	while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	return n == 0;
}

void
scan_launcher_stop(struct scan_launcher *l)
{
	if (l == NULL)
		return;
	close(l->ctl);
	(void)waitpid(l->pid, NULL, 0);
	free(l);
}

int
scan_launcher_scan(struct scan_launcher *l, const struct scan_req *r)
{
	struct scan_child c;
	unsigned char msg[PROTO_LAUNCH_ENDED];
	char why[512] = "";
	int rc, res = -1, waited;
	size_t nfd = 0, mark = r->out->n;
	pid_t pid = 0;

	memset(&c, 0, sizeof(c));
	c.e = l->e;
	c.timeout = l->timeout;
	c.sock = -1;
	dynbuf_init(&c.in, PROTO_MAX_PAYLOAD);
	dynbuf_init(&c.rbuf, 2 * (PROTO_HEADER + PROTO_MAX_PAYLOAD));
	/* The launcher is ours: a failure to talk to it is the gate's
	 * error, not the artifact's. */
	c.sock = l->ctl;
	rc = parent_request(&c, r, 1, why, sizeof(why));
	if (rc == 0 && ((rc = fdpass_recv(l->ctl, &res, &nfd)) < 0 || nfd != 1 ||
	    al_read_full(l->ctl, msg, PROTO_LAUNCH_STARTED, al_mono_now() + 30,
	    NULL) < 0))
		rc = AL_EIO;
	if (rc < 0) {
		dynbuf_free(&c.in);
		dynbuf_free(&c.rbuf);
		if (res >= 0)
			close(res);
		return al_err_set(AL_EIO, "the scan launcher does not answer%s%s",
		    why[0] ? ": " : "", why);
	}
	pid = proto_launch_pid(msg);
	c.sock = res;
	rc = parent_reply(&c, r, al_mono_now() + l->timeout, why, sizeof(why));
	if (rc < 0)
		kill(pid, SIGKILL);     /* hung, lying or dead: it ends here */
	close(res);
	dynbuf_free(&c.in);
	dynbuf_free(&c.rbuf);
	if (rc == AL_ENOMEM)
		return rc;
	waited = al_read_full(l->ctl, msg, PROTO_LAUNCH_ENDED, al_mono_now() + 30,
	    NULL);
	if (waited < 0 || proto_launch_pid(msg) != pid)
		return al_err_set(AL_EIO, "the scan launcher does not report its "
		    "child's end");
	if (rc == 0 && proto_launch_status(msg) != 0) {
		/* It answered, then failed: its answer is not believed. */
		rc = AL_EIO;
		why[0] = '\0';
	}
	if (rc < 0) {
		if (why[0] == '\0' || rc == AL_EIO)
			parent_describe_status(proto_launch_status(msg), why, sizeof(why));
		parent_truncate(r->out, mark);
		parent_drop_content(r);
		return parent_unscannable(r, why);
	}
	return 0;
}
