/*
 * db_scan.c - the scan queue and its results: claiming the oldest received
 * submission, requeueing the scans a restart interrupted, finishing a scan
 * with its findings and items, and reading back the latest scan, its
 * findings and its items.
 *
 * Trust: callers are the gate's own code; findings and items come from the
 * scan child, validated by the parent before they get here, and are bound
 * as parameters, never pasted into SQL. A claim and a finish are each one
 * BEGIN IMMEDIATE transaction: two connections never claim the same
 * submission, and a requeued job cannot overwrite the next scan's result.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "err.h"

int
db_scan_claim(struct db *db, const char *ruleset_digest,
    const char *engine_version, int64_t now, struct db_scan_job *out)
{
	sqlite3_stmt *st = NULL;
	int rc, nomem = 0, bad = 0;

	memset(out, 0, sizeof(*out));
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	/* Under the write lock, so no other connection reads this row as
	 * "received" until we commit it as "scanning". */
	rc = dbi_prep(db, &st, "SELECT id, sha256, kind, name FROM submissions "
	    "WHERE state = 'received' ORDER BY id LIMIT 1");
	if (rc == 0 && (rc = dbi_step(db, st)) == 0)
		rc = al_err_set(AL_ENOTFOUND, "no submission waits for a scan");
	else if (rc == 1) {
		out->submission_id = sqlite3_column_int64(st, 0);
		dbi_col_hex(st, 1, out->sha256);
		out->kind = (enum al_kind)dbi_col_enum(st, 2, al_kind_parse, -1,
		    &bad);
		out->name = dbi_col_str(st, 3, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
		if (rc == 0 && (bad || (int)out->kind < 0))
			rc = al_err_set(AL_EIO, "submission %lld: a kind the "
			    "schema does not know",
			    (long long)out->submission_id);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'scanning' WHERE id = ?", "i", out->submission_id);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "INSERT INTO scans (submission_id, "
		    "ruleset_digest, engine_version, started_at) "
		    "VALUES (?, ?, ?, ?)", "itti", out->submission_id,
		    ruleset_digest, engine_version, now);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0) {
		out->scan_id = sqlite3_last_insert_rowid(db->h);
		rc = dbi_event_addf(db, now, 0, "scan.start",
		    out->submission_id, "scan=%lld ruleset=%s engine=%s",
		    (long long)out->scan_id, ruleset_digest, engine_version);
	}
	sqlite3_finalize(st);
	if ((rc = dbi_tx_end(db, rc)) < 0)
		db_scan_job_clear(out);
	return rc;
}

void
db_scan_job_clear(struct db_scan_job *j)
{
	if (j == NULL)
		return;
	free(j->name);
	memset(j, 0, sizeof(*j));
}

int
db_scan_requeue(struct db *db, int64_t now, size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	int64_t last;

	*n_out = 0;
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	last = db_event_last_id(db);
	/* Set-wise, events first, while the rows still say "scanning". */
	rc = dbi_prep_bind(db, &st, "INSERT INTO events (at, action, "
	    "submission_id, detail) SELECT ?1, 'scan.resume', s.id, "
	    "'interrupted scan=' || (SELECT max(c.id) FROM scans c WHERE "
	    "c.submission_id = s.id AND c.finished_at IS NULL) FROM "
	    "submissions s WHERE s.state = 'scanning' ORDER BY s.id", "i", now);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_audit_append_since(db, last);
	if (rc == 0)
		dbi_event_changes_since(db, last);
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE scans SET finished_at = "
		    "?1, outcome = 'interrupted' WHERE finished_at IS NULL AND "
		    "submission_id IN (SELECT id FROM submissions WHERE state "
		    "= 'scanning')", "i", now);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_exec(db, "UPDATE submissions SET state = 'received' "
		    "WHERE state = 'scanning'");
	if (rc == 0)
		*n_out = (size_t)sqlite3_changes(db->h);
	return dbi_tx_end(db, rc);
}

int
db_scan_requeue_one(struct db *db, const struct db_scan_job *job,
    const char *why, int64_t now)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = dbi_prep_bind(db, &st, "UPDATE scans SET finished_at = ?, outcome "
	    "= 'interrupted', error = ? WHERE id = ? AND submission_id = ? AND "
	    "finished_at IS NULL AND (SELECT state FROM submissions WHERE id = "
	    "?4) = 'scanning'", "itii", now, why, job->scan_id,
	    job->submission_id);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0 &&
	    sqlite3_changes(db->h) != 1)
		rc = al_err_set(AL_EINVAL, "scan %lld of submission %lld is "
		    "not running", (long long)job->scan_id,
		    (long long)job->submission_id);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'received' WHERE id = ?", "i", job->submission_id);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = dbi_event_addf(db, now, 0, "scan.retry", job->submission_id,
		    "scan=%lld not recorded: %s", (long long)job->scan_id, why);
	return dbi_tx_end(db, rc);
}

