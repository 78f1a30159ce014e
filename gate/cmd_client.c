/*
 * cmd_client.c - the commands that talk to a running gate: submit, list,
 * show and token (create, list, revoke). See docs/api.md for the HTTP
 * contract and client.c for the transport.
 *
 * Everything the server returns that came from an agent or an artifact
 * (names, labels, paths, excerpts, rule ids even) is escaped before it is
 * printed; --json prints the server's document, pretty and ASCII-only.
 * Exit status: 0 success (for submit --wait: a clean verdict), 1 refused by
 * the server (401, 403, 404, 409, 413) or, with --wait, a verdict that is
 * not clean, 2 usage, transport or server errors and --wait timeouts.
 */
#include <errno.h>
#include <archive_entry.h>
#include <archive.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "path.h"
#include "term.h"
#include "text.h"
#include "os.h"
#include "gate.h"
#include "scan_archive.h"
#include "scan_walk.h"
#include "util.h"
#include "vocab.h"

#define EXIT_REFUSED EXIT_FINDINGS

/* Longest wait --wait allows, and its default: a deep queue of large
 * archives can take minutes; a day is surely a stuck gate. */
#define SUBMIT_WAIT_DEFAULT 600u
#define SUBMIT_WAIT_MAX 86400u

static const char submit_usage[] =
    "usage: airlock submit [options] PATH|-\n"
    "\n"
    "Sends an artifact into quarantine at the gate. PATH is a file (sent as\n"
    "it is), a directory (sent as a tar of its content, named DIR.tar, with\n"
    "symbolic links stored as links, never followed) or - for standard input.\n"
    "The bytes are streamed, never held in memory.\n"
    "\n"
    "options:\n"
    "  --kind KIND          auto (default: the gate decides from the content),\n"
    "                       file, archive, patch, mbox or bundle\n"
    "  --name NAME          the artifact's name (default: PATH's base name)\n"
    "  --label KEY=VALUE    what you assert about it (task, model, base\n"
    "                       commit...); repeatable, at most 32\n"
    "  --wait               wait for the scan, print its verdict and findings\n"
    "  --timeout SECONDS    how long --wait waits (default 600)\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 submitted (with --wait: verdict clean), 1 refused by the\n"
    "gate (with --wait: flagged or unscannable), 2 error or --wait timeout\n";

static const char list_usage[] =
    "usage: airlock list [options]\n"
    "\n"
    "Lists submissions at the gate, newest first (an agent sees its own).\n"
    "\n"
    "options:\n"
    "  --state STATE        only those in STATE: received, scanning, held,\n"
    "                       approved, rejected, released or expired\n"
    "  --limit N            at most N (default 100, at most 1000)\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 listed, 1 refused by the gate, 2 error\n";

static const char show_usage[] =
    "usage: airlock show [options] ID\n"
    "\n"
    "Shows one submission: what the gate witnessed, what the agent asserted\n"
    "(claims, not verified), the scan and its findings.\n"
    "\n"
    "options:\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 shown, 1 refused by the gate (or no such submission),\n"
    "2 error\n";

static const char token_usage[] =
    "usage: airlock token create --role ROLE --name NAME [--ttl DURATION]\n"
    "                            [--on-behalf-of PERSON] [options]\n"
    "       airlock token list [options]\n"
    "       airlock token revoke NAME [options]\n"
    "\n"
    "Manages the gate's tokens (an admin token is needed). create prints the\n"
    "new token alone on standard output, the only time it is shown, so that\n"
    "TOKEN=$(airlock token create ...) captures it; the rest goes to\n"
    "standard error.\n"
    "\n"
    "create options:\n"
    "  --role ROLE          agent, reviewer, ci, auditor or admin\n"
    "  --name NAME          the token's unique name\n"
    "  --ttl DURATION       lifetime: 30m, 8h, 7d... (default: the gate's)\n"
    "  --on-behalf-of PERSON  who launched the agent (agents only, required)\n"
    "common options:\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 done, 1 refused by the gate (a taken name, an unknown\n"
    "token...), 2 error\n";

/* ---- shared ------------------------------------------------------------------ */

/*
 * A usage error: the message (and the offending argument, escaped) alone
 * for a bad value; with the usage when fmt is NULL (getopt has spoken) or
 * an argument is missing (full).
 */
static int
usage_error(const char *usage, const char *cmd, const char *fmt,
    const char *arg, int full)
{
	if (fmt != NULL) {
		fprintf(stderr, "airlock %s: %s", cmd, fmt);
		if (arg != NULL) {
			fputs(" '", stderr);
			al_term_put(stderr, arg);
			fputc('\'', stderr);
		}
		fputc('\n', stderr);
	}
	if (fmt == NULL || full)
		fprintf(stderr, "%s%s", fmt != NULL ? "\n" : "", usage);
	return EXIT_ERROR;
}

/* Prints the pending error (al_err_msg) for cmd; returns EXIT_ERROR. */
static int
fail(const char *cmd)
{
	fprintf(stderr, "airlock %s: ", cmd);
	al_term_put(stderr, al_err_msg());
	fputc('\n', stderr);
	return EXIT_ERROR;
}

static const char *
jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Checks a reply: EXIT_OK when its status is want and it carries a JSON
 * object, else prints why (the server's message, escaped) and returns
 * EXIT_REFUSED for a refusal, EXIT_ERROR for anything else.
 */
static int
reply_check(const char *cmd, const struct client *c,
    const struct client_reply *r, long want)
{
	const char *msg = jstr(r->json, "error");
	long s = r->status;

	if (s == want && json_is_object(r->json))
		return EXIT_OK;
	fprintf(stderr, "airlock %s: ", cmd);
	if (s == want || (s >= 200 && s < 300)) {
		fprintf(stderr, "%s answered HTTP %ld without the expected "
		    "JSON object\n", client_where(c), s);
		return EXIT_ERROR;
	}
	if (s == 401 || s == 403 || s == 404 || s == 409 || s == 413)
		fputs("refused by the gate: ", stderr);
	else if (s >= 400 && s < 500)
		fputs("the gate calls the request malformed: ", stderr);
	else
		fputs("the gate failed: ", stderr);
	if (msg != NULL)
		al_term_put(stderr, msg);
	else
		fputs("(no message)", stderr);
	fprintf(stderr, " (HTTP %ld)", s);
	if (s == 401 && !client_has_token(c))
		fputs("; no token given: set AIRLOCK_TOKEN or use --token-file",
		    stderr);
	fputc('\n', stderr);
	return s == 401 || s == 403 || s == 404 || s == 409 || s == 413 ?
	    EXIT_REFUSED : EXIT_ERROR;
}

/* A JSON scalar as text: null is "-", others as JSON would have them. */
static int
value_text(struct dynbuf *b, const json_t *v)
{
	char *doc;
	int rc;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return dynbuf_add(b, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return dynbuf_addf(b, "%lld", (long long)json_integer_value(v));
	case JSON_REAL:
		return dynbuf_addf(b, "%g", json_real_value(v));
	case JSON_TRUE:
		return dynbuf_adds(b, "true");
	case JSON_FALSE:
		return dynbuf_adds(b, "false");
	case JSON_NULL:
		return dynbuf_adds(b, "-");
	default:
		if ((doc = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII)) == NULL)
			return AL_ENOMEM;
		rc = dynbuf_adds(b, doc);
		free(doc);
		return rc;
	}
}

/* Prints a value (hostile) escaped; an absent one as "-". */
static void
put_value(FILE *out, const json_t *v)
{
	struct dynbuf b;

	if (v == NULL) {
		fputc('-', out);
		return;
	}
	dynbuf_init(&b, (size_t)1 << 20);
	if (value_text(&b, v) == 0)
		al_term_put(out, dynbuf_str(&b));
	dynbuf_free(&b);
}

static int
use_color(void)
{
	return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
}

/* Flushes stdout; a failed write is an error too (a full disk, a pipe). */
static int
finish(const char *cmd, int ret)
{
	if (fflush(stdout) != 0) {
		fprintf(stderr, "airlock %s: writing output: %s\n", cmd,
		    strerror(errno));
		return EXIT_ERROR;
	}
	return ret;
}

