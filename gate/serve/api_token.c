/*
 * api_token.c - tokens: create (shown once, stored as a hash), list,
 * revoke, admins only (the route table says so); and whoami, for every
 * role but agents: the caller's own token, as it was authenticated.
 * Every token belongs to a
 * registered person: "person" for reviewer, ci, auditor and admin tokens
 * (default: the person named like the token, who must exist), and for an
 * agent "on_behalf_of", the person it was launched for (required).
 *
 * Trust: the request body is bounded JSON; a new token never reaches a
 * log, and is wiped from memory once answered.
 */
#include <openssl/crypto.h>
#include <string.h>

#include "auth.h"
#include "err.h"
#include "os.h"
#include "serve.h"

int
srv_token_body(struct srv_token_body *b, const char *data, size_t len,
    const char **why)
{
	json_error_t jerr;

	memset(b, 0, sizeof(*b));
	b->json = json_loadb(data ? data : "", len, JSON_REJECT_DUPLICATES,
	    &jerr);
	if (b->json == NULL || json_unpack_ex(b->json, &jerr, JSON_STRICT,
	    "{s:s, s:s, s?s, s?s, s?s}", "role", &b->role, "name", &b->name,
	    "ttl", &b->ttl, "on_behalf_of", &b->on_behalf_of, "person",
	    &b->person) < 0) {
		*why = "expected {\"role\", \"name\", \"person\"?, \"ttl\"?, "
		    "\"on_behalf_of\"?}";
		goto bad;
	}
	b->role_id = db_role_parse(b->role);
	if (b->role_id < 0 || !srv_name_ok(b->name, 64) ||
	    (b->ttl && gate_parse_duration(b->ttl, &b->ttl_ms) < 0) ||
	    ((b->role_id == DB_ROLE_AGENT) != (b->on_behalf_of != NULL)) ||
	    (b->role_id == DB_ROLE_AGENT && b->person != NULL)) {
		*why = "a role (agent, reviewer, ci, auditor, admin), a name of "
		    "letters, digits and . _ - @, a ttl like 8h; on_behalf_of "
		    "names the registered person who launched an agent, and is "
		    "for agents only (and required for them); person names the "
		    "registered person who holds any other token (default: the "
		    "person named like the token)";
		goto bad;
	}
	return 0;
bad:
	json_decref(b->json);
	memset(b, 0, sizeof(*b));
	return AL_EINVAL;
}

enum MHD_Result
api_token_create(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv_token_body b;
	json_t *in, *out;
	const char *role, *name, *obo, *person, *why = NULL;
	char token[GATE_TOKEN_MAX], hash[65];
	struct db_principal made;
	int64_t now = al_now_ms(), ms = 0, id = 0;
	int r, rc;

	if (srv_token_body(&b, q->body.data, q->body.len, &why) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, why);
	in = b.json;
	role = b.role;
	name = b.name;
	obo = b.on_behalf_of;
	person = b.person;
	r = b.role_id;
	ms = b.ttl_ms;
	/* Agents are short-lived: without a ttl, the policy's agent_token_ttl. */
	if (r == DB_ROLE_AGENT && b.ttl == NULL)
		ms = q->s->agent_ttl;
	if (gate_token_new(token) < 0) {
		json_decref(in);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "no randomness");
	}
	gate_token_hash(token, strlen(token), hash);
	rc = db_principal_create(db, name, (enum db_role)r, hash,
	    r == DB_ROLE_AGENT ? obo : person, ms ? now + ms : 0, now,
	    q->who.id, &id);
	if (rc == 0)
		rc = db_principal_by_name(db, name, &made);
	if (rc < 0) {
		unsigned st = rc == AL_EEXIST ? MHD_HTTP_CONFLICT :
		    rc == AL_ENOTFOUND ? MHD_HTTP_NOT_FOUND : rc == AL_EDENIED ?
		    MHD_HTTP_CONFLICT : rc == AL_EINVAL ? MHD_HTTP_BAD_REQUEST :
		    MHD_HTTP_INTERNAL_SERVER_ERROR;

		OPENSSL_cleanse(token, sizeof(token));
		json_decref(in);
		if (st == MHD_HTTP_INTERNAL_SERVER_ERROR)
			return srv_fail_write(q, c, rc, "the token was not made");
		/* A taken name, an unknown or disabled person: the gate's
		 * own words (a token name is checked, a person's folded). */
		return srv_fail(q, c, st, st == MHD_HTTP_BAD_REQUEST ?
		    REJ_BAD_REQUEST : REJ_MAX, rc == AL_EEXIST ?
		    "that name is taken" : al_err_msg());
	}
	out = json_pack("{s:s, s:s, s:s, s:o}", "name", name, "role", role,
	    "token", token, "expires_at", srv_json_time(ms ? now + ms : 0));
	rc = out == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    al_json_set_textz(out, "on_behalf_of", made.on_behalf_of);
	if (rc == 0)
		rc = al_json_set_textz(out, "person", made.person);
	db_principal_clear(&made);
	json_decref(in);         /* name and role live in it */
	OPENSSL_cleanse(token, sizeof(token));
	return srv_respond_built(q, c, MHD_HTTP_CREATED, out, rc);
}

