/*
 * scan_bundle.c - git bundles; see scan_bundle.h.
 *
 * Steps: header -> pack objects inflated (bounded by AL_BUNDLE_MAX_* in
 * al_limits.h) -> ids of whole objects -> deltas resolved from their bases
 * outwards (each object once, depth bounded, no recursion) -> commits walked
 * from the refs -> trees walked, blobs scanned once per (id, path).
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "path.h"
#include "scan_artifact.h"
#include "scan_bundle.h"
#include "scan_decode.h"
#include "scan_walk.h"
#include "util.h"

#define OID 20                /* SHA-1: v3 bundles of SHA-256 repos are
                               * refused below */
#define MSG_RELPATH "COMMIT_MSG.txt"

enum { T_COMMIT = 1, T_TREE, T_BLOB, T_TAG, T_OFS = 6, T_REF };

static const char *const type_names[] = {
	"", "commit", "tree", "blob", "tag",
};

struct obj {
	size_t off;               /* where its header starts in the pack */
	int type;                 /* T_*: a delta's until resolved */
	int resolved;
	unsigned char *data;      /* content, or delta instructions */
	size_t len;
	size_t base;              /* T_OFS: index of the base */
	unsigned char oid[OID];   /* when resolved */
	unsigned char base_oid[OID]; /* T_REF: the base's id */
	size_t next_child;        /* list of deltas on this base, +1 */
	size_t first_child;
	unsigned char scanned;    /* blob: scanned at some path */
	unsigned char visited;    /* commit: walked */
	size_t qpos;              /* commit: its place in the walk's queue */
};

struct bundle {
	struct scan_worker *w;
	struct finding_list *out;
	const char *path;
	int rc;                   /* hard error: out of memory */
	int bad;                  /* unscannable was reported: stop */
	struct obj *o;
	size_t n;
	size_t *map;              /* oid -> index + 1, open addressing */
	size_t mapcap;
	uint64_t inflated;
	size_t unresolved;
	/* (id, path) pairs scanned, by their SHA-1 */
	unsigned char *seen;
	size_t seencap, nseen;
	EVP_MD_CTX *md;
	struct dynbuf shown;
};

