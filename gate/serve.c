/*
 * serve.c - `airlock serve`; see serve.h and docs/api.md.
 *
 * Start-up order matters: the rules compile and the scan launchers fork
 * while the process is still single-threaded and holds no secrets (no
 * database, no tokens); only then do the database, the store and the HTTP
 * threads start. SIGTERM stops the listeners (libmicrohttpd lets requests
 * in flight finish), then the scan threads after their current artifact;
 * what was mid-scan is scanned again at the next start (the queue is in
 * the database).
 *
 * Trust: requests are hostile until authenticated, and bounded before:
 * header sizes by libmicrohttpd, bodies by --max-body, JSON by
 * SERVE_MAX_JSON. Artifact bytes are never parsed here: they go to the
 * store, and from there to a scan child.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dirs.h"
#include "al_limits.h"
#include "attest.h"
#include "auth.h"
#include "db.h"
#include "dynbuf.h"
#include "err.h"
#include "os.h"
#include "gate.h"
#include "rule.h"
#include "scan_archive.h"
#include "scan_child.h"
#include "scan_engine.h"
#include "serve.h"
#include "store.h"
#include "util.h"

#define SERVE_MAX_JSON (64u << 10)      /* token requests and the like */
#define SERVE_MAX_NAME 255u
#define SERVE_MAX_LABELS 32u
#define SERVE_MAX_LABEL_KEY 64u
#define SERVE_MAX_LABEL_VALUE 1024u
#define SERVE_DEFAULT_BODY (256ULL << 20)
#define SERVE_HEADER_LIMIT (16u << 10)
/* HTTP threads per listener: uploads block on fsync, so more than cores. */
#define SERVE_THREADS 8u
/* Bytes of an oversized chunked body read (and dropped) to be able to answer
 * 413; past this the connection is closed without an answer. */
#define SERVE_MAX_DISCARD (64ULL << 20)

static const char serve_usage[] =
    "usage: airlock serve [options]\n"
    "\n"
    "Runs the gate: the review/API listener on loopback TCP and the intake\n"
    "unix socket for agent sandboxes; scans submissions in sandboxed\n"
    "children as they arrive. Stops cleanly on SIGTERM or SIGINT; SIGHUP\n"
    "(or airlock rules reload) reloads the rules and rescans what is held.\n"
    "\n"
    "options:\n"
    "  --data DIR            data directory made by `airlock init`\n"
    "                        (default: $AIRLOCK_DATA, or ./var)\n"
    "  --listen HOST:PORT    API listener (default 127.0.0.1:8420)\n"
    "  --intake-socket PATH  intake socket (default DIR/intake.sock)\n"
    "  --scanners N          artifacts scanned at once (default: CPUs)\n"
    "  --max-body SIZE       largest artifact accepted (default 256M)\n"
    "  --rules DIR           rule directory (default as airlock scan)\n"
    "  --timeout SECONDS     wall-clock limit per artifact scan (default 120)\n"
    "  -h, --help            this help\n";

/* ---- metrics ------------------------------------------------------------ */

enum reject {
	REJ_UNAUTH, REJ_FORBIDDEN, REJ_TOO_LARGE, REJ_BAD_REQUEST, REJ_BAD_HOST,
	REJ_BAD_ORIGIN, REJ_MAX,
};
static const char *const reject_names[REJ_MAX] = {
	"unauthenticated", "forbidden", "too_large", "bad_request", "bad_host",
	"bad_origin",
};
static const double scan_buckets[] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    5, 10, 30, 60, 120};
#define NBUCKETS (sizeof(scan_buckets) / sizeof(scan_buckets[0]))

/* ---- the server --------------------------------------------------------- */

struct srv {
	char *datadir;
	char *dbpath;
	char *sock_path;
	char host[256];           /* as given to --listen */
	unsigned port;
	uint64_t max_body;
	struct gate_store *store;
	struct rule_set *rs;
	struct scan_engine *engine;
	size_t nscan;
	struct scan_launcher **launchers;
	pthread_t *scanners;
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* a submission arrived, or stop */
	atomic_int stopping;
	struct MHD_Daemon *api, *intake;
	pthread_key_t dbkey;      /* each thread its own connection */
	pthread_mutex_t dbs_lock;
	struct db *dbs[256];      /* to close at the end */
	size_t ndbs;
	atomic_ulong rejects[REJ_MAX];
	atomic_ulong verdicts[AL_VERDICT_MAX];
	atomic_ulong buckets[NBUCKETS + 1];
	atomic_ulong scan_ms_sum;
	atomic_ulong active;      /* scans in flight */
	struct db_policy policy;
	unsigned release_roles;   /* ROLE() mask */
	int64_t hold_expiry;      /* ms; 0: never */
	EVP_PKEY *key;            /* signs release statements */
	char keyid[65];
};

/* What a listener's callbacks are given. */
struct srv_listener {
	struct srv *s;
	int intake;
};

static volatile sig_atomic_t got_signal;
static char **serve_argv;         /* to start again on SIGHUP */


/* This thread's database connection, opened on first use. */
static struct db *
srv_db(struct srv *s)
{
	struct db *db = pthread_getspecific(s->dbkey);

	if (db != NULL)
		return db;
	if (db_open(&db, s->dbpath, 0) < 0)
		return NULL;
	pthread_mutex_lock(&s->dbs_lock);
	if (s->ndbs == sizeof(s->dbs) / sizeof(s->dbs[0])) {
		pthread_mutex_unlock(&s->dbs_lock);
		db_close(db);
		al_err_set(AL_ELIMIT, "too many database connections");
		return NULL;
	}
	s->dbs[s->ndbs++] = db;
	pthread_mutex_unlock(&s->dbs_lock);
	pthread_setspecific(s->dbkey, db);
	return db;
}

/* ---- requests ----------------------------------------------------------- */

enum route {
	R_NONE, R_HEALTHZ, R_METRICS, R_SUBMIT, R_LIST, R_SHOW, R_CONTENT,
	R_EVENTS, R_TOKEN_CREATE, R_TOKEN_LIST, R_TOKEN_REVOKE, R_APPROVE,
	R_REJECT, R_OVERRIDE, R_RELEASE, R_ATTESTATION, R_RELOAD,
};

#define ROLE(r) (1u << (r))
#define ANY_ROLE (ROLE(DB_ROLE_AGENT) | ROLE(DB_ROLE_REVIEWER) | \
    ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN))

/* Who may call what: the table docs/api.md shows. */
static const struct {
	enum route route;
	unsigned roles;
	int intake;               /* served on the intake socket too */
} route_roles[] = {
	{R_METRICS, ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_SUBMIT, ROLE(DB_ROLE_AGENT), 1},
	{R_LIST, ANY_ROLE, 1},
	{R_SHOW, ANY_ROLE, 1},
	/* ci: released content only (checked in do_content). */
	{R_CONTENT, ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_CI) |
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_APPROVE, ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_ADMIN), 0},
	{R_REJECT, ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_ADMIN), 0},
	{R_OVERRIDE, ROLE(DB_ROLE_ADMIN), 0},
	{R_RELOAD, ROLE(DB_ROLE_ADMIN), 0},
	/* Further narrowed by the policy's release roles. */
	{R_RELEASE, ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_CI) |
	    ROLE(DB_ROLE_ADMIN), 0},
	{R_ATTESTATION, ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_CI) |
	    ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN), 0},
	{R_EVENTS, ROLE(DB_ROLE_REVIEWER) | ROLE(DB_ROLE_AUDITOR) |
	    ROLE(DB_ROLE_ADMIN), 0},
	{R_TOKEN_CREATE, ROLE(DB_ROLE_ADMIN), 0},
	{R_TOKEN_LIST, ROLE(DB_ROLE_ADMIN), 0},
	{R_TOKEN_REVOKE, ROLE(DB_ROLE_ADMIN), 0},
};

