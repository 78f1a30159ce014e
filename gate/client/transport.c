/*
 * transport.c - the HTTP client of the gate service (libcurl): connection
 * settings, the token, URL checks and requests.
 *
 * One easy handle is reused (reset before each request) so that keep-alive
 * connections serve a --wait poll loop. Settings come from flags first,
 * then the environment: --socket, --server, $AIRLOCK_SOCKET, $AIRLOCK_URL,
 * the default URL. Redirects are never followed, only http and https are
 * spoken, and loopback never goes through a proxy: the token must reach the
 * gate and nothing else.
 *
 * Trust: replies are read into a bounded buffer (CLIENT_MAX_REPLY) and
 * parsed with jansson; their strings are hostile (see client.h) and this
 * file prints none of them. The token goes only into the Authorization
 * header, whose copy is wiped after use; it is never printed nor put in an
 * error message.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "client.h"
#include "err.h"
#include "gate.h"
#include "term.h"
#include "util.h"

struct client {
	CURL *curl;
	char *base;                    /* URL before "/v1/...", no trailing / */
	char *socket;                  /* unix socket path, or NULL */
	char *where;                   /* for messages */
	char *token;                   /* NULL: none */
	char *noproxy;                 /* loopback and $no_proxy */
	char errbuf[CURL_ERROR_SIZE];
};

/* What the read callback streams from, and what went wrong there. */
struct client_upload {
	int fd;
	int err;                       /* errno of a failed read, else 0 */
	int progress;                  /* draw the bar */
	int drawn;                     /* a bar is on the screen */
	int last_pct;
};

/* The reply body as it arrives. */
struct client_sink {
	struct dynbuf body;
	int too_large;
};

int
client_conf_option(struct client_conf *conf, int opt, const char *arg)
{
	switch (opt) {
	case CLIENT_OPT_SERVER:
		conf->server = arg;
		return 1;
	case CLIENT_OPT_SOCKET:
		conf->socket = arg;
		return 1;
	case CLIENT_OPT_TOKEN_FILE:
		conf->token_file = arg;
		return 1;
	case CLIENT_OPT_JSON:
		conf->json = 1;
		return 1;
	default:
		return 0;
	}
}