/* An id as docs/api.md has them: a positive decimal integer. */
static int
parse_id(const char *s)
{
	size_t v;

	return al_parse_size(s, &v) == 0 && v > 0 && strlen(s) <= 18 ? 0 : -1;
}

/* ---- tables ------------------------------------------------------------------ */

#define TABLE_MAX_COLS 8

struct table {
	size_t ncols;
	const char *const *head;
	char **cells;                   /* row-major, escaped */
	size_t n, cap;
	size_t width[TABLE_MAX_COLS];   /* in code points */
};

/* Adds the next cell: v (hostile) escaped, cut to at most max characters. */
static int
table_add(struct table *t, const json_t *v, size_t max)
{
	struct dynbuf raw, esc;
	char **nv;
	size_t cut = 0, i = 0, w;
	int rc;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		if ((nv = realloc(t->cells, t->cap * sizeof(*nv))) == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		t->cells = nv;
	}
	dynbuf_init(&raw, (size_t)1 << 20);
	dynbuf_init(&esc, (size_t)4 << 20);
	rc = v != NULL ? value_text(&raw, v) : dynbuf_adds(&raw, "-");
	if (rc == 0)
		rc = al_term_escape(&esc, raw.data ? raw.data : "", raw.len);
	dynbuf_free(&raw);
	if (rc < 0) {
		dynbuf_free(&esc);
		return al_err_set(AL_ENOMEM, "a value is too long to show");
	}
	w = al_utf8_count(dynbuf_str(&esc), esc.len);
	if (w > max) {
		/* Cut on a character boundary (escaping made it valid). */
		while (i < esc.len && cut < max - 3) {
			size_t len = al_utf8_seq((const unsigned char *)esc.data +
			    i, esc.len - i, NULL);

			i += len ? len : 1;
			cut++;
		}
		esc.len = i;
		esc.data[i] = '\0';
		(void)dynbuf_adds(&esc, "...");
		w = max;
	}
	if (w > t->width[t->n % t->ncols])
		t->width[t->n % t->ncols] = w;
	t->cells[t->n++] = dynbuf_take(&esc, NULL);
	return 0;
}

static void
table_print(FILE *out, struct table *t)
{
	size_t i, c, w;

	for (c = 0; c < t->ncols; c++)
		if (strlen(t->head[c]) > t->width[c])
			t->width[c] = strlen(t->head[c]);
	for (i = 0; i < t->n + t->ncols; i++) {
		const char *s = i < t->ncols ? t->head[i] : t->cells[i - t->ncols];

		c = i % t->ncols;
		fputs(s, out);
		if (c + 1 == t->ncols) {
			fputc('\n', out);
			continue;
		}
		for (w = al_utf8_count(s, strlen(s)); w < t->width[c] + 2; w++)
			fputc(' ', out);
	}
}

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* ---- findings ---------------------------------------------------------------- */

/* The findings of a submission, grouped by path as `airlock scan` does. */
static void
print_findings(FILE *out, const json_t *findings, int color)
{
	size_t n = json_array_size(findings), i;
	struct al_finding_row *rows = NULL;
	struct dynbuf *rules = NULL;
	const json_t *f;

	if (n > 0 && ((rows = calloc(n, sizeof(*rows))) == NULL ||
	    (rules = calloc(n, sizeof(*rules))) == NULL)) {
		free(rows);
		fputs("airlock: out of memory\n", stderr);
		return;
	}
	json_array_foreach(findings, i, f) {
		const char *path = jstr(f, "path"), *sev = jstr(f, "severity");
		const json_t *rule = json_object_get(f, "rule");

		rows[i].path = path ? path : "";
		rows[i].severity = sev ? sev : "?";
		rows[i].line = json_integer_value(json_object_get(f, "line"));
		rows[i].column = json_integer_value(json_object_get(f, "column"));
		rows[i].excerpt = jstr(f, "excerpt");
		/* The rule as put_value shows a value: "-" when absent. */
		dynbuf_init(&rules[i], (size_t)1 << 20);
		if ((rule == NULL ? dynbuf_addc(&rules[i], '-') :
		    value_text(&rules[i], rule)) < 0)
			dynbuf_reset(&rules[i]);
		rows[i].rule = dynbuf_str(&rules[i]);
	}
	al_findings_print(out, rows, n, color);
	fputc('\n', out);
	for (i = 0; i < n; i++)
		dynbuf_free(&rules[i]);
	free(rules);
	free(rows);
}

/* "flagged (worst critical)", or what the verdict is. */
static void
print_verdict(FILE *out, const json_t *sub)
{
	const json_t *worst = json_object_get(sub, "worst");

	put_value(out, json_object_get(sub, "verdict"));
	if (json_is_string(worst)) {
		fputs(" (worst ", out);
		put_value(out, worst);
		fputc(')', out);
	}
}

/* ---- submit ------------------------------------------------------------------ */

struct submit_opts {
	const char *kind;
	const char *name;
	const char *labels[CLIENT_MAX_LABELS];
	size_t nlabels;
	int wait;
	size_t timeout;
};

static int
label_check(const char *kv)
{
	const char *eq = strchr(kv, '='), *p;

	if (eq == NULL || eq == kv || (size_t)(eq - kv) > CLIENT_MAX_LABEL_KEY ||
	    strlen(eq + 1) > CLIENT_MAX_LABEL_VALUE)
		return -1;
	for (p = kv; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		    *p == '-'))
			return -1;
	return 0;
}

/* The last path component, trailing slashes ignored, into b. */
static int
base_name(struct dynbuf *b, const char *path)
{
	size_t n = strlen(path), s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = n; s > 0 && path[s - 1] != '/'; s--)
		;
	return dynbuf_add(b, path + s, n - s);
}

/* DIR.tar, named after the directory itself (also for "." or ".."). */
static int
dir_tar_name(struct dynbuf *name, const char *path)
{
	char real[PATH_MAX];

	if (realpath(path, real) == NULL)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	if (strcmp(real, "/") == 0 ? dynbuf_adds(name, "root") :
	    base_name(name, real) < 0)
		return al_err_set(AL_ELIMIT, "%s: name too long", path);
	if (dynbuf_adds(name, ".tar") < 0)
		return al_err_set(AL_ELIMIT, "%s: name too long", path);
	return 0;
}

/*
 * Opens what is submitted: *fd_out, *size_out (-1: unknown, sent chunked),
 * the kind and the default name (into name, empty for stdin). A directory
 * is packed into a temporary tar first.
 */
static int
submit_open(const char *path, const char **kind, struct dynbuf *name,
    int *fd_out, off_t *size_out)
{
	struct stat st;
	off_t pos;
	int fd, rc;

	*fd_out = -1;
	*size_out = -1;
	if (strcmp(path, "-") == 0) {
		/* Redirected from a file, stdin has a length: no chunking. */
		if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
		    (pos = lseek(STDIN_FILENO, 0, SEEK_CUR)) >= 0 &&
		    pos <= st.st_size)
			*size_out = st.st_size - pos;
		*fd_out = STDIN_FILENO;
		return 0;
	}
	if (stat(path, &st) < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		int k = al_kind_parse(*kind);

		if (k != AL_KIND_AUTO && k != AL_KIND_ARCHIVE)
			return al_err_set(AL_EINVAL, "%s is a directory: it is sent "
			    "as a tar, --kind %s does not fit", path, *kind);
		*kind = al_kind_name(AL_KIND_ARCHIVE);
		if (name->len == 0 && (rc = dir_tar_name(name, path)) < 0)
			return rc;
		return client_tar_dir(path, fd_out, size_out);
	}
	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (S_ISREG(st.st_mode))
		*size_out = st.st_size;
	if (name->len == 0 && base_name(name, path) < 0) {
		close(fd);
		return al_err_set(AL_ELIMIT, "%s: name too long", path);
	}
	*fd_out = fd;
	return 0;
}

