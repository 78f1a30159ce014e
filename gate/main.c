/*
 * main.c - the airlock binary: git-style subcommand dispatch.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynbuf.h"
#include "gate.h"
#include "serve.h"

#ifndef AIRLOCK_SHARE_DIR
#define AIRLOCK_SHARE_DIR "/usr/local/share/airlock"
#endif

static const char main_usage[] =
    "usage: airlock COMMAND [ARGS]\n"
    "\n"
    "airlock is a quarantine and review gate for what AI agents take out of\n"
    "their sandboxes.\n"
    "\n"
    "commands:\n"
    "  init [--data DIR]       create the gate's data directory\n"
    "  serve [options]         run the gate service\n"
    "  submit PATH|-           send an artifact into quarantine\n"
    "  list                    list submissions\n"
    "  show ID                 one submission and its findings\n"
    "  diff ID                 its content with the findings marked inline\n"
    "  approve ID [-m TEXT]    approve exactly these bytes\n"
    "  reject ID -m TEXT       reject them, for good\n"
    "  override ID -m REASON   an admin's override of unscannable\n"
    "  release ID              re-hash, release, sign an attestation\n"
    "  pull ID [-o PATH]       fetch released bytes\n"
    "  verify ATT [ARTIFACT]   check an attestation offline (CI)\n"
    "  key show                the gate's public key\n"
    "  token create|list|revoke  manage the gate's tokens\n"
    "  scan PATH...            scan files and directories offline\n"
    "  rules list|test|check   inspect and prove the rule set\n"
    "  version                 print the version\n"
    "  help [COMMAND]          this help, or a command's\n"
    "\n"
    "Run 'airlock COMMAND --help' for a command's options.\n";

static int
is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL) {
		fputs("airlock: out of memory\n", stderr);
		exit(EXIT_ERROR);
	}
	return p;
}

char *
gate_rules_dir(const char *opt)
{
	char exe[PATH_MAX], *slash;
	struct dynbuf b;
	const char *env = getenv("AIRLOCK_RULES");
	ssize_t n;

	if (opt != NULL)
		return xstrdup(opt);
	if (env != NULL && env[0] != '\0')
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			dynbuf_init(&b, PATH_MAX);
			if (dynbuf_addf(&b, "%s/../rules", exe) == 0 &&
			    is_dir(dynbuf_str(&b)))
				return dynbuf_take(&b, NULL);
			dynbuf_reset(&b);
			if (dynbuf_addf(&b, "%s/../share/airlock/rules", exe) == 0 &&
			    is_dir(dynbuf_str(&b)))
				return dynbuf_take(&b, NULL);
			dynbuf_free(&b);
		}
	}
	return xstrdup(AIRLOCK_SHARE_DIR "/rules");
}

char *
gate_cache_dir(void)
{
	const char *env = getenv("AIRLOCK_CACHE_DIR");
	struct dynbuf b;

	if (env != NULL && env[0] != '\0')
		return xstrdup(env);
	dynbuf_init(&b, PATH_MAX);
	if ((env = getenv("XDG_CACHE_HOME")) != NULL && env[0] == '/') {
		(void)dynbuf_addf(&b, "%s/airlock", env);
	} else if ((env = getenv("HOME")) != NULL && env[0] == '/') {
		(void)dynbuf_addf(&b, "%s/.cache", env);
		(void)mkdir(dynbuf_str(&b), 0700);
		(void)dynbuf_adds(&b, "/airlock");
	} else {
		return NULL;
	}
	return dynbuf_take(&b, NULL);
}

int
main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		fputs(main_usage, stderr);
		return EXIT_ERROR;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char *sub[] = {argv[2], "--help", NULL};

			if (strcmp(argv[2], "scan") == 0)
				return cmd_scan(2, sub);
			if (strcmp(argv[2], "rules") == 0)
				return cmd_rules(2, sub);
			if (strcmp(argv[2], "init") == 0)
				return cmd_init(2, sub);
			if (strcmp(argv[2], "serve") == 0)
				return cmd_serve(2, sub);
			if (strcmp(argv[2], "submit") == 0)
				return cmd_submit(2, sub);
			if (strcmp(argv[2], "list") == 0)
				return cmd_list(2, sub);
			if (strcmp(argv[2], "show") == 0)
				return cmd_show(2, sub);
			if (strcmp(argv[2], "diff") == 0)
				return cmd_diff(2, sub);
			if (strcmp(argv[2], "approve") == 0)
				return cmd_approve(2, sub);
			if (strcmp(argv[2], "reject") == 0)
				return cmd_reject(2, sub);
			if (strcmp(argv[2], "override") == 0)
				return cmd_override(2, sub);
			if (strcmp(argv[2], "release") == 0)
				return cmd_release(2, sub);
			if (strcmp(argv[2], "pull") == 0)
				return cmd_pull(2, sub);
			if (strcmp(argv[2], "verify") == 0)
				return cmd_verify(2, sub);
			if (strcmp(argv[2], "key") == 0)
				return cmd_key(2, sub);
			if (strcmp(argv[2], "token") == 0)
				return cmd_token(2, sub);
			fprintf(stderr, "airlock: no help for '%s'\n", argv[2]);
			return EXIT_ERROR;
		}
		fputs(main_usage, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("airlock %s\n", AIRLOCK_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "scan") == 0)
		return cmd_scan(argc - 1, argv + 1);
	if (strcmp(cmd, "init") == 0)
		return cmd_init(argc - 1, argv + 1);
	if (strcmp(cmd, "serve") == 0)
		return cmd_serve(argc - 1, argv + 1);
	if (strcmp(cmd, "rules") == 0)
		return cmd_rules(argc - 1, argv + 1);
	if (strcmp(cmd, "submit") == 0)
		return cmd_submit(argc - 1, argv + 1);
	if (strcmp(cmd, "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(cmd, "show") == 0)
		return cmd_show(argc - 1, argv + 1);
	if (strcmp(cmd, "diff") == 0)
		return cmd_diff(argc - 1, argv + 1);
	if (strcmp(cmd, "approve") == 0)
		return cmd_approve(argc - 1, argv + 1);
	if (strcmp(cmd, "reject") == 0)
		return cmd_reject(argc - 1, argv + 1);
	if (strcmp(cmd, "override") == 0)
		return cmd_override(argc - 1, argv + 1);
	if (strcmp(cmd, "release") == 0)
		return cmd_release(argc - 1, argv + 1);
	if (strcmp(cmd, "pull") == 0)
		return cmd_pull(argc - 1, argv + 1);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	if (strcmp(cmd, "key") == 0)
		return cmd_key(argc - 1, argv + 1);
	if (strcmp(cmd, "token") == 0)
		return cmd_token(argc - 1, argv + 1);
	fprintf(stderr, "airlock: unknown command '%s'\n\n%s", cmd, main_usage);
	return EXIT_ERROR;
}
