/*
 * db_person.c - persons: the people who hold tokens and for whom agents
 * are launched. Registering (unique by fold.h's key), looking up by name
 * under that key, listing, disabling (which revokes their tokens).
 *
 * Trust: callers are the gate's own code; names come from admin requests
 * and are hostile text: each is folded (fold.h refuses what it cannot
 * normalise faithfully) and bound as a parameter, never pasted into SQL.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"
#include "err.h"
#include "fold.h"

#define PERSON_COLS "n.id, n.name, n.fold, n.email, n.created_at, " \
	"n.disabled_at, (SELECT count(*) FROM principals p WHERE p.person_id " \
	"= n.id AND p.revoked_at IS NULL)"

static int
person_row(sqlite3_stmt *st, struct db_person *p)
{
	int nomem = 0;

	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(st, 0);
	p->name = dbi_col_str(st, 1, &nomem);
	p->fold = dbi_col_str(st, 2, &nomem);
	p->email = dbi_col_str(st, 3, &nomem);
	p->created_at = sqlite3_column_int64(st, 4);
	p->disabled_at = dbi_col_int(st, 5, 0);
	p->tokens = sqlite3_column_int64(st, 6);
	if (nomem) {
		db_person_clear(p);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	return 0;
}

int
db_person_create(struct db *db, const char *name, const char *email,
    int64_t now, int64_t actor, int64_t *id_out)
{
	char key[AL_FOLD_MAX + 1];
	struct db_person old;
	sqlite3_stmt *st = NULL;
	size_t start = 0, len = 0;
	int64_t id = 0;
	int rc;

	if ((rc = al_name_fold(key, sizeof(key), name, strlen(name), &start,
	    &len)) < 0)
		return rc;
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = db_person_get(db, key, &old);
	if (rc == 0) {
		rc = al_err_set(AL_EEXIST, "a person of that name is registered "
		    "already, as '%s' (names are compared after NFKC case "
		    "folding and trimming)", old.name);
		db_person_clear(&old);
	} else if (rc == AL_ENOTFOUND) {
		rc = 0;
	}
	if (rc == 0) {
		char *shown = strndup(name + start, len);

		rc = shown == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
		    dbi_prep_bind(db, &st, "INSERT INTO persons (name, fold, "
		    "email, created_at) VALUES (?, ?, ?, ?)", "ttti", shown, key,
		    email, now);
		if (rc == 0 && (rc = dbi_step_done(db, st)) == 0) {
			id = sqlite3_last_insert_rowid(db->h);
			rc = dbi_event_addf(db, now, actor, "person.add", 0,
			    "name=%s", shown);
		}
		free(shown);
		if (rc == AL_EEXIST)
			rc = al_err_set(AL_EEXIST, "a person of that name is "
			    "registered already");
	}
	sqlite3_finalize(st);
	if ((rc = dbi_tx_end(db, rc)) == 0 && id_out != NULL)
		*id_out = id;
	return rc;
}

int
db_person_get(struct db *db, const char *name, struct db_person *out)
{
	char key[AL_FOLD_MAX + 1];
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = al_name_fold(key, sizeof(key), name, strlen(name), NULL,
	    NULL)) < 0)
		return rc;
	rc = dbi_prep_bind(db, &st, "SELECT " PERSON_COLS " FROM persons n "
	    "WHERE n.fold = ?", "t", key);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1)
		rc = person_row(st, out);
	else if (rc == 0)
		rc = al_err_set(AL_ENOTFOUND, "no person named '%s' is "
		    "registered (airlock person add)", name);
	sqlite3_finalize(st);
	return rc;
}

int
db_person_list(struct db *db, struct db_person **out, size_t *n_out)
{
	struct db_person *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	rc = dbi_prep(db, &st, "SELECT " PERSON_COLS " FROM persons n ORDER BY "
	    "n.id");
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) == 0 &&
		    (rc = person_row(st, &v[n])) == 0)
			n++;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		db_person_list_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int
db_person_disable(struct db *db, const char *name, int64_t now,
    int64_t actor, size_t *revoked_out)
{
	struct db_person p;
	sqlite3_stmt *st = NULL;
	size_t revoked = 0;
	int rc;

	*revoked_out = 0;
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = db_person_get(db, name, &p);
	if (rc == 0 && p.disabled_at != 0)
		rc = al_err_set(AL_EINVAL, "%s is disabled already", p.name);
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE persons SET disabled_at = ? "
		    "WHERE id = ?", "ii", now, p.id);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE principals SET revoked_at = "
		    "? WHERE person_id = ? AND revoked_at IS NULL", "ii", now,
		    p.id);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0)
		revoked = (size_t)sqlite3_changes(db->h);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = dbi_event_addf(db, now, actor, "person.disable", 0,
		    "name=%s tokens_revoked=%lld", p.name, (long long)revoked);
	db_person_clear(&p);
	db->tx_revoked = rc == 0;
	if ((rc = dbi_tx_end(db, rc)) == 0)
		*revoked_out = revoked;
	return rc;
}

void
db_person_clear(struct db_person *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p->fold);
	free(p->email);
	memset(p, 0, sizeof(*p));
}

void
db_person_list_free(struct db_person *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		db_person_clear(&v[i]);
	free(v);
}
