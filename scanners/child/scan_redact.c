/*
 * scan_redact.c - what is done to a file's findings when the file is done:
 * excerpts redacted, fingerprints computed, auto-run files escalated.
 *
 * Redaction. A secret rule's secret span is remembered; when the file is
 * done, every excerpt of the file is rewritten with the secret spans on it
 * masked, so a token is not echoed by another rule's finding either.
 *
 * Fingerprints (scan_finding.c) need the occurrence number of the matched
 * bytes in the file, known only once the file is read; auto-run escalation
 * needs all of the file's findings for the same reason.
 *
 * Trust: excerpts are hostile bytes; this runs in the sandboxed scan child,
 * as part of the worker (scan_worker.c). Spans and excerpts are offsets the
 * worker recorded itself; a span is cut to the excerpt it overlaps, and
 * the rewritten excerpt is bounded (4 * AL_EXCERPT_BYTES + 64: a NUL
 * shown as U+FFFD takes three bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "err.h"
#include "scan_engine_int.h"

static int
cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/*
 * Appends n bytes of an excerpt, each NUL as U+FFFD: no string on the wire
 * or in the database holds a NUL (proto.c refuses them), and one cut
 * short there would hide the rest of the line (docs/api.md, "Text that is
 * not UTF-8"). The excerpt is a view of the line; its bytes are in the
 * content.
 */
static int
add_shown(struct dynbuf *out, const char *p, size_t n)
{
	const char *nul;
	int rc = 0;

	while (rc == 0 && n > 0 && (nul = memchr(p, '\0', n)) != NULL) {
		rc = dynbuf_add(out, p, (size_t)(nul - p));
		if (rc == 0)
			rc = dynbuf_add(out, "\xef\xbf\xbd", 3);
		n -= (size_t)(nul - p) + 1;
		p = nul + 1;
	}
	return rc == 0 ? dynbuf_add(out, p, n) : rc;
}

/* Rewrites an excerpt with every secret span on it masked (and its NULs
 * shown, add_shown). */
static int
redact(struct scan_worker *w, struct finding *f, const struct fmeta *m)
{
	size_t len = m->ex_len, i;
	uint64_t a = m->ex_abs, b = m->ex_abs + len, p = a;
	struct dynbuf out;
	int rc = 0;

	dynbuf_init(&out, 4 * AL_EXCERPT_BYTES + 64);
	/* A file read through a transcoding says so: the excerpt's bytes are
	 * the text its reader sees, not the file's. */
	if (w->via != NULL)
		rc |= dynbuf_addf(&out, "(%s) ", w->via);
	if (m->ex_head)
		rc |= dynbuf_adds(&out, "...");
	for (i = 0; i < w->nspans && rc == 0; i++) {
		const struct span *sp = &w->spans[i];
		uint64_t keep = 0;

		if (sp->e <= p || sp->s >= b)
			continue;
		if (sp->s > p)
			rc |= add_shown(&out, f->excerpt + (p - a), sp->s - p);
		if (sp->s >= p) {
			keep = (sp->e - sp->s) / 4;
			if (keep > 4)
				keep = 4;
			if (sp->s + keep > b)
				keep = b - sp->s;
			rc |= add_shown(&out, f->excerpt + (sp->s - a), keep);
		}
		rc |= dynbuf_adds(&out, "*****");
		p = sp->e < b ? sp->e : b;
	}
	if (rc == 0 && p < b)
		rc = add_shown(&out, f->excerpt + (p - a), b - p);
	if (rc == 0 && m->ex_tail)
		rc = dynbuf_adds(&out, "...");
	if (rc != 0) {
		dynbuf_free(&out);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	free(f->excerpt);
	f->excerpt = dynbuf_take(&out, NULL);
	return 0;
}

/* Categories that make an auto-run file critical when found inside it. */
static int
dangerous_category(const char *c)
{
	return strcmp(c, "download-exec") == 0 ||
	    strcmp(c, "exfiltration") == 0 ||
	    strcmp(c, "credential-access") == 0 ||
	    strcmp(c, "obfuscation") == 0 || strcmp(c, "persistence") == 0;
}

/*
 * A file that runs by itself (a path-only install-hook finding: a git hook,
 * a workflow, a .pth) and that also downloads, sends, reads credentials,
 * hides code or persists, is what DESIGN.md calls an install hook that
 * reaches the network: its location finding becomes critical and says why.
 */
static int
escalate_autorun(struct scan_worker *w)
{
	struct finding *v, *worst = NULL;
	size_t n = (size_t)eng_file_findings(w), i;
	char msg[300];

	if (n == 0)
		return 0;
	v = w->out->v + w->first;
	for (i = 0; i < n; i++)
		if (v[i].line > 0 && v[i].severity >= AL_SEV_MEDIUM &&
		    dangerous_category(v[i].rule->category) &&
		    (worst == NULL || v[i].severity > worst->severity))
			worst = &v[i];
	if (worst == NULL)
		return 0;
	snprintf(msg, sizeof(msg), "runs automatically and contains %s "
	    "(%s) at line %llu", worst->rule->id,
	    al_severity_name(worst->severity),
	    (unsigned long long)worst->line);
	for (i = 0; i < n; i++) {
		char *m;

		if (v[i].rule->builtin || v[i].rule->pattern != NULL ||
		    v[i].rule->cond || strcmp(v[i].rule->category, "install-hook") != 0)
			continue;
		if ((m = strdup(msg)) == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		free(v[i].excerpt);
		v[i].excerpt = m;
		v[i].severity = AL_SEV_CRITICAL;
	}
	return 0;
}

int
eng_finish_file(struct scan_worker *w)
{
	size_t n = (size_t)eng_file_findings(w), i, j;

	if (w->nspans > 1)
		qsort(w->spans, w->nspans, sizeof(*w->spans), cmp_span);
	for (i = 0; i < n; i++) {
		struct finding *f = &w->out->v[w->first + i];
		const struct fmeta *m = &w->meta[i];
		size_t occ = 0;

		/* A built-in finding made here has its fingerprint; one adopted
		 * from a decoded blob gets it below, like the rules' ones. */
		if ((f->rule->builtin && !m->decoded) || f->line == 0)
			continue;
		if (!m->decoded && redact(w, f, m) < 0)
			return AL_ENOMEM;
		for (j = 0; j < i; j++)
			if (w->out->v[w->first + j].rule == f->rule &&
			    strcmp(w->meta[j].hash, m->hash) == 0)
				occ++;
		eng_fingerprint(f->fingerprint, f->rule->id, w->relpath,
		    m->hash, occ);
	}
	return escalate_autorun(w);
}
