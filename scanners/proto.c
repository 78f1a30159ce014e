/*
 * proto.c - frames between the scan child and the gate; see proto.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "os.h"
#include "proto.h"
#include "util.h"

static const char *const type_names[] = {
	"none", "HELLO", "ITEM", "FINDING", "ITEM_END", "DONE", "ERROR", "SCAN",
	"MEMBER", "MEMBER_DATA",
};

const char *
proto_type_name(int type)
{
	if (type > 0 && type < PROTO_TYPE_MAX)
		return type_names[type];
	return "unknown";
}

static void
put_be(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = (unsigned char)(v & 0xff);
		v >>= 8;
	}
}

static uint64_t
get_be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Reads exactly len bytes; *got is the number read before end of stream. */
static int
read_all(int fd, void *buf, size_t len, size_t *got)
{
	int rc = al_read_full(fd, buf, len, -1, got);

	if (rc == AL_EIO)
		return al_err_set(AL_EIO, "reading a frame: %s", strerror(errno));
	return 0;
}

int
proto_frame(struct dynbuf *b, enum proto_type type, const void *payload,
    size_t len)
{
	unsigned char h[PROTO_HEADER];
	int rc;

	if (len > PROTO_MAX_PAYLOAD || type <= 0 || type >= PROTO_TYPE_MAX)
		return al_err_set(AL_EINVAL, "frame too large or of no type");
	put_be(h, len, 4);
	put_be(h + 4, (uint64_t)type, 2);
	put_be(h + 6, 0, 2);
	if ((rc = dynbuf_add(b, h, sizeof(h))) < 0)
		return rc;
	return len ? dynbuf_add(b, payload, len) : 0;
}

int
proto_send(int fd, const struct dynbuf *frames)
{
	if (frames->len > 0 && al_write_full(fd, frames->data, frames->len) < 0)
		return al_err_set(AL_EIO, "writing a frame: %s", strerror(errno));
	return 0;
}

int
proto_write(int fd, enum proto_type type, const void *payload, size_t len)
{
	struct dynbuf b;
	int rc;

	dynbuf_init(&b, PROTO_HEADER + PROTO_MAX_PAYLOAD);
	rc = proto_frame(&b, type, payload, len);
	if (rc == 0)
		rc = proto_send(fd, &b);
	dynbuf_free(&b);
	return rc;
}

/* Checks a header; the payload length goes to *len. */
static int
check_header(const unsigned char *h, int *type_out, size_t *len)
{
	uint64_t n = get_be(h, 4), type = get_be(h + 4, 2);

	if (get_be(h + 6, 2) != 0)
		return al_err_set(AL_EINVAL, "frame header: reserved bits set");
	if (type == 0 || type >= PROTO_TYPE_MAX)
		return al_err_set(AL_EINVAL, "frame of unknown type %llu",
		    (unsigned long long)type);
	if (n > PROTO_MAX_PAYLOAD)
		return al_err_set(AL_ELIMIT, "frame of %llu bytes (at most %u)",
		    (unsigned long long)n, PROTO_MAX_PAYLOAD);
	*type_out = (int)type;
	*len = (size_t)n;
	return 0;
}

int
proto_read(int fd, int *type_out, struct dynbuf *payload)
{
	unsigned char h[PROTO_HEADER], chunk[4096];
	size_t len, got;
	int rc;

	dynbuf_reset(payload);
	if ((rc = read_all(fd, h, sizeof(h), &got)) < 0)
		return rc;
	if (got == 0)
		return al_err_set(AL_ENOTFOUND, "end of stream");
	if (got < sizeof(h))
		return al_err_set(AL_EIO, "truncated frame header");
	if ((rc = check_header(h, type_out, &len)) < 0)
		return rc;
	while (len > 0) {
		size_t want = len < sizeof(chunk) ? len : sizeof(chunk);

		if ((rc = read_all(fd, chunk, want, &got)) < 0)
			return rc;
		if (got < want)
			return al_err_set(AL_EIO, "truncated %s frame",
			    proto_type_name(*type_out));
		if ((rc = dynbuf_add(payload, chunk, got)) < 0)
			return rc;
		len -= got;
	}
	return 0;
}

