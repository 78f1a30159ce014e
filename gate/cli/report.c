/*
 * report.c - renders findings as text, JSON and SARIF 2.1.0.
 *
 * Input: findings whose paths and excerpts come from hostile artifacts; see
 * report.h for how they are made safe for each consumer.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "report.h"
#include "term.h"
#include "util.h"

/* A JSON string of text that may not be UTF-8, replaced by the text
 * scheme, for the rules' own words in SARIF's text fields (the loader
 * read them as YAML, which is UTF-8; this is the belt to its braces). */
static json_t *
jstr(const char *s)
{
	json_t *tmp = json_object(), *j = NULL;

	if (tmp != NULL && al_json_set_textz(tmp, "t", s) == 0)
		j = json_incref(json_object_get(tmp, "t"));
	json_decref(tmp);
	return j;
}

/*
 * SARIF has no "<key>_hex" siblings: text goes into its own fields
 * replaced by the text scheme (sarif_text), and the bytes of a path or an
 * excerpt that is not plain text into the result's property bag as
 * "path_hex" or "excerpt_hex" (sarif_hex; docs/api.md).
 */
static int
sarif_text(json_t *obj, const char *key, const char *s)
{
	json_t *j = jstr(s);

	if (j == NULL || json_object_set_new(obj, key, j) < 0)
		return AL_ENOMEM;
	return 0;
}

static int
sarif_hex(json_t *props, const char *prop_hex, const char *s)
{
	json_t *tmp = json_object(), *h;
	int rc;

	if (tmp == NULL)
		return AL_ENOMEM;
	if ((rc = al_json_set_textz(tmp, "t", s)) == 0 &&
	    (h = json_object_get(tmp, "t" AL_JSON_HEX_SUFFIX)) != NULL &&
	    json_object_set(props, prop_hex, h) < 0)
		rc = AL_ENOMEM;
	json_decref(tmp);
	return rc;
}

static char *
dump(json_t *root)
{
	char *s = NULL;

	if (root != NULL)
		s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return s;
}

/* One finding: the rule's words and the artifact's text by the scheme. */
static int
finding_json(json_t *arr, const struct finding *f)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "rule",
	    f->rule->id, "category", f->rule->category, "severity",
	    al_severity_name(f->severity), "line", (json_int_t)f->line,
	    "column", (json_int_t)f->column, "fingerprint", f->fingerprint);
	int rc;

	if (o == NULL)
		return AL_ENOMEM;
	if ((rc = al_json_set_textz(o, "title", f->rule->title)) < 0 ||
	    (rc = al_json_set_textz(o, "path", f->path)) < 0 ||
	    (rc = al_json_set_textz(o, "excerpt", f->excerpt)) < 0 ||
	    json_array_append_new(arr, o) < 0) {
		if (rc == 0)
			return AL_ENOMEM;
		json_decref(o);
		return rc;
	}
	return 0;
}

/* Every finding or no document: none is left out of it. */
char *
report_json(const struct scan_report *r)
{
	json_t *root = json_object(), *arr = json_array();
	size_t i;
	int rc = root != NULL && arr != NULL ? 0 : AL_ENOMEM;

	if (rc == 0 && json_object_set_new(root, "tool", json_pack("{s:s, s:s}",
	    "name", "airlock", "version", AIRLOCK_VERSION)) < 0)
		rc = AL_ENOMEM;
	if (rc == 0 && json_object_set_new(root, "ruleset", json_pack(
	    "{s:s, s:I}", "digest", r->rs->digest, "rules",
	    (json_int_t)r->rs->nrules)) < 0)
		rc = AL_ENOMEM;
	for (i = 0; rc == 0 && i < r->findings->n; i++)
		rc = finding_json(arr, &r->findings->v[i]);
	if (rc == 0 && json_object_set(root, "findings", arr) < 0)
		rc = AL_ENOMEM;
	if (rc == 0 && json_object_set_new(root, "stats", json_pack(
	    "{s:I, s:I, s:f}", "files", (json_int_t)r->files, "bytes",
	    (json_int_t)r->bytes, "seconds", r->seconds)) < 0)
		rc = AL_ENOMEM;
	json_decref(arr);
	if (rc < 0) {
		json_decref(root);
		return NULL;
	}
	return dump(root);
}

