/*
 * api_audit.c - the audit log on the review API (docs/audit.md), for an
 * auditor (or an admin) without the gate's host:
 *
 *   GET /v1/audit/checkpoint    the newest signed checkpoint, as the
 *                               note's text (text/plain), to keep outside
 *                               the gate;
 *   GET /v1/audit/checkpoints   every stored checkpoint, oldest first;
 *   GET /v1/audit/entries       the entries, a page at a time, as stored
 *                               (base64 of their bytes, and of their
 *                               stored leaf hashes);
 *   GET /v1/audit/keys          the verifier keys of the gate's keyring;
 *   GET /v1/provenance          the chain of one artifact (by sha256, id
 *                               or path), as `airlock provenance --json`
 *                               prints it (gate/provenance.c), bounded.
 *
 * With the first four `airlock audit verify --server` (and the review
 * UI's verify.js) recomputes the tree and checks every signature without
 * the data directory.
 *
 * Trust: the caller's role was checked by the router; the query is
 * hostile and checked whole (an unknown or repeated argument is refused,
 * not ignored). What is served is the gate's own rows as stored, entries
 * and notes byte for byte: never rebuilt from the events table, so that
 * what the verifier checks is what the log holds. Nothing here is secret:
 * the keys are the public halves.
 */
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "audit.h"
#include "err.h"
#include "provenance.h"
#include "serve.h"
#include "util.h"

/* Entries a page holds: by default, and at most (10,000 entries of a few
 * hundred bytes are some MB of JSON). */
#define AUDIT_PAGE_DEFAULT 1000u
#define AUDIT_PAGE_MAX 10000u
/* A page ends after the entry that reaches this many bytes (an entry is
 * at most DB_AUDIT_ENTRY_MAX), so that its base64 stays far inside what a
 * client reads (CLIENT_MAX_REPLY, 64 MiB); the client asks again from
 * where it ended. */
#define AUDIT_PAGE_BYTES (16u << 20)
/* Query arguments any of these routes takes. */
#define AUDIT_MAX_ARGS 3u
/* GET /v1/provenance: the newest submissions shown of those matched
 * (each costs a pass over the log's entries), and the entries shown of
 * each one's timeline; the rest are counted, and the others' ids listed
 * (provenance.h). */
#define PROV_API_MAX_SUBS 10u
#define PROV_API_MAX_TIMELINE 1000u

/* The query, checked against the names a route takes. */
struct audit_query {
	const char *const *names;
	size_t n;
	const char *vals[AUDIT_MAX_ARGS];
	char why[160];            /* "" while nothing is wrong */
};

static enum MHD_Result
query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct audit_query *aq = cls;
	size_t i;

	(void)kind;
	for (i = 0; i < aq->n && strcmp(key, aq->names[i]) != 0; i++)
		;
	if (i == aq->n) {
		size_t k, at;

		at = (size_t)snprintf(aq->why, sizeof(aq->why), "unknown query "
		    "argument (this endpoint takes %s", aq->n > 0 ? aq->names[0] :
		    "none");
		for (k = 1; k < aq->n && at < sizeof(aq->why); k++)
			at += (size_t)snprintf(aq->why + at, sizeof(aq->why) - at,
			    "%s%s", k + 1 < aq->n ? ", " : " and ", aq->names[k]);
		if (at < sizeof(aq->why))
			snprintf(aq->why + at, sizeof(aq->why) - at, ")");
	} else if (aq->vals[i] != NULL)
		snprintf(aq->why, sizeof(aq->why), "%s is given twice",
		    aq->names[i]);
	else if (value == NULL || value[0] == '\0')
		snprintf(aq->why, sizeof(aq->why), "%s has no value",
		    aq->names[i]);
	else
		aq->vals[i] = value;
	return aq->why[0] == '\0' ? MHD_YES : MHD_NO;
}

/* 0 with aq->vals set, or -1 with aq->why. */
static int
query_take(struct MHD_Connection *c, struct audit_query *aq)
{
	(void)MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_arg, aq);
	return aq->why[0] == '\0' ? 0 : -1;
}

/* A decimal of 1 to 18 digits (no sign), into *out. */
static int
decimal_arg(const char *v, uint64_t *out)
{
	size_t n = strlen(v), i;
	uint64_t x = 0;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
}

