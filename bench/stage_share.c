/*
 * stage_share.c - how many files of a tree reach the scan's second stage
 * (make bench, bench/scan_bench.sh): the engine of `airlock scan`, in this
 * process, over every regular file under DIR (symbolic links are not
 * followed), with the rules in RULES.
 *
 *   stage_share RULES DIR [-v]
 *
 * Prints one line of counts, "files N text-or-binary-read N view N alias
 * N xor N flow N any N", where each is the number of files the second
 * stage did that work for (scan_engine.h, scan_worker_stage) and "any"
 * those with at least one. A measurement tool: it reads what it is given
 * without a sandbox. With -v, each file that reaches the stage is listed
 * first, with its size and what it reached.
 */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "al_limits.h"
#include "dynbuf.h"
#include "err.h"
#include "rule.h"
#include "scan_engine.h"

static struct scan_worker *worker;
static size_t root_len;
static int verbose;
static unsigned long long nfiles, nview, nalias, nxor, nflow, nany, nrest;

static int
visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct finding_list out = {0};
	const char *rel;
	uint64_t bytes = 0;
	unsigned s;
	int fd;

	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	rel = path + root_len;
	while (*rel == '/')
		rel++;
	if (scan_fd(worker, fd, path, rel, &out, &bytes, NULL) < 0) {
		fprintf(stderr, "stage_share: %s: out of memory\n", path);
		close(fd);
		finding_list_free(&out);
		return 1;
	}
	close(fd);
	finding_list_free(&out);
	s = scan_worker_stage(worker);
	if (verbose && s != 0)
		printf("%s %llu%s%s%s%s%s\n", path, (unsigned long long)bytes,
		    s & SCAN_STAGE_VIEW ? " view" : "",
		    s & SCAN_STAGE_ALIAS ? " alias" : "",
		    s & SCAN_STAGE_XOR ? " xor" : "",
		    s & SCAN_STAGE_FLOW ? " flow" : "",
		    s & SCAN_STAGE_REST ? " rest" : "");
	nfiles++;
	nview += (s & SCAN_STAGE_VIEW) != 0;
	nalias += (s & SCAN_STAGE_ALIAS) != 0;
	nxor += (s & SCAN_STAGE_XOR) != 0;
	nflow += (s & SCAN_STAGE_FLOW) != 0;
	nrest += (s & SCAN_STAGE_REST) != 0;
	nany += s != 0;
	return 0;
}

int
main(int argc, char **argv)
{
	struct rule_set *rs = NULL;
	struct scan_engine *e = NULL;
	struct dynbuf diags;
	size_t nerr = 0;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "-v") != 0)) {
		fprintf(stderr, "usage: stage_share RULES DIR [-v]\n");
		return 2;
	}
	verbose = argc == 4;
	dynbuf_init(&diags, 256);
	if (rule_set_load(&rs, argv[1], 0, &diags, &nerr) < 0 || nerr > 0) {
		fprintf(stderr, "stage_share: %s: %s%s\n", argv[1],
		    al_err_msg(), dynbuf_str(&diags));
		return 1;
	}
	if (scan_engine_new(&e, rs, NULL) < 0 ||
	    scan_worker_new(&worker, e) < 0 ||
	    scan_worker_enable_types(worker) < 0) {
		fprintf(stderr, "stage_share: %s\n", al_err_msg());
		return 1;
	}
	root_len = strlen(argv[2]); /* relative paths: past it and a '/' */
	if (nftw(argv[2], visit, 32, FTW_PHYS) != 0) {
		fprintf(stderr, "stage_share: %s: walk failed\n", argv[2]);
		return 1;
	}
	printf("files %llu view %llu alias %llu xor %llu flow %llu any %llu "
	    "rest %llu\n", nfiles, nview, nalias, nxor, nflow, nany, nrest);
	scan_worker_free(worker);
	scan_engine_free(e);
	rule_set_free(rs);
	dynbuf_free(&diags);
	return 0;
}
