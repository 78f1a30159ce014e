/*
 * serve.h - the gate service's own header (private to gate/serve/): the
 * server's state, one request's state, the routes and who may call them,
 * and what the service's files call in each other.
 *
 * The service is one process: libmicrohttpd's threads answer requests
 * (router.c, api_*.c, release.c, metrics.c), scan threads take the queue
 * (scanq.c) and hand each artifact to a scan launcher (scanners/), the
 * main thread starts it all and waits for signals (serve.c). No file here
 * parses artifact bytes: they go to the store (store.c) and from there to
 * a scan child; `make lint` checks that no object here references a
 * parser (libarchive, libgit2, libmagic, Hyperscan or PCRE2 matching).
 *
 * Trust: requests are hostile until authenticated, and bounded before
 * (connections, their time and their request lines by conn.c, header sizes
 * by libmicrohttpd, framing by srv_framing_error, bodies by --max-body,
 * JSON by SERVE_MAX_JSON).
 */
#ifndef AIRLOCK_SERVE_H
#define AIRLOCK_SERVE_H

#include <jansson.h>
#include <microhttpd.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "dynbuf.h"
#include "json_text.h"
#include "store.h"
#include "vocab.h"

#define SERVE_MAX_JSON (64u << 10)      /* token requests and the like */
#define SERVE_MAX_NAME 255u
#define SERVE_MAX_LABELS 32u
#define SERVE_MAX_LABEL_KEY 64u
#define SERVE_MAX_LABEL_VALUE 1024u
#define SERVE_DEFAULT_BODY (256ULL << 20)
/* DATA/policy: a few lines "key = value"; a line longer is refused. */
#define SERVE_POLICY_MAX_BYTES (64u << 10)
#define SERVE_POLICY_LINE_MAX 511u
/* An agent token's lifetime when neither --ttl nor the policy's
 * agent_token_ttl says otherwise: a working day, not forever. */
#define SERVE_AGENT_TTL (8LL * 3600000)
#define SERVE_HEADER_LIMIT (16u << 10)
/* HTTP threads per listener: uploads block on fsync, so more than cores. */
#define SERVE_THREADS 8u
/* Bytes of an oversized chunked body read (and dropped) to be able to answer
 * 413; past this the connection is closed without an answer. */
#define SERVE_MAX_DISCARD (64ULL << 20)

/* Connections (conn.c; docs/operations.md, "Connections"). */
/* Open connections per listener by default (--max-connections): far more
 * than reviewers and agents use at once, far fewer than the descriptors. */
#define SERVE_MAX_CONNS 256u
#define SERVE_MIN_CONNS 16u
/* A request's head (line and headers) must come within this many seconds
 * of the connection's start or of the previous answer (--header-timeout):
 * a client sends it in one go; only a slow-loris takes seconds. */
#define SERVE_HEADER_TIMEOUT 10u
/* A body must bring SERVE_BODY_MIN_BYTES in every window of this many
 * seconds (--body-timeout), and an answer must move within it: ~270
 * bytes/s is slower than any link an upload honestly comes over. */
#define SERVE_BODY_TIMEOUT 60u
#define SERVE_BODY_MIN_BYTES (16u << 10)
/* The API takes a few arguments (32 labels at most); libmicrohttpd 0.9.75
 * runs out of connection memory storing some hundreds, and then hangs. */
#define SERVE_MAX_QUERY_ARGS 64u
/* The open-file limit the gate raises its soft limit to, if allowed. */
#define SERVE_NOFILE 65536u

/* GET /v1/changes, the long-poll (changes.c; docs/api.md). A request
 * waits at most this many seconds (its `wait`, 1 to this; the default),
 * then is answered with the cursor unchanged: under the idle timeouts of
 * the proxies and browsers between, short enough that a page's token
 * is checked again twice a minute. */
#define SERVE_CHANGES_WAIT 25u
/* Requests waiting at once per token: a page or two of one person. */
#define SERVE_CHANGES_PER_TOKEN 2u
/* And in all: a quarter of --max-connections, at most this, so that
 * waiters never hold the connections the others need. */
