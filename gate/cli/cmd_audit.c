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
 * verify --server URL does what can be done without the data directory,
 * over the review API (audit_remote.c reads it): every entry's form and
 * place, the tree recomputed from them, every served checkpoint's
 * signature and root, and the --checkpoint files'; with the keys of
 * --key, or else the ones the gate serves, which the output says. What it
 * cannot do is rebuild entries from the gate's tables. Both verifies
 * share the checks of checkpoints and the report.
 *
 * checkpoint prints the newest signed checkpoint (the note, as stored), to
 * keep elsewhere; --make signs a new one of the log as it is now first.
 *
 * Trust: the data directory is the gate's (whoever runs this can read
 * it), but it is the thing being checked: nothing read from it is
 * believed until verified. An exported checkpoint is hostile input: its
 * signature is checked before its body is read. So is everything a
 * gate's API answers, which is printed escaped.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "audit.h"
#include "audit_remote.h"
#include "b64.h"
#include "client.h"
#include "merkle.h"
#include "dirs.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "os.h"
#include "term.h"
#include "util.h"

#define AUDIT_MAX_CHECKPOINT_FILES 64

static const char audit_usage[] =
    "usage: airlock audit verify [--data DIR] [--checkpoint FILE]...\n"
    "       airlock audit verify --server URL [--token-file FILE]\n"
    "           [--key FILE]... [--checkpoint FILE]... [--page-size N]\n"
    "       airlock audit checkpoint [--data DIR] [--make] [-o FILE |\n"
    "           --git REPO [--ref REF]]\n"
    "       airlock audit proof ID|SHA256 [--data DIR] [-o FILE]\n"
    "       airlock audit check-proof FILE --key PUB\n"
    "       airlock audit consistency OLD NEW [--data DIR]\n"
    "       airlock audit log|query ... (airlock audit log --help)\n"
    "\n"
    "verify      recomputes the audit log's Merkle tree from its entries,\n"
    "            checks each entry against the event it records and every\n"
    "            checkpoint's signature and root; each --checkpoint FILE (one\n"
    "            exported earlier) must be a signed checkpoint of a prefix of\n"
    "            the log as it is now. Prints the first divergent entry.\n"
    "            Exit 0 verified, 1 a divergence, 2 could not read the log.\n"
    "verify --server URL\n"
    "            the same over the gate's review API, without its\n"
    "            data directory (a token of an auditor or an admin, from\n"
    "            $AIRLOCK_TOKEN or --token-file): each entry's form and index,\n"
    "            the tree, every served and --checkpoint FILE checkpoint's\n"
    "            signature and root. Signatures are checked with the keys of\n"
    "            each --key FILE (PEM, or the verifier key lines the gate\n"
    "            serves), else with the gate's own, as it serves them (said).\n"
    "            The entries are not checked against the gate's tables.\n"
    "            Exit 0 verified, 1 a divergence, 2 could not read the log.\n"
    "checkpoint  prints the newest signed checkpoint (C2SP signed note), to\n"
    "            keep outside the gate; --make signs one of the log as it is\n"
    "            now first; -o writes it to FILE instead of stdout; --git\n"
    "            appends it to REF (refs/airlock/checkpoints) in the git\n"
    "            repository REPO, as a witness: only if it extends the last\n"
    "            one there (a consistency proof), else it is refused.\n"
    "            (export-checkpoint is another name for it.)\n"
    "proof       writes the inclusion proofs of every event about submission\n"
    "            ID (or about every submission of the artifact SHA256) against\n"
    "            a signed checkpoint that covers them (made if need be), with\n"
    "            the entries and the checkpoint: one JSON file (docs/audit.md)\n"
    "check-proof verifies such a file with no gate and no database: the\n"
    "            checkpoint's signature with the keys of PUB (PEM, e.g. from\n"
    "            `airlock key show --all`, or the verifier key lines of GET\n"
    "            /v1/audit/keys) and each entry's form and inclusion; prints\n"
    "            the entries. Exit 0 verified, 1 not, 2 unreadable.\n"
    "consistency checks that checkpoint NEW extends checkpoint OLD (files):\n"
    "            both signatures, and an RFC 9162 consistency proof from the\n"
    "            gate's tree, printed; exit 1 if NEW rewrote what OLD signed.\n"
    "\n"
    "  --data DIR         the gate's data directory (default $AIRLOCK_DATA,\n"
    "                     else ./airlock-data)\n"
    "  --server URL       the gate's review API (verify, not with --data)\n"
    "  --token-file FILE  read the token from FILE (default: the\n"
    "                     AIRLOCK_TOKEN environment variable)\n"
    "  --page-size N      entries asked for per request (1 to 10000, the\n"
    "                     default)\n";

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

