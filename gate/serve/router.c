/*
 * router.c - one request from its first line to its end: Host and
 * Origin checks (DNS rebinding, CSRF), the route, the token and its role,
 * the body (streamed to the store, or a bounded JSON buffer), then the
 * endpoint. The table of who may call what is here, as docs/api.md shows
 * it.
 *
 * Trust: every request is hostile until its token checks; nothing of a
 * body is read before its framing (srv_framing_error), the route, the
 * token and Content-Length allow it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "err.h"
#include "gate.h"
#include "os.h"
#include "serve.h"

/*
 * Who may call what, and where: the table docs/api.md shows. Each route
 * has its name (the record's and the metrics'), its method and path as a
 * pattern ({id} a submission, {n} an item index, {name} a token, a
 * person or a UI file: what route_of parses), the roles that may call it
 * (none: no token) and whether the intake socket serves it. `airlock
 * serve --routes` prints it, after checking that route_of reads every
 * pattern back as its route, and the role x endpoint x listener suite
 * (tests/route_matrix.py) is generated from that print.
 */
static const struct route_def {
	enum route route;
	const char *name;
	const char *method;
	const char *path;
	unsigned roles;           /* ROLE() mask; 0: no token (healthz) */
	int intake;               /* served on the intake socket too */
} route_defs[] = {
	{R_HEALTHZ, "healthz", "GET", "/healthz", 0, 0},
	{R_METRICS, "metrics", "GET", "/metrics",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_SUBMIT, "submit", "POST", "/v1/submissions", ROLE(DB_ROLE_AGENT), 1},
	{R_LIST, "list", "GET", "/v1/submissions", ANY_ROLE, 1},
	{R_SHOW, "show", "GET", "/v1/submissions/{id}", ANY_ROLE, 1},
	/* The caller's own token: who the review UI says is signed in. Not
	 * for agents, and not on the intake socket: an agent submits and
	 * reads its own submissions, nothing else (DESIGN.md). */
	{R_WHOAMI, "whoami", "GET", "/v1/whoami", ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	/* ci: released content only (checked in api_content). */
	{R_CONTENT, "content", "GET", "/v1/submissions/{id}/content",
	    ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_AUDITOR) |
	    ROLE(DB_ROLE_ADMIN), 0},
	/* One member's kept bytes: for those who review and audit. */
	{R_ITEM_CONTENT, "item.content", "GET",
	    "/v1/submissions/{id}/items/{n}/content", ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_EVENTS, "events", "GET", "/v1/submissions/{id}/events",
	    ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN),
	    0},
	{R_EVENTS_ALL, "events.all", "GET", "/v1/events",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	/* The long-poll of the review UI's queue (changes.c). Not for
	 * agents: its cursor moves with everyone's submissions and
	 * decisions, and an agent reads its own submissions only. */
	{R_CHANGES, "changes", "GET", "/v1/changes", ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_AUDIT_CHECKPOINT, "audit.checkpoint", "GET", "/v1/audit/checkpoint",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	/* What `airlock audit verify --server` reads: public or signed. */
	{R_AUDIT_CHECKPOINTS, "audit.checkpoints", "GET",
	    "/v1/audit/checkpoints", ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN),
	    0},
	{R_AUDIT_ENTRIES, "audit.entries", "GET", "/v1/audit/entries",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_AUDIT_KEYS, "audit.keys", "GET", "/v1/audit/keys",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	/* The chain of one artifact, as `airlock provenance` shows it. */
	{R_PROVENANCE, "provenance", "GET", "/v1/provenance",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_APPROVE, "approve", "POST", "/v1/submissions/{id}/approve",
	    ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_ADMIN), 0},
	{R_REJECT, "reject", "POST", "/v1/submissions/{id}/reject",
	    ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_ADMIN), 0},
	{R_OVERRIDE, "override", "POST", "/v1/submissions/{id}/override",
	    ROLE(DB_ROLE_ADMIN), 0},
	/* Further narrowed by the policy's release roles (release.c). */
	{R_RELEASE, "release", "POST", "/v1/submissions/{id}/release",
	    ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_ADMIN), 0},
	{R_ATTESTATION, "attestation", "GET",
	    "/v1/submissions/{id}/attestation", ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_RELOAD, "rules.reload", "POST", "/v1/rules/reload",
	    ROLE(DB_ROLE_ADMIN), 0},
	{R_TOKEN_CREATE, "token.create", "POST", "/v1/tokens",
	    ROLE(DB_ROLE_ADMIN), 0},
	{R_TOKEN_LIST, "token.list", "GET", "/v1/tokens", ROLE(DB_ROLE_ADMIN), 0},
	{R_TOKEN_REVOKE, "token.revoke", "DELETE", "/v1/tokens/{name}",
	    ROLE(DB_ROLE_ADMIN), 0},
	{R_PERSON_CREATE, "person.create", "POST", "/v1/persons",
	    ROLE(DB_ROLE_ADMIN), 0},
	{R_PERSON_LIST, "person.list", "GET", "/v1/persons",
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_PERSON_DISABLE, "person.disable", "POST", "/v1/persons/{name}/disable",
	    ROLE(DB_ROLE_ADMIN), 0},
	/* The review UI's files (ui.c): HEAD as GET, any other method 405. */
	{R_UI_ROOT, "ui.root", "GET", "/", 0, 0},
	{R_UI_INDEX, "ui.index", "GET", "/ui/", 0, 0},
	{R_UI_FILE, "ui.file", "GET", "/ui/{name}", 0, 0},
	{R_UI_IMG, "ui.img", "GET", "/ui/img/{name}", 0, 0},
};

