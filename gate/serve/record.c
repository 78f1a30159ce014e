/*
 * record.c - every refused attempt on the record, and the record shown.
 *
 * Refusals: srv_fail (http.c) is the one door every refusal leaves by, and
 * it hands each one here first. Two kinds are written as events:
 *
 * - a refused decision or release (403 or 409 on approve, reject, override
 *   or release, to a caller whose token and role checked): the event
 *   "approve.refused", "reject.refused", "override.refused" or
 *   "release.refused", by the caller, on the submission, the detail the
 *   gate's reason. These callers are authenticated people and CI whose
 *   every attempt matters, so each one is written.
 * - a refused login (401: no token, a malformed, unknown, revoked or
 *   expired one; 403: a role refused an endpoint): the event
 *   "login.refused", detail "reason=R source=S route=X suppressed=N
 *   suppressed_other=M" (and "role=" for a role refusal, " stage=commit"
 *   when the token was good as the request began but not when its write
 *   was to commit: srv_fail says which). The actor is the
 *   token's principal when the token was found (revoked, expired, a role
 *   refused), else none. Anyone who can reach the listener can make these,
 *   so they are rate-limited: at most one event per (source, reason, actor)
 *   per second, in a table of REC_SLOTS such keys; what is not written is
 *   counted, and the count goes into the next event of that key
 *   (suppressed=N) or, when the key's slot was reused or the table was
 *   full, into the next refused-login event written (suppressed_other=M).
 *   So the table grows by at most REC_SLOTS rows a second whatever the
 *   flood, and every refusal is either a row or counted in one. A count
 *   still pending when the flood stops is written with the next refusal of
 *   its key (or lost at shutdown: at most one second's worth per key).
 *
 * The record shown: GET /v1/submissions/ID gains the approvals that count
 * (with their comments), the rejection (with its reason) and, for those who
 * may read events, the timeline; an agent is shown only the rejection of
 * its own submission (when and why, not by whom). GET /v1/events pages
 * through all events (refused logins have no submission), for auditors
 * and admins.
 *
 * Trust: sources are the peer's address as the kernel gave it (or the
 * intake socket's peer uid), never a header; the reason is the gate's own
 * words.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "auth.h"
#include "err.h"
#include "os.h"
#include "serve.h"

#define REC_SLOTS 64              /* refused-login keys tracked at once */
#define REC_MAX_PAGE 1000         /* events per GET /v1/events */

struct rec_slot {
	char source[64];
	const char *reason;       /* one of the constant reason names */
	int64_t actor;
	int64_t sec;              /* the second of its last written event */
	uint64_t suppressed;      /* refusals since, not written */
	int used;
};

/* One gate per process: the limiter is the process's. */
static struct {
	pthread_mutex_t lock;
	struct rec_slot slot[REC_SLOTS];
	uint64_t other;           /* counted from slots reused or a full table */
} rec = {PTHREAD_MUTEX_INITIALIZER, {{{0}, NULL, 0, 0, 0, 0}}, 0};

/* The peer, as the kernel says: an address, or the intake's peer uid. */
static void
peer_source(const struct req *q, struct MHD_Connection *c, char *out,
    size_t n)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;
	char a[INET6_ADDRSTRLEN];

	snprintf(out, n, "unknown");
	if (q->intake) {
		struct ucred cr;
		socklen_t len = sizeof(cr);

		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci != NULL && getsockopt(ci->connect_fd, SOL_SOCKET,
		    SO_PEERCRED, &cr, &len) == 0)
			snprintf(out, n, "intake:uid=%u", (unsigned)cr.uid);
		else
			snprintf(out, n, "intake");
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || (sa = ci->client_addr) == NULL)
		return;
	if (sa->sa_family == AF_INET && inet_ntop(AF_INET,
	    &((const struct sockaddr_in *)(const void *)sa)->sin_addr, a,
	    sizeof(a)) != NULL)
		snprintf(out, n, "%s", a);
	else if (sa->sa_family == AF_INET6 && inet_ntop(AF_INET6,
	    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, a,
	    sizeof(a)) != NULL)
		snprintf(out, n, "%s", a);
}

/* Why a token did not authenticate, from what the request carried. */
static const char *
unauth_reason(const struct req *q, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Authorization");

	if (h == NULL || strncmp(h, "Bearer ", 7) != 0)
		return "no-token";
	if (!gate_token_wellformed(h + 7, strlen(h + 7)))
		return "malformed-token";
	if (!q->authed)
		return "unknown-token";
	if (q->who.revoked_at != 0)
		return "revoked-token";
	return "expired-token";
}

