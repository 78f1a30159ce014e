/*
 * changes.c - GET /v1/changes, the long-poll the review UI keeps open
 * while its queue is shown (docs/api.md, "GET /v1/changes"): answered at
 * once when a submission changed after the client's cursor, else held,
 * with no thread waiting, until one does, the client's wait runs out, its
 * token stops being good, it goes away, or the gate stops.
 *
 * The cursor is an event id: that of the newest change this process
 * committed, a change being an event on a submission that is neither a
 * read nor a refusal (db_on_commit, db/db_event.c); at start, the newest
 * event of any kind. Event ids only grow and are never reused (the table
 * is append-only), so a cursor holds over restarts: one from before a
 * restart is answered once with the new cursor, and never waits for what
 * it missed. Views, pulls and refused logins do not move it: a reviewer
 * reading, or anyone knocking with a bad token, wakes no queue.
 *
 * Holding: the handler suspends its connection (MHD_suspend_connection;
 * the listener is started with MHD_ALLOW_SUSPEND_RESUME) and puts it in
 * the waiter table; this file's thread resumes it when db_on_commit
 * reports a change, at the waiter's deadline (its wait, or its token's
 * expiry if sooner), when its socket says the peer closed (EPOLLRDHUP on
 * our own epoll set: libmicrohttpd watches no suspended connection), when
 * a token was revoked or a person disabled (the handler then reads the
 * token again, and waits on if it is still good), or when the gate stops.
 * Resumed, the connection's request comes back to the handler, which
 * answers: the token is authenticated again first, always.
 *
 * No lost wake-up: "nothing new" and "waiting" are decided under the
 * table's lock, against the cursor the commit hook moves under the same
 * lock. The handler suspends its connection first and enters the table
 * after (looking again), so a commit either moved the cursor before that
 * look (the handler resumes its connection itself) or finds the waiter in
 * the table. No libmicrohttpd function is called under the lock.
 *
 * Bounds: SERVE_CHANGES_PER_TOKEN waiting per token and, in all, a
 * quarter of --max-connections up to SERVE_CHANGES_MAX (serve.h); past
 * either, 429 with Retry-After (when the soonest such waiter is due). A
 * waiter holds its slot from when it waits until it is answered or its
 * request ends (srv_req_free, also when its connection closes).
 *
 * Trust: the router checked the caller's role (no agent: a cursor shows
 * everyone's activity). The query is hostile and checked whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "err.h"
#include "os.h"
#include "serve.h"

enum chg_state { W_FREE, W_SUSPENDING, W_WAITING, W_WOKEN };

/* Why a waiter is answered (or looks again). */
enum chg_why {
	WHY_NONE, WHY_CHANGE, WHY_TIMEOUT, WHY_GONE, WHY_RECHECK,
	WHY_STOPPING,
};

/* What an answer was, for the metrics. */
enum chg_out {
	OUT_AT_ONCE, OUT_CHANGE, OUT_TIMEOUT, OUT_GONE, OUT_STOPPING,
	OUT_UNAUTH, OUT_MAX,
};

static const char *const out_names[OUT_MAX] = {
	"at_once", "change", "timeout", "client_gone", "stopping",
	"unauthenticated",
};

struct srv_waiter {
	enum chg_state state;
	enum chg_why why;         /* W_WOKEN: why */
	uint32_t gen;             /* taken this many times: epoll's key */
	struct req *q;
	struct MHD_Connection *c;
	int fd;
	int watched;              /* fd is in the epoll set */
	int gone;                 /* the peer closed */
	int64_t principal;
	int64_t after;
	double deadline;          /* al_mono_now() */
	uint64_t seen;            /* the revocations it waits after */
};

struct srv_changes {
	pthread_mutex_t lock;
	pthread_cond_t idle;      /* resuming came back to 0 */
	struct srv_waiter w[SERVE_CHANGES_MAX];
	unsigned cap;             /* waiters in all, at most */
	unsigned nwait;           /* slots taken */
	int64_t latest;           /* the cursor */
	uint64_t revocations;     /* tokens revoked, persons disabled */
	int stopping;             /* no one waits any more */
	int quit;                 /* the thread ends */
	unsigned resuming;        /* connections taken out, not yet resumed */
	int epfd, evfd;
	pthread_t thread;
	atomic_ulong out[OUT_MAX];
	atomic_ulong refused_token, refused_total;
};

/* The epoll key of the eventfd; a waiter's is gen << 8 | index. */
#define KEY_POKE UINT64_MAX