const char *
client_env_nonempty(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* A token is visible ASCII: anything else could split the header. */
static int
token_check(const char *t, size_t n)
{
	size_t i;

	if (n == 0 || n > 1024)
		return AL_EINVAL;
	for (i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e)
			return AL_EINVAL;
	return 0;
}

/* Reads the token from conf's file or $AIRLOCK_TOKEN; NULL when none. */
static int
token_load(const struct client_conf *conf, char **out)
{
	const char *env;
	char *buf = NULL;
	size_t n;
	int rc;

	*out = NULL;
	if (conf->token_file != NULL) {
		rc = al_read_file(conf->token_file, CLIENT_MAX_TOKEN_FILE, &buf,
		    &n);
		if (rc < 0) {
			char why[512];

			/* The message names the file; say what it was for. */
			snprintf(why, sizeof(why), "%s", al_err_msg());
			return al_err_set(rc, "token file %s", why);
		}
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
		    buf[n - 1] == ' ' || buf[n - 1] == '\t'))
			buf[--n] = '\0';
		if (token_check(buf, n) < 0) {
			free(buf);
			return al_err_set(AL_EINVAL, "token file %s: not a token "
			    "(one line of printable characters expected)",
			    conf->token_file);
		}
		*out = buf;
		return 0;
	}
	if ((env = client_env_nonempty("AIRLOCK_TOKEN")) == NULL)
		return 0;
	if (token_check(env, strlen(env)) < 0)
		return al_err_set(AL_EINVAL, "AIRLOCK_TOKEN is not a token "
		    "(printable characters, no spaces)");
	if ((*out = strdup(env)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	return 0;
}

/*
 * Checks a --server URL: http or https, a host, no credentials, no query
 * or fragment, nothing a terminal or a header could misread. The base kept
 * has no trailing slash.
 */
static int
url_check(const char *url, char **out)
{
	const char *auth, *end;
	size_t n = strlen(url), i;

	*out = NULL;
	for (i = 0; i < n; i++)
		if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
			return al_err_set(AL_EINVAL, "server URL: spaces, control "
			    "or non-ASCII characters are not allowed");
	if (strncmp(url, "http://", 7) == 0)
		auth = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		auth = url + 8;
	else
		return al_err_set(AL_EINVAL, "server URL must start with "
		    "http:// or https://");
	end = auth + strcspn(auth, "/?#");
	if (end == auth)
		return al_err_set(AL_EINVAL, "server URL has no host");
	if (memchr(auth, '@', (size_t)(end - auth)) != NULL)
		return al_err_set(AL_EINVAL, "server URL must not carry "
		    "credentials (use AIRLOCK_TOKEN)");
	if (strpbrk(url, "?#") != NULL)
		return al_err_set(AL_EINVAL, "server URL must not have a query "
		    "or fragment");
	while (n > (size_t)(end - url) && url[n - 1] == '/')
		n--;
	if ((*out = strndup(url, n)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	return 0;
}

/* Loopback never through a proxy; the user's no_proxy still applies. */
static int
noproxy_build(char **out)
{
	const char *env = getenv("no_proxy");
	struct dynbuf b;

	if (env == NULL)
		env = getenv("NO_PROXY");
	dynbuf_init(&b, 65536);
	if (dynbuf_adds(&b, "localhost,127.0.0.1,::1") < 0 ||
	    (env != NULL && env[0] != '\0' && (dynbuf_addc(&b, ',') < 0 ||
	    dynbuf_adds(&b, env) < 0))) {
		dynbuf_free(&b);
		return al_err_set(AL_ELIMIT, "no_proxy is too long");
	}
	*out = dynbuf_take(&b, NULL);
	return 0;
}

int
client_new(struct client **out, const struct client_conf *conf)
{
	static int curl_ready;
	const char *server = conf->server, *sock = conf->socket;
	struct client *c;
	struct dynbuf w;
	int rc;

	*out = NULL;
	if (sock == NULL && server == NULL) {
		sock = client_env_nonempty("AIRLOCK_SOCKET");
		if (sock == NULL)
			server = client_env_nonempty("AIRLOCK_URL");
	}
	if (sock == NULL && server == NULL)
		server = CLIENT_DEFAULT_URL;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_init(&w, PATH_MAX + 64);
	if (sock != NULL) {
		rc = AL_ENOMEM;
		if ((c->socket = strdup(sock)) == NULL ||
		    (c->base = strdup("http://localhost")) == NULL)
			goto fail;
		rc = dynbuf_addf(&w, "unix socket %s", sock);
	} else {
		if ((rc = url_check(server, &c->base)) < 0)
			goto fail;
		rc = dynbuf_adds(&w, c->base);
	}
	if (rc < 0) {
		rc = al_err_set(AL_ELIMIT, "socket path is too long");
		goto fail;
	}
	c->where = dynbuf_take(&w, NULL);
	if ((rc = token_load(conf, &c->token)) < 0 ||
	    (rc = noproxy_build(&c->noproxy)) < 0)
		goto fail;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			rc = al_err_set(AL_EIO, "libcurl initialisation failed");
			goto fail;
		}
		curl_ready = 1;
	}
	/* A gate that closes early must not kill us mid-upload. */
	signal(SIGPIPE, SIG_IGN);
	if ((c->curl = curl_easy_init()) == NULL) {
		rc = al_err_set(AL_ENOMEM, "libcurl: out of memory");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	dynbuf_free(&w);
	client_free(c);
	return rc;
}

void
client_free(struct client *c)
{
	if (c == NULL)
		return;
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	if (c->token != NULL) {
		explicit_bzero(c->token, strlen(c->token));
		free(c->token);
	}
	free(c->base);
	free(c->socket);
	free(c->where);
	free(c->noproxy);
	free(c);
}

const char *
client_where(const struct client *c)
{
	return c->where;
}

int
client_has_token(const struct client *c)
{
	return c->token != NULL;
}

void
client_reply_free(struct client_reply *r)
{
	json_decref(r->json);
	r->json = NULL;
	r->status = 0;
}

int
client_url_escape(struct dynbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	int rc = 0;

	for (p = (const unsigned char *)s; *p != '\0' && rc == 0; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) != NULL) {
			rc = dynbuf_addc(b, (char)*p);
		} else {
			rc = dynbuf_addc(b, '%');
			if (rc == 0)
				rc = dynbuf_addc(b, hex[*p >> 4]);
			if (rc == 0)
				rc = dynbuf_addc(b, hex[*p & 15]);
		}
	}
	return rc;
}

static size_t
sink_write(char *p, size_t size, size_t n, void *arg)
{
	struct client_sink *s = arg;

	if (dynbuf_add(&s->body, p, size * n) < 0) {
		s->too_large = 1;
		return 0;
	}
	return size * n;
}

static size_t
upload_read(char *p, size_t size, size_t n, void *arg)
{
	struct client_upload *u = arg;
	ssize_t got;

	for (;;) {
		got = read(u->fd, p, size * n);
		if (got >= 0)
			return (size_t)got;
		if (errno != EINTR)
			break;
	}
	u->err = errno;
	return CURL_READFUNC_ABORT;
}

