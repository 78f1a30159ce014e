/*
 * rule_load.c - loads a rule set: lists a directory's rule files, has each
 * read (rule_yaml.c), validates and compiles every rule, sorts the set by
 * id and computes its digest; and owns what a rule set holds (freeing,
 * lookups by id, the category names).
 *
 * Every problem is reported (file, line, rule id), not only the first, so an
 * operator fixes a pack in one pass. Validation compiles each pattern with
 * both engines that will run it: Hyperscan (the one-pass prefilter) and
 * PCRE2 (the confirmation), so a pattern one accepts and the other reads
 * differently is caught at load time, not at scan time.
 *
 * The digest is the SHA-256 of the canonical JSON of every rule (examples
 * excluded), sorted by id, so file names and order do not change it; the
 * scan child's greeting carries it, and the parent checks it.
 *
 * Trust: the rules are the operator's; this runs in the parent (airlock
 * scan, rules and serve), before any scan child is forked, and the
 * compiled regexes are inherited by the children. Limits are in
 * al_limits.h (AL_MAX_RULES, AL_MIN_PATTERN_LITERAL, ...).
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hs.h>
#include <jansson.h>
#include <pcre2.h>

#include "err.h"
#include "al_limits.h"
#include "rule_int.h"
#include "scan_check.h"
#include "util.h"

static const char *const categories[] = {
	"secret", "credential-access", "exfiltration", "download-exec",
	"install-hook", "persistence", "obfuscation", "unicode", "dependency",
	"scanner-tampering", "social-engineering", "binary", "archive-hazard",
	"protected-path",
};

void
rule_diag(struct loader *l, const char *file, int line, const char *id,
    const char *fmt, ...)
{
	char msg[1024];
	struct dynbuf eid, emsg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->nerrors++;
	/* The id and the message quote the rule file: escaped, so that one
	 * diagnostic is one line whatever the file holds (a newline in an id
	 * would forge another), and an id is shown at most 80 bytes long. */
	dynbuf_init(&eid, 4096);
	dynbuf_init(&emsg, 8192);
	if ((id != NULL && al_term_escape(&eid, id, strnlen(id, 80)) < 0) ||
	    al_term_escape(&emsg, msg, strlen(msg)) < 0) {
		dynbuf_diag(l->diags, "%s:%d: (a problem that cannot be shown: "
		    "out of memory)\n", file, line);
	} else if (id != NULL)
		dynbuf_diag(l->diags, "%s:%d: rule %s%s: %s\n", file, line,
		    dynbuf_str(&eid), strlen(id) > 80 ? "..." : "",
		    dynbuf_str(&emsg));
	else
		dynbuf_diag(l->diags, "%s:%d: %s\n", file, line,
		    dynbuf_str(&emsg));
	dynbuf_free(&eid);
	dynbuf_free(&emsg);
}

int
rule_category_valid(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(categories) / sizeof(categories[0]); i++)
		if (strcmp(s, categories[i]) == 0)
			return 1;
	return 0;
}

void
rule_strv_free(struct rule_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

void
rule_examples_free(struct rule_example *ex, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ex[i].path);
		free(ex[i].content);
	}
	free(ex);
}

void
rule_free(struct rule *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->id);
	free(r->title);
	free(r->category);
	free(r->description);
	free(r->pattern);
	rule_strv_free(&r->paths);
	rule_strv_free(&r->exclude_paths);
	rule_strv_free(&r->keywords);
	if (r->allow_re != NULL)
		for (i = 0; i < r->allow_regexes.n; i++)
			pcre2_code_free(r->allow_re[i]);
	free(r->allow_re);
	rule_strv_free(&r->allow_regexes);
	rule_strv_free(&r->allow_stopwords);
	rule_strv_free(&r->tags);
	rule_strv_free(&r->from);
	rule_strv_free(&r->to);
	rule_strv_free(&r->all);
	rule_strv_free(&r->lowered_by);
	rule_strv_free(&r->key);
	rule_examples_free(r->match, r->nmatch);
	rule_examples_free(r->ignore, r->nignore);
	free(r->file);
	pcre2_code_free(r->re);
	free(r);
}

