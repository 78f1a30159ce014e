/*
 * ui.c - the review UI's files (review-ui/, docs/review-ui.md), served on
 * the review listener without a token: GET / (a redirect to /ui/), /ui/
 * (index.html), /ui/NAME and /ui/img/NAME, HEAD as GET, each answer with
 * the page's security headers (a CSP that lets the page load only its own
 * files and talk only to its own origin, and never be framed).
 *
 * The directory is read once, at start (a reload restarts the gate, so it
 * reads it again): its regular files with names of [a-z0-9._-] and one of
 * the extensions below, and those of one level of img/, are held in memory
 * with their Content-Type and a strong ETag (the sha256 of the bytes);
 * anything else is skipped with a warning line; a file, their number or
 * their whole over its limit (serve.h) stops the start, naming the file.
 * A missing directory is not an error: the API is served alone, and /ui/
 * answers 404 saying how to get the UI.
 *
 * A request names one of those files byte for byte, or gets 404: nothing
 * of its URL is decoded (a %XX in it, or any query, is a 404), joined to a
 * path or looked up on disk, so no URL reaches a file that was not read
 * here. Answers are from memory and never change until the next start.
 *
 * Trust: the files are the operator's (the page runs in a reviewer's
 * browser, beside the reviewer's token: whoever can write the directory
 * can act as the reviewers); the request is hostile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "serve.h"
#include "util.h"

/* The page's policy: its own scripts, styles, images (and data: images),
 * requests to its own origin only; no frame, no <base>, forms to itself. */
#define UI_CSP "default-src 'self'; script-src 'self'; style-src 'self'; " \
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; " \
    "base-uri 'none'; form-action 'self'"

#define UI_MISSING "the review UI is not installed on this gate: install " \
    "review-ui/ where the gate looks for it, or start it with --ui DIR " \
    "(docs/review-ui.md)"

static const struct {
	const char *ext, *type;
} ui_types[] = {
	{"html", "text/html; charset=utf-8"},
	{"css", "text/css; charset=utf-8"},
	{"js", "text/javascript; charset=utf-8"},
	{"svg", "image/svg+xml"},
	{"png", "image/png"},
	{"json", "application/json"},
	{"txt", "text/plain; charset=utf-8"},
	{"ico", "image/x-icon"},
	{"woff2", "font/woff2"},
};

struct ui_file {
	char name[SERVE_UI_NAME_MAX + 5]; /* "app.css", "img/logo.svg" */
	const char *type;         /* static, from ui_types */
	char etag[48];            /* "\"sha256:<32 hex>\"", quotes included */
	unsigned char *data;
	size_t len;
};

struct srv_ui {
	char *dir;
	int present;              /* 0: the directory does not exist */
	struct ui_file *files;    /* n of them, sorted by name */
	size_t n, total;          /* total: bytes of all files */
};

/* ---- reading the directory ------------------------------------------------ */

static const char *
ui_type_of(const char *name)
{
	const char *dot = strrchr(name, '.');
	size_t i;

	if (dot == NULL)
		return NULL;
	for (i = 0; i < sizeof(ui_types) / sizeof(ui_types[0]); i++)
		if (strcmp(dot + 1, ui_types[i].ext) == 0)
			return ui_types[i].type;
	return NULL;
}

static int
ui_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > SERVE_UI_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '.' ||
		    name[i] == '_' || name[i] == '-'))
			return 0;
	return 1;
}

/* One warning line; the name is shown with anything but printable ASCII
 * as '?' (it may be any bytes: it is why the file is skipped). */
static void
ui_warn(struct dynbuf *warn, const struct srv_ui *ui, const char *sub,
    const char *name, const char *why)
{
	char shown[SERVE_UI_NAME_MAX + 8];
	size_t i;

	for (i = 0; name[i] != '\0' && i < sizeof(shown) - 4; i++)
		shown[i] = name[i] > 0x20 && name[i] < 0x7f ? name[i] : '?';
	if (name[i] != '\0')
		shown[i++] = '.', shown[i++] = '.', shown[i++] = '.';
	shown[i] = '\0';
	dynbuf_diag(warn, "airlock serve: review UI: %s/%s%s: skipped: %s\n",
	    ui->dir, sub, shown, why);
}