static int
bnote(struct bundle *b, const char *rule, const char *where,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
bnote(struct bundle *b, const char *rule, const char *where,
    const char *fmt, ...)
{
	va_list ap;

	if (strcmp(rule, AL_RULE_UNSCANNABLE) == 0)
		b->bad = 1;
	va_start(ap, fmt);
	if (b->rc == 0)
		b->rc = finding_add_builtinv(b->out, rule, where ? where : b->path,
		    fmt, ap);
	va_end(ap);
	return b->rc;
}

static void
hexid(char out[2 * OID + 1], const unsigned char *oid)
{
	al_hex(out, oid, OID);
}

static int
parse_hex(const char *p, size_t n, unsigned char *oid)
{
	size_t i;

	if (n < 2 * OID)
		return -1;
	for (i = 0; i < 2 * OID; i++) {
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

/* ---- object ids --------------------------------------------------------- */

static int
hash_object(struct bundle *b, int type, const unsigned char *p, size_t n,
    unsigned char oid[OID])
{
	char hdr[32];
	int k = snprintf(hdr, sizeof(hdr), "%s %zu", type_names[type], n);
	unsigned int olen = 0;

	if (EVP_DigestInit_ex(b->md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(b->md, hdr, (size_t)k + 1) != 1 ||
	    EVP_DigestUpdate(b->md, p, n) != 1 ||
	    EVP_DigestFinal_ex(b->md, oid, &olen) != 1 || olen != OID)
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	return 0;
}

static size_t
oid_slot(const unsigned char *oid, size_t cap)
{
	uint64_t h;

	memcpy(&h, oid, sizeof(h));
	return (size_t)h & (cap - 1);
}

static int
map_put(struct bundle *b, size_t i)
{
	size_t s;

	for (s = oid_slot(b->o[i].oid, b->mapcap); b->map[s] != 0;
	    s = (s + 1) & (b->mapcap - 1))
		if (memcmp(b->o[b->map[s] - 1].oid, b->o[i].oid, OID) == 0)
			return 0;  /* the same object twice: keep the first */
	b->map[s] = i + 1;
	return 0;
}

/* The resolved object with this id, or NULL. */
static struct obj *
map_get(struct bundle *b, const unsigned char *oid)
{
	size_t s;

	if (b->mapcap == 0)
		return NULL;
	for (s = oid_slot(oid, b->mapcap); b->map[s] != 0;
	    s = (s + 1) & (b->mapcap - 1))
		if (memcmp(b->o[b->map[s] - 1].oid, oid, OID) == 0)
			return &b->o[b->map[s] - 1];
	return NULL;
}

/* ---- pack --------------------------------------------------------------- */

/* Reads every object's header and inflated bytes. */
static int
read_pack(struct bundle *b, const unsigned char *p, size_t n)
{
	unsigned char sum[OID];
	unsigned int olen = 0;
	uint32_t version, count;
	size_t off = 12, i;

	if (n < 12 + OID || memcmp(p, "PACK", 4) != 0)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "no pack after the "
		    "bundle header (truncated?)");
	version = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
	    (uint32_t)p[6] << 8 | p[7];
	count = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 |
	    (uint32_t)p[10] << 8 | p[11];
	if (version != 2 && version != 3)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "pack version %u is "
		    "not one git writes", version);
	if (EVP_DigestInit_ex(b->md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(b->md, p, n - OID) != 1 ||
	    EVP_DigestFinal_ex(b->md, sum, &olen) != 1)
		return b->rc = al_err_set(AL_EENGINE, "libcrypto cannot hash");
	if (memcmp(sum, p + n - OID, OID) != 0)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "the pack's checksum "
		    "does not match its content: truncated or altered");
	if (count > AL_BUNDLE_MAX_OBJECTS)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "%u objects, more "
		    "than %u", count, AL_BUNDLE_MAX_OBJECTS);
	b->o = calloc(count ? count : 1, sizeof(*b->o));
	if (b->o == NULL)
		return b->rc = al_err_set(AL_ENOMEM, "out of memory");
	n -= OID;
	for (i = 0; i < count; i++) {
		struct obj *o = &b->o[i];
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
		if (o->type == T_OFS) {
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
				return bnote(b, AL_RULE_UNSCANNABLE, NULL, "object %zu "
				    "is a delta on an offset outside the pack", i);
			/* Objects are in offset order: find the base's index. */
			{
				size_t lo = 0, hi = i, want = o->off - (size_t)back;

				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (b->o[mid].off < want)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo >= i || b->o[lo].off != want)
					return bnote(b, AL_RULE_UNSCANNABLE, NULL, "object "
					    "%zu is a delta on an offset where no object "
					    "starts", i);
				o->base = lo;
			}
		} else if (o->type == T_REF) {
			if (n - off < OID)
				goto truncated;
			memcpy(o->base_oid, p + off, OID);
			off += OID;
		} else if (o->type < T_COMMIT || o->type > T_TAG) {
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "object %zu has "
			    "type %d, which git does not define", i, o->type);
		}
		if (size > AL_BUNDLE_MAX_INFLATED ||
		    b->inflated + size > AL_BUNDLE_MAX_INFLATED)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "its objects "
			    "inflate to more than %llu MiB", (unsigned long long)
			    (AL_BUNDLE_MAX_INFLATED >> 20));
		b->inflated += size;
		r = scan_inflate(p + off, n - off, (size_t)size, &o->data, &got,
		    &used);
		if (r == AL_ENOMEM)
			return b->rc = r;
		if (r == 0 && got != size) {
			free(o->data);
			o->data = NULL;
			r = AL_EINVAL;
		}
		if (r < 0)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "object %zu does "
			    "not inflate to its stated %llu bytes", i,
			    (unsigned long long)size);
		o->len = (size_t)size;
		off += used;
		b->n = i + 1;     /* read so far: freed at the end */
	}
	if (off != n)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "%zu bytes after the "
		    "last object, before the checksum", n - off);
	return 0;
