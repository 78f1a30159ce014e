/*
 * list.c - `airlock list` (the submissions at the gate, newest first, as a
 * table) and `airlock show` (one submission: what the gate witnessed, what
 * the agent asserted, the scan and its findings, the approvals with their
 * comments, the rejection with its reason, and the timeline of its events,
 * as much of these as the caller's role may see).
 *
 * Trust: every value in the gate's reply may have come from an agent or an
 * artifact (names, labels, paths, excerpts, even the keys of what was
 * asserted); each is escaped before it is printed, text from its bytes
 * where the gate gives them ("<key>_hex"). What the agent asserted
 * is shown under its own heading, as claims, not verified. --json prints
 * the server's document, pretty and ASCII-only. The token is never
 * printed.
 *
 * Exit status: 0 listed or shown, 1 refused by the gate (or no such
 * submission), 2 usage, transport or server errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "term.h"
#include "util.h"
#include "vocab.h"

static const char list_usage[] =
    "usage: airlock list [options]\n"
    "\n"
    "Lists submissions at the gate, newest first (an agent sees its own),\n"
    "with the approvals each has now and needs. The gate filters and sorts.\n"
    "\n"
    "options:\n"
    "  --state STATE        only those in STATE: received, scanning, held,\n"
    "                       approved, rejected, released or expired\n"
    "  --severity SEV       only those whose worst finding is at least SEV:\n"
    "                       info, low, medium, high or critical\n"
    "  --kind KIND          only those the gate read as KIND: file, archive,\n"
    "                       patch, mbox or bundle\n"
    "  --agent NAME         only those the agent token NAME submitted\n"
    "  --person NAME        only those of agents launched for NAME (compared\n"
    "                       as the gate compares person names)\n"
    "  --sort ORDER         newest (default), oldest or severity\n"
    "  --limit N            at most N (default 100, at most 1000); when there\n"
    "                       are more, the next page's --cursor is printed\n"
    "  --cursor C           the page after the one that printed C\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 listed, 1 refused by the gate, 2 error\n";

static const char show_usage[] =
    "usage: airlock show [options] ID\n"
    "\n"
    "Shows one submission: what the gate witnessed, what the agent asserted\n"
    "(claims, not verified), the scan and its findings, the approvals with\n"
    "their comments, the rejection with its reason, and the timeline of its\n"
    "events (oldest first). An agent sees its own submission, and of the\n"
    "record only why it was rejected.\n"
    "\n"
    "options:\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 shown, 1 refused by the gate (or no such submission),\n"
    "2 error\n";

/* ---- list -------------------------------------------------------------------- */

/* The object that holds a field of a submission: the submission, or
 * what was witnessed. */
static const json_t *
sub_holder(const json_t *sub, const char *key)
{
	if (json_object_get(sub, key) == NULL)
		return json_object_get(sub, "witnessed");
	return sub;
}

static int
list_print(const json_t *subs)
{
	static const char *const head[] = {"ID", "STATE", "VERDICT", "WORST",
	    "KIND", "NAME", "SUBMITTER", "RECEIVED", "APPROVALS"};
	static const char *const keys[] = {"id", "state", "verdict", "worst",
	    "kind", "name", "submitter", "received_at"};
	static const size_t widths[] = {20, 12, 12, 10, 10, 40, 24, 30};
	struct cli_table t = {9, head, NULL, 0, 0, {0}};
	const json_t *s, *rv;
	json_t *cell;
	size_t i, k;
	int rc = 0;

	if (json_array_size(subs) == 0) {
		fputs("no submissions\n", stderr);
		return 0;
	}
	json_array_foreach(subs, i, s) {
		for (k = 0; k < 8 && rc == 0; k++)
			rc = cli_table_add_text(&t, sub_holder(s, keys[k]),
			    keys[k], widths[k]);
		/* "1/2": the approvals that count now, of those needed. */
		rv = json_object_get(s, "review");
		cell = json_is_integer(json_object_get(rv, "approvals")) &&
		    json_is_integer(json_object_get(rv, "needed")) ?
		    json_sprintf("%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
		    json_integer_value(json_object_get(rv, "approvals")),
		    json_integer_value(json_object_get(rv, "needed"))) :
		    json_null();
		if (rc == 0)
			rc = cell == NULL ? al_err_set(AL_ENOMEM, "out of memory") :
			    cli_table_add(&t, cell, 12);
		json_decref(cell);
	}
	if (rc == 0)
		cli_table_print(stdout, &t);
	cli_table_free(&t);
	return rc;
}