int
proto_parse(const unsigned char *buf, size_t len, size_t *off, int *type_out,
    const unsigned char **payload, size_t *plen)
{
	size_t n;
	int rc;

	if (*off > len || len - *off < PROTO_HEADER)
		return al_err_set(AL_EIO, "truncated frame header");
	if ((rc = check_header(buf + *off, type_out, &n)) < 0)
		return rc;
	if (len - *off - PROTO_HEADER < n)
		return al_err_set(AL_EIO, "truncated %s frame",
		    proto_type_name(*type_out));
	*payload = buf + *off + PROTO_HEADER;
	*plen = n;
	*off += PROTO_HEADER + n;
	return 0;
}

/* Which types each state accepts, and the state each leads to (0: refused). */
static const unsigned char next_state[PROTO_ST_MAX][PROTO_TYPE_MAX] = {
	[PROTO_ST_START] = {
		[PROTO_HELLO] = PROTO_ST_READY + 1,
		[PROTO_ERROR] = PROTO_ST_FINISHED + 1,
	},
	[PROTO_ST_READY] = {
		[PROTO_ITEM] = PROTO_ST_IN_ITEM + 1,
		[PROTO_DONE] = PROTO_ST_FINISHED + 1,
		[PROTO_ERROR] = PROTO_ST_FINISHED + 1,
	},
	[PROTO_ST_IN_ITEM] = {
		[PROTO_FINDING] = PROTO_ST_IN_ITEM + 1,
		[PROTO_MEMBER] = PROTO_ST_IN_MEMBER + 1,
		[PROTO_ITEM_END] = PROTO_ST_READY + 1,
		[PROTO_ERROR] = PROTO_ST_FINISHED + 1,
	},
	[PROTO_ST_IN_MEMBER] = {
		[PROTO_FINDING] = PROTO_ST_IN_ITEM + 1,
		[PROTO_MEMBER] = PROTO_ST_IN_MEMBER + 1,
		[PROTO_MEMBER_DATA] = PROTO_ST_IN_MEMBER + 1,
		[PROTO_ITEM_END] = PROTO_ST_READY + 1,
		[PROTO_ERROR] = PROTO_ST_FINISHED + 1,
	},
	[PROTO_ST_FINISHED] = {0},
	[PROTO_ST_AWAIT] = {
		[PROTO_ITEM] = PROTO_ST_IN_ITEM + 1,
		[PROTO_ERROR] = PROTO_ST_FINISHED + 1,
	},
};

int
proto_accept(enum proto_state *state, int type)
{
	unsigned next;

	if ((unsigned)*state >= PROTO_ST_MAX || type <= 0 ||
	    type >= PROTO_TYPE_MAX || (next = next_state[*state][type]) == 0)
		return al_err_set(AL_EINVAL, "unexpected %s frame",
		    proto_type_name(type));
	*state = (enum proto_state)(next - 1);
	return 0;
}

int
proto_put_u64(struct dynbuf *b, uint64_t v)
{
	unsigned char p[8];

	put_be(p, v, 8);
	return dynbuf_add(b, p, sizeof(p));
}

int
proto_put_str(struct dynbuf *b, const char *s, size_t len)
{
	unsigned char p[4];
	int rc;

	if (len > PROTO_MAX_STRING || memchr(s, '\0', len) != NULL)
		return al_err_set(AL_EINVAL, "string too long or with a NUL");
	put_be(p, len, 4);
	if ((rc = dynbuf_add(b, p, sizeof(p))) < 0)
		return rc;
	return dynbuf_add(b, s, len);
}

int
proto_get_u64(struct proto_cursor *c, uint64_t *out)
{
	if (c->len - c->off < 8)
		return al_err_set(AL_EINVAL, "payload ends inside a number");
	*out = get_be(c->p + c->off, 8);
	c->off += 8;
	return 0;
}

