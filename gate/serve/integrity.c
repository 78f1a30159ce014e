/*
 * integrity.c - the integrity alarm: stored bytes that, read again, do not
 * hash to their sha256 (or are gone, or of another size). The gate reads
 * the store again to serve content for review (view.c, before the first
 * byte goes and again while it streams), to scan it (scanq.c, before and
 * after the scan child reads it) and to release it (release.c). A stored
 * object is never rewritten, so one that does not verify was damaged: the
 * disk, or someone with access to the data directory.
 *
 * Each alarm is a line in the log, a count in /metrics
 * (airlock_integrity_alarms_total, by where it was seen), and the event
 * "integrity.mismatch" on the submission. Seen by a review read, the
 * submission also goes back to be scanned (db_integrity_alarm) if it was
 * held or approved: its approvals and views were of a scan whose bytes the
 * gate can no longer vouch for. The scan verifies the artifact first, and
 * one that does not verify is unscannable; a damaged kept item of an
 * intact artifact is kept afresh by that scan (the store replaces an object
 * with bytes that hash to its name).
 *
 * Trust: the bytes are never shown or logged; messages name the
 * submission, the object (its sha256) and what it hashes to, in the gate's
 * words. The alarm's writes are the gate's own (the guard is off).
 */
#include <inttypes.h>
#include <stdio.h>

#include "err.h"
#include "os.h"
#include "serve.h"

static const char *const where_names[SRV_INT_MAX] = {
	[SRV_INT_CONTENT] = "content", [SRV_INT_ITEM] = "item",
	[SRV_INT_SCAN] = "scan", [SRV_INT_RELEASE] = "release",
	[SRV_INT_LOG] = "log",
};

const char *
srv_integrity_where_name(enum srv_integrity_where w)
{
	return (unsigned)w < SRV_INT_MAX ? where_names[w] : "other";
}

int
srv_integrity_alarm(struct srv *s, struct db *db,
    enum srv_integrity_where where, int64_t id, int64_t item,
    const char *path, const char *sha256, const char *why)
{
	char detail[768], itempart[384] = "";
	int64_t guard = 0;
	int rc, requeued = 0, rescan = where == SRV_INT_CONTENT ||
	    where == SRV_INT_ITEM;

	if ((unsigned)where < SRV_INT_MAX)
		atomic_fetch_add(&s->integrity[where], 1);
	if (item >= 0)
		snprintf(itempart, sizeof(itempart), " item=%" PRId64 " path=%s",
		    item, path ? path : "");
	snprintf(detail, sizeof(detail), "where=%s object=%s%s: %s",
	    srv_integrity_where_name(where), sha256, itempart, why);
	if (db != NULL)
		guard = db_guard_set(db, 0, NULL);
	rc = db != NULL ? db_integrity_alarm(db, id, detail, rescan,
	    al_now_ms(), &requeued) : AL_EIO;
	if (db != NULL)
		(void)db_guard_set(db, guard, al_now_ms);
	fprintf(stderr, "airlock serve: integrity alarm: submission %" PRId64
	    ", %s%s%s%s\n", id, detail, requeued ? "; it is scanned again" : "",
	    rc < 0 ? "; the event could not be recorded: " : "",
	    rc < 0 ? al_err_msg() : "");
	if (requeued) {
		pthread_mutex_lock(&s->lock);
		pthread_cond_broadcast(&s->wake);
		pthread_mutex_unlock(&s->lock);
	}
	return requeued;
}
