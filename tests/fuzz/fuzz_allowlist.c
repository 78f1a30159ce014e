/*
 * fuzz_allowlist.c - fuzz target for the gate's allow-list (gate/cli/
 * allowlist.c): arbitrary bytes as the YAML file `airlock scan
 * --allowlist` reads, then every entry that loaded applied to findings.
 *
 * Nothing may crash or leak. A list that loads holds entries with all of
 * rule, path, sha256 (64 lower-case hex digits) and reason; one that does
 * not load says why in the diagnostics. Applied, an entry removes exactly
 * the findings of its rule, at a path its glob matches, in a file of its
 * digest, and never a built-in finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "err.h"
#include "fuzz_file.h"
#include "rule.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *file;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	(void)fuzz_dir_init("fuzz_allowlist");
	file = fuzz_file_path("allow.yml");
	return 0;
}

/* What allowlist_apply must decide, worked out again. */
static int
allowed(const struct allowlist *al, const struct rule *r, const char *path,
    const char *digest)
{
	size_t i;

	if (r->builtin)
		return 0;
	for (i = 0; i < al->n; i++)
		if (strcmp(al->v[i].rule, r->id) == 0 &&
		    strcmp(al->v[i].sha256, digest) == 0 &&
		    rule_glob_match(al->v[i].path, path))
			return 1;
	return 0;
}

/*
 * Findings of each entry's rule (up to 8) and of a built-in one, for a
 * file of the first entry's digest at each of a few paths: those kept are
 * the ones no entry allows, in their order.
 */
static void
apply(const struct allowlist *al)
{
	static const char *const paths[] = {
		"a.py", "tests/fixtures/x.py", "src/a/b/c.py", "X.PY", "",
	};
	struct rule rules[9];
	struct finding v[9];
	int want[9];
	const char *digest = al->n > 0 ? al->v[0].sha256 : "";
	size_t nr = 0, i, j, k, removed, nwant;

	memset(rules, 0, sizeof(rules));
	for (i = 0; i < al->n && nr < 8; i++)
		rules[nr++].id = al->v[i].rule;
	rules[nr].id = al->n > 0 ? al->v[0].rule : "x";
	rules[nr++].builtin = 1;
	for (j = 0; j < sizeof(paths) / sizeof(paths[0]); j++) {
		struct finding_list l = {v, 0, 9};

		nwant = 0;
		for (i = 0; i < nr; i++) {
			memset(&v[i], 0, sizeof(v[i]));
			v[i].rule = &rules[i];
			if ((v[i].path = strdup(paths[j])) == NULL ||
			    (v[i].excerpt = strdup("x")) == NULL)
				abort();
			want[i] = allowed(al, &rules[i], paths[j], digest);
			nwant += (size_t)want[i];
		}
		l.n = nr;
		removed = allowlist_apply(al, &l, 0, paths[j], digest);
		if (removed != nwant || l.n != nr - nwant)
			abort();
		for (i = 0, k = 0; i < nr; i++)
			if (!want[i] && l.v[k++].rule != &rules[i])
				abort();
		for (k = 0; k < l.n; k++) {
			free(l.v[k].path);
			free(l.v[k].excerpt);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct allowlist *al = NULL;
	struct dynbuf diags;
	size_t i;
	int rc;

	fuzz_file_put("allow.yml", data, size);
	dynbuf_init(&diags, 1 << 16);
	rc = allowlist_load(&al, file, &diags);
	if (rc == 0) {
		if (al == NULL)
			abort();
		for (i = 0; i < al->n; i++)
			if (al->v[i].rule == NULL || al->v[i].path == NULL ||
			    al->v[i].reason == NULL || al->v[i].line < 1 ||
			    !al_is_hex(al->v[i].sha256, 64))
				abort();
		apply(al);
		allowlist_free(al);
	} else if (al != NULL || (rc == AL_EINVAL && diags.len == 0)) {
		abort();
	}
	dynbuf_free(&diags);
	return 0;
}
