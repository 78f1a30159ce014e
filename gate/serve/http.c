/*
 * http.c - the answers every endpoint gives: JSON bodies, error
 * bodies that never echo what the client sent, the headers every API
 * answer carries (the review UI's own are in ui.c), the strict check of a
 * request's framing headers, and the small parsers of ids and names.
 *
 * Trust: what is parsed here (ids in URLs, names in bodies, the framing
 * headers) comes from unauthenticated or authenticated clients alike and
 * is checked strictly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "err.h"
#include "os.h"
#include "serve.h"

/* No answer of the API is kept, read as another type, rendered as a page
 * that loads or runs anything, framed, or named in a Referer. */
void
srv_api_headers(struct MHD_Response *r)
{
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy", SRV_API_CSP);
}

/* retry: the Retry-After in seconds; 0: none. */
static enum MHD_Result
respond(struct MHD_Connection *c, unsigned status, const char *type,
    const char *body, size_t len, int close, unsigned retry)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len,
	    (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;
	char secs[16];

	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	srv_api_headers(r);
	/* libmicrohttpd closes the connection after such an answer. */
	if (close)
		MHD_add_response_header(r, "Connection", "close");
	if (retry > 0) {
		snprintf(secs, sizeof(secs), "%u", retry);
		MHD_add_response_header(r, "Retry-After", secs);
	}
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

/* The answer when a document could not be made: loud, never a
 * connection dropped or a document with a part left out. */
static const char unmade[] = "{\n  \"error\": \"the answer could not be "
    "made (out of memory)\"\n}";

static enum MHD_Result
respond_json(struct MHD_Connection *c, unsigned status, json_t *j, int close,
    unsigned retry)
{
	char *text = j != NULL ? json_dumps(j, JSON_INDENT(2) |
	    JSON_SORT_KEYS) : NULL;
	enum MHD_Result ok;

	json_decref(j);
	if (text == NULL)
		return respond(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "application/json", unmade, sizeof(unmade) - 1, close, 0);
	ok = respond(c, status, "application/json", text, strlen(text), close,
	    retry);
	free(text);
	return ok;
}

enum MHD_Result
srv_respond(struct MHD_Connection *c, unsigned status, const char *type,
    const char *body, size_t len)
{
	return respond(c, status, type, body, len, 0, 0);
}

enum MHD_Result
srv_respond_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
	return respond_json(c, status, j, 0, 0);
}

enum MHD_Result
srv_respond_json_close(struct MHD_Connection *c, unsigned status, json_t *j)
{
	return respond_json(c, status, j, 1, 0);
}

enum MHD_Result
srv_respond_built(struct req *q, struct MHD_Connection *c, unsigned status,
    json_t *j, int rc)
{
	char msg[256];

	if (rc == 0 && j != NULL)
		return srv_respond_json(c, status, j);
	json_decref(j);
	snprintf(msg, sizeof(msg), "the answer could not be made: %s",
	    rc < 0 ? al_err_msg() : "out of memory");
	return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX, msg);
}

/*
 * An error answer; the message is the gate's own words, never an echo of
 * a header or a token. When the endpoint failed because its token stopped
 * being good before its write committed (db_guard_set), whatever the
 * endpoint meant to answer, the answer is the 401 the token gets now
 * ("token revoked at ..."), and it is recorded as such a refusal. The
 * record of a refusal is the gate's own write, not the caller's: it is
 * made with the guard off. The message may quote a name, which goes by
 * the text scheme like any other.
 */
enum MHD_Result
srv_fail(struct req *q, struct MHD_Connection *c, unsigned status,
    enum reject why, const char *msg)
{
	return srv_fail_retry(q, c, status, why, msg, 0);
}

enum MHD_Result
srv_fail_retry(struct req *q, struct MHD_Connection *c, unsigned status,
    enum reject why, const char *msg, unsigned retry_after)
{
	struct db *db = srv_db(q->s);
	json_t *j;
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
	j = json_object();
	if (j != NULL && al_json_set_textz(j, "error", msg) < 0) {
		json_decref(j);
		j = NULL;
	}
	/* A refusal made 401 above says nothing of retrying. */
	return respond_json(c, status, j, q->must_close, status ==
	    MHD_HTTP_UNAUTHORIZED ? 0 : retry_after);
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

int
srv_json_set(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(obj, key, v) < 0)
		return al_err_set(AL_ENOMEM, "out of memory for the member %s",
		    key);
	return 0;
}

