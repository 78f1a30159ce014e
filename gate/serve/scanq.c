/*
 * scanq.c - the scan threads: each claims the oldest received
 * submission (the queue is the database), has its launcher scan it in a
 * fresh sandboxed child, and records the findings, what was read and the
 * verdict in one transaction; when idle, held submissions past the
 * policy's expiry expire.
 *
 * Trust: findings come from the scan child through the launcher's checks
 * (scanners/parent/parent.c); a child that failed makes the artifact
 * unscannable. The stored bytes are hashed before the child reads them and
 * after: bytes that are not the submission's sha256 are not scanned, and
 * make it unscannable with an integrity alarm (integrity.c).
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "al_limits.h"
#include "audit.h"
#include "err.h"
#include "os.h"
#include "scan.h"
#include "serve.h"

/*
 * Whether an item's bytes are kept for review, and if not why: decided
 * here from what the gate checked, not from what the child claimed. Only
 * the members of an archive or a bundle are shown one by one; the parent
 * set content only for bytes that hash to the item's sha256.
 */
static enum al_content
item_content(struct srv *s, const struct scan_item *it, enum al_kind kind_read)
{
	if (kind_read != AL_KIND_ARCHIVE && kind_read != AL_KIND_BUNDLE)
		return AL_CONTENT_NONE;
	if (it->sha256[0] == '\0')
		return AL_CONTENT_PARTIAL;
	if (strncmp(it->type, "text/", 5) != 0)
		return AL_CONTENT_BINARY;
	if (it->size > AL_MEMBER_CONTENT_MAX)
		return AL_CONTENT_MEMBER_CAP;
	if (it->content == NULL)
		return AL_CONTENT_ARTIFACT_CAP;
	/* Durable before the row that refers to it, as at intake. */
	if (store_put(s->store, it->content, it->content_len, it->sha256) < 0) {
		fprintf(stderr, "airlock serve: keeping a member's bytes: %s\n",
		    al_err_msg());
		return AL_CONTENT_NONE;
	}
	return AL_CONTENT_KEPT;
}

/*
 * The artifact's stored bytes must hash to the submission's sha256 before
 * the scan child reads them and still after (issue 13): what was scanned
 * is what the row names. 0 when they do; else an integrity alarm, the
 * reason in why, and 1 (or a negative error when they cannot be read).
 */
static int
verify_blob(struct srv *s, struct db *db, const struct db_scan_job *job,
    int fd, const char *when, char *why, size_t n)
{
	char got[65], reason[240];
	int rc = store_blob_check(fd, job->sha256, got);

	if (rc == AL_EINVAL) {
		snprintf(reason, sizeof(reason), "%s, %s", al_err_msg(), when);
		snprintf(why, n, "integrity: %s: the store was damaged, and what "
		    "it holds is not what was submitted", reason);
		(void)srv_integrity_alarm(s, db, SRV_INT_SCAN, job->submission_id,
		    -1, NULL, job->sha256, reason);
		return 1;
	}
	if (rc < 0)
		snprintf(why, n, "the stored bytes cannot be read: %s",
		    al_err_msg());
	return rc;
}

/*
 * Waits up to ms, or until the gate stops: 1 if it is stopping. A scan
 * thread's back-off between tries of a transaction that failed.
 */
