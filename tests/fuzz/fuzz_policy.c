/*
 * fuzz_policy.c - fuzz target for the review policy, DATA/policy
 * (gate/serve/policy.c): arbitrary bytes as the file, loaded as the gate
 * loads it at start and on a reload.
 *
 * Nothing may crash or leak. A policy that loads holds values in their
 * ranges (1 to 16 approvals, durations of 1s to 365d or a hold that never
 * expires, release roles among ci, reviewer and admin), and came from a
 * file of lines that fit (SERVE_POLICY_LINE_MAX) without a NUL byte: a
 * line is never cut in two and read as two. A policy that does not load
 * says why, naming the file and the line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fuzz_file.h"
#include "serve.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = strdup(fuzz_dir_init("fuzz_policy"));
	if (dir == NULL)
		abort();
	return 0;
}

/* 1 if every line fits and no byte is NUL. */
static int
lines_ok(const uint8_t *data, size_t size)
{
	size_t i, run = 0;

	for (i = 0; i < size; i++) {
		if (data[i] == '\0')
			return 0;
		run = data[i] == '\n' ? 0 : run + 1;
		if (run > SERVE_POLICY_LINE_MAX)
			return 0;
	}
	return 1;
}

static int
duration_ok(int64_t ms)
{
	return ms >= 1000 && ms <= 365LL * 86400000;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned allowed = ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_ADMIN);
	struct srv s;

	memset(&s, 0, sizeof(s));
	s.datadir = dir;
	fuzz_file_put("policy", data, size);
	if (srv_policy_load(&s) == 0) {
		if (!lines_ok(data, size) || size > SERVE_POLICY_MAX_BYTES ||
		    s.policy.clean < 1 || s.policy.clean > 16 ||
		    s.policy.flagged < 1 || s.policy.flagged > 16 ||
		    s.policy.high < 1 || s.policy.high > 16 ||
		    s.policy.unscannable < 1 || s.policy.unscannable > 16 ||
		    (s.hold_expiry != 0 && !duration_ok(s.hold_expiry)) ||
		    !duration_ok(s.agent_ttl) || s.release_roles == 0 ||
		    (s.release_roles & ~allowed) != 0)
			abort();
	} else if (strstr(al_err_msg(), "/policy") == NULL) {
		abort();
	}
	return 0;
}
