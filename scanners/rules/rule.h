/*
 * rule.h - the rule set: loading YAML rule packs, validating them, globs.
 *
 * Trust: rule files are written by the gate's operator, not by agents, but
 * they are still parsed defensively (size limits, every problem reported
 * with file, line and rule id). The format is documented in docs/rules.md.
 */
#ifndef AIRLOCK_RULE_H
#define AIRLOCK_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "dynbuf.h"
#include "vocab.h"

struct rule_example {
	char *path;           /* NULL: the example is a file called example.txt */
	char *content;        /* may hold NULs; NUL-terminated */
	size_t content_len;
	int line;             /* 1-based line of the example in its file */
};

struct rule_strv {
	char **v;
	size_t n;
};

struct rule {
	char *id;
	char *title;
	char *category;
	char *description;
	enum al_severity severity;
	char *pattern;              /* NULL for a path-only rule */
	struct rule_strv paths;     /* globs; empty: every file */
	struct rule_strv exclude_paths;
	struct rule_strv keywords;  /* non-empty: pattern runs on keyword lines */
	unsigned secret_group;      /* capture group of the secret, 0 = match */
	double entropy;             /* minimum bits per byte; 0 = no floor */
	int check;                  /* enum rule_check (scan_check.h), 0 = none */
	struct rule_strv allow_regexes;
	struct rule_strv allow_stopwords;
	struct rule_example *match;
	size_t nmatch;
	struct rule_example *ignore;
	size_t nignore;
	char *file;                 /* rule file it came from */
	int line;                   /* 1-based line of the rule */
	int pattern_line;           /* line of its pattern, for messages */
	int builtin;                /* a finding the engine itself reports */

	/* The second stage (docs/rules.md "Conditions over a file"). */
	struct rule_strv tags;      /* atom tags it gives its matches */
	int atom;                   /* its matches are atoms, not findings */
	int cond;                   /* RULE_COND_*, or 0 */
	struct rule_strv from, to;  /* flow: */
	int flow_built;             /* flow.built */
	struct rule_strv all;       /* all: */
	unsigned within;            /* all: lines, 0 = the whole file */
	int ordered;                /* all: in that order */
	struct rule_strv lowered_by; /* all: low where one of these is between */
	struct rule_strv key;       /* all: tags looked for in every file */

	/* Filled in by validation. */
	void *re;                   /* pcre2_code *, the confirmation regex */
	void **allow_re;            /* pcre2_code *[allow_regexes.n] */
	unsigned max_width;         /* longest match, UINT_MAX if unbounded */
	unsigned capture_count;
	uint64_t tag_bits;          /* tags, as bits of rule_set.tag_names */
	uint64_t from_bits, to_bits, lowered_bits, key_bits;
	unsigned char all_bits[8];  /* the bit numbers of all: */
};

enum { RULE_COND_ALL = 1, RULE_COND_FLOW = 2 };
#define RULE_MAX_TAGS 64
#define RULE_MAX_ALL 8

struct rule_set {
	struct rule **rules;        /* sorted by id */
	size_t nrules;
	char digest[72];            /* "sha256:" and 64 hex digits */
	char *tag_names[RULE_MAX_TAGS]; /* bit i of tag_bits is tag_names[i] */
	size_t ntags;
};

/*
 * Loads every *.yml / *.yaml file directly in dir. Each problem found is
 * appended to diags as "file:line: rule ID: message\n" and counted in
 * *nerrors; with any error the call fails with AL_EINVAL and *out is NULL.
 * flags: RULE_LOAD_EXAMPLES makes missing examples (fewer than 2 match and
 * 2 ignore) an error, for `rules check` and `rules test`; RULE_LOAD_NO_JIT
 * compiles the patterns for checking only, without PCRE2's JIT (`rules
 * check` and `rules list` match nothing: the JIT was most of their time).
 * A set loaded so matches the same, only slower.
 */
#define RULE_LOAD_EXAMPLES 1u
#define RULE_LOAD_NO_JIT 2u
int rule_set_load(struct rule_set **out, const char *dir, unsigned flags,
    struct dynbuf *diags, size_t *nerrors);
void rule_set_free(struct rule_set *rs);
void rule_free(struct rule *r);

/* The rule with this id, or NULL; its index, or nrules if absent. */
const struct rule *rule_set_find(const struct rule_set *rs, const char *id);
size_t rule_set_index(const struct rule_set *rs, const char *id);

int rule_category_valid(const char *s);

/*
 * Length of the longest literal that every match of the regex must contain
 * (a conservative estimate: it may be shorter than the truth, never longer).
 */
size_t rule_pattern_literal(const char *pattern, size_t len);

/*
 * The literal factors of a pattern (rule_factor.c): lower-case strings such
 * that every match contains one of them, case-insensitively. *out (strings
 * and array, free()d by the caller) is NULL when there is no usable set;
 * *minlen is the shortest factor. Returns -1 when out of memory.
 */
int rule_pattern_factors(const char *pattern, size_t len, char ***out,
    size_t *nout, size_t *minlen);

/*
 * Path globs (docs/rules.md): case-insensitive; `*`, `?`, `[...]`, `**`;
 * without `/` the glob matches the base name; with `/` the whole path or any
 * trailing run of segments; a leading `/` anchors at the root.
 */
int rule_glob_match(const char *glob, const char *path);

#endif