enum MHD_Result
api_token_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_principal *v = NULL;
	size_t n = 0, i;
	json_t *arr = NULL, *o, *j;
	int rc;

	if (db_principal_list(db, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	j = json_object();
	rc = j == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    srv_json_set(j, "tokens", arr = json_array());
	for (i = 0; rc == 0 && i < n; i++) {
		o = json_pack("{s:s, s:o, s:o, s:o}", "role",
		    db_role_name(v[i].role),
		    "created_at", srv_json_time(v[i].created_at), "expires_at",
		    srv_json_time(v[i].expires_at), "revoked_at",
		    srv_json_time(v[i].revoked_at));
		if (o == NULL)
			rc = al_err_set(AL_ENOMEM, "out of memory for a token");
		else if ((rc = al_json_set_textz(o, "name", v[i].name)) < 0 ||
		    (rc = al_json_set_textz(o, "person", v[i].person)) < 0 ||
		    (rc = al_json_set_textz(o, "on_behalf_of",
		    v[i].on_behalf_of)) < 0)
			json_decref(o);
		else
			rc = srv_json_append(arr, o);
	}
	db_principal_list_free(v, n);
	return srv_respond_built(q, c, MHD_HTTP_OK, j, rc);
}

enum MHD_Result
api_token_revoke(struct req *q, struct MHD_Connection *c, struct db *db)
{
	int rc = db_principal_revoke(db, q->arg, al_now_ms(), q->who.id);
	json_t *out;

	if (rc == AL_ENOTFOUND)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such token");
	if (rc == AL_EINVAL)
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, "already revoked");
	if (rc < 0)
		return srv_fail_write(q, c, rc, "the token was not revoked");
	out = json_pack("{s:b}", "revoked", 1);
	rc = out == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    al_json_set_textz(out, "name", q->arg);
	return srv_respond_built(q, c, MHD_HTTP_OK, out, rc);
}

/* The principal is the one authenticate() read for this request (router.c):
 * no second lookup, so the answer is of the token the request carried and
 * of nothing else. Names are people's text: by the scheme. */
enum MHD_Result
api_whoami(struct req *q, struct MHD_Connection *c)
{
	json_t *out = json_pack("{s:s, s:o}", "role",
	    db_role_name(q->who.role), "expires_at",
	    srv_json_time(q->who.expires_at));
	int rc = out == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
	    al_json_set_textz(out, "name", q->who.name);

	if (rc == 0)
		rc = al_json_set_textz(out, "person", q->who.person);
	return srv_respond_built(q, c, MHD_HTTP_OK, out, rc);
}
