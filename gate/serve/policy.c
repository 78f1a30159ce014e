/*
 * policy.c - the review policy, DATA/policy: approvals needed by
 * verdict and worst severity, how long a held submission waits, who may
 * release, how long an agent token lives unless its --ttl says otherwise.
 * Read at start: a bad line stops the gate from starting. A reload (SIGHUP,
 * `airlock rules reload`) reads it into a scratch struct srv first
 * (srv_config_check in serve.c) and is refused when it does not load, so
 * the gate goes on with the policy it has, as for a bad rule file.
 *
 * Trust: the file is the operator's; it is still parsed strictly, with
 * the line of every problem: at most SERVE_POLICY_MAX_BYTES, lines of at
 * most SERVE_POLICY_LINE_MAX bytes (a longer one is refused, never cut in
 * two), no NUL byte. A file that is there but cannot be read is an
 * error; only a missing file means the defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "auth.h"
#include "err.h"
#include "serve.h"
#include "text.h"
#include "util.h"

/*
 * The review policy: DATA/policy, lines "key = value", # comments.
 *   approvals.clean = 1        approvals.flagged = 1 (worst at most medium)
 *   approvals.high = 2         approvals.unscannable = 2 (and an override)
 *   hold_expiry = 7d | never   release_roles = ci, reviewer, admin
 *   agent_token_ttl = 8h       (1s to 365d; agents are short-lived)
 *   audit.checkpoint_events = 1000   audit.checkpoint_interval = 10m
 *                              (a signed checkpoint of the audit log after
 *                              that many events, or that long after the
 *                              last one if the log grew; and at every
 *                              release)
 */
/* "FILE:LINE: KEY: why" from gate_parse_duration's message (copied first:
 * al_err_set writes over al_err_msg()). */
static int
bad_duration(struct dynbuf *path, int lineno, const char *key)
{
	char why[512];

	(void)snprintf(why, sizeof(why), "%s", al_err_msg());
	return al_err_set(AL_EINVAL, "%s:%d: %s: %s", dynbuf_str(path), lineno,
	    key, why);
}

int
srv_policy_load(struct srv *s)
{
	struct dynbuf p;
	struct al_text t;
	struct stat st;
	char line[SERVE_POLICY_LINE_MAX + 1], *text = NULL;
	const char *lp;
	size_t len, ll;
	int lineno = 0, rc = 0;

	s->policy.clean = 1;
	s->policy.flagged = 1;
	s->policy.high = 2;
	s->policy.unscannable = 2;
	s->hold_expiry = 7LL * 86400000;
	s->agent_ttl = SERVE_AGENT_TTL;
	s->ckpt_events = 1000;
	s->ckpt_interval = 10LL * 60000;
	s->release_roles = ROLE(DB_ROLE_CI) | ROLE(DB_ROLE_REVIEWER) |
	    ROLE(DB_ROLE_ADMIN);
	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "%s/policy", s->datadir) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	/* No file: the defaults. A file that cannot be read (a directory,
	 * no permission) is an error, never the defaults: those may ask for
	 * fewer approvals than the operator's policy. */
	if (stat(dynbuf_str(&p), &st) < 0 && errno == ENOENT) {
		dynbuf_free(&p);
		return 0;
	}
	if ((rc = al_read_file(dynbuf_str(&p), SERVE_POLICY_MAX_BYTES, &text,
	    &len)) < 0) {
		dynbuf_free(&p);
		return rc;
	}
	al_text_init(&t, text, len);
	while (rc == 0 && al_text_next(&t, &lp, &ll)) {
		char *k = line, *v, *e;
		int *slot = NULL;

		lineno++;
		/* A line is read whole or refused: never cut in two (the
		 * rest of a long comment read as a setting). */
		if (ll > SERVE_POLICY_LINE_MAX) {
			rc = al_err_set(AL_EINVAL, "%s:%d: a line longer than %u "
			    "bytes", dynbuf_str(&p), lineno, SERVE_POLICY_LINE_MAX);
			break;
		}
		if (memchr(lp, '\0', ll) != NULL) {
			rc = al_err_set(AL_EINVAL, "%s:%d: a NUL byte (the policy "
			    "is text)", dynbuf_str(&p), lineno);
			break;
		}
		memcpy(line, lp, ll);
		line[ll] = '\0';
		line[strcspn(line, "#")] = '\0';
		while (*k == ' ' || *k == '\t')
			k++;
		if (*k == '\0')
			continue;
		if ((v = strchr(k, '=')) == NULL) {
			rc = al_err_set(AL_EINVAL, "%s:%d: expected key = value",
			    dynbuf_str(&p), lineno);
			break;
		}
		for (e = v; e > k && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = '\0';
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v + strlen(v); e > v && (e[-1] == ' ' ||
		    e[-1] == '\t'); e--)
			;
		*e = '\0';
		if (strcmp(k, "approvals.clean") == 0)
			slot = &s->policy.clean;
		else if (strcmp(k, "approvals.flagged") == 0)
			slot = &s->policy.flagged;
		else if (strcmp(k, "approvals.high") == 0)
			slot = &s->policy.high;
		else if (strcmp(k, "approvals.unscannable") == 0)
			slot = &s->policy.unscannable;
		if (slot != NULL) {
			size_t n;

			if (al_parse_size(v, &n) != 0 || n < 1 || n > 16)
				rc = al_err_set(AL_EINVAL, "%s:%d: %s takes 1 to 16",
				    dynbuf_str(&p), lineno, k);
			else
				*slot = (int)n;
		} else if (strcmp(k, "hold_expiry") == 0) {
			if (strcmp(v, "never") == 0)
				s->hold_expiry = 0;
			else if (gate_parse_duration(v, &s->hold_expiry) < 0)
				rc = bad_duration(&p, lineno, k);
		} else if (strcmp(k, "agent_token_ttl") == 0) {
			if (gate_parse_duration(v, &s->agent_ttl) < 0)
				rc = bad_duration(&p, lineno, k);
		} else if (strcmp(k, "audit.checkpoint_events") == 0) {
			size_t n;

			if (al_parse_size(v, &n) != 0 || n < 1 || n > 1000000)
				rc = al_err_set(AL_EINVAL, "%s:%d: %s takes 1 to "
				    "1000000", dynbuf_str(&p), lineno, k);
			else
				s->ckpt_events = (int64_t)n;
		} else if (strcmp(k, "audit.checkpoint_interval") == 0) {
			if (gate_parse_duration(v, &s->ckpt_interval) < 0)
				rc = bad_duration(&p, lineno, k);
		} else if (strcmp(k, "release_roles") == 0) {
			char *tok = v, *comma;

			s->release_roles = 0;
			for (; rc == 0 && tok != NULL; tok = comma ? comma + 1 :
			    NULL) {
				int r;

				if ((comma = strchr(tok, ',')) != NULL)
					*comma = '\0';
				while (*tok == ' ')
					tok++;
				for (e = tok + strlen(tok); e > tok && e[-1] == ' '; e--)
					;
				*e = '\0';
				r = db_role_parse(tok);
				if (r < 0 || r == DB_ROLE_AGENT || r == DB_ROLE_AUDITOR)
					rc = al_err_set(AL_EINVAL, "%s:%d: release_roles "
					    "are among ci, reviewer, admin", dynbuf_str(&p),
					    lineno);
				else
					s->release_roles |= ROLE(r);
			}
		} else {
			rc = al_err_set(AL_EINVAL, "%s:%d: unknown key %s",
			    dynbuf_str(&p), lineno, k);
		}
	}
	free(text);
	dynbuf_free(&p);
	return rc;
}