/* "/v1/submissions?kind=K&name=N&label=K%3DV..." */
static int
submit_path(struct dynbuf *b, const struct submit_opts *o, const char *kind,
    const char *name)
{
	size_t i;
	int rc;

	rc = dynbuf_adds(b, "/v1/submissions?kind=");
	if (rc == 0)
		rc = client_url_escape(b, kind);
	if (rc == 0 && name[0] != '\0') {
		rc = dynbuf_adds(b, "&name=");
		if (rc == 0)
			rc = client_url_escape(b, name);
	}
	for (i = 0; i < o->nlabels && rc == 0; i++) {
		rc = dynbuf_adds(b, "&label=");
		if (rc == 0)
			rc = client_url_escape(b, o->labels[i]);
	}
	return rc < 0 ? al_err_set(AL_ELIMIT, "name and labels make the "
	    "request too long") : 0;
}

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Polls the submission until its scan is done (backoff 100 ms to 1 s);
 * *out gets the last reply. EXIT_OK, or the exit status of a failure.
 */
static int
submit_wait(struct client *c, json_int_t id, size_t timeout,
    struct client_reply *out)
{
	char path[64];
	double deadline = al_mono_now() + (double)timeout, left;
	unsigned delay = 100;
	const char *state;
	int ret, st;

	snprintf(path, sizeof(path), "/v1/submissions/%lld", (long long)id);
	for (;;) {
		client_reply_free(out);
		if (client_get(c, path, out) < 0)
			return fail("submit");
		if ((ret = reply_check("submit", c, out, 200)) != EXIT_OK)
			return ret;
		state = jstr(out->json, "state");
		st = al_state_parse(state);
		if (st != AL_STATE_RECEIVED && st != AL_STATE_SCANNING)
			return EXIT_OK;
		left = deadline - al_mono_now();
		if (left <= 0) {
			fprintf(stderr, "airlock submit: timed out after %zu s "
			    "waiting for the scan of submission %lld (state ",
			    timeout, (long long)id);
			al_term_put(stderr, state);
			fputs(")\n", stderr);
			return EXIT_ERROR;
		}
		sleep_ms(left * 1000 < delay ? (unsigned)(left * 1000) + 1 :
		    delay);
		delay = delay * 2 > 1000 ? 1000 : delay * 2;
	}
}

/* 0 for a clean verdict, 1 for any other (fail closed), 2 for none. */
static int
verdict_status(const json_t *sub)
{
	const char *verdict = jstr(sub, "verdict");

	if (verdict == NULL)
		return EXIT_ERROR;
	return al_verdict_parse(verdict) == AL_VERDICT_CLEAN ? EXIT_OK :
	    EXIT_FINDINGS;
}

/* Prints the verdict and findings of a scanned submission; exit status. */
static int
submit_verdict(const json_t *sub)
{
	const json_t *findings = json_object_get(sub, "findings");

	fputs("verdict ", stdout);
	print_verdict(stdout, sub);
	fputc('\n', stdout);
	if (json_is_array(findings) && json_array_size(findings) > 0) {
		fputc('\n', stdout);
		print_findings(stdout, findings, use_color());
	}
	if (verdict_status(sub) == EXIT_ERROR) {
		fputs("airlock submit: the gate gave no verdict (state ", stderr);
		put_value(stderr, json_object_get(sub, "state"));
		fputs(")\n", stderr);
	}
	return verdict_status(sub);
}

