/*
 * cmd_verify.c - `airlock verify`: offline checks of release attestations,
 * for CI (the keys to check them with: gate/serve/keys.c).
 *
 * Trust: the attestation and the artifact are read from wherever CI got
 * them: hostile. Only a statement signed by a pinned key (the keyring:
 * the key id selects it), whose subject digest is the artifact's own
 * sha256, and which meets every policy check asked for, passes. Fail
 * closed: no artifact argument is a usage error, not a pass; a check not
 * run is a check not passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirs.h"
#include "attest.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "util.h"
#include "vocab.h"

static const char verify_usage[] =
    "usage: airlock verify [options] ATTESTATION ARTIFACT\n"
    "       airlock verify [options] --no-artifact ATTESTATION\n"
    "\n"
    "Checks a release attestation offline, for CI: a DSSE envelope whose\n"
    "payload is an in-toto statement of an airlock release, signed (Ed25519)\n"
    "by a key of the keyring that its key id names; that ARTIFACT's sha256\n"
    "is the statement's one subject; and the policy checks asked for. Prints\n"
    "every check and its result.\n"
    "\n"
    "ARTIFACT is required: a pipeline whose artifact variable is empty must\n"
    "not pass. --no-artifact checks the statement alone, on purpose; it warns\n"
    "that nothing ties the statement to any bytes (the artifact check is\n"
    "reported as skipped), and is for reading a statement, not for gating a\n"
    "merge.\n"
    "\n"
    "Exit status: 0 every check holds, 1 one fails, 2 a file cannot be read\n"
    "or a usage error.\n"
    "\n"
    "options:\n"
    "  --key FILE             a trusted public key (PEM; a file may hold\n"
    "                         several, as `airlock key show --all` prints);\n"
    "                         repeat for a keyring (default: $AIRLOCK_PUBKEY,\n"
    "                         else DATA/keys/signing.pub with DATA from\n"
    "                         $AIRLOCK_DATA or ./var)\n"
    "  --min-approvals N      at least N approvals by distinct persons, of\n"
    "                         exactly the released bytes\n"
    "  --max-severity SEV     no finding above SEV (info, low, medium, high,\n"
    "                         critical)\n"
    "  --require-verdict V    the scan's verdict was V (clean, flagged)\n"
    "  --no-artifact          check the statement alone (see above)\n"
    "  --json                 the checks as JSON, on stdout\n"
    "  -h, --help             this help\n";

/* SHA-256 of a file, streamed. */
static int
file_sha256(const char *path, char out[AL_SHA256_HEX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	rc = al_sha256_fd(fd, out);
	close(fd);
	return rc;
}

static char *
default_pubkey(void)
{
	const char *env = getenv("AIRLOCK_PUBKEY");
	char *dir, *p = NULL;
	struct dynbuf b;

	if (env != NULL && env[0] != '\0')
		return strdup(env);
	if ((dir = gate_data_dir(NULL)) == NULL)
		return NULL;
	dynbuf_init(&b, 8192);
	if (dynbuf_addf(&b, "%s/keys/signing.pub", dir) == 0)
		p = dynbuf_take(&b, NULL);
	dynbuf_free(&b);
	free(dir);
	return p;
}

/* The checks, in the order they run and are reported. */
enum vcheck {
	VC_SIGNATURE,
	VC_SUBJECT,
	VC_ARTIFACT,
	VC_APPROVALS,
	VC_SEVERITY,
	VC_VERDICT,
	VC_MAX,
};

static const char *const vcheck_name[VC_MAX] = {
	"signature", "subject", "artifact", "min-approvals", "max-severity",
	"require-verdict",
};

enum vresult { VR_UNASKED, VR_PASS, VR_FAIL, VR_SKIPPED };

static const char *const vresult_name[] = {
	"unasked", "pass", "fail", "skipped",
};

struct vstate {
	enum vresult result[VC_MAX];
	struct dynbuf detail[VC_MAX];
};

static void
vset(struct vstate *v, enum vcheck c, enum vresult r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
vset(struct vstate *v, enum vcheck c, enum vresult r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v->result[c] = r;
	v->detail[c].len = 0;
	if (v->detail[c].data != NULL)
		v->detail[c].data[0] = '\0';
	/* Details quote the statement: hostile text, escaped. */
	(void)al_term_escape(&v->detail[c], buf, strlen(buf));
}

/* Distinct persons among the approvals of exactly sha256. */
static size_t
approvals_count(json_t *appr, const char *sha256)
{
	json_t *seen = json_object(), *a;
	size_t i, n;

	json_array_foreach(appr, i, a) {
		const char *who = json_string_value(json_object_get(a, "person"));
		const char *sha = json_string_value(json_object_get(a, "sha256"));

		if (who == NULL)
			who = json_string_value(json_object_get(a, "reviewer"));
		if (who != NULL && sha != NULL && strcmp(sha, sha256) == 0)
			json_object_set_new(seen, who, json_true());
	}
	n = json_object_size(seen);
	json_decref(seen);
	return n;
}

/* The worst severity with a finding; AL_SEV_NONE for none, AL_SEV_MAX
 * when the counts are not there to say. */
static int
worst_severity(json_t *counts)
{
	int k, worst = AL_SEV_NONE;

	if (!json_is_object(counts))
		return AL_SEV_MAX;
	for (k = 0; k < AL_SEV_MAX; k++) {
		json_t *n = json_object_get(counts, al_severity_name(k));

		if (!json_is_integer(n))
			return AL_SEV_MAX;
		if (json_integer_value(n) > 0)
			worst = k;
	}
	return worst;
}

struct vopts {
	const char *att, *artifact;
	long min_approvals;       /* -1: not asked */
	int max_severity;         /* AL_SEV_NONE: not asked */
	int verdict;              /* AL_VERDICT_NONE: not asked */
};

/* Runs the checks on a statement verified by keyid. */
static void
statement_checks(struct vstate *v, const struct vopts *o, json_t *st)
{
	json_t *pred = json_object_get(st, "predicate");
	json_t *subj = json_array_get(json_object_get(st, "subject"), 0);
	const char *want = json_string_value(json_object_get(json_object_get(
	    subj, "digest"), "sha256"));
	char sha[AL_SHA256_HEX];
	enum vcheck c;

	if (want == NULL || strlen(want) != 64 ||
	    json_array_size(json_object_get(st, "subject")) != 1) {
		vset(v, VC_SUBJECT, VR_FAIL, "the statement names no single "
		    "sha256 subject");
		for (c = VC_ARTIFACT; c < VC_MAX; c++)
			if (v->result[c] != VR_UNASKED)
				vset(v, c, VR_SKIPPED, "no subject");
		return;
	}
	vset(v, VC_SUBJECT, VR_PASS, "%s sha256:%s",
	    json_string_value(json_object_get(subj, "name")) ?
	    json_string_value(json_object_get(subj, "name")) : "?", want);
	if (o->artifact == NULL)
		vset(v, VC_ARTIFACT, VR_SKIPPED, "--no-artifact: no bytes were "
		    "checked against the statement");
	else if (file_sha256(o->artifact, sha) < 0)
		vset(v, VC_ARTIFACT, VR_FAIL, "%s", al_err_msg());
	else if (strcmp(sha, want) != 0)
		vset(v, VC_ARTIFACT, VR_FAIL, "%s has sha256 %s, the attestation "
		    "is for %s", o->artifact, sha, want);
	else
		vset(v, VC_ARTIFACT, VR_PASS, "%s matches", o->artifact);
	if (o->min_approvals >= 0) {
		size_t n = approvals_count(json_object_get(pred, "approvals"), want);

		vset(v, VC_APPROVALS, n >= (size_t)o->min_approvals ? VR_PASS :
		    VR_FAIL, "%zu approval%s by distinct persons, %ld required", n,
		    n == 1 ? "" : "s", o->min_approvals);
	}
	if (o->max_severity != AL_SEV_NONE) {
		int w = worst_severity(json_object_get(json_object_get(pred,
		    "scan"), "findings"));

		if (w == AL_SEV_MAX)
			vset(v, VC_SEVERITY, VR_FAIL, "the statement has no finding "
			    "counts");
		else
			vset(v, VC_SEVERITY, w <= o->max_severity ? VR_PASS : VR_FAIL,
			    "worst finding: %s, at most %s allowed", w == AL_SEV_NONE ?
			    "none" : al_severity_name(w),
			    al_severity_name(o->max_severity));
	}
	if (o->verdict != AL_VERDICT_NONE) {
		const char *got = json_string_value(json_object_get(
		    json_object_get(pred, "scan"), "verdict"));

		vset(v, VC_VERDICT, got != NULL && strcmp(got,
		    al_verdict_name(o->verdict)) == 0 ? VR_PASS : VR_FAIL,
		    "verdict %s, %s required", got && got[0] ? got : "none",
		    al_verdict_name(o->verdict));
	}
}

static void
report_text(const struct vstate *v, const struct vopts *o, int ok,
    const char *keyid)
{
	enum vcheck c;

	for (c = 0; c < VC_MAX; c++) {
		if (v->result[c] == VR_UNASKED)
			continue;
		fprintf(v->result[c] == VR_FAIL ? stderr : stdout, "%s %s: %s\n",
		    v->result[c] == VR_PASS ? "ok     " : v->result[c] == VR_FAIL ?
		    "FAILED " : "skipped", vcheck_name[c],
		    dynbuf_str((struct dynbuf *)&v->detail[c]));
	}
	if (o->artifact == NULL)
		fprintf(stderr, "airlock verify: WARNING: --no-artifact: the "
		    "statement was checked, no artifact was\n");
	if (ok)
		printf("verified: signed by key %.16s…; %s\n", keyid,
		    o->artifact ? "the artifact matches" : "no artifact given");
	else
		fprintf(stderr, "airlock verify: FAILED\n");
}

/* The checks as JSON: the paths given by the text scheme (the details
 * are escaped already, vset); every check or no document. */
static int
report_json(const struct vstate *v, const struct vopts *o, int ok,
    const char *keyid)
{
	json_t *j = json_pack("{s:b}", "verified", ok), *checks = json_array();
	json_t *one;
	enum vcheck c;
	int rc = j != NULL && checks != NULL ? 0 : -1;

	if (rc == 0 && (al_json_set_textz(j, "attestation", o->att) < 0 ||
	    al_json_set_textz(j, "artifact", o->artifact) < 0 ||
	    json_object_set_new(j, "key_id", keyid[0] ? json_string(keyid) :
	    json_null()) < 0 || json_object_set(j, "checks", checks) < 0))
		rc = -1;
	for (c = 0; rc == 0 && c < VC_MAX; c++) {
		const struct dynbuf *d = &v->detail[c];

		if (v->result[c] == VR_UNASKED)
			continue;
		one = json_pack("{s:s, s:s}", "check", vcheck_name[c], "result",
		    vresult_name[v->result[c]]);
		if (one == NULL || al_json_set_text(one, "detail", d->data ?
		    d->data : "", d->len) < 0) {
			json_decref(one);
			rc = -1;
		} else if (json_array_append_new(checks, one) < 0) {
			rc = -1;
		}
	}
	json_decref(checks);
	if (rc < 0) {
		json_decref(j);
		return -1;
	}
	rc = json_dumpf(j, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF ?
	    -1 : 0;
	json_decref(j);
	return rc;
}

static int
verify_usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "airlock verify: %s%s%s\n\n%s", msg, arg ? ": " : "",
	    arg ? arg : "", verify_usage);
	return EXIT_ERROR;
}

int
cmd_verify(int argc, char **argv)
{
	enum { O_KEY = 256, O_MINAPP, O_MAXSEV, O_VERDICT, O_NOART, O_JSON };
	static const struct option opts[] = {
		{"key", required_argument, NULL, O_KEY},
		{"min-approvals", required_argument, NULL, O_MINAPP},
		{"max-severity", required_argument, NULL, O_MAXSEV},
		{"require-verdict", required_argument, NULL, O_VERDICT},
		{"no-artifact", no_argument, NULL, O_NOART},
		{"json", no_argument, NULL, O_JSON},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct vopts o = {NULL, NULL, -1, AL_SEV_NONE, AL_VERDICT_NONE};
	struct attest_keyring kr;
	struct vstate v;
	char *dflt = NULL, *text = NULL, keyid[65] = "", *end;
	json_t *st = NULL;
	size_t len = 0, i;
	int c, nkeys = 0, no_artifact = 0, json = 0, ok, ret = EXIT_ERROR;
	enum vcheck k;

	kr.n = 0;
	memset(&v, 0, sizeof(v));
	for (k = 0; k < VC_MAX; k++)
		dynbuf_init(&v.detail[k], 4096);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_KEY:
			if (attest_keyring_load(&kr, optarg) < 0) {
				fprintf(stderr, "airlock verify: %s\n", al_err_msg());
				goto out;
			}
			nkeys++;
			break;
		case O_MINAPP:
			errno = 0;
			o.min_approvals = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    o.min_approvals < 0 || o.min_approvals > 1000) {
				ret = verify_usage_error("--min-approvals needs a number "
				    "of approvals", optarg);
				goto out;
			}
			break;
		case O_MAXSEV:
			if ((o.max_severity = al_severity_parse(optarg)) < 0) {
				o.max_severity = AL_SEV_NONE;
				ret = verify_usage_error("--max-severity needs info, low, "
				    "medium, high or critical", optarg);
				goto out;
			}
			break;
		case O_VERDICT:
			if ((o.verdict = al_verdict_parse(optarg)) < 0) {
				o.verdict = AL_VERDICT_NONE;
				ret = verify_usage_error("--require-verdict needs clean or "
				    "flagged", optarg);
				goto out;
			}
			break;
		case O_NOART:
			no_artifact = 1;
			break;
		case O_JSON:
			json = 1;
			break;
		case 'h':
			fputs(verify_usage, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(verify_usage, stderr);
			goto out;
		}
	}
	if (argc - optind != (no_artifact ? 1 : 2)) {
		ret = verify_usage_error(no_artifact ? "--no-artifact takes "
		    "ATTESTATION alone" : argc - optind == 1 ? "no ARTIFACT: the "
		    "attestation says nothing until the bytes are checked against "
		    "it (--no-artifact checks the statement alone)" :
		    "ATTESTATION ARTIFACT", NULL);
		goto out;
	}
	o.att = argv[optind];
	o.artifact = no_artifact ? NULL : argv[optind + 1];
	if (nkeys == 0 && ((dflt = default_pubkey()) == NULL ||
	    attest_keyring_load(&kr, dflt) < 0)) {
		fprintf(stderr, "airlock verify: %s\n", dflt ? al_err_msg() :
		    "out of memory");
		goto out;
	}
	if (al_read_file(o.att, 64u << 20, &text, &len) < 0) {
		fprintf(stderr, "airlock verify: %s\n", al_err_msg());
		goto out;
	}
	/* A file that cannot be read is exit 2, before any check runs. */
	if (o.artifact != NULL && access(o.artifact, R_OK) != 0) {
		fprintf(stderr, "airlock verify: %s: %s\n", o.artifact,
		    strerror(errno));
		goto out;
	}
	v.result[VC_SIGNATURE] = v.result[VC_SUBJECT] = VR_SKIPPED;
	v.result[VC_ARTIFACT] = VR_SKIPPED;
	if (o.min_approvals >= 0)
		v.result[VC_APPROVALS] = VR_SKIPPED;
	if (o.max_severity != AL_SEV_NONE)
		v.result[VC_SEVERITY] = VR_SKIPPED;
	if (o.verdict != AL_VERDICT_NONE)
		v.result[VC_VERDICT] = VR_SKIPPED;
	if (attest_verify_keyring(text, len, &kr, &st, keyid) < 0) {
		vset(&v, VC_SIGNATURE, VR_FAIL, "%s", al_err_msg());
		for (k = VC_SUBJECT; k < VC_MAX; k++)
			if (v.result[k] != VR_UNASKED)
				vset(&v, k, VR_SKIPPED, "the signature did not verify");
	} else {
		vset(&v, VC_SIGNATURE, VR_PASS, "signed by key %s, one of the %zu "
		    "of the keyring", keyid, kr.n);
		statement_checks(&v, &o, st);
	}
	/* Everything asked must pass; skipped counts as not passed, except
	 * the artifact under --no-artifact, which was asked for. */
	ok = 1;
	for (k = 0; k < VC_MAX; k++)
		if (v.result[k] == VR_FAIL || (v.result[k] == VR_SKIPPED &&
		    !(k == VC_ARTIFACT && o.artifact == NULL &&
		    v.result[VC_SIGNATURE] == VR_PASS &&
		    v.result[VC_SUBJECT] == VR_PASS)))
			ok = 0;
	if (json ? report_json(&v, &o, ok, keyid) < 0 : (report_text(&v, &o, ok,
	    keyid), 0))
		goto out;
	ret = ok ? EXIT_OK : EXIT_FINDINGS;
out:
	for (i = 0; i < VC_MAX; i++)
		dynbuf_free(&v.detail[i]);
	json_decref(st);
	attest_keyring_clear(&kr);
	free(text);
	free(dflt);
	return ret;
}
