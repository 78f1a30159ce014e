/*
 * main.c - the airlock binary: one table of git-style subcommands, each
 * with its entry point and its line of help, and the dispatch over it.
 *
 * Every process of airlock starts here: the service (serve), the client
 * commands that talk to a gate over HTTP, and the offline ones (scan,
 * rules, verify, init); see docs/architecture.md.
 */
#include <stdio.h>
#include <string.h>

#include "gate.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* NULL: handled here */
	const char *synopsis;             /* NULL: not listed */
	const char *help;
};

static const struct command commands[] = {
	{"init", cmd_init, "init [--data DIR]",
	    "create the gate's data directory"},
	{"serve", cmd_serve, "serve [options]", "run the gate service"},
	{"submit", cmd_submit, "submit PATH|-",
	    "send an artifact into quarantine"},
	{"list", cmd_list, "list", "list submissions"},
	{"show", cmd_show, "show ID", "one submission and its findings"},
	{"diff", cmd_diff, "diff ID",
	    "its content with the findings marked inline"},
	{"approve", cmd_approve, "approve ID [-m TEXT]",
	    "approve exactly these bytes"},
	{"reject", cmd_reject, "reject ID -m TEXT", "reject them, for good"},
	{"override", cmd_override, "override ID -m REASON",
	    "an admin's override of unscannable"},
	{"release", cmd_release, "release ID",
	    "re-hash, release, sign an attestation"},
	{"attestation", cmd_attestation, "attestation ID",
	    "fetch a release's attestation"},
	{"pull", cmd_pull, "pull ID [-o PATH]", "fetch released bytes"},
	{"verify", cmd_verify, "verify ATT ARTIFACT",
	    "check an attestation offline (CI)"},
	{"audit", cmd_audit, "audit verify|checkpoint|proof|check-proof",
	    "verify the tamper-evident audit log"},
	{"provenance", cmd_provenance, "provenance SHA256|ID|PATH",
	    "the whole chain of one artifact"},
	{"key", cmd_key, "key show|list|rotate",
	    "the gate's signing keys"},
	{"token", cmd_token, "token create|list|revoke",
	    "manage the gate's tokens"},
	{"person", cmd_person, "person add|list|disable",
	    "the persons who hold tokens"},
	{"scan", cmd_scan, "scan PATH...",
	    "scan files and directories offline"},
	{"rules", cmd_rules, "rules list|test|check",
	    "inspect and prove the rule set"},
	{"version", NULL, "version", "print the version"},
	{"help", NULL, "help [COMMAND]", "this help, or a command's"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *
find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void
usage(FILE *out)
{
	size_t i;

	fputs("usage: airlock COMMAND [ARGS]\n"
	    "\n"
	    "airlock is a quarantine and review gate for what AI agents take "
	    "out of\n"
	    "their sandboxes.\n"
	    "\n"
	    "commands:\n", out);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-22s  %s\n", commands[i].synopsis,
		    commands[i].help);
	fputs("\n"
	    "Run 'airlock COMMAND --help' for a command's options.\n", out);
}

int
main(int argc, char **argv)
{
	const struct command *c;
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_ERROR;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char *sub[] = {argv[2], "--help", NULL};

			if ((c = find_command(argv[2])) != NULL && c->run != NULL)
				return c->run(2, sub);
			fprintf(stderr, "airlock: no help for '%s'\n", argv[2]);
			return EXIT_ERROR;
		}
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("airlock %s\n", AIRLOCK_VERSION);
		return EXIT_OK;
	}
	if ((c = find_command(cmd)) != NULL && c->run != NULL)
		return c->run(argc - 1, argv + 1);
	fprintf(stderr, "airlock: unknown command '%s'\n\n", cmd);
	usage(stderr);
	return EXIT_ERROR;
}
