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
 * The document is gate/provenance.c's, the one GET /v1/provenance serves
 * (there bounded, here whole); this file reads the argument and prints.
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
#include "provenance.h"
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
	struct prov_query q = {PROV_BY_SHA256, sha, 0, NULL, 0, 0};
	struct db *db = NULL;
	struct dynbuf p;
	json_t *doc = NULL;
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
			return EXIT_OK;
		default:
			fputs(prov_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (argc - optind != 1) {
		fputs(prov_usage, stderr);
		return EXIT_ERROR;
	}
	what = argv[optind];
	dynbuf_init(&p, 8192);
	if (al_is_hex(what, 64)) {
		snprintf(sha, sizeof(sha), "%s", what);
	} else if (strspn(what, "0123456789") == strlen(what) && *what != '0') {
		q.by = PROV_BY_ID;
		q.id = strtoll(what, NULL, 10);
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
	if (db_open(&db, dynbuf_str(&p), 0) < 0 ||
	    gate_provenance(&doc, &bad, db, dir, &q) < 0)
		goto fail;
	if (asjson) {
		if (json_dumpf(doc, stdout, JSON_INDENT(2)) < 0)
			goto fail;
		putchar('\n');
	} else {
		print_text(json_object_get(doc, "submissions"));
	}
	ret = bad ? EXIT_FINDINGS : EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "airlock provenance: %s\n", al_err_msg());
out:
	json_decref(doc);
	db_close(db);
	free(dir);
	dynbuf_free(&p);
	return ret;
}
