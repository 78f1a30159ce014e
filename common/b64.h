/*
 * b64.h - standard base64 (RFC 4648 section 4), as signed notes, proofs
 * and checkpoints carry it. Decoding is strict: padded, no blanks, no
 * stray bits after the last byte, so that one byte string has exactly one
 * spelling (a signature over a checkpoint signs one root, not several).
 */
#ifndef AIRLOCK_B64_H
#define AIRLOCK_B64_H

#include <stddef.h>

#include "dynbuf.h"

/* Characters base64 of n bytes takes (without a NUL). */
#define AL_B64_LEN(n) (((n) + 2) / 3 * 4)

/* Appends the base64 of p[0..n) to b; AL_ELIMIT when b is full. */
int al_b64_add(struct dynbuf *b, const void *p, size_t n);
/* Decodes the n characters of s into out (room for cap bytes); -1 when s
 * is not canonical base64 or decodes to more than cap bytes. */
int al_b64_decode(unsigned char *out, size_t cap, size_t *out_len,
    const char *s, size_t n);

#endif
