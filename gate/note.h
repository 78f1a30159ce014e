/*
 * note.h - C2SP signed notes (c2sp.org/signed-note) with Ed25519
 * signatures, and the tlog checkpoints (c2sp.org/tlog-checkpoint) that the
 * audit log signs with them. The reference is golang.org/x/mod/sumdb/note,
 * whose vectors tests/check_note.c reproduces.
 *
 * A note is a text (valid UTF-8, no control character but newline, ending
 * in a newline), a blank line, and one or more signature lines:
 *
 *	— NAME BASE64(key id, 4 bytes big-endian || signature)
 *
 * An Ed25519 key (signature type 0x01) has the key id SHA-256(NAME || 0x0A
 * || 0x01 || 32-byte public key)[:4], and the verifier key string
 * NAME+HEX8(key id)+BASE64(0x01 || public key).
 *
 * Verification follows the reference: a signature whose (name, key id) is
 * in the verifier set must verify, or the whole note is refused; other
 * signatures are ignored; at least one known signature must verify. Only
 * the first signature of a known key is checked, later ones by the same
 * key are ignored (as the reference drops them); a (name, key id) that
 * the verifier set holds twice is refused when a signature names it.
 * Stricter than the reference: base64 must be canonical (no stray bits
 * before the padding), so a note has one spelling; our keys' names are at
 * most NOTE_NAME_MAX bytes and hold no control character; a signature line
 * is at most NOTE_MAX_SIG_LINE bytes, a note NOTE_MAX_BYTES.
 *
 * Trust: a note is hostile until note_verify() returns 0, and only its
 * text (the first *text_len bytes) is vouched for then, never the
 * signature lines. Verifier keys and signing keys are the operator's.
 */
#ifndef AIRLOCK_NOTE_H
#define AIRLOCK_NOTE_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

/* A whole note: 100 post-quantum signatures (the largest, ML-DSA-87, is
 * 6,176 bytes in base64) fit with room; a checkpoint is ~100 bytes. */
#define NOTE_MAX_BYTES (1u << 20)
/* Signatures read from one note, counting repeats (the reference's bound:
 * each known one costs a verification). The spec asks for at least 16. */
#define NOTE_MAX_SIGS 100u
/* One signature line: an ML-DSA-87 signature and a name of NOTE_NAME_MAX. */
#define NOTE_MAX_SIG_LINE 8192u
/* A key name (a schema-less URL by the spec's advice). A signature line
 * naming a longer one is read as an unknown key's: no verifier has such a
 * name. */
#define NOTE_NAME_MAX 255u
/* A checkpoint's origin line: an identifier, not a document. */
#define CHECKPOINT_ORIGIN_MAX 1024u
/* The tree size fits SQLite's INTEGER (int64). */
#define CHECKPOINT_SIZE_MAX INT64_MAX

/* One key a verifier trusts. The name and key id select it; pub (an
 * Ed25519 public key, owned: note_verifier_clear frees it) checks it. */
struct note_verifier {
	char name[NOTE_NAME_MAX + 1];
	uint32_t id;                  /* the key id */
	EVP_PKEY *pub;
};

/* 1 if name may be a key name: 1..NOTE_NAME_MAX bytes of UTF-8 without
 * control characters, Unicode spaces (Go's unicode.IsSpace) or '+'. */
int note_name_ok(const char *name, size_t len);

/* The key id of an Ed25519 key (public, or a private key's public half)
 * under name. AL_EINVAL for a bad name or another kind of key. */
int note_keyid(uint32_t *out, const char *name, EVP_PKEY *key);

/* A verifier for key under name; key's public half is copied, the caller
 * keeps key. */
int note_verifier_init(struct note_verifier *out, const char *name,
    EVP_PKEY *key);
/* A verifier from a verifier key string of len bytes (NAME+HEX8+BASE64);
 * the key id must be the one the name and key give. */
int note_vkey_parse(struct note_verifier *out, const char *vkey, size_t len);
/* Frees v's key; v may be cleared twice, or be all zero. */
void note_verifier_clear(struct note_verifier *v);

/* The verifier key string of key under name (NUL-terminated, malloc'd). */
int note_vkey_format(char **out, const char *name, EVP_PKEY *key);

/* One signer: a key name and an Ed25519 private key (the gate's, from
 * attest_key_load()). */
struct note_signer {
	const char *name;
	EVP_PKEY *key;
};

/*
 * Signs the text (len bytes; a valid note text, which the function
 * checks) with each of the n signers (1..NOTE_MAX_SIGS, in that order):
 * *out (malloc'd, NUL-terminated, *out_len bytes without the NUL) is the
 * signed note. Ed25519 is deterministic: the same text, name and key give
 * the same bytes.
 */
int note_sign(char **out, size_t *out_len, const char *text, size_t len,
    const struct note_signer *signers, size_t n);

/*
 * Verifies the note (len bytes) against the nkeys verifiers. On success
 * (0) *text_len is the length of the signed text (note[0..*text_len),
 * ending in its newline) and *nverified the number of distinct verifiers
 * whose signature verified (at least 1). Refusals: AL_ELIMIT past a limit
 * above, AL_ENOTFOUND for a well-formed note that no verifier signed,
 * AL_EINVAL for everything else (malformed, a known signature that does
 * not verify, an ambiguous verifier set); the message says which and where.
 */
int note_verify(size_t *text_len, size_t *nverified, const char *note,
    size_t len, const struct note_verifier *keys, size_t nkeys);

/*
 * A checkpoint's note text: origin, tree size, RFC 6962 root hash, then
 * optional extension lines. extensions is NULL when there are none, else
 * those lines as they are (each non-empty and ending in a newline),
 * NUL-terminated.
 */
struct checkpoint {
	char *origin;             /* malloc'd; 1..CHECKPOINT_ORIGIN_MAX bytes */
	uint64_t size;            /* leaves; at most CHECKPOINT_SIZE_MAX */
	uint8_t root[32];
	char *extensions;         /* malloc'd or NULL */
};

/* The note text of c (malloc'd, NUL-terminated, *len bytes); c is checked
 * as checkpoint_parse() would check the text. extensions "" is none. */
int checkpoint_format(char **out, size_t *len, const struct checkpoint *c);
/*
 * Parses a checkpoint text (len bytes, the signed text of a note: not the
 * whole note, whose blank line would be an empty extension line) strictly:
 * what it accepts, checkpoint_format() gives back byte for byte. The size
 * is decimal without sign or leading zero ("0" for the empty tree), the
 * root canonical base64 of exactly 32 bytes. AL_EINVAL with the line
 * (AL_ELIMIT past a limit). On failure *out is all zero; on success
 * checkpoint_clear it.
 */
int checkpoint_parse(struct checkpoint *out, const char *text, size_t len);
void checkpoint_clear(struct checkpoint *c);

#endif
