/*
 * check_report.c - output formats: the JSON document has exactly the keys of
 * the contract, SARIF 2.1.0 carries what code-scanning tools require, text
 * output never passes hostile control bytes to the terminal, and paths or
 * excerpts that are not UTF-8 still give valid JSON, with their bytes in
 * "<key>_hex" (JSON) or the result's property bag (SARIF).
 */
#include <jansson.h>

#include "test_util.h"

#include "report.h"
#include "util.h"

#define TOKEN "ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ"

static const char rules[] =
    "rules:\n"
    "  - id: gh-pat\n"
    "    title: GitHub token\n"
    "    category: secret\n"
    "    severity: critical\n"
    "    pattern: '\\b(ghp_[A-Za-z0-9]{36})\\b'\n"
    "    secret: 1\n"
    "    description: D\n"
    "  - id: workflow\n"
    "    title: Workflow\n"
    "    category: install-hook\n"
    "    severity: medium\n"
    "    paths: ['.github/workflows/*.yml']\n"
    "    description: CI runs it.\n";

static struct tu_scanner sc;
static struct finding_list fl;
static struct scan_report rep;

static void
setup(void)
{
	static const char hostile[] = "x\033[2J\xff = " TOKEN "\n";
	struct finding_list more;

	tu_scanner_init(&sc, rules);
	tu_scan(&sc, "dir/odd\xfe\033name.txt", hostile, sizeof(hostile) - 1, &fl);
	tu_scan(&sc, "r/.github/workflows/ci.yml", "on: push\n", 9, &more);
	ck_assert_int_eq(finding_list_move(&fl, &more), 0);
	ck_assert_int_eq(finding_add_builtin(&fl, AL_RULE_UNSCANNABLE, "big.bin",
	    "larger than the limit"), 0);
	finding_list_sort(&fl);
	ck_assert_uint_eq(fl.n, 3);
	memset(&rep, 0, sizeof(rep));
	rep.rs = sc.rs;
	rep.findings = &fl;
	rep.files = 3;
	rep.bytes = 1234;
	rep.seconds = 0.5;
}

static void
teardown(void)
{
	finding_list_free(&fl);
	tu_scanner_free(&sc);
}

/* The object has exactly these keys. */
static void
exact_keys(json_t *o, const char *const *keys)
{
	size_t n = 0;

	ck_assert(json_is_object(o));
	for (; keys[n] != NULL; n++)
		ck_assert_msg(json_object_get(o, keys[n]) != NULL, "no key %s",
		    keys[n]);
	ck_assert_uint_eq(json_object_size(o), n);
}

START_TEST(json_contract)
{
	static const char *const top[] = {"tool", "ruleset", "findings", "stats",
	    NULL};
	static const char *const tool[] = {"name", "version", NULL};
	static const char *const ruleset[] = {"digest", "rules", NULL};
	static const char *const finding[] = {"rule", "title", "category",
	    "severity", "path", "line", "column", "excerpt", "fingerprint", NULL};
	static const char *const finding_hex[] = {"rule", "title", "category",
	    "severity", "path", "path_hex", "line", "column", "excerpt",
	    "excerpt_hex", "fingerprint", NULL};
	char token_hex[2 * sizeof(TOKEN) - 1];
	static const char *const stats[] = {"files", "bytes", "seconds", NULL};
	char *doc = report_json(&rep);
	json_error_t err;
	json_t *root, *arr, *f;
	size_t i;

	ck_assert_ptr_nonnull(doc);
	root = json_loads(doc, 0, &err);
	ck_assert_msg(root != NULL, "invalid JSON: %s", err.text);
	exact_keys(root, top);
	exact_keys(json_object_get(root, "tool"), tool);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(root,
	    "tool"), "name")), "airlock");
	exact_keys(json_object_get(root, "ruleset"), ruleset);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(root,
	    "ruleset"), "digest")), sc.rs->digest);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(root,
	    "ruleset"), "rules")), 2);
	exact_keys(json_object_get(root, "stats"), stats);
	ck_assert(json_is_real(json_object_get(json_object_get(root, "stats"),
	    "seconds")));
	arr = json_object_get(root, "findings");
	ck_assert_uint_eq(json_array_size(arr), 3);
	/* Sorted by path: big.bin, dir/odd..., r/.github/...; the one whose
	 * path and excerpt are not UTF-8 has their bytes beside them. */
	json_array_foreach(arr, i, f)
		exact_keys(f, i == 1 ? finding_hex : finding);
	f = json_array_get(arr, 1);
	ck_assert_str_eq(json_string_value(json_object_get(f, "rule")), "gh-pat");
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")),
	    "critical");
	ck_assert_int_eq(json_integer_value(json_object_get(f, "line")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(f, "column")), 10);
	/* Invalid UTF-8 became U+FFFD; ESC survives only as a JSON escape. */
	ck_assert_str_eq(json_string_value(json_object_get(f, "path")),
	    "dir/odd\xef\xbf\xbd\033name.txt");
	ck_assert_str_eq(json_string_value(json_object_get(f, "path_hex")),
	    "6469722f6f6464fe1b6e616d652e747874");
	/* The excerpt's bytes are those of the redacted excerpt: the secret
	 * is no more in its hex than in its text. */
	ck_assert_str_eq(json_string_value(json_object_get(f, "excerpt")),
	    "x\033[2J\xef\xbf\xbd = ghp_*****");
	ck_assert_str_eq(json_string_value(json_object_get(f, "excerpt_hex")),
	    "781b5b324aff203d206768705f2a2a2a2a2a");
	al_hex(token_hex, (const unsigned char *)TOKEN, sizeof(TOKEN) - 1);
	ck_assert_ptr_null(strstr(doc, token_hex));
	ck_assert_ptr_null(strstr(doc, TOKEN));
	ck_assert_ptr_null(strchr(doc, '\033'));
	json_decref(root);
	free(doc);
}
END_TEST

