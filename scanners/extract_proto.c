/*
 * extract_proto.c - the pull child's report records; see extract_proto.h.
 */
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "err.h"
#include "extract_proto.h"

static int
put_le(struct dynbuf *out, uint64_t v, size_t n)
{
	unsigned char b[8];
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return dynbuf_add(out, b, n);
}

static int
put_str(struct dynbuf *out, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n > max)
		return al_err_set(AL_ELIMIT, "a name longer than %zu bytes", max);
	if (put_le(out, n, 2) < 0 || dynbuf_add(out, s ? s : "", n) < 0)
		return al_err_set(AL_ENOMEM, "the report is full");
	return 0;
}

int
extract_proto_entry(struct dynbuf *out, const struct extract_entry *e)
{
	if (dynbuf_addc(out, 'E') < 0 || put_le(out, (uint64_t)e->type, 1) < 0 ||
	    put_le(out, e->mode, 4) < 0 || put_le(out, e->size, 8) < 0)
		return al_err_set(AL_ENOMEM, "the report is full");
	if (put_str(out, e->path, AL_MAX_PATH) < 0 ||
	    put_str(out, e->link, AL_MAX_PATH) < 0)
		return AL_ENOMEM;
	return 0;
}

int
extract_proto_end(struct dynbuf *out, int status, const char *msg)
{
	size_t n = strlen(msg);

	if (n > EXTRACT_MSG_MAX)
		n = EXTRACT_MSG_MAX;
	if (dynbuf_addc(out, 'Z') < 0 ||
	    put_le(out, (uint64_t)(uint32_t)status, 4) < 0 ||
	    put_le(out, n, 2) < 0 || dynbuf_add(out, msg, n) < 0)
		return al_err_set(AL_ENOMEM, "the report is full");
	return 0;
}

/* Reads n little-endian bytes at *p if that many are left. */
static int
get_le(const unsigned char **p, size_t *left, size_t n, uint64_t *v)
{
	size_t i;

	if (*left < n)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)(*p)[i] << (8 * i);
	*p += n;
	*left -= n;
	return 0;
}

/* A length-prefixed string of at most max bytes with no NUL in it, copied
 * to a new NUL-terminated string (NULL when empty and allow_empty). */
static int
get_str(const unsigned char **p, size_t *left, size_t max, char **out)
{
	uint64_t n;

	*out = NULL;
	if (get_le(p, left, 2, &n) < 0 || n > max || n > *left ||
	    memchr(*p, '\0', (size_t)n) != NULL)
		return -1;
	if (n > 0) {
		if ((*out = malloc((size_t)n + 1)) == NULL)
			return -1;
		memcpy(*out, *p, (size_t)n);
		(*out)[n] = '\0';
	}
	*p += n;
	*left -= (size_t)n;
	return 0;
}

int
extract_proto_decode(struct extract_rec *out, const unsigned char *p,
    size_t n, size_t *used)
{
	const unsigned char *start = p;
	size_t left = n;
	uint64_t type, mode, size, st, len;

	memset(out, 0, sizeof(*out));
	if (left < 1)
		return al_err_set(AL_EINVAL, "the report ends without its end");
	left--;
	if (*p++ == 'Z') {
		if (get_le(&p, &left, 4, &st) < 0 || get_le(&p, &left, 2, &len) < 0 ||
		    len > EXTRACT_MSG_MAX || len > left)
			return al_err_set(AL_EINVAL, "a malformed end record");
		out->end = 1;
		out->status = (int)(int32_t)(uint32_t)st;
		memcpy(out->msg, p, (size_t)len);
		out->msg[len] = '\0';
		*used = (size_t)(p - start) + (size_t)len;
		return 0;
	}
	if (p[-1] != 'E' || get_le(&p, &left, 1, &type) < 0 ||
	    get_le(&p, &left, 4, &mode) < 0 || get_le(&p, &left, 8, &size) < 0 ||
	    (type != EXTRACT_FILE && type != EXTRACT_DIR && type != EXTRACT_LINK) ||
	    (mode & ~(uint64_t)0777) != 0 ||
	    get_str(&p, &left, AL_MAX_PATH, &out->entry.path) < 0 ||
	    get_str(&p, &left, AL_MAX_PATH, &out->entry.link) < 0 ||
	    out->entry.path == NULL ||
	    (type == EXTRACT_LINK) != (out->entry.link != NULL)) {
		extract_entry_clear(&out->entry);
		return al_err_set(AL_EINVAL, "a malformed entry record");
	}
	out->entry.type = (enum extract_type)type;
	out->entry.mode = (uint32_t)mode;
	out->entry.size = size;
	*used = (size_t)(p - start);
	return 0;
}

void
extract_entry_clear(struct extract_entry *e)
{
	free(e->path);
	free(e->link);
	e->path = e->link = NULL;
}