int
srv_json_append(json_t *arr, json_t *v)
{
	if (v == NULL || json_array_append_new(arr, v) < 0)
		return al_err_set(AL_ENOMEM, "out of memory for a JSON list");
	return 0;
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

/* What srv_framing_error learns from the headers, one at a time. */
struct framing {
	const char *error;
	unsigned n_cl, n_te, n_host, n_auth, n_origin, n_range;
	int te_chunked;
};

static int
is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || (ch != '\0' &&
	    strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

static int
name_is(const char *key, size_t n, const char *want)
{
	return n == strlen(want) && strncasecmp(key, want, n) == 0;
}

static enum MHD_Result
framing_header(void *cls, enum MHD_ValueKind kind, const char *key,
    size_t key_size, const char *value, size_t value_size)
{
	struct framing *f = cls;
	uintptr_t k = (uintptr_t)key, v = (uintptr_t)value;
	size_t i;

	(void)kind;
	if (value == NULL) {
		f->error = "a header line has no value";
		return MHD_NO;
	}
	if (key_size == 0) {
		f->error = "a header line has no name";
		return MHD_NO;
	}
	for (i = 0; i < key_size; i++)
		if (!is_tchar((unsigned char)key[i])) {
			f->error = key[i] == ' ' || key[i] == '\t' ?
			    "a header name has white space before its colon" :
			    "a header name holds a character that is not allowed";
			return MHD_NO;
		}
	/* libmicrohttpd 0.9.75 keeps name and value where they came, in the
	 * line: name, its colon made a NUL, white space, the value, and the
	 * CR LF made two NULs. What it does not say shows in that layout: a
	 * line folded onto the next (obs-fold, RFC 9112 5.2) is copied
	 * elsewhere with the next line glued to the name, and a NUL byte
	 * silently ends a name or a value where it stands. */
	if (v < k + key_size + 1 || v - (k + key_size + 1) > SERVE_HEADER_LIMIT ||
	    key[key_size] != '\0') {
		f->error = "a header line is folded onto the next (obs-fold) or "
		    "holds a NUL byte";
		return MHD_NO;
	}
	for (i = key_size + 1; i < v - k; i++)
		if (key[i] != ' ' && key[i] != '\t') {
			f->error = "a header line is folded onto the next (obs-fold) "
			    "or holds a NUL byte";
			return MHD_NO;
		}
	if (value[value_size] != '\0' || value[value_size + 1] != '\0') {
		f->error = "a header line holds a NUL byte or does not end in "
		    "CR LF";
		return MHD_NO;
	}
	for (i = 0; i < value_size; i++)
		if (((unsigned char)value[i] < 0x20 && value[i] != '\t') ||
		    value[i] == 0x7f) {
			f->error = "a header value holds a control character";
			return MHD_NO;
		}
	if (name_is(key, key_size, "Content-Length")) {
		f->n_cl++;
		if (value_size == 0 || value_size > 19) {
			f->error = "Content-Length is not a decimal number";
			return MHD_NO;
		}
		for (i = 0; i < value_size; i++)
			if (value[i] < '0' || value[i] > '9') {
				f->error = "Content-Length is not a decimal number";
				return MHD_NO;
			}
	} else if (name_is(key, key_size, "Transfer-Encoding")) {
		f->n_te++;
		f->te_chunked = value_size == 7 && strncasecmp(value, "chunked",
		    7) == 0;
	} else if (name_is(key, key_size, "Host")) {
		f->n_host++;
	} else if (name_is(key, key_size, "Authorization")) {
		f->n_auth++;
	} else if (name_is(key, key_size, "Origin")) {
		f->n_origin++;
	} else if (name_is(key, key_size, "Range")) {
		f->n_range++;
	}
	return MHD_YES;
}

/* RFC 9112 6.3: a body's length is told one way, once. Content-Length and
 * Transfer-Encoding together, either twice, a length that is not digits, a
 * coding other than chunked: 400, never a guess (libmicrohttpd 0.9.75
 * takes the first of two lengths, ignores a "Transfer-Encoding : chunked"
 * and reads an unknown coding's body until the connection closes). The
 * headers that decide who asks and for what (Host, Authorization, Origin,
 * Range) come once. */
const char *
srv_framing_error(struct MHD_Connection *c, const char *version)
{
	struct framing f;

	memset(&f, 0, sizeof(f));
	(void)MHD_get_connection_values_n(c, MHD_HEADER_KIND, framing_header,
	    &f);
	if (f.error != NULL)
		return f.error;
	if (f.n_cl > 1)
		return "Content-Length is given more than once";
	if (f.n_te > 1)
		return "Transfer-Encoding is given more than once";
	if (f.n_te == 1 && f.n_cl == 1)
		return "Content-Length and Transfer-Encoding are both given";
	if (f.n_te == 1 && !f.te_chunked)
		return "Transfer-Encoding other than chunked";
	if (f.n_te == 1 && version != NULL && strcmp(version, "HTTP/1.1") != 0)
		return "Transfer-Encoding in a request older than HTTP/1.1";
	if (f.n_host > 1)
		return "Host is given more than once";
	if (f.n_auth > 1)
		return "Authorization is given more than once";
	if (f.n_origin > 1)
		return "Origin is given more than once";
	if (f.n_range > 1)
		return "Range is given more than once";
	return NULL;
}
