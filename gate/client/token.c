/*
 * token.c - `airlock token create|list|revoke`: the gate's tokens, managed
 * with an admin token.
 *
 * Trust: create prints the new token alone on standard output, the only
 * time the gate shows it, so that TOKEN=$(airlock token create ...)
 * captures it; what it is (name, role, on behalf of whom, expiry) goes to
 * standard error. Names and persons in the gate's replies are hostile and
 * escaped before they are printed; list prints the columns it names, never
 * a secret. The token this command authenticates with is never printed.
 *
 * Exit status: 0 done, 1 refused by the gate (a taken name, an unknown
 * token...), 2 usage, transport or server errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "gate.h"
#include "term.h"

static const char token_usage[] =
    "usage: airlock token create --role ROLE --name NAME [--person PERSON]\n"
    "                            [--ttl DURATION] [--on-behalf-of PERSON]\n"
    "                            [options]\n"
    "       airlock token list [options]\n"
    "       airlock token revoke NAME [options]\n"
    "\n"
    "Manages the gate's tokens (an admin token is needed). create prints the\n"
    "new token alone on standard output, the only time it is shown, so that\n"
    "TOKEN=$(airlock token create ...) captures it; the rest goes to\n"
    "standard error.\n"
    "\n"
    "create options:\n"
    "  --role ROLE          agent, reviewer, ci, auditor or admin\n"
    "  --name NAME          the token's unique name\n"
    "  --person PERSON      the registered person who holds it (reviewer, ci,\n"
    "                       auditor, admin; default: the person named NAME)\n"
    "  --ttl DURATION       lifetime: 30m, 8h, 7d... (default: the gate's)\n"
    "  --on-behalf-of PERSON  the registered person the agent was launched\n"
    "                       for (agents only, required)\n"
    "common options:\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 done, 1 refused by the gate (a taken name, an unknown\n"
    "token...), 2 error\n";

static int
role_check(const char *s)
{
	static const char *const roles[] = {"agent", "reviewer", "ci", "auditor",
	    "admin"};
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (strcmp(s, roles[i]) == 0)
			return 0;
	return -1;
}

/* The new token alone on stdout; what it is on stderr. */
static int
token_created(const json_t *j)
{
	const char *tok = cli_jstr(j, "token");
	const char *obo = cli_jstr(j, "on_behalf_of");
	const char *person = cli_jstr(j, "person");

	if (tok == NULL) {
		fprintf(stderr, "airlock token: the gate's reply has no token\n");
		return EXIT_ERROR;
	}
	al_term_put(stdout, tok);
	putchar('\n');
	fputs("airlock: created token ", stderr);
	cli_put_value(stderr, json_object_get(j, "name"));
	fputs(" (", stderr);
	cli_put_value(stderr, json_object_get(j, "role"));
	if (obo != NULL) {
		fputs(", launched for ", stderr);
		al_term_put(stderr, obo);
	} else if (person != NULL) {
		fputs(", held by ", stderr);
		al_term_put(stderr, person);
	}
	if (cli_jstr(j, "expires_at") != NULL) {
		fputs("), expires ", stderr);
		cli_put_value(stderr, json_object_get(j, "expires_at"));
	} else {
		fputs("), does not expire", stderr);
	}
	fputs("; it is shown only this once\n", stderr);
	return EXIT_OK;
}

static int
token_create(struct client_conf *conf, int argc, char **argv)
{
	static const struct option opts[] = {
		{"role", required_argument, NULL, 'r'},
		{"name", required_argument, NULL, 'n'},
		{"ttl", required_argument, NULL, 't'},
		{"on-behalf-of", required_argument, NULL, 'o'},
		{"person", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	const char *role = NULL, *name = NULL, *ttl = NULL, *obo = NULL,
	    *person = NULL;
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	json_t *body = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(conf, ch, optarg))
			continue;
		switch (ch) {
		case 'r':
			if (role_check(optarg) < 0)
				return cli_usage_error(token_usage, "token",
				    "unknown role", optarg, 0);
			role = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 't':
			ttl = optarg;
			break;
		case 'o':
			obo = optarg;
			break;
		case 'p':
			person = optarg;
			break;
		case 'h':
			fputs(token_usage, stdout);
			return EXIT_OK;
		default:
			return cli_usage_error(token_usage, "token", NULL,
			    NULL, 0);
		}
	}
	if (optind < argc)
		return cli_usage_error(token_usage, "token", "unexpected "
		    "argument", argv[optind], 0);
	if (role == NULL || name == NULL)
		return cli_usage_error(token_usage, "token", "create needs "
		    "--role and --name", NULL, 1);
	if (name[0] == '\0' || strlen(name) > CLIENT_MAX_NAME)
		return cli_usage_error(token_usage, "token", "--name takes 1 "
		    "to 255 bytes", NULL, 0);
	if (strcmp(role, "agent") == 0 && (obo == NULL || obo[0] == '\0'))
		return cli_usage_error(token_usage, "token", "an agent token "
		    "needs --on-behalf-of PERSON (who launched the agent)",
		    NULL, 0);
	if (strcmp(role, "agent") == 0 && person != NULL)
		return cli_usage_error(token_usage, "token", "an agent token "
		    "names its person with --on-behalf-of, not --person", NULL,
		    0);
	body = json_pack("{s:s, s:s}", "role", role, "name", name);
	if (body == NULL || (person != NULL && json_object_set_new(body,
	    "person", json_string(person)) < 0) || (ttl != NULL && json_object_set_new(body, "ttl",
	    json_string(ttl)) < 0) || (obo != NULL && json_object_set_new(body,
	    "on_behalf_of", json_string(obo)) < 0)) {
		/* jansson refuses strings that are not UTF-8. */
		fprintf(stderr, "airlock token: names must be UTF-8\n");
		goto out;
	}
	if (client_new(&c, conf) < 0 ||
	    client_post_json(c, "/v1/tokens", body, &r) < 0) {
		ret = cli_fail("token");
		goto out;
	}
	if ((ret = cli_reply_check("token", c, &r, 201)) != EXIT_OK)
		goto out;
	if (conf->json)
		ret = client_print_json(stdout, r.json) < 0 ?
		    cli_fail("token") : EXIT_OK;
	else
		ret = token_created(r.json);
out:
	json_decref(body);
	client_reply_free(&r);
	client_free(c);
	return ret;
}

