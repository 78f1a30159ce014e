/*
 * db_audit.c - the audit log's Merkle tree (RFC 6962 hashing, the tree
 * kept as its complete subtrees: migrations/0006_audit.sql), its entries
 * and its checkpoints.
 *
 * Every event becomes a leaf in the transaction that records it
 * (dbi_audit_append, called by db_event.c for each row it inserts): its
 * canonical entry (docs/audit.md) is built from the event row and what it
 * names (the actor, the actor's person, the submission's sha256), stored
 * with its leaf hash, and every subtree the new leaf completes is hashed
 * and stored (common/merkle.c does the arithmetic over the callbacks here).
 * An append reads and writes O(log n) rows, through statements prepared
 * once per connection.
 *
 * Verification (db_audit_verify) reads everything again: each event's
 * entry is rebuilt from the tables and compared with the stored one, each
 * leaf hash recomputed, the tree recomputed leaf by leaf (a merkle_stream)
 * and each stored node compared with the subtree it names, the events
 * counted against the leaves; the first divergence is reported by index.
 * What it cannot see alone (a consistent rewrite of the whole file) the
 * checkpoints find: their signatures are checked by the gate (gate/),
 * which holds the keys; their roots are compared here.
 *
 * Trust: the rows are the gate's own, but this is the code that must find
 * them edited, so nothing read back is assumed to be well formed: hashes
 * are checked for length, indexes for range, entries compared as bytes.
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "dynbuf.h"
#include "err.h"
#include "merkle.h"

/* ---- entries ------------------------------------------------------------ */

/* One value of an entry: bytes below 0x20, DEL and '%' as %XX. */
static int
entry_value(struct dynbuf *b, const char *key, const unsigned char *v,
    size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	if (dynbuf_adds(b, key) < 0 || dynbuf_addc(b, ' ') < 0)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned char c = v[i];

		if (c < 0x20 || c == 0x7f || c == '%') {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};

			if (dynbuf_add(b, e, 3) < 0)
				return -1;
		} else if (dynbuf_addc(b, (char)c) < 0) {
			return -1;
		}
	}
	return dynbuf_addc(b, '\n');
}

static int
entry_text(struct dynbuf *b, const char *key, sqlite3_stmt *st, int col)
{
	const unsigned char *v = sqlite3_column_text(st, col);

	return entry_value(b, key, v ? v : (const unsigned char *)"",
	    v ? (size_t)sqlite3_column_bytes(st, col) : 0);
}

static int
entry_int(struct dynbuf *b, const char *key, int64_t v)
{
	return dynbuf_addf(b, "%s %lld\n", key, (long long)v);
}

#define ENTRY_SQL "SELECT e.id, e.at, e.action, ifnull(e.actor, 0), " \
	"p.name, p.role, ifnull(p.person_id, 0), pe.name, " \
	"ifnull(e.submission_id, 0), s.sha256, e.detail FROM events e " \
	"LEFT JOIN principals p ON p.id = e.actor " \
	"LEFT JOIN persons pe ON pe.id = p.person_id " \
	"LEFT JOIN submissions s ON s.id = e.submission_id "

/* The canonical entry (docs/audit.md) of the event row st holds from
 * column c on (ENTRY_SQL's columns), as leaf number idx. */
static int
entry_build_at(sqlite3_stmt *st, int c, uint64_t idx, struct dynbuf *b)
{
	dynbuf_reset(b);
	if (dynbuf_adds(b, "airlock audit entry v1\n") < 0 ||
	    entry_int(b, "index", (int64_t)idx) < 0 ||
	    entry_int(b, "event", sqlite3_column_int64(st, c)) < 0 ||
	    entry_int(b, "at", sqlite3_column_int64(st, c + 1)) < 0 ||
	    entry_text(b, "action", st, c + 2) < 0 ||
	    entry_int(b, "actor", sqlite3_column_int64(st, c + 3)) < 0 ||
	    entry_text(b, "actor-name", st, c + 4) < 0 ||
	    entry_text(b, "actor-role", st, c + 5) < 0 ||
	    entry_int(b, "person", sqlite3_column_int64(st, c + 6)) < 0 ||
	    entry_text(b, "person-name", st, c + 7) < 0 ||
	    entry_int(b, "submission", sqlite3_column_int64(st, c + 8)) < 0 ||
	    entry_text(b, "sha256", st, c + 9) < 0 ||
	    entry_text(b, "detail", st, c + 10) < 0)
		return al_err_set(AL_ENOMEM, "out of memory (an audit entry "
		    "larger than %zu bytes?)", (size_t)DB_AUDIT_ENTRY_MAX);
	return 0;
}

/* Which line of two entries differs first, for a report: "field X:
 * stored 'A', now 'B'" (each cut to 60 bytes). */
static const char *
entry_diff(const char *a, size_t an, const char *b, size_t bn)
{
	static __thread char out[256];
	size_t i = 0, ls = 0;

	while (i < an && i < bn && a[i] == b[i]) {
		if (a[i] == '\n')
			ls = i + 1;
		i++;
	}
	{
		const char *ae = memchr(a + ls, '\n', an - ls);
		const char *be = memchr(b + ls, '\n', bn - ls);
		int al = (int)((ae ? (size_t)(ae - a) : an) - ls);
		int bl = (int)((be ? (size_t)(be - b) : bn) - ls);

		snprintf(out, sizeof(out), "stored '%.*s', the tables now give "
		    "'%.*s'", al > 60 ? 60 : al, a + ls, bl > 60 ? 60 : bl,
		    b + ls);
	}
	return out;
}

/* ---- the tree's rows ---------------------------------------------------- */

enum { Q_GET_LEAF, Q_GET_NODE, Q_PUT_LEAF, Q_PUT_NODE, Q_SIZE, Q_EVENT, Q_N };

static const char *const audit_sql[Q_N] = {
	[Q_GET_LEAF] = "SELECT hash FROM audit_leaves WHERE idx = ?1",
	[Q_GET_NODE] = "SELECT hash FROM audit_nodes WHERE level = ?2 AND "
	    "idx = ?1",
	[Q_PUT_LEAF] = "INSERT INTO audit_leaves (idx, event_id, entry, hash) "
	    "VALUES (?1, ?2, ?3, ?4)",
	[Q_PUT_NODE] = "INSERT INTO audit_nodes (level, idx, hash) VALUES "
	    "(?2, ?1, ?3)",
	[Q_SIZE] = "SELECT ifnull(max(idx), -1) + 1 FROM audit_leaves",
	[Q_EVENT] = ENTRY_SQL "WHERE e.id = ?1",
};

