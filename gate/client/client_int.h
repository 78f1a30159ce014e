/*
 * client_int.h - what the command files of gate/client/ share, private to
 * that folder: usage and error reports, the check of a gate's reply, the
 * printing of values, tables, verdicts and findings, the ID argument of
 * the commands on one submission, writing a file, and --json output.
 * common.c implements them.
 *
 * Trust: every value these helpers print came from the gate's reply and
 * may have come from an agent or an artifact (names, labels, paths,
 * excerpts, rule ids even, the gate's own error messages); each is escaped
 * before it reaches a terminal, and --json output is ASCII-only. None of
 * them sees the token.
 *
 * Exit statuses of the client commands: EXIT_OK (gate.h) on success,
 * EXIT_REFUSED when the gate said no (HTTP 401, 403, 404, 409, 413),
 * EXIT_ERROR (gate.h) for usage, transport and server errors.
 */
#ifndef AIRLOCK_CLIENT_INT_H
#define AIRLOCK_CLIENT_INT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "client.h"
#include "dynbuf.h"
#include "gate.h"

#define EXIT_REFUSED EXIT_FINDINGS

/*
 * Reports a usage error of cmd and returns EXIT_ERROR: the message (and
 * the offending argument, escaped) alone for a bad value; with the usage
 * when fmt is NULL (getopt has spoken) or an argument is missing (full).
 */
int cli_usage_error(const char *usage, const char *cmd, const char *fmt,
    const char *arg, int full);
/* Prints the pending error (al_err_msg) for cmd; returns EXIT_ERROR. */
int cli_fail(const char *cmd);
/* Flushes stdout and returns ret, or EXIT_ERROR when the write failed. */
int cli_finish(const char *cmd, int ret);

/* The string member key of o (borrowed), or NULL. */
const char *cli_jstr(const json_t *o, const char *key);
/*
 * Checks a reply: EXIT_OK when its status is want and it carries a JSON
 * object, else prints why (the server's message, escaped) and returns
 * EXIT_REFUSED for a refusal, EXIT_ERROR for anything else.
 */
int cli_reply_check(const char *cmd, const struct client *c,
    const struct client_reply *r, long want);
/* Prints a value (hostile) escaped; an absent one as "-". */
void cli_put_value(FILE *out, const json_t *v);
/*
 * Text the gate sends by the text scheme (docs/api.md, "Text that is not
 * UTF-8"): the bytes of the string member key of o, from "<key>_hex" when
 * it is there (and agrees with the string), appended to out (cli_text);
 * the same escaped for a terminal, invalid bytes as \xNN (cli_text_shown);
 * printed so (cli_put_text; a member that is not a string as
 * cli_put_value). AL_ENOTFOUND when the member is not a string.
 */
int cli_text(const json_t *o, const char *key, struct dynbuf *out);
int cli_text_shown(const json_t *o, const char *key, struct dynbuf *out);
void cli_put_text(FILE *out, const json_t *o, const char *key);
/* 1 when stdout is a terminal and NO_COLOR is not set. */
int cli_use_color(void);
/* 0 for an ID as docs/api.md has them (a positive decimal), else -1. */
int cli_parse_id(const char *s);
/*
 * The shared start of the commands on one submission (show, diff): the
 * connection options and one ID. Returns NULL with *ret set when the
 * command is over (help, a usage error).
 */
const char *cli_id_args(int argc, char **argv, const char *cmd,
    const char *usage, struct client_conf *conf, int *ret);
/* Writes n bytes to path (mode 0644, refusing to follow a link). */
int cli_write_file(const char *path, const char *p, size_t n);
/* Pretty-prints a JSON document (non-ASCII escaped), with a newline. */
int client_print_json(FILE *out, const json_t *j);

/* ---- tables ------------------------------------------------------------------ */

#define CLI_TABLE_MAX_COLS 9

/* Columns of escaped cells, as wide as their widest cell. */
struct cli_table {
	size_t ncols;
	const char *const *head;
	char **cells;                   /* row-major, escaped */
	size_t n, cap;
	size_t width[CLI_TABLE_MAX_COLS]; /* in code points */
};

/* Adds the next cell: v (hostile) escaped, cut to at most max characters;
 * or the member key of o, text from its bytes (cli_text). */
int cli_table_add(struct cli_table *t, const json_t *v, size_t max);
int cli_table_add_text(struct cli_table *t, const json_t *o,
    const char *key, size_t max);
void cli_table_print(FILE *out, struct cli_table *t);
void cli_table_free(struct cli_table *t);

/* ---- findings ---------------------------------------------------------------- */

/* The findings of a submission, grouped by path as `airlock scan` does. */
void cli_print_findings(FILE *out, const json_t *findings, int color);
/* "flagged (worst critical)", or what the verdict is. */
void cli_print_verdict(FILE *out, const json_t *sub);

#endif