static int
upload_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	struct client_upload *u = arg;
	char now[32], total[32], bar[31];
	int pct, i;

	(void)dltotal;
	(void)dlnow;
	if (!u->progress || ultotal <= 0)
		return 0;
	pct = (int)(ulnow * 100 / ultotal);
	if (pct == u->last_pct)
		return 0;
	u->last_pct = pct;
	for (i = 0; i < 30; i++)
		bar[i] = i < pct * 30 / 100 ? '=' : ' ';
	bar[30] = '\0';
	al_human_size(now, sizeof(now), (int64_t)ulnow);
	al_human_size(total, sizeof(total), (int64_t)ultotal);
	fprintf(stderr, "\r[%s] %3d%%  %s / %s\033[K", bar, pct, now, total);
	u->drawn = 1;
	return 0;
}

/* Sets what every request shares; headers are the caller's list. */
static int
request_setup(struct client *c, const char *path, struct curl_slist **hdrs,
    struct client_sink *sink)
{
	struct dynbuf url, auth;
	struct curl_slist *h = NULL;
	int rc = 0;

	curl_easy_reset(c->curl);
	dynbuf_init(&url, 8192);
	dynbuf_init(&auth, 2048);
	if (dynbuf_adds(&url, c->base) < 0 || dynbuf_adds(&url, path) < 0) {
		rc = al_err_set(AL_ELIMIT, "request URL is too long");
		goto out;
	}
	if ((h = curl_slist_append(*hdrs, "Accept: application/json")) == NULL)
		goto nomem;
	*hdrs = h;
	if (c->token != NULL) {
		if (dynbuf_addf(&auth, "Authorization: Bearer %s", c->token) < 0 ||
		    (h = curl_slist_append(*hdrs, dynbuf_str(&auth))) == NULL)
			goto nomem;
		*hdrs = h;
	}
	c->errbuf[0] = '\0';
	if (curl_easy_setopt(c->curl, CURLOPT_URL, dynbuf_str(&url)) !=
	    CURLE_OK) {
		rc = al_err_set(AL_EINVAL, "bad request URL");
		goto out;
	}
	if (c->socket != NULL)
		curl_easy_setopt(c->curl, CURLOPT_UNIX_SOCKET_PATH, c->socket);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_NOPROXY, c->noproxy);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, CLIENT_CONNECT_TIMEOUT);
	curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, CLIENT_LOW_SPEED);
	curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME, CLIENT_LOW_SPEED_TIME);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "airlock/" AIRLOCK_VERSION);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, sink);
	goto out;
nomem:
	rc = al_err_set(AL_ENOMEM, "out of memory");
out:
	/* The header list holds its own copy; this one is wiped. */
	if (auth.data != NULL)
		explicit_bzero(auth.data, auth.len);
	dynbuf_free(&auth);
	dynbuf_free(&url);
	return rc;
}

/*
 * Runs the prepared request. A reply that arrived counts even when the
 * transfer then failed (a gate may answer 413 and close mid-upload).
 */
static int
request_run(struct client *c, struct client_sink *sink,
    const struct client_upload *up, struct client_reply *out)
{
	CURLcode cc;
	json_error_t jerr;
	long status = 0, oserr = 0;

	out->status = 0;
	out->json = NULL;
	cc = curl_easy_perform(c->curl);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	if (up != NULL && up->drawn)
		fputs("\r\033[K", stderr);
	if (sink->too_large)
		return al_err_set(AL_EIO, "%s: reply larger than %zu bytes",
		    c->where, CLIENT_MAX_REPLY);
	if (cc != CURLE_OK && (status == 0 || sink->body.len == 0)) {
		if (up != NULL && up->err != 0)
			return al_err_set(AL_EIO, "reading the artifact: %s",
			    strerror(up->err));
		curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &oserr);
		/* curl names port 80 of localhost for a socket: say which. */
		if (c->socket != NULL && cc == CURLE_COULDNT_CONNECT &&
		    oserr != 0)
			return al_err_set(AL_EIO, "cannot reach the gate at %s: "
			    "%s", c->where, strerror((int)oserr));
		if (cc == CURLE_COULDNT_CONNECT ||
		    cc == CURLE_COULDNT_RESOLVE_HOST ||
		    cc == CURLE_OPERATION_TIMEDOUT)
			return al_err_set(AL_EIO, "cannot reach the gate at %s: "
			    "%s", c->where, c->errbuf[0] ? c->errbuf :
			    curl_easy_strerror(cc));
		if (up != NULL && (cc == CURLE_SEND_ERROR ||
		    cc == CURLE_RECV_ERROR || cc == CURLE_GOT_NOTHING))
			return al_err_set(AL_EIO, "%s closed the connection during "
			    "the upload (%s); the artifact may be larger than the "
			    "gate accepts", c->where, c->errbuf[0] ? c->errbuf :
			    curl_easy_strerror(cc));
		return al_err_set(AL_EIO, "%s: %s", c->where, c->errbuf[0] ?
		    c->errbuf : curl_easy_strerror(cc));
	}
	out->status = status;
	if (sink->body.len > 0)
		out->json = json_loadb(sink->body.data, sink->body.len, 0, &jerr);
	return 0;
}