/* The connection's statement for q, prepared on first use and reset. */
static int
audit_stmt(struct db *db, int q, sqlite3_stmt **out)
{
	if (db->audit_st[q] == NULL &&
	    dbi_prep(db, &db->audit_st[q], audit_sql[q]) < 0)
		return -1;
	sqlite3_reset(db->audit_st[q]);
	sqlite3_clear_bindings(db->audit_st[q]);
	*out = db->audit_st[q];
	return 0;
}

void
dbi_audit_finalize(struct db *db)
{
	size_t i;

	for (i = 0; i < Q_N; i++) {
		sqlite3_finalize(db->audit_st[i]);
		db->audit_st[i] = NULL;
	}
}

static int
tree_get(void *ctx, unsigned level, uint64_t idx, uint8_t out[32])
{
	struct db *db = ctx;
	sqlite3_stmt *st;
	int rc;

	if (idx > INT64_MAX)
		return al_err_set(AL_EINVAL, "audit node index out of range");
	if (audit_stmt(db, level == 0 ? Q_GET_LEAF : Q_GET_NODE, &st) < 0)
		return -1;
	if (sqlite3_bind_int64(st, 1, (int64_t)idx) != SQLITE_OK ||
	    (level > 0 && sqlite3_bind_int(st, 2, (int)level) != SQLITE_OK))
		return dbi_fail(db, "bind");
	if ((rc = dbi_step(db, st)) < 0)
		return rc;
	if (rc == 0)
		return al_err_set(AL_EIO, "the audit log has no %s %u/%llu: the "
		    "database was edited or damaged (airlock audit verify)",
		    level == 0 ? "leaf" : "node", level,
		    (unsigned long long)idx);
	if (sqlite3_column_bytes(st, 0) != 32) {
		sqlite3_reset(st);
		return al_err_set(AL_EIO, "audit %s %u/%llu is not a 32-byte "
		    "hash: the database was edited or damaged", level == 0 ?
		    "leaf" : "node", level, (unsigned long long)idx);
	}
	memcpy(out, sqlite3_column_blob(st, 0), 32);
	sqlite3_reset(st);
	return 0;
}

static int
tree_put(void *ctx, unsigned level, uint64_t idx, const uint8_t h[32])
{
	struct db *db = ctx;
	sqlite3_stmt *st;

	/* Leaves are written by append itself, with their entry. */
	if (level == 0)
		return 0;
	if (audit_stmt(db, Q_PUT_NODE, &st) < 0)
		return -1;
	if (sqlite3_bind_int64(st, 1, (int64_t)idx) != SQLITE_OK ||
	    sqlite3_bind_int(st, 2, (int)level) != SQLITE_OK ||
	    sqlite3_bind_blob(st, 3, h, 32, SQLITE_STATIC) != SQLITE_OK)
		return dbi_fail(db, "bind");
	return dbi_step_done(db, st) < 0 ? -1 : 0;
}

/* Leaves: one more than the largest index (O(log n): the rowid's b-tree;
 * a gap below it is verify's to find). */
static int
tree_size(struct db *db, uint64_t *size)
{
	sqlite3_stmt *st;
	int rc;

	if (audit_stmt(db, Q_SIZE, &st) < 0)
		return -1;
	if ((rc = dbi_step(db, st)) < 0)
		return rc;
	*size = rc ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return 0;
}

/*
 * This process's own leaves (db_audit_track): those its committed
 * transactions appended, from the tree's size when tracking began, kept
 * until a checkpoint covers them (db_audit_own_forget). A leaf joins just
 * before its transaction's COMMIT and leaves again if the commit fails
 * (its index is used again). All writes of the process are serialised
 * (db_writer), so the indexes arrive in order.
 */
static struct {
	pthread_mutex_t lock;
	int on;
	uint64_t base;            /* the tree's size when tracking began */
	struct dbi_own_leaf *v;
	size_t n, cap;
} own = { PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, 0, 0 };

static int
own_pending(struct db *db, uint64_t idx, const uint8_t leaf[32])
{
	int on;
	int rc;

	pthread_mutex_lock(&own.lock);
	on = own.on;
	pthread_mutex_unlock(&own.lock);
	if (!on)
		return 0;
	if ((rc = dbi_grow(&db->pend, &db->cappend, db->npend,
	    sizeof(*db->pend))) < 0)
		return rc;
	db->pend[db->npend].idx = idx;
	memcpy(db->pend[db->npend++].hash, leaf, 32);
	return 0;
}

/* Before COMMIT: the transaction's leaves join the record now, so that a
 * checkpoint made by another thread the moment the commit is visible finds
 * them; a commit that fails takes them out again (dbi_audit_tx_done) before
 * the writer lock is let go, so no other leaf can have come after them. */
void
dbi_audit_tx_commit(struct db *db)
{
	size_t i;

	if (db->npend == 0)
		return;
	pthread_mutex_lock(&own.lock);
	for (i = 0; own.on > 0 && i < db->npend; i++) {
		if (dbi_grow(&own.v, &own.cap, own.n, sizeof(*own.v)) < 0) {
			/* Out of memory: forget the record, and say so at the
			 * next check (a checkpoint is then refused). */
			own.on = -1;
			break;
		}
		own.v[own.n++] = db->pend[i];
	}
	pthread_mutex_unlock(&own.lock);
}

void
dbi_audit_tx_done(struct db *db, int committed)
{
	if (db->npend == 0)
		return;
	if (!committed) {
		pthread_mutex_lock(&own.lock);
		while (own.n > 0 && own.v[own.n - 1].idx >= db->pend[0].idx)
			own.n--;
		pthread_mutex_unlock(&own.lock);
	}
	db->npend = 0;
}

int
db_audit_track(struct db *db)
{
	uint64_t size;
	int rc;

	if ((rc = db_audit_size(db, &size)) < 0)
		return rc;
	pthread_mutex_lock(&own.lock);
	own.on = 1;
	own.base = size;
	own.n = 0;
	pthread_mutex_unlock(&own.lock);
	return 0;
}

void
db_audit_own_forget(uint64_t below)
{
	size_t i = 0;

	pthread_mutex_lock(&own.lock);
	while (i < own.n && own.v[i].idx < below)
		i++;
	if (i > 0) {
		memmove(own.v, own.v + i, (own.n - i) * sizeof(*own.v));
		own.n -= i;
	}
	pthread_mutex_unlock(&own.lock);
}

