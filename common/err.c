/*
 * err.c - thread-local error message for al_err codes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"

static _Thread_local char err_msg[512];

int
al_err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	va_end(ap);
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
