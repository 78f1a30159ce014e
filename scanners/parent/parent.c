/*
 * parent.c - airlock scan's scan children, seen from the parent: spawn,
 * reap, read their frames as hostile input, replay a failed batch one
 * file at a time; see scan_child.h.
 *
 * Trust: the child may be compromised; its frames are checked before they
 * are believed: the state table (proto.c) decides which frame may come,
 * payloads are decoded with exact sizes, an item must be the file sent,
 * a finding must name a known rule and a path inside that file, a
 * member's bytes must hash to the sha256 its record gave. A child
 * that dies, hangs past the deadline or lies makes the file it was on
 * unscannable, with the reason, and a new child takes the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "al_limits.h"
#include "child.h"
#include "err.h"
#include "fdpass.h"
#include "os.h"
#include "parent.h"
#include "path.h"
#include "proto.h"
#include "sbx.h"
#include "scan_patch.h"
#include "util.h"

/* How a child that ended with this wait status died, for the reason. */
void
parent_describe_status(int status, char *why, size_t n)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == PROTO_EXIT_SANITIZER)
		snprintf(why, n, "the scan child hit a sanitizer error (a bug in "
		    "a reader; its report went to stderr)");
	else if (WIFSIGNALED(status))
		snprintf(why, n, "the scan child was killed by signal %d (%s)%s",
		    WTERMSIG(status), strsignal(WTERMSIG(status)),
		    WTERMSIG(status) == SIGSYS ? ": it attempted a system call "
		    "the sandbox forbids" : "");
	else
		snprintf(why, n, "the scan child exited with status %d",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void
parent_report_pipe(int fds[2])
{
	fds[0] = fds[1] = -1;
	if (!SBX_SANITIZED || pipe2(fds, O_CLOEXEC) < 0) {
		fds[0] = fds[1] = -1;
		return;
	}
	/* Room for a whole report, so that a child writing one never waits
	 * for a parent that reads it only once the child is gone. */
	(void)fcntl(fds[1], F_SETPIPE_SZ, (int)PARENT_REPORT_MAX);
}

void
parent_report_child(int fds[2])
{
	if (fds[1] < 0)
		return;
	/* dup2 clears close-on-exec: fd 2 stays through the sandbox. */
	(void)dup2(fds[1], SBX_REPORT_FD);
	close(fds[0]);
	if (fds[1] != SBX_REPORT_FD)
		close(fds[1]);
}

/* One line of a report, escaped and prefixed, to stderr. */
static void
relay_line(const char *p, size_t n, pid_t pid)
{
	struct dynbuf b;

	dynbuf_init(&b, 8192);
	if (dynbuf_addf(&b, "airlock: scan child %ld: ", (long)pid) == 0 &&
	    al_term_escape(&b, p, n) == 0 && dynbuf_addc(&b, '\n') == 0)
		(void)!al_write_full(STDERR_FILENO, b.data, b.len);
	dynbuf_free(&b);
}

size_t
parent_relay_report(int fd, pid_t pid)
{
	char chunk[4096], line[1024];
	size_t total = 0, ll = 0;
	ssize_t got, i;

	/* To the end: the child's end closed, or on a non-blocking fd
	 * nothing more there. Past the bound, the rest is read, not shown. */
	while ((got = read(fd, chunk, sizeof(chunk))) > 0 ||
	    (got < 0 && errno == EINTR)) {
		for (i = 0; i < got; i++, total++) {
			if (total >= PARENT_REPORT_MAX)
				continue;
			if (chunk[i] != '\n' && ll < sizeof(line)) {
				line[ll++] = chunk[i];
				continue;
			}
			relay_line(line, ll, pid);
			ll = 0;
			if (chunk[i] != '\n')
				line[ll++] = chunk[i];
		}
	}
	if (ll > 0)
		relay_line(line, ll, pid);
	if (total > PARENT_REPORT_MAX)
		relay_line("(the rest is not shown: more than 1 MiB)", 40, pid);
	return total;
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
		parent_describe_status(status, why, n);
	}
	/* The child is gone: all it wrote is in the pipe. */
	if (c->report >= 0) {
		(void)parent_relay_report(c->report, c->pid);
		close(c->report);
		c->report = -1;
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
	int sv[2], rep[2], type, ok;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, n, "socketpair: %s", strerror(errno));
		return AL_EIO;
	}
	parent_report_pipe(rep);
	pid = fork();
	if (pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		if (rep[0] >= 0) {
			close(rep[0]);
			close(rep[1]);
		}
		return AL_EIO;
	}
	if (pid == 0) {
		close(sv[0]);
		parent_report_child(rep);
		child_main(c->e, sv[1]);
		_exit(PROTO_EXIT_RETURNED);
	}
	close(sv[1]);
	c->report = rep[0];
	if (rep[1] >= 0) {
		close(rep[1]);
		(void)fcntl(rep[0], F_SETFL, O_NONBLOCK);
	}
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
	static int git_started;
	struct scan_child *c;
	char why[256] = "";
	int rc;

	*out = NULL;
	/* libgit2 starts once here, in the parent (it reads the system's CA
	 * certificates, ~9 ms): every child inherits it started. */
	if (!git_started) {
		if ((rc = scan_git_init()) < 0)
			return rc;
		git_started = 1;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
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
		if (c->report >= 0) {
			(void)parent_relay_report(c->report, c->pid);
			close(c->report);
		}
	}
	dynbuf_free(&c->in);
	dynbuf_free(&c->rbuf);
	scan_worker_free(c->inproc);
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