#define SERVE_CHANGES_MAX 64u
/* A waiter is answered with the cursor it came with, then re-checks
 * its token this many times at most when revocations keep coming. */
#define SERVE_CHANGES_RECHECKS 8u

/* The review UI (ui.c; docs/review-ui.md), read once at start and held in
 * memory. A page, its style sheet, scripts, a font and a few images are
 * some hundred KiB; more is a mistake (a build tree, a video, a core file)
 * to be refused loudly rather than held. */
#define SERVE_UI_FILE_MAX (2u << 20)
#define SERVE_UI_TOTAL_MAX (32u << 20)
#define SERVE_UI_MAX_FILES 512u
#define SERVE_UI_NAME_MAX 64u     /* bytes of a name, without "img/" */

/* The Content-Security-Policy of every API answer: nothing in one may
 * load, run or be framed, should a browser ever render it. */
#define SRV_API_CSP "default-src 'none'; frame-ancestors 'none'"

/* Why a request was refused, for the metrics. */
enum reject {
	REJ_UNAUTH, REJ_FORBIDDEN, REJ_TOO_LARGE, REJ_BAD_REQUEST, REJ_BAD_HOST,
	REJ_BAD_ORIGIN, REJ_MAX,
};

/* Where stored bytes were found not to verify (integrity.c). */
enum srv_integrity_where {
	SRV_INT_CONTENT, SRV_INT_ITEM, SRV_INT_SCAN, SRV_INT_RELEASE,
	SRV_INT_LOG,              /* a release the audit log does not prove */
	SRV_INT_MAX,
};

/* 5xx answers counted by code, 500 to 511 (the codes HTTP defines). */
#define SRV_N5XX 12

/* Buckets of the scan-time histogram (metrics.c holds their bounds). */
#define SRV_NBUCKETS 12

struct rule_set;
struct scan_engine;
struct srv_changes;
struct srv_waiter;
struct scan_launcher;
struct srv_conn;
struct srv_listener;
struct srv_ui;

/* The connection limits in force (srv_net_limits). */
struct srv_limits {
	unsigned max_conns;       /* open per listener */
	unsigned per_client;      /* per uid (intake) or non-loopback address */
	unsigned header_timeout;  /* s */
	unsigned body_timeout;    /* s */
	unsigned nofile;          /* the open-file limit */
};

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
	atomic_int fatal;         /* a thread stopped the gate for good (a
	                           * launcher died): it exits non-zero, so
	                           * that a supervisor restarts it */
	struct MHD_Daemon *api, *intake;
	pthread_key_t dbkey;      /* each thread its own connection */
	pthread_mutex_t dbs_lock;
	struct db *dbs[256];      /* to close at the end */
	size_t ndbs;
	atomic_ulong rejects[REJ_MAX];
	atomic_ulong verdicts[AL_VERDICT_MAX];
	atomic_ulong buckets[SRV_NBUCKETS + 1];
	atomic_ulong scan_ms_sum;
	atomic_ulong active;      /* scans in flight */
	atomic_ulong db_failures; /* scan-thread transactions that failed */
	atomic_ulong retries;     /* scans whose result could not be recorded,
	                           * marked for a rescan */
	struct scan_slot *slots;  /* nscan of them */
	/* Read-held from storing bytes to committing the row that refers to
	 * them; write-held by the store's sweep (scanq.c), which must not
	 * remove an object a commit is about to refer to. */
	pthread_rwlock_t sweep_lock;
	int64_t swept_at;         /* ms; the scan thread 0's last sweep */
	atomic_ulong integrity[SRV_INT_MAX]; /* integrity alarms, by where */
	atomic_ulong server_errors[SRV_N5XX]; /* 5xx answers: 500 + i */
	struct db_policy policy;
	unsigned release_roles;   /* ROLE() mask */
	int64_t hold_expiry;      /* ms; 0: never */
	int64_t agent_ttl;        /* ms: agent tokens without a --ttl */
	int64_t ckpt_events;      /* a checkpoint after this many events */
	int64_t ckpt_interval;    /* ms: or this long after the last one */
	int64_t ckpt_looked_at;   /* ms; scan thread 0's last look */
	const char *rules_dir;    /* borrowed: what a reload loads */
	const char *ui_dir;       /* borrowed: the review UI's directory */
	struct srv_ui *ui;        /* its files, read at start (ui.c) */
	const char *cache;
	EVP_PKEY *key;            /* signs release statements */
	char keyid[65];
	struct srv_limits lim;
	struct srv_listener *listeners[2]; /* api, intake: for the metrics */
	struct srv_changes *changes; /* GET /v1/changes' waiters (changes.c) */
};

