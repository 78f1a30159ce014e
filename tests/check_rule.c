/*
 * check_rule.c - loading rule packs: a good file, every kind of bad file
 * (each reported with file, line and rule id, all problems at once), and the
 * rule-set digest.
 */
#include "test_util.h"

static const char good[] =
    "rules:\n"
    "  - id: gh-pat\n"
    "    title: GitHub token\n"
    "    category: secret\n"
    "    severity: critical\n"
    "    pattern: '\\b(ghp_[A-Za-z0-9]{36})\\b'\n"
    "    secret: 1\n"
    "    entropy: 3.0\n"
    "    allow: {stopwords: [xxxx], regexes: ['^ghp_0+$']}\n"
    "    description: A token.\n"
    "    examples:\n"
    "      match: ['a ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ', "
    "'b ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5']\n"
    "      ignore: ['ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'nothing']\n"
    "  - id: wf\n"
    "    title: Workflow\n"
    "    category: install-hook\n"
    "    severity: medium\n"
    "    paths: ['.github/workflows/*.yml']\n"
    "    exclude_paths: ['vendor/**']\n"
    "    description: CI.\n"
    "    examples:\n"
    "      match: [{path: .github/workflows/a.yml, content: x}, "
    "{path: r/.github/workflows/b.yml}]\n"
    "      ignore: [{path: docs/a.yml, content: x}, "
    "{path: vendor/.github/workflows/a.yml}]\n";

START_TEST(load_good)
{
	struct rule_set *rs = tu_load_ok(good);
	const struct rule *r;

	ck_assert_uint_eq(rs->nrules, 2);
	r = rule_set_find(rs, "gh-pat");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->category, "secret");
	ck_assert_int_eq(r->severity, AL_SEV_CRITICAL);
	ck_assert_uint_eq(r->secret_group, 1);
	ck_assert(r->entropy == 3.0);
	ck_assert_uint_eq(r->allow_stopwords.n, 1);
	ck_assert_uint_eq(r->allow_regexes.n, 1);
	ck_assert_uint_eq(r->nmatch, 2);
	ck_assert_uint_eq(r->nignore, 2);
	ck_assert_int_eq(r->line, 2);
	ck_assert_uint_eq(r->max_width, 40);
	r = rule_set_find(rs, "wf");
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_null(r->pattern);
	ck_assert_str_eq(r->match[0].path, ".github/workflows/a.yml");
	ck_assert_str_eq(r->match[1].content, "");
	ck_assert_ptr_null(rule_set_find(rs, "nope"));
	ck_assert_int_eq(strncmp(rs->digest, "sha256:", 7), 0);
	ck_assert_uint_eq(strlen(rs->digest), 71);
	rule_set_free(rs);
}
END_TEST

/* Loads text that must fail; checks every expected fragment is reported. */
static void
expect_errors(const char *yaml, int require_examples, size_t want_errors,
    const char *const *fragments)
{
	struct dynbuf diags;
	size_t nerr = 0, i;
	struct rule_set *rs = tu_load_text(yaml, require_examples, &diags, &nerr);

	ck_assert_msg(rs == NULL, "loaded although broken");
	ck_assert_msg(nerr == want_errors, "%zu errors, want %zu:\n%s", nerr,
	    want_errors, dynbuf_str(&diags));
	for (i = 0; fragments[i] != NULL; i++)
		ck_assert_msg(strstr(dynbuf_str(&diags), fragments[i]) != NULL,
		    "missing '%s' in:\n%s", fragments[i], dynbuf_str(&diags));
	dynbuf_free(&diags);
}

#define RULE_HEAD(id) \
    "  - id: " id "\n    title: T\n    category: secret\n" \
    "    severity: high\n    description: D\n"

/* Atoms and conditions (docs/rules.md "Conditions over a file"): tags
 * resolve to bits, and each misuse is its own problem. */
