/*
 * db_event.c - the audit trail: one event appended in its own transaction
 * (db_event_add) or inside the caller's (dbi_event_addf, with which the
 * other files of db/ record each change they make), the events listed (of
 * one submission, or all of them a page at a time), and the rejection of
 * a submission with its reason, for `show`.
 *
 * Refusals are events too: a refused decision or release ("approve.refused"
 * and the like) and a refused login ("login.refused") are appended by the
 * gate (gate/serve/record.c) in their own transaction, after the refused
 * one rolled back; the gate bounds how many refused logins it writes.
 *
 * Each event appended is also classed a change or not (event_is_change:
 * one on a submission that is not a read or a refusal), so that
 * db_on_commit can tell the gate's long-poll that a list of submissions
 * moved, with no query of its own (db_stmt.c, dbi_tx_end).
 *
 * Trust: callers are the gate's own code; actions and details are bound as
 * parameters, never pasted into SQL (a detail is formatted by SQLite's
 * printf into a string first). The table is append-only: the schema's
 * triggers refuse UPDATE and DELETE, so nothing here edits a row.
 */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "err.h"

/* A change, for db_on_commit: an event on a submission that is neither a
 * read of it nor a refusal. */
static int
event_is_change(const char *action, int64_t submission)
{
	static const char *const reads[] = {"view", "view.item", "pull",
	    "pull.item"};
	static const char refused[] = ".refused";
	size_t i, n = strlen(action), m = sizeof(refused) - 1;

	if (submission == 0)
		return 0;
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (strcmp(action, reads[i]) == 0)
			return 0;
	return !(n >= m && strcmp(action + n - m, refused) == 0);
}

/* One event row, inside the caller's transaction. */
static int
event_insert(struct db *db, int64_t now, int64_t actor, const char *action,
    int64_t submission, const char *detail)
{
	sqlite3_stmt *st;
	int rc;

	rc = dbi_prep_bind(db, &st, "INSERT INTO events (at, actor, action, "
	    "submission_id, detail) VALUES (?, ?, ?, ?, ?)", "iztzt", now,
	    actor, action, submission, detail);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0 && event_is_change(action, submission))
		db->tx_change = sqlite3_last_insert_rowid(db->h);
	/* Its leaf, in the same transaction (db_audit.c). */
	if (rc == 0)
		rc = dbi_audit_append(db, sqlite3_last_insert_rowid(db->h));
	return rc;
}

void
dbi_event_changes_since(struct db *db, int64_t after)
{
	int64_t last = db_event_last_id(db);

	if (last > after)
		db->tx_change = last;
}

int
db_event_add(struct db *db, int64_t now, int64_t actor, const char *action,
    int64_t submission, const char *detail)
{
	int rc;

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	return dbi_tx_end(db, event_insert(db, now, actor, action, submission,
	    detail));
}

int64_t
db_event_last_id(struct db *db)
{
	sqlite3_stmt *st;
	int64_t id = 0;

	if (dbi_prep(db, &st, "SELECT ifnull(max(id), 0) FROM events") == 0 &&
	    dbi_step(db, st) == 1)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* db_event_add with a detail formatted by SQLite's printf (whose %z
 * frees its argument: sizes go as %lld). */
int
dbi_event_addf(struct db *db, int64_t now, int64_t actor, const char *action,
    int64_t submission, const char *fmt, ...)
{
	va_list ap;
	char *detail;
	int rc;

	va_start(ap, fmt);
	detail = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (detail == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	rc = event_insert(db, now, actor, action, submission, detail);
	sqlite3_free(detail);
	return rc;
}

/* Runs a prepared SELECT of the event columns into an array. */
static int
event_rows(struct db *db, sqlite3_stmt *st, int rc, struct db_event **out,
    size_t *n_out)
{
	struct db_event *v = NULL, *e;
	size_t n = 0, cap = 0;
	int nomem = 0;

	*out = NULL;
	*n_out = 0;
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		e = &v[n++];
		e->id = sqlite3_column_int64(st, 0);
		e->at = sqlite3_column_int64(st, 1);
		e->actor = dbi_col_int(st, 2, 0);
		e->actor_name = dbi_col_str(st, 3, &nomem);
		e->action = dbi_col_str(st, 4, &nomem);
		e->submission = dbi_col_int(st, 5, 0);
		e->detail = dbi_col_str(st, 6, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		db_event_list_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int
db_event_list(struct db *db, int64_t submission, struct db_event **out,
    size_t *n_out)
{
	sqlite3_stmt *st;
	int rc;

	rc = dbi_prep_bind(db, &st, "SELECT e.id, e.at, e.actor, p.name, "
	    "e.action, e.submission_id, e.detail FROM events e LEFT JOIN "
	    "principals p ON p.id = e.actor WHERE ?1 = 0 OR e.submission_id = "
	    "?1 ORDER BY e.id", "i", submission);
	return event_rows(db, st, rc, out, n_out);
}

int
db_event_page(struct db *db, int64_t after, const char *action,
    size_t limit, struct db_event **out, size_t *n_out)
{
	sqlite3_stmt *st;
	int rc;

	/* Ordered by id: the order of appending, which the time follows. */
	rc = dbi_prep_bind(db, &st, "SELECT e.id, e.at, e.actor, p.name, "
	    "e.action, e.submission_id, e.detail FROM events e LEFT JOIN "
	    "principals p ON p.id = e.actor WHERE e.id > ?1 AND (?2 IS NULL "
	    "OR e.action = ?2) ORDER BY e.id LIMIT ?3", "iti", after, action,
	    (int64_t)limit);
	return event_rows(db, st, rc, out, n_out);
}

int
db_rejection_get(struct db *db, int64_t id, char **reviewer_out,
    char **comment_out, int64_t *at_out)
{
	sqlite3_stmt *st;
	int rc, nomem = 0;

	*reviewer_out = *comment_out = NULL;
	*at_out = 0;
	rc = dbi_prep_bind(db, &st, "SELECT p.name, r.comment, r.at FROM "
	    "rejections r LEFT JOIN principals p ON p.id = r.reviewer WHERE "
	    "r.submission_id = ?", "i", id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		*reviewer_out = dbi_col_str(st, 0, &nomem);
		*comment_out = dbi_col_str(st, 1, &nomem);
		*at_out = sqlite3_column_int64(st, 2);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "not rejected");
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		free(*reviewer_out);
		free(*comment_out);
		*reviewer_out = *comment_out = NULL;
	}
	return rc;
}

void
db_event_list_free(struct db_event *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].actor_name);
		free(v[i].action);
		free(v[i].detail);
	}
	free(v);
}