/* Why conn.c closed a connection, for the metrics. */
enum srv_cut {
	CUT_EVICTED, CUT_REFUSED, CUT_HEADER_TIMEOUT, CUT_SLOW_BODY, CUT_ARGS,
	CUT_STOPPING, CUT_MAX,
};

/* What a listener's callbacks are given; its connections (conn.c). */
struct srv_listener {
	struct srv *s;
	int intake;
	pthread_mutex_t lock;     /* the table and every srv_conn's phase */
	pthread_cond_t tick;      /* wakes the reaper */
	struct srv_conn *head, *tail; /* oldest first */
	unsigned nlive;           /* open and not closed by conn.c */
	int quiescing, stop, started;
	pthread_t reaper;
	atomic_ulong accepted;
	atomic_ulong cuts[CUT_MAX];
};

enum route {
	R_NONE, R_HEALTHZ, R_METRICS, R_SUBMIT, R_LIST, R_SHOW, R_CONTENT,
	R_EVENTS, R_TOKEN_CREATE, R_TOKEN_LIST, R_TOKEN_REVOKE, R_APPROVE,
	R_REJECT, R_OVERRIDE, R_RELEASE, R_ATTESTATION, R_RELOAD,
	R_ITEM_CONTENT, R_PERSON_CREATE, R_PERSON_LIST, R_PERSON_DISABLE,
	R_EVENTS_ALL, R_AUDIT_CHECKPOINT, R_AUDIT_CHECKPOINTS, R_AUDIT_ENTRIES,
	R_AUDIT_KEYS, R_UI_ROOT, R_UI_INDEX, R_UI_FILE, R_UI_IMG, R_WHOAMI,
	R_CHANGES,
	R_PROVENANCE,             /* api_audit.c */
	R_MAX,                    /* not a route: the count */
};

#define ROLE(r) (1u << (r))
#define ANY_ROLE (ROLE(DB_ROLE_AGENT) | ROLE(DB_ROLE_REVIEWER) | \
    ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_AUDITOR) | ROLE(DB_ROLE_ADMIN))

struct req {
	struct srv *s;
	struct srv_listener *listener;
	struct srv_conn *conn;    /* its connection (conn.c); NULL: untracked */
	int intake;               /* arrived on the unix socket */
	int must_close;           /* the answer closes the connection */
	int nul_in_url;           /* "%00" in the URL as sent */
	int plain_target;         /* the URL as sent has no %XX and no query */
	enum route route;
	int64_t id;               /* /v1/submissions/ID */
	int64_t item;             /* .../items/N/content: N, from 0 */
	char *arg;                /* /v1/tokens/NAME, /v1/persons/NAME */
	struct db_principal who;
	int authed;
	int role_refused;         /* the token's role may not call the route */
	int commit_refused;       /* the token stopped being good before the
	                           * endpoint's write committed */
	struct store_upload *up;
	int too_large;            /* the body passed its limit */
	int store_rc;             /* writing the body failed: AL_EFULL, AL_EIO */
	uint64_t discarded;
	struct dynbuf body;       /* JSON bodies */
	int64_t peer_uid, peer_pid;
	struct srv_waiter *waiter; /* GET /v1/changes waiting (changes.c) */
	int64_t after;            /* its cursor */
	double deadline;          /* its deadline, al_mono_now() */
};