/* The base64 of a hash, for a report. */
static void
b64(const uint8_t h[32], char out[45])
{
	struct dynbuf b;

	dynbuf_init(&b, 45);
	if (al_b64_add(&b, h, 32) == 0)
		snprintf(out, 45, "%s", dynbuf_str(&b));
	else
		snprintf(out, 45, "?");
	dynbuf_free(&b);
}

struct vctx {
	struct db_audit_check *checks;
	size_t n;
	char **names;             /* owned */
	int bad;                  /* a checkpoint failed before the walk */
	uint64_t newest;          /* the largest size a log's own signs */
};

static void
vctx_clear(struct vctx *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->names[i]);
	free(v->names);
	free(v->checks);
	memset(v, 0, sizeof(*v));
}

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

/* A checkpoint's note (hostile), its signature verified with kr under
 * origin: 0 with c filled (checkpoint_clear it), 1 when it fails (said,
 * v->bad set). */
static int
note_open(struct vctx *v, const char *name, const char *note, size_t len,
    const struct attest_keyring *kr, const char *origin, struct checkpoint *c)
{
	size_t ki = 0;

	if (gate_checkpoint_open(note, len, kr, origin, c, &ki) == 0)
		return 0;
	printf("checkpoint ");
	al_term_put(stdout, name);
	printf(": FAILED: ");
	al_term_put(stdout, al_err_msg());
	putchar('\n');
	v->bad = 1;
	return 1;
}

/* One of the log's own checkpoints (a stored row, or one a gate served):
 * its note verified, the size (and root, if given) of its row the ones
 * it signs, its root checked against the log's at its size. */
static int
row_check(struct vctx *v, const char *name, const char *note, size_t len,
    uint64_t size, const uint8_t *root, const struct attest_keyring *kr,
    const char *origin)
{
	struct checkpoint c;
	int rc;

	if (note_open(v, name, note, len, kr, origin, &c) != 0)
		return 0;
	if (c.size != size || (root != NULL && memcmp(c.root, root, 32) != 0)) {
		printf("checkpoint %s: FAILED: its row's size or root is not what "
		    "its note signs\n", name);
		v->bad = 1;
	}
	rc = add_check(v, name, c.size, c.root);
	if (c.size > v->newest)
		v->newest = c.size;
	checkpoint_clear(&c);
	return rc;
}

/* The stored checkpoints. */
static int
stored_checks(struct db *db, const struct attest_keyring *kr,
    const char *origin, struct vctx *v)
{
	struct db_checkpoint *cp = NULL;
	size_t n = 0, i;
	int rc;

	if ((rc = db_checkpoint_list(db, 0, &cp, &n)) < 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++) {
		char name[64];

		snprintf(name, sizeof(name), "#%lld (stored)",
		    (long long)cp[i].id);
		if (!cp[i].root_ok) {
			printf("checkpoint %s: FAILED: its row's root is not 32 "
			    "bytes\n", name);
			v->bad = 1;
		}
		rc = row_check(v, name, cp[i].note, strlen(cp[i].note),
		    cp[i].size, cp[i].root_ok ? cp[i].root : NULL, kr, origin);
	}
	db_checkpoint_list_free(cp, n);
	return rc;
}

/* A checkpoint exported earlier (hostile): signed, then a prefix's root. */
static int
file_check(const char *path, const struct attest_keyring *kr,
    const char *origin, struct vctx *v)
{
	struct checkpoint c;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = al_read_file(path, NOTE_MAX_BYTES, &text, &len)) < 0)
		return rc;
	rc = note_open(v, path, text, len, kr, origin, &c);
	free(text);
	if (rc != 0)
		return 0;
	rc = add_check(v, path, c.size, c.root);
	checkpoint_clear(&c);
	return rc;
}

static int
file_checks(char **files, size_t nfiles, const struct attest_keyring *kr,
    const char *origin, struct vctx *v)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < nfiles; i++)
		rc = file_check(files[i], kr, origin, v);
	return rc;
}