/*
 * The limiter: 1 when an event for (source, reason, actor) is to be
 * written now, with the counts to carry in *mine and *other.
 */
static int
rec_admit(const char *source, const char *reason, int64_t actor,
    int64_t sec, uint64_t *mine, uint64_t *other)
{
	struct rec_slot *s = NULL, *victim = NULL;
	size_t i;
	int write = 1;

	*mine = *other = 0;
	pthread_mutex_lock(&rec.lock);
	for (i = 0; i < REC_SLOTS && s == NULL; i++) {
		struct rec_slot *t = &rec.slot[i];

		if (t->used && t->reason == reason && t->actor == actor &&
		    strcmp(t->source, source) == 0)
			s = t;
		else if (!t->used && (victim == NULL || victim->used))
			victim = t;
		else if (t->used && t->sec < sec && (victim == NULL ||
		    (victim->used && t->sec < victim->sec)))
			victim = t;
	}
	if (s != NULL && s->sec == sec) {
		s->suppressed++;
		write = 0;
	} else if (s != NULL) {
		*mine = s->suppressed;
		s->suppressed = 0;
		s->sec = sec;
	} else if (victim == NULL) {
		/* Every key wrote this second: counted, for the next one. */
		rec.other++;
		write = 0;
	} else {
		if (victim->used)
			rec.other += victim->suppressed;
		memset(victim, 0, sizeof(*victim));
		snprintf(victim->source, sizeof(victim->source), "%s", source);
		victim->reason = reason;
		victim->actor = actor;
		victim->sec = sec;
		victim->used = 1;
	}
	if (write) {
		*other = rec.other;
		rec.other = 0;
	}
	pthread_mutex_unlock(&rec.lock);
	return write;
}

/* The submission q names, if it exists (events reference it). */
static int64_t
existing_submission(const struct req *q, struct db *db)
{
	struct db_submission b;

	if (q->id == 0 || db_submission_get(db, q->id, &b) < 0)
		return 0;
	db_submission_clear(&b);
	return q->id;
}

static void
record_login(struct req *q, struct MHD_Connection *c, struct db *db,
    int role)
{
	const char *reason = role ? "role" : unauth_reason(q, c);
	int64_t now = al_now_ms(), actor = role || q->authed ? q->who.id : 0;
	uint64_t mine, other;
	char source[64], detail[384], rolepart[48] = "";

	peer_source(q, c, source, sizeof(source));
	/* Refused at commit: only a request in flight when its token stopped
	 * being good can be, so these are few, and each one is written. */
	if (q->commit_refused)
		mine = other = 0;
	else if (!rec_admit(source, reason, actor, now / 1000, &mine, &other))
		return;
	if (role)
		snprintf(rolepart, sizeof(rolepart), " role=%s",
		    db_role_name(q->who.role));
	snprintf(detail, sizeof(detail), "reason=%s%s source=%s route=%s "
	    "suppressed=%llu suppressed_other=%llu%s", reason, rolepart, source,
	    srv_route_name(q->route), (unsigned long long)mine,
	    (unsigned long long)other, q->commit_refused ? " stage=commit" : "");
	/* A role refusal on a submission is part of its timeline, and so is
	 * a decision whose token stopped being good before it committed. */
	(void)db_event_add(db, now, actor, "login.refused", role ||
	    q->commit_refused ? existing_submission(q, db) : 0, detail);
}

void
srv_record_refusal(struct req *q, struct MHD_Connection *c, unsigned status,
    enum reject why, const char *msg)
{
	struct db *db = srv_db(q->s);
	const char *action;

	if (db == NULL)
		return;
	if (why == REJ_UNAUTH || q->role_refused) {
		record_login(q, c, db, !(why == REJ_UNAUTH));
		return;
	}
	if (!q->authed || (status != MHD_HTTP_FORBIDDEN &&
	    status != MHD_HTTP_CONFLICT))
		return;
	switch (q->route) {
	case R_APPROVE: action = "approve.refused"; break;
	case R_REJECT: action = "reject.refused"; break;
	case R_OVERRIDE: action = "override.refused"; break;
	case R_RELEASE: action = "release.refused"; break;
	default: return;
	}
	(void)db_event_add(db, al_now_ms(), q->who.id, action,
	    existing_submission(q, db), msg);
}

