/*
 * err.c - thread-local error message for al_err codes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

static _Thread_local char err_msg[512];

/* Formatted apart first: the message may quote the one before it
 * (al_err_set(rc, "%s: %s", path, al_err_msg())), and vsnprintf must not
 * write the buffer it reads. */
int
al_err_set(int code, const char *fmt, ...)
{
	char msg[sizeof(err_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(err_msg, msg, sizeof(err_msg));
	return code;
}

const char *
al_err_msg(void)
{
	return err_msg[0] ? err_msg : "unknown error";
}

void
al_assert_fail(const char *file, int line, const char *expr)
{
	fprintf(stderr, "airlock: %s:%d: assertion failed: %s\n", file, line,
	    expr);
	abort();
}
