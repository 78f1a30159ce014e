/*
 * rule_load.c - reads YAML rule packs into a rule_set and validates them.
 *
 * Every problem is reported (file, line, rule id), not only the first, so an
 * operator fixes a pack in one pass. Validation compiles each pattern with
 * both engines that will run it: Hyperscan (the one-pass prefilter) and
 * PCRE2 (the confirmation), so a pattern one accepts and the other reads
 * differently is caught at load time, not at scan time.
 *
 * Input: operator-written files, bounded by AL_MAX_RULE_FILE_BYTES and
 * AL_MAX_RULES. YAML aliases are only followed where a scalar or a list of
 * scalars is expected, so an alias bomb cannot make us walk a large graph.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hs.h>
#include <jansson.h>
#include <pcre2.h>
#include <yaml.h>

#include "err.h"
#include "al_limits.h"
#include "rule.h"
#include "scan_check.h"
#include "util.h"

static const char *const categories[] = {
	"secret", "credential-access", "exfiltration", "download-exec",
	"install-hook", "persistence", "obfuscation", "unicode", "dependency",
	"scanner-tampering", "social-engineering", "binary", "archive-hazard",
	"protected-path",
};

/* Loading context for one rule set. */
struct loader {
	struct dynbuf *diags;
	size_t nerrors;
	int require_examples;
	struct rule **rules;
	size_t nrules;
	size_t cap;
};

