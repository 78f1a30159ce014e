/*
 * merkle.h - the Merkle tree of the audit log (RFC 6962 §2.1, as RFC 9162
 * §2.1 restates it): hashes, appends, roots and proofs over a store of
 * node hashes the caller keeps, and the verification of proofs with no
 * store at all.
 *
 * Hashing (RFC 6962 §2.1, SHA-256): a leaf is SHA-256(0x00 || entry), an
 * interior node SHA-256(0x01 || left || right), the empty tree's root
 * SHA-256("") (e3b0c442...). The tree over n leaves splits at the largest
 * power of two below n, so the tree over the first n leaves of a longer
 * list is made of the longer tree's complete subtrees.
 *
 * Storage model: the store holds the complete subtrees only. Node (level
 * L, index I) is the root of the subtree over leaves [I * 2^L,
 * (I + 1) * 2^L); it is in a store of n leaves exactly when
 * (I + 1) * 2^L <= n, and it never changes once written (append-only).
 * Level 0 holds the leaf hashes. Any tree over a prefix of the leaves, and
 * every proof about it, is computed from O(log n) of these nodes; the
 * incomplete right edge of a tree is hashed on the fly, never stored.
 * A store of n leaves answers for every size up to n: past checkpoints
 * need nothing kept for them.
 *
 * Costs: an append is one put and, for each subtree the new leaf
 * completes, one get and one put (the number of trailing 1 bits of the
 * leaf's index: 1 on average, at most log2(n)); a root is popcount(size)
 * gets; a proof at most 2 * ceil(log2(size)) + 1 gets.
 *
 * Errors: every function returns 0 or a negative al_err with the message
 * set (err.h). What a store callback returns (negative, with al_err set by
 * the callback) is handed back unchanged, message and all. Verification
 * returns AL_EINVAL and says which check failed.
 *
 * Trust: proofs, sizes, indexes and roots given to the verify functions
 * may be hostile (they come from a file or over the wire): each is checked
 * before use, nothing is read past the n hashes given, and no size is
 * trusted to bound a loop. The store is trusted to hand back what it was
 * given; a store that lies makes wrong roots, which verification against a
 * signed checkpoint then catches.
 */
#ifndef AIRLOCK_MERKLE_H
#define AIRLOCK_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#define MERKLE_HASH_LEN 32

/* The largest tree: every size and index is below 2^63, so that a level
 * (0..63) and an index shifted by it never overflow 64 bits, and every
 * proof fits MERKLE_MAX_PROOF hashes. A log that grows by a million
 * entries a second reaches it in 292,000 years. */
#define MERKLE_MAX_SIZE ((UINT64_C(1) << 63) - 1)

/* Hashes in any proof for a size up to MERKLE_MAX_SIZE: an inclusion proof
 * has at most ceil(log2(size)) (63), a consistency proof one more (64).
 * The path buffers of the proof functions hold this many. */
#define MERKLE_MAX_PROOF 64

#define MERKLE_MUST __attribute__((warn_unused_result))

/* The store. get writes node (level, index) to out; put stores h as that
 * node. Both return 0, or a negative al_err with the message set (a get of
 * a node that is not there is the store's error: AL_ENOTFOUND, say). */
typedef int (*merkle_get_fn)(void *ctx, unsigned level, uint64_t index,
    uint8_t out[MERKLE_HASH_LEN]);
typedef int (*merkle_put_fn)(void *ctx, unsigned level, uint64_t index,
    const uint8_t h[MERKLE_HASH_LEN]);

/* SHA-256(0x00 || entry), SHA-256(0x01 || l || r), SHA-256(""). */
void merkle_leaf_hash(const void *entry, size_t len,
    uint8_t out[MERKLE_HASH_LEN]);
void merkle_node_hash(const uint8_t l[MERKLE_HASH_LEN],
    const uint8_t r[MERKLE_HASH_LEN], uint8_t out[MERKLE_HASH_LEN]);
void merkle_empty_root(uint8_t out[MERKLE_HASH_LEN]);

/*
 * Appends leaf hash `leaf` as leaf number `index`, which must be the
 * store's current size (the caller knows it; the store is not asked):
 * puts (0, index), then every parent the new leaf completes, bottom up,
 * each after one get of its left sibling. A failed get or put leaves the
 * nodes put before it in the store; they are the ones a retry of the same
 * append puts again, with the same hashes (the caller runs an append in
 * one transaction). AL_ELIMIT when index is MERKLE_MAX_SIZE or more.
 */
int merkle_append(merkle_get_fn get, merkle_put_fn put, void *ctx,
    uint64_t index, const uint8_t leaf[MERKLE_HASH_LEN]) MERKLE_MUST;

/* The root of the tree over the first `size` leaves of the store (size 0:
 * the empty root, no get). */
int merkle_root(merkle_get_fn get, void *ctx, uint64_t size,
    uint8_t out[MERKLE_HASH_LEN]) MERKLE_MUST;

