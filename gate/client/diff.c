/*
 * diff.c - `airlock diff`: prints a submission's content with its findings
 * marked inline, each under the added line of a patch or mailbox it is on
 * (post-image line numbers read from the hunk headers, as the scan
 * reported them) or under its line of a text file; findings that have no
 * line in the text are listed after it, so none is hidden. An archive or
 * a bundle is shown as the scan read it: the tree of its items, then each
 * text member's lines (fetched one by one from the gate, which kept the
 * bytes the sandboxed scan child sent and checked) with its findings, and
 * each binary member described. The client never unpacks the artifact.
 *
 * Trust: the content is the artifact itself, hostile, and so are the
 * findings' paths, rules and excerpts: every line is escaped before it is
 * printed (long lines are cut for display), binary content is not shown,
 * and at most DIFF_MAX_CONTENT bytes are read; a member's bytes are shown
 * only if they hash to the sha256 its item gives. The gate records the
 * read as a view (and each member's as view.item). The token is never
 * printed.
 *
 * Exit status: 0 shown, 1 refused by the gate (the content needs a
 * reviewer, auditor or admin token), 2 usage, transport or server errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "gate.h"
#include "path.h"
#include "term.h"
#include "text.h"
#include "util.h"
#include "vocab.h"

static const char diff_usage[] =
    "usage: airlock diff [options] ID\n"
    "\n"
    "Prints a submission's content with its findings marked inline: for a\n"
    "patch or mailbox, each finding under the added line it is on (the\n"
    "post-image line numbers the scan reported); for a text file, under its\n"
    "line. An archive or a bundle is shown as its tree of items (mode,\n"
    "size, type, sha256), then each text member with its findings under\n"
    "their lines; binary members are described, never printed. Findings\n"
    "that have no line in the text are listed after it, so none is\n"
    "hidden. Reading the content is recorded as a view (reviewer, auditor\n"
    "or admin token).\n"
    "\n"
    "options:\n" CLIENT_USAGE_OPTIONS;

/* Largest content diff shows: past it, ask for the bytes another way. */
#define DIFF_MAX_CONTENT ((size_t)64 << 20)

struct diff_mark {
	char *path;               /* the finding's path, its bytes (owned) */
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
		cli_put_text(out, m[i].f, "severity");
		fputc(' ', out);
		cli_put_text(out, m[i].f, "rule");
		fputs(": ", out);
		cli_put_text(out, m[i].f, "excerpt");
		fputc('\n', out);
	}
}

/*
 * The path of a "+++ " line as git writes it: quoted ("b/x\377.sh", C
 * escapes and octal bytes, for a name that is not plain ASCII or holds a
 * quote, a backslash or a control byte) or not (up to a tab), without its
 * "b/" (or first component), into out. The scan reads it so (libgit2),
 * and names the file's findings by the unquoted bytes.
 */
static void
diff_plus_path(const char *f, char *out, size_t size)
{
	static const char esc[] = "a\ab\bf\fn\nr\rt\tv\v\"\"\\\\";
	size_t o = 0;
	const char *e;

	if (*f != '"') {
		snprintf(out, size, "%.*s", (int)strcspn(f, "\t"), f);
	} else {
		for (f++; *f != '\0' && *f != '"' && o + 1 < size; f++) {
			if (*f != '\\' || f[1] == '\0') {
				out[o++] = *f;
			} else if (f[1] >= '0' && f[1] <= '3' && f[2] >= '0' &&
			    f[2] <= '7' && f[3] >= '0' && f[3] <= '7') {
				out[o++] = (char)((f[1] - '0') << 6 |
				    (f[2] - '0') << 3 | (f[3] - '0'));
				f += 3;
			} else if ((e = strchr(esc, f[1])) != NULL &&
			    (e - esc) % 2 == 0) {
				out[o++] = e[1];
				f++;
			} else {
				out[o++] = *f;
			}
		}
		out[o] = '\0';
	}
	if (strncmp(out, "b/", 2) == 0)
		memmove(out, out + 2, strlen(out + 2) + 1);
	else if ((e = strchr(out, '/')) != NULL)
		memmove(out, e + 1, strlen(e + 1) + 1);
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
			char f[sizeof(file)];

			diff_plus_path(line + 4, f, sizeof(f));
			snprintf(file, sizeof(file), "%s" AL_MEMBER_SEP "%.*s", item,
			    (int)strlen(f), f);
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

/* One finding as listed (not under a line): path:line  severity rule: excerpt */
static void
diff_list_one(FILE *out, const struct diff_mark *m)
{
	fputs("  ", out);
	al_term_put(out, m->path);
	if (m->line > 0)
		fprintf(out, ":%lld", (long long)m->line);
	fputs("  ", out);
	cli_put_text(out, m->f, "severity");
	fputc(' ', out);
	cli_put_text(out, m->f, "rule");
	fputs(": ", out);
	cli_put_text(out, m->f, "excerpt");
	fputc('\n', out);
}

/* Lists the findings on path not shown yet, and marks them shown. */
static void
diff_rest_of(FILE *out, struct diff_mark *m, size_t n, const char *path)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !m[i].shown && strcmp(m[i].path, path) == 0;
	if (k == 0)
		return;
	printf("   %zu finding%s not on a line shown:\n", k, k == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		if (m[i].shown || strcmp(m[i].path, path) != 0)
			continue;
		m[i].shown = 1;
		diff_list_one(out, &m[i]);
	}
}