/* The action line of an entry ("\naction X\n"), into out. */
static void
entry_action(const void *entry, size_t len, char *out, size_t outlen)
{
	const char *p = entry, *end = p + len, *a, *nl;

	out[0] = '\0';
	for (a = p; a + 8 <= end; a++)
		if (memcmp(a, "\naction ", 8) == 0)
			break;
	if (a + 8 > end)
		return;
	a += 8;
	nl = memchr(a, '\n', (size_t)(end - a));
	snprintf(out, outlen, "%.*s", (int)((nl ? nl : end) - a), a);
}

static int
allowed(const char *action, const char *const *foreign)
{
	for (; foreign != NULL && *foreign != NULL; foreign++)
		if (strcmp(action, *foreign) == 0)
			return 1;
	return 0;
}

int
db_audit_check_own(struct db *db, uint64_t from, uint64_t to,
    const char *const *foreign, char *why, size_t whylen)
{
	struct db_audit_leaf l;
	char act[64];
	size_t j = 0;
	uint64_t i;
	int rc = 0, on;

	*why = '\0';
	pthread_mutex_lock(&own.lock);
	on = own.on;
	if (on > 0 && from < own.base)
		from = own.base;
	pthread_mutex_unlock(&own.lock);
	if (on == 0)
		return 0;
	if (on < 0) {
		snprintf(why, whylen, "the gate lost the record of its own "
		    "entries (out of memory)");
		return 0;
	}
	for (i = from; rc == 0 && *why == '\0' && i < to; i++) {
		uint8_t wrote[32];
		int mine = 0;

		pthread_mutex_lock(&own.lock);
		while (j < own.n && own.v[j].idx < i)
			j++;
		if (j < own.n && own.v[j].idx == i) {
			memcpy(wrote, own.v[j].hash, 32);
			mine = 1;
		}
		pthread_mutex_unlock(&own.lock);
		if ((rc = db_audit_leaf(db, i, &l)) < 0)
			break;
		if (mine && memcmp(wrote, l.hash, 32) != 0)
			snprintf(why, whylen, "entry %llu is not the one the gate "
			    "wrote: it was changed behind its back",
			    (unsigned long long)i);
		if (!mine) {
			entry_action(l.entry, l.entry_len, act, sizeof(act));
			if (!allowed(act, foreign))
				snprintf(why, whylen, "entry %llu (%s) was not written "
				    "by the gate, nor is it one that another "
				    "process may write beside it: it was written "
				    "behind its back", (unsigned long long)i,
				    act[0] ? act : "no action");
		}
		free(l.entry);
	}
	return rc;
}

/* Appends event_id's leaf; inside the caller's write transaction. */
int
dbi_audit_append(struct db *db, int64_t event_id)
{
	sqlite3_stmt *st, *put;
	struct dynbuf b;
	uint8_t leaf[32];
	uint64_t size;
	int rc;

	if ((rc = tree_size(db, &size)) < 0)
		return rc;
	if (audit_stmt(db, Q_EVENT, &st) < 0)
		return -1;
	if (sqlite3_bind_int64(st, 1, event_id) != SQLITE_OK)
		return dbi_fail(db, "bind");
	if ((rc = dbi_step(db, st)) < 0)
		return rc;
	if (rc == 0)
		return al_err_set(AL_ENOTFOUND, "no event %lld to log",
		    (long long)event_id);
	dynbuf_init(&b, DB_AUDIT_ENTRY_MAX);
	rc = entry_build_at(st, 0, size, &b);
	sqlite3_reset(st);
	if (rc == 0) {
		merkle_leaf_hash(b.data, b.len, leaf);
		if (audit_stmt(db, Q_PUT_LEAF, &put) < 0)
			rc = -1;
		else if (sqlite3_bind_int64(put, 1, (int64_t)size) != SQLITE_OK ||
		    sqlite3_bind_int64(put, 2, event_id) != SQLITE_OK ||
		    sqlite3_bind_blob(put, 3, b.data, (int)b.len,
		    SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_blob(put, 4, leaf, 32, SQLITE_STATIC) !=
		    SQLITE_OK)
			rc = dbi_fail(db, "bind");
		else
			rc = dbi_step_done(db, put);
	}
	dynbuf_free(&b);
	if (rc == 0)
		rc = merkle_append(tree_get, tree_put, db, size, leaf);
	if (rc == 0)
		rc = own_pending(db, size, leaf);
	return rc < 0 ? rc : 0;
}

/* The leaves of the events a set-wise INSERT ... SELECT added after event
 * `after` (db_event_last_id before it), in id order. */
int
dbi_audit_append_since(struct db *db, int64_t after)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0, i;
	int rc;

	rc = dbi_prep_bind(db, &st, "SELECT id FROM events WHERE id > ? ORDER "
	    "BY id", "i", after);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1)
		if ((rc = dbi_grow(&ids, &cap, n, sizeof(*ids))) == 0)
			ids[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	for (i = 0; rc == 0 && i < n; i++)
		rc = dbi_audit_append(db, ids[i]);
	free(ids);
	return rc;
}

/* The events recorded before the log existed, in order, then the event
 * audit.begin (migration 0006, in its transaction). */
int
dbi_audit_adopt(struct db *db)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL, now = 0;
	size_t n = 0, cap = 0, i;
	int rc;

	/* db/ reads no clock; a migration takes SQLite's, as 0005 did. */
	rc = dbi_prep(db, &st, "SELECT CAST((julianday('now') - 2440587.5) * "
	    "86400000 AS INTEGER)");
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		now = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep(db, &st, "SELECT id FROM events WHERE id NOT "
		    "IN (SELECT event_id FROM audit_leaves) ORDER BY id");
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&ids, &cap, n, sizeof(*ids))) == 0)
			ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	for (i = 0; rc == 0 && i < n; i++)
		rc = dbi_audit_append(db, ids[i]);
	free(ids);
	if (rc == 0)
		rc = dbi_event_addf(db, now, 0, "audit.begin", 0, "the audit log "
		    "begins; it adopted the %lld event(s) recorded before it",
		    (long long)n);
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

int
db_audit_size(struct db *db, uint64_t *size)
{
	int rc;

	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	return dbi_tx_end(db, tree_size(db, size));
}

