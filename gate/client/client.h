/*
 * client.h - the HTTP client of the gate service (transport.c), for the CLI
 * commands in gate/client/; see docs/api.md for the contract.
 *
 * Trust: the server is the gate we chose to talk to, but what it returns
 * carries artifact names, paths, excerpts and agent-asserted labels, which
 * are hostile: callers escape every string before it reaches a terminal.
 * The token is read from the environment or a file, never from argv (it
 * would show in ps), and is never printed or put in an error message.
 */
#ifndef AIRLOCK_CLIENT_H
#define AIRLOCK_CLIENT_H

#include <sys/types.h>

#include <jansson.h>

#include "dynbuf.h"

/* Where the gate is when neither --server nor $AIRLOCK_URL says. */
#define CLIENT_DEFAULT_URL "http://127.0.0.1:8420"

/* Seconds to establish a connection; a gate that does not answer in this
 * time is down or firewalled, and waiting longer helps nobody. */
#define CLIENT_CONNECT_TIMEOUT 10L
/* A transfer slower than CLIENT_LOW_SPEED bytes/s for this many seconds is
 * abandoned: a stuck gate must not hang a sandbox's submit for ever. */
#define CLIENT_LOW_SPEED_TIME 60L
#define CLIENT_LOW_SPEED 1L
/* Largest reply body read: a show of a submission with thousands of
 * findings fits many times over; past it the server is misbehaving. */
#define CLIENT_MAX_REPLY ((size_t)64 << 20)
/* Largest token file read (a token is 47 bytes). */
#define CLIENT_MAX_TOKEN_FILE 4096u
/* Bodies above this get a progress bar when stderr is a terminal. */
#define CLIENT_PROGRESS_MIN ((off_t)1 << 20)
/* The limits of docs/api.md, checked before anything is sent so that a
 * mistake is a usage error, not a round trip. */
#define CLIENT_MAX_NAME 255u
#define CLIENT_MAX_LABELS 32u
#define CLIENT_MAX_LABEL_KEY 64u
#define CLIENT_MAX_LABEL_VALUE 1024u

/* Long-option codes of the connection settings every command takes. */
enum {
	CLIENT_OPT_SERVER = 0x100,
	CLIENT_OPT_SOCKET,
	CLIENT_OPT_TOKEN_FILE,
	CLIENT_OPT_JSON,
};

#define CLIENT_LONG_OPTIONS \
	{"server", required_argument, NULL, CLIENT_OPT_SERVER}, \
	{"socket", required_argument, NULL, CLIENT_OPT_SOCKET}, \
	{"token-file", required_argument, NULL, CLIENT_OPT_TOKEN_FILE}, \
	{"json", no_argument, NULL, CLIENT_OPT_JSON}

/* Usage lines for the options above, for each command's --help. */
#define CLIENT_USAGE_OPTIONS \
    "  --server URL         the gate (default: $AIRLOCK_URL, else\n" \
    "                       " CLIENT_DEFAULT_URL ")\n" \
    "  --socket PATH        talk HTTP over this unix socket (default:\n" \
    "                       $AIRLOCK_SOCKET); the URL's host is then localhost\n" \
    "  --token-file FILE    read the token from FILE (default: the\n" \
    "                       AIRLOCK_TOKEN environment variable)\n" \
    "  --json               print the server's JSON reply\n" \
    "  -h, --help           this help\n"

/* Connection settings, from the options and the environment. Strings are
 * borrowed from argv or the environment, except the token. */
struct client_conf {
	const char *server;      /* NULL: $AIRLOCK_URL or the default */
	const char *socket;      /* NULL: $AIRLOCK_SOCKET or none */
	const char *token_file;  /* NULL: $AIRLOCK_TOKEN */
	int json;                /* --json */
};

/* Takes one of the CLIENT_OPT_* options; 1 if it was one, else 0. */
int client_conf_option(struct client_conf *conf, int opt, const char *arg);

struct client;

/* One answer. status is the HTTP status; json the parsed body, or NULL when
 * there was none or it was not JSON. */
struct client_reply {
	long status;
	json_t *json;
};

/*
 * Resolves the settings (environment, defaults), reads the token, checks
 * the URL and prepares a connection. Errors (a bad URL, an unreadable token
 * file) are AL_EINVAL or AL_EIO with a message.
 */
int client_new(struct client **out, const struct client_conf *conf);
void client_free(struct client *c);

/* "http://127.0.0.1:8420" or "unix socket /run/x.sock", for messages. */
const char *client_where(const struct client *c);
/* 1 when a token was given (from the environment or a file). */
int client_has_token(const struct client *c);

/*
 * Requests: path is "/v1/..." with its query already encoded. On success
 * (any HTTP status) *out holds the reply, to be freed with
 * client_reply_free. A transport failure (no connection, a reset, a reply
 * that is too large or not readable) is AL_EIO with a message naming where.
 */
int client_get(struct client *c, const char *path, struct client_reply *out);
int client_delete(struct client *c, const char *path,
    struct client_reply *out);
/* GETs raw bytes (at most body->max) into body; *status is the HTTP status. */
int client_get_raw(struct client *c, const char *path, struct dynbuf *body,
    long *status);
int client_post_json(struct client *c, const char *path, json_t *body,
    struct client_reply *out);
/*
 * POSTs the bytes read from fd as application/octet-stream, streamed: size
 * bytes when size >= 0, else chunked until end of file. A progress bar
 * goes to stderr when progress is set and size is known and large.
 */
int client_post_fd(struct client *c, const char *path, int fd, off_t size,
    int progress, struct client_reply *out);
void client_reply_free(struct client_reply *r);

/* Appends s to b percent-encoded for a query value or a path segment. */
int client_url_escape(struct dynbuf *b, const char *s);

/* The value of the environment variable name; NULL when unset or empty. */
const char *client_env_nonempty(const char *name);

#endif
