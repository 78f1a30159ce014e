/*
 * decide.c - `airlock approve`, `airlock reject` and `airlock override`: a
 * decision on a held submission, one POST with a small JSON body.
 *
 * approve first reads the submission and sends back the sha256 and the
 * rule set the gate reports for it, so that what is approved is exactly
 * those bytes as scanned by those rules; if either changes before the
 * approval lands, the gate refuses it. The gate, not this client, refuses
 * an approval from someone who never read the content, from the submitter
 * and from whoever launched the submitting agent.
 *
 * Trust: the state and messages in the gate's replies are escaped before
 * they are printed; the text given with -m is the caller's own and is
 * sent, not printed. The token is never printed.
 *
 * Exit status: 0 done, 1 refused by the gate (or an approval before the
 * scan is finished), 2 usage, transport or server errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "client_int.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "term.h"

static const char approve_usage[] =
    "usage: airlock approve [options] ID [-m TEXT]\n"
    "\n"
    "Approves a held submission: exactly its bytes (sha256) as scanned by\n"
    "its latest rule set, both read from the gate and sent back with the\n"
    "approval. Fetch the content first (airlock diff ID): the gate refuses\n"
    "an approval from someone who never read it, from the submitter, and\n"
    "from the person who launched the submitting agent. Once the policy's\n"
    "number of distinct approvers is reached, the submission is approved.\n"
    "\n"
    "options:\n"
    "  -m, --message TEXT   a comment recorded with the approval\n"
    CLIENT_USAGE_OPTIONS;

static const char reject_usage[] =
    "usage: airlock reject [options] ID -m TEXT\n"
    "\n"
    "Rejects a held submission, for good: these bytes cannot be released.\n"
    "\n"
    "options:\n"
    "  -m, --message TEXT   why (required)\n"
    CLIENT_USAGE_OPTIONS;

static const char override_usage[] =
    "usage: airlock override [options] ID -m REASON\n"
    "\n"
    "An admin's override of an unscannable verdict, with the reason: the\n"
    "policy's approvals are still needed after it.\n"
    "\n"
    "options:\n"
    "  -m, --message TEXT   the reason (required)\n"
    CLIENT_USAGE_OPTIONS;

/* approve, reject, override: a POST with a small JSON body. */
static int
decide(int argc, char **argv, const char *cmd, const char *usage,
    const char *action, int need_text, const char *text_key)
{
	static const struct option opts[] = {
		{"message", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL}, show = {0, NULL};
	struct client *c = NULL;
	const char *text = NULL, *id;
	char path[96];
	json_t *body = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "hm:", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'm') {
			text = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		return cli_usage_error(usage, cmd, NULL, NULL, 0);
	}
	if (argc - optind != 1)
		return cli_usage_error(usage, cmd, argc == optind ?
		    "no ID given" : "one ID at a time", NULL, 1);
	id = argv[optind];
	if (cli_parse_id(id) < 0)
		return cli_usage_error(usage, cmd, "an ID is a positive "
		    "number, not", id, 0);
	if (need_text && (text == NULL || text[0] == '\0'))
		return cli_usage_error(usage, cmd, "-m TEXT is required: say "
		    "why", NULL, 1);
	/* The gate reads JSON, which is UTF-8: said here, rather than a
	 * comment left out of the approval. */
	if (text != NULL && !al_text_plain(text, strlen(text)))
		return cli_usage_error(usage, cmd, "-m takes UTF-8 text, not",
		    text, 0);
	if (client_new(&c, &conf) < 0) {
		ret = cli_fail(cmd);
		goto out;
	}
	if (strcmp(action, "approve") == 0) {
		/* What is approved: the bytes and the rules the gate reports
		 * now; if they change before the approval lands, it is
		 * refused. */
		snprintf(path, sizeof(path), "/v1/submissions/%s", id);
		if (client_get(c, path, &show) < 0) {
			ret = cli_fail(cmd);
			goto out;
		}
		if ((ret = cli_reply_check(cmd, c, &show, 200)) != EXIT_OK)
			goto out;
		body = json_pack("{s:s?, s:s?}", "sha256", cli_jstr(show.json,
		    "sha256"), "ruleset", cli_jstr(json_object_get(show.json,
		    "scan"), "ruleset"));
		if (body != NULL && text != NULL && json_object_set_new(body,
		    "comment", json_string(text)) < 0) {
			json_decref(body);
			body = NULL;
		}
		if (body != NULL && !json_is_string(json_object_get(body,
		    "ruleset"))) {
			fprintf(stderr, "airlock %s: submission %s has no finished "
			    "scan yet\n", cmd, id);
			ret = EXIT_REFUSED;
			goto out;
		}
	} else {
		body = json_pack("{s:s}", text_key, text);
	}
	snprintf(path, sizeof(path), "/v1/submissions/%s/%s", id, action);
	if ((body == NULL && al_err_set(AL_ENOMEM, "out of memory") < 0) ||
	    client_post_json(c, path, body, &r) < 0) {
		ret = cli_fail(cmd);
		goto out;
	}
	if ((ret = cli_reply_check(cmd, c, &r, 200)) != EXIT_OK)
		goto out;
	if (conf.json) {
		ret = client_print_json(stdout, r.json) < 0 ? cli_fail(cmd) :
		    EXIT_OK;
		goto out;
	}
	printf("submission %s: ", id);
	al_term_put(stdout, cli_jstr(r.json, "state"));
	printf(" (%lld of %lld approvals%s)\n", (long long)json_integer_value(
	    json_object_get(r.json, "approvals")), (long long)json_integer_value(
	    json_object_get(r.json, "needed")), json_is_true(json_object_get(
	    r.json, "override")) ? ", overridden" : "");
out:
	json_decref(body);
	client_reply_free(&r);
	client_reply_free(&show);
	client_free(c);
	return cli_finish(cmd, ret);
}

int
cmd_approve(int argc, char **argv)
{
	return decide(argc, argv, "approve", approve_usage, "approve", 0,
	    "comment");
}

int
cmd_reject(int argc, char **argv)
{
	return decide(argc, argv, "reject", reject_usage, "reject", 1,
	    "comment");
}

int
cmd_override(int argc, char **argv)
{
	return decide(argc, argv, "override", override_usage, "override", 1,
	    "reason");
}
