/*
 * api_submission.c - submissions: intake (the bytes stored, the row
 * committed, only then 201), list, show, the stored content, the kept
 * bytes of one item and the events of one.
 *
 * Trust: on the intake socket and for agents, a caller sees only its own
 * submissions; names and labels (asserted by the agent) are bounded and
 * checked before they are stored. The content is served as bytes, never
 * interpreted.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "os.h"
#include "serve.h"

static json_t *
submission_json(const struct db_submission *b)
{
	json_t *asserted = json_object(), *j;
	size_t i;

	for (i = 0; i < b->nlabels; i++)
		json_object_set_new(asserted, b->labels[i].key,
		    json_string(b->labels[i].value));
	/* "kind" is the gate's reading (null until a scan read it); what
	 * the submitter asked for is only a label. */
	j = json_pack("{s:I, s:s, s:o, s:o, s:s, s:I, s:o, s:s, s:s, s:o, "
	    "s:o}", "id", (json_int_t)b->id, "state", al_state_name(b->state),
	    "verdict", srv_json_str(al_verdict_name(b->verdict)),
	    "worst", srv_json_str(al_severity_name(b->worst)),
	    "sha256", b->sha256, "size", (json_int_t)b->size,
	    "kind", srv_json_str(b->kind_read != AL_KIND_AUTO ?
	    al_kind_name(b->kind_read) : NULL),
	    "kind_asked", al_kind_name(b->kind), "name", b->name,
	    "witnessed", json_pack("{s:o, s:o, s:s, s:o, s:o, s:o}",
	    "submitter", srv_json_str(b->submitter_name),
	    "launched_by", srv_json_str(b->launched_by), "via", b->via,
	    "peer_uid", b->peer_uid >= 0 ? json_integer(b->peer_uid) :
	    json_null(), "peer_pid", b->peer_pid >= 0 ?
	    json_integer(b->peer_pid) : json_null(),
	    "received_at", srv_json_time(b->received_at)),
	    "asserted", asserted);
	return j;
}

json_t *
srv_review_json(const struct db_review *r)
{
	return json_pack("{s:s, s:i, s:i, s:b}", "state",
	    al_state_name(r->state), "approvals",
	    r->approvals, "needed", r->needed, "override", r->override);
}

/* The submission, if this caller may see it (an agent: its own; on the
 * intake socket: the caller's own, whatever the role). */
static int
visible(const struct req *q, const struct db_submission *b)
{
	if (q->intake || q->who.role == DB_ROLE_AGENT)
		return b->submitter == q->who.id;
	return 1;
}

enum MHD_Result
api_show(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_submission b;
	struct db_finding *f = NULL;
	struct db_scan_info si;
	struct db_review rv;
	struct db_item *it = NULL;
	size_t nf = 0, i, nit = 0;
	json_t *j, *arr;
	int rc = db_submission_get(db, q->id, &b);

	if (rc == AL_ENOTFOUND || (rc == 0 && !visible(q, &b))) {
		if (rc == 0)
			db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	}
	if (rc < 0 || db_findings_get(db, q->id, &f, &nf) < 0) {
		if (rc == 0)
			db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	}
	j = submission_json(&b);
	if (db_scan_latest(db, q->id, &si) == 0) {
		json_object_set_new(j, "scan", json_pack("{s:s, s:s, s:o, s:o}",
		    "ruleset", si.ruleset_digest, "engine", si.engine_version,
		    "started_at", srv_json_time(si.started_at), "finished_at",
		    srv_json_time(si.finished_at)));
		db_scan_info_clear(&si);
	}
	if (db_review_get(db, q->id, &q->s->policy, &rv) == 0) {
		json_object_set_new(j, "review", srv_review_json(&rv));
		db_review_clear(&rv);
	}
	arr = json_array();
	for (i = 0; i < nf; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:I, "
		    "s:s, s:s}", "rule", f[i].rule, "severity",
		    al_severity_name(f[i].severity),
		    "path", f[i].path, "line", (json_int_t)f[i].line, "column",
		    (json_int_t)f[i].column, "excerpt", f[i].excerpt,
		    "fingerprint", f[i].fingerprint));
	json_object_set_new(j, "findings", arr);
	db_findings_free(f, nf);
	if (db_items_get(db, q->id, &it, &nit) == 0) {
		arr = json_array();
		for (i = 0; i < nit; i++)
			json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:o, "
			    "s:s, s:o}", "path", it[i].path, "mode",
			    (json_int_t)it[i].mode, "size", (json_int_t)it[i].size,
			    "sha256", it[i].sha256[0] ? json_string(it[i].sha256) :
			    json_null(), "type", it[i].type, "content",
			    srv_json_str(al_content_name(it[i].content))));
		json_object_set_new(j, "items", arr);
		db_items_free(it, nit);
	}
	db_submission_clear(&b);
	if (srv_show_record(q, db, j) < 0) {
		json_decref(j);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	}
	return srv_respond_json(c, MHD_HTTP_OK, j);
}

