/*
 * merkle.c - the audit log's Merkle tree over a caller's store of complete
 * subtrees, and proof verification without a store; see merkle.h.
 *
 * Every tree the code walks is a subtree of some tree: a range [lo, hi)
 * with lo a multiple of the smallest power of two >= hi - lo. Such a range
 * splits, as RFC 9162 §2.1.1 splits D[lo:hi], at lo + k (k the largest
 * power of two below hi - lo) into a complete left half, one stored node,
 * and a right half that is again such a range. So a range is the stored
 * nodes given by the 1 bits of its width, largest at the left, hashed
 * together from the right (range_hash); and of the siblings along a path
 * from the root only the first right one can be incomplete, which keeps a
 * proof to O(log n) gets.
 *
 * Verification follows RFC 9162 §2.1.3.2 and §2.1.4.2 step by step. The
 * number of hashes a proof must have is worked out first, from the sizes
 * alone, by the same walk without the hashing (walk_len): a proof of any
 * other length is refused with the length expected, before any hashing.
 *
 * Trust: the verify functions take hostile sizes, indexes and proofs:
 * sizes are bounded by MERKLE_MAX_SIZE, every loop by the 64 bits of a
 * size, and only the n hashes given are read. The store is trusted.
 */
#include <inttypes.h>
#include <string.h>

#include <openssl/evp.h>

#include "err.h"
#include "merkle.h"
#include "util.h"

/* SHA-256(prefix || a || b). A libcrypto that cannot hash leaves nothing
 * safe to go on with (as util.c's hashing). */
static void
hash3(uint8_t prefix, const void *a, size_t an, const void *b, size_t bn,
    uint8_t out[MERKLE_HASH_LEN])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int len = 0;

	AL_ASSERT(md != NULL &&
	    EVP_DigestInit_ex(md, al_sha256_md(), NULL) == 1 &&
	    EVP_DigestUpdate(md, &prefix, 1) == 1 &&
	    (an == 0 || EVP_DigestUpdate(md, a, an) == 1) &&
	    (bn == 0 || EVP_DigestUpdate(md, b, bn) == 1) &&
	    EVP_DigestFinal_ex(md, out, &len) == 1 && len == MERKLE_HASH_LEN);
	EVP_MD_CTX_free(md);
}

void
merkle_leaf_hash(const void *entry, size_t len, uint8_t out[MERKLE_HASH_LEN])
{
	hash3(0x00, entry, len, NULL, 0, out);
}

/* out may be l or r: both are read before out is written. */
void
merkle_node_hash(const uint8_t l[MERKLE_HASH_LEN],
    const uint8_t r[MERKLE_HASH_LEN], uint8_t out[MERKLE_HASH_LEN])
{
	hash3(0x01, l, MERKLE_HASH_LEN, r, MERKLE_HASH_LEN, out);
}

void
merkle_empty_root(uint8_t out[MERKLE_HASH_LEN])
{
	unsigned int len = 0;

	AL_ASSERT(EVP_Digest("", 0, out, &len, al_sha256_md(), NULL) == 1 &&
	    len == MERKLE_HASH_LEN);
}

/* The largest power of two below n (n >= 2). */
static uint64_t
split_of(uint64_t n)
{
	AL_ASSERT(n >= 2);
	return UINT64_C(1) << (63 - __builtin_clzll(n - 1));
}

static int
get_node(merkle_get_fn get, void *ctx, unsigned level, uint64_t index,
    uint8_t out[MERKLE_HASH_LEN])
{
	int rc = get(ctx, level, index, out);

	AL_ASSERT(rc <= 0); /* a store returns 0 or an al_err */
	return rc;
}

static int
put_node(merkle_put_fn put, void *ctx, unsigned level, uint64_t index,
    const uint8_t h[MERKLE_HASH_LEN])
{
	int rc = put(ctx, level, index, h);

	AL_ASSERT(rc <= 0);
	return rc;
}

/* MTH(D[start:end]) for a subtree range (merkle.h): one get for each 1 bit
 * of the width, the smallest (rightmost) first, each hashed in on the
 * left of what is already there. */
static int
range_hash(merkle_get_fn get, void *ctx, uint64_t start, uint64_t end,
    uint8_t out[MERKLE_HASH_LEN])
{
	uint8_t piece[MERKLE_HASH_LEN];
	uint64_t width = end - start, pos = end;
	int first = 1, rc;

	if (width == 0) {
		merkle_empty_root(out);
		return 0;
	}
	while (width != 0) {
		unsigned level = (unsigned)__builtin_ctzll(width);

		pos -= UINT64_C(1) << level;
		if ((rc = get_node(get, ctx, level, pos >> level,
		    first ? out : piece)) < 0)
			return rc;
		if (!first)
			merkle_node_hash(piece, out, out);
		first = 0;
		width &= width - 1;
	}
	return 0;
}