int
proto_get_str(struct proto_cursor *c, char **out)
{
	uint64_t n;

	*out = NULL;
	if (c->len - c->off < 4)
		return al_err_set(AL_EINVAL, "payload ends inside a string length");
	n = get_be(c->p + c->off, 4);
	if (n > PROTO_MAX_STRING || c->len - c->off - 4 < n)
		return al_err_set(AL_EINVAL, "string of %llu bytes does not fit",
		    (unsigned long long)n);
	if (memchr(c->p + c->off + 4, '\0', (size_t)n) != NULL)
		return al_err_set(AL_EINVAL, "string with a NUL byte");
	*out = malloc((size_t)n + 1);
	if (*out == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	memcpy(*out, c->p + c->off + 4, (size_t)n);
	(*out)[n] = '\0';
	c->off += 4 + (size_t)n;
	return 0;
}

int
proto_get_end(const struct proto_cursor *c)
{
	if (c->off != c->len)
		return al_err_set(AL_EINVAL, "%zu unexpected bytes after the "
		    "payload", c->len - c->off);
	return 0;
}

int
proto_encode_finding(struct dynbuf *b, const char *rule, const char *path,
    uint64_t severity, uint64_t line, uint64_t column, const char *excerpt,
    const char *fingerprint)
{
	int rc;

	dynbuf_reset(b);
	if ((rc = proto_put_str(b, rule, strlen(rule))) < 0 ||
	    (rc = proto_put_str(b, path, strlen(path))) < 0 ||
	    (rc = proto_put_u64(b, severity)) < 0 ||
	    (rc = proto_put_u64(b, line)) < 0 ||
	    (rc = proto_put_u64(b, column)) < 0 ||
	    (rc = proto_put_str(b, excerpt, strlen(excerpt))) < 0 ||
	    (rc = proto_put_str(b, fingerprint, strlen(fingerprint))) < 0)
		return rc;
	return 0;
}

void
proto_finding_free(struct proto_finding *f)
{
	free(f->rule);
	free(f->path);
	free(f->excerpt);
	free(f->fingerprint);
	memset(f, 0, sizeof(*f));
}

int
proto_decode_finding(const unsigned char *p, size_t len,
    struct proto_finding *out)
{
	struct proto_cursor c = {p, len, 0};
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = proto_get_str(&c, &out->rule)) < 0 ||
	    (rc = proto_get_str(&c, &out->path)) < 0 ||
	    (rc = proto_get_u64(&c, &out->severity)) < 0 ||
	    (rc = proto_get_u64(&c, &out->line)) < 0 ||
	    (rc = proto_get_u64(&c, &out->column)) < 0 ||
	    (rc = proto_get_str(&c, &out->excerpt)) < 0 ||
	    (rc = proto_get_str(&c, &out->fingerprint)) < 0 ||
	    (rc = proto_get_end(&c)) < 0)
		goto fail;
	if (out->severity > 4) {
		rc = al_err_set(AL_EINVAL, "severity %llu out of range",
		    (unsigned long long)out->severity);
		goto fail;
	}
	if (!al_is_hex(out->fingerprint, 32)) {
		rc = al_err_set(AL_EINVAL, "malformed fingerprint");
		goto fail;
	}
	if (out->rule[0] == '\0' || strlen(out->rule) > 64) {
		rc = al_err_set(AL_EINVAL, "malformed rule id");
		goto fail;
	}
	return 0;
fail:
	proto_finding_free(out);
	return rc;
}

/* ---- messages ------------------------------------------------------------ */

int
proto_encode_hello(struct dynbuf *b, const char *engine, const char *ruleset)
{
	int rc;

	dynbuf_reset(b);
	if ((rc = proto_put_str(b, engine, strlen(engine))) < 0)
		return rc;
	return proto_put_str(b, ruleset, strlen(ruleset));
}

