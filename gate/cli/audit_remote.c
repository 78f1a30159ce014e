/*
 * audit_remote.c - the reading half of `airlock audit verify --server
 * URL`: the gate's keys, its checkpoints and its entries over the review
 * API (audit_remote.h says what is checked as it is read; cmd_audit.c
 * verifies the signatures and reports).
 *
 * The entries come a page at a time (GET /v1/audit/entries?from=N); each
 * leaf hash is recomputed and pushed into a merkle_stream, and the root
 * is taken at every size a checkpoint names, so the whole log is
 * verified in O(log n) memory whatever its length. The walk stops at the
 * log's size when it began: a live gate appends while it is read.
 *
 * Trust: everything a reply holds is hostile. Numbers are checked for
 * type and range before use, base64 strictly decoded to at most an
 * entry's largest size, the gate's own error messages escaped before
 * they reach a terminal. The token is the client's (transport.c) and
 * never seen here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "audit.h"
#include "audit_remote.h"
#include "b64.h"
#include "dynbuf.h"
#include "err.h"
#include "merkle.h"
#include "util.h"

/* A reply that is not 200 with a JSON object: AL_EIO saying what the
 * gate said (escaped), and what to do about a missing token or role. */
static int
reply_check(struct client *c, const char *path, const struct client_reply *r)
{
	const json_t *e = json_object_get(r->json, "error");
	struct dynbuf m;
	int rc;

	if (r->status == 200 && json_is_object(r->json))
		return 0;
	dynbuf_init(&m, 1024);
	if (json_is_string(e) && al_term_escape(&m, json_string_value(e),
	    json_string_length(e) > 300 ? 300 : json_string_length(e)) < 0)
		dynbuf_reset(&m);
	rc = al_err_set(AL_EIO, "%s: GET %s: HTTP %ld%s%s%s", client_where(c),
	    path, r->status, m.len > 0 ? ": " : r->status == 200 ?
	    " without a JSON object" : "", dynbuf_str(&m), r->status == 401 &&
	    !client_has_token(c) ? " (no token given: set AIRLOCK_TOKEN or "
	    "use --token-file)" : r->status == 403 ? " (an auditor's or an "
	    "admin's token is needed)" : "");
	dynbuf_free(&m);
	return rc;
}

/* GET path, a 200 with a JSON object into r. */
static int
get_json(struct client *c, const char *path, struct client_reply *r)
{
	int rc;

	if ((rc = client_get(c, path, r)) == 0 && (rc = reply_check(c, path,
	    r)) < 0)
		client_reply_free(r);
	return rc;
}

