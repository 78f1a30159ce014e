/*
 * scan_build.c - builds the engine: compiles a rule set into one Hyperscan
 * stream-mode database, with what each expression stands for, and numbers
 * the path globs of the rules that have them.
 *
 * Each rule with a pattern is represented, in order of preference, by its
 * keywords (case-insensitive literals, confirmed on their line), by its
 * literal factors when it has a good set (rule_factor.c: every match
 * contains one of them, each at least AL_MIN_FACTOR bytes), or by the
 * pattern itself in Hyperscan's prefilter mode. Literals are what
 * Hyperscan runs fastest; since PCRE2 confirms every hit (scan_worker.c),
 * a superset of the matches is exact enough.
 *
 * The serialized database is cached in cache_dir/hs-<key>.db. The key is
 * the SHA-256 of exactly what was compiled (every expression with its
 * flags, in order, so expression ids map to the same rules), the engine
 * and Hyperscan versions and the CPU features. The file carries a SHA-256
 * of its payload; a file that fails that check or fails to deserialize is
 * ignored and rewritten, never trusted.
 *
 * Trust: runs in the parent, before any scan child is forked, on the
 * operator's rules (already validated by rule_load.c) and on the cache
 * directory, which is treated as untrusted storage: nothing in it is used
 * before its checksum matches and Hyperscan accepts it. No artifact byte
 * reaches this file. The engine it builds is read-only afterwards and
 * shared by every worker.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hs.h>

#include "al_limits.h"
#include "err.h"
#include "scan_engine_int.h"
#include "util.h"

const struct rule_set *
scan_engine_rules(const struct scan_engine *e)
{
	return e->rs;
}

int
scan_engine_from_cache(const struct scan_engine *e)
{
	return e->from_cache;
}

void
scan_engine_free(struct scan_engine *e)
{
	if (e == NULL)
		return;

	hs_free_database(e->db);
	hs_free_database(e->db_light);
	hs_free_database(e->db_rest);
	free(e->expr_rule);
	free(e->expr_kw);
	free(e->scoped);
	free(e->globs);
	free(e->gidx);
	free(e->g_at);
	free(e->g_npaths);
	free(e->g_nexcl);
	free(e->conds);
	free(e);
}

/* Turns a literal keyword into a Hyperscan expression: every byte escaped. */
static char *
keyword_expr(const char *kw)
{
	struct dynbuf b;
	const unsigned char *p;

	dynbuf_init(&b, 4 * strlen(kw) + 1);
	for (p = (const unsigned char *)kw; *p; p++)
		if (dynbuf_addf(&b, "\\x%02x", *p) < 0) {
			dynbuf_free(&b);
			return NULL;
		}
	return dynbuf_take(&b, NULL);
}

/*
 * The cache key covers exactly what was compiled: every expression with its
 * flags and id, in order, the mode, the Hyperscan version and the CPU
 * features the database was built for.
 */
static void
cache_key(char out[AL_SHA256_HEX], const char *const *exprs,
    const unsigned *flags, const unsigned *ids, size_t n, unsigned mode)
{
	hs_platform_info_t plat;
	struct al_hash h;
	char num[16];
	size_t i;

	memset(&plat, 0, sizeof(plat));
	(void)hs_populate_platform(&plat);
	/* Hashed as it comes: no rule set is too large to be told apart. */
	al_hash_begin(&h);
	al_hash_addz(&h, "airlock-hs");
	al_hash_addz(&h, AL_ENGINE_VERSION);
	al_hash_addz(&h, hs_version());
	al_hash_add(&h, &plat, sizeof(plat));
	snprintf(num, sizeof(num), "%u", mode);
	al_hash_addz(&h, num);
	for (i = 0; i < n; i++) {
		snprintf(num, sizeof(num), "%u", flags[i]);
		al_hash_addz(&h, num);
		snprintf(num, sizeof(num), "%u", ids[i]);
		al_hash_addz(&h, num);
		al_hash_addz(&h, exprs[i]);
	}
	al_hash_end(&h, out);
}

#define CACHE_MAGIC "ALHSDB01"
#define CACHE_MAX ((size_t)512 << 20)