truncated:
	return bnote(b, AL_RULE_UNSCANNABLE, NULL, "the pack ends inside "
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

/* Applies delta d to base; the result replaces d's data. */
static int
apply_delta(struct bundle *b, struct obj *d, const struct obj *base)
{
	const unsigned char *p = d->data, *end = d->data + d->len;
	uint64_t src, dst;
	unsigned char *out;
	size_t o = 0;

	if (delta_size(&p, end, &src) < 0 || delta_size(&p, end, &dst) < 0 ||
	    src != base->len)
		return -1;
	if (dst > AL_BUNDLE_MAX_INFLATED || b->inflated + dst >
	    AL_BUNDLE_MAX_INFLATED)
		return -2;
	b->inflated += dst;
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
	return -1;
}

static int
cmp_ref(const void *x, const void *y, void *ctx)
{
	const struct bundle *b = ctx;

	return memcmp(b->o[*(const size_t *)x].base_oid,
	    b->o[*(const size_t *)y].base_oid,
	    OID);
}

/* Resolves every delta from its base, children after parents. */
static int
resolve(struct bundle *b)
{
	size_t *stack, *depth, sp = 0, i, nref = 0;
	size_t *refs = NULL;      /* indexes of REF deltas, by base id */
	int rc = 0;

	b->mapcap = 16;
	while (b->mapcap < 2 * b->n + 2)
		b->mapcap *= 2;
	b->map = calloc(b->mapcap, sizeof(*b->map));
	stack = calloc(b->n + 1, sizeof(*stack));
	depth = calloc(b->n + 1, sizeof(*depth));
	refs = calloc(b->n + 1, sizeof(*refs));
	if (b->map == NULL || stack == NULL || depth == NULL || refs == NULL) {
		rc = b->rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < b->n; i++) {
		struct obj *o = &b->o[i];

		if (o->type == T_OFS) {
			o->next_child = b->o[o->base].first_child;
			b->o[o->base].first_child = i + 1;
		} else if (o->type == T_REF) {
			refs[nref++] = i;
		} else {
			if ((rc = hash_object(b, o->type, o->data, o->len,
			    o->oid)) < 0) {
				b->rc = rc;
				goto out;
			}
			o->resolved = 1;
			map_put(b, i);
			stack[sp] = i;
			depth[sp++] = 0;
		}
	}
	qsort_r(refs, nref, sizeof(*refs), cmp_ref, b);
	/* Depth-first from each whole object: a resolved object's children
	 * are its OFS deltas and the REF deltas naming its id. */
	while (sp > 0 && rc == 0) {
		size_t k = stack[--sp], dep = depth[sp], c, j;
		struct obj *base = &b->o[k];

		/* REF deltas naming this id sit together in the sorted refs. */
		size_t lo = 0, hi = nref;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (memcmp(b->o[refs[mid]].base_oid, base->oid, OID) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; ; j++) {
			if (j < nref && memcmp(b->o[refs[j]].base_oid, base->oid,
			    OID) == 0)
				c = b->o[refs[j]].resolved ? SIZE_MAX : refs[j];
			else if (j < nref)
				j = nref;
			if (j >= nref) {
				c = base->first_child ? base->first_child - 1 : SIZE_MAX;
				j = SIZE_MAX - 1;   /* last round */
			}
			while (c != SIZE_MAX) {
				struct obj *d = &b->o[c];
				size_t nxt = j != SIZE_MAX - 1 ? SIZE_MAX :
				    (d->next_child ? d->next_child - 1 : SIZE_MAX);
				int r;

				if (d->resolved) {
					c = nxt;
					continue;
				}
				if (dep + 1 > AL_BUNDLE_MAX_DELTA_DEPTH) {
					rc = bnote(b, AL_RULE_UNSCANNABLE, NULL, "a delta "
					    "chain deeper than %u", AL_BUNDLE_MAX_DELTA_DEPTH);
					goto out;
				}
				r = apply_delta(b, d, base);
				if (r == AL_ENOMEM) {
					rc = b->rc = al_err_set(AL_ENOMEM, "out of memory");
					goto out;
				}
				if (r < 0) {
					rc = bnote(b, AL_RULE_UNSCANNABLE, NULL, r == -2 ?
					    "its objects inflate to more than the limit" :
					    "object %zu is a malformed delta", c);
					goto out;
				}
				if ((rc = hash_object(b, d->type, d->data, d->len,
				    d->oid)) < 0) {
					b->rc = rc;
					goto out;
				}
				d->resolved = 1;
				map_put(b, c);
				stack[sp] = c;
				depth[sp++] = dep + 1;
				c = nxt;
			}
			if (j == SIZE_MAX - 1)
				break;
		}
	}
	for (i = 0; i < b->n; i++)
		b->unresolved += !b->o[i].resolved;
out:
	free(stack);
	free(depth);
	free(refs);
	return rc;
}

/* ---- walking ------------------------------------------------------------ */

static int
starts_with(const char *p, const char *end, const char *s)
{
	size_t k = strlen(s);

	return (size_t)(end - p) >= k && memcmp(p, s, k) == 0;
}

/* 1 if (oid, path) was scanned before; else records it. */
static int
seen_add(struct bundle *b, const unsigned char *oid, const char *path)
{
	unsigned char key[OID];
	unsigned int olen;
	size_t s;

	if (EVP_DigestInit_ex(b->md, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(b->md, oid, OID) != 1 ||
	    EVP_DigestUpdate(b->md, path, strlen(path)) != 1 ||
	    EVP_DigestFinal_ex(b->md, key, &olen) != 1) {
		b->rc = al_err_set(AL_EENGINE, "libcrypto cannot hash");
		return 1;
	}
	if (2 * (b->nseen + 1) > b->seencap) {
		size_t cap = b->seencap ? 2 * b->seencap : 1024, i;
		unsigned char *v = calloc(cap, OID);
		static const unsigned char zero[OID];

		if (v == NULL) {
			b->rc = al_err_set(AL_ENOMEM, "out of memory");
			return 1;
		}
		for (i = 0; i < b->seencap; i++) {
			unsigned char *k = b->seen + i * OID;

			if (memcmp(k, zero, OID) == 0)
				continue;
			for (s = oid_slot(k, cap); memcmp(v + s * OID, zero, OID);
			    s = (s + 1) & (cap - 1))
				;
			memcpy(v + s * OID, k, OID);
		}
		free(b->seen);
		b->seen = v;
		b->seencap = cap;
	}
	key[0] |= 1;              /* never all zero: zero marks a free slot */
	for (s = oid_slot(key, b->seencap); ; s = (s + 1) & (b->seencap - 1)) {
		unsigned char *k = b->seen + s * OID;

		if (memcmp(k, key, OID) == 0)
			return 1;
		if (k[0] == 0 && memcmp(k, k + 1, OID - 1) == 0) {
			memcpy(k, key, OID);
			b->nseen++;
			return 0;
		}
	}
}

static int
scan_text(struct bundle *b, const char *item, const char *p, size_t n)
{
	if (b->rc == 0)
		b->rc = scan_mem(b->w, p, n, item, MSG_RELPATH, b->out);
	return b->rc;
}

/* A commit's or tag's text: identities and message, not the ids. */
static int
scan_identity(struct bundle *b, const char *item, const struct obj *o)
{
	const char *p = (const char *)o->data, *end = p + o->len, *nl;
	struct dynbuf text;

	dynbuf_init(&text, o->len + 1);
	while (p < end && *p != '\n') {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if ((starts_with(p, nl, "author ") ||
		    starts_with(p, nl, "committer ") ||
		    starts_with(p, nl, "tagger ") || starts_with(p, nl, "tag ")) &&
		    (dynbuf_add(&text, p, (size_t)(nl - p)) < 0 ||
		    dynbuf_addc(&text, '\n') < 0))
			b->rc = al_err_set(AL_ENOMEM, "out of memory");
		p = nl < end ? nl + 1 : end;
	}
	if (p < end && dynbuf_add(&text, p, (size_t)(end - p)) < 0)
		b->rc = al_err_set(AL_ENOMEM, "out of memory");
	scan_text(b, item, text.data ? text.data : "", text.len);
	dynbuf_free(&text);
	return b->rc;
}

struct walk {
	struct bundle *b;
	const char *commit;       /* 12 hex digits */
	int partial;              /* objects may be absent (prerequisites) */
};

static int walk_tree(struct walk *wk, const struct obj *tree,
    struct dynbuf *dir, unsigned depth);

static void
shown_path(struct bundle *b, const char *commit, const char *rel)
{
	dynbuf_reset(&b->shown);
	if (dynbuf_addf(&b->shown, "%s" AL_MEMBER_SEP "%s" AL_MEMBER_SEP "%s",
	    b->path, commit, rel) < 0)
		b->rc = al_err_set(AL_ENOMEM, "out of memory");
}

static void
missing(struct walk *wk, const char *what, const unsigned char *oid)
{
	char hx[2 * OID + 1];

	if (wk->partial)
		return;           /* the prerequisites' history has it */
	hexid(hx, oid);
	bnote(wk->b, AL_RULE_UNSCANNABLE, NULL, "%s %s is not in the bundle, "
	    "which lists no prerequisites", what, hx);
}

static int
walk_entry(struct walk *wk, unsigned mode, const char *rel,
    const unsigned char *oid, unsigned depth, struct dynbuf *dir)
{
	struct bundle *b = wk->b;
	const char *problem;
	struct obj *o;

	if (seen_add(b, oid, rel) || b->rc)
		return b->rc;
	if ((problem = al_name_problem(rel, 1)) != NULL) {
		shown_path(b, wk->commit, rel);
		bnote(b, AL_RULE_PATCH_PATH, dynbuf_str(&b->shown), "%s", problem);
	}
	if (mode == 0160000) {
		char hx[2 * OID + 1];

		hexid(hx, oid);
		shown_path(b, wk->commit, rel);
		return bnote(b, AL_RULE_SUBMODULE, dynbuf_str(&b->shown), "a "
		    "submodule (gitlink) at commit %s: its code is not in the "
		    "bundle", hx);
	}
	o = map_get(b, oid);
	if (o == NULL) {
		missing(wk, mode == 040000 ? "tree" : "blob", oid);
		return b->rc;
	}
	if (mode == 040000) {
		size_t len = dir->len;
		int r;

		if (o->type != T_TREE)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "%s names a %s "
			    "as a directory", rel, type_names[o->type]);
		if (depth >= AL_MAX_DIR_DEPTH)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "directories "
			    "nested deeper than %u", AL_MAX_DIR_DEPTH);
		dynbuf_reset(dir);
		if (dynbuf_adds(dir, rel) < 0 || dynbuf_addc(dir, '/') < 0)
			return b->rc = al_err_set(AL_ENOMEM, "out of memory");
		r = walk_tree(wk, o, dir, depth + 1);
		dir->len = len;
		return r;
	}
	if (o->type != T_BLOB)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "%s names a %s as a "
		    "file", rel, type_names[o->type]);
	shown_path(b, wk->commit, rel);
	o->scanned = 1;
	if (mode == 0120000) {
		char target[AL_MAX_PATH];
		size_t n = o->len < sizeof(target) - 1 ? o->len : sizeof(target) - 1;

		memcpy(target, o->data, n);
		target[n] = '\0';
		if (memchr(o->data, '\0', o->len) != NULL || o->len != n)
			return bnote(b, AL_RULE_SYMLINK_ESCAPE, dynbuf_str(&b->shown),
			    "symbolic link with an unreadable target");
		return bnote(b, al_link_escapes(rel, target) ?
		    AL_RULE_SYMLINK_ESCAPE : AL_RULE_SYMLINK,
		    dynbuf_str(&b->shown), "symbolic link to %s", target);
	}
	if (b->rc == 0) {
		scan_worker_item_mode(b->w, mode);
		b->rc = scan_blob_mem(b->w, (const char *)o->data, o->len,
		    dynbuf_str(&b->shown), rel, b->out);
	}
	return b->rc;
}