START_TEST(conditions_load_and_resolve)
{
	static const char y[] =
	    "rules:\n" RULE_HEAD("a1") "    atom: [src]\n    pattern: 'os\\.environ'\n"
	    RULE_HEAD("a2") "    tags: [snk, src]\n    pattern: 'post\\('\n"
	    RULE_HEAD("c1") "    flow: {from: [src], to: [snk], built: true}\n"
	    RULE_HEAD("c2") "    all: [snk, src]\n    within: 3\n    ordered: true\n"
	    "    key: [src]\n";
	struct dynbuf diags;
	size_t nerr = 0;
	struct rule_set *rs = tu_load_text(y, 0, &diags, &nerr);
	const struct rule *a1, *a2, *c1, *c2;

	ck_assert_msg(rs != NULL, "%s", dynbuf_str(&diags));
	a1 = rule_set_find(rs, "a1");
	a2 = rule_set_find(rs, "a2");
	c1 = rule_set_find(rs, "c1");
	c2 = rule_set_find(rs, "c2");
	ck_assert(a1->atom && !a2->atom);
	ck_assert_uint_eq(rs->ntags, 2);
	ck_assert_uint_eq(a2->tag_bits, 3);
	ck_assert_uint_eq(c1->cond, RULE_COND_FLOW);
	ck_assert_uint_eq(c1->from_bits, a1->tag_bits);
	ck_assert_int_eq(c1->flow_built, 1);
	ck_assert_uint_eq(c2->cond, RULE_COND_ALL);
	ck_assert_uint_eq(c2->within, 3);
	ck_assert_int_eq(c2->ordered, 1);
	ck_assert_str_eq(rs->tag_names[c2->all_bits[0]], "snk");
	ck_assert_uint_eq(c2->key_bits, a1->tag_bits);
	rule_set_free(rs);
	dynbuf_free(&diags);
}
END_TEST

START_TEST(bad_conditions)
{
	const char *f[] = {"rule r1: an atom needs a 'pattern'",
	    "rule r2: 'all' names 2 to 8 tags",
	    "rule r3: 'flow' needs both 'from' and 'to'",
	    "rule r4: 'within', 'ordered', 'lowered_by' and 'key' belong to "
	    "'all'",
	    "rule r5: a condition ('all' or 'flow') has no pattern",
	    "rule r6: 'within', 'ordered', 'lowered_by' and 'key' belong to "
	    "'all'",
	    NULL};
	const char *g[] = {"rule c1: 'flow.to' names tag 'nowhere', which no "
	    "atom or rule has", "rule c2: 'key' names tag 'z', which is not "
	    "in 'all'", NULL};

	expect_errors("rules:\n"
	    RULE_HEAD("r1") "    atom: [x]\n    paths: ['*.py']\n"
	    RULE_HEAD("r2") "    all: [x]\n"
	    RULE_HEAD("r3") "    flow: {from: [x]}\n"
	    RULE_HEAD("r4") "    pattern: 'abc'\n    within: 4\n"
	    RULE_HEAD("r5") "    pattern: 'abc'\n    flow: {from: [x], to: [x]}\n"
	    RULE_HEAD("r6") "    flow: {from: [x], to: [x]}\n    key: [x]\n",
	    0, 6, f);
	expect_errors("rules:\n"
	    RULE_HEAD("a1") "    atom: [x]\n    pattern: 'abc'\n"
	    RULE_HEAD("a2") "    atom: [y]\n    pattern: 'abd'\n"
	    RULE_HEAD("a3") "    atom: [z]\n    pattern: 'abe'\n"
	    RULE_HEAD("c1") "    flow: {from: [x], to: [nowhere]}\n"
	    RULE_HEAD("c2") "    all: [x, y]\n    key: [z]\n", 0, 2, g);
}
END_TEST

