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
 * Trust: the Range header is hostile: parsed with bounds, one range only.
 * The gate records what it handed to the connection; it cannot know what
 * the reader read of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "os.h"
#include "serve.h"

/* One range of "bytes=...": 0 with [*off, *off + *len), -1 when it is not
 * one satisfiable range of size bytes. */
static int
range_parse(const char *h, uint64_t size, uint64_t *off, uint64_t *len)
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

enum MHD_Result
srv_serve_view(struct req *q, struct MHD_Connection *c, struct db *db,
    int fd, uint64_t size, const char *sha256, int64_t item,
    const char *path)
{
	const char *range = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Range");
	struct MHD_Response *r;
	uint64_t off = 0, len = size;
	char cr[96], rtext[48];
	enum MHD_Result ok;
	unsigned status = MHD_HTTP_OK;
	int rc;

	if (range != NULL) {
		if (range_parse(range, size, &off, &len) < 0) {
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
	if ((rc = db_view_record(db, q->id, q->who.id, item, path,
	    (int64_t)len, sha256, range == NULL, range ? rtext : NULL,
	    al_now_ms())) < 0) {
		close(fd);
		return srv_fail_write(q, c, rc, "the view cannot be recorded: "
		    "nothing was served");
	}
	r = MHD_create_response_from_fd_at_offset64(len, fd, off);
	if (r == NULL) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/octet-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Accept-Ranges", "bytes");
	if (range != NULL)
		MHD_add_response_header(r, "Content-Range", cr);
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}
