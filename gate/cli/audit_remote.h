/*
 * audit_remote.h - what `airlock audit verify --server URL` reads from a
 * gate's review API (gate/serve/api_audit.c, docs/api.md), checked as it
 * is read: the keyring's verifier keys, the stored checkpoints, and the
 * entries, walked page by page into a recomputed tree (audit_remote.c).
 *
 * Trust: the gate's answers are hostile. Keys are parsed strictly and
 * checked for the origin they claim; notes are kept as sent, for the
 * caller to verify before anything in them is used; entries are checked
 * for their form and place and hashed, never believed. A reply that
 * cannot be read is an error (AL_EIO, AL_EINVAL: exit 2); what the
 * entries show is a divergence in the report (exit 1).
 */
#ifndef AIRLOCK_AUDIT_REMOTE_H
#define AIRLOCK_AUDIT_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "attest.h"
#include "client.h"
#include "db.h"

/* Entries asked for per page by default, and at most (the gate's most;
 * it may send fewer). */
#define AUDIT_REMOTE_PAGE 10000u

struct served_checkpoint {
	int64_t id;               /* the gate's row id, for the report */
	uint64_t size;            /* the row's size, unsigned */
	char *note;               /* as sent; len bytes, NUL after */
	size_t len;
};

struct audit_served {
	char *origin;             /* the log's, as the gate says */
	struct attest_keyring keys; /* the keys it serves */
	char **vkeys;             /* the same as sent, for the report */
	size_t nvkeys;
	struct served_checkpoint *ckpts; /* oldest first */
	size_t nckpts;
};

/* GET /v1/audit/keys into s (origin, keys, vkeys). */
int audit_remote_keys(struct client *c, struct audit_served *s);
/* GET /v1/audit/checkpoints into s (ckpts). */
int audit_remote_checkpoints(struct client *c, struct audit_served *s);
void audit_served_clear(struct audit_served *s);

/*
 * Reads the gate's entries from 0 up to the size the first page gives
 * (entries appended meanwhile are not this walk's), page entries at a
 * time (1 to AUDIT_REMOTE_PAGE):
 * each page must hold the indexes asked for, in order, and the log's
 * size must not shrink between pages; each entry must be a well-formed
 * version 1 entry of its place (gate_entry_check) recording a larger
 * event than the one before, and hash to the leaf hash the gate says it
 * stores (which only names an edited entry: the tree is made of the
 * hashes recomputed here), whose root is compared with each check at
 * its size (db_audit_walk_*).
 * 0 when the entries could be read, r saying what they show (r->size
 * the entries read, r->root their root); an error when a reply could not.
 */
int audit_remote_walk(struct client *c, unsigned page,
    struct db_audit_check *checks, size_t n, struct db_audit_report *r);

#endif