/* The root at size (0: the current size, put in *size). */
int
db_audit_root(struct db *db, uint64_t *size, uint8_t root[32])
{
	uint64_t cur;
	int rc;

	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = tree_size(db, &cur);
	if (rc == 0 && *size == 0)
		*size = cur;
	if (rc == 0 && *size > cur)
		rc = al_err_set(AL_EINVAL, "the audit log has %llu entries, not "
		    "%llu", (unsigned long long)cur, (unsigned long long)*size);
	if (rc == 0)
		rc = merkle_root(tree_get, db, *size, root);
	return dbi_tx_end(db, rc);
}

int
db_audit_leaf(struct db *db, uint64_t idx, struct db_audit_leaf *out)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (idx > INT64_MAX)
		return al_err_set(AL_EINVAL, "no audit entry %llu",
		    (unsigned long long)idx);
	rc = dbi_prep_bind(db, &st, "SELECT event_id, entry, hash FROM "
	    "audit_leaves WHERE idx = ?", "i", (int64_t)idx);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		size_t n = (size_t)sqlite3_column_bytes(st, 1);

		out->idx = idx;
		out->event_id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_bytes(st, 2) == 32)
			memcpy(out->hash, sqlite3_column_blob(st, 2), 32);
		if ((out->entry = malloc(n + 1)) == NULL) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
		} else {
			if (n > 0)
				memcpy(out->entry, sqlite3_column_blob(st, 1), n);
			out->entry[n] = '\0';
			out->entry_len = n;
			rc = 0;
		}
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no audit entry %llu",
		    (unsigned long long)idx);
	}
	sqlite3_finalize(st);
	return rc;
}

int
db_audit_each(struct db *db, uint64_t from,
    int (*fn)(void *ctx, const struct db_audit_leaf *l), void *ctx)
{
	struct db_audit_leaf l;
	sqlite3_stmt *st;
	int rc, stop;

	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = dbi_prep_bind(db, &st, "SELECT idx, event_id, entry, hash FROM "
	    "audit_leaves WHERE idx >= ? ORDER BY idx", "i",
	    (int64_t)(from > INT64_MAX ? INT64_MAX : from));
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		memset(&l, 0, sizeof(l));
		l.idx = (uint64_t)sqlite3_column_int64(st, 0);
		l.event_id = sqlite3_column_int64(st, 1);
		l.entry = (char *)sqlite3_column_blob(st, 2);
		l.entry_len = (size_t)sqlite3_column_bytes(st, 2);
		if (sqlite3_column_bytes(st, 3) == 32)
			memcpy(l.hash, sqlite3_column_blob(st, 3), 32);
		if (l.entry == NULL)
			l.entry = (char *)"";
		rc = fn(ctx, &l);
	}
	sqlite3_finalize(st);
	/* fn's stop (> 0) ends the read as its end would: the transaction
	 * must not stay open on the connection. */
	if (rc > 0)
		return (stop = dbi_tx_end(db, 0)) < 0 ? stop : rc;
	return dbi_tx_end(db, rc);
}

/* The leaf index of an event. */
int
db_audit_leaf_of_event(struct db *db, int64_t event_id, uint64_t *idx)
{
	sqlite3_stmt *st;
	int rc;

	rc = dbi_prep_bind(db, &st, "SELECT idx FROM audit_leaves WHERE "
	    "event_id = ?", "i", event_id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		*idx = (uint64_t)sqlite3_column_int64(st, 0);
		rc = 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "event %lld is not in the audit "
		    "log", (long long)event_id);
	}
	sqlite3_finalize(st);
	return rc;
}

int
db_audit_leaves_about(struct db *db, int64_t id, const char *sha256,
    uint64_t **out, size_t *n_out)
{
	sqlite3_stmt *st;
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;
	char line[128];
	int rc;

	*out = NULL;
	*n_out = 0;
	/* Chosen by what the entries themselves say (their submission or
	 * sha256 line), not by the events table: an event re-pointed behind
	 * the gate's back cannot take its entry out of the set. One pass
	 * over the entries. */
	if (id > 0)
		snprintf(line, sizeof(line), "\nsubmission %lld\n", (long long)id);
	else
		snprintf(line, sizeof(line), "\nsha256 %.64s\n", sha256 ? sha256 :
		    "");
	rc = dbi_prep_bind(db, &st, "SELECT idx FROM audit_leaves WHERE "
	    "instr(entry, CAST(?1 AS BLOB)) > 0 ORDER BY idx", "t", line);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1)
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) == 0)
			v[n++] = (uint64_t)sqlite3_column_int64(st, 0);
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
db_audit_find(struct db *db, const char *a, const char *b, uint64_t *idx)
{
	sqlite3_stmt *st;
	int rc;

	rc = dbi_prep_bind(db, &st, "SELECT idx FROM audit_leaves WHERE "
	    "instr(entry, CAST(?1 AS BLOB)) > 0 AND instr(entry, CAST(?2 AS "
	    "BLOB)) > 0 ORDER BY idx LIMIT 1", "tt", a, b);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		*idx = (uint64_t)sqlite3_column_int64(st, 0);
		rc = 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no such entry");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Entries [from, to): each as stored hashes to its leaf hash and is what
 * the tables now give (the check before signing a checkpoint over them). */
int
db_audit_check_range(struct db *db, uint64_t from, uint64_t to, char *why,
    size_t whylen)
{
	sqlite3_stmt *st;
	struct dynbuf b;
	int rc;

	*why = '\0';
	dynbuf_init(&b, DB_AUDIT_ENTRY_MAX);
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = dbi_prep_bind(db, &st, "SELECT l.idx, l.entry, l.hash, e.id, "
	    "e.at, e.action, ifnull(e.actor, 0), p.name, p.role, "
	    "ifnull(p.person_id, 0), pe.name, ifnull(e.submission_id, 0), "
	    "s.sha256, e.detail FROM audit_leaves l "
	    "LEFT JOIN events e ON e.id = l.event_id "
	    "LEFT JOIN principals p ON p.id = e.actor "
	    "LEFT JOIN persons pe ON pe.id = p.person_id "
	    "LEFT JOIN submissions s ON s.id = e.submission_id "
	    "WHERE l.idx >= ?1 AND l.idx < ?2 ORDER BY l.idx", "ii",
	    (int64_t)from, (int64_t)to);
	while (rc == 0 && *why == '\0' && (rc = dbi_step(db, st)) == 1) {
		uint64_t idx = (uint64_t)sqlite3_column_int64(st, 0);
		const void *entry = sqlite3_column_blob(st, 1);
		size_t elen = (size_t)sqlite3_column_bytes(st, 1);
		uint8_t leaf[32];

		rc = 0;
		merkle_leaf_hash(entry, elen, leaf);
		if (sqlite3_column_bytes(st, 2) != 32 ||
		    memcmp(sqlite3_column_blob(st, 2), leaf, 32) != 0)
			snprintf(why, whylen, "entry %llu does not hash to its leaf",
			    (unsigned long long)idx);
		else if (sqlite3_column_type(st, 3) == SQLITE_NULL)
			snprintf(why, whylen, "entry %llu has no event",
			    (unsigned long long)idx);
		else if ((rc = entry_build_at(st, 3, idx, &b)) == 0 &&
		    (b.len != elen || memcmp(b.data, entry, elen) != 0))
			snprintf(why, whylen, "entry %llu is not what the tables "
			    "say: %s", (unsigned long long)idx,
			    entry_diff(entry, elen, b.data, b.len));
	}
	sqlite3_finalize(st);
	dynbuf_free(&b);
	return dbi_tx_end(db, rc < 0 ? rc : 0);
}

int
db_audit_inclusion(struct db *db, uint64_t idx, uint64_t size,
    uint8_t path[][32], size_t *n)
{
	int rc;

	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	return dbi_tx_end(db, merkle_inclusion_proof(tree_get, db, idx, size,
	    path, n));
}

int
db_audit_consistency(struct db *db, uint64_t old_size, uint64_t size,
    uint8_t path[][32], size_t *n)
{
	int rc;

	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	return dbi_tx_end(db, merkle_consistency_proof(tree_get, db, old_size,
	    size, path, n));
}

/* ---- checkpoints -------------------------------------------------------- */

int
db_checkpoint_add(struct db *db, const struct db_checkpoint *c)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	/* Never one smaller than the largest there: two makers racing
	 * would otherwise leave a smaller one newest. */
	rc = dbi_prep(db, &st, "INSERT INTO audit_checkpoints (size, root, "
	    "key_id, at, reason, note) SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE ?1 >= "
	    "(SELECT ifnull(max(size), 0) FROM audit_checkpoints)");
	if (rc == 0 && (sqlite3_bind_int64(st, 1, (int64_t)c->size) !=
	    SQLITE_OK || sqlite3_bind_blob(st, 2, c->root, 32, SQLITE_STATIC) !=
	    SQLITE_OK || sqlite3_bind_text(st, 3, c->key_id, -1,
	    SQLITE_STATIC) != SQLITE_OK || sqlite3_bind_int64(st, 4, c->at) !=
	    SQLITE_OK || sqlite3_bind_text(st, 5, c->reason, -1,
	    SQLITE_STATIC) != SQLITE_OK || sqlite3_bind_text(st, 6, c->note,
	    -1, SQLITE_STATIC) != SQLITE_OK))
		rc = dbi_fail(db, "bind");
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	return dbi_tx_end(db, rc);
}