#define NROUTES (sizeof(route_defs) / sizeof(route_defs[0]))

static const struct route_def *
route_def(enum route r)
{
	size_t i;

	for (i = 0; i < NROUTES; i++)
		if (route_defs[i].route == r)
			return &route_defs[i];
	return NULL;
}

const char *
srv_route_name(enum route r)
{
	const struct route_def *d = route_def(r);

	return d != NULL ? d->name : r == R_NONE ? "none" : "other";
}

/* Answered without a token (its roles are 0): /healthz and the UI's
 * files. */
static int
route_open(const struct route_def *d)
{
	return d->roles == 0;
}

/* Whether a token of this role may call d on this listener (d served
 * there). On the intake socket, submitting is for agents; what else it
 * serves (the list, one submission) anyone may ask, and is shown only
 * their own submissions. */
static int
route_admits(const struct route_def *d, int intake, enum db_role role)
{
	return (d->roles & ROLE(role)) || (intake && d->route != R_SUBMIT);
}

static int
host_allowed(const struct req *q, const char *host)
{
	char want[300];

	if (host == NULL)
		return 0;
	if (q->intake)
		return strcmp(host, "localhost") == 0;
	snprintf(want, sizeof(want), "%s:%u", q->s->host, q->s->port);
	if (strcmp(host, want) == 0)
		return 1;
	snprintf(want, sizeof(want), "127.0.0.1:%u", q->s->port);
	if (strcmp(host, want) == 0)
		return 1;
	snprintf(want, sizeof(want), "localhost:%u", q->s->port);
	return strcmp(host, want) == 0;
}

static int
origin_allowed(const struct req *q, const char *origin)
{
	/* Our own origin: http:// and a Host this listener answers to. */
	return !q->intake && strncmp(origin, "http://", 7) == 0 &&
	    host_allowed(q, origin + 7);
}

/* "/items/N/content", N a decimal index from 0 (no sign, no leading
 * zero, at most 9 digits): 1 with N in *item. */
static int
item_of(const char *p, int64_t *item)
{
	size_t n = 0;
	int64_t v = 0;

	if (strncmp(p, "/items/", 7) != 0)
		return 0;
	p += 7;
	while (p[n] >= '0' && p[n] <= '9' && n < 10)
		v = v * 10 + (p[n++] - '0');
	if (n == 0 || n > 9 || (n > 1 && p[0] == '0') ||
	    strcmp(p + n, "/content") != 0)
		return 0;
	*item = v;
	return 1;
}