static int
cache_path(struct dynbuf *p, const char *dir, const char *key)
{
	dynbuf_init(p, AL_MAX_PATH);
	return dynbuf_addf(p, "%s/hs-%s.db", dir, key);
}

/* Loads a cached database; any problem just means "not cached". */
/*
 * What may hide a spelling from the rules: literal joins, quotes inside a
 * shell word, escapes, reflection, character codes and Unicode look-alikes
 * (scan_norm.c undoes them). A line with one of these is read again in its
 * normalised view; the others cost nothing more. The frequent ones, whose
 * only literals are a quote or a bracket (joins, adjacent literals,
 * quotes inside a word, empty literals, members by a literal name), are
 * found by the worker instead (scan_worker.c, qtrig_at).
 */
static const char *const norm_triggers[] = {
	"\\\\[xX][0-9A-Fa-f]{2}",
	"\\\\u\\{?[0-9A-Fa-f]{2}",
	"\\\\[0-3][0-7]{2}",
	"%[0-9A-Fa-f]{2}%[0-9A-Fa-f]{2}%",
	"getattr[ \\t]*\\(",
	"__import__",
	"import_module",
	"(?:globals|locals|vars)[ \\t]*\\([ \\t]*\\)[ \\t]*\\[",
	"__builtins__",
	"fromCharCode",
	"\\[::-1\\]",
	"\\.reverse\\(\\)\\.join\\(",
	"rot_?13",
	"\\bchr[ \\t]*\\([ \\t]*\\d",
	"\\[[Cc]har\\][ \\t]*\\d",
	"\\$\\{?IFS",
	"\\xEF\\xBC[\\x81-\\xBF]",
	"\\xEF\\xBD[\\x80-\\x9E]",
	"\\xE2\\x80[\\x8B-\\x8D\\x90-\\x95\\x98-\\x9F]",
	"\\xE2\\x88\\x92",
	"\\xE2\\x81\\xA0",
	"\\xE3\\x80\\x80",
	"\\xF0\\x9D[\\x90-\\x9F]",
};

static hs_database_t *
cache_load(const char *dir, const char *key)
{
	struct dynbuf p;
	hs_database_t *db = NULL;
	char *data = NULL, hex[AL_SHA256_HEX], want[AL_SHA256_HEX];
	size_t len;

	if (cache_path(&p, dir, key) < 0)
		goto out;
	if (al_read_file(dynbuf_str(&p), CACHE_MAX, &data, &len) < 0)
		goto out;
	if (len < 8 + 64 || memcmp(data, CACHE_MAGIC, 8) != 0)
		goto out;
	memcpy(want, data + 8, 64);
	want[64] = '\0';
	al_sha256_hex(hex, data + 72, len - 72);
	if (strcmp(hex, want) != 0)
		goto out;
	if (hs_deserialize_database(data + 72, len - 72, &db) != HS_SUCCESS)
		db = NULL;
out:
	free(data);
	dynbuf_free(&p);
	return db;
}

static void
cache_store(const char *dir, const char *key, const hs_database_t *db)
{
	struct dynbuf p, tmp;
	char *bytes = NULL, hex[AL_SHA256_HEX];
	size_t len = 0;
	int fd = -1, ok = 0;

	dynbuf_init(&tmp, AL_MAX_PATH);
	if (cache_path(&p, dir, key) < 0)
		goto out;
	if (hs_serialize_database(db, &bytes, &len) != HS_SUCCESS)
		goto out;
	(void)mkdir(dir, 0700);
	if (dynbuf_addf(&tmp, "%s/.hs-XXXXXX", dir) < 0)
		goto out;
	fd = mkstemp(tmp.data);
	if (fd < 0)
		goto out;
	al_sha256_hex(hex, bytes, len);
	ok = write(fd, CACHE_MAGIC, 8) == 8 && write(fd, hex, 64) == 64 &&
	    write(fd, bytes, len) == (ssize_t)len;
	ok = close(fd) == 0 && ok;
	fd = -1;
	ok = ok && rename(tmp.data, dynbuf_str(&p)) == 0;
	if (!ok)
		(void)unlink(tmp.data);
out:
	free(bytes);
	dynbuf_free(&p);
	dynbuf_free(&tmp);
}

/* A rule's factors, when they are good enough to stand for its pattern. */
struct rule_factors {
	char **v;
	size_t n;
};