static char *
col_text(sqlite3_stmt *st, int i, int *nomem)
{
	char *v = dbi_col_str(st, i, nomem);

	if (v == NULL && !*nomem && (v = strdup("")) == NULL)
		*nomem = 1;
	return v;
}

/* Checkpoints, oldest first (latest 1: only the newest, the largest). */
int
db_checkpoint_list(struct db *db, int latest, struct db_checkpoint **out,
    size_t *n_out)
{
	struct db_checkpoint *v = NULL, *c;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, nomem = 0;

	*out = NULL;
	*n_out = 0;
	rc = dbi_prep_bind(db, &st, latest ? "SELECT id, size, root, key_id, "
	    "at, reason, note FROM audit_checkpoints ORDER BY size DESC, id DESC "
	    "LIMIT 1" :
	    "SELECT id, size, root, key_id, at, reason, note FROM "
	    "audit_checkpoints ORDER BY id", "");
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		c = &v[n++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		c->size = (uint64_t)sqlite3_column_int64(st, 1);
		c->root_ok = sqlite3_column_bytes(st, 2) == 32;
		if (c->root_ok)
			memcpy(c->root, sqlite3_column_blob(st, 2), 32);
		/* A column the schema says is NOT NULL can still be NULL in a
		 * table someone rebuilt: read as "", which verifies as nothing. */
		c->key_id = col_text(st, 3, &nomem);
		c->at = sqlite3_column_int64(st, 4);
		c->reason = col_text(st, 5, &nomem);
		c->note = col_text(st, 6, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		db_checkpoint_list_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

void
db_checkpoint_list_free(struct db_checkpoint *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].key_id);
		free(v[i].reason);
		free(v[i].note);
	}
	free(v);
}

/* ---- verification ------------------------------------------------------- */

struct vstate {
	struct db *db;
	struct db_audit_report *r;
	uint8_t stack[64][32];    /* the complete subtrees, left to right */
	unsigned level[64];
	size_t depth;
};

void
db_audit_fail(struct db_audit_report *r, uint64_t idx, const char *fmt, ...)
{
	va_list ap;

	if (!r->ok)
		return; /* the first divergence is the one reported */
	r->ok = 0;
	r->first_bad = idx;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
}

/* Pushes leaf idx; each subtree it completes is compared with its row. */
static int
vpush(struct vstate *v, uint64_t idx, const uint8_t leaf[32])
{
	uint8_t h[32], stored[32];
	unsigned level = 0;
	int rc;

	memcpy(h, leaf, 32);
	while (v->depth > 0 && v->level[v->depth - 1] == level) {
		merkle_node_hash(v->stack[v->depth - 1], h, h);
		v->depth--;
		level++;
		if ((rc = tree_get(v->db, level, idx >> level, stored)) < 0) {
			if (rc != AL_EIO)
				return rc;
			db_audit_fail(v->r, idx, "node %u/%llu, completed by "
			    "entry %llu, is missing: %s", level,
			    (unsigned long long)(idx >> level),
			    (unsigned long long)idx, al_err_msg());
		} else if (memcmp(stored, h, 32) != 0) {
			db_audit_fail(v->r, idx, "node %u/%llu (entries %llu "
			    "to %llu) does not hash the entries below it",
			    level, (unsigned long long)(idx >> level),
			    (unsigned long long)((idx >> level) << level),
			    (unsigned long long)idx);
		}
	}
	if (v->depth == 64)
		return al_err_set(AL_EINVAL, "audit log too large");
	memcpy(v->stack[v->depth], h, 32);
	v->level[v->depth++] = level;
	return 0;
}