/* What a verify found (local or remote; what: what it checked), and its
 * exit status. */
static int
verify_report(const char *origin, const struct db_audit_report *r,
    const struct vctx *v, const char *what)
{
	char root[45];
	size_t i;

	b64(r->root, root);
	printf("log %s: %llu entries, root %s\n", origin,
	    (unsigned long long)r->size, root);
	for (i = 0; i < v->n; i++)
		printf("checkpoint %s: %llu entries: %s\n", v->checks[i].name,
		    (unsigned long long)v->checks[i].size, v->checks[i].result ==
		    DB_CHECK_MATCHES ? "matches" : v->checks[i].result ==
		    DB_CHECK_DIFFERS ? "DIFFERS from the log" : "BEYOND the log");
	if (!r->ok) {
		if (r->first_bad == DB_AUDIT_NO_ENTRY)
			printf("FAILED: ");
		else
			printf("FAILED at entry %llu: ",
			    (unsigned long long)r->first_bad);
		al_term_put(stdout, r->what);
		putchar('\n');
		return EXIT_FINDINGS;
	}
	if (v->bad) {
		printf("FAILED: a checkpoint does not verify (above)\n");
		return EXIT_FINDINGS;
	}
	printf("verified: %s (%zu)%s\n", what, v->n, v->newest < r->size ?
	    "; the entries after the newest checkpoint are covered by none "
	    "yet" : "");
	return EXIT_OK;
}

static int
audit_verify(const char *dir, char **files, size_t nfiles)
{
	struct attest_keyring kr = {0};
	struct db_audit_report r;
	struct vctx v = {0};
	struct db *db = NULL;
	char *origin = NULL;
	int ret = EXIT_ERROR;

	if (open_db(dir, &db) < 0 || gate_keyring_load(dir, &kr, NULL) < 0 ||
	    gate_audit_origin(dir, &origin) < 0 ||
	    stored_checks(db, &kr, origin, &v) < 0 ||
	    file_checks(files, nfiles, &kr, origin, &v) < 0 ||
	    db_audit_verify(db, v.checks, v.n, &r) < 0)
		fprintf(stderr, "airlock audit: %s\n", al_err_msg());
	else
		ret = verify_report(origin, &r, &v, "every entry, node and "
		    "checkpoint");
	vctx_clear(&v);
	free(origin);
	attest_keyring_clear(&kr);
	db_close(db);
	return ret;
}

/* ---- verify over the review API ------------------------------------------ */

/* The checkpoints the gate served. */
static int
served_checks(const struct audit_served *s, const struct attest_keyring *kr,
    struct vctx *v)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < s->nckpts; i++) {
		char name[64];

		snprintf(name, sizeof(name), "#%lld (served)",
		    (long long)s->ckpts[i].id);
		rc = row_check(v, name, s->ckpts[i].note, s->ckpts[i].len,
		    s->ckpts[i].size, NULL, kr, s->origin);
	}
	return rc;
}

/* Which keys are trusted: the --key files' (each key named for the log,
 * if a verifier key), or else the gate's own, said plainly. */
static int
remote_keys(const struct audit_served *s, char **keys, size_t nkeys,
    struct attest_keyring *pinned)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < nkeys; i++)
		rc = gate_keyring_load_file(pinned, keys[i], s->origin);
	if (rc < 0)
		return rc;
	if (nkeys > 0) {
		printf("keys: %zu pinned with --key\n", pinned->n);
		return 0;
	}
	printf("keys as served by the gate: pin them with --key (a file of "
	    "these lines):\n");
	for (i = 0; i < s->nvkeys; i++) {
		fputs("  ", stdout);
		al_term_put(stdout, s->vkeys[i]);
		putchar('\n');
	}
	return 0;
}