void
rule_set_free(struct rule_set *rs)
{
	size_t i;

	if (rs == NULL)
		return;
	for (i = 0; i < rs->nrules; i++)
		rule_free(rs->rules[i]);
	free(rs->rules);
	for (i = 0; i < rs->ntags; i++)
		free(rs->tag_names[i]);
	free(rs);
}

size_t
rule_set_index(const struct rule_set *rs, const char *id)
{
	size_t lo = 0, hi = rs->nrules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(id, rs->rules[mid]->id);

		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return rs->nrules;
}

const struct rule *
rule_set_find(const struct rule_set *rs, const char *id)
{
	size_t i = rule_set_index(rs, id);

	return i < rs->nrules ? rs->rules[i] : NULL;
}

/* ---- validation -------------------------------------------------------- */

/* Patterns are compiled with PCRE2_USE_OFFSET_LIMIT: the engine bounds how
 * far a confirmation may look for the start of a match. A line ends at LF,
 * CRLF or a lone CR (PCRE2_NEWLINE_ANYCRLF), as the readers of `.pth` files,
 * ini-style configs and old Mac text split lines: `^` holds after a lone
 * CR, so a CR-separated line cannot hide from an anchored rule. */
static void *
compile_pcre2(struct loader *l, const struct rule *r, const char *what,
    const char *pattern, uint32_t opts)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	pcre2_code *re;
	int err;

	if (cc == NULL || pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF) != 0) {
		pcre2_compile_context_free(cc);
		al_err_set(AL_ENOMEM, "out of memory");
		return NULL;
	}
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    PCRE2_MULTILINE | opts, &err, &off, cc);
	pcre2_compile_context_free(cc);
	if (re == NULL) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		rule_diag(l, r->file,
		    r->pattern_line ? r->pattern_line : r->line, r->id,
		    "%s rejected by PCRE2 at offset %zu: %s", what, (size_t)off,
		    (char *)msg);
		return NULL;
	}
	/* JIT is an optimisation: without it matching is slower, not wrong. */
	if (!(l->flags & RULE_LOAD_NO_JIT))
		(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	return re;
}

/*
 * Hyperscan's analysis of a pattern (hs_expression_info). In fuzzing
 * builds only, its answer for a pattern string seen before is reused: it
 * is a pure function of the string, and it was most of fuzz_rules' time
 * (every input compiles its patterns; docs/reliability.md). The loader's
 * own code runs the same either way.
 */
struct hs_answer {
	int ok;
	unsigned min_width, max_width;
	char msg[160];
};

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define MEMO_SLOTS 4096u
static struct {
	char *pattern;
	struct hs_answer a;
} memo[MEMO_SLOTS];
#endif