/* The list's query arguments, in the order they are sent. */
enum list_opt {
	LO_STATE, LO_SEVERITY, LO_KIND, LO_AGENT, LO_PERSON, LO_SORT,
	LO_LIMIT, LO_CURSOR, LO_MAX,
};

static const char *const list_opt_names[LO_MAX] = {"state", "severity",
    "kind", "agent", "person", "sort", "limit", "cursor"};

/* "/v1/submissions?state=S&..." of the options given, each escaped. */
static int
list_path(struct dynbuf *b, const char *const *v)
{
	size_t i;
	int rc = dynbuf_adds(b, "/v1/submissions"), sep = '?';

	for (i = 0; rc == 0 && i < LO_MAX; i++) {
		if (v[i] == NULL)
			continue;
		rc = dynbuf_addf(b, "%c%s=", sep, list_opt_names[i]);
		if (rc == 0)
			rc = client_url_escape(b, v[i]);
		sep = '&';
	}
	return rc < 0 ? al_err_set(AL_ELIMIT, "the options make the request "
	    "too long") : 0;
}

int
cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{"state", required_argument, NULL, 's'},
		{"severity", required_argument, NULL, 'v'},
		{"kind", required_argument, NULL, 'k'},
		{"agent", required_argument, NULL, 'a'},
		{"person", required_argument, NULL, 'p'},
		{"sort", required_argument, NULL, 'o'},
		{"limit", required_argument, NULL, 'n'},
		{"cursor", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	const char *v[LO_MAX] = {NULL};
	const json_t *subs, *next;
	struct dynbuf path;
	char lim[24];
	size_t limit = 0;
	int ch, k, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		switch (ch) {
		case 's':
			if (al_state_parse(optarg) < 0)
				return cli_usage_error(list_usage, "list",
				    "unknown state", optarg, 0);
			v[LO_STATE] = optarg;
			break;
		case 'v':
			if (al_severity_parse(optarg) < 0)
				return cli_usage_error(list_usage, "list",
				    "unknown severity", optarg, 0);
			v[LO_SEVERITY] = optarg;
			break;
		case 'k':
			if ((k = al_kind_parse(optarg)) < AL_KIND_FILE ||
			    k > AL_KIND_BUNDLE)
				return cli_usage_error(list_usage, "list",
				    "unknown kind", optarg, 0);
			v[LO_KIND] = optarg;
			break;
		case 'a':
			v[LO_AGENT] = optarg;
			break;
		case 'p':
			v[LO_PERSON] = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "newest") != 0 &&
			    strcmp(optarg, "oldest") != 0 &&
			    strcmp(optarg, "severity") != 0)
				return cli_usage_error(list_usage, "list",
				    "--sort takes newest, oldest or severity, not",
				    optarg, 0);
			v[LO_SORT] = optarg;
			break;
		case 'n':
			if (al_parse_size(optarg, &limit) != 0 || limit == 0 ||
			    limit > 1000)
				return cli_usage_error(list_usage, "list",
				    "--limit takes 1 to 1000, not", optarg, 0);
			snprintf(lim, sizeof(lim), "%zu", limit);
			v[LO_LIMIT] = lim;
			break;
		case 'c':
			v[LO_CURSOR] = optarg;
			break;
		case 'h':
			fputs(list_usage, stdout);
			return EXIT_OK;
		default:
			return cli_usage_error(list_usage, "list", NULL, NULL,
			    0);
		}
	}
	if (optind < argc)
		return cli_usage_error(list_usage, "list", "unexpected "
		    "argument", argv[optind], 0);
	dynbuf_init(&path, 4096);
	if (list_path(&path, v) < 0 || client_new(&c, &conf) < 0 ||
	    client_get(c, dynbuf_str(&path), &r) < 0) {
		ret = cli_fail("list");
		goto out;
	}
	if ((ret = cli_reply_check("list", c, &r, 200)) != EXIT_OK)
		goto out;
	subs = json_object_get(r.json, "submissions");
	next = json_object_get(r.json, "next");
	if (!json_is_array(subs)) {
		fprintf(stderr, "airlock list: the gate's reply has no "
		    "submissions list\n");
		ret = EXIT_ERROR;
	} else if (conf.json) {
		ret = client_print_json(stdout, r.json) < 0 ? cli_fail("list") :
		    EXIT_OK;
	} else {
		ret = list_print(subs) < 0 ? cli_fail("list") : EXIT_OK;
		/* The gate's cursor is its own words: escaped all the same. */
		if (ret == EXIT_OK && json_is_string(next)) {
			fputs("more: the next page is --cursor ", stderr);
			al_term_put(stderr, json_string_value(next));
			fputc('\n', stderr);
		}
	}