/* An item of the submission's latest scan, as the gate lists it: its
 * path and type are their bytes (the text scheme), the rest borrowed. */
struct diff_item {
	const char *path, *type, *sha256, *content;
	json_int_t mode, size;
	struct dynbuf pathb, typeb;
};

static void
diff_item_get(const json_t *j, struct diff_item *it)
{
	dynbuf_init(&it->pathb, (size_t)1 << 20);
	dynbuf_init(&it->typeb, (size_t)1 << 20);
	if (cli_text(j, "path", &it->pathb) < 0)
		dynbuf_reset(&it->pathb);
	if (cli_text(j, "type", &it->typeb) < 0)
		dynbuf_reset(&it->typeb);
	it->path = dynbuf_str(&it->pathb);
	it->type = dynbuf_str(&it->typeb);
	it->sha256 = json_string_value(json_object_get(j, "sha256"));
	it->content = json_string_value(json_object_get(j, "content"));
	it->mode = json_integer_value(json_object_get(j, "mode"));
	it->size = json_integer_value(json_object_get(j, "size"));
}

static void
diff_item_clear(struct diff_item *it)
{
	dynbuf_free(&it->pathb);
	dynbuf_free(&it->typeb);
}

/* The tree: one line per item, as recorded. */
static void
diff_tree(FILE *out, const json_t *items)
{
	struct diff_item it;
	size_t i, n = json_array_size(items);

	fprintf(out, "%zu item%s:\n", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		char mode[16], size[32], sha[16];

		diff_item_get(json_array_get(items, i), &it);
		if (it.mode > 0 && it.mode <= 0177777)
			snprintf(mode, sizeof(mode), "%06llo",
			    (unsigned long long)it.mode);
		else
			snprintf(mode, sizeof(mode), "-");
		al_human_size(size, sizeof(size), (int64_t)it.size);
		snprintf(sha, sizeof(sha), "%.12s", it.sha256 ? it.sha256 : "-");
		fprintf(out, "  %-6s  %10s  ", mode, size);
		al_term_put(out, it.type);
		/* Types are short ASCII (the parent checks): pad them to a
		 * column. */
		fprintf(out, "%*s  ", strlen(it.type) < 24 ?
		    (int)(24 - strlen(it.type)) : 0, "");
		al_term_put(out, sha);
		fputs("  ", out);
		al_term_put(out, it.path);
		fputc('\n', out);
		diff_item_clear(&it);
	}
}

/* Why a member's bytes are not shown, from the gate's "content". */
static const char *
diff_not_kept(const char *content)
{
	switch (content ? al_content_parse(content) : -1) {
	case AL_CONTENT_BINARY:
		return "binary content not shown";
	case AL_CONTENT_PARTIAL:
		return "content not kept: the scan did not read it to its end";
	case AL_CONTENT_MEMBER_CAP:
		return "content not kept: larger than the 1 MiB kept of a member";
	case AL_CONTENT_ARTIFACT_CAP:
		return "content not kept: past the 16 MiB kept of one artifact";
	default:
		return "content not kept";
	}
}

/*
 * Shows one member: a heading that describes it, then its lines with
 * their findings when its bytes were kept (fetched from the gate, and
 * shown only if they hash to the item's sha256), else why not.
 * Returns EXIT_OK, or EXIT_FINDINGS / EXIT_ERROR when the gate refused or
 * failed.
 */
static int
diff_member(FILE *out, struct client *c, const char *id, size_t idx,
    const struct diff_item *it, struct diff_mark *m, size_t n)
{
	struct dynbuf b;
	char path[128], size[32], got[AL_SHA256_HEX];
	long status = 0;
	int ret = EXIT_OK;

	al_human_size(size, sizeof(size), (int64_t)it->size);
	fputs("\n== ", out);
	al_term_put(out, it->path);
	fputs("  (", out);
	al_term_put(out, it->type);
	fprintf(out, ", %s, sha256 ", size);
	al_term_put(out, it->sha256 ? it->sha256 : "unknown");
	fputs(")\n", out);
	if (it->content == NULL || al_content_parse(it->content) !=
	    AL_CONTENT_KEPT) {
		fprintf(out, "   %s\n", diff_not_kept(it->content));
		diff_rest_of(out, m, n, it->path);
		return EXIT_OK;
	}
	dynbuf_init(&b, AL_MEMBER_CONTENT_MAX);
	snprintf(path, sizeof(path), "/v1/submissions/%s/items/%zu/content", id,
	    idx);
	if (client_get_raw(c, path, &b, &status) < 0) {
		ret = cli_fail("diff");
		goto out;
	}
	if (status != 200) {
		fprintf(stderr, "airlock diff: the gate refused a member's "
		    "content (HTTP %ld)\n", status);
		ret = EXIT_FINDINGS;
		goto out;
	}
	al_sha256_hex(got, b.data ? b.data : "", b.len);
	if (it->sha256 == NULL || strcmp(got, it->sha256) != 0 ||
	    (json_int_t)b.len != it->size) {
		fputs("   content refused: the bytes the gate sent do not match "
		    "the item's sha256\n", out);
	} else if (b.len > 0 && memchr(b.data, '\0', b.len) != NULL) {
		fputs("   binary content not shown\n", out);
	} else {
		diff_text(out, it->path, b.data ? b.data : "", b.len, m, n);
	}
	diff_rest_of(out, m, n, it->path);
out:
	dynbuf_free(&b);
	return ret;
}

