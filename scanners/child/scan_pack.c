/*
 * scan_pack.c - git packs held in memory; see scan_pack.h.
 *
 * Steps: the pack checksum -> every object's header and inflated bytes, in
 * pack order -> ids of whole objects, hashed from their content -> deltas
 * resolved from their bases outwards, depth first with an explicit stack
 * (each object once, history can be deep) -> the map from ids to objects.
 * A REF delta may name a base that follows it in the pack: the REF deltas
 * are sorted by base id, so that each resolved object finds the deltas on
 * it by bisection, whatever the order.
 *
 * Trust: input is hostile; this runs only in the sandboxed scan child.
 * Every length is checked against the pack before it is read. Limits
 * (al_limits.h): AL_BUNDLE_MAX_OBJECTS objects, AL_BUNDLE_MAX_INFLATED
 * bytes inflated and rebuilt in all, AL_BUNDLE_MAX_DELTA_DEPTH deltas in
 * one chain; past one of them the pack is refused (AL_EINVAL) rather than
 * read in part.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "err.h"
#include "scan_decode.h"
#include "scan_pack.h"

/* The fewest bytes an object takes: its header, an empty zlib stream. */
#define PACK_MIN_OBJECT 9

static const char *const type_names[] = {
	"", "commit", "tree", "blob", "tag",
};

/* ---- object ids --------------------------------------------------------- */

