/*
 * scan_child.c - the sandboxed scan child and the parent's side of it; see
 * scan_child.h.
 *
 * Trust: the child runs the engine over hostile bytes and may be
 * compromised; the parent reads its frames as hostile input.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "al_limits.h"
#include "err.h"
#include "os.h"
#include "path.h"
#include "proto.h"
#include "sbx.h"
#include "scan_archive.h"
#include "scan_child.h"
#include "scan_patch.h"
#include "util.h"

struct scan_child {
	const struct scan_engine *e;
	pid_t pid;              /* 0: no child running */
	int sock;               /* the parent's end */
	struct dynbuf rbuf;     /* bytes read from the child, not yet parsed */
	size_t rpos;            /* parsed up to here */
	double timeout;         /* seconds per file */
	struct dynbuf in;       /* the last frame's payload */
};

/* ---- fd passing ---------------------------------------------------------- */

/* Sends nfd fds, with a marker byte and then the bytes of data, in one
 * message (the child reads the marker with the fds, then the data). */
static int
send_fds(int sock, const int *fds, size_t nfd, const struct dynbuf *data)
{
	char byte = 'F';
	struct iovec iov[2] = {{&byte, 1}, {data->data, data->len}};
	union {
		char buf[CMSG_SPACE(sizeof(int) * AL_CHILD_INFLIGHT)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct cmsghdr *cm;

	if (nfd == 0 || nfd > AL_CHILD_INFLIGHT)
		return al_err_set(AL_EINVAL, "bad number of files to pass");
	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	msg.msg_control = u.buf;
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfd);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * nfd);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfd);
	for (;;) {
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
		size_t sent;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 1)
			return al_err_set(AL_EIO, "passing files to the scan "
			    "child: %s", n < 0 ? strerror(errno) : "no progress");
		/* The fds went with the first byte; send what is left. */
		sent = (size_t)n - 1;
		while (sent < data->len) {
			n = send(sock, data->data + sent, data->len - sent,
			    MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return al_err_set(AL_EIO, "writing to the scan "
				    "child: %s", n < 0 ? strerror(errno) : "closed");
			sent += (size_t)n;
		}
		return 0;
	}
}