const char *
report_sarif_level(enum al_severity s)
{
	switch (s) {
	case AL_SEV_CRITICAL:
	case AL_SEV_HIGH:
		return "error";
	case AL_SEV_MEDIUM:
		return "warning";
	default:
		return "note";
	}
}

/* GitHub code scanning reads this 0-10 score to rank security results. */
static const char *
security_severity(enum al_severity s)
{
	static const char *const v[] = {"1.0", "3.0", "5.5", "8.0", "9.5"};

	return (unsigned)s <= AL_SEV_CRITICAL ? v[s] : "5.0";
}

static json_t *
sarif_rule(const struct rule *ru)
{
	return json_pack("{s:s, s:o, s:{s:o}, s:{s:o}, s:{s:o}, s:{s:s}, "
	    "s:{s:s, s:s, s:s, s:[s,s]}}",
	    "id", ru->id,
	    "name", jstr(ru->title),
	    "shortDescription", "text", jstr(ru->title),
	    "fullDescription", "text", jstr(ru->description),
	    "help", "text", jstr(ru->description),
	    "defaultConfiguration", "level", report_sarif_level(ru->severity),
	    "properties", "category", ru->category,
	    "severity", al_severity_name(ru->severity),
	    "security-severity", security_severity(ru->severity),
	    "tags", "security", ru->category);
}

/* A relative URI reference for a path: unreserved bytes and '/' kept,
 * everything else percent-encoded; absolute paths become file:// URIs.
 * NULL when out of memory (the buffer holds the worst case). */
static json_t *
sarif_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	struct dynbuf b;
	const unsigned char *p;
	json_t *j = NULL;
	int rc = 0;

	dynbuf_init(&b, (size_t)3 * strlen(path) + 16);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path[0] == '/')
		rc = dynbuf_adds(&b, "file://");
	for (p = (const unsigned char *)path; rc == 0 && *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p) != NULL) {
			rc = dynbuf_addc(&b, (char)*p);
		} else {
			char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};

			rc = dynbuf_add(&b, esc, sizeof(esc));
		}
	}
	if (rc == 0)
		j = json_string(dynbuf_str(&b));
	dynbuf_free(&b);
	return j;
}

/* Index of a rule in the SARIF rules table: set rules then built-ins. */
static size_t
sarif_rule_index(const struct rule_set *rs, const struct rule *ru)
{
	const struct rule *const *bi;
	size_t nb, i;

	if (!ru->builtin && (i = rule_set_index(rs, ru->id)) < rs->nrules)
		return i;
	bi = scan_builtin_rules(&nb);
	for (i = 0; i < nb; i++)
		if (bi[i] == ru)
			return rs->nrules + i;
	return 0;
}

/* One result: the text fields replaced, the bytes in its property bag. */
static json_t *
sarif_result(const struct scan_report *r, const struct finding *f)
{
	json_t *loc = NULL, *res = NULL, *msg, *props, *snip;
	struct dynbuf m;
	int rc;

	/* The title, and ": excerpt" when there is one; sized to fit, so
	 * only memory can fail it. */
	dynbuf_init(&m, strlen(f->rule->title) + strlen(f->excerpt) + 3);
	if (dynbuf_adds(&m, f->rule->title) < 0 ||
	    (f->excerpt[0] != '\0' && (dynbuf_adds(&m, ": ") < 0 ||
	    dynbuf_adds(&m, f->excerpt) < 0))) {
		dynbuf_free(&m);
		return NULL;
	}
	loc = json_pack("{s:{s:o}}", "artifactLocation", "uri",
	    sarif_uri(f->path));
	res = json_pack("{s:s, s:I, s:s, s:{}, s:[], s:{s:s}, s:{s:s, s:s}}",
	    "ruleId", f->rule->id,
	    "ruleIndex", (json_int_t)sarif_rule_index(r->rs, f->rule),
	    "level", report_sarif_level(f->severity),
	    "message", "locations",
	    "partialFingerprints", "airlockFingerprint/v1", f->fingerprint,
	    "properties", "severity", al_severity_name(f->severity),
	    "category", f->rule->category);
	rc = loc != NULL && res != NULL ? 0 : AL_ENOMEM;
	msg = json_object_get(res, "message");
	props = json_object_get(res, "properties");
	if (rc == 0)
		rc = sarif_text(msg, "text", dynbuf_str(&m));
	dynbuf_free(&m);
	/* The URI percent-encodes the path's bytes; the bag has them too. */
	if (rc == 0 && (rc = sarif_hex(props, "path_hex", f->path)) == 0)
		rc = sarif_hex(props, "excerpt_hex", f->excerpt);
	if (rc == 0 && f->line > 0) {
		snip = json_object();
		if (snip == NULL || json_object_set_new(loc, "region", json_pack(
		    "{s:I, s:I, s:o}", "startLine", (json_int_t)f->line,
		    "startColumn", (json_int_t)f->column, "snippet", snip)) < 0)
			rc = AL_ENOMEM;
		else
			rc = sarif_text(snip, "text", f->excerpt);
	}
	if (rc == 0 && json_array_append_new(json_object_get(res, "locations"),
	    json_pack("{s:O}", "physicalLocation", loc)) < 0)
		rc = AL_ENOMEM;
	json_decref(loc);
	if (rc < 0) {
		json_decref(res);
		return NULL;
	}
	return res;
}

