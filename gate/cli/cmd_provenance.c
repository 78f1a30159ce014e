/*
 * cmd_provenance.c - `airlock provenance SHA256|ID|PATH`: the whole chain
 * of one artifact, on the gate's data directory (docs/audit.md): for each
 * submission of those bytes, what the gate witnessed (bytes, time, how it
 * came in, the peer, the token and its person) apart from what the agent
 * asserted (its name, kind and labels), how the gate read it, its latest
 * scan's findings by severity, and then every event about it as the audit
 * log records it (scans, views, approvals, rejections, overrides, the
 * release, refusals, alarms), each entry proved against the newest signed
 * checkpoint (its hash and inclusion). A last line says whether the log
 * verifies up to that checkpoint. --json: the same as one JSON document.
 *
 * Exit status: 0 every entry proved (or newer than the checkpoint), 1 an
 * entry or the checkpoint does not verify, 2 nothing found or an error.
 *
 * Trust: the data directory is the thing being checked. The timeline is
 * read from the log's entries, not from the tables; the facts above it
 * come from the submission's row and are said to be so.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "dirs.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "os.h"
#include "util.h"
#include "vocab.h"

static const char prov_usage[] =
    "usage: airlock provenance SHA256|ID|PATH [--data DIR] [--json]\n"
    "\n"
    "The whole chain of one artifact: for each submission of those bytes\n"
    "(an artifact's sha256, a submission id, or a file whose bytes are\n"
    "hashed here), what the gate witnessed and what the agent asserted,\n"
    "how it was read and what its latest scan found, then every event\n"
    "about it from the audit log, each proved against the newest signed\n"
    "checkpoint. Exit 0 all proved, 1 an entry does not verify, 2 nothing\n"
    "found or an error.\n"
    "\n"
    "  --data DIR   the gate's data directory (default $AIRLOCK_DATA, else\n"
    "               ./airlock-data)\n"
    "  --json       one JSON document instead of text\n";

static const char *const status_name[] = {
	[PROOF_OK] = "proved", [PROOF_LATER] = "after the checkpoint",
	[PROOF_FAILED] = "DOES NOT VERIFY",
};

/* An entry's field for display ("" if absent). */
static void
field(const struct proved_entry *e, const char *key, char *out, size_t cap)
{
	if (e->entry == NULL ||
	    gate_entry_field(e->entry, e->entry_len, key, out, cap) < 0)
		*out = '\0';
}

/* The findings of the latest scan by severity, as a JSON object. */
static json_t *
severity_counts(struct db *db, int64_t id)
{
	struct db_finding *f = NULL;
	json_t *o = json_object();
	size_t nf = 0, i;
	int k;

	if (o == NULL || db_findings_get(db, id, &f, &nf) < 0) {
		json_decref(o);
		return NULL;
	}
	for (k = AL_SEV_INFO; k <= AL_SEV_CRITICAL; k++) {
		json_int_t n = 0;

		for (i = 0; i < nf; i++)
			n += f[i].severity == (enum al_severity)k;
		json_object_set_new(o, al_severity_name((enum al_severity)k),
		    json_integer(n));
	}
	db_findings_free(f, nf);
	return o;
}