int
client_get(struct client *c, const char *path, struct client_reply *out)
{
	struct curl_slist *hdrs = NULL;
	struct client_sink sink;
	int rc;

	dynbuf_init(&sink.body, CLIENT_MAX_REPLY);
	sink.too_large = 0;
	if ((rc = request_setup(c, path, &hdrs, &sink)) == 0)
		rc = request_run(c, &sink, NULL, out);
	curl_slist_free_all(hdrs);
	dynbuf_free(&sink.body);
	return rc;
}

int
client_get_raw(struct client *c, const char *path, struct dynbuf *body,
    long *status)
{
	struct curl_slist *hdrs = NULL;
	struct client_sink sink;
	struct client_reply r = {0, NULL};
	int rc;

	dynbuf_init(&sink.body, body->max);
	sink.too_large = 0;
	if ((rc = request_setup(c, path, &hdrs, &sink)) == 0)
		rc = request_run(c, &sink, NULL, &r);
	curl_slist_free_all(hdrs);
	json_decref(r.json);
	*status = r.status;
	if (rc == 0 && dynbuf_add(body, sink.body.data ? sink.body.data : "",
	    sink.body.len) < 0)
		rc = al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_free(&sink.body);
	return rc;
}

int
client_delete(struct client *c, const char *path, struct client_reply *out)
{
	struct curl_slist *hdrs = NULL;
	struct client_sink sink;
	int rc;

	dynbuf_init(&sink.body, CLIENT_MAX_REPLY);
	sink.too_large = 0;
	if ((rc = request_setup(c, path, &hdrs, &sink)) == 0) {
		curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, "DELETE");
		rc = request_run(c, &sink, NULL, out);
	}
	curl_slist_free_all(hdrs);
	dynbuf_free(&sink.body);
	return rc;
}

int
client_post_json(struct client *c, const char *path, json_t *body,
    struct client_reply *out)
{
	struct curl_slist *hdrs = NULL;
	struct client_sink sink;
	char *doc;
	int rc;

	if ((doc = json_dumps(body, JSON_COMPACT)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	dynbuf_init(&sink.body, CLIENT_MAX_REPLY);
	sink.too_large = 0;
	hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	if (hdrs == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = request_setup(c, path, &hdrs, &sink)) == 0) {
		curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, doc);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)strlen(doc));
		rc = request_run(c, &sink, NULL, out);
	}
out:
	curl_slist_free_all(hdrs);
	dynbuf_free(&sink.body);
	free(doc);
	return rc;
}

int
client_post_fd(struct client *c, const char *path, int fd, off_t size,
    int progress, struct client_reply *out)
{
	struct curl_slist *hdrs = NULL, *h;
	struct client_upload up = {fd, 0, 0, 0, -1};
	struct client_sink sink;
	int rc;

	dynbuf_init(&sink.body, CLIENT_MAX_REPLY);
	sink.too_large = 0;
	/* Without a length, libcurl sends a POST chunked only when told. */
	hdrs = curl_slist_append(NULL, "Content-Type: application/octet-stream");
	if (hdrs == NULL || (size < 0 && (h = curl_slist_append(hdrs,
	    "Transfer-Encoding: chunked")) == NULL)) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = request_setup(c, path, &hdrs, &sink)) < 0)
		goto out;
	curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(c->curl, CURLOPT_READFUNCTION, upload_read);
	curl_easy_setopt(c->curl, CURLOPT_READDATA, &up);
	if (size >= 0)
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)size);
	if (progress && size > CLIENT_PROGRESS_MIN) {
		up.progress = 1;
		curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION,
		    upload_progress);
		curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, &up);
	}
	rc = request_run(c, &sink, &up, out);
out:
	curl_slist_free_all(hdrs);
	dynbuf_free(&sink.body);
	return rc;
}