static enum route
route_of(const char *method, const char *url, int64_t *id, int64_t *item,
    char **arg)
{
	int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
	const char *p;
	enum route ui = srv_ui_route(url);

	if (ui != R_NONE)
		return ui;
	if (get && strcmp(url, "/healthz") == 0)
		return R_HEALTHZ;
	if (get && strcmp(url, "/metrics") == 0)
		return R_METRICS;
	if (get && strcmp(url, "/v1/whoami") == 0)
		return R_WHOAMI;
	if (strcmp(url, "/v1/submissions") == 0)
		return post ? R_SUBMIT : get ? R_LIST : R_NONE;
	if (strcmp(url, "/v1/tokens") == 0)
		return post ? R_TOKEN_CREATE : get ? R_TOKEN_LIST : R_NONE;
	if (strcmp(url, "/v1/persons") == 0)
		return post ? R_PERSON_CREATE : get ? R_PERSON_LIST : R_NONE;
	if (post && strncmp(url, "/v1/persons/", 12) == 0 &&
	    (p = strrchr(url + 12, '/')) != NULL && p > url + 12 &&
	    strcmp(p, "/disable") == 0) {
		*arg = strndup(url + 12, (size_t)(p - url - 12));
		return *arg && strchr(*arg, '/') == NULL ? R_PERSON_DISABLE :
		    R_NONE;
	}
	if (get && strcmp(url, "/v1/events") == 0)
		return R_EVENTS_ALL;
	if (get && strcmp(url, "/v1/changes") == 0)
		return R_CHANGES;
	if (get && strcmp(url, "/v1/audit/checkpoint") == 0)
		return R_AUDIT_CHECKPOINT;
	if (get && strcmp(url, "/v1/audit/checkpoints") == 0)
		return R_AUDIT_CHECKPOINTS;
	if (get && strcmp(url, "/v1/audit/entries") == 0)
		return R_AUDIT_ENTRIES;
	if (get && strcmp(url, "/v1/audit/keys") == 0)
		return R_AUDIT_KEYS;
	if (get && strcmp(url, "/v1/provenance") == 0)
		return R_PROVENANCE;
	if (post && strcmp(url, "/v1/rules/reload") == 0)
		return R_RELOAD;
	if (strncmp(url, "/v1/tokens/", 11) == 0 &&
	    strcmp(method, "DELETE") == 0 && url[11] != '\0' &&
	    strchr(url + 11, '/') == NULL) {
		*arg = strdup(url + 11);
		return *arg ? R_TOKEN_REVOKE : R_NONE;
	}
	if ((!get && !post) || strncmp(url, "/v1/submissions/", 16) != 0)
		return R_NONE;
	p = strchr(url + 16, '/');
	*id = srv_parse_id(url + 16, p ? (size_t)(p - url - 16) : strlen(url + 16));
	if (*id == 0)
		return R_NONE;
	if (get) {
		if (p == NULL)
			return R_SHOW;
		if (strcmp(p, "/content") == 0)
			return R_CONTENT;
		if (strcmp(p, "/events") == 0)
			return R_EVENTS;
		if (strcmp(p, "/attestation") == 0)
			return R_ATTESTATION;
		if (item_of(p, item))
			return R_ITEM_CONTENT;
		return R_NONE;
	}
	if (p == NULL)
		return R_NONE;
	if (strcmp(p, "/approve") == 0)
		return R_APPROVE;
	if (strcmp(p, "/reject") == 0)
		return R_REJECT;
	if (strcmp(p, "/override") == 0)
		return R_OVERRIDE;
	if (strcmp(p, "/release") == 0)
		return R_RELEASE;
	return R_NONE;
}

/* Authenticates the bearer token: 0, or the status to answer (and in why,
 * for a known token that is no longer good, when it stopped). */
static unsigned
authenticate(struct req *q, struct MHD_Connection *c, char *why, size_t n)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Authorization");
	struct db *db = srv_db(q->s);
	char hash[65];
	int64_t now = al_now_ms();
	const char *tok;

	if (db == NULL)
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	if (h == NULL || strncmp(h, "Bearer ", 7) != 0)
		return MHD_HTTP_UNAUTHORIZED;
	tok = h + 7;
	if (!gate_token_wellformed(tok, strlen(tok)))
		return MHD_HTTP_UNAUTHORIZED;
	gate_token_hash(tok, strlen(tok), hash);
	if (db_principal_by_token(db, hash, &q->who) < 0)
		return MHD_HTTP_UNAUTHORIZED;
	q->authed = 1;
	if (gate_token_refusal(why, n, q->who.revoked_at, q->who.expires_at,
	    now) != NULL)
		return MHD_HTTP_UNAUTHORIZED;
	return 0;
}

