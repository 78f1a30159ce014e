/*
 * metrics.c - /metrics in Prometheus' text format: submissions by
 * state, the queue, scans by verdict and time, refusals by reason, 5xx
 * answers by status, integrity alarms by where they were seen, the
 * listeners' connections (conn.c) and the long-poll's waiters
 * (changes.c).
 *
 * Trust: auditors and admins only; nothing here names a submission.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "serve.h"

static const char *const reject_names[REJ_MAX] = {
	"unauthenticated", "forbidden", "too_large", "bad_request", "bad_host",
	"bad_origin",
};
static const double scan_buckets[] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    5, 10, 30, 60, 120};
_Static_assert(sizeof(scan_buckets) / sizeof(scan_buckets[0]) ==
    SRV_NBUCKETS, "a bound for every bucket but +Inf");

void
srv_metrics_scan(struct srv *s, enum al_verdict verdict, double secs)
{
	size_t b;

	atomic_fetch_add(&s->verdicts[verdict], 1);
	for (b = 0; b < SRV_NBUCKETS && secs > scan_buckets[b]; b++)
		;
	atomic_fetch_add(&s->buckets[b], 1);
	atomic_fetch_add(&s->scan_ms_sum, (unsigned long)(secs * 1000));
}

static size_t
degraded(struct srv *s)
{
	size_t i, n = 0;

	pthread_mutex_lock(&s->lock);
	for (i = 0; s->slots != NULL && i < s->nscan; i++)
		n += s->slots[i].fault_since != 0;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Appends to the page; the first failure is kept in *rc (and the page is
 * then not served: a truncated page would read as zeros). */
static void
put(struct dynbuf *t, int *rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
put(struct dynbuf *t, int *rc, const char *fmt, ...)
{
	va_list ap;

	if (*rc < 0)
		return;
	va_start(ap, fmt);
	*rc = dynbuf_vaddf(t, fmt, ap);
	va_end(ap);
}

enum MHD_Result
api_metrics(struct req *q, struct MHD_Connection *c, struct db *db)
{
	int64_t counts[AL_STATE_MAX];
	size_t i;
	struct dynbuf t;
	enum MHD_Result ok;
	unsigned long cum = 0;
	int rc = 0;

	if (db_submission_counts(db, counts) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	dynbuf_init(&t, 1 << 20);
	put(&t, &rc, "%s", "# HELP airlock_submissions Submissions by "
	    "state.\n# TYPE airlock_submissions gauge\n");
	for (i = 0; i < AL_STATE_MAX; i++)
		put(&t, &rc, "airlock_submissions{state=\"%s\"} %" PRId64
		    "\n", al_state_name((enum al_state)i), counts[i]);
	put(&t, &rc, "# HELP airlock_scan_queue_depth Submissions "
	    "waiting for a scan.\n# TYPE airlock_scan_queue_depth gauge\n"
	    "airlock_scan_queue_depth %" PRId64 "\n", counts[AL_STATE_RECEIVED]);
	put(&t, &rc, "%s", "# HELP airlock_scans_total Scans finished, by "
	    "verdict.\n# TYPE airlock_scans_total counter\n");
	for (i = 0; i < AL_VERDICT_MAX; i++)
		put(&t, &rc, "airlock_scans_total{verdict=\"%s\"} %lu\n",
		    al_verdict_name((enum al_verdict)i),
		    atomic_load(&q->s->verdicts[i]));
	put(&t, &rc, "%s", "# HELP airlock_scan_seconds Wall time of a "
	    "scan.\n# TYPE airlock_scan_seconds histogram\n");
	for (i = 0; i <= SRV_NBUCKETS; i++) {
		cum += atomic_load(&q->s->buckets[i]);
		if (i < SRV_NBUCKETS)
			put(&t, &rc, "airlock_scan_seconds_bucket{le=\"%g\"} "
			    "%lu\n", scan_buckets[i], cum);
		else
			put(&t, &rc, "airlock_scan_seconds_bucket{le=\"+Inf\"}"
			    " %lu\n", cum);
	}
	put(&t, &rc, "airlock_scan_seconds_sum %.3f\n"
	    "airlock_scan_seconds_count %lu\n",
	    (double)atomic_load(&q->s->scan_ms_sum) / 1000.0, cum);
	put(&t, &rc, "%s", "# HELP airlock_intake_rejections_total Requests "
	    "refused, by reason.\n# TYPE airlock_intake_rejections_total "
	    "counter\n");
	for (i = 0; i < REJ_MAX; i++)
		put(&t, &rc, "airlock_intake_rejections_total{reason="
		    "\"%s\"} %lu\n", reject_names[i],
		    atomic_load(&q->s->rejects[i]));
	put(&t, &rc, "# HELP airlock_scan_db_failures_total Scan-thread "
	    "transactions (claim, record, rescan mark) that failed.\n"
	    "# TYPE airlock_scan_db_failures_total counter\n"
	    "airlock_scan_db_failures_total %lu\n"
	    "# HELP airlock_scan_retries_total Scans whose result could not "
	    "be recorded, marked for a rescan.\n"
	    "# TYPE airlock_scan_retries_total counter\n"
	    "airlock_scan_retries_total %lu\n"
	    "# HELP airlock_scanners_degraded Scan threads that cannot "
	    "claim or record scans now (see /healthz).\n"
	    "# TYPE airlock_scanners_degraded gauge\n"
	    "airlock_scanners_degraded %zu\n",
	    atomic_load(&q->s->db_failures), atomic_load(&q->s->retries),
	    degraded(q->s));
	put(&t, &rc, "%s", "# HELP airlock_http_server_errors_total Answers "
	    "with a 5xx status (each is in the log too), by status.\n# TYPE "
	    "airlock_http_server_errors_total counter\n");
	for (i = 0; i < SRV_N5XX; i++) {
		unsigned long n = atomic_load(&q->s->server_errors[i]);

		/* The ones the gate answers always; the others once seen. */
		if (n > 0 || i == 0 || i == 3 || i == 7)
			put(&t, &rc, "airlock_http_server_errors_total{status="
			    "\"%zu\"} %lu\n", 500 + i, n);
	}
	put(&t, &rc, "%s", "# HELP airlock_integrity_alarms_total Stored bytes "
	    "that did not hash to their sha256 when read again, by where.\n"
	    "# TYPE airlock_integrity_alarms_total counter\n");
	for (i = 0; i < SRV_INT_MAX; i++)
		put(&t, &rc, "airlock_integrity_alarms_total{where=\"%s\"} %lu\n",
		    srv_integrity_where_name((enum srv_integrity_where)i),
		    atomic_load(&q->s->integrity[i]));
	if (rc == 0)
		rc = srv_conn_metrics(q->s, &t);
	if (rc == 0)
		rc = srv_changes_metrics(q->s, &t);
	if (rc < 0) {
		dynbuf_free(&t);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "the metrics do not fit in their buffer");
	}
	ok = srv_respond(c, MHD_HTTP_OK, "text/plain; version=0.0.4",
	    t.data ? t.data : "", t.len);
	dynbuf_free(&t);
	return ok;
}