/* The gate's table, for db_on_commit (one gate per process). */
static struct srv_changes *hooked;

static void
poke(struct srv_changes *ch)
{
	uint64_t one = 1;

	/* A full counter is a wake-up already pending. */
	if (write(ch->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		fprintf(stderr, "airlock serve: waking the long-poll: %s\n",
		    strerror(errno));
}

static void
on_commit(int64_t change, int revoked)
{
	struct srv_changes *ch = hooked;
	int moved = 0;

	if (ch == NULL)
		return;
	pthread_mutex_lock(&ch->lock);
	if (change > ch->latest) {
		ch->latest = change;
		moved = 1;
	}
	if (revoked) {
		ch->revocations++;
		moved = 1;
	}
	pthread_mutex_unlock(&ch->lock);
	if (moved)
		poke(ch);
}

/* Whether a waiter is done, and why (under the lock). */
static enum chg_why
due(const struct srv_changes *ch, int64_t after, double deadline,
    uint64_t seen, double now)
{
	if (ch->stopping)
		return WHY_STOPPING;
	if (ch->latest != after)
		return WHY_CHANGE;
	if (ch->revocations != seen)
		return WHY_RECHECK;
	if (now >= deadline)
		return WHY_TIMEOUT;
	return WHY_NONE;
}

static void
unwatch(struct srv_changes *ch, struct srv_waiter *w)
{
	if (w->watched)
		(void)epoll_ctl(ch->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->watched = 0;
}

/* Takes out every waiter that is done (under the lock): their
 * connections, to resume, in out; how many. */
static size_t
collect(struct srv_changes *ch, double now, struct MHD_Connection **out)
{
	size_t i, k = 0;

	for (i = 0; i < SERVE_CHANGES_MAX; i++) {
		struct srv_waiter *w = &ch->w[i];
		enum chg_why why;

		if (w->state != W_WAITING)
			continue;
		why = due(ch, w->after, w->deadline, w->seen, now);
		if (why == WHY_NONE && w->gone)
			why = WHY_GONE;
		if (why == WHY_NONE)
			continue;
		w->state = W_WOKEN;
		w->why = why;
		unwatch(ch, w);
		out[k++] = w->c;
	}
	ch->resuming += (unsigned)k;
	return k;
}

static void
resume(struct srv_changes *ch, struct MHD_Connection **v, size_t k)
{
	size_t i;

	if (k == 0)
		return;
	for (i = 0; i < k; i++)
		MHD_resume_connection(v[i]);
	pthread_mutex_lock(&ch->lock);
	ch->resuming -= (unsigned)k;
	if (ch->resuming == 0)
		pthread_cond_broadcast(&ch->idle);
	pthread_mutex_unlock(&ch->lock);
}

/* Milliseconds to the soonest deadline (under the lock); -1: none. */
static int
next_timeout(const struct srv_changes *ch, double now)
{
	double soon = -1;
	size_t i;

	for (i = 0; i < SERVE_CHANGES_MAX; i++)
		if (ch->w[i].state == W_WAITING && (soon < 0 ||
		    ch->w[i].deadline < soon))
			soon = ch->w[i].deadline;
	if (soon < 0)
		return -1;
	if (soon <= now)
		return 0;
	/* Rounded up: woken early, a waiter would wait one more round. */
	return (int)((soon - now) * 1000.0) + 1;
}

static void *
changes_thread(void *arg)
{
	struct srv_changes *ch = arg;
	struct MHD_Connection *wake[SERVE_CHANGES_MAX];
	struct epoll_event ev[16];
	uint64_t v;
	size_t k;
	int n, i, timeout;

	for (;;) {
		pthread_mutex_lock(&ch->lock);
		if (ch->quit) {
			pthread_mutex_unlock(&ch->lock);
			break;
		}
		timeout = next_timeout(ch, al_mono_now());
		pthread_mutex_unlock(&ch->lock);
		n = epoll_wait(ch->epfd, ev, (int)(sizeof(ev) / sizeof(ev[0])),
		    timeout);
		pthread_mutex_lock(&ch->lock);
		for (i = 0; i < n; i++) {
			uint64_t key = ev[i].data.u64;
			struct srv_waiter *w;

			if (key == KEY_POKE) {
				while (read(ch->evfd, &v, sizeof(v)) == sizeof(v))
					;
				continue;
			}
			/* A slot taken again since epoll_wait returned is
			 * another request: its generation differs. */
			w = &ch->w[(key & 0xff) % SERVE_CHANGES_MAX];
			if (w->state == W_WAITING && w->gen == (uint32_t)(key >> 8))
				w->gone = 1;
		}
		k = collect(ch, al_mono_now(), wake);
		pthread_mutex_unlock(&ch->lock);
		resume(ch, wake, k);
	}
	return NULL;
}

int
srv_changes_start(struct srv *s, struct db *db)
{
	struct srv_changes *ch = calloc(1, sizeof(*ch));
	struct epoll_event ev;
	char tname[16];

	if (ch == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	ch->cap = s->lim.max_conns / 4;
	if (ch->cap > SERVE_CHANGES_MAX)
		ch->cap = SERVE_CHANGES_MAX;
	if (ch->cap == 0)
		ch->cap = 1;
	ch->latest = db_event_last_id(db);
	ch->epfd = epoll_create1(EPOLL_CLOEXEC);
	ch->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = KEY_POKE;
	if (ch->epfd < 0 || ch->evfd < 0 || epoll_ctl(ch->epfd, EPOLL_CTL_ADD,
	    ch->evfd, &ev) < 0) {
		int e = errno;

		if (ch->epfd >= 0)
			close(ch->epfd);
		if (ch->evfd >= 0)
			close(ch->evfd);
		free(ch);
		return al_err_set(AL_EIO, "the long-poll's epoll: %s", strerror(e));
	}
	pthread_mutex_init(&ch->lock, NULL);
	pthread_cond_init(&ch->idle, NULL);
	if (pthread_create(&ch->thread, NULL, changes_thread, ch) != 0) {
		pthread_cond_destroy(&ch->idle);
		pthread_mutex_destroy(&ch->lock);
		close(ch->epfd);
		close(ch->evfd);
		free(ch);
		return al_err_set(AL_EIO, "cannot start a thread");
	}
	snprintf(tname, sizeof(tname), "al-changes");
	(void)pthread_setname_np(ch->thread, tname);
	s->changes = ch;
	hooked = ch;
	db_on_commit(on_commit);
	return 0;
}

void
srv_changes_quiesce(struct srv *s)
{
	struct srv_changes *ch = s->changes;
	struct MHD_Connection *wake[SERVE_CHANGES_MAX];
	size_t k;

	if (ch == NULL)
		return;
	pthread_mutex_lock(&ch->lock);
	ch->stopping = 1;
	k = collect(ch, al_mono_now(), wake);
	pthread_mutex_unlock(&ch->lock);
	resume(ch, wake, k);
	/* The thread may hold connections it took out and has not resumed:
	 * libmicrohttpd must not be stopped before. */
	pthread_mutex_lock(&ch->lock);
	while (ch->resuming > 0)
		pthread_cond_wait(&ch->idle, &ch->lock);
	pthread_mutex_unlock(&ch->lock);
}

void
srv_changes_stop(struct srv *s)
{
	struct srv_changes *ch = s->changes;

	if (ch == NULL)
		return;
	db_on_commit(NULL);
	hooked = NULL;
	pthread_mutex_lock(&ch->lock);
	ch->quit = 1;
	pthread_mutex_unlock(&ch->lock);
	poke(ch);
	pthread_join(ch->thread, NULL);
	close(ch->epfd);
	close(ch->evfd);
	pthread_cond_destroy(&ch->idle);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	s->changes = NULL;
}

/* Frees q's slot; unanswered: the request ends without an answer. */
static void
slot_free(struct srv_changes *ch, struct req *q, int unanswered)
{
	struct srv_waiter *w = q->waiter;

	if (w == NULL || ch == NULL)
		return;
	pthread_mutex_lock(&ch->lock);
	/* Waiting still: its connection went without being resumed (only a
	 * stopped listener does that); the thread must not resume it. */
	unwatch(ch, w);
	w->state = W_FREE;
	w->q = NULL;
	w->c = NULL;
	ch->nwait--;
	pthread_mutex_unlock(&ch->lock);
	q->waiter = NULL;
	/* Resumed for a client gone, libmicrohttpd may close the connection
	 * without coming back to the handler. */
	if (unanswered)
		atomic_fetch_add(&ch->out[OUT_GONE], 1);
}

void
srv_changes_release(struct req *q)
{
	slot_free(q->s->changes, q, 1);
}

/* Seconds, rounded up and at least 1, to the soonest deadline of the
 * slots taken (of principal, if not 0), for Retry-After (under the
 * lock). */
static unsigned
retry_after(const struct srv_changes *ch, int64_t principal, double now)
{
	double soon = -1;
	size_t i;

	for (i = 0; i < SERVE_CHANGES_MAX; i++) {
		const struct srv_waiter *w = &ch->w[i];

		if (w->state != W_FREE && (principal == 0 ||
		    w->principal == principal) && (soon < 0 || w->deadline < soon))
			soon = w->deadline;
	}
	if (soon <= now)
		return 1;
	return (unsigned)(soon - now) + 1;
}

/* Results of take and wait besides a why. */
#define CHG_WAITING 0
#define CHG_TOKEN_FULL (-1)
#define CHG_FULL (-2)

/* A slot for q (under the lock): CHG_WAITING with q->waiter set, else a
 * limit and *retry. */
static int
take(struct srv_changes *ch, struct req *q, double now, unsigned *retry)
{
	struct srv_waiter *w = NULL;
	unsigned mine = 0;
	size_t i;

	for (i = 0; i < SERVE_CHANGES_MAX; i++) {
		if (ch->w[i].state == W_FREE) {
			if (w == NULL)
				w = &ch->w[i];
		} else if (ch->w[i].principal == q->who.id) {
			mine++;
		}
	}
	if (mine >= SERVE_CHANGES_PER_TOKEN) {
		*retry = retry_after(ch, q->who.id, now);
		atomic_fetch_add(&ch->refused_token, 1);
		return CHG_TOKEN_FULL;
	}
	if (ch->nwait >= ch->cap || w == NULL) {
		*retry = retry_after(ch, 0, now);
		atomic_fetch_add(&ch->refused_total, 1);
		return CHG_FULL;
	}
	w->gen++;
	w->why = WHY_NONE;
	w->q = q;
	w->c = NULL;
	w->fd = -1;
	w->watched = w->gone = 0;
	w->principal = q->who.id;
	ch->nwait++;
	q->waiter = w;
	return CHG_WAITING;
}

/*
 * Waits for a change after q->after, revocations after seen: CHG_WAITING
 * when q's connection was suspended (the handler is called again once it
 * is resumed, q->waiter's why saying why), a why (> 0) to act on now
 * without waiting, or a limit (CHG_TOKEN_FULL, CHG_FULL) and *retry.
 */
static int
wait_change(struct srv_changes *ch, struct req *q, struct MHD_Connection *c,
    uint64_t seen, unsigned *retry)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_CONNECTION_FD);
	struct srv_waiter *w;
	struct epoll_event ev;
	enum chg_why why;
	int rc;

	pthread_mutex_lock(&ch->lock);
	why = due(ch, q->after, q->deadline, seen, al_mono_now());
	if (why != WHY_NONE) {
		pthread_mutex_unlock(&ch->lock);
		return (int)why;
	}
	if (q->waiter == NULL && (rc = take(ch, q, al_mono_now(),
	    retry)) != CHG_WAITING) {
		pthread_mutex_unlock(&ch->lock);
		return rc;
	}
	w = q->waiter;
	w->state = W_SUSPENDING;
	w->why = WHY_NONE;
	w->gone = 0;
	w->after = q->after;
	w->deadline = q->deadline;
	w->seen = seen;
	w->c = c;
	w->fd = ci != NULL ? ci->connect_fd : -1;
	pthread_mutex_unlock(&ch->lock);

	MHD_suspend_connection(c);

	/* Again, now that a wake-up finds it: what came meanwhile. */
	pthread_mutex_lock(&ch->lock);
	why = due(ch, w->after, w->deadline, w->seen, al_mono_now());
	if (why == WHY_NONE) {
		w->state = W_WAITING;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLRDHUP;
		ev.data.u64 = (uint64_t)w->gen << 8 | (uint64_t)(w - ch->w);
		/* Not watched (no descriptor, no memory): the deadline still
		 * answers it, only a peer gone is seen later. */
		w->watched = w->fd >= 0 && epoll_ctl(ch->epfd, EPOLL_CTL_ADD,
		    w->fd, &ev) == 0;
	} else {
		w->state = W_WOKEN;
		w->why = why;
	}
	pthread_mutex_unlock(&ch->lock);
	if (why == WHY_NONE)
		poke(ch);         /* a new deadline for the thread */
	else
		MHD_resume_connection(c);
	return CHG_WAITING;
}

static int64_t
cursor(struct srv_changes *ch)
{
	int64_t v;

	pthread_mutex_lock(&ch->lock);
	v = ch->latest;
	pthread_mutex_unlock(&ch->lock);
	return v;
}

static uint64_t
revocations(struct srv_changes *ch)
{
	uint64_t v;

	pthread_mutex_lock(&ch->lock);
	v = ch->revocations;
	pthread_mutex_unlock(&ch->lock);
	return v;
}

/* 200 {"cursor": N, "changed": B}: N the cursor now, B whether it is not
 * the one the request came with (or it came with none). Closes the
 * connection when the gate stops. */
static enum MHD_Result
answer(struct srv_changes *ch, struct req *q, struct MHD_Connection *c,
    enum chg_out out)
{
	int64_t cur = cursor(ch);
	json_t *j = json_pack("{s:I, s:b}", "cursor", (json_int_t)cur,
	    "changed", q->after < 0 || cur != q->after);

	slot_free(ch, q, 0);
	atomic_fetch_add(&ch->out[out], 1);
	return out == OUT_STOPPING ? srv_respond_json_close(c, MHD_HTTP_OK, j) :
	    srv_respond_json(c, MHD_HTTP_OK, j);
}

static enum chg_out
out_of(enum chg_why why)
{
	switch (why) {
	case WHY_TIMEOUT: return OUT_TIMEOUT;
	case WHY_GONE: return OUT_GONE;
	case WHY_STOPPING: return OUT_STOPPING;
	default: return OUT_CHANGE;
	}
}

/* A decimal of 1 to 18 digits (no sign), into *out. */
static int
decimal(const char *v, int64_t *out)
{
	size_t n = strlen(v), i;
	int64_t x = 0;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	*out = x;
	return 0;
}

struct chg_args {
	const char *after, *wait;
	char why[128];            /* "" while nothing is wrong */
};

static enum MHD_Result
arg_of(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct chg_args *a = cls;
	const char **slot = strcmp(key, "after") == 0 ? &a->after :
	    strcmp(key, "wait") == 0 ? &a->wait : NULL;
	const char *name = slot == &a->after ? "after" : "wait";

	(void)kind;
	if (slot == NULL)
		snprintf(a->why, sizeof(a->why), "unknown query argument (this "
		    "endpoint takes after and wait)");
	else if (*slot != NULL)
		snprintf(a->why, sizeof(a->why), "%s is given twice", name);
	else if (value == NULL || value[0] == '\0')
		snprintf(a->why, sizeof(a->why), "%s has no value", name);
	else
		*slot = value;
	return a->why[0] == '\0' ? MHD_YES : MHD_NO;
}

/* ?after=CURSOR&wait=SECONDS into q->after (-1: none) and *wait; 0, or -1
 * with why. */
static int
parse_args(struct req *q, struct MHD_Connection *c, unsigned *wait,
    char *why, size_t n)
{
	struct chg_args a = {NULL, NULL, ""};
	int64_t v;

	q->after = -1;
	*wait = SERVE_CHANGES_WAIT;
	(void)MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, arg_of, &a);
	if (a.why[0] != '\0') {
		snprintf(why, n, "%s", a.why);
		return -1;
	}
	if (a.after != NULL && decimal(a.after, &q->after) < 0) {
		snprintf(why, n, "after is the cursor of an earlier answer: a "
		    "decimal from 0");
		return -1;
	}
	if (a.wait != NULL && (decimal(a.wait, &v) < 0 || v < 1 ||
	    v > SERVE_CHANGES_WAIT)) {
		snprintf(why, n, "wait is 1 to %u seconds", SERVE_CHANGES_WAIT);
		return -1;
	}
	if (a.wait != NULL)
		*wait = (unsigned)v;
	return 0;
}

/* The request's deadline: its wait, or its token's expiry if sooner. */
static double
deadline_of(const struct req *q, unsigned wait)
{
	double now = al_mono_now(), d = now + wait, left;

	if (q->who.expires_at != 0) {
		left = (double)(q->who.expires_at - al_now_ms()) / 1000.0;
		if (now + left < d)
			d = now + left;
	}
	return d;
}

enum MHD_Result
api_changes(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv_changes *ch = q->s->changes;
	enum MHD_Result res;
	enum chg_why why = WHY_NONE;
	unsigned wait = 0, retry = 1, i;
	uint64_t seen;
	char msg[200];
	int rc;

	(void)db;
	if (ch == NULL)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "the long-poll is not running");
	if (q->waiter == NULL) {
		/* The first call. The token was checked as the request came;
		 * checked again after the revocations seen are read, no
		 * revocation falls between the two. */
		if (parse_args(q, c, &wait, msg, sizeof(msg)) < 0)
			return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
			    msg);
		seen = revocations(ch);
		if (srv_reauthenticate(q, c, &res))
			return res;
		q->deadline = deadline_of(q, wait);
		if (q->after < 0)
			return answer(ch, q, c, OUT_AT_ONCE);
	} else {
		/* Resumed: answered, its token checked again first. */
		pthread_mutex_lock(&ch->lock);
		why = q->waiter->why;
		seen = q->waiter->seen;
		pthread_mutex_unlock(&ch->lock);
		if (why == WHY_STOPPING)
			return answer(ch, q, c, OUT_STOPPING);
		if (why == WHY_RECHECK) {
			pthread_mutex_lock(&ch->lock);
			seen = ch->revocations;
			pthread_mutex_unlock(&ch->lock);
		}
		if (srv_reauthenticate(q, c, &res)) {
			slot_free(ch, q, 0);
			atomic_fetch_add(&ch->out[OUT_UNAUTH], 1);
			return res;
		}
		if (why != WHY_RECHECK)
			return answer(ch, q, c, out_of(why));
	}
	for (i = 0;; i++) {
		rc = wait_change(ch, q, c, seen, &retry);
		if (rc != (int)WHY_RECHECK)
			break;
		if (i == SERVE_CHANGES_RECHECKS)
			return answer(ch, q, c, OUT_CHANGE);
		seen = revocations(ch);
		if (srv_reauthenticate(q, c, &res)) {
			slot_free(ch, q, 0);
			atomic_fetch_add(&ch->out[OUT_UNAUTH], 1);
			return res;
		}
	}
	if (rc == CHG_WAITING)
		return MHD_YES;
	if (rc == CHG_TOKEN_FULL) {
		snprintf(msg, sizeof(msg), "this token has %u requests waiting "
		    "for changes already, the most it may: wait for one to be "
		    "answered", SERVE_CHANGES_PER_TOKEN);
		return srv_fail_retry(q, c, MHD_HTTP_TOO_MANY_REQUESTS, REJ_MAX,
		    msg, retry);
	}
	if (rc == CHG_FULL) {
		snprintf(msg, sizeof(msg), "the gate has %u requests waiting for "
		    "changes already, the most it holds: try again later",
		    ch->cap);
		return srv_fail_retry(q, c, MHD_HTTP_TOO_MANY_REQUESTS, REJ_MAX,
		    msg, retry);
	}
	/* A first call whose cursor is not the gate's, or one whose wait ran
	 * out meanwhile, or a recheck that found the cursor moved. */
	return answer(ch, q, c, rc == (int)WHY_CHANGE && why == WHY_NONE ?
	    OUT_AT_ONCE : out_of((enum chg_why)rc));
}

