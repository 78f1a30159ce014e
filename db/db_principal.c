/*
 * db_principal.c - the token holders: the role names, and creating,
 * looking up (by token hash or by name), listing and revoking principals.
 * Every token is bound to a registered person (db_person.c) when it is
 * made: its holder, or for an agent the person it was launched for.
 *
 * Trust: callers are the gate's own code; names, roles and token hashes
 * are bound as parameters, never pasted into SQL, and only a token's
 * SHA-256 is stored, never the token. A row with a role the schema's CHECK
 * should have refused is reported as AL_EIO, not believed.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "err.h"

static const char *const role_names[] = {
	"agent", "reviewer", "ci", "auditor", "admin",
};
_Static_assert(sizeof(role_names) / sizeof(role_names[0]) == DB_ROLE_MAX,
    "a name for every role (and in the schema's CHECK)");

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
    const char *token_hash, const char *person, int64_t expires_at,
    int64_t now, int64_t actor, int64_t *id_out)
{
	struct db_person who;
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int rc;

	if ((int)role < 0 || role >= DB_ROLE_MAX)
		return al_err_set(AL_EINVAL, "unknown role %d", (int)role);
	memset(&who, 0, sizeof(who));
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	/* A taken name first: it is the same answer whoever the person. */
	rc = dbi_prep_bind(db, &st, "SELECT 1 FROM principals WHERE name = ?",
	    "t", name);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1)
		rc = al_err_set(AL_EEXIST, "the token name %s is taken", name);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = db_person_get(db, person != NULL ? person : name, &who);
	if (rc == AL_ENOTFOUND && person == NULL)
		rc = al_err_set(AL_ENOTFOUND, "no person named '%s' is "
		    "registered: a token belongs to a person (airlock person "
		    "add, or --person NAME)", name);
	if (rc == 0 && who.disabled_at != 0)
		rc = al_err_set(AL_EDENIED, "%s is disabled: no token is "
		    "issued for them", who.name);
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "INSERT INTO principals (name, "
		    "role, token_hash, on_behalf_of, created_at, expires_at, "
		    "person_id) VALUES (?, ?, ?, ?, ?, ?, ?)", "ttttizi", name,
		    role_names[role], token_hash, role == DB_ROLE_AGENT ?
		    who.name : NULL, now, expires_at, who.id);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0) {
		id = sqlite3_last_insert_rowid(db->h);
		rc = dbi_event_addf(db, now, actor, "token.create", 0,
		    "name=%s role=%s person=%s token_sha256=%s expires=%lld",
		    name, role_names[role], who.name, token_hash,
		    (long long)expires_at);
	}
	sqlite3_finalize(st);
	db_person_clear(&who);
	if ((rc = dbi_tx_end(db, rc)) == 0 && id_out != NULL)
		*id_out = id;
	return rc;
}

#define PRINCIPAL_COLS "p.id, p.name, p.role, p.on_behalf_of, " \
	"p.created_at, p.expires_at, p.revoked_at, ifnull(p.person_id, 0), " \
	"n.name FROM principals p LEFT JOIN persons n ON n.id = p.person_id"

static int
principal_row(sqlite3_stmt *st, struct db_principal *p)
{
	const unsigned char *role = sqlite3_column_text(st, 2);
	int nomem = 0, r = role ? db_role_parse((const char *)role) : -1;

	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(st, 0);
	p->name = dbi_col_str(st, 1, &nomem);
	p->role = r < 0 ? DB_ROLE_AGENT : (enum db_role)r;
	p->on_behalf_of = dbi_col_str(st, 3, &nomem);
	p->created_at = sqlite3_column_int64(st, 4);
	p->expires_at = dbi_col_int(st, 5, 0);
	p->revoked_at = dbi_col_int(st, 6, 0);
	p->person_id = sqlite3_column_int64(st, 7);
	p->person = dbi_col_str(st, 8, &nomem);
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
	rc = dbi_prep_bind(db, &st, sql, "t", key);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1)
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
	return principal_one(db, "SELECT " PRINCIPAL_COLS " WHERE "
	    "p.token_hash = ?", token_hash, "holds this token", out);
}

int
db_principal_by_name(struct db *db, const char *name,
    struct db_principal *out)
{
	return principal_one(db, "SELECT " PRINCIPAL_COLS " WHERE "
	    "p.name = ?", name, "of that name", out);
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
	rc = dbi_prep(db, &st, "SELECT " PRINCIPAL_COLS " ORDER "
	    "BY p.id");
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) == 0 &&
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

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = dbi_prep_bind(db, &st, "SELECT id, revoked_at FROM principals "
	    "WHERE name = ?", "t", name);
	if (rc == 0 && (rc = dbi_step(db, st)) == 0)
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
		rc = dbi_prep_bind(db, &st, "UPDATE principals SET revoked_at "
		    "= ? WHERE id = ?", "ii", now, id);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	if (rc == 0)
		rc = dbi_event_addf(db, now, actor, "token.revoke", 0,
		    "name=%s", name);
	sqlite3_finalize(st);
	db->tx_revoked = rc == 0;
	return dbi_tx_end(db, rc);
}

void
db_principal_clear(struct db_principal *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p->on_behalf_of);
	free(p->person);
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
