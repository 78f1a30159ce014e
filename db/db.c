/*
 * db.c - the provenance store over SQLite: open, configure and migrate a
 * connection, close it, its schema version and integrity check; see db.h.
 * The notes below hold for every file of db/ (db_int.h lists them).
 *
 * Trust: values come from the gate's own code (authenticated requests, the
 * scan child's validated findings) and are always bound as parameters; the
 * only SQL built from text is the schema compiled into the binary and the
 * integer of PRAGMA user_version.
 *
 * Schema versions: PRAGMA user_version holds the number of migrations
 * applied. It lives in the database header, so it changes in the same
 * transaction as the migration that it counts and cannot disagree with a
 * table. Each migration runs in its own BEGIN IMMEDIATE transaction, after
 * re-reading the version under the write lock, so two processes opening a
 * fresh database apply each migration once.
 *
 * Transactions: every change that touches more than one row is one BEGIN
 * IMMEDIATE transaction, which takes the write lock before the first read:
 * two connections claiming scans are serialized, so both cannot see the
 * same "received" row, and a WAL snapshot never has to be upgraded (which
 * fails with SQLITE_BUSY_SNAPSHOT rather than waiting). Reads that span
 * several statements run in one deferred transaction for one snapshot.
 *
 * Time: the caller passes `now` (milliseconds since the epoch) to every
 * function that records one; no file of db/ reads a clock, which keeps
 * the tests exact and the gate's notion of time in one place.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db_int.h"
#include "err.h"
#include "fold.h"

/* Generated from db/migrations/NNNN_*.sql by the Makefile, in order. */
extern const char *const db_migrations[];
extern const size_t db_migrations_n;

/* Milliseconds a statement waits for another connection's write lock. A
 * scan claim or a submission holds it for well under that; past it the
 * database is wedged and the caller gets AL_EIO rather than a hang. */
#define DB_BUSY_MS 5000

/* Runs a statement that returns one integer. */
static int
query_int(struct db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = dbi_prep(db, &st, sql)) < 0)
		return rc;
	if ((rc = dbi_step(db, st)) == 1) {
		*out = sqlite3_column_int64(st, 0);
		rc = 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_EIO, "sqlite: no result (%s)", sql);
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- open, migrate ------------------------------------------------------ */

int
db_schema_latest(void)
{
	return (int)db_migrations_n;
}

int
db_schema_version(struct db *db, int *out)
{
	int64_t v = 0;
	int rc;

	if ((rc = query_int(db, "PRAGMA user_version", &v)) < 0)
		return rc;
	*out = (int)v;
	return 0;
}

static int
refuse_newer(int v)
{
	return al_err_set(AL_EINVAL, "the database's schema version %d is "
	    "newer than this build's %d: use a newer airlock", v,
	    db_schema_latest());
}

/* Applies the missing migrations, each with its version bump. */
/* A file that was there but holds no schema (zero bytes, or another
 * program's database) is not made into a new, empty gate: that would lose
 * the record it replaced without a word. Asked before anything is
 * written to it. */
static int
refuse_foreign(struct db *db, const char *path)
{
	int rc, v;

	if ((rc = db_schema_version(db, &v)) < 0)
		return rc;
	if (v == 0)
		return al_err_set(AL_EINVAL, "%s is not an airlock database (it "
		    "is empty, or holds no airlock schema): refusing to make a new "
		    "one in its place; restore it from a backup, or remove it and "
		    "run airlock init", path);
	return 0;
}

static int
db_migrate(struct db *db)
{
	char sql[64];
	int rc, v;

	if ((rc = db_schema_version(db, &v)) < 0)
		return rc;
	if (v > db_schema_latest())
		return refuse_newer(v);
	while (v < db_schema_latest()) {
		if ((rc = dbi_tx_begin(db, 1)) < 0)
			return rc;
		/* Another connection may have migrated while we waited. */
		rc = db_schema_version(db, &v);
		if (rc == 0 && v > db_schema_latest())
			rc = refuse_newer(v);
		if (rc == 0 && v < db_schema_latest()) {
			rc = dbi_exec(db, db_migrations[v]);
			/* The audit log's migration: the leaves of the events
			 * before it are made here, where SHA-256 is. */
			if (rc == 0 && v + 1 == DB_AUDIT_MIGRATION)
				rc = dbi_audit_adopt(db);
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			    v + 1);
			if (rc == 0)
				rc = dbi_exec(db, sql);
			v++;
		}
		if ((rc = dbi_tx_end(db, rc)) < 0)
			return rc;
	}
	return 0;
}