enum MHD_Result
api_audit_checkpoint(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct audit_query aq = {NULL, 0, {NULL}, ""};
	struct db_checkpoint *cp = NULL;
	enum MHD_Result ok;
	size_t n = 0;

	if (query_take(c, &aq) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, aq.why);
	if (db_checkpoint_list(db, 1, &cp, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	if (n == 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "the audit log "
		    "has no checkpoint yet");
	ok = srv_respond(c, MHD_HTTP_OK, "text/plain; charset=utf-8",
	    cp[0].note, strlen(cp[0].note));
	db_checkpoint_list_free(cp, n);
	return ok;
}

enum MHD_Result
api_audit_checkpoints(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct audit_query aq = {NULL, 0, {NULL}, ""};
	struct db_checkpoint *cp = NULL;
	json_t *j = NULL, *arr = NULL;
	size_t n = 0, i;
	int rc;

	if (query_take(c, &aq) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, aq.why);
	if (db_checkpoint_list(db, 0, &cp, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	rc = (j = json_object()) == NULL ? al_err_set(AL_ENOMEM, "out of "
	    "memory") : srv_json_set(j, "checkpoints", arr = json_array());
	/* A note that is not text (a row edited by hand) cannot be sent as
	 * a JSON string: the whole answer fails rather than leave it out. */
	for (i = 0; rc == 0 && i < n; i++)
		rc = srv_json_append(arr, json_pack("{s:I, s:I, s:s}", "id",
		    (json_int_t)cp[i].id, "size", (json_int_t)cp[i].size, "note",
		    cp[i].note));
	db_checkpoint_list_free(cp, n);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc);
}

/* A page of entries as it is filled. */
struct audit_page {
	json_t *arr;
	uint64_t size;            /* the log's size the page is of */
	uint64_t limit;
	size_t bytes;
	int rc;
};

static int
page_add(void *ctx, const struct db_audit_leaf *l)
{
	struct audit_page *pg = ctx;
	json_t *e;

	if (l->idx >= pg->size || json_array_size(pg->arr) >= pg->limit ||
	    pg->bytes >= AUDIT_PAGE_BYTES)
		return 1;
	/* The stored leaf hash too: not to be believed (the signed roots
	 * are), but what lets a verifier name an entry edited without it. */
	e = json_pack("{s:I, s:o, s:o}", "index", (json_int_t)l->idx, "entry",
	    gate_b64_json(l->entry, l->entry_len), "hash",
	    gate_b64_json(l->hash, 32));
	pg->bytes += l->entry_len;
	if ((pg->rc = srv_json_append(pg->arr, e)) < 0)
		return pg->rc;
	return 0;
}

/* from and limit of GET /v1/audit/entries: 0, or -1 with why. */
static int
entries_args(struct MHD_Connection *c, uint64_t *from, uint64_t *limit,
    char *why, size_t cap)
{
	static const char *const names[] = {"from", "limit"};
	struct audit_query aq = {names, 2, {NULL}, ""};

	*from = 0;
	*limit = AUDIT_PAGE_DEFAULT;
	if (query_take(c, &aq) < 0)
		snprintf(why, cap, "%s", aq.why);
	else if (aq.vals[0] != NULL && decimal_arg(aq.vals[0], from) < 0)
		snprintf(why, cap, "from is the index of an entry: a decimal "
		    "from 0");
	else if (aq.vals[1] != NULL && (decimal_arg(aq.vals[1], limit) < 0 ||
	    *limit == 0 || *limit > AUDIT_PAGE_MAX))
		snprintf(why, cap, "limit is 1 to %u", AUDIT_PAGE_MAX);
	else
		return 0;
	return -1;
}

enum MHD_Result
api_audit_entries(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct audit_page pg = {NULL, 0, 0, 0, 0};
	uint64_t from, limit, size = 0;
	json_t *j;
	char why[200];
	int rc;

	if (entries_args(c, &from, &limit, why, sizeof(why)) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, why);
	if (db_audit_size(db, &size) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	if (from > size) {
		snprintf(why, sizeof(why), "from is %llu; the log has %llu "
		    "entries, so from is at most %llu", (unsigned long long)from,
		    (unsigned long long)size, (unsigned long long)size);
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, why);
	}
	if ((pg.arr = json_array()) == NULL)
		return srv_respond_built(q, c, MHD_HTTP_OK, NULL, 0);
	pg.size = size;
	pg.limit = limit;
	/* The entries as stored, from their own rows; a gap among them is
	 * served as it is, for the verifier to find. */
	rc = db_audit_each(db, from, page_add, &pg);
	if (rc < 0 && pg.rc == 0) {
		json_decref(pg.arr);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	}
	j = json_pack("{s:I, s:I, s:o}", "size", (json_int_t)size, "from",
	    (json_int_t)from, "entries", pg.arr);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc < 0 ? rc : 0);
}

/* The keyring's verifier keys under origin, into arr. */
static int
keys_json(const struct attest_keyring *kr, const char *origin, json_t *arr)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < kr->n; i++) {
		char *vk = NULL;

		if ((rc = note_vkey_format(&vk, origin, kr->key[i])) == 0)
			rc = srv_json_append(arr, json_string(vk));
		free(vk);
	}
	return rc;
}

