/*
 * common.c - what the client commands share (declared in client_int.h):
 * usage and error reports, the check of a gate's reply, the printing of
 * values, tables, verdicts and findings, the ID argument of the commands
 * on one submission, writing a file, and --json output.
 *
 * Trust: every value printed here came from the gate's reply and may have
 * come from an agent or an artifact (names, labels, paths, excerpts, rule
 * ids even, the gate's own error messages): it is escaped before it
 * reaches a terminal (al_term_put, al_term_escape), table cells are cut on
 * a character boundary after escaping, and --json output is ASCII-only, so
 * a hostile name cannot drive or reorder what the terminal shows. Text
 * the gate sends by the text scheme (docs/api.md, "Text that is not
 * UTF-8") is printed from its bytes, "<key>_hex", when it has them, so a
 * reviewer reads \xff where the artifact has that byte, not a U+FFFD that
 * could stand for any. Nothing here sees the token.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "term.h"
#include "util.h"

/*
 * A usage error: the message (and the offending argument, escaped) alone
 * for a bad value; with the usage when fmt is NULL (getopt has spoken) or
 * an argument is missing (full).
 */
int
cli_usage_error(const char *usage, const char *cmd, const char *fmt,
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
int
cli_fail(const char *cmd)
{
	fprintf(stderr, "airlock %s: ", cmd);
	al_term_put(stderr, al_err_msg());
	fputc('\n', stderr);
	return EXIT_ERROR;
}

const char *
cli_jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Checks a reply: EXIT_OK when its status is want and it carries a JSON
 * object, else prints why (the server's message, escaped) and returns
 * EXIT_REFUSED for a refusal, EXIT_ERROR for anything else.
 */
int
cli_reply_check(const char *cmd, const struct client *c,
    const struct client_reply *r, long want)
{
	const char *msg = cli_jstr(r->json, "error");
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

int
cli_text(const json_t *o, const char *key, struct dynbuf *out)
{
	const json_t *v = json_object_get(o, key);
	int rc;

	if (!json_is_string(v))
		return al_err_set(AL_ENOTFOUND, "no text %s", key);
	/* A sibling that contradicts its string is not believed: the string
	 * is what the gate said. */
	if ((rc = al_json_text_bytes(o, key, out)) == AL_EINVAL)
		rc = dynbuf_add(out, json_string_value(v), json_string_length(v));
	return rc;
}

int
cli_text_shown(const json_t *o, const char *key, struct dynbuf *out)
{
	struct dynbuf raw;
	int rc;

	dynbuf_init(&raw, (size_t)1 << 20);
	if ((rc = cli_text(o, key, &raw)) == 0)
		rc = al_term_escape(out, raw.data ? raw.data : "", raw.len);
	dynbuf_free(&raw);
	return rc;
}

void
cli_put_text(FILE *out, const json_t *o, const char *key)
{
	struct dynbuf b;

	if (!json_is_string(json_object_get(o, key))) {
		cli_put_value(out, json_object_get(o, key));
		return;
	}
	dynbuf_init(&b, (size_t)4 << 20);
	if (cli_text_shown(o, key, &b) == 0)
		fputs(dynbuf_str(&b), out);
	else
		fputs("(too long to show)", out);
	dynbuf_free(&b);
}

/* Prints a value (hostile) escaped; an absent one as "-". */
void
cli_put_value(FILE *out, const json_t *v)
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

int
cli_use_color(void)
{
	return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
}

/* Flushes stdout; a failed write is an error too (a full disk, a pipe). */
int
cli_finish(const char *cmd, int ret)
{
	if (fflush(stdout) != 0) {
		fprintf(stderr, "airlock %s: writing output: %s\n", cmd,
		    strerror(errno));
		return EXIT_ERROR;
	}
	return ret;
}

/* An id as docs/api.md has them: a positive decimal integer. */
int
cli_parse_id(const char *s)
{
	size_t v;

	return al_parse_size(s, &v) == 0 && v > 0 && strlen(s) <= 18 ? 0 : -1;
}

/* ---- tables ------------------------------------------------------------------ */

/* The next cell: the text member key of o (its bytes), or the value v
 * when o is NULL; escaped, cut to at most max characters. */
static int
table_add(struct cli_table *t, const json_t *o, const char *key,
    const json_t *v, size_t max)
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
	if (o != NULL && json_is_string(json_object_get(o, key)))
		rc = cli_text(o, key, &raw);
	else if (o != NULL)
		rc = (v = json_object_get(o, key)) != NULL ? value_text(&raw, v) :
		    dynbuf_adds(&raw, "-");
	else
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
		/* At least four characters were cut: the dots fit where they
		 * were, in memory already allocated. */
		AL_ASSERT(dynbuf_adds(&esc, "...") == 0);
		w = max;
	}
	if (w > t->width[t->n % t->ncols])
		t->width[t->n % t->ncols] = w;
	t->cells[t->n++] = dynbuf_take(&esc, NULL);
	return 0;
}

int
cli_table_add(struct cli_table *t, const json_t *v, size_t max)
{
	return table_add(t, NULL, NULL, v, max);
}

int
cli_table_add_text(struct cli_table *t, const json_t *o, const char *key,
    size_t max)
{
	return table_add(t, o, key, NULL, max);
}

void
cli_table_print(FILE *out, struct cli_table *t)
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

void
cli_table_free(struct cli_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* ---- findings ---------------------------------------------------------------- */

/* The findings of a submission, grouped by path as `airlock scan` does. */
void
cli_print_findings(FILE *out, const json_t *findings, int color)
{
	size_t n = json_array_size(findings), i;
	struct al_finding_row *rows = NULL;
	struct dynbuf *text = NULL;  /* per finding: rule, path, excerpt */
	const json_t *f;

	if (n > 0 && ((rows = calloc(n, sizeof(*rows))) == NULL ||
	    (text = calloc(3 * n, sizeof(*text))) == NULL)) {
		free(rows);
		fputs("airlock: out of memory\n", stderr);
		return;
	}
	json_array_foreach(findings, i, f) {
		const char *sev = cli_jstr(f, "severity");
		const json_t *rule = json_object_get(f, "rule");
		struct dynbuf *t = &text[3 * i];

		/* Path and excerpt from their bytes, shown escaped (the
		 * printer escapes again, which changes nothing). */
		dynbuf_init(&t[0], (size_t)1 << 20);
		dynbuf_init(&t[1], (size_t)4 << 20);
		dynbuf_init(&t[2], (size_t)4 << 20);
		if (cli_text_shown(f, "path", &t[1]) < 0)
			dynbuf_reset(&t[1]);
		if (cli_text_shown(f, "excerpt", &t[2]) < 0)
			dynbuf_reset(&t[2]);
		rows[i].path = dynbuf_str(&t[1]);
		rows[i].severity = sev ? sev : "?";
		rows[i].line = json_integer_value(json_object_get(f, "line"));
		rows[i].column = json_integer_value(json_object_get(f, "column"));
		rows[i].excerpt = dynbuf_str(&t[2]);
		/* The rule as put_value shows a value: "-" when absent. */
		if ((rule == NULL ? dynbuf_addc(&t[0], '-') :
		    value_text(&t[0], rule)) < 0)
			dynbuf_reset(&t[0]);
		rows[i].rule = dynbuf_str(&t[0]);
	}
	al_findings_print(out, rows, n, color);
	fputc('\n', out);
	for (i = 0; i < 3 * n; i++)
		dynbuf_free(&text[i]);
	free(text);
	free(rows);
}

/* "flagged (worst critical)", or what the verdict is. */
void
cli_print_verdict(FILE *out, const json_t *sub)
{
	const json_t *worst = json_object_get(sub, "worst");

	cli_put_value(out, json_object_get(sub, "verdict"));
	if (json_is_string(worst)) {
		fputs(" (worst ", out);
		cli_put_value(out, worst);
		fputc(')', out);
	}
}

/* ---- one submission, files, output ------------------------------------------ */

/*
 * The shared start of the commands on one submission (show, diff): the
 * connection options and one ID. Returns NULL with *ret set when the
 * command is over (help, a usage error).
 */
const char *
cli_id_args(int argc, char **argv, const char *cmd, const char *usage,
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
		*ret = cli_usage_error(usage, cmd, NULL, NULL, 0);
		return NULL;
	}
	if (argc - optind != 1) {
		*ret = cli_usage_error(usage, cmd, argc == optind ?
		    "no ID given" : "one ID at a time", NULL, 1);
		return NULL;
	}
	if (cli_parse_id(argv[optind]) < 0) {
		*ret = cli_usage_error(usage, cmd, "an ID is a positive "
		    "number, not", argv[optind], 0);
		return NULL;
	}
	return argv[optind];
}

/* Writes n bytes to path (mode 0644, refusing to follow a link). */
int
cli_write_file(const char *path, const char *p, size_t n)
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
client_print_json(FILE *out, const json_t *j)
{
	/* ASCII only: a hostile name cannot reorder what a terminal shows. */
	if (json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII) < 0)
		return al_err_set(AL_EIO, "writing JSON: %s", strerror(errno));
	fputc('\n', out);
	return 0;
}