static int
walk_tree(struct walk *wk, const struct obj *tree, struct dynbuf *dir,
    unsigned depth)
{
	struct bundle *b = wk->b;
	const unsigned char *p = tree->data, *end = p + tree->len;
	struct dynbuf rel;
	size_t base = dir->len;
	char *prefix = strndup(dir->data ? dir->data : "", base);

	if (prefix == NULL)
		return b->rc = al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_init(&rel, AL_MAX_PATH + 1);
	while (p < end && b->rc == 0 && !b->bad) {
		unsigned mode = 0;
		const unsigned char *name, *nul;

		while (p < end && *p >= '0' && *p <= '7' && mode < 01000000)
			mode = mode * 8 + (unsigned)(*p++ - '0');
		if (p >= end || *p++ != ' ')
			goto bad;
		name = p;
		nul = memchr(p, '\0', (size_t)(end - p));
		if (nul == NULL || nul == name || (size_t)(end - nul) < 1 + OID ||
		    memchr(name, '/', (size_t)(nul - name)) != NULL ||
		    (nul - name == 1 && name[0] == '.') ||
		    (nul - name == 2 && name[0] == '.' && name[1] == '.'))
			goto bad;
		dynbuf_reset(&rel);
		if (dynbuf_adds(&rel, prefix) < 0 ||
		    dynbuf_add(&rel, name, (size_t)(nul - name)) < 0) {
			bnote(b, AL_RULE_UNSCANNABLE, NULL, "a path longer than %u "
			    "bytes", AL_MAX_PATH);
			break;
		}
		if (mode != 040000 && mode != 0100644 && mode != 0100755 &&
		    mode != 0100664 && mode != 0120000 && mode != 0160000)
			goto bad;
		walk_entry(wk, mode, dynbuf_str(&rel), nul + 1, depth, dir);
		p = nul + 1 + OID;
	}
	dynbuf_free(&rel);
	free(prefix);
	return b->rc;
bad:
	dynbuf_free(&rel);
	free(prefix);
	return bnote(b, AL_RULE_UNSCANNABLE, NULL, "a malformed tree object "
	    "(git fsck would reject it)");
}