/* ---- the record shown ----------------------------------------------------- */

int
srv_events_json(json_t **out, const struct db_event *v, size_t n,
    int with_submission)
{
	json_t *arr = json_array(), *e;
	size_t i;
	int rc = arr == NULL ? al_err_set(AL_ENOMEM, "out of memory") : 0;

	*out = NULL;
	for (i = 0; rc == 0 && i < n; i++) {
		/* The detail may quote an item's path: by the text scheme. */
		e = json_pack("{s:I, s:o}", "id", (json_int_t)v[i].id, "at",
		    srv_json_time(v[i].at));
		if (e == NULL)
			rc = al_err_set(AL_ENOMEM, "out of memory for an event");
		else if ((rc = al_json_set_textz(e, "actor",
		    v[i].actor_name)) < 0 ||
		    (rc = al_json_set_textz(e, "action", v[i].action)) < 0 ||
		    (rc = al_json_set_textz(e, "detail", v[i].detail)) < 0 ||
		    (with_submission && (rc = srv_json_set(e, "submission",
		    v[i].submission ? json_integer(v[i].submission) :
		    json_null())) < 0))
			json_decref(e);
		else
			rc = srv_json_append(arr, e);
	}
	if (rc < 0) {
		json_decref(arr);
		return rc;
	}
	*out = arr;
	return 0;
}

