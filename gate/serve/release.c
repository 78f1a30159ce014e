/*
 * release.c - release: the stored bytes hashed again and compared with
 * the approved sha256, an in-toto statement of what happened to them,
 * signed (DSSE, the gate's Ed25519 key), recorded; and the attestation of
 * a released submission. Releasing a released submission again answers
 * its stored attestation (CI retries), never a second, different one.
 * The key is read from DATA/keys/signing.key at each release, so that a
 * rotation (keys.c) applies at once.
 *
 * Trust: the approved sha256 is the only truth about the bytes; a store
 * that no longer holds them refuses the release, and says so in the log,
 * the metrics and an "integrity.mismatch" event (integrity.c); the
 * approval stands for those bytes, so putting them back (from a backup)
 * lets the release go through.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest.h"
#include "audit.h"
#include "err.h"
#include "os.h"
#include "serve.h"
#include "util.h"

/* The stored bytes, read again now: 0 when they hash to sha; else an
 * integrity alarm (integrity.c) when they do not or are gone, and -1. */
static int
rehash(struct srv *s, struct db *db, int64_t id, const char *sha)
{
	char got[65];
	int fd = -1, rc;

	if ((rc = store_blob_open(s->store, sha, &fd)) < 0) {
		if (rc == AL_ENOTFOUND)
			(void)srv_integrity_alarm(s, db, SRV_INT_RELEASE, id, -1, NULL,
			    sha, "the stored object is gone");
		return -1;
	}
	rc = store_blob_check(fd, sha, got);
	close(fd);
	if (rc == AL_EINVAL)
		(void)srv_integrity_alarm(s, db, SRV_INT_RELEASE, id, -1, NULL, sha,
		    al_err_msg());
	return rc < 0 ? -1 : 0;
}

/* One approval in the statement: the names by the text scheme. */
static int
approval_json(json_t *arr, const struct db_approval *a)
{
	json_t *o = json_pack("{s:o, s:s, s:s}", "at", srv_json_time(a->at),
	    "sha256", a->sha256, "ruleset", a->ruleset_digest);
	int rc;

	if (o == NULL)
		return al_err_set(AL_ENOMEM, "out of memory for an approval");
	if ((rc = al_json_set_textz(o, "reviewer", a->reviewer)) < 0 ||
	    (rc = al_json_set_textz(o, "person", a->person)) < 0) {
		json_decref(o);
		return rc;
	}
	return srv_json_append(arr, o);
}

/*
 * The in-toto statement of a release. The subject's name is the agent's,
 * which intake takes only as UTF-8 (api_submission.c); the caller refuses
 * a release of any other (an older gate's row) before this is made, since
 * a statement names its subject exactly or not at all. What the predicate
 * quotes of the agent and of people (labels, names, the override's
 * reason) goes by the text scheme, as in the API.
 */