int
srv_reauthenticate(struct req *q, struct MHD_Connection *c,
    enum MHD_Result *res)
{
	char why[96] = "";
	unsigned st;

	db_principal_clear(&q->who);
	memset(&q->who, 0, sizeof(q->who));
	q->authed = 0;
	if ((st = authenticate(q, c, why, sizeof(why))) == 0)
		return 0;
	*res = srv_fail(q, c, st, st == MHD_HTTP_UNAUTHORIZED ? REJ_UNAUTH :
	    REJ_MAX, st != MHD_HTTP_UNAUTHORIZED ? "database error" :
	    why[0] != '\0' ? why : "a valid token is required "
	    "(Authorization: Bearer)");
	return 1;
}

static void
peer_creds(struct req *q, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_CONNECTION_FD);
	struct ucred cr;
	socklen_t len = sizeof(cr);

	q->peer_uid = q->peer_pid = -1;
	if (q->intake && ci != NULL && getsockopt(ci->connect_fd, SOL_SOCKET,
	    SO_PEERCRED, &cr, &len) == 0) {
		q->peer_uid = cr.uid;
		q->peer_pid = cr.pid;
	}
}

/* The first call for a request: checks, route, authentication. 0 to go on,
 * else the result of the answer given. */
static int
admit(struct req *q, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, enum MHD_Result *res)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Host");
	const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Origin");
	const char *clen = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Content-Length");
	const char *framing = srv_framing_error(c, version);
	const struct route_def *d;
	unsigned st;
	char why[96] = "";
	int rc;

	/* Before anything else reads a header: a request whose length the
	 * gate and another parser could read differently is not served, and
	 * its connection is not used again (what follows may be smuggled). */
	if (framing != NULL) {
		q->must_close = 1;
		*res = srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    framing);
		return 1;
	}
	if (q->nul_in_url) {
		*res = srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "the URL holds an encoded NUL byte (%00)");
		return 1;
	}
	if (!host_allowed(q, host)) {
		*res = srv_fail(q, c, MHD_HTTP_FORBIDDEN, REJ_BAD_HOST, "the Host "
		    "header does not name this listener");
		return 1;
	}
	if (origin != NULL && (strcmp(method, "POST") == 0 ||
	    strcmp(method, "DELETE") == 0) && !origin_allowed(q, origin)) {
		*res = srv_fail(q, c, MHD_HTTP_FORBIDDEN, REJ_BAD_ORIGIN, "cross-origin "
		    "requests are refused");
		return 1;
	}
	q->route = route_of(method, url, &q->id, &q->item, &q->arg);
	if ((d = route_def(q->route)) == NULL || (q->intake && !d->intake)) {
		*res = srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such endpoint");
		return 1;
	}
	if (route_open(d)) {
		*res = q->route == R_HEALTHZ ? srv_healthz(q, c) :
		    srv_ui_serve(q, c, method, url);
		return 1;
	}
	if ((st = authenticate(q, c, why, sizeof(why))) != 0) {
		*res = srv_fail(q, c, st, st == MHD_HTTP_UNAUTHORIZED ? REJ_UNAUTH :
		    REJ_MAX, st != MHD_HTTP_UNAUTHORIZED ? "database error" :
		    why[0] != '\0' ? why : "a valid token is required "
		    "(Authorization: Bearer)");
		return 1;
	}
	if (!route_admits(d, q->intake, q->who.role)) {
		q->role_refused = 1;
		*res = srv_fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "this token's "
		    "role may not do that");
		return 1;
	}
	if (q->route == R_SUBMIT) {
		unsigned long long n;
		char *end;

		if (clen != NULL) {
			errno = 0;
			n = strtoull(clen, &end, 10);
			if (errno != 0 || *end != '\0' || n > q->s->max_body) {
				*res = srv_fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE,
				    REJ_TOO_LARGE, "the artifact is larger than this "
				    "gate accepts (--max-body)");
				return 1;
			}
		}
		peer_creds(q, c);
		if ((rc = store_upload_begin(q->s->store, q->s->max_body,
		    &q->up)) < 0) {
			fprintf(stderr, "airlock serve: %s\n", al_err_msg());
			*res = srv_fail_write(q, c, rc, "cannot store uploads now");
			return 1;
		}
	}
	return 0;
}

