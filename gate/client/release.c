/*
 * release.c - `airlock release` (the gate signs a release statement for an
 * approved submission: in-toto Statement v1 in a DSSE envelope, printed or
 * written with -o for `airlock verify` in CI; again, the same one),
 * `airlock attestation` (fetches that stored attestation) and `airlock
 * rules reload`
 * (tells the running gate to reload its rules, as SIGHUP does).
 *
 * Trust: the attestation is the gate's signed document, written out as
 * JSON for a file or a pipe; checking it is `airlock verify`'s work, not
 * this command's. -o refuses to follow a symbolic link. The gate's
 * messages in a refusal are escaped before they are printed. The token is
 * never printed.
 *
 * Exit status: 0 done, 1 refused by the gate, 2 usage, transport or server
 * errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "client_int.h"
#include "gate.h"

static const char release_usage[] =
    "usage: airlock release [options] ID [-o FILE]\n"
    "\n"
    "Releases an approved submission: the gate reads the stored bytes again,\n"
    "refuses if they no longer match the approved sha256, and signs a\n"
    "release statement (in-toto Statement v1 in a DSSE envelope, Ed25519),\n"
    "which is printed (or written to FILE) for `airlock verify` in CI.\n"
    "Released already, it answers the same attestation again (exit 0), so\n"
    "that a CI retry succeeds.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE    write the attestation there, not to stdout\n"
    CLIENT_USAGE_OPTIONS;

static const char attestation_usage[] =
    "usage: airlock attestation [options] ID [-o FILE]\n"
    "\n"
    "Fetches the signed release attestation of a released submission (the\n"
    "one `airlock release` made; the gate keeps it), printed or written to\n"
    "FILE, for `airlock verify`. Exits 1 if the submission is not released.\n"
    "Roles: reviewer, ci, auditor, admin.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE    write the attestation there, not to stdout\n"
    CLIENT_USAGE_OPTIONS;

/*
 * POST (release) or GET (attestation) path; a DSSE envelope answered with
 * 200 is printed or written to output.
 */
static int
attestation_fetch(const char *cmd, int post, int argc, char **argv,
    const char *usage)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	const char *output = NULL;
	char path[96], *text = NULL;
	json_t *empty = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'o') {
			output = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		return cli_usage_error(usage, cmd, NULL, NULL, 0);
	}
	if (argc - optind != 1 || cli_parse_id(argv[optind]) < 0)
		return cli_usage_error(usage, cmd, "one submission ID is needed",
		    NULL, 1);
	snprintf(path, sizeof(path), "/v1/submissions/%s/%s", argv[optind],
	    post ? "release" : "attestation");
	if (client_new(&c, &conf) < 0 || (post ? ((empty = json_object()) ==
	    NULL || client_post_json(c, path, empty, &r) < 0) :
	    client_get(c, path, &r) < 0)) {
		ret = cli_fail(cmd);
		goto out;
	}
	if (r.status == 200 && json_object_get(r.json, "payload") != NULL) {
		text = json_dumps(r.json, JSON_INDENT(2) | JSON_SORT_KEYS);
		if (text == NULL) {
			ret = cli_fail(cmd);
			goto out;
		}
		ret = output ? (cli_write_file(output, text, strlen(text)) < 0 ?
		    cli_fail(cmd) : EXIT_OK) : (printf("%s\n", text) < 0 ?
		    EXIT_ERROR : EXIT_OK);
		if (ret == EXIT_OK && output != NULL)
			fprintf(stderr, "airlock %s: submission %s %s; attestation "
			    "in %s\n", cmd, argv[optind], post ? "released" :
			    "is released", output);
	} else {
		ret = cli_reply_check(cmd, c, &r, 200);
		if (ret == EXIT_OK)
			ret = EXIT_ERROR;
	}
out:
	free(text);
	json_decref(empty);
	client_reply_free(&r);
	client_free(c);
	return cli_finish(cmd, ret);
}

int
cmd_release(int argc, char **argv)
{
	return attestation_fetch("release", 1, argc, argv, release_usage);
}

int
cmd_attestation(int argc, char **argv)
{
	return attestation_fetch("attestation", 0, argc, argv,
	    attestation_usage);
}

static const char reload_usage[] =
    "usage: airlock rules reload [options]\n"
    "\n"
    "Tells the running gate to reload its rules (as SIGHUP does): it\n"
    "restarts with the rule directory and DATA/policy as they are on disk (if\n"
    "either does not load, the reload is refused, the answer says why, and\n"
    "the gate goes on with the old ones), and held or approved\n"
    "submissions that other rules scanned are scanned again; an approval\n"
    "then counts only if the new scan found nothing it did not see. Needs an\n"
    "admin token.\n"
    "\n"
    "options:\n" CLIENT_USAGE_OPTIONS;

int
cmd_rules_reload(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	json_t *empty = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'h') {
			fputs(reload_usage, stdout);
			return EXIT_OK;
		}
		return cli_usage_error(reload_usage, "rules reload", NULL,
		    NULL, 0);
	}
	if (optind != argc)
		return cli_usage_error(reload_usage, "rules reload",
		    "unexpected argument", argv[optind], 1);
	if ((empty = json_object()) == NULL || client_new(&c, &conf) < 0 ||
	    client_post_json(c, "/v1/rules/reload", empty, &r) < 0) {
		ret = cli_fail("rules reload");
		goto out;
	}
	if ((ret = cli_reply_check("rules reload", c, &r, 202)) == EXIT_OK)
		fprintf(stderr, "airlock rules reload: the gate is restarting with "
		    "the rules and policy on disk\n");
out:
	json_decref(empty);
	client_reply_free(&r);
	client_free(c);
	return cli_finish("rules reload", ret);
}
