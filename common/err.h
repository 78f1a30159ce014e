/*
 * err.h - the one short list of error codes, and the per-thread message.
 *
 * As in libgit2: functions return 0 or a negative al_err; the message that
 * explains the failure is set once, where it is detected, and read with
 * al_err_msg(). Callers propagate the code and never overwrite the message.
 */
#ifndef AIRLOCK_ERR_H
#define AIRLOCK_ERR_H

enum al_err {
	AL_OK = 0,
	AL_ENOMEM = -1, /* allocation failed */
	AL_EINVAL = -2, /* bad argument or malformed input */
	AL_EIO = -3,    /* a system call failed */
	AL_ELIMIT = -4, /* a limit in limits.h was reached */
	AL_ENOTFOUND = -5,
	AL_EENGINE = -6, /* Hyperscan or PCRE2 failed */
	AL_EEXIST = -7,  /* already there (a name, a key) */
	AL_EDENIED = -8, /* not allowed: role, state, policy */
	AL_EAUTH = -9,   /* the acting token is no longer good (revoked,
	                  * expired, its person disabled) */
	AL_EFULL = -10,  /* no space left: the disk, a quota, the database */
};

/*
 * Programming errors only (never bad input, which gets an error return):
 * the condition is always evaluated, in every build, and a false one
 * prints where and aborts. A crash fails closed: a scan child that dies
 * makes its artifact unscannable, a gate that dies keeps its queue.
 */
#define AL_ASSERT(cond) \
	((cond) ? (void)0 : al_assert_fail(__FILE__, __LINE__, #cond))
_Noreturn void al_assert_fail(const char *file, int line, const char *expr);

/* Sets the message for this thread, printf-style; returns `code`. */
int al_err_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *al_err_msg(void);

#endif
