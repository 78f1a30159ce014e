/*
 * http.c - the answers every endpoint gives: JSON bodies, error
 * bodies that never echo what the client sent, and the small parsers of
 * ids and names.
 *
 * Trust: what is parsed here (ids in URLs, names in bodies) comes from
 * unauthenticated or authenticated clients alike and is checked strictly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "err.h"
#include "os.h"
#include "serve.h"

enum MHD_Result
srv_respond(struct MHD_Connection *c, unsigned status, const char *type,
    const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len,
	    (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

enum MHD_Result
srv_respond_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	enum MHD_Result ok;

	json_decref(j);
	if (text == NULL)
		return MHD_NO;
	ok = srv_respond(c, status, "application/json", text, strlen(text));
	free(text);
	return ok;
}

/*
 * An error answer; the message is the gate's own words, never an echo of
 * a header or a token. When the endpoint failed because its token stopped
 * being good before its write committed (db_guard_set), whatever the
 * endpoint meant to answer, the answer is the 401 the token gets now
 * ("token revoked at ..."), and it is recorded as such a refusal. The
 * record of a refusal is the gate's own write, not the caller's: it is
 * made with the guard off.
 */
enum MHD_Result
srv_fail(struct req *q, struct MHD_Connection *c, unsigned status,
    enum reject why, const char *msg)
{
	struct db *db = srv_db(q->s);
	int64_t guard = 0, rev, exp;
	char tmsg[96];

	if (db != NULL && db_guard_refused(db, &rev, &exp)) {
		q->who.revoked_at = rev;
		q->who.expires_at = exp;
		q->authed = rev != 0 || exp != 0;   /* else: no longer known */
		q->commit_refused = 1;
		status = MHD_HTTP_UNAUTHORIZED;
		why = REJ_UNAUTH;
		msg = gate_token_refusal(tmsg, sizeof(tmsg), rev, exp,
		    al_now_ms());
		if (msg == NULL)
			msg = "a valid token is required (Authorization: Bearer)";
	}
	if (db != NULL)
		guard = db_guard_set(db, 0, NULL);
	if (why < REJ_MAX)
		atomic_fetch_add(&q->s->rejects[why], 1);
	/* The gate failed, not the caller: the operator hears of each one.
	 * The route's name and the gate's message only, never what the
	 * request carried (its URL holds names, its headers tokens). */
	if (status >= 500 && status < 500 + SRV_N5XX) {
		atomic_fetch_add(&q->s->server_errors[status - 500], 1);
		if (q->id != 0)
			fprintf(stderr, "airlock serve: answered %u to %s of "
			    "submission %" PRId64 ": %s\n", status,
			    srv_route_name(q->route), q->id, msg);
		else
			fprintf(stderr, "airlock serve: answered %u to %s: %s\n",
			    status, srv_route_name(q->route), msg);
	}
	srv_record_refusal(q, c, status, why, msg);
	if (db != NULL)
		(void)db_guard_set(db, guard, al_now_ms);
	return srv_respond_json(c, status, json_pack("{s:s}", "error", msg));
}

enum MHD_Result
srv_fail_write(struct req *q, struct MHD_Connection *c, int rc,
    const char *msg)
{
	char full[256];

	if (rc != AL_EFULL)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX, msg);
	snprintf(full, sizeof(full), "the gate's storage is full: %s", msg);
	return srv_fail(q, c, MHD_HTTP_INSUFFICIENT_STORAGE, REJ_MAX, full);
}

json_t *
srv_json_time(int64_t ms)
{
	char iso[32];

	if (ms == 0)
		return json_null();
	al_time_iso(ms, iso);
	return json_string(iso);
}

json_t *
srv_json_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

int
srv_name_ok(const char *s, size_t max)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' ||
		    s[i] == '-' || s[i] == '@'))
			return 0;
	return 1;
}

/* Parses a decimal id; 0 when it is not one. */
int64_t
srv_parse_id(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;

	if (n == 0 || n > 15)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}