static void
diag(struct loader *l, const char *file, int line, const char *id,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
diag(struct loader *l, const char *file, int line, const char *id,
    const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->nerrors++;
	if (id != NULL)
		(void)dynbuf_addf(l->diags, "%s:%d: rule %s: %s\n", file, line,
		    id, msg);
	else
		(void)dynbuf_addf(l->diags, "%s:%d: %s\n", file, line, msg);
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

static void
strv_free(struct rule_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

static void
examples_free(struct rule_example *ex, size_t n)
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
	strv_free(&r->paths);
	strv_free(&r->exclude_paths);
	strv_free(&r->keywords);
	if (r->allow_re != NULL)
		for (i = 0; i < r->allow_regexes.n; i++)
			pcre2_code_free(r->allow_re[i]);
	free(r->allow_re);
	strv_free(&r->allow_regexes);
	strv_free(&r->allow_stopwords);
	examples_free(r->match, r->nmatch);
	examples_free(r->ignore, r->nignore);
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

/* ---- YAML helpers ------------------------------------------------------ */

static int
node_line(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static char *
scalar_dup(const yaml_node_t *n, size_t *len_out)
{
	char *s = malloc(n->data.scalar.length + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, n->data.scalar.value, n->data.scalar.length);
	s[n->data.scalar.length] = '\0';
	if (len_out != NULL)
		*len_out = n->data.scalar.length;
	return s;
}

/* Reads a scalar that must be text without NULs. */
static int
get_string(struct loader *l, const char *file, const char *id,
    yaml_node_t *n, const char *key, char **out)
{
	size_t len;

	if (n->type != YAML_SCALAR_NODE) {
		diag(l, file, node_line(n), id, "'%s' must be a string", key);
		return -1;
	}
	if (*out != NULL) {
		free(*out);
		*out = NULL;
	}
	*out = scalar_dup(n, &len);
	if (*out == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (strlen(*out) != len) {
		diag(l, file, node_line(n), id, "'%s' contains a NUL byte", key);
		return -1;
	}
	if (len == 0) {
		diag(l, file, node_line(n), id, "'%s' is empty", key);
		return -1;
	}
	return 0;
}

static int
get_strv(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, yaml_node_t *n, const char *key, struct rule_strv *out)
{
	yaml_node_item_t *it;
	size_t count;

	if (n->type == YAML_SCALAR_NODE) {
		diag(l, file, node_line(n), id, "'%s' must be a list", key);
		return -1;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		diag(l, file, node_line(n), id, "'%s' must be a list of strings",
		    key);
		return -1;
	}
	count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count > AL_MAX_RULE_LIST) {
		diag(l, file, node_line(n), id, "'%s' has more than %u entries",
		    key, AL_MAX_RULE_LIST);
		return -1;
	}
	strv_free(out);
	out->v = calloc(count ? count : 1, sizeof(char *));
	if (out->v == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	    it++) {
		yaml_node_t *item = yaml_document_get_node(doc, *it);
		char *s = NULL;

		if (item == NULL || get_string(l, file, id, item, key, &s) != 0) {
			free(s);
			return -1;
		}
		out->v[out->n++] = s;
	}
	if (out->n == 0) {
		diag(l, file, node_line(n), id, "'%s' is an empty list", key);
		return -1;
	}
	return 0;
}

static int
get_examples(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, yaml_node_t *n, const char *key,
    struct rule_example **out, size_t *nout)
{
	yaml_node_item_t *it;
	size_t count;

	if (n->type != YAML_SEQUENCE_NODE) {
		diag(l, file, node_line(n), id, "'examples.%s' must be a list", key);
		return -1;
	}
	count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count > AL_MAX_RULE_LIST) {
		diag(l, file, node_line(n), id, "too many examples");
		return -1;
	}
	examples_free(*out, *nout);
	*nout = 0;
	*out = calloc(count ? count : 1, sizeof(**out));
	if (*out == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	    it++) {
		yaml_node_t *item = yaml_document_get_node(doc, *it);
		struct rule_example *ex = &(*out)[*nout];

		if (item == NULL)
			return -1;
		ex->line = node_line(item);
		(*nout)++;
		if (item->type == YAML_SCALAR_NODE) {
			ex->content = scalar_dup(item, &ex->content_len);
			if (ex->content == NULL)
				return al_err_set(AL_ENOMEM, "out of memory");
		} else if (item->type == YAML_MAPPING_NODE) {
			yaml_node_pair_t *p;

			for (p = item->data.mapping.pairs.start;
			    p < item->data.mapping.pairs.top; p++) {
				yaml_node_t *k = yaml_document_get_node(doc, p->key);
				yaml_node_t *v = yaml_document_get_node(doc, p->value);

				if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE ||
				    v->type != YAML_SCALAR_NODE) {
					diag(l, file, ex->line, id,
					    "an example must be a string or "
					    "{path, content}");
					return -1;
				}
				if (strcmp((char *)k->data.scalar.value, "path") == 0) {
					if (get_string(l, file, id, v, "path",
					    &ex->path) != 0)
						return -1;
				} else if (strcmp((char *)k->data.scalar.value,
				    "content") == 0) {
					free(ex->content);
					ex->content = scalar_dup(v, &ex->content_len);
					if (ex->content == NULL)
						return al_err_set(AL_ENOMEM,
						    "out of memory");
				} else {
					diag(l, file, node_line(k), id,
					    "unknown key '%s' in example",
					    (char *)k->data.scalar.value);
					return -1;
				}
			}
			if (ex->content == NULL) {
				ex->content = calloc(1, 1);
				if (ex->content == NULL)
					return al_err_set(AL_ENOMEM,
					    "out of memory");
			}
		} else {
			diag(l, file, ex->line, id,
			    "an example must be a string or {path, content}");
			return -1;
		}
	}
	return 0;
}

static int
get_number(struct loader *l, const char *file, const char *id, yaml_node_t *n,
    const char *key, double lo, double hi, double *out)
{
	char *s, *end;
	double v;

	if (n->type != YAML_SCALAR_NODE) {
		diag(l, file, node_line(n), id, "'%s' must be a number", key);
		return -1;
	}
	s = scalar_dup(n, NULL);
	if (s == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < lo ||
	    v > hi) {
		diag(l, file, node_line(n), id,
		    "'%s' must be a number from %g to %g, not '%s'", key, lo, hi, s);
		free(s);
		return -1;
	}
	free(s);
	*out = v;
	return 0;
}

/* Finds the id first, so that every message about the rule can name it. */
static char *
find_id(yaml_document_t *doc, yaml_node_t *map)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (k != NULL && v != NULL && k->type == YAML_SCALAR_NODE &&
		    v->type == YAML_SCALAR_NODE &&
		    strcmp((char *)k->data.scalar.value, "id") == 0)
			return scalar_dup(v, NULL);
	}
	return NULL;
}

