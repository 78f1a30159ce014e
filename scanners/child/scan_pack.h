/*
 * scan_pack.h - a git pack held in memory, indexed into its objects, in the
 * scan child (the bundle reader's pack).
 *
 * Trust: the pack is hostile; this runs only inside the sandboxed child.
 * libgit2 cannot index a pack without writing .pack/.idx files, and its
 * in-memory object database takes loose objects only, so this reader is
 * our own: object headers, zlib, OFS and REF deltas resolved from their
 * bases, every object id recomputed from its content and the pack checksum
 * verified, so that an object found by its id is what git would store
 * under it. Ids are SHA-1: the bundle reader refuses SHA-256 repositories
 * before their pack is read.
 */
#ifndef AIRLOCK_SCAN_PACK_H
#define AIRLOCK_SCAN_PACK_H

#include <stddef.h>
#include <stdint.h>

#define SCAN_OID_LEN 20       /* bytes of a SHA-1 object id */

/* Object types as the pack header gives them (git's numbers). */
enum scan_obj_type {
	OBJ_COMMIT = 1,
	OBJ_TREE,
	OBJ_BLOB,
	OBJ_TAG,
	OBJ_OFS_DELTA = 6,        /* a delta on the object at an offset */
	OBJ_REF_DELTA,            /* a delta on the object with an id */
};

struct pack_obj {
	size_t off;               /* where its header starts in the pack */
	int type;                 /* OBJ_*: a delta's until resolved */
	int resolved;             /* its content and id are known */
	unsigned char *data;      /* content, or delta instructions */
	size_t len;
	unsigned char oid[SCAN_OID_LEN]; /* when resolved */
	/* The reader's own, while it resolves deltas: */
	size_t base;              /* OFS_DELTA: index of the base */
	unsigned char base_oid[SCAN_OID_LEN]; /* REF_DELTA: the base's id */
	size_t next_child;        /* list of deltas on this base, +1 */
	size_t first_child;
};

struct scan_pack {
	struct pack_obj *obj;     /* in pack order */
	size_t n;
	size_t unresolved;        /* objects left as deltas: their base is not
	                           * in the pack (a thin pack) */
	size_t *map;              /* oid -> index + 1, open addressing */
	size_t mapcap;            /* a power of two */
	uint64_t inflated;        /* bytes inflated and rebuilt so far */
};

/*
 * Indexes the pack in [p, p + n) into *pk: every object read and inflated,
 * every delta whose base is in the pack resolved (the others are left as
 * delta instructions and counted in unresolved). AL_EINVAL, with the
 * reason in al_err_msg(), when the pack is malformed, truncated, altered
 * or past a limit; AL_ENOMEM; AL_EENGINE when libcrypto cannot hash.
 * Free *pk with scan_pack_free whatever this returns.
 */
int scan_pack_index(struct scan_pack *pk, const unsigned char *p, size_t n);

/* The resolved object with this id, or NULL; borrowed from pk. */
const struct pack_obj *scan_pack_get(const struct scan_pack *pk,
    const unsigned char *oid);

/* "commit", "tree", "blob", "tag" ("?" for any other type). */
const char *scan_pack_type_name(int type);

/* Reads the id written as 40 lowercase hex digits at p (n: at least 40
 * bytes there) into oid: 0, or -1 when they are not that. */
int scan_pack_oid_parse(const char *p, size_t n, unsigned char *oid);

/* The slot of an object id in a table of cap slots (a power of two): an id
 * is a hash already, its first bytes serve. */
size_t scan_pack_oid_slot(const unsigned char *oid, size_t cap);

void scan_pack_free(struct scan_pack *pk);

#endif
