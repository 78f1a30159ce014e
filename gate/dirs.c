/*
 * dirs.c - the rules, review UI, cache and data directories; see dirs.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirs.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"

#ifndef AIRLOCK_SHARE_DIR
#define AIRLOCK_SHARE_DIR "/usr/local/share/airlock"
#endif

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

/* The option, else $var, else leaf beside the build directory the binary
 * runs from (a source tree), else in the share directory beside it (an
 * installed prefix), else the share directory compiled in. */
static char *
share_dir(const char *opt, const char *var, const char *leaf)
{
	char exe[PATH_MAX], *slash;
	struct dynbuf b;
	const char *env = getenv(var);
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
			if (dynbuf_addf(&b, "%s/../%s", exe, leaf) == 0 &&
			    is_dir(dynbuf_str(&b)))
				return dynbuf_take(&b, NULL);
			dynbuf_reset(&b);
			if (dynbuf_addf(&b, "%s/../share/airlock/%s", exe, leaf) == 0 &&
			    is_dir(dynbuf_str(&b)))
				return dynbuf_take(&b, NULL);
			dynbuf_free(&b);
		}
	}
	dynbuf_init(&b, PATH_MAX);
	if (dynbuf_addf(&b, "%s/%s", AIRLOCK_SHARE_DIR, leaf) < 0) {
		fputs("airlock: out of memory\n", stderr);
		exit(EXIT_ERROR);
	}
	return dynbuf_take(&b, NULL);
}

char *
gate_rules_dir(const char *opt)
{
	return share_dir(opt, "AIRLOCK_RULES", "rules");
}

char *
gate_ui_dir(const char *opt)
{
	return share_dir(opt, "AIRLOCK_UI_DIR", "review-ui");
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
		if (dynbuf_addf(&b, "%s/airlock", env) < 0)
			goto none;
	} else if ((env = getenv("HOME")) != NULL && env[0] == '/') {
		if (dynbuf_addf(&b, "%s/.cache", env) < 0)
			goto none;
		(void)mkdir(dynbuf_str(&b), 0700);
		if (dynbuf_adds(&b, "/airlock") < 0)
			goto none;
	} else {
		return NULL;
	}
	return dynbuf_take(&b, NULL);
none:
	/* A home longer than a path can be: compile without a cache. */
	dynbuf_free(&b);
	return NULL;
}

char *
gate_data_dir(const char *opt)
{
	const char *env = getenv("AIRLOCK_DATA");

	return strdup(opt ? opt : env && env[0] ? env : "var");
}

int
gate_signing_key_opt(const char *opt)
{
	struct dynbuf b;
	char cwd[4096];
	int rc = 0;

	if (opt == NULL)
		return 0;
	if (opt[0] == '\0')
		return al_err_set(AL_EINVAL, "--signing-key takes a file name");
	dynbuf_init(&b, 8192);
	if (opt[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL)
		rc = al_err_set(AL_EIO, "getcwd: %s", strerror(errno));
	else if ((opt[0] == '/' ? dynbuf_adds(&b, opt) : dynbuf_addf(&b,
	    "%s/%s", cwd, opt)) < 0)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	else if (setenv("AIRLOCK_SIGNING_KEY", dynbuf_str(&b), 1) < 0)
		rc = al_err_set(AL_ENOMEM, "setenv: %s", strerror(errno));
	dynbuf_free(&b);
	return rc;
}