int
merkle_append(merkle_get_fn get, merkle_put_fn put, void *ctx,
    uint64_t index, const uint8_t leaf[MERKLE_HASH_LEN])
{
	uint8_t h[MERKLE_HASH_LEN], left[MERKLE_HASH_LEN];
	unsigned level = 0;
	int rc;

	if (index >= MERKLE_MAX_SIZE)
		return al_err_set(AL_ELIMIT, "the audit tree is full: leaf %"
		    PRIu64 " would make it larger than %" PRIu64 " leaves",
		    index, MERKLE_MAX_SIZE);
	memcpy(h, leaf, sizeof(h));
	if ((rc = put_node(put, ctx, 0, index, h)) < 0)
		return rc;
	/* A node at an odd index is a right child: with its left sibling it
	 * completes their parent. */
	while (index & 1) {
		if ((rc = get_node(get, ctx, level, index - 1, left)) < 0)
			return rc;
		merkle_node_hash(left, h, h);
		index >>= 1;
		level++;
		if ((rc = put_node(put, ctx, level, index, h)) < 0)
			return rc;
	}
	return 0;
}

int
merkle_root(merkle_get_fn get, void *ctx, uint64_t size,
    uint8_t out[MERKLE_HASH_LEN])
{
	if (size > MERKLE_MAX_SIZE)
		return al_err_set(AL_EINVAL, "tree size %" PRIu64 " is over the "
		    "largest, %" PRIu64, size, MERKLE_MAX_SIZE);
	return range_hash(get, ctx, 0, size, out);
}

int
merkle_range_hash(merkle_get_fn get, void *ctx, uint64_t start,
    uint64_t end, uint8_t out[MERKLE_HASH_LEN])
{
	uint64_t span = 1;

	if (end > MERKLE_MAX_SIZE || start > end)
		return al_err_set(AL_EINVAL, "leaf range [%" PRIu64 ", %" PRIu64
		    ") is not within [0, %" PRIu64 "]", start, end,
		    MERKLE_MAX_SIZE);
	while (span < end - start)
		span <<= 1;
	if (start & (span - 1))
		return al_err_set(AL_EINVAL, "leaf range [%" PRIu64 ", %" PRIu64
		    ") is no subtree: a range of %" PRIu64 " leaves starts at "
		    "a multiple of %" PRIu64, start, end, end - start, span);
	return range_hash(get, ctx, start, end, out);
}

struct range {
	uint64_t lo, hi;
};

/* Writes the hashes of sibling ranges sib[0..d) into path in reverse
 * (the deepest, last found, first), after `skip` entries already there. */
static int
fill_path(merkle_get_fn get, void *ctx, const struct range *sib, size_t d,
    size_t skip, uint8_t path[][MERKLE_HASH_LEN])
{
	size_t i;
	int rc;

	AL_ASSERT(skip + d <= MERKLE_MAX_PROOF);
	for (i = 0; i < d; i++)
		if ((rc = range_hash(get, ctx, sib[d - 1 - i].lo,
		    sib[d - 1 - i].hi, path[skip + i])) < 0)
			return rc;
	return 0;
}

int
merkle_inclusion_proof(merkle_get_fn get, void *ctx, uint64_t index,
    uint64_t size, uint8_t path[][MERKLE_HASH_LEN], size_t *n)
{
	struct range sib[MERKLE_MAX_PROOF];
	uint64_t lo = 0, hi = size;
	size_t d = 0;
	int rc;

	*n = 0;
	if (size > MERKLE_MAX_SIZE)
		return al_err_set(AL_EINVAL, "tree size %" PRIu64 " is over the "
		    "largest, %" PRIu64, size, MERKLE_MAX_SIZE);
	if (index >= size)
		return al_err_set(AL_EINVAL, "no inclusion proof of leaf %"
		    PRIu64 " in a tree of %" PRIu64 " leaves: the index must "
		    "be below the size", index, size);
	/* RFC 9162 PATH(m, D[lo:hi]), top down: the sibling of the half
	 * that holds the leaf at each split. */
	while (hi - lo > 1) {
		uint64_t k = split_of(hi - lo);

		AL_ASSERT(d < MERKLE_MAX_PROOF);
		if (index < lo + k) {
			sib[d++] = (struct range){ lo + k, hi };
			hi = lo + k;
		} else {
			sib[d++] = (struct range){ lo, lo + k };
			lo += k;
		}
	}
	if ((rc = fill_path(get, ctx, sib, d, 0, path)) < 0)
		return rc;
	*n = d;
	return 0;
}

