/*
 * db_int.h - what the files of db/ share, private to db/: the connection
 * (struct db), the statement helpers of db_stmt.c and the event helper of
 * db_event.c. Nothing outside db/ includes it; the gate sees only db.h.
 *
 * Trust: the callers are db/'s own functions, which the gate's own code
 * calls. The helpers bind every value as a parameter (dbi_bind's format
 * letters), never paste one into SQL, and turn every SQLite failure into
 * one of err.h's codes with SQLite's message (dbi_fail). db.c's header
 * says how schema versions, transactions and time are handled.
 *
 * Files: db.c opens, configures, migrates and checks a connection;
 * db_stmt.c holds the helpers below; db_event.c the audit trail;
 * db_principal.c the token holders; db_submission.c the submissions and
 * their labels, and a page of the queue; db_scan.c the scan queue,
 * findings and items; db_review.c review and release.
 */
#ifndef AIRLOCK_DB_INT_H
#define AIRLOCK_DB_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* The token a connection writes for (db_guard_set). */
struct db_guard {
	int64_t principal;        /* 0: none, nothing is checked */
	int64_t (*clock)(void);   /* now, in ms since the epoch */
	int refused;              /* a write was refused since it was set */
	int64_t revoked_at;       /* of the refusal: when the token (or its
	                           * person) stopped; 0: it did not */
	int64_t expires_at;       /* of the refusal: the token's expiry */
};

struct db {
	sqlite3 *h;
	int writing;              /* holds db_writer */
	struct db_guard guard;
	sqlite3_stmt *audit_st[6];  /* db_audit.c's, prepared on first use */
	/* The leaves this connection's open transaction appended, for the
	 * process's own record once it commits (db_audit_track). */
	struct dbi_own_leaf *pend;
	size_t npend, cappend;
	/* What the open write transaction did that db_on_commit's function
	 * hears of once it commits (db_stmt.c). */
	int64_t tx_change;        /* its newest change event (db_event.c); 0:
	                           * none */
	int tx_revoked;           /* it revoked a token or disabled a person */
};

struct dbi_own_leaf {
	uint64_t idx;
	uint8_t hash[32];
};
/* A write transaction's leaves become this process's own just before its
 * COMMIT (dbi_audit_tx_commit), and are forgotten again if it did not
 * commit (dbi_audit_tx_done with committed 0; db_audit.c). */
void dbi_audit_tx_commit(struct db *db);
void dbi_audit_tx_done(struct db *db, int committed);

/* ---- statements (db_stmt.c) --------------------------------------------- */

/* SQLite's last error on db as one of err.h's codes, with its message. */
int dbi_fail(struct db *db, const char *what);
int dbi_prep(struct db *db, sqlite3_stmt **out, const char *sql);
/* 1 for a row, 0 when done, or a negative error. */
int dbi_step(struct db *db, sqlite3_stmt *st);
int dbi_step_done(struct db *db, sqlite3_stmt *st);
int dbi_exec(struct db *db, const char *sql);
/* Format letters: 't' text, 'i' int64_t, 'z' 0 binds NULL, 'm' -1 binds
 * NULL; text is not copied (see db_stmt.c). */
int dbi_bind(struct db *db, sqlite3_stmt *st, const char *fmt, ...);
int dbi_prep_bind(struct db *db, sqlite3_stmt **out, const char *sql,
    const char *fmt, ...);

char *dbi_col_str(sqlite3_stmt *st, int i, int *nomem);
int64_t dbi_col_int(sqlite3_stmt *st, int i, int64_t def);
int dbi_col_enum(sqlite3_stmt *st, int i, int (*parse)(const char *),
    int none, int *bad);
void dbi_col_hex(sqlite3_stmt *st, int i, char out[65]);
int dbi_grow(void *vp, size_t *cap, size_t n, size_t size);

/* BEGIN (write 0) or BEGIN IMMEDIATE under the writer lock (write 1);
 * a write then checks the guard's token (db_guard_set): AL_EAUTH, rolled
 * back and unlocked, when it is no longer good. */
int dbi_tx_begin(struct db *db, int write);
/* COMMIT when rc is 0, else ROLLBACK; returns rc or COMMIT's error. */
int dbi_tx_end(struct db *db, int rc);

/* ---- where a submission stands (db_review.c) ---------------------------- */

/*
 * The SQL of a submission's standing, shared by one submission's review
 * (db_review_get and every decision) and by a page of the queue
 * (db_submission_page), so that the queue counts exactly what a release
 * decision counts. Each is an SQL expression of expressions: SUB the
 * submission's id, SCAN its latest finished scan's id (0: none), SHA its
 * sha256; aliases are their own (ra, rp) so that none hides the caller's.
 *
 * DBI_LATEST_SCAN: the latest finished scan, NULL when none (an
 * interrupted one is no scan). DBI_APPROVALS: the distinct persons whose
 * approval of these bytes stands: of the latest scan, or of an earlier
 * one while the latest found nothing that one did not (by fingerprint).
 * DBI_OVERRIDES: the admin overrides of the latest scan (0 or 1).
 */
#define DBI_LATEST_SCAN(SUB) "(SELECT id FROM scans WHERE submission_id = " \
	SUB " AND finished_at IS NOT NULL AND outcome IS NOT 'interrupted' " \
	"ORDER BY id DESC LIMIT 1)"
#define DBI_APPROVALS(SUB, SCAN, SHA) "(SELECT count(DISTINCT rp.person_id) " \
	"FROM approvals ra JOIN principals rp ON rp.id = ra.reviewer WHERE " \
	"ra.submission_id = " SUB " AND ra.sha256 = " SHA " AND (ra.scan_id = " \
	SCAN " OR NOT EXISTS (SELECT fingerprint FROM findings WHERE scan_id = " \
	SCAN " EXCEPT SELECT fingerprint FROM findings WHERE scan_id = " \
	"ra.scan_id)))"
#define DBI_OVERRIDES(SUB, SCAN) "(SELECT count(*) FROM overrides WHERE " \
	"submission_id = " SUB " AND scan_id = " SCAN ")"

/* Distinct approvers the policy asks for a verdict and worst severity. */
int dbi_review_needed(enum al_verdict verdict, enum al_severity worst,
    const struct db_policy *pol);

/* ---- events (db_event.c) ------------------------------------------------ */

/* One event inside the caller's transaction, its detail formatted by
 * SQLite's printf (actor 0: the system; submission 0: none). */
int dbi_event_addf(struct db *db, int64_t now, int64_t actor,
    const char *action, int64_t submission, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The events a set-wise INSERT ... SELECT appended after the event `after`
 * (all on submissions: expiries, resumed scans) are changes, for
 * db_on_commit. */
void dbi_event_changes_since(struct db *db, int64_t after);

/* ---- the audit log (db_audit.c) ---------------------------------------- */

/* Appends event_id's leaf (and the subtrees it completes), inside the
 * caller's write transaction. */
int dbi_audit_append(struct db *db, int64_t event_id);
/* The leaves of every event after `after` (a set-wise insert's). */
int dbi_audit_append_since(struct db *db, int64_t after);
/* Migration 0006: leaves for the events recorded before the log, then the
 * event audit.begin. */
#define DB_AUDIT_MIGRATION 6  /* migrations/0006_audit.sql */
int dbi_audit_adopt(struct db *db);
void dbi_audit_finalize(struct db *db);

#endif
