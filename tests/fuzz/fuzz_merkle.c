/*
 * fuzz_merkle.c - fuzz target for the audit tree's proofs (common/merkle.c):
 * the input decides a tree (how many leaves, and a seed their entries
 * are made from), a leaf index and two sizes in it, which byte of a proof
 * changes and how, and then a proof of its own: any index and sizes up
 * to 2^64 - 1, up to 66 hashes, a leaf and roots, all taken as they come.
 *
 * Nothing may crash or read past the hashes given. Proofs generated from
 * an in-memory store of those leaves always verify, against the root of
 * the store and of a stream of the same leaves (which agree); any one
 * byte of such a proof, of its leaf or of a root changed, it does not,
 * nor truncated or extended. The input's own proofs verify or fail with
 * AL_EINVAL and a message.
 *
 * Layout (bytes past the end read as 0): u16 leaves (1..MAX_LEAVES),
 * u32 seed, u64 index, u64 size, u64 old size, u8 change (the mask, and
 * mod 32 the byte it changes); then u64 index, u64 size, u64 old size,
 * u8 hash count, that many 32-byte hashes, a leaf, an old root, a root.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "merkle.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HL MERKLE_HASH_LEN
#define MAX_LEAVES 300
#define LEVELS 9 /* 2^9 > MAX_LEAVES */

struct cursor {
	const uint8_t *p;
	size_t n, off;
};

static uint64_t
take(struct cursor *c, unsigned bytes)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < bytes; i++, c->off++)
		v |= (uint64_t)(c->off < c->n ? c->p[c->off] : 0) << (8 * i);
	return v;
}

static void
take_hash(struct cursor *c, uint8_t out[HL])
{
	unsigned i;

	for (i = 0; i < HL; i++)
		out[i] = (uint8_t)take(c, 1);
}

static uint8_t store[LEVELS + 1][MAX_LEAVES][HL];
static uint8_t have[LEVELS + 1][MAX_LEAVES];

static int
st_get(void *ctx, unsigned level, uint64_t index, uint8_t out[HL])
{
	(void)ctx;
	if (level > LEVELS || index >= MAX_LEAVES || !have[level][index])
		return al_err_set(AL_ENOTFOUND, "no node");
	memcpy(out, store[level][index], HL);
	return 0;
}

