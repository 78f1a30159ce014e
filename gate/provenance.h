/*
 * provenance.h - the whole chain of one artifact, as one JSON document
 * (docs/audit.md, "Provenance"): what `airlock provenance` prints and
 * `GET /v1/provenance` serves, made by one function for both.
 *
 * Trust: the query is the caller's, checked before it comes here (a
 * sha256 of 64 lowercase hex digits, an id from 1, a path of UTF-8 text).
 * The data directory is the thing being checked: the timeline is read
 * from the log's entries, each proved against the newest signed
 * checkpoint; the facts above it come from the submission's row and the
 * document says so by its member names (witnessed, asserted, read_as).
 */
#ifndef AIRLOCK_PROVENANCE_H
#define AIRLOCK_PROVENANCE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

enum prov_by {
	PROV_BY_SHA256,           /* every submission of those bytes */
	PROV_BY_ID,               /* that submission */
	PROV_BY_PATH,             /* named so, or an item read at that path */
};

struct prov_query {
	enum prov_by by;
	const char *sha256;       /* PROV_BY_SHA256: 64 lowercase hex digits */
	int64_t id;               /* PROV_BY_ID: from 1 */
	const char *path;         /* PROV_BY_PATH: UTF-8 text, not empty */
	size_t max_subs;          /* the newest this many shown; 0: all */
	size_t max_timeline;      /* entries shown per submission; 0: all */
};

/* Ids of the submissions matched but not shown, listed at most. */
#define PROV_MAX_OTHERS 1000u

/*
 * The chain into *out: {"query": {...}, "matched": N, "submissions":
 * [...]} with, when not all are shown, "truncated": true and "not_shown"
 * (the ids of the others, newest first, at most PROV_MAX_OTHERS). The
 * submissions are in id order (oldest first). *bad is set when an entry
 * or the checkpoint does not verify. AL_ENOTFOUND, with a message, when
 * nothing matches.
 */
int gate_provenance(json_t **out, int *bad, struct db *db,
    const char *datadir, const struct prov_query *q);

#endif
