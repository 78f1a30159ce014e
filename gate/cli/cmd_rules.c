/*
 * cmd_rules.c - `airlock rules list|test|check [DIR]`.
 *
 * `test` runs every example of every rule through the real engine with the
 * whole rule set loaded, exactly as a scan would see a file with that path
 * and content, so a rule's examples prove what the gate will do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dirs.h"
#include "err.h"
#include "gate.h"
#include "scan.h"

static const char rules_usage[] =
    "usage: airlock rules list [DIR]    rules, their severities and the "
    "rule-set digest\n"
    "       airlock rules check [DIR]   validate the rules (syntax, patterns,\n"
    "                                   examples present) without running them\n"
    "       airlock rules test [DIR]    check, then prove every rule against "
    "its\n"
    "                                   own match and ignore examples\n"
    "       airlock rules reload        tell the running gate to reload its\n"
    "                                   rules (an admin token; see --help)\n"
    "\n"
    "DIR defaults to $AIRLOCK_RULES or the rules shipped with airlock.\n"
    "exit status: 0 all good, 1 a rule failed, 2 the rules could not be "
    "loaded\n";

static int
load(const char *dir, unsigned flags, struct rule_set **rs)
{
	struct dynbuf diags;
	size_t nerr = 0;
	int rc;

	dynbuf_init(&diags, (size_t)1 << 22);
	rc = rule_set_load(rs, dir, flags, &diags, &nerr);
	if (rc < 0) {
		fputs(dynbuf_str(&diags), stderr);
		fprintf(stderr, "airlock rules: %s\n", al_err_msg());
	}
	dynbuf_free(&diags);
	return rc;
}

static int
rules_list(const struct rule_set *rs)
{
	size_t i;

	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		printf("%-40s %-8s %-18s %s\n", r->id,
		    al_severity_name(r->severity), r->category, r->title);
	}
	printf("\n%zu rules, digest %s\n", rs->nrules, rs->digest);
	return EXIT_OK;
}

/* 1 if scanning the example reports rule r. */
static int
example_hits(struct scan_worker *w, const struct rule *r,
    const struct rule_example *ex, int *err)
{
	struct finding_list fl = {0};
	const char *path = ex->path ? ex->path : "example.txt";
	size_t i;
	int hit = 0;

	if (scan_mem(w, ex->content, ex->content_len, path, path, &fl) < 0) {
		*err = 1;
		return 0;
	}
	for (i = 0; i < fl.n; i++)
		if (fl.v[i].rule == r)
			hit = 1;
	finding_list_free(&fl);
	return hit;
}

static int
rules_test(const struct rule_set *rs)
{
	struct scan_engine *e = NULL;
	struct scan_worker *w = NULL;
	size_t passed = 0, failed = 0, i, j;
	int err = 0;

	if (scan_engine_new(&e, rs, NULL) < 0 || scan_worker_new(&w, e) < 0) {
		fprintf(stderr, "airlock rules: %s\n", al_err_msg());
		scan_engine_free(e);
		return EXIT_ERROR;
	}
	scan_worker_report_atoms(w);
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		for (j = 0; j < r->nmatch + r->nignore && !err; j++) {
			int want = j < r->nmatch;
			const struct rule_example *ex = want ? &r->match[j] :
			    &r->ignore[j - r->nmatch];

			if (example_hits(w, r, ex, &err) == want) {
				passed++;
				continue;
			}
			failed++;
			printf("FAIL %s:%d: rule %s: %s example %s\n", r->file,
			    ex->line, r->id, want ? "match" : "ignore",
			    want ? "was not reported" : "was reported");
		}
	}
	scan_worker_free(w);
	scan_engine_free(e);
	if (err) {
		fprintf(stderr, "airlock rules: %s\n", al_err_msg());
		return EXIT_ERROR;
	}
	printf("%zu passed, %zu failed\n", passed, failed);
	return failed ? EXIT_FINDINGS : EXIT_OK;
}

int
cmd_rules(int argc, char **argv)
{
	struct rule_set *rs = NULL;
	const char *verb;
	char *dir;
	int ret;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		fputs(rules_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_ERROR : EXIT_OK;
	}
	verb = argv[1];
	if (strcmp(verb, "reload") == 0)
		return cmd_rules_reload(argc - 1, argv + 1);
	if (strcmp(verb, "list") && strcmp(verb, "test") && strcmp(verb, "check")) {
		fprintf(stderr, "airlock rules: unknown command '%s'\n\n%s", verb,
		    rules_usage);
		return EXIT_ERROR;
	}
	if (argc > 2 && (strcmp(argv[2], "-h") == 0 ||
	    strcmp(argv[2], "--help") == 0)) {
		fputs(rules_usage, stdout);
		return EXIT_OK;
	}
	if (argc > 3) {
		fprintf(stderr, "airlock rules: too many arguments\n\n%s",
		    rules_usage);
		return EXIT_ERROR;
	}
	dir = gate_rules_dir(argc > 2 ? argv[2] : NULL);
	/* list and check match nothing: no JIT; test proves the examples. */
	if (load(dir, strcmp(verb, "list") == 0 ? RULE_LOAD_NO_JIT :
	    strcmp(verb, "check") == 0 ? RULE_LOAD_EXAMPLES | RULE_LOAD_NO_JIT :
	    RULE_LOAD_EXAMPLES, &rs) < 0) {
		free(dir);
		return EXIT_ERROR;
	}
	if (strcmp(verb, "list") == 0) {
		ret = rules_list(rs);
	} else if (strcmp(verb, "check") == 0) {
		printf("%s: %zu rules ok, digest %s\n", dir, rs->nrules,
		    rs->digest);
		ret = EXIT_OK;
	} else {
		ret = rules_test(rs);
	}
	rule_set_free(rs);
	free(dir);
	return ret;
}