/* One submission, as JSON; *bad set when an entry fails to verify. */
static int
one(struct db *db, const char *dir, int64_t id, json_t **out, int *bad)
{
	struct db_submission b;
	struct db_scan_info si;
	struct proved_entries pe = {0};
	json_t *o = NULL, *labels = json_object(), *tl = json_array(), *log;
	char t[32];
	size_t i;
	int rc, logrc;

	memset(&si, 0, sizeof(si));
	if ((rc = db_submission_get(db, id, &b)) < 0)
		return rc;
	(void)db_scan_latest(db, id, &si);
	for (i = 0; i < b.nlabels; i++)
		(void)al_json_set_textz(labels, b.labels[i].key, b.labels[i].value);
	al_time_iso(b.received_at, t);
	o = json_pack("{s:I, s:{s:s, s:I, s:s, s:s, s:I, s:I, s:s}, "
	    "s:{s:O, s:s}, s:s, s:s, s:s}",
	    "id", (json_int_t)b.id,
	    "witnessed", "sha256", b.sha256, "size", (json_int_t)b.size,
	    "received_at", t, "via", b.via ? b.via : "",
	    "peer_uid", (json_int_t)b.peer_uid, "peer_pid", (json_int_t)b.peer_pid,
	    "submitter", b.submitter_name ? b.submitter_name : "",
	    "asserted", "labels", labels, "kind", al_kind_name(b.kind) ?
	    al_kind_name(b.kind) : "auto",
	    "read_as", b.kind_read != AL_KIND_AUTO ? al_kind_name(b.kind_read) :
	    "not yet", "state", al_state_name(b.state),
	    "verdict", b.verdict != AL_VERDICT_NONE ? al_verdict_name(b.verdict) :
	    "none");
	json_decref(labels);
	if (o == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	(void)al_json_set_textz(json_object_get(o, "witnessed"), "launched_for",
	    b.launched_by);
	(void)al_json_set_textz(json_object_get(o, "asserted"), "name", b.name);
	if (si.id > 0)
		json_object_set_new(o, "latest_scan", json_pack("{s:I, s:s, s:s, "
		    "s:o}", "id", (json_int_t)si.id, "ruleset", si.ruleset_digest ?
		    si.ruleset_digest : "", "engine", si.engine_version ?
		    si.engine_version : "", "findings", severity_counts(db, id)));
	logrc = gate_entries_about(db, dir, id, &pe);
	for (i = 0; logrc == 0 && i < pe.n; i++) {
		const struct proved_entry *e = &pe.v[i];
		char at[32], action[64], actor[256], role[16], person[256];
		char detail[4096];
		json_t *x;

		field(e, "at", at, sizeof(at));
		field(e, "action", action, sizeof(action));
		field(e, "actor-name", actor, sizeof(actor));
		field(e, "actor-role", role, sizeof(role));
		field(e, "person-name", person, sizeof(person));
		field(e, "detail", detail, sizeof(detail));
		al_time_iso(strtoll(at, NULL, 10), t);
		x = json_pack("{s:I, s:s, s:s, s:s, s:s}", "index",
		    (json_int_t)e->idx, "at", t, "action", action, "role", role,
		    "proof", status_name[e->status]);
		if (x == NULL) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
			goto out;
		}
		(void)al_json_set_textz(x, "actor", actor[0] ? actor : "the gate");
		(void)al_json_set_textz(x, "person", person);
		(void)al_json_set_textz(x, "detail", detail);
		if (e->status == PROOF_FAILED) {
			json_object_set_new(x, "why", json_string(e->why));
			*bad = 1;
		}
		json_array_append_new(tl, x);
	}
	if (logrc == 0)
		log = json_pack("{s:b, s:I, s:I, s:s}", "verified", !*bad,
		    "checkpoint", (json_int_t)pe.ckpt_id, "size",
		    (json_int_t)pe.ckpt_size, "key_id", pe.key_id);
	else {
		log = json_pack("{s:b, s:s}", "verified", 0, "error", al_err_msg());
		*bad = 1;
	}
	json_object_set_new(o, "timeline", tl);
	tl = NULL;
	json_object_set_new(o, "log", log);
	*out = o;
	o = NULL;
	rc = 0;
out:
	json_decref(o);
	json_decref(tl);
	gate_entries_clear(&pe);
	db_scan_info_clear(&si);
	db_submission_clear(&b);
	return rc;
}