/* What one scan thread is given, and what it reports of itself. */
struct scan_slot {
	struct srv *s;
	struct scan_launcher *l;
	size_t index;
	/* Under s->lock: since when (ms; 0: healthy) and why this thread
	 * cannot record or claim scans; /healthz says "degraded" while any
	 * thread has one. */
	int64_t fault_since;
	char fault[256];
};

/* health.c: GET /healthz: 200 "ok", or 503 "degraded" naming each scan
 * thread's fault; and a scan thread's reports of its own (why NULL: it
 * recovered). */
enum MHD_Result srv_healthz(struct req *q, struct MHD_Connection *c);
void srv_slot_fault(struct scan_slot *slot, const char *why);

/* serve.c: this thread's database connection, opened on first use. */
struct db *srv_db(struct srv *s);
/* serve.c: 0 if the rules on disk load and compile and DATA/policy loads;
 * else the error, its message saying what failed (the rule loader's
 * diagnostics, if any, appended to why). Changes nothing in s. */
int srv_config_check(struct srv *s, struct dynbuf *why);
/* serve.c: takes DATA/serve.lock (an flock, with this pid in the file) into
 * *fd_out; AL_EEXIST, naming the holder's pid, when a gate holds it. */
int srv_lock_data(const char *datadir, int *fd_out);
void srv_unlock_data(int fd);     /* -1: nothing */

/* http.c: answers and the small parsers every endpoint uses. Every error
 * answer goes through srv_fail, which records refusals and logs and counts
 * every 5xx (srv_respond itself does neither). */
enum MHD_Result srv_respond(struct MHD_Connection *c, unsigned status,
    const char *type, const char *body, size_t len);
/* Takes j (even on failure). */
enum MHD_Result srv_respond_json(struct MHD_Connection *c, unsigned status,
    json_t *j);
/* An error answer; the message is the gate's own words, never an echo of
 * a header or a token. */
enum MHD_Result srv_fail(struct req *q, struct MHD_Connection *c,
    unsigned status, enum reject why, const char *msg);
/* srv_fail with Retry-After: retry_after seconds (429, 503). */
enum MHD_Result srv_fail_retry(struct req *q, struct MHD_Connection *c,
    unsigned status, enum reject why, const char *msg, unsigned retry_after);
/* A JSON answer after which libmicrohttpd closes the connection (takes
 * j). */
enum MHD_Result srv_respond_json_close(struct MHD_Connection *c,
    unsigned status, json_t *j);
/* A write that failed with rc: 507 "the gate's storage is full: MSG" when
 * rc is AL_EFULL (the disk, a quota or the database is full), else 500
 * MSG. MSG says what did not happen. */
enum MHD_Result srv_fail_write(struct req *q, struct MHD_Connection *c,
    int rc, const char *msg);
/*
 * The answer of a document that was built with rc the result (takes j):
 * j when rc is 0 and j is there, else 500 saying why. A document is
 * either whole or not sent: no finding, name or event is ever left out of
 * an answer because its JSON could not be made.
 */
enum MHD_Result srv_respond_built(struct req *q, struct MHD_Connection *c,
    unsigned status, json_t *j, int rc);
/* obj[key] = v, arr += v (v taken, NULL for a value that could not be
 * made): AL_ENOMEM, with a message, when either fails. */
int srv_json_set(json_t *obj, const char *key, json_t *v);
int srv_json_append(json_t *arr, json_t *v);
json_t *srv_json_time(int64_t ms);       /* ISO 8601, or null for 0 */
/* A string the gate made itself (a name from its vocabulary, a digest),
 * or null; text from an artifact, an agent or a person goes in with
 * al_json_set_text (common/json_text.h) instead. */