/* Creates the file as 0600 whatever the umask; an existing one is kept.
 * 1: made now, 0: it was there. */
static int
db_create_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno == EEXIST ? 0 : al_err_set(AL_EIO, "%s: %s", path,
		    strerror(errno));
	if (fchmod(fd, 0600) < 0) {
		close(fd);
		return al_err_set(AL_EIO, "%s: chmod: %s", path,
		    strerror(errno));
	}
	close(fd);
	return 1;
}

/*
 * al_fold(TEXT): the key a person's name folds to (fold.h), as the gate
 * compares names, or NULL for NULL, for what is not text and for a name
 * fold.h refuses (such a name matches no key). For the queue's person
 * filter (db_submission_page). Direct only: schema code (a trigger, a view
 * in a file) cannot call it.
 */
static void
sql_fold(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	char key[AL_FOLD_MAX + 1];
	const unsigned char *t;
	int n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
		sqlite3_result_null(cx);
		return;
	}
	t = sqlite3_value_text(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if (t == NULL) {
		sqlite3_result_error_nomem(cx);
		return;
	}
	if (al_name_fold(key, sizeof(key), (const char *)t, (size_t)n, NULL,
	    NULL) < 0)
		sqlite3_result_null(cx);
	else
		sqlite3_result_text(cx, key, -1, SQLITE_TRANSIENT);
}

/* The connection settings: durability, integrity, defence in depth. */
static int
db_configure(struct db *db)
{
	sqlite3_stmt *st;
	int rc;

	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, DB_BUSY_MS);
	/* No writable_schema and no untrusted functions in schema code:
	 * nothing in the file can make this connection run more than SQL. */
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	if (sqlite3_create_function(db->h, "al_fold", 1, SQLITE_UTF8 |
	    SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL, sql_fold, NULL,
	    NULL) != SQLITE_OK)
		return dbi_fail(db, "al_fold");
	if ((rc = dbi_prep(db, &st, "PRAGMA journal_mode = WAL")) < 0)
		return rc;
	if ((rc = dbi_step(db, st)) == 1) {
		const unsigned char *m = sqlite3_column_text(st, 0);

		rc = m && strcmp((const char *)m, "wal") == 0 ? 0 :
		    al_err_set(AL_EIO, "sqlite: WAL mode refused (journal "
		    "mode %s)", m ? (const char *)m : "unknown");
	} else if (rc == 0) {
		rc = al_err_set(AL_EIO, "sqlite: WAL mode refused");
	}
	sqlite3_finalize(st);
	if (rc == 0)
		rc = dbi_exec(db, "PRAGMA foreign_keys = ON");
	/* FULL: a transaction acknowledged to a client survives power loss. */
	if (rc == 0)
		rc = dbi_exec(db, "PRAGMA synchronous = FULL");
	return rc;
}

int
db_open(struct db **out, const char *path, int create)
{
	struct db *db = NULL;
	struct stat sb;
	int rc, made = 0;

	*out = NULL;
	if (create && (rc = made = db_create_file(path)) < 0)
		return rc;
	if (!create && stat(path, &sb) < 0)
		return al_err_set(errno == ENOENT ? AL_ENOTFOUND : AL_EIO,
		    "%s: %s", path, strerror(errno));
	if ((db = calloc(1, sizeof(*db))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	/* Never SQLITE_OPEN_CREATE: the file exists by now, made 0600 above. */
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		rc = db->h ? dbi_fail(db, path) :
		    al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((!made && (rc = refuse_foreign(db, path)) < 0) ||
	    (rc = db_configure(db)) < 0 || (rc = db_migrate(db)) < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	db_close(db);
	return rc;
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	dbi_audit_finalize(db);
	free(db->pend);
	sqlite3_close(db->h);
	free(db);
}

int
db_integrity_check(struct db *db)
{
	sqlite3_stmt *st;
	const unsigned char *s;
	int rc;

	if ((rc = dbi_prep(db, &st, "PRAGMA integrity_check")) < 0)
		return rc;
	if ((rc = dbi_step(db, st)) == 1) {
		s = sqlite3_column_text(st, 0);
		rc = s && strcmp((const char *)s, "ok") == 0 ? 0 :
		    al_err_set(AL_EIO, "integrity check: %s",
		    s ? (const char *)s : "no answer");
	} else if (rc == 0) {
		rc = al_err_set(AL_EIO, "integrity check: no answer");
	}
	sqlite3_finalize(st);
	return rc;
}