out:
	client_reply_free(&r);
	client_free(c);
	dynbuf_free(&path);
	return cli_finish("list", ret);
}

/* ---- show -------------------------------------------------------------------- */

static void
print_member(FILE *out, const json_t *obj, const char *key)
{
	size_t w;

	fputs("  ", out);
	al_term_put(out, key);
	for (w = al_utf8_count(key, strlen(key)); w < 14; w++)
		fputc(' ', out);
	fputc(' ', out);
	cli_put_text(out, obj, key);
	fputc('\n', out);
}

/*
 * "  key            value" for every member of an object (all hostile):
 * the keys in first (NULL-terminated) in that order, then the others;
 * text from its bytes, its "<key>_hex" sibling not as a member of its own.
 */
static void
print_members(FILE *out, const json_t *obj, const char *const *first)
{
	const char *const *f;
	const char *key;
	const json_t *v;

	for (f = first; *f != NULL; f++)
		if (json_object_get(obj, *f) != NULL)
			print_member(out, obj, *f);
	json_object_foreach((json_t *)obj, key, v) {
		for (f = first; *f != NULL && strcmp(*f, key) != 0; f++)
			;
		if (*f == NULL && !al_json_is_hex_sibling(obj, key))
			print_member(out, obj, key);
	}
}

/* "  AT  WHO  " (no WHO when who is NULL; "(gate)" for the gate itself)
 * then the rest of a record line; every value escaped. */
static void
record_line(FILE *out, const json_t *o, const char *who)
{
	const json_t *w = who != NULL ? json_object_get(o, who) : NULL;

	fputs("  ", out);
	cli_put_value(out, json_object_get(o, "at"));
	fputs("  ", out);
	if (json_is_null(w))
		fputs("(gate)  ", out);
	else if (w != NULL) {
		cli_put_text(out, o, who);
		fputs("  ", out);
	}
}

/* The record: approvals and their comments, those a rescan voided, the
 * rejection, the timeline. */
static void
show_print_record(FILE *out, const json_t *sub)
{
	const json_t *appr = json_object_get(sub, "approvals");
	const json_t *rej = json_object_get(sub, "rejection");
	const json_t *voided = json_object_get(sub, "voided");
	const json_t *tl = json_object_get(sub, "timeline");
	const json_t *v, *d;
	size_t i;

	if (json_is_array(appr)) {
		fprintf(out, "\napprovals that count (%zu)\n",
		    json_array_size(appr));
		json_array_foreach(appr, i, v) {
			record_line(out, v, "reviewer");
			d = json_object_get(v, "comment");
			if (json_is_string(d))
				cli_put_text(out, v, "comment");
			else
				fputs("(no comment)", out);
			fputc('\n', out);
		}
	}
	if (json_is_array(voided) && json_array_size(voided) > 0) {
		fprintf(out, "\napprovals that no longer count (%zu)\n",
		    json_array_size(voided));
		json_array_foreach(voided, i, v) {
			record_line(out, v, "reviewer");
			cli_put_text(out, v, "why");
			fputc('\n', out);
		}
	}
	if (json_is_object(rej)) {
		fputs("\nrejected\n", out);
		record_line(out, rej, json_object_get(rej, "reviewer") ?
		    "reviewer" : NULL);
		cli_put_text(out, rej, "reason");
		fputc('\n', out);
	}
	if (json_is_array(tl)) {
		fputs("\ntimeline\n", out);
		json_array_foreach(tl, i, v) {
			record_line(out, v, "actor");
			cli_put_text(out, v, "action");
			d = json_object_get(v, "detail");
			if (json_is_string(d)) {
				fputs("  ", out);
				cli_put_text(out, v, "detail");
			}
			fputc('\n', out);
		}
	}
}

