/*
 * term.c - terminal output for people; see term.h.
 */
#include <string.h>

#include "dynbuf.h"
#include "term.h"
#include "util.h"
#include "vocab.h"

void
al_term_put(FILE *out, const char *s)
{
	struct dynbuf b;

	dynbuf_init(&b, (size_t)1 << 20);
	if (al_term_escape(&b, s, strlen(s)) == 0)
		fputs(dynbuf_str(&b), out);
	else
		fputs("(too long to show)", out);
	dynbuf_free(&b);
}

void
al_human_size(char *buf, size_t n, int64_t bytes)
{
	double d = (double)bytes;

	if (d >= (double)(1u << 30))
		snprintf(buf, n, "%.1f GiB", d / (double)(1u << 30));
	else if (d >= (double)(1u << 20))
		snprintf(buf, n, "%.1f MiB", d / (double)(1u << 20));
	else if (d >= 1024.0)
		snprintf(buf, n, "%.1f KiB", d / 1024.0);
	else
		snprintf(buf, n, "%lld bytes", (long long)bytes);
}

const char *
al_sev_color(const char *severity)
{
	switch (al_severity_parse(severity)) {
	case AL_SEV_CRITICAL:
		return "\033[1;97;41m";
	case AL_SEV_HIGH:
		return "\033[1;31m";
	case AL_SEV_MEDIUM:
		return "\033[33m";
	case AL_SEV_LOW:
		return "\033[36m";
	default:
		return "\033[2m";
	}
}

void
al_findings_print(FILE *out, const struct al_finding_row *rows, size_t n,
    int color)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	const char *dim = color ? "\033[2m" : "", *prev = NULL;
	size_t counts[AL_SEV_MAX] = {0}, i, k;
	int s, first = 1;

	for (i = 0; i < n; i++) {
		const struct al_finding_row *f = &rows[i];

		if ((s = al_severity_parse(f->severity)) >= 0)
			counts[s]++;
		if (prev == NULL || strcmp(prev, f->path) != 0) {
			fprintf(out, "%s%s", prev ? "\n" : "", bold);
			al_term_put(out, f->path);
			fprintf(out, "%s\n", reset);
			prev = f->path;
		}
		if (f->line > 0)
			fprintf(out, "  %6lld:%-4lld ", (long long)f->line,
			    (long long)f->column);
		else
			fprintf(out, "  %-11s ", "file");
		fputs(color ? al_sev_color(f->severity) : "", out);
		al_term_put(out, f->severity);
		for (k = al_utf8_count(f->severity, strlen(f->severity)); k < 8;
		    k++)
			fputc(' ', out);
		fprintf(out, "%s  ", reset);
		al_term_put(out, f->rule);
		if (f->title != NULL) {
			fputs("  ", out);
			al_term_put(out, f->title);
		}
		fputc('\n', out);
		if (f->excerpt != NULL && f->excerpt[0] != '\0') {
			fprintf(out, "%14s%s", "", dim);
			al_term_put(out, f->excerpt);
			fprintf(out, "%s\n", reset);
		}
	}
	fprintf(out, "%s%zu finding%s", n ? "\n" : "", n, n == 1 ? "" : "s");
	for (s = AL_SEV_CRITICAL; s >= AL_SEV_INFO; s--) {
		if (counts[s] == 0)
			continue;
		fprintf(out, "%s%zu %s", first ? " (" : ", ", counts[s],
		    al_severity_name((enum al_severity)s));
		first = 0;
	}
	if (!first)
		fputc(')', out);
}
