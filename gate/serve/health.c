/*
 * health.c - GET /healthz, and what it reports: the scan threads' faults.
 * A scan thread that cannot claim a submission or record a result (a full
 * disk, an I/O error) keeps retrying (scanq.c) and says so here, so that
 * a gate that answers 201 but scans nothing is seen from outside: 503
 * {"status": "degraded", "faults": [...]}, with each thread's reason and
 * since when, until it recovers.
 *
 * Trust: no token (it is on the review listener only); it names no
 * submission's content, only the gate's own error messages.
 */
#include <stdio.h>
#include <string.h>

#include "gate.h"
#include "json_text.h"
#include "os.h"
#include "serve.h"

void
srv_slot_fault(struct scan_slot *slot, const char *why)
{
	struct srv *s = slot->s;

	pthread_mutex_lock(&s->lock);
	if (why == NULL) {
		if (slot->fault_since != 0)
			fprintf(stderr, "airlock serve: scanner %zu recovered\n",
			    slot->index);
		slot->fault_since = 0;
		slot->fault[0] = '\0';
	} else {
		if (slot->fault_since == 0)
			slot->fault_since = al_now_ms();
		snprintf(slot->fault, sizeof(slot->fault), "%s", why);
	}
	pthread_mutex_unlock(&s->lock);
}

enum MHD_Result
srv_healthz(struct req *q, struct MHD_Connection *c)
{
	struct srv *s = q->s;
	json_t *faults = json_array(), *j;
	size_t i, n;
	int bad = faults == NULL;

	pthread_mutex_lock(&s->lock);
	for (i = 0; !bad && s->slots != NULL && i < s->nscan; i++) {
		const struct scan_slot *sl = &s->slots[i];

		if (sl->fault_since == 0)
			continue;
		json_t *f = json_pack("{s:I, s:o}", "scanner", (json_int_t)i,
		    "since", srv_json_time(sl->fault_since));

		/* The reason quotes error messages: by the text scheme. */
		bad = f == NULL || al_json_set_textz(f, "reason", sl->fault) < 0 ||
		    json_array_append(faults, f) < 0;
		json_decref(f);
	}
	pthread_mutex_unlock(&s->lock);
	if (bad) {
		json_decref(faults);
		return srv_fail(q, c, MHD_HTTP_INTERNAL_SERVER_ERROR, REJ_MAX,
		    "out of memory");
	}
	n = json_array_size(faults);
	j = json_pack("{s:s, s:s, s:i, s:o}", "status", n > 0 ? "degraded" :
	    "ok", "version", AIRLOCK_VERSION, "schema", db_schema_latest(),
	    "faults", faults);
	return srv_respond_json(c, n > 0 ? MHD_HTTP_SERVICE_UNAVAILABLE :
	    MHD_HTTP_OK, j);
}
