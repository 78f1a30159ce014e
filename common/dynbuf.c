/*
 * dynbuf.c - bounded growable buffer; see dynbuf.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynbuf.h"
#include "err.h"

int
al_size_add(size_t *out, size_t a, size_t b)
{
	if (__builtin_add_overflow(a, b, out))
		return al_err_set(AL_ELIMIT, "size overflow");
	return 0;
}

int
al_size_mul(size_t *out, size_t a, size_t b)
{
	if (__builtin_mul_overflow(a, b, out))
		return al_err_set(AL_ELIMIT, "size overflow");
	return 0;
}

void
dynbuf_init(struct dynbuf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

static int
dynbuf_grow(struct dynbuf *b, size_t need)
{
	size_t want, ncap;
	char *p;

	if (al_size_add(&want, b->len, need) < 0 || want > b->max)
		return al_err_set(AL_ELIMIT, "buffer limit of %zu bytes reached",
		    b->max);
	if (want + 1 <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 64;
	while (ncap < want + 1) {
		if (ncap > ((size_t)-1) / 2) {
			ncap = want + 1;
			break;
		}
		ncap *= 2;
	}
	if (ncap > b->max + 1)
		ncap = b->max + 1;
	p = realloc(b->data, ncap);
	if (p == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	b->data = p;
	b->cap = ncap;
	return 0;
}

int
dynbuf_add(struct dynbuf *b, const void *p, size_t n)
{
	int rc;

	if ((rc = dynbuf_grow(b, n)) < 0)
		return rc;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
dynbuf_addc(struct dynbuf *b, char c)
{
	return dynbuf_add(b, &c, 1);
}

int
dynbuf_adds(struct dynbuf *b, const char *s)
{
	return dynbuf_add(b, s, strlen(s));
}

int
dynbuf_vaddf(struct dynbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	char small[256];
	int n, rc;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0)
		rc = al_err_set(AL_EINVAL, "format error");
	else if ((size_t)n < sizeof(small))
		rc = dynbuf_add(b, small, (size_t)n);
	else if ((rc = dynbuf_grow(b, (size_t)n)) == 0) {
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
	return rc;
}

int
dynbuf_addf(struct dynbuf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = dynbuf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

/* What ends a list of problems that did not all fit. */
#define DIAG_MORE "(more problems; not all are shown)\n"

void
dynbuf_diag(struct dynbuf *b, const char *fmt, ...)
{
	size_t mlen = sizeof(DIAG_MORE) - 1;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = dynbuf_vaddf(b, fmt, ap);
	va_end(ap);
	if (rc == 0)
		return;
	/* Said once, at the end: whole lines make room for it. */
	if (b->len >= mlen && memcmp(b->data + b->len - mlen, DIAG_MORE,
	    mlen) == 0)
		return;
	while (b->len > 0 && b->len + mlen > b->max) {
		b->len--;
		while (b->len > 0 && b->data[b->len - 1] != '\n')
			b->len--;
	}
	if (b->data != NULL)
		b->data[b->len] = '\0';
	if (dynbuf_add(b, DIAG_MORE, mlen) < 0 && b->data != NULL)
		b->data[b->len] = '\0'; /* a buffer too small for even that */
}

void
dynbuf_reset(struct dynbuf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

char *
dynbuf_take(struct dynbuf *b, size_t *len_out)
{
	char *p = b->data;

	if (p == NULL)
		p = calloc(1, 1);
	if (len_out != NULL)
		*len_out = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *
dynbuf_str(const struct dynbuf *b)
{
	return b->data != NULL ? b->data : "";
}

void
dynbuf_free(struct dynbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