int
merkle_consistency_proof(merkle_get_fn get, void *ctx, uint64_t old_size,
    uint64_t size, uint8_t path[][MERKLE_HASH_LEN], size_t *n)
{
	struct range sib[MERKLE_MAX_PROOF];
	uint64_t lo = 0, hi = size;
	size_t d = 0, skip = 0;
	int whole = 1, rc;

	*n = 0;
	if (size > MERKLE_MAX_SIZE)
		return al_err_set(AL_EINVAL, "tree size %" PRIu64 " is over the "
		    "largest, %" PRIu64, size, MERKLE_MAX_SIZE);
	if (old_size == 0)
		return al_err_set(AL_EINVAL, "no consistency proof from the "
		    "empty tree: RFC 9162 (2.1.4) defines them for an old "
		    "size of 1 or more");
	if (old_size > size)
		return al_err_set(AL_EINVAL, "no consistency proof from %" PRIu64
		    " to %" PRIu64 " leaves: the old size is larger", old_size,
		    size);
	/* RFC 9162 SUBPROOF(m, D[lo:hi], b) top down, old_size being lo + m:
	 * lo < old_size <= hi throughout, so it ends. `whole` is b: the range
	 * is still the old tree's whole, whose root the verifier has. */
	while (old_size != hi) {
		uint64_t k = split_of(hi - lo);

		AL_ASSERT(d < MERKLE_MAX_PROOF);
		if (old_size <= lo + k) {
			sib[d++] = (struct range){ lo + k, hi };
			hi = lo + k;
		} else {
			sib[d++] = (struct range){ lo, lo + k };
			lo += k;
			whole = 0;
		}
	}
	if (!whole) {
		/* SUBPROOF(m, D[m], false) = MTH(D[m]): the old tree's last
		 * complete subtree, the proof's first hash. */
		if ((rc = range_hash(get, ctx, lo, hi, path[0])) < 0)
			return rc;
		skip = 1;
	}
	if ((rc = fill_path(get, ctx, sib, d, skip, path)) < 0)
		return rc;
	*n = skip + d;
	return 0;
}

/*
 * The iterations of RFC 9162's verification loop (§2.1.3.2 step 4,
 * §2.1.4.2 step 6) from fn and sn until sn is 0: the hashes a proof must
 * have. Each iteration shifts sn right at least once, so at most 64.
 */
static size_t
walk_len(uint64_t fn, uint64_t sn)
{
	size_t len = 0;

	while (sn != 0) {
		if (!(fn & 1) && fn == sn)
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		fn >>= 1;
		sn >>= 1;
		len++;
	}
	return len;
}