/* The rejection: when and why for all, by whom for those who may know. */
static int
rejection_json(json_t *j, int own_only, const char *by, const char *why,
    int64_t at)
{
	json_t *r = json_pack("{s:o}", "at", srv_json_time(at));
	int rc;

	if (r == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for the rejection");
	if ((rc = al_json_set_textz(r, "reason", why)) < 0 ||
	    (!own_only && (rc = al_json_set_textz(r, "reviewer", by)) < 0)) {
		json_decref(r);
		return rc;
	}
	return srv_json_set(j, "rejection", r);
}

static int
approval_json(json_t *arr, const struct db_approval *a)
{
	json_t *o = json_pack("{s:o, s:s, s:s}", "at", srv_json_time(a->at),
	    "sha256", a->sha256, "ruleset", a->ruleset_digest);
	int rc;

	if (o == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for an approval");
	if ((rc = al_json_set_textz(o, "reviewer", a->reviewer)) < 0 ||
	    (rc = al_json_set_textz(o, "person", a->person)) < 0 ||
	    (rc = al_json_set_textz(o, "comment", a->comment)) < 0) {
		json_decref(o);
		return rc;
	}
	return srv_json_append(arr, o);
}

/* An approval that no longer counts, with the gate's words for why. */
static int
voided_json(json_t *arr, const struct db_voided *v, const char *ruleset)
{
	char why[320];
	json_t *o;
	int rc;

	if (v->person == NULL)
		snprintf(why, sizeof(why), "given by a token that belongs to no "
		    "person: only a person's approval counts");
	else if (v->new_findings > 0)
		snprintf(why, sizeof(why), "given to an earlier scan (rules "
		    "%.19s…); the latest scan (rules %.19s…) found %" PRId64
		    " finding%s that one did not show: it needs a new approval",
		    v->ruleset_digest, ruleset, v->new_findings,
		    v->new_findings == 1 ? "" : "s");
	else
		snprintf(why, sizeof(why), "given to other bytes or another "
		    "scan than the one that counts now");
	o = json_pack("{s:o, s:s, s:I, s:s}", "at", srv_json_time(v->at),
	    "ruleset", v->ruleset_digest, "new_findings",
	    (json_int_t)v->new_findings, "why", why);
	if (o == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for an approval");
	if ((rc = al_json_set_textz(o, "reviewer", v->reviewer)) < 0 ||
	    (rc = (v->person != NULL ? al_json_set_textz(o, "person",
	    v->person) : srv_json_set(o, "person", json_null()))) < 0) {
		json_decref(o);
		return rc;
	}
	return srv_json_append(arr, o);
}

/* "voided": the approvals a rescan (or a token of no person) made not
 * count, so that nobody takes them for ones that do. */
static int
voided_record(struct db *db, int64_t id, json_t *j)
{
	struct db_voided *v = NULL;
	struct db_scan_info si;
	size_t n = 0, i;
	json_t *arr = NULL;
	int rc = db_approvals_voided(db, id, &v, &n);

	if (rc < 0)
		return rc;
	if (n > 0 && (rc = db_scan_latest(db, id, &si)) == 0) {
		rc = srv_json_set(j, "voided", arr = json_array());
		for (i = 0; rc == 0 && i < n; i++)
			rc = voided_json(arr, &v[i], si.ruleset_digest);
		db_scan_info_clear(&si);
	}
	db_voided_free(v, n);
	return rc == AL_ENOTFOUND ? 0 : rc;
}

/* "overridden": the admin override of the latest scan, when there is one. */
static int
override_record(struct db *db, int64_t id, json_t *j)
{
	char *admin = NULL, *reason = NULL;
	int64_t at = 0;
	json_t *o = NULL;
	int rc = db_override_get(db, id, &admin, &reason, &at);

	if (rc == AL_ENOTFOUND)
		return 0;
	if (rc == 0 && (o = json_pack("{s:o}", "at", srv_json_time(at))) == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory for an override");
	if (rc == 0 && (rc = al_json_set_textz(o, "admin", admin)) == 0 &&
	    (rc = al_json_set_textz(o, "reason", reason)) == 0) {
		rc = srv_json_set(j, "overridden", o);
		o = NULL;
	}
	json_decref(o);
	free(admin);
	free(reason);
	return rc;
}

int
srv_show_record(struct req *q, struct db *db, json_t *j)
{
	int own_only = q->intake || q->who.role == DB_ROLE_AGENT;
	struct db_approval *a = NULL;
	struct db_event *ev = NULL;
	char *by = NULL, *why = NULL;
	size_t na = 0, nev = 0, i;
	int64_t at = 0;
	json_t *arr = NULL;
	int rc;

	rc = db_rejection_get(db, q->id, &by, &why, &at);
	if (rc < 0 && rc != AL_ENOTFOUND)
		return rc;
	/* The agent learns why, and when; not by whom. */
	rc = rc == 0 ? rejection_json(j, own_only, by, why, at) : 0;
	free(by);
	free(why);
	if (rc < 0 || own_only)
		return rc;
	if ((rc = db_approvals_get(db, q->id, &a, &na)) < 0)
		return rc;
	rc = srv_json_set(j, "approvals", arr = json_array());
	for (i = 0; rc == 0 && i < na; i++)
		rc = approval_json(arr, &a[i]);
	db_approvals_free(a, na);
	if (rc == 0)
		rc = voided_record(db, q->id, j);
	if (rc == 0)
		rc = override_record(db, q->id, j);
	/* The timeline for those who may read events (docs/api.md). */
	if (rc < 0 || (q->who.role != DB_ROLE_REVIEWER &&
	    q->who.role != DB_ROLE_AUDITOR && q->who.role != DB_ROLE_ADMIN))
		return rc;
	if ((rc = db_event_list(db, q->id, &ev, &nev)) < 0)
		return rc;
	if ((rc = srv_events_json(&arr, ev, nev, 0)) == 0)
		rc = srv_json_set(j, "timeline", arr);
	db_event_list_free(ev, nev);
	return rc;
}

/* GET /v1/events[?after=ID][&action=A][&limit=N]: all events, a page. */
enum MHD_Result
api_events_all(struct req *q, struct MHD_Connection *c, struct db *db)
{
	const char *after = MHD_lookup_connection_value(c,
	    MHD_GET_ARGUMENT_KIND, "after");
	const char *action = MHD_lookup_connection_value(c,
	    MHD_GET_ARGUMENT_KIND, "action");
	const char *lim = MHD_lookup_connection_value(c,
	    MHD_GET_ARGUMENT_KIND, "limit");
	struct db_event *v = NULL;
	size_t n = 0, limit = 100;
	int64_t from = 0;
	json_t *arr = NULL;
	int rc;

	if (after != NULL && strcmp(after, "0") != 0 &&
	    (from = srv_parse_id(after, strlen(after))) == 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "after is an event id");
	if (lim != NULL && ((limit = (size_t)srv_parse_id(lim,
	    strlen(lim))) == 0 || limit > REC_MAX_PAGE))
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "limit is 1 to 1000");
	if (action != NULL && !srv_name_ok(action, 64))
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    "an action is letters, digits and . _ -");
	if (db_event_page(db, from, action, limit, &v, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	rc = srv_events_json(&arr, v, n, 1);
	db_event_list_free(v, n);
	return srv_respond_built(q, c, MHD_HTTP_OK, rc == 0 ?
	    json_pack("{s:o}", "events", arr) : NULL, rc);
}