static void
factors_free(struct rule_factors *f, size_t n)
{
	size_t i, j;

	for (i = 0; f != NULL && i < n; i++) {
		for (j = 0; j < f[i].n; j++)
			free(f[i].v[j]);
		free(f[i].v);
	}
	free(f);
}

/*
 * Compiles the n expressions (ids[i] for exprs[i]) in mode into *db, from
 * the cache when it has them (e->from_cache says so for e->db).
 */
static int
compile_db(struct scan_engine *e, const char *const *exprs,
    const unsigned *flags, const unsigned *ids, size_t n, unsigned mode,
    const char *cache_dir, hs_database_t **db)
{
	const struct rule_set *rs = e->rs;
	hs_compile_error_t *cerr = NULL;
	char key[AL_SHA256_HEX];

	cache_key(key, exprs, flags, ids, n, mode);
	if (cache_dir != NULL && (*db = cache_load(cache_dir, key)) != NULL) {
		if (db == &e->db)
			e->from_cache = 1;
		return 0;
	}
	if (hs_compile_multi(exprs, flags, ids, (unsigned)n, mode, NULL, db,
	    &cerr) != HS_SUCCESS) {
		const struct rule *bad = cerr && cerr->expression >= 0 &&
		    (size_t)cerr->expression < n ?
		    rs->rules[e->expr_rule[ids[cerr->expression]]] : NULL;
		int rc = al_err_set(AL_EENGINE, "%s%s%sHyperscan: %s",
		    bad ? "rule " : "", bad ? bad->id : "", bad ? ": " : "",
		    cerr && cerr->message ? cerr->message : "compile failed");

		hs_free_compile_error(cerr);
		*db = NULL;
		return rc;
	}
	if (cache_dir != NULL)
		cache_store(cache_dir, key, *db);
	return 0;
}

/* Is expression i one of an atom that no condition is keyed on (looked
 * for by db_rest, not db_light)? */
static int
rest_expr(const struct scan_engine *e, size_t i)
{
	const struct rule *r = e->rs->rules[e->expr_rule[i]];

	return e->expr_kw[i] < EXPR_TRIGGER && r->atom &&
	    (r->tag_bits & e->key_tags) == 0;
}

/*
 * db_light (every expression but the other atoms', stream mode) and db_rest
 * (those atoms', block mode), when there are conditions and such atoms.
 */
static int
compile_split(struct scan_engine *e, const char *const *exprs,
    const unsigned *flags, const unsigned *ids, size_t n,
    const char *cache_dir)
{
	const char **lx = NULL, **rx = NULL;
	unsigned *lf = NULL, *li = NULL, *rf = NULL, *ri = NULL;
	size_t i, nl = 0, nr = 0;
	int rc = 0;

	if (e->ncond == 0)
		return 0;
	for (i = 0; i < n; i++)
		nr += rest_expr(e, i);
	if (nr == 0)
		return 0;
	lx = calloc(n, sizeof(*lx));
	rx = calloc(nr, sizeof(*rx));
	lf = calloc(n, sizeof(*lf));
	li = calloc(n, sizeof(*li));
	rf = calloc(nr, sizeof(*rf));
	ri = calloc(nr, sizeof(*ri));
	if (!lx || !rx || !lf || !li || !rf || !ri) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	nr = 0;
	for (i = 0; i < n; i++) {
		if (rest_expr(e, i)) {
			rx[nr] = exprs[i];
			rf[nr] = flags[i];
			ri[nr++] = ids[i];
		} else {
			lx[nl] = exprs[i];
			lf[nl] = flags[i];
			li[nl++] = ids[i];
		}
	}
	if ((rc = compile_db(e, lx, lf, li, nl, HS_MODE_STREAM, cache_dir,
	    &e->db_light)) == 0)
		rc = compile_db(e, rx, rf, ri, nr, HS_MODE_BLOCK, cache_dir,
		    &e->db_rest);
	if (rc < 0) {
		hs_free_database(e->db_light);
		e->db_light = NULL;
	}
out:
	free(lx);
	free(rx);
	free(lf);
	free(li);
	free(rf);
	free(ri);
	return rc;
}

