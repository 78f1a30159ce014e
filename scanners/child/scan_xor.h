/*
 * scan_xor.h - the XOR view (scan_xor.c): literals of a file that uses XOR,
 * decoded with the file's own literal keys (or a single byte), so that the
 * rules read the payload the program would run.
 *
 * A dropper hides its payload as data and a key:
 *
 *   K = b"s3cr"; exec(bytes(c ^ K[i % 4] for i, c in enumerate(b64decode(P))))
 *   const k = 0x5a; eval(Buffer.from(h, "hex").map(b => b ^ k).toString())
 *   $b = [Convert]::FromBase64String($p); ... $b[$i] -bxor $key[$i % 4]
 *
 * Only a file with an XOR expression (a binary `^` between operands, `^=`,
 * `-bxor`) is read so. Its keys are the literals on the lines that XOR
 * (numbers, strings, small integer arrays) and the literal values of the
 * names used there (`K = b"s3cr"`, `key: "s3cr"`, `$key = 0x5a`), applied
 * cyclically from the first byte. Its payloads are its quoted literals
 * (escapes decoded; a literal of hex or base64 characters decoded as such)
 * and its arrays of small integers. A payload is decoded with the first
 * literal key that makes it read as text better than it did, or, when it is
 * not text at all, with the single byte that makes it read best.
 *
 * Trust: the text is hostile. Pure functions over the caller's buffers: no
 * allocation, no recursion; every read is bounded by the text's length and
 * every write by the sizes below.
 */
#ifndef AIRLOCK_SCAN_XOR_H
#define AIRLOCK_SCAN_XOR_H

#include <stddef.h>

#define XOR_KEY_MAX 32     /* bytes of a key; longer literals are no key */
#define XOR_KEYS 32        /* keys kept per file */
#define XOR_NAMES 32       /* names on the XOR lines whose values are keys */
#define XOR_BLOB_MIN 12    /* bytes a literal must decode to */
#define XOR_BLOB_MAX 16384 /* bytes decoded from one literal, at most */

struct xor_key {
	size_t n;
	unsigned char k[XOR_KEY_MAX];
};

/* 1 if the n bytes of text have an XOR expression. */
int scan_xor_uses(const char *t, size_t n);

/* The literal keys of the text, at most max (<= XOR_KEYS), distinct, in
 * order of appearance: the keys of the lines with XOR first. */
size_t scan_xor_keys(const char *t, size_t n, struct xor_key *keys,
    size_t max);

/*
 * The next literal at or after *pos that decodes to at least XOR_BLOB_MIN
 * bytes, decoded into out (room for XOR_BLOB_MAX bytes; a longer one gives
 * its first XOR_BLOB_MAX). Sets [*s, *e) to the literal's bytes in t and
 * *pos past it. Returns the decoded length, or 0 when there is none left.
 */
size_t scan_xor_blob(const char *t, size_t n, size_t *pos,
    unsigned char *out, size_t *s, size_t *e);

/*
 * The n bytes of in XORed with the key that makes them text (see above),
 * written to out (n bytes). Returns 1 and sets *key to the key used, or 0
 * (out is then undefined).
 */
int scan_xor_try(const unsigned char *in, size_t n,
    const struct xor_key *keys, size_t nkeys, unsigned char *out,
    struct xor_key *key);

#endif