json_t *srv_json_str(const char *s);
/* Letters, digits and . _ - @, 1 to max bytes. */
int srv_name_ok(const char *s, size_t max);
/* A decimal id; 0 when it is not one. */
int64_t srv_parse_id(const char *s, size_t n);
/* Strict framing of the request on c (RFC 9112): NULL, or why it is
 * refused (a conflicting, duplicated or malformed Content-Length or
 * Transfer-Encoding, a header name that is not a token, a folded line). */
const char *srv_framing_error(struct MHD_Connection *c, const char *version);

/* http.c: the headers every API answer carries (docs/api.md, "Headers"):
 * Cache-Control: no-store, nosniff, no referrer, SRV_API_CSP. */
void srv_api_headers(struct MHD_Response *r);

/*
 * ui.c: the review UI (docs/review-ui.md). srv_ui_load reads dir once:
 * 0 with *out, also when dir does not exist (*out then holds no file and
 * srv_ui_present says 0); what it skips (a link, a device, a directory
 * other than img/, a bad name, an unknown extension) is one line each in
 * warn. AL_ELIMIT when a file, their number or their whole is over its
 * limit (serve.h), AL_EIO when dir or a file cannot be read; the message
 * names the file.
 */
int srv_ui_load(struct srv_ui **out, const char *dir, struct dynbuf *warn);
void srv_ui_free(struct srv_ui *ui);     /* NULL-safe */
int srv_ui_present(const struct srv_ui *ui);
size_t srv_ui_files(const struct srv_ui *ui);
/* The UI route of a path (any method): R_UI_ROOT ("/"), R_UI_INDEX
 * ("/ui/"), R_UI_IMG ("/ui/img/..."), R_UI_FILE (any other "/ui/..."),
 * else R_NONE. */
enum route srv_ui_route(const char *url);
/* If-None-Match h (RFC 9110 13.1.2): "*" or a list of entity tags, a weak
 * one compared by its quoted part; 1 when etag (quotes included) is among
 * them. What is not such a list matches nothing (the file is sent). */
int srv_ui_etag_match(const char *h, const char *etag);
/* The answer to q, on a UI route, from the files read at start. */
enum MHD_Result srv_ui_serve(struct req *q, struct MHD_Connection *c,
    const char *method, const char *url);

/* router.c: the endpoint's name in events and the log ("approve",
 * "submit"...; "none" for R_NONE), from the route table. */
const char *srv_route_name(enum route r);
/* router.c: the route table as `airlock serve --routes` prints it: one
 * row per route and listener, {name, method, path, listener ("review" or
 * "intake"), served, token (false: answered without one), roles (those
 * let through on that listener, release narrowed by s's policy)}. Fails
 * (AL_EINVAL, saying which) if the table and the parser disagree. */
int srv_routes_json(const struct srv *s, json_t **out);

/* router.c: libmicrohttpd's callbacks. */
enum MHD_Result srv_on_request(void *cls, struct MHD_Connection *c,
    const char *url, const char *method, const char *version,
    const char *upload_data, size_t *upload_size, void **con_cls);
void srv_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode why);
void *srv_on_uri(void *cls, const char *uri, struct MHD_Connection *c);
void srv_req_free(struct req *q);        /* NULL-safe */
/* router.c: q's token authenticated again, as the router did when the
 * request came (GET /v1/changes does it when a waiter is answered): 0 with
 * q->who read afresh, else 1 with the answer given in *res (401 saying
 * why, 500). */
int srv_reauthenticate(struct req *q, struct MHD_Connection *c,
    enum MHD_Result *res);

/* conn.c: each listener's connections and their limits. */
/* Raises the open-file limit as far as allowed (up to SERVE_NOFILE) and
 * sets s->lim's connection counts: max_conns, lowered (with a message)
 * to what the limit fits; AL_ELIMIT when it fits too few. */