/* Reads exactly len bytes of fd into p: 0, or -1 when it has another size
 * now (it changed since it was looked at) or cannot be read. */
static int
ui_read_exact(int fd, unsigned char *p, size_t len)
{
	size_t got = 0;
	unsigned char more;
	ssize_t k;

	while (got < len) {
		k = read(fd, p + got, len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	while ((k = read(fd, &more, 1)) < 0 && errno == EINTR)
		;
	return k == 0 ? 0 : -1;
}

/* Adds the regular file sub+name (st: its lstat) to ui, read whole. */
static int
ui_add(struct srv_ui *ui, int dfd, const char *sub, const char *name,
    const struct stat *st)
{
	struct ui_file *f, *files;
	char hex[AL_SHA256_HEX];
	struct stat fst;
	size_t size = (size_t)st->st_size;
	int fd, rc = 0;

	if (st->st_size > (off_t)SERVE_UI_FILE_MAX)
		return al_err_set(AL_ELIMIT, "the review UI's file %s/%s%s is %lld "
		    "bytes: over the %u MiB a UI file may be", ui->dir, sub, name,
		    (long long)st->st_size, SERVE_UI_FILE_MAX >> 20);
	if (ui->n == SERVE_UI_MAX_FILES)
		return al_err_set(AL_ELIMIT, "the review UI in %s has more than %u "
		    "files", ui->dir, SERVE_UI_MAX_FILES);
	if (ui->total + size > SERVE_UI_TOTAL_MAX)
		return al_err_set(AL_ELIMIT, "the review UI in %s is over the %u MiB "
		    "it may be in all (at %s%s)", ui->dir, SERVE_UI_TOTAL_MAX >> 20,
		    sub, name);
	if ((files = realloc(ui->files, (ui->n + 1) * sizeof(*files))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	ui->files = files;
	f = &files[ui->n];
	memset(f, 0, sizeof(*f));
	/* O_NONBLOCK: a FIFO put there since the lstat must not hang us. */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return al_err_set(AL_EIO, "%s/%s%s: %s", ui->dir, sub, name,
		    strerror(errno));
	if ((f->data = malloc(size > 0 ? size : 1)) == NULL)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	else if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) ||
	    fst.st_ino != st->st_ino || fst.st_dev != st->st_dev ||
	    ui_read_exact(fd, f->data, size) < 0)
		rc = al_err_set(AL_EIO, "%s/%s%s changed or could not be read while "
		    "the review UI was loaded", ui->dir, sub, name);
	close(fd);
	if (rc < 0) {
		free(f->data);
		return rc;
	}
	snprintf(f->name, sizeof(f->name), "%.4s%.*s", sub, (int)SERVE_UI_NAME_MAX,
	    name);
	f->type = ui_type_of(name);
	f->len = size;
	al_sha256_hex(hex, f->data, size);
	snprintf(f->etag, sizeof(f->etag), "\"sha256:%.32s\"", hex);
	ui->n++;
	ui->total += size;
	return 0;
}

static int ui_scan(struct srv_ui *ui, int dfd, const char *sub,
    struct dynbuf *warn);

/* One entry of the directory sub (dfd): a file added, img/ read, anything
 * else a warning. */
static int
ui_entry(struct srv_ui *ui, int dfd, const char *sub, const char *name,
    struct dynbuf *warn)
{
	struct stat st;
	int sfd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return al_err_set(AL_EIO, "%s/%s%s: %s", ui->dir, sub, name,
		    strerror(errno));
	if (S_ISDIR(st.st_mode) && sub[0] == '\0' && strcmp(name, "img") == 0) {
		sfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (sfd < 0)
			return al_err_set(AL_EIO, "%s/img: %s", ui->dir,
			    strerror(errno));
		return ui_scan(ui, sfd, "img/", warn);
	}
	if (sub[0] == '\0' && strcmp(name, "README.md") == 0 &&
	    S_ISREG(st.st_mode))
		return 0;  /* the directory's own documentation: not served */
	if (S_ISDIR(st.st_mode))
		ui_warn(warn, ui, sub, name, "a directory (only img/ is read, "
		    "and nothing below it)");
	else if (S_ISLNK(st.st_mode))
		ui_warn(warn, ui, sub, name, "a symbolic link");
	else if (!S_ISREG(st.st_mode))
		ui_warn(warn, ui, sub, name, "not a regular file");
	else if (!ui_name_ok(name))
		ui_warn(warn, ui, sub, name, "a name not of [a-z0-9._-], or longer "
		    "than 64 bytes");
	else if (ui_type_of(name) == NULL)
		ui_warn(warn, ui, sub, name, "not a type the UI serves (.html .css "
		    ".js .svg .png .json .txt .ico .woff2)");
	else
		return ui_add(ui, dfd, sub, name, &st);
	return 0;
}

/* Reads the directory dfd (taken), which is sub ("" or "img/"). */
static int
ui_scan(struct srv_ui *ui, int dfd, const char *sub, struct dynbuf *warn)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0;

	if (d == NULL) {
		close(dfd);
		return al_err_set(AL_EIO, "%s/%s: %s", ui->dir, sub, strerror(errno));
	}
	for (;;) {
		errno = 0;
		if ((e = readdir(d)) == NULL) {
			if (errno != 0)
				rc = al_err_set(AL_EIO, "%s/%s: %s", ui->dir, sub,
				    strerror(errno));
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((rc = ui_entry(ui, dirfd(d), sub, e->d_name, warn)) < 0)
			break;
	}
	closedir(d);
	return rc;
}

static int
ui_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ui_file *)a)->name,
	    ((const struct ui_file *)b)->name);
}