static const char *
js(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static void
print_text(json_t *subs)
{
	json_t *o, *x;
	size_t i, k;

	json_array_foreach(subs, i, o) {
		json_t *w = json_object_get(o, "witnessed");
		json_t *a = json_object_get(o, "asserted");
		json_t *ls = json_object_get(o, "latest_scan");
		json_t *log = json_object_get(o, "log");
		const char *key;
		json_t *v;

		printf("%ssubmission %lld: %s, verdict %s\n", i ? "\n" : "",
		    (long long)json_integer_value(json_object_get(o, "id")),
		    js(o, "state"), js(o, "verdict"));
		printf("  witnessed: sha256 %s, %lld bytes, received %s over %s",
		    js(w, "sha256"), (long long)json_integer_value(json_object_get(w,
		    "size")), js(w, "received_at"), js(w, "via"));
		if (json_integer_value(json_object_get(w, "peer_uid")) >= 0)
			printf(" (peer uid %lld pid %lld)", (long long)
			    json_integer_value(json_object_get(w, "peer_uid")),
			    (long long)json_integer_value(json_object_get(w,
			    "peer_pid")));
		printf(", token %s for %s\n", js(w, "submitter"),
		    js(w, "launched_for")[0] ? js(w, "launched_for") : "nobody");
		printf("  asserted by the agent: name '%s', kind %s", js(a, "name"),
		    js(a, "kind"));
		json_object_foreach(json_object_get(a, "labels"), key, v)
			printf(", %s=%s", key, json_string_value(v) ?
			    json_string_value(v) : "?");
		printf("\n  read as: %s\n", js(o, "read_as"));
		if (ls != NULL) {
			printf("  latest scan %lld: rules %s, engine %s; findings",
			    (long long)json_integer_value(json_object_get(ls, "id")),
			    js(ls, "ruleset"), js(ls, "engine"));
			json_object_foreach(json_object_get(ls, "findings"), key, v)
				printf(" %s %lld", key, (long long)json_integer_value(v));
			printf("\n");
		}
		printf("  the log:\n");
		json_array_foreach(json_object_get(o, "timeline"), k, x) {
			printf("    %s  %-18s %s%s%s%s: %s%s%s\n", js(x, "at"),
			    js(x, "action"), js(x, "actor"), js(x, "person")[0] ?
			    " (" : "", js(x, "person"), js(x, "person")[0] ? ")" : "",
			    js(x, "detail"), strcmp(js(x, "proof"), "proved") ? "  ["
			    : "", strcmp(js(x, "proof"), "proved") ? js(x, "proof") : "");
			if (strcmp(js(x, "proof"), "proved") != 0)
				printf("]%s%s\n", json_object_get(x, "why") ? " " : "",
				    js(x, "why"));
		}
		if (json_is_true(json_object_get(log, "verified")))
			printf("  verified: every entry above up to checkpoint #%lld "
			    "(%lld entries, key %.16s) is in the signed log\n",
			    (long long)json_integer_value(json_object_get(log,
			    "checkpoint")), (long long)json_integer_value(
			    json_object_get(log, "size")), js(log, "key_id"));
		else
			printf("  NOT VERIFIED: %s\n", json_object_get(log, "error") ?
			    js(log, "error") : "an entry above does not verify");
	}
}

int
cmd_provenance(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data_opt = NULL, *what;
	char sha[65] = "", *dir = NULL;
	struct db *db = NULL;
	struct dynbuf p;
	int64_t *ids = NULL, id = 0;
	size_t n = 0, i;
	json_t *subs = json_array();
	int c, asjson = 0, bad = 0, ret = EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			data_opt = optarg;
			break;
		case 'j':
			asjson = 1;
			break;
		case 'h':
			fputs(prov_usage, stdout);
			json_decref(subs);
			return EXIT_OK;
		default:
			fputs(prov_usage, stderr);
			json_decref(subs);
			return EXIT_ERROR;
		}
	}
	if (argc - optind != 1) {
		fputs(prov_usage, stderr);
		json_decref(subs);
		return EXIT_ERROR;
	}
	what = argv[optind];
	dynbuf_init(&p, 8192);
	if (al_is_hex(what, 64)) {
		snprintf(sha, sizeof(sha), "%s", what);
	} else if (strspn(what, "0123456789") == strlen(what) && *what != '0') {
		id = strtoll(what, NULL, 10);
	} else {
		int fd = open(what, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || al_sha256_fd(fd, sha) < 0) {
			if (fd >= 0)
				close(fd);
			al_err_set(AL_EIO, "%s: not a sha256, a submission id or a "
			    "file that can be read", what);
			goto fail;
		}
		close(fd);
	}
	if ((dir = gate_data_dir(data_opt)) == NULL ||
	    dynbuf_addf(&p, "%s/airlock.db", dir) < 0) {
		al_err_set(AL_ENOMEM, "out of memory");
		goto fail;
	}
	if (db_open(&db, dynbuf_str(&p), 0) < 0)
		goto fail;
	if (id > 0) {
		if ((ids = malloc(sizeof(*ids))) == NULL)
			goto fail;
		ids[0] = id;
		n = 1;
	} else if (db_submission_ids_of(db, sha, &ids, &n) < 0) {
		goto fail;
	}
	if (n == 0) {
		al_err_set(AL_ENOTFOUND, "no submission of the artifact %s", sha);
		goto fail;
	}
	for (i = 0; i < n; i++) {
		json_t *o = NULL;

		if (one(db, dir, ids[i], &o, &bad) < 0)
			goto fail;
		json_array_append_new(subs, o);
	}
	if (asjson) {
		json_t *doc = json_pack("{s:O}", "submissions", subs);

		if (doc == NULL || json_dumpf(doc, stdout, JSON_INDENT(2)) < 0) {
			json_decref(doc);
			goto fail;
		}
		putchar('\n');
		json_decref(doc);
	} else {
		print_text(subs);
	}
	ret = bad ? EXIT_FINDINGS : EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "airlock provenance: %s\n", al_err_msg());
out:
	json_decref(subs);
	free(ids);
	db_close(db);
	free(dir);
	dynbuf_free(&p);
	return ret;
}