/* A commit's tree and parents, from its header lines. */
static int
commit_links(const struct obj *o, unsigned char tree[OID],
    unsigned char (**parents)[OID], size_t *nparents)
{
	const char *p = (const char *)o->data, *end = p + o->len, *nl;
	int have_tree = 0;

	*parents = NULL;
	*nparents = 0;
	while (p < end && *p != '\n') {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return -1;
		if (starts_with(p, nl, "tree ")) {
			if (have_tree || nl - p != 5 + 2 * OID ||
			    parse_hex(p + 5, 2 * OID, tree) < 0)
				return -1;
			have_tree = 1;
		} else if (starts_with(p, nl, "parent ")) {
			unsigned char (*v)[OID];

			if (nl - p != 7 + 2 * OID || *nparents >= 4096 ||
			    (v = realloc(*parents, (*nparents + 1) * OID)) == NULL)
				return -1;
			*parents = v;
			if (parse_hex(p + 7, 2 * OID, v[*nparents]) < 0)
				return -1;
			(*nparents)++;
		}
		p = nl + 1;
	}
	return have_tree ? 0 : -1;
}

/*
 * Reorders queue[0..n) (commits by queue position; edges are (child,
 * parent) pairs of positions) so that parents come before children: a
 * depth-first post-order, iterative (history can be deep).
 */