static int
valid_id(const char *id)
{
	size_t i, n = strlen(id);

	if (n == 0 || n > AL_MAX_RULE_ID)
		return 0;
	for (i = 0; i < n; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    (i > 0 && (c == '-' || c == '.'))))
			return 0;
	}
	return 1;
}

static int
parse_allow(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, yaml_node_t *n, struct rule *r)
{
	yaml_node_pair_t *p;
	int bad = 0, rc;

	if (n->type != YAML_MAPPING_NODE) {
		diag(l, file, node_line(n), id,
		    "'allow' must be a mapping {regexes: [...], stopwords: [...]}");
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key;

		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE) {
			bad = 1;
			continue;
		}
		key = (const char *)k->data.scalar.value;
		if (strcmp(key, "regexes") == 0)
			rc = get_strv(l, doc, file, id, v, "allow.regexes",
			    &r->allow_regexes);
		else if (strcmp(key, "stopwords") == 0)
			rc = get_strv(l, doc, file, id, v, "allow.stopwords",
			    &r->allow_stopwords);
		else {
			diag(l, file, node_line(k), id, "unknown key 'allow.%s'",
			    key);
			rc = -1;
		}
		if (rc < -1)
			return rc;
		bad |= rc != 0;
	}
	return bad ? -1 : 0;
}

static int
parse_examples(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, yaml_node_t *n, struct rule *r)
{
	yaml_node_pair_t *p;
	int bad = 0, rc;

	if (n->type != YAML_MAPPING_NODE) {
		diag(l, file, node_line(n), id,
		    "'examples' must be a mapping {match: [...], ignore: [...]}");
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key;

		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE) {
			bad = 1;
			continue;
		}
		key = (const char *)k->data.scalar.value;
		if (strcmp(key, "match") == 0)
			rc = get_examples(l, doc, file, id, v, key, &r->match,
			    &r->nmatch);
		else if (strcmp(key, "ignore") == 0)
			rc = get_examples(l, doc, file, id, v, key, &r->ignore,
			    &r->nignore);
		else {
			diag(l, file, node_line(k), id,
			    "unknown key 'examples.%s'", key);
			rc = -1;
		}
		if (rc < -1)
			return rc;
		bad |= rc != 0;
	}
	return bad ? -1 : 0;
}

/* Checks that no key appears twice in a mapping (libyaml does not). */
static int
check_dup_keys(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, yaml_node_t *map)
{
	yaml_node_pair_t *a, *b;
	int bad = 0;

	for (a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top;
	    a++) {
		yaml_node_t *ka = yaml_document_get_node(doc, a->key);

		if (ka == NULL || ka->type != YAML_SCALAR_NODE)
			continue;
		for (b = map->data.mapping.pairs.start; b < a; b++) {
			yaml_node_t *kb = yaml_document_get_node(doc, b->key);

			if (kb != NULL && kb->type == YAML_SCALAR_NODE &&
			    strcmp((char *)ka->data.scalar.value,
			    (char *)kb->data.scalar.value) == 0) {
				diag(l, file, node_line(ka), id,
				    "duplicate key '%s'",
				    (char *)ka->data.scalar.value);
				bad = 1;
				break;
			}
		}
	}
	return bad;
}

