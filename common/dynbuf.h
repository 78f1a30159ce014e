/*
 * dynbuf.h - the one growable byte buffer, bounded at init (after curl's dynbuf).
 *
 * Every buffer has a maximum; an append that would pass it fails with
 * AL_ELIMIT and leaves the buffer as it was. The content is always followed
 * by a NUL byte (not counted in len), so text can be used as a C string, but
 * the content itself may hold NULs: use len.
 */
#ifndef AIRLOCK_DYNBUF_H
#define AIRLOCK_DYNBUF_H

#include <stdarg.h>
#include <stddef.h>

struct dynbuf {
	char *data;   /* NULL until the first append */
	size_t len;   /* bytes used, excluding the NUL */
	size_t cap;   /* bytes allocated */
	size_t max;   /* most bytes len may reach */
};

/* Appends fail (AL_ELIMIT past max, AL_ENOMEM) and leave the buffer as
 * it was; a caller that ignores the result would go on with a truncated
 * text, so the compiler insists that it is looked at. */
#define DYNBUF_MUST __attribute__((warn_unused_result))

void dynbuf_init(struct dynbuf *b, size_t max);
int dynbuf_add(struct dynbuf *b, const void *p, size_t n) DYNBUF_MUST;
int dynbuf_addc(struct dynbuf *b, char c) DYNBUF_MUST;
int dynbuf_adds(struct dynbuf *b, const char *s) DYNBUF_MUST;
int dynbuf_addf(struct dynbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) DYNBUF_MUST;
int dynbuf_vaddf(struct dynbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0))) DYNBUF_MUST;
/*
 * Appends one line of a list of problems (a loader's diagnostics). One
 * that does not fit is not lost silently: the list then ends with a line
 * saying that not all problems are shown (earlier lines make room for
 * it). The problems are still counted by the caller; only text is lost.
 */
void dynbuf_diag(struct dynbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dynbuf_reset(struct dynbuf *b);
/* Hands the content (NUL-terminated, never NULL) to the caller. */
char *dynbuf_take(struct dynbuf *b, size_t *len_out);
const char *dynbuf_str(const struct dynbuf *b);
void dynbuf_free(struct dynbuf *b);

/* Overflow-checked size arithmetic; return 0 on success, AL_ELIMIT on wrap. */
int al_size_add(size_t *out, size_t a, size_t b);
int al_size_mul(size_t *out, size_t a, size_t b);

#endif
