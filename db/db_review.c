/*
 * db_review.c - review and release: the facts a decision needs, the
 * approvals the policy needs and those that stand, approving, rejecting,
 * overriding an unscannable verdict, settling after a scan, sending stale
 * submissions (and those whose stored bytes failed to verify: an
 * integrity alarm) back to be scanned, releasing, expiring, and whether a
 * reviewer fetched the content (what was served, recorded per view).
 *
 * Separation of duties is by person (DESIGN.md invariant 3): every token
 * belongs to a person (an agent's to the person it was launched for), so
 * the submitter's person, which for an agent is its launched-for person,
 * can never approve, reject, override or release the submission, through
 * any of their tokens; the approvals that count are distinct persons; a
 * second approval of the same scan by the same person through another
 * token is refused (AL_EEXIST, naming the token that approved). An
 * approval is taken only from a person who was served the whole content
 * of the scan it approves, after that scan: the whole artifact without a
 * Range, or, when every item of the scan was kept, every item whole.
 *
 * Trust: callers are the gate's own code, which has authenticated the
 * principal and checked its role; this file checks the rest of the policy
 * (state, bytes, rule set, persons, evidence) inside the decision's
 * transaction. Values are bound as parameters, never pasted
 * into SQL; the one statement built with snprintf joins constant text.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db_int.h"
#include "err.h"
#include "fold.h"
#include "util.h"

/* The submission's facts that decisions need, read inside a transaction. */
struct subfacts {
	enum al_state state;
	char sha256[65];
	enum al_verdict verdict;
	enum al_severity worst;
	int64_t submitter;
	char launched_by[256];
	int64_t scan_id;          /* latest finished scan, 0: none */
	char ruleset[80];
	int64_t sub_person;       /* the submitter's person, 0: none */
	int sub_agent;            /* the submitter is an agent token */
	char sub_name[256];       /* the submitter token's name */
};

/* The deciding token and its person. */
struct actorfacts {
	char name[256];
	int64_t person;           /* 0: none */
	char person_name[512];
	char fold[AL_FOLD_MAX + 1];
};