struct req {
	struct srv *s;
	int intake;               /* arrived on the unix socket */
	enum route route;
	int64_t id;               /* /v1/submissions/ID */
	char *arg;                /* /v1/tokens/NAME */
	struct db_principal who;
	int authed;
	struct store_upload *up;
	int too_large;            /* the body passed its limit */
	uint64_t discarded;
	struct dynbuf body;       /* JSON bodies */
	int64_t peer_uid, peer_pid;
};

static enum MHD_Result
respond(struct MHD_Connection *c, unsigned status, const char *type,
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

static enum MHD_Result
respond_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	enum MHD_Result ok;

	json_decref(j);
	if (text == NULL)
		return MHD_NO;
	ok = respond(c, status, "application/json", text, strlen(text));
	free(text);
	return ok;
}

/* An error answer; the message is the gate's own words, never an echo of
 * a header or a token. */
static enum MHD_Result
fail(struct req *q, struct MHD_Connection *c, unsigned status,
    enum reject why, const char *msg)
{
	if (why < REJ_MAX)
		atomic_fetch_add(&q->s->rejects[why], 1);
	return respond_json(c, status, json_pack("{s:s}", "error", msg));
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

/* Parses a decimal id; 0 when it is not one. */
static int64_t
parse_id(const char *s, size_t n)
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

static enum route
route_of(const char *method, const char *url, int64_t *id, char **arg)
{
	int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
	const char *p;

	if (get && strcmp(url, "/healthz") == 0)
		return R_HEALTHZ;
	if (get && strcmp(url, "/metrics") == 0)
		return R_METRICS;
	if (strcmp(url, "/v1/submissions") == 0)
		return post ? R_SUBMIT : get ? R_LIST : R_NONE;
	if (strcmp(url, "/v1/tokens") == 0)
		return post ? R_TOKEN_CREATE : get ? R_TOKEN_LIST : R_NONE;
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
	*id = parse_id(url + 16, p ? (size_t)(p - url - 16) : strlen(url + 16));
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

/* Authenticates the bearer token: 0, or the status to answer. */
static unsigned
authenticate(struct req *q, struct MHD_Connection *c)
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
	if (q->who.revoked_at != 0 || (q->who.expires_at != 0 &&
	    q->who.expires_at <= now))
		return MHD_HTTP_UNAUTHORIZED;
	return 0;
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

/* ---- answers ------------------------------------------------------------ */

static json_t *
json_time(int64_t ms)
{
	char iso[32];

	if (ms == 0)
		return json_null();
	al_time_iso(ms, iso);
	return json_string(iso);
}

static json_t *
json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
submission_json(const struct db_submission *b)
{
	json_t *asserted = json_object(), *j;
	size_t i;

	for (i = 0; i < b->nlabels; i++)
		json_object_set_new(asserted, b->labels[i].key,
		    json_string(b->labels[i].value));
	j = json_pack("{s:I, s:s, s:o, s:o, s:s, s:I, s:s, s:s, s:o, s:o}",
	    "id", (json_int_t)b->id, "state", al_state_name(b->state),
	    "verdict", json_str_or_null(al_verdict_name(b->verdict)),
	    "worst", json_str_or_null(al_severity_name(b->worst)),
	    "sha256", b->sha256, "size", (json_int_t)b->size,
	    "kind", al_kind_name(b->kind), "name", b->name,
	    "witnessed", json_pack("{s:o, s:o, s:s, s:o, s:o, s:o}",
	    "submitter", json_str_or_null(b->submitter_name),
	    "launched_by", json_str_or_null(b->launched_by), "via", b->via,
	    "peer_uid", b->peer_uid >= 0 ? json_integer(b->peer_uid) :
	    json_null(), "peer_pid", b->peer_pid >= 0 ?
	    json_integer(b->peer_pid) : json_null(),
	    "received_at", json_time(b->received_at)),
	    "asserted", asserted);
	return j;
}

static json_t *
review_json(const struct db_review *r)
{
	return json_pack("{s:s, s:i, s:i, s:b}", "state",
	    al_state_name(r->state), "approvals",
	    r->approvals, "needed", r->needed, "override", r->override);
}

/* The submission, if this caller may see it (an agent: its own; on the
 * intake socket: the caller's own, whatever the role). */
static int
visible(const struct req *q, const struct db_submission *b)
{
	if (q->intake || q->who.role == DB_ROLE_AGENT)
		return b->submitter == q->who.id;
	return 1;
}

static enum MHD_Result
do_show(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_submission b;
	struct db_finding *f = NULL;
	struct db_scan_info si;
	struct db_review rv;
	struct db_item *it = NULL;
	size_t nf = 0, i, nit = 0;
	json_t *j, *arr;
	int rc = db_submission_get(db, q->id, &b);

	if (rc == AL_ENOTFOUND || (rc == 0 && !visible(q, &b))) {
		if (rc == 0)
			db_submission_clear(&b);
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	}
	if (rc < 0 || db_findings_get(db, q->id, &f, &nf) < 0) {
		if (rc == 0)
			db_submission_clear(&b);
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	}
	j = submission_json(&b);
	if (db_scan_latest(db, q->id, &si) == 0) {
		json_object_set_new(j, "scan", json_pack("{s:s, s:s, s:o, s:o}",
		    "ruleset", si.ruleset_digest, "engine", si.engine_version,
		    "started_at", json_time(si.started_at), "finished_at",
		    json_time(si.finished_at)));
		db_scan_info_clear(&si);
	}
	if (db_review_get(db, q->id, &q->s->policy, &rv) == 0) {
		json_object_set_new(j, "review", review_json(&rv));
		db_review_clear(&rv);
	}
	arr = json_array();
	for (i = 0; i < nf; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:I, "
		    "s:s, s:s}", "rule", f[i].rule, "severity",
		    al_severity_name(f[i].severity),
		    "path", f[i].path, "line", (json_int_t)f[i].line, "column",
		    (json_int_t)f[i].column, "excerpt", f[i].excerpt,
		    "fingerprint", f[i].fingerprint));
	json_object_set_new(j, "findings", arr);
	db_findings_free(f, nf);
	if (db_items_get(db, q->id, &it, &nit) == 0) {
		arr = json_array();
		for (i = 0; i < nit; i++)
			json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:o, "
			    "s:s}", "path", it[i].path, "mode", (json_int_t)it[i].mode,
			    "size", (json_int_t)it[i].size, "sha256",
			    it[i].sha256[0] ? json_string(it[i].sha256) : json_null(),
			    "type", it[i].type));
		json_object_set_new(j, "items", arr);
		db_items_free(it, nit);
	}
	db_submission_clear(&b);
	return respond_json(c, MHD_HTTP_OK, j);
}

static enum MHD_Result
do_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	const char *state = MHD_lookup_connection_value(c,
	    MHD_GET_ARGUMENT_KIND, "state");
	const char *lim = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "limit");
	struct db_submission *v = NULL;
	size_t n = 0, i, limit = 100;
	json_t *arr;
	int want = state == NULL ? -1 : al_state_parse(state);

	if (state != NULL && want < 0)
		return fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "unknown state");
	if (lim != NULL && ((limit = (size_t)parse_id(lim, strlen(lim))) == 0 ||
	    limit > 1000))
		return fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "limit is 1 to 1000");
	if (db_submission_list(db, want, (q->intake ||
	    q->who.role == DB_ROLE_AGENT) ? q->who.id : 0, limit, &v, &n) < 0)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, submission_json(&v[i]));
	db_submission_list_free(v, n);
	return respond_json(c, MHD_HTTP_OK, json_pack("{s:o}", "submissions",
	    arr));
}

static enum MHD_Result
do_content(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_submission b;
	struct MHD_Response *r;
	struct stat st;
	enum MHD_Result ok;
	int fd = -1;

	if (db_submission_get(db, q->id, &b) < 0)
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	if (q->who.role == DB_ROLE_CI && b.state != AL_STATE_RELEASED) {
		db_submission_clear(&b);
		return fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "only released "
		    "bytes can be pulled");
	}
	if (store_blob_open(q->s->store, b.sha256, &fd) < 0 ||
	    fstat(fd, &st) < 0 || (uint64_t)st.st_size != (uint64_t)b.size ||
	    db_event_add(db, al_now_ms(), q->who.id, "view", q->id,
	    "content") < 0) {
		if (fd >= 0)
			close(fd);
		db_submission_clear(&b);
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "the stored bytes cannot be read");
	}
	db_submission_clear(&b);
	r = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (r == NULL) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/octet-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result