/* The main thread restarts the gate with the rules and policy on disk, if
 * they load (it checks again: they may change in between); if they do not,
 * the answer says why and the gate goes on as it is. */
static enum MHD_Result
reload(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct dynbuf diags, msg;
	enum MHD_Result r;
	size_t i;
	int rc;

	dynbuf_init(&diags, 1 << 16);
	dynbuf_init(&msg, 1 << 16);
	if (srv_config_check(q->s, &diags) == 0) {
		dynbuf_free(&diags);
		dynbuf_free(&msg);
		/* On the record first: no record (the token was revoked
		 * meanwhile, the disk is full), no reload. */
		if ((rc = db_event_add(db, al_now_ms(), q->who.id,
		    "rules.reload", 0, NULL)) < 0)
			return srv_fail_write(q, c, rc, "the reload cannot be "
			    "recorded: nothing was reloaded");
		kill(getpid(), SIGHUP);
		return srv_respond_json(c, MHD_HTTP_ACCEPTED, json_pack("{s:b}",
		    "reloading", 1));
	}
	/* One line: the error, then the loader's diagnostics. */
	if (dynbuf_addf(&msg, "reload refused, the gate goes on with the old "
	    "rules and policy: %s", al_err_msg()) < 0 || (diags.len > 0 &&
	    (dynbuf_adds(&msg, " -- ") < 0 || dynbuf_add(&msg, diags.data,
	    diags.len) < 0)))
		(void)0;          /* what fits is said */
	for (i = 0; i < msg.len; i++)
		if (msg.data[i] == '\n')
			msg.data[i] = ' ';
	fprintf(stderr, "airlock serve: %s\n", dynbuf_str(&msg));
	(void)db_event_add(db, al_now_ms(), q->who.id, "rules.reload.refused",
	    0, dynbuf_str(&msg));
	r = srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, dynbuf_str(&msg));
	dynbuf_free(&diags);
	dynbuf_free(&msg);
	return r;
}

static enum MHD_Result dispatch(struct req *q, struct MHD_Connection *c,
    struct db *db);

