/*
 * scan_decode.h - decoders for encoded blobs found in text (base64, hex,
 * \xHH escapes), so that what they hide is scanned again.
 *
 * Trust: input is hostile; decoders take (pointer, length), write at most
 * scan_decoded_max(n) bytes and never allocate.
 */
#ifndef AIRLOCK_SCAN_DECODE_H
#define AIRLOCK_SCAN_DECODE_H

#include <stddef.h>
#include <sys/types.h>

enum scan_encoding {
	ENC_BASE64,
	ENC_HEX,
	ENC_XESC,   /* "\x63\x75\x72\x6c" */
	ENC_BASE64_UTF16, /* base64 of UTF-16LE text: PowerShell's -enc */
	ENC_BASE64_ZLIB,  /* base64 of zlib or gzip: exec(zlib.decompress(...)) */
};

const char *scan_encoding_name(enum scan_encoding e);

/* Most bytes any decoder writes for n input bytes. */
size_t scan_decoded_max(size_t n);

/* Each returns the decoded length, or -1 when the input is not that
 * encoding (a wrong character, a bad length). */
ssize_t scan_decode_base64(const char *p, size_t n, unsigned char *out);
ssize_t scan_decode_hex(const char *p, size_t n, unsigned char *out);
ssize_t scan_decode_xesc(const char *p, size_t n, unsigned char *out);

/* 1 when decoded bytes read as text (UTF-8, few control bytes): only such
 * payloads are scanned again; images and compressed data are not. */
int scan_is_text(const unsigned char *p, size_t n);

/* Inflates a zlib stream of at most max bytes (the size the format
 * states) into a new buffer; *used (when set) gets the compressed bytes the
 * stream took. AL_EINVAL when the stream is corrupt or inflates to more
 * than max, or when n bytes cannot inflate to max at all (deflate gives at
 * most 1032 bytes a byte: such a stated size is refused before max bytes
 * are allocated); AL_ENOMEM. */
int scan_inflate(const void *p, size_t n, size_t max, unsigned char **out,
    size_t *out_len, size_t *used);

struct dynbuf;
/* The bytes a git delta (pack or binary patch) inserts, each run followed
 * by a newline; its copies come from a base not at hand. -1 when the delta
 * is malformed or out is full. */
int scan_delta_inserts(const unsigned char *p, size_t n, struct dynbuf *out);

#endif