static int
submit_parse(int argc, char **argv, struct submit_opts *o,
    struct client_conf *conf)
{
	static const struct option opts[] = {
		{"kind", required_argument, NULL, 'k'},
		{"name", required_argument, NULL, 'n'},
		{"label", required_argument, NULL, 'l'},
		{"wait", no_argument, NULL, 'w'},
		{"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(conf, c, optarg))
			continue;
		switch (c) {
		case 'k':
			if (!al_kind_submittable(al_kind_parse(optarg)))
				return usage_error(submit_usage, "submit",
				    "unknown kind", optarg, 0);
			o->kind = optarg;
			break;
		case 'n':
			if (optarg[0] == '\0' || strlen(optarg) > CLIENT_MAX_NAME)
				return usage_error(submit_usage, "submit",
				    "--name takes 1 to 255 bytes", NULL, 0);
			o->name = optarg;
			break;
		case 'l':
			if (label_check(optarg) < 0)
				return usage_error(submit_usage, "submit", "a label "
				    "is KEY=VALUE, KEY of at most 64 characters "
				    "[A-Za-z0-9._-], VALUE of at most 1024 bytes; "
				    "not", optarg, 0);
			if (o->nlabels == CLIENT_MAX_LABELS)
				return usage_error(submit_usage, "submit",
				    "at most 32 labels", NULL, 0);
			o->labels[o->nlabels++] = optarg;
			break;
		case 'w':
			o->wait = 1;
			break;
		case 'T':
			if (al_parse_size(optarg, &o->timeout) != 0 ||
			    o->timeout == 0 || o->timeout > SUBMIT_WAIT_MAX)
				return usage_error(submit_usage, "submit",
				    "--timeout takes 1 to 86400 seconds, not",
				    optarg, 0);
			break;
		case 'h':
			fputs(submit_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(submit_usage, "submit", NULL, NULL, 0);
		}
	}
	if (argc - optind != 1)
		return usage_error(submit_usage, "submit", argc == optind ?
		    "no PATH given" : "one PATH at a time", NULL, 1);
	return -1;
}

int
cmd_submit(int argc, char **argv)
{
	struct submit_opts o = {"auto", NULL, {NULL}, 0, 0, SUBMIT_WAIT_DEFAULT};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct dynbuf name, path;
	const char *kind, *sha;
	json_int_t id;
	char size[32];
	off_t len;
	int fd = -1, ret;

	if ((ret = submit_parse(argc, argv, &o, &conf)) >= 0)
		return ret;
	ret = EXIT_ERROR;
	kind = o.kind;
	dynbuf_init(&name, CLIENT_MAX_NAME + 8);
	dynbuf_init(&path, 65536);
	if (o.name != NULL)
		(void)dynbuf_adds(&name, o.name);
	if (client_new(&c, &conf) < 0 ||
	    submit_open(argv[optind], &kind, &name, &fd, &len) < 0 ||
	    (name.len > CLIENT_MAX_NAME && al_err_set(AL_EINVAL, "the name "
	    "is longer than %u bytes: give a shorter one with --name",
	    CLIENT_MAX_NAME) < 0) ||
	    submit_path(&path, &o, kind, dynbuf_str(&name)) < 0 ||
	    client_post_fd(c, dynbuf_str(&path), fd, len,
	    isatty(STDERR_FILENO), &r) < 0) {
		ret = fail("submit");
		goto out;
	}
	if ((ret = reply_check("submit", c, &r, 201)) != EXIT_OK)
		goto out;
	id = json_integer_value(json_object_get(r.json, "id"));
	sha = jstr(r.json, "sha256");
	if (id <= 0 || sha == NULL) {
		fprintf(stderr, "airlock submit: the gate's reply has no id or "
		    "sha256\n");
		ret = EXIT_ERROR;
		goto out;
	}
	if (conf.json && !o.wait) {
		ret = client_print_json(stdout, r.json) < 0 ? fail("submit") :
		    EXIT_OK;
		goto out;
	}
	if (!conf.json) {
		al_human_size(size, sizeof(size), json_integer_value(
		    json_object_get(r.json, "size")));
		printf("submitted %lld sha256:", (long long)id);
		al_term_put(stdout, sha);
		printf(" (%s) state ", size);
		put_value(stdout, json_object_get(r.json, "state"));
		putchar('\n');
		fflush(stdout);
	}
	if (!o.wait)
		goto out;
	if ((ret = submit_wait(c, id, o.timeout, &r)) != EXIT_OK)
		goto out;
	if (conf.json) {
		if (client_print_json(stdout, r.json) < 0) {
			ret = fail("submit");
			goto out;
		}
		ret = verdict_status(r.json);
	} else {
		ret = submit_verdict(r.json);
	}
out:
	if (fd > STDIN_FILENO)
		close(fd);
	client_reply_free(&r);
	client_free(c);
	dynbuf_free(&name);
	dynbuf_free(&path);
	return finish("submit", ret);
}

/* ---- list -------------------------------------------------------------------- */

/* A field of a submission, at the top or among what was witnessed. */
static const json_t *
sub_field(const json_t *sub, const char *key)
{
	const json_t *v = json_object_get(sub, key);

	if (v == NULL)
		v = json_object_get(json_object_get(sub, "witnessed"), key);
	return v;
}

static int
list_print(const json_t *subs)
{
	static const char *const head[] = {"ID", "STATE", "VERDICT", "WORST",
	    "KIND", "NAME", "SUBMITTER", "RECEIVED"};
	static const char *const keys[] = {"id", "state", "verdict", "worst",
	    "kind", "name", "submitter", "received_at"};
	static const size_t widths[] = {20, 12, 12, 10, 10, 40, 24, 30};
	struct table t = {8, head, NULL, 0, 0, {0}};
	const json_t *s;
	size_t i, k;
	int rc = 0;

	if (json_array_size(subs) == 0) {
		fputs("no submissions\n", stderr);
		return 0;
	}
	json_array_foreach(subs, i, s)
		for (k = 0; k < 8 && rc == 0; k++)
			rc = table_add(&t, sub_field(s, keys[k]), widths[k]);
	if (rc == 0)
		table_print(stdout, &t);
	table_free(&t);
	return rc;
}

int
cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{"state", required_argument, NULL, 's'},
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	const char *state = NULL;
	const json_t *subs;
	struct dynbuf path;
	size_t limit = 0;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		switch (ch) {
		case 's':
			if (al_state_parse(optarg) < 0)
				return usage_error(list_usage, "list",
				    "unknown state", optarg, 0);
			state = optarg;
			break;
		case 'n':
			if (al_parse_size(optarg, &limit) != 0 || limit == 0 ||
			    limit > 1000)
				return usage_error(list_usage, "list",
				    "--limit takes 1 to 1000, not", optarg, 0);
			break;
		case 'h':
			fputs(list_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(list_usage, "list", NULL, NULL, 0);
		}
	}
	if (optind < argc)
		return usage_error(list_usage, "list", "unexpected argument",
		    argv[optind], 0);
	dynbuf_init(&path, 256);
	(void)dynbuf_adds(&path, "/v1/submissions");
	if (state != NULL)
		(void)dynbuf_addf(&path, "?state=%s", state);
	if (limit > 0)
		(void)dynbuf_addf(&path, "%climit=%zu", state ? '&' : '?', limit);
	if (client_new(&c, &conf) < 0 ||
	    client_get(c, dynbuf_str(&path), &r) < 0) {
		ret = fail("list");
		goto out;
	}
	if ((ret = reply_check("list", c, &r, 200)) != EXIT_OK)
		goto out;
	subs = json_object_get(r.json, "submissions");
	if (!json_is_array(subs)) {
		fprintf(stderr, "airlock list: the gate's reply has no "
		    "submissions list\n");
		ret = EXIT_ERROR;
	} else if (conf.json) {
		ret = client_print_json(stdout, r.json) < 0 ? fail("list") :
		    EXIT_OK;
	} else {
		ret = list_print(subs) < 0 ? fail("list") : EXIT_OK;
	}
out:
	client_reply_free(&r);
	client_free(c);
	dynbuf_free(&path);
	return finish("list", ret);
}

/* ---- show -------------------------------------------------------------------- */

static void
print_member(FILE *out, const char *key, const json_t *v)
{
	size_t w;

	fputs("  ", out);
	al_term_put(out, key);
	for (w = al_utf8_count(key, strlen(key)); w < 14; w++)
		fputc(' ', out);
	fputc(' ', out);
	put_value(out, v);
	fputc('\n', out);
}

/*
 * "  key            value" for every member of an object (all hostile):
 * the keys in first (NULL-terminated) in that order, then the others.
 */
static void
print_members(FILE *out, const json_t *obj, const char *const *first)
{
	const char *const *f;
	const char *key;
	const json_t *v;

	for (f = first; *f != NULL; f++)
		if ((v = json_object_get(obj, *f)) != NULL)
			print_member(out, *f, v);
	json_object_foreach((json_t *)obj, key, v) {
		for (f = first; *f != NULL && strcmp(*f, key) != 0; f++)
			;
		if (*f == NULL)
			print_member(out, key, v);
	}
}

static void
show_print(FILE *out, const json_t *sub)
{
	static const char *const facts[] = {"state", "sha256", "kind", "name"};
	static const char *const wkeys[] = {"submitter", "launched_by", "via",
	    "peer_uid", "peer_pid", "received_at", NULL};
	static const char *const skeys[] = {"ruleset", "engine", "started_at",
	    "finished_at", NULL};
	static const char *const none[] = {NULL};
	const json_t *asserted = json_object_get(sub, "asserted");
	const json_t *witnessed = json_object_get(sub, "witnessed");
	const json_t *scan = json_object_get(sub, "scan");
	const json_t *findings = json_object_get(sub, "findings");
	char size[32];
	size_t i;

	fputs("submission ", out);
	put_value(out, json_object_get(sub, "id"));
	fputc('\n', out);
	for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		fprintf(out, "  %-14s ", facts[i]);
		put_value(out, json_object_get(sub, facts[i]));
		fputc('\n', out);
	}
	al_human_size(size, sizeof(size), json_integer_value(
	    json_object_get(sub, "size")));
	fprintf(out, "  %-14s ", "size");
	put_value(out, json_object_get(sub, "size"));
	fprintf(out, " (%s)\n  %-14s ", size, "verdict");
	print_verdict(out, sub);
	fputc('\n', out);
	if (json_is_object(witnessed)) {
		fputs("\nwitnessed by the gate\n", out);
		print_members(out, witnessed, wkeys);
	}
	fputs("\nasserted by the agent (claims, not verified)\n", out);
	if (json_object_size(asserted) > 0)
		print_members(out, asserted, none);
	else
		fputs("  (nothing)\n", out);
	if (json_is_object(scan)) {
		fputs("\nscan\n", out);
		print_members(out, scan, skeys);
	}
	if (json_is_array(findings)) {
		fputc('\n', out);
		print_findings(out, findings, out == stdout && use_color());
	}
}

/*
 * The shared start of the commands on one submission (show, diff): the
 * connection options and one ID. Returns NULL with *ret set when the
 * command is over (help, a usage error).
 */
static const char *
id_args(int argc, char **argv, const char *cmd, const char *usage,
    struct client_conf *conf, int *ret)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(conf, ch, optarg))
			continue;
		if (ch == 'h') {
			fputs(usage, stdout);
			*ret = EXIT_OK;
			return NULL;
		}
		*ret = usage_error(usage, cmd, NULL, NULL, 0);
		return NULL;
	}
	if (argc - optind != 1) {
		*ret = usage_error(usage, cmd, argc == optind ? "no ID given" :
		    "one ID at a time", NULL, 1);
		return NULL;
	}
	if (parse_id(argv[optind]) < 0) {
		*ret = usage_error(usage, cmd, "an ID is a positive number, not",
		    argv[optind], 0);
		return NULL;
	}
	return argv[optind];
}

int
cmd_show(int argc, char **argv)
{
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	const char *id;
	char path[64];
	int ret = EXIT_ERROR;

	if ((id = id_args(argc, argv, "show", show_usage, &conf, &ret)) == NULL)
		return ret;
	snprintf(path, sizeof(path), "/v1/submissions/%s", id);
	if (client_new(&c, &conf) < 0 || client_get(c, path, &r) < 0) {
		ret = fail("show");
		goto out;
	}
	if ((ret = reply_check("show", c, &r, 200)) != EXIT_OK)
		goto out;
	if (conf.json)
		ret = client_print_json(stdout, r.json) < 0 ? fail("show") :
		    EXIT_OK;
	else
		show_print(stdout, r.json);
out:
	client_reply_free(&r);
	client_free(c);
	return finish("show", ret);
}

/* ---- diff -------------------------------------------------------------------- */

