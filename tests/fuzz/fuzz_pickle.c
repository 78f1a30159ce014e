/*
 * fuzz_pickle.c - fuzz target for the pickle opcode walk
 * (scanners/child/scan_pickle.c) on arbitrary bytes.
 *
 * Nothing may crash, read out of bounds or leak, and: the walk gives the
 * same globals, protocol, STOP count and end however the input is cut
 * (whole, in two or three data-derived pieces, a byte at a time for small
 * inputs); each global has a terminated module and name of at most 127
 * bytes, an offset inside the input and the class pickle_global_class
 * gives it; at most PICKLE_GLOBALS_MAX are kept. One walk is made at
 * the start and reset for every walk, as the scan worker does: a state
 * the reset left behind would make the walks of one input differ.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan_pickle.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pickle_walk *walker;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((walker = pickle_walk_new()) == NULL)
		abort();
	return 0;
}

struct res {
	struct pickle_global g[PICKLE_GLOBALS_MAX];
	size_t n, more;
	int proto, ended;
	unsigned long stops;
};

static void
walk(const uint8_t *data, size_t size, size_t cut1, size_t cut2,
    size_t step, struct res *r)
{
	struct pickle_walk *w = walker;
	const struct pickle_global *g;
	size_t cuts[3], at = 0, i, k;

	pickle_walk_reset(w);
	memset(r, 0, sizeof(*r));
	cuts[0] = cut1;
	cuts[1] = cut2;
	cuts[2] = size;
	for (i = 0; i < 3; i++) {
		while (at < cuts[i]) {
			k = cuts[i] - at;
			if (step != 0 && k > step)
				k = step;
			r->ended = pickle_walk_feed(w, data + at, k);
			at += k;
		}
	}
	pickle_walk_end(w);
	g = pickle_walk_globals(w, &r->n, &r->more);
	if (r->n > PICKLE_GLOBALS_MAX)
		abort();
	memcpy(r->g, g, r->n * sizeof(*g));
	r->proto = pickle_walk_proto(w);
	r->stops = pickle_walk_stops(w);
	for (i = 0; i < r->n; i++) {
		if (memchr(r->g[i].module, '\0', 128) == NULL ||
		    memchr(r->g[i].name, '\0', 128) == NULL ||
		    r->g[i].offset >= (size ? size : 1) ||
		    r->g[i].cls != pickle_global_class(r->g[i].module,
		    r->g[i].name))
			abort();
	}
	if (r->proto < -1 || r->proto > 5 || r->stops > size)
		abort();
}

static void
same(const struct res *a, const struct res *b)
{
	size_t i;

	if (a->n != b->n || a->more != b->more || a->proto != b->proto ||
	    a->ended != b->ended || a->stops != b->stops)
		abort();
	for (i = 0; i < a->n; i++)
		if (strcmp(a->g[i].module, b->g[i].module) != 0 ||
		    strcmp(a->g[i].name, b->g[i].name) != 0 ||
		    a->g[i].offset != b->g[i].offset ||
		    a->g[i].called != b->g[i].called ||
		    a->g[i].cls != b->g[i].cls)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct res a, b;
	size_t cut1, cut2;

	cut1 = size ? (size_t)data[size - 1] * 7 % (size + 1) : 0;
	cut2 = cut1 + (size > 1 ? (size - cut1) * data[0] / 256 : 0);
	walk(data, size, size, size, 0, &a);
	walk(data, size, cut1, cut2, 0, &b);
	same(&a, &b);
	walk(data, size, cut1, cut1, 0, &b);
	same(&a, &b);
	if (size <= 4096) {
		walk(data, size, size, size, 1, &b);
		same(&a, &b);
	}
	return 0;
}