int
srv_changes_metrics(struct srv *s, struct dynbuf *t)
{
	struct srv_changes *ch = s->changes;
	unsigned nwait, cap;
	size_t i;
	int rc;

	if (ch == NULL)
		return 0;
	pthread_mutex_lock(&ch->lock);
	nwait = ch->nwait;
	cap = ch->cap;
	pthread_mutex_unlock(&ch->lock);
	rc = dynbuf_addf(t, "# HELP airlock_changes_waiting Requests of GET "
	    "/v1/changes waiting now.\n# TYPE airlock_changes_waiting gauge\n"
	    "airlock_changes_waiting %u\n# HELP airlock_changes_waiting_limit "
	    "Requests of GET /v1/changes that may wait at once.\n# TYPE "
	    "airlock_changes_waiting_limit gauge\n"
	    "airlock_changes_waiting_limit %u\n# HELP "
	    "airlock_changes_answered_total Answers of GET /v1/changes, by "
	    "why.\n# TYPE airlock_changes_answered_total counter\n", nwait, cap);
	for (i = 0; rc == 0 && i < OUT_MAX; i++)
		rc = dynbuf_addf(t, "airlock_changes_answered_total{why=\"%s\"} "
		    "%lu\n", out_names[i], atomic_load(&ch->out[i]));
	if (rc == 0)
		rc = dynbuf_addf(t, "# HELP airlock_changes_refused_total "
		    "Requests of GET /v1/changes refused (429), by limit.\n# TYPE "
		    "airlock_changes_refused_total counter\n"
		    "airlock_changes_refused_total{limit=\"token\"} %lu\n"
		    "airlock_changes_refused_total{limit=\"gate\"} %lu\n",
		    atomic_load(&ch->refused_token),
		    atomic_load(&ch->refused_total));
	return rc;
}
