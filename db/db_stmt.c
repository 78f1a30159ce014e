/*
 * db_stmt.c - the statement helpers that every file of db/ uses: prepare,
 * bind, step, copy a column out, grow a result array, and begin and end a
 * transaction (a writing one under this process's writer lock, after which
 * the guard's token is checked again: db_guard_set in db.h); and dbi_fail,
 * which turns SQLite's error into one of ours with its message.
 *
 * Trust: callers are the other files of db/, on behalf of the gate's own
 * code (nothing outside db/ includes db_int.h). A value reaches SQLite
 * only through dbi_bind's format letters, as a parameter, never pasted
 * into SQL. A column is copied out, or parsed into its enum, and a name
 * the enum does not know is reported to the caller, not believed.
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "dynbuf.h"
#include "err.h"
#include "os.h"

/*
 * One writer at a time in this process. SQLite would serialise writers
 * anyway, but by making the losers sleep and retry (up to 100 ms a try):
 * under load most of the time went to those sleeps. Waiting on a mutex
 * hands the lock over at once. (Other processes still meet SQLite's lock
 * and its busy timeout.)
 */
static pthread_mutex_t db_writer = PTHREAD_MUTEX_INITIALIZER;

/*
 * Sets the message from the connection's last error. A uniqueness
 * violation is AL_EEXIST and any other constraint (CHECK, NOT NULL, foreign
 * key, trigger) AL_EINVAL: the caller passed a value the schema refuses.
 * SQLITE_FULL (the disk or a quota is full) is AL_EFULL.
 */
int
dbi_fail(struct db *db, const char *what)
{
	int ec = sqlite3_extended_errcode(db->h), code = AL_EIO;

	if (ec == SQLITE_CONSTRAINT_UNIQUE ||
	    ec == SQLITE_CONSTRAINT_PRIMARYKEY)
		code = AL_EEXIST;
	else if ((ec & 0xff) == SQLITE_CONSTRAINT)
		code = AL_EINVAL;
	else if (ec == SQLITE_NOMEM)
		code = AL_ENOMEM;
	else if ((ec & 0xff) == SQLITE_FULL)
		code = AL_EFULL;
	else if ((ec & 0xff) == SQLITE_FULL)
		code = AL_EFULL;
	return al_err_set(code, "sqlite: %s (%.60s)", sqlite3_errmsg(db->h),
	    what);
}

int
dbi_prep(struct db *db, sqlite3_stmt **out, const char *sql)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, out, NULL) != SQLITE_OK) {
		*out = NULL;
		return dbi_fail(db, sql);
	}
	return 0;
}

/* Steps st: 1 for a row, 0 when it is done, or a negative error. */
int
dbi_step(struct db *db, sqlite3_stmt *st)
{
	int r = sqlite3_step(st);

	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return dbi_fail(db, sqlite3_sql(st));
}

/* Steps a statement that returns no row, and readies it for reuse. */
int
dbi_step_done(struct db *db, sqlite3_stmt *st)
{
	int rc = dbi_step(db, st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc > 0 ? 0 : rc;
}

int
dbi_exec(struct db *db, const char *sql)
{
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dbi_fail(db, sql);
	return 0;
}

/*
 * Binds the arguments in order, one format letter each: 't' text (NULL
 * binds NULL), 'i' int64_t, 'z' int64_t where 0 binds NULL (no principal,
 * no submission, never), 'm' int64_t where -1 binds NULL (no peer). Text
 * is bound without a copy: it must outlive the statement's next step.
 */
static int
vbind(struct db *db, sqlite3_stmt *st, const char *fmt, va_list ap)
{
	const char *s;
	int64_t v;
	int i, r = SQLITE_OK;

	for (i = 0; fmt[i] != '\0' && r == SQLITE_OK; i++) {
		if (fmt[i] == 't') {
			s = va_arg(ap, const char *);
			r = s ? sqlite3_bind_text(st, i + 1, s, -1,
			    SQLITE_STATIC) : sqlite3_bind_null(st, i + 1);
			continue;
		}
		v = va_arg(ap, int64_t);
		if ((fmt[i] == 'z' && v == 0) || (fmt[i] == 'm' && v == -1))
			r = sqlite3_bind_null(st, i + 1);
		else
			r = sqlite3_bind_int64(st, i + 1, v);
	}
	return r == SQLITE_OK ? 0 : dbi_fail(db, sqlite3_sql(st));
}

int
dbi_bind(struct db *db, sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbind(db, st, fmt, ap);
	va_end(ap);
	return rc;
}

/* Prepares sql and binds its arguments (see vbind); *out is always
 * finalizable. */
int
dbi_prep_bind(struct db *db, sqlite3_stmt **out, const char *sql,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	if ((rc = dbi_prep(db, out, sql)) < 0)
		return rc;
	va_start(ap, fmt);
	rc = vbind(db, *out, fmt, ap);
	va_end(ap);
	return rc;
}

/* A copy of a text column; NULL stays NULL, a failed copy sets *nomem. */
char *
dbi_col_str(sqlite3_stmt *st, int i, int *nomem)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	char *p;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NULL;
	if (s == NULL || (p = strdup((const char *)s)) == NULL) {
		*nomem = 1;
		return NULL;
	}
	return p;
}

