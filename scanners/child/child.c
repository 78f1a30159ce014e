/*
 * child.c - the scan child: prepare, enter the sandbox, serve; see child.h.
 *
 * Trust: input is hostile; this runs only in the sandboxed scan child
 * (or in the launcher, before it forks one). The order is OpenSSH's:
 * everything that needs the file system is loaded first (child_prepare),
 * then the sandbox closes (sbx.c), and only then is a byte of an artifact
 * read. Replies are frames (proto.c); the parent believes none of them
 * without checking.
 *
 * Limits: AL_CHILD_INFLIGHT files per batch, AL_MAX_FINDINGS_PER_FILE
 * findings per file, the rlimits of sbx_default_limits().
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "al_limits.h"
#include "child.h"
#include "err.h"
#include "fdpass.h"
#include "os.h"
#include "proto.h"
#include "sbx.h"
#include "scan_archive.h"
#include "scan_artifact.h"
#include "scan_patch.h"
#include "util.h"

/* Test hook (tests/e2e_scan.sh): make the child misbehave on purpose, to
 * prove the parent's handling. Read before the sandbox; harmless otherwise,
 * since it can only break the scan that sets it. */
const char *
child_test_fault(void)
{
	const char *f = getenv("AIRLOCK_TEST_CHILD_FAULT");

	return f != NULL ? f : "";
}

/* The fault spec names for this path: FAULT, or FAULT:TEXT for paths
 * containing TEXT; "" when none applies. */
static void
fault_for(char fault[32], const char *spec, const char *path)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	fault[0] = '\0';
	if (n == 0 || n >= 32 ||
	    (colon != NULL && strstr(path, colon + 1) == NULL))
		return;
	memcpy(fault, spec, n);
	fault[n] = '\0';
}

/*
 * Real bugs, for a sanitizer to report from inside the sandbox (sanitized
 * builds only: elsewhere they test nothing, and do nothing): a heap
 * overflow read, which AddressSanitizer reports (UndefinedBehaviorSanitizer,
 * which would see it first by the object's size, looks away), and a signed
 * overflow, which UndefinedBehaviorSanitizer reports.
 */
#if SBX_SANITIZED
__attribute__((no_sanitize("undefined")))
#endif
static void
fault_heap_overflow(int sock)
{
	volatile size_t at = 8;   /* one past the end, unseen by -O */
	char *p, c;

	if (!SBX_SANITIZED || (p = calloc(1, 8)) == NULL)
		return;
	if ((c = p[at]) == 'x')
		(void)!write(sock, &c, 1);
	free(p);
}

static void
fault_int_overflow(int sock)
{
	volatile int big = INT_MAX;
	int c;

	if (!SBX_SANITIZED)
		return;
	if ((c = big + 1) == 0)
		(void)!write(sock, &c, 1);
}

static void
child_fault(const char *spec, const char *path, int sock)
{
	char fault[32];

	fault_for(fault, spec, path);
	if (strcmp(fault, "syscall") == 0)
		(void)open("/etc/passwd", O_RDONLY);
	else if (strcmp(fault, "crash") == 0)
		abort();
	else if (strcmp(fault, "hang") == 0)
		for (;;)
			;
	else if (strcmp(fault, "garbage") == 0)
		(void)!write(sock, "\0\0\0\x05\0\x03\0\0hello", 13);
	else if (strcmp(fault, "asan") == 0)
		fault_heap_overflow(sock);
	else if (strcmp(fault, "ubsan") == 0)
		fault_int_overflow(sock);
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

/*
 * Appends the bytes of a kept member as MEMBER_DATA pieces, sending what
 * is queued first when the reply would grow past half a megabyte. With
 * the test fault "membytes" one byte is flipped: the parent must refuse
 * bytes that do not hash to the MEMBER's sha256.
 */
static int
frame_member_data(int sock, struct dynbuf *reply, struct dynbuf *tmp,
    const struct scan_item *it, int corrupt)
{
	size_t off = 0;
	int rc = 0;

	if (corrupt && it->content_len > 0)
		it->content[it->content_len - 1] ^= 0x20;
	while (rc == 0 && off < it->content_len) {
		size_t n = it->content_len - off < PROTO_MEMBER_CHUNK ?
		    it->content_len - off : PROTO_MEMBER_CHUNK;

		if (reply->len + PROTO_HEADER + 16 + n > (512u << 10)) {
			if ((rc = proto_send(sock, reply)) < 0)
				break;
			dynbuf_reset(reply);
		}
		if ((rc = proto_encode_member_data(tmp, off, it->content + off,
		    n)) == 0)
			rc = proto_frame(reply, PROTO_MEMBER_DATA, tmp->data,
			    tmp->len);
		off += n;
	}
	return rc;
}

/* Scans one file of a batch and appends its reply frames. */
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
int
child_scan(struct scan_worker *w, int sock, int fd, const char *fault,
    const struct dynbuf *in, struct dynbuf *out, struct dynbuf *reply)
{
	struct finding_list fl = {0};
	struct scan_item_list items = {0};
	struct proto_scan m;
	char digest[AL_SHA256_HEX], fname[32];
	uint64_t bytes = 0;
	size_t i;
	int rc, want_digest, want_items, send_data;
	enum al_kind kind = AL_KIND_FILE;

	if (proto_decode_scan((const unsigned char *)in->data, in->len, &m) < 0)
		_exit(PROTO_EXIT_PAYLOAD);
	want_digest = (m.flags & PROTO_SCAN_DIGEST) != 0;
	want_items = (m.flags & PROTO_SCAN_ITEMS) != 0;
	child_fault(fault, m.path, sock);
	if ((want_items && scan_worker_collect_items(w, &items) < 0) ||
	    scan_artifact_fd(w, fd, m.path, m.relpath, m.kind, &fl, &bytes,
	    want_digest ? digest : NULL, &kind) < 0)
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
	/* The bytes of text members, for review, only where the artifact is
	 * a tree of them (an archive, a bundle): a plain file, a patch or a
	 * mailbox is shown whole from the artifact itself. */
	fault_for(fname, fault, m.path);
	send_data = kind == AL_KIND_ARCHIVE || kind == AL_KIND_BUNDLE;
	for (i = 0; rc == 0 && i < items.n; i++) {
		const struct scan_item *it = &items.v[i];

		if ((rc = proto_encode_member(out, it->path, it->mode, it->size,
		    it->sha256, it->type)) == 0)
			rc = proto_frame(reply, PROTO_MEMBER, out->data, out->len);
		if (rc == 0 && send_data && it->content != NULL)
			rc = frame_member_data(sock, reply, out, it,
			    strcmp(fname, "membytes") == 0);
		if (rc == 0 && reply->len > (256u << 10)) {
			rc = proto_send(sock, reply);
			dynbuf_reset(reply);
		}
	}
	scan_item_list_free(&items);
	if (rc == 0 && (rc = proto_encode_item_end(out, bytes, want_digest ?
	    digest : "", kind)) == 0)
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

		rc = fdpass_recv(sock, fds, &nfd);
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
 * (the times matter to nobody here); in a sanitized build, the
 * sanitizer's symbolizer (sbx.h). Exits on failure.
 */
struct scan_worker *
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
	sbx_sanitizer_prepare();
	return w;
}

void
child_main(const struct scan_engine *e, int sock)
{
	const struct rule_set *rs = scan_engine_rules(e);
	const char *fault = child_test_fault();
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
