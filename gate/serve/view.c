/*
 * view.c - serving stored bytes to a reader, and recording what was
 * served: the review evidence an approval needs (db_review.c). A request
 * without Range gets the whole blob and is recorded as a full view with
 * its size and sha256 (the blob's content address, checked at intake and
 * again at release); a request with one byte range ("bytes=A-B", "A-",
 * "-N") gets 206 and that range, recorded as partial, which never counts
 * as having read the content; any other Range is answered 416 and nothing
 * is served.
 *
 * Served bytes are verified (issue 13): the blob is hashed whole before
 * anything is recorded or sent, and a blob that does not hash to its
 * sha256 (or has another size) is never served: an integrity alarm
 * (integrity.c), answered 500. What is then sent is read through a
 * verifying stream: the whole blob is hashed again as it is read, a range
 * too (the bytes before and after it are read and hashed, not sent), and
 * the last chunk goes only once that hash checks. Bytes changed between the
 * two readings (the window is the time of one answer) cut the answer short
 * before its end, and are an alarm too: a client sees a truncated body,
 * never a whole one of other bytes. Each answer reads the blob twice
 * (page-cached the second time); sendfile is given up for that.
 *
 * Trust: the Range header is hostile: parsed with bounds, one range only.
 * The gate records what it handed to the connection; it cannot know what
 * the reader read of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "os.h"
#include "serve.h"
#include "util.h"

int
srv_range_parse(const char *h, uint64_t size, uint64_t *off, uint64_t *len)
{
	unsigned long long a = 0, b;
	char *end;
	int suffix;

	if (strncmp(h, "bytes=", 6) != 0)
		return -1;
	h += 6;
	if ((suffix = h[0] == '-'))
		h++;
	if (h[0] < '0' || h[0] > '9')
		return -1;
	errno = 0;
	b = strtoull(h, &end, 10);
	if (errno != 0)
		return -1;
	if (suffix) {
		if (*end != '\0' || b == 0 || size == 0)
			return -1;
		*len = b < size ? b : size;
		*off = size - *len;
		return 0;
	}
	a = b;
	if (*end != '-')
		return -1;
	h = end + 1;
	if (*h == '\0') {
		b = size ? size - 1 : 0;
	} else {
		if (h[0] < '0' || h[0] > '9')
			return -1;
		errno = 0;
		b = strtoull(h, &end, 10);
		if (errno != 0 || *end != '\0' || b < a)
			return -1;
		if (b >= size)
			b = size - 1;
	}
	if (a >= size)
		return -1;
	*off = a;
	*len = b - a + 1;
	return 0;
}

/* The verifying stream of one answer: [off, off + len) of a blob of size
 * bytes, hashed whole from 0 as it is read. */
struct vstream {
	struct srv *s;
	int fd;
	uint64_t size, off, len;
	uint64_t hashed;          /* bytes of the blob hashed, from 0 */
	EVP_MD_CTX *md;
	char sha256[65];          /* what they must hash to */
	int64_t id, item;
	char *path;               /* the item's, or NULL */
	int failed;
	unsigned char scratch[1 << 16];
};

static void
vstream_free(void *cls)
{
	struct vstream *v = cls;

	if (v == NULL)
		return;
	if (v->fd >= 0)
		close(v->fd);
	EVP_MD_CTX_free(v->md);
	free(v->path);
	free(v);
}

/* Reads n bytes at the blob's offset at into p and hashes them: 0, or -1
 * when the blob ended early (it changed) or could not be read. */
static int
vstream_read(struct vstream *v, void *p, size_t n, uint64_t at)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(v->fd, (char *)p + got, n - got,
		    (off_t)(at + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			(void)al_err_set(AL_EINVAL, "the stored bytes %s at %llu "
			    "while they were served", k < 0 ? strerror(errno) :
			    "ended", (unsigned long long)(at + got));
			return -1;
		}
		got += (size_t)k;
	}
	AL_ASSERT(EVP_DigestUpdate(v->md, p, n) == 1);
	v->hashed += n;
	return 0;
}

/* Hashes the blob from where it is to offset end, without sending it. */
static int
vstream_skip(struct vstream *v, uint64_t end)
{
	while (v->hashed < end) {
		uint64_t n = end - v->hashed;

		if (n > sizeof(v->scratch))
			n = sizeof(v->scratch);
		if (vstream_read(v, v->scratch, (size_t)n, v->hashed) < 0)
			return -1;
	}
	return 0;
}

/* The end of the blob: 0 when the whole of it hashed to its sha256. */
static int
vstream_final(struct vstream *v)
{
	unsigned char md[32], more;
	unsigned int mdlen = 0;
	char got[65];

	if (vstream_skip(v, v->size) < 0)
		return -1;
	/* Grown meanwhile: not the bytes either. */
	if (pread(v->fd, &more, 1, (off_t)v->size) != 0) {
		(void)al_err_set(AL_EINVAL, "the stored bytes grew past %llu "
		    "while they were served", (unsigned long long)v->size);
		return -1;
	}
	AL_ASSERT(EVP_DigestFinal_ex(v->md, md, &mdlen) == 1 && mdlen == 32);
	al_hex(got, md, sizeof(md));
	if (strcmp(got, v->sha256) != 0) {
		(void)al_err_set(AL_EINVAL, "the stored bytes changed while they "
		    "were served: they hash to %.16s…, not to their sha256 "
		    "%.16s…", got, v->sha256);
		return -1;
	}
	return 0;
}