int srv_net_limits(struct srv *s, unsigned max_conns);
/* libmicrohttpd's cap of a listener's connections, above max_conns. */
unsigned srv_conn_cap(const struct srv_limits *lim);
void srv_conn_notify(void *cls, struct MHD_Connection *c, void **ctx,
    enum MHD_ConnectionNotificationCode code);
/* The request line of q came (uri as sent): q is its connection's until
 * srv_conn_done; too many query arguments are answered 414 here. */
void srv_conn_request(struct srv_listener *l, struct MHD_Connection *c,
    struct req *q, const char *uri);
/* 1 if conn.c closed q's connection (answered 408, 414 or 503): what
 * libmicrohttpd had already read of it must not be served. */
int srv_conn_closed(const struct req *q);
void srv_conn_admitted(struct req *q);  /* the router's first call let q in */
void srv_conn_replying(struct req *q);  /* the endpoint answers */
void srv_conn_body(struct req *q, size_t n); /* n body bytes came */
void srv_conn_done(struct req *q);      /* q completed */
int srv_listener_start(struct srv_listener *l);
void srv_listener_quiesce(struct srv_listener *l); /* closes idle ones */
void srv_listener_stop(struct srv_listener *l);    /* after MHD's stop */
/* The connection gauges and counters of /metrics, appended to t. */
int srv_conn_metrics(struct srv *s, struct dynbuf *t);

/* view.c: serves the stored blob fd (its sha256 and size as recorded) to
 * the caller, whole or the one byte range a Range header asks for, and
 * records what was served (db_view_record: item -1, the artifact). The
 * blob is hashed whole first, and again as it streams: bytes that do not
 * verify are never served (an integrity alarm, answered 500). Takes fd. */
enum MHD_Result srv_serve_view(struct req *q, struct MHD_Connection *c,
    struct db *db, int fd, uint64_t size, const char *sha256, int64_t item,
    const char *path);
/* view.c: one range of a Range header "bytes=...": 0 with [*off, *off +
 * *len), -1 when it is not one satisfiable range of size bytes. */
int srv_range_parse(const char *h, uint64_t size, uint64_t *off,
    uint64_t *len);

/*
 * The JSON bodies of POST /v1/tokens, /v1/persons and the decisions
 * (api_token.c, api_person.c, api_review.c), read without a server (the
 * fuzz targets do): 0 with the fields set, borrowed from json (the caller
 * json_decrefs it); AL_EINVAL with *why the gate's answer and nothing to
 * free. data may be NULL when len is 0.
 */
struct srv_token_body {
	json_t *json;
	const char *role, *name, *ttl, *on_behalf_of, *person; /* NULL: none */
	int role_id;              /* enum db_role */
	int64_t ttl_ms;           /* 0 without a ttl */
};
int srv_token_body(struct srv_token_body *b, const char *data, size_t len,
    const char **why);
struct srv_decide_body {
	json_t *json;
	const char *sha256, *ruleset; /* approve only */
	const char *text;         /* comment or reason; NULL: none */
};
int srv_decide_body(struct srv_decide_body *b, enum route route,
    const char *data, size_t len, const char **why);
struct srv_person_body {
	json_t *json;
	const char *name, *email; /* email NULL: none */
};
int srv_person_body(struct srv_person_body *b, const char *data, size_t len,
    const char **why);