/* An archive or a bundle: its tree, then every member. */
static int
diff_tree_and_members(FILE *out, struct client *c, const char *id,
    const json_t *items, struct diff_mark *m, size_t n)
{
	struct diff_item it;
	size_t i;
	int ret;

	diff_tree(out, items);
	for (i = 0; i < json_array_size(items); i++) {
		diff_item_get(json_array_get(items, i), &it);
		ret = diff_member(out, c, id, i, &it, m, n);
		diff_item_clear(&it);
		if (ret != EXIT_OK)
			return ret;
	}
	return EXIT_OK;
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
	const char *name = NULL, *kind, *id;
	struct dynbuf nameb;
	int k;
	char path[96];
	long status = 0;
	size_t n = 0, i, left = 0;
	int ret = EXIT_ERROR, text, series = 0;

	if ((id = cli_id_args(argc, argv, "diff", diff_usage, &conf,
	    &ret)) == NULL)
		return ret;
	dynbuf_init(&body, DIFF_MAX_CONTENT);
	dynbuf_init(&nameb, (size_t)1 << 20);
	snprintf(path, sizeof(path), "/v1/submissions/%s", id);
	if (client_new(&c, &conf) < 0 || client_get(c, path, &r) < 0) {
		ret = cli_fail("diff");
		goto out;
	}
	if ((ret = cli_reply_check("diff", c, &r, 200)) != EXIT_OK)
		goto out;
	snprintf(path, sizeof(path), "/v1/submissions/%s/content",
	    id);
	if (client_get_raw(c, path, &body, &status) < 0) {
		ret = cli_fail("diff");
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
		ret = client_print_json(stdout, r.json) < 0 ? cli_fail("diff") :
		    EXIT_OK;
		goto out;
	}
	/* Names and paths by their bytes (the text scheme): as the content
	 * has them, so that each finding goes under its line. */
	if (cli_text(r.json, "name", &nameb) == 0)
		name = dynbuf_str(&nameb);
	kind = json_string_value(json_object_get(r.json, "kind"));
	fs = json_object_get(r.json, "findings");
	n = json_array_size(fs);
	if (name == NULL || (n > 0 && (m = calloc(n, sizeof(*m))) == NULL)) {
		fprintf(stderr, "airlock diff: an unexpected reply\n");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const json_t *f = json_array_get(fs, i);
		struct dynbuf fp;

		dynbuf_init(&fp, (size_t)1 << 20);
		if (cli_text(f, "path", &fp) < 0)
			dynbuf_reset(&fp);
		if ((m[i].path = dynbuf_take(&fp, NULL)) == NULL) {
			fprintf(stderr, "airlock diff: out of memory\n");
			goto out;
		}
		m[i].line = json_integer_value(json_object_get(f, "line"));
		m[i].f = f;
		if (strncmp(m[i].path, name, strlen(name)) == 0 &&
		    strncmp(m[i].path + strlen(name), AL_MEMBER_SEP "0", 3) == 0)
			series = 1;
	}
	/* Shown as the gate read it: a patch or mailbox as a diff. */
	text = body.len == 0 || memchr(body.data, '\0', body.len) == NULL;
	k = kind != NULL ? al_kind_parse(kind) : -1;
	if (k == AL_KIND_ARCHIVE || k == AL_KIND_BUNDLE) {
		if ((ret = diff_tree_and_members(stdout, c, id,
		    json_object_get(r.json, "items"), m, n)) != EXIT_OK)
			goto out;
	} else if (text && (k == AL_KIND_PATCH || k == AL_KIND_MBOX))
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
		for (i = 0; i < n; i++)
			if (!m[i].shown)
				diff_list_one(stdout, &m[i]);
	}
	ret = EXIT_OK;
out:
	for (i = 0; m != NULL && i < n; i++)
		free(m[i].path);
	free(m);
	dynbuf_free(&nameb);
	dynbuf_free(&body);
	client_reply_free(&r);
	client_free(c);
	return cli_finish("diff", ret);
}
