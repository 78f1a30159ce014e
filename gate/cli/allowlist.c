/*
 * allowlist.c - loading and applying the gate's allow-list; see allowlist.h.
 *
 * Format (YAML):
 *   allow:
 *     - rule: generic-secret-assignment
 *       path: tests/fixtures/x.py
 *       sha256: 3b7...e1   # of the whole file
 *       reason: fake key used by the unit tests
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "al_limits.h"
#include "allowlist.h"
#include "err.h"
#include "util.h"

void
allowlist_free(struct allowlist *al)
{
	size_t i;

	if (al == NULL)
		return;
	for (i = 0; i < al->n; i++) {
		free(al->v[i].rule);
		free(al->v[i].path);
		free(al->v[i].sha256);
		free(al->v[i].reason);
	}
	free(al->v);
	free(al);
}

static char *
scalar(yaml_node_t *n)
{
	char *s;

	if (n == NULL || n->type != YAML_SCALAR_NODE)
		return NULL;
	s = malloc(n->data.scalar.length + 1);
	if (s != NULL) {
		memcpy(s, n->data.scalar.value, n->data.scalar.length);
		s[n->data.scalar.length] = '\0';
	}
	return s;
}

/* Reads one entry; returns the number of problems found in it. */
static size_t
load_entry(yaml_document_t *doc, yaml_node_t *map, const char *file,
    struct allow_entry *e, struct dynbuf *diags)
{
	yaml_node_pair_t *p;
	size_t bad = 0;

	e->line = (int)map->start_mark.line + 1;
	if (map->type != YAML_MAPPING_NODE) {
		dynbuf_diag(diags, "%s:%d: an entry is a mapping {rule, path, "
		    "sha256, reason}\n", file, e->line);
		return 1;
	}
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		char *key = scalar(k), *val = scalar(yaml_document_get_node(doc,
		    p->value)), **slot = NULL;

		if (key != NULL && strcmp(key, "rule") == 0)
			slot = &e->rule;
		else if (key != NULL && strcmp(key, "path") == 0)
			slot = &e->path;
		else if (key != NULL && strcmp(key, "sha256") == 0)
			slot = &e->sha256;
		else if (key != NULL && strcmp(key, "reason") == 0)
			slot = &e->reason;
		if (slot == NULL || val == NULL || *slot != NULL) {
			dynbuf_diag(diags, "%s:%d: %s '%s'\n", file,
			    k ? (int)k->start_mark.line + 1 : e->line,
			    slot == NULL ? "unknown key" : val == NULL ?
			    "not a string:" : "duplicate key", key ? key : "?");
			bad++;
			free(val);
		} else {
			*slot = val;
		}
		free(key);
	}
	if (e->rule == NULL || e->path == NULL || e->sha256 == NULL ||
	    e->reason == NULL) {
		dynbuf_diag(diags, "%s:%d: an entry needs rule, path, sha256 "
		    "and reason (never a path alone)\n", file, e->line);
		bad++;
	} else if (!al_is_hex(e->sha256, 64)) {
		dynbuf_diag(diags, "%s:%d: sha256 must be 64 lower-case hex "
		    "digits (sha256sum of the whole file)\n", file, e->line);
		bad++;
	}
	return bad;
}

int
allowlist_load(struct allowlist **out, const char *file, struct dynbuf *diags)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *list = NULL;
	struct allowlist *al;
	char *text = NULL;
	size_t len, bad = 0;
	int rc;

	*out = NULL;
	if ((rc = al_read_file(file, AL_MAX_RULE_FILE_BYTES, &text, &len)) < 0)
		return rc;
	al = calloc(1, sizeof(*al));
	if (al == NULL || !yaml_parser_initialize(&parser)) {
		free(al);
		free(text);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		dynbuf_diag(diags, "%s:%d: YAML: %s\n", file,
		    (int)parser.problem_mark.line + 1,
		    parser.problem ? parser.problem : "error");
		yaml_parser_delete(&parser);
		free(text);
		allowlist_free(al);
		return al_err_set(AL_EINVAL, "%s: not a valid allow-list", file);
	}
	root = yaml_document_get_root_node(&doc);
	if (root != NULL && root->type == YAML_MAPPING_NODE &&
	    root->data.mapping.pairs.top - root->data.mapping.pairs.start == 1) {
		yaml_node_pair_t *p = root->data.mapping.pairs.start;
		char *key = scalar(yaml_document_get_node(&doc, p->key));

		if (key != NULL && strcmp(key, "allow") == 0)
			list = yaml_document_get_node(&doc, p->value);
		free(key);
	}
	if (list == NULL || list->type != YAML_SEQUENCE_NODE) {
		dynbuf_diag(diags, "%s:1: an allow-list is a mapping with "
		    "one key, 'allow', holding a list\n", file);
		bad++;
	} else {
		size_t n = (size_t)(list->data.sequence.items.top -
		    list->data.sequence.items.start), i;

		al->v = calloc(n ? n : 1, sizeof(*al->v));
		if (al->v == NULL) {
			bad++;
			n = 0;
		}
		for (i = 0; i < n; i++) {
			bad += load_entry(&doc, yaml_document_get_node(&doc,
			    list->data.sequence.items.start[i]), file, &al->v[i],
			    diags);
			al->n++;
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	if (bad > 0) {
		allowlist_free(al);
		return al_err_set(AL_EINVAL, "%s: %zu problem%s", file, bad,
		    bad == 1 ? "" : "s");
	}
	*out = al;
	return 0;
}

size_t
allowlist_apply(const struct allowlist *al, struct finding_list *l,
    size_t first, const char *relpath, const char *digest)
{
	size_t i, j, kept = first, removed = 0;

	if (al == NULL || digest == NULL || digest[0] == '\0')
		return 0;
	for (i = first; i < l->n; i++) {
		struct finding *f = &l->v[i];
		int allowed = 0;

		/* Built-in findings (unscannable, links) are never allowed. */
		for (j = 0; j < al->n && !allowed && !f->rule->builtin; j++)
			allowed = strcmp(al->v[j].rule, f->rule->id) == 0 &&
			    strcmp(al->v[j].sha256, digest) == 0 &&
			    rule_glob_match(al->v[j].path, relpath);
		if (allowed) {
			free(f->path);
			free(f->excerpt);
			removed++;
			continue;
		}
		l->v[kept++] = *f;
	}
	l->n = kept;
	return removed;
}