static int
subfacts_get(struct db *db, int64_t id, struct subfacts *f)
{
	sqlite3_stmt *st;
	int rc, bad = 0;

	memset(f, 0, sizeof(*f));
	rc = dbi_prep_bind(db, &st, "SELECT s.state, s.sha256, s.verdict, "
	    "s.worst, s.submitter, ifnull(s.launched_by, ''), ifnull(c.id, 0), "
	    "ifnull(c.ruleset_digest, ''), ifnull(sp.person_id, 0), sp.role = "
	    "'agent', sp.name FROM submissions s JOIN principals sp ON sp.id = "
	    "s.submitter LEFT JOIN scans c ON c.id = " DBI_LATEST_SCAN("s.id")
	    " WHERE s.id = ?", "i", id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		f->state = (enum al_state)dbi_col_enum(st, 0, al_state_parse,
		    -1, &bad);
		snprintf(f->sha256, sizeof(f->sha256), "%s",
		    (const char *)sqlite3_column_text(st, 1));
		f->verdict = (enum al_verdict)dbi_col_enum(st, 2,
		    al_verdict_parse, AL_VERDICT_NONE, &bad);
		f->worst = (enum al_severity)dbi_col_enum(st, 3,
		    al_severity_parse, AL_SEV_NONE, &bad);
		f->submitter = sqlite3_column_int64(st, 4);
		snprintf(f->launched_by, sizeof(f->launched_by), "%s",
		    (const char *)sqlite3_column_text(st, 5));
		f->scan_id = sqlite3_column_int64(st, 6);
		snprintf(f->ruleset, sizeof(f->ruleset), "%s",
		    (const char *)sqlite3_column_text(st, 7));
		f->sub_person = sqlite3_column_int64(st, 8);
		f->sub_agent = sqlite3_column_int(st, 9);
		snprintf(f->sub_name, sizeof(f->sub_name), "%s",
		    (const char *)sqlite3_column_text(st, 10));
		rc = bad || (int)f->state < 0 ? al_err_set(AL_EIO, "submission "
		    "%lld: a state, verdict or severity the schema does not "
		    "know", (long long)id) : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no submission %lld",
		    (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

static int
actor_get(struct db *db, int64_t actor, struct actorfacts *a)
{
	sqlite3_stmt *st;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = dbi_prep_bind(db, &st, "SELECT p.name, ifnull(p.person_id, 0), "
	    "ifnull(n.name, ''), ifnull(n.fold, '') FROM principals p LEFT "
	    "JOIN persons n ON n.id = p.person_id WHERE p.id = ?", "i", actor);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		snprintf(a->name, sizeof(a->name), "%s",
		    (const char *)sqlite3_column_text(st, 0));
		a->person = sqlite3_column_int64(st, 1);
		snprintf(a->person_name, sizeof(a->person_name), "%s",
		    (const char *)sqlite3_column_text(st, 2));
		snprintf(a->fold, sizeof(a->fold), "%s",
		    (const char *)sqlite3_column_text(st, 3));
		rc = 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no such principal");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Separation of duties, by person: 0, or AL_EDENIED naming the rule and
 * the person. verb: what the actor tried ("approve", "reject"...). */
static int
sod_check(const struct subfacts *f, const struct actorfacts *a,
    int64_t actor, const char *verb)
{
	char key[AL_FOLD_MAX + 1];

	if (actor == f->submitter)
		return al_err_set(AL_EDENIED, "separation of duties: token %s "
		    "submitted this, and cannot %s it", a->name, verb);
	if (a->person == 0)
		return al_err_set(AL_EDENIED, "separation of duties: token %s "
		    "belongs to no person, and cannot %s", a->name, verb);
	if (a->person == f->sub_person && f->sub_agent)
		return al_err_set(AL_EDENIED, "separation of duties: %s is the "
		    "person agent %s was launched for, and cannot %s its "
		    "submission (with any of their tokens)", a->person_name,
		    f->sub_name, verb);
	if (a->person == f->sub_person)
		return al_err_set(AL_EDENIED, "separation of duties: %s "
		    "submitted this (token %s), and cannot %s it (with any of "
		    "their tokens)", a->person_name, f->sub_name, verb);
	/* The launcher as recorded at submission, compared the same way
	 * (the binding above covers it; this holds for older rows too). */
	if (f->launched_by[0] != '\0' && (al_name_fold(key, sizeof(key),
	    f->launched_by, strlen(f->launched_by), NULL, NULL) < 0 ||
	    strcmp(key, a->fold) == 0))
		return al_err_set(AL_EDENIED, "separation of duties: %s is the "
		    "person agent %s was launched for (as %s), and cannot %s "
		    "its submission", a->person_name, f->sub_name,
		    f->launched_by, verb);
	return 0;
}

/* 1 in *out if person holds review evidence for scan: see the header. */
static int
evidence(struct db *db, int64_t id, int64_t scan, int64_t person, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	rc = dbi_prep_bind(db, &st, "SELECT EXISTS (SELECT 1 FROM views v "
	    "JOIN principals p ON p.id = v.actor WHERE v.submission_id = ?1 "
	    "AND v.scan_id = ?2 AND p.person_id = ?3 AND v.item IS NULL AND "
	    "v.full = 1) OR (EXISTS (SELECT 1 FROM items WHERE scan_id = ?2) "
	    "AND NOT EXISTS (SELECT 1 FROM items i WHERE i.scan_id = ?2 AND "
	    "(i.content IS NOT 'kept' OR NOT EXISTS (SELECT 1 FROM views v "
	    "JOIN principals p ON p.id = v.actor WHERE v.submission_id = ?1 "
	    "AND v.scan_id = ?2 AND p.person_id = ?3 AND v.item IS NOT NULL "
	    "AND v.full = 1 AND v.sha256 = i.sha256))))", "iii", id, scan,
	    person);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		*out = sqlite3_column_int(st, 0) != 0;
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int
dbi_review_needed(enum al_verdict verdict, enum al_severity worst,
    const struct db_policy *pol)
{
	if (verdict == AL_VERDICT_UNSCANNABLE)
		return pol->unscannable;
	if (verdict == AL_VERDICT_FLAGGED)
		return worst >= AL_SEV_HIGH ? pol->high : pol->flagged;
	return pol->clean;
}

/* Counts the approvals that stand for the latest scan, and the override:
 * the SQL of db_int.h, which a page of the queue counts with too. */
static int
review_count(struct db *db, int64_t id, const struct subfacts *f,
    const struct db_policy *pol, struct db_review *out)
{
	sqlite3_stmt *st;
	int64_t n = 0, ov = 0;
	int rc;

	rc = dbi_prep_bind(db, &st, "SELECT " DBI_APPROVALS("?1", "?2", "?3")
	    ", " DBI_OVERRIDES("?1", "?2"), "iit", id, f->scan_id, f->sha256);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		n = sqlite3_column_int64(st, 0);
		ov = sqlite3_column_int64(st, 1);
		rc = 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_EIO, "submission %lld: no count of its "
		    "approvals", (long long)id);
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	out->approvals = (int)n;
	out->needed = dbi_review_needed(f->verdict, f->worst, pol);
	out->override = ov > 0;
	return 0;
}

static int
policy_met(const struct subfacts *f, const struct db_review *r)
{
	return r->approvals >= r->needed &&
	    (f->verdict != AL_VERDICT_UNSCANNABLE || r->override);
}

/* After a decision: approved when the policy is met; out filled. */
static int
settle(struct db *db, int64_t id, struct subfacts *f,
    const struct db_policy *pol, int64_t now, int64_t actor,
    struct db_review *out)
{
	sqlite3_stmt *st;
	int rc = review_count(db, id, f, pol, out);

	if (rc == 0 && f->state == AL_STATE_HELD && policy_met(f, out)) {
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'approved' WHERE id = ? AND state = 'held'", "i", id);
		if (rc == 0)
			rc = dbi_step_done(db, st);
		sqlite3_finalize(st);
		if (rc == 0)
			rc = dbi_event_addf(db, now, actor, "approved", id,
			    "approvals=%d needed=%d scan=%lld", out->approvals,
			    out->needed, (long long)f->scan_id);
		f->state = AL_STATE_APPROVED;
	}
	if (rc == 0)
		out->state = f->state;
	return rc;
}

void
db_review_clear(struct db_review *r)
{
	memset(r, 0, sizeof(*r));
}

int
db_approve(struct db *db, int64_t id, int64_t reviewer, const char *sha256,
    const char *ruleset, const char *comment, const struct db_policy *pol,
    int64_t now, struct db_review *out)
{
	struct subfacts f;
	struct actorfacts who;
	sqlite3_stmt *st;
	int rc, viewed = 0;

	memset(out, 0, sizeof(*out));
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = actor_get(db, reviewer, &who);
	if (rc == 0 && who.person != 0 && f.scan_id != 0)
		rc = evidence(db, id, f.scan_id, who.person, &viewed);
	if (rc < 0)
		goto out;
	if (f.state != AL_STATE_HELD)
		rc = al_err_set(AL_EDENIED, "submission %lld is %s, not held",
		    (long long)id, al_state_name(f.state));
	else if (strcmp(sha256, f.sha256) != 0)
		rc = al_err_set(AL_EDENIED, "the approval names other bytes "
		    "than the submission's (sha256 %.12s…)", f.sha256);
	else if (f.scan_id == 0 || strcmp(ruleset, f.ruleset) != 0)
		rc = al_err_set(AL_EDENIED, "the approval names another rule "
		    "set than the latest scan's (%.19s…): look again",
		    f.ruleset);
	else if ((rc = sod_check(&f, &who, reviewer, "approve")) < 0)
		;
	else if (!viewed)
		rc = al_err_set(AL_EDENIED, "review evidence: %s was not served "
		    "the whole content of the latest scan (airlock diff %lld "
		    "fetches it; a range, or some of the items, is not the "
		    "whole): an approval is for what was read", who.person_name,
		    (long long)id);
	if (rc < 0)
		goto out;
	/* One person counts once: another token of theirs approved this
	 * scan already. */
	rc = dbi_prep_bind(db, &st, "SELECT p.name FROM approvals a JOIN "
	    "principals p ON p.id = a.reviewer WHERE a.submission_id = ? AND "
	    "a.scan_id = ? AND p.person_id = ?", "iii", id, f.scan_id,
	    who.person);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1)
		rc = al_err_set(AL_EEXIST, "%s approved this scan already (with "
		    "token %s): a person counts once, whatever their tokens",
		    who.person_name, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc < 0)
		goto out;
	rc = dbi_prep_bind(db, &st, "INSERT INTO approvals (submission_id, "
	    "reviewer, at, comment, sha256, ruleset_digest, scan_id) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?)", "iiittti", id, reviewer, now, comment,
	    sha256, ruleset, f.scan_id);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	if (rc == AL_EEXIST)
		rc = al_err_set(AL_EEXIST, "already approved by this reviewer");
	if (rc == 0)
		rc = dbi_event_addf(db, now, reviewer, "approve", id,
		    "sha256=%s ruleset=%s scan=%lld person=%s", sha256, ruleset,
		    (long long)f.scan_id, who.person_name);
	if (rc == 0)
		rc = settle(db, id, &f, pol, now, reviewer, out);
out:
	rc = dbi_tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_reject(struct db *db, int64_t id, int64_t reviewer, const char *comment,
    int64_t now)
{
	struct actorfacts who;
	struct subfacts f;
	sqlite3_stmt *st;
	int rc;

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0 && f.state != AL_STATE_HELD)
		rc = al_err_set(AL_EDENIED, "submission %lld is %s, not held",
		    (long long)id, al_state_name(f.state));
	if (rc == 0 && (rc = actor_get(db, reviewer, &who)) == 0)
		rc = sod_check(&f, &who, reviewer, "reject");
	if (rc == 0) {
		rc = dbi_prep_bind(db, &st, "INSERT INTO rejections "
		    "(submission_id, reviewer, at, comment) VALUES (?, ?, ?, "
		    "?)", "iiit", id, reviewer, now, comment);
		if (rc == 0)
			rc = dbi_step_done(db, st);
		sqlite3_finalize(st);
	}
	if (rc == 0) {
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'rejected' WHERE id = ?", "i", id);
		if (rc == 0)
			rc = dbi_step_done(db, st);
		sqlite3_finalize(st);
	}
	if (rc == 0)
		rc = dbi_event_addf(db, now, reviewer, "reject", id,
		    "sha256=%s comment=%s", f.sha256, comment);
	return dbi_tx_end(db, rc);
}

int
db_override(struct db *db, int64_t id, int64_t admin, const char *reason,
    const struct db_policy *pol, int64_t now, struct db_review *out)
{
	struct actorfacts who;
	struct subfacts f;
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0 && f.state != AL_STATE_HELD)
		rc = al_err_set(AL_EDENIED, "submission %lld is %s, not held",
		    (long long)id, al_state_name(f.state));
	if (rc == 0 && f.verdict != AL_VERDICT_UNSCANNABLE)
		rc = al_err_set(AL_EDENIED, "only an unscannable verdict is "
		    "overridden; this one is %s", f.verdict == AL_VERDICT_NONE ?
		    "" : al_verdict_name(f.verdict));
	if (rc == 0 && (rc = actor_get(db, admin, &who)) == 0)
		rc = sod_check(&f, &who, admin, "override");
	if (rc == 0) {
		rc = dbi_prep_bind(db, &st, "INSERT INTO overrides "
		    "(submission_id, scan_id, admin, at, reason) VALUES (?, ?, "
		    "?, ?, ?)", "iiiit", id, f.scan_id, admin, now, reason);
		if (rc == 0)
			rc = dbi_step_done(db, st);
		sqlite3_finalize(st);
		if (rc == AL_EEXIST)
			rc = al_err_set(AL_EEXIST, "this scan was overridden "
			    "already");
	}
	if (rc == 0)
		rc = dbi_event_addf(db, now, admin, "override", id, "scan=%lld "
		    "reason=%s", (long long)f.scan_id, reason);
	if (rc == 0)
		rc = settle(db, id, &f, pol, now, admin, out);
	rc = dbi_tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_review_get(struct db *db, int64_t id, const struct db_policy *pol,
    struct db_review *out)
{
	struct subfacts f;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = review_count(db, id, &f, pol, out);
	if (rc == 0)
		out->state = f.state;
	rc = dbi_tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_approvals_get(struct db *db, int64_t id, struct db_approval **out,
    size_t *n_out)
{
	struct db_approval *v = NULL, *a;
	struct subfacts f;
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;
	int rc, nomem = 0;

	*out = NULL;
	*n_out = 0;
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "SELECT p.name, a.at, a.sha256, "
		    "a.ruleset_digest, a.comment, n.name FROM approvals a JOIN "
		    "principals p ON p.id = a.reviewer LEFT JOIN persons n ON "
		    "n.id = p.person_id WHERE a.id IN (SELECT min(a.id) FROM "
		    "approvals a JOIN principals p ON p.id = a.reviewer WHERE "
		    "a.submission_id = ?1 AND a.sha256 = ?3 AND p.person_id IS "
		    "NOT NULL AND (a.scan_id = ?2 OR NOT EXISTS (SELECT "
		    "fingerprint FROM findings WHERE scan_id = ?2 EXCEPT SELECT "
		    "fingerprint FROM findings WHERE scan_id = a.scan_id)) GROUP "
		    "BY p.person_id) ORDER BY a.id", "iit", id, f.scan_id,
		    f.sha256);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		a = &v[n++];
		a->reviewer = dbi_col_str(st, 0, &nomem);
		a->at = sqlite3_column_int64(st, 1);
		a->sha256 = dbi_col_str(st, 2, &nomem);
		a->ruleset_digest = dbi_col_str(st, 3, &nomem);
		a->comment = dbi_col_str(st, 4, &nomem);
		a->person = dbi_col_str(st, 5, &nomem);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	}
	sqlite3_finalize(st);
	rc = dbi_tx_end(db, rc);
	if (rc < 0) {
		db_approvals_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

void
db_approvals_free(struct db_approval *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].reviewer);
		free(v[i].person);
		free(v[i].sha256);
		free(v[i].ruleset_digest);
		free(v[i].comment);
	}
	free(v);
}

/*
 * The approvals that no longer count, and why: each was given to a scan
 * whose findings the latest one outgrew (a rescan, under new rules or after
 * an integrity alarm, found what the approver was not shown), or by a token
 * of no person. A person who has an approval that counts is not listed:
 * their other tokens' approvals are duplicates, not voided ones.
 */
int
db_approvals_voided(struct db *db, int64_t id, struct db_voided **out,
    size_t *n_out)
{
	struct db_voided *v = NULL, *a;
	struct subfacts f;
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;
	int rc, nomem = 0;

	*out = NULL;
	*n_out = 0;
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "WITH c AS (SELECT a.id, "
		    "p.person_id AS pid, (a.sha256 = ?3 AND p.person_id IS NOT "
		    "NULL AND (a.scan_id = ?2 OR NOT EXISTS (SELECT fingerprint "
		    "FROM findings WHERE scan_id = ?2 EXCEPT SELECT fingerprint "
		    "FROM findings WHERE scan_id = a.scan_id))) AS ok FROM "
		    "approvals a JOIN principals p ON p.id = a.reviewer WHERE "
		    "a.submission_id = ?1) SELECT p.name, n.name, a.at, "
		    "a.ruleset_digest, a.scan_id, (SELECT count(*) FROM (SELECT "
		    "fingerprint FROM findings WHERE scan_id = ?2 EXCEPT SELECT "
		    "fingerprint FROM findings WHERE scan_id = a.scan_id)) FROM c "
		    "JOIN approvals a ON a.id = c.id JOIN principals p ON p.id = "
		    "a.reviewer LEFT JOIN persons n ON n.id = p.person_id WHERE "
		    "NOT c.ok AND (c.pid IS NULL OR c.pid NOT IN (SELECT pid FROM "
		    "c WHERE ok AND pid IS NOT NULL)) ORDER BY a.id", "iit", id,
		    f.scan_id, f.sha256);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		if ((rc = dbi_grow(&v, &cap, n, sizeof(*v))) < 0)
			break;
		a = &v[n++];
		a->reviewer = dbi_col_str(st, 0, &nomem);
		a->person = sqlite3_column_type(st, 1) == SQLITE_NULL ? NULL :
		    dbi_col_str(st, 1, &nomem);
		a->at = sqlite3_column_int64(st, 2);
		a->ruleset_digest = dbi_col_str(st, 3, &nomem);
		a->scan_id = sqlite3_column_int64(st, 4);
		a->new_findings = sqlite3_column_int64(st, 5);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	}
	sqlite3_finalize(st);
	rc = dbi_tx_end(db, rc);
	if (rc < 0) {
		db_voided_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

void
db_voided_free(struct db_voided *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].reviewer);
		free(v[i].person);
		free(v[i].ruleset_digest);
	}
	free(v);
}