static const char diff_usage[] =
    "usage: airlock diff [options] ID\n"
    "\n"
    "Prints a submission's content with its findings marked inline: for a\n"
    "patch or mailbox, each finding under the added line it is on (the\n"
    "post-image line numbers the scan reported); for a text file, under its\n"
    "line. Findings that have no line in the text (binary content, whole\n"
    "files, bundles, archive members) are listed after it, so none is\n"
    "hidden. Reading the content is recorded as a view (reviewer, auditor\n"
    "or admin token).\n"
    "\n"
    "options:\n" CLIENT_USAGE_OPTIONS;

/* Largest content diff shows: past it, ask for the bytes another way. */
#define DIFF_MAX_CONTENT ((size_t)64 << 20)

struct diff_mark {
	const char *path;
	json_int_t line;
	const json_t *f;
	int shown;
};

/* Prints the findings on (path, line) under the current line. */
static void
diff_marks(FILE *out, struct diff_mark *m, size_t n, const char *path,
    json_int_t line)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (m[i].shown || m[i].line != line || strcmp(m[i].path, path))
			continue;
		m[i].shown = 1;
		fputs("        ^^^ ", out);
		al_term_put(out, json_string_value(json_object_get(m[i].f,
		    "severity")));
		fputc(' ', out);
		al_term_put(out, json_string_value(json_object_get(m[i].f,
		    "rule")));
		fputs(": ", out);
		al_term_put(out, json_string_value(json_object_get(m[i].f,
		    "excerpt")));
		fputc('\n', out);
	}
}

/*
 * Walks a patch or mailbox as the scan named its parts: "NAME" (or
 * "NAME!/0002" per message of a series) for message text, "NAME!/file" (or
 * "NAME!/0002!/file") for what a diff adds, with post-image line numbers
 * taken from the hunk headers.
 */
static void
diff_patch(FILE *out, const char *name, const char *p, size_t len,
    struct diff_mark *m, size_t n, int series)
{
	const char *end = p + len, *next;
	char item[512], file[1024];
	json_int_t msgline = 0, newline = 0;
	long old_left = 0, new_left = 0;
	int msg = 0, prev_empty = 1, in_diff = 0;
	struct al_text t;
	size_t ln;

	snprintf(item, sizeof(item), "%s", name);
	file[0] = '\0';
	al_text_init(&t, p, len);
	while (al_text_next(&t, &p, &ln)) {
		char line[8192];

		next = t.p;
		snprintf(line, sizeof(line), "%.*s", (int)(ln < sizeof(line) - 1 ?
		    ln : sizeof(line) - 1), p);
		if (series && prev_empty && al_starts(p, ln, "From ") &&
		    old_left == 0 && new_left == 0) {
			snprintf(item, sizeof(item), "%s" AL_MEMBER_SEP "%04d", name,
			    ++msg);
			msgline = 0;
			in_diff = 0;
		}
		prev_empty = ln == 0;
		msgline++;
		al_term_put(out, line);
		fputc('\n', out);
		if (old_left > 0 || new_left > 0) {
			if (ln > 0 && p[0] == '-') {
				old_left--;
			} else if (ln > 0 && p[0] == '+') {
				diff_marks(out, m, n, file, newline);
				newline++;
				new_left--;
			} else if (ln == 0 || p[0] == ' ') {
				newline++;
				old_left--;
				new_left--;
			}
			continue;
		}
		if (al_starts(p, ln, "diff --git ") || (al_starts(p, ln,
		    "--- ") && next < end && al_starts(next, (size_t)(end - next),
		    "+++ ")))
			in_diff = 1;
		if (in_diff && al_starts(p, ln, "+++ ")) {
			const char *f = line + 4;

			if (strncmp(f, "b/", 2) == 0)
				f += 2;
			else if (strchr(f, '/') != NULL)
				f = strchr(f, '/') + 1;
			snprintf(file, sizeof(file), "%s" AL_MEMBER_SEP "%.*s", item,
			    (int)strcspn(f, "\t"), f);
			diff_marks(out, m, n, file, 0);
		} else if (in_diff && al_starts(p, ln, "@@ -")) {
			long a = 0, b = 1, c2 = 0, d = 1;
			const char *q = line + 4;
			char *e;

			a = strtol(q, &e, 10);
			if (*e == ',')
				b = strtol(e + 1, &e, 10);
			if (strncmp(e, " +", 2) == 0) {
				c2 = strtol(e + 2, &e, 10);
				if (*e == ',')
					d = strtol(e + 1, &e, 10);
			}
			(void)a;
			old_left = b;
			new_left = d;
			newline = c2;
		} else if (!in_diff) {
			diff_marks(out, m, n, item, msgline);
		}
	}
}

static void
diff_text(FILE *out, const char *name, const char *p, size_t len,
    struct diff_mark *m, size_t n)
{
	struct al_text t;
	size_t ln;

	al_text_init(&t, p, len);
	while (al_text_next(&t, &p, &ln)) {
		char buf[8192];

		snprintf(buf, sizeof(buf), "%.*s", (int)(ln < sizeof(buf) - 1 ?
		    ln : sizeof(buf) - 1), p);
		fprintf(out, "%6lld  ", (long long)t.line);
		al_term_put(out, buf);
		fputc('\n', out);
		diff_marks(out, m, n, name, (json_int_t)t.line);
	}
}

int
cmd_diff(int argc, char **argv)
{
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct diff_mark *m = NULL;
	struct dynbuf body;
	const json_t *fs;
	const char *name, *kind, *id;
	char path[96];
	long status = 0;
	size_t n = 0, i, left = 0;
	int ret = EXIT_ERROR, text, series = 0;

	if ((id = id_args(argc, argv, "diff", diff_usage, &conf, &ret)) == NULL)
		return ret;
	dynbuf_init(&body, DIFF_MAX_CONTENT);
	snprintf(path, sizeof(path), "/v1/submissions/%s", id);
	if (client_new(&c, &conf) < 0 || client_get(c, path, &r) < 0) {
		ret = fail("diff");
		goto out;
	}
	if ((ret = reply_check("diff", c, &r, 200)) != EXIT_OK)
		goto out;
	snprintf(path, sizeof(path), "/v1/submissions/%s/content",
	    id);
	if (client_get_raw(c, path, &body, &status) < 0) {
		ret = fail("diff");
		goto out;
	}
	if (status != 200) {
		fprintf(stderr, "airlock diff: the gate refused the content "
		    "(HTTP %ld): it needs a reviewer, auditor or admin token\n",
		    status);
		ret = EXIT_FINDINGS;
		goto out;
	}
	if (conf.json) {
		ret = client_print_json(stdout, r.json) < 0 ? fail("diff") :
		    EXIT_OK;
		goto out;
	}
	name = json_string_value(json_object_get(r.json, "name"));
	kind = json_string_value(json_object_get(r.json, "kind"));
	fs = json_object_get(r.json, "findings");
	n = json_array_size(fs);
	if (name == NULL || (n > 0 && (m = calloc(n, sizeof(*m))) == NULL)) {
		fprintf(stderr, "airlock diff: an unexpected reply\n");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const json_t *f = json_array_get(fs, i);
		const char *fp = json_string_value(json_object_get(f, "path"));

		m[i].path = fp ? fp : "";
		m[i].line = json_integer_value(json_object_get(f, "line"));
		m[i].f = f;
		if (strncmp(m[i].path, name, strlen(name)) == 0 &&
		    strncmp(m[i].path + strlen(name), AL_MEMBER_SEP "0", 3) == 0)
			series = 1;
	}
	text = body.len == 0 || memchr(body.data, '\0', body.len) == NULL;
	if (text && al_kind_parse(kind) != AL_KIND_BUNDLE &&
	    (strstr(body.data ? body.data : "", "\n+++ ") != NULL ||
	    strstr(body.data ? body.data : "", "diff --git ") != NULL) &&
	    al_kind_parse(kind) != AL_KIND_FILE)
		diff_patch(stdout, name, body.data, body.len, m, n, series);
	else if (text)
		diff_text(stdout, name, body.data ? body.data : "", body.len, m, n);
	else
		printf("(%zu bytes of binary content not shown)\n", body.len);
	for (i = 0; i < n; i++)
		left += !m[i].shown;
	if (left > 0) {
		printf("\n%zu finding%s not on a line shown above:\n", left,
		    left == 1 ? "" : "s");
		for (i = 0; i < n; i++) {
			if (m[i].shown)
				continue;
			fputs("  ", stdout);
			al_term_put(stdout, m[i].path);
			if (m[i].line > 0)
				printf(":%lld", (long long)m[i].line);
			fputs("  ", stdout);
			al_term_put(stdout, json_string_value(
			    json_object_get(m[i].f, "severity")));
			fputc(' ', stdout);
			al_term_put(stdout, json_string_value(
			    json_object_get(m[i].f, "rule")));
			fputs(": ", stdout);
			al_term_put(stdout, json_string_value(
			    json_object_get(m[i].f, "excerpt")));
			fputc('\n', stdout);
		}
	}
	ret = EXIT_OK;
out:
	free(m);
	dynbuf_free(&body);
	client_reply_free(&r);
	client_free(c);
	return finish("diff", ret);
}

