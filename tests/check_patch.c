/*
 * check_patch.c - the patch reader on buffers it is handed: it keeps to
 * their (pointer, length) bounds, so a diff that ends in the middle of a
 * number is read to its last byte and no further.
 */
#include "test_util.h"

#include "scan_artifact.h"

static const char rules[] =
    "rules:\n"
    "  - id: curl-sh\n"
    "    title: curl to shell\n"
    "    category: download-exec\n"
    "    severity: critical\n"
    "    pattern: 'curl\\s[^|\\n]*\\|\\s*(ba)?sh\\b'\n"
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

static Suite *
patch_suite(void)
{
	Suite *s = suite_create("patch");
	TCase *tc;

	tc = tcase_create("bounds");
	tcase_add_test(tc, hunk_counts_stay_in_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(patch_suite()) ? 1 : 0;
}