static int
audit_verify_remote(const struct client_conf *conf, unsigned page,
    char **files, size_t nfiles, char **keys, size_t nkeys)
{
	struct attest_keyring pinned = {0};
	const struct attest_keyring *kr;
	struct audit_served s = {0};
	struct db_audit_report r;
	struct vctx v = {0};
	struct client *c = NULL;
	int ret = EXIT_ERROR;

	kr = nkeys > 0 ? &pinned : &s.keys;
	if (client_new(&c, conf) < 0 || audit_remote_keys(c, &s) < 0 ||
	    remote_keys(&s, keys, nkeys, &pinned) < 0 ||
	    audit_remote_checkpoints(c, &s) < 0 ||
	    served_checks(&s, kr, &v) < 0 ||
	    file_checks(files, nfiles, kr, s.origin, &v) < 0 ||
	    audit_remote_walk(c, page, v.checks, v.n, &r) < 0) {
		fputs("airlock audit: ", stderr);
		al_term_put(stderr, al_err_msg());
		fputc('\n', stderr);
	} else {
		/* Nothing signed, nothing verified: the entries alone are the
		 * gate's word. */
		if (v.n == 0 && !v.bad)
			db_audit_fail(&r, DB_AUDIT_NO_ENTRY, "no checkpoint "
			    "verifies: nothing the gate served is signed");
		ret = verify_report(s.origin, &r, &v, "every entry and "
		    "checkpoint");
		if (nkeys == 0)
			printf("note: keys as served by the gate: pin them with "
			    "--key\n");
		printf("note: the entries were not checked against the gate's "
		    "tables (only `airlock audit verify --data` on the gate's "
		    "host does that)\n");
	}
	vctx_clear(&v);
	audit_served_clear(&s);
	attest_keyring_clear(&pinned);
	client_free(c);
	return ret;
}

