/*
 * provenance.c - the whole chain of one artifact (provenance.h): for each
 * submission matched, what the gate witnessed (bytes, time, how it came
 * in, the peer, the token and its person) apart from what the agent
 * asserted (its name, kind and labels), how the gate read it, its latest
 * scan's findings by severity, and then every entry of the audit log
 * about it (scans, views, approvals, rejections, overrides, the release
 * and its attestation, pulls, refusals, alarms), each proved against the
 * newest signed checkpoint (its hash and its inclusion), and whether the
 * log verifies up to that checkpoint.
 *
 * Used by `airlock provenance` (gate/cli/cmd_provenance.c, no limits)
 * and GET /v1/provenance (gate/serve/api_audit.c, bounded: the newest
 * submissions and the first entries of each, the rest counted).
 *
 * Trust: see provenance.h. Text from an artifact, an agent or a person
 * goes in by the text scheme (al_json_set_text), never as a plain string.
 * Each submission costs one pass over the log's entries
 * (db_audit_leaves_about): a bound on the submissions is a bound on work.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "err.h"
#include "json_text.h"
#include "os.h"
#include "provenance.h"
#include "util.h"
#include "vocab.h"

static const char *const status_name[] = {
	[PROOF_OK] = "proved", [PROOF_LATER] = "after the checkpoint",
	[PROOF_FAILED] = "DOES NOT VERIFY",
};

/* An entry's field for display ("" if absent or longer than cap). */
static void
field(const struct proved_entry *e, const char *key, char *out, size_t cap)
{
	if (e->entry == NULL ||
	    gate_entry_field(e->entry, e->entry_len, key, out, cap) < 0)
		*out = '\0';
}

/* The findings of the latest scan by severity, as a JSON object. */
static json_t *
severity_counts(struct db *db, int64_t id)
{
	struct db_finding *f = NULL;
	json_t *o = json_object();
	size_t nf = 0, i;
	int k;

	if (o == NULL || db_findings_get(db, id, &f, &nf) < 0) {
		json_decref(o);
		return NULL;
	}
	for (k = AL_SEV_INFO; k <= AL_SEV_CRITICAL; k++) {
		json_int_t n = 0;

		for (i = 0; i < nf; i++)
			n += f[i].severity == (enum al_severity)k;
		json_object_set_new(o, al_severity_name((enum al_severity)k),
		    json_integer(n));
	}
	db_findings_free(f, nf);
	return o;
}

/* The facts of submission b, from its row, as JSON. */
static json_t *
facts(struct db *db, const struct db_submission *b)
{
	struct db_scan_info si;
	json_t *o, *labels = json_object();
	char t[32];
	size_t i;

	memset(&si, 0, sizeof(si));
	if (labels == NULL)
		return NULL;
	for (i = 0; i < b->nlabels; i++)
		(void)al_json_set_textz(labels, b->labels[i].key,
		    b->labels[i].value);
	al_time_iso(b->received_at, t);
	o = json_pack("{s:I, s:{s:s, s:I, s:s, s:s, s:I, s:I, s:s}, "
	    "s:{s:O, s:s}, s:s, s:s, s:s}",
	    "id", (json_int_t)b->id,
	    "witnessed", "sha256", b->sha256, "size", (json_int_t)b->size,
	    "received_at", t, "via", b->via ? b->via : "",
	    "peer_uid", (json_int_t)b->peer_uid, "peer_pid",
	    (json_int_t)b->peer_pid,
	    "submitter", b->submitter_name ? b->submitter_name : "",
	    "asserted", "labels", labels, "kind", al_kind_name(b->kind) ?
	    al_kind_name(b->kind) : "auto",
	    "read_as", b->kind_read != AL_KIND_AUTO ?
	    al_kind_name(b->kind_read) : "not yet",
	    "state", al_state_name(b->state),
	    "verdict", b->verdict != AL_VERDICT_NONE ?
	    al_verdict_name(b->verdict) : "none");
	json_decref(labels);
	if (o == NULL)
		return NULL;
	(void)al_json_set_textz(json_object_get(o, "witnessed"), "launched_for",
	    b->launched_by);
	(void)al_json_set_textz(json_object_get(o, "asserted"), "name",
	    b->name);
	(void)db_scan_latest(db, b->id, &si);
	if (si.id > 0)
		json_object_set_new(o, "latest_scan", json_pack("{s:I, s:s, s:s, "
		    "s:o}", "id", (json_int_t)si.id, "ruleset", si.ruleset_digest ?
		    si.ruleset_digest : "", "engine", si.engine_version ?
		    si.engine_version : "", "findings", severity_counts(db,
		    b->id)));
	db_scan_info_clear(&si);
	return o;
}

/* One entry of the timeline, as JSON (detail: a buffer of cap bytes). */
static json_t *
entry_json(const struct proved_entry *e, char *detail, size_t cap)
{
	char at[32], action[64], actor[256], role[16], person[256], t[32];
	json_t *x;

	field(e, "at", at, sizeof(at));
	field(e, "action", action, sizeof(action));
	field(e, "actor-name", actor, sizeof(actor));
	field(e, "actor-role", role, sizeof(role));
	field(e, "person-name", person, sizeof(person));
	field(e, "detail", detail, cap);
	al_time_iso(strtoll(at, NULL, 10), t);
	x = json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)e->idx,
	    "at", t, "action", action, "role", role, "proof",
	    status_name[e->status]);
	if (x == NULL)
		return NULL;
	(void)al_json_set_textz(x, "actor", actor[0] ? actor : "the gate");
	(void)al_json_set_textz(x, "person", person);
	(void)al_json_set_textz(x, "detail", detail);
	if (e->status == PROOF_FAILED)
		json_object_set_new(x, "why", json_string(e->why));
	return x;
}

