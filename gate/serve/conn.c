/*
 * conn.c - the connections each listener holds, and the limits that keep
 * slow, idle or greedy clients from starving the others.
 *
 * Why not libmicrohttpd's own limits alone (0.9.75, as Debian 12 ships
 * it): its timeout is an idle timeout, reset by every byte, so one header
 * line every few seconds holds a connection for ever; its per-IP limit
 * means nothing on loopback, where every reviewer is 127.0.0.1; and at
 * its total limit it stops accepting, so the slow connections keep their
 * slots and a fresh client waits in the kernel's backlog. About 1,000 slow
 * connections took the review API down that way (issue 13, defect 5).
 *
 * So each listener keeps its own table of its connections (libmicrohttpd's
 * connection notifications) with the phase each is in:
 *   HEAD   waiting for a request, or reading its line and headers: nothing
 *          was admitted, nothing is lost when it is closed;
 *   BODY   the request was admitted (its token checked: the router's first
 *          call) and its body is arriving;
 *   REPLY  the endpoint answers.
 * and holds these limits (docs/operations.md, "Connections"):
 *   - HEAD has a deadline: a request's whole head within --header-timeout
 *     of the connection's start, or of the previous answer on a kept-alive
 *     connection; past it the connection is closed (with a 408 if a request
 *     line came). A byte now and then does not reset it.
 *   - BODY has a floor: at least SERVE_BODY_MIN_BYTES in every
 *     --body-timeout seconds. Uploads may be large and slow, honestly, so
 *     this is no deadline; a body that trickles below ~270 bytes/s is no
 *     upload. An answer being sent (REPLY) is bounded by libmicrohttpd's
 *     idle timeout, the same --body-timeout.
 *   - At most --max-connections open per listener. A new connection past
 *     it closes the one that has waited longest in HEAD (an idle or slow
 *     one), so a fresh client is served at once however many slow ones
 *     there are; only when every connection is busy with an admitted
 *     request is the new one refused (503).
 *   - Per client, a quarter of that, evicting among the client's own
 *     connections first. A client is a uid on the intake socket (its
 *     SO_PEERCRED), an address on TCP - but not loopback, where every
 *     client has the same address and only the total limit and the
 *     eviction order tell them apart.
 *   - A request line with more than SERVE_MAX_QUERY_ARGS query arguments
 *     is answered 414 at once: libmicrohttpd runs out of its connection
 *     memory storing a few hundred, and then neither answers nor completes
 *     the request (the connection hung for its timeout and the request's
 *     state leaked).
 * The intake socket and the API listener each have their own table and
 * limits: a flood on one never takes the other's slots. The request's
 * state (struct req, router.c) is owned here from its request line on, so
 * that a request libmicrohttpd never completes is freed when its
 * connection closes.
 *
 * Closing a connection from here is shutdown(2) of its socket, under the
 * table's lock: libmicrohttpd reads the end and closes it in its own
 * thread, and it takes the connection out of the table (the CLOSED
 * notification, under the same lock) before it closes the descriptor, so
 * the one shut down is never a reused number. An answer (408, 414, 503)
 * is written to the socket just before: in HEAD and BODY libmicrohttpd is
 * writing nothing on it.
 *
 * Trust: the peers are hostile; nothing they send is read here but the
 * number of arguments in a request line.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "err.h"
#include "os.h"
#include "serve.h"

enum conn_phase { PH_HEAD, PH_BODY, PH_REPLY };

struct srv_conn {
	struct srv_conn *prev, *next;     /* the listener's table, oldest first */
	int fd;
	enum conn_phase phase;
	double since;                     /* al_mono_now() when the phase began */
	uint64_t client;                  /* 0: not limited per client */
	struct req *req;                  /* from its request line to its end */
	int cut;                          /* shut down from here */
	atomic_uint_least64_t body;       /* body bytes of this request */
	uint64_t mark;                    /* body when the window began */
	double window;                    /* when the window began */
};

static const char *const cut_names[CUT_MAX] = {
	"evicted", "refused", "header_timeout", "slow_body", "too_many_args",
	"stopping",
};

/* Writes a whole answer (a JSON error, the connection closed after it)
 * straight to the socket, if it fits now; the socket is non-blocking. */
