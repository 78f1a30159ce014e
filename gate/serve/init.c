/*
 * init.c - `airlock init`: the data directory, its database, store and
 * signing key, and the first admin token.
 *
 * Idempotent and safe: an existing database is migrated, never replaced; an
 * existing key is kept; the admin token is made (and shown) only once. It
 * takes the data directory's lock (DATA/serve.lock), as serve does, so it
 * never migrates a database under a running gate.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attest.h"
#include "dirs.h"
#include "auth.h"
#include "db.h"
#include "dynbuf.h"
#include "err.h"
#include "os.h"
#include "gate.h"
#include "serve.h"
#include "store.h"

static const char init_usage[] =
    "usage: airlock init [--data DIR] [--signing-key FILE]\n"
    "\n"
    "Creates the gate's data directory (mode 0700): the SQLite database,\n"
    "the content-addressed store, the Ed25519 signing key (keys/signing.key,\n"
    "0600; the public half in keys/signing.pub) and an admin token, which is\n"
    "printed once, on stdout. Run again, it changes nothing that exists.\n"
    "\n"
    "options:\n"
    "  --data DIR          the data directory (default: $AIRLOCK_DATA, or\n"
    "                      ./var)\n"
    "  --signing-key FILE  keep the private key in FILE, outside the data\n"
    "                      directory (default: $AIRLOCK_SIGNING_KEY); made\n"
    "                      there (0600) unless it exists, and only its public\n"
    "                      half goes in keys/. serve and the key commands\n"
    "                      then need the same option or variable\n"
    "                      (docs/operations.md, \"The signing key\").\n"
    "  -h, --help          this help\n";

/* Which key, and where: a key outside the data directory is named. */
static void
key_said(const char *dir, int kept)
{
	struct dynbuf k;
	int external = 0;

	dynbuf_init(&k, 8192);
	if (attest_key_path(dir, &k, &external) == 0 && external)
		fprintf(stderr, "airlock init: %s: %s signing key %s (outside "
		    "the data directory; keys/ holds its public half)\n", dir,
		    kept ? "kept the existing" : "made a new", dynbuf_str(&k));
	else
		fprintf(stderr, "airlock init: %s: %s signing key\n", dir,
		    kept ? "kept the existing" : "made a new");
	dynbuf_free(&k);
}

int
cmd_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"signing-key", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data_opt = NULL, *key_opt = NULL;
	char *dir = NULL, token[GATE_TOKEN_MAX], hash[65];
	struct db *db = NULL;
	struct gate_store *store = NULL;
	struct db_principal admin;
	struct dynbuf p;
	struct stat st;
	int c, rc, ret = EXIT_ERROR, lockfd = -1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			data_opt = optarg;
			break;
		case 'k':
			key_opt = optarg;
			break;
		case 'h':
			fputs(init_usage, stdout);
			return EXIT_OK;
		default:
			fputs(init_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "airlock init: unexpected argument '%s'\n\n%s",
		    argv[optind], init_usage);
		return EXIT_ERROR;
	}
	if (gate_signing_key_opt(key_opt) < 0) {
		fprintf(stderr, "airlock init: %s\n", al_err_msg());
		return EXIT_ERROR;
	}
	dir = gate_data_dir(data_opt);
	dynbuf_init(&p, 8192);
	if (dir == NULL || dynbuf_addf(&p, "%s/airlock.db", dir) < 0) {
		fprintf(stderr, "airlock init: out of memory\n");
		goto out;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "airlock init: %s: %s\n", dir, strerror(errno));
		goto out;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "airlock init: %s is not a directory\n", dir);
		goto out;
	}
	if ((st.st_mode & 077) != 0 && chmod(dir, 0700) < 0) {
		fprintf(stderr, "airlock init: chmod %s: %s\n", dir,
		    strerror(errno));
		goto out;
	}
	/* Not under a running gate: a migration would change its schema. */
	if (srv_lock_data(dir, &lockfd) < 0) {
		fprintf(stderr, "airlock init: %s\n", al_err_msg());
		goto out;
	}
	if (db_open(&db, dynbuf_str(&p), 1) < 0 ||
	    store_open(&store, dir, 1) < 0) {
		fprintf(stderr, "airlock init: %s\n", al_err_msg());
		goto out;
	}
	rc = gate_key_create(dir);
	if (rc < 0 && rc != AL_EEXIST) {
		fprintf(stderr, "airlock init: %s\n", al_err_msg());
		goto out;
	}
	key_said(dir, rc == AL_EEXIST);
	rc = db_principal_by_name(db, "admin", &admin);
	if (rc == 0) {
		db_principal_clear(&admin);
		fprintf(stderr, "airlock init: already initialised; the admin "
		    "token was shown when it was made\n");
		ret = EXIT_OK;
		goto out;
	}
	if (rc != AL_ENOTFOUND || gate_token_new(token) < 0) {
		fprintf(stderr, "airlock init: %s\n", al_err_msg());
		goto out;
	}
	gate_token_hash(token, strlen(token), hash);
	/* The first token's holder is the person "admin" (persons: see
	 * docs/operations.md). */
	rc = db_person_create(db, "admin", NULL, al_now_ms(), 0, NULL);
	if ((rc < 0 && rc != AL_EEXIST) || db_principal_create(db, "admin",
	    DB_ROLE_ADMIN, hash, "admin", 0, al_now_ms(), 0, NULL) < 0) {
		fprintf(stderr, "airlock init: %s\n", al_err_msg());
		goto out;
	}
	fprintf(stderr, "airlock init: the admin token follows; it is shown "
	    "this once (keep it, e.g. in AIRLOCK_TOKEN)\n");
	printf("%s\n", token);
	fflush(stdout);
	ret = EXIT_OK;
out:
	db_close(db);
	store_close(store);
	srv_unlock_data(lockfd);
	dynbuf_free(&p);
	free(dir);
	return ret;
}