enum MHD_Result
api_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	const char *state = MHD_lookup_connection_value(c,
	    MHD_GET_ARGUMENT_KIND, "state");
	const char *lim = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "limit");
	struct db_submission *v = NULL;
	size_t n = 0, i, limit = 100;
	json_t *arr;
	int want = state == NULL ? -1 : al_state_parse(state);

	if (state != NULL && want < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "unknown state");
	if (lim != NULL && ((limit = (size_t)srv_parse_id(lim, strlen(lim))) == 0 ||
	    limit > 1000))
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "limit is 1 to 1000");
	if (db_submission_list(db, want, (q->intake ||
	    q->who.role == DB_ROLE_AGENT) ? q->who.id : 0, limit, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, submission_json(&v[i]));
	db_submission_list_free(v, n);
	return srv_respond_json(c, MHD_HTTP_OK, json_pack("{s:o}", "submissions",
	    arr));
}

/* The store has no object for bytes a row names (rc from
 * store_blob_open): an integrity alarm when it is gone, else 500. */
static enum MHD_Result
stored_missing(struct req *q, struct MHD_Connection *c, struct db *db, int rc,
    const char *sha256, int64_t item, const char *path)
{
	char msg[256];
	int requeued;

	if (rc != AL_ENOTFOUND) {
		fprintf(stderr, "airlock serve: submission %" PRId64 ": %s\n",
		    q->id, al_err_msg());
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "the stored bytes cannot be read");
	}
	requeued = srv_integrity_alarm(q->s, db, item < 0 ? SRV_INT_CONTENT :
	    SRV_INT_ITEM, q->id, item, path, sha256, "the stored object is "
	    "gone");
	snprintf(msg, sizeof(msg), "integrity alarm: the stored bytes of "
	    "submission %" PRId64 " (sha256 %.16s…) are gone: nothing was "
	    "served%s", q->id, sha256, requeued ? "; the submission is scanned "
	    "again" : "");
	return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX, msg);
}

enum MHD_Result
api_content(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_submission b;
	int fd = -1, rc;

	if (db_submission_get(db, q->id, &b) < 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	if (q->who.role == DB_ROLE_CI && b.state != AL_STATE_RELEASED) {
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "only released "
		    "bytes can be pulled");
	}
	if ((rc = store_blob_open(q->s->store, b.sha256, &fd)) < 0) {
		enum MHD_Result ok = stored_missing(q, c, db, rc, b.sha256, -1,
		    NULL);

		db_submission_clear(&b);
		return ok;
	}
	{
		/* Verified, served and recorded (what, how much) by view.c. */
		enum MHD_Result ok = srv_serve_view(q, c, db, fd,
		    (uint64_t)b.size, b.sha256, -1, NULL);

		db_submission_clear(&b);
		return ok;
	}
}

/*
 * GET /v1/submissions/ID/items/N/content: the kept bytes of the latest
 * scan's item N (its index in `items`), as stored under its sha256. The
 * read is recorded as its own event, "view.item" with the item's path
 * (view.c): a view of one member is not a view of the artifact; approval
 * takes every item of a scan whose items were all kept, or the artifact.
 */
