/*
 * fuzz_rules.c - fuzz target for the rule loader (scanners/rules/:
 * rule_load.c, rule_yaml.c), the regex analyses it runs (rule_lit.c,
 * rule_factor.c) and the path globs (rule_glob.c): arbitrary bytes as the
 * one rule file of a directory, loaded as `airlock rules check` loads it.
 *
 * Nothing may crash or leak. A load either succeeds with no problem
 * counted, or fails with AL_EINVAL, every problem counted and each written
 * as "FILE:LINE: ..." (the file or the directory named). A rule set that
 * loads is sorted by id, each id found again by its lookup, with a
 * "sha256:" digest; every loaded glob is matched against a few paths and
 * every pattern's literals and factors are computed, as the engine does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fuzz_file.h"
#include "rule.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *dir, *file;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fuzz_dir_init("fuzz_rules");
	file = fuzz_file_path("fuzz.yml");
	return 0;
}

/* Every line of the diagnostics names the file or the directory. */
static void
check_diags(const struct dynbuf *d)
{
	const char *p, *end;

	if (d->len == 0)
		return;
	p = d->data;
	end = p + d->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (strncmp(p, dir, strlen(dir)) != 0 &&
		    strncmp(p, "(more problems", 14) != 0)
			abort();
		p = nl ? nl + 1 : end;
	}
}

static void
check_rule(const struct rule_set *rs, size_t i)
{
	static const char *const paths[] = {
		"a", "setup.py", ".github/workflows/ci.yml", "./src/a/b/c.py",
		"A/B/package.json", "x/.git/hooks/pre-commit", "",
	};
	const struct rule *r = rs->rules[i];
	size_t j, k;

	if (r->id == NULL || rule_set_find(rs, r->id) != r ||
	    rule_set_index(rs, r->id) != i ||
	    (i > 0 && strcmp(rs->rules[i - 1]->id, r->id) >= 0) ||
	    !rule_category_valid(r->category) || r->severity < AL_SEV_INFO ||
	    r->severity > AL_SEV_CRITICAL || r->file == NULL ||
	    strcmp(r->file, file) != 0)
		abort();
	for (j = 0; j < r->paths.n; j++)
		for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
			(void)rule_glob_match(r->paths.v[j], paths[k]);
	for (j = 0; j < r->exclude_paths.n; j++)
		for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
			(void)rule_glob_match(r->exclude_paths.v[j], paths[k]);
	if (r->pattern != NULL) {
		char **f = NULL;
		size_t nf = 0, minlen = 0, len = strlen(r->pattern);

		if (rule_pattern_literal(r->pattern, len) > len)
			abort();
		if (rule_pattern_factors(r->pattern, len, &f, &nf, &minlen) < 0)
			abort(); /* only out-of-memory may fail */
		for (j = 0; j < nf; j++) {
			if (strlen(f[j]) < minlen)
				abort();
			free(f[j]);
		}
		free(f);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule_set *rs = NULL;
	struct dynbuf diags;
	size_t nerr = 0, i;
	int rc;

	fuzz_file_put("fuzz.yml", data, size);
	dynbuf_init(&diags, 1 << 16);
	/* As `rules check` loads (no JIT: PCRE2's, and most of the time). */
	rc = rule_set_load(&rs, dir, RULE_LOAD_NO_JIT, &diags, &nerr);
	if (rc == 0) {
		if (rs == NULL || nerr != 0 || diags.len != 0 ||
		    strncmp(rs->digest, "sha256:", 7) != 0 ||
		    !al_is_hex(rs->digest + 7, 64))
			abort();
		for (i = 0; i < rs->nrules; i++)
			check_rule(rs, i);
		rule_set_free(rs);
	} else if (rs != NULL || (rc != AL_EINVAL && rc != AL_ENOMEM) ||
	    (rc == AL_EINVAL && (nerr == 0 || diags.len == 0))) {
		abort();
	}
	check_diags(&diags);
	dynbuf_free(&diags);
	return 0;
}