static void
answer(int fd, unsigned status, const char *msg)
{
	char body[256], buf[768];
	const char *reason = status == 408 ? "Request Timeout" : status == 414 ?
	    "URI Too Long" : "Service Unavailable";
	int nb, n;

	nb = snprintf(body, sizeof(body), "{\"error\": \"%s\"}\n", msg);
	if (nb < 0 || (size_t)nb >= sizeof(body))
		return;
	n = snprintf(buf, sizeof(buf), "HTTP/1.1 %u %s\r\nContent-Type: "
	    "application/json\r\nCache-Control: no-store\r\n"
	    "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
	    "Content-Security-Policy: " SRV_API_CSP "\r\n%sConnection: close\r\n"
	    "Content-Length: %d\r\n\r\n%s", status, reason, status == 503 ?
	    "Retry-After: 1\r\n" : "", nb, body);
	if (n > 0 && (size_t)n < sizeof(buf))
		(void)send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Reads and drops what is waiting on fd (at most 256 KiB; it does not
 * wait). */
static void
drain(int fd)
{
	char buf[16384];
	int i;

	for (i = 0; i < 16; i++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
}

/* Closes k (held under l->lock): its answer first, when status is not 0. */
static void
cut(struct srv_listener *l, struct srv_conn *k, enum srv_cut why,
    unsigned status, const char *msg)
{
	if (k->cut)
		return;
	k->cut = 1;
	l->nlive--;
	atomic_fetch_add(&l->cuts[why], 1);
	if (status != 0) {
		/* The answer, then our FIN; what the client sent meanwhile is
		 * read and dropped, so that the close that follows has no
		 * unread input and sends no RST: an RST would discard what our
		 * kernel has not sent yet, and some clients' kernels drop what
		 * they received but was not read. */
		answer(k->fd, status, msg);
		(void)shutdown(k->fd, SHUT_WR);
		drain(k->fd);
	}
	(void)shutdown(k->fd, SHUT_RDWR);
}

/* Who the peer is, for the per-client limit: its uid on the intake
 * socket, its IPv4 address on TCP; 0 when it cannot be told apart from
 * other clients (loopback) or not known. */
static uint64_t
client_of(const struct srv_listener *l, struct MHD_Connection *c, int fd)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr_in *sin;
	struct ucred cr;
	socklen_t len = sizeof(cr);
	uint32_t a;

	if (l->intake)
		return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 ?
		    (uint64_t)cr.uid + 1 : 0;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || ci->client_addr == NULL ||
	    ci->client_addr->sa_family != AF_INET)
		return 0;
	sin = (const struct sockaddr_in *)(const void *)ci->client_addr;
	a = ntohl(sin->sin_addr.s_addr);
	return (a >> 24) == 127 ? 0 : (1ULL << 32) | a;
}

/* The connection that has waited longest for its request or in its head,
 * other than self: any client's when all, else client's; NULL if none. */
static struct srv_conn *
oldest_head(const struct srv_listener *l, const struct srv_conn *self,
    int all, uint64_t client)
{
	struct srv_conn *k, *best = NULL;

	for (k = l->head; k != NULL; k = k->next)
		if (k != self && !k->cut && k->phase == PH_HEAD &&
		    (all || k->client == client) &&
		    (best == NULL || k->since < best->since))
			best = k;
	return best;
}

/* Makes room for the new connection k, or refuses it (under l->lock). */
static void
admit_conn(struct srv_listener *l, struct srv_conn *k)
{
	const struct srv_limits *lim = &l->s->lim;
	struct srv_conn *v;
	unsigned mine = 0;

	if (l->quiescing) {
		cut(l, k, CUT_STOPPING, 503, "the gate is stopping");
		return;
	}
	if (k->client != 0) {
		for (v = l->head; v != NULL; v = v->next)
			if (!v->cut && v->client == k->client)
				mine++;
		if (mine > lim->per_client) {
			if ((v = oldest_head(l, k, 0, k->client)) != NULL)
				cut(l, v, CUT_EVICTED, v->req ? 503 : 0, "too many "
				    "connections from this client: this one, the "
				    "longest waiting for its request, was closed");
			else
				cut(l, k, CUT_REFUSED, 503, "too many connections "
				    "from this client, all of them busy");
		}
	}
	if (!k->cut && l->nlive > lim->max_conns) {
		if ((v = oldest_head(l, k, 1, 0)) != NULL)
			cut(l, v, CUT_EVICTED, v->req ? 503 : 0, "too many "
			    "connections: this one, the longest waiting for its "
			    "request, was closed");
		else
			cut(l, k, CUT_REFUSED, 503, "too many connections, all "
			    "of them busy");
	}
}

