/*
 * api_audit.c - the audit log on the review API: GET /v1/audit/checkpoint,
 * the newest signed checkpoint of the log (docs/audit.md), as the note's
 * text (text/plain), for an auditor or an admin to keep outside the gate.
 *
 * Trust: the caller's role was checked by the router; what is served is
 * the gate's own signed note, as stored.
 */
#include <stdlib.h>
#include <string.h>

#include "serve.h"

enum MHD_Result
api_audit_checkpoint(struct req *q, struct MHD_Connection *c, struct db *db)
{
	struct db_checkpoint *cp = NULL;
	enum MHD_Result ok;
	size_t n = 0;

	if (db_checkpoint_list(db, 1, &cp, &n) < 0)
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "database error");
	if (n == 0)
		return srv_fail(q, c, MHD_HTTP_NOT_FOUND, REJ_MAX, "the audit log "
		    "has no checkpoint yet");
	ok = srv_respond(c, MHD_HTTP_OK, "text/plain; charset=utf-8",
	    cp[0].note, strlen(cp[0].note));
	db_checkpoint_list_free(cp, n);
	return ok;
}