enum MHD_Result
api_audit_keys(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct audit_query aq = {NULL, 0, {NULL}, ""};
	struct attest_keyring kr = {0};
	char *origin = NULL;
	json_t *j = NULL, *arr = NULL;
	int rc;

	(void)db;
	if (query_take(c, &aq) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, aq.why);
	if ((rc = gate_keyring_load(q->s->datadir, &kr, NULL)) == 0 &&
	    (rc = gate_audit_origin(q->s->datadir, &origin)) == 0 &&
	    (j = json_pack("{s:s, s:o}", "origin", origin, "keys",
	    arr = json_array())) == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = keys_json(&kr, origin, arr);
	free(origin);
	attest_keyring_clear(&kr);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc);
}

/* ---- provenance ----------------------------------------------------------- */

/* What is wrong with the one argument of GET /v1/provenance, into pq: 0,
 * or -1 with why. */
static int
provenance_args(const struct audit_query *aq, struct prov_query *pq,
    char *why, size_t cap)
{
	const char *sha = aq->vals[0], *id = aq->vals[1], *path = aq->vals[2];
	uint64_t x = 0;
	size_t n, i, len;
	uint32_t cp;

	if ((sha != NULL) + (id != NULL) + (path != NULL) != 1) {
		snprintf(why, cap, "%s", sha == NULL && id == NULL && path == NULL ?
		    "give one of sha256, id and path (GET /v1/provenance?sha256="
		    "HEX, ?id=N or ?path=PATH)" : "sha256, id and path are "
		    "exclusive: give one");
		return -1;
	}
	if (sha != NULL) {
		if ((n = strlen(sha)) != 64) {
			snprintf(why, cap, "sha256 is 64 lowercase hex digits, not "
			    "%zu characters", n);
			return -1;
		}
		for (i = 0; i < n; i++)
			if (!((sha[i] >= '0' && sha[i] <= '9') ||
			    (sha[i] >= 'a' && sha[i] <= 'f'))) {
				snprintf(why, cap, "sha256 is 64 lowercase hex digits: "
				    "character %zu is not one", i + 1);
				return -1;
			}
		pq->by = PROV_BY_SHA256;
		pq->sha256 = sha;
	} else if (id != NULL) {
		if (decimal_arg(id, &x) < 0 || x == 0 || id[0] == '0') {
			snprintf(why, cap, "id is a submission id: a decimal from 1 "
			    "(no sign, no leading zero)");
			return -1;
		}
		pq->by = PROV_BY_ID;
		pq->id = (int64_t)x;
	} else {
		if ((n = strlen(path)) > AL_MAX_PATH) {
			snprintf(why, cap, "path is at most %u bytes, not %zu",
			    AL_MAX_PATH, n);
			return -1;
		}
		for (i = 0; i < n; i += len)
			if ((len = al_utf8_seq((const unsigned char *)path + i, n - i,
			    &cp)) == 0) {
				snprintf(why, cap, "path is not UTF-8 text (byte %zu of "
				    "%zu is not valid)", i + 1, n);
				return -1;
			}
		pq->by = PROV_BY_PATH;
		pq->path = path;
	}
	pq->max_subs = PROV_API_MAX_SUBS;
	pq->max_timeline = PROV_API_MAX_TIMELINE;
	return 0;
}

enum MHD_Result
api_provenance(struct req *q, struct MHD_Connection *c, struct db *db)
{
	static const char *const names[] = {"sha256", "id", "path"};
	struct audit_query aq = {names, 3, {NULL}, ""};
	struct prov_query pq;
	json_t *doc = NULL;
	char why[200];
	int rc, bad = 0;

	memset(&pq, 0, sizeof(pq));
	if (query_take(c, &aq) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, aq.why);
	if (provenance_args(&aq, &pq, why, sizeof(why)) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, why);
	/* A log that does not verify is an answer (its "log" says so), not
	 * an error: the auditor asked for exactly that. */
	rc = gate_provenance(&doc, &bad, db, q->s->datadir, &pq);
	if (rc == AL_ENOTFOUND)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, al_err_msg());
	return srv_respond_built(q, c, MHD_HTTP_OK, doc, rc);
}