/* libmicrohttpd asks for the answer's bytes from pos, in order. */
static ssize_t
vstream_read_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct vstream *v = cls;
	uint64_t n;

	if (v->failed || pos >= v->len)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	/* In order, from the start of the range: else what was hashed is
	 * not what is sent. */
	if (v->off + pos < v->hashed || vstream_skip(v, v->off + pos) < 0)
		goto fail;
	n = v->len - pos < max ? v->len - pos : max;
	if (vstream_read(v, buf, (size_t)n, v->off + pos) < 0)
		goto fail;
	/* The last chunk goes only if the whole blob verified. */
	if (pos + n == v->len && vstream_final(v) < 0)
		goto fail;
	return (ssize_t)n;
fail:
	v->failed = 1;
	(void)srv_integrity_alarm(v->s, srv_db(v->s), v->item < 0 ?
	    SRV_INT_CONTENT : SRV_INT_ITEM, v->id, v->item, v->path, v->sha256,
	    al_err_msg());
	return MHD_CONTENT_READER_END_WITH_ERROR;
}

/* The stored bytes did not verify: the alarm, and the 500 that says so. */
static enum MHD_Result
refuse_damaged(struct req *q, struct MHD_Connection *c, struct db *db,
    const char *sha256, int64_t item, const char *path, const char *why)
{
	char msg[384];
	int requeued = srv_integrity_alarm(q->s, db, item < 0 ?
	    SRV_INT_CONTENT : SRV_INT_ITEM, q->id, item, path, sha256, why);

	if (item < 0)
		snprintf(msg, sizeof(msg), "integrity alarm: the stored bytes of "
		    "submission %" PRId64 " do not verify against their sha256 "
		    "%.16s…: nothing was served%s", q->id, sha256, requeued ?
		    "; the submission is scanned again" : "");
	else
		snprintf(msg, sizeof(msg), "integrity alarm: the kept bytes of "
		    "item %" PRId64 " of submission %" PRId64 " do not verify "
		    "against their sha256 %.16s…: nothing was served%s", item,
		    q->id, sha256, requeued ? "; the submission is scanned again" :
		    "");
	return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX, msg);
}

enum MHD_Result
srv_serve_view(struct req *q, struct MHD_Connection *c, struct db *db,
    int fd, uint64_t size, const char *sha256, int64_t item,
    const char *path)
{
	const char *range = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Range");
	struct MHD_Response *r;
	struct vstream *v;
	uint64_t off = 0, len = size;
	char cr[96], rtext[48], got[65];
	enum MHD_Result ok;
	unsigned status = MHD_HTTP_OK;
	int rc;

	if (range != NULL) {
		if (srv_range_parse(range, size, &off, &len) < 0) {
			close(fd);
			return srv_fail(q, c, MHD_HTTP_RANGE_NOT_SATISFIABLE,
			    REJ_BAD_REQUEST, "one byte range within the content, "
			    "or none (a range is served but is not a reading of "
			    "the content)");
		}
		status = MHD_HTTP_PARTIAL_CONTENT;
		snprintf(cr, sizeof(cr), "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64,
		    off, off + len - 1, size);
		snprintf(rtext, sizeof(rtext), "%" PRIu64 "-%" PRIu64, off,
		    off + len - 1);
	}
	/* The whole blob, before anything is recorded or sent. */
	if ((rc = store_blob_check(fd, sha256, got)) < 0) {
		close(fd);
		if (rc != AL_EINVAL) {
			fprintf(stderr, "airlock serve: submission %" PRId64 ": %s\n",
			    q->id, al_err_msg());
			return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
			    "the stored bytes cannot be read");
		}
		return refuse_damaged(q, c, db, sha256, item, path, al_err_msg());
	}
	if ((v = calloc(1, sizeof(*v))) == NULL || (v->md = EVP_MD_CTX_new()) ==
	    NULL || EVP_DigestInit_ex(v->md, al_sha256_md(), NULL) != 1 ||
	    (path != NULL && (v->path = strdup(path)) == NULL)) {
		if (v != NULL) {
			v->fd = -1;
			vstream_free(v);
		}
		close(fd);
		return MHD_NO;
	}
	v->s = q->s;
	v->fd = fd;
	v->size = size;
	v->off = off;
	v->len = len;
	v->id = q->id;
	v->item = item;
	memcpy(v->sha256, sha256, 65);
	if ((rc = db_view_record(db, q->id, q->who.id, item, path,
	    (int64_t)len, sha256, range == NULL, range ? rtext : NULL,
	    al_now_ms())) < 0) {
		vstream_free(v);
		return srv_fail_write(q, c, rc, "the view cannot be recorded: "
		    "nothing was served");
	}
	r = MHD_create_response_from_callback(len, sizeof(v->scratch),
	    vstream_read_cb, v, vstream_free);
	if (r == NULL) {
		vstream_free(v);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/octet-stream");
	srv_api_headers(r);
	/* A browser saves the bytes; it never renders them. */
	MHD_add_response_header(r, "Content-Disposition", "attachment");
	MHD_add_response_header(r, "Accept-Ranges", "bytes");
	if (range != NULL)
		MHD_add_response_header(r, "Content-Range", cr);
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}
