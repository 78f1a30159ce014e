/*
 * rule_yaml.c - reads one YAML rule file into rules: libyaml's document
 * API, every key of every rule checked, each value's type, list and
 * example shapes, the id's syntax and the required fields.
 *
 * What a pattern means is not looked at here: rule_load.c validates each
 * rule that was read (both regex engines, examples, literals). Each problem
 * is reported with file, line and rule id (the id is found first, so that
 * every message about the rule can name it), and reading goes on, so an
 * operator sees every problem of a pack in one pass.
 *
 * Input: operator-written files, bounded by AL_MAX_RULE_FILE_BYTES,
 * AL_MAX_RULES and AL_MAX_RULE_LIST. YAML aliases are only followed where
 * a scalar or a list of scalars is expected, so an alias bomb cannot make
 * us walk a large graph.
 *
 * Trust: runs in the parent, before any scan child is forked; no artifact
 * byte reaches it. A file holds one YAML document: a second one is loaded
 * only to be refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "al_limits.h"
#include "err.h"
#include "rule_int.h"
#include "scan_check.h"
#include "util.h"

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
		rule_diag(l, file, node_line(n), id,
		    "'%s' must be a string", key);
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
		rule_diag(l, file, node_line(n), id,
		    "'%s' contains a NUL byte", key);
		return -1;
	}
	if (len == 0) {
		rule_diag(l, file, node_line(n), id, "'%s' is empty", key);
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
		rule_diag(l, file, node_line(n), id,
		    "'%s' must be a list", key);
		return -1;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		rule_diag(l, file, node_line(n), id,
		    "'%s' must be a list of strings", key);
		return -1;
	}
	count = (size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start);
	if (count > AL_MAX_RULE_LIST) {
		rule_diag(l, file, node_line(n), id,
		    "'%s' has more than %u entries", key, AL_MAX_RULE_LIST);
		return -1;
	}
	rule_strv_free(out);
	out->v = calloc(count ? count : 1, sizeof(char *));
	if (out->v == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	    it++) {
		yaml_node_t *item = yaml_document_get_node(doc, *it);
		char *s = NULL;

		if (item == NULL ||
		    get_string(l, file, id, item, key, &s) != 0) {
			free(s);
			return -1;
		}
		out->v[out->n++] = s;
	}
	if (out->n == 0) {
		rule_diag(l, file, node_line(n), id,
		    "'%s' is an empty list", key);
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
		rule_diag(l, file, node_line(n), id,
		    "'examples.%s' must be a list", key);
		return -1;
	}
	count = (size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start);
	if (count > AL_MAX_RULE_LIST) {
		rule_diag(l, file, node_line(n), id, "too many examples");
		return -1;
	}
	rule_examples_free(*out, *nout);
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
				yaml_node_t *k = yaml_document_get_node(doc,
				    p->key);
				yaml_node_t *v = yaml_document_get_node(doc,
				    p->value);

				if (k == NULL || v == NULL ||
				    k->type != YAML_SCALAR_NODE ||
				    v->type != YAML_SCALAR_NODE) {
					rule_diag(l, file, ex->line, id,
					    "an example must be a string or "
					    "{path, content}");
					return -1;
				}
				if (strcmp((char *)k->data.scalar.value,
				    "path") == 0) {
					if (get_string(l, file, id, v, "path",
					    &ex->path) != 0)
						return -1;
				} else if (strcmp((char *)k->data.scalar.value,
				    "content") == 0) {
					free(ex->content);
					ex->content = scalar_dup(v,
					    &ex->content_len);
					if (ex->content == NULL)
						return al_err_set(AL_ENOMEM,
						    "out of memory");
				} else {
					rule_diag(l, file, node_line(k), id,
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
			rule_diag(l, file, ex->line, id,
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
		rule_diag(l, file, node_line(n), id,
		    "'%s' must be a number", key);
		return -1;
	}
	s = scalar_dup(n, NULL);
	if (s == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < lo ||
	    v > hi) {
		rule_diag(l, file, node_line(n), id,
		    "'%s' must be a number from %g to %g, not '%s'", key, lo,
		    hi, s);
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
		rule_diag(l, file, node_line(n), id,
		    "'allow' must be a mapping "
		    "{regexes: [...], stopwords: [...]}");
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
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
			rule_diag(l, file, node_line(k), id,
			    "unknown key 'allow.%s'", key);
			rc = -1;
		}
		if (rc < -1)
			return rc;
		bad |= rc != 0;
	}
	return bad ? -1 : 0;
}

/* flow: {from: [tags], to: [tags]} */
static int
parse_flow(struct loader *l, yaml_document_t *doc, const char *file,
    const char *id, yaml_node_t *n, struct rule *r)
{
	yaml_node_pair_t *p;
	int bad = 0, rc;

	r->cond = RULE_COND_FLOW;
	if (n->type != YAML_MAPPING_NODE) {
		rule_diag(l, file, node_line(n), id,
		    "'flow' must be a mapping {from: [...], to: [...]}");
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key;

		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE) {
			bad = 1;
			continue;
		}
		key = (const char *)k->data.scalar.value;
		if (strcmp(key, "from") == 0 && r->from.n == 0)
			rc = get_strv(l, doc, file, id, v, "flow.from",
			    &r->from);
		else if (strcmp(key, "to") == 0 && r->to.n == 0)
			rc = get_strv(l, doc, file, id, v, "flow.to", &r->to);
		else if (strcmp(key, "built") == 0 &&
		    v->type == YAML_SCALAR_NODE) {
			const char *b = (const char *)v->data.scalar.value;

			rc = strcmp(b, "true") == 0 ? 0 :
			    strcmp(b, "false") == 0 ? 0 : -1;
			r->flow_built = strcmp(b, "true") == 0;
			if (rc < 0)
				rule_diag(l, file, node_line(v), id,
				    "'flow.built' must be true or false");
		}
		else {
			rule_diag(l, file, node_line(k), id,
			    "unknown or repeated key 'flow.%s'", key);
			rc = -1;
		}
		if (rc < -1)
			return rc;
		bad |= rc != 0;
	}
	if (!bad && (r->from.n == 0 || r->to.n == 0)) {
		rule_diag(l, file, node_line(n), id,
		    "'flow' needs both 'from' and 'to'");
		bad = 1;
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
		rule_diag(l, file, node_line(n), id,
		    "'examples' must be a mapping "
		    "{match: [...], ignore: [...]}");
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
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
			rule_diag(l, file, node_line(k), id,
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
				rule_diag(l, file, node_line(ka), id,
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
			rule_diag(l, file, node_line(v), id,
			    "unknown category '%s'", r->category);
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
			rule_diag(l, file, node_line(v), id,
			    "bad severity '%s' "
			    "(info, low, medium, high, critical)", s);
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
			rule_diag(l, file, node_line(v), id,
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
			rule_diag(l, file, node_line(v), id,
			    "unknown check '%s' (bidi-unbalanced, "
			    "zero-width-in-identifier, tag-characters, "
			    "mixed-script-identifier)", s);
		free(s);
		return r->check < 0 ? -1 : 0;
	}
	if (strcmp(key, "allow") == 0)
		return parse_allow(l, doc, file, id, v, r);
	if (strcmp(key, "atom") == 0) {
		r->atom = 1;
		return get_strv(l, doc, file, id, v, key, &r->tags);
	}
	if (strcmp(key, "tags") == 0)
		return get_strv(l, doc, file, id, v, key, &r->tags);
	if (strcmp(key, "all") == 0) {
		r->cond = RULE_COND_ALL;
		return get_strv(l, doc, file, id, v, key, &r->all);
	}
	if (strcmp(key, "flow") == 0)
		return parse_flow(l, doc, file, id, v, r);
	if (strcmp(key, "lowered_by") == 0)
		return get_strv(l, doc, file, id, v, key, &r->lowered_by);
	if (strcmp(key, "key") == 0)
		return get_strv(l, doc, file, id, v, key, &r->key);
	if (strcmp(key, "within") == 0) {
		if (get_number(l, file, id, v, key, 1, 100000, &d) != 0)
			return -1;
		if (d != floor(d)) {
			rule_diag(l, file, node_line(v), id,
			    "'within' must be a number of lines");
			return -1;
		}
		r->within = (unsigned)d;
		return 0;
	}
	if (strcmp(key, "ordered") == 0) {
		if ((rc = get_string(l, file, id, v, key, &s)) != 0) {
			free(s);
			return rc;
		}
		rc = strcmp(s, "true") == 0 ? 1 : strcmp(s, "false") == 0 ?
		    0 : -1;
		free(s);
		if (rc < 0) {
			rule_diag(l, file, node_line(v), id,
			    "'ordered' must be true or false");
			return -1;
		}
		r->ordered = rc;
		return 0;
	}
	if (strcmp(key, "examples") == 0)
		return parse_examples(l, doc, file, id, v, r);
	rule_diag(l, file, node_line(v), id, "unknown key '%s'", key);
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
		rule_diag(l, file, node_line(map), NULL,
		    "a rule must be a mapping");
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
			rule_diag(l, file, r->line, id ? id : "?",
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
		rule_diag(l, file, r->line, NULL, "rule without an 'id'");
		bad = 1;
	} else if (!valid_id(id)) {
		rule_diag(l, file, r->line, id,
		    "bad id (lower-case letters, digits, '-' and '.', "
		    "at most %u)", AL_MAX_RULE_ID);
		bad = 1;
	} else if (strncmp(id, "airlock.", 8) == 0) {
		rule_diag(l, file, r->line, id,
		    "ids starting 'airlock.' are reserved");
		bad = 1;
	}
#define REQUIRE(field, name)                                                  \
	if (r->field == NULL && id != NULL) {                                 \
		rule_diag(l, file, r->line, id, "missing '%s'", name);        \
		bad = 1;                                                      \
	}
	REQUIRE(title, "title");
	REQUIRE(category, "category");
	REQUIRE(description, "description");
#undef REQUIRE
	if (id != NULL && r->pattern == NULL && r->paths.n == 0 &&
	    r->cond == 0) {
		rule_diag(l, file, r->line, id,
		    "empty rule: it needs a 'pattern', 'paths', 'all' or "
		    "'flow'");
		bad = 1;
	}
	if (id != NULL && r->cond != 0 && (r->pattern != NULL || r->atom ||
	    r->tags.n || r->keywords.n)) {
		rule_diag(l, file, r->line, id,
		    "a condition ('all' or 'flow') has no pattern, keywords, "
		    "atom or tags of its own");
		bad = 1;
	}
	if (id != NULL && r->all.n && (r->from.n || r->to.n)) {
		rule_diag(l, file, r->line, id,
		    "a rule has 'all' or 'flow', not both");
		bad = 1;
	}
	if (id != NULL && r->cond != RULE_COND_ALL && (r->within ||
	    r->ordered || r->lowered_by.n || r->key.n)) {
		rule_diag(l, file, r->line, id,
		    "'within', 'ordered', 'lowered_by' and 'key' belong to "
		    "'all'");
		bad = 1;
	}
	if (id != NULL && r->atom && r->pattern == NULL) {
		rule_diag(l, file, r->line, id, "an atom needs a 'pattern'");
		bad = 1;
	}
	if (id != NULL && (r->all.n > RULE_MAX_ALL || r->all.n == 1)) {
		rule_diag(l, file, r->line, id,
		    "'all' names 2 to %d tags", RULE_MAX_ALL);
		bad = 1;
	}
	if (id != NULL && r->pattern == NULL &&
	    (r->keywords.n || r->secret_group || r->entropy > 0 ||
	    r->allow_regexes.n || r->allow_stopwords.n || r->check)) {
		rule_diag(l, file, r->line, id,
		    "keywords, secret, entropy, allow and check "
		    "need a 'pattern'");
		bad = 1;
	}
	if (!bad && l->nrules >= AL_MAX_RULES) {
		rule_diag(l, file, r->line, id,
		    "more than %u rules", AL_MAX_RULES);
		bad = 1;
	}
	if (bad) {
		rule_free(r);
		return 0;
	}
	return add_rule(l, r);
}

/* Reads one file's rules; YAML errors are reported, not returned. */
int
rule_load_file(struct loader *l, const char *path)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	char *text = NULL;
	size_t len;
	int rc = 0, found_rules = 0;

	if ((rc = al_read_file(path, AL_MAX_RULE_FILE_BYTES, &text,
	    &len)) < 0) {
		rule_diag(l, path, 0, NULL, "%s", al_err_msg());
		return 0;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.context != NULL)
			rule_diag(l, path, (int)parser.problem_mark.line + 1,
			    NULL, "YAML: %s %s (which started at line %d)",
			    parser.problem ? parser.problem : "error",
			    parser.context, (int)parser.context_mark.line + 1);
		else
			rule_diag(l, path, (int)parser.problem_mark.line + 1,
			    NULL, "YAML: %s",
			    parser.problem ? parser.problem : "error");
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		rule_diag(l, path, 1, NULL, "empty rule file");
		goto out_doc;
	}
	if (root->type != YAML_MAPPING_NODE) {
		rule_diag(l, path, node_line(root), NULL,
		    "a rule file is a mapping with a 'rules' list");
		goto out_doc;
	}
	for (p = root->data.mapping.pairs.start;
	    p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&doc, p->value);
		yaml_node_item_t *it;

		if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE ||
		    strcmp((char *)k->data.scalar.value, "rules") != 0) {
			rule_diag(l, path, k ? node_line(k) : 1, NULL,
			    "unknown top-level key '%s' (expected 'rules')",
			    k && k->type == YAML_SCALAR_NODE ?
			    (char *)k->data.scalar.value : "?");
			continue;
		}
		if (found_rules++) {
			rule_diag(l, path, node_line(k), NULL,
			    "duplicate key 'rules'");
			continue;
		}
		if (v->type != YAML_SEQUENCE_NODE) {
			rule_diag(l, path, node_line(v), NULL,
			    "'rules' must be a list");
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
		rule_diag(l, path, 1, NULL, "no 'rules' list in this file");
	/* A second document in the same file would be silently ignored. */
	if (rc == 0) {
		yaml_document_t extra;

		if (yaml_parser_load(&parser, &extra)) {
			if (yaml_document_get_root_node(&extra) != NULL)
				rule_diag(l, path, (int)parser.mark.line + 1,
				    NULL, "more than one YAML document");
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
