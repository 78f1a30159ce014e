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

/* A person as JSON: the name and email, people's text, by the scheme. */
static int
person_json(json_t **out, const struct db_person *p)
{
	json_t *o = json_pack("{s:o, s:o, s:I}", "created_at",
	    srv_json_time(p->created_at), "disabled_at",
	    srv_json_time(p->disabled_at), "tokens", (json_int_t)p->tokens);
	int rc;

	*out = NULL;
	if (o == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for a person");
	if ((rc = al_json_set_textz(o, "name", p->name)) < 0 ||
	    (rc = al_json_set_textz(o, "email", p->email)) < 0) {
		json_decref(o);
		return rc;
	}
	*out = o;
	return 0;
}

int
srv_person_body(struct srv_person_body *b, const char *data, size_t len,
    const char **why)
{
	json_error_t jerr;

	memset(b, 0, sizeof(*b));
	b->json = json_loadb(data ? data : "", len, JSON_REJECT_DUPLICATES,
	    &jerr);
	if (b->json == NULL || json_unpack_ex(b->json, &jerr, JSON_STRICT,
	    "{s:s, s?s}", "name", &b->name, "email", &b->email) < 0 ||
	    strlen(b->name) > 256 || (b->email != NULL &&
	    (strlen(b->email) > 256 || strchr(b->email, '@') == NULL ||
	    strpbrk(b->email, " \t\r\n<>") != NULL))) {
		*why = "expected {\"name\", \"email\"?}: a name of at most 256 "
		    "bytes, an email address with an @";
		json_decref(b->json);
		memset(b, 0, sizeof(*b));
		return AL_EINVAL;
	}
	return 0;
}

enum MHD_Result
api_person_create(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv_person_body b;
	json_t *in, *out;
	const char *name, *email, *why = NULL;
	struct db_person p;
	int rc;

	if (srv_person_body(&b, q->body.data, q->body.len, &why) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, why);
	in = b.json;
	name = b.name;
	email = b.email;
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
	rc = person_json(&out, &p);
	db_person_clear(&p);
	return srv_respond_built(q, c, MHD_HTTP_CREATED, out, rc);
}

enum MHD_Result
api_person_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_person *v = NULL;
	size_t n = 0, i;
	json_t *arr = NULL, *one, *j;
	int rc;

	if (db_person_list(db, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	j = json_object();
	rc = j == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    srv_json_set(j, "persons", arr = json_array());
	for (i = 0; rc == 0 && i < n; i++)
		if ((rc = person_json(&one, &v[i])) == 0)
			rc = srv_json_append(arr, one);
	db_person_list_free(v, n);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc);
}

enum MHD_Result
api_person_disable(struct req *q, struct MHD_Connection *c, struct db *db)
{
	size_t revoked = 0;
	json_t *out;
	int rc = db_person_disable(db, q->arg, al_now_ms(), q->who.id,
	    &revoked);

	if (rc == AL_ENOTFOUND)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such person");
	if (rc == AL_EINVAL)
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, al_err_msg());
	if (rc < 0)
		return srv_fail_write(q, c, rc, "the person was not disabled");
	out = json_pack("{s:b, s:I}", "disabled", 1, "tokens_revoked",
	    (json_int_t)revoked);
	rc = out == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    al_json_set_textz(out, "name", q->arg);
	return srv_respond_built(q, c, MHD_HTTP_OK, out, rc);
}