int
db_scan_finish(struct db *db, const struct db_scan_job *job,
    enum al_verdict verdict, enum al_severity worst, enum al_kind kind_read,
    const struct db_finding *f, size_t nf, const struct db_item *items,
    size_t ni, const char *error, int64_t now)
{
	const char *vname = al_verdict_name(verdict);
	/* NULL: the reader never said (the child failed first). */
	const char *kname = kind_read >= AL_KIND_FILE &&
	    kind_read <= AL_KIND_BUNDLE ? al_kind_name(kind_read) : NULL;
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc;

	if (nf > 0 && f == NULL)
		return al_err_set(AL_EINVAL, "findings missing");
	if (vname == NULL || (worst != AL_SEV_NONE &&
	    al_severity_name(worst) == NULL))
		return al_err_set(AL_EINVAL, "a verdict or severity the schema "
		    "does not know");
	for (i = 0; i < nf; i++)
		if (al_severity_name(f[i].severity) == NULL)
			return al_err_set(AL_EINVAL, "a finding's severity the "
			    "schema does not know");
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	/* Only the open scan of a submission still scanning: a job that was
	 * requeued meanwhile must not overwrite the next scan's result. */
	rc = dbi_prep_bind(db, &st, "UPDATE scans SET finished_at = ?, outcome "
	    "= ?, error = ?, kind = ? WHERE id = ? AND submission_id = ? AND "
	    "finished_at IS NULL AND (SELECT state FROM submissions WHERE id = "
	    "?6) = 'scanning'", "itttii", now, vname, error, kname,
	    job->scan_id, job->submission_id);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0 &&
	    sqlite3_changes(db->h) != 1)
		rc = al_err_set(AL_EINVAL, "scan %lld of submission %lld is "
		    "not running", (long long)job->scan_id,
		    (long long)job->submission_id);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'held', verdict = ?, worst = ?, kind_read = ? WHERE id = ?",
		    "ttti", vname, al_severity_name(worst), kname,
		    job->submission_id);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0 && nf > 0)
		rc = dbi_prep(db, &st, "INSERT INTO findings (scan_id, rule, "
		    "severity, path, line, col, excerpt, fingerprint) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	for (i = 0; rc == 0 && i < nf; i++)
		if ((rc = dbi_bind(db, st, "itttiitt", job->scan_id, f[i].rule,
		    al_severity_name(f[i].severity), f[i].path, f[i].line,
		    f[i].column,
		    f[i].excerpt, f[i].fingerprint)) == 0)
			rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0 && ni > 0)
		rc = dbi_prep(db, &st, "INSERT INTO items (scan_id, path, "
		    "mode, size, sha256, type, content) VALUES (?, ?, ?, ?, ?, "
		    "?, ?)");
	for (i = 0; rc == 0 && i < ni; i++)
		if ((rc = dbi_bind(db, st, "itiittt", job->scan_id,
		    items[i].path, items[i].mode, items[i].size,
		    items[i].sha256 && items[i].sha256[0] ? items[i].sha256 :
		    NULL, items[i].type, al_content_name(items[i].content))) == 0)
			rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	/* The earlier scans whose approvals still stand (this one found
	 * nothing they did not: db_review.c counts them), named in the log so
	 * that a release can be judged from it alone (gate/audit.c). */
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "SELECT ifnull(group_concat(id, ','), "
		    "'-') FROM (SELECT c.id FROM scans c WHERE c.submission_id = "
		    "?1 AND c.id < ?2 AND c.finished_at IS NOT NULL AND c.outcome "
		    "IS NOT 'interrupted' AND NOT EXISTS (SELECT fingerprint FROM "
		    "findings WHERE scan_id = ?2 EXCEPT SELECT fingerprint FROM "
		    "findings WHERE scan_id = c.id) ORDER BY c.id)", "ii",
		    job->submission_id, job->scan_id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1)
		rc = dbi_event_addf(db, now, 0, "scan.finish",
		    job->submission_id, "scan=%lld verdict=%s kind=%s "
		    "findings=%lld worst=%s carries=%s", (long long)job->scan_id,
		    vname, kname ? kname : "unknown", (long long)nf,
		    worst == AL_SEV_NONE ? "none" : al_severity_name(worst),
		    (const char *)sqlite3_column_text(st, 0));
	else if (rc == 0)
		rc = al_err_set(AL_EIO, "no answer from SQLite");
	sqlite3_finalize(st);
	return dbi_tx_end(db, rc);
}