/*
 * The member whose bytes may follow: the last MEMBER frame's, if it is
 * text read whole within the member cap. The child's claims are the
 * record's; the bytes are believed only once they hash to its sha256.
 */
struct member_rx {
	int open;                 /* bytes may come for the last member */
	size_t idx;               /* its index in r->items (when wanted) */
	uint64_t size;
	char sha256[AL_SHA256_HEX];
	unsigned char *buf;       /* size bytes (1 for an empty member) */
	uint64_t got;             /* bytes received, in order */
	uint64_t total;           /* bytes received for this file's members */
};

/* The last member's bytes must have come whole, or not at all. */
static int
rx_close(struct member_rx *rx, char *why, size_t n)
{
	int partial = rx->open && rx->got > 0 && rx->got < rx->size;

	free(rx->buf);
	rx->buf = NULL;
	rx->open = 0;
	rx->got = 0;
	if (partial) {
		snprintf(why, n, "the scan child sent part of a member's bytes");
		return AL_EINVAL;
	}
	return 0;
}

/* The member's bytes are complete: kept if they are what it said. */
static int
rx_finish(struct member_rx *rx, const struct scan_req *r, char *why,
    size_t n)
{
	char got[AL_SHA256_HEX];

	al_sha256_hex(got, rx->buf, (size_t)rx->size);
	if (strcmp(got, rx->sha256) != 0) {
		snprintf(why, n, "the scan child sent member bytes that do not "
		    "match their sha256");
		return AL_EINVAL;
	}
	if (r->items != NULL) {
		struct scan_item *it = &r->items->v[rx->idx];

		free(it->content);
		it->content = rx->buf;
		it->content_len = (size_t)rx->size;
		rx->buf = NULL;
	}
	free(rx->buf);
	rx->buf = NULL;
	rx->open = 0;
	rx->got = 0;
	return 0;
}

/* Takes a MEMBER_DATA frame: the next piece of the open member's bytes. */
static int
take_member_data(struct scan_child *c, const struct scan_req *r,
    struct member_rx *rx, char *why, size_t n)
{
	struct proto_member_data d;

	if (proto_decode_member_data((const unsigned char *)c->in.data,
	    c->in.len, &d) < 0) {
		snprintf(why, n, "the scan child sent malformed member bytes: %s",
		    al_err_msg());
		return AL_EINVAL;
	}
	if (!rx->open || d.offset != rx->got || d.len > rx->size - rx->got ||
	    d.len > AL_ARTIFACT_CONTENT_MAX - rx->total) {
		snprintf(why, n, "the scan child sent member bytes it had not "
		    "announced (out of order, past the member's size, of a member "
		    "that is not text read whole, or past the caps)");
		return AL_EINVAL;
	}
	if (rx->buf == NULL && (rx->buf = malloc((size_t)rx->size)) == NULL)
		return AL_ENOMEM;
	memcpy(rx->buf + rx->got, d.data, d.len);
	rx->got += d.len;
	rx->total += d.len;
	return rx->got == rx->size ? rx_finish(rx, r, why, n) : 0;
}

/* Records what a MEMBER frame says was read, if it is well formed; its
 * bytes may follow when it is text read whole within the member cap. */
static int
take_member(struct scan_child *c, const struct scan_req *r,
    struct member_rx *rx, char *why, size_t n)
{
	struct proto_member m;
	struct scan_item it;
	int rc;

	if ((rc = rx_close(rx, why, n)) < 0)
		return rc;
	if (proto_decode_member((const unsigned char *)c->in.data, c->in.len,
	    &m) < 0 || !al_member_path_of(m.path, r->path)) {
		proto_member_free(&m);
		snprintf(why, n, "the scan child sent a malformed member record");
		return AL_EINVAL;
	}
	rx->open = m.sha256[0] != '\0' && strncmp(m.type, "text/", 5) == 0 &&
	    m.size <= AL_MEMBER_CONTENT_MAX;
	rx->size = m.size;
	rx->idx = r->items != NULL ? r->items->n : 0;
	memcpy(rx->sha256, m.sha256, strlen(m.sha256) + 1);
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
	/* An empty text member has no bytes to send: it is complete now. */
	if (rx->open && rx->size == 0) {
		if ((rx->buf = malloc(1)) == NULL)
			return AL_ENOMEM;
		return rx_finish(rx, r, why, n);
	}
	return 0;
}

