/*
 * cmd_audit.c - `airlock audit verify|checkpoint`: the auditor's view of
 * the gate's tamper-evident log (docs/audit.md), on its data directory.
 *
 * verify recomputes the Merkle tree from the stored entries, rebuilds each
 * entry from the event row it records, checks every stored checkpoint's
 * signature (with every key the gate ever signed with) and its root, and
 * the roots of checkpoints exported earlier (--checkpoint FILE), which is
 * what finds a rewrite of the whole file: a log cut short of an exported
 * checkpoint, or one whose first entries now hash to another root. It
 * prints the first divergent index and what differs there; exit 1.
 *
 * checkpoint prints the newest signed checkpoint (the note, as stored), to
 * keep elsewhere; --make signs a new one of the log as it is now first.
 *
 * Trust: the data directory is the gate's (whoever runs this can read
 * it), but it is the thing being checked: nothing read from it is
 * believed until verified. An exported checkpoint is hostile input: its
 * signature is checked before its body is read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "dirs.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "os.h"
#include "util.h"

#define AUDIT_MAX_CHECKPOINT_FILES 64

static const char audit_usage[] =
    "usage: airlock audit verify [--data DIR] [--checkpoint FILE]...\n"
    "       airlock audit checkpoint [--data DIR] [--make] [-o FILE]\n"
    "\n"
    "verify      recomputes the audit log's Merkle tree from its entries,\n"
    "            checks each entry against the event it records and every\n"
    "            checkpoint's signature and root; each --checkpoint FILE (one\n"
    "            exported earlier) must be a signed checkpoint of a prefix of\n"
    "            the log as it is now. Prints the first divergent entry.\n"
    "            Exit 0 verified, 1 a divergence, 2 could not read the log.\n"
    "checkpoint  prints the newest signed checkpoint (C2SP signed note), to\n"
    "            keep outside the gate; --make signs one of the log as it is\n"
    "            now first; -o writes it to FILE instead of stdout.\n"
    "\n"
    "  --data DIR   the gate's data directory (default $AIRLOCK_DATA, else\n"
    "               ./airlock-data)\n";

static int
open_db(const char *dir, struct db **db)
{
	struct dynbuf p;
	int rc;

	dynbuf_init(&p, 8192);
	rc = dynbuf_addf(&p, "%s/airlock.db", dir) < 0 ?
	    al_err_set(AL_ENOMEM, "out of memory") :
	    db_open(db, dynbuf_str(&p), 0);
	dynbuf_free(&p);
	return rc;
}

static void
b64(const uint8_t h[32], char out[45])
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789+/";
	size_t i, o = 0;

	for (i = 0; i < 30; i += 3) {
		uint32_t v = (uint32_t)h[i] << 16 | (uint32_t)h[i + 1] << 8 | h[i + 2];

		out[o++] = a[v >> 18];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = a[(v >> 6) & 63];
		out[o++] = a[v & 63];
	}
	{
		uint32_t v = (uint32_t)h[30] << 16 | (uint32_t)h[31] << 8;

		out[o++] = a[v >> 18];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = a[(v >> 6) & 63];
		out[o++] = '=';
	}
	out[o] = '\0';
}

struct vctx {
	struct db_audit_check *checks;
	size_t n;
	char **names;             /* owned */
	int bad;                  /* a checkpoint failed before the walk */
};