START_TEST(sarif_required_fields)
{
	char *doc = report_sarif(&rep);
	json_error_t err;
	json_t *root, *run, *driver, *res, *loc, *r0;
	size_t i, nrules;

	ck_assert_ptr_nonnull(doc);
	root = json_loads(doc, 0, &err);
	ck_assert_msg(root != NULL, "invalid JSON: %s", err.text);
	ck_assert_str_eq(json_string_value(json_object_get(root, "version")),
	    "2.1.0");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(root,
	    "$schema")), "sarif-2.1.0"));
	run = json_array_get(json_object_get(root, "runs"), 0);
	ck_assert_ptr_nonnull(run);
	driver = json_object_get(json_object_get(run, "tool"), "driver");
	ck_assert_str_eq(json_string_value(json_object_get(driver, "name")),
	    "airlock");
	nrules = json_array_size(json_object_get(driver, "rules"));
	ck_assert_uint_ge(nrules, 3); /* the set's two and the built-ins */
	r0 = json_array_get(json_object_get(driver, "rules"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(r0, "id")), "gh-pat");
	ck_assert_ptr_nonnull(json_object_get(json_object_get(r0,
	    "shortDescription"), "text"));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r0,
	    "defaultConfiguration"), "level")), "error");
	ck_assert_uint_eq(json_array_size(json_object_get(run, "results")), 3);
	json_array_foreach(json_object_get(run, "results"), i, res) {
		const char *id = json_string_value(json_object_get(res, "ruleId"));
		json_int_t idx = json_integer_value(json_object_get(res,
		    "ruleIndex"));
		json_t *rule = json_array_get(json_object_get(driver, "rules"),
		    (size_t)idx);

		ck_assert_ptr_nonnull(id);
		ck_assert_ptr_nonnull(rule);
		ck_assert_str_eq(json_string_value(json_object_get(rule, "id")), id);
		ck_assert_ptr_nonnull(json_object_get(res, "level"));
		ck_assert_ptr_nonnull(json_object_get(json_object_get(res,
		    "message"), "text"));
		loc = json_object_get(json_array_get(json_object_get(res,
		    "locations"), 0), "physicalLocation");
		ck_assert_ptr_nonnull(json_object_get(json_object_get(loc,
		    "artifactLocation"), "uri"));
		if (strcmp(id, "gh-pat") == 0) {
			json_t *props = json_object_get(res, "properties");

			ck_assert_int_eq(json_integer_value(json_object_get(
			    json_object_get(loc, "region"), "startLine")), 1);
			/* SARIF has no siblings: the bytes are in the bag. */
			ck_assert_str_eq(json_string_value(json_object_get(props,
			    "path_hex")), "6469722f6f6464fe1b6e616d652e747874");
			ck_assert_str_eq(json_string_value(json_object_get(props,
			    "excerpt_hex")), "781b5b324aff203d206768705f2a2a2a2a2a");
			ck_assert_str_eq(json_string_value(json_object_get(
			    json_object_get(json_object_get(loc, "region"),
			    "snippet"), "text")), "x\033[2J\xef\xbf\xbd = ghp_*****");
			/* The URI is percent-encoded. */
			ck_assert_str_eq(json_string_value(json_object_get(
			    json_object_get(loc, "artifactLocation"), "uri")),
			    "dir/odd%FE%1Bname.txt");
		} else {
			/* Whole-file findings carry no region; plain text, no
			 * bytes in the bag. */
			ck_assert_ptr_null(json_object_get(loc, "region"));
			ck_assert_ptr_null(json_object_get(json_object_get(res,
			    "properties"), "path_hex"));
			ck_assert_ptr_null(json_object_get(json_object_get(res,
			    "properties"), "excerpt_hex"));
		}
	}
	ck_assert_ptr_null(strstr(doc, TOKEN));
	json_decref(root);
	free(doc);
}
END_TEST

START_TEST(text_is_terminal_safe)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_text(out, &rep, 0), 0);
	fclose(out);
	ck_assert_ptr_null(memchr(buf, '\033', len));
	ck_assert_ptr_nonnull(strstr(buf, "dir/odd\\xfe\\x1bname.txt"));
	ck_assert_ptr_nonnull(strstr(buf, "3 findings (1 critical, 1 high, "
	    "1 medium) in 3 files"));
	ck_assert_ptr_nonnull(strstr(buf, "ghp_*****"));
	ck_assert_ptr_null(strstr(buf, TOKEN));
	free(buf);
}
END_TEST

START_TEST(text_color_only_when_asked)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_int_eq(report_text(out, &rep, 1), 0);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(buf, "\033[1;97;41mcritical"));
	free(buf);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("formats");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, json_contract);
	tcase_add_test(tc, sarif_required_fields);
	tcase_add_test(tc, text_is_terminal_safe);
	tcase_add_test(tc, text_color_only_when_asked);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(report_suite()) ? 1 : 0;
}