do_events(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_event *v = NULL;
	size_t n = 0, i;
	json_t *arr;

	struct db_submission b;

	if (db_submission_get(db, q->id, &b) < 0)
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	db_submission_clear(&b);
	if (db_event_list(db, q->id, &v, &n) < 0)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:I, s:o, s:o, s:s, s:o}",
		    "id", (json_int_t)v[i].id, "at", json_time(v[i].at),
		    "actor", json_str_or_null(v[i].actor_name), "action",
		    v[i].action, "detail", json_str_or_null(v[i].detail)));
	db_event_list_free(v, n);
	return respond_json(c, MHD_HTTP_OK, json_pack("{s:o}", "events", arr));
}

static int
name_ok(const char *s, size_t max)
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

static enum MHD_Result
do_token_create(struct req *q, struct MHD_Connection *c, struct db *db)
{
	json_error_t jerr;
	json_t *in = json_loadb(q->body.data ? q->body.data : "", q->body.len,
	    JSON_REJECT_DUPLICATES, &jerr), *out;
	const char *role = NULL, *name = NULL, *ttl = NULL, *obo = NULL;
	char token[GATE_TOKEN_MAX], hash[65];
	int64_t now = al_now_ms(), ms = 0;
	int r, rc;

	if (in == NULL || json_unpack_ex(in, &jerr, JSON_STRICT,
	    "{s:s, s:s, s?s, s?s}", "role", &role, "name", &name, "ttl", &ttl,
	    "on_behalf_of", &obo) < 0) {
		json_decref(in);
		return fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, "expected "
		    "{\"role\", \"name\", \"ttl\"?, \"on_behalf_of\"?}");
	}
	r = db_role_parse(role);
	if (r < 0 || !name_ok(name, 64) || (obo && !name_ok(obo, 128)) ||
	    (ttl && gate_parse_duration(ttl, &ms) < 0) ||
	    ((r == DB_ROLE_AGENT) != (obo != NULL))) {
		json_decref(in);
		return fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, "a role "
		    "(agent, reviewer, ci, auditor, admin), a name of letters, "
		    "digits and . _ - @, a ttl like 8h; on_behalf_of names the "
		    "person who launched an agent, and is for agents only (and "
		    "required for them)");
	}
	if (gate_token_new(token) < 0) {
		json_decref(in);
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "no randomness");
	}
	gate_token_hash(token, strlen(token), hash);
	rc = db_principal_create(db, name, (enum db_role)r, hash, obo,
	    ms ? now + ms : 0, now, q->who.id, NULL);
	if (rc < 0) {
		json_decref(in);
		return fail(q, c, rc == AL_EEXIST ? MHD_HTTP_CONFLICT :
		    MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX, rc == AL_EEXIST ?
		    "that name is taken" : "database error");
	}
	out = json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", name, "role", role,
	    "token", token, "expires_at", json_time(ms ? now + ms : 0),
	    "on_behalf_of", json_str_or_null(obo));
	json_decref(in);         /* name and role live in it */
	OPENSSL_cleanse(token, sizeof(token));
	return respond_json(c, MHD_HTTP_CREATED, out);
}

static enum MHD_Result
do_token_list(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_principal *v = NULL;
	size_t n = 0, i;
	json_t *arr;

	if (db_principal_list(db, &v, &n) < 0)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:o, "
		    "s:o}", "name", v[i].name, "role", db_role_name(v[i].role),
		    "on_behalf_of", json_str_or_null(v[i].on_behalf_of),
		    "created_at", json_time(v[i].created_at), "expires_at",
		    json_time(v[i].expires_at), "revoked_at",
		    json_time(v[i].revoked_at)));
	db_principal_list_free(v, n);
	return respond_json(c, MHD_HTTP_OK, json_pack("{s:o}", "tokens", arr));
}

static enum MHD_Result
do_token_revoke(struct req *q, struct MHD_Connection *c, struct db *db)
{
	int rc = db_principal_revoke(db, q->arg, al_now_ms(), q->who.id);

	if (rc == AL_ENOTFOUND)
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such token");
	if (rc == AL_EINVAL)
		return fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, "already revoked");
	if (rc < 0)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	return respond_json(c, MHD_HTTP_OK, json_pack("{s:s, s:b}", "name",
	    q->arg, "revoked", 1));
}

static enum MHD_Result
do_metrics(struct req *q, struct MHD_Connection *c, struct db *db)
{
	int64_t counts[AL_STATE_MAX];
	size_t i;
	struct dynbuf t;
	enum MHD_Result ok;
	unsigned long cum = 0;

	if (db_submission_counts(db, counts) < 0)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	dynbuf_init(&t, 1 << 20);
	(void)dynbuf_adds(&t, "# HELP airlock_submissions Submissions by "
	    "state.\n# TYPE airlock_submissions gauge\n");
	for (i = 0; i < AL_STATE_MAX; i++)
		(void)dynbuf_addf(&t, "airlock_submissions{state=\"%s\"} %" PRId64
		    "\n", al_state_name((enum al_state)i), counts[i]);
	(void)dynbuf_addf(&t, "# HELP airlock_scan_queue_depth Submissions "
	    "waiting for a scan.\n# TYPE airlock_scan_queue_depth gauge\n"
	    "airlock_scan_queue_depth %" PRId64 "\n", counts[AL_STATE_RECEIVED]);
	(void)dynbuf_adds(&t, "# HELP airlock_scans_total Scans finished, by "
	    "verdict.\n# TYPE airlock_scans_total counter\n");
	for (i = 0; i < AL_VERDICT_MAX; i++)
		(void)dynbuf_addf(&t, "airlock_scans_total{verdict=\"%s\"} %lu\n",
		    al_verdict_name((enum al_verdict)i),
		    atomic_load(&q->s->verdicts[i]));
	(void)dynbuf_adds(&t, "# HELP airlock_scan_seconds Wall time of a "
	    "scan.\n# TYPE airlock_scan_seconds histogram\n");
	for (i = 0; i <= NBUCKETS; i++) {
		cum += atomic_load(&q->s->buckets[i]);
		if (i < NBUCKETS)
			(void)dynbuf_addf(&t, "airlock_scan_seconds_bucket{le=\"%g\"} "
			    "%lu\n", scan_buckets[i], cum);
		else
			(void)dynbuf_addf(&t, "airlock_scan_seconds_bucket{le=\"+Inf\"}"
			    " %lu\n", cum);
	}
	(void)dynbuf_addf(&t, "airlock_scan_seconds_sum %.3f\n"
	    "airlock_scan_seconds_count %lu\n",
	    (double)atomic_load(&q->s->scan_ms_sum) / 1000.0, cum);
	(void)dynbuf_adds(&t, "# HELP airlock_intake_rejections_total Requests "
	    "refused, by reason.\n# TYPE airlock_intake_rejections_total "
	    "counter\n");
	for (i = 0; i < REJ_MAX; i++)
		(void)dynbuf_addf(&t, "airlock_intake_rejections_total{reason="
		    "\"%s\"} %lu\n", reject_names[i],
		    atomic_load(&q->s->rejects[i]));
	ok = respond(c, MHD_HTTP_OK, "text/plain; version=0.0.4",
	    t.data ? t.data : "", t.len);
	dynbuf_free(&t);
	return ok;
}

/* ---- review and release ------------------------------------------------ */