static int
add_check(struct vctx *v, const char *name, uint64_t size,
    const uint8_t root[32])
{
	struct db_audit_check *c;
	char **nm;

	c = realloc(v->checks, (v->n + 1) * sizeof(*c));
	if (c == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	v->checks = c;
	nm = realloc(v->names, (v->n + 1) * sizeof(*nm));
	if (nm == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	v->names = nm;
	if ((v->names[v->n] = strdup(name)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	memset(&c[v->n], 0, sizeof(c[v->n]));
	c[v->n].name = v->names[v->n];
	c[v->n].size = size;
	memcpy(c[v->n].root, root, 32);
	v->n++;
	return 0;
}

/* The stored checkpoints: each signature verified, its stored size and
 * root the ones it signs. */
static int
stored_checks(struct db *db, const struct attest_keyring *kr,
    const char *origin, struct vctx *v, uint64_t *newest)
{
	struct db_checkpoint *cp = NULL;
	size_t n = 0, i, ki = 0;
	int rc;

	if ((rc = db_checkpoint_list(db, 0, &cp, &n)) < 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++) {
		struct checkpoint c;
		char name[64];

		snprintf(name, sizeof(name), "#%lld (stored)",
		    (long long)cp[i].id);
		if (gate_checkpoint_open(cp[i].note, strlen(cp[i].note), kr, origin,
		    &c, &ki) < 0) {
			printf("checkpoint %s: FAILED: %s\n", name, al_err_msg());
			v->bad = 1;
			continue;
		}
		if (!cp[i].root_ok || c.size != cp[i].size ||
		    memcmp(c.root, cp[i].root, 32) != 0) {
			printf("checkpoint %s: FAILED: its row's size or root is "
			    "not what its note signs\n", name);
			v->bad = 1;
		}
		rc = add_check(v, name, c.size, c.root);
		if (c.size > *newest)
			*newest = c.size;
		checkpoint_clear(&c);
	}
	db_checkpoint_list_free(cp, n);
	return rc;
}

static int
file_check(const char *path, const struct attest_keyring *kr,
    const char *origin, struct vctx *v)
{
	struct checkpoint c;
	char *text = NULL;
	size_t len = 0, ki = 0;
	int rc;

	if ((rc = al_read_file(path, NOTE_MAX_BYTES, &text, &len)) < 0)
		return rc;
	if (gate_checkpoint_open(text, len, kr, origin, &c, &ki) < 0) {
		printf("checkpoint %s: FAILED: %s\n", path, al_err_msg());
		v->bad = 1;
		free(text);
		return 0;
	}
	free(text);
	rc = add_check(v, path, c.size, c.root);
	checkpoint_clear(&c);
	return rc;
}

static int
audit_verify(const char *dir, char **files, size_t nfiles)
{
	struct attest_keyring kr = {0};
	struct db_audit_report r;
	struct vctx v = {0};
	struct db *db = NULL;
	char *origin = NULL, root[45];
	uint64_t newest = 0;
	size_t i;
	int ret = EXIT_ERROR;

	if (open_db(dir, &db) < 0 || gate_keyring_load(dir, &kr, NULL) < 0 ||
	    gate_audit_origin(dir, &origin) < 0 ||
	    stored_checks(db, &kr, origin, &v, &newest) < 0)
		goto fail;
	for (i = 0; i < nfiles; i++)
		if (file_check(files[i], &kr, origin, &v) < 0)
			goto fail;
	if (db_audit_verify(db, v.checks, v.n, &r) < 0)
		goto fail;
	b64(r.root, root);
	printf("log %s: %llu entries, root %s\n", origin,
	    (unsigned long long)r.size, root);
	for (i = 0; i < v.n; i++)
		printf("checkpoint %s: %llu entries: %s\n", v.checks[i].name,
		    (unsigned long long)v.checks[i].size, v.checks[i].result ==
		    DB_CHECK_MATCHES ? "matches" : v.checks[i].result ==
		    DB_CHECK_DIFFERS ? "DIFFERS from the log" : "BEYOND the log");
	if (!r.ok) {
		printf("FAILED at entry %llu: %s\n",
		    (unsigned long long)r.first_bad, r.what);
		ret = EXIT_FINDINGS;
	} else if (v.bad) {
		printf("FAILED: a checkpoint does not verify (above)\n");
		ret = EXIT_FINDINGS;
	} else {
		printf("verified: every entry, node and checkpoint (%zu)%s\n", v.n,
		    newest < r.size ? "; the entries after the newest checkpoint "
		    "are covered by none yet" : "");
		ret = EXIT_OK;
	}
	goto out;
fail:
	fprintf(stderr, "airlock audit: %s\n", al_err_msg());
out:
	for (i = 0; i < v.n; i++)
		free(v.names[i]);
	free(v.names);
	free(v.checks);
	free(origin);
	attest_keyring_clear(&kr);
	db_close(db);
	return ret;
}

static int
audit_checkpoint(const char *dir, int make, const char *out)
{
	struct db_checkpoint *cp = NULL;
	struct db *db = NULL;
	size_t n = 0;
	int made = 0, ret = EXIT_ERROR;
	FILE *f = stdout;

	if (open_db(dir, &db) < 0 ||
	    (make && gate_checkpoint_make(db, dir, "asked", al_now_ms(), 0,
	    &made) < 0) || db_checkpoint_list(db, 1, &cp, &n) < 0)
		goto fail;
	if (n == 0) {
		al_err_set(AL_ENOTFOUND, "the log has no checkpoint yet (make one "
		    "with --make)");
		goto fail;
	}
	if (out != NULL && (f = fopen(out, "w")) == NULL) {
		al_err_set(AL_EIO, "%s: cannot write", out);
		goto fail;
	}
	fputs(cp[0].note, f);
	if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0)) {
		al_err_set(AL_EIO, "%s: write failed", out ? out : "stdout");
		goto fail;
	}
	fprintf(stderr, "airlock audit: checkpoint #%lld of %llu entries%s\n",
	    (long long)cp[0].id, (unsigned long long)cp[0].size, make && !made ?
	    " (the newest already covered the whole log)" : "");
	ret = EXIT_OK;
	goto done;
fail:
	fprintf(stderr, "airlock audit: %s\n", al_err_msg());
done:
	db_checkpoint_list_free(cp, n);
	db_close(db);
	return ret;
}

int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"checkpoint", required_argument, NULL, 'c'},
		{"make", no_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *files[AUDIT_MAX_CHECKPOINT_FILES];
	const char *data_opt = NULL, *verb, *out = NULL;
	size_t nfiles = 0;
	char *dir;
	int c, make = 0, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			data_opt = optarg;
			break;
		case 'c':
			if (nfiles == AUDIT_MAX_CHECKPOINT_FILES) {
				fprintf(stderr, "airlock audit: at most %d "
				    "--checkpoint files\n",
				    AUDIT_MAX_CHECKPOINT_FILES);
				return EXIT_ERROR;
			}
			files[nfiles++] = optarg;
			break;
		case 'm':
			make = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(audit_usage, stdout);
			return EXIT_OK;
		default:
			fputs(audit_usage, stderr);
			return EXIT_ERROR;
		}
	}
	verb = argc - optind == 1 ? argv[optind] : "";
	if (strcmp(verb, "verify") != 0 && strcmp(verb, "checkpoint") != 0) {
		fputs(audit_usage, stderr);
		return EXIT_ERROR;
	}
	if ((nfiles > 0 && strcmp(verb, "verify") != 0) ||
	    ((make || out) && strcmp(verb, "checkpoint") != 0)) {
		fprintf(stderr, "airlock audit: --checkpoint is for verify, --make "
		    "and -o for checkpoint\n\n%s", audit_usage);
		return EXIT_ERROR;
	}
	if ((dir = gate_data_dir(data_opt)) == NULL) {
		fprintf(stderr, "airlock audit: out of memory\n");
		return EXIT_ERROR;
	}
	ret = strcmp(verb, "verify") == 0 ? audit_verify(dir, files, nfiles) :
	    audit_checkpoint(dir, make, out);
	free(dir);
	return ret;
}