int
db_release(struct db *db, int64_t id, int64_t actor, const char *attestation,
    int64_t now)
{
	struct actorfacts who;
	struct subfacts f;
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0 && (rc = actor_get(db, actor, &who)) == 0)
		rc = sod_check(&f, &who, actor, "release");
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'released' WHERE id = ? AND state = 'approved'", "i", id);
	if (rc == 0 && (rc = dbi_step_done(db, st)) == 0 &&
	    sqlite3_changes(db->h) != 1)
		rc = al_err_set(AL_EDENIED, "submission %lld is not approved",
		    (long long)id);
	sqlite3_finalize(st);
	if (rc == 0) {
		rc = dbi_prep_bind(db, &st, "INSERT INTO releases "
		    "(submission_id, actor, at, attestation) VALUES (?, ?, ?, "
		    "?)", "iiit", id, actor, now, attestation);
		if (rc == 0)
			rc = dbi_step_done(db, st);
		sqlite3_finalize(st);
	}
	/* The event names the attestation by its digest: the log binds the
	 * release to the statement that was signed. */
	if (rc == 0) {
		char dig[AL_SHA256_HEX];

		al_sha256_hex(dig, attestation, strlen(attestation));
		rc = dbi_event_addf(db, now, actor, "release", id,
		    "attested=yes attestation_sha256=%s", dig);
	}
	return dbi_tx_end(db, rc);
}