/* Returns 0, -1 for a reported problem, or an al_err below -1. */
static int
parse_rule_key(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, const char *key, yaml_node_t *v, struct rule *r)
{
	double d;
	char *s = NULL;
	int rc;

	if (strcmp(key, "id") == 0)
		return get_string(l, file, id, v, key, &r->id);
	if (strcmp(key, "title") == 0)
		return get_string(l, file, id, v, key, &r->title);
	if (strcmp(key, "description") == 0)
		return get_string(l, file, id, v, key, &r->description);
	if (strcmp(key, "pattern") == 0) {
		r->pattern_line = node_line(v);
		return get_string(l, file, id, v, key, &r->pattern);
	}
	if (strcmp(key, "category") == 0) {
		if ((rc = get_string(l, file, id, v, key, &r->category)) != 0)
			return rc;
		if (!rule_category_valid(r->category)) {
			diag(l, file, node_line(v), id, "unknown category '%s'",
			    r->category);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "severity") == 0) {
		if ((rc = get_string(l, file, id, v, key, &s)) != 0) {
			free(s);
			return rc;
		}
		rc = al_severity_parse(s);
		if (rc >= 0)
			r->severity = (enum al_severity)rc;
		else
			diag(l, file, node_line(v), id,
			    "bad severity '%s' (info, low, medium, high, critical)",
			    s);
		free(s);
		return rc < 0 ? -1 : 0;
	}
	if (strcmp(key, "paths") == 0)
		return get_strv(l, doc, file, id, v, key, &r->paths);
	if (strcmp(key, "exclude_paths") == 0)
		return get_strv(l, doc, file, id, v, key, &r->exclude_paths);
	if (strcmp(key, "keywords") == 0)
		return get_strv(l, doc, file, id, v, key, &r->keywords);
	if (strcmp(key, "secret") == 0) {
		if (get_number(l, file, id, v, key, 0, 99, &d) != 0)
			return -1;
		if (d != floor(d)) {
			diag(l, file, node_line(v), id,
			    "'secret' must be a capture group number");
			return -1;
		}
		r->secret_group = (unsigned)d;
		return 0;
	}
	if (strcmp(key, "entropy") == 0) {
		if (get_number(l, file, id, v, key, 0, 8, &d) != 0)
			return -1;
		r->entropy = d;
		return 0;
	}
	if (strcmp(key, "check") == 0) {
		if ((rc = get_string(l, file, id, v, key, &s)) != 0) {
			free(s);
			return rc;
		}
		r->check = scan_check_parse(s);
		if (r->check < 0)
			diag(l, file, node_line(v), id, "unknown check '%s' "
			    "(bidi-unbalanced, zero-width-in-identifier, "
			    "tag-characters, mixed-script-identifier)", s);
		free(s);
		return r->check < 0 ? -1 : 0;
	}
	if (strcmp(key, "allow") == 0)
		return parse_allow(l, doc, file, id, v, r);
	if (strcmp(key, "examples") == 0)
		return parse_examples(l, doc, file, id, v, r);
	diag(l, file, node_line(v), id, "unknown key '%s'", key);
	return -1;
}

static int
add_rule(struct loader *l, struct rule *r)
{
	if (l->nrules == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct rule **nv = realloc(l->rules, ncap * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		l->rules = nv;
		l->cap = ncap;
	}
	l->rules[l->nrules++] = r;
	return 0;
}

static int
parse_rule(struct loader *l, yaml_document_t *doc, const char *file,
    yaml_node_t *map)
{
	yaml_node_pair_t *p;
	struct rule *r;
	char *id;
	int bad = 0, rc;

	if (map->type != YAML_MAPPING_NODE) {
		diag(l, file, node_line(map), NULL, "a rule must be a mapping");
		return 0;
	}
	id = find_id(doc, map);
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->file = strdup(file)) == NULL) {
		free(id);
		rule_free(r);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	r->line = node_line(map);
	bad |= check_dup_keys(l, doc, file, id ? id : "?", map);
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE) {
			diag(l, file, r->line, id ? id : "?",
			    "keys must be plain strings");
			bad = 1;
			continue;
		}
		rc = parse_rule_key(l, doc, file, id ? id : "?",
		    (const char *)k->data.scalar.value, v, r);
		if (rc < -1) {
			free(id);
			rule_free(r);
			return rc;
		}
		bad |= rc != 0;
	}
	free(id);
	id = r->id;
	if (id == NULL) {
		diag(l, file, r->line, NULL, "rule without an 'id'");
		bad = 1;
	} else if (!valid_id(id)) {
		diag(l, file, r->line, id,
		    "bad id (lower-case letters, digits, '-' and '.', at most %u)",
		    AL_MAX_RULE_ID);
		bad = 1;
	} else if (strncmp(id, "airlock.", 8) == 0) {
		diag(l, file, r->line, id, "ids starting 'airlock.' are reserved");
		bad = 1;
	}