/* approve, reject, override: a JSON body, a decision, the standing. */
static enum MHD_Result
do_decide(struct req *q, struct MHD_Connection *c, struct db *db)
{
	json_error_t jerr;
	json_t *in = json_loadb(q->body.data ? q->body.data : "", q->body.len,
	    JSON_REJECT_DUPLICATES, &jerr);
	const char *sha = NULL, *rules = NULL, *text = NULL;
	struct db_review r;
	int rc, bad;

	memset(&r, 0, sizeof(r));
	if (q->route == R_APPROVE)
		bad = in == NULL || json_unpack_ex(in, &jerr, JSON_STRICT,
		    "{s:s, s:s, s?s}", "sha256", &sha, "ruleset", &rules,
		    "comment", &text) < 0;
	else
		bad = in == NULL || json_unpack_ex(in, &jerr, JSON_STRICT, "{s:s}",
		    q->route == R_REJECT ? "comment" : "reason", &text) < 0 ||
		    text[0] == '\0';
	if (!bad && text != NULL && strlen(text) > 4096)
		bad = 1;
	if (bad) {
		json_decref(in);
		return fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    q->route == R_APPROVE ? "expected {\"sha256\", \"ruleset\", "
		    "\"comment\"?}: the bytes and the rule set you looked at" :
		    q->route == R_REJECT ? "expected {\"comment\"}: a rejection "
		    "says why" : "expected {\"reason\"}: an override says why");
	}
	if (q->route == R_APPROVE)
		rc = db_approve(db, q->id, q->who.id, sha, rules, text,
		    &q->s->policy, al_now_ms(), &r);
	else if (q->route == R_REJECT)
		rc = db_reject(db, q->id, q->who.id, text, al_now_ms());
	else
		rc = db_override(db, q->id, q->who.id, text, &q->s->policy,
		    al_now_ms(), &r);
	json_decref(in);
	if (rc == 0 && q->route == R_REJECT)
		rc = db_review_get(db, q->id, &q->s->policy, &r);
	if (rc < 0) {
		unsigned st = rc == AL_ENOTFOUND ? MHD_HTTP_NOT_FOUND :
		    rc == AL_EDENIED ? MHD_HTTP_FORBIDDEN : rc == AL_EEXIST ?
		    MHD_HTTP_CONFLICT : MHD_HTTP_INTERNAL_SERVER_ERROR;

		db_review_clear(&r);
		/* The refusal says why (the gate's own words). */
		return fail(q, c, st, st == MHD_HTTP_FORBIDDEN ? REJ_FORBIDDEN :
		    REJ_MAX, st == MHD_HTTP_INTERNAL_SERVER_ERROR ?
		    "database error" : al_err_msg());
	}
	{
		json_t *j = review_json(&r);

		db_review_clear(&r);
		return respond_json(c, MHD_HTTP_OK, j);
	}
}

/* SHA-256 of the stored bytes, read again now. */
static int
rehash(struct srv *s, const char *sha, char out[65])
{
	int fd = -1, rc;

	out[0] = '\0';
	if ((rc = store_blob_open(s->store, sha, &fd)) < 0)
		return rc;
	rc = al_sha256_fd(fd, out);
	close(fd);
	return rc;
}

/* The in-toto statement of a release. */
static json_t *
statement(struct srv *s, struct db *db, const struct req *q,
    const struct db_submission *b, int64_t now)
{
	struct db_scan_info si;
	struct db_finding *f = NULL;
	struct db_approval *a = NULL;
	size_t nf = 0, na = 0, i, k;
	json_t *asserted = json_object(), *counts = json_object(), *appr;
	json_t *st;

	memset(&si, 0, sizeof(si));
	if (db_scan_latest(db, b->id, &si) < 0 ||
	    db_findings_get(db, b->id, &f, &nf) < 0 ||
	    db_approvals_get(db, b->id, &a, &na) < 0) {
		json_decref(asserted);
		json_decref(counts);
		db_scan_info_clear(&si);
		db_findings_free(f, nf);
		return NULL;
	}
	for (i = 0; i < b->nlabels; i++)
		json_object_set_new(asserted, b->labels[i].key,
		    json_string(b->labels[i].value));
	for (k = 0; k < AL_SEV_MAX; k++) {
		json_int_t n = 0;

		for (i = 0; i < nf; i++)
			n += f[i].severity == (enum al_severity)k;
		json_object_set_new(counts, al_severity_name((enum al_severity)k),
		    json_integer(n));
	}
	appr = json_array();
	for (i = 0; i < na; i++)
		json_array_append_new(appr, json_pack("{s:s, s:o, s:s, s:s}",
		    "reviewer", a[i].reviewer, "at", json_time(a[i].at), "sha256",
		    a[i].sha256, "ruleset", a[i].ruleset_digest));
	st = json_pack("{s:s, s:[{s:s, s:{s:s}}], s:s, s:{s:o, s:o, s:{s:o}, "
	    "s:o, s:o, s:{s:s, s:s, s:s, s:o}, s:o, s:o, s:o, s:s}}",
	    "_type", ATTEST_STATEMENT_TYPE,
	    "subject", "name", b->name, "digest", "sha256", b->sha256,
	    "predicateType", ATTEST_PREDICATE_TYPE,
	    "predicate",
	    "submitter", json_str_or_null(b->submitter_name),
	    "launched_by", json_str_or_null(b->launched_by),
	    "agent_asserted", "labels", asserted,
	    "received_at", json_time(b->received_at),
	    "kind", json_string(al_kind_name(b->kind)),
	    "scan", "ruleset", si.ruleset_digest ? si.ruleset_digest : "",
	    "engine", si.engine_version ? si.engine_version : "",
	    "verdict", b->verdict != AL_VERDICT_NONE ?
	    al_verdict_name(b->verdict) : "", "findings", counts,
	    "approvals", appr,
	    "released_at", json_time(now),
	    "released_by", json_string(q->who.name),
	    "gate_key", s->keyid);
	{
		/* An unscannable verdict released on an admin's word says so. */
		char *admin = NULL, *reason = NULL;
		int64_t oat = 0;

		if (st != NULL && db_override_get(db, b->id, &admin, &reason,
		    &oat) == 0)
			json_object_set_new(json_object_get(st, "predicate"),
			    "override", json_pack("{s:s, s:s, s:o}", "admin", admin,
			    "reason", reason, "at", json_time(oat)));
		free(admin);
		free(reason);
	}
	db_scan_info_clear(&si);
	db_findings_free(f, nf);
	db_approvals_free(a, na);
	return st;
}

static enum MHD_Result
do_release(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv *s = q->s;
	struct db_submission b;
	char again[65], *env = NULL;
	int64_t now = al_now_ms();
	json_t *st;
	enum MHD_Result ok;
	int rc;

	if (!(s->release_roles & ROLE(q->who.role)))
		return fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "the policy "
		    "does not let this role release");
	if (db_submission_get(db, q->id, &b) < 0)
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	if (b.state != AL_STATE_APPROVED) {
		char msg[128];

		snprintf(msg, sizeof(msg), "submission %" PRId64 " is %s: only "
		    "approved submissions are released", b.id,
		    al_state_name(b.state));
		db_submission_clear(&b);
		return fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, msg);
	}
	/* Exactly the approved bytes, read again now. */
	if (rehash(s, b.sha256, again) < 0 || strcmp(again, b.sha256) != 0) {
		(void)db_event_add(db, now, q->who.id, "release.refused", b.id,
		    "the stored bytes no longer match their sha256");
		db_submission_clear(&b);
		return fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, "the stored bytes do "
		    "not match the approved sha256: nothing was released");
	}
	st = statement(s, db, q, &b, now);
	rc = st == NULL ? AL_ENOMEM : attest_sign(s->key, st, &env);
	json_decref(st);
	if (rc == 0)
		rc = db_release(db, b.id, q->who.id, env, now);
	db_submission_clear(&b);
	if (rc < 0) {
		free(env);
		return fail(q, c, rc == AL_EDENIED ? MHD_HTTP_CONFLICT :
		    MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX, rc == AL_EDENIED ?
		    "the submission is no longer approved" : "cannot release");
	}
	ok = respond(c, MHD_HTTP_OK, "application/json", env, strlen(env));
	free(env);
	return ok;
}

static enum MHD_Result
do_attestation(struct req *q, struct MHD_Connection *c, struct db *db)
{
	char *env = NULL;
	int64_t at = 0;
	enum MHD_Result ok;

	if (db_release_get(db, q->id, &env, &at) < 0)
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "not released");
	ok = respond(c, MHD_HTTP_OK, "application/json", env, strlen(env));
	free(env);
	return ok;
}