/* Every result or no document: none is left out of it. */
char *
report_sarif(const struct scan_report *r)
{
	const struct rule *const *bi;
	json_t *root, *rules, *results, *run;
	size_t nb, i;
	int rc;

	rules = json_array();
	results = json_array();
	rc = rules != NULL && results != NULL ? 0 : AL_ENOMEM;
	for (i = 0; rc == 0 && i < r->rs->nrules; i++)
		if (json_array_append_new(rules, sarif_rule(r->rs->rules[i])) < 0)
			rc = AL_ENOMEM;
	bi = scan_builtin_rules(&nb);
	for (i = 0; rc == 0 && i < nb; i++)
		if (json_array_append_new(rules, sarif_rule(bi[i])) < 0)
			rc = AL_ENOMEM;
	for (i = 0; rc == 0 && i < r->findings->n; i++)
		if (json_array_append_new(results, sarif_result(r,
		    &r->findings->v[i])) < 0)
			rc = AL_ENOMEM;
	if (rc < 0) {
		json_decref(rules);
		json_decref(results);
		return NULL;
	}
	run = json_pack("{s:{s:{s:s, s:s, s:s, s:o}}, s:s, s:o, s:{s:s}}",
	    "tool", "driver", "name", "airlock", "version", AIRLOCK_VERSION,
	    "semanticVersion", AIRLOCK_VERSION, "rules", rules,
	    "columnKind", "unicodeCodePoints",
	    "results", results,
	    "properties", "rulesetDigest", r->rs->digest);
	root = run == NULL ? NULL : json_pack("{s:s, s:s, s:[o]}",
	    "$schema", "https://json.schemastore.org/sarif-2.1.0.json",
	    "version", "2.1.0", "runs", run);
	return root != NULL ? dump(root) : NULL;
}

/* ---- text ---------------------------------------------------------------- */

int
report_text(FILE *out, const struct scan_report *r, int color)
{
	struct al_finding_row *rows = NULL;
	char size[32];
	size_t i, n = r->findings->n;

	if (n > 0 && (rows = calloc(n, sizeof(*rows))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const struct finding *f = &r->findings->v[i];

		rows[i].path = f->path;
		rows[i].line = (int64_t)f->line;
		rows[i].column = (int64_t)f->column;
		rows[i].severity = al_severity_name(f->severity);
		rows[i].rule = f->rule->id;
		rows[i].title = f->rule->title;
		rows[i].excerpt = f->excerpt;
	}
	al_findings_print(out, rows, n, color);
	free(rows);
	al_human_size(size, sizeof(size), (int64_t)r->bytes);
	fprintf(out, " in %llu file%s, %s, %.2f s; rules %.19s (%zu)",
	    (unsigned long long)r->files, r->files == 1 ? "" : "s", size,
	    r->seconds, r->rs->digest, r->rs->nrules);
	if (r->allowed > 0)
		fprintf(out, "; %llu allowed by the allow-list",
		    (unsigned long long)r->allowed);
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
