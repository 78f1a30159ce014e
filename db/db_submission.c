/*
 * db_submission.c - submissions: recording one (its blob, the row, its
 * labels and the event "submit", in one transaction), reading one, or a
 * page of the queue with their labels and where each stands against the
 * policy, freeing them, and the count per state.
 *
 * Trust: callers are the gate's own code; the facts the gate witnessed and
 * the labels the agent asserts are bound as parameters, never pasted into
 * SQL, and kept in separate tables. A row with a kind, state, verdict or
 * severity the schema does not know is reported as AL_EIO, not believed.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "dynbuf.h"
#include "err.h"

int
db_submission_create(struct db *db, const struct db_submission *in,
    int64_t now, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	size_t i;
	int rc;

	if (memchr(in->sha256, '\0', sizeof(in->sha256)) == NULL ||
	    (in->nlabels > 0 && in->labels == NULL))
		return al_err_set(AL_EINVAL, "malformed submission");
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	/* ON CONFLICT, not OR IGNORE: a CHECK failure must still fail. */
	rc = dbi_prep_bind(db, &st, "INSERT INTO blobs (sha256, size, "
	    "stored_at) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING",
	    "tii", in->sha256, in->size, now);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "INSERT INTO submissions (sha256, "
		    "size, kind, name, submitter, launched_by, peer_uid, "
		    "peer_pid, via, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, "
		    "?, ?, ?)", "tittitmmti", in->sha256, in->size,
		    al_kind_name(in->kind), in->name, in->submitter,
		    in->launched_by, in->peer_uid, in->peer_pid, in->via, now);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0)
		id = sqlite3_last_insert_rowid(db->h);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0 && in->nlabels > 0)
		rc = dbi_prep(db, &st, "INSERT INTO labels (submission_id, "
		    "key, value) VALUES (?, ?, ?)");
	for (i = 0; rc == 0 && i < in->nlabels; i++)
		if ((rc = dbi_bind(db, st, "itt", id, in->labels[i].key,
		    in->labels[i].value)) == 0)
			rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = dbi_event_addf(db, now, in->submitter, "submit", id,
		    "sha256=%s size=%lld", in->sha256, (long long)in->size);
	if ((rc = dbi_tx_end(db, rc)) == 0 && id_out != NULL)
		*id_out = id;
	return rc;
}

#define SUBMISSION_COLS "s.id, s.sha256, s.size, s.kind, s.name, " \
	"s.submitter, p.name AS submitter_name, s.launched_by, s.peer_uid, " \
	"s.peer_pid, s.via, s.received_at, s.state, s.verdict, s.worst, " \
	"s.kind_read"
#define SUBMISSION_FROM "FROM submissions s " \
	"JOIN principals p ON p.id = s.submitter "
#define SUBMISSION_SELECT "SELECT " SUBMISSION_COLS " " SUBMISSION_FROM