/* Receives up to AL_CHILD_INFLIGHT fds; AL_ENOTFOUND at end of stream. */
static int
recv_fds(int sock, int *fds, size_t *nfd)
{
	char byte;
	struct iovec iov = {&byte, 1};
	union {
		char buf[CMSG_SPACE(sizeof(int) * AL_CHILD_INFLIGHT)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(sock, &msg, 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return AL_ENOTFOUND;
	cm = CMSG_FIRSTHDR(&msg);
	if (n != 1 || cm == NULL || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(sizeof(int)) ||
	    (msg.msg_flags & MSG_CTRUNC))
		return AL_EIO;
	*nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (*nfd == 0 || *nfd > AL_CHILD_INFLIGHT)
		return AL_EIO;
	memcpy(fds, CMSG_DATA(cm), sizeof(int) * *nfd);
	return 0;
}

/* ---- the child ----------------------------------------------------------- */

/* Test hook (tests/e2e_scan.sh): make the child misbehave on purpose, to
 * prove the parent's handling. Read before the sandbox; harmless otherwise,
 * since it can only break the scan that sets it. */
static const char *
test_fault(void)
{
	const char *f = getenv("AIRLOCK_TEST_CHILD_FAULT");

	return f != NULL ? f : "";
}

/* FAULT or FAULT:TEXT, the latter only for paths containing TEXT. */
static void
child_fault(const char *spec, const char *path, int sock)
{
	char fault[32];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	if (n == 0 || n >= sizeof(fault) ||
	    (colon != NULL && strstr(path, colon + 1) == NULL))
		return;
	memcpy(fault, spec, n);
	fault[n] = '\0';
	if (strcmp(fault, "syscall") == 0)
		(void)open("/etc/passwd", O_RDONLY);
	else if (strcmp(fault, "crash") == 0)
		abort();
	else if (strcmp(fault, "hang") == 0)
		for (;;)
			;
	else if (strcmp(fault, "garbage") == 0)
		(void)!write(sock, "\0\0\0\x05\0\x03\0\0hello", 13);
	else if (strcmp(fault, "memory") == 0) {
		/* Allocate and touch until the address-space limit. */
		for (;;) {
			char *p = malloc(1 << 20);

			if (p == NULL)
				abort();
			memset(p, 1, 1 << 20);
		}
	}
}

/* Appends a FINDING frame for f to the reply. */
static int
frame_finding(struct dynbuf *reply, struct dynbuf *tmp, const struct finding *f)
{
	int rc = proto_encode_finding(tmp, f->rule->id, f->path,
	    (uint64_t)f->severity, f->line, f->column, f->excerpt,
	    f->fingerprint);

	return rc < 0 ? rc : proto_frame(reply, PROTO_FINDING, tmp->data,
	    tmp->len);
}

/* Scans one file of a batch and appends its reply frames. */
static int child_scan(struct scan_worker *w, int sock, int fd,
    const char *fault, const struct dynbuf *in, struct dynbuf *out,
    struct dynbuf *reply);

static int
child_one(struct scan_worker *w, int sock, int fd, const char *fault,
    struct dynbuf *in, struct dynbuf *out, struct dynbuf *reply)
{
	int type;

	if (proto_read(sock, &type, in) < 0 || type != PROTO_SCAN)
		_exit(PROTO_EXIT_REQUEST);
	return child_scan(w, sock, fd, fault, in, out, reply);
}

/* Scans fd as the SCAN payload in `in` asks; appends the reply frames. */
static int
child_scan(struct scan_worker *w, int sock, int fd, const char *fault,
    const struct dynbuf *in, struct dynbuf *out, struct dynbuf *reply)
{
	struct finding_list fl = {0};
	struct scan_item_list items = {0};
	struct proto_scan m;
	char digest[AL_SHA256_HEX];
	uint64_t bytes = 0;
	size_t i;
	int rc, want_digest, want_items;

	if (proto_decode_scan((const unsigned char *)in->data, in->len, &m) < 0)
		_exit(PROTO_EXIT_PAYLOAD);
	want_digest = (m.flags & PROTO_SCAN_DIGEST) != 0;
	want_items = (m.flags & PROTO_SCAN_ITEMS) != 0;
	child_fault(fault, m.path, sock);
	if ((want_items && scan_worker_collect_items(w, &items) < 0) ||
	    scan_artifact_fd(w, fd, m.path, m.relpath, m.kind, &fl, &bytes,
	    want_digest ? digest : NULL, NULL) < 0)
		_exit(PROTO_EXIT_SCAN);
	(void)scan_worker_collect_items(w, NULL);
	close(fd);
	rc = proto_encode_item(out, m.path);
	if (rc == 0)
		rc = proto_frame(reply, PROTO_ITEM, out->data, out->len);
	for (i = 0; rc == 0 && i < fl.n; i++)
		rc = frame_finding(reply, out, &fl.v[i]);
	/* What was read, one frame a file; an archive of many members is
	 * sent in pieces rather than held whole. */
	for (i = 0; rc == 0 && i < items.n; i++) {
		const struct scan_item *it = &items.v[i];

		if ((rc = proto_encode_member(out, it->path, it->mode, it->size,
		    it->sha256, it->type)) == 0)
			rc = proto_frame(reply, PROTO_MEMBER, out->data, out->len);
		if (rc == 0 && reply->len > (256u << 10)) {
			rc = proto_send(sock, reply);
			dynbuf_reset(reply);
		}
	}
	scan_item_list_free(&items);
	if (rc == 0 && (rc = proto_encode_item_end(out, bytes, want_digest ?
	    digest : "")) == 0)
		rc = proto_frame(reply, PROTO_ITEM_END, out->data, out->len);
	finding_list_free(&fl);
	proto_scan_free(&m);
	return rc;
}

/*
 * Serves batches: the fds of up to AL_CHILD_INFLIGHT files arrive in one
 * message, then their SCAN frames. Replies go out in one write per batch,
 * or sooner once a batch has taken 20 ms (so that a slow file does not hold
 * back the answers for the files before it).
 */
static void
child_serve(struct scan_worker *w, int sock, const char *fault)
{
	struct dynbuf in, out, reply;

	dynbuf_init(&in, PROTO_MAX_PAYLOAD);
	dynbuf_init(&out, PROTO_MAX_PAYLOAD);
	dynbuf_init(&reply, (size_t)AL_CHILD_INFLIGHT *
	    (AL_MAX_FINDINGS_PER_FILE + 8) *
	    (PROTO_HEADER + 4 * AL_EXCERPT_BYTES + 256));
	for (;;) {
		int fds[AL_CHILD_INFLIGHT];
		size_t nfd = 0, j;
		double start;
		int rc;

		rc = recv_fds(sock, fds, &nfd);
		if (rc == AL_ENOTFOUND)
			_exit(PROTO_EXIT_OK);
		if (rc < 0)
			_exit(PROTO_EXIT_REQUEST);
		start = al_mono_now();
		dynbuf_reset(&reply);
		for (j = 0; j < nfd; j++) {
			if (child_one(w, sock, fds[j], fault, &in, &out,
			    &reply) < 0)
				_exit(PROTO_EXIT_REPLY);
			if (j + 1 < nfd && al_mono_now() - start > 0.02) {
				if (proto_send(sock, &reply) < 0)
					_exit(PROTO_EXIT_REPLY);
				dynbuf_reset(&reply);
			}
		}
		if (proto_send(sock, &reply) < 0)
			_exit(PROTO_EXIT_REPLY);
	}
}

/*
 * Everything a scan needs from the file system, done before the sandbox
 * closes: the worker and libmagic, libgit2, iconv's modules, libcrypto's
 * providers (a first digest). Archive readers convert entry times, and
 * glibc would look at /etc/localtime each time: a fixed zone needs no file
 * (the times matter to nobody here). Exits on failure.
 */
static struct scan_worker *
child_prepare(const struct scan_engine *e)
{
	struct scan_worker *w = NULL;
	char warm[AL_SHA256_HEX];

	if (scan_worker_new(&w, e) < 0 || scan_worker_enable_types(w) < 0 ||
	    scan_git_init() < 0 || scan_archive_warm() < 0)
		_exit(PROTO_EXIT_PREPARE);
	al_sha256_hex(warm, "", 0);
	(void)setenv("TZ", "UTC0", 1);
	tzset();
	return w;
}

static void
child_main(const struct scan_engine *e, int sock)
{
	const struct rule_set *rs = scan_engine_rules(e);
	const char *fault = test_fault();
	struct scan_worker *w = NULL;
	struct sbx_limits lim;
	struct dynbuf hello;

	w = child_prepare(e);
	dynbuf_init(&hello, 4096);
	if (proto_encode_hello(&hello, AL_ENGINE_VERSION, rs->digest) < 0 ||
	    proto_write(sock, PROTO_HELLO, hello.data, hello.len) < 0)
		_exit(PROTO_EXIT_PREPARE);
	sbx_default_limits(&lim);
	if (sbx_enter(&sock, 1, &lim) < 0)
		_exit(PROTO_EXIT_SANDBOX);
	child_serve(w, sock, fault);
}

/* ---- the parent ---------------------------------------------------------- */

/* How a child that ended with this wait status died, for the reason. */
static void
describe_status(int status, char *why, size_t n)
{
	if (WIFSIGNALED(status))
		snprintf(why, n, "the scan child was killed by signal %d (%s)%s",
		    WTERMSIG(status), strsignal(WTERMSIG(status)),
		    WTERMSIG(status) == SIGSYS ? ": it attempted a system call "
		    "the sandbox forbids" : "");
	else
		snprintf(why, n, "the scan child exited with status %d",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void
child_reap(struct scan_child *c, char *why, size_t n)
{
	int status = 0, i;
	pid_t r = 0;

	close(c->sock);
	c->sock = -1;
	dynbuf_reset(&c->rbuf);
	c->rpos = 0;
	/* Give a dying child a moment, to report how it died. */
	for (i = 0; i < 50 && (r = waitpid(c->pid, &status, WNOHANG)) == 0; i++)
		usleep(2000);
	if (r == 0) {
		kill(c->pid, SIGKILL);
		(void)waitpid(c->pid, &status, 0);
		if (why != NULL && why[0] == '\0')
			snprintf(why, n, "the scan child stopped answering");
	} else if (why != NULL && why[0] == '\0') {
		describe_status(status, why, n);
	}
	c->pid = 0;
}

/* Reads one frame within the deadline (seconds on CLOCK_MONOTONIC). */
static int
child_read(struct scan_child *c, int *type, double deadline, char *why,
    size_t n)
{
	struct pollfd p = {c->sock, POLLIN, 0};
	double now;
	int rc;

	for (;;) {
		const unsigned char *payload;
		size_t off = c->rpos, plen;
		char chunk[65536];
		ssize_t got;

		/* A whole frame already read? */
		if (c->rbuf.len - c->rpos >= PROTO_HEADER) {
			rc = proto_parse((const unsigned char *)c->rbuf.data,
			    c->rbuf.len, &off, type, &payload, &plen);
			if (rc == 0) {
				dynbuf_reset(&c->in);
				if ((rc = dynbuf_add(&c->in, payload, plen)) < 0)
					return rc;
				c->rpos = off;
				return 0;
			}
			if (rc != AL_EIO) { /* not merely incomplete */
				snprintf(why, n, "the scan child sent a malformed "
				    "frame: %s", al_err_msg());
				return rc;
			}
		}
		/* Keep the unparsed tail, then read more. */
		if (c->rpos > 0) {
			memmove(c->rbuf.data, c->rbuf.data + c->rpos,
			    c->rbuf.len - c->rpos);
			c->rbuf.len -= c->rpos;
			c->rpos = 0;
		}
		now = al_mono_now();
		if (now >= deadline ||
		    (rc = poll(&p, 1, (int)((deadline - now) * 1000) + 1)) == 0) {
			snprintf(why, n, "the scan did not finish within %g "
			    "seconds", c->timeout);
			return AL_ELIMIT;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			snprintf(why, n, "waiting for the scan child: %s",
			    strerror(errno));
			return AL_EIO;
		}
		got = read(c->sock, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return AL_EIO; /* the child is gone: child_reap says how */
		if (dynbuf_add(&c->rbuf, chunk, (size_t)got) < 0) {
			snprintf(why, n, "the scan child sent more than a frame "
			    "can hold");
			return AL_EINVAL;
		}
	}
}

static int
child_spawn(struct scan_child *c, char *why, size_t n)
{
	const struct rule_set *rs = scan_engine_rules(c->e);
	enum proto_state st = PROTO_ST_START;
	struct proto_hello hello;
	int sv[2], type, ok;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, n, "socketpair: %s", strerror(errno));
		return AL_EIO;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return AL_EIO;
	}
	if (pid == 0) {
		close(sv[0]);
		child_main(c->e, sv[1]);
		_exit(PROTO_EXIT_RETURNED);
	}
	close(sv[1]);
	c->pid = pid;
	c->sock = sv[0];
	/* The first frame must take START to READY: a HELLO. */
	if (child_read(c, &type, al_mono_now() + c->timeout, why, n) < 0 ||
	    proto_accept(&st, type) < 0 || st != PROTO_ST_READY) {
		child_reap(c, why, n);
		return AL_EIO;
	}
	ok = proto_decode_hello((const unsigned char *)c->in.data, c->in.len,
	    &hello) == 0;
	ok = ok && strcmp(hello.engine, AL_ENGINE_VERSION) == 0 &&
	    strcmp(hello.ruleset, rs->digest) == 0;
	proto_hello_free(&hello);
	if (!ok) {
		snprintf(why, n, "the scan child greeted with the wrong engine "
		    "or rules");
		child_reap(c, why, n);
		return AL_EIO;
	}
	return 0;
}

int
scan_child_start(struct scan_child **out, const struct scan_engine *e,
    double timeout)
{
	struct scan_child *c = calloc(1, sizeof(*c));
	char why[256] = "";

	*out = NULL;
	if (c == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	c->e = e;
	c->timeout = timeout > 0 ? timeout : AL_CHILD_TIMEOUT;
	c->sock = -1;
	dynbuf_init(&c->in, PROTO_MAX_PAYLOAD);
	dynbuf_init(&c->rbuf, 2 * (PROTO_HEADER + PROTO_MAX_PAYLOAD));
	if (child_spawn(c, why, sizeof(why)) < 0) {
		dynbuf_free(&c->in);
		dynbuf_free(&c->rbuf);
		free(c);
		return al_err_set(AL_EIO, "scan child: %s", why);
	}
	*out = c;
	return 0;
}

void
scan_child_stop(struct scan_child *c)
{
	if (c == NULL)
		return;
	if (c->pid > 0) {
		close(c->sock);
		(void)waitpid(c->pid, NULL, 0);
	}
	dynbuf_free(&c->in);
	dynbuf_free(&c->rbuf);
	free(c);
}

/* Adds the finding a FINDING frame carries, if it names a known rule. */
static int
take_finding(struct scan_child *c, const char *path, struct finding_list *out,
    char *why, size_t n)
{
	const struct rule_set *rs = scan_engine_rules(c->e);
	struct proto_finding pf;
	const struct rule *r;
	struct finding_list one = {0};
	int rc;

	if (proto_decode_finding((const unsigned char *)c->in.data, c->in.len,
	    &pf) < 0) {
		snprintf(why, n, "the scan child sent a malformed finding: %s",
		    al_err_msg());
		return AL_EINVAL;
	}
	r = rule_set_find(rs, pf.rule);
	if (r == NULL)
		r = scan_builtin_rule(pf.rule);
	if (r == NULL) {
		snprintf(why, n, "the scan child named an unknown rule");
		proto_finding_free(&pf);
		return AL_EINVAL;
	}
	/* The path is the file the parent sent, or a member inside it
	 * ("FILE!/member"); anything else is a lie. */
	if (!al_member_path_of(pf.path, path)) {
		snprintf(why, n, "the scan child reported a finding for another "
		    "file");
		proto_finding_free(&pf);
		return AL_EINVAL;
	}
	/* Built through the public helper, then given the child's position,
	 * excerpt and severity. */
	rc = finding_add_builtin(&one, AL_RULE_UNSCANNABLE, pf.path, pf.excerpt);
	if (rc == 0) {
		one.v[0].rule = r;
		one.v[0].severity = (enum al_severity)pf.severity;
		one.v[0].line = pf.line;
		one.v[0].column = pf.column;
		memcpy(one.v[0].fingerprint, pf.fingerprint, 33);
		rc = finding_list_move(out, &one);
	}
	finding_list_free(&one);
	proto_finding_free(&pf);
	return rc < 0 ? AL_ENOMEM : 0;
}

/* Records what a MEMBER frame says was read, if it is well formed. */
static int
take_member(struct scan_child *c, const struct scan_req *r, char *why,
    size_t n)
{
	struct proto_member m;
	struct scan_item it;

	if (proto_decode_member((const unsigned char *)c->in.data, c->in.len,
	    &m) < 0 || !al_member_path_of(m.path, r->path)) {
		proto_member_free(&m);
		snprintf(why, n, "the scan child sent a malformed member record");
		return AL_EINVAL;
	}
	if (r->items != NULL) {
		struct scan_item_list *l = r->items;

		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct scan_item *v = reallocarray(l->v, cap, sizeof(*v));

			if (v == NULL) {
				proto_member_free(&m);
				return AL_ENOMEM;
			}
			l->v = v;
			l->cap = cap;
		}
		memset(&it, 0, sizeof(it));
		it.path = m.path;
		it.mode = (uint32_t)m.mode;
		it.size = m.size;
		memcpy(it.sha256, m.sha256, strlen(m.sha256) + 1);
		it.type = m.type;
		l->v[l->n++] = it;
		m.path = m.type = NULL;
	}
	proto_member_free(&m);
	return 0;
}

/* Queues files in the child: their fds and SCAN requests, one message. */
static int
child_request(struct scan_child *c, const struct scan_req *r, size_t k,
    char *why, size_t n)
{
	struct dynbuf req, frames;
	int fds[AL_CHILD_INFLIGHT];
	size_t j;
	int rc = 0;

	dynbuf_init(&req, 2 * PROTO_MAX_STRING + 64);
	dynbuf_init(&frames, AL_CHILD_INFLIGHT * (2 * PROTO_MAX_STRING + 128));
	for (j = 0; j < k && rc == 0; j++) {
		fds[j] = r[j].fd;
		/* A replay after a failure sends an fd the dead child read
		 * from: its offset is shared, so rewind it. */
		if (lseek(r[j].fd, 0, SEEK_SET) != 0) {
			rc = AL_EIO;
			break;
		}
		rc = proto_encode_scan(&req, r[j].path, r[j].relpath,
		    (r[j].digest != NULL ? PROTO_SCAN_DIGEST : 0) |
		    (r[j].items != NULL ? PROTO_SCAN_ITEMS : 0), r[j].kind);
		if (rc == 0)
			rc = proto_frame(&frames, PROTO_SCAN, req.data, req.len);
	}
	if (rc == AL_EIO)
		snprintf(why, n, "cannot rewind the file for the scan child");
	else if (rc < 0)
		snprintf(why, n, "a path is too long for the scan protocol");
	else if ((rc = send_fds(c->sock, fds, k, &frames)) < 0)
		snprintf(why, n, "%s", al_err_msg());
	dynbuf_free(&req);
	dynbuf_free(&frames);
	return rc;
}

/* Reads the child's answer for r: ITEM, FINDING..., ITEM_END. */
static int
child_reply(struct scan_child *c, const struct scan_req *r, double deadline,
    char *why, size_t n)
{
	enum proto_state st = PROTO_ST_AWAIT;
	int rc, type;

	for (;;) {
		const unsigned char *p;
		struct proto_item_end end;
		char *s = NULL;

		if ((rc = child_read(c, &type, deadline, why, n)) < 0)
			return rc;
		p = (const unsigned char *)c->in.data;
		if (proto_accept(&st, type) < 0) {
			snprintf(why, n, "the scan child sent an unexpected %s "
			    "frame", proto_type_name(type));
			return AL_EINVAL;
		}
		switch (type) {
		case PROTO_ITEM:
			rc = proto_decode_item(p, c->in.len, &s) == 0 &&
			    strcmp(s, r->path) == 0 ? 0 : AL_EINVAL;
			free(s);
			if (rc < 0) {
				snprintf(why, n, "the scan child answered for "
				    "another file");
				return rc;
			}
			break;
		case PROTO_FINDING:
			if ((rc = take_finding(c, r->path, r->out, why, n)) < 0)
				return rc;
			break;
		case PROTO_MEMBER:
			if ((rc = take_member(c, r, why, n)) < 0)
				return rc;
			break;
		case PROTO_ITEM_END:
			rc = proto_decode_item_end(p, c->in.len, &end) == 0 &&
			    (end.digest[0] == '\0' || r->digest != NULL) ? 0 :
			    AL_EINVAL;
			if (rc == 0) {
				*r->bytes += end.bytes;
				if (r->digest != NULL)
					snprintf(r->digest, AL_SHA256_HEX, "%s",
					    end.digest);
			}
			proto_item_end_free(&end);
			if (rc < 0)
				snprintf(why, n, "the scan child sent a malformed "
				    "end of item");
			return rc;
		default: /* ERROR: the child gives up */
			snprintf(why, n, "the scan child gave up");
			return AL_EINVAL;
		}
	}
}

/* The file r could not be scanned: say why. */
static int
req_unscannable(const struct scan_req *r, const char *why)
{
	char msg[600];

	if (r->digest != NULL)
		r->digest[0] = '\0';
	snprintf(msg, sizeof(msg), "could not be scanned: %s", why);
	return finding_add_builtin(r->out, AL_RULE_UNSCANNABLE, r->path, msg);
}

/* Drops the findings of l from index n on. */
static void
truncate_findings(struct finding_list *l, size_t n)
{
	while (l->n > n) {
		l->n--;
		free(l->v[l->n].path);
		free(l->v[l->n].excerpt);
	}
}

int
scan_child_scan_batch(struct scan_child *c, const struct scan_req *reqs,
    size_t nreqs)
{
	size_t done = 0, solo_until = 0, mark = 0;
	char why[512];
	int rc;

	while (done < nreqs) {
		size_t k, j;
		double deadline;

		why[0] = '\0';
		if (c->pid == 0 && child_spawn(c, why, sizeof(why)) < 0) {
			/* No child: the rest cannot be scanned. */
			for (; done < nreqs; done++)
				if ((rc = req_unscannable(&reqs[done], why)) < 0)
					return rc;
			return 0;
		}
		/* A batch of files goes to the child in one message; after a
		 * failure, the files of that batch go one at a time, so that
		 * the one that broke the child is named precisely. */
		k = done < solo_until ? 1 : nreqs - done < AL_CHILD_INFLIGHT ?
		    nreqs - done : AL_CHILD_INFLIGHT;
		rc = child_request(c, &reqs[done], k, why, sizeof(why));
		deadline = al_mono_now() + c->timeout * (double)k;
		for (j = 0; rc == 0 && j < k; j++) {
			mark = reqs[done + j].out->n;
			rc = child_reply(c, &reqs[done + j], deadline, why,
			    sizeof(why));
		}
		if (rc == 0) {
			done += k;
			continue;
		}
		if (rc == AL_ENOMEM)
			return rc;
		child_reap(c, why, sizeof(why));
		if (k > 1) {
			/* Which file? Replay the unanswered ones singly; what
			 * the failed one had reported comes again then. */
			j = j > 0 ? j - 1 : 0;
			if (j < k)
				truncate_findings(reqs[done + j].out, mark);
			done += j;
			solo_until = done + (k - j);
			continue;
		}
		/* That file is unscannable; what it reported is kept. */
		if ((rc = req_unscannable(&reqs[done], why)) < 0)
			return rc;
		done++;
	}
	return 0;
}

/* ---- the launcher: a fresh child per artifact ------------------------------ */

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
	const char *fault = test_fault();
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
		int fd, sv[2], type, status = 0;
		size_t nfd = 0;
		struct dynbuf pidbuf;
		pid_t pid;
		int rc = recv_fds(ctl, &fd, &nfd);

		if (rc == AL_ENOTFOUND)
			_exit(PROTO_EXIT_OK);
		if (rc < 0 || nfd != 1 || proto_read(ctl, &type, &in) < 0 ||
		    type != PROTO_SCAN)
			_exit(PROTO_EXIT_REQUEST);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			_exit(PROTO_EXIT_PAYLOAD);
		pid = fork();
		if (pid < 0)
			_exit(PROTO_EXIT_PAYLOAD);
		if (pid == 0) {
			struct sbx_limits lim;
			int keep[2] = {sv[1], fd};

			close(ctl);
			close(sv[0]);
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
		proto_launch_started(started, pid);
		dynbuf_init(&pidbuf, sizeof(started));
		if (dynbuf_add(&pidbuf, started, sizeof(started)) < 0 ||
		    send_fds(ctl, &sv[0], 1, &pidbuf) < 0)
			_exit(PROTO_EXIT_SCAN);
		dynbuf_free(&pidbuf);
		close(sv[0]);
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
	rc = child_request(&c, r, 1, why, sizeof(why));
	if (rc == 0 && ((rc = recv_fds(l->ctl, &res, &nfd)) < 0 || nfd != 1 ||
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
	rc = child_reply(&c, r, al_mono_now() + l->timeout, why, sizeof(why));
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
			describe_status(proto_launch_status(msg), why, sizeof(why));
		truncate_findings(r->out, mark);
		return req_unscannable(r, why);
	}
	return 0;
}
