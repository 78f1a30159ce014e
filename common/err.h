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
};

/* Sets the message for this thread, printf-style; returns `code`. */
int al_err_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *al_err_msg(void);

#endif
