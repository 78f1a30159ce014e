/*
 * db.c - the provenance store over SQLite; see db.h.
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
 * function that records one; this file never reads a clock, which keeps
 * the tests exact and the gate's notion of time in one place.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "dynbuf.h"
#include "err.h"

/* Generated from db/migrations/NNNN_*.sql by the Makefile, in order. */
extern const char *const db_migrations[];
extern const size_t db_migrations_n;

/* Milliseconds a statement waits for another connection's write lock. A
 * scan claim or a submission holds it for well under that; past it the
 * database is wedged and the caller gets AL_EIO rather than a hang. */
#define DB_BUSY_MS 5000

struct db {
	sqlite3 *h;
	int writing;              /* holds db_writer */
};

/*
 * One writer at a time in this process. SQLite would serialise writers
 * anyway, but by making the losers sleep and retry (up to 100 ms a try):
 * under load most of the time went to those sleeps. Waiting on a mutex
 * hands the lock over at once. (Other processes still meet SQLite's lock
 * and its busy timeout.)
 */
static pthread_mutex_t db_writer = PTHREAD_MUTEX_INITIALIZER;

static const char *const role_names[] = {
	"agent", "reviewer", "ci", "auditor", "admin",
};
_Static_assert(sizeof(role_names) / sizeof(role_names[0]) == DB_ROLE_MAX,
    "a name for every role (and in the schema's CHECK)");

/*
 * Sets the message from the connection's last error. A uniqueness
 * violation is AL_EEXIST and any other constraint (CHECK, NOT NULL, foreign
 * key, trigger) AL_EINVAL: the caller passed a value the schema refuses.
 */
static int
db_fail(struct db *db, const char *what)
{
	int ec = sqlite3_extended_errcode(db->h), code = AL_EIO;

	if (ec == SQLITE_CONSTRAINT_UNIQUE || ec == SQLITE_CONSTRAINT_PRIMARYKEY)
		code = AL_EEXIST;
	else if ((ec & 0xff) == SQLITE_CONSTRAINT)
		code = AL_EINVAL;
	else if (ec == SQLITE_NOMEM)
		code = AL_ENOMEM;
	return al_err_set(code, "sqlite: %s (%.60s)", sqlite3_errmsg(db->h),
	    what);
}

static int
prep(struct db *db, sqlite3_stmt **out, const char *sql)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, out, NULL) != SQLITE_OK) {
		*out = NULL;
		return db_fail(db, sql);
	}
	return 0;
}

/* Steps st: 1 for a row, 0 when it is done, or a negative error. */
static int
step(struct db *db, sqlite3_stmt *st)
{
	int r = sqlite3_step(st);

	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return db_fail(db, sqlite3_sql(st));
}

/* Steps a statement that returns no row, and readies it for reuse. */
static int
step_done(struct db *db, sqlite3_stmt *st)
{
	int rc = step(db, st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc > 0 ? 0 : rc;
}

static int
exec(struct db *db, const char *sql)
{
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, sql);
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
			r = s ? sqlite3_bind_text(st, i + 1, s, -1, SQLITE_STATIC)
			    : sqlite3_bind_null(st, i + 1);
			continue;
		}
		v = va_arg(ap, int64_t);
		if ((fmt[i] == 'z' && v == 0) || (fmt[i] == 'm' && v == -1))
			r = sqlite3_bind_null(st, i + 1);
		else
			r = sqlite3_bind_int64(st, i + 1, v);
	}
	return r == SQLITE_OK ? 0 : db_fail(db, sqlite3_sql(st));
}

static int
bind(struct db *db, sqlite3_stmt *st, const char *fmt, ...)
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
static int
prep_bind(struct db *db, sqlite3_stmt **out, const char *sql,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	if ((rc = prep(db, out, sql)) < 0)
		return rc;
	va_start(ap, fmt);
	rc = vbind(db, *out, fmt, ap);
	va_end(ap);
	return rc;
}

/* A copy of a text column; NULL stays NULL, a failed copy sets *nomem. */
static char *
col_str(sqlite3_stmt *st, int i, int *nomem)
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
static int64_t
col_int(sqlite3_stmt *st, int i, int64_t def)
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
static int
col_enum(sqlite3_stmt *st, int i, int (*parse)(const char *), int none,
    int *bad)
{
	int v;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return none;
	if ((v = parse((const char *)sqlite3_column_text(st, i))) < 0)
		*bad = 1;
	return v;
}

static void
col_hex(sqlite3_stmt *st, int i, char out[65])
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
static int
grow(void *vp, size_t *cap, size_t n, size_t size)
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

static int
tx_begin(struct db *db, int write)
{
	int rc;

	if (!write)
		return exec(db, "BEGIN");
	pthread_mutex_lock(&db_writer);
	db->writing = 1;
	if ((rc = exec(db, "BEGIN IMMEDIATE")) < 0) {
		db->writing = 0;
		pthread_mutex_unlock(&db_writer);
	}
	return rc;
}

/* Commits when rc is 0, else rolls back keeping rc and its message. */
static int
tx_end(struct db *db, int rc)
{
	if (rc == 0)
		rc = exec(db, "COMMIT");
	if (rc < 0 && !sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	if (db->writing) {
		db->writing = 0;
		pthread_mutex_unlock(&db_writer);
	}
	return rc;
}

/* Runs a statement that returns one integer. */
static int
query_int(struct db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(db, &st, sql)) < 0)
		return rc;
	if ((rc = step(db, st)) == 1) {
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
		if ((rc = tx_begin(db, 1)) < 0)
			return rc;
		/* Another connection may have migrated while we waited. */
		rc = db_schema_version(db, &v);
		if (rc == 0 && v > db_schema_latest())
			rc = refuse_newer(v);
		if (rc == 0 && v < db_schema_latest()) {
			rc = exec(db, db_migrations[v]);
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			    v + 1);
			if (rc == 0)
				rc = exec(db, sql);
			v++;
		}
		if ((rc = tx_end(db, rc)) < 0)
			return rc;
	}
	return 0;
}