/* The log's verdict on the entries pe (logrc: gate_entries_about's). */
static json_t *
log_json(const struct proved_entries *pe, int logrc, const char *logerr)
{
	const struct proved_entry *first = NULL;
	size_t i, nbad = 0;
	json_t *log;

	if (logrc < 0)
		return json_pack("{s:b, s:s}", "verified", 0, "error", logerr);
	for (i = 0; i < pe->n; i++)
		if (pe->v[i].status == PROOF_FAILED && nbad++ == 0)
			first = &pe->v[i];
	log = json_pack("{s:b, s:I, s:I, s:o, s:s}", "verified", nbad == 0,
	    "checkpoint", (json_int_t)pe->ckpt_id, "size",
	    (json_int_t)pe->ckpt_size, "root", gate_b64_json(pe->root, 32),
	    "key_id", pe->key_id);
	if (log != NULL && first != NULL)
		json_object_set_new(log, "failures", json_pack("{s:I, s:I, s:s}",
		    "count", (json_int_t)nbad, "first", (json_int_t)first->idx,
		    "why", first->why));
	return log;
}

/* One submission, as JSON, its timeline cut at max entries (0: all); *bad
 * set when an entry or the checkpoint fails to verify. */
static int
one(struct db *db, const char *dir, int64_t id, size_t max, json_t **out,
    int *bad)
{
	struct db_submission b;
	struct proved_entries pe = {0};
	json_t *o = NULL, *tl = json_array(), *log;
	char *detail = malloc(DB_AUDIT_ENTRY_MAX);
	size_t i;
	int rc, logrc;

	memset(&b, 0, sizeof(b));
	if (tl == NULL || detail == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = db_submission_get(db, id, &b)) < 0)
		goto out;
	if ((o = facts(db, &b)) == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	logrc = gate_entries_about(db, dir, id, &pe);
	log = log_json(&pe, logrc, al_err_msg());
	for (i = 0; logrc == 0 && i < pe.n && (max == 0 || i < max); i++) {
		json_t *x = entry_json(&pe.v[i], detail, DB_AUDIT_ENTRY_MAX);

		if (x == NULL || json_array_append_new(tl, x) < 0) {
			json_decref(log);
			rc = al_err_set(AL_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (log == NULL || !json_is_true(json_object_get(log, "verified")))
		*bad = 1;
	json_object_set_new(o, "timeline", tl);
	tl = NULL;
	if (logrc == 0 && i < pe.n)
		json_object_set_new(o, "timeline_not_shown",
		    json_integer((json_int_t)(pe.n - i)));
	json_object_set_new(o, "log", log);
	*out = o;
	o = NULL;
	rc = 0;
out:
	free(detail);
	json_decref(o);
	json_decref(tl);
	gate_entries_clear(&pe);
	db_submission_clear(&b);
	return rc;
}

/* The query as it was asked, and the ids it matches (oldest first). */
static int
matches(struct db *db, const struct prov_query *q, json_t **query,
    int64_t **ids, size_t *n)
{
	int rc;

	*ids = NULL;
	*n = 0;
	switch (q->by) {
	case PROV_BY_SHA256:
		*query = json_pack("{s:s}", "sha256", q->sha256);
		rc = db_submission_ids_of(db, q->sha256, ids, n);
		if (rc == 0 && *n == 0)
			rc = al_err_set(AL_ENOTFOUND, "no submission of the artifact "
			    "%s", q->sha256);
		break;
	case PROV_BY_ID:
		*query = json_pack("{s:I}", "id", (json_int_t)q->id);
		if ((*ids = malloc(sizeof(**ids))) == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		(*ids)[0] = q->id;
		*n = 1;
		rc = 0;
		break;
	case PROV_BY_PATH:
		if ((*query = json_object()) != NULL)
			(void)al_json_set_textz(*query, "path", q->path);
		rc = db_submission_ids_at_path(db, q->path, ids, n);
		if (rc == 0 && *n == 0)
			rc = al_err_set(AL_ENOTFOUND, "no submission is named so or "
			    "has an item at that path");
		break;
	default:
		return al_err_set(AL_EINVAL, "no query");
	}
	if (rc == 0 && *query == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	return rc;
}

int
gate_provenance(json_t **out, int *bad, struct db *db, const char *datadir,
    const struct prov_query *q)
{
	json_t *doc = NULL, *query = NULL, *subs = json_array(), *others;
	int64_t *ids = NULL;
	size_t n = 0, i, first = 0;
	int rc;

	*out = NULL;
	*bad = 0;
	if (subs == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	if ((rc = matches(db, q, &query, &ids, &n)) < 0)
		goto out;
	if (q->max_subs > 0 && n > q->max_subs)
		first = n - q->max_subs;
	for (i = first; i < n; i++) {
		json_t *o = NULL;

		if ((rc = one(db, datadir, ids[i], q->max_timeline, &o, bad)) < 0)
			goto out;
		json_array_append_new(subs, o);
	}
	doc = json_pack("{s:O, s:I, s:O}", "query", query, "matched",
	    (json_int_t)n, "submissions", subs);
	if (doc == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if (first > 0) {
		json_object_set_new(doc, "truncated", json_true());
		json_object_set_new(doc, "not_shown", others = json_array());
		for (i = first; i-- > 0 && json_array_size(others) <
		    PROV_MAX_OTHERS;)
			json_array_append_new(others, json_integer(ids[i]));
	}
	*out = doc;
	doc = NULL;
	rc = 0;
out:
	json_decref(doc);
	json_decref(query);
	json_decref(subs);
	free(ids);
	return rc;
}