/* api_person.c: persons (admins; auditors list). */
enum MHD_Result api_person_create(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_person_list(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_person_disable(struct req *q, struct MHD_Connection *c,
    struct db *db);

/* The endpoints: api_submission.c, api_token.c, api_review.c, release.c,
 * metrics.c. Each answers the request q on c. */
enum MHD_Result api_submit(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_list(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_show(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_content(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_item_content(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_events(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_token_create(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_token_list(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_token_revoke(struct req *q, struct MHD_Connection *c,
    struct db *db);
/* api_token.c: GET /v1/whoami, any role on either listener: the caller's
 * own token as authenticated (name, role, person, expires_at). Reads
 * nothing more and writes nothing: it is not an act. */
enum MHD_Result api_whoami(struct req *q, struct MHD_Connection *c);
enum MHD_Result api_decide(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_release(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_attestation(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_metrics(struct req *q, struct MHD_Connection *c,
    struct db *db);
/* Where a submission stands against the policy, as JSON. */
json_t *srv_review_json(const struct db_review *r);

/* record.c: a refusal on the record (srv_fail calls it: a refused
 * decision or release, a refused login, rate-limited); the record in a
 * submission's JSON j (approvals, rejection, timeline, as the caller may
 * see them); events as JSON; GET /v1/events. */
void srv_record_refusal(struct req *q, struct MHD_Connection *c,
    unsigned status, enum reject why, const char *msg);
int srv_show_record(struct req *q, struct db *db, json_t *j);
int srv_events_json(json_t **out, const struct db_event *v, size_t n,
    int with_submission);
enum MHD_Result api_events_all(struct req *q, struct MHD_Connection *c,
    struct db *db);
/* api_audit.c: GET /v1/audit/checkpoint (the newest signed checkpoint),
 * /v1/audit/checkpoints (all of them), /v1/audit/entries?from=N&limit=M
 * (the entries as stored, a page) and /v1/audit/keys (the keyring's
 * verifier keys): what `airlock audit verify --server` reads. */
enum MHD_Result api_audit_checkpoint(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_audit_checkpoints(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_audit_entries(struct req *q, struct MHD_Connection *c,
    struct db *db);
enum MHD_Result api_audit_keys(struct req *q, struct MHD_Connection *c,
    struct db *db);
/* GET /v1/provenance?sha256=HEX|id=N|path=P: gate/provenance.c's chain,
 * bounded (auditors and admins). */
enum MHD_Result api_provenance(struct req *q, struct MHD_Connection *c,
    struct db *db);

/* integrity.c: stored bytes of submission id (item -1: the artifact; else
 * that kept item, at path) did not verify, for the reason why (the store's
 * message): the log, the metric, the event, and from a review read
 * (content, item) the submission back to be scanned. 1 if it went back. */
int srv_integrity_alarm(struct srv *s, struct db *db,
    enum srv_integrity_where where, int64_t id, int64_t item,
    const char *path, const char *sha256, const char *why);
const char *srv_integrity_where_name(enum srv_integrity_where w);

/*
 * changes.c: GET /v1/changes, the long-poll (docs/api.md). srv_changes_start
 * (before the listeners start, with signals blocked) reads the cursor from
 * db and starts the thread that resumes waiters; srv_changes_quiesce (when
 * the gate stops, before it waits for connections to end) answers every
 * waiter and lets no new one wait; srv_changes_stop (after the listeners
 * and the scan threads stopped; NULL-safe, idempotent) ends it all.
 * srv_changes_release frees q's slot (srv_req_free calls it).
 */
int srv_changes_start(struct srv *s, struct db *db);
void srv_changes_quiesce(struct srv *s);
void srv_changes_stop(struct srv *s);
void srv_changes_release(struct req *q);
enum MHD_Result api_changes(struct req *q, struct MHD_Connection *c,
    struct db *db);
/* The long-poll's gauges and counters of /metrics, appended to t. */
int srv_changes_metrics(struct srv *s, struct dynbuf *t);

/* metrics.c: a finished scan, counted by verdict and time. */
void srv_metrics_scan(struct srv *s, enum al_verdict verdict, double secs);

/* policy.c: DATA/policy, or the defaults. */
int srv_policy_load(struct srv *s);

/* scanq.c: a scan thread (arg: its struct scan_slot). */
void *srv_scan_thread(void *arg);

/* listener.c: the listening sockets and libmicrohttpd's daemons. */
int srv_parse_listen(const char *arg, char *host, size_t hn,
    unsigned *port);
int srv_intake_socket(const char *path);
struct MHD_Daemon *srv_start_daemon(struct srv_listener *l, int listen_fd,
    unsigned port);
unsigned srv_open_connections(struct MHD_Daemon *d);

#endif