static int
hash_object(EVP_MD_CTX *md, int type, const unsigned char *p, size_t n,
    unsigned char oid[SCAN_OID_LEN])
{
	char hdr[32];
	int k = snprintf(hdr, sizeof(hdr), "%s %zu", type_names[type], n);
	unsigned int olen = 0;

	if (EVP_DigestInit_ex(md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(md, hdr, (size_t)k + 1) != 1 ||
	    EVP_DigestUpdate(md, p, n) != 1 ||
	    EVP_DigestFinal_ex(md, oid, &olen) != 1 || olen != SCAN_OID_LEN)
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	return 0;
}

int
scan_pack_oid_parse(const char *p, size_t n, unsigned char *oid)
{
	size_t i;

	if (n < 2 * SCAN_OID_LEN)
		return -1;
	for (i = 0; i < 2 * SCAN_OID_LEN; i++) {
		int v = (p[i] >= '0' && p[i] <= '9') ? p[i] - '0' :
		    (p[i] >= 'a' && p[i] <= 'f') ? p[i] - 'a' + 10 : -1;

		if (v < 0)
			return -1;
		if (i % 2 == 0)
			oid[i / 2] = (unsigned char)(v << 4);
		else
			oid[i / 2] |= (unsigned char)v;
	}
	return 0;
}

size_t
scan_pack_oid_slot(const unsigned char *oid, size_t cap)
{
	uint64_t h;

	memcpy(&h, oid, sizeof(h));
	return (size_t)h & (cap - 1);
}

static int
map_put(struct scan_pack *pk, size_t i)
{
	size_t s;

	for (s = scan_pack_oid_slot(pk->obj[i].oid, pk->mapcap);
	    pk->map[s] != 0; s = (s + 1) & (pk->mapcap - 1))
		if (memcmp(pk->obj[pk->map[s] - 1].oid, pk->obj[i].oid,
		    SCAN_OID_LEN) == 0)
			return 0;  /* the same object twice: keep the first */
	pk->map[s] = i + 1;
	return 0;
}

const struct pack_obj *
scan_pack_get(const struct scan_pack *pk, const unsigned char *oid)
{
	size_t s;

	if (pk->mapcap == 0)
		return NULL;
	for (s = scan_pack_oid_slot(oid, pk->mapcap); pk->map[s] != 0;
	    s = (s + 1) & (pk->mapcap - 1))
		if (memcmp(pk->obj[pk->map[s] - 1].oid, oid, SCAN_OID_LEN) == 0)
			return &pk->obj[pk->map[s] - 1];
	return NULL;
}

/* ---- objects ------------------------------------------------------------ */

/* Reads every object's header and inflated bytes. */
static int
read_pack(struct scan_pack *pk, EVP_MD_CTX *md, const unsigned char *p,
    size_t n)
{
	unsigned char sum[SCAN_OID_LEN];
	unsigned int olen = 0;
	uint32_t version, count;
	size_t off = 12, i;

	if (n < 12 + SCAN_OID_LEN || memcmp(p, "PACK", 4) != 0)
		return al_err_set(AL_EINVAL, "no pack after the "
		    "bundle header (truncated?)");
	version = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
	    (uint32_t)p[6] << 8 | p[7];
	count = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 |
	    (uint32_t)p[10] << 8 | p[11];
	if (version != 2 && version != 3)
		return al_err_set(AL_EINVAL, "pack version %u is "
		    "not one git writes", version);
	if (EVP_DigestInit_ex(md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(md, p, n - SCAN_OID_LEN) != 1 ||
	    EVP_DigestFinal_ex(md, sum, &olen) != 1)
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	if (memcmp(sum, p + n - SCAN_OID_LEN, SCAN_OID_LEN) != 0)
		return al_err_set(AL_EINVAL, "the pack's checksum "
		    "does not match its content: truncated or altered");
	if (count > AL_BUNDLE_MAX_OBJECTS)
		return al_err_set(AL_EINVAL, "%u objects, more "
		    "than %u", count, AL_BUNDLE_MAX_OBJECTS);
	/* Each object takes a header byte and a zlib stream of at least 8
	 * bytes: a count its pack cannot hold is refused before the table is
	 * allocated (a 32-byte pack claiming two million objects made the
	 * child allocate 200 MiB). */
	if (count > (n - 12 - SCAN_OID_LEN) / PACK_MIN_OBJECT)
		return al_err_set(AL_EINVAL, "%u objects cannot fit in a pack of "
		    "%zu bytes (truncated?)", count, n);
	pk->obj = calloc(count ? count : 1, sizeof(*pk->obj));
	if (pk->obj == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	n -= SCAN_OID_LEN;
	for (i = 0; i < count; i++) {
		struct pack_obj *o = &pk->obj[i];
		uint64_t size;
		unsigned c, shift = 4;
		size_t used = 0, got = 0;
		int r;

		o->off = off;
		if (off >= n)
			goto truncated;
		c = p[off++];
		o->type = (c >> 4) & 7;
		size = c & 15;
		while (c & 0x80) {
			if (off >= n || shift > 60)
				goto truncated;
			c = p[off++];
			size |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
		}
		if (o->type == OBJ_OFS_DELTA) {
			uint64_t back;

			if (off >= n)
				goto truncated;
			c = p[off++];
			back = c & 0x7f;
			while (c & 0x80) {
				if (off >= n || back > (UINT64_MAX >> 8))
					goto truncated;
				c = p[off++];
				back = ((back + 1) << 7) | (c & 0x7f);
			}
			if (back == 0 || back > o->off)
				return al_err_set(AL_EINVAL, "object %zu "
				    "is a delta on an offset outside the pack", i);
			/* Objects are in offset order: find the base's index. */
			{
				size_t lo = 0, hi = i, want = o->off - (size_t)back;

				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (pk->obj[mid].off < want)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo >= i || pk->obj[lo].off != want)
					return al_err_set(AL_EINVAL, "object "
					    "%zu is a delta on an offset where no object "
					    "starts", i);
				o->base = lo;
			}
		} else if (o->type == OBJ_REF_DELTA) {
			if (n - off < SCAN_OID_LEN)
				goto truncated;
			memcpy(o->base_oid, p + off, SCAN_OID_LEN);
			off += SCAN_OID_LEN;
		} else if (o->type < OBJ_COMMIT || o->type > OBJ_TAG) {
			return al_err_set(AL_EINVAL, "object %zu has "
			    "type %d, which git does not define", i, o->type);
		}
		if (size > AL_BUNDLE_MAX_INFLATED ||
		    pk->inflated + size > AL_BUNDLE_MAX_INFLATED)
			return al_err_set(AL_EINVAL, "its objects "
			    "inflate to more than %llu MiB", (unsigned long long)
			    (AL_BUNDLE_MAX_INFLATED >> 20));
		pk->inflated += size;
		r = scan_inflate(p + off, n - off, (size_t)size, &o->data, &got,
		    &used);
		if (r == AL_ENOMEM)
			return r;
		if (r == 0 && got != size) {
			free(o->data);
			o->data = NULL;
			r = AL_EINVAL;
		}
		if (r < 0)
			return al_err_set(AL_EINVAL, "object %zu does "
			    "not inflate to its stated %llu bytes", i,
			    (unsigned long long)size);
		o->len = (size_t)size;
		off += used;
		pk->n = i + 1;     /* read so far: freed at the end */
	}
	if (off != n)
		return al_err_set(AL_EINVAL, "%zu bytes after the "
		    "last object, before the checksum", n - off);
	return 0;
truncated:
	return al_err_set(AL_EINVAL, "the pack ends inside "
	    "object %zu (truncated)", i);
}

static int
delta_size(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	unsigned shift = 0;

	*out = 0;
	do {
		if (*p >= end || shift > 63)
			return -1;
		*out |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
	} while (*(*p)++ & 0x80);
	return 0;
}

/* Applies delta d to base; the result replaces d's data. AL_EINVAL for a
 * delta that does not apply, AL_ELIMIT past the inflated-bytes limit,
 * AL_ENOMEM. */
static int
apply_delta(struct scan_pack *pk, struct pack_obj *d,
    const struct pack_obj *base)
{
	const unsigned char *p = d->data, *end = d->data + d->len;
	uint64_t src, dst;
	unsigned char *out;
	size_t o = 0;

	if (delta_size(&p, end, &src) < 0 || delta_size(&p, end, &dst) < 0 ||
	    src != base->len)
		return AL_EINVAL;
	if (dst > AL_BUNDLE_MAX_INFLATED || pk->inflated + dst >
	    AL_BUNDLE_MAX_INFLATED)
		return AL_ELIMIT;
	pk->inflated += dst;
	if ((out = malloc(dst ? (size_t)dst : 1)) == NULL)
		return AL_ENOMEM;
	while (p < end) {
		unsigned op = *p++;

		if (op & 0x80) {
			uint64_t coff = 0, csize = 0;
			unsigned i;

			for (i = 0; i < 4; i++)
				if (op & (1u << i)) {
					if (p >= end)
						goto bad;
					coff |= (uint64_t)*p++ << (8 * i);
				}
			for (i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (p >= end)
						goto bad;
					csize |= (uint64_t)*p++ << (8 * i);
				}
			if (csize == 0)
				csize = 0x10000;
			if (coff > base->len || csize > base->len - coff ||
			    csize > dst - o)
				goto bad;
			memcpy(out + o, base->data + coff, (size_t)csize);
			o += (size_t)csize;
		} else if (op != 0) {
			if (op > (size_t)(end - p) || op > dst - o)
				goto bad;
			memcpy(out + o, p, op);
			o += op;
			p += op;
		} else {
			goto bad;
		}
	}
	if (o != dst)
		goto bad;
	free(d->data);
	d->data = out;
	d->len = (size_t)dst;
	d->type = base->type;
	return 0;
bad:
	free(out);
	return AL_EINVAL;
}

static int
cmp_ref(const void *x, const void *y, void *ctx)
{
	const struct scan_pack *pk = ctx;

	return memcmp(pk->obj[*(const size_t *)x].base_oid,
	    pk->obj[*(const size_t *)y].base_oid,
	    SCAN_OID_LEN);
}

/* Resolves every delta from its base, children after parents. */
static int
resolve(struct scan_pack *pk, EVP_MD_CTX *md)
{
	size_t *stack, *depth, sp = 0, i, nref = 0;
	size_t *refs = NULL;      /* indexes of REF deltas, by base id */
	int rc = 0;

	pk->mapcap = 16;
	while (pk->mapcap < 2 * pk->n + 2)
		pk->mapcap *= 2;
	pk->map = calloc(pk->mapcap, sizeof(*pk->map));
	stack = calloc(pk->n + 1, sizeof(*stack));
	depth = calloc(pk->n + 1, sizeof(*depth));
	refs = calloc(pk->n + 1, sizeof(*refs));
	if (pk->map == NULL || stack == NULL || depth == NULL || refs == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < pk->n; i++) {
		struct pack_obj *o = &pk->obj[i];

		if (o->type == OBJ_OFS_DELTA) {
			o->next_child = pk->obj[o->base].first_child;
			pk->obj[o->base].first_child = i + 1;
		} else if (o->type == OBJ_REF_DELTA) {
			refs[nref++] = i;
		} else {
			if ((rc = hash_object(md, o->type, o->data, o->len,
			    o->oid)) < 0)
				goto out;
			o->resolved = 1;
			map_put(pk, i);
			stack[sp] = i;
			depth[sp++] = 0;
		}
	}
	qsort_r(refs, nref, sizeof(*refs), cmp_ref, pk);
	/* Depth-first from each whole object: a resolved object's children
	 * are its OFS deltas and the REF deltas naming its id. */
	while (sp > 0 && rc == 0) {
		size_t k = stack[--sp], dep = depth[sp], c, j;
		struct pack_obj *base = &pk->obj[k];

		/* REF deltas naming this id sit together in the sorted refs. */
		size_t lo = 0, hi = nref;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (memcmp(pk->obj[refs[mid]].base_oid, base->oid,
			    SCAN_OID_LEN) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; ; j++) {
			if (j < nref && memcmp(pk->obj[refs[j]].base_oid, base->oid,
			    SCAN_OID_LEN) == 0)
				c = pk->obj[refs[j]].resolved ? SIZE_MAX : refs[j];
			else if (j < nref)
				j = nref;
			if (j >= nref) {
				c = base->first_child ? base->first_child - 1 : SIZE_MAX;
				j = SIZE_MAX - 1;   /* last round */
			}
			while (c != SIZE_MAX) {
				struct pack_obj *d = &pk->obj[c];
				size_t nxt = j != SIZE_MAX - 1 ? SIZE_MAX :
				    (d->next_child ? d->next_child - 1 : SIZE_MAX);
				int r;

				if (d->resolved) {
					c = nxt;
					continue;
				}
				if (dep + 1 > AL_BUNDLE_MAX_DELTA_DEPTH) {
					rc = al_err_set(AL_EINVAL, "a delta chain "
					    "deeper than %u", AL_BUNDLE_MAX_DELTA_DEPTH);
					goto out;
				}
				/* A delta that does not apply is the bundle's
				 * fault, not the reader's memory. */
				r = apply_delta(pk, d, base);
				if (r == AL_ENOMEM) {
					rc = al_err_set(AL_ENOMEM, "out of memory");
					goto out;
				}
				if (r < 0) {
					rc = al_err_set(AL_EINVAL, r == AL_ELIMIT ?
					    "its objects inflate to more than the limit" :
					    "object %zu is a malformed delta", c);
					goto out;
				}
				if ((rc = hash_object(md, d->type, d->data, d->len,
				    d->oid)) < 0)
					goto out;
				d->resolved = 1;
				map_put(pk, c);
				stack[sp] = c;
				depth[sp++] = dep + 1;
				c = nxt;
			}
			if (j == SIZE_MAX - 1)
				break;
		}
	}
	for (i = 0; i < pk->n; i++)
		pk->unresolved += !pk->obj[i].resolved;
out:
	free(stack);
	free(depth);
	free(refs);
	return rc;
}

/* ---- the pack ----------------------------------------------------------- */

int
scan_pack_index(struct scan_pack *pk, const unsigned char *p, size_t n)
{
	EVP_MD_CTX *md;
	int rc;

	memset(pk, 0, sizeof(*pk));
	if ((md = EVP_MD_CTX_new()) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	rc = read_pack(pk, md, p, n);
	if (rc == 0)
		rc = resolve(pk, md);
	EVP_MD_CTX_free(md);
	return rc;
}

const char *
scan_pack_type_name(int type)
{
	if (type < OBJ_COMMIT || type > OBJ_TAG)
		return "?";
	return type_names[type];
}

void
scan_pack_free(struct scan_pack *pk)
{
	size_t i;

	for (i = 0; i < pk->n; i++)
		free(pk->obj[i].data);
	free(pk->obj);
	free(pk->map);
	memset(pk, 0, sizeof(*pk));
}