static void
vroot(const struct vstate *v, uint8_t root[32])
{
	size_t k;

	if (v->depth == 0) {
		merkle_empty_root(root);
		return;
	}
	memcpy(root, v->stack[v->depth - 1], 32);
	for (k = v->depth - 1; k-- > 0;)
		merkle_node_hash(v->stack[k], root, root);
}

/* What the walk over the leaves cannot see: events with no leaf, nodes
 * no leaf completes. */
static int
verify_counts(struct db *db, struct db_audit_report *r)
{
	sqlite3_stmt *st;
	int rc;

	rc = dbi_prep(db, &st, "SELECT e.id FROM events e WHERE NOT EXISTS "
	    "(SELECT 1 FROM audit_leaves l WHERE l.event_id = e.id) ORDER BY "
	    "e.id LIMIT 1");
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		db_audit_fail(r, r->size, "event %lld is not in the audit log "
		    "(added to the events table behind the gate's back?)",
		    (long long)sqlite3_column_int64(st, 0));
		rc = 0;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	/* A tree of n leaves has n - popcount(n) complete inner nodes. */
	rc = dbi_prep(db, &st, "SELECT count(*) FROM audit_nodes");
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		uint64_t nodes = (uint64_t)sqlite3_column_int64(st, 0);
		uint64_t want = r->size - (uint64_t)__builtin_popcountll(r->size);

		if (nodes != want)
			db_audit_fail(r, r->size, "the audit log holds %llu "
			    "nodes; %llu entries make %llu",
			    (unsigned long long)nodes,
			    (unsigned long long)r->size, (unsigned long long)want);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The state tables against the log: each decision row (a submission, an
 * approval, a rejection, an override, a release) has the event that
 * records it, by the same actor at the same time saying the same, and
 * each such event has its row. A row edited or added behind the gate's
 * back, or one deleted with its event left, shows here.
 */
#define SAME(det) "substr(e.detail, 1, length(" det ")) = " det \
	" AND (length(e.detail) = length(" det ") OR substr(e.detail, " \
	"length(" det ") + 1, 1) = ' ')"
#define APPROVE_DET "('sha256=' || a.sha256 || ' ruleset=' || " \
	"a.ruleset_digest || ' scan=' || a.scan_id)"
#define REJECT_DET "('sha256=' || s.sha256 || ' comment=' || r.comment)"
#define OVERRIDE_DET "('scan=' || o.scan_id || ' reason=' || o.reason)"
#define SUBMIT_DET "('sha256=' || s.sha256 || ' size=' || s.size)"
/* A view's (or pull's) event, from its views row v: "content TAIL", or
 * "PATH item=N TAIL" (the path is the scan's), where TAIL is "full
 * bytes=N sha256=S scan=K" or "partial range=R bytes=N scan=K". */
#define VIEW_TAIL "(CASE WHEN v.full = 1 THEN ' full bytes=' || v.bytes || " \
	"' sha256=' || v.sha256 ELSE ' bytes=' || v.bytes END || ' scan=' || " \
	"coalesce(v.scan_id, 0))"
#define VIEW_OF_ROW "e.submission_id = v.submission_id AND e.actor = " \
	"v.actor AND e.at = v.at AND ((v.item IS NULL AND e.action IN " \
	"('view', 'pull') AND substr(e.detail, 1, 8) = 'content ') OR " \
	"(v.item IS NOT NULL AND e.action IN ('view.item', 'pull.item') AND " \
	"instr(e.detail, ' item=' || v.item || ' ') > 0)) AND " \
	"(v.full = 1) = (instr(e.detail, ' full bytes=') > 0) AND " \
	"substr(e.detail, -length(" VIEW_TAIL ")) = " VIEW_TAIL

static const struct table_check {
	const char *pre, *post;   /* around the row's id or the entry's */
	const char *sql;          /* one column: the first offender */
	int by_entry;             /* the column is a leaf index */
} table_checks[] = {
	{"submission ", " has no submit event saying what it holds",
	    "SELECT s.id FROM submissions s WHERE NOT EXISTS (SELECT 1 FROM "
	    "events e WHERE e.action = 'submit' AND e.submission_id = s.id AND "
	    "e.actor = s.submitter AND e.at = s.received_at AND "
	    SAME(SUBMIT_DET) ") ORDER BY s.id LIMIT 1", 0},
	{"entry ", " is a submit event with no submission row saying the same",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action = 'submit' AND NOT EXISTS (SELECT 1 FROM submissions "
	    "s WHERE s.id = e.submission_id AND s.submitter = e.actor AND "
	    "s.received_at = e.at AND " SAME(SUBMIT_DET) ") ORDER BY l.idx "
	    "LIMIT 1", 1},
	{"approval ", " has no approve event by its reviewer saying what "
	    "it approved",
	    "SELECT a.id FROM approvals a WHERE NOT EXISTS (SELECT 1 "
	    "FROM events e WHERE e.action = 'approve' AND e.submission_id = "
	    "a.submission_id AND e.actor = a.reviewer AND e.at = a.at AND "
	    SAME(APPROVE_DET) ") ORDER BY a.id LIMIT 1", 0},
	{"entry ", " is an approve event with no approval row saying the same",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action = 'approve' AND NOT EXISTS (SELECT 1 FROM approvals "
	    "a WHERE a.submission_id = e.submission_id AND a.reviewer = e.actor "
	    "AND a.at = e.at AND " SAME(APPROVE_DET) ") ORDER BY l.idx "
	    "LIMIT 1", 1},
	{"the rejection of submission ", " has no reject event saying the same",
	    "SELECT r.submission_id FROM rejections r JOIN submissions s ON s.id "
	    "= r.submission_id WHERE NOT EXISTS (SELECT 1 FROM events e WHERE "
	    "e.action = 'reject' AND e.submission_id = r.submission_id AND "
	    "e.actor = r.reviewer AND e.at = r.at AND e.detail = " REJECT_DET
	    ") ORDER BY r.submission_id LIMIT 1", 0},
	{"entry ", " is a reject event with no rejection row saying the same",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action = 'reject' AND NOT EXISTS (SELECT 1 FROM rejections "
	    "r JOIN submissions s ON s.id = r.submission_id WHERE "
	    "r.submission_id = e.submission_id AND r.reviewer = e.actor AND "
	    "r.at = e.at AND e.detail = " REJECT_DET ") ORDER BY l.idx LIMIT 1",
	    1},
	{"override ", " has no override event saying the same",
	    "SELECT o.id FROM overrides o WHERE NOT EXISTS (SELECT 1 FROM events "
	    "e WHERE e.action = 'override' AND e.submission_id = o.submission_id "
	    "AND e.actor = o.admin AND e.at = o.at AND e.detail = " OVERRIDE_DET
	    ") ORDER BY o.id LIMIT 1", 0},
	{"entry ", " is an override event with no override row saying the same",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action = 'override' AND NOT EXISTS (SELECT 1 FROM overrides "
	    "o WHERE o.submission_id = e.submission_id AND o.admin = e.actor AND "
	    "o.at = e.at AND e.detail = " OVERRIDE_DET ") ORDER BY l.idx LIMIT 1",
	    1},
	{"the release of submission ", " has no release event by its actor",
	    "SELECT r.submission_id FROM releases r WHERE NOT EXISTS (SELECT 1 "
	    "FROM events e WHERE e.action = 'release' AND e.submission_id = "
	    "r.submission_id AND e.actor = r.actor AND e.at = r.at) ORDER BY "
	    "r.submission_id LIMIT 1", 0},
	{"entry ", " is a release event with no release row",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action = 'release' AND NOT EXISTS (SELECT 1 FROM releases r "
	    "WHERE r.submission_id = e.submission_id AND r.actor = e.actor AND "
	    "r.at = e.at) ORDER BY l.idx LIMIT 1", 1},
	/* What was served: each views row has its view (or pull) event, and
	 * each such event its row. Events in the format of the views table's
	 * time only: view events are older than the table, and migration 0005
	 * kept them ("content", or the item's path) without rows. */
	{"view ", " (a views row) has no view event saying what was served",
	    "SELECT v.id FROM views v WHERE NOT EXISTS (SELECT 1 FROM events e "
	    "WHERE " VIEW_OF_ROW ") ORDER BY v.id LIMIT 1", 0},
	{"entry ", " is a view event with no views row saying the same",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action IN ('view', 'view.item', 'pull', 'pull.item') AND "
	    "e.detail GLOB '* bytes=[0-9]* scan=[0-9]*' AND NOT EXISTS (SELECT 1 FROM views v WHERE " VIEW_OF_ROW ") ORDER BY "
	    "l.idx LIMIT 1", 1},
	/* Tokens: each row has the token.create event naming it, its role
	 * and (since this log) its token's hash; a revocation has its event
	 * (token.revoke, or person.disable of its person) at that time. */
	{"token ", " (a principals row) has no token.create event saying its "
	    "name, role, token hash and expiry",
	    "SELECT p.id FROM principals p WHERE NOT EXISTS (SELECT 1 FROM events "
	    "e WHERE e.action = 'token.create' AND (e.detail = 'name=' || p.name "
	    "|| ' role=' || p.role OR substr(e.detail, 1, length('name=' || "
	    "p.name || ' role=' || p.role || ' ')) = 'name=' || p.name || "
	    "' role=' || p.role || ' ') AND (instr(e.detail, ' token_sha256=') "
	    "= 0 OR instr(e.detail, ' token_sha256=' || p.token_hash) > 0) AND "
	    "(instr(e.detail, ' expires=') = 0 OR substr(e.detail, -length("
	    "' expires=' || ifnull(p.expires_at, 0))) = ' expires=' || "
	    "ifnull(p.expires_at, 0))) ORDER BY p.id LIMIT 1", 0},
	{"token ", " is revoked with no event revoking it then",
	    "SELECT p.id FROM principals p WHERE p.revoked_at IS NOT NULL AND NOT "
	    "EXISTS (SELECT 1 FROM events e WHERE e.at = p.revoked_at AND "
	    "((e.action = 'token.revoke' AND e.detail = 'name=' || p.name) OR "
	    "e.action = 'person.disable')) ORDER BY p.id LIMIT 1", 0},
	{"entry ", " revokes a token whose row is not revoked then",
	    "SELECT l.idx FROM events e JOIN audit_leaves l ON l.event_id = e.id "
	    "WHERE e.action = 'token.revoke' AND NOT EXISTS (SELECT 1 FROM "
	    "principals p WHERE e.detail = 'name=' || p.name AND p.revoked_at = "
	    "e.at) ORDER BY l.idx LIMIT 1", 1},
	{"submission ", " is approved with no approved event after its latest "
	    "scan", "SELECT s.id FROM submissions s WHERE s.state IN ('approved', "
	    "'released') AND NOT EXISTS (SELECT 1 FROM events e WHERE "
	    "e.submission_id = s.id AND e.action = 'approved' AND e.id > "
	    "ifnull((SELECT max(f.id) FROM events f WHERE f.submission_id = "
	    "s.id AND f.action = 'scan.finish'), 0)) ORDER BY s.id LIMIT 1", 0},
	{"submission ", " is released with no release row",
	    "SELECT id FROM submissions WHERE state = 'released' AND id NOT IN "
	    "(SELECT submission_id FROM releases) ORDER BY id LIMIT 1", 0},
	{"submission ", " is rejected with no rejection row",
	    "SELECT id FROM submissions WHERE state = 'rejected' AND id NOT IN "
	    "(SELECT submission_id FROM rejections) ORDER BY id LIMIT 1", 0},
};

static int
verify_tables(struct db *db, struct db_audit_report *r)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < sizeof(table_checks) /
	    sizeof(table_checks[0]); i++) {
		const struct table_check *t = &table_checks[i];
		sqlite3_stmt *st;

		if ((rc = dbi_prep(db, &st, t->sql)) == 0 &&
		    (rc = dbi_step(db, st)) == 1) {
			int64_t v = sqlite3_column_int64(st, 0);
			char what[256];

			snprintf(what, sizeof(what), "%s%lld%s", t->pre,
			    (long long)v, t->post);
			db_audit_fail(r, t->by_entry ? (uint64_t)v :
			    DB_AUDIT_NO_ENTRY, "%s", what);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	return rc;
}

static int
cmp_check(const void *a, const void *b)
{
	const struct db_audit_check *x = *(struct db_audit_check *const *)a;
	const struct db_audit_check *y = *(struct db_audit_check *const *)b;

	return x->size < y->size ? -1 : x->size > y->size;
}

int
db_audit_walk_begin(struct db_audit_walk *w, struct db_audit_check *checks,
    size_t n, struct db_audit_report *r)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	memset(r, 0, sizeof(*r));
	r->ok = 1;
	w->r = r;
	if (n > 0 && (w->order = calloc(n, sizeof(*w->order))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		w->order[i] = &checks[i];
		checks[i].result = DB_CHECK_BEYOND;
	}
	if (n > 1)
		qsort(w->order, n, sizeof(*w->order), cmp_check);
	w->n = n;
	return 0;
}

uint64_t
db_audit_walk_wants(const struct db_audit_walk *w)
{
	return w->next < w->n ? w->order[w->next]->size : UINT64_MAX;
}

void
db_audit_walk_root(struct db_audit_walk *w, uint64_t size,
    const uint8_t root[32])
{
	while (w->next < w->n && w->order[w->next]->size == size) {
		struct db_audit_check *c = w->order[w->next++];

		c->result = memcmp(root, c->root, 32) ? DB_CHECK_DIFFERS :
		    DB_CHECK_MATCHES;
		if (c->result == DB_CHECK_MATCHES)
			w->matched = size;
		else
			db_audit_fail(w->r, size > 0 ? size - 1 :
			    DB_AUDIT_NO_ENTRY, "the root of the first %llu "
			    "entries differs from checkpoint %s: an entry from "
			    "%llu to %llu is not what it signed",
			    (unsigned long long)size, c->name,
			    (unsigned long long)w->matched,
			    (unsigned long long)(size > 0 ? size - 1 : 0));
	}
}

void
db_audit_walk_end(struct db_audit_walk *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->order[i]->result == DB_CHECK_BEYOND)
			db_audit_fail(w->r, w->r->size, "checkpoint %s is of "
			    "%llu entries; the log has %llu (truncated?)",
			    w->order[i]->name,
			    (unsigned long long)w->order[i]->size,
			    (unsigned long long)w->r->size);
	free(w->order);
	w->order = NULL;
	w->n = w->next = 0;
}

/* The root of the first size leaves pushed, to every check of that size. */
static void
vcheck(struct vstate *v, struct db_audit_walk *w, uint64_t size)
{
	uint8_t root[32];

	if (db_audit_walk_wants(w) != size)
		return;
	vroot(v, root);
	db_audit_walk_root(w, size, root);
}

#define VERIFY_SQL "SELECT l.idx, l.event_id, l.entry, l.hash, " \
	"e.id, e.at, e.action, ifnull(e.actor, 0), p.name, p.role, " \
	"ifnull(p.person_id, 0), pe.name, ifnull(e.submission_id, 0), " \
	"s.sha256, e.detail FROM audit_leaves l " \
	"LEFT JOIN events e ON e.id = l.event_id " \
	"LEFT JOIN principals p ON p.id = e.actor " \
	"LEFT JOIN persons pe ON pe.id = p.person_id " \
	"LEFT JOIN submissions s ON s.id = e.submission_id ORDER BY l.idx"

/* Stored leaf idx (st at its VERIFY_SQL row) against its hash and the
 * event row it records; its recomputed leaf hash into leaf. */
static int
vleaf(struct vstate *v, sqlite3_stmt *st, uint64_t idx, struct dynbuf *b,
    int64_t *last_event, uint8_t leaf[32])
{
	struct db_audit_report *r = v->r;
	int64_t ev = sqlite3_column_int64(st, 1);
	const void *entry = sqlite3_column_blob(st, 2);
	size_t elen = (size_t)sqlite3_column_bytes(st, 2);
	int rc;

	merkle_leaf_hash(entry, elen, leaf);
	if (sqlite3_column_bytes(st, 3) != 32 ||
	    memcmp(sqlite3_column_blob(st, 3), leaf, 32) != 0)
		db_audit_fail(r, idx, "entry %llu does not hash to its stored "
		    "leaf hash (the entry or the hash was edited)",
		    (unsigned long long)idx);
	if (sqlite3_column_type(st, 4) == SQLITE_NULL) {
		db_audit_fail(r, idx, "entry %llu records event %lld, which is "
		    "not in the events table (deleted?)",
		    (unsigned long long)idx, (long long)ev);
		*last_event = ev;
		return 0;
	}
	if (ev <= *last_event)
		db_audit_fail(r, idx, "entry %llu records event %lld after "
		    "event %lld (reordered?)", (unsigned long long)idx,
		    (long long)ev, (long long)*last_event);
	*last_event = ev;
	if ((rc = entry_build_at(st, 4, idx, b)) < 0)
		return rc;
	if (b->len != elen || memcmp(b->data, entry, elen) != 0)
		db_audit_fail(r, idx, "event %lld no longer reads as its entry "
		    "%llu: %s", (long long)ev, (unsigned long long)idx,
		    entry_diff(entry, elen, b->data, b->len));
	return 0;
}

int
db_audit_verify(struct db *db, struct db_audit_check *checks, size_t nchecks,
    struct db_audit_report *r)
{
	struct db_audit_walk w;
	struct vstate *v;
	sqlite3_stmt *st = NULL;
	struct dynbuf b;
	int64_t last_event = 0;
	uint64_t expect = 0;
	int rc;

	if ((rc = db_audit_walk_begin(&w, checks, nchecks, r)) < 0)
		return rc;
	if ((v = calloc(1, sizeof(*v))) == NULL) {
		db_audit_walk_end(&w);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	v->db = db;
	v->r = r;
	vcheck(v, &w, 0);
	dynbuf_init(&b, DB_AUDIT_ENTRY_MAX);
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		goto out;
	rc = dbi_prep(db, &st, VERIFY_SQL);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		uint64_t idx = (uint64_t)sqlite3_column_int64(st, 0);
		uint8_t leaf[32];

		if (idx != expect) {
			db_audit_fail(r, expect, "entry %llu is missing (the "
			    "next stored is %llu)", (unsigned long long)expect,
			    (unsigned long long)idx);
			rc = 0;
			break; /* the tree above it cannot be recomputed */
		}
		/* The tree is recomputed from the stored leaf hash's
		 * recomputation, so that an edit shows where it was made. */
		if ((rc = vleaf(v, st, idx, &b, &last_event, leaf)) < 0 ||
		    (rc = vpush(v, idx, leaf)) < 0)
			break;
		vcheck(v, &w, expect = idx + 1);
	}
	sqlite3_finalize(st);
	r->size = expect;
	vroot(v, r->root);
	if (rc == 0)
		rc = verify_counts(db, r);
	if (rc == 0)
		rc = verify_tables(db, r);
	rc = dbi_tx_end(db, rc);
out:
	db_audit_walk_end(&w);
	dynbuf_free(&b);
	free(v);
	return rc;
}