static int
engine_compile(struct scan_engine *e, const char *cache_dir)
{
	const struct rule_set *rs = e->rs;
	const char **exprs = NULL;
	char **owned = NULL;
	unsigned *flags = NULL, *ids = NULL;
	struct rule_factors *fac;
	size_t i, j, n = 0, cap = 0;
	int rc = 0;

	fac = calloc(rs->nrules ? rs->nrules : 1, sizeof(*fac));
	if (fac == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];
		size_t minlen = 0;

		if (r->pattern == NULL)
			continue;
		if (r->keywords.n > 0) {
			cap += r->keywords.n;
			continue;
		}
		if (rule_pattern_factors(r->pattern, strlen(r->pattern),
		    &fac[i].v, &fac[i].n, &minlen) < 0) {
			factors_free(fac, rs->nrules);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
		if (fac[i].n > 0 && minlen < AL_MIN_FACTOR) {
			for (j = 0; j < fac[i].n; j++)
				free(fac[i].v[j]);
			free(fac[i].v);
			fac[i].v = NULL;
			fac[i].n = 0;
		}
		cap += fac[i].n ? fac[i].n : 1;
	}
	if (cap == 0) {
		factors_free(fac, rs->nrules);
		return 0;
	}
	cap += sizeof(norm_triggers) / sizeof(norm_triggers[0]);
	exprs = calloc(cap, sizeof(*exprs));
	owned = calloc(cap, sizeof(*owned));
	flags = calloc(cap, sizeof(*flags));
	ids = calloc(cap, sizeof(*ids));
	e->expr_rule = calloc(cap, sizeof(*e->expr_rule));
	e->expr_kw = calloc(cap, sizeof(*e->expr_kw));
	if (!exprs || !owned || !flags || !ids || !e->expr_rule ||
	    !e->expr_kw) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];
		const struct rule_strv lits = r->keywords.n ? r->keywords :
		    (struct rule_strv){fac[i].v, fac[i].n};

		if (r->pattern == NULL)
			continue;
		if (lits.n == 0) {
			/* No good factor: the pattern itself, approximated by
			 * Hyperscan's prefilter mode (PCRE2 confirms). */
			exprs[n] = r->pattern;
			flags[n] = HS_FLAG_MULTILINE | HS_FLAG_PREFILTER;
			e->expr_rule[n] = (unsigned)i;
			ids[n] = (unsigned)n;
			n++;
			continue;
		}
		for (j = 0; j < lits.n; j++) {
			owned[n] = keyword_expr(lits.v[j]);
			if (owned[n] == NULL) {
				rc = al_err_set(AL_ENOMEM, "out of memory");
				goto out;
			}
			exprs[n] = owned[n];
			flags[n] = HS_FLAG_CASELESS;
			e->expr_rule[n] = (unsigned)i;
			e->expr_kw[n] = r->keywords.n ? EXPR_KEYWORD :
			    EXPR_FACTOR;
			ids[n] = (unsigned)n;
			n++;
		}
	}
	/* The lines the normalised view reads (scan_norm.c): one of these
	 * marks a line, whatever rule it may then match. A build for
	 * measuring the first stage alone (bench/, AL_FIRST_STAGE_ONLY) has
	 * no views. */
	for (i = 0; i < sizeof(norm_triggers) / sizeof(norm_triggers[0]) &&
	    !AL_FIRST_STAGE_ONLY; i++) {
		exprs[n] = norm_triggers[i];
		flags[n] = 0;
		e->expr_rule[n] = 0;
		e->expr_kw[n] = EXPR_TRIGGER;
		ids[n] = (unsigned)n;
		n++;
	}
	e->nexpr = (unsigned)n;
	if ((rc = compile_db(e, exprs, flags, ids, n, HS_MODE_STREAM, cache_dir,
	    &e->db)) < 0)
		goto out;
	rc = compile_split(e, exprs, flags, ids, n, cache_dir);
out:
	if (owned != NULL)
		for (i = 0; i < n; i++)
			free(owned[i]);
	free(owned);
	free(exprs);
	free(flags);
	free(ids);
	factors_free(fac, rs->nrules);
	return rc;
}