/*
 * The review policy: DATA/policy, lines "key = value", # comments.
 *   approvals.clean = 1        approvals.flagged = 1 (worst at most medium)
 *   approvals.high = 2         approvals.unscannable = 2 (and an override)
 *   hold_expiry = 7d | never   release_roles = ci, reviewer, admin
 */
static int
policy_load(struct srv *s)
{
	struct dynbuf p;
	char line[512];
	FILE *f;
	int lineno = 0, rc = 0;

	s->policy.clean = 1;
	s->policy.flagged = 1;
	s->policy.high = 2;
	s->policy.unscannable = 2;
	s->hold_expiry = 7LL * 86400000;
	s->release_roles = ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_ADMIN);
	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "%s/policy", s->datadir) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	if ((f = fopen(dynbuf_str(&p), "re")) == NULL) {
		dynbuf_free(&p);
		return 0;             /* the defaults */
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *k = line, *v, *e;
		int *slot = NULL;

		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		while (*k == ' ' || *k == '\t')
			k++;
		if (*k == '\0')
			continue;
		if ((v = strchr(k, '=')) == NULL) {
			rc = al_err_set(AL_EINVAL, "%s:%d: expected key = value",
			    dynbuf_str(&p), lineno);
			break;
		}
		for (e = v; e > k && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = '\0';
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v + strlen(v); e > v && (e[-1] == ' ' ||
		    e[-1] == '\t'); e--)
			;
		*e = '\0';
		if (strcmp(k, "approvals.clean") == 0)
			slot = &s->policy.clean;
		else if (strcmp(k, "approvals.flagged") == 0)
			slot = &s->policy.flagged;
		else if (strcmp(k, "approvals.high") == 0)
			slot = &s->policy.high;
		else if (strcmp(k, "approvals.unscannable") == 0)
			slot = &s->policy.unscannable;
		if (slot != NULL) {
			size_t n;

			if (al_parse_size(v, &n) != 0 || n < 1 || n > 16)
				rc = al_err_set(AL_EINVAL, "%s:%d: %s takes 1 to 16",
				    dynbuf_str(&p), lineno, k);
			else
				*slot = (int)n;
		} else if (strcmp(k, "hold_expiry") == 0) {
			if (strcmp(v, "never") == 0)
				s->hold_expiry = 0;
			else if (gate_parse_duration(v, &s->hold_expiry) < 0)
				rc = al_err_set(AL_EINVAL, "%s:%d: hold_expiry: %s",
				    dynbuf_str(&p), lineno, al_err_msg());
		} else if (strcmp(k, "release_roles") == 0) {
			char *tok = v, *comma;

			s->release_roles = 0;
			for (; rc == 0 && tok != NULL; tok = comma ? comma + 1 :
			    NULL) {
				int r;

				if ((comma = strchr(tok, ',')) != NULL)
					*comma = '\0';
				while (*tok == ' ')
					tok++;
				for (e = tok + strlen(tok); e > tok && e[-1] == ' '; e--)
					;
				*e = '\0';
				r = db_role_parse(tok);
				if (r < 0 || r == DB_ROLE_AGENT || r == DB_ROLE_AUDITOR)
					rc = al_err_set(AL_EINVAL, "%s:%d: release_roles "
					    "are among ci, reviewer, admin", dynbuf_str(&p),
					    lineno);
				else
					s->release_roles |= ROLE(r);
			}
		} else {
			rc = al_err_set(AL_EINVAL, "%s:%d: unknown key %s",
			    dynbuf_str(&p), lineno, k);
		}
	}
	fclose(f);
	dynbuf_free(&p);
	return rc;
}

/* ---- intake ------------------------------------------------------------- */

struct label_scan {
	struct db_label *v;
	size_t n;
	int bad;
};

static enum MHD_Result
collect_label(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct label_scan *ls = cls;
	const char *eq;
	size_t klen;

	(void)kind;
	if (strcmp(key, "label") != 0)
		return MHD_YES;
	if (value == NULL || (eq = strchr(value, '=')) == NULL ||
	    ls->n == SERVE_MAX_LABELS) {
		ls->bad = 1;
		return MHD_NO;
	}
	klen = (size_t)(eq - value);
	if (klen == 0 || klen > SERVE_MAX_LABEL_KEY ||
	    strlen(eq + 1) > SERVE_MAX_LABEL_VALUE) {
		ls->bad = 1;
		return MHD_NO;
	}
	ls->v[ls->n].key = strndup(value, klen);
	ls->v[ls->n].value = strdup(eq + 1);
	if (ls->v[ls->n].key == NULL || ls->v[ls->n].value == NULL ||
	    !name_ok(ls->v[ls->n].key, SERVE_MAX_LABEL_KEY)) {
		free(ls->v[ls->n].key);
		free(ls->v[ls->n].value);
		ls->bad = 1;
		return MHD_NO;
	}
	ls->n++;
	return MHD_YES;
}

/* The body has all arrived: store it, record it, answer. */
static enum MHD_Result
do_submit(struct req *q, struct MHD_Connection *c, struct db *db)
{
	const char *kind = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "kind");
	const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "name");
	struct db_label labels[SERVE_MAX_LABELS];
	struct label_scan ls = {labels, 0, 0};
	struct db_submission b;
	uint64_t size = 0;
	int64_t id = 0, now;
	enum MHD_Result ok;
	size_t i;
	int rc, asked;

	if (q->too_large)
		return fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
		    "the artifact is larger than this gate accepts (--max-body)");
	if (kind == NULL)
		kind = "auto";
	if (name == NULL)
		name = "artifact";
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_label, &ls);
	asked = al_kind_parse(kind);
	if (!al_kind_submittable(asked) || strlen(name) == 0 ||
	    strlen(name) > SERVE_MAX_NAME || ls.bad) {
		int big = ls.bad && ls.n == SERVE_MAX_LABELS;

		for (i = 0; i < ls.n; i++) {
			free(labels[i].key);
			free(labels[i].value);
		}
		return fail(q, c, big ? MHD_HTTP_CONTENT_TOO_LARGE :
		    MHD_HTTP_BAD_REQUEST, big ? REJ_TOO_LARGE : REJ_BAD_REQUEST,
		    !al_kind_submittable(asked) ? "unknown kind (auto, file, "
		    "archive, patch, mbox, bundle)" : ls.bad ? "labels are "
		    "KEY=VALUE, at most 32, keys of letters, digits and . _ - @ "
		    "(64 bytes), values up to 1024 bytes" : "a name is 1 to 255 "
		    "bytes");
	}
	memset(&b, 0, sizeof(b));
	rc = store_upload_commit(q->up, b.sha256, &size);
	q->up = NULL;
	if (rc == 0) {
		now = al_now_ms();
		b.size = (int64_t)size;
		b.kind = (enum al_kind)asked;
		b.name = (char *)(uintptr_t)name;
		b.submitter = q->who.id;
		b.launched_by = q->who.on_behalf_of;
		b.peer_uid = q->peer_uid;
		b.peer_pid = q->peer_pid;
		b.via = q->intake ? "socket" : "tcp";
		b.labels = labels;
		b.nlabels = ls.n;
		rc = db_submission_create(db, &b, now, &id);
	}
	for (i = 0; i < ls.n; i++) {
		free(labels[i].key);
		free(labels[i].value);
	}
	if (rc < 0)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "the artifact could not be stored");
	pthread_mutex_lock(&q->s->lock);
	pthread_cond_signal(&q->s->wake);
	pthread_mutex_unlock(&q->s->lock);
	ok = respond_json(c, MHD_HTTP_CREATED, json_pack("{s:I, s:s, s:I, s:s}",
	    "id", (json_int_t)id, "sha256", b.sha256, "size", (json_int_t)size,
	    "state", al_state_name(AL_STATE_RECEIVED)));
	return ok;
}

