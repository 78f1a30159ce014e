/*
 * util.h - small helpers shared by the gate and the scanners: hashing,
 * entropy, UTF-8 handling, bounded file reads.
 */
#ifndef AIRLOCK_UTIL_H
#define AIRLOCK_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "dynbuf.h"

#define AL_SHA256_HEX 65 /* 64 hex digits and a NUL */

/* libcrypto's SHA-256, fetched once (EVP_sha256() looks it up under a
 * lock each time it is used: a cost per hash that the audit tree's node
 * hashes and small files feel). Never NULL. */
const void *al_sha256_md(void); /* const EVP_MD * */
void al_sha256_hex(char out[AL_SHA256_HEX], const void *p, size_t n);
/* The SHA-256 (hex) of what fd reads from where it is to its end. */
int al_sha256_fd(int fd, char out[AL_SHA256_HEX]);
/* A SHA-256 fed in pieces, for keys made of many parts (no buffer to
 * outgrow). libcrypto failing to hash is a programming error (AL_ASSERT). */
struct al_hash {
	void *md;                 /* EVP_MD_CTX */
};
void al_hash_begin(struct al_hash *h);
void al_hash_add(struct al_hash *h, const void *p, size_t n);
/* Adds s and its terminating NUL (a field separator that no field holds). */
void al_hash_addz(struct al_hash *h, const char *s);
void al_hash_end(struct al_hash *h, char out[AL_SHA256_HEX]);

/* n bytes as 2n lowercase hex digits and a NUL. */
void al_hex(char *out, const unsigned char *p, size_t n);

/* Shannon entropy of the bytes, in bits per byte (0 for an empty span). */
double al_entropy(const unsigned char *p, size_t n);

/* 1 if s is exactly n lowercase hex digits (then NUL); 0, also for NULL. */
int al_is_hex(const char *s, size_t n);

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
size_t al_utf8_seq(const unsigned char *p, size_t n, uint32_t *cp_out);

/* Number of UTF-8 code points in the span; an invalid byte counts as one. */
size_t al_utf8_count(const char *p, size_t n);

/* Appends the span as valid UTF-8, each invalid byte replaced by U+FFFD. */
int al_utf8_sanitize(struct dynbuf *out, const char *p, size_t n);

/*
 * Appends the span for a terminal: control bytes become \xNN, invalid UTF-8
 * bytes \xNN, and characters that reorder or hide text (bidi controls,
 * zero-width characters, tag characters) <U+XXXX>. Hostile excerpts can
 * then neither drive the terminal nor disguise what a reviewer reads.
 */
int al_term_escape(struct dynbuf *out, const char *p, size_t n);

/* True for code points that reorder or hide text. */
int al_is_deceptive_cp(uint32_t cp);

/* Reads a whole file of at most max bytes. *out is NUL-terminated. */
int al_read_file(const char *path, size_t max, char **out, size_t *len_out);

/* ASCII lower-case of one byte. */
static inline unsigned char
al_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* Case-insensitive (ASCII) search of needle in hay; NULL if absent. */
const char *al_memcasemem(const char *hay, size_t hn, const char *needle,
    size_t nn);

/* Parses a decimal size_t; 0 on success. */
int al_parse_size(const char *s, size_t *out);
/* A byte count with an optional K, M or G suffix (powers of 1024). */
int al_parse_bytes(const char *s, uint64_t *out);

#endif
