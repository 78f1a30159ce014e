/*
 * check_merkle.c - the audit log's Merkle tree (common/merkle.c).
 *
 * What it proves:
 * - vectors: the published RFC 6962 known answers (leaf hashes, the roots
 *   of the 8-leaf reference tree at every size, its inclusion paths and
 *   consistency proofs) come out of a store built by merkle_append, and
 *   verify; the stored nodes each proof reads are the ones the reference
 *   names;
 * - reference: for every size 1..130, every index and every old size, the
 *   roots (store, stream, array of leaves), the proofs and every subtree
 *   range equal those of a naive recursive implementation written here
 *   straight from RFC 9162 §2.1, with its own SHA-256 calls; and proofs
 *   verify;
 * - tampering: a flipped bit anywhere in a proof, the leaf or a root, a
 *   wrong index or size, a truncated, extended or shifted proof, swapped
 *   roots: AL_EINVAL, with a message that says which check failed;
 * - storage: a get or a put that fails, at any call an operation makes,
 *   hands its code and message back unchanged;
 * - cost: an append of leaf i makes exactly ctz(i + 1) gets and one put
 *   more (so at most log2(i + 1) and 1 + log2(i + 1)), up to 2^16 leaves;
 *   the store then holds exactly the complete subtrees; a proof makes at
 *   most 2 ceil(log2(size)) + 1 gets;
 * - limits: trees of 2^63 - 1 leaves (a store that computes its nodes)
 *   give proofs of 63 and 64 hashes that verify; sizes past the largest
 *   and appends past it are refused.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <openssl/evp.h>

#include "err.h"
#include "merkle.h"

#define HL MERKLE_HASH_LEN

/* ---- the reference: RFC 9162 §2.1, recursive, its own hashing ---- */

static void
ref_sha256(const uint8_t *p, size_t n, uint8_t out[HL])
{
	unsigned int len = 0;

	ck_assert_int_eq(EVP_Digest(p, n, out, &len, EVP_sha256(), NULL), 1);
	ck_assert_uint_eq(len, HL);
}

static void
ref_leaf(const uint8_t *entry, size_t n, uint8_t out[HL])
{
	uint8_t buf[64];

	ck_assert_uint_lt(n, sizeof(buf));
	buf[0] = 0x00;
	memcpy(buf + 1, entry, n);
	ref_sha256(buf, n + 1, out);
}

static void
ref_node(const uint8_t l[HL], const uint8_t r[HL], uint8_t out[HL])
{
	uint8_t buf[1 + 2 * HL];

	buf[0] = 0x01;
	memcpy(buf + 1, l, HL);
	memcpy(buf + 1 + HL, r, HL);
	ref_sha256(buf, sizeof(buf), out);
}

/* The largest power of two smaller than n (n >= 2). */
static uint64_t
ref_k(uint64_t n)
{
	uint64_t k = 1;

	while (2 * k < n)
		k *= 2;
	return k;
}

/* MTH(D[n]) over leaf hashes d. */
static void
ref_mth(const uint8_t (*d)[HL], uint64_t n, uint8_t out[HL])
{
	uint8_t l[HL], r[HL];
	uint64_t k;

	if (n == 0) {
		ref_sha256((const uint8_t *)"", 0, out);
		return;
	}
	if (n == 1) {
		memcpy(out, d[0], HL);
		return;
	}
	k = ref_k(n);
	ref_mth(d, k, l);
	ref_mth(d + k, n - k, r);
	ref_node(l, r, out);
}

/* PATH(m, D[n]). */
static void
ref_path(uint64_t m, const uint8_t (*d)[HL], uint64_t n, uint8_t out[][HL],
    size_t *len)
{
	uint64_t k;

	if (n == 1)
		return;
	k = ref_k(n);
	if (m < k) {
		ref_path(m, d, k, out, len);
		ref_mth(d + k, n - k, out[(*len)++]);
	} else {
		ref_path(m - k, d + k, n - k, out, len);
		ref_mth(d, k, out[(*len)++]);
	}
}

/* SUBPROOF(m, D[n], b). */
static void
ref_subproof(uint64_t m, const uint8_t (*d)[HL], uint64_t n, int b,
    uint8_t out[][HL], size_t *len)
{
	uint64_t k;

	if (m == n) {
		if (!b)
			ref_mth(d, n, out[(*len)++]);
		return;
	}
	k = ref_k(n);
	if (m <= k) {
		ref_subproof(m, d, k, b, out, len);
		ref_mth(d + k, n - k, out[(*len)++]);
	} else {
		ref_subproof(m - k, d + k, n - k, 0, out, len);
		ref_mth(d, k, out[(*len)++]);
	}
}

static unsigned
ceil_log2(uint64_t n)
{
	unsigned l = 0;

	while ((UINT64_C(1) << l) < n)
		l++;
	return l;
}

/* ---- an in-memory store that counts, records and can fail ---- */

#define MAX_LEVELS 64

struct mstore {
	uint64_t cap;                  /* leaves it can hold */
	uint8_t (*node[MAX_LEVELS])[HL];
	uint8_t *have[MAX_LEVELS];
	long gets, puts, calls;
	long fail_at;                  /* the call (1-based) that fails; 0 */
	long dup_puts;                 /* puts of a node already there */
	int record;                    /* keep the nodes read in read[] */
	size_t nread;
	uint64_t read[256][2];         /* (level, index) */
};

static struct mstore *
ms_new(uint64_t cap)
{
	struct mstore *s = calloc(1, sizeof(*s));
	unsigned l;

	ck_assert_ptr_nonnull(s);
	s->cap = cap;
	for (l = 0; l < MAX_LEVELS && (cap >> l) > 0; l++) {
		s->node[l] = calloc(cap >> l, HL);
		s->have[l] = calloc(cap >> l, 1);
		ck_assert_ptr_nonnull(s->node[l]);
		ck_assert_ptr_nonnull(s->have[l]);
	}
	return s;
}

static void
ms_free(struct mstore *s)
{
	unsigned l;

	for (l = 0; l < MAX_LEVELS; l++) {
		free(s->node[l]);
		free(s->have[l]);
	}
	free(s);
}

static int
ms_fails(struct mstore *s, const char *what)
{
	if (++s->calls != s->fail_at)
		return 0;
	return al_err_set(AL_EIO, "mstore: injected failure of call %ld (%s)",
	    s->calls, what);
}

static int
ms_get(void *ctx, unsigned level, uint64_t index, uint8_t out[HL])
{
	struct mstore *s = ctx;
	int rc;

	s->gets++;
	if ((rc = ms_fails(s, "get")) < 0)
		return rc;
	if (level >= MAX_LEVELS || s->node[level] == NULL ||
	    index >= (s->cap >> level) || !s->have[level][index])
		return al_err_set(AL_ENOTFOUND, "mstore: no node (%u, %" PRIu64
		    ")", level, index);
	if (s->record && s->nread < 256) {
		s->read[s->nread][0] = level;
		s->read[s->nread++][1] = index;
	}
	memcpy(out, s->node[level][index], HL);
	return 0;
}