static int
st_put(void *ctx, unsigned level, uint64_t index, const uint8_t h[HL])
{
	(void)ctx;
	if (level > LEVELS || index >= MAX_LEAVES)
		abort(); /* a node no tree of MAX_LEAVES has */
	memcpy(store[level][index], h, HL);
	have[level][index] = 1;
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
must_fail(int rc)
{
	if (rc != AL_EINVAL || al_err_msg()[0] == '\0')
		abort();
}

/* A byte of each hash of the proof p (n hashes: byte b + j of hash j),
 * byte b of the leaf or of the root changed by x: inclusion of leaf i in
 * `size` fails. (The input picks b and x, so that every byte is reached
 * over the run at the cost of a few hashes per input, not 32 times as
 * many.) */
static void
change_inclusion(uint64_t i, uint64_t size, uint8_t *leaf,
    uint8_t p[][HL], size_t n, uint8_t *root, uint8_t x, unsigned b)
{
	const uint8_t (*cp)[HL] = (const uint8_t (*)[HL])p;
	size_t j;

	for (j = 0; j < n; j++) {
		p[j][(b + j) % HL] ^= x;
		must_fail(merkle_verify_inclusion(i, size, leaf, cp, n, root));
		p[j][(b + j) % HL] ^= x;
	}
	leaf[b] ^= x;
	must_fail(merkle_verify_inclusion(i, size, leaf, cp, n, root));
	leaf[b] ^= x;
	root[b] ^= x;
	must_fail(merkle_verify_inclusion(i, size, leaf, cp, n, root));
	root[b] ^= x;
	if (n > 0)
		must_fail(merkle_verify_inclusion(i, size, leaf, cp, n - 1,
		    root));
	memcpy(p[n], root, HL);
	must_fail(merkle_verify_inclusion(i, size, leaf, cp, n + 1, root));
}

static void
change_consistency(uint64_t m, uint64_t size, uint8_t *r1, uint8_t *r2,
    uint8_t p[][HL], size_t n, uint8_t x, unsigned b)
{
	const uint8_t (*cp)[HL] = (const uint8_t (*)[HL])p;
	size_t j;

	for (j = 0; j < n; j++) {
		p[j][(b + j) % HL] ^= x;
		must_fail(merkle_verify_consistency(m, size, r1, r2, cp, n));
		p[j][(b + j) % HL] ^= x;
	}
	r1[b] ^= x;
	must_fail(merkle_verify_consistency(m, size, r1, r2, cp, n));
	r1[b] ^= x;
	r2[b] ^= x;
	must_fail(merkle_verify_consistency(m, size, r1, r2, cp, n));
	r2[b] ^= x;
	if (n > 0)
		must_fail(merkle_verify_consistency(m, size, r1, r2, cp,
		    n - 1));
	memcpy(p[n], r1, HL);
	must_fail(merkle_verify_consistency(m, size, r1, r2, cp, n + 1));
}

/* The input's own proof: verify or refuse, never crash. */
static void
raw_proofs(struct cursor *c)
{
	uint8_t path[66][HL], leaf[HL], r1[HL], r2[HL];
	uint64_t index = take(c, 8), size = take(c, 8), old = take(c, 8);
	size_t n = (size_t)(take(c, 1) % 67), j;
	int rc;

	for (j = 0; j < n; j++)
		take_hash(c, path[j]);
	take_hash(c, leaf);
	take_hash(c, r1);
	take_hash(c, r2);
	rc = merkle_verify_inclusion(index, size, leaf,
	    (const uint8_t (*)[HL])path, n, r2);
	if (rc != 0)
		must_fail(rc);
	rc = merkle_verify_consistency(old, size, r1, r2,
	    (const uint8_t (*)[HL])path, n);
	if (rc != 0)
		must_fail(rc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cursor c = { data, len, 0 };
	uint8_t leaves[MAX_LEAVES][HL], path[MERKLE_MAX_PROOF + 1][HL];
	uint8_t root[HL], old_root[HL], h[HL], x;
	unsigned b;
	struct merkle_stream st;
	uint64_t nleaves, seed, index, size, old, i;
	size_t n;

	nleaves = 1 + take(&c, 2) % MAX_LEAVES;
	seed = take(&c, 4);
	index = take(&c, 8);
	size = 1 + take(&c, 8) % nleaves;
	old = 1 + take(&c, 8) % size;
	index %= size;
	x = (uint8_t)(1 + take(&c, 1) % 255);
	b = (unsigned)(x % HL);

	memset(have, 0, sizeof(have));
	merkle_stream_init(&st);
	for (i = 0; i < nleaves; i++) {
		uint64_t entry[2] = { seed, i };

		merkle_leaf_hash(entry, sizeof(entry), leaves[i]);
		if (merkle_append(st_get, st_put, NULL, i, leaves[i]) != 0)
			abort();
		if (merkle_stream_push(&st, leaves[i]) != 0)
			abort();
		if (st.size == old)
			merkle_stream_root(&st, old_root);
		if (st.size == size)
			merkle_stream_root(&st, root);
	}
	/* The store, the stream and the array agree on both roots. */
	if (merkle_root(st_get, NULL, size, h) != 0 ||
	    memcmp(h, root, HL) != 0)
		abort();
	if (merkle_root_of_leaves((const uint8_t (*)[HL])leaves, old, h) != 0 ||
	    memcmp(h, old_root, HL) != 0)
		abort();

	if (merkle_inclusion_proof(st_get, NULL, index, size, path, &n) != 0 ||
	    n > MERKLE_MAX_PROOF ||
	    merkle_verify_inclusion(index, size, leaves[index],
	    (const uint8_t (*)[HL])path, n, root) != 0)
		abort();
	memcpy(h, leaves[index], HL);
	change_inclusion(index, size, h, path, n, root, x, b);

	if (merkle_consistency_proof(st_get, NULL, old, size, path, &n) != 0 ||
	    n > MERKLE_MAX_PROOF || (old == size) != (n == 0) ||
	    merkle_verify_consistency(old, size, old_root, root,
	    (const uint8_t (*)[HL])path, n) != 0)
		abort();
	change_consistency(old, size, old_root, root, path, n, x, b);

	raw_proofs(&c);
	return 0;
}