/* ---- token ------------------------------------------------------------------- */

static int
role_check(const char *s)
{
	static const char *const roles[] = {"agent", "reviewer", "ci", "auditor",
	    "admin"};
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (strcmp(s, roles[i]) == 0)
			return 0;
	return -1;
}

/* The new token alone on stdout; what it is on stderr. */
static int
token_created(const json_t *j)
{
	const char *tok = jstr(j, "token"), *obo = jstr(j, "on_behalf_of");

	if (tok == NULL) {
		fprintf(stderr, "airlock token: the gate's reply has no token\n");
		return EXIT_ERROR;
	}
	al_term_put(stdout, tok);
	putchar('\n');
	fputs("airlock: created token ", stderr);
	put_value(stderr, json_object_get(j, "name"));
	fputs(" (", stderr);
	put_value(stderr, json_object_get(j, "role"));
	if (obo != NULL) {
		fputs(", on behalf of ", stderr);
		al_term_put(stderr, obo);
	}
	if (jstr(j, "expires_at") != NULL) {
		fputs("), expires ", stderr);
		put_value(stderr, json_object_get(j, "expires_at"));
	} else {
		fputs("), does not expire", stderr);
	}
	fputs("; it is shown only this once\n", stderr);
	return EXIT_OK;
}

static int
token_create(struct client_conf *conf, int argc, char **argv)
{
	static const struct option opts[] = {
		{"role", required_argument, NULL, 'r'},
		{"name", required_argument, NULL, 'n'},
		{"ttl", required_argument, NULL, 't'},
		{"on-behalf-of", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	const char *role = NULL, *name = NULL, *ttl = NULL, *obo = NULL;
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	json_t *body = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(conf, ch, optarg))
			continue;
		switch (ch) {
		case 'r':
			if (role_check(optarg) < 0)
				return usage_error(token_usage, "token",
				    "unknown role", optarg, 0);
			role = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 't':
			ttl = optarg;
			break;
		case 'o':
			obo = optarg;
			break;
		case 'h':
			fputs(token_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(token_usage, "token", NULL, NULL, 0);
		}
	}
	if (optind < argc)
		return usage_error(token_usage, "token", "unexpected argument",
		    argv[optind], 0);
	if (role == NULL || name == NULL)
		return usage_error(token_usage, "token", "create needs --role "
		    "and --name", NULL, 1);
	if (name[0] == '\0' || strlen(name) > CLIENT_MAX_NAME)
		return usage_error(token_usage, "token", "--name takes 1 to 255 "
		    "bytes", NULL, 0);
	if (strcmp(role, "agent") == 0 && (obo == NULL || obo[0] == '\0'))
		return usage_error(token_usage, "token", "an agent token needs "
		    "--on-behalf-of PERSON (who launched the agent)", NULL, 0);
	body = json_pack("{s:s, s:s}", "role", role, "name", name);
	if (body == NULL || (ttl != NULL && json_object_set_new(body, "ttl",
	    json_string(ttl)) < 0) || (obo != NULL && json_object_set_new(body,
	    "on_behalf_of", json_string(obo)) < 0)) {
		/* jansson refuses strings that are not UTF-8. */
		fprintf(stderr, "airlock token: names must be UTF-8\n");
		goto out;
	}
	if (client_new(&c, conf) < 0 ||
	    client_post_json(c, "/v1/tokens", body, &r) < 0) {
		ret = fail("token");
		goto out;
	}
	if ((ret = reply_check("token", c, &r, 201)) != EXIT_OK)
		goto out;
	if (conf->json)
		ret = client_print_json(stdout, r.json) < 0 ? fail("token") :
		    EXIT_OK;
	else
		ret = token_created(r.json);
out:
	json_decref(body);
	client_reply_free(&r);
	client_free(c);
	return ret;
}

/* token list and token revoke: no options of their own. */
static int
token_simple(struct client_conf *conf, int argc, char **argv, int revoke)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	static const char *const head[] = {"NAME", "ROLE", "ON-BEHALF-OF",
	    "CREATED", "EXPIRES", "REVOKED"};
	static const char *const keys[] = {"name", "role", "on_behalf_of",
	    "created_at", "expires_at", "revoked_at"};
	struct table t = {6, head, NULL, 0, 0, {0}};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct dynbuf path;
	const json_t *toks, *tok;
	size_t i, k;
	int ch, rc = 0, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(conf, ch, optarg))
			continue;
		if (ch == 'h') {
			fputs(token_usage, stdout);
			return EXIT_OK;
		}
		return usage_error(token_usage, "token", NULL, NULL, 0);
	}
	if (argc - optind != (revoke ? 1 : 0))
		return usage_error(token_usage, "token", revoke ? "revoke takes "
		    "one NAME" : "list takes no arguments", NULL, 1);
	dynbuf_init(&path, 4096);
	if (revoke && (argv[optind][0] == '\0' ||
	    dynbuf_adds(&path, "/v1/tokens/") < 0 ||
	    client_url_escape(&path, argv[optind]) < 0)) {
		dynbuf_free(&path);
		return usage_error(token_usage, "token", "bad token name",
		    argv[optind], 0);
	}
	if (!revoke)
		(void)dynbuf_adds(&path, "/v1/tokens");
	if (client_new(&c, conf) < 0 || (revoke ?
	    client_delete(c, dynbuf_str(&path), &r) :
	    client_get(c, dynbuf_str(&path), &r)) < 0) {
		ret = fail("token");
		goto out;
	}
	if ((ret = reply_check("token", c, &r, 200)) != EXIT_OK)
		goto out;
	if (conf->json) {
		ret = client_print_json(stdout, r.json) < 0 ? fail("token") :
		    EXIT_OK;
		goto out;
	}
	if (revoke) {
		fputs("revoked token ", stdout);
		al_term_put(stdout, argv[optind]);
		putchar('\n');
		goto out;
	}
	toks = json_object_get(r.json, "tokens");
	json_array_foreach(toks, i, tok)
		for (k = 0; k < 6 && rc == 0; k++)
			rc = table_add(&t, json_object_get(tok, keys[k]), 40);
	if (rc < 0)
		ret = fail("token");
	else if (t.n == 0)
		fputs("no tokens\n", stderr);
	else
		table_print(stdout, &t);
out:
	table_free(&t);
	client_reply_free(&r);
	client_free(c);
	dynbuf_free(&path);
	return ret;
}

int
cmd_token(int argc, char **argv)
{
	struct client_conf conf = {0};
	const char *sub = argc > 1 ? argv[1] : NULL;
	int ret;

	if (sub == NULL)
		return usage_error(token_usage, "token", "create, list or revoke?",
		    NULL, 1);
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0 ||
	    strcmp(sub, "help") == 0) {
		fputs(token_usage, stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "create") == 0)
		ret = token_create(&conf, argc - 1, argv + 1);
	else if (strcmp(sub, "list") == 0)
		ret = token_simple(&conf, argc - 1, argv + 1, 0);
	else if (strcmp(sub, "revoke") == 0)
		ret = token_simple(&conf, argc - 1, argv + 1, 1);
	else
		return usage_error(token_usage, "token", "unknown subcommand",
		    sub, 0);
	return finish("token", ret);
}

