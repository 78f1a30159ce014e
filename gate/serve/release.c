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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest.h"
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

/* The in-toto statement of a release. */
static json_t *
statement(struct db *db, const struct req *q,
    const struct db_submission *b, const char *keyid, int64_t now)
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
		json_array_append_new(appr, json_pack("{s:s, s:o, s:o, s:s, s:s}",
		    "reviewer", a[i].reviewer, "person", srv_json_str(a[i].person),
		    "at", srv_json_time(a[i].at), "sha256", a[i].sha256, "ruleset",
		    a[i].ruleset_digest));
	st = json_pack("{s:s, s:[{s:s, s:{s:s}}], s:s, s:{s:o, s:o, s:{s:o}, "
	    "s:o, s:o, s:{s:s, s:s, s:s, s:o}, s:o, s:o, s:o, s:s}}",
	    "_type", ATTEST_STATEMENT_TYPE,
	    "subject", "name", b->name, "digest", "sha256", b->sha256,
	    "predicateType", ATTEST_PREDICATE_TYPE,
	    "predicate",
	    "submitter", srv_json_str(b->submitter_name),
	    "launched_by", srv_json_str(b->launched_by),
	    "agent_asserted", "labels", asserted,
	    "received_at", srv_json_time(b->received_at),
	    "kind", srv_json_str(b->kind_read != AL_KIND_AUTO ?
	    al_kind_name(b->kind_read) : NULL),
	    "scan", "ruleset", si.ruleset_digest ? si.ruleset_digest : "",
	    "engine", si.engine_version ? si.engine_version : "",
	    "verdict", b->verdict != AL_VERDICT_NONE ?
	    al_verdict_name(b->verdict) : "", "findings", counts,
	    "approvals", appr,
	    "released_at", srv_json_time(now),
	    "released_by", json_string(q->who.name),
	    "gate_key", keyid);
	{
		/* An unscannable verdict released on an admin's word says so. */
		char *admin = NULL, *reason = NULL;
		int64_t oat = 0;

		if (st != NULL && db_override_get(db, b->id, &admin, &reason,
		    &oat) == 0)
			json_object_set_new(json_object_get(st, "predicate"),
			    "override", json_pack("{s:s, s:s, s:o}", "admin", admin,
			    "reason", reason, "at", srv_json_time(oat)));
		free(admin);
		free(reason);
	}
	db_scan_info_clear(&si);
	db_findings_free(f, nf);
	db_approvals_free(a, na);
	return st;
}

enum MHD_Result
api_release(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv *s = q->s;
	struct db_submission b;
	char keyid[65], *env = NULL;
	EVP_PKEY *key = NULL;
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
	/* Exactly the approved bytes, read again now. */
	if (rehash(s, db, b.id, b.sha256) < 0) {
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_CONFLICT, REJ_MAX, "the stored bytes do "
		    "not match the approved sha256: nothing was released");
	}
	/* The key on disk now: `airlock key rotate` takes effect at the next
	 * release, without a restart. */
	if ((rc = attest_key_load(s->datadir, &key)) < 0 ||
	    (rc = attest_keyid(key, keyid)) < 0) {
		EVP_PKEY_free(key);
		db_submission_clear(&b);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "cannot load the signing key");
	}
	st = statement(db, q, &b, keyid, now);
	rc = st == NULL ? AL_ENOMEM : attest_sign(key, st, &env);
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