enum MHD_Result
api_item_content(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_submission b;
	struct db_item *it = NULL;
	size_t nit = 0;
	int fd = -1, rc;

	if (db_submission_get(db, q->id, &b) < 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	db_submission_clear(&b);
	if (db_items_get(db, q->id, &it, &nit) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	if ((uint64_t)q->item >= nit || it[q->item].content != AL_CONTENT_KEPT) {
		db_items_free(it, nit);
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no kept content "
		    "for that item");
	}
	rc = store_blob_open(q->s->store, it[q->item].sha256, &fd);
	if (rc < 0) {
		enum MHD_Result ok = stored_missing(q, c, db, rc,
		    it[q->item].sha256, q->item, it[q->item].path);

		db_items_free(it, nit);
		return ok;
	}
	{
		enum MHD_Result ok = srv_serve_view(q, c, db, fd,
		    (uint64_t)it[q->item].size, it[q->item].sha256, q->item,
		    it[q->item].path);

		db_items_free(it, nit);
		return ok;
	}
}

enum MHD_Result
api_events(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_event *v = NULL;
	size_t n = 0;
	json_t *arr;

	struct db_submission b;

	if (db_submission_get(db, q->id, &b) < 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	db_submission_clear(&b);
	if (db_event_list(db, q->id, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	arr = srv_events_json(v, n, 0);
	db_event_list_free(v, n);
	return srv_respond_json(c, MHD_HTTP_OK, json_pack("{s:o}", "events", arr));
}

struct label_scan {
	struct db_label *v;
	size_t n;
	int bad;
};

static enum MHD_Result
collect_label(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct label_scan *ls = cls;
	const char *eq;
	size_t klen;

	(void)kind;
	if (strcmp(key, "label") != 0)
		return MHD_YES;
	if (value == NULL || (eq = strchr(value, '=')) == NULL ||
	    ls->n == SERVE_MAX_LABELS) {
		ls->bad = 1;
		return MHD_NO;
	}
	klen = (size_t)(eq - value);
	if (klen == 0 || klen > SERVE_MAX_LABEL_KEY ||
	    strlen(eq + 1) > SERVE_MAX_LABEL_VALUE) {
		ls->bad = 1;
		return MHD_NO;
	}
	ls->v[ls->n].key = strndup(value, klen);
	ls->v[ls->n].value = strdup(eq + 1);
	if (ls->v[ls->n].key == NULL || ls->v[ls->n].value == NULL ||
	    !srv_name_ok(ls->v[ls->n].key, SERVE_MAX_LABEL_KEY)) {
		free(ls->v[ls->n].key);
		free(ls->v[ls->n].value);
		ls->bad = 1;
		return MHD_NO;
	}
	ls->n++;
	return MHD_YES;
}

/* The body has all arrived: store it, record it, answer. */
enum MHD_Result
api_submit(struct req *q, struct MHD_Connection *c, struct db *db)
{
	const char *kind = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "kind");
	const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "name");
	struct db_label labels[SERVE_MAX_LABELS];
	struct label_scan ls = {labels, 0, 0};
	struct db_submission b;
	uint64_t size = 0;
	int64_t id = 0, now;
	enum MHD_Result ok;
	size_t i;
	int rc, asked;

	if (q->too_large)
		return srv_fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
		    "the artifact is larger than this gate accepts (--max-body)");
	if (q->store_rc < 0)
		return srv_fail_write(q, c, q->store_rc, "the artifact was not "
		    "stored, and nothing was recorded");
	if (kind == NULL)
		kind = al_kind_name(AL_KIND_AUTO);
	if (name == NULL)
		name = "artifact";
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_label, &ls);
	asked = al_kind_parse(kind);
	if (!al_kind_submittable(asked) || strlen(name) == 0 ||
	    strlen(name) > SERVE_MAX_NAME || ls.bad) {
		int big = ls.bad && ls.n == SERVE_MAX_LABELS;

		for (i = 0; i < ls.n; i++) {
			free(labels[i].key);
			free(labels[i].value);
		}
		return srv_fail(q, c, big ? MHD_HTTP_CONTENT_TOO_LARGE :
		    MHD_HTTP_BAD_REQUEST, big ? REJ_TOO_LARGE : REJ_BAD_REQUEST,
		    !al_kind_submittable(asked) ? "unknown kind (auto, file, "
		    "archive, patch, mbox, bundle)" : ls.bad ? "labels are "
		    "KEY=VALUE, at most 32, keys of letters, digits and . _ - @ "
		    "(64 bytes), values up to 1024 bytes" : "a name is 1 to 255 "
		    "bytes");
	}
	memset(&b, 0, sizeof(b));
	/* No sweep between the bytes and the row that refers to them. */
	pthread_rwlock_rdlock(&q->s->sweep_lock);
	rc = store_upload_commit(q->up, b.sha256, &size);
	q->up = NULL;
	if (rc < 0)
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
	if (rc == 0) {
		now = al_now_ms();
		b.size = (int64_t)size;
		b.kind = (enum al_kind)asked;
		b.name = (char *)(uintptr_t)name;
		b.submitter = q->who.id;
		b.launched_by = q->who.on_behalf_of;
		b.peer_uid = q->peer_uid;
		b.peer_pid = q->peer_pid;
		b.via = q->intake ? "socket" : "tcp";
		b.labels = labels;
		b.nlabels = ls.n;
		rc = db_submission_create(db, &b, now, &id);
	}
	pthread_rwlock_unlock(&q->s->sweep_lock);
	for (i = 0; i < ls.n; i++) {
		free(labels[i].key);
		free(labels[i].value);
	}
	/* A row that could not be committed leaves its object, whole, in
	 * the store: named by no row, as after a crash between the two. */
	if (rc < 0)
		return srv_fail_write(q, c, rc, "the artifact was not stored, and "
		    "nothing was recorded");
	pthread_mutex_lock(&q->s->lock);
	pthread_cond_signal(&q->s->wake);
	pthread_mutex_unlock(&q->s->lock);
	ok = srv_respond_json(c, MHD_HTTP_CREATED, json_pack("{s:I, s:s, s:I, s:s}",
	    "id", (json_int_t)id, "sha256", b.sha256, "size", (json_int_t)size,
	    "state", al_state_name(AL_STATE_RECEIVED)));
	return ok;
}
