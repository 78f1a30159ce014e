/*
 * fuzz_flow.c - fuzz target for the second stage (scanners/child/
 * scan_flow.c): arbitrary text, its atoms placed where the first stage
 * would put them.
 *
 * Input: the first byte picks the comment syntax (its low two bits) and
 * whether the text is whole (bit 2); the rest is the text. Every
 * occurrence of one of the markers below is an atom with that marker's
 * tags, so mutations move sources and sinks through real statements.
 * Nothing may crash or read out of bounds (the text is exactly its length
 * in a buffer of its own), every report names a condition and lines
 * inside the text, at most FLOW_MAX_REPORTS per condition, and the text
 * is not written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_flow.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *s;
	uint64_t tags;
} markers[] = {
	{"os.environ", 1u << 0},
	{"post(", 1u << 1},
	{"b64decode(", 1u << 2},
	{"eval(", 1u << 3},
	{"get(", (1u << 1) | (1u << 4)},
	{"AA", 1u << 5},
	{"BB", 1u << 6},
	{"CC", 1u << 7},
};

static const struct flow_cond conds[] = {
	{.rule = 0, .kind = FLOW_DATA, .from = 1u << 0, .to = 1u << 1},
	{.rule = 1, .kind = FLOW_DATA, .from = (1u << 2) | (1u << 4),
	    .to = 1u << 3},
	{.rule = 2, .kind = FLOW_DATA, .from = 1u << 0, .to = 1u << 3,
	    .built = 1},
	{.rule = 3, .kind = FLOW_ALL, .all = {5, 6, 7}, .nall = 3,
	    .within = 4, .ordered = 1},
	{.rule = 4, .kind = FLOW_ALL, .all = {7, 5}, .nall = 2, .within = 0},
};

#define NCOND (sizeof(conds) / sizeof(conds[0]))

struct ctx {
	uint64_t lines;
	size_t per[NCOND];
};

static int
on_report(void *c, const struct flow_report *r)
{
	struct ctx *x = c;

	if (r->cond >= NCOND || r->line == 0 || r->line > x->lines ||
	    r->from_line == 0 || r->from_line > x->lines ||
	    memchr(r->through, '\0', sizeof(r->through)) == NULL)
		abort();
	if (++x->per[r->cond] > FLOW_MAX_REPORTS)
		abort();
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct flow_atom atoms[4096];
	struct ctx x = {1, {0}};
	size_t n, i, k, na = 0;
	uint64_t line = 1;
	char *t;
	int whole;
	enum flow_lang lang;

	if (size == 0)
		return 0;
	lang = (enum flow_lang)(data[0] & 3);
	whole = (data[0] & 4) != 0;
	n = size - 1;
	if ((t = malloc(n ? n : 1)) == NULL)
		abort();
	memcpy(t, data + 1, n);
	for (i = 0; i < n; i++) {
		for (k = 0; k < sizeof(markers) / sizeof(markers[0]) &&
		    na < sizeof(atoms) / sizeof(atoms[0]); k++) {
			size_t m = strlen(markers[k].s);

			if (i + m <= n && memcmp(t + i, markers[k].s, m) == 0) {
				atoms[na].off = i;
				atoms[na].end = i + m;
				atoms[na].line = line;
				atoms[na].tags = markers[k].tags;
				atoms[na].rule = (unsigned)k;
				na++;
			}
		}
		line += t[i] == '\n';
	}
	x.lines = line;
	if (scan_flow_run(t, n, whole, lang, atoms, na, conds, NCOND,
	    on_report, &x) != 0)
		abort();
	if (memcmp(t, data + 1, n) != 0)
		abort();
	free(t);
	return 0;
}