static unsigned
glob_index(struct scan_engine *e, const char *g)
{
	size_t i;

	for (i = 0; i < e->nglobs; i++)
		if (strcmp(e->globs[i], g) == 0)
			return (unsigned)i;
	e->globs[e->nglobs] = g;
	return (unsigned)e->nglobs++;
}

/* Numbers the distinct globs and lists each scoped rule's by index. */
static int
engine_globs(struct scan_engine *e)
{
	const struct rule_set *rs = e->rs;
	size_t total = 0, i, j, k = 0;

	for (i = 0; i < e->nscoped; i++) {
		const struct rule *r = rs->rules[e->scoped[i]];

		total += r->paths.n + r->exclude_paths.n;
	}
	e->globs = calloc(total ? total : 1, sizeof(*e->globs));
	e->gidx = calloc(total ? total : 1, sizeof(*e->gidx));
	e->g_at = calloc(e->nscoped ? e->nscoped : 1, sizeof(*e->g_at));
	e->g_npaths = calloc(e->nscoped ? e->nscoped : 1, sizeof(*e->g_npaths));
	e->g_nexcl = calloc(e->nscoped ? e->nscoped : 1, sizeof(*e->g_nexcl));
	if (!e->globs || !e->gidx || !e->g_at || !e->g_npaths || !e->g_nexcl)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < e->nscoped; i++) {
		const struct rule *r = rs->rules[e->scoped[i]];

		e->g_at[i] = k;
		e->g_npaths[i] = r->paths.n;
		e->g_nexcl[i] = r->exclude_paths.n;
		for (j = 0; j < r->paths.n; j++)
			e->gidx[k++] = glob_index(e, r->paths.v[j]);
		for (j = 0; j < r->exclude_paths.n; j++)
			e->gidx[k++] = glob_index(e, r->exclude_paths.v[j]);
	}
	return 0;
}

/* The condition rules, their tags as bits (scan_flow.h). */
static int
engine_conds(struct scan_engine *e)
{
	const struct rule_set *rs = e->rs;
	size_t i, k;

	for (i = 0; i < rs->nrules; i++) {
		e->ncond += rs->rules[i]->cond != 0;
		e->has_atoms |= rs->rules[i]->tag_bits != 0;
	}
	if (e->ncond == 0)
		return 0;
	if ((e->conds = calloc(e->ncond, sizeof(*e->conds))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	e->ncond = 0;
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];
		struct flow_cond *c = &e->conds[e->ncond];

		if (r->cond == 0)
			continue;
		c->rule = (unsigned)i;
		c->kind = r->cond == RULE_COND_FLOW ? FLOW_DATA : FLOW_ALL;
		c->from = r->from_bits;
		c->to = r->to_bits;
		c->built = r->flow_built;
		c->nall = r->all.n;
		for (k = 0; k < r->all.n && k < FLOW_MAX_ALL; k++)
			c->all[k] = r->all_bits[k];
		c->within = r->within;
		c->ordered = r->ordered;
		c->lowered_by = r->lowered_bits;
		/* A flow needs an atom of a `to` tag (its source may be a
		 * value derived from another); `all` needs each of its tags,
		 * so any of them will do as its key. */
		if (c->kind == FLOW_DATA)
			e->key_tags |= c->to;
		else if (r->key_bits != 0)
			e->key_tags |= r->key_bits;
		else
			for (k = 0; k < c->nall; k++)
				e->key_tags |= 1ull << c->all[k];
		e->ncond++;
	}
	return 0;
}

int
scan_engine_new(struct scan_engine **out, const struct rule_set *rs,
    const char *cache_dir)
{
	struct scan_engine *e;
	size_t i;
	int rc;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	e->rs = rs;
	e->scoped = calloc(rs->nrules ? rs->nrules : 1, sizeof(*e->scoped));
	if (e->scoped == NULL) {
		scan_engine_free(e);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		if (r->paths.n || r->exclude_paths.n)
			e->scoped[e->nscoped++] = i;
		if (r->capture_count > e->max_groups)
			e->max_groups = r->capture_count;
	}
	if ((rc = engine_globs(e)) < 0 || (rc = engine_conds(e)) < 0 ||
	    (rc = engine_compile(e, cache_dir)) < 0) {
		scan_engine_free(e);
		return rc;
	}
	*out = e;
	return 0;
}