int
db_release_get(struct db *db, int64_t id, char **attestation_out,
    int64_t *at_out)
{
	sqlite3_stmt *st;
	int rc, nomem = 0;

	*attestation_out = NULL;
	rc = dbi_prep_bind(db, &st, "SELECT attestation, at FROM releases "
	    "WHERE submission_id = ?", "i", id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		*attestation_out = dbi_col_str(st, 0, &nomem);
		*at_out = sqlite3_column_int64(st, 1);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "submission %lld was not "
		    "released", (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

int
db_expire_held(struct db *db, int64_t cutoff, int64_t now, size_t *n_out)
{
	sqlite3_stmt *st;
	int rc;

	int64_t last;

	*n_out = 0;
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	last = db_event_last_id(db);
	rc = dbi_prep_bind(db, &st, "INSERT INTO events (at, actor, action, "
	    "submission_id, detail) SELECT ?, NULL, 'expire', id, 'held since "
	    "before the cutoff' FROM submissions WHERE state = 'held' AND "
	    "received_at < ? ORDER BY id", "ii", now, cutoff);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	if (rc == 0)
		rc = dbi_audit_append_since(db, last);
	if (rc == 0)
		dbi_event_changes_since(db, last);
	if (rc == 0) {
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'expired' WHERE state = 'held' AND received_at < ?", "i",
		    cutoff);
		if (rc == 0 && (rc = dbi_step_done(db, st)) == 0)
			*n_out = (size_t)sqlite3_changes(db->h);
		sqlite3_finalize(st);
	}
	return dbi_tx_end(db, rc);
}

int
db_viewed(struct db *db, int64_t id, int64_t actor, int *out)
{
	struct actorfacts who;
	struct subfacts f;
	int rc;

	*out = 0;
	if ((rc = dbi_tx_begin(db, 0)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = actor_get(db, actor, &who);
	if (rc == 0 && who.person != 0 && f.scan_id != 0)
		rc = evidence(db, id, f.scan_id, who.person, out);
	return dbi_tx_end(db, rc);
}

int
db_view_record(struct db *db, int64_t id, int64_t actor, int64_t item,
    const char *path, int64_t bytes, const char *sha256, int full,
    const char *range, int64_t now)
{
	struct subfacts f;
	sqlite3_stmt *st = NULL;
	char what[160];
	int rc;

	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = dbi_prep_bind(db, &st, "INSERT INTO views (submission_id, "
		    "scan_id, actor, item, bytes, sha256, full, at) VALUES (?, ?, "
		    "?, ?, ?, ?, ?, ?)", "izimitii", id, f.scan_id, actor,
		    item, bytes, full ? sha256 : NULL, (int64_t)(full != 0),
		    now);
	if (rc == 0)
		rc = dbi_step_done(db, st);
	sqlite3_finalize(st);
	if (full)
		snprintf(what, sizeof(what), "full bytes=%lld sha256=%s",
		    (long long)bytes, sha256);
	else
		snprintf(what, sizeof(what), "partial range=%.40s bytes=%lld",
		    range ? range : "?", (long long)bytes);
	/* Bytes fetched once they were released are a pull (airlock pull, a
	 * developer's or CI's copy), not review. */
	if (rc == 0 && item < 0)
		rc = dbi_event_addf(db, now, actor, f.state == AL_STATE_RELEASED ?
		    "pull" : "view", id, "content %s scan=%lld", what,
		    (long long)f.scan_id);
	else if (rc == 0)
		rc = dbi_event_addf(db, now, actor, f.state == AL_STATE_RELEASED ?
		    "pull.item" : "view.item", id, "%s item=%lld %s scan=%lld",
		    path, (long long)item, what, (long long)f.scan_id);
	return dbi_tx_end(db, rc);
}

int
db_review_settle(struct db *db, int64_t id, const struct db_policy *pol,
    int64_t now, struct db_review *out)
{
	struct subfacts f;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = subfacts_get(db, id, &f);
	if (rc == 0)
		rc = settle(db, id, &f, pol, now, 0, out);
	rc = dbi_tx_end(db, rc);
	if (rc < 0)
		db_review_clear(out);
	return rc;
}

int
db_rescan_stale(struct db *db, const char *ruleset, int64_t now,
    size_t *n_out)
{
	static const char stale[] = "state IN ('held', 'approved') AND "
	    "(SELECT ruleset_digest FROM scans WHERE submission_id = "
	    "submissions.id AND finished_at IS NOT NULL AND outcome IS NOT "
	    "'interrupted' ORDER BY id DESC LIMIT 1) IS NOT ?";
	sqlite3_stmt *st;
	char sql[512];
	int rc;

	int64_t *ids = NULL;
	size_t n = 0, cap = 0, i;

	*n_out = 0;
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	/* One event each, through the log (db_event.c appends its leaf). */
	snprintf(sql, sizeof(sql), "SELECT id FROM submissions WHERE %s ORDER "
	    "BY id", stale);
	rc = dbi_prep_bind(db, &st, sql, "t", ruleset);
	while (rc == 0 && (rc = dbi_step(db, st)) == 1)
		if ((rc = dbi_grow(&ids, &cap, n, sizeof(*ids))) == 0)
			ids[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	for (i = 0; rc == 0 && i < n; i++)
		rc = dbi_event_addf(db, now, 0, "rescan", ids[i], "the rule set "
		    "changed");
	free(ids);
	if (rc == 0) {
		snprintf(sql, sizeof(sql), "UPDATE submissions SET state = "
		    "'received' WHERE %s", stale);
		rc = dbi_prep_bind(db, &st, sql, "t", ruleset);
		if (rc == 0 && (rc = dbi_step_done(db, st)) == 0)
			*n_out = (size_t)sqlite3_changes(db->h);
		sqlite3_finalize(st);
	}
	return dbi_tx_end(db, rc);
}

int
db_integrity_alarm(struct db *db, int64_t id, const char *detail,
    int rescan, int64_t now, int *requeued_out)
{
	sqlite3_stmt *st = NULL;
	int rc, requeued = 0;

	if (requeued_out != NULL)
		*requeued_out = 0;
	if ((rc = dbi_tx_begin(db, 1)) < 0)
		return rc;
	rc = dbi_event_addf(db, now, 0, "integrity.mismatch", id, "%s",
	    detail);
	if (rc == 0 && rescan) {
		rc = dbi_prep_bind(db, &st, "UPDATE submissions SET state = "
		    "'received' WHERE id = ? AND state IN ('held', 'approved') "
		    "AND verdict IS NOT 'unscannable'", "i", id);
		if (rc == 0 && (rc = dbi_step_done(db, st)) == 0)
			requeued = sqlite3_changes(db->h) == 1;
		sqlite3_finalize(st);
	}
	if (rc == 0 && requeued)
		rc = dbi_event_addf(db, now, 0, "rescan", id, "the stored bytes "
		    "did not verify");
	if ((rc = dbi_tx_end(db, rc)) == 0 && requeued_out != NULL)
		*requeued_out = requeued;
	return rc;
}

int
db_override_get(struct db *db, int64_t id, char **admin_out,
    char **reason_out, int64_t *at_out)
{
	sqlite3_stmt *st;
	int rc, nomem = 0;

	*admin_out = *reason_out = NULL;
	rc = dbi_prep_bind(db, &st, "SELECT p.name, o.reason, o.at FROM "
	    "overrides o JOIN principals p ON p.id = o.admin WHERE "
	    "o.submission_id = ? AND o.scan_id = (SELECT id FROM scans WHERE "
	    "submission_id = o.submission_id AND finished_at IS NOT NULL AND "
	    "outcome IS NOT 'interrupted' ORDER BY id DESC LIMIT 1)", "i", id);
	if (rc == 0 && (rc = dbi_step(db, st)) == 1) {
		*admin_out = dbi_col_str(st, 0, &nomem);
		*reason_out = dbi_col_str(st, 1, &nomem);
		*at_out = sqlite3_column_int64(st, 2);
		rc = nomem ? al_err_set(AL_ENOMEM, "out of memory") : 0;
	} else if (rc == 0) {
		rc = al_err_set(AL_ENOTFOUND, "no override");
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		free(*admin_out);
		free(*reason_out);
		*admin_out = *reason_out = NULL;
	}
	return rc;
}