/* ---- decisions and release ------------------------------------------------- */

static const char approve_usage[] =
    "usage: airlock approve [options] ID [-m TEXT]\n"
    "\n"
    "Approves a held submission: exactly its bytes (sha256) as scanned by\n"
    "its latest rule set, both read from the gate and sent back with the\n"
    "approval. Fetch the content first (airlock diff ID): the gate refuses\n"
    "an approval from someone who never read it, from the submitter, and\n"
    "from the person who launched the submitting agent. Once the policy's\n"
    "number of distinct approvers is reached, the submission is approved.\n"
    "\n"
    "options:\n"
    "  -m, --message TEXT   a comment recorded with the approval\n"
    CLIENT_USAGE_OPTIONS;

static const char reject_usage[] =
    "usage: airlock reject [options] ID -m TEXT\n"
    "\n"
    "Rejects a held submission, for good: these bytes cannot be released.\n"
    "\n"
    "options:\n"
    "  -m, --message TEXT   why (required)\n"
    CLIENT_USAGE_OPTIONS;

static const char override_usage[] =
    "usage: airlock override [options] ID -m REASON\n"
    "\n"
    "An admin's override of an unscannable verdict, with the reason: the\n"
    "policy's approvals are still needed after it.\n"
    "\n"
    "options:\n"
    "  -m, --message TEXT   the reason (required)\n"
    CLIENT_USAGE_OPTIONS;

static const char release_usage[] =
    "usage: airlock release [options] ID [-o FILE]\n"
    "\n"
    "Releases an approved submission: the gate reads the stored bytes again,\n"
    "refuses if they no longer match the approved sha256, and signs a\n"
    "release statement (in-toto Statement v1 in a DSSE envelope, Ed25519),\n"
    "which is printed (or written to FILE) for `airlock verify` in CI.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE    write the attestation there, not to stdout\n"
    CLIENT_USAGE_OPTIONS;

static const char pull_usage[] =
    "usage: airlock pull [options] ID [-o PATH]\n"
    "\n"
    "Fetches released bytes (checked against their sha256): a patch or\n"
    "mailbox goes to stdout (airlock pull 42 | git am); a bundle is written\n"
    "to PATH (default: its name), for git fetch; an archive is unpacked into\n"
    "the directory PATH (required), safely: no absolute names, no '..', no\n"
    "links leaving it, no special files; a file is written to PATH.\n"
    "\n"
    "options:\n"
    "  -o, --output PATH    where to write (see above)\n"
    CLIENT_USAGE_OPTIONS;

/* approve, reject, override: a POST with a small JSON body. */
static int
decide(int argc, char **argv, const char *cmd, const char *usage,
    const char *action, int need_text, const char *text_key)
{
	static const struct option opts[] = {
		{"message", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL}, show = {0, NULL};
	struct client *c = NULL;
	const char *text = NULL, *id;
	char path[96];
	json_t *body = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "hm:", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'm') {
			text = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		return usage_error(usage, cmd, NULL, NULL, 0);
	}
	if (argc - optind != 1)
		return usage_error(usage, cmd, argc == optind ? "no ID given" :
		    "one ID at a time", NULL, 1);
	id = argv[optind];
	if (parse_id(id) < 0)
		return usage_error(usage, cmd, "an ID is a positive number, not",
		    id, 0);
	if (need_text && (text == NULL || text[0] == '\0'))
		return usage_error(usage, cmd, "-m TEXT is required: say why",
		    NULL, 1);
	if (client_new(&c, &conf) < 0) {
		ret = fail(cmd);
		goto out;
	}
	if (strcmp(action, "approve") == 0) {
		/* What is approved: the bytes and the rules the gate reports
		 * now; if they change before the approval lands, it is
		 * refused. */
		snprintf(path, sizeof(path), "/v1/submissions/%s", id);
		if (client_get(c, path, &show) < 0) {
			ret = fail(cmd);
			goto out;
		}
		if ((ret = reply_check(cmd, c, &show, 200)) != EXIT_OK)
			goto out;
		body = json_pack("{s:s?, s:s?}", "sha256", jstr(show.json,
		    "sha256"), "ruleset", jstr(json_object_get(show.json, "scan"),
		    "ruleset"));
		if (body != NULL && text != NULL)
			json_object_set_new(body, "comment", json_string(text));
		if (body != NULL && !json_is_string(json_object_get(body,
		    "ruleset"))) {
			fprintf(stderr, "airlock %s: submission %s has no finished "
			    "scan yet\n", cmd, id);
			ret = EXIT_REFUSED;
			goto out;
		}
	} else {
		body = json_pack("{s:s}", text_key, text);
	}
	snprintf(path, sizeof(path), "/v1/submissions/%s/%s", id, action);
	if (body == NULL || client_post_json(c, path, body, &r) < 0) {
		ret = fail(cmd);
		goto out;
	}
	if ((ret = reply_check(cmd, c, &r, 200)) != EXIT_OK)
		goto out;
	if (conf.json) {
		ret = client_print_json(stdout, r.json) < 0 ? fail(cmd) : EXIT_OK;
		goto out;
	}
	printf("submission %s: ", id);
	al_term_put(stdout, jstr(r.json, "state"));
	printf(" (%lld of %lld approvals%s)\n", (long long)json_integer_value(
	    json_object_get(r.json, "approvals")), (long long)json_integer_value(
	    json_object_get(r.json, "needed")), json_is_true(json_object_get(
	    r.json, "override")) ? ", overridden" : "");
out:
	json_decref(body);
	client_reply_free(&r);
	client_reply_free(&show);
	client_free(c);
	return finish(cmd, ret);
}

int
cmd_approve(int argc, char **argv)
{
	return decide(argc, argv, "approve", approve_usage, "approve", 0,
	    "comment");
}

int
cmd_reject(int argc, char **argv)
{
	return decide(argc, argv, "reject", reject_usage, "reject", 1,
	    "comment");
}

int
cmd_override(int argc, char **argv)
{
	return decide(argc, argv, "override", override_usage, "override", 1,
	    "reason");
}

/* Writes n bytes to path (mode 0644, refusing to follow a link). */
static int
write_file(const char *path, const char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	ssize_t k;

	if (fd < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	while (n > 0) {
		k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(fd);
			return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
		}
		p += k;
		n -= (size_t)k;
	}
	if (close(fd) < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	return 0;
}

int
cmd_release(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	const char *output = NULL;
	char path[96], *text = NULL;
	json_t *empty = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'o') {
			output = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(release_usage, stdout);
			return EXIT_OK;
		}
		return usage_error(release_usage, "release", NULL, NULL, 0);
	}
	if (argc - optind != 1 || parse_id(argv[optind]) < 0)
		return usage_error(release_usage, "release", "one submission ID "
		    "is needed", NULL, 1);
	snprintf(path, sizeof(path), "/v1/submissions/%s/release",
	    argv[optind]);
	if ((empty = json_object()) == NULL || client_new(&c, &conf) < 0 ||
	    client_post_json(c, path, empty, &r) < 0) {
		ret = fail("release");
		goto out;
	}
	if (r.status == 200 && json_object_get(r.json, "payload") != NULL) {
		text = json_dumps(r.json, JSON_INDENT(2) | JSON_SORT_KEYS);
		if (text == NULL) {
			ret = fail("release");
			goto out;
		}
		ret = output ? (write_file(output, text, strlen(text)) < 0 ?
		    fail("release") : EXIT_OK) : (printf("%s\n", text) < 0 ?
		    EXIT_ERROR : EXIT_OK);
		if (ret == EXIT_OK && output != NULL)
			fprintf(stderr, "airlock release: submission %s released; "
			    "attestation in %s\n", argv[optind], output);
	} else {
		ret = reply_check("release", c, &r, 200);
		if (ret == EXIT_OK)
			ret = EXIT_ERROR;
	}