/* token list and token revoke: no options of their own. */
static int
token_simple(struct client_conf *conf, int argc, char **argv, int revoke)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	static const char *const head[] = {"NAME", "ROLE", "PERSON",
	    "CREATED", "EXPIRES", "REVOKED"};
	static const char *const keys[] = {"name", "role", "person",
	    "created_at", "expires_at", "revoked_at"};
	struct cli_table t = {6, head, NULL, 0, 0, {0}};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct dynbuf path;
	const json_t *toks, *tok;
	size_t i, k;
	int ch, rc = 0, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(conf, ch, optarg))
			continue;
		if (ch == 'h') {
			fputs(token_usage, stdout);
			return EXIT_OK;
		}
		return cli_usage_error(token_usage, "token", NULL, NULL, 0);
	}
	if (argc - optind != (revoke ? 1 : 0))
		return cli_usage_error(token_usage, "token", revoke ?
		    "revoke takes one NAME" : "list takes no arguments", NULL,
		    1);
	dynbuf_init(&path, 4096);
	if (revoke && (argv[optind][0] == '\0' ||
	    dynbuf_adds(&path, "/v1/tokens/") < 0 ||
	    client_url_escape(&path, argv[optind]) < 0)) {
		dynbuf_free(&path);
		return cli_usage_error(token_usage, "token", "bad token name",
		    argv[optind], 0);
	}
	if ((!revoke && dynbuf_adds(&path, "/v1/tokens") < 0) ||
	    client_new(&c, conf) < 0 || (revoke ?
	    client_delete(c, dynbuf_str(&path), &r) :
	    client_get(c, dynbuf_str(&path), &r)) < 0) {
		ret = cli_fail("token");
		goto out;
	}
	if ((ret = cli_reply_check("token", c, &r, 200)) != EXIT_OK)
		goto out;
	if (conf->json) {
		ret = client_print_json(stdout, r.json) < 0 ?
		    cli_fail("token") : EXIT_OK;
		goto out;
	}
	if (revoke) {
		fputs("revoked token ", stdout);
		al_term_put(stdout, argv[optind]);
		putchar('\n');
		goto out;
	}
	toks = json_object_get(r.json, "tokens");
	json_array_foreach(toks, i, tok)
		for (k = 0; k < 6 && rc == 0; k++)
			rc = cli_table_add_text(&t, tok, keys[k], 40);
	if (rc < 0)
		ret = cli_fail("token");
	else if (t.n == 0)
		fputs("no tokens\n", stderr);
	else
		cli_table_print(stdout, &t);
out:
	cli_table_free(&t);
	client_reply_free(&r);
	client_free(c);
	dynbuf_free(&path);
	return ret;
}

int
cmd_token(int argc, char **argv)
{
	struct client_conf conf = {0};
	const char *sub = argc > 1 ? argv[1] : NULL;
	int ret;

	if (sub == NULL)
		return cli_usage_error(token_usage, "token", "create, list or "
		    "revoke?", NULL, 1);
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0 ||
	    strcmp(sub, "help") == 0) {
		fputs(token_usage, stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "create") == 0)
		ret = token_create(&conf, argc - 1, argv + 1);
	else if (strcmp(sub, "list") == 0)
		ret = token_simple(&conf, argc - 1, argv + 1, 0);
	else if (strcmp(sub, "revoke") == 0)
		ret = token_simple(&conf, argc - 1, argv + 1, 1);
	else
		return cli_usage_error(token_usage, "token", "unknown "
		    "subcommand", sub, 0);
	return cli_finish("token", ret);
}