#define REQUIRE(field, name)                                                  \
	if (r->field == NULL && id != NULL) {                                 \
		diag(l, file, r->line, id, "missing '%s'", name);             \
		bad = 1;                                                      \
	}
	REQUIRE(title, "title");
	REQUIRE(category, "category");
	REQUIRE(description, "description");
#undef REQUIRE
	if (id != NULL && r->pattern == NULL && r->paths.n == 0) {
		diag(l, file, r->line, id,
		    "empty rule: it needs a 'pattern' or 'paths'");
		bad = 1;
	}
	if (id != NULL && r->pattern == NULL &&
	    (r->keywords.n || r->secret_group || r->entropy > 0 ||
	    r->allow_regexes.n || r->allow_stopwords.n || r->check)) {
		diag(l, file, r->line, id,
		    "keywords, secret, entropy, allow and check need a 'pattern'");
		bad = 1;
	}
	if (!bad && l->nrules >= AL_MAX_RULES) {
		diag(l, file, r->line, id, "more than %u rules", AL_MAX_RULES);
		bad = 1;
	}
	if (bad) {
		rule_free(r);
		return 0;
	}
	return add_rule(l, r);
}

/* Reads one file's rules; YAML errors are reported, not returned. */
static int
load_file(struct loader *l, const char *path)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	char *text = NULL;
	size_t len;
	int rc = 0, found_rules = 0;

	if ((rc = al_read_file(path, AL_MAX_RULE_FILE_BYTES, &text, &len)) < 0) {
		diag(l, path, 0, NULL, "%s", al_err_msg());
		return 0;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.context != NULL)
			diag(l, path, (int)parser.problem_mark.line + 1, NULL,
			    "YAML: %s %s (which started at line %d)",
			    parser.problem ? parser.problem : "error",
			    parser.context, (int)parser.context_mark.line + 1);
		else
			diag(l, path, (int)parser.problem_mark.line + 1, NULL,
			    "YAML: %s", parser.problem ? parser.problem : "error");
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		diag(l, path, 1, NULL, "empty rule file");
		goto out_doc;
	}
	if (root->type != YAML_MAPPING_NODE) {
		diag(l, path, node_line(root), NULL,
		    "a rule file is a mapping with a 'rules' list");
		goto out_doc;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = yaml_document_get_node(&doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&doc, p->value);
		yaml_node_item_t *it;

		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE ||
		    strcmp((char *)k->data.scalar.value, "rules") != 0) {
			diag(l, path, k ? node_line(k) : 1, NULL,
			    "unknown top-level key '%s' (expected 'rules')",
			    k && k->type == YAML_SCALAR_NODE ?
			    (char *)k->data.scalar.value : "?");
			continue;
		}
		if (found_rules++) {
			diag(l, path, node_line(k), NULL, "duplicate key 'rules'");
			continue;
		}
		if (v->type != YAML_SEQUENCE_NODE) {
			diag(l, path, node_line(v), NULL, "'rules' must be a list");
			continue;
		}
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top && rc == 0; it++) {
			yaml_node_t *rn = yaml_document_get_node(&doc, *it);

			if (rn != NULL)
				rc = parse_rule(l, &doc, path, rn);
		}
	}
	if (!found_rules)
		diag(l, path, 1, NULL, "no 'rules' list in this file");
	/* A second document in the same file would be silently ignored. */
	if (rc == 0) {
		yaml_document_t extra;

		if (yaml_parser_load(&parser, &extra)) {
			if (yaml_document_get_root_node(&extra) != NULL)
				diag(l, path, (int)parser.mark.line + 1, NULL,
				    "more than one YAML document");
			yaml_document_delete(&extra);
		}
	}
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	free(text);
	return rc;
}

/* ---- validation -------------------------------------------------------- */

/* Patterns are compiled with PCRE2_USE_OFFSET_LIMIT: the engine bounds how
 * far a confirmation may look for the start of a match. */
