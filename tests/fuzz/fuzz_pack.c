/*
 * fuzz_pack.c - fuzz target for the pack reader of git bundles
 * (scanners/child/scan_pack.c), reached directly: through fuzz_bundle a
 * mutated pack almost never gets past its SHA-1 checksum and zlib, so the
 * object headers, delta resolution and id map would go untested.
 *
 * Input layout: the first byte's low bit picks how the rest is read.
 *  0: a pack without its trailing checksum ("PACK", version, count,
 *     objects), which the target appends: the headers and zlib streams
 *     are the fuzzer's.
 *  1: objects described plainly, which the target packs (a stored
 *     zlib block each, the checksum), so that mutations reach the
 *     deltas: records of
 *     [t][n][n bytes of content]; t's low 3 bits are the type (1-4 whole,
 *     6 an OFS delta, 7 a REF delta, others as they are), t >> 3 picks the
 *     base: for OFS the object that many (plus one, modulo) before it,
 *     for REF the object of that index modulo the count, named by its id
 *     when it is whole (else by an id nothing has: a thin pack).
 *
 * Nothing may crash or leak. An indexed pack holds every object of its
 * header; each resolved object has a git type and the id git would give
 * its content, and is found again by that id; the unresolved count is
 * the objects left as deltas; the bytes inflated stay within the limit.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "scan_pack.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECIPE 256          /* objects in a described pack */

static EVP_MD_CTX *md;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((md = EVP_MD_CTX_new()) == NULL)
		abort();
	return 0;
}

static void
sha1(const void *p, size_t n, const void *q, size_t m, unsigned char *out)
{
	unsigned int olen = 0;

	if (EVP_DigestInit_ex(md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(md, p, n) != 1 || EVP_DigestUpdate(md, q, m) != 1 ||
	    EVP_DigestFinal_ex(md, out, &olen) != 1 || olen != SCAN_OID_LEN)
		abort();
}

/* git's id of an object: SHA-1 of "TYPE SIZE\0" and the content. */
static void
object_id(int type, const unsigned char *p, size_t n, unsigned char *oid)
{
	char hdr[32];
	int k = snprintf(hdr, sizeof(hdr), "%s %zu", scan_pack_type_name(type),
	    n);

	sha1(hdr, (size_t)k + 1, p, n, oid);
}

static void
put(struct dynbuf *b, const void *p, size_t n)
{
	if (dynbuf_add(b, p, n) < 0)
		abort();
}

/* An object header: type and size, git's variable-length encoding. */
static void
put_header(struct dynbuf *b, int type, size_t size)
{
	unsigned char c = (unsigned char)((type & 7) << 4 | (size & 15));

	size >>= 4;
	while (size > 0) {
		c |= 0x80;
		put(b, &c, 1);
		c = size & 0x7f;
		size >>= 7;
	}
	put(b, &c, 1);
}

/* An OFS delta's distance back, git's offset encoding. */
static void
put_offset(struct dynbuf *b, size_t back)
{
	unsigned char tmp[16];
	size_t i = sizeof(tmp) - 1;

	tmp[i] = back & 0x7f;
	while (back >>= 7)
		tmp[--i] = 0x80 | (--back & 0x7f);
	put(b, tmp + i, sizeof(tmp) - i);
}

/* A zlib stream of one stored block (cheaper than deflating: zlib's
 * set-up costs more than the reader under test). */
static void
put_stored(struct dynbuf *b, const uint8_t *p, size_t n)
{
	uLong a = adler32(adler32(0, NULL, 0), p, (uInt)n);
	unsigned char hdr[7] = {0x78, 0x01, 0x01, (unsigned char)n,
	    (unsigned char)(n >> 8), (unsigned char)~n,
	    (unsigned char)(~n >> 8)};
	unsigned char sum[4] = {(unsigned char)(a >> 24), (unsigned char)(a >> 16),
	    (unsigned char)(a >> 8), (unsigned char)a};

	put(b, hdr, sizeof(hdr));
	put(b, p, n);
	put(b, sum, sizeof(sum));
}

/* Mode 1: the described objects, packed. */
static void
build(struct dynbuf *pack, const uint8_t *p, size_t n)
{
	struct {
		int type, base;
		const uint8_t *data;
		size_t len, off;
	} o[MAX_RECIPE];
	size_t count = 0, i;
	unsigned char hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0};

	while (n >= 2 && count < MAX_RECIPE) {
		size_t len = p[1] < n - 2 ? p[1] : n - 2;

		o[count].type = p[0] & 7;
		o[count].base = p[0] >> 3;
		o[count].data = p + 2;
		o[count].len = len;
		count++;
		p += 2 + len;
		n -= 2 + len;
	}
	hdr[10] = (unsigned char)(count >> 8);
	hdr[11] = (unsigned char)count;
	put(pack, hdr, sizeof(hdr));
	for (i = 0; i < count; i++) {
		unsigned char oid[SCAN_OID_LEN];

		o[i].off = pack->len;
		put_header(pack, o[i].type, o[i].len);
		if (o[i].type == OBJ_OFS_DELTA) {
			size_t b = i - 1 - (size_t)o[i].base % (i ? i : 1);

			put_offset(pack, i ? o[i].off - o[b].off : 0);
		} else if (o[i].type == OBJ_REF_DELTA) {
			size_t b = (size_t)o[i].base % count;

			if (o[b].type >= OBJ_COMMIT && o[b].type <= OBJ_TAG)
				object_id(o[b].type, o[b].data, o[b].len, oid);
			else
				memset(oid, 0xee, sizeof(oid));
			put(pack, oid, sizeof(oid));
		}
		put_stored(pack, o[i].data, o[i].len);
	}
}