/* The first call for a request: checks, route, authentication. 0 to go on,
 * else the result of the answer given. */
static int
admit(struct req *q, struct MHD_Connection *c, const char *url,
    const char *method, enum MHD_Result *res)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Host");
	const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Origin");
	const char *clen = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Content-Length");
	unsigned st;
	size_t i;

	if (!host_allowed(q, host)) {
		*res = fail(q, c, MHD_HTTP_FORBIDDEN, REJ_BAD_HOST, "the Host "
		    "header does not name this listener");
		return 1;
	}
	if (origin != NULL && (strcmp(method, "POST") == 0 ||
	    strcmp(method, "DELETE") == 0) && !origin_allowed(q, origin)) {
		*res = fail(q, c, MHD_HTTP_FORBIDDEN, REJ_BAD_ORIGIN, "cross-origin "
		    "requests are refused");
		return 1;
	}
	q->route = route_of(method, url, &q->id, &q->arg);
	if (q->route == R_HEALTHZ && !q->intake) {
		*res = respond_json(c, MHD_HTTP_OK, json_pack("{s:s, s:s, s:i}",
		    "status", "ok", "version", AIRLOCK_VERSION, "schema",
		    db_schema_latest()));
		return 1;
	}
	for (i = 0; i < sizeof(route_roles) / sizeof(route_roles[0]); i++)
		if (route_roles[i].route == q->route)
			break;
	if (i == sizeof(route_roles) / sizeof(route_roles[0]) ||
	    (q->intake && !route_roles[i].intake)) {
		*res = fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such endpoint");
		return 1;
	}
	if ((st = authenticate(q, c)) != 0) {
		*res = fail(q, c, st, st == MHD_HTTP_UNAUTHORIZED ? REJ_UNAUTH :
		    REJ_MAX, st == MHD_HTTP_UNAUTHORIZED ? "a valid token is "
		    "required (Authorization: Bearer)" : "database error");
		return 1;
	}
	/* On the intake socket, submitting is what anyone may do, and only
	 * their own submissions are shown. */
	if (!(route_roles[i].roles & ROLE(q->who.role)) &&
	    !(q->intake && q->route != R_SUBMIT)) {
		*res = fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "this token's "
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
				*res = fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE,
				    REJ_TOO_LARGE, "the artifact is larger than this "
				    "gate accepts (--max-body)");
				return 1;
			}
		}
		peer_creds(q, c);
		if (store_upload_begin(q->s->store, q->s->max_body, &q->up) < 0) {
			*res = fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
			    "cannot store uploads now");
			return 1;
		}
	}
	return 0;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_size, void **con_cls)
{
	struct req *q = *con_cls;
	enum MHD_Result res = MHD_NO;
	struct db *db;

	(void)cls;
	(void)version;
	if (q == NULL)
		return MHD_NO;
	if (q->route == R_NONE && q->body.max == 0) {
		/* The first call: headers only. */
		dynbuf_init(&q->body, SERVE_MAX_JSON);
		if (admit(q, c, url, method, &res))
			return res;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (q->up != NULL && !q->too_large) {
			if (store_upload_write(q->up, upload_data, *upload_size) < 0) {
				/* Past the limit (a chunked body tells its size only
				 * by sending it). libmicrohttpd cannot answer in the
				 * middle of a body: the rest is read and dropped, up
				 * to a bound, and the 413 comes at its end. */
				store_upload_abort(q->up);
				q->up = NULL;
				q->too_large = 1;
			}
		} else if (q->route == R_TOKEN_CREATE || q->route == R_APPROVE ||
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
	if ((db = srv_db(q->s)) == NULL)
		return fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	switch (q->route) {
	case R_SUBMIT:
		return do_submit(q, c, db);
	case R_LIST:
		return do_list(q, c, db);
	case R_SHOW:
		return do_show(q, c, db);
	case R_CONTENT:
		return do_content(q, c, db);
	case R_EVENTS:
		return do_events(q, c, db);
	case R_TOKEN_CREATE:
		if (q->too_large)
			return fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
			    "the request body is too large");
		return do_token_create(q, c, db);
	case R_TOKEN_LIST:
		return do_token_list(q, c, db);
	case R_TOKEN_REVOKE:
		return do_token_revoke(q, c, db);
	case R_METRICS:
		return do_metrics(q, c, db);
	case R_APPROVE:
	case R_REJECT:
	case R_OVERRIDE:
		if (q->too_large)
			return fail(q, c, MHD_HTTP_CONTENT_TOO_LARGE, REJ_TOO_LARGE,
			    "the request body is too large");
		return do_decide(q, c, db);
	case R_RELEASE:
		return do_release(q, c, db);
	case R_ATTESTATION:
		return do_attestation(q, c, db);
	case R_RELOAD:
		/* The main thread restarts the gate with the rules on disk. */
		(void)db_event_add(db, al_now_ms(), q->who.id, "rules.reload", 0,
		    NULL);
		kill(getpid(), SIGHUP);
		return respond_json(c, MHD_HTTP_ACCEPTED, json_pack("{s:b}",
		    "reloading", 1));
	default:
		return fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such endpoint");
	}
}

static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode why)
{
	struct req *q = *con_cls;

	(void)cls;
	(void)c;
	(void)why;
	if (q == NULL)
		return;
	/* An upload cut short leaves nothing: its file goes, no row came. */
	store_upload_abort(q->up);
	db_principal_clear(&q->who);
	dynbuf_free(&q->body);
	free(q->arg);
	free(q);
	*con_cls = NULL;
}

/* Per-request state, made when libmicrohttpd parses a request line. */
static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct srv_listener *l = cls;
	struct req *q = calloc(1, sizeof(*q));

	(void)uri;
	(void)c;
	if (q == NULL)
		return NULL;
	q->s = l->s;
	q->intake = l->intake;
	return q;
}

/* ---- scanning ----------------------------------------------------------- */

struct scan_slot {
	struct srv *s;
	struct scan_launcher *l;
};

/* Scans one claimed submission and records the outcome. */
static int
scan_one(struct srv *s, struct scan_launcher *l, struct db *db,
    const struct db_scan_job *job)
{
	struct finding_list fl = {0};
	struct scan_item_list items = {0};
	struct db_finding *df = NULL;
	struct db_item *di = NULL;
	uint64_t bytes = 0;
	enum al_verdict verdict = AL_VERDICT_CLEAN;
	enum al_severity worst = AL_SEV_NONE;
	enum al_kind kind = job->kind;
	int fd = -1, rc;
	char why[300] = "";
	double t0 = al_mono_now(), secs;
	size_t i, b;

	if (!al_kind_submittable(kind))
		kind = AL_KIND_AUTO;
	rc = store_blob_open(s->store, job->sha256, &fd);
	if (rc < 0) {
		snprintf(why, sizeof(why), "the stored bytes cannot be read: %s",
		    al_err_msg());
		rc = finding_add_builtin(&fl, AL_RULE_UNSCANNABLE, job->name, why);
	} else {
		struct scan_req r = {fd, job->name, job->name, &fl, &bytes, NULL,
		    kind, &items};

		rc = scan_launcher_scan(l, &r);
		close(fd);
		if (rc == AL_EIO) {
			/* The launcher is gone: nothing more can be scanned here.
			 * The submission stays "scanning" and is taken again at the
			 * next start; the service stops so that it is restarted. */
			if (!s->stopping) {
				fprintf(stderr, "airlock serve: %s; stopping\n",
				    al_err_msg());
				kill(getpid(), SIGTERM);
			}
			finding_list_free(&fl);
			scan_item_list_free(&items);
			return rc;
		}
	}
	if (rc < 0) {
		finding_list_free(&fl);
		scan_item_list_free(&items);
		return rc;
	}
	finding_list_sort(&fl);
	if (fl.n > 0 && (df = calloc(fl.n, sizeof(*df))) == NULL) {
		finding_list_free(&fl);
		scan_item_list_free(&items);
		return AL_ENOMEM;
	}
	for (i = 0; i < fl.n; i++) {
		const struct finding *f = &fl.v[i];

		df[i].rule = (char *)(uintptr_t)f->rule->id;
		df[i].severity = f->severity;
		df[i].path = f->path;
		df[i].line = (int64_t)f->line;
		df[i].column = (int64_t)f->column;
		df[i].excerpt = f->excerpt ? f->excerpt : "";
		df[i].fingerprint = (char *)(uintptr_t)f->fingerprint;
		if (f->severity > worst)
			worst = f->severity;
		if (strcmp(f->rule->id, AL_RULE_UNSCANNABLE) == 0)
			verdict = AL_VERDICT_UNSCANNABLE;
		else if (f->severity >= AL_SEV_MEDIUM &&
		    verdict == AL_VERDICT_CLEAN)
			verdict = AL_VERDICT_FLAGGED;
	}
	if (items.n > 0 && (di = calloc(items.n, sizeof(*di))) == NULL) {
		free(df);
		finding_list_free(&fl);
		scan_item_list_free(&items);
		return AL_ENOMEM;
	}
	for (i = 0; i < items.n; i++) {
		di[i].path = items.v[i].path;
		di[i].mode = items.v[i].mode;
		di[i].size = (int64_t)items.v[i].size;
		di[i].sha256 = items.v[i].sha256;
		di[i].type = items.v[i].type;
	}
	rc = db_scan_finish(db, job, verdict, worst, df, fl.n, di, items.n,
	    NULL, al_now_ms());
	if (rc == 0) {
		/* A rescan that found nothing new: the approvals stand. */
		struct db_review rv;

		if (db_review_settle(db, job->submission_id, &s->policy,
		    al_now_ms(), &rv) == 0)
			db_review_clear(&rv);
	}
	free(df);
	free(di);
	finding_list_free(&fl);
	scan_item_list_free(&items);
	secs = al_mono_now() - t0;
	atomic_fetch_add(&s->verdicts[verdict], 1);
	for (b = 0; b < NBUCKETS && secs > scan_buckets[b]; b++)
		;
	atomic_fetch_add(&s->buckets[b], 1);
	atomic_fetch_add(&s->scan_ms_sum, (unsigned long)(secs * 1000));
	return rc;
}