int
proto_decode_hello(const unsigned char *p, size_t len,
    struct proto_hello *out)
{
	struct proto_cursor c = {p, len, 0};
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = proto_get_str(&c, &out->engine)) < 0 ||
	    (rc = proto_get_str(&c, &out->ruleset)) < 0 ||
	    (rc = proto_get_end(&c)) < 0)
		proto_hello_free(out);
	return rc;
}

void
proto_hello_free(struct proto_hello *h)
{
	free(h->engine);
	free(h->ruleset);
	memset(h, 0, sizeof(*h));
}

int
proto_encode_scan(struct dynbuf *b, const char *path, const char *relpath,
    unsigned flags, enum al_kind kind)
{
	int rc;

	dynbuf_reset(b);
	if ((rc = proto_put_str(b, path, strlen(path))) < 0 ||
	    (rc = proto_put_str(b, relpath, strlen(relpath))) < 0)
		return rc;
	return proto_put_u64(b, (uint64_t)flags |
	    (uint64_t)kind << PROTO_SCAN_KIND_SHIFT);
}

int
proto_decode_scan(const unsigned char *p, size_t len, struct proto_scan *out)
{
	struct proto_cursor c = {p, len, 0};
	uint64_t want = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = proto_get_str(&c, &out->path)) < 0 ||
	    (rc = proto_get_str(&c, &out->relpath)) < 0 ||
	    (rc = proto_get_u64(&c, &want)) < 0 ||
	    (rc = proto_get_end(&c)) < 0)
		goto fail;
	if ((want >> PROTO_SCAN_KIND_SHIFT) >= AL_KIND_DIRECTORY) {
		rc = al_err_set(AL_EINVAL, "a kind the child cannot read");
		goto fail;
	}
	out->flags = (unsigned)(want & (PROTO_SCAN_DIGEST | PROTO_SCAN_ITEMS));
	out->kind = (enum al_kind)(want >> PROTO_SCAN_KIND_SHIFT);
	return 0;
fail:
	proto_scan_free(out);
	return rc;
}

void
proto_scan_free(struct proto_scan *s)
{
	free(s->path);
	free(s->relpath);
	memset(s, 0, sizeof(*s));
}

int
proto_encode_item(struct dynbuf *b, const char *path)
{
	dynbuf_reset(b);
	return proto_put_str(b, path, strlen(path));
}

int
proto_decode_item(const unsigned char *p, size_t len, char **path_out)
{
	struct proto_cursor c = {p, len, 0};
	int rc;

	if ((rc = proto_get_str(&c, path_out)) == 0 &&
	    (rc = proto_get_end(&c)) < 0) {
		free(*path_out);
		*path_out = NULL;
	}
	return rc;
}

int
proto_encode_member(struct dynbuf *b, const char *path, uint64_t mode,
    uint64_t size, const char *sha256, const char *type)
{
	int rc;

	dynbuf_reset(b);
	if ((rc = proto_put_str(b, path, strlen(path))) < 0 ||
	    (rc = proto_put_u64(b, mode)) < 0 ||
	    (rc = proto_put_u64(b, size)) < 0 ||
	    (rc = proto_put_str(b, sha256, strlen(sha256))) < 0)
		return rc;
	return proto_put_str(b, type, strlen(type));
}

int
proto_decode_member(const unsigned char *p, size_t len,
    struct proto_member *out)
{
	struct proto_cursor c = {p, len, 0};
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = proto_get_str(&c, &out->path)) < 0 ||
	    (rc = proto_get_u64(&c, &out->mode)) < 0 ||
	    (rc = proto_get_u64(&c, &out->size)) < 0 ||
	    (rc = proto_get_str(&c, &out->sha256)) < 0 ||
	    (rc = proto_get_str(&c, &out->type)) < 0 ||
	    (rc = proto_get_end(&c)) < 0)
		goto fail;
	rc = AL_EINVAL;
	if (out->mode > 0177777 || (out->sha256[0] != '\0' &&
	    !al_is_hex(out->sha256, 64)) || strlen(out->type) > 255)
		goto bad;
	for (i = 0; out->type[i]; i++)
		if (out->type[i] <= ' ' || out->type[i] >= 0x7f)
			goto bad;
	return 0;