/*
 * MTH(D[start:end]) of RFC 9162 §2.1.1, for a range that is a subtree of
 * some tree (what every proof is made of): start a multiple of the
 * smallest power of two >= end - start. Such a range is one stored node
 * for each 1 bit of end - start, hashed right to left. Any other range has
 * splits no stored node follows (AL_EINVAL). start == end: the empty root.
 */
int merkle_range_hash(merkle_get_fn get, void *ctx, uint64_t start,
    uint64_t end, uint8_t out[MERKLE_HASH_LEN]) MERKLE_MUST;

/*
 * The inclusion proof (audit path, RFC 9162 §2.1.3.1) of leaf `index` in
 * the tree of the first `size` leaves, from the leaf's sibling up, into
 * path (MERKLE_MAX_PROOF entries); *n is set to the number of hashes.
 * AL_EINVAL unless index < size <= MERKLE_MAX_SIZE.
 */
int merkle_inclusion_proof(merkle_get_fn get, void *ctx, uint64_t index,
    uint64_t size, uint8_t path[][MERKLE_HASH_LEN], size_t *n) MERKLE_MUST;

/*
 * The consistency proof (RFC 9162 §2.1.4.1) that the tree of the first
 * old_size leaves is a prefix of the tree of the first `size`, into path
 * (MERKLE_MAX_PROOF entries); *n is set to the number of hashes (0 when
 * old_size == size). AL_EINVAL unless 0 < old_size <= size <=
 * MERKLE_MAX_SIZE: RFC 9162 defines no proof from the empty tree (every
 * tree extends it; there is nothing to prove).
 */
int merkle_consistency_proof(merkle_get_fn get, void *ctx,
    uint64_t old_size, uint64_t size, uint8_t path[][MERKLE_HASH_LEN],
    size_t *n) MERKLE_MUST;

/*
 * RFC 9162 §2.1.3.2: 0 when the n hashes of path prove that leaf is leaf
 * number `index` of the tree of `size` leaves whose root is `root`.
 * AL_EINVAL otherwise, saying which check failed: index >= size, size over
 * MERKLE_MAX_SIZE, a path of the wrong length (the message gives the
 * length expected), or a path that leads to another root.
 */
int merkle_verify_inclusion(uint64_t index, uint64_t size,
    const uint8_t leaf[MERKLE_HASH_LEN],
    const uint8_t path[][MERKLE_HASH_LEN], size_t n,
    const uint8_t root[MERKLE_HASH_LEN]) MERKLE_MUST;

/*
 * RFC 9162 §2.1.4.2: 0 when the n hashes of path prove that the tree of
 * old_size leaves with root old_root is a prefix of the tree of `size`
 * leaves with root `root`. old_size == size: the proof must be empty and
 * the roots equal. AL_EINVAL otherwise, saying which check failed:
 * old_size 0 (no proof is defined from the empty tree, RFC 9162
 * §2.1.4), old_size > size, a size over MERKLE_MAX_SIZE, a path of the
 * wrong length, a path that leads to another old root or another new
 * root. (When old_size is a power of two the walk starts from old_root,
 * RFC 9162 §2.1.4.2 step 2, so a wrong old root shows as another new
 * root.)
 */
int merkle_verify_consistency(uint64_t old_size, uint64_t size,
    const uint8_t old_root[MERKLE_HASH_LEN],
    const uint8_t root[MERKLE_HASH_LEN],
    const uint8_t path[][MERKLE_HASH_LEN], size_t n) MERKLE_MUST;

/*
 * A tree built leaf by leaf in O(log n) memory: the roots of the complete
 * subtrees it is made of (one for each 1 bit of the size, largest first),
 * the compact range of [0, size) of transparency-dev/merkle's
 * docs/compact_ranges.md. `airlock audit verify`
 * feeds it every entry's leaf hash and compares its root with each signed
 * checkpoint as the size reaches it. A plain value: no free needed, copy
 * it to keep a snapshot.
 */
struct merkle_stream {
	uint64_t size;                              /* leaves pushed */
	unsigned depth;                             /* popcount(size) */
	uint8_t stack[MERKLE_MAX_PROOF][MERKLE_HASH_LEN]; /* largest first */
};

void merkle_stream_init(struct merkle_stream *s);
/* AL_ELIMIT when the stream already holds MERKLE_MAX_SIZE leaves. */
int merkle_stream_push(struct merkle_stream *s,
    const uint8_t leaf[MERKLE_HASH_LEN]) MERKLE_MUST;
/* The root of the leaves pushed so far; O(log size), the stream unchanged. */
void merkle_stream_root(const struct merkle_stream *s,
    uint8_t out[MERKLE_HASH_LEN]);

/* The root of the tree over n leaf hashes held in memory (the stream over
 * them); AL_EINVAL when n is over MERKLE_MAX_SIZE. */
int merkle_root_of_leaves(const uint8_t (*leaves)[MERKLE_HASH_LEN],
    uint64_t n, uint8_t out[MERKLE_HASH_LEN]) MERKLE_MUST;

#endif