static int
topo_order(size_t n, const size_t *edges, size_t nedge,
    size_t *queue)
{
	size_t *start = calloc(n + 1, sizeof(*start));
	size_t *adj = calloc(nedge + 1, sizeof(*adj));
	size_t *stack = calloc(n + 1, sizeof(*stack));
	size_t *cur = calloc(n + 1, sizeof(*cur));
	size_t *order = calloc(n + 1, sizeof(*order));
	unsigned char *state = calloc(n + 1, 1);
	size_t i, sp, no = 0;
	int rc = 0;

	if (!start || !adj || !stack || !cur || !order || !state) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < nedge; i++)
		start[edges[2 * i] + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < nedge; i++)
		adj[start[edges[2 * i]] + cur[edges[2 * i]]++] = edges[2 * i + 1];
	memset(cur, 0, (n + 1) * sizeof(*cur));
	for (i = 0; i < n; i++) {
		if (state[i])
			continue;
		sp = 0;
		stack[sp++] = i;
		state[i] = 1;
		while (sp > 0) {
			size_t v = stack[sp - 1];

			if (cur[v] < start[v + 1] - start[v]) {
				size_t u = adj[start[v] + cur[v]++];

				if (!state[u]) {
					state[u] = 1;
					stack[sp++] = u;
				}
			} else {
				sp--;
				order[no++] = queue[v];
			}
		}
	}
	memcpy(queue, order, n * sizeof(*queue));
out:
	free(start);
	free(adj);
	free(stack);
	free(cur);
	free(order);
	free(state);
	return rc;
}

/* Every commit reachable from the tips, parents before children. */
static int
walk_commits(struct bundle *b, const unsigned char (*tips)[OID], size_t ntips,
    int partial)
{
	size_t *queue = calloc(b->n + 1, sizeof(*queue)), qh = 0, qt = 0, i;
	size_t *edges = NULL, nedge = 0, capedge = 0; /* (child, parent) */
	struct dynbuf dir, item;
	size_t boundary = 0;

	if (queue == NULL)
		return b->rc = al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_init(&dir, AL_MAX_PATH + 2);
	dynbuf_init(&item, 2 * AL_MAX_PATH);
	for (i = 0; i < ntips; i++) {
		struct obj *o = map_get(b, tips[i]);
		unsigned hops = 0;

		/* Annotated tags: their text is scanned, their target walked. */
		while (o != NULL && o->type == T_TAG && hops++ < 16 && !o->visited) {
			unsigned char target[OID];
			char hx[2 * OID + 1];

			o->visited = 1;
			hexid(hx, o->oid);
			dynbuf_reset(&item);
			if (dynbuf_addf(&item, "%s" AL_MEMBER_SEP "%.12s", b->path,
			    hx) < 0 ||
			    scan_identity(b, dynbuf_str(&item), o) < 0)
				break;
			if (o->len < 7 + 2 * OID || memcmp(o->data, "object ", 7) ||
			    parse_hex((const char *)o->data + 7, 2 * OID, target) < 0) {
				bnote(b, AL_RULE_UNSCANNABLE, NULL, "a malformed tag "
				    "object");
				break;
			}
			o = map_get(b, target);
		}
		if (o == NULL) {
			if (!partial)
				bnote(b, AL_RULE_UNSCANNABLE, NULL, "a ref names an "
				    "object the bundle does not carry");
			continue;
		}
		if (o->type == T_COMMIT && !o->visited) {
			o->visited = 1;
			queue[qt++] = (size_t)(o - b->o);
		}
	}
	/* Every commit first (its parents only), then each walked parents
	 * first, so that a file version is shown under the commit that
	 * brought it, whatever the refs. */
	for (i = 0; i < qt; i++)
		b->o[queue[i]].qpos = i;
	while (qh < qt && b->rc == 0 && !b->bad) {
		struct obj *c = &b->o[queue[qh++]];
		unsigned char tree[OID], (*parents)[OID] = NULL;
		size_t np = 0;
		char hx[2 * OID + 1];
		struct walk wk = {b, NULL, partial};

		if (commit_links(c, tree, &parents, &np) < 0) {
			free(parents);
			hexid(hx, c->oid);
			bnote(b, AL_RULE_UNSCANNABLE, NULL, "commit %s is malformed "
			    "(git fsck would reject it)", hx);
			break;
		}
		for (i = 0; i < np; i++) {
			struct obj *pc = map_get(b, parents[i]);

			if (pc == NULL) {
				boundary++;
				missing(&wk, "parent commit", parents[i]);
				continue;
			}
			if (pc->type != T_COMMIT)
				continue;
			if (!pc->visited) {
				pc->visited = 1;
				pc->qpos = qt;
				queue[qt++] = (size_t)(pc - b->o);
			}
			if (nedge == capedge) {
				size_t *v = reallocarray(edges, capedge ? 2 * capedge :
				    256, 2 * sizeof(*v));

				if (v == NULL) {
					b->rc = al_err_set(AL_ENOMEM, "out of memory");
					break;
				}
				edges = v;
				capedge = capedge ? 2 * capedge : 256;
			}
			edges[2 * nedge] = qh - 1;
			edges[2 * nedge + 1] = pc->qpos;
			nedge++;
		}
		free(parents);
	}
	if (b->rc == 0 && !b->bad && topo_order(qt, edges, nedge, queue) < 0)
		b->rc = al_err_set(AL_ENOMEM, "out of memory");
	free(edges);
	edges = NULL;
	for (qh = 0; qh < qt && b->rc == 0 && !b->bad; qh++) {
		struct obj *c = &b->o[queue[qh]];
		unsigned char tree[OID], (*parents)[OID] = NULL;
		size_t np = 0;
		char hx[2 * OID + 1];
		struct walk wk = {b, NULL, partial};
		struct obj *t;

		hexid(hx, c->oid);
		hx[12] = '\0';
		wk.commit = hx;
		(void)commit_links(c, tree, &parents, &np);  /* read above */
		free(parents);
		dynbuf_reset(&item);
		if (dynbuf_addf(&item, "%s" AL_MEMBER_SEP "%s", b->path, hx) < 0)
			b->rc = al_err_set(AL_ENOMEM, "out of memory");
		if (b->rc == 0)
			scan_identity(b, dynbuf_str(&item), c);
		if ((t = map_get(b, tree)) == NULL)
			missing(&wk, "tree", tree);
		else if (t->type != T_TREE)
			bnote(b, AL_RULE_UNSCANNABLE, NULL, "commit %s names a %s as "
			    "its tree", hx, type_names[t->type]);
		else if (!seen_add(b, tree, "") && b->rc == 0) {
			dynbuf_reset(&dir);
			walk_tree(&wk, t, &dir, 0);
		}
	}
	(void)boundary;
	free(queue);
	free(edges);
	dynbuf_free(&dir);
	dynbuf_free(&item);
	return b->rc;
}