int
db_findings_get(struct db *db, int64_t submission_id,
    struct db_finding **out, size_t *n_out)
{
	struct db_finding *v = NULL, *f;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc, nomem = 0, bad = 0;

	*out = NULL;
	*n_out = 0;
	/* An interrupted scan has no findings; the one before it might. */
	rc = dbi_prep_bind(db, &st, "SELECT rule, severity, path, line, col, "
	    "excerpt, fingerprint FROM findings WHERE scan_id = (SELECT id "
	    "FROM scans WHERE submission_id = ? AND finished_at IS NOT NULL "
	    "AND outcome IS NOT 'interrupted' ORDER BY id DESC LIMIT 1) ORDER "
	    "BY id", "i", submission_id);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		f = &v[n++];
		f->rule = dbi_col_str(st, 0, &nomem);
		f->severity = (enum al_severity)dbi_col_enum(st, 1,
		    al_severity_parse, AL_SEV_NONE, &bad);
		f->path = dbi_col_str(st, 2, &nomem);
		f->line = sqlite3_column_int64(st, 3);
		f->column = sqlite3_column_int64(st, 4);
		f->excerpt = dbi_col_str(st, 5, &nomem);
		f->fingerprint = dbi_col_str(st, 6, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
		if (rc == 0 && (bad || f->severity == AL_SEV_NONE))
			rc = al_err_set(AL_EIO, "a finding with a severity the "
			    "schema does not know");
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		db_findings_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int
db_scan_latest(struct db *db, int64_t submission_id,
    struct db_scan_info *out)
{
	sqlite3_stmt *st;
	int rc, nomem = 0, bad = 0;

	memset(out, 0, sizeof(*out));
	out->outcome = AL_VERDICT_NONE;
	rc = dbi_prep_bind(db, &st, "SELECT id, ruleset_digest, "
	    "engine_version, started_at, finished_at, outcome FROM scans WHERE "
	    "submission_id = ? AND outcome IS NOT 'interrupted' ORDER BY id "
	    "DESC LIMIT 1", "i", submission_id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		out->id = sqlite3_column_int64(st, 0);
		out->ruleset_digest = dbi_col_str(st, 1, &nomem);
		out->engine_version = dbi_col_str(st, 2, &nomem);
		out->started_at = sqlite3_column_int64(st, 3);
		out->finished_at = sqlite3_column_int64(st, 4);
		out->outcome = (enum al_verdict)dbi_col_enum(st, 5,
		    al_verdict_parse, AL_VERDICT_NONE, &bad);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : bad ?
		    al_err_set(AL_EIO, "a scan outcome the schema does not "
		    "know") : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "submission %lld was not scanned",
		    (long long)submission_id);
	}
	sqlite3_finalize(st);
	if (rc < 0)
		db_scan_info_clear(out);
	return rc;
}

void
db_scan_info_clear(struct db_scan_info *s)
{
	free(s->ruleset_digest);
	free(s->engine_version);
	memset(s, 0, sizeof(*s));
	s->outcome = AL_VERDICT_NONE;
}

int
db_items_get(struct db *db, int64_t submission_id, struct db_item **out,
    size_t *n_out)
{
	struct db_item *v = NULL, *it;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc, nomem = 0, bad = 0;

	*out = NULL;
	*n_out = 0;
	rc = dbi_prep_bind(db, &st, "SELECT path, mode, size, sha256, type, "
	    "content FROM items WHERE scan_id = (SELECT id FROM scans WHERE "
	    "submission_id = ? AND finished_at IS NOT NULL AND outcome IS NOT "
	    "'interrupted' ORDER BY id DESC LIMIT 1) ORDER BY id", "i",
	    submission_id);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		it = &v[n++];
		it->path = dbi_col_str(st, 0, &nomem);
		it->mode = sqlite3_column_int64(st, 1);
		it->size = sqlite3_column_int64(st, 2);
		it->sha256 = sqlite3_column_type(st, 3) == SQLITE_NULL ?
		    strdup("") : dbi_col_str(st, 3, &nomem);
		it->type = dbi_col_str(st, 4, &nomem);
		it->content = (enum al_content)dbi_col_enum(st, 5,
		    al_content_parse, AL_CONTENT_NONE, &bad);
		if (it->sha256 == NULL)
			nomem = 1;
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : bad ?
		    al_err_set(AL_EIO, "an item content the schema does not "
		    "know") : 0;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		db_items_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

void
db_items_free(struct db_item *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].path);
		free(v[i].sha256);
		free(v[i].type);
	}
	free(v);
}

void
db_findings_free(struct db_finding *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].rule);
		free(v[i].path);
		free(v[i].excerpt);
		free(v[i].fingerprint);
	}
	free(v);
}