bad:
	al_err_set(AL_EINVAL, "a malformed member record");
fail:
	proto_member_free(out);
	return rc;
}

void
proto_member_free(struct proto_member *m)
{
	free(m->path);
	free(m->sha256);
	free(m->type);
	memset(m, 0, sizeof(*m));
}

int
proto_encode_member_data(struct dynbuf *b, uint64_t offset, const void *data,
    size_t len)
{
	int rc;

	dynbuf_reset(b);
	if (len == 0 || len > PROTO_MEMBER_CHUNK)
		return al_err_set(AL_EINVAL, "a member piece of %zu bytes", len);
	if ((rc = proto_put_u64(b, offset)) < 0 ||
	    (rc = proto_put_u64(b, (uint64_t)len)) < 0)
		return rc;
	return dynbuf_add(b, data, len);
}

int
proto_decode_member_data(const unsigned char *p, size_t len,
    struct proto_member_data *out)
{
	struct proto_cursor c = {p, len, 0};
	uint64_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = proto_get_u64(&c, &out->offset)) < 0 ||
	    (rc = proto_get_u64(&c, &n)) < 0)
		return rc;
	if (n == 0 || n > PROTO_MEMBER_CHUNK || n != c.len - c.off)
		return al_err_set(AL_EINVAL, "a member piece of %llu bytes in a "
		    "payload of %zu", (unsigned long long)n, len);
	if (out->offset > UINT64_MAX - n)
		return al_err_set(AL_EINVAL, "a member piece past any size");
	out->data = p + c.off;
	out->len = (size_t)n;
	return 0;
}

int
proto_encode_item_end(struct dynbuf *b, uint64_t bytes, const char *digest,
    enum al_kind kind)
{
	int rc;

	dynbuf_reset(b);
	if ((rc = proto_put_u64(b, bytes)) < 0 ||
	    (rc = proto_put_str(b, digest, strlen(digest))) < 0)
		return rc;
	return proto_put_u64(b, (uint64_t)kind);
}

int
proto_decode_item_end(const unsigned char *p, size_t len,
    struct proto_item_end *out)
{
	struct proto_cursor c = {p, len, 0};
	uint64_t kind;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = proto_get_u64(&c, &out->bytes)) < 0 ||
	    (rc = proto_get_str(&c, &out->digest)) < 0 ||
	    (rc = proto_get_u64(&c, &kind)) < 0 ||
	    (rc = proto_get_end(&c)) < 0)
		goto fail;
	if (out->digest[0] != '\0' && !al_is_hex(out->digest, 64)) {
		rc = al_err_set(AL_EINVAL, "a malformed digest");
		goto fail;
	}
	/* Only a kind a reader reads: never AUTO, MEMBER or DIRECTORY. */
	if (kind < AL_KIND_FILE || kind > AL_KIND_BUNDLE) {
		rc = al_err_set(AL_EINVAL, "a kind no reader reads");
		goto fail;
	}
	out->kind = (enum al_kind)kind;
	return 0;
fail:
	proto_item_end_free(out);
	return rc;
}

void
proto_item_end_free(struct proto_item_end *e)
{
	free(e->digest);
	memset(e, 0, sizeof(*e));
}

void
proto_launch_started(unsigned char out[PROTO_LAUNCH_STARTED], pid_t pid)
{
	put_be(out, (uint64_t)pid, 8);
}

void
proto_launch_ended(unsigned char out[PROTO_LAUNCH_ENDED], pid_t pid,
    int status)
{
	put_be(out, (uint64_t)pid, 8);
	put_be(out + 8, (uint32_t)status, 4);
}

pid_t
proto_launch_pid(const unsigned char *msg)
{
	return (pid_t)get_be(msg, 8);
}

int
proto_launch_status(const unsigned char msg[PROTO_LAUNCH_ENDED])
{
	return (int)get_be(msg + 8, 4);
}
