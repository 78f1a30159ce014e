/*
 * fuzz_scan.c - fuzz target for the rule engine: arbitrary bytes, scanned
 * with the test rule set under an arbitrary path.
 *
 * Input layout: the bytes up to the first newline (at most 255) are the path
 * (so globs and binary detection are fuzzed too), the rest is the content.
 * Rules come from $AIRLOCK_FUZZ_RULES, default tests/data/rules (run from the
 * repository root). Built with libFuzzer by `make fuzz`, and with
 * replay.c's main() by `make test`, which replays the corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_engine.h"
#include "scan_engine.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct scan_worker *worker;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	worker = fuzz_engine_worker("fuzz_scan");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct finding_list fl = {0};
	char path[256] = "fuzz.txt";
	const uint8_t *nl = memchr(data, '\n', size < 255 ? size : 255);
	size_t i;

	if (nl != NULL && nl > data) {
		memcpy(path, data, (size_t)(nl - data));
		path[nl - data] = '\0';
		if (path[0] == '\0')
			snprintf(path, sizeof(path), "fuzz.txt");
		size -= (size_t)(nl - data) + 1;
		data = nl + 1;
	}
	if (scan_mem(worker, (const char *)data, size, path, path, &fl) < 0)
		abort(); /* only out-of-memory may fail */
	for (i = 0; i < fl.n; i++) {
		const struct finding *f = &fl.v[i];

		/* Invariants: positions are sane, excerpts are bounded. */
		if ((f->line == 0) != (f->column == 0) || f->excerpt == NULL ||
		    strlen(f->excerpt) > 4096 || strlen(f->fingerprint) != 32)
			abort();
	}
	finding_list_free(&fl);
	return 0;
}