/* Creates the file as 0600 whatever the umask; an existing one is kept. */
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
	return 0;
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
	if ((rc = prep(db, &st, "PRAGMA journal_mode = WAL")) < 0)
		return rc;
	if ((rc = step(db, st)) == 1) {
		const unsigned char *m = sqlite3_column_text(st, 0);

		rc = m && strcmp((const char *)m, "wal") == 0 ? 0 :
		    al_err_set(AL_EIO, "sqlite: WAL mode refused (journal "
		    "mode %s)", m ? (const char *)m : "unknown");
	} else if (rc == 0) {
		rc = al_err_set(AL_EIO, "sqlite: WAL mode refused");
	}
	sqlite3_finalize(st);
	if (rc == 0)
		rc = exec(db, "PRAGMA foreign_keys = ON");
	/* FULL: a transaction acknowledged to a client survives power loss. */
	if (rc == 0)
		rc = exec(db, "PRAGMA synchronous = FULL");
	return rc;
}

int
db_open(struct db **out, const char *path, int create)
{
	struct db *db = NULL;
	struct stat sb;
	int rc;

	*out = NULL;
	if (create && (rc = db_create_file(path)) < 0)
		return rc;
	if (!create && stat(path, &sb) < 0)
		return al_err_set(errno == ENOENT ? AL_ENOTFOUND : AL_EIO,
		    "%s: %s", path, strerror(errno));
	if ((db = calloc(1, sizeof(*db))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	/* Never SQLITE_OPEN_CREATE: the file exists by now, made 0600 above. */
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		rc = db->h ? db_fail(db, path) :
		    al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = db_configure(db)) < 0 || (rc = db_migrate(db)) < 0)
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
	sqlite3_close(db->h);
	free(db);
}