static int
audit_checkpoint(const char *dir, int make, const char *out, const char *git,
    const char *ref)
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
	if (git != NULL) {
		/* A log the witness's checkpoint proves cut short or rewritten
		 * is a finding (1); anything else that fails, an error (2). */
		int rc = audit_export_git(db, dir, git, ref, &cp[0]);

		if (rc < 0)
			fprintf(stderr, "airlock audit: %s\n", al_err_msg());
		ret = rc == 0 ? EXIT_OK : rc == AL_EINVAL ? EXIT_FINDINGS :
		    EXIT_ERROR;
		goto done;
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

/* ---- proofs ------------------------------------------------------------- */

/* The proof file's JSON for the leaves idx against the checkpoint cp. */
static int
proof_json(struct db *db, const struct db_checkpoint *cp, const uint64_t *idx,
    size_t n, json_t **out)
{
	json_t *root, *arr = json_array();
	uint8_t path[MERKLE_MAX_PROOF][32];
	size_t i, k, np;
	int rc = 0;

	root = json_pack("{s:i, s:s, s:o}", "airlock_audit_proof", PROOF_FORMAT,
	    "checkpoint", cp->note, "entries", arr);
	if (root == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < n && rc == 0; i++) {
		struct db_audit_leaf l;
		json_t *e, *pj = json_array();

		if ((rc = db_audit_leaf(db, idx[i], &l)) < 0)
			break;
		rc = db_audit_inclusion(db, idx[i], cp->size, path, &np);
		for (k = 0; rc == 0 && k < np; k++)
			if (json_array_append_new(pj, gate_b64_json(path[k],
			    32)) < 0)
				rc = al_err_set(AL_ENOMEM, "out of memory");
		e = json_pack("{s:I, s:o, s:o}", "index", (json_int_t)idx[i],
		    "entry", gate_b64_json(l.entry, l.entry_len), "path", pj);
		if (rc == 0 && (e == NULL || json_array_append_new(arr, e) < 0))
			rc = al_err_set(AL_ENOMEM, "out of memory");
		free(l.entry);
	}
	if (rc < 0) {
		json_decref(root);
		return rc;
	}
	*out = root;
	return 0;
}

static int
audit_proof(const char *dir, const char *what, const char *out)
{
	struct db_checkpoint *cp = NULL;
	struct db *db = NULL;
	uint64_t *idx = NULL;
	size_t n = 0, ncp = 0;
	int64_t id = 0;
	json_t *j = NULL;
	int made = 0, ret = EXIT_ERROR;

	if (al_is_hex(what, 64))
		id = 0;
	else if ((id = (int64_t)strtoll(what, NULL, 10)) <= 0 ||
	    strspn(what, "0123456789") != strlen(what)) {
		fprintf(stderr, "airlock audit: proof of '%s': give a submission "
		    "id or an artifact's sha256 (64 hex digits)\n", what);
		return EXIT_ERROR;
	}
	if (open_db(dir, &db) < 0 ||
	    db_audit_leaves_about(db, id, id ? NULL : what, &idx, &n) < 0)
		goto fail;
	if (n == 0) {
		al_err_set(AL_ENOTFOUND, "no event is about %s %s", id ?
		    "submission" : "the artifact", what);
		goto fail;
	}
	/* A checkpoint that covers the newest of them, made if need be. */
	if (db_checkpoint_list(db, 1, &cp, &ncp) < 0)
		goto fail;
	if (ncp == 0 || cp[0].size <= idx[n - 1]) {
		db_checkpoint_list_free(cp, ncp);
		cp = NULL;
		ncp = 0;
		if (gate_checkpoint_make(db, dir, "asked", al_now_ms(), 0,
		    &made) < 0 || db_checkpoint_list(db, 1, &cp, &ncp) < 0)
			goto fail;
	}
	if (proof_json(db, &cp[0], idx, n, &j) < 0)
		goto fail;
	if ((out == NULL ? json_dumpf(j, stdout, JSON_INDENT(1)) :
	    json_dump_file(j, out, JSON_INDENT(1))) < 0) {
		al_err_set(AL_EIO, "%s: write failed", out ? out : "stdout");
		goto fail;
	}
	if (out == NULL)
		putchar('\n');
	fprintf(stderr, "airlock audit: %zu entr%s against checkpoint #%lld "
	    "(%llu entries)\n", n, n == 1 ? "y" : "ies", (long long)cp[0].id,
	    (unsigned long long)cp[0].size);
	ret = EXIT_OK;
	goto done;
fail:
	fprintf(stderr, "airlock audit: %s\n", al_err_msg());
done:
	json_decref(j);
	db_checkpoint_list_free(cp, ncp);
	free(idx);
	db_close(db);
	return ret;
}

/* An entry's line KEY, for the report ("" if none). */
static void
entry_line(const char *entry, const char *key, char *out, size_t cap)
{
	const char *p = entry;
	size_t kl = strlen(key);

	*out = '\0';
	while (p != NULL && *p != '\0') {
		const char *nl = strchr(p, '\n');

		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			snprintf(out, cap, "%.*s", (int)((nl ? nl : p + strlen(p)) -
			    p - kl - 1), p + kl + 1);
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
}

static int
audit_check_proof(const char *file, char **keys, size_t nkeys)
{
	struct attest_keyring kr = {0};
	struct proof_check pc = {0};
	char *text = NULL;
	size_t len = 0, i, bad = 0;
	int ret = EXIT_ERROR;

	if (nkeys == 0) {
		fprintf(stderr, "airlock audit: check-proof needs --key PUB (the "
		    "gate's public keys: airlock key show --all)\n");
		return EXIT_ERROR;
	}
	for (i = 0; i < nkeys; i++)
		if (gate_keyring_load_file(&kr, keys[i], NULL) < 0)
			goto fail;
	if (al_read_file(file, PROOF_MAX_BYTES, &text, &len) < 0)
		goto fail;
	if (gate_proof_check(text, len, &kr, &pc) < 0) {
		printf("%s: FAILED: %s\n", file, al_err_msg());
		ret = EXIT_FINDINGS;
		goto out;
	}
	printf("checkpoint %s: %" PRIu64 " entries, signed by key %s\n",
	    pc.c.origin, pc.c.size, kr.id[pc.key_index]);
	for (i = 0; i < pc.n; i++) {
		const struct proof_entry *e = &pc.v[i];
		char at[32], action[64], actor[128], detail[200];

		if (!e->ok) {
			printf("entry %" PRIu64 ": FAILED: %s\n", e->index, e->why);
			bad++;
			continue;
		}
		entry_line(e->entry, "at", at, sizeof(at));
		entry_line(e->entry, "action", action, sizeof(action));
		entry_line(e->entry, "actor-name", actor, sizeof(actor));
		entry_line(e->entry, "detail", detail, sizeof(detail));
		printf("entry %" PRIu64 ": included: at %s %s by %s: %s\n",
		    e->index, at, action, *actor ? actor : "the gate", detail);
	}
	if (bad > 0 || pc.n == 0) {
		printf("FAILED: %zu of %zu entries do not verify\n", bad, pc.n);
		ret = EXIT_FINDINGS;
	} else {
		printf("verified: %zu entries in the signed log\n", pc.n);
		ret = EXIT_OK;
	}
	goto out;
fail:
	fprintf(stderr, "airlock audit: %s\n", al_err_msg());
out:
	gate_proof_check_clear(&pc);
	free(text);
	attest_keyring_clear(&kr);
	return ret;
}

/* A checkpoint file, its signature verified with the gate's keyring. */
static int
open_file(const char *path, const struct attest_keyring *kr,
    const char *origin, struct checkpoint *c)
{
	char *text = NULL;
	size_t len = 0, ki = 0;
	int rc;

	if ((rc = al_read_file(path, NOTE_MAX_BYTES, &text, &len)) == 0 &&
	    (rc = gate_checkpoint_open(text, len, kr, origin, c, &ki)) < 0)
		rc = al_err_set(rc, "%s: %s", path, al_err_msg());
	free(text);
	return rc;
}

static int
audit_consistency(const char *dir, const char *old_path, const char *new_path)
{
	struct attest_keyring kr = {0};
	struct checkpoint a = {0}, b = {0};
	uint8_t path[MERKLE_MAX_PROOF][32];
	struct db *db = NULL;
	char *origin = NULL, h[45];
	size_t n = 0, i;
	int rc, ret = EXIT_ERROR;

	if (open_db(dir, &db) < 0 || gate_keyring_load(dir, &kr, NULL) < 0 ||
	    gate_audit_origin(dir, &origin) < 0)
		goto fail;
	if (open_file(old_path, &kr, origin, &a) < 0 ||
	    open_file(new_path, &kr, origin, &b) < 0) {
		printf("FAILED: %s\n", al_err_msg());
		ret = EXIT_FINDINGS;
		goto out;
	}
	if (a.size > b.size) {
		printf("FAILED: %s (%" PRIu64 " entries) is larger than %s (%"
		    PRIu64 ")\n", old_path, a.size, new_path, b.size);
		ret = EXIT_FINDINGS;
		goto out;
	}
	if (a.size == b.size || a.size == 0) {
		/* RFC 9162: no proof; equal trees have equal roots. */
		rc = a.size == 0 || memcmp(a.root, b.root, 32) == 0 ? 0 :
		    al_err_set(AL_EINVAL, "the same size, different roots");
	} else if (db_audit_consistency(db, a.size, b.size, path, &n) < 0) {
		goto fail;
	} else {
		rc = merkle_verify_consistency(a.size, b.size, a.root, b.root,
		    (const uint8_t (*)[32])path, n);
	}
	for (i = 0; i < n; i++) {
		b64(path[i], h);
		printf("proof %zu: %s\n", i, h);
	}
	if (rc < 0) {
		printf("FAILED: %s does not extend %s: %s\n", new_path, old_path,
		    al_err_msg());
		ret = EXIT_FINDINGS;
	} else {
		printf("consistent: %s (%" PRIu64 " entries) extends %s (%" PRIu64
		    ")\n", new_path, b.size, old_path, a.size);
		ret = EXIT_OK;
	}
	goto out;
fail:
	fprintf(stderr, "airlock audit: %s\n", al_err_msg());
out:
	checkpoint_clear(&a);
	checkpoint_clear(&b);
	free(origin);
	attest_keyring_clear(&kr);
	db_close(db);
	return ret;
}

/* What is wrong with the connection options, or NULL: they are for
 * verify over the API, which reads no data directory. */
static const char *
remote_misuse(const char *verb, const struct client_conf *conf,
    const char *data, size_t page)
{
	int remote = conf->server != NULL;

	if (!remote && conf->token_file == NULL && page == 0)
		return NULL;
	if (strcmp(verb, "verify") != 0)
		return "--server, --token-file and --page-size are for verify";
	if (!remote)
		return "--token-file and --page-size are for verify --server URL";
	if (data != NULL)
		return "--server and --data are exclusive: verify reads the log "
		    "from a gate's API or from its data directory, not both";
	return NULL;
}

int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"checkpoint", required_argument, NULL, 'c'},
		{"make", no_argument, NULL, 'm'},
		{"key", required_argument, NULL, 'k'},
		{"git", required_argument, NULL, 'g'},
		{"ref", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{"server", required_argument, NULL, CLIENT_OPT_SERVER},
		{"token-file", required_argument, NULL, CLIENT_OPT_TOKEN_FILE},
		{"page-size", required_argument, NULL, 'p'},
		{NULL, 0, NULL, 0},
	};
	char *files[AUDIT_MAX_CHECKPOINT_FILES], *keys[AUDIT_MAX_CHECKPOINT_FILES];
	const char *data_opt = NULL, *verb, *out = NULL, *git = NULL, *why;
	const char *ref = "refs/airlock/checkpoints";
	struct client_conf conf = {0};
	size_t nfiles = 0, nkeys = 0, page = 0;
	char *dir;
	int c, make = 0, remote, ret;

	/* log and query have options of their own (cmd_audit_log.c). */
	if (argc >= 2 && (strcmp(argv[1], "log") == 0 ||
	    strcmp(argv[1], "query") == 0))
		return cmd_audit_log(argc - 1, argv + 1);
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
		case 'k':
			if (nkeys == AUDIT_MAX_CHECKPOINT_FILES) {
				fprintf(stderr, "airlock audit: at most %d --key "
				    "files\n", AUDIT_MAX_CHECKPOINT_FILES);
				return EXIT_ERROR;
			}
			keys[nkeys++] = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'g':
			git = optarg;
			break;
		case 'r':
			ref = optarg;
			break;
		case 'p':
			if (al_parse_size(optarg, &page) < 0 || page == 0 ||
			    page > AUDIT_REMOTE_PAGE) {
				fprintf(stderr, "airlock audit: --page-size is 1 to "
				    "%u\n", AUDIT_REMOTE_PAGE);
				return EXIT_ERROR;
			}
			break;
		case 'h':
			fputs(audit_usage, stdout);
			return EXIT_OK;
		case CLIENT_OPT_SERVER:
		case CLIENT_OPT_TOKEN_FILE:
			(void)client_conf_option(&conf, c, optarg);
			break;
		default:
			fputs(audit_usage, stderr);
			return EXIT_ERROR;
		}
	}
	verb = argc - optind >= 1 ? argv[optind] : "";
	/* The name issue 14 gives it: the same command. */
	if (strcmp(verb, "export-checkpoint") == 0)
		verb = "checkpoint";
	/* The review listener only: the intake socket serves no audit. */
	remote = conf.server != NULL;
	if ((why = remote_misuse(verb, &conf, data_opt, page)) != NULL) {
		fprintf(stderr, "airlock audit: %s\n\n%s", why, audit_usage);
		return EXIT_ERROR;
	}
	if (strcmp(verb, "check-proof") == 0 || strcmp(verb, "proof") == 0) {
		if (argc - optind != 2 || nfiles > 0 || make ||
		    (nkeys > 0) != (strcmp(verb, "check-proof") == 0) ||
		    (out != NULL && strcmp(verb, "proof") != 0)) {
			fputs(audit_usage, stderr);
			return EXIT_ERROR;
		}
		if (strcmp(verb, "check-proof") == 0)
			return audit_check_proof(argv[optind + 1], keys, nkeys);
	} else if (strcmp(verb, "consistency") == 0) {
		if (argc - optind != 3 || nfiles > 0 || make || nkeys > 0 ||
		    out != NULL) {
			fputs(audit_usage, stderr);
			return EXIT_ERROR;
		}
	} else if (argc - optind != 1 || (strcmp(verb, "verify") != 0 &&
	    strcmp(verb, "checkpoint") != 0) || (nkeys > 0 && !remote)) {
		fputs(audit_usage, stderr);
		return EXIT_ERROR;
	} else if ((nfiles > 0 && strcmp(verb, "verify") != 0) ||
	    ((make || out || git) && strcmp(verb, "checkpoint") != 0) ||
	    (git && out)) {
		fprintf(stderr, "airlock audit: --checkpoint is for verify; --make, "
		    "-o and --git for checkpoint (-o or --git)\n\n%s", audit_usage);
		return EXIT_ERROR;
	}
	if (remote)
		return audit_verify_remote(&conf, page ? (unsigned)page :
		    AUDIT_REMOTE_PAGE, files, nfiles, keys, nkeys);
	if ((dir = gate_data_dir(data_opt)) == NULL) {
		fprintf(stderr, "airlock audit: out of memory\n");
		return EXIT_ERROR;
	}
	if (strcmp(verb, "proof") == 0)
		ret = audit_proof(dir, argv[optind + 1], out);
	else if (strcmp(verb, "consistency") == 0)
		ret = audit_consistency(dir, argv[optind + 1], argv[optind + 2]);
	else if (strcmp(verb, "verify") == 0)
		ret = audit_verify(dir, files, nfiles);
	else
		ret = audit_checkpoint(dir, make, out, git, ref);
	free(dir);
	return ret;
}