static int
statement(json_t **out, struct db *db, const struct req *q,
    const struct db_submission *b, const struct log_evidence *ev,
    const char *keyid, int64_t now)
{
	struct db_scan_info si;
	struct db_finding *f = NULL;
	const struct db_approval *a = ev->approvals;
	size_t nf = 0, na = ev->napprovals, i, k;
	json_t *asserted = json_object(), *counts = json_object();
	json_t *appr = json_array(), *st = NULL, *pred, *ov;
	char *admin = NULL, *reason = NULL;
	int64_t oat = 0;
	int rc;

	*out = NULL;
	memset(&si, 0, sizeof(si));
	if ((rc = db_scan_latest(db, b->id, &si)) < 0 ||
	    (rc = db_findings_get(db, b->id, &f, &nf)) < 0)
		goto out;
	if (asserted == NULL || counts == NULL || appr == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; rc == 0 && i < b->nlabels; i++)
		rc = al_json_set_textz(asserted, b->labels[i].key,
		    b->labels[i].value);
	for (k = 0; rc == 0 && k < AL_SEV_MAX; k++) {
		json_int_t n = 0;

		for (i = 0; i < nf; i++)
			n += f[i].severity == (enum al_severity)k;
		rc = srv_json_set(counts, al_severity_name((enum al_severity)k),
		    json_integer(n));
	}
	for (i = 0; rc == 0 && i < na; i++)
		rc = approval_json(appr, &a[i]);
	if (rc < 0)
		goto out;
	st = json_pack("{s:s, s:[{s:s, s:{s:s}}], s:s, s:{s:{s:O}, "
	    "s:o, s:o, s:{s:s, s:s, s:s, s:O}, s:O, s:o, s:s}}",
	    "_type", ATTEST_STATEMENT_TYPE,
	    "subject", "name", b->name, "digest", "sha256", b->sha256,
	    "predicateType", ATTEST_PREDICATE_TYPE,
	    "predicate",
	    "agent_asserted", "labels", asserted,
	    "received_at", srv_json_time(b->received_at),
	    "kind", srv_json_str(b->kind_read != AL_KIND_AUTO ?
	    al_kind_name(b->kind_read) : NULL),
	    "scan", "ruleset", ev->ruleset,
	    "engine", si.engine_version ? si.engine_version : "",
	    "verdict", ev->verdict, "findings", counts,
	    "approvals", appr,
	    "released_at", srv_json_time(now),
	    "gate_key", keyid);
	if (st == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory for the statement");
		goto out;
	}
	pred = json_object_get(st, "predicate");
	/* The signed checkpoint whose entries this statement was made from
	 * (docs/audit.md): the release event itself is under the next. */
	if ((rc = srv_json_set(pred, "audit_log", json_pack("{s:I, s:I}",
	    "checkpoint", (json_int_t)ev->ckpt_id, "size",
	    (json_int_t)ev->ckpt_size))) < 0)
		goto out;
	if ((rc = al_json_set_textz(pred, "submitter", b->submitter_name)) < 0 ||
	    (rc = al_json_set_textz(pred, "launched_by", b->launched_by)) < 0 ||
	    (rc = al_json_set_textz(pred, "released_by", q->who.name)) < 0)
		goto out;
	/* An unscannable verdict released on an admin's word says so. */
	if ((rc = db_override_get(db, b->id, &admin, &reason, &oat)) == 0) {
		if ((ov = json_pack("{s:o}", "at", srv_json_time(oat))) == NULL)
			rc = al_err_set(AL_ENOMEM, "out of memory");
		else if ((rc = srv_json_set(pred, "override", ov)) == 0 &&
		    (rc = al_json_set_textz(ov, "admin", admin)) == 0)
			rc = al_json_set_textz(ov, "reason", reason);
	} else if (rc == AL_ENOTFOUND) {
		rc = 0;
	}
out:
	free(admin);
	free(reason);
	json_decref(asserted);
	json_decref(counts);
	json_decref(appr);
	db_scan_info_clear(&si);
	db_findings_free(f, nf);
	if (rc < 0) {
		json_decref(st);
		return rc;
	}
	*out = st;
	return 0;
}

/* One release at a time: each reads the submission's state, the log's
 * evidence and then records, and two of one submission at once would
 * each find the other's release in the log (a false integrity alarm) or
 * sign twice. Releases are rare and short; the others wait. */
static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;

static enum MHD_Result release_locked(struct req *q, struct MHD_Connection *c,
    struct db *db);

enum MHD_Result
api_release(struct req *q, struct MHD_Connection *c, struct db *db)
{
	enum MHD_Result r;

	pthread_mutex_lock(&release_lock);
	r = release_locked(q, c, db);
	pthread_mutex_unlock(&release_lock);
	return r;
}