/* A member that must be an integer from 0 (JSON has no unsigned). */
static int
json_index(const json_t *o, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* ---- keys and checkpoints ---------------------------------------------- */

static int
keys_take(struct audit_served *s, const json_t *arr)
{
	const json_t *k;
	size_t i;
	int rc;

	if ((s->vkeys = calloc(json_array_size(arr) + 1, sizeof(char *))) ==
	    NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	json_array_foreach(arr, i, k) {
		if (!json_is_string(k))
			return al_err_set(AL_EINVAL, "GET /v1/audit/keys: key %zu "
			    "is not a string", i);
		if ((rc = gate_keyring_add_vkey(&s->keys, json_string_value(k),
		    json_string_length(k), s->origin)) < 0)
			return al_err_set(rc, "GET /v1/audit/keys: key %zu: %s", i,
			    al_err_msg());
		if ((s->vkeys[s->nvkeys++] = strdup(json_string_value(k))) ==
		    NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
	}
	return 0;
}

int
audit_remote_keys(struct client *c, struct audit_served *s)
{
	struct client_reply r = {0, NULL};
	const json_t *arr;
	const char *origin;
	int rc;

	if ((rc = get_json(c, "/v1/audit/keys", &r)) < 0)
		return rc;
	origin = json_string_value(json_object_get(r.json, "origin"));
	arr = json_object_get(r.json, "keys");
	if (origin == NULL || !note_name_ok(origin, strlen(origin)) ||
	    strncmp(origin, AUDIT_ORIGIN_PREFIX, strlen(AUDIT_ORIGIN_PREFIX)) !=
	    0 || !json_is_array(arr) || json_array_size(arr) == 0)
		rc = al_err_set(AL_EINVAL, "GET /v1/audit/keys: not {\"origin\": "
		    "\"" AUDIT_ORIGIN_PREFIX "...\", \"keys\": [at least one]}");
	else if ((s->origin = strdup(origin)) == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	else
		rc = keys_take(s, arr);
	client_reply_free(&r);
	return rc;
}

static int
checkpoint_take(struct served_checkpoint *sc, const json_t *o, size_t i)
{
	const json_t *note = json_object_get(o, "note"), *id;

	id = json_object_get(o, "id");
	if (!json_is_integer(id) || json_index(o, "size", &sc->size) < 0 ||
	    !json_is_string(note))
		return al_err_set(AL_EINVAL, "GET /v1/audit/checkpoints: "
		    "checkpoint %zu is not {\"id\", \"size\", \"note\"}", i);
	sc->id = (int64_t)json_integer_value(id);
	sc->len = json_string_length(note);
	if ((sc->note = malloc(sc->len + 1)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	memcpy(sc->note, json_string_value(note), sc->len + 1);
	return 0;
}

int
audit_remote_checkpoints(struct client *c, struct audit_served *s)
{
	struct client_reply r = {0, NULL};
	const json_t *arr, *o;
	size_t i;
	int rc;

	if ((rc = get_json(c, "/v1/audit/checkpoints", &r)) < 0)
		return rc;
	arr = json_object_get(r.json, "checkpoints");
	if (!json_is_array(arr))
		rc = al_err_set(AL_EINVAL, "GET /v1/audit/checkpoints: no "
		    "\"checkpoints\" list");
	else if (json_array_size(arr) > 0 && (s->ckpts = calloc(
	    json_array_size(arr), sizeof(*s->ckpts))) == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	json_array_foreach(arr, i, o) {
		if (rc < 0)
			break;
		rc = checkpoint_take(&s->ckpts[s->nckpts++], o, i);
	}
	client_reply_free(&r);
	return rc;
}

void
audit_served_clear(struct audit_served *s)
{
	size_t i;

	for (i = 0; i < s->nvkeys; i++)
		free(s->vkeys[i]);
	for (i = 0; i < s->nckpts; i++)
		free(s->ckpts[i].note);
	free(s->vkeys);
	free(s->ckpts);
	free(s->origin);
	attest_keyring_clear(&s->keys);
	memset(s, 0, sizeof(*s));
}

/* ---- the entries ------------------------------------------------------- */

struct rwalk {
	struct client *c;
	struct db_audit_report *r;
	struct db_audit_walk w;
	struct merkle_stream s;
	uint64_t size;            /* the log's when the walk began: verified */
	uint64_t seen;            /* the size the last page said */
	uint64_t last_event;
	unsigned page;            /* entries asked for per request */
	int stop;                 /* a gap or a shrink: nothing more to hash */
};

/* The root of the leaves pushed, to every check of that size. */
static void
rw_check(struct rwalk *rw)
{
	uint8_t root[32];

	if (db_audit_walk_wants(&rw->w) != rw->s.size)
		return;
	merkle_stream_root(&rw->s, root);
	db_audit_walk_root(&rw->w, rw->s.size, root);
}

/* Entry idx (its bytes and the leaf hash the gate stores for it, both
 * hostile) into the tree. */
static int
rw_entry(struct rwalk *rw, uint64_t idx, const unsigned char *e, size_t len,
    const uint8_t stored[32])
{
	uint8_t leaf[32];
	uint64_t ev = 0;
	int rc;

	if (gate_entry_check((const char *)e, len, idx, &ev) < 0)
		db_audit_fail(rw->r, idx, "entry %" PRIu64 " is not a well-formed "
		    "version 1 entry of its place: %s", idx, al_err_msg());
	else if (ev <= rw->last_event)
		db_audit_fail(rw->r, idx, "entry %" PRIu64 " records event %"
		    PRIu64 " after event %" PRIu64 " (reordered?)", idx, ev,
		    rw->last_event);
	if (ev > 0)
		rw->last_event = ev;
	/* Hashed whatever its form: an edit shows at its root too. The
	 * stored hash only names where: the roots are what is signed. */
	merkle_leaf_hash(e, len, leaf);
	if (memcmp(leaf, stored, 32) != 0)
		db_audit_fail(rw->r, idx, "entry %" PRIu64 " does not hash to the "
		    "leaf hash the gate stores for it (the entry or the hash was "
		    "edited)", idx);
	if ((rc = merkle_stream_push(&rw->s, leaf)) < 0)
		return rc;
	rw_check(rw);
	return 0;
}

/* The entry and hash members of one served entry, decoded. */
static int
entry_bytes(const json_t *o, uint64_t idx, unsigned char *buf, size_t *len,
    uint8_t hash[32])
{
	const json_t *e = json_object_get(o, "entry");
	const json_t *h = json_object_get(o, "hash");
	size_t hl = 0;

	if (!json_is_string(e) || al_b64_decode(buf, DB_AUDIT_ENTRY_MAX, len,
	    json_string_value(e), json_string_length(e)) < 0)
		return al_err_set(AL_EINVAL, "GET /v1/audit/entries: entry %"
		    PRIu64 " is not base64 of at most %u bytes", idx,
		    DB_AUDIT_ENTRY_MAX);
	if (!json_is_string(h) || al_b64_decode(hash, 32, &hl,
	    json_string_value(h), json_string_length(h)) < 0 || hl != 32)
		return al_err_set(AL_EINVAL, "GET /v1/audit/entries: the hash of "
		    "entry %" PRIu64 " is not base64 of 32 bytes", idx);
	return 0;
}

/* One page's entries from index from: each at its place, up to the
 * walk's size; *next the index after the last one taken. */
static int
rw_entries(struct rwalk *rw, const json_t *arr, uint64_t from,
    uint64_t *next)
{
	unsigned char *buf = malloc(DB_AUDIT_ENTRY_MAX);
	const json_t *o;
	uint64_t idx = from, got = 0;
	uint8_t hash[32];
	size_t i, len = 0;
	int rc = 0;

	if (buf == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	json_array_foreach(arr, i, o) {
		if (idx >= rw->size)
			break; /* appended since the walk began */
		if (json_index(o, "index", &got) < 0) {
			rc = al_err_set(AL_EINVAL, "GET /v1/audit/entries: entry "
			    "%zu of the page has no index", i);
			break;
		}
		if (got != idx) {
			/* The tree above it cannot be recomputed. */
			db_audit_fail(rw->r, idx, "entry %" PRIu64 " is %s: asked "
			    "for it, the gate served entry %" PRIu64 " in its "
			    "place", idx, got > idx ? "missing" : "out of order",
			    got);
			rw->stop = 1;
			break;
		}
		if ((rc = entry_bytes(o, idx, buf, &len, hash)) < 0 ||
		    (rc = rw_entry(rw, idx, buf, len, hash)) < 0)
			break;
		idx++;
	}
	free(buf);
	*next = idx;
	return rc;
}

/* One page from index from; *next where the next one starts. */
static int
rw_page(struct rwalk *rw, uint64_t from, int first, uint64_t *next)
{
	struct client_reply r = {0, NULL};
	const json_t *arr;
	uint64_t size = 0, at = 0;
	char path[96];
	int rc;

	snprintf(path, sizeof(path), "/v1/audit/entries?from=%" PRIu64
	    "&limit=%u", from, rw->page);
	if ((rc = get_json(rw->c, path, &r)) < 0)
		return rc;
	arr = json_object_get(r.json, "entries");
	if (json_index(r.json, "size", &size) < 0 || json_index(r.json, "from",
	    &at) < 0 || at != from || !json_is_array(arr)) {
		rc = al_err_set(AL_EINVAL, "GET %s: not {\"size\", \"from\": %"
		    PRIu64 ", \"entries\": [...]}", path, from);
	} else if (!first && size < rw->seen) {
		db_audit_fail(rw->r, size, "the log shrank from %" PRIu64 " to %"
		    PRIu64 " entries while it was read (cut short?)", rw->seen,
		    size);
		rw->stop = 1;
	} else if (json_array_size(arr) == 0 && from < (first ? size :
	    rw->size)) {
		db_audit_fail(rw->r, from, "the gate served no entry from %"
		    PRIu64 ", though it says its log has %" PRIu64, from, size);
		rw->stop = 1;
	} else {
		if (first)
			rw->size = size;
		rw->seen = size;
		rc = rw_entries(rw, arr, from, next);
	}
	client_reply_free(&r);
	return rc;
}

int
audit_remote_walk(struct client *c, unsigned page,
    struct db_audit_check *checks, size_t n, struct db_audit_report *r)
{
	struct rwalk *rw;
	uint64_t from = 0;
	int rc, first = 1;

	/* The stream holds 64 hashes: on the heap, not the stack. */
	if ((rw = calloc(1, sizeof(*rw))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	if ((rc = db_audit_walk_begin(&rw->w, checks, n, r)) < 0) {
		free(rw);
		return rc;
	}
	rw->c = c;
	rw->r = r;
	rw->page = page;
	merkle_stream_init(&rw->s);
	rw_check(rw);
	do {
		rc = rw_page(rw, from, first, &from);
		first = 0;
	} while (rc == 0 && !rw->stop && from < rw->size);
	r->size = rw->s.size;
	merkle_stream_root(&rw->s, r->root);
	db_audit_walk_end(&rw->w);
	free(rw);
	return rc;
}
