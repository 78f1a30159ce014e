/*
 * api_review.c - decisions: approve (naming the bytes and the rule set
 * the reviewer saw), reject, an admin's override of unscannable. The
 * checks and the policy count run in the database, in the transaction
 * that records the decision (db/db_review.c).
 *
 * Trust: the body is bounded JSON; a refusal says why in the gate's words.
 */
#include <inttypes.h>
#include <string.h>

#include "audit.h"
#include "err.h"
#include "os.h"
#include "serve.h"

int
srv_decide_body(struct srv_decide_body *b, enum route route,
    const char *data, size_t len, const char **why)
{
	json_error_t jerr;
	int bad;

	memset(b, 0, sizeof(*b));
	b->json = json_loadb(data ? data : "", len, JSON_REJECT_DUPLICATES,
	    &jerr);
	if (route == R_APPROVE)
		bad = b->json == NULL || json_unpack_ex(b->json, &jerr,
		    JSON_STRICT, "{s:s, s:s, s?s}", "sha256", &b->sha256,
		    "ruleset", &b->ruleset, "comment", &b->text) < 0;
	else
		bad = b->json == NULL || json_unpack_ex(b->json, &jerr,
		    JSON_STRICT, "{s:s}", route == R_REJECT ? "comment" :
		    "reason", &b->text) < 0 || b->text[0] == '\0';
	if (!bad && b->text != NULL && strlen(b->text) > 4096)
		bad = 1;
	if (!bad)
		return 0;
	*why = route == R_APPROVE ? "expected {\"sha256\", \"ruleset\", "
	    "\"comment\"?}: the bytes and the rule set you looked at" :
	    route == R_REJECT ? "expected {\"comment\"}: a rejection says why" :
	    "expected {\"reason\"}: an override says why";
	json_decref(b->json);
	memset(b, 0, sizeof(*b));
	return AL_EINVAL;
}

/* approve, reject, override: a JSON body, a decision, the standing. */
enum MHD_Result
api_decide(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct srv_decide_body b;
	json_t *in;
	const char *sha, *rules, *text, *why = NULL;
	struct db_review r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (srv_decide_body(&b, q->route, q->body.data, q->body.len, &why) < 0)
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST, why);
	in = b.json;
	sha = b.sha256;
	rules = b.ruleset;
	text = b.text;
	if (q->route == R_APPROVE)
		rc = db_approve(db, q->id, q->who.id, sha, rules, text,
		    &q->s->policy, al_now_ms(), &r);
	else if (q->route == R_REJECT)
		rc = db_reject(db, q->id, q->who.id, text, al_now_ms());
	else
		rc = db_override(db, q->id, q->who.id, text, &q->s->policy,
		    al_now_ms(), &r);
	json_decref(in);
	if (rc == 0 && q->route == R_REJECT)
		rc = db_review_get(db, q->id, &q->s->policy, &r);
	if (rc < 0) {
		unsigned st = rc == AL_ENOTFOUND ? MHD_HTTP_NOT_FOUND :
		    rc == AL_EDENIED ? MHD_HTTP_FORBIDDEN : rc == AL_EEXIST ?
		    MHD_HTTP_CONFLICT : MHD_HTTP_INTERNAL_SERVER_ERROR;

		db_review_clear(&r);
		if (st == MHD_HTTP_INTERNAL_SERVER_ERROR)
			return srv_fail_write(q, c, rc, "the decision could not be "
			    "recorded");
		/* The refusal says why (the gate's own words). */
		return srv_fail(q, c, st, st == MHD_HTTP_FORBIDDEN ? REJ_FORBIDDEN :
		    REJ_MAX, al_err_msg());
	}
	/* A decision is under a signed checkpoint at once: the release
	 * counts only the approvals one covers (release.c). Recorded either
	 * way; a failure is said, and the next checkpoint covers it. */
	{
		int made = 0;

		if (gate_checkpoint_make(db, q->s->datadir, "decision", al_now_ms(),
		    0, &made) < 0)
			fprintf(stderr, "airlock serve: audit checkpoint after a "
			    "decision on %" PRId64 ": %s\n", q->id, al_err_msg());
	}
	{
		json_t *j = srv_review_json(&r);

		db_review_clear(&r);
		return srv_respond_json(c, MHD_HTTP_OK, j);
	}
}