static void
conn_started(struct srv_listener *l, struct MHD_Connection *c, void **ctx)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_CONNECTION_FD);
	struct srv_conn *k;

	if (ci == NULL)
		return;
	if ((k = calloc(1, sizeof(*k))) == NULL) {
		/* Not tracked is not limited: no room, no connection. */
		atomic_fetch_add(&l->cuts[CUT_REFUSED], 1);
		(void)shutdown(ci->connect_fd, SHUT_RDWR);
		return;
	}
	k->fd = ci->connect_fd;
	k->client = client_of(l, c, k->fd);
	k->phase = PH_HEAD;
	k->since = al_mono_now();
	pthread_mutex_lock(&l->lock);
	k->prev = l->tail;
	if (l->tail != NULL)
		l->tail->next = k;
	else
		l->head = k;
	l->tail = k;
	l->nlive++;
	atomic_fetch_add(&l->accepted, 1);
	*ctx = k;
	admit_conn(l, k);
	pthread_mutex_unlock(&l->lock);
}

static void
conn_closed(struct srv_listener *l, void **ctx)
{
	struct srv_conn *k = *ctx;

	if (k == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	if (k->prev != NULL)
		k->prev->next = k->next;
	else
		l->head = k->next;
	if (k->next != NULL)
		k->next->prev = k->prev;
	else
		l->tail = k->prev;
	if (!k->cut)
		l->nlive--;
	pthread_mutex_unlock(&l->lock);
	/* A request libmicrohttpd never completed (it does not, when it ran
	 * out of memory in the request line): its state goes with it. */
	srv_req_free(k->req);
	free(k);
	*ctx = NULL;
}

void
srv_conn_notify(void *cls, struct MHD_Connection *c, void **ctx,
    enum MHD_ConnectionNotificationCode code)
{
	struct srv_listener *l = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		conn_started(l, c, ctx);
	else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
		conn_closed(l, ctx);
}

static struct srv_conn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

/* The number of arguments libmicrohttpd will store from uri's query. */
static size_t
query_args(const char *uri)
{
	const char *p = strchr(uri, '?');
	size_t n = 0;

	if (p == NULL)
		return 0;
	for (n = 1; *p != '\0'; p++)
		n += *p == '&';
	return n;
}

void
srv_conn_request(struct srv_listener *l, struct MHD_Connection *c,
    struct req *q, const char *uri)
{
	struct srv_conn *k = conn_of(c);
	struct req *old;
	char msg[96];

	if (k == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	old = k->req;
	k->req = q;
	q->conn = k;
	if (query_args(uri) > SERVE_MAX_QUERY_ARGS) {
		snprintf(msg, sizeof(msg), "more than %u query arguments",
		    SERVE_MAX_QUERY_ARGS);
		cut(l, k, CUT_ARGS, 414, msg);
	}
	pthread_mutex_unlock(&l->lock);
	/* The one before was never completed by libmicrohttpd. */
	srv_req_free(old);
}

static void
set_phase(struct req *q, enum conn_phase ph)
{
	struct srv_conn *k = q->conn;
	struct srv_listener *l = q->listener;

	if (k == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	k->phase = ph;
	k->since = k->window = al_mono_now();
	k->mark = 0;
	atomic_store(&k->body, 0);
	pthread_mutex_unlock(&l->lock);
}

int
srv_conn_closed(const struct req *q)
{
	struct srv_conn *k = q->conn;
	int cutoff;

	if (k == NULL)
		return 0;
	pthread_mutex_lock(&q->listener->lock);
	cutoff = k->cut;
	pthread_mutex_unlock(&q->listener->lock);
	return cutoff;
}

void
srv_conn_admitted(struct req *q)
{
	set_phase(q, PH_BODY);
}

void
srv_conn_replying(struct req *q)
{
	set_phase(q, PH_REPLY);
}

void
srv_conn_body(struct req *q, size_t n)
{
	if (q->conn != NULL)
		atomic_fetch_add(&q->conn->body, n);
}

void
srv_conn_done(struct req *q)
{
	struct srv_conn *k = q->conn;
	struct srv_listener *l = q->listener;

	if (k == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	if (k->req == q)
		k->req = NULL;
	k->phase = PH_HEAD;
	k->since = al_mono_now();
	pthread_mutex_unlock(&l->lock);
	q->conn = NULL;
}

/* One look at every connection (under l->lock). */
static void
sweep(struct srv_listener *l, double now)
{
	const struct srv_limits *lim = &l->s->lim;
	struct srv_conn *k;
	char msg[128];
	uint64_t b;

	for (k = l->head; k != NULL; k = k->next) {
		if (k->cut)
			continue;
		if (k->phase == PH_HEAD && l->quiescing) {
			cut(l, k, CUT_STOPPING, k->req ? 503 : 0,
			    "the gate is stopping");
		} else if (k->phase == PH_HEAD && now - k->since >=
		    (double)lim->header_timeout) {
			snprintf(msg, sizeof(msg), "the request's headers did not "
			    "come within %u s", lim->header_timeout);
			cut(l, k, CUT_HEADER_TIMEOUT, k->req ? 408 : 0, msg);
		} else if (k->phase == PH_BODY && now - k->window >=
		    (double)lim->body_timeout) {
			b = atomic_load(&k->body);
			if (b - k->mark < SERVE_BODY_MIN_BYTES) {
				snprintf(msg, sizeof(msg), "the request body came "
				    "too slowly (less than %u bytes in %u s)",
				    SERVE_BODY_MIN_BYTES, lim->body_timeout);
				cut(l, k, CUT_SLOW_BODY, 408, msg);
			} else {
				k->mark = b;
				k->window = now;
			}
		}
	}
}

static void *
reaper(void *arg)
{
	struct srv_listener *l = arg;
	struct timespec ts;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		(void)pthread_cond_timedwait(&l->tick, &l->lock, &ts);
		if (!l->stop)
			sweep(l, al_mono_now());
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

int
srv_listener_start(struct srv_listener *l)
{
	pthread_condattr_t ca;
	size_t i;

	l->head = l->tail = NULL;
	l->nlive = 0;
	l->quiescing = l->stop = l->started = 0;
	atomic_store(&l->accepted, 0);
	for (i = 0; i < CUT_MAX; i++)
		atomic_store(&l->cuts[i], 0);
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->tick, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&l->reaper, NULL, reaper, l) != 0) {
		pthread_cond_destroy(&l->tick);
		pthread_mutex_destroy(&l->lock);
		return al_err_set(AL_EIO, "cannot start a thread");
	}
	l->started = 1;
	l->s->listeners[l->intake ? 1 : 0] = l;
	return 0;
}

void
srv_listener_quiesce(struct srv_listener *l)
{
	if (l == NULL || !l->started)
		return;
	pthread_mutex_lock(&l->lock);
	l->quiescing = 1;
	pthread_cond_signal(&l->tick);
	pthread_mutex_unlock(&l->lock);
}

void
srv_listener_stop(struct srv_listener *l)
{
	if (l == NULL || !l->started)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = 1;
	pthread_cond_signal(&l->tick);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->reaper, NULL);
	l->s->listeners[l->intake ? 1 : 0] = NULL;
	/* libmicrohttpd's stop closed every connection (and told us). */
	pthread_cond_destroy(&l->tick);
	pthread_mutex_destroy(&l->lock);
	l->started = 0;
}

unsigned
srv_conn_cap(const struct srv_limits *lim)
{
	/* Room over the limit for the connections closed here that
	 * libmicrohttpd has not yet let go, and for the one being refused. */
	return lim->max_conns + lim->max_conns / 2 + SERVE_THREADS;
}

int
srv_net_limits(struct srv *s, unsigned max_conns)
{
	struct rlimit rl;
	rlim_t want, reserve, fit;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return al_err_set(AL_EIO, "getrlimit: %s", strerror(errno));
	/* systemd starts services with a soft limit of 1024 and a far higher
	 * hard one: take what is allowed, up to what is ever needed. */
	want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > SERVE_NOFILE ?
	    SERVE_NOFILE : rl.rlim_max;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && getrlimit(RLIMIT_NOFILE,
		    &rl) != 0)
			return al_err_set(AL_EIO, "getrlimit: %s", strerror(errno));
	}
	s->lim.nofile = rl.rlim_cur == RLIM_INFINITY ? SERVE_NOFILE :
	    (unsigned)(rl.rlim_cur > SERVE_NOFILE ? SERVE_NOFILE : rl.rlim_cur);
	/* The gate's own descriptors: the database (file, WAL, shared
	 * memory) for every HTTP and scan thread, the launchers' pipes. */
	reserve = 64 + 4 * ((rlim_t)2 * SERVE_THREADS + s->nscan);
	/* Each connection: its socket and at most one file (an upload being
	 * written, a blob being served); two listeners at their cap. */
	fit = s->lim.nofile > reserve ? (s->lim.nofile - reserve) / 4 : 0;
	fit = fit > SERVE_THREADS ? (fit - SERVE_THREADS) * 2 / 3 : 0;
	if (fit < SERVE_MIN_CONNS)
		return al_err_set(AL_ELIMIT, "the open-file limit (%u) leaves "
		    "room for %u connections per listener, fewer than %u: raise "
		    "it (LimitNOFILE= in the unit)", s->lim.nofile, (unsigned)fit,
		    SERVE_MIN_CONNS);
	s->lim.max_conns = max_conns;
	if (max_conns > fit) {
		s->lim.max_conns = (unsigned)fit;
		fprintf(stderr, "airlock serve: --max-connections %u lowered to "
		    "%u: the open-file limit is %u\n", max_conns, (unsigned)fit,
		    s->lim.nofile);
	}
	s->lim.per_client = s->lim.max_conns / 4 > 0 ? s->lim.max_conns / 4 : 1;
	return 0;
}

