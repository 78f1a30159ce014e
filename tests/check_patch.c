/*
 * check_patch.c - the patch reader on buffers it is handed: it keeps to
 * their (pointer, length) bounds, so a diff that ends in the middle of a
 * number is read to its last byte and no further.
 */
#include "test_util.h"

#include "scan_artifact.h"
#include "al_limits.h"
#include "scan_patch.h"

static const char rules[] =
    "rules:\n"
    "  - id: curl-sh\n"
    "    title: curl to shell\n"
    "    category: download-exec\n"
    "    severity: critical\n"
    "    pattern: 'curl\\s[^|\\n]*\\|\\s*(ba)?sh\\b'\n"
    "    description: D\n"
    "  - id: hook\n"
    "    title: a git hook\n"
    "    category: install-hook\n"
    "    severity: medium\n"
    "    paths: ['.husky/*', 'ci/*.yml']\n"
    "    exclude_paths: ['.husky/*.sample']\n"
    "    description: D\n";

/* Hunk headers whose counts run to the very end of the buffer, in a
 * traditional diff (the reader counts its hunks itself) and a git one. */
START_TEST(hunk_counts_stay_in_bounds)
{
	static const char *const cases[] = {
	    "--- a/x.sh\n+++ b/x.sh\n@@ -1 +1,2",
	    "--- a/x.sh\n+++ b/x.sh\n@@ -1,12",
	    "--- a/x.sh\n+++ b/x.sh\n@@ -12",
	    "--- a/x.sh\n+++ b/x.sh\n@@ -0,0 +1,1 @@\n+curl x | sh\n"
	    "--- a/y.sh\n+++ b/y.sh\n@@ -0,0 +1,1",
	    "diff --git a/x.sh b/x.sh\n--- a/x.sh\n+++ b/x.sh\n@@ -1 +1,2",
	};
	struct tu_scanner sc;
	size_t i;

	tu_scanner_init(&sc, rules);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct finding_list fl = {0};
		size_t n = strlen(cases[i]), maplen;
		char *map, *p = tu_at_page_end(cases[i], n, &map, &maplen);

		ck_assert_int_eq(scan_patch_mem(sc.w, p, n, "x.patch", 0, &fl), 0);
		/* A patch that ends mid-hunk is not read some other way. */
		ck_assert_uint_ge(tu_count(&fl, "airlock.unscannable"), 1);
		finding_list_free(&fl);
		munmap(map, maplen);
	}
	tu_scanner_free(&sc);
}
END_TEST

/* Renames, copies and mode changes bring content from the base tree: where
 * it lands decides the finding (none, low, medium, high). */
START_TEST(base_content_by_destination)
{
	static const struct {
		const char *diff;
		int sev;                  /* -1: no content-from-base finding */
		const char *names;        /* in the message */
	} cases[] = {
	    /* A pure rename into bin/: a script by its place. */
	    { "diff --git a/doc/a.txt b/bin/a\nsimilarity index 100%\n"
	      "rename from doc/a.txt\nrename to bin/a\n", AL_SEV_MEDIUM,
	      "doc/a.txt" },
	    /* Made executable on the way, one added line. */
	    { "diff --git a/doc/a.txt b/tools/a\nold mode 100644\n"
	      "new mode 100755\nsimilarity index 90%\nrename from doc/a.txt\n"
	      "rename to tools/a\nindex 1111111..2222222\n--- a/doc/a.txt\n"
	      "+++ b/tools/a\n"
	      "@@ -1 +1,2 @@\n x\n+y\n", AL_SEV_MEDIUM, "1 line added" },
	    /* Into a place an install-hook rule names, excludes respected. */
	    { "diff --git a/doc/a.txt b/.husky/pre-commit\nsimilarity index "
	      "100%\ncopy from doc/a.txt\ncopy to .husky/pre-commit\n",
	      AL_SEV_HIGH, "rule hook" },
	    { "diff --git a/doc/a.txt b/.husky/pre-commit.sample\nsimilarity "
	      "index 100%\ncopy from doc/a.txt\ncopy to "
	      ".husky/pre-commit.sample\n", -1, "" },
	    { "diff --git a/doc/a.txt b/CI/Build.yml\nsimilarity index 100%\n"
	      "rename from doc/a.txt\nrename to CI/Build.yml\n", AL_SEV_HIGH,
	      "CI/Build.yml" },
	    /* As runnable as before: low. */
	    { "diff --git a/x/a.py b/y/b.py\nsimilarity index 100%\n"
	      "rename from x/a.py\nrename to y/b.py\n", AL_SEV_LOW,
	      "already" },
	    /* A document to a document, a script to a document. */
	    { "diff --git a/doc/a.txt b/doc/b.md\nsimilarity index 100%\n"
	      "rename from doc/a.txt\nrename to doc/b.md\n", -1, "" },
	    { "diff --git a/a.sh b/doc/a.txt\nold mode 100755\nnew mode 100644\n"
	      "similarity index 100%\nrename from a.sh\nrename to doc/a.txt\n",
	      -1, "" },
	    /* A mode change: of a document, medium; of a script, it is
	     * executable-mode alone. */
	    { "diff --git a/doc/a.txt b/doc/a.txt\nold mode 100644\n"
	      "new mode 100755\n", AL_SEV_MEDIUM, "100644 to 100755" },
	    { "diff --git a/a.sh b/a.sh\nold mode 100644\nnew mode 100755\n",
	      -1, "" },
	};
	struct tu_scanner sc;
	size_t i;

	ck_assert_int_eq(scan_git_init(), 0);
	tu_scanner_init(&sc, rules);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct finding_list fl = {0};
		const struct finding *f;

		ck_assert_int_eq(scan_patch_mem(sc.w, cases[i].diff,
		    strlen(cases[i].diff), "x.patch", 0, &fl), 0);
		f = tu_first(&fl, "airlock.unscannable");
		ck_assert_msg(f == NULL, "case %zu: %s", i, f ? f->excerpt : "");
		f = tu_first(&fl, AL_RULE_BASE_CONTENT);
		if (cases[i].sev < 0) {
			ck_assert_msg(f == NULL, "case %zu: %s", i, f ? f->excerpt : "");
		} else {
			ck_assert_msg(f != NULL, "case %zu: no finding", i);
			ck_assert_int_eq(f->severity, cases[i].sev);
			ck_assert_msg(strstr(f->excerpt, cases[i].names) != NULL &&
			    strstr(f->excerpt, "base tree") != NULL,
			    "case %zu: %s", i, f->excerpt);
			/* The mode change is said once. */
			ck_assert_uint_eq(tu_count(&fl, AL_RULE_EXEC_MODE), 0);
		}
		finding_list_free(&fl);
	}
	tu_scanner_free(&sc);
}
END_TEST