static void *
compile_pcre2(struct loader *l, const struct rule *r, const char *what,
    const char *pattern, uint32_t opts)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	pcre2_code *re;
	int err;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    PCRE2_MULTILINE | opts, &err, &off, NULL);
	if (re == NULL) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		diag(l, r->file, r->pattern_line ? r->pattern_line : r->line, r->id,
		    "%s rejected by PCRE2 at offset %zu: %s",
		    what, (size_t)off, (char *)msg);
		return NULL;
	}
	/* JIT is an optimisation: without it matching is slower, not wrong. */
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	return re;
}

static int
validate_rule(struct loader *l, struct rule *r)
{
	hs_expr_info_t *info = NULL;
	hs_compile_error_t *cerr = NULL;
	uint32_t ncap = 0;
	size_t i;
	int bad = 0, pl;

	if (l->require_examples && (r->nmatch < 2 || r->nignore < 2)) {
		diag(l, r->file, r->line, r->id,
		    "needs at least 2 'match' and 2 'ignore' examples "
		    "(has %zu and %zu)", r->nmatch, r->nignore);
		bad = 1;
	}
	if (r->paths.n > 0) {
		for (i = 0; i < r->nmatch + r->nignore; i++) {
			const struct rule_example *ex = i < r->nmatch ?
			    &r->match[i] : &r->ignore[i - r->nmatch];

			if (ex->path == NULL) {
				diag(l, r->file, ex->line, r->id,
				    "this rule has 'paths': its examples need a "
				    "'path'");
				bad = 1;
			}
		}
	}
	for (i = 0; i < r->allow_regexes.n; i++) {
		if (r->allow_re == NULL) {
			r->allow_re = calloc(r->allow_regexes.n, sizeof(void *));
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
	if (hs_expression_info(r->pattern, HS_FLAG_MULTILINE, &info, &cerr) !=
	    HS_SUCCESS) {
		diag(l, r->file, pl, r->id, "pattern rejected by Hyperscan: %s",
		    cerr && cerr->message ? cerr->message : "unknown error");
		hs_free_compile_error(cerr);
		bad = 1;
	} else {
		if (info->min_width == 0) {
			diag(l, r->file, pl, r->id,
			    "pattern can match the empty string");
			bad = 1;
		}
		r->max_width = info->max_width;
		free(info);
	}
	r->re = compile_pcre2(l, r, "pattern", r->pattern,
	    PCRE2_USE_OFFSET_LIMIT);
	if (r->re == NULL)
		return 1;
	pcre2_pattern_info(r->re, PCRE2_INFO_CAPTURECOUNT, &ncap);
	r->capture_count = ncap;
	if (r->secret_group > ncap) {
		diag(l, r->file, pl, r->id,
		    "'secret' names group %u but the pattern has %u groups",
		    r->secret_group, (unsigned)ncap);
		bad = 1;
	}
	if (r->keywords.n == 0 && rule_pattern_literal(r->pattern,
	    strlen(r->pattern)) < AL_MIN_PATTERN_LITERAL) {
		diag(l, r->file, pl, r->id,
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
rule_set_load(struct rule_set **out, const char *dir, int require_examples,
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
	l.require_examples = require_examples;
	if ((rc = list_rule_files(dir, &files, &nfiles)) < 0)
		return rc;
	if (nfiles == 0) {
		diag(&l, dir, 0, NULL, "no *.yml or *.yaml rule files here");
	}
	for (i = 0; i < nfiles && rc == 0; i++)
		rc = load_file(&l, files[i]);
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	if (rc < 0)
		goto fail;
	if (l.nrules > 0)
		qsort(l.rules, l.nrules, sizeof(*l.rules), cmp_rule);
	for (i = 1; i < l.nrules; i++)
		if (strcmp(l.rules[i]->id, l.rules[i - 1]->id) == 0)
			diag(&l, l.rules[i]->file, l.rules[i]->line, l.rules[i]->id,
			    "duplicate id (also at %s:%d)", l.rules[i - 1]->file,
			    l.rules[i - 1]->line);
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
