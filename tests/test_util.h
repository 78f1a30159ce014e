/*
 * test_util.h - helpers shared by the Check suites: temporary rule
 * directories written from YAML text, and one-call scans of a buffer.
 */
#ifndef AIRLOCK_TEST_UTIL_H
#define AIRLOCK_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "scan_engine.h"

/* Makes a fresh directory under $TMPDIR; the caller removes it. */
static inline char *
tu_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	char *p = malloc(4096);

	ck_assert_ptr_nonnull(p);
	snprintf(p, 4096, "%s/airlock-test-XXXXXX", tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(p));
	return p;
}

static inline void
tu_write(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static inline void
tu_rmrf(char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(dir);
}

/* Loads rules from one YAML text; returns NULL and fills diags on error. */
static inline struct rule_set *
tu_load_text(const char *yaml, int require_examples, struct dynbuf *diags,
    size_t *nerr)
{
	struct rule_set *rs = NULL;
	char *dir = tu_mkdtemp();

	tu_write(dir, "rules.yml", yaml);
	dynbuf_init(diags, 1 << 20);
	if (rule_set_load(&rs, dir, require_examples, diags, nerr) < 0)
		rs = NULL;
	tu_rmrf(dir);
	return rs;
}

static inline struct rule_set *
tu_load_ok(const char *yaml)
{
	struct dynbuf diags;
	size_t nerr = 0;
	struct rule_set *rs = tu_load_text(yaml, 0, &diags, &nerr);

	if (rs == NULL)
		ck_abort_msg("rules failed to load: %s", dynbuf_str(&diags));
	dynbuf_free(&diags);
	return rs;
}

/* A loaded rule set with an engine and a worker, for scanning buffers. */
struct tu_scanner {
	struct rule_set *rs;
	struct scan_engine *e;
	struct scan_worker *w;
};

static inline void
tu_scanner_init(struct tu_scanner *s, const char *yaml)
{
	s->rs = tu_load_ok(yaml);
	ck_assert_int_eq(scan_engine_new(&s->e, s->rs, NULL), 0);
	ck_assert_int_eq(scan_worker_new(&s->w, s->e), 0);
}

static inline void
tu_scanner_free(struct tu_scanner *s)
{
	scan_worker_free(s->w);
	scan_engine_free(s->e);
	rule_set_free(s->rs);
}

static inline void
tu_scan(struct tu_scanner *s, const char *path, const char *data, size_t len,
    struct finding_list *out)
{
	memset(out, 0, sizeof(*out));
	ck_assert_int_eq(scan_mem(s->w, data, len, path, path, out), 0);
}

/* Number of findings of rule id in the list. */
static inline size_t
tu_count(const struct finding_list *l, const char *id)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += strcmp(l->v[i].rule->id, id) == 0;
	return n;
}

static inline const struct finding *
tu_first(const struct finding_list *l, const char *id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].rule->id, id) == 0)
			return &l->v[i];
	return NULL;
}

/*
 * Copies text so that its last byte is the last readable byte of a page:
 * the page after it cannot be read, so any read past the end faults, in
 * every build (with or without a sanitizer). *map_out is to be unmapped.
 */
static inline char *
tu_at_page_end(const char *text, size_t n, char **map_out, size_t *maplen)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t pages = (n + (size_t)pg - 1) / (size_t)pg + 1;
	char *map = mmap(NULL, pages * (size_t)pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(map, MAP_FAILED);
	ck_assert_int_eq(mprotect(map + (pages - 1) * (size_t)pg, (size_t)pg,
	    PROT_NONE), 0);
	*map_out = map;
	*maplen = pages * (size_t)pg;
	return memcpy(map + (pages - 1) * (size_t)pg - n, text, n);
}

/* Runs one suite; returns the number of failures. */
static inline int
tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

#endif
