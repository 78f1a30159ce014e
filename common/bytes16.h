/*
 * bytes16.h - finding a few byte values in text 16 bytes at a time.
 *
 * Scanners that stop only at a handful of bytes (quotes, brackets, `;`)
 * spend most of their time stepping over the others. al_bytes16 says, for
 * 16 bytes at once, which of them are in a small set: one compare per byte
 * value with SSE2 (part of every x86-64), a plain loop elsewhere. The set
 * is a constant at every call, and the loop over it is unrolled (at most 8
 * bytes in a set).
 *
 * Trust: reads exactly p[0..16) (al_bytes_tail: p[0..n)); the caller
 * guarantees those bytes.
 */
#ifndef AIRLOCK_BYTES16_H
#define AIRLOCK_BYTES16_H

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Bit i set where p[i] is one of the nset bytes of set. */
static inline unsigned
al_bytes16(const unsigned char *p, const char *set, unsigned nset)
{
	unsigned k;
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i acc = _mm_setzero_si128();

	/* Unrolled, so that each byte of the constant set is a constant
	 * vector: as a loop, each turn built its vector from the byte anew
	 * (five instructions), several times the compares' cost. */
#pragma GCC unroll 8
	for (k = 0; k < nset; k++)
		acc = _mm_or_si128(acc, _mm_cmpeq_epi8(v, _mm_set1_epi8(set[k])));
	return (unsigned)_mm_movemask_epi8(acc);
#else
	unsigned m = 0, i;

	for (i = 0; i < 16; i++)
		for (k = 0; k < nset; k++)
			if (p[i] == (unsigned char)set[k])
				m |= 1u << i;
	return m;
#endif
}

/* The index of the lowest set bit of a non-zero mask. */
/* The same for the n < 16 bytes at p (a text's tail). */
static inline unsigned
al_bytes_tail(const unsigned char *p, unsigned n, const char *set,
    unsigned nset)
{
	unsigned m = 0, i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < nset; k++)
			if (p[i] == (unsigned char)set[k])
				m |= 1u << i;
	return m;
}

static inline unsigned
al_low_bit(unsigned m)
{
	return (unsigned)__builtin_ctz(m);
}

#endif
