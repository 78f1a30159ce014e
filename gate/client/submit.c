/*
 * submit.c - `airlock submit`: sends a file, a directory (packed as a tar
 * by tarpack.c) or standard input into quarantine at the gate, streamed,
 * never held in memory; with --wait, polls the submission until its scan
 * is done and prints the verdict and the findings.
 *
 * Trust: the path and its bytes are the caller's own; the name and the
 * labels are checked against the limits of docs/api.md (UTF-8 text among
 * them) before anything is sent. What the gate returns (the state, the verdict, the findings'
 * paths, rules and excerpts) came from an agent or an artifact and is
 * escaped before it is printed; --json prints the server's document,
 * pretty and ASCII-only. The token is never printed.
 *
 * Exit status: 0 submitted (with --wait: a clean verdict), 1 refused by the
 * gate (401, 403, 404, 409, 413) or, with --wait, a verdict that is not
 * clean (fail closed), 2 usage, transport or server errors and --wait
 * timeouts.
 */
#include <errno.h>
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
#include "client_int.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "os.h"
#include "tarpack.h"
#include "term.h"
#include "util.h"
#include "vocab.h"

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
    "  --kind KIND          auto (default), file, archive, patch, mbox or\n"
    "                       bundle: a label. The gate reads the content as\n"
    "                       what it is; a kind it contradicts is a finding\n"
    "  --name NAME          the artifact's name (default: PATH's base name)\n"
    "  --label KEY=VALUE    what you assert about it (task, model, base\n"
    "                       commit...); repeatable, at most 32\n"
    "  --wait               wait for the scan, print its verdict and findings\n"
    "  --timeout SECONDS    how long --wait waits (default 600)\n"
    CLIENT_USAGE_OPTIONS
    "\n"
    "exit status: 0 submitted (with --wait: verdict clean), 1 refused by the\n"
    "gate (with --wait: flagged or unscannable), 2 error or --wait timeout\n";

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

	static const size_t sn = sizeof(AL_JSON_HEX_SUFFIX) - 1;

	if (eq == NULL || eq == kv || (size_t)(eq - kv) > CLIENT_MAX_LABEL_KEY ||
	    strlen(eq + 1) > CLIENT_MAX_LABEL_VALUE ||
	    !al_text_plain(eq + 1, strlen(eq + 1)))
		return -1;
	for (p = kv; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		    *p == '-'))
			return -1;
	/* "<key>_hex" is the text scheme's (docs/api.md): the gate refuses it. */
	if ((size_t)(eq - kv) > sn && memcmp(eq - sn, AL_JSON_HEX_SUFFIX,
	    sn) == 0)
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
			return cli_fail("submit");
		if ((ret = cli_reply_check("submit", c, out, 200)) != EXIT_OK)
			return ret;
		state = cli_jstr(out->json, "state");
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
	const char *verdict = cli_jstr(sub, "verdict");

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
	cli_print_verdict(stdout, sub);
	fputc('\n', stdout);
	if (json_is_array(findings) && json_array_size(findings) > 0) {
		fputc('\n', stdout);
		cli_print_findings(stdout, findings, cli_use_color());
	}
	if (verdict_status(sub) == EXIT_ERROR) {
		fputs("airlock submit: the gate gave no verdict (state ", stderr);
		cli_put_value(stderr, json_object_get(sub, "state"));
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
				return cli_usage_error(submit_usage, "submit",
				    "unknown kind", optarg, 0);
			o->kind = optarg;
			break;
		case 'n':
			if (optarg[0] == '\0' || strlen(optarg) > CLIENT_MAX_NAME ||
			    !al_text_plain(optarg, strlen(optarg)))
				return cli_usage_error(submit_usage, "submit",
				    "--name takes 1 to 255 bytes of UTF-8 text, "
				    "not", optarg, 0);
			o->name = optarg;
			break;
		case 'l':
			if (label_check(optarg) < 0)
				return cli_usage_error(submit_usage, "submit",
				    "a label is KEY=VALUE, KEY of at most 64 "
				    "characters [A-Za-z0-9._-] not ending in "
				    "_hex, VALUE of at most 1024 bytes of UTF-8 "
				    "text; not", optarg, 0);
			if (o->nlabels == CLIENT_MAX_LABELS)
				return cli_usage_error(submit_usage, "submit",
				    "at most 32 labels", NULL, 0);
			o->labels[o->nlabels++] = optarg;
			break;
		case 'w':
			o->wait = 1;
			break;
		case 'T':
			if (al_parse_size(optarg, &o->timeout) != 0 ||
			    o->timeout == 0 || o->timeout > SUBMIT_WAIT_MAX)
				return cli_usage_error(submit_usage, "submit",
				    "--timeout takes 1 to 86400 seconds, not",
				    optarg, 0);
			break;
		case 'h':
			fputs(submit_usage, stdout);
			return EXIT_OK;
		default:
			return cli_usage_error(submit_usage, "submit", NULL,
			    NULL, 0);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(submit_usage, "submit", argc == optind ?
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
	if ((o.name != NULL && dynbuf_adds(&name, o.name) < 0) ||
	    client_new(&c, &conf) < 0 ||
	    submit_open(argv[optind], &kind, &name, &fd, &len) < 0 ||
	    (name.len > CLIENT_MAX_NAME && al_err_set(AL_EINVAL, "the name "
	    "is longer than %u bytes: give a shorter one with --name",
	    CLIENT_MAX_NAME) < 0) ||
	    /* The gate takes names in UTF-8 only (docs/api.md): said here,
	     * before the bytes are sent. */
	    (!al_text_plain(name.data ? name.data : "", name.len) &&
	    al_err_set(AL_EINVAL, "the name %s is not UTF-8 text: give one "
	    "with --name", dynbuf_str(&name)) < 0) ||
	    submit_path(&path, &o, kind, dynbuf_str(&name)) < 0 ||
	    client_post_fd(c, dynbuf_str(&path), fd, len,
	    isatty(STDERR_FILENO), &r) < 0) {
		ret = cli_fail("submit");
		goto out;
	}
	if ((ret = cli_reply_check("submit", c, &r, 201)) != EXIT_OK)
		goto out;
	id = json_integer_value(json_object_get(r.json, "id"));
	sha = cli_jstr(r.json, "sha256");
	if (id <= 0 || sha == NULL) {
		fprintf(stderr, "airlock submit: the gate's reply has no id or "
		    "sha256\n");
		ret = EXIT_ERROR;
		goto out;
	}
	if (conf.json && !o.wait) {
		ret = client_print_json(stdout, r.json) < 0 ?
		    cli_fail("submit") : EXIT_OK;
		goto out;
	}
	if (!conf.json) {
		al_human_size(size, sizeof(size), json_integer_value(
		    json_object_get(r.json, "size")));
		printf("submitted %lld sha256:", (long long)id);
		al_term_put(stdout, sha);
		printf(" (%s) state ", size);
		cli_put_value(stdout, json_object_get(r.json, "state"));
		putchar('\n');
		fflush(stdout);
	}
	if (!o.wait)
		goto out;
	if ((ret = submit_wait(c, id, o.timeout, &r)) != EXIT_OK)
		goto out;
	if (conf.json) {
		if (client_print_json(stdout, r.json) < 0) {
			ret = cli_fail("submit");
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
	return cli_finish("submit", ret);
}