static void
hs_analyse(const char *pattern, struct hs_answer *out)
{
	hs_expr_info_t *info = NULL;
	hs_compile_error_t *cerr = NULL;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	uint32_t h = 2166136261u;
	const char *p;

	for (p = pattern; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h &= MEMO_SLOTS - 1;
	if (memo[h].pattern != NULL && strcmp(memo[h].pattern, pattern) == 0) {
		*out = memo[h].a;
		return;
	}
#endif
	memset(out, 0, sizeof(*out));
	if (hs_expression_info(pattern, HS_FLAG_MULTILINE, &info, &cerr) !=
	    HS_SUCCESS) {
		snprintf(out->msg, sizeof(out->msg), "%s",
		    cerr && cerr->message ? cerr->message : "unknown error");
		hs_free_compile_error(cerr);
	} else {
		out->ok = 1;
		out->min_width = info->min_width;
		out->max_width = info->max_width;
		free(info);
	}
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	free(memo[h].pattern);
	if ((memo[h].pattern = strdup(pattern)) != NULL)
		memo[h].a = *out;
#endif
}

static int
validate_rule(struct loader *l, struct rule *r)
{
	struct hs_answer hsa;
	uint32_t ncap = 0;
	size_t i;
	int bad = 0, pl;

	if ((l->flags & RULE_LOAD_EXAMPLES) && (r->nmatch < 2 || r->nignore < 2)) {
		rule_diag(l, r->file, r->line, r->id,
		    "needs at least 2 'match' and 2 'ignore' examples "
		    "(has %zu and %zu)", r->nmatch, r->nignore);
		bad = 1;
	}
	if (r->paths.n > 0) {
		for (i = 0; i < r->nmatch + r->nignore; i++) {
			const struct rule_example *ex = i < r->nmatch ?
			    &r->match[i] : &r->ignore[i - r->nmatch];

			if (ex->path == NULL) {
				rule_diag(l, r->file, ex->line, r->id,
				    "this rule has 'paths': its examples need "
				    "a 'path'");
				bad = 1;
			}
		}
	}
	for (i = 0; i < r->allow_regexes.n; i++) {
		if (r->allow_re == NULL) {
			r->allow_re = calloc(r->allow_regexes.n,
			    sizeof(void *));
			if (r->allow_re == NULL)
				return al_err_set(AL_ENOMEM, "out of memory");
		}
		r->allow_re[i] = compile_pcre2(l, r, "allow regex",
		    r->allow_regexes.v[i], 0);
		bad |= r->allow_re[i] == NULL;
	}
	if (r->pattern == NULL)
		return bad;
	pl = r->pattern_line ? r->pattern_line : r->line;
	r->max_width = UINT_MAX;
	hs_analyse(r->pattern, &hsa);
	if (!hsa.ok) {
		rule_diag(l, r->file, pl, r->id,
		    "pattern rejected by Hyperscan: %s", hsa.msg);
		bad = 1;
	} else {
		if (hsa.min_width == 0) {
			rule_diag(l, r->file, pl, r->id,
			    "pattern can match the empty string");
			bad = 1;
		}
		r->max_width = hsa.max_width;
	}
	r->re = compile_pcre2(l, r, "pattern", r->pattern,
	    PCRE2_USE_OFFSET_LIMIT);
	if (r->re == NULL)
		return 1;
	pcre2_pattern_info(r->re, PCRE2_INFO_CAPTURECOUNT, &ncap);
	r->capture_count = ncap;
	if (r->secret_group > ncap) {
		rule_diag(l, r->file, pl, r->id,
		    "'secret' names group %u but the pattern has %u groups",
		    r->secret_group, (unsigned)ncap);
		bad = 1;
	}
	if (r->keywords.n == 0 && rule_pattern_literal(r->pattern,
	    strlen(r->pattern)) < AL_MIN_PATTERN_LITERAL) {
		rule_diag(l, r->file, pl, r->id,
		    "pattern has no literal of %u bytes that every match "
		    "contains; add 'keywords' (see docs/rules.md)",
		    AL_MIN_PATTERN_LITERAL);
		bad = 1;
	}
	return bad;
}

/* ---- digest ------------------------------------------------------------ */

static json_t *
strv_json(const struct rule_strv *sv)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < sv->n; i++)
		json_array_append_new(a, json_stringn_nocheck(sv->v[i],
		    strlen(sv->v[i])));
	return a;
}

