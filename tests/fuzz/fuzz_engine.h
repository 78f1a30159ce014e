/*
 * fuzz_engine.h - the rule set, engine and worker the engine's fuzz targets
 * share: rules from $AIRLOCK_FUZZ_RULES, default tests/data/rules (run from
 * the repository root).
 */
#ifndef AIRLOCK_FUZZ_ENGINE_H
#define AIRLOCK_FUZZ_ENGINE_H

#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "scan_engine.h"

static struct scan_worker *
fuzz_engine_worker(const char *who)
{
	static struct rule_set *rs;
	static struct scan_engine *engine;
	static struct scan_worker *worker;
	const char *dir = getenv("AIRLOCK_FUZZ_RULES");
	struct dynbuf diags;
	size_t nerr;

	if (worker != NULL)
		return worker;
	dynbuf_init(&diags, 1 << 20);
	if (rule_set_load(&rs, dir ? dir : "tests/data/rules", 0, &diags,
	    &nerr) < 0 || scan_engine_new(&engine, rs, NULL) < 0 ||
	    scan_worker_new(&worker, engine) < 0) {
		fprintf(stderr, "%s: %s%s\n", who, dynbuf_str(&diags),
		    al_err_msg());
		abort();
	}
	dynbuf_free(&diags);
	return worker;
}

#endif
