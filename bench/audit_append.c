/*
 * audit_append.c - the audit log's costs at the size a database has
 * (bench/audit_bench.py grows it): N events appended through db/ as the
 * gate appends them (each its own transaction, synchronous=FULL), then
 * inclusion proofs of random entries and the root. Prints one line of
 * figures: size, append mean and p99 (ms), proof mean (ms), root (ms).
 *
 * usage: audit_append DB N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "err.h"
#include "merkle.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	uint8_t path[MERKLE_MAX_PROOF][32], root[32];
	struct db *db = NULL;
	double *t, sum = 0, t0, proof = 0, rt;
	uint64_t size = 0;
	size_t n, i, np = 0;
	int nproofs = 200;

	if (argc != 3 || (n = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: audit_append DB N\n");
		return 2;
	}
	if (db_open(&db, argv[1], 0) < 0 || (t = calloc(n, sizeof(*t))) == NULL) {
		fprintf(stderr, "audit_append: %s\n", al_err_msg());
		return 2;
	}
	for (i = 0; i < n; i++) {
		char d[64];

		snprintf(d, sizeof(d), "bench append %zu", i);
		t0 = now_ms();
		if (db_event_add(db, 1, 0, "note", 0, d) < 0) {
			fprintf(stderr, "audit_append: %s\n", al_err_msg());
			return 2;
		}
		t[i] = now_ms() - t0;
		sum += t[i];
	}
	qsort(t, n, sizeof(*t), cmp_d);
	if (db_audit_size(db, &size) < 0)
		return 2;
	srand(1);
	for (i = 0; i < (size_t)nproofs; i++) {
		uint64_t idx = ((uint64_t)rand() << 31 ^ (uint64_t)rand()) % size;

		t0 = now_ms();
		if (db_audit_inclusion(db, idx, size, path, &np) < 0) {
			fprintf(stderr, "audit_append: %s\n", al_err_msg());
			return 2;
		}
		proof += now_ms() - t0;
	}
	t0 = now_ms();
	size = 0;
	if (db_audit_root(db, &size, root) < 0)
		return 2;
	rt = now_ms() - t0;
	printf("%llu\t%.3f\t%.3f\t%.3f\t%.3f\n", (unsigned long long)size,
	    sum / (double)n, t[n * 99 / 100], proof / nproofs, rt);
	free(t);
	db_close(db);
	return 0;
}