/* Canonical JSON of what affects scanning and reporting (not examples). */
static int
rule_set_digest(struct rule_set *rs)
{
	struct dynbuf b;
	char hex[AL_SHA256_HEX];
	size_t i;
	int rc = 0;

	dynbuf_init(&b, (size_t)1 << 30);
	for (i = 0; i < rs->nrules && rc == 0; i++) {
		const struct rule *r = rs->rules[i];
		json_t *o = json_object();
		char *s;

		if (o == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		json_object_set_new(o, "id", json_string_nocheck(r->id));
		json_object_set_new(o, "title", json_string_nocheck(r->title));
		json_object_set_new(o, "category",
		    json_string_nocheck(r->category));
		json_object_set_new(o, "severity",
		    json_string(al_severity_name(r->severity)));
		json_object_set_new(o, "description",
		    json_string_nocheck(r->description));
		if (r->pattern)
			json_object_set_new(o, "pattern",
			    json_string_nocheck(r->pattern));
		json_object_set_new(o, "paths", strv_json(&r->paths));
		json_object_set_new(o, "exclude_paths",
		    strv_json(&r->exclude_paths));
		json_object_set_new(o, "keywords", strv_json(&r->keywords));
		json_object_set_new(o, "secret", json_integer(r->secret_group));
		json_object_set_new(o, "entropy", json_real(r->entropy));
		if (r->check)
			json_object_set_new(o, "check",
			    json_string(scan_check_name(r->check)));
		json_object_set_new(o, "allow_regexes",
		    strv_json(&r->allow_regexes));
		json_object_set_new(o, "allow_stopwords",
		    strv_json(&r->allow_stopwords));
		if (r->tags.n)
			json_object_set_new(o, r->atom ? "atom" : "tags",
			    strv_json(&r->tags));
		if (r->cond == RULE_COND_FLOW) {
			json_object_set_new(o, "from", strv_json(&r->from));
			json_object_set_new(o, "to", strv_json(&r->to));
			json_object_set_new(o, "built",
			    json_boolean(r->flow_built));
		}
		if (r->cond == RULE_COND_ALL) {
			json_object_set_new(o, "all", strv_json(&r->all));
			json_object_set_new(o, "within",
			    json_integer(r->within));
			json_object_set_new(o, "ordered",
			    json_boolean(r->ordered));
			json_object_set_new(o, "lowered_by",
			    strv_json(&r->lowered_by));
			if (r->key.n)
				json_object_set_new(o, "key",
				    strv_json(&r->key));
		}
		s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS |
		    JSON_ENSURE_ASCII);
		json_decref(o);
		if (s == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		rc = dynbuf_adds(&b, s);
		if (rc == 0)
			rc = dynbuf_addc(&b, '\n');
		free(s);
	}
	if (rc == 0) {
		al_sha256_hex(hex, b.data ? b.data : "", b.len);
		snprintf(rs->digest, sizeof(rs->digest), "sha256:%s", hex);
	}
	dynbuf_free(&b);
	return rc;
}

/* ---- tags --------------------------------------------------------------- */

/* The bit of tag t, made on first sight when `define`; -1 if unknown or
 * there are too many. */
static int
tag_bit(struct rule_set *rs, const char *t, int define)
{
	size_t i;

	for (i = 0; i < rs->ntags; i++)
		if (strcmp(rs->tag_names[i], t) == 0)
			return (int)i;
	if (!define || rs->ntags == RULE_MAX_TAGS)
		return -1;
	if ((rs->tag_names[rs->ntags] = strdup(t)) == NULL)
		return -2;
	return (int)rs->ntags++;
}

static int
tag_mask(struct loader *l, struct rule_set *rs, struct rule *r,
    const struct rule_strv *sv, const char *key, uint64_t *out,
    unsigned char *bits)
{
	size_t i;

	*out = 0;
	for (i = 0; i < sv->n; i++) {
		int b = tag_bit(rs, sv->v[i], 0);

		if (b < 0) {
			rule_diag(l, r->file, r->line, r->id,
			    "'%s' names tag '%s', which no atom or rule has",
			    key, sv->v[i]);
			continue;
		}
		*out |= 1ull << b;
		if (bits != NULL)
			bits[i] = (unsigned char)b;
	}
	return 0;
}

/* Gives every tag a bit and resolves the conditions' tags. */
static int
resolve_tags(struct loader *l, struct rule_set *rs)
{
	size_t i, j;
	int b;

	for (i = 0; i < rs->nrules; i++) {
		struct rule *r = rs->rules[i];

		for (j = 0; j < r->tags.n; j++) {
			if ((b = tag_bit(rs, r->tags.v[j], 1)) == -2)
				return al_err_set(AL_ENOMEM, "out of memory");
			if (b < 0)
				rule_diag(l, r->file, r->line, r->id,
				    "more than %d tags in the set",
				    RULE_MAX_TAGS);
			else
				r->tag_bits |= 1ull << b;
		}
	}
	for (i = 0; i < rs->nrules; i++) {
		struct rule *r = rs->rules[i];

		(void)tag_mask(l, rs, r, &r->from, "flow.from", &r->from_bits,
		    NULL);
		(void)tag_mask(l, rs, r, &r->to, "flow.to", &r->to_bits, NULL);
		(void)tag_mask(l, rs, r, &r->lowered_by, "lowered_by",
		    &r->lowered_bits, NULL);
		if (r->all.n <= RULE_MAX_ALL) {
			uint64_t m;

			(void)tag_mask(l, rs, r, &r->all, "all", &m,
			    r->all_bits);
			(void)tag_mask(l, rs, r, &r->key, "key", &r->key_bits,
			    NULL);
			for (j = 0; j < r->key.n; j++) {
				int kb = tag_bit(rs, r->key.v[j], 0);

				if (kb >= 0 && !(m >> kb & 1))
					rule_diag(l, r->file, r->line, r->id,
					    "'key' names tag '%s', which is "
					    "not in 'all'", r->key.v[j]);
			}
		}
	}
	return 0;
}

/* ---- entry point ------------------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_rule(const void *a, const void *b)
{
	const struct rule *ra = *(struct rule *const *)a;
	const struct rule *rb = *(struct rule *const *)b;

	return strcmp(ra->id, rb->id);
}

static int
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && strcmp(s + n - m, suf) == 0;
}

/* Lists dir's rule files, sorted. */
static int
list_rule_files(const char *dir, char ***out, size_t *nout)
{
	DIR *d;
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	d = opendir(dir);
	if (d == NULL)
		return al_err_set(AL_EIO, "rules directory %s: %s", dir,
		    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		struct dynbuf p;

		if (de->d_name[0] == '.' || !(has_suffix(de->d_name, ".yml") ||
		    has_suffix(de->d_name, ".yaml")))
			continue;
		if (n == cap) {
			char **nv;

			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				goto nomem;
			v = nv;
		}
		dynbuf_init(&p, AL_MAX_PATH);
		if (dynbuf_addf(&p, "%s/%s", dir, de->d_name) < 0) {
			dynbuf_free(&p);
			goto nomem;
		}
		v[n++] = dynbuf_take(&p, NULL);
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*nout = n;
	return 0;
nomem:
	closedir(d);
	while (n > 0)
		free(v[--n]);
	free(v);
	return al_err_set(AL_ENOMEM, "out of memory");
}

int
rule_set_load(struct rule_set **out, const char *dir, unsigned flags,
    struct dynbuf *diags, size_t *nerrors)
{
	struct loader l = {0};
	struct rule_set *rs = NULL;
	char **files = NULL;
	size_t nfiles = 0, i;
	int rc;

	*out = NULL;
	*nerrors = 0;
	l.diags = diags;
	l.flags = flags;
	if ((rc = list_rule_files(dir, &files, &nfiles)) < 0)
		return rc;
	if (nfiles == 0) {
		rule_diag(&l, dir, 0, NULL,
		    "no *.yml or *.yaml rule files here");
	}
	for (i = 0; i < nfiles && rc == 0; i++)
		rc = rule_load_file(&l, files[i]);
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	if (rc < 0)
		goto fail;
	if (l.nrules > 0)
		qsort(l.rules, l.nrules, sizeof(*l.rules), cmp_rule);
	for (i = 1; i < l.nrules; i++)
		if (strcmp(l.rules[i]->id, l.rules[i - 1]->id) == 0)
			rule_diag(&l, l.rules[i]->file, l.rules[i]->line,
			    l.rules[i]->id, "duplicate id (also at %s:%d)",
			    l.rules[i - 1]->file, l.rules[i - 1]->line);
	for (i = 0; i < l.nrules; i++) {
		rc = validate_rule(&l, l.rules[i]);
		if (rc < 0)
			goto fail;
	}
	rc = 0;
	*nerrors = l.nerrors;
	if (l.nerrors > 0) {
		rc = al_err_set(AL_EINVAL, "%zu problem%s in rules at %s",
		    l.nerrors, l.nerrors == 1 ? "" : "s", dir);
		goto fail;
	}
	rs = calloc(1, sizeof(*rs));
	if (rs == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto fail;
	}
	rs->rules = l.rules;
	rs->nrules = l.nrules;
	if ((rc = resolve_tags(&l, rs)) < 0 || l.nerrors > 0) {
		*nerrors = l.nerrors;
		if (rc == 0)
			rc = al_err_set(AL_EINVAL, "%zu problem%s in rules "
			    "at %s", l.nerrors, l.nerrors == 1 ? "" : "s",
			    dir);
		rule_set_free(rs);
		return rc;
	}
	if ((rc = rule_set_digest(rs)) < 0) {
		rule_set_free(rs);
		return rc;
	}
	*out = rs;
	return 0;
fail:
	for (i = 0; i < l.nrules; i++)
		rule_free(l.rules[i]);
	free(l.rules);
	if (*nerrors == 0)
		*nerrors = l.nerrors;
	return rc;
}