int
srv_ui_load(struct srv_ui **out, const char *dir, struct dynbuf *warn)
{
	struct srv_ui *ui = calloc(1, sizeof(*ui));
	int dfd, rc;

	*out = NULL;
	if (ui == NULL || (ui->dir = strdup(dir)) == NULL) {
		free(ui);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && errno == ENOENT) {
		*out = ui;
		return 0;
	}
	if (dfd < 0) {
		rc = al_err_set(AL_EIO, "the review UI's directory %s: %s", dir,
		    strerror(errno));
		srv_ui_free(ui);
		return rc;
	}
	ui->present = 1;
	if ((rc = ui_scan(ui, dfd, "", warn)) < 0) {
		srv_ui_free(ui);
		return rc;
	}
	if (ui->n > 0)
		qsort(ui->files, ui->n, sizeof(*ui->files), ui_cmp);
	*out = ui;
	return 0;
}

void
srv_ui_free(struct srv_ui *ui)
{
	size_t i;

	if (ui == NULL)
		return;
	for (i = 0; i < ui->n; i++)
		free(ui->files[i].data);
	free(ui->files);
	free(ui->dir);
	free(ui);
}

int
srv_ui_present(const struct srv_ui *ui)
{
	return ui != NULL && ui->present;
}

size_t
srv_ui_files(const struct srv_ui *ui)
{
	return ui != NULL ? ui->n : 0;
}

/* ---- answering ---------------------------------------------------------- */

enum route
srv_ui_route(const char *url)
{
	if (strcmp(url, "/") == 0)
		return R_UI_ROOT;
	if (strncmp(url, "/ui/", 4) != 0)
		return R_NONE;
	if (url[4] == '\0')
		return R_UI_INDEX;
	return strncmp(url + 4, "img/", 4) == 0 ? R_UI_IMG : R_UI_FILE;
}