static int
backoff(struct srv *s, int64_t ms)
{
	struct timespec ts;
	int stop;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	if (!s->stopping)
		pthread_cond_timedwait(&s->wake, &s->lock, &ts);
	stop = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

/* A scan thread's transaction failed: counted, logged, reported in
 * /healthz until one succeeds. */
static void
db_fault(struct scan_slot *slot, const char *what, int64_t id)
{
	char why[256];

	atomic_fetch_add(&slot->s->db_failures, 1);
	if (id > 0)
		snprintf(why, sizeof(why), "%s of submission %" PRId64 ": %s",
		    what, id, al_err_msg());
	else
		snprintf(why, sizeof(why), "%s: %s", what, al_err_msg());
	fprintf(stderr, "airlock serve: scanner %zu: %s\n", slot->index, why);
	srv_slot_fault(slot, why);
}

/*
 * Records a finished scan, surviving a database that fails for a while (a
 * full disk, an I/O error): SCAN_RECORD_TRIES tries with a doubling back-
 * off; then the submission is marked for a rescan (back to "received",
 * event "scan.retry"), tried with the same back-off until it holds, so
 * that the thread goes on with the queue once the database recovers. A
 * gate stopping meanwhile leaves it "scanning": the next start requeues
 * it. Returns 0 when recorded, 1 when marked for a rescan, or the error.
 */
#define SCAN_RECORD_TRIES 5
#define SCAN_BACKOFF_MAX 5000   /* ms */

static int
record(struct scan_slot *slot, struct db *db, const struct db_scan_job *job,
    enum al_verdict verdict, enum al_severity worst, enum al_kind kind_read,
    const struct db_finding *df, size_t nf, const struct db_item *di,
    size_t ni)
{
	struct srv *s = slot->s;
	int64_t wait = 100;
	int tries = 0, rc;
	char why[200];

	for (;;) {
		if (tries < SCAN_RECORD_TRIES)
			rc = db_scan_finish(db, job, verdict, worst, kind_read,
			    df, nf, di, ni, NULL, al_now_ms());
		else
			rc = db_scan_requeue_one(db, job, why, al_now_ms());
		if (rc == 0) {
			srv_slot_fault(slot, NULL);
			if (tries < SCAN_RECORD_TRIES)
				return 0;
			atomic_fetch_add(&s->retries, 1);
			fprintf(stderr, "airlock serve: submission %" PRId64
			    " is scanned again (its result could not be "
			    "recorded)\n", job->submission_id);
			return 1;
		}
		/* Not running any more (requeued): nothing to record. */
		if (rc == AL_EINVAL)
			return rc;
		db_fault(slot, tries < SCAN_RECORD_TRIES ? "recording the scan" :
		    "marking for a rescan", job->submission_id);
		if (++tries == SCAN_RECORD_TRIES) {
			snprintf(why, sizeof(why), "%s", al_err_msg());
			fprintf(stderr, "airlock serve: submission %" PRId64
			    ": its scan could not be recorded; marking it for "
			    "a rescan\n", job->submission_id);
		}
		if (backoff(s, wait))
			return rc;
		if ((wait *= 2) > SCAN_BACKOFF_MAX)
			wait = SCAN_BACKOFF_MAX;
	}
}

/* Scans one claimed submission and records the outcome; *gone: the
 * launcher died (nothing more can be scanned by this thread). */
static int
scan_one(struct scan_slot *slot, struct db *db,
    const struct db_scan_job *job, int *gone)
{
	struct srv *s = slot->s;
	struct scan_launcher *l = slot->l;
	struct finding_list fl = {0};
	struct scan_item_list items = {0};
	struct db_finding *df = NULL;
	struct db_item *di = NULL;
	uint64_t bytes = 0;
	enum al_verdict verdict = AL_VERDICT_CLEAN;
	enum al_severity worst = AL_SEV_NONE;
	enum al_kind kind = job->kind, kind_read = AL_KIND_AUTO;
	int fd = -1, rc;
	char why[512] = "";
	double t0 = al_mono_now();
	size_t i;

	if (!al_kind_submittable(kind))
		kind = AL_KIND_AUTO;
	rc = store_blob_open(s->store, job->sha256, &fd);
	if (rc < 0) {
		snprintf(why, sizeof(why), "the stored bytes cannot be read: %s",
		    al_err_msg());
		if (rc == AL_ENOTFOUND)
			(void)srv_integrity_alarm(s, db, SRV_INT_SCAN,
			    job->submission_id, -1, NULL, job->sha256, "the stored "
			    "object is gone");
		rc = finding_add_builtin(&fl, AL_RULE_UNSCANNABLE, job->name, why);
	} else if ((rc = verify_blob(s, db, job, fd, "before the scan", why,
	    sizeof(why))) != 0) {
		/* Nothing is scanned: those are not the submission's bytes. */
		close(fd);
		rc = finding_add_builtin(&fl, AL_RULE_UNSCANNABLE, job->name, why);
	} else {
		struct scan_req r = {fd, job->name, job->name, &fl, &bytes, NULL,
		    kind, &items, &kind_read};

		rc = scan_launcher_scan(l, &r);
		if (rc == 0 && verify_blob(s, db, job, fd, "after the scan", why,
		    sizeof(why)) != 0) {
			/* Changed while the child read them: what it found is
			 * of other bytes. Only the reason stands. */
			finding_list_free(&fl);
			scan_item_list_free(&items);
			memset(&fl, 0, sizeof(fl));
			memset(&items, 0, sizeof(items));
			kind_read = AL_KIND_AUTO;
			rc = finding_add_builtin(&fl, AL_RULE_UNSCANNABLE, job->name,
			    why);
		}
		close(fd);
		if (rc == AL_EIO) {
			/* The launcher is gone: nothing more can be scanned here.
			 * The submission stays "scanning" and is taken again at the
			 * next start; the service stops so that it is restarted. */
			if (!s->stopping) {
				fprintf(stderr, "airlock serve: %s; stopping\n",
				    al_err_msg());
				atomic_store(&s->fatal, 1);
				kill(getpid(), SIGTERM);
			}
			*gone = 1;
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
	/* No sweep between a member's bytes and the row that refers to them. */
	pthread_rwlock_rdlock(&s->sweep_lock);
	for (i = 0; i < items.n; i++) {
		di[i].path = items.v[i].path;
		di[i].mode = items.v[i].mode;
		di[i].size = (int64_t)items.v[i].size;
		di[i].sha256 = items.v[i].sha256;
		di[i].type = items.v[i].type;
		di[i].content = verdict == AL_VERDICT_UNSCANNABLE &&
		    items.v[i].content == NULL ? AL_CONTENT_NONE :
		    item_content(s, &items.v[i], kind_read);
	}
	rc = record(slot, db, job, verdict, worst, kind_read, df, fl.n, di,
	    items.n);
	pthread_rwlock_unlock(&s->sweep_lock);
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
	if (rc == 0)
		srv_metrics_scan(s, verdict, al_mono_now() - t0);
	return rc < 0 ? rc : 0;
}

/*
 * The store's sweep: objects no row refers to (their commit failed after
 * the bytes were stored, or the gate died between the two) are removed
 * once older than SWEEP_GRACE, by the first scan thread when idle, every
 * SWEEP_EVERY. It holds sweep_lock for writing, so no commit can come to
 * refer to an object between the look-up and the unlink; an object stored
 * again has its mtime renewed (store.c), so it is not old.
 */
#define SWEEP_GRACE 3600        /* s */
#define SWEEP_EVERY (600 * 1000) /* ms */
#define SWEEP_MAX 10000         /* objects removed a sweep */

struct refs {
	char (*v)[65];
	size_t n;
};

static int
referenced(const char *sha256, void *arg)
{
	const struct refs *r = arg;

	return bsearch(sha256, r->v, r->n, sizeof(*r->v),
	    (int (*)(const void *, const void *))strcmp) != NULL;
}

static void
sweep(struct srv *s, struct db *db)
{
	struct refs r = {0};
	size_t n = 0;
	int rc;

	if (s->swept_at != 0 && al_now_ms() - s->swept_at < SWEEP_EVERY)
		return;
	if (pthread_rwlock_trywrlock(&s->sweep_lock) != 0)
		return;           /* a commit is on its way: next time */
	s->swept_at = al_now_ms();
	rc = db_object_refs(db, &r.v, &r.n);
	if (rc == 0)
		rc = store_sweep(s->store, al_now_ms() / 1000 - SWEEP_GRACE,
		    SWEEP_MAX, referenced, &r, &n);
	pthread_rwlock_unlock(&s->sweep_lock);
	free(r.v);
	if (rc < 0)
		fprintf(stderr, "airlock serve: sweeping the store: %s\n",
		    al_err_msg());
	else if (n > 0)
		fprintf(stderr, "airlock serve: swept %zu object%s no row refers "
		    "to\n", n, n == 1 ? "" : "s");
}

/*
 * The audit log's periodic checkpoint (the policy's audit.checkpoint_*),
 * looked at every few seconds by scan thread 0: after ckpt_events events,
 * or ckpt_interval after the last checkpoint if the log grew since.
 */
#define CKPT_LOOK_EVERY 5000    /* ms */

static void
checkpoint_tick(struct srv *s, struct db *db)
{
	struct db_checkpoint *last = NULL;
	uint64_t size = 0;
	size_t n = 0;
	int64_t now = al_now_ms();
	const char *why = NULL;
	int made = 0;

	if (now - s->ckpt_looked_at < CKPT_LOOK_EVERY)
		return;
	s->ckpt_looked_at = now;
	if (db_audit_size(db, &size) < 0 ||
	    db_checkpoint_list(db, 1, &last, &n) < 0) {
		fprintf(stderr, "airlock serve: audit checkpoint: %s\n",
		    al_err_msg());
		return;
	}
	if (n == 0 || (int64_t)(size - last[0].size) >= s->ckpt_events)
		why = "events";
	else if (size > last[0].size && now - last[0].at >= s->ckpt_interval)
		why = "time";
	db_checkpoint_list_free(last, n);
	if (why != NULL && gate_checkpoint_make(db, s->datadir, why, now, 0,
	    &made) < 0)
		fprintf(stderr, "airlock serve: audit checkpoint: %s\n",
		    al_err_msg());
}

void *
srv_scan_thread(void *arg)
{
	struct scan_slot *slot = arg;
	struct srv *s = slot->s;
	struct db *db = srv_db(s);
	int64_t claim_wait = 100;

	if (db == NULL) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		atomic_store(&s->fatal, 1);
		kill(getpid(), SIGTERM);
		return NULL;
	}
	for (;;) {
		struct db_scan_job job;
		int rc, gone = 0;

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
			int failed = 0;

			/* Idle: held submissions past the policy's expiry (a
			 * failure is reported, and tried again next time). */
			if (s->hold_expiry > 0) {
				if (db_expire_held(db, al_now_ms() - s->hold_expiry,
				    al_now_ms(), &expired) < 0)
					failed = 1;
				else if (expired > 0)
					fprintf(stderr, "airlock serve: %zu held "
					    "submission%s expired\n", expired,
					    expired == 1 ? "" : "s");
			}
			/* The claim worked (nothing to scan): healthy, unless
			 * the expiry failed. */
			claim_wait = 100;
			if (failed)
				db_fault(slot, "expiring held submissions", 0);
			else
				srv_slot_fault(slot, NULL);

			/* A launcher that died while idle stops the gate now,
			 * as one that dies during a scan does, so that the
			 * supervisor restarts it before work piles up. */
			if (!scan_launcher_alive(slot->l)) {
				if (!s->stopping) {
					fprintf(stderr, "airlock serve: scan launcher "
					    "%zu exited; stopping\n", slot->index);
					atomic_store(&s->fatal, 1);
					kill(getpid(), SIGTERM);
				}
				break;
			}
			if (slot->index == 0) {
				sweep(s, db);
				checkpoint_tick(s, db);
			}
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_mutex_lock(&s->lock);
			if (!s->stopping)
				pthread_cond_timedwait(&s->wake, &s->lock, &ts);
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		if (rc < 0) {
			/* The database failed (a full disk, an I/O error): try
			 * again with a back-off, degraded until it works. */
			db_fault(slot, "claiming a scan", 0);
			if (backoff(s, claim_wait))
				break;
			if ((claim_wait *= 2) > SCAN_BACKOFF_MAX)
				claim_wait = SCAN_BACKOFF_MAX;
			continue;
		}
		claim_wait = 100;
		srv_slot_fault(slot, NULL);
		atomic_fetch_add(&s->active, 1);
		rc = scan_one(slot, db, &job, &gone);
		atomic_fetch_sub(&s->active, 1);
		if (rc < 0 && !(gone && s->stopping))
			fprintf(stderr, "airlock serve: scanning submission %" PRId64
			    ": %s\n", job.submission_id, al_err_msg());
		db_scan_job_clear(&job);
		if (gone)
			break;
		if (slot->index == 0)
			checkpoint_tick(s, db);
	}
	return NULL;
}