/* An integer column; def when NULL (the C side's "none"). */
int64_t
dbi_col_int(sqlite3_stmt *st, int i, int64_t def)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return def;
	return sqlite3_column_int64(st, i);
}

/*
 * A column holding one of vocab.h's names, as its enum: none when NULL, and
 * *bad set for a name the enum does not know (the schema's CHECKs keep
 * those out; a row that has one anyway is not believed).
 */
int
dbi_col_enum(sqlite3_stmt *st, int i, int (*parse)(const char *), int none,
    int *bad)
{
	int v;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return none;
	if ((v = parse((const char *)sqlite3_column_text(st, i))) < 0)
		*bad = 1;
	return v;
}

void
dbi_col_hex(sqlite3_stmt *st, int i, char out[65])
{
	const unsigned char *s = sqlite3_column_text(st, i);
	size_t n = s ? strnlen((const char *)s, 64) : 0;

	memcpy(out, s ? (const char *)s : "", n);
	out[n] = '\0';
}

/*
 * Makes room for element n in the array *vp (a T ** passed as void *; the
 * pointer is moved with memcpy, so no T * is read through a void *).
 */
int
dbi_grow(void *vp, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16, bytes;
	void *v, *p;

	if (n < *cap)
		return 0;
	memcpy(&v, vp, sizeof(v));
	if (al_size_mul(&bytes, ncap, size) < 0 ||
	    (p = realloc(v, bytes)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	memcpy(vp, &p, sizeof(p));
	*cap = ncap;
	return 0;
}

int64_t
db_guard_set(struct db *db, int64_t principal, int64_t (*clock)(void))
{
	int64_t was = db->guard.principal;

	memset(&db->guard, 0, sizeof(db->guard));
	if (principal != 0 && clock != NULL) {
		db->guard.principal = principal;
		db->guard.clock = clock;
	}
	return was;
}

int
db_guard_refused(struct db *db, int64_t *revoked_at, int64_t *expires_at)
{
	*revoked_at = db->guard.refused ? db->guard.revoked_at : 0;
	*expires_at = db->guard.refused ? db->guard.expires_at : 0;
	return db->guard.refused;
}

/*
 * The guard's token, read inside the write transaction just begun: 0 while
 * it is good, else AL_EAUTH saying when it stopped (what came first when
 * both apply, as the gate's authentication says it). A person disabled
 * counts as revoked then: disabling revokes the person's tokens.
 */
static int
guard_check(struct db *db)
{
	struct db_guard *g = &db->guard;
	sqlite3_stmt *st;
	int64_t now, rev = 0, exp = 0, dis = 0;
	char iso[32];
	int rc;

	rc = dbi_prep_bind(db, &st, "SELECT ifnull(p.revoked_at, 0), "
	    "ifnull(p.expires_at, 0), ifnull(n.disabled_at, 0) FROM principals "
	    "p LEFT JOIN persons n ON n.id = p.person_id WHERE p.id = ?", "i",
	    g->principal);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		rev = sqlite3_column_int64(st, 0);
		exp = sqlite3_column_int64(st, 1);
		dis = sqlite3_column_int64(st, 2);
		rc = 0;
	} else if (rc == 0) {
		/* Principals are never deleted: a row gone is a bad file. */
		rc = al_err_set(AL_EAUTH, "the token is no longer known");
		g->refused = 1;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if (dis != 0 && (rev == 0 || dis < rev))
		rev = dis;
	now = g->clock();
	if (rev == 0 && (exp == 0 || exp > now))
		return 0;
	g->refused = 1;
	g->revoked_at = rev;
	g->expires_at = exp;
	if (rev != 0 && (exp == 0 || exp > now || rev < exp)) {
		al_time_iso(rev, iso);
		return al_err_set(AL_EAUTH, "token revoked at %s", iso);
	}
	al_time_iso(exp, iso);
	return al_err_set(AL_EAUTH, "token expired at %s", iso);
}

int
dbi_tx_begin(struct db *db, int write)
{
	int rc;

	if (!write)
		return dbi_exec(db, "BEGIN");
	pthread_mutex_lock(&db_writer);
	db->writing = 1;
	db->tx_change = 0;
	db->tx_revoked = 0;
	if ((rc = dbi_exec(db, "BEGIN IMMEDIATE")) < 0) {
		db->writing = 0;
		pthread_mutex_unlock(&db_writer);
		return rc;
	}
	/* Under the write lock: a revocation either committed before this
	 * read, or waits until this transaction ends. */
	if (db->guard.principal != 0 && (rc = guard_check(db)) < 0)
		return dbi_tx_end(db, rc);
	return 0;
}

static void (*storage_fatal)(const char *why);
static void (*commit_fn)(int64_t change, int revoked);

void
db_on_commit(void (*fn)(int64_t change, int revoked))
{
	commit_fn = fn;
}

void
db_on_storage_fatal(void (*fn)(const char *why))
{
	storage_fatal = fn;
}

/*
 * A COMMIT whose WAL sync failed (the "fsyncgate" case): its frames were
 * written, may be on disk, and would come back at the next start although
 * the caller was told it failed. SQLite did not count them (the WAL's end
 * is still the last good commit), so the next commit overwrites them and
 * voids them for good; we make that commit now, under the same writer
 * lock, and it says what happened ("storage.commit_failed"). The failed
 * sync is never retried on its own. If even that commit fails, nothing
 * here can make the outcome certain: the process is told to stop
 * (storage_fatal), and the restart's recovery decides.
 */
static void
void_failed_commit(struct db *db, int ec)
{
	sqlite3_stmt *st = NULL;
	int ok;

	ok = sqlite3_prepare_v2(db->h, "INSERT INTO events (at, action, "
	    "detail) VALUES (?, 'storage.commit_failed', ?)", -1, &st,
	    NULL) == SQLITE_OK &&
	    sqlite3_bind_int64(st, 1, al_now_ms()) == SQLITE_OK &&
	    sqlite3_bind_text(st, 2, sqlite3_errstr(ec), -1,
	    SQLITE_STATIC) == SQLITE_OK &&
	    sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
	    SQLITE_OK;
	if (ok) {
		/* With its leaf, as every event (db_audit.c). */
		ok = sqlite3_step(st) == SQLITE_DONE &&
		    dbi_audit_append(db, sqlite3_last_insert_rowid(db->h)) == 0;
		if (ok)
			dbi_audit_tx_commit(db);
		ok = ok && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) ==
		    SQLITE_OK;
		if (!sqlite3_get_autocommit(db->h))
			sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		dbi_audit_tx_done(db, ok);
	}
	sqlite3_finalize(st);
	if (!ok && storage_fatal != NULL)
		storage_fatal("a commit's sync failed and the commit that voids "
		    "it failed too: what was recorded is decided at the next "
		    "start");
}

/* Commits when rc is 0, else rolls back keeping rc and its message. */
int
dbi_tx_end(struct db *db, int rc)
{
	int64_t change = 0;
	int ec = SQLITE_OK, revoked = 0;

	if (rc == 0)
		dbi_audit_tx_commit(db);
	if (rc == 0 && (rc = dbi_exec(db, "COMMIT")) < 0)
		ec = sqlite3_extended_errcode(db->h);
	if (rc < 0 && !sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	dbi_audit_tx_done(db, rc == 0);
	if (ec == SQLITE_IOERR_FSYNC && db->writing)
		void_failed_commit(db, ec);
	/* Only what committed is told, and only once the lock is let go:
	 * the function may take locks of its own. */
	if (rc == 0 && db->writing) {
		change = db->tx_change;
		revoked = db->tx_revoked;
	}
	db->tx_change = 0;
	db->tx_revoked = 0;
	if (db->writing) {
		db->writing = 0;
		pthread_mutex_unlock(&db_writer);
	}
	if ((change != 0 || revoked) && commit_fn != NULL)
		commit_fn(change, revoked);
	return rc;
}