static const struct ui_file *
ui_find(const struct srv_ui *ui, const char *name)
{
	struct ui_file key;

	if (ui->n == 0 || strlen(name) >= sizeof(key.name))
		return NULL;
	memcpy(key.name, name, strlen(name) + 1);
	return bsearch(&key, ui->files, ui->n, sizeof(*ui->files), ui_cmp);
}

int
srv_ui_etag_match(const char *h, const char *etag)
{
	size_t n = strlen(etag);
	const char *e;

	for (;;) {
		h += strspn(h, " \t,");
		if (*h == '\0')
			return 0;
		if (*h == '*')
			return 1;
		if (strncmp(h, "W/", 2) == 0)
			h += 2;
		if (*h != '"' || (e = strchr(h + 1, '"')) == NULL)
			return 0;
		if ((size_t)(e + 1 - h) == n && memcmp(h, etag, n) == 0)
			return 1;
		h = e + 1;
	}
}

/* Queues r (taken) with the page's headers. */
static enum MHD_Result
ui_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r)
{
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Security-Policy", UI_CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Cross-Origin-Opener-Policy", "same-origin");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy",
	    "same-origin");
	/* Kept, but asked again each time: the ETag makes that a 304. */
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

/* The gate's {"error": msg}, as on the API, with the page's headers (and
 * Allow for a 405). */
static enum MHD_Result
ui_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
	json_t *j = json_pack("{s:s}", "error", msg);
	char *text = j != NULL ? json_dumps(j, JSON_INDENT(2)) : NULL;
	struct MHD_Response *r = NULL;

	json_decref(j);
	if (text != NULL)
		r = MHD_create_response_from_buffer(strlen(text), text,
		    MHD_RESPMEM_MUST_COPY);
	free(text);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	return ui_queue(c, status, r);
}

/* The file, or its 304: libmicrohttpd 0.9.75 sends no body with a 304,
 * and the Content-Length of the body given, which must be the file's
 * (RFC 9110 8.6: an empty one would say 0). */
static enum MHD_Result
ui_send(struct MHD_Connection *c, const struct ui_file *f, int not_modified)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(f->len,
	    f->data, MHD_RESPMEM_PERSISTENT);

	if (r == NULL)
		return MHD_NO;
	if (!not_modified)
		MHD_add_response_header(r, "Content-Type", f->type);
	MHD_add_response_header(r, "ETag", f->etag);
	return ui_queue(c, not_modified ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, r);
}

enum MHD_Result
srv_ui_serve(struct req *q, struct MHD_Connection *c, const char *method,
    const char *url)
{
	const struct srv_ui *ui = q->s->ui;
	const struct ui_file *f;
	const char *inm;
	struct MHD_Response *r;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return ui_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "the review UI is "
		    "read with GET or HEAD");
	/* libmicrohttpd decoded the URL; the name must be what was sent. */
	if (!q->plain_target)
		return ui_error(c, MHD_HTTP_NOT_FOUND, "no such file in the review "
		    "UI (its URLs hold no %-escape and no query)");
	if (q->route == R_UI_ROOT) {
		r = MHD_create_response_from_buffer(0, NULL,
		    MHD_RESPMEM_PERSISTENT);
		if (r != NULL)
			MHD_add_response_header(r, "Location", "/ui/");
		return ui_queue(c, MHD_HTTP_FOUND, r);
	}
	if (!srv_ui_present(ui))
		return ui_error(c, MHD_HTTP_NOT_FOUND, UI_MISSING);
	f = ui_find(ui, q->route == R_UI_INDEX ? "index.html" : url + 4);
	if (f == NULL)
		return ui_error(c, MHD_HTTP_NOT_FOUND, q->route == R_UI_INDEX ?
		    "the review UI on this gate has no index.html" :
		    "no such file in the review UI");
	inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	return ui_send(c, f, inm != NULL && srv_ui_etag_match(inm, f->etag));
}