enum MHD_Result
srv_on_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_size, void **con_cls)
{
	struct req *q = *con_cls;
	enum MHD_Result res = MHD_NO;
	struct db *db;

	(void)cls;
	if (q == NULL)
		return MHD_NO;
	/* Answered and closed by conn.c (too many query arguments, a
	 * deadline, evicted): what had come already is not served. */
	if (*upload_size == 0 && srv_conn_closed(q))
		return MHD_NO;
	if (q->route == R_NONE && q->body.max == 0) {
		/* The first call: headers only. */
		dynbuf_init(&q->body, SERVE_MAX_JSON);
		if (admit(q, c, url, method, version, &res)) {
			srv_conn_replying(q);
			return res;
		}
		srv_conn_admitted(q);
		return MHD_YES;
	}
	if (*upload_size > 0) {
		srv_conn_body(q, *upload_size);
		if (q->up != NULL && !q->too_large) {
			int rc = store_upload_write(q->up, upload_data,
			    *upload_size);

			if (rc < 0) {
				/* Past the limit (a chunked body tells its size only
				 * by sending it), or the disk is full. libmicrohttpd
				 * cannot answer in the middle of a body: the rest is
				 * read and dropped, up to a bound, and the 413 (or
				 * 507, or 500) comes at its end. The temporary file
				 * goes now: nothing is half there. */
				if (rc != AL_ELIMIT)
					fprintf(stderr, "airlock serve: %s\n",
					    al_err_msg());
				store_upload_abort(q->up);
				q->up = NULL;
				if (rc == AL_ELIMIT)
					q->too_large = 1;
				else
					q->store_rc = rc;
			}
		} else if (q->route == R_TOKEN_CREATE ||
		    q->route == R_PERSON_CREATE || q->route == R_APPROVE ||
		    q->route == R_REJECT || q->route == R_OVERRIDE ||
		    q->route == R_RELEASE) {
			if (dynbuf_add(&q->body, upload_data, *upload_size) < 0)
				q->too_large = 1;
		} else {
			/* Discard what is over the limit, but not forever. */
			q->discarded += *upload_size;
			if (q->discarded > SERVE_MAX_DISCARD)
				return MHD_NO;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	srv_conn_replying(q);
	if ((db = srv_db(q->s)) == NULL)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	/* The token was good when the request began; every write the
	 * endpoint makes checks it again as it commits (db_guard_set), and a
	 * refused one is answered 401 by srv_fail. */
	(void)db_guard_set(db, q->who.id, al_now_ms);
	res = dispatch(q, c, db);
	(void)db_guard_set(db, 0, NULL);
	return res;
}

/* The endpoint of an admitted request whose body has all come. */
static enum MHD_Result
dispatch(struct req *q, struct MHD_Connection *c, struct db *db)
{
	switch (q->route) {
	case R_SUBMIT:
		return api_submit(q, c, db);
	case R_LIST:
		return api_list(q, c, db);
	case R_SHOW:
		return api_show(q, c, db);
	case R_WHOAMI:
		return api_whoami(q, c);
	case R_CONTENT:
		return api_content(q, c, db);
	case R_ITEM_CONTENT:
		return api_item_content(q, c, db);
	case R_EVENTS:
		return api_events(q, c, db);
	case R_EVENTS_ALL:
		return api_events_all(q, c, db);
	case R_CHANGES:
		return api_changes(q, c, db);
	case R_AUDIT_CHECKPOINT:
		return api_audit_checkpoint(q, c, db);
	case R_AUDIT_CHECKPOINTS:
		return api_audit_checkpoints(q, c, db);
	case R_AUDIT_ENTRIES:
		return api_audit_entries(q, c, db);
	case R_AUDIT_KEYS:
		return api_audit_keys(q, c, db);
	case R_PROVENANCE:
		return api_provenance(q, c, db);
	case R_TOKEN_CREATE:
		if (q->too_large)
			return srv_fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
			    "the request body is too large");
		return api_token_create(q, c, db);
	case R_TOKEN_LIST:
		return api_token_list(q, c, db);
	case R_TOKEN_REVOKE:
		return api_token_revoke(q, c, db);
	case R_PERSON_CREATE:
		if (q->too_large)
			return srv_fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
			    "the request body is too large");
		return api_person_create(q, c, db);
	case R_PERSON_LIST:
		return api_person_list(q, c, db);
	case R_PERSON_DISABLE:
		return api_person_disable(q, c, db);
	case R_METRICS:
		return api_metrics(q, c, db);
	case R_APPROVE:
	case R_REJECT:
	case R_OVERRIDE:
		if (q->too_large)
			return srv_fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
			    "the request body is too large");
		return api_decide(q, c, db);
	case R_RELEASE:
		return api_release(q, c, db);
	case R_ATTESTATION:
		return api_attestation(q, c, db);
	case R_RELOAD:
		return reload(q, c, db);
	default:
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such endpoint");
	}
}

void
srv_req_free(struct req *q)
{
	if (q == NULL)
		return;
	/* A waiter's slot goes with its request, however it ended. */
	srv_changes_release(q);
	/* An upload cut short leaves nothing: its file goes, no row came. */
	store_upload_abort(q->up);
	db_principal_clear(&q->who);
	dynbuf_free(&q->body);
	free(q->arg);
	free(q);
}

void
srv_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode why)
{
	struct req *q = *con_cls;

	(void)cls;
	(void)c;
	(void)why;
	if (q == NULL)
		return;
	srv_conn_done(q);
	srv_req_free(q);
	*con_cls = NULL;
}

/* Per-request state, made when libmicrohttpd parses a request line; its
 * connection holds it (conn.c) until srv_on_completed frees it, or frees
 * it itself when the connection closes without that (libmicrohttpd 0.9.75
 * does not complete a request that ran out of its memory: 168 bytes lost
 * each time, issue 13). */
