/*
 * api_person.c - persons: register (POST /v1/persons), list (GET), disable
 * (POST /v1/persons/NAME/disable, which revokes their tokens). Admins
 * register and disable; auditors may list (the route table says so).
 *
 * Trust: the body is bounded JSON; a name is hostile text, folded and
 * checked by db/ (common/fold.h: NFKC case folding over a safe set, the
 * rest refused); an email is bounded and needs an @, nothing more (it is
 * a contact, not an identity).
 */
#include <string.h>

#include "err.h"
#include "os.h"
#include "serve.h"

static json_t *
person_json(const struct db_person *p)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:I}", "name", p->name, "email",
	    srv_json_str(p->email), "created_at", srv_json_time(p->created_at),
	    "disabled_at", srv_json_time(p->disabled_at), "tokens",
	    (json_int_t)p->tokens);
}

enum MHD_Result
api_person_create(struct req *q, struct MHD_Connection *c, struct db *db)
{
	json_error_t jerr;
	json_t *in = json_loadb(q->body.data ? q->body.data : "", q->body.len,
	    JSON_REJECT_DUPLICATES, &jerr), *out;
	const char *name = NULL, *email = NULL;
	struct db_person p;
	int rc;

	if (in == NULL || json_unpack_ex(in, &jerr, JSON_STRICT, "{s:s, s?s}",
	    "name", &name, "email", &email) < 0 || strlen(name) > 256 ||
	    (email != NULL && (strlen(email) > 256 || strchr(email, '@') ==
	    NULL || strpbrk(email, " \t\r\n<>") != NULL))) {
		json_decref(in);
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "expected {\"name\", \"email\"?}: a name of at most 256 bytes, "
		    "an email address with an @");
	}
	rc = db_person_create(db, name, email, al_now_ms(), q->who.id, NULL);
	if (rc == 0)
		rc = db_person_get(db, name, &p);
	json_decref(in);
	if (rc < 0 && rc != AL_EEXIST && rc != AL_EINVAL)
		return srv_fail_write(q, c, rc, "the person was not registered");
	if (rc < 0)
		return srv_fail(q, c, rc == AL_EEXIST ? MHD_HTTP_CONFLICT :
		    MHD_HTTP_BAD_REQUEST, rc == AL_EINVAL ? REJ_BAD_REQUEST :
		    REJ_MAX, al_err_msg());
	out = person_json(&p);
	db_person_clear(&p);
	return srv_respond_json(c, MHD_HTTP_CREATED, out);
}

enum MHD_Result
api_person_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_person *v = NULL;
	size_t n = 0, i;
	json_t *arr;

	if (db_person_list(db, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, person_json(&v[i]));
	db_person_list_free(v, n);
	return srv_respond_json(c, MHD_HTTP_OK, json_pack("{s:o}", "persons",
	    arr));
}

enum MHD_Result
api_person_disable(struct req *q, struct MHD_Connection *c, struct db *db)
{
	size_t revoked = 0;
	int rc = db_person_disable(db, q->arg, al_now_ms(), q->who.id,
	    &revoked);

	if (rc == AL_ENOTFOUND)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such person");
	if (rc == AL_EINVAL)
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, al_err_msg());
	if (rc < 0)
		return srv_fail_write(q, c, rc, "the person was not disabled");
	return srv_respond_json(c, MHD_HTTP_OK, json_pack("{s:s, s:b, s:I}",
	    "name", q->arg, "disabled", 1, "tokens_revoked",
	    (json_int_t)revoked));
}