/* Header lines: capabilities (v3), prerequisites, refs. */
static int
read_header(struct bundle *b, const char *data, size_t len, size_t *pack_at,
    unsigned char (**tips)[OID], size_t *ntips, size_t *nprereq,
    int *filtered)
{
	const char *p = data + 16, *end = data + len, *nl;
	int v3 = data[3] == '3';
	size_t cap = 0;

	*tips = NULL;
	*ntips = *nprereq = 0;
	*filtered = 0;
	for (;;) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return bnote(b, AL_RULE_UNSCANNABLE, NULL, "the bundle "
			    "header does not end (truncated?)");
		n = (size_t)(nl - p);
		if (n == 0)
			break;
		if (v3 && p[0] == '@') {
			if (starts_with(p, nl, "@object-format=")) {
				if (!(n == 19 && memcmp(p + 15, "sha1", 4) == 0))
					return bnote(b, AL_RULE_UNSCANNABLE, NULL, "object "
					    "format %.*s: airlock reads SHA-1 repositories "
					    "only", (int)(n - 15), p + 15);
			} else if (starts_with(p, nl, "@filter=")) {
				*filtered = 1;
			} else {
				return bnote(b, AL_RULE_UNSCANNABLE, NULL, "unknown "
				    "bundle capability %.*s: git would refuse it",
				    (int)(n > 64 ? 64 : n), p);
			}
		} else if (p[0] == '-') {
			unsigned char oid[OID];

			if (n < 1 + 2 * OID || parse_hex(p + 1, 2 * OID, oid) < 0 ||
			    (n > 1 + 2 * OID && p[1 + 2 * OID] != ' '))
				goto bad;
			(*nprereq)++;
		} else {
			if (n < 2 * OID + 2 || p[2 * OID] != ' ')
				goto bad;
			if (*ntips == AL_BUNDLE_MAX_REFS)
				return bnote(b, AL_RULE_UNSCANNABLE, NULL, "more than "
				    "%u refs", AL_BUNDLE_MAX_REFS);
			if (*ntips == cap) {
				unsigned char (*v)[OID];

				cap = cap ? 2 * cap : 16;
				if ((v = realloc(*tips, cap * OID)) == NULL)
					return b->rc = al_err_set(AL_ENOMEM, "out of "
					    "memory");
				*tips = v;
			}
			if (parse_hex(p, 2 * OID, (*tips)[*ntips]) < 0)
				goto bad;
			(*ntips)++;
		}
		p = nl + 1;
	}
	if (*ntips == 0)
		return bnote(b, AL_RULE_UNSCANNABLE, NULL, "the bundle names no "
		    "refs: git fetch would take nothing from it");
	*pack_at = (size_t)(nl + 1 - data);
	return 0;