static void
show_print(FILE *out, const json_t *sub)
{
	static const char *const facts[] = {"state", "sha256", "kind", "name"};
	static const char *const wkeys[] = {"submitter", "launched_by", "via",
	    "peer_uid", "peer_pid", "received_at", NULL};
	static const char *const skeys[] = {"ruleset", "engine", "started_at",
	    "finished_at", NULL};
	static const char *const none[] = {NULL};
	const json_t *asserted = json_object_get(sub, "asserted");
	const json_t *witnessed = json_object_get(sub, "witnessed");
	const json_t *scan = json_object_get(sub, "scan");
	const json_t *findings = json_object_get(sub, "findings");
	const char *asked;
	char size[32];
	size_t i;

	fputs("submission ", out);
	cli_put_value(out, json_object_get(sub, "id"));
	fputc('\n', out);
	for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		fprintf(out, "  %-14s ", facts[i]);
		cli_put_text(out, sub, facts[i]);
		fputc('\n', out);
	}
	al_human_size(size, sizeof(size), json_integer_value(
	    json_object_get(sub, "size")));
	fprintf(out, "  %-14s ", "size");
	cli_put_value(out, json_object_get(sub, "size"));
	fprintf(out, " (%s)\n  %-14s ", size, "verdict");
	cli_print_verdict(out, sub);
	fputc('\n', out);
	if (json_is_object(witnessed)) {
		fputs("\nwitnessed by the gate\n", out);
		print_members(out, witnessed, wkeys);
	}
	fputs("\nasserted by the agent (claims, not verified)\n", out);
	asked = json_string_value(json_object_get(sub, "kind_asked"));
	if (asked != NULL && al_kind_parse(asked) != AL_KIND_AUTO) {
		/* A label: "kind" above is how the gate read the content. */
		fprintf(out, "  %-14s ", "kind");
		cli_put_value(out, json_object_get(sub, "kind_asked"));
		fputc('\n', out);
	}
	if (json_object_size(asserted) > 0)
		print_members(out, asserted, none);
	else if (asked == NULL || al_kind_parse(asked) == AL_KIND_AUTO)
		fputs("  (nothing)\n", out);
	if (json_is_object(scan)) {
		fputs("\nscan\n", out);
		print_members(out, scan, skeys);
	}
	if (json_is_array(findings)) {
		fputc('\n', out);
		cli_print_findings(out, findings, out == stdout &&
		    cli_use_color());
	}
	show_print_record(out, sub);
}

int
cmd_show(int argc, char **argv)
{
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	const char *id;
	char path[64];
	int ret = EXIT_ERROR;

	if ((id = cli_id_args(argc, argv, "show", show_usage, &conf,
	    &ret)) == NULL)
		return ret;
	snprintf(path, sizeof(path), "/v1/submissions/%s", id);
	if (client_new(&c, &conf) < 0 || client_get(c, path, &r) < 0) {
		ret = cli_fail("show");
		goto out;
	}
	if ((ret = cli_reply_check("show", c, &r, 200)) != EXIT_OK)
		goto out;
	if (conf.json)
		ret = client_print_json(stdout, r.json) < 0 ? cli_fail("show") :
		    EXIT_OK;
	else
		show_print(stdout, r.json);
out:
	client_reply_free(&r);
	client_free(c);
	return cli_finish("show", ret);
}