/* A new link at path with this target, as git diff writes one. */
static int
link_diff(struct dynbuf *b, const char *path, const char *target)
{
	return dynbuf_addf(b, "diff --git a/%s b/%s\nnew file mode 120000\n"
	    "--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n\\ No newline at "
	    "end of file\n", path, path, path, target);
}

/* Links are followed through each other: loops end, .git is found in any
 * spelling and through another link, and a patch with more links than are
 * followed is unscannable. */
START_TEST(links_resolved_through_each_other)
{
	static const struct {
		const char *links[6];     /* path, target, ... */
		const char *path;         /* the finding asked about */
		const char *rule;
	} cases[] = {
	    { { "a", "b/x", "b", "a/y" }, "a", AL_RULE_SYMLINK_ESCAPE },
	    { { "a", "a/x" }, "a", AL_RULE_SYMLINK_ESCAPE },
	    { { "h", "sub/../.Git/hooks" }, "h", AL_RULE_SYMLINK_GIT },
	    { { "d/h", "..\\.git\\config" }, "d/h", AL_RULE_SYMLINK_GIT },
	    { { "G", "x", "x", ".git", "y/z", "../G/hooks" }, "y/z",
	      AL_RULE_SYMLINK_GIT },
	    { { "u", "..", "d/v", "../u/x" }, "d/v", AL_RULE_SYMLINK_ESCAPE },
	    { { "u", "d", "d/w", "../u/w2" }, "d/w", AL_RULE_SYMLINK },
	};
	struct tu_scanner sc;
	struct dynbuf b;
	size_t i, j;

	ck_assert_int_eq(scan_git_init(), 0);
	tu_scanner_init(&sc, rules);
	dynbuf_init(&b, 1 << 22);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct finding_list fl = {0};
		char want[64];
		size_t k;

		dynbuf_reset(&b);
		for (j = 0; j < 6 && cases[i].links[j]; j += 2)
			ck_assert_int_eq(link_diff(&b, cases[i].links[j],
			    cases[i].links[j + 1]), 0);
		ck_assert_int_eq(scan_patch_mem(sc.w, b.data, b.len, "x.patch", 0,
		    &fl), 0);
		snprintf(want, sizeof(want), "x.patch!/%s", cases[i].path);
		for (k = 0; k < fl.n && strcmp(fl.v[k].path, want) != 0; k++)
			;
		ck_assert_msg(k < fl.n, "case %zu: no finding", i);
		ck_assert_msg(strcmp(fl.v[k].rule->id, cases[i].rule) == 0,
		    "case %zu: %s: %s", i, fl.v[k].rule->id, fl.v[k].excerpt);
		finding_list_free(&fl);
	}
	/* One link more than the limit: unscannable, and each still judged
	 * by its own target. */
	dynbuf_reset(&b);
	for (j = 0; j <= AL_PATCH_MAX_LINKS; j++) {
		char name[32];

		snprintf(name, sizeof(name), "l%zu", j);
		ck_assert_int_eq(link_diff(&b, name, j == AL_PATCH_MAX_LINKS ?
		    ".git/hooks" : "x"), 0);
	}
	{
		struct finding_list fl = {0};
		const struct finding *f;

		ck_assert_int_eq(scan_patch_mem(sc.w, b.data, b.len, "x.patch", 0,
		    &fl), 0);
		ck_assert_uint_eq(tu_count(&fl, "airlock.unscannable"), 1);
		f = tu_first(&fl, AL_RULE_SYMLINK_GIT);
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(tu_count(&fl, AL_RULE_SYMLINK),
		    AL_PATCH_MAX_LINKS);
		finding_list_free(&fl);
	}
	dynbuf_free(&b);
	tu_scanner_free(&sc);
}
END_TEST

static Suite *
patch_suite(void)
{
	Suite *s = suite_create("patch");
	TCase *tc;

	tc = tcase_create("bounds");
	tcase_add_test(tc, hunk_counts_stay_in_bounds);
	suite_add_tcase(s, tc);
	tc = tcase_create("base-content");
	tcase_add_test(tc, base_content_by_destination);
	suite_add_tcase(s, tc);
	tc = tcase_create("symlinks");
	tcase_add_test(tc, links_resolved_through_each_other);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(patch_suite()) ? 1 : 0;
}