START_TEST(bad_unknown_key)
{
	const char *f[] = {"rules.yml:7: rule r1: unknown key 'patern'", NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    patern: 'abc'\n", 0, 2, f);
}
END_TEST

START_TEST(bad_severity_and_category)
{
	const char *f[] = {"rule r1: bad severity 'urgent'",
	    "rule r2: unknown category 'malware'", NULL};

	expect_errors("rules:\n"
	    "  - id: r1\n    title: T\n    category: secret\n"
	    "    severity: urgent\n    description: D\n    pattern: abc\n"
	    "  - id: r2\n    title: T\n    category: malware\n"
	    "    severity: low\n    description: D\n    pattern: abc\n", 0, 2, f);
}
END_TEST

START_TEST(bad_duplicate_id_and_key)
{
	const char *f[] = {"rule r1: duplicate id (also at", 
	    "rule r2: duplicate key 'pattern'", NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    pattern: abc\n"
	    RULE_HEAD("r1") "    pattern: abd\n"
	    RULE_HEAD("r2") "    pattern: abc\n    pattern: abe\n", 0, 2, f);
}
END_TEST

START_TEST(bad_hyperscan_pattern)
{
	/* Back-references are PCRE but not Hyperscan. */
	const char *f[] = {"rules.yml:7: rule r1: pattern rejected by Hyperscan:",
	    NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    pattern: '(ab)c\\1'\n", 0, 1,
	    f);
}
END_TEST

START_TEST(bad_pcre2_pattern)
{
	/* Unbalanced: both engines refuse it; each says so. */
	const char *f[] = {"Hyperscan", "rejected by PCRE2 at offset", NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    pattern: 'ab(c'\n", 0, 2, f);
}
END_TEST

START_TEST(bad_empty_match_and_empty_rule)
{
	const char *f[] = {"rule r1: pattern can match the empty string",
	    "rule r2: empty rule: it needs a 'pattern', 'paths', 'all' or 'flow'", NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    pattern: 'x*'\n"
	    RULE_HEAD("r2"), 0, 3, f);
}
END_TEST

START_TEST(bad_no_literal_without_keywords)
{
	const char *f[] = {"rule r1: pattern has no literal", NULL};
	struct rule_set *rs;

	expect_errors("rules:\n" RULE_HEAD("r1")
	    "    pattern: '[A-Za-z0-9]{40}'\n", 0, 1, f);
	/* The same pattern is fine with keywords. */
	rs = tu_load_ok("rules:\n" RULE_HEAD("r1")
	    "    pattern: '[A-Za-z0-9]{40}'\n    keywords: [token]\n");
	rule_set_free(rs);
}
END_TEST

START_TEST(bad_secret_group_and_numbers)
{
	const char *f[] = {"rule r1: 'secret' names group 3 but the pattern has 1",
	    "rule r2: 'entropy' must be a number from 0 to 8, not 'lots'", NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    pattern: 'a(bc)'\n"
	    "    secret: 3\n"
	    RULE_HEAD("r2") "    pattern: abc\n    entropy: lots\n", 0, 2, f);
}
END_TEST

START_TEST(bad_missing_fields_and_id)
{
	const char *f[] = {"rule without an 'id'", "rule r2: missing 'title'",
	    "rule Bad_Id: bad id", NULL};

	expect_errors("rules:\n"
	    "  - title: T\n    category: secret\n    severity: low\n"
	    "    description: D\n    pattern: abc\n"
	    "  - id: r2\n    category: secret\n    severity: low\n"
	    "    description: D\n    pattern: abc\n"
	    "  - id: Bad_Id\n    title: T\n    category: secret\n"
	    "    severity: low\n    description: D\n    pattern: abc\n", 0, 3, f);
}
END_TEST

START_TEST(bad_yaml_syntax)
{
	const char *f[] = {"rules.yml:4: YAML:", "started at line 3", NULL};

	expect_errors("rules:\n  - id: r1\n    title: [unclosed\n", 0, 1, f);
}
END_TEST

START_TEST(bad_shape)
{
	const char *f1[] = {"a rule file is a mapping with a 'rules' list", NULL};
	const char *f2[] = {"unknown top-level key 'rule'", NULL};
	const char *f3[] = {"'paths' must be a list", NULL};

	expect_errors("- just a list\n", 0, 1, f1);
	expect_errors("rule: []\n", 0, 2, f2);
	expect_errors("rules:\n" RULE_HEAD("r1") "    paths: '*.py'\n", 0, 2, f3);
}
END_TEST

START_TEST(bad_examples_required)
{
	const char *f[] = {"rule r1: needs at least 2 'match' and 2 'ignore' "
	    "examples (has 1 and 0)", NULL};
	const char *f2[] = {"rule r2: this rule has 'paths': its examples need "
	    "a 'path'", NULL};

	expect_errors("rules:\n" RULE_HEAD("r1") "    pattern: abc\n"
	    "    examples: {match: [abc]}\n", 1, 1, f);
	expect_errors("rules:\n" RULE_HEAD("r2") "    paths: ['*.py']\n"
	    "    pattern: abc\n"
	    "    examples: {match: [abc, {path: a.py, content: abc}],\n"
	    "               ignore: [{path: a.py}, {path: b.py}]}\n", 0, 1, f2);
}
END_TEST

START_TEST(bad_all_problems_reported)
{
	struct dynbuf diags;
	size_t nerr = 0;
	struct rule_set *rs;
	char *dir = tu_mkdtemp();

	/* Two files, a problem in each: both are reported in one run. */
	tu_write(dir, "a.yml", "rules:\n" RULE_HEAD("r1") "    pattern: abc\n"
	    "    colour: red\n");
	tu_write(dir, "b.yml", "rules:\n" RULE_HEAD("r2") "    severity: x\n");
	tu_write(dir, "ignored.txt", "not yaml: [");
	dynbuf_init(&diags, 1 << 16);
	ck_assert_int_eq(rule_set_load(&rs, dir, 0, &diags, &nerr), AL_EINVAL);
	ck_assert_ptr_null(rs);
	ck_assert_msg(strstr(dynbuf_str(&diags), "a.yml:8: rule r1: unknown key "
	    "'colour'") != NULL, "%s", dynbuf_str(&diags));
	ck_assert_msg(strstr(dynbuf_str(&diags), "b.yml:7: rule r2:") != NULL,
	    "%s", dynbuf_str(&diags));
	ck_assert_msg(strstr(dynbuf_str(&diags), "ignored.txt") == NULL, "%s",
	    dynbuf_str(&diags));
	dynbuf_free(&diags);
	tu_rmrf(dir);
}
END_TEST

START_TEST(bad_missing_dir)
{
	struct dynbuf diags;
	struct rule_set *rs;
	size_t nerr;

	dynbuf_init(&diags, 1024);
	ck_assert_int_eq(rule_set_load(&rs, "/nonexistent/rules", 0, &diags,
	    &nerr), AL_EIO);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "/nonexistent/rules"));
	dynbuf_free(&diags);
}
END_TEST