bad:
	return bnote(b, AL_RULE_UNSCANNABLE, NULL, "a malformed bundle header "
	    "line: %.*s", (int)((nl - p) > 80 ? 80 : (nl - p)), p);
}

int
scan_bundle_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out)
{
	struct bundle b;
	unsigned char (*tips)[OID] = NULL;
	size_t ntips = 0, nprereq = 0, pack_at = 0, i;
	int filtered = 0;

	memset(&b, 0, sizeof(b));
	b.w = w;
	b.out = out;
	b.path = path;
	dynbuf_init(&b.shown, 3 * AL_MAX_PATH);
	if ((b.md = EVP_MD_CTX_new()) == NULL) {
		b.rc = al_err_set(AL_ENOMEM, "out of memory");
		goto done;
	}
	if (len < 16 || (memcmp(data, "# v2 git bundle\n", 16) != 0 &&
	    memcmp(data, "# v3 git bundle\n", 16) != 0)) {
		bnote(&b, AL_RULE_UNSCANNABLE, NULL, "not a git bundle (v2 or v3)");
		goto done;
	}
	if (read_header(&b, data, len, &pack_at, &tips, &ntips, &nprereq,
	    &filtered) != 0 || b.bad)
		goto done;
	if (read_pack(&b, (const unsigned char *)data + pack_at,
	    len - pack_at) != 0 || b.bad)
		goto done;
	if (resolve(&b) != 0 || b.bad)
		goto done;
	if (nprereq > 0 || filtered)
		bnote(&b, AL_RULE_BUNDLE_INCOMPLETE, NULL, "%s%zu prerequisite "
		    "commit%s: the history below them is not in the bundle",
		    filtered ? "a filtered (partial) bundle; " : "", nprereq,
		    nprereq == 1 ? "" : "s");
	if (b.unresolved > 0) {
		struct dynbuf ins;
		size_t k;

		bnote(&b, AL_RULE_UNSCANNABLE, NULL, "a thin bundle: %zu of its "
		    "objects are deltas against objects it does not carry, so "
		    "the files and directories they make cannot be rebuilt from "
		    "it; only the bytes those deltas insert were scanned, and "
		    "files below such a directory lose their paths. Send the "
		    "commits as `git format-patch` output, or a bundle without "
		    "prerequisites, to have them read whole", b.unresolved);
		b.bad = 0;        /* what is here is still scanned */
		dynbuf_init(&ins, AL_BUNDLE_MAX_INFLATED);
		for (k = 0; k < b.n && b.rc == 0; k++) {
			if (b.o[k].resolved)
				continue;
			dynbuf_reset(&ins);
			dynbuf_reset(&b.shown);
			if (scan_delta_inserts(b.o[k].data, b.o[k].len, &ins) < 0 ||
			    dynbuf_addf(&b.shown, "%s" AL_MEMBER_SEP "delta@%zu", path,
			    b.o[k].off) < 0)
				continue;
			b.rc = scan_mem(w, ins.data ? ins.data : "", ins.len,
			    dynbuf_str(&b.shown), "", out);
		}
		dynbuf_free(&ins);
	}
	if (b.rc == 0)
		walk_commits(&b, (const unsigned char (*)[OID])tips, ntips,
		    nprereq > 0 || filtered || b.unresolved > 0);
	/* Blobs no commit reaches are stored by git fetch all the same. */
	for (i = 0; i < b.n && b.rc == 0 && !b.bad; i++) {
		char hx[2 * OID + 1];

		if (b.o[i].type != T_BLOB || !b.o[i].resolved || b.o[i].scanned)
			continue;
		hexid(hx, b.o[i].oid);
		dynbuf_reset(&b.shown);
		if (dynbuf_addf(&b.shown, "%s" AL_MEMBER_SEP
		    "unreachable-blob-%.12s", path, hx) < 0)
			b.rc = al_err_set(AL_ENOMEM, "out of memory");
		else
			b.rc = scan_mem(w, (const char *)b.o[i].data, b.o[i].len,
			    dynbuf_str(&b.shown), "", out);
	}
done:
	for (i = 0; i < b.n; i++)
		free(b.o[i].data);
	free(b.o);
	free(b.map);
	free(b.seen);
	free(tips);
	EVP_MD_CTX_free(b.md);
	dynbuf_free(&b.shown);
	return b.rc;
}
