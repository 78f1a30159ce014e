/*
 * person.c - `airlock person add|list|disable`: the people who hold the
 * gate's tokens, managed with an admin token (an auditor's may list).
 *
 * Trust: names and emails in the gate's replies are hostile and escaped
 * before they are printed. Names are compared by the gate after NFKC case
 * folding and trimming; it refuses names it cannot normalise faithfully.
 *
 * Exit status: 0 done, 1 refused by the gate (a name taken under that
 * comparison, an unknown person...), 2 usage, transport or server errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "gate.h"
#include "term.h"

static const char person_usage[] =
    "usage: airlock person add NAME [--email ADDRESS] [options]\n"
    "       airlock person list [options]\n"
    "       airlock person disable NAME [options]\n"
    "\n"
    "Manages the persons who hold the gate's tokens (an admin token is\n"
    "needed; an auditor's may list). Every reviewer, ci, auditor and admin\n"
    "token belongs to one person, and an agent token names the person it was\n"
    "launched for; separation of duties and the count of approvals are by\n"
    "person. Names are compared after NFKC case folding and trimming, and\n"
    "are unique under that comparison. disable revokes every token of the\n"
    "person (their agents' too) and issues them no new one.\n"
    "\n"
    "add options:\n"
    "  --email ADDRESS      a contact address (shown in list)\n"
    "common options:\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 done, 1 refused by the gate, 2 error\n";

int
cmd_person(int argc, char **argv)
{
	static const struct option opts[] = {
		{"email", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	static const char *const head[] = {"NAME", "EMAIL", "TOKENS", "CREATED",
	    "DISABLED"};
	static const char *const keys[] = {"name", "email", "tokens",
	    "created_at", "disabled_at"};
	struct cli_table t = {5, head, NULL, 0, 0, {0}};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct dynbuf path;
	const char *sub = argc > 1 ? argv[1] : NULL, *email = NULL;
	const json_t *v, *one;
	json_t *body = NULL;
	size_t i, k;
	int ch, rc = 0, ret = EXIT_ERROR, add, list, dis;

	if (sub == NULL)
		return cli_usage_error(person_usage, "person", "add, list or "
		    "disable?", NULL, 1);
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0 ||
	    strcmp(sub, "help") == 0) {
		fputs(person_usage, stdout);
		return EXIT_OK;
	}
	add = strcmp(sub, "add") == 0;
	list = strcmp(sub, "list") == 0;
	dis = strcmp(sub, "disable") == 0;
	if (!add && !list && !dis)
		return cli_usage_error(person_usage, "person", "unknown "
		    "subcommand", sub, 0);
	argc--;
	argv++;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'e' && add) {
			email = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(person_usage, stdout);
			return EXIT_OK;
		}
		return cli_usage_error(person_usage, "person", NULL, NULL, 0);
	}
	if (argc - optind != (list ? 0 : 1))
		return cli_usage_error(person_usage, "person", list ? "list "
		    "takes no arguments" : "one NAME, please", NULL, 1);
	if (!list && (argv[optind][0] == '\0' ||
	    strlen(argv[optind]) > CLIENT_MAX_NAME))
		return cli_usage_error(person_usage, "person", "a NAME takes 1 "
		    "to 255 bytes", NULL, 0);
	dynbuf_init(&path, 4096);
	if (dynbuf_adds(&path, "/v1/persons") < 0 || (dis &&
	    (dynbuf_adds(&path, "/") < 0 ||
	    client_url_escape(&path, argv[optind]) < 0 ||
	    dynbuf_adds(&path, "/disable") < 0))) {
		ret = cli_fail("person");
		goto out;
	}
	if (dis && (body = json_object()) == NULL) {
		ret = cli_fail("person");
		goto out;
	}
	if (add) {
		body = json_pack("{s:s}", "name", argv[optind]);
		if (body == NULL || (email != NULL && json_object_set_new(body,
		    "email", json_string(email)) < 0)) {
			fprintf(stderr, "airlock person: names must be UTF-8\n");
			goto out;
		}
	}
	if (client_new(&c, &conf) < 0 || (add ?
	    client_post_json(c, dynbuf_str(&path), body, &r) : dis ?
	    client_post_json(c, dynbuf_str(&path), body, &r) :
	    client_get(c, dynbuf_str(&path), &r)) < 0) {
		ret = cli_fail("person");
		goto out;
	}
	if ((ret = cli_reply_check("person", c, &r, add ? 201 : 200)) !=
	    EXIT_OK)
		goto out;
	if (conf.json) {
		ret = client_print_json(stdout, r.json) < 0 ?
		    cli_fail("person") : EXIT_OK;
		goto out;
	}
	if (add || dis) {
		fputs(add ? "added person " : "disabled person ", stdout);
		cli_put_text(stdout, r.json, "name");
		if (dis) {
			fputs("; tokens revoked: ", stdout);
			cli_put_value(stdout, json_object_get(r.json,
			    "tokens_revoked"));
		}
		putchar('\n');
		goto out;
	}
	v = json_object_get(r.json, "persons");
	json_array_foreach(v, i, one)
		for (k = 0; k < 5 && rc == 0; k++)
			rc = cli_table_add_text(&t, one, keys[k], 40);
	if (rc < 0)
		ret = cli_fail("person");
	else if (t.n == 0)
		fputs("no persons\n", stderr);
	else
		cli_table_print(stdout, &t);
out:
	cli_table_free(&t);
	json_decref(body);
	client_reply_free(&r);
	client_free(c);
	dynbuf_free(&path);
	return cli_finish("person", ret);
}
