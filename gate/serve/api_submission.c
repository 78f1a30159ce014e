/*
 * api_submission.c - submissions: intake (the bytes stored, the row
 * committed, only then 201), list, show, the stored content, the kept
 * bytes of one item and the events of one.
 *
 * Trust: on the intake socket and for agents, a caller sees only its own
 * submissions; names and labels (asserted by the agent) are bounded and
 * checked before they are stored, UTF-8 text without NUL among the
 * checks. What the scan found in the artifact (paths, excerpts, types) is
 * hostile text of any bytes: it goes into the JSON by the text scheme
 * (common/json_text.h), and an answer is whole or a 500, never one with a
 * finding left out. The content is served as bytes, never interpreted.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fold.h"
#include "os.h"
#include "serve.h"
#include "util.h"

/*
 * A submission as JSON: what the gate says itself by json_pack; the name,
 * the labels and the names of the submitter and the person by the text
 * scheme (json_text.h), so that none of them can break the document.
 */
static int
submission_json(json_t **out, const struct db_submission *b)
{
	json_t *asserted = json_object(), *witnessed, *j = NULL;
	size_t i;
	int rc = 0;

	*out = NULL;
	for (i = 0; rc == 0 && asserted != NULL && i < b->nlabels; i++)
		rc = al_json_set_textz(asserted, b->labels[i].key,
		    b->labels[i].value);
	witnessed = json_pack("{s:s, s:o, s:o, s:o}", "via", b->via,
	    "peer_uid", b->peer_uid >= 0 ? json_integer(b->peer_uid) :
	    json_null(), "peer_pid", b->peer_pid >= 0 ?
	    json_integer(b->peer_pid) : json_null(),
	    "received_at", srv_json_time(b->received_at));
	if (rc == 0 && witnessed != NULL &&
	    (rc = al_json_set_textz(witnessed, "submitter",
	    b->submitter_name)) == 0)
		rc = al_json_set_textz(witnessed, "launched_by", b->launched_by);
	/* "kind" is the gate's reading (null until a scan read it); what
	 * the submitter asked for is only a label. */
	if (rc == 0 && asserted != NULL && witnessed != NULL)
		j = json_pack("{s:I, s:s, s:o, s:o, s:s, s:I, s:o, s:s, s:O, "
		    "s:O}", "id", (json_int_t)b->id, "state",
		    al_state_name(b->state),
		    "verdict", srv_json_str(al_verdict_name(b->verdict)),
		    "worst", srv_json_str(al_severity_name(b->worst)),
		    "sha256", b->sha256, "size", (json_int_t)b->size,
		    "kind", srv_json_str(b->kind_read != AL_KIND_AUTO ?
		    al_kind_name(b->kind_read) : NULL),
		    "kind_asked", al_kind_name(b->kind),
		    "witnessed", witnessed, "asserted", asserted);
	json_decref(asserted);
	json_decref(witnessed);
	if (rc == 0 && j == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory for a submission");
	if (rc == 0)
		rc = al_json_set_textz(j, "name", b->name);
	if (rc < 0) {
		json_decref(j);
		return rc;
	}
	*out = j;
	return 0;
}

/* One finding of a scan: every text by the scheme. */
static int
finding_json(json_t *arr, const struct db_finding *f)
{
	json_t *o = json_pack("{s:s, s:I, s:I}", "severity",
	    al_severity_name(f->severity), "line", (json_int_t)f->line,
	    "column", (json_int_t)f->column);
	int rc;

	if (o == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for a finding");
	if ((rc = al_json_set_textz(o, "rule", f->rule)) < 0 ||
	    (rc = al_json_set_textz(o, "path", f->path)) < 0 ||
	    (rc = al_json_set_textz(o, "excerpt", f->excerpt)) < 0 ||
	    (rc = al_json_set_textz(o, "fingerprint", f->fingerprint)) < 0) {
		json_decref(o);
		return rc;
	}
	return srv_json_append(arr, o);
}

/* One item of a scan: its path and type (libmagic's words about hostile
 * bytes) by the scheme. */
static int
item_json(json_t *arr, const struct db_item *it)
{
	json_t *o = json_pack("{s:I, s:I, s:o, s:o}", "mode",
	    (json_int_t)it->mode, "size", (json_int_t)it->size,
	    "sha256", it->sha256 != NULL && it->sha256[0] ?
	    json_string(it->sha256) : json_null(), "content",
	    srv_json_str(al_content_name(it->content)));
	int rc;

	if (o == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for an item");
	if ((rc = al_json_set_textz(o, "path", it->path)) < 0 ||
	    (rc = al_json_set_textz(o, "type", it->type)) < 0) {
		json_decref(o);
		return rc;
	}
	return srv_json_append(arr, o);
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
	json_t *j = NULL, *arr = NULL;
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
	rc = submission_json(&j, &b);
	db_submission_clear(&b);
	if (rc == 0 && db_scan_latest(db, q->id, &si) == 0) {
		rc = srv_json_set(j, "scan", json_pack("{s:s, s:s, s:o, s:o}",
		    "ruleset", si.ruleset_digest, "engine", si.engine_version,
		    "started_at", srv_json_time(si.started_at), "finished_at",
		    srv_json_time(si.finished_at)));
		db_scan_info_clear(&si);
	}
	if (rc == 0 && db_review_get(db, q->id, &q->s->policy, &rv) == 0) {
		rc = srv_json_set(j, "review", srv_review_json(&rv));
		db_review_clear(&rv);
	}
	/* Every finding, or no answer: a finding left out would read as a
	 * verdict with nothing behind it. */
	if (rc == 0)
		rc = srv_json_set(j, "findings", arr = json_array());
	for (i = 0; rc == 0 && i < nf; i++)
		rc = finding_json(arr, &f[i]);
	db_findings_free(f, nf);
	if (rc == 0 && db_items_get(db, q->id, &it, &nit) == 0) {
		rc = srv_json_set(j, "items", arr = json_array());
		for (i = 0; rc == 0 && i < nit; i++)
			rc = item_json(arr, &it[i]);
		db_items_free(it, nit);
	}
	if (rc == 0)
		rc = srv_show_record(q, db, j);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc);
}

/*
 * The list's query (GET /v1/submissions): each argument at most once, a
 * value to each, nothing else; what is wrong is said precisely, never by
 * echoing the value (it may be any bytes). An agent, and any caller on
 * the intake socket, still sees only its own: the filters narrow that,
 * never widen it.
 */
enum list_arg {
	LA_STATE, LA_SEVERITY, LA_KIND, LA_AGENT, LA_PERSON, LA_SORT,
	LA_LIMIT, LA_CURSOR, LA_MAX,
};

static const char *const list_args[LA_MAX] = {"state", "severity", "kind",
    "agent", "person", "sort", "limit", "cursor"};
static const char *const list_sorts[] = {"newest", "oldest", "severity"};
/* A cursor's first letter, by sort: the key it carries is that sort's. */
static const char list_cursor_tag[] = "nos";

struct list_query {
	const char *v[LA_MAX];
	char why[400];            /* "" while nothing is wrong */
};

static enum MHD_Result
list_arg(void *cls, enum MHD_ValueKind kind, const char *key,
    size_t key_size, const char *value, size_t value_size)
{
	struct list_query *lq = cls;
	size_t i;

	(void)kind;
	for (i = 0; i < LA_MAX && (strlen(list_args[i]) != key_size ||
	    memcmp(key, list_args[i], key_size) != 0); i++)
		;
	if (i == LA_MAX)
		snprintf(lq->why, sizeof(lq->why), "unknown query argument (the "
		    "list takes state, severity, kind, agent, person, sort, "
		    "limit and cursor)");
	else if (lq->v[i] != NULL)
		snprintf(lq->why, sizeof(lq->why), "%s is given twice: give "
		    "each argument once", list_args[i]);
	else if (value == NULL || value_size == 0)
		snprintf(lq->why, sizeof(lq->why), "%s has no value",
		    list_args[i]);
	else if (memchr(value, '\0', value_size) != NULL)
		snprintf(lq->why, sizeof(lq->why), "%s holds a NUL byte",
		    list_args[i]);
	else
		lq->v[i] = value;
	return lq->why[0] == '\0' ? MHD_YES : MHD_NO;
}

/* A decimal of 1 to 15 digits, at least 1, or 0. */
static int64_t
list_number(const char *v)
{
	return srv_parse_id(v, strlen(v));
}

/* The cursor of sort (list_cursor_tag, then "W." for severity, then the
 * id) into pq; -1 when it is not one. */
static int
list_cursor_parse(const char *v, struct db_page_query *pq)
{
	if (v[0] != list_cursor_tag[pq->sort])
		return -1;
	v++;
	if (pq->sort == DB_PAGE_SEVERITY) {
		/* The worst's rank, 0 (none) to 5 (critical), then ".". */
		if (v[0] < '0' || v[0] > '0' + AL_SEV_MAX || v[1] != '.')
			return -1;
		pq->after_worst = v[0] - '0' - 1;
		v += 2;
	}
	if ((pq->after_id = list_number(v)) == 0)
		return -1;
	pq->after = 1;
	return 0;
}

/* The cursor that goes past row r in sort, into buf. */
static void
list_cursor(char *buf, size_t size, enum db_page_sort sort,
    const struct db_submission *r)
{
	if (sort == DB_PAGE_SEVERITY)
		snprintf(buf, size, "%c%d.%" PRId64, list_cursor_tag[sort],
		    (int)r->worst + 1, r->id);
	else
		snprintf(buf, size, "%c%" PRId64, list_cursor_tag[sort], r->id);
}

/* The page query of lq's arguments, or -1 with lq->why. */
static int
list_query_parse(struct list_query *lq, const struct req *q,
    struct db_page_query *pq, char *person, size_t person_size)
{
	const char *const *v = lq->v;
	int64_t n;
	size_t i;
	int k;

	memset(pq, 0, sizeof(*pq));
	pq->state = pq->kind = -1;
	pq->min_worst = AL_SEV_NONE;
	pq->limit = 100;
	pq->sort = DB_PAGE_NEWEST;
	if (q->intake || q->who.role == DB_ROLE_AGENT)
		pq->submitter = q->who.id;
	if (v[LA_STATE] != NULL && (pq->state = al_state_parse(v[LA_STATE])) < 0)
		snprintf(lq->why, sizeof(lq->why), "unknown state (received, "
		    "scanning, held, approved, rejected, released, expired)");
	else if (v[LA_SEVERITY] != NULL &&
	    (pq->min_worst = al_severity_parse(v[LA_SEVERITY])) < 0)
		snprintf(lq->why, sizeof(lq->why), "unknown severity (info, "
		    "low, medium, high, critical: the worst at least that)");
	else if (v[LA_KIND] != NULL && ((k = al_kind_parse(v[LA_KIND])) <
	    AL_KIND_FILE || k > AL_KIND_BUNDLE))
		snprintf(lq->why, sizeof(lq->why), "unknown kind (file, "
		    "archive, patch, mbox, bundle: the kind the gate read)");
	else if (v[LA_AGENT] != NULL && !srv_name_ok(v[LA_AGENT], 64))
		snprintf(lq->why, sizeof(lq->why), "agent is a token's name: 1 "
		    "to 64 letters, digits and . _ - @");
	else if (v[LA_PERSON] != NULL && al_name_fold(person, person_size,
	    v[LA_PERSON], strlen(v[LA_PERSON]), NULL, NULL) < 0)
		snprintf(lq->why, sizeof(lq->why), "person: %s", al_err_msg());
	else if (v[LA_LIMIT] != NULL && ((n = list_number(v[LA_LIMIT])) == 0 ||
	    n > (int64_t)DB_PAGE_MAX))
		snprintf(lq->why, sizeof(lq->why), "limit is a number from 1 to "
		    "%u", DB_PAGE_MAX);
	if (lq->why[0] != '\0')
		return -1;
	if (v[LA_KIND] != NULL)
		pq->kind = al_kind_parse(v[LA_KIND]);
	if (v[LA_AGENT] != NULL)
		pq->agent = v[LA_AGENT];
	if (v[LA_PERSON] != NULL)
		pq->person = person;
	if (v[LA_LIMIT] != NULL)
		pq->limit = (size_t)list_number(v[LA_LIMIT]);
	if (v[LA_SORT] != NULL) {
		for (i = 0; i < 3 && strcmp(v[LA_SORT], list_sorts[i]) != 0; i++)
			;
		if (i == 3) {
			snprintf(lq->why, sizeof(lq->why), "unknown sort (newest, "
			    "oldest, severity)");
			return -1;
		}
		pq->sort = (enum db_page_sort)i;
	}
	if (v[LA_CURSOR] != NULL && list_cursor_parse(v[LA_CURSOR], pq) < 0) {
		snprintf(lq->why, sizeof(lq->why), "cursor is not one this list "
		    "gave for sort=%s: pass back \"next\" as it came, with the "
		    "same sort", list_sorts[pq->sort]);
		return -1;
	}
	return 0;
}

enum MHD_Result
api_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct list_query lq;
	struct db_page_query pq;
	struct db_page_row *v = NULL;
	char person[AL_FOLD_MAX + 1], next[64];
	size_t n = 0, i;
	json_t *arr = NULL, *one, *j;
	int rc, more = 0;

	memset(&lq, 0, sizeof(lq));
	(void)MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, list_arg,
	    &lq);
	if (lq.why[0] != '\0' || list_query_parse(&lq, q, &pq, person,
	    sizeof(person)) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    lq.why);
	if (db_submission_page(db, &pq, &q->s->policy, &v, &n, &more) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	/* Every submission, or no answer: none is left out of a list. */
	j = json_object();
	rc = j == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    srv_json_set(j, "submissions", arr = json_array());
	for (i = 0; rc == 0 && i < n; i++) {
		if ((rc = submission_json(&one, &v[i].sub)) == 0 &&
		    (rc = srv_json_set(one, "review",
		    srv_review_json(&v[i].review))) < 0)
			json_decref(one);
		else if (rc == 0)
			rc = srv_json_append(arr, one);
	}
	if (rc == 0 && more && n > 0)
		list_cursor(next, sizeof(next), pq.sort, &v[n - 1].sub);
	if (rc == 0)
		rc = srv_json_set(j, "next", more && n > 0 ? json_string(next) :
		    json_null());
	db_submission_page_free(v, n);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc);
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
	struct db_submission b;
	size_t n = 0;
	json_t *arr = NULL;
	int rc;

	if (db_submission_get(db, q->id, &b) < 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	db_submission_clear(&b);
	if (db_event_list(db, q->id, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	rc = srv_events_json(&arr, v, n, 0);
	db_event_list_free(v, n);
	return srv_respond_built(q, c, MHD_HTTP_OK, rc == 0 ?
	    json_pack("{s:o}", "events", arr) : NULL, rc);
}

/*
 * What is wrong with text the agent chose (a name, a label's value), in
 * words for a 400, or NULL when it is UTF-8 without NUL. Such text is
 * refused, not carried: the agent can always name its artifact in UTF-8,
 * while what an artifact holds (member names, paths, lines) is carried by
 * the text scheme and never refused (docs/api.md).
 */
static const char *
text_problem(const char *p, size_t n, char *buf, size_t size)
{
	size_t i = 0, len;
	uint32_t cp;

	if (memchr(p, '\0', n) != NULL)
		return "holds a NUL byte";
	while (i < n) {
		if ((len = al_utf8_seq((const unsigned char *)p + i, n - i,
		    &cp)) == 0) {
			snprintf(buf, size, "is not UTF-8 text (byte %zu of %zu "
			    "is not valid)", i + 1, n);
			return buf;
		}
		i += len;
	}
	return NULL;
}

struct label_scan {
	struct db_label *v;
	size_t n;
	int bad;
	char why[256];            /* a precise reason, or "" for the usual */
};

static enum MHD_Result
collect_label(void *cls, enum MHD_ValueKind kind, const char *key,
    size_t key_size, const char *value, size_t value_size)
{
	static const size_t sn = sizeof(AL_JSON_HEX_SUFFIX) - 1;
	struct label_scan *ls = cls;
	const char *eq, *problem;
	char buf[96];
	size_t klen, vlen;

	(void)kind;
	if (key_size != 5 || memcmp(key, "label", 5) != 0)
		return MHD_YES;
	if (value == NULL || (eq = memchr(value, '=', value_size)) == NULL ||
	    ls->n == SERVE_MAX_LABELS) {
		ls->bad = 1;
		return MHD_NO;
	}
	klen = (size_t)(eq - value);
	vlen = value_size - klen - 1;
	if (klen == 0 || klen > SERVE_MAX_LABEL_KEY ||
	    vlen > SERVE_MAX_LABEL_VALUE || memchr(value, '\0', klen) != NULL) {
		ls->bad = 1;
		return MHD_NO;
	}
	ls->v[ls->n].key = strndup(value, klen);
	ls->v[ls->n].value = NULL;
	if (ls->v[ls->n].key == NULL ||
	    !srv_name_ok(ls->v[ls->n].key, SERVE_MAX_LABEL_KEY)) {
		free(ls->v[ls->n].key);
		ls->bad = 1;
		return MHD_NO;
	}
	/* The text scheme's siblings are "<key>_hex": a label of that name
	 * could pass for the bytes of another. */
	if (klen > sn && memcmp(value + klen - sn, AL_JSON_HEX_SUFFIX,
	    sn) == 0)
		snprintf(ls->why, sizeof(ls->why), "label %s: keys ending in "
		    "%s are kept for the bytes of text that is not UTF-8 "
		    "(docs/api.md)", ls->v[ls->n].key, AL_JSON_HEX_SUFFIX);
	else if ((problem = text_problem(eq + 1, vlen, buf,
	    sizeof(buf))) != NULL)
		snprintf(ls->why, sizeof(ls->why), "label %s: the value %s",
		    ls->v[ls->n].key, problem);
	else if ((ls->v[ls->n].value = strndup(eq + 1, vlen)) != NULL) {
		ls->n++;
		return MHD_YES;
	}
	free(ls->v[ls->n].key);
	ls->bad = 1;
	return MHD_NO;
}

/* The body has all arrived: store it, record it, answer. */
enum MHD_Result
api_submit(struct req *q, struct MHD_Connection *c, struct db *db)
{
	const char *kind = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "kind");
	struct db_label labels[SERVE_MAX_LABELS];
	struct label_scan ls = {labels, 0, 0, ""};
	struct db_submission b;
	const char *name = NULL, *problem = NULL;
	char buf[96], why[160];
	size_t name_len = 0;
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
	/* With its length: a %00 in it must not cut it short unseen. */
	if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, "name", 4,
	    &name, &name_len) != MHD_YES || name == NULL) {
		name = "artifact";
		name_len = strlen(name);
	}
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, collect_label,
	    &ls);
	asked = al_kind_parse(kind);
	if (al_kind_submittable(asked) && name_len > 0 &&
	    name_len <= SERVE_MAX_NAME && (problem = text_problem(name,
	    name_len, buf, sizeof(buf))) != NULL)
		snprintf(why, sizeof(why), "the name %s%s", problem,
		    problem == buf ? ": name the artifact in UTF-8" : "");
	if (!al_kind_submittable(asked) || name_len == 0 ||
	    name_len > SERVE_MAX_NAME || problem != NULL || ls.bad) {
		int big = ls.bad && ls.n == SERVE_MAX_LABELS;

		for (i = 0; i < ls.n; i++) {
			free(labels[i].key);
			free(labels[i].value);
		}
		return srv_fail(q, c, big ? MHD_HTTP_CONTENT_TOO_LARGE :
		    MHD_HTTP_BAD_REQUEST, big ? REJ_TOO_LARGE : REJ_BAD_REQUEST,
		    !al_kind_submittable(asked) ? "unknown kind (auto, file, "
		    "archive, patch, mbox, bundle)" : problem != NULL ? why :
		    ls.bad && ls.why[0] ? ls.why : ls.bad ? "labels are "
		    "KEY=VALUE, at most 32, keys of letters, digits and . _ - @ "
		    "(64 bytes), values up to 1024 bytes of UTF-8" : "a name is "
		    "1 to 255 bytes");
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