static int
ms_put(void *ctx, unsigned level, uint64_t index, const uint8_t h[HL])
{
	struct mstore *s = ctx;
	int rc;

	s->puts++;
	if ((rc = ms_fails(s, "put")) < 0)
		return rc;
	ck_assert_uint_lt(level, MAX_LEVELS);
	ck_assert_ptr_nonnull(s->node[level]);
	ck_assert_uint_lt(index, s->cap >> level);
	if (s->have[level][index])
		s->dup_puts++;
	s->have[level][index] = 1;
	memcpy(s->node[level][index], h, HL);
	return 0;
}

static void
ms_reset_counts(struct mstore *s)
{
	s->gets = s->puts = s->calls = 0;
	s->nread = 0;
}

/* A store of the n leaf hashes d, appended one by one, with room for
 * cap leaves. */
static struct mstore *
ms_build(const uint8_t (*d)[HL], uint64_t n, uint64_t cap)
{
	struct mstore *s = ms_new(cap);
	uint64_t i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(merkle_append(ms_get, ms_put, s, i, d[i]), 0);
	ms_reset_counts(s);
	return s;
}

/* ---- helpers ---- */

static void
unhex(const char *hex, uint8_t *out, size_t n)
{
	size_t i;

	ck_assert_uint_eq(strlen(hex), 2 * n);
	for (i = 0; i < n; i++) {
		unsigned v;

		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void
ck_hash_hex(const uint8_t h[HL], const char *hex)
{
	uint8_t want[HL];

	unhex(hex, want, HL);
	ck_assert_mem_eq(h, want, HL);
}

#define ck_einval_says(rc, what)                                          \
	do {                                                              \
		int rc_ = (rc);                                           \
		ck_assert_msg(rc_ == AL_EINVAL, "%s: rc %d, want AL_EINVAL " \
		    "(%s)", #rc, rc_, what);                              \
		ck_assert_msg(strstr(al_err_msg(), what) != NULL,         \
		    "%s: message \"%s\" does not say \"%s\"", #rc,        \
		    al_err_msg(), what);                                  \
	} while (0)

/* ---- the RFC 6962 known answers ---- */

/*
 * The 8-leaf reference tree and its answers, copied (not computed) from
 * google/certificate-transparency cpp/merkletree/merkle_tree_test.cc
 * (kInputs, kSHA256Roots, kSHA256Paths, kSHA256Proofs; commit 0e901cac)
 * and transparency-dev/merkle proof/verify_test.go (the same leaves,
 * roots and paths; its consistencyProofs add 6 -> 7; commit 02194e9a).
 * In both, a path's leaf is numbered from 1: leaf 1 is index 0.
 */
static const struct {
	const char *hex;
	size_t len;
} kv_inputs[8] = {
	{ "", 0 },
	{ "00", 1 },
	{ "10", 1 },
	{ "2021", 2 },
	{ "3031", 2 },
	{ "40414243", 4 },
	{ "5051525354555657", 8 },
	{ "606162636465666768696a6b6c6d6e6f", 16 },
};

static const char *const kv_roots[8] = {
	"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
	"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
	"aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
	"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	"4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
	"76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
	"ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
	"5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
};

static const char kv_empty[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static const struct {
	unsigned leaf, size, n; /* leaf numbered from 1 */
	const char *path[3];
} kv_paths[] = {
	{ 1, 1, 0, { NULL } },
	{ 1, 8, 3, {
	    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
	    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
	    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4" } },
	{ 6, 8, 3, {
	    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
	    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
	    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7" } },
	{ 3, 3, 1, {
	    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125" } },
	{ 2, 5, 3, {
	    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
	    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
	    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b" } },
};

static const struct {
	unsigned old_size, size, n;
	const char *proof[3];
} kv_proofs[] = {
	{ 1, 1, 0, { NULL } },
	{ 1, 8, 3, {
	    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
	    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
	    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4" } },
	{ 6, 8, 3, {
	    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
	    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
	    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7" } },
	{ 2, 5, 2, {
	    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
	    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b" } },
	{ 6, 7, 3, {
	    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
	    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
	    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7" } },
};

static uint8_t kv_leaves[8][HL];

static void
kv_setup(void)
{
	uint8_t entry[16];
	unsigned i;

	for (i = 0; i < 8; i++) {
		unhex(kv_inputs[i].hex, entry, kv_inputs[i].len);
		merkle_leaf_hash(entry, kv_inputs[i].len, kv_leaves[i]);
	}
}

START_TEST(t_hash_vectors)
{
	uint8_t h[HL], l[HL], r[HL], both[2 * HL];

	/* transparency-dev/merkle rfc6962/rfc6962_test.go (commit 78493b07):
	 * the empty root, the hash of an empty leaf and of "L123456". */
	merkle_empty_root(h);
	ck_hash_hex(h, kv_empty);
	ck_assert_int_eq(merkle_root_of_leaves(NULL, 0, h), 0);
	ck_hash_hex(h, kv_empty);
	merkle_leaf_hash("", 0, h);
	ck_hash_hex(h,
	    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
	merkle_leaf_hash("L123456", 7, h);
	ck_hash_hex(h,
	    "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56");
	/* A node is SHA-256(0x01 || l || r): not the leaf hash of l || r,
	 * and the order matters (second-preimage resistance). */
	merkle_leaf_hash("a", 1, l);
	merkle_leaf_hash("b", 1, r);
	merkle_node_hash(l, r, h);
	ref_node(l, r, both);
	ck_assert_mem_eq(h, both, HL);
	memcpy(both, l, HL);
	memcpy(both + HL, r, HL);
	merkle_leaf_hash(both, sizeof(both), both);
	ck_assert_mem_ne(h, both, HL);
	merkle_node_hash(r, l, both);
	ck_assert_mem_ne(h, both, HL);
	/* out may alias an input. */
	memcpy(both, l, HL);
	merkle_node_hash(both, r, both);
	ck_assert_mem_eq(both, h, HL);
}
END_TEST

START_TEST(t_root_vectors)
{
	struct mstore *s = ms_new(8);
	struct merkle_stream st;
	uint8_t h[HL];
	unsigned i, j;

	merkle_stream_init(&st);
	merkle_stream_root(&st, h);
	ck_hash_hex(h, kv_empty);
	ck_assert_int_eq(merkle_root(ms_get, s, 0, h), 0);
	ck_hash_hex(h, kv_empty);
	ck_assert_int_eq(s->gets, 0);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(merkle_append(ms_get, ms_put, s, i,
		    kv_leaves[i]), 0);
		ck_assert_int_eq(merkle_stream_push(&st, kv_leaves[i]), 0);
		merkle_stream_root(&st, h);
		ck_hash_hex(h, kv_roots[i]);
		ck_assert_int_eq(merkle_root_of_leaves(kv_leaves, i + 1, h), 0);
		ck_hash_hex(h, kv_roots[i]);
		/* Every earlier size, from the store as it is now. */
		for (j = 0; j <= i; j++) {
			ck_assert_int_eq(merkle_root(ms_get, s, j + 1, h), 0);
			ck_hash_hex(h, kv_roots[j]);
		}
	}
	/* One leaf: the root is the leaf hash. */
	ck_assert_int_eq(merkle_root(ms_get, s, 1, h), 0);
	ck_assert_mem_eq(h, kv_leaves[0], HL);
	ms_free(s);
}
END_TEST

START_TEST(t_path_vectors)
{
	struct mstore *s = ms_new(8);
	uint8_t path[MERKLE_MAX_PROOF][HL], want[3][HL], root[HL];
	size_t n, i, j;

	for (i = 0; i < 8; i++)
		ck_assert_int_eq(merkle_append(ms_get, ms_put, s, i,
		    kv_leaves[i]), 0);
	for (i = 0; i < sizeof(kv_paths) / sizeof(kv_paths[0]); i++) {
		uint64_t index = kv_paths[i].leaf - 1, size = kv_paths[i].size;

		ck_assert_int_eq(merkle_inclusion_proof(ms_get, s, index, size,
		    path, &n), 0);
		ck_assert_uint_eq(n, kv_paths[i].n);
		for (j = 0; j < n; j++) {
			unhex(kv_paths[i].path[j], want[j], HL);
			ck_assert_mem_eq(path[j], want[j], HL);
		}
		/* The copied path verifies against the copied root. */
		unhex(kv_roots[size - 1], root, HL);
		ck_assert_int_eq(merkle_verify_inclusion(index, size,
		    kv_leaves[index], (const uint8_t (*)[HL])want, n, root), 0);
	}
	ms_free(s);
}
END_TEST

START_TEST(t_consistency_vectors)
{
	struct mstore *s = ms_new(8);
	uint8_t path[MERKLE_MAX_PROOF][HL], want[3][HL], r1[HL], r2[HL];
	size_t n, i, j;

	for (i = 0; i < 8; i++)
		ck_assert_int_eq(merkle_append(ms_get, ms_put, s, i,
		    kv_leaves[i]), 0);
	for (i = 0; i < sizeof(kv_proofs) / sizeof(kv_proofs[0]); i++) {
		uint64_t m = kv_proofs[i].old_size, sz = kv_proofs[i].size;

		ck_assert_int_eq(merkle_consistency_proof(ms_get, s, m, sz,
		    path, &n), 0);
		ck_assert_uint_eq(n, kv_proofs[i].n);
		for (j = 0; j < n; j++) {
			unhex(kv_proofs[i].proof[j], want[j], HL);
			ck_assert_mem_eq(path[j], want[j], HL);
		}
		unhex(kv_roots[m - 1], r1, HL);
		unhex(kv_roots[sz - 1], r2, HL);
		ck_assert_int_eq(merkle_verify_consistency(m, sz, r1, r2,
		    (const uint8_t (*)[HL])want, n), 0);
	}
	ms_free(s);
}
END_TEST

/*
 * The stored nodes a proof reads, from transparency-dev/merkle
 * proof/proof_test.go (TestInclusion, TestConsistency; commit 02a3e202):
 * node (level, index) as there. Where that list marks a run to be hashed
 * together (its "rehash"), we read the same nodes in another order, so
 * the nodes are compared as sets.
 */
static const struct {
	uint64_t a, b;  /* inclusion: index, size; consistency: old, new */
	size_t n;
	unsigned nodes[9][2];
} kv_incl_nodes[] = {
	{ 0, 1, 0, { { 0, 0 } } },
	{ 0, 2, 1, { { 0, 1 } } },
	{ 1, 2, 1, { { 0, 0 } } },
	{ 1, 3, 2, { { 0, 0 }, { 0, 2 } } },
	{ 0, 7, 4, { { 0, 1 }, { 1, 1 }, { 0, 6 }, { 1, 2 } } },
	{ 1, 7, 4, { { 0, 0 }, { 1, 1 }, { 0, 6 }, { 1, 2 } } },
	{ 2, 7, 4, { { 0, 3 }, { 1, 0 }, { 0, 6 }, { 1, 2 } } },
	{ 3, 7, 4, { { 0, 2 }, { 1, 0 }, { 0, 6 }, { 1, 2 } } },
	{ 4, 7, 3, { { 0, 5 }, { 0, 6 }, { 2, 0 } } },
	{ 5, 7, 3, { { 0, 4 }, { 0, 6 }, { 2, 0 } } },
	{ 6, 7, 2, { { 1, 2 }, { 2, 0 } } },
	{ 2, 4, 2, { { 0, 3 }, { 1, 0 } } },
	{ 3, 5, 3, { { 0, 2 }, { 1, 0 }, { 0, 4 } } },
	{ 3, 6, 3, { { 0, 2 }, { 1, 0 }, { 1, 2 } } },
	{ 4, 6, 2, { { 0, 5 }, { 2, 0 } } },
	{ 10, 15, 5, { { 0, 11 }, { 1, 4 }, { 0, 14 }, { 1, 6 }, { 3, 0 } } },
	{ 24, 31, 6, { { 0, 25 }, { 1, 13 }, { 0, 30 }, { 1, 14 }, { 3, 2 },
	    { 4, 0 } } },
	{ 81, 95, 8, { { 0, 80 }, { 1, 41 }, { 2, 21 }, { 0, 94 }, { 1, 46 },
	    { 2, 22 }, { 4, 4 }, { 6, 0 } } },
}, kv_cons_nodes[] = {
	{ 1, 2, 1, { { 0, 1 } } },
	{ 1, 4, 2, { { 0, 1 }, { 1, 1 } } },
	{ 1, 6, 3, { { 0, 1 }, { 1, 1 }, { 1, 2 } } },
	{ 2, 3, 1, { { 0, 2 } } },
	{ 2, 8, 2, { { 1, 1 }, { 2, 1 } } },
	{ 3, 7, 5, { { 0, 2 }, { 0, 3 }, { 1, 0 }, { 0, 6 }, { 1, 2 } } },
	{ 4, 7, 2, { { 0, 6 }, { 1, 2 } } },
	{ 5, 7, 4, { { 0, 4 }, { 0, 5 }, { 0, 6 }, { 2, 0 } } },
	{ 6, 7, 3, { { 1, 2 }, { 0, 6 }, { 2, 0 } } },
	{ 7, 8, 4, { { 0, 6 }, { 0, 7 }, { 1, 2 }, { 2, 0 } } },
	{ 1, 1, 0, { { 0, 0 } } },
	{ 5, 5, 0, { { 0, 0 } } },
	{ 8, 8, 0, { { 0, 0 } } },
	{ 2, 4, 1, { { 1, 1 } } },
	{ 3, 5, 4, { { 0, 2 }, { 0, 3 }, { 1, 0 }, { 0, 4 } } },
	{ 3, 6, 4, { { 0, 2 }, { 0, 3 }, { 1, 0 }, { 1, 2 } } },
	{ 4, 6, 1, { { 1, 2 } } },
	{ 1, 7, 4, { { 0, 1 }, { 1, 1 }, { 0, 6 }, { 1, 2 } } },
	{ 10, 15, 5, { { 1, 4 }, { 1, 5 }, { 0, 14 }, { 1, 6 }, { 3, 0 } } },
	{ 24, 31, 5, { { 3, 2 }, { 0, 30 }, { 1, 14 }, { 2, 6 }, { 4, 0 } } },
	{ 81, 95, 9, { { 0, 80 }, { 0, 81 }, { 1, 41 }, { 2, 21 }, { 0, 94 },
	    { 1, 46 }, { 2, 22 }, { 4, 4 }, { 6, 0 } } },
};

static int
cmp_node(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void
ck_nodes_read(struct mstore *s, const unsigned (*want)[2], size_t n,
    const char *what, uint64_t a, uint64_t b)
{
	uint64_t w[9][2];
	size_t i;

	ck_assert_msg(s->nread == n, "%s %" PRIu64 ", %" PRIu64 ": %zu nodes "
	    "read, the reference names %zu", what, a, b, s->nread, n);
	for (i = 0; i < n; i++) {
		w[i][0] = want[i][0];
		w[i][1] = want[i][1];
	}
	qsort(w, n, sizeof(w[0]), cmp_node);
	qsort(s->read, n, sizeof(s->read[0]), cmp_node);
	for (i = 0; i < n; i++)
		ck_assert_msg(w[i][0] == s->read[i][0] &&
		    w[i][1] == s->read[i][1], "%s %" PRIu64 ", %" PRIu64
		    ": read node (%" PRIu64 ", %" PRIu64 "), the reference "
		    "names (%" PRIu64 ", %" PRIu64 ")", what, a, b,
		    s->read[i][0], s->read[i][1], w[i][0], w[i][1]);
}

START_TEST(t_nodes_read)
{
	uint8_t d[95][HL], path[MERKLE_MAX_PROOF][HL];
	struct mstore *s;
	size_t i, n;

	for (i = 0; i < 95; i++)
		merkle_leaf_hash(&i, sizeof(i), d[i]);
	s = ms_build((const uint8_t (*)[HL])d, 95, 95);
	s->record = 1;
	for (i = 0; i < sizeof(kv_incl_nodes) / sizeof(kv_incl_nodes[0]);
	    i++) {
		ms_reset_counts(s);
		ck_assert_int_eq(merkle_inclusion_proof(ms_get, s,
		    kv_incl_nodes[i].a, kv_incl_nodes[i].b, path, &n), 0);
		ck_nodes_read(s, kv_incl_nodes[i].nodes, kv_incl_nodes[i].n,
		    "inclusion", kv_incl_nodes[i].a, kv_incl_nodes[i].b);
	}
	for (i = 0; i < sizeof(kv_cons_nodes) / sizeof(kv_cons_nodes[0]);
	    i++) {
		ms_reset_counts(s);
		ck_assert_int_eq(merkle_consistency_proof(ms_get, s,
		    kv_cons_nodes[i].a, kv_cons_nodes[i].b, path, &n), 0);
		ck_nodes_read(s, kv_cons_nodes[i].nodes, kv_cons_nodes[i].n,
		    "consistency", kv_cons_nodes[i].a, kv_cons_nodes[i].b);
	}
	ms_free(s);
}
END_TEST

/* ---- against the reference, every size up to 130 ---- */

#define NREF 130
#define NLEAF (2 * NREF + 2)    /* leaves for the wrong sizes too */

static uint8_t ref_leaves[NLEAF][HL];
static uint8_t ref_roots[NLEAF + 1][HL];
static struct mstore *ref_store;

static void
ref_setup(void)
{
	uint64_t i;

	kv_setup();
	for (i = 0; i < NLEAF; i++) {
		uint8_t entry[2] = { (uint8_t)i, (uint8_t)(i >> 8) };

		ref_leaf(entry, sizeof(entry), ref_leaves[i]);
	}
	for (i = 0; i <= NLEAF; i++)
		ref_mth((const uint8_t (*)[HL])ref_leaves, i, ref_roots[i]);
	ref_store = ms_build((const uint8_t (*)[HL])ref_leaves, NLEAF, NLEAF);
}

static void
ref_teardown(void)
{
	ms_free(ref_store);
	ref_store = NULL;
}

#define REF ((const uint8_t (*)[HL])ref_leaves)

START_TEST(t_roots_match_reference)
{
	struct mstore *s = ms_new(NREF);
	struct merkle_stream st;
	uint8_t h[HL], want[HL], entry[2];
	uint64_t i, j;

	merkle_stream_init(&st);
	for (i = 0; i < NREF; i++) {
		entry[0] = (uint8_t)i;
		entry[1] = (uint8_t)(i >> 8);
		merkle_leaf_hash(entry, sizeof(entry), h);
		ck_assert_mem_eq(h, ref_leaves[i], HL);
		ck_assert_int_eq(merkle_append(ms_get, ms_put, s, i, h), 0);
		ck_assert_int_eq(merkle_stream_push(&st, h), 0);
		ck_assert_uint_eq(st.size, i + 1);
		ck_assert_uint_eq(st.depth,
		    (unsigned)__builtin_popcountll(i + 1));
		merkle_stream_root(&st, h);
		ck_assert_mem_eq(h, ref_roots[i + 1], HL);
		ck_assert_int_eq(merkle_root_of_leaves(REF, i + 1, h), 0);
		ck_assert_mem_eq(h, ref_roots[i + 1], HL);
		ms_reset_counts(s);
		ck_assert_int_eq(merkle_root(ms_get, s, i + 1, h), 0);
		ck_assert_mem_eq(h, ref_roots[i + 1], HL);
		/* One get per complete subtree of the size. */
		ck_assert_int_eq(s->gets, __builtin_popcountll(i + 1));
	}
	/* The finished store answers for every earlier size. */
	for (i = 0; i <= NREF; i++) {
		ck_assert_int_eq(merkle_root(ms_get, s, i, h), 0);
		ck_assert_mem_eq(h, ref_roots[i], HL);
	}
	/* Every subtree range [a, b); and a range that is not one. */
	for (i = 0; i <= NREF; i++)
		for (j = i; j <= NREF; j++) {
			uint64_t span = 1;
			int rc;

			while (span < j - i)
				span <<= 1;
			rc = merkle_range_hash(ms_get, s, i, j, h);
			if (i % span != 0) {
				ck_einval_says(rc, "is no subtree");
				continue;
			}
			ck_assert_int_eq(rc, 0);
			ref_mth(REF + i, j - i, want);
			ck_assert_mem_eq(h, want, HL);
		}
	ck_einval_says(merkle_range_hash(ms_get, s, 5, 4, h), "is not within");
	ck_einval_says(merkle_range_hash(ms_get, s, 0, MERKLE_MAX_SIZE + 1, h),
	    "is not within");
	/* A snapshot of a stream is a plain copy. */
	{
		struct merkle_stream snap = st;
		uint8_t a[HL], b[HL];

		ck_assert_int_eq(merkle_stream_push(&st, ref_leaves[NREF]), 0);
		merkle_stream_root(&snap, a);
		merkle_stream_root(&st, b);
		ck_assert_mem_eq(a, ref_roots[NREF], HL);
		ck_assert_mem_eq(b, ref_roots[NREF + 1], HL);
	}
	ms_free(s);
}
END_TEST

START_TEST(t_inclusion_matches_reference)
{
	uint8_t path[MERKLE_MAX_PROOF][HL], want[MERKLE_MAX_PROOF][HL];
	uint64_t size, i;
	size_t n, wn;

	for (size = 1; size <= NREF; size++)
		for (i = 0; i < size; i++) {
			wn = 0;
			ref_path(i, REF, size, want, &wn);
			ms_reset_counts(ref_store);
			ck_assert_int_eq(merkle_inclusion_proof(ms_get,
			    ref_store, i, size, path, &n), 0);
			ck_assert_msg(n == wn, "leaf %" PRIu64 " of %" PRIu64
			    ": %zu hashes, the reference %zu", i, size, n, wn);
			ck_assert_mem_eq(path, want, n * HL);
			ck_assert_int_le(ref_store->gets,
			    2 * ceil_log2(size) + 1);
			ck_assert_int_eq(merkle_verify_inclusion(i, size,
			    ref_leaves[i], (const uint8_t (*)[HL])path, n,
			    ref_roots[size]), 0);
		}
}
END_TEST

START_TEST(t_consistency_matches_reference)
{
	uint8_t path[MERKLE_MAX_PROOF][HL], want[MERKLE_MAX_PROOF][HL];
	uint64_t size, m;
	size_t n, wn;

	for (size = 1; size <= NREF; size++)
		for (m = 1; m <= size; m++) {
			wn = 0;
			ref_subproof(m, REF, size, 1, want, &wn);
			ms_reset_counts(ref_store);
			ck_assert_int_eq(merkle_consistency_proof(ms_get,
			    ref_store, m, size, path, &n), 0);
			ck_assert_msg(n == wn, "%" PRIu64 " to %" PRIu64
			    ": %zu hashes, the reference %zu", m, size, n, wn);
			ck_assert_mem_eq(path, want, n * HL);
			ck_assert_int_le(ref_store->gets,
			    2 * ceil_log2(size) + 1);
			ck_assert_int_eq(merkle_verify_consistency(m, size,
			    ref_roots[m], ref_roots[size],
			    (const uint8_t (*)[HL])path, n), 0);
		}
}
END_TEST

/* ---- tampering ---- */

/* Inclusion of leaf i in `size` with the proof p (n hashes) and the root
 * of that size, each probe changed in one way. */
static void
tamper_inclusion(uint64_t i, uint64_t size, uint8_t p[][HL], size_t n)
{
	const uint8_t (*cp)[HL] = (const uint8_t (*)[HL])p;
	uint8_t q[MERKLE_MAX_PROOF + 1][HL], leaf[HL], root[HL], other[HL];
	uint8_t want[MERKLE_MAX_PROOF][HL];
	const uint64_t sizes[] = { size - 1, size + 1, 2 * size, size / 2 };
	const uint64_t idx[] = { i - 1, i + 1, i ^ 2, i ^ 1 };
	size_t j, wn;
	unsigned b;

	memcpy(leaf, ref_leaves[i], HL);
	memcpy(root, ref_roots[size], HL);
	ck_assert_int_eq(merkle_verify_inclusion(i, size, leaf, cp, n, root),
	    0);
	/* One bit of one hash of the proof. */
	for (j = 0; j < n; j++) {
		b = (unsigned)((j * 37 + i + size) % 256);
		p[j][b / 8] ^= (uint8_t)(1u << (b % 8));
		ck_einval_says(merkle_verify_inclusion(i, size, leaf, cp, n,
		    root), "leads to another root");
		p[j][b / 8] ^= (uint8_t)(1u << (b % 8));
	}
	/* The leaf, the root. */
	b = (unsigned)((i * 11 + size) % 256);
	leaf[b / 8] ^= (uint8_t)(1u << (b % 8));
	ck_einval_says(merkle_verify_inclusion(i, size, leaf, cp, n, root),
	    "another root");
	leaf[b / 8] ^= (uint8_t)(1u << (b % 8));
	root[b / 8] ^= (uint8_t)(1u << (b % 8));
	ck_einval_says(merkle_verify_inclusion(i, size, leaf, cp, n, root),
	    "another root");
	root[b / 8] ^= (uint8_t)(1u << (b % 8));
	merkle_empty_root(other);
	ck_einval_says(merkle_verify_inclusion(i, size, leaf, cp, n, other),
	    "another root");
	/* Another leaf's index, same size: the hashing order or the length
	 * changes (different leaves are reached by different turns). */
	for (j = 0; j < sizeof(idx) / sizeof(idx[0]); j++) {
		int rc;

		if (idx[j] == i)
			continue;
		rc = merkle_verify_inclusion(idx[j], size, leaf, cp, n, root);
		if (idx[j] >= size)
			ck_einval_says(rc, "below the size");
		else
			ck_assert_int_eq(rc, AL_EINVAL);
	}
	/* Another size, with that size's root: it verifies exactly when the
	 * true proof for that size (from the store, which the reference
	 * checks) is this one: the proof binds the size only through its
	 * shape; the signed checkpoint binds the root to its size. */
	for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
		uint64_t s2 = sizes[j];
		int rc;

		if (s2 == size || s2 > NLEAF)
			continue;
		rc = merkle_verify_inclusion(i, s2, leaf, cp, n, ref_roots[s2]);
		if (i >= s2) {
			ck_einval_says(rc, "below the size");
			continue;
		}
		ck_assert_int_eq(merkle_inclusion_proof(ms_get, ref_store, i,
		    s2, want, &wn), 0);
		if (wn == n && memcmp(want, p, n * HL) == 0)
			ck_assert_int_eq(rc, 0);
		else
			ck_assert_int_eq(rc, AL_EINVAL);
	}
	/* Truncated, extended at either end. */
	if (n > 0)
		ck_einval_says(merkle_verify_inclusion(i, size, leaf, cp, n - 1,
		    root), "must have");
	memcpy(q, p, n * HL);
	memcpy(q[n], root, HL);
	ck_einval_says(merkle_verify_inclusion(i, size, leaf,
	    (const uint8_t (*)[HL])q, n + 1, root), "must have");
	memset(q[n], 0, HL);
	ck_einval_says(merkle_verify_inclusion(i, size, leaf,
	    (const uint8_t (*)[HL])q, n + 1, root), "must have");
	memcpy(q[0], leaf, HL);
	memcpy(q[1], p, n * HL);
	ck_einval_says(merkle_verify_inclusion(i, size, leaf,
	    (const uint8_t (*)[HL])q, n + 1, root), "must have");
	/* Shifted by one: the same length, other hashes. */
	if (n > 1) {
		memcpy(q[0], p[n - 1], HL);
		memcpy(q[1], p, (n - 1) * HL);
		ck_einval_says(merkle_verify_inclusion(i, size, leaf,
		    (const uint8_t (*)[HL])q, n, root), "another root");
	}
}

START_TEST(t_inclusion_tampering)
{
	uint8_t path[MERKLE_MAX_PROOF][HL];
	uint64_t size, i;
	size_t n;

	for (size = 1; size <= NREF; size++)
		for (i = 0; i < size; i++) {
			ck_assert_int_eq(merkle_inclusion_proof(ms_get,
			    ref_store, i, size, path, &n), 0);
			tamper_inclusion(i, size, path, n);
		}
	/* Sizes and indexes that are out of the question. */
	ck_einval_says(merkle_verify_inclusion(0, 0, ref_leaves[0], NULL, 0,
	    ref_roots[0]), "below the size");
	ck_einval_says(merkle_verify_inclusion(5, 5, ref_leaves[0], NULL, 0,
	    ref_roots[5]), "below the size");
	ck_einval_says(merkle_verify_inclusion(0, MERKLE_MAX_SIZE + 1,
	    ref_leaves[0], NULL, 0, ref_roots[0]), "over the largest");
	ck_einval_says(merkle_verify_inclusion(UINT64_MAX - 1, UINT64_MAX,
	    ref_leaves[0], NULL, 0, ref_roots[0]), "over the largest");
	/* A one-leaf tree: the root is the leaf, the proof empty. */
	ck_assert_int_eq(merkle_verify_inclusion(0, 1, ref_leaves[7], NULL, 0,
	    ref_leaves[7]), 0);
	ck_einval_says(merkle_verify_inclusion(0, 1, ref_leaves[7], NULL, 0,
	    ref_leaves[6]), "another root");
	ck_einval_says(merkle_verify_inclusion(0, 1, ref_leaves[7],
	    (const uint8_t (*)[HL])ref_leaves, 1, ref_leaves[7]),
	    "has 1 hashes; it must have 0");
}
END_TEST

static void
tamper_consistency(uint64_t m, uint64_t size, uint8_t p[][HL], size_t n)
{
	const uint8_t (*cp)[HL] = (const uint8_t (*)[HL])p;
	uint8_t q[MERKLE_MAX_PROOF + 1][HL], r1[HL], r2[HL];
	uint8_t want[MERKLE_MAX_PROOF][HL];
	const uint64_t olds[] = { m - 1, m + 1, m ^ 2, m ^ 1 };
	const uint64_t news[] = { size - 1, size + 1, 2 * size, size / 2 };
	size_t j, wn;
	unsigned b;

	memcpy(r1, ref_roots[m], HL);
	memcpy(r2, ref_roots[size], HL);
	ck_assert_int_eq(merkle_verify_consistency(m, size, r1, r2, cp, n), 0);
	ck_assert_uint_gt(n, 0);
	for (j = 0; j < n; j++) {
		b = (unsigned)((j * 41 + m + size) % 256);
		p[j][b / 8] ^= (uint8_t)(1u << (b % 8));
		ck_assert_int_eq(merkle_verify_consistency(m, size, r1, r2, cp,
		    n), AL_EINVAL);
		ck_assert_ptr_nonnull(strstr(al_err_msg(), "leads to another"));
		p[j][b / 8] ^= (uint8_t)(1u << (b % 8));
	}
	/* A wrong old root: when old_size is a power of two the proof starts
	 * from the old root (RFC 9162 §2.1.4.2 step 2), and it shows as
	 * another new root. */
	b = (unsigned)((m * 13 + size) % 256);
	r1[b / 8] ^= (uint8_t)(1u << (b % 8));
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2, cp, n),
	    (m & (m - 1)) == 0 ? "another new root" : "another old root");
	r1[b / 8] ^= (uint8_t)(1u << (b % 8));
	r2[b / 8] ^= (uint8_t)(1u << (b % 8));
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2, cp, n),
	    "another new root");
	r2[b / 8] ^= (uint8_t)(1u << (b % 8));
	ck_assert_int_eq(merkle_verify_consistency(m, size, r2, r1, cp, n),
	    AL_EINVAL);
	/* Other sizes with their own roots: verify exactly when the true
	 * proof between those sizes is this one. */
	for (j = 0; j < 8; j++) {
		uint64_t m2 = j < 4 ? olds[j] : m, s2 = j < 4 ? size : news[j - 4];
		int rc;

		if ((m2 == m && s2 == size) || s2 > NLEAF)
			continue;
		rc = merkle_verify_consistency(m2, s2, ref_roots[m2],
		    ref_roots[s2], cp, n);
		if (m2 == 0) {
			ck_einval_says(rc, "empty tree");
			continue;
		}
		if (m2 > s2) {
			ck_einval_says(rc, "the old size is larger");
			continue;
		}
		ck_assert_int_eq(merkle_consistency_proof(ms_get, ref_store,
		    m2, s2, want, &wn), 0);
		if (wn == n && memcmp(want, p, n * HL) == 0)
			ck_assert_int_eq(rc, 0);
		else
			ck_assert_int_eq(rc, AL_EINVAL);
	}
	/* Empty, truncated, extended, shifted. */
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2, cp, 0),
	    "must have");
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2, cp, n - 1),
	    "must have");
	memcpy(q, p, n * HL);
	memcpy(q[n], r1, HL);
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2,
	    (const uint8_t (*)[HL])q, n + 1), "must have");
	memcpy(q[n], p[n - 1], HL);
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2,
	    (const uint8_t (*)[HL])q, n + 1), "must have");
	memcpy(q[0], r1, HL);
	memcpy(q[1], p, n * HL);
	ck_einval_says(merkle_verify_consistency(m, size, r1, r2,
	    (const uint8_t (*)[HL])q, n + 1), "must have");
	if (n > 1) {
		memcpy(q[0], p[n - 1], HL);
		memcpy(q[1], p, (n - 1) * HL);
		ck_einval_says(merkle_verify_consistency(m, size, r1, r2,
		    (const uint8_t (*)[HL])q, n), "leads to another");
	}
}

START_TEST(t_consistency_tampering)
{
	uint8_t path[MERKLE_MAX_PROOF][HL];
	uint64_t size, m;
	size_t n;

	for (size = 2; size <= NREF; size++)
		for (m = 1; m < size; m++) {
			ck_assert_int_eq(merkle_consistency_proof(ms_get,
			    ref_store, m, size, path, &n), 0);
			tamper_consistency(m, size, path, n);
		}
	/* Equal sizes: the proof is empty and the roots are one. */
	ck_assert_int_eq(merkle_verify_consistency(5, 5, ref_roots[5],
	    ref_roots[5], NULL, 0), 0);
	ck_einval_says(merkle_verify_consistency(5, 5, ref_roots[5],
	    ref_roots[6], NULL, 0), "different roots");
	ck_einval_says(merkle_verify_consistency(5, 5, ref_roots[5],
	    ref_roots[5], (const uint8_t (*)[HL])ref_roots, 1),
	    "must be empty");
	/* From the empty tree, backwards, too large. */
	ck_einval_says(merkle_verify_consistency(0, 5, ref_roots[0],
	    ref_roots[5], NULL, 0), "RFC 9162");
	ck_einval_says(merkle_verify_consistency(0, 0, ref_roots[0],
	    ref_roots[0], NULL, 0), "empty tree");
	ck_einval_says(merkle_verify_consistency(6, 5, ref_roots[6],
	    ref_roots[5], NULL, 0), "the old size is larger");
	ck_einval_says(merkle_verify_consistency(1, MERKLE_MAX_SIZE + 1,
	    ref_roots[1], ref_roots[5], NULL, 0), "over the largest");
	ck_einval_says(merkle_consistency_proof(ms_get, ref_store, 0, 5, path,
	    &n), "RFC 9162");
	ck_einval_says(merkle_consistency_proof(ms_get, ref_store, 6, 5, path,
	    &n), "the old size is larger");
	ck_einval_says(merkle_inclusion_proof(ms_get, ref_store, 5, 5, path,
	    &n), "below the size");
	ck_assert_int_eq(merkle_consistency_proof(ms_get, ref_store, 7, 7,
	    path, &n), 0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* ---- a store that fails ---- */

/* Runs one operation on a fresh 100-leaf store; which: 0 root, 1 range,
 * 2 inclusion, 3 consistency, 4 append. */
static int
run_op(int which, struct mstore *s)
{
	uint8_t h[HL], path[MERKLE_MAX_PROOF][HL];
	size_t n;

	switch (which) {
	case 0:
		return merkle_root(ms_get, s, 100, h);
	case 1:
		return merkle_range_hash(ms_get, s, 64, 100, h);
	case 2:
		return merkle_inclusion_proof(ms_get, s, 37, 99, path, &n);
	case 3:
		return merkle_consistency_proof(ms_get, s, 37, 99, path, &n);
	default:
		/* Leaf 99 completes (1,49), (2,24), no more: 0b1100011. */
		return merkle_append(ms_get, ms_put, s, 99, ref_leaves[99]);
	}
}

START_TEST(t_store_failure_propagates)
{
	char want[128];
	int which;

	for (which = 0; which < 5; which++) {
		struct mstore *s = ms_build(REF, 100, 100);
		long calls, k;

		/* 100 leaves were appended; op 4 re-appends the last, which
		 * the store takes (a retry puts the same hashes). */
		ck_assert_int_eq(run_op(which, s), 0);
		calls = s->calls;
		ck_assert_int_gt(calls, 0);
		for (k = 1; k <= calls; k++) {
			ms_reset_counts(s);
			s->fail_at = k;
			ck_assert_int_eq(run_op(which, s), AL_EIO);
			snprintf(want, sizeof(want), "mstore: injected failure "
			    "of call %ld (", k);
			ck_assert_msg(strncmp(al_err_msg(), want,
			    strlen(want)) == 0, "op %d call %ld: \"%s\"", which,
			    k, al_err_msg());
			/* Nothing is called after the failure. */
			ck_assert_int_eq(s->calls, k);
		}
		ms_free(s);
	}
}
END_TEST

START_TEST(t_missing_node_propagates)
{
	struct mstore *s = ms_build(REF, 10, 16);
	uint8_t h[HL], path[MERKLE_MAX_PROOF][HL];
	size_t n;

	ck_assert_int_eq(merkle_root(ms_get, s, 11, h), AL_ENOTFOUND);
	ck_assert_str_eq(al_err_msg(), "mstore: no node (0, 10)");
	ck_assert_int_eq(merkle_inclusion_proof(ms_get, s, 3, 12, path, &n),
	    AL_ENOTFOUND);
	ck_assert_str_eq(al_err_msg(), "mstore: no node (2, 2)");
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(merkle_consistency_proof(ms_get, s, 3, 16, path, &n),
	    AL_ENOTFOUND);
	ck_assert_uint_eq(n, 0);
	/* Appending leaf 11 to a store of 10 needs (0, 10), absent. */
	ck_assert_int_eq(merkle_append(ms_get, ms_put, s, 11, ref_leaves[11]),
	    AL_ENOTFOUND);
	ck_assert_str_eq(al_err_msg(), "mstore: no node (0, 10)");
	ms_free(s);
}
END_TEST

/* ---- what an append costs, and what the store then holds ---- */

#define NCOST (UINT64_C(1) << 16)

START_TEST(t_append_cost)
{
	struct mstore *s = ms_new(NCOST);
	struct merkle_stream st;
	uint8_t h[HL], r[HL], path[MERKLE_MAX_PROOF][HL];
	long max_gets = 0, max_puts = 0;
	uint64_t i, total = 0;
	unsigned l;
	size_t n;

	merkle_stream_init(&st);
	for (i = 0; i < NCOST; i++) {
		unsigned lg = 63 - (unsigned)__builtin_clzll(i + 1);

		merkle_leaf_hash(&i, sizeof(i), h);
		ck_assert_int_eq(merkle_stream_push(&st, h), 0);
		ms_reset_counts(s);
		ck_assert_int_eq(merkle_append(ms_get, ms_put, s, i, h), 0);
		/* Leaf i completes one subtree per trailing 1 bit of i. */
		ck_assert_int_eq(s->gets, __builtin_ctzll(i + 1));
		ck_assert_int_eq(s->puts, s->gets + 1);
		ck_assert_int_le(s->gets, lg);
		ck_assert_int_le(s->puts, 1 + lg);
		max_gets = s->gets > max_gets ? s->gets : max_gets;
		max_puts = s->puts > max_puts ? s->puts : max_puts;
		total += (uint64_t)s->puts;
		/* Sampled sizes: the root and a proof cost O(log n) gets. */
		if ((i & (i + 1)) == 0 || i % 997 == 0) {
			ms_reset_counts(s);
			ck_assert_int_eq(merkle_root(ms_get, s, i + 1, r), 0);
			ck_assert_int_eq(s->gets, __builtin_popcountll(i + 1));
			merkle_stream_root(&st, h);
			ck_assert_mem_eq(r, h, HL);
			ms_reset_counts(s);
			ck_assert_int_eq(merkle_inclusion_proof(ms_get, s,
			    i / 3, i + 1, path, &n), 0);
			ck_assert_int_le(s->gets, 2 * ceil_log2(i + 1) + 1);
			merkle_leaf_hash((uint64_t[]){ i / 3 }, sizeof(i), h);
			ck_assert_int_eq(merkle_verify_inclusion(i / 3, i + 1, h,
			    (const uint8_t (*)[HL])path, n, r), 0);
			if (i > 0) {
				ms_reset_counts(s);
				ck_assert_int_eq(merkle_consistency_proof(ms_get,
				    s, i - i / 5, i + 1, path, &n), 0);
				ck_assert_int_le(s->gets,
				    2 * ceil_log2(i + 1) + 1);
			}
		}
	}
	ck_assert_int_eq(max_gets, 16);
	ck_assert_int_eq(max_puts, 17);
	/* Every complete subtree, once each, nothing else: 2n - popcount. */
	ck_assert_int_eq(s->dup_puts, 0);
	ck_assert_uint_eq(total, 2 * NCOST - 1);
	for (l = 0; l <= 16; l++)
		for (i = 0; i < (NCOST >> l); i++)
			ck_assert(s->have[l][i]);
	ms_free(s);
}
END_TEST

/* ---- the largest trees ---- */

/* A store in which every leaf is the same hash, so that node (L, I) is
 * the same for every I: any size, up to the largest, without memory. */
static uint8_t big_level[64][HL];
static long big_gets;

static int
big_get(void *ctx, unsigned level, uint64_t index, uint8_t out[HL])
{
	(void)ctx;
	big_gets++;
	ck_assert_uint_lt(level, 64);
	ck_assert_uint_le(index + 1, MERKLE_MAX_SIZE >> level);
	memcpy(out, big_level[level], HL);
	return 0;
}

START_TEST(t_largest_trees)
{
	uint8_t root[HL], old[HL], path[MERKLE_MAX_PROOF][HL];
	const uint64_t max = MERKLE_MAX_SIZE;
	struct merkle_stream st;
	unsigned l;
	size_t n;

	merkle_leaf_hash("same", 4, big_level[0]);
	for (l = 1; l < 64; l++)
		merkle_node_hash(big_level[l - 1], big_level[l - 1],
		    big_level[l]);
	ck_assert_int_eq(merkle_root(big_get, NULL, max, root), 0);
	/* The deepest leaf: ceil(log2(2^63 - 1)) = 63 hashes. */
	ck_assert_int_eq(merkle_inclusion_proof(big_get, NULL, 0, max, path,
	    &n), 0);
	ck_assert_uint_eq(n, 63);
	ck_assert_int_eq(merkle_verify_inclusion(0, max, big_level[0],
	    (const uint8_t (*)[HL])path, n, root), 0);
	ck_assert_int_eq(merkle_inclusion_proof(big_get, NULL, max - 1, max,
	    path, &n), 0);
	ck_assert_uint_eq(n, 62);
	ck_assert_int_eq(merkle_verify_inclusion(max - 1, max, big_level[0],
	    (const uint8_t (*)[HL])path, n, root), 0);
	/* The longest consistency proof: MERKLE_MAX_PROOF hashes. */
	ck_assert_int_eq(merkle_root(big_get, NULL, (UINT64_C(1) << 62) - 1,
	    old), 0);
	big_gets = 0;
	ck_assert_int_eq(merkle_consistency_proof(big_get, NULL,
	    (UINT64_C(1) << 62) - 1, max, path, &n), 0);
	ck_assert_uint_eq(n, MERKLE_MAX_PROOF);
	ck_assert_int_le(big_gets, 2 * 63 + 1);
	ck_assert_int_eq(merkle_verify_consistency((UINT64_C(1) << 62) - 1,
	    max, old, root, (const uint8_t (*)[HL])path, n), 0);
	ck_assert_int_eq(merkle_root(big_get, NULL, max - 1, old), 0);
	ck_assert_int_eq(merkle_consistency_proof(big_get, NULL, max - 1, max,
	    path, &n), 0);
	ck_assert_int_eq(merkle_verify_consistency(max - 1, max, old, root,
	    (const uint8_t (*)[HL])path, n), 0);
	/* Past the largest. */
	ck_einval_says(merkle_root(big_get, NULL, max + 1, root),
	    "over the largest");
	ck_einval_says(merkle_inclusion_proof(big_get, NULL, 0, max + 1, path,
	    &n), "over the largest");
	ck_einval_says(merkle_consistency_proof(big_get, NULL, 1, UINT64_MAX,
	    path, &n), "over the largest");
	ck_einval_says(merkle_root_of_leaves(NULL, max + 1, root),
	    "over the largest");
	ck_assert_int_eq(merkle_append(big_get, NULL, NULL, max, root),
	    AL_ELIMIT);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "full"));
	/* A stream that is full (its state as 2^63 - 1 pushes leave it). */
	merkle_stream_init(&st);
	st.size = max;
	st.depth = 63;
	ck_assert_int_eq(merkle_stream_push(&st, root), AL_ELIMIT);
	ck_assert_uint_eq(st.size, max);
}
END_TEST

static Suite *
merkle_suite(void)
{
	Suite *s = suite_create("merkle");
	TCase *tc = tcase_create("vectors");

	tcase_add_unchecked_fixture(tc, kv_setup, NULL);
	tcase_add_test(tc, t_hash_vectors);
	tcase_add_test(tc, t_root_vectors);
	tcase_add_test(tc, t_path_vectors);
	tcase_add_test(tc, t_consistency_vectors);
	tcase_add_test(tc, t_nodes_read);
	suite_add_tcase(s, tc);

	tc = tcase_create("reference");
	tcase_add_unchecked_fixture(tc, ref_setup, ref_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_roots_match_reference);
	tcase_add_test(tc, t_inclusion_matches_reference);
	tcase_add_test(tc, t_consistency_matches_reference);
	suite_add_tcase(s, tc);

	tc = tcase_create("tampering");
	tcase_add_unchecked_fixture(tc, ref_setup, ref_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_inclusion_tampering);
	tcase_add_test(tc, t_consistency_tampering);
	suite_add_tcase(s, tc);

	tc = tcase_create("storage");
	tcase_add_unchecked_fixture(tc, ref_setup, ref_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_store_failure_propagates);
	tcase_add_test(tc, t_missing_node_propagates);
	tcase_add_test(tc, t_append_cost);
	tcase_add_test(tc, t_largest_trees);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(merkle_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