static enum MHD_Result
release_locked(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv *s = q->s;
	struct db_submission b;
	char keyid[65], *env = NULL;
	EVP_PKEY *key = NULL;
	struct log_evidence ev = {0};
	int64_t now = al_now_ms();
	json_t *st;
	enum MHD_Result ok;
	int rc;

	if (!(s->release_roles & ROLE(q->who.role)))
		return srv_fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN, "the policy "
		    "does not let this role release");
	if (db_submission_get(db, q->id, &b) < 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "no such submission");
	/* Released already (a CI retry): the same stored attestation, not a
	 * second one. */
	if (b.state == AL_STATE_RELEASED) {
		db_submission_clear(&b);
		return api_attestation(q, c, db);
	}
	if (b.state != AL_STATE_APPROVED) {
		char msg[128];

		snprintf(msg, sizeof(msg), "submission %" PRId64 " is %s: only "
		    "approved submissions are released", b.id,
		    al_state_name(b.state));
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, msg);
	}
	/* The statement names its subject exactly: a name that is not
	 * UTF-8 (a row from before intake refused them) cannot be written,
	 * and is not replaced by one that would name other bytes. */
	if (!al_text_plain(b.name, strlen(b.name))) {
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, "the "
		    "submission's name is not UTF-8 text, and an attestation "
		    "names its subject exactly: submit the bytes again under a "
		    "UTF-8 name");
	}
	/* Exactly the approved bytes, read again now. */
	if (rehash(s, db, b.id, b.sha256) < 0) {
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, "the stored bytes do "
		    "not match the approved sha256: nothing was released");
	}
	/* The signer trusts the log, not the tables: what the statement
	 * says of the scan and the approvals, and whether the policy is met,
	 * comes from entries a signed checkpoint covers (gate/audit.c), one
	 * signed now if the log still extends the last one signed. A release
	 * the tables allow and the log does not is an integrity alarm:
	 * someone wrote to the database behind the gate's back. */
	{
		struct db_scan_info si;
		char why[768] = "";
		int made = 0, alarm = 1, storage = 0;

		memset(&si, 0, sizeof(si));
		if ((rc = gate_checkpoint_make(db, s->datadir, "prerelease", now,
		    0, &made)) < 0) {
			snprintf(why, sizeof(why), "the audit log cannot be signed: "
			    "%s: nothing was released", al_err_msg());
			alarm = rc == AL_EINVAL;
			/* A database that failed is not a conflict: 500 (507
			 * when full), to try again. */
			storage = rc == AL_EIO || rc == AL_EFULL || rc == AL_ENOMEM;
		} else if ((rc = gate_log_evidence(db, s->datadir, b.id, b.sha256,
		    &s->policy, &ev)) < 0) {
			snprintf(why, sizeof(why), "the audit log does not prove "
			    "this release: %s", al_err_msg());
		} else if (db_scan_latest(db, b.id, &si) < 0 || si.id != ev.scan) {
			snprintf(why, sizeof(why), "the audit log's latest scan of it "
			    "is %lld, the tables' %lld: nothing was released",
			    (long long)ev.scan, (long long)si.id);
		} else if (ev.voided != NULL) {
			snprintf(why, sizeof(why), "the audit log records %s after "
			    "scan %lld, though the tables say approved: nothing was "
			    "released", ev.voided, (long long)ev.scan);
		} else if (ev.uncovered > 0) {
			snprintf(why, sizeof(why), "%d entries about it are not under "
			    "a signed checkpoint yet: try again", ev.uncovered);
			alarm = 0;
		} else if (!gate_log_evidence_met(&ev)) {
			snprintf(why, sizeof(why), "the audit log proves %zu of the "
			    "%d approvals the policy needs for scan %lld (verdict "
			    "%s, worst %s)%s, though the tables say approved: "
			    "nothing was released", ev.napprovals, ev.needed,
			    (long long)ev.scan, ev.verdict[0] ? ev.verdict : "none",
			    ev.worst[0] ? ev.worst : "none",
			    strcmp(ev.verdict, "unscannable") == 0 && !ev.override ?
			    " and no override" : "");
		}
		db_scan_info_clear(&si);
		if (why[0] != '\0') {
			if (alarm)
				(void)srv_integrity_alarm(s, db, SRV_INT_LOG, b.id, -1,
				    NULL, b.sha256, why);
			log_evidence_clear(&ev);
			db_submission_clear(&b);
			return storage ? srv_fail_write(q, c, rc, why) :
			    srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, why);
		}
	}
	/* The key on disk now: `airlock key rotate` takes effect at the next
	 * release, without a restart. */
	if ((rc = attest_key_load(s->datadir, &key)) < 0 ||
	    (rc = attest_keyid(key, keyid)) < 0) {
		EVP_PKEY_free(key);
		log_evidence_clear(&ev);
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "cannot load the signing key");
	}
	if ((rc = statement(&st, db, q, &b, &ev, keyid, now)) == 0)
		rc = attest_sign(key, st, &env);
	log_evidence_clear(&ev);
	json_decref(st);
	EVP_PKEY_free(key);
	if (rc == 0)
		rc = db_release(db, b.id, q->who.id, env, now);
	db_submission_clear(&b);
	if (rc < 0) {
		free(env);
		/* Separation of duties, or no longer approved: db/ says. */
		if (rc != AL_EDENIED)
			return srv_fail_write(q, c, rc, "nothing was released");
		return srv_fail(q, c, MHD_HTTP_FORBIDDEN, REJ_FORBIDDEN,
		    al_err_msg());
	}
	/* Every release is covered by a signed checkpoint at once. The
	 * release stands without one (it is committed); the failure is
	 * said, and the next periodic checkpoint covers it. */
	{
		int made = 0;

		if (gate_checkpoint_make(db, s->datadir, "release", now, 0,
		    &made) < 0)
			fprintf(stderr, "airlock serve: audit checkpoint after "
			    "releasing %" PRId64 ": %s\n", q->id, al_err_msg());
	}
	ok = srv_respond(c, MHD_HTTP_OK, "application/json", env, strlen(env));
	free(env);
	return ok;
}

enum MHD_Result
api_attestation(struct req *q, struct MHD_Connection *c, struct db *db)
{
	char *env = NULL;
	int64_t at = 0;
	enum MHD_Result ok;

	if (db_release_get(db, q->id, &env, &at) < 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "not released");
	ok = srv_respond(c, MHD_HTTP_OK, "application/json", env, strlen(env));
	free(env);
	return ok;
}