out:
	free(text);
	json_decref(empty);
	client_reply_free(&r);
	client_free(c);
	return finish("release", ret);
}

/* Unpacks the archive in data into the directory dir, refusing what would
 * land outside it or is not a plain file, directory or inner link. */
static int
unpack_safely(const char *data, size_t n, const char *dir)
{
	struct archive *a = archive_read_new();
	struct archive *w = archive_write_disk_new();
	struct archive_entry *e;
	int r, rc = 0;

	if (a == NULL || w == NULL) {
		archive_read_free(a);
		archive_write_free(w);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
	    ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
	    ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = al_err_set(AL_EIO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (archive_read_open_memory(a, data, n) != ARCHIVE_OK) {
		rc = al_err_set(AL_EINVAL, "not an archive: %s",
		    archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		mode_t t = archive_entry_filetype(e);
		const char *name = archive_entry_pathname(e);
		struct dynbuf full;

		if (t != AE_IFREG && t != AE_IFDIR && t != AE_IFLNK) {
			fprintf(stderr, "airlock pull: skipped %s: not a file, "
			    "directory or link\n", name ? name : "?");
			continue;
		}
		if (archive_entry_hardlink(e) != NULL) {
			fprintf(stderr, "airlock pull: skipped a hard link\n");
			continue;
		}
		/* libarchive's secure flags stop writes through links, not
		 * links that point out: those are refused here. */
		if (t == AE_IFLNK && (archive_entry_symlink(e) == NULL ||
		    name == NULL || al_link_escapes(name,
		    archive_entry_symlink(e)))) {
			rc = al_err_set(AL_EINVAL, "entry %s: a symbolic link out of "
			    "the directory; nothing more is unpacked", name ? name :
			    "?");
			break;
		}
		if (name == NULL || al_name_problem(name, 1) != NULL) {
			rc = al_err_set(AL_EINVAL, "entry %s: %s; nothing more is "
			    "unpacked", name ? name : "?", name ?
			    al_name_problem(name, 1) : "no name");
			break;
		}
		/* setuid, setgid and sticky bits are dropped. */
		archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
		dynbuf_init(&full, 8192);
		if (dynbuf_addf(&full, "%s/%s", dir, name) < 0) {
			dynbuf_free(&full);
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		archive_entry_set_pathname(e, dynbuf_str(&full));
		dynbuf_free(&full);
		if (archive_write_header(w, e) < ARCHIVE_WARN ||
		    archive_write_data_block(w, NULL, 0, 0) < ARCHIVE_WARN) {
			rc = al_err_set(AL_EIO, "unpacking: %s",
			    archive_error_string(w));
			break;
		}
		if (t == AE_IFREG) {
			const void *buf;
			size_t len;
			la_int64_t off;

			while ((r = archive_read_data_block(a, &buf, &len, &off)) ==
			    ARCHIVE_OK)
				if (archive_write_data_block(w, buf, len, off) <
				    ARCHIVE_WARN) {
					r = ARCHIVE_FATAL;
					break;
				}
			if (r != ARCHIVE_EOF) {
				rc = al_err_set(AL_EIO, "unpacking: %s",
				    archive_error_string(a));
				break;
			}
		}
		archive_write_finish_entry(w);
	}
	if (rc == 0 && r != ARCHIVE_EOF && r != ARCHIVE_OK)
		rc = al_err_set(AL_EINVAL, "a damaged archive: %s",
		    archive_error_string(a));
out:
	archive_read_free(a);
	archive_write_free(w);
	return rc;
}

int
cmd_pull(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct dynbuf body;
	const char *output = NULL, *sha, *name;
	char path[96], got[AL_SHA256_HEX];
	long status = 0;
	int ch, ret = EXIT_ERROR;
	enum al_kind kind;

	dynbuf_init(&body, (size_t)1 << 30);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'o') {
			output = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(pull_usage, stdout);
			return EXIT_OK;
		}
		return usage_error(pull_usage, "pull", NULL, NULL, 0);
	}
	if (argc - optind != 1 || parse_id(argv[optind]) < 0)
		return usage_error(pull_usage, "pull", "one submission ID is "
		    "needed", NULL, 1);
	snprintf(path, sizeof(path), "/v1/submissions/%s", argv[optind]);
	if (client_new(&c, &conf) < 0 || client_get(c, path, &r) < 0) {
		ret = fail("pull");
		goto out;
	}
	if ((ret = reply_check("pull", c, &r, 200)) != EXIT_OK)
		goto out;
	ret = EXIT_ERROR;
	sha = jstr(r.json, "sha256");
	name = jstr(r.json, "name");
	if (sha == NULL || name == NULL ||
	    al_state_parse(jstr(r.json, "state")) != AL_STATE_RELEASED) {
		fprintf(stderr, "airlock pull: submission %s is not released\n",
		    argv[optind]);
		ret = EXIT_REFUSED;
		goto out;
	}
	snprintf(path, sizeof(path), "/v1/submissions/%s/content",
	    argv[optind]);
	if (client_get_raw(c, path, &body, &status) < 0) {
		ret = fail("pull");
		goto out;
	}
	if (status != 200) {
		fprintf(stderr, "airlock pull: the gate refused the content (HTTP "
		    "%ld)\n", status);
		ret = EXIT_REFUSED;
		goto out;
	}
	/* The bytes are those released, or nothing is written. */
	al_sha256_hex(got, body.data ? body.data : "", body.len);
	if (strcmp(got, sha) != 0) {
		fprintf(stderr, "airlock pull: the bytes received do not match the "
		    "released sha256; nothing written\n");
		goto out;
	}
	kind = scan_sniff_kind(body.data ? body.data : "", body.len < 65536 ?
	    body.len : 65536, name, 1);
	if (kind == AL_KIND_PATCH || kind == AL_KIND_MBOX) {
		ret = output ? (write_file(output, body.data, body.len) < 0 ?
		    fail("pull") : EXIT_OK) : (fwrite(body.data, 1, body.len,
		    stdout) == body.len ? EXIT_OK : EXIT_ERROR);
	} else if (kind == AL_KIND_ARCHIVE) {
		if (output == NULL) {
			ret = usage_error(pull_usage, "pull", "an archive needs -o "
			    "DIR to unpack into", NULL, 0);
			goto out;
		}
		ret = unpack_safely(body.data, body.len, output) < 0 ?
		    fail("pull") : EXIT_OK;
	} else {
		const char *base = strrchr(name, '/');

		ret = write_file(output ? output : base ? base + 1 : name,
		    body.data ? body.data : "", body.len) < 0 ? fail("pull") :
		    EXIT_OK;
	}
out:
	dynbuf_free(&body);
	client_reply_free(&r);
	client_free(c);
	return finish("pull", ret);
}

static const char reload_usage[] =
    "usage: airlock rules reload [options]\n"
    "\n"
    "Tells the running gate to reload its rules (as SIGHUP does): it\n"
    "restarts with the rule directory as it is on disk, and held or approved\n"
    "submissions that other rules scanned are scanned again; an approval\n"
    "then counts only if the new scan found nothing it did not see. Needs an\n"
    "admin token.\n"
    "\n"
    "options:\n" CLIENT_USAGE_OPTIONS;

int
cmd_rules_reload(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	json_t *empty = NULL;
	int ch, ret = EXIT_ERROR;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'h') {
			fputs(reload_usage, stdout);
			return EXIT_OK;
		}
		return usage_error(reload_usage, "rules reload", NULL, NULL, 0);
	}
	if (optind != argc)
		return usage_error(reload_usage, "rules reload", "unexpected "
		    "argument", argv[optind], 1);
	if ((empty = json_object()) == NULL || client_new(&c, &conf) < 0 ||
	    client_post_json(c, "/v1/rules/reload", empty, &r) < 0) {
		ret = fail("rules reload");
		goto out;
	}
	if ((ret = reply_check("rules reload", c, &r, 202)) == EXIT_OK)
		fprintf(stderr, "airlock rules reload: the gate is restarting with "
		    "the rules on disk\n");
out:
	json_decref(empty);
	client_reply_free(&r);
	client_free(c);
	return finish("rules reload", ret);
}