void *
srv_on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct srv_listener *l = cls;
	struct req *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->s = l->s;
	q->listener = l;
	q->intake = l->intake;
	/* libmicrohttpd decodes %00 into the URL and its arguments, where
	 * C strings end: "/v1/tokens/rev-1%00x" would name rev-1. */
	q->nul_in_url = strstr(uri, "%00") != NULL;
	/* What it decodes the review UI must not see as a file's name. */
	q->plain_target = strpbrk(uri, "%?") == NULL;
	srv_conn_request(l, c, q, uri);
	return q;
}

/* The pattern of d with a sample for each hole ({id} 1, {n} 0, {name}
 * "x"): the path route_of must read back as d's route. */
static int
route_sample(const struct route_def *d, struct dynbuf *out)
{
	const char *p = d->path, *h;

	while ((h = strchr(p, '{')) != NULL) {
		const char *e = strchr(h, '}');
		const char *v = strncmp(h, "{id}", 4) == 0 ? "1" :
		    strncmp(h, "{n}", 3) == 0 ? "0" : strncmp(h, "{name}", 6) == 0 ?
		    "x" : NULL;

		if (e == NULL || v == NULL)
			return al_err_set(AL_EINVAL, "route %s: unknown hole in %s",
			    d->name, d->path);
		if (dynbuf_add(out, p, (size_t)(h - p)) < 0 || dynbuf_adds(out, v) < 0)
			return al_err_set(AL_ENOMEM, "out of memory");
		p = e + 1;
	}
	return dynbuf_adds(out, p) < 0 ? al_err_set(AL_ENOMEM, "out of memory") :
	    0;
}

/* Every route once in the table, and route_of reading each pattern back
 * as its route: else the table printed would not be the gate's. */
static int
routes_check(void)
{
	struct dynbuf url;
	size_t i, j, n;
	int rc = 0;

	dynbuf_init(&url, 1024);
	for (i = 1; rc == 0 && i < R_MAX; i++) {
		for (j = n = 0; j < NROUTES; j++)
			n += route_defs[j].route == (enum route)i;
		if (n != 1)
			rc = al_err_set(AL_EINVAL, "route %zu is %zu times in the "
			    "table", i, n);
	}
	for (i = 0; rc == 0 && i < NROUTES; i++) {
		const struct route_def *d = &route_defs[i];
		int64_t id = 0, item = 0;
		char *arg = NULL;
		enum route r;

		dynbuf_reset(&url);
		if ((rc = route_sample(d, &url)) < 0)
			break;
		r = route_of(d->method, dynbuf_str(&url), &id, &item, &arg);
		free(arg);
		if (r != d->route)
			rc = al_err_set(AL_EINVAL, "route %s: %s %s is read as %s",
			    d->name, d->method, dynbuf_str(&url), srv_route_name(r));
	}
	dynbuf_free(&url);
	return rc;
}

int
srv_routes_json(const struct srv *s, json_t **out)
{
	json_t *rows, *roles;
	size_t i;
	int l, r, rc;

	*out = NULL;
	if ((rc = routes_check()) < 0)
		return rc;
	if ((rows = json_array()) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < NROUTES; i++) {
		const struct route_def *d = &route_defs[i];

		for (l = 0; l < 2; l++) {
			int served = l == 0 || d->intake;

			roles = json_array();
			for (r = 0; served && !route_open(d) && r < DB_ROLE_MAX; r++)
				if (route_admits(d, l, (enum db_role)r) &&
				    (d->route != R_RELEASE ||
				    (s->release_roles & ROLE(r))))
					json_array_append_new(roles,
					    json_string(db_role_name((enum db_role)r)));
			if (json_array_append_new(rows, json_pack("{s:s, s:s, s:s, "
			    "s:s, s:b, s:b, s:o}", "name", d->name, "method",
			    d->method, "path", d->path, "listener", l ? "intake" :
			    "review", "served", served, "token", !route_open(d),
			    "roles", roles)) < 0) {
				json_decref(rows);
				return al_err_set(AL_ENOMEM, "out of memory");
			}
		}
	}
	*out = json_pack("{s:o}", "routes", rows);
	return *out ? 0 : al_err_set(AL_ENOMEM, "out of memory");
}