static void *
scan_thread(void *arg)
{
	struct scan_slot *slot = arg;
	struct srv *s = slot->s;
	struct db *db = srv_db(s);

	if (db == NULL) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		kill(getpid(), SIGTERM);
		return NULL;
	}
	for (;;) {
		struct db_scan_job job;
		int rc;

		pthread_mutex_lock(&s->lock);
		if (s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		pthread_mutex_unlock(&s->lock);
		memset(&job, 0, sizeof(job));
		rc = db_scan_claim(db, s->rs->digest, AL_ENGINE_VERSION,
		    al_now_ms(), &job);
		if (rc == AL_ENOTFOUND) {
			struct timespec ts;
			size_t expired = 0;

			/* Idle: held submissions past the policy's expiry. */
			if (s->hold_expiry > 0 && db_expire_held(db, al_now_ms() - s->hold_expiry,
			    al_now_ms(), &expired) == 0 && expired > 0)
				fprintf(stderr, "airlock serve: %zu held submission%s "
				    "expired\n", expired, expired == 1 ? "" : "s");

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_mutex_lock(&s->lock);
			if (!s->stopping)
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "airlock serve: claiming a scan: %s\n",
			    al_err_msg());
			sleep(1);
			continue;
		}
		atomic_fetch_add(&s->active, 1);
		rc = scan_one(s, slot->l, db, &job);
		atomic_fetch_sub(&s->active, 1);
		if (rc < 0 && !(rc == AL_EIO && s->stopping))
			fprintf(stderr, "airlock serve: scanning submission %" PRId64
			    ": %s\n", job.submission_id, al_err_msg());
		db_scan_job_clear(&job);
		if (rc == AL_EIO)
			break;
	}
	return NULL;
}

/* ---- start and stop ----------------------------------------------------- */

static unsigned
open_connections(struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *i;

	if (d == NULL || (i = MHD_get_daemon_info(d,
	    MHD_DAEMON_INFO_CURRENT_CONNECTIONS)) == NULL)
		return 0;
	return i->num_connections;
}

/* A reload must not stop the gate over a typo: the new rules are loaded
 * and compiled first, and kept out if they fail. */
static int
rules_loadable(const char *dir, const char *cache)
{
	struct rule_set *rs = NULL;
	struct scan_engine *e = NULL;
	struct dynbuf diags;
	size_t nerr = 0;
	int ok;

	dynbuf_init(&diags, 1 << 20);
	ok = rule_set_load(&rs, dir, 0, &diags, &nerr) == 0 &&
	    scan_engine_new(&e, rs, cache) == 0;
	if (!ok)
		fprintf(stderr, "%sairlock serve: the rules were NOT reloaded, the "
		    "gate goes on with the old ones: %s\n", dynbuf_str(&diags),
		    al_err_msg());
	scan_engine_free(e);
	rule_set_free(rs);
	dynbuf_free(&diags);
	return ok;
}

static int
parse_listen(const char *arg, char *host, size_t hn, unsigned *port)
{
	const char *colon = strrchr(arg, ':');
	char *end;
	unsigned long p;

	if (colon == NULL || colon == arg || (size_t)(colon - arg) >= hn)
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || p == 0 || p > 65535)
		return -1;
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = '\0';
	*port = (unsigned)p;
	return 0;
}

/* The intake socket: a fresh unix socket at path, mode 0666 (the sandbox's
 * user is not the gate's), refusing to replace anything but a socket. */
static int
intake_socket(const char *path)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return al_err_set(AL_EINVAL, "%s: path too long for a socket",
		    path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return al_err_set(AL_EEXIST, "%s exists and is not a socket",
			    path);
		(void)unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return al_err_set(AL_EIO, "socket: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0666) < 0 || listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		return al_err_set(AL_EIO, "%s: %s", path, strerror(e));
	}
	return fd;
}

static struct MHD_Daemon *
start_daemon(struct srv_listener *l, int listen_fd, unsigned port)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
	    MHD_USE_TURBO | MHD_USE_ITC;
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	if (listen_fd < 0) {
		sa.sin_family = AF_INET;
		sa.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, l->s->host, &sa.sin_addr) != 1)
			return NULL;
	}
	if (listen_fd >= 0)
		return MHD_start_daemon(flags, 0, NULL, NULL, on_request, l,
		    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVE_THREADS,
		    MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		    (size_t)SERVE_HEADER_LIMIT + 4096,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
		    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		    MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
		    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
		    MHD_OPTION_END);
	return MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, l,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVE_THREADS,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HEADER_LIMIT + 4096,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
	    MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	    MHD_OPTION_END);
}