int
merkle_verify_inclusion(uint64_t index, uint64_t size,
    const uint8_t leaf[MERKLE_HASH_LEN],
    const uint8_t path[][MERKLE_HASH_LEN], size_t n,
    const uint8_t root[MERKLE_HASH_LEN])
{
	uint8_t r[MERKLE_HASH_LEN];
	uint64_t fn, sn;
	size_t want, i;

	if (size > MERKLE_MAX_SIZE)
		return al_err_set(AL_EINVAL, "inclusion proof for a tree of %"
		    PRIu64 " leaves: over the largest, %" PRIu64, size,
		    MERKLE_MAX_SIZE);
	if (index >= size)
		return al_err_set(AL_EINVAL, "inclusion proof of leaf %" PRIu64
		    " in a tree of %" PRIu64 " leaves: the index must be below "
		    "the size", index, size);
	want = walk_len(index, size - 1);
	if (n != want)
		return al_err_set(AL_EINVAL, "inclusion proof of leaf %" PRIu64
		    " in a tree of %" PRIu64 " leaves has %zu hashes; it must "
		    "have %zu", index, size, n, want);
	memcpy(r, leaf, sizeof(r));
	fn = index;
	sn = size - 1;
	for (i = 0; i < n; i++) {
		AL_ASSERT(sn != 0); /* the length was checked */
		if ((fn & 1) || fn == sn) {
			merkle_node_hash(path[i], r, r);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else
			merkle_node_hash(r, path[i], r);
		fn >>= 1;
		sn >>= 1;
	}
	AL_ASSERT(sn == 0);
	if (memcmp(r, root, sizeof(r)) != 0)
		return al_err_set(AL_EINVAL, "inclusion proof of leaf %" PRIu64
		    " in a tree of %" PRIu64 " leaves leads to another root",
		    index, size);
	return 0;
}

int
merkle_verify_consistency(uint64_t old_size, uint64_t size,
    const uint8_t old_root[MERKLE_HASH_LEN],
    const uint8_t root[MERKLE_HASH_LEN],
    const uint8_t path[][MERKLE_HASH_LEN], size_t n)
{
	uint8_t fr[MERKLE_HASH_LEN], sr[MERKLE_HASH_LEN];
	uint64_t fn, sn;
	size_t want, i;
	int pow2;

	if (size > MERKLE_MAX_SIZE)
		return al_err_set(AL_EINVAL, "consistency proof to a tree of %"
		    PRIu64 " leaves: over the largest, %" PRIu64, size,
		    MERKLE_MAX_SIZE);
	if (old_size == 0)
		return al_err_set(AL_EINVAL, "consistency proof from the empty "
		    "tree: RFC 9162 (2.1.4) defines none, the old size must be "
		    "1 or more");
	if (old_size > size)
		return al_err_set(AL_EINVAL, "consistency proof from %" PRIu64
		    " to %" PRIu64 " leaves: the old size is larger", old_size,
		    size);
	if (old_size == size) {
		if (n != 0)
			return al_err_set(AL_EINVAL, "consistency proof between "
			    "two trees of %" PRIu64 " leaves has %zu hashes; it "
			    "must be empty", size, n);
		if (memcmp(old_root, root, MERKLE_HASH_LEN) != 0)
			return al_err_set(AL_EINVAL, "two trees of %" PRIu64
			    " leaves with different roots", size);
		return 0;
	}
	/* Step 2: a power of two is its own complete subtree, whose hash
	 * the verifier has (old_root), and the proof leaves out. */
	pow2 = (old_size & (old_size - 1)) == 0;
	fn = old_size - 1;
	sn = size - 1;
	while (fn & 1) { /* step 4 */
		fn >>= 1;
		sn >>= 1;
	}
	want = (pow2 ? 0 : 1) + walk_len(fn, sn);
	if (n != want)
		return al_err_set(AL_EINVAL, "consistency proof from %" PRIu64
		    " to %" PRIu64 " leaves has %zu hashes; it must have %zu",
		    old_size, size, n, want);
	/* Step 5. */
	memcpy(fr, pow2 ? old_root : path[0], sizeof(fr));
	memcpy(sr, fr, sizeof(sr));
	for (i = pow2 ? 0 : 1; i < n; i++) {
		AL_ASSERT(sn != 0); /* the length was checked */
		if ((fn & 1) || fn == sn) {
			merkle_node_hash(path[i], fr, fr);
			merkle_node_hash(path[i], sr, sr);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else
			merkle_node_hash(sr, path[i], sr);
		fn >>= 1;
		sn >>= 1;
	}
	AL_ASSERT(sn == 0);
	if (memcmp(fr, old_root, sizeof(fr)) != 0)
		return al_err_set(AL_EINVAL, "consistency proof from %" PRIu64
		    " to %" PRIu64 " leaves leads to another old root",
		    old_size, size);
	if (memcmp(sr, root, sizeof(sr)) != 0)
		return al_err_set(AL_EINVAL, "consistency proof from %" PRIu64
		    " to %" PRIu64 " leaves leads to another new root",
		    old_size, size);
	return 0;
}

void
merkle_stream_init(struct merkle_stream *s)
{
	memset(s, 0, sizeof(*s));
}

int
merkle_stream_push(struct merkle_stream *s,
    const uint8_t leaf[MERKLE_HASH_LEN])
{
	uint8_t h[MERKLE_HASH_LEN];
	uint64_t t = s->size;

	if (s->size >= MERKLE_MAX_SIZE)
		return al_err_set(AL_ELIMIT, "the tree is full: %" PRIu64
		    " leaves", s->size);
	/* As an append: each 1 bit at the bottom of the old size is a
	 * complete subtree the new leaf's one merges with. */
	memcpy(h, leaf, sizeof(h));
	while (t & 1) {
		AL_ASSERT(s->depth > 0);
		merkle_node_hash(s->stack[--s->depth], h, h);
		t >>= 1;
	}
	AL_ASSERT(s->depth < MERKLE_MAX_PROOF);
	memcpy(s->stack[s->depth++], h, sizeof(h));
	s->size++;
	return 0;
}

void
merkle_stream_root(const struct merkle_stream *s,
    uint8_t out[MERKLE_HASH_LEN])
{
	unsigned i;

	if (s->depth == 0) {
		merkle_empty_root(out);
		return;
	}
	memcpy(out, s->stack[s->depth - 1], MERKLE_HASH_LEN);
	for (i = s->depth - 1; i > 0; i--)
		merkle_node_hash(s->stack[i - 1], out, out);
}

int
merkle_root_of_leaves(const uint8_t (*leaves)[MERKLE_HASH_LEN], uint64_t n,
    uint8_t out[MERKLE_HASH_LEN])
{
	struct merkle_stream s;
	uint64_t i;
	int rc;

	if (n > MERKLE_MAX_SIZE)
		return al_err_set(AL_EINVAL, "%" PRIu64 " leaves: over the "
		    "largest tree, %" PRIu64, n, MERKLE_MAX_SIZE);
	merkle_stream_init(&s);
	for (i = 0; i < n; i++)
		if ((rc = merkle_stream_push(&s, leaves[i])) < 0)
			return rc;
	merkle_stream_root(&s, out);
	return 0;
}