int
srv_conn_metrics(struct srv *s, struct dynbuf *t)
{
	size_t i, j;
	int rc;

	rc = dynbuf_adds(t, "# HELP airlock_http_connections Open "
	    "connections, by listener.\n# TYPE airlock_http_connections "
	    "gauge\n");
	for (i = 0; rc == 0 && i < 2; i++) {
		struct srv_listener *l = s->listeners[i];
		unsigned n;

		if (l == NULL)
			continue;
		pthread_mutex_lock(&l->lock);
		n = l->nlive;
		pthread_mutex_unlock(&l->lock);
		rc = dynbuf_addf(t, "airlock_http_connections{listener=\"%s\"} "
		    "%u\n", l->intake ? "intake" : "api", n);
	}
	if (rc == 0)
		rc = dynbuf_addf(t, "# HELP airlock_http_connection_limit "
		    "Connections a listener keeps open at most.\n# TYPE "
		    "airlock_http_connection_limit gauge\n"
		    "airlock_http_connection_limit %u\n", s->lim.max_conns);
	if (rc == 0)
		rc = dynbuf_adds(t, "# HELP airlock_http_connections_total "
		    "Connections accepted, by listener.\n# TYPE "
		    "airlock_http_connections_total counter\n");
	for (i = 0; rc == 0 && i < 2; i++)
		if (s->listeners[i] != NULL)
			rc = dynbuf_addf(t, "airlock_http_connections_total{"
			    "listener=\"%s\"} %lu\n", i ? "intake" : "api",
			    atomic_load(&s->listeners[i]->accepted));
	if (rc == 0)
		rc = dynbuf_adds(t, "# HELP airlock_http_connections_closed_total "
		    "Connections the gate closed before their answer, by listener "
		    "and reason.\n# TYPE airlock_http_connections_closed_total "
		    "counter\n");
	for (i = 0; rc == 0 && i < 2; i++)
		for (j = 0; rc == 0 && s->listeners[i] != NULL && j < CUT_MAX; j++)
			rc = dynbuf_addf(t, "airlock_http_connections_closed_total{"
			    "listener=\"%s\",reason=\"%s\"} %lu\n", i ? "intake" :
			    "api", cut_names[j],
			    atomic_load(&s->listeners[i]->cuts[j]));
	return rc;
}