static void
check(const struct scan_pack *pk, size_t count)
{
	size_t i, unresolved = 0;

	if (pk->n != count || pk->inflated > AL_BUNDLE_MAX_INFLATED)
		abort();
	for (i = 0; i < pk->n; i++) {
		const struct pack_obj *o = &pk->obj[i], *found;
		unsigned char oid[SCAN_OID_LEN];

		if (!o->resolved) {
			unresolved++;
			continue;
		}
		if (o->type < OBJ_COMMIT || o->type > OBJ_TAG)
			abort();
		object_id(o->type, o->data, o->len, oid);
		if (memcmp(oid, o->oid, SCAN_OID_LEN) != 0 ||
		    (found = scan_pack_get(pk, oid)) == NULL ||
		    memcmp(found->oid, oid, SCAN_OID_LEN) != 0 ||
		    found->type != o->type || found->len != o->len ||
		    memcmp(found->data, o->data, o->len) != 0)
			abort();
	}
	if (unresolved != pk->unresolved)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dynbuf pack;
	struct scan_pack pk;
	unsigned char sum[SCAN_OID_LEN];
	unsigned char *exact;
	size_t count;

	if (size == 0)
		return 0;
	dynbuf_init(&pack, (size_t)1 << 24);
	if (data[0] & 1)
		build(&pack, data + 1, size - 1);
	else
		put(&pack, data + 1, size - 1);
	sha1(pack.data ? pack.data : "", pack.len, "", 0, sum);
	put(&pack, sum, sizeof(sum));
	/* In a buffer of exactly its size: a read past the end is caught. */
	if ((exact = malloc(pack.len)) == NULL)
		abort();
	memcpy(exact, pack.data, pack.len);
	count = pack.len >= 12 ? (size_t)exact[8] << 24 | (size_t)exact[9] << 16 |
	    (size_t)exact[10] << 8 | exact[11] : 0;
	if (scan_pack_index(&pk, exact, pack.len) == 0)
		check(&pk, count);
	scan_pack_free(&pk);
	free(exact);
	dynbuf_free(&pack);
	return 0;
}
