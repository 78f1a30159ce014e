/*
 * api_review.c - decisions: approve (naming the bytes and the rule set
 * the reviewer saw), reject, an admin's override of unscannable. The
 * checks and the policy count run in the database, in the transaction
 * that records the decision (db/db_review.c).
 *
 * Trust: the body is bounded JSON; a refusal says why in the gate's words.
 */
#include <string.h>

#include "err.h"
#include "os.h"
#include "serve.h"

/* approve, reject, override: a JSON body, a decision, the standing. */
enum MHD_Result
api_decide(struct req *q, struct MHD_Connection *c, struct db *db)
{
	json_error_t jerr;
	json_t *in = json_loadb(q->body.data ? q->body.data : "", q->body.len,
	    JSON_REJECT_DUPLICATES, &jerr);
	const char *sha = NULL, *rules = NULL, *text = NULL;
	struct db_review r;
	int rc, bad;

	memset(&r, 0, sizeof(r));
	if (q->route == R_APPROVE)
		bad = in == NULL || json_unpack_ex(in, &jerr, JSON_STRICT,
		    "{s:s, s:s, s?s}", "sha256", &sha, "ruleset", &rules,
		    "comment", &text) < 0;
	else
		bad = in == NULL || json_unpack_ex(in, &jerr, JSON_STRICT, "{s:s}",
		    q->route == R_REJECT ? "comment" : "reason", &text) < 0 ||
		    text[0] == '\0';
	if (!bad && text != NULL && strlen(text) > 4096)
		bad = 1;
	if (bad) {
		json_decref(in);
		return srv_fail(q, c, MHD_HTTP_BAD_REQUEST, REJ_BAD_REQUEST,
		    q->route == R_APPROVE ? "expected {\"sha256\", \"ruleset\", "
		    "\"comment\"?}: the bytes and the rule set you looked at" :
		    q->route == R_REJECT ? "expected {\"comment\"}: a rejection "
		    "says why" : "expected {\"reason\"}: an override says why");
	}
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
	{
		json_t *j = srv_review_json(&r);

		db_review_clear(&r);
		return srv_respond_json(c, MHD_HTTP_OK, j);
	}
}