/* Queues files in the child: their fds and SCAN requests, one message. */
int
parent_request(struct scan_child *c, const struct scan_req *r, size_t k,
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
	else if ((rc = fdpass_send(c->sock, fds, k, &frames)) < 0)
		snprintf(why, n, "%s", al_err_msg());
	dynbuf_free(&req);
	dynbuf_free(&frames);
	return rc;
}

static int reply_frames(struct scan_child *c, const struct scan_req *r,
    enum proto_state *stp, struct member_rx *rx, double deadline, char *why,
    size_t n);

/* Reads the child's answer for r: ITEM, FINDING..., MEMBER (MEMBER_DATA...)
 * ..., ITEM_END. */
int
parent_reply(struct scan_child *c, const struct scan_req *r, double deadline,
    char *why, size_t n)
{
	enum proto_state st = PROTO_ST_AWAIT;
	struct member_rx rx;
	int rc;

	memset(&rx, 0, sizeof(rx));
	rc = reply_frames(c, r, &st, &rx, deadline, why, n);
	free(rx.buf);
	return rc;
}

/* parent_reply's loop; rx holds the member bytes in flight. */
static int
reply_frames(struct scan_child *c, const struct scan_req *r,
    enum proto_state *stp, struct member_rx *rx, double deadline, char *why,
    size_t n)
{
	int rc, type;

	for (;;) {
		const unsigned char *p;
		struct proto_item_end end;
		char *s = NULL;

		if ((rc = child_read(c, &type, deadline, why, n)) < 0)
			return rc;
		p = (const unsigned char *)c->in.data;
		if (proto_accept(stp, type) < 0) {
			snprintf(why, n, "the scan child sent an unexpected %s "
			    "frame", proto_type_name(type));
			return AL_EINVAL;
		}
		if (type != PROTO_MEMBER && type != PROTO_MEMBER_DATA &&
		    (rc = rx_close(rx, why, n)) < 0)
			return rc;
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
			if ((rc = take_member(c, r, rx, why, n)) < 0)
				return rc;
			break;
		case PROTO_MEMBER_DATA:
			if ((rc = take_member_data(c, r, rx, why, n)) < 0)
				return rc;
			break;
		case PROTO_ITEM_END:
			rc = proto_decode_item_end(p, c->in.len, &end) == 0 &&
			    (end.digest[0] == '\0' || r->digest != NULL) ? 0 :
			    AL_EINVAL;
			if (rc == 0) {
				*r->bytes += end.bytes;
				if (r->kind_read != NULL)
					*r->kind_read = end.kind;
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

void
parent_drop_content(const struct scan_req *r)
{
	size_t i;

	for (i = 0; r->items != NULL && i < r->items->n; i++) {
		free(r->items->v[i].content);
		r->items->v[i].content = NULL;
		r->items->v[i].content_len = 0;
	}
}

/* The file r could not be scanned: say why. */
int
parent_unscannable(const struct scan_req *r, const char *why)
{
	char msg[600];

	if (r->digest != NULL)
		r->digest[0] = '\0';
	snprintf(msg, sizeof(msg), "could not be scanned: %s", why);
	return finding_add_builtin(r->out, AL_RULE_UNSCANNABLE, r->path, msg);
}

/* Drops the findings of l from index n on. */
void
parent_truncate(struct finding_list *l, size_t n)
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

	if (c->inproc != NULL)
		return inproc_scan_batch(c, reqs, nreqs);
	while (done < nreqs) {
		size_t k, j;
		double deadline;

		why[0] = '\0';
		if (c->pid == 0 && child_spawn(c, why, sizeof(why)) < 0) {
			/* No child: the rest cannot be scanned. */
			for (; done < nreqs; done++)
				if ((rc = parent_unscannable(&reqs[done], why)) < 0)
					return rc;
			return 0;
		}
		/* A batch of files goes to the child in one message; after a
		 * failure, the files of that batch go one at a time, so that
		 * the one that broke the child is named precisely. */
		k = done < solo_until ? 1 : nreqs - done < AL_CHILD_INFLIGHT ?
		    nreqs - done : AL_CHILD_INFLIGHT;
		rc = parent_request(c, &reqs[done], k, why, sizeof(why));
		deadline = al_mono_now() + c->timeout * (double)k;
		for (j = 0; rc == 0 && j < k; j++) {
			mark = reqs[done + j].out->n;
			rc = parent_reply(c, &reqs[done + j], deadline, why,
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
				parent_truncate(reqs[done + j].out, mark);
			done += j;
			solo_until = done + (k - j);
			continue;
		}
		/* That file is unscannable; what it reported is kept. */
		if ((rc = parent_unscannable(&reqs[done], why)) < 0)
			return rc;
		done++;
	}
	return 0;
}