START_TEST(digest_tracks_behaviour_not_examples)
{
	const char *base = "rules:\n" RULE_HEAD("r1") "    pattern: abc\n";
	struct rule_set *a = tu_load_ok(base);
	struct rule_set *b = tu_load_ok("rules:\n" RULE_HEAD("r1")
	    "    pattern: abc\n    examples: {match: [abc]}\n");
	struct rule_set *c = tu_load_ok("rules:\n" RULE_HEAD("r1")
	    "    pattern: abd\n");
	struct rule_set *d = tu_load_ok(base);

	ck_assert_str_eq(a->digest, b->digest);
	ck_assert_str_eq(a->digest, d->digest);
	ck_assert_str_ne(a->digest, c->digest);
	rule_set_free(a);
	rule_set_free(b);
	rule_set_free(c);
	rule_set_free(d);
}
END_TEST

START_TEST(digest_independent_of_file_order)
{
	char *d1 = tu_mkdtemp(), *d2 = tu_mkdtemp();
	struct rule_set *a, *b;
	struct dynbuf diags;
	size_t nerr;

	tu_write(d1, "a.yml", "rules:\n" RULE_HEAD("r1") "    pattern: abc\n");
	tu_write(d1, "b.yml", "rules:\n" RULE_HEAD("r2") "    pattern: abd\n");
	tu_write(d2, "z.yml", "rules:\n" RULE_HEAD("r2") "    pattern: abd\n"
	    RULE_HEAD("r1") "    pattern: abc\n");
	dynbuf_init(&diags, 4096);
	ck_assert_int_eq(rule_set_load(&a, d1, 0, &diags, &nerr), 0);
	ck_assert_int_eq(rule_set_load(&b, d2, 0, &diags, &nerr), 0);
	ck_assert_str_eq(a->digest, b->digest);
	rule_set_free(a);
	rule_set_free(b);
	dynbuf_free(&diags);
	tu_rmrf(d1);
	tu_rmrf(d2);
}
END_TEST

static Suite *
rule_suite(void)
{
	Suite *s = suite_create("rule");
	TCase *tc;

	tc = tcase_create("load");
	tcase_add_test(tc, load_good);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad");
	tcase_add_test(tc, conditions_load_and_resolve);
	tcase_add_test(tc, bad_conditions);
	tcase_add_test(tc, bad_unknown_key);
	tcase_add_test(tc, bad_severity_and_category);
	tcase_add_test(tc, bad_duplicate_id_and_key);
	tcase_add_test(tc, bad_hyperscan_pattern);
	tcase_add_test(tc, bad_pcre2_pattern);
	tcase_add_test(tc, bad_empty_match_and_empty_rule);
	tcase_add_test(tc, bad_no_literal_without_keywords);
	tcase_add_test(tc, bad_secret_group_and_numbers);
	tcase_add_test(tc, bad_missing_fields_and_id);
	tcase_add_test(tc, bad_yaml_syntax);
	tcase_add_test(tc, bad_shape);
	tcase_add_test(tc, bad_examples_required);
	tcase_add_test(tc, bad_all_problems_reported);
	tcase_add_test(tc, bad_missing_dir);
	suite_add_tcase(s, tc);
	tc = tcase_create("digest");
	tcase_add_test(tc, digest_tracks_behaviour_not_examples);
	tcase_add_test(tc, digest_independent_of_file_order);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(rule_suite()) ? 1 : 0;
}