/* Fills s from a SUBMISSION_SELECT row, without its labels. */
static int
submission_row(sqlite3_stmt *st, struct db_submission *s)
{
	int nomem = 0, bad = 0;

	memset(s, 0, sizeof(*s));
	s->id = sqlite3_column_int64(st, 0);
	dbi_col_hex(st, 1, s->sha256);
	s->size = sqlite3_column_int64(st, 2);
	s->kind = (enum al_kind)dbi_col_enum(st, 3, al_kind_parse, -1, &bad);
	s->name = dbi_col_str(st, 4, &nomem);
	s->submitter = sqlite3_column_int64(st, 5);
	s->submitter_name = dbi_col_str(st, 6, &nomem);
	s->launched_by = dbi_col_str(st, 7, &nomem);
	s->peer_uid = dbi_col_int(st, 8, -1);
	s->peer_pid = dbi_col_int(st, 9, -1);
	s->via = dbi_col_str(st, 10, &nomem);
	s->received_at = sqlite3_column_int64(st, 11);
	s->state = (enum al_state)dbi_col_enum(st, 12, al_state_parse, -1,
	    &bad);
	s->verdict = (enum al_verdict)dbi_col_enum(st, 13, al_verdict_parse,
	    AL_VERDICT_NONE, &bad);
	s->worst = (enum al_severity)dbi_col_enum(st, 14, al_severity_parse,
	    AL_SEV_NONE, &bad);
	s->kind_read = (enum al_kind)dbi_col_enum(st, 15, al_kind_parse,
	    AL_KIND_AUTO, &bad);
	if (nomem) {
		db_submission_clear(s);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	if (bad || (int)s->kind < 0 || (int)s->state < 0 ||
	    (s->kind_read != AL_KIND_AUTO && (s->kind_read < AL_KIND_FILE ||
	    s->kind_read > AL_KIND_BUNDLE))) {
		int64_t id = s->id;

		db_submission_clear(s);
		return al_err_set(AL_EIO, "submission %lld: a kind, state, "
		    "verdict or severity the schema does not know",
		    (long long)id);
	}
	return 0;
}

/* Reads the labels of s with ls, a prepared label query. */
static int
submission_labels(struct db *db, sqlite3_stmt *ls, struct db_submission *s)
{
	size_t cap = 0;
	int rc, nomem = 0;

	rc = dbi_bind(db, ls, "i", s->id);
	while (rc == 0 && (rc = dbi_step(db, ls)) == 1) {
		if ((rc = dbi_grow(&s->labels, &cap, s->nlabels,
		    sizeof(*s->labels))) < 0)
			break;
		s->labels[s->nlabels].key = dbi_col_str(ls, 0, &nomem);
		s->labels[s->nlabels++].value = dbi_col_str(ls, 1, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	}
	sqlite3_reset(ls);
	return rc;
}

#define LABELS_SELECT "SELECT key, value FROM labels WHERE submission_id = ? " \
	"ORDER BY rowid"

int
db_submission_get(struct db *db, int64_t id, struct db_submission *out)
{
	sqlite3_stmt *st = NULL, *ls = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = dbi_prep_bind(db, &st, SUBMISSION_SELECT "WHERE s.id = ?", "i",
	    id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 0)
		rc = al_err_set(AL_ENOTFOUND, "no submission %lld",
		    (long long)id);
	else if (rc == 1 && (rc = submission_row(st, out)) == 0 &&
	    (rc = dbi_prep(db, &ls, LABELS_SELECT)) == 0)
		rc = submission_labels(db, ls, out);
	sqlite3_finalize(st);
	sqlite3_finalize(ls);
	if ((rc = dbi_tx_end(db, rc)) < 0)
		db_submission_clear(out);
	return rc;
}

void
db_submission_clear(struct db_submission *s)
{
	size_t i;

	if (s == NULL)
		return;
	free(s->name);
	free(s->submitter_name);
	free(s->launched_by);
	free(s->via);
	for (i = 0; i < s->nlabels; i++) {
		free(s->labels[i].key);
		free(s->labels[i].value);
	}
	free(s->labels);
	memset(s, 0, sizeof(*s));
}

/*
 * A page of the queue: one statement, whatever the number of rows. The
 * inner query picks the rows (filters, order, the key past which to go, at
 * most limit + 1: the one more says there are more) with the latest scan
 * of each; the outer one counts, for those rows only, the approvals and
 * overrides with db_int.h's SQL, the same that db_review_get and every
 * decision count with. Filters are constant fragments joined by the
 * query's shape, every value bound: a filter that is off is absent from
 * the SQL, so that the state's index (state, id) serves a page of one
 * state. Parameters: ?1 state, ?2 submitter, ?3 least worst, ?4 kind,
 * ?5 agent, ?6 person key, ?7 and ?8 the key to go past (worst, id), ?9
 * to ?13 the names of the severities (PAGE_WORST), ?14 the limit.
 */
#define PAGE_WORST "(CASE s.worst WHEN ?9 THEN 0 WHEN ?10 THEN 1 WHEN ?11 " \
	"THEN 2 WHEN ?12 THEN 3 WHEN ?13 THEN 4 ELSE -1 END)"
#define PAGE_SQL_MAX 4096u

_Static_assert(AL_SEV_INFO == 0 && AL_SEV_CRITICAL == 4 &&
    AL_SEV_NONE == -1, "PAGE_WORST ranks severities as their enum");

static int
page_sql(struct dynbuf *b, const struct db_page_query *q)
{
	static const char *const inner_order[] = {"s.id DESC", "s.id",
	    "wrank DESC, s.id DESC"};
	static const char *const outer_order[] = {"x.id DESC", "x.id",
	    "x.wrank DESC, x.id DESC"};
	static const char *const past[] = {" AND s.id < ?8", " AND s.id > ?8",
	    " AND (" PAGE_WORST " < ?7 OR (" PAGE_WORST " = ?7 AND s.id < "
	    "?8))"};
	int rc;

	rc = dynbuf_adds(b, "SELECT x.*, " DBI_APPROVALS("x.id", "x.scan",
	    "x.sha256") ", " DBI_OVERRIDES("x.id", "x.scan") " FROM (SELECT "
	    SUBMISSION_COLS ", ifnull(" DBI_LATEST_SCAN("s.id") ", 0) AS "
	    "scan, " PAGE_WORST " AS wrank " SUBMISSION_FROM "WHERE 1");
	if (rc == 0 && q->state >= 0)
		rc = dynbuf_adds(b, " AND s.state = ?1");
	if (rc == 0 && q->submitter != 0)
		rc = dynbuf_adds(b, " AND s.submitter = ?2");
	if (rc == 0 && q->min_worst != AL_SEV_NONE)
		rc = dynbuf_adds(b, " AND " PAGE_WORST " >= ?3");
	if (rc == 0 && q->kind >= 0)
		rc = dynbuf_adds(b, " AND s.kind_read = ?4");
	if (rc == 0 && q->agent != NULL)
		rc = dynbuf_adds(b, " AND p.name = ?5");
	if (rc == 0 && q->person != NULL)
		rc = dynbuf_adds(b, " AND al_fold(s.launched_by) = ?6");
	if (rc == 0 && q->after)
		rc = dynbuf_adds(b, past[q->sort]);
	if (rc == 0)
		rc = dynbuf_addf(b, " ORDER BY %s LIMIT ?14) x ORDER BY %s",
		    inner_order[q->sort], outer_order[q->sort]);
	return rc < 0 ? al_err_set(AL_ENOMEM, "the page's query does not fit") :
	    0;
}

/* Fills r from a row of page_sql. */
static int
page_row(sqlite3_stmt *st, const struct db_policy *pol,
    struct db_page_row *r)
{
	int rc = submission_row(st, &r->sub);

	if (rc < 0)
		return rc;
	r->review.state = r->sub.state;
	r->review.approvals = (int)sqlite3_column_int64(st, 18);
	r->review.needed = dbi_review_needed(r->sub.verdict, r->sub.worst,
	    pol);
	r->review.override = sqlite3_column_int64(st, 19) > 0;
	return 0;
}

int
db_submission_page(struct db *db, const struct db_page_query *q,
    const struct db_policy *pol, struct db_page_row **out, size_t *n_out,
    int *more_out)
{
	struct db_page_row *v = NULL;
	sqlite3_stmt *st = NULL, *ls = NULL;
	struct dynbuf sql;
	size_t n = 0, cap = 0;
	int rc, more = 0;

	*out = NULL;
	*n_out = 0;
	*more_out = 0;
	if (q->limit == 0 || q->limit > DB_PAGE_MAX || (int)q->sort < 0 ||
	    q->sort > DB_PAGE_SEVERITY || q->min_worst < AL_SEV_NONE ||
	    q->min_worst >= AL_SEV_MAX || q->state >= AL_STATE_MAX ||
	    q->kind >= AL_KIND_MAX)
		return al_err_set(AL_EINVAL, "malformed page query");
	dynbuf_init(&sql, PAGE_SQL_MAX);
	if ((rc = page_sql(&sql, q)) < 0) {
		dynbuf_free(&sql);
		return rc;
	}
	if ((rc = dbi_tx_begin(db, 0)) < 0) {
		dynbuf_free(&sql);
		return rc;
	}
	rc = dbi_prep_bind(db, &st, dynbuf_str(&sql), "tiitttiittttti",
	    q->state >= 0 ? al_state_name((enum al_state)q->state) : NULL,
	    q->submitter, (int64_t)q->min_worst, q->kind >= 0 ?
	    al_kind_name((enum al_kind)q->kind) : NULL, q->agent, q->person,
	    (int64_t)q->after_worst, q->after_id,
	    al_severity_name(AL_SEV_INFO), al_severity_name(AL_SEV_LOW),
	    al_severity_name(AL_SEV_MEDIUM), al_severity_name(AL_SEV_HIGH),
	    al_severity_name(AL_SEV_CRITICAL), (int64_t)q->limit + 1);
	if (rc == 0)
		rc = dbi_prep(db, &ls, LABELS_SELECT);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if (n == q->limit) {
			more = 1;
			rc = 0;
			break;
		}
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0 ||
		    (rc = page_row(st, pol, &v[n])) < 0)
			break;
		rc = submission_labels(db, ls, &v[n++].sub);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ls);
	dynbuf_free(&sql);
	if ((rc = dbi_tx_end(db, rc)) < 0) {
		db_submission_page_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	*more_out = more;
	return 0;
}

void
db_submission_page_free(struct db_page_row *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		db_submission_clear(&v[i].sub);
	free(v);
}

int
db_submission_counts(struct db *db, int64_t counts[AL_STATE_MAX])
{
	sqlite3_stmt *st;
	int rc, k;

	memset(counts, 0, AL_STATE_MAX * sizeof(counts[0]));
	rc = dbi_prep(db, &st, "SELECT state, count(*) FROM submissions "
	    "GROUP BY state");
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		k = al_state_parse((const char *)sqlite3_column_text(st, 0));
		if (k >= 0)
			counts[k] = sqlite3_column_int64(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

static int
cmp_ref(const void *a, const void *b)
{
	return strcmp(a, b);
}

int
db_object_refs(struct db *db, char (**out)[65], size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	char (*v)[65] = NULL;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = dbi_prep(db, &st, "SELECT sha256 FROM blobs UNION SELECT sha256 "
	    "FROM items WHERE content = 'kept' AND sha256 IS NOT NULL");
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		rc = 0;
		if (t == NULL || strlen((const char *)t) != 64)
			continue;
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		memcpy(v[n++], t, 65);
	}
	sqlite3_finalize(st);
	rc = dbi_tx_end(db, rc);
	if (rc < 0) {
		free(v);
		return rc;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_ref);
	*out = v;
	*n_out = n;
	return 0;
}

/* The ids of ?1's rows (one column, an id), oldest first. */
static int
ids_of_query(struct db *db, const char *sql, const char *arg, int64_t **out,
    size_t *n_out)
{
	sqlite3_stmt *st;
	int64_t *v = NULL;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	rc = dbi_prep_bind(db, &st, sql, "t", arg);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1)
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) == 0)
			v[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int
db_submission_ids_of(struct db *db, const char *sha256, int64_t **out,
    size_t *n_out)
{
	return ids_of_query(db, "SELECT id FROM submissions WHERE sha256 = ?1 "
	    "ORDER BY id", sha256, out, n_out);
}

int
db_submission_ids_at_path(struct db *db, const char *path, int64_t **out,
    size_t *n_out)
{
	/* Compared as bytes (a BLOB's length and substr count bytes): an
	 * item's path is what the artifact named, in any bytes. The suffix
	 * is a member's path below its container ("NAME!/member"). */
	return ids_of_query(db, "SELECT id FROM submissions WHERE name = ?1 "
	    "UNION SELECT sc.submission_id FROM items i JOIN scans sc ON "
	    "sc.id = i.scan_id WHERE CAST(i.path AS BLOB) = CAST(?1 AS BLOB) "
	    "OR (length(CAST(i.path AS BLOB)) > length(CAST(?1 AS BLOB)) + 2 "
	    "AND substr(CAST(i.path AS BLOB), -length(CAST(?1 AS BLOB)) - 2) = "
	    "CAST('!/' || ?1 AS BLOB)) ORDER BY 1", path, out, n_out);
}