int
cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"listen", required_argument, NULL, 'l'},
		{"intake-socket", required_argument, NULL, 'i'},
		{"scanners", required_argument, NULL, 'n'},
		{"max-body", required_argument, NULL, 'm'},
		{"rules", required_argument, NULL, 'r'},
		{"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data_opt = NULL, *listen_opt = "127.0.0.1:8420";
	const char *sock_opt = NULL, *rules_opt = NULL;
	struct srv s;
	struct srv_listener lapi, lintake;
	struct scan_slot *slots = NULL;
	struct dynbuf diags, p;
	sigset_t sigs;
	int sig = 0;
	char *rules_dir = NULL, *cache = NULL;
	size_t nerr = 0, i, timeout = 0, nstarted = 0, requeued = 0;
	size_t rescans = 0;
	int c, ret = EXIT_ERROR, sfd = -1;
	struct db *db;

	memset(&s, 0, sizeof(s));
	s.max_body = SERVE_DEFAULT_BODY;
	serve_argv = argv - 1;    /* "airlock" "serve" ... (argv of main) */
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': data_opt = optarg; break;
		case 'l': listen_opt = optarg; break;
		case 'i': sock_opt = optarg; break;
		case 'r': rules_opt = optarg; break;
		case 'n':
			if (al_parse_size(optarg, &s.nscan) != 0 || s.nscan == 0 ||
			    s.nscan > 64) {
				fprintf(stderr, "airlock serve: --scanners takes 1 to "
				    "64\n");
				return EXIT_ERROR;
			}
			break;
		case 'm': {
			uint64_t v;

			if (al_parse_bytes(optarg, &v) != 0 || v == 0) {
				fprintf(stderr, "airlock serve: --max-body takes a size "
				    "like 64M\n");
				return EXIT_ERROR;
			}
			s.max_body = v;
			break;
		}
		case 'T':
			if (al_parse_size(optarg, &timeout) != 0 || timeout == 0 ||
			    timeout > 86400) {
				fprintf(stderr, "airlock serve: --timeout takes 1 to "
				    "86400 seconds\n");
				return EXIT_ERROR;
			}
			break;
		case 'h':
			fputs(serve_usage, stdout);
			return EXIT_OK;
		default:
			fputs(serve_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (optind != argc || parse_listen(listen_opt, s.host, sizeof(s.host),
	    &s.port) < 0) {
		fprintf(stderr, "airlock serve: --listen takes HOST:PORT with an "
		    "IPv4 address\n\n%s", serve_usage);
		return EXIT_ERROR;
	}
	if (s.nscan == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		s.nscan = n > 0 ? (size_t)n : 1;
	}
	s.datadir = gate_data_dir(data_opt);
	dynbuf_init(&p, 8192);
	dynbuf_init(&diags, 1 << 20);
	if (s.datadir == NULL || dynbuf_addf(&p, "%s/airlock.db",
	    s.datadir) < 0 || (s.dbpath = strdup(dynbuf_str(&p))) == NULL) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	dynbuf_reset(&p);
	if (sock_opt == NULL && dynbuf_addf(&p, "%s/intake.sock",
	    s.datadir) < 0) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	s.sock_path = strdup(sock_opt ? sock_opt : dynbuf_str(&p));
	if (access(s.dbpath, F_OK) != 0) {
		fprintf(stderr, "airlock serve: %s has no database; run `airlock "
		    "init --data %s` first\n", s.datadir, s.datadir);
		goto out;
	}
	/* Single-threaded, holding no secret: rules, engine, launchers. */
	rules_dir = gate_rules_dir(rules_opt);
	if (rule_set_load(&s.rs, rules_dir, 0, &diags, &nerr) < 0) {
		fprintf(stderr, "%sairlock serve: %s\n", dynbuf_str(&diags),
		    al_err_msg());
		goto out;
	}
	cache = gate_cache_dir();
	if (scan_engine_new(&s.engine, s.rs, cache) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	s.launchers = calloc(s.nscan, sizeof(*s.launchers));
	s.scanners = calloc(s.nscan, sizeof(*s.scanners));
	slots = calloc(s.nscan, sizeof(*slots));
	if (s.launchers == NULL || s.scanners == NULL || slots == NULL) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	for (i = 0; i < s.nscan; i++)
		if (scan_launcher_start(&s.launchers[i], s.engine,
		    (double)timeout) < 0) {
			fprintf(stderr, "airlock serve: %s\n", al_err_msg());
			goto out;
		}
	/* The secrets come after the launchers were forked. */
	if (policy_load(&s) < 0 || attest_key_load(s.datadir, &s.key) < 0 ||
	    attest_keyid(s.key, s.keyid) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.wake, NULL);
	pthread_mutex_init(&s.dbs_lock, NULL);
	pthread_key_create(&s.dbkey, NULL);
	if (store_open(&s.store, s.datadir, 0) < 0 || (db = srv_db(&s)) ==
	    NULL || db_scan_requeue(db, al_now_ms(), &requeued) < 0 ||
	    db_rescan_stale(db, s.rs->digest, al_now_ms(), &rescans) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	if ((sfd = intake_socket(s.sock_path)) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	/* The main thread alone takes SIGTERM, SIGINT and SIGHUP, with
	 * sigwait; every thread started from here on has them blocked. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	lapi.s = lintake.s = &s;
	lapi.intake = 0;
	lintake.intake = 1;
	s.api = start_daemon(&lapi, -1, s.port);
	s.intake = s.api ? start_daemon(&lintake, sfd, 0) : NULL;
	if (s.api == NULL || s.intake == NULL) {
		fprintf(stderr, "airlock serve: cannot listen on %s%s%s\n",
		    s.api ? s.sock_path : listen_opt, s.api ? "" : " (in use?)",
		    "");
		goto stop;
	}
	sfd = -1;                 /* the daemon owns it now */
	for (i = 0; i < s.nscan; i++) {
		slots[i].s = &s;
		slots[i].l = s.launchers[i];
		if (pthread_create(&s.scanners[i], NULL, scan_thread,
		    &slots[i]) != 0)
			break;
		nstarted++;
	}
	fprintf(stderr, "airlock serve: listening on http://%s:%u, intake on "
	    "%s; %zu scanners; rules %.19s (%zu); %zu scan%s resumed; %zu "
	    "rescan%s for new rules\n", s.host, s.port, s.sock_path, s.nscan,
	    s.rs->digest, s.rs->nrules, requeued, requeued == 1 ? "" : "s",
	    rescans, rescans == 1 ? "" : "s");
	for (;;) {
		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig != SIGHUP || rules_loadable(rules_dir, cache))
			break;
	}
	got_signal = sig;
	fprintf(stderr, "airlock serve: %s (signal %d)\n", got_signal ==
	    SIGHUP ? "reloading the rules: restarting" : "stopping",
	    (int)got_signal);
	ret = EXIT_OK;
stop:
	/* Requests in flight finish; then the scanners end after their
	 * current artifact. */
	if (s.api)
		(void)MHD_quiesce_daemon(s.api);
	if (s.intake)
		(void)MHD_quiesce_daemon(s.intake);
	/* No new connections; those open get up to 10 s to finish. */
	for (i = 0; i < 100 && (open_connections(s.api) +
	    open_connections(s.intake)) > 0; i++)
		usleep(100000);
	if (s.api)
		MHD_stop_daemon(s.api);
	if (s.intake)
		MHD_stop_daemon(s.intake);
	pthread_mutex_lock(&s.lock);
	s.stopping = 1;
	pthread_cond_broadcast(&s.wake);
	pthread_mutex_unlock(&s.lock);
	/* A few seconds for the scans in flight; then they are cut short,
	 * and scanned again at the next start. */
	for (i = 0; i < 30 && atomic_load(&s.active) > 0; i++)
		usleep(100000);
	if (atomic_load(&s.active) > 0) {
		fprintf(stderr, "airlock serve: cutting %lu scan%s short; they "
		    "run again at the next start\n", atomic_load(&s.active),
		    atomic_load(&s.active) == 1 ? "" : "s");
		for (i = 0; i < s.nscan; i++)
			scan_launcher_abort(s.launchers[i]);
	}
	for (i = 0; i < nstarted; i++)
		pthread_join(s.scanners[i], NULL);
	(void)unlink(s.sock_path);
out:
	if (sfd >= 0)
		close(sfd);
	for (i = 0; s.launchers && i < s.nscan; i++)
		scan_launcher_stop(s.launchers[i]);
	for (i = 0; i < s.ndbs; i++)
		db_close(s.dbs[i]);
	store_close(s.store);
	scan_engine_free(s.engine);
	rule_set_free(s.rs);
	EVP_PKEY_free(s.key);
	free(s.launchers);
	free(s.scanners);
	free(slots);
	free(rules_dir);
	free(cache);
	free(s.datadir);
	free(s.dbpath);
	free(s.sock_path);
	dynbuf_free(&diags);
	dynbuf_free(&p);
	/* SIGHUP: the rules are reloaded by starting afresh (the launchers
	 * must be forked single-threaded, with the new engine); held and
	 * approved submissions scanned by other rules are scanned again. */
	if (ret == EXIT_OK && got_signal == SIGHUP) {
		execv("/proc/self/exe", serve_argv);
		fprintf(stderr, "airlock serve: cannot restart: %s\n",
		    strerror(errno));
		return EXIT_ERROR;
	}
	return ret;
}