int
db_integrity_check(struct db *db)
{
	sqlite3_stmt *st;
	const unsigned char *s;
	int rc;

	if ((rc = prep(db, &st, "PRAGMA integrity_check")) < 0)
		return rc;
	if ((rc = step(db, st)) == 1) {
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

/* ---- events ------------------------------------------------------------- */

/* One event row, inside the caller's transaction. */
static int
event_insert(struct db *db, int64_t now, int64_t actor, const char *action,
    int64_t submission, const char *detail)
{
	sqlite3_stmt *st;
	int rc;

	rc = prep_bind(db, &st, "INSERT INTO events (at, actor, action, "
	    "submission_id, detail) VALUES (?, ?, ?, ?, ?)", "iztzt", now,
	    actor, action, submission, detail);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	return rc;
}

int
db_event_add(struct db *db, int64_t now, int64_t actor, const char *action,
    int64_t submission, const char *detail)
{
	int rc;

	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	return tx_end(db, event_insert(db, now, actor, action, submission,
	    detail));
}

/* db_event_add with a detail formatted by SQLite's printf (whose %z
 * frees its argument: sizes go as %lld). */
static int
event_addf(struct db *db, int64_t now, int64_t actor, const char *action,
    int64_t submission, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int
event_addf(struct db *db, int64_t now, int64_t actor, const char *action,
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

int
db_event_list(struct db *db, int64_t submission, struct db_event **out,
    size_t *n_out)
{
	struct db_event *v = NULL, *e;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc, nomem = 0;

	*out = NULL;
	*n_out = 0;
	rc = prep_bind(db, &st, "SELECT e.id, e.at, e.actor, p.name, e.action, "
	    "e.submission_id, e.detail FROM events e LEFT JOIN principals p "
	    "ON p.id = e.actor WHERE ?1 = 0 OR e.submission_id = ?1 "
	    "ORDER BY e.id", "i", submission);
	while (rc == 0 && (rc = step(db, st)) == 1) {
		if ((rc = grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		e = &v[n++];
		e->id = sqlite3_column_int64(st, 0);
		e->at = sqlite3_column_int64(st, 1);
		e->actor = col_int(st, 2, 0);
		e->actor_name = col_str(st, 3, &nomem);
		e->action = col_str(st, 4, &nomem);
		e->submission = col_int(st, 5, 0);
		e->detail = col_str(st, 6, &nomem);
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

/* ---- principals --------------------------------------------------------- */

const char *
db_role_name(enum db_role r)
{
	return (int)r >= 0 && r < DB_ROLE_MAX ? role_names[r] : "unknown";
}

int
db_role_parse(const char *name)
{
	int i;

	for (i = 0; i < DB_ROLE_MAX; i++)
		if (strcmp(name, role_names[i]) == 0)
			return i;
	return -1;
}

int
db_principal_create(struct db *db, const char *name, enum db_role role,
    const char *token_hash, const char *on_behalf_of, int64_t expires_at,
    int64_t now, int64_t actor, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int rc;

	if ((int)role < 0 || role >= DB_ROLE_MAX)
		return al_err_set(AL_EINVAL, "unknown role %d", (int)role);
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = prep_bind(db, &st, "INSERT INTO principals (name, role, token_hash, "
	    "on_behalf_of, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
	    "ttttiz", name, role_names[role], token_hash, on_behalf_of, now,
	    expires_at);
	if (rc == 0 && (rc = step_done(db, st)) == 0) {
		id = sqlite3_last_insert_rowid(db->h);
		rc = event_addf(db, now, actor, "token.create", 0,
		    "name=%s role=%s", name, role_names[role]);
	}
	sqlite3_finalize(st);
	if ((rc = tx_end(db, rc)) == 0 && id_out != NULL)
		*id_out = id;
	return rc;
}

#define PRINCIPAL_COLS "id, name, role, on_behalf_of, created_at, " \
	"expires_at, revoked_at"

static int
principal_row(sqlite3_stmt *st, struct db_principal *p)
{
	const unsigned char *role = sqlite3_column_text(st, 2);
	int nomem = 0, r = role ? db_role_parse((const char *)role) : -1;

	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(st, 0);
	p->name = col_str(st, 1, &nomem);
	p->role = r < 0 ? DB_ROLE_AGENT : (enum db_role)r;
	p->on_behalf_of = col_str(st, 3, &nomem);
	p->created_at = sqlite3_column_int64(st, 4);
	p->expires_at = col_int(st, 5, 0);
	p->revoked_at = col_int(st, 6, 0);
	if (nomem || r < 0) {
		db_principal_clear(p);
		/* The schema's CHECK admits no other role: the file is bad. */
		return nomem ? al_err_set(AL_ENOMEM, "out of memory") :
		    al_err_set(AL_EIO, "principal with an unknown role");
	}
	return 0;
}

static int
principal_one(struct db *db, const char *sql, const char *key,
    const char *what, struct db_principal *out)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = prep_bind(db, &st, sql, "t", key);
	if (rc == 0 && (rc = step(db, st)) == 1)
		rc = principal_row(st, out);
	else if (rc == 0)
		rc = al_err_set(AL_ENOTFOUND, "no principal %s", what);
	sqlite3_finalize(st);
	return rc;
}

int
db_principal_by_token(struct db *db, const char *token_hash,
    struct db_principal *out)
{
	return principal_one(db, "SELECT " PRINCIPAL_COLS " FROM principals "
	    "WHERE token_hash = ?", token_hash, "holds this token", out);
}

int
db_principal_by_name(struct db *db, const char *name,
    struct db_principal *out)
{
	return principal_one(db, "SELECT " PRINCIPAL_COLS " FROM principals "
	    "WHERE name = ?", name, "of that name", out);
}

int
db_principal_list(struct db *db, struct db_principal **out, size_t *n_out)
{
	struct db_principal *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	rc = prep(db, &st, "SELECT " PRINCIPAL_COLS " FROM principals "
	    "ORDER BY id");
	while (rc == 0 && (rc = step(db, st)) == 1) {
		if ((rc = grow(&v, &cap, n, sizeof(*v))) == 0 &&
		    (rc = principal_row(st, &v[n])) == 0)
			n++;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		db_principal_list_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int
db_principal_revoke(struct db *db, const char *name, int64_t now,
    int64_t actor)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int rc;

	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = prep_bind(db, &st, "SELECT id, revoked_at FROM principals "
	    "WHERE name = ?", "t", name);
	if (rc == 0 && (rc = step(db, st)) == 0)
		rc = al_err_set(AL_ENOTFOUND, "no principal named %s", name);
	else if (rc == 1 && sqlite3_column_type(st, 1) != SQLITE_NULL)
		rc = al_err_set(AL_EINVAL, "%s is already revoked", name);
	else if (rc == 1) {
		id = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = prep_bind(db, &st, "UPDATE principals SET revoked_at = ? "
		    "WHERE id = ?", "ii", now, id);
	if (rc == 0)
		rc = step_done(db, st);
	if (rc == 0)
		rc = event_addf(db, now, actor, "token.revoke", 0, "name=%s",
		    name);
	sqlite3_finalize(st);
	return tx_end(db, rc);
}

void
db_principal_clear(struct db_principal *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p->on_behalf_of);
	memset(p, 0, sizeof(*p));
}

void
db_principal_list_free(struct db_principal *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		db_principal_clear(&v[i]);
	free(v);
}

/* ---- submissions -------------------------------------------------------- */

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
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	/* ON CONFLICT, not OR IGNORE: a CHECK failure must still fail. */
	rc = prep_bind(db, &st, "INSERT INTO blobs (sha256, size, stored_at) "
	    "VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING", "tii",
	    in->sha256, in->size, now);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = prep_bind(db, &st, "INSERT INTO submissions (sha256, size, "
		    "kind, name, submitter, launched_by, peer_uid, peer_pid, "
		    "via, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    "tittitmmti", in->sha256, in->size, al_kind_name(in->kind),
		    in->name,
		    in->submitter, in->launched_by, in->peer_uid, in->peer_pid,
		    in->via, now);
	if (rc == 0 && (rc = step_done(db, st)) == 0)
		id = sqlite3_last_insert_rowid(db->h);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0 && in->nlabels > 0)
		rc = prep(db, &st, "INSERT INTO labels (submission_id, key, "
		    "value) VALUES (?, ?, ?)");
	for (i = 0; rc == 0 && i < in->nlabels; i++)
		if ((rc = bind(db, st, "itt", id, in->labels[i].key,
		    in->labels[i].value)) == 0)
			rc = step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = event_addf(db, now, in->submitter, "submit", id,
		    "sha256=%s size=%lld", in->sha256, (long long)in->size);
	if ((rc = tx_end(db, rc)) == 0 && id_out != NULL)
		*id_out = id;
	return rc;
}

#define SUBMISSION_SELECT "SELECT s.id, s.sha256, s.size, s.kind, s.name, " \
	"s.submitter, p.name, s.launched_by, s.peer_uid, s.peer_pid, s.via, " \
	"s.received_at, s.state, s.verdict, s.worst FROM submissions s " \
	"JOIN principals p ON p.id = s.submitter "

/* Fills s from a SUBMISSION_SELECT row, without its labels. */
static int
submission_row(sqlite3_stmt *st, struct db_submission *s)
{
	int nomem = 0, bad = 0;

	memset(s, 0, sizeof(*s));
	s->id = sqlite3_column_int64(st, 0);
	col_hex(st, 1, s->sha256);
	s->size = sqlite3_column_int64(st, 2);
	s->kind = (enum al_kind)col_enum(st, 3, al_kind_parse, -1, &bad);
	s->name = col_str(st, 4, &nomem);
	s->submitter = sqlite3_column_int64(st, 5);
	s->submitter_name = col_str(st, 6, &nomem);
	s->launched_by = col_str(st, 7, &nomem);
	s->peer_uid = col_int(st, 8, -1);
	s->peer_pid = col_int(st, 9, -1);
	s->via = col_str(st, 10, &nomem);
	s->received_at = sqlite3_column_int64(st, 11);
	s->state = (enum al_state)col_enum(st, 12, al_state_parse, -1, &bad);
	s->verdict = (enum al_verdict)col_enum(st, 13, al_verdict_parse,
	    AL_VERDICT_NONE, &bad);
	s->worst = (enum al_severity)col_enum(st, 14, al_severity_parse,
	    AL_SEV_NONE, &bad);
	if (nomem) {
		db_submission_clear(s);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	if (bad || (int)s->kind < 0 || (int)s->state < 0) {
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

	rc = bind(db, ls, "i", s->id);
	while (rc == 0 && (rc = step(db, ls)) == 1) {
		if ((rc = grow(&s->labels, &cap, s->nlabels,
		    sizeof(*s->labels))) < 0)
			break;
		s->labels[s->nlabels].key = col_str(ls, 0, &nomem);
		s->labels[s->nlabels++].value = col_str(ls, 1, &nomem);
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
	if ((rc = tx_begin(db, 0)) < 0)
		return rc;
	rc = prep_bind(db, &st, SUBMISSION_SELECT "WHERE s.id = ?", "i", id);
	if (rc == 0 && (rc = step(db, st)) == 0)
		rc = al_err_set(AL_ENOTFOUND, "no submission %lld",
		    (long long)id);
	else if (rc == 1 && (rc = submission_row(st, out)) == 0 &&
	    (rc = prep(db, &ls, LABELS_SELECT)) == 0)
		rc = submission_labels(db, ls, out);
	sqlite3_finalize(st);
	sqlite3_finalize(ls);
	if ((rc = tx_end(db, rc)) < 0)
		db_submission_clear(out);
	return rc;
}

int
db_submission_list(struct db *db, int state, int64_t submitter,
    size_t limit, struct db_submission **out, size_t *n_out)
{
	struct db_submission *v = NULL;
	sqlite3_stmt *st = NULL, *ls = NULL;
	size_t n = 0, cap = 0;
	int64_t lim = limit > INT64_MAX ? INT64_MAX : (int64_t)limit;
	int rc;

	*out = NULL;
	*n_out = 0;
	if ((rc = tx_begin(db, 0)) < 0)
		return rc;
	rc = prep_bind(db, &st, SUBMISSION_SELECT "WHERE (?1 IS NULL OR "
	    "s.state = ?1) AND (?2 = 0 OR s.submitter = ?2) "
	    "ORDER BY s.id DESC LIMIT ?3", "tii", state < 0 ? NULL :
	    al_state_name((enum al_state)state), submitter, lim);
	if (rc == 0)
		rc = prep(db, &ls, LABELS_SELECT);
	while (rc == 0 && (rc = step(db, st)) == 1) {
		if ((rc = grow(&v, &cap, n, sizeof(*v))) < 0 ||
		    (rc = submission_row(st, &v[n])) < 0)
			break;
		rc = submission_labels(db, ls, &v[n++]);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ls);
	if ((rc = tx_end(db, rc)) < 0) {
		db_submission_list_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
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

void
db_submission_list_free(struct db_submission *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		db_submission_clear(&v[i]);
	free(v);
}

int
db_submission_counts(struct db *db, int64_t counts[AL_STATE_MAX])
{
	sqlite3_stmt *st;
	int rc, k;

	memset(counts, 0, AL_STATE_MAX * sizeof(counts[0]));
	rc = prep(db, &st, "SELECT state, count(*) FROM submissions "
	    "GROUP BY state");
	while (rc == 0 && (rc = step(db, st)) == 1) {
		k = al_state_parse((const char *)sqlite3_column_text(st, 0));
		if (k >= 0)
			counts[k] = sqlite3_column_int64(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- scans -------------------------------------------------------------- */

int
db_scan_claim(struct db *db, const char *ruleset_digest,
    const char *engine_version, int64_t now, struct db_scan_job *out)
{
	sqlite3_stmt *st = NULL;
	int rc, nomem = 0, bad = 0;

	memset(out, 0, sizeof(*out));
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	/* Under the write lock, so no other connection reads this row as
	 * "received" until we commit it as "scanning". */
	rc = prep(db, &st, "SELECT id, sha256, kind, name FROM submissions "
	    "WHERE state = 'received' ORDER BY id LIMIT 1");
	if (rc == 0 && (rc = step(db, st)) == 0)
		rc = al_err_set(AL_ENOTFOUND, "no submission waits for a scan");
	else if (rc == 1) {
		out->submission_id = sqlite3_column_int64(st, 0);
		col_hex(st, 1, out->sha256);
		out->kind = (enum al_kind)col_enum(st, 2, al_kind_parse, -1, &bad);
		out->name = col_str(st, 3, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
		if (rc == 0 && (bad || (int)out->kind < 0))
			rc = al_err_set(AL_EIO, "submission %lld: a kind the "
			    "schema does not know", (long long)out->submission_id);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = prep_bind(db, &st, "UPDATE submissions SET state = 'scanning' "
		    "WHERE id = ?", "i", out->submission_id);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = prep_bind(db, &st, "INSERT INTO scans (submission_id, "
		    "ruleset_digest, engine_version, started_at) "
		    "VALUES (?, ?, ?, ?)", "itti", out->submission_id,
		    ruleset_digest, engine_version, now);
	if (rc == 0 && (rc = step_done(db, st)) == 0) {
		out->scan_id = sqlite3_last_insert_rowid(db->h);
		rc = event_addf(db, now, 0, "scan.start", out->submission_id,
		    "scan=%lld ruleset=%s engine=%s", (long long)out->scan_id,
		    ruleset_digest, engine_version);
	}
	sqlite3_finalize(st);
	if ((rc = tx_end(db, rc)) < 0)
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

	*n_out = 0;
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	/* Set-wise, events first, while the rows still say "scanning". */
	rc = prep_bind(db, &st, "INSERT INTO events (at, action, submission_id, "
	    "detail) SELECT ?1, 'scan.resume', s.id, 'interrupted scan=' || "
	    "(SELECT max(c.id) FROM scans c WHERE c.submission_id = s.id AND "
	    "c.finished_at IS NULL) FROM submissions s "
	    "WHERE s.state = 'scanning' ORDER BY s.id", "i", now);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = prep_bind(db, &st, "UPDATE scans SET finished_at = ?1, "
		    "outcome = 'interrupted' WHERE finished_at IS NULL AND "
		    "submission_id IN (SELECT id FROM submissions "
		    "WHERE state = 'scanning')", "i", now);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = exec(db, "UPDATE submissions SET state = 'received' "
		    "WHERE state = 'scanning'");
	if (rc == 0)
		*n_out = (size_t)sqlite3_changes(db->h);
	return tx_end(db, rc);
}

int
db_scan_finish(struct db *db, const struct db_scan_job *job,
    enum al_verdict verdict, enum al_severity worst,
    const struct db_finding *f, size_t nf, const struct db_item *items,
    size_t ni, const char *error, int64_t now)
{
	const char *vname = al_verdict_name(verdict);
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
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	/* Only the open scan of a submission still scanning: a job that was
	 * requeued meanwhile must not overwrite the next scan's result. */
	rc = prep_bind(db, &st, "UPDATE scans SET finished_at = ?, outcome = ?, "
	    "error = ? WHERE id = ? AND submission_id = ? AND finished_at IS "
	    "NULL AND (SELECT state FROM submissions WHERE id = ?5) = "
	    "'scanning'", "ittii", now, vname, error, job->scan_id,
	    job->submission_id);
	if (rc == 0 && (rc = step_done(db, st)) == 0 &&
	    sqlite3_changes(db->h) != 1)
		rc = al_err_set(AL_EINVAL, "scan %lld of submission %lld is not "
		    "running", (long long)job->scan_id,
		    (long long)job->submission_id);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = prep_bind(db, &st, "UPDATE submissions SET state = 'held', "
		    "verdict = ?, worst = ? WHERE id = ?", "tti", vname,
		    al_severity_name(worst), job->submission_id);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0 && nf > 0)
		rc = prep(db, &st, "INSERT INTO findings (scan_id, rule, "
		    "severity, path, line, col, excerpt, fingerprint) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	for (i = 0; rc == 0 && i < nf; i++)
		if ((rc = bind(db, st, "itttiitt", job->scan_id, f[i].rule,
		    al_severity_name(f[i].severity), f[i].path, f[i].line,
		    f[i].column,
		    f[i].excerpt, f[i].fingerprint)) == 0)
			rc = step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0 && ni > 0)
		rc = prep(db, &st, "INSERT INTO items (scan_id, path, mode, size, "
		    "sha256, type) VALUES (?, ?, ?, ?, ?, ?)");
	for (i = 0; rc == 0 && i < ni; i++)
		if ((rc = bind(db, st, "itiitt", job->scan_id, items[i].path,
		    items[i].mode, items[i].size, items[i].sha256 &&
		    items[i].sha256[0] ? items[i].sha256 : NULL,
		    items[i].type)) == 0)
			rc = step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = event_addf(db, now, 0, "scan.finish", job->submission_id,
		    "scan=%lld verdict=%s findings=%lld", (long long)job->scan_id,
		    vname, (long long)nf);
	return tx_end(db, rc);
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
	rc = prep_bind(db, &st, "SELECT rule, severity, path, line, col, excerpt, "
	    "fingerprint FROM findings WHERE scan_id = (SELECT id FROM scans "
	    "WHERE submission_id = ? AND finished_at IS NOT NULL AND "
	    "outcome IS NOT 'interrupted' ORDER BY id DESC LIMIT 1) "
	    "ORDER BY id", "i", submission_id);
	while (rc == 0 && (rc = step(db, st)) == 1) {
		if ((rc = grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		f = &v[n++];
		f->rule = col_str(st, 0, &nomem);
		f->severity = (enum al_severity)col_enum(st, 1,
		    al_severity_parse, AL_SEV_NONE, &bad);
		f->path = col_str(st, 2, &nomem);
		f->line = sqlite3_column_int64(st, 3);
		f->column = sqlite3_column_int64(st, 4);
		f->excerpt = col_str(st, 5, &nomem);
		f->fingerprint = col_str(st, 6, &nomem);
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
	rc = prep_bind(db, &st, "SELECT id, ruleset_digest, engine_version, "
	    "started_at, finished_at, outcome FROM scans WHERE submission_id = ? "
	    "AND outcome IS NOT 'interrupted' ORDER BY id DESC LIMIT 1", "i",
	    submission_id);
	if (rc == 0 && (rc = step(db, st)) == 1) {
		out->id = sqlite3_column_int64(st, 0);
		out->ruleset_digest = col_str(st, 1, &nomem);
		out->engine_version = col_str(st, 2, &nomem);
		out->started_at = sqlite3_column_int64(st, 3);
		out->finished_at = sqlite3_column_int64(st, 4);
		out->outcome = (enum al_verdict)col_enum(st, 5, al_verdict_parse,
		    AL_VERDICT_NONE, &bad);
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
	int rc, nomem = 0;

	*out = NULL;
	*n_out = 0;
	rc = prep_bind(db, &st, "SELECT path, mode, size, sha256, type FROM "
	    "items WHERE scan_id = (SELECT id FROM scans WHERE submission_id = ? "
	    "AND finished_at IS NOT NULL AND outcome IS NOT 'interrupted' "
	    "ORDER BY id DESC LIMIT 1) ORDER BY id", "i", submission_id);
	while (rc == 0 && (rc = step(db, st)) == 1) {
		if ((rc = grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		it = &v[n++];
		it->path = col_str(st, 0, &nomem);
		it->mode = sqlite3_column_int64(st, 1);
		it->size = sqlite3_column_int64(st, 2);
		it->sha256 = sqlite3_column_type(st, 3) == SQLITE_NULL ?
		    strdup("") : col_str(st, 3, &nomem);
		it->type = col_str(st, 4, &nomem);
		if (it->sha256 == NULL)
			nomem = 1;
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
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

/* ---- review and release ------------------------------------------------- */

/* The submission's facts that decisions need, read inside a transaction. */
struct subfacts {
	enum al_state state;
	char sha256[65];
	enum al_verdict verdict;
	enum al_severity worst;
	int64_t submitter;
	char launched_by[256];
	int64_t scan_id;          /* latest finished scan, 0: none */
	char ruleset[80];
};

static int
subfacts_get(struct db *db, int64_t id, struct subfacts *f)
{
	sqlite3_stmt *st;
	int rc, bad = 0;

	memset(f, 0, sizeof(*f));
	rc = prep_bind(db, &st, "SELECT s.state, s.sha256, s.verdict, "
	    "s.worst, s.submitter, ifnull(s.launched_by, ''), "
	    "ifnull(c.id, 0), ifnull(c.ruleset_digest, '') FROM submissions s "
	    "LEFT JOIN scans c ON c.id = (SELECT id FROM scans WHERE "
	    "submission_id = s.id AND finished_at IS NOT NULL AND outcome IS NOT "
	    "'interrupted' ORDER BY id DESC LIMIT 1) WHERE s.id = ?", "i", id);
	if (rc == 0 && (rc = step(db, st)) == 1) {
		f->state = (enum al_state)col_enum(st, 0, al_state_parse, -1,
		    &bad);
		snprintf(f->sha256, sizeof(f->sha256), "%s",
		    (const char *)sqlite3_column_text(st, 1));
		f->verdict = (enum al_verdict)col_enum(st, 2, al_verdict_parse,
		    AL_VERDICT_NONE, &bad);
		f->worst = (enum al_severity)col_enum(st, 3, al_severity_parse,
		    AL_SEV_NONE, &bad);
		f->submitter = sqlite3_column_int64(st, 4);
		snprintf(f->launched_by, sizeof(f->launched_by), "%s",
		    (const char *)sqlite3_column_text(st, 5));
		f->scan_id = sqlite3_column_int64(st, 6);
		snprintf(f->ruleset, sizeof(f->ruleset), "%s",
		    (const char *)sqlite3_column_text(st, 7));
		rc = bad || (int)f->state < 0 ? al_err_set(AL_EIO, "submission "
		    "%lld: a state, verdict or severity the schema does not know",
		    (long long)id) : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no submission %lld", (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

static int
needed(const struct subfacts *f, const struct db_policy *pol)
{
	if (f->verdict == AL_VERDICT_UNSCANNABLE)
		return pol->unscannable;
	if (f->verdict == AL_VERDICT_FLAGGED)
		return f->worst >= AL_SEV_HIGH ? pol->high : pol->flagged;
	return pol->clean;
}

/* Counts the approvals that stand for the latest scan, and the override. */
static int
review_count(struct db *db, int64_t id, const struct subfacts *f,
    const struct db_policy *pol, struct db_review *out)
{
	sqlite3_stmt *st;
	int64_t n = 0, ov = 0;
	int rc;

	/* An approval of an earlier scan stands while the latest found
	 * nothing that one did not (by fingerprint). */
	rc = prep_bind(db, &st, "SELECT count(DISTINCT a.reviewer) FROM "
	    "approvals a WHERE a.submission_id = ?1 AND a.sha256 = ?3 AND "
	    "(a.scan_id = ?2 OR NOT EXISTS (SELECT fingerprint FROM findings "
	    "WHERE scan_id = ?2 EXCEPT SELECT fingerprint FROM findings WHERE "
	    "scan_id = a.scan_id))", "iit", id, f->scan_id, f->sha256);
	if (rc == 0 && (rc = step(db, st)) == 1) {
		n = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	if (rc == 0) {
		rc = prep_bind(db, &st, "SELECT count(*) FROM overrides WHERE "
		    "submission_id = ? AND scan_id = ?", "ii", id, f->scan_id);
		if (rc == 0 && (rc = step(db, st)) == 1) {
			ov = sqlite3_column_int64(st, 0);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	if (rc < 0)
		return rc;
	out->approvals = (int)n;
	out->needed = needed(f, pol);
	out->override = ov > 0;
	return 0;
}

static int
policy_met(const struct subfacts *f, const struct db_review *r)
{
	return r->approvals >= r->needed &&
	    (f->verdict != AL_VERDICT_UNSCANNABLE || r->override);
}

/* After a decision: approved when the policy is met; out filled. */
static int
settle(struct db *db, int64_t id, struct subfacts *f,
    const struct db_policy *pol, int64_t now, int64_t actor,
    struct db_review *out)
{
	sqlite3_stmt *st;
	int rc = review_count(db, id, f, pol, out);

	if (rc == 0 && f->state == AL_STATE_HELD && policy_met(f, out)) {
		rc = prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'approved' WHERE id = ? AND state = 'held'", "i", id);
		if (rc == 0)
			rc = step_done(db, st);
		sqlite3_finalize(st);
		if (rc == 0)
			rc = event_addf(db, now, actor, "approved", id, "approvals=%d "
			    "needed=%d scan=%lld", out->approvals, out->needed,
			    (long long)f->scan_id);
		f->state = AL_STATE_APPROVED;
	}
	if (rc == 0)
		out->state = f->state;
	return rc;
}

void
db_review_clear(struct db_review *r)
{
	memset(r, 0, sizeof(*r));
}

int
db_approve(struct db *db, int64_t id, int64_t reviewer, const char *sha256,
    const char *ruleset, const char *comment, const struct db_policy *pol,
    int64_t now, struct db_review *out)
{
	struct subfacts f;
	struct db_principal who;
	sqlite3_stmt *st;
	int64_t viewed = 0;
	int rc, have_who = 0;

	memset(out, 0, sizeof(*out));
	memset(&who, 0, sizeof(who));
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0) {
		rc = prep_bind(db, &st, "SELECT name FROM principals WHERE id = ?",
		    "i", reviewer);
		if (rc == 0 && (rc = step(db, st)) == 1) {
			int nomem = 0;

			who.name = col_str(st, 0, &nomem);
			have_who = 1;
			rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
		} else if (rc == 0) {
			rc = al_err_set(AL_ENOTFOUND, "no such reviewer");
		}
		sqlite3_finalize(st);
	}
	if (rc == 0) {
		rc = prep_bind(db, &st, "SELECT count(*) FROM events WHERE "
		    "submission_id = ? AND actor = ? AND action = 'view'", "ii", id,
		    reviewer);
		if (rc == 0 && (rc = step(db, st)) == 1) {
			viewed = sqlite3_column_int64(st, 0);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	if (rc < 0)
		goto out;
	if (f.state != AL_STATE_HELD)
		rc = al_err_set(AL_EDENIED, "submission %lld is %s, not held",
		    (long long)id, al_state_name(f.state));
	else if (strcmp(sha256, f.sha256) != 0)
		rc = al_err_set(AL_EDENIED, "the approval names other bytes than "
		    "the submission's (sha256 %.12s…)", f.sha256);
	else if (f.scan_id == 0 || strcmp(ruleset, f.ruleset) != 0)
		rc = al_err_set(AL_EDENIED, "the approval names another rule set "
		    "than the latest scan's (%.19s…): look again", f.ruleset);
	else if (reviewer == f.submitter)
		rc = al_err_set(AL_EDENIED, "the submitter cannot approve its own "
		    "submission");
	else if (f.launched_by[0] != '\0' && have_who &&
	    strcasecmp(who.name, f.launched_by) == 0)
		rc = al_err_set(AL_EDENIED, "%s launched the agent that submitted "
		    "this, and cannot approve it", f.launched_by);
	else if (viewed == 0)
		rc = al_err_set(AL_EDENIED, "fetch the content first (airlock diff "
		    "%lld): an approval is for what was read", (long long)id);
	if (rc < 0)
		goto out;
	rc = prep_bind(db, &st, "INSERT INTO approvals (submission_id, reviewer, "
	    "at, comment, sha256, ruleset_digest, scan_id) VALUES (?, ?, ?, ?, "
	    "?, ?, ?)", "iiittti", id, reviewer, now, comment, sha256, ruleset,
	    f.scan_id);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	if (rc == AL_EEXIST)
		rc = al_err_set(AL_EEXIST, "already approved by this reviewer");
	if (rc == 0)
		rc = event_addf(db, now, reviewer, "approve", id, "sha256=%s "
		    "ruleset=%s scan=%lld", sha256, ruleset, (long long)f.scan_id);
	if (rc == 0)
		rc = settle(db, id, &f, pol, now, reviewer, out);
out:
	free(who.name);
	rc = tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_reject(struct db *db, int64_t id, int64_t reviewer, const char *comment,
    int64_t now)
{
	struct subfacts f;
	sqlite3_stmt *st;
	int rc;

	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0 && f.state != AL_STATE_HELD)
		rc = al_err_set(AL_EDENIED, "submission %lld is %s, not held",
		    (long long)id, al_state_name(f.state));
	if (rc == 0 && reviewer == f.submitter)
		rc = al_err_set(AL_EDENIED, "the submitter cannot decide on its own "
		    "submission");
	if (rc == 0) {
		rc = prep_bind(db, &st, "INSERT INTO rejections (submission_id, "
		    "reviewer, at, comment) VALUES (?, ?, ?, ?)", "iiit", id,
		    reviewer, now, comment);
		if (rc == 0)
			rc = step_done(db, st);
		sqlite3_finalize(st);
	}
	if (rc == 0) {
		rc = prep_bind(db, &st, "UPDATE submissions SET state = 'rejected' "
		    "WHERE id = ?", "i", id);
		if (rc == 0)
			rc = step_done(db, st);
		sqlite3_finalize(st);
	}
	if (rc == 0)
		rc = event_addf(db, now, reviewer, "reject", id, "sha256=%s "
		    "comment=%s", f.sha256, comment);
	return tx_end(db, rc);
}

int
db_override(struct db *db, int64_t id, int64_t admin, const char *reason,
    const struct db_policy *pol, int64_t now, struct db_review *out)
{
	struct subfacts f;
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0 && f.state != AL_STATE_HELD)
		rc = al_err_set(AL_EDENIED, "submission %lld is %s, not held",
		    (long long)id, al_state_name(f.state));
	if (rc == 0 && f.verdict != AL_VERDICT_UNSCANNABLE)
		rc = al_err_set(AL_EDENIED, "only an unscannable verdict is "
		    "overridden; this one is %s", f.verdict == AL_VERDICT_NONE ?
		    "" : al_verdict_name(f.verdict));
	if (rc == 0) {
		rc = prep_bind(db, &st, "INSERT INTO overrides (submission_id, "
		    "scan_id, admin, at, reason) VALUES (?, ?, ?, ?, ?)", "iiiit",
		    id, f.scan_id, admin, now, reason);
		if (rc == 0)
			rc = step_done(db, st);
		sqlite3_finalize(st);
		if (rc == AL_EEXIST)
			rc = al_err_set(AL_EEXIST, "this scan was overridden already");
	}
	if (rc == 0)
		rc = event_addf(db, now, admin, "override", id, "scan=%lld reason=%s",
		    (long long)f.scan_id, reason);
	if (rc == 0)
		rc = settle(db, id, &f, pol, now, admin, out);
	rc = tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_review_get(struct db *db, int64_t id, const struct db_policy *pol,
    struct db_review *out)
{
	struct subfacts f;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = tx_begin(db, 0)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = review_count(db, id, &f, pol, out);
	if (rc == 0)
		out->state = f.state;
	rc = tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_approvals_get(struct db *db, int64_t id, struct db_approval **out,
    size_t *n_out)
{
	struct db_approval *v = NULL, *a;
	struct subfacts f;
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;
	int rc, nomem = 0;

	*out = NULL;
	*n_out = 0;
	if ((rc = tx_begin(db, 0)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = prep_bind(db, &st, "SELECT p.name, a.at, a.sha256, "
		    "a.ruleset_digest, a.comment FROM approvals a JOIN principals p "
		    "ON p.id = a.reviewer WHERE a.submission_id = ?1 AND a.sha256 = "
		    "?3 AND (a.scan_id = ?2 OR NOT EXISTS (SELECT fingerprint FROM "
		    "findings WHERE scan_id = ?2 EXCEPT SELECT fingerprint FROM "
		    "findings WHERE scan_id = a.scan_id)) ORDER BY a.id", "iit", id,
		    f.scan_id, f.sha256);
	while (rc == 0 && (rc = step(db, st)) == 1) {
		if ((rc = grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		a = &v[n++];
		a->reviewer = col_str(st, 0, &nomem);
		a->at = sqlite3_column_int64(st, 1);
		a->sha256 = col_str(st, 2, &nomem);
		a->ruleset_digest = col_str(st, 3, &nomem);
		a->comment = col_str(st, 4, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	}
	sqlite3_finalize(st);
	rc = tx_end(db, rc);
	if (rc < 0) {
		db_approvals_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

void
db_approvals_free(struct db_approval *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].reviewer);
		free(v[i].sha256);
		free(v[i].ruleset_digest);
		free(v[i].comment);
	}
	free(v);
}

int
db_release(struct db *db, int64_t id, int64_t actor, const char *attestation,
    int64_t now)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = prep_bind(db, &st, "UPDATE submissions SET state = 'released' WHERE "
	    "id = ? AND state = 'approved'", "i", id);
	if (rc == 0 && (rc = step_done(db, st)) == 0 &&
	    sqlite3_changes(db->h) != 1)
		rc = al_err_set(AL_EDENIED, "submission %lld is not approved",
		    (long long)id);
	sqlite3_finalize(st);
	if (rc == 0) {
		rc = prep_bind(db, &st, "INSERT INTO releases (submission_id, actor, "
		    "at, attestation) VALUES (?, ?, ?, ?)", "iiit", id, actor, now,
		    attestation);
		if (rc == 0)
			rc = step_done(db, st);
		sqlite3_finalize(st);
	}
	if (rc == 0)
		rc = event_addf(db, now, actor, "release", id, "attested=yes");
	return tx_end(db, rc);
}

int
db_release_get(struct db *db, int64_t id, char **attestation_out,
    int64_t *at_out)
{
	sqlite3_stmt *st;
	int rc, nomem = 0;

	*attestation_out = NULL;
	rc = prep_bind(db, &st, "SELECT attestation, at FROM releases WHERE "
	    "submission_id = ?", "i", id);
	if (rc == 0 && (rc = step(db, st)) == 1) {
		*attestation_out = col_str(st, 0, &nomem);
		*at_out = sqlite3_column_int64(st, 1);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "submission %lld was not released",
		    (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

int
db_expire_held(struct db *db, int64_t cutoff, int64_t now, size_t *n_out)
{
	sqlite3_stmt *st;
	int rc;

	*n_out = 0;
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = prep_bind(db, &st, "INSERT INTO events (at, actor, action, "
	    "submission_id, detail) SELECT ?, NULL, 'expire', id, 'held since "
	    "before the cutoff' FROM submissions WHERE state = 'held' AND "
	    "received_at < ?", "ii", now, cutoff);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0) {
		rc = prep_bind(db, &st, "UPDATE submissions SET state = 'expired' "
		    "WHERE state = 'held' AND received_at < ?", "i", cutoff);
		if (rc == 0 && (rc = step_done(db, st)) == 0)
			*n_out = (size_t)sqlite3_changes(db->h);
		sqlite3_finalize(st);
	}
	return tx_end(db, rc);
}

int
db_viewed(struct db *db, int64_t id, int64_t actor, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	rc = prep_bind(db, &st, "SELECT count(*) FROM events WHERE submission_id "
	    "= ? AND actor = ? AND action = 'view'", "ii", id, actor);
	if (rc == 0 && (rc = step(db, st)) == 1) {
		*out = sqlite3_column_int64(st, 0) > 0;
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int
db_review_settle(struct db *db, int64_t id, const struct db_policy *pol,
    int64_t now, struct db_review *out)
{
	struct subfacts f;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = settle(db, id, &f, pol, now, 0, out);
	rc = tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_rescan_stale(struct db *db, const char *ruleset, int64_t now,
    size_t *n_out)
{
	static const char stale[] = "state IN ('held', 'approved') AND "
	    "(SELECT ruleset_digest FROM scans WHERE submission_id = "
	    "submissions.id AND finished_at IS NOT NULL AND outcome IS NOT "
	    "'interrupted' ORDER BY id DESC LIMIT 1) IS NOT ?";
	sqlite3_stmt *st;
	char sql[512];
	int rc;

	*n_out = 0;
	if ((rc = tx_begin(db, 1)) < 0)
		return rc;
	snprintf(sql, sizeof(sql), "INSERT INTO events (at, actor, action, "
	    "submission_id, detail) SELECT ?, NULL, 'rescan', id, 'the rule "
	    "set changed' FROM submissions WHERE %s", stale);
	rc = prep_bind(db, &st, sql, "it", now, ruleset);
	if (rc == 0)
		rc = step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0) {
		snprintf(sql, sizeof(sql), "UPDATE submissions SET state = "
		    "'received' WHERE %s", stale);
		rc = prep_bind(db, &st, sql, "t", ruleset);
		if (rc == 0 && (rc = step_done(db, st)) == 0)
			*n_out = (size_t)sqlite3_changes(db->h);
		sqlite3_finalize(st);
	}
	return tx_end(db, rc);
}

int
db_override_get(struct db *db, int64_t id, char **admin_out,
    char **reason_out, int64_t *at_out)
{
	sqlite3_stmt *st;
	int rc, nomem = 0;

	*admin_out = *reason_out = NULL;
	rc = prep_bind(db, &st, "SELECT p.name, o.reason, o.at FROM overrides o "
	    "JOIN principals p ON p.id = o.admin WHERE o.submission_id = ? AND "
	    "o.scan_id = (SELECT id FROM scans WHERE submission_id = o.submission_id "
	    "AND finished_at IS NOT NULL AND outcome IS NOT 'interrupted' ORDER BY "
	    "id DESC LIMIT 1)", "i", id);
	if (rc == 0 && (rc = step(db, st)) == 1) {
		*admin_out = col_str(st, 0, &nomem);
		*reason_out = col_str(st, 1, &nomem);
		*at_out = sqlite3_column_int64(st, 2);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no override");
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		free(*admin_out);
		free(*reason_out);
		*admin_out = *reason_out = NULL;
	}
	return rc;
}
