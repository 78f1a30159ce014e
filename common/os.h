/*
 * os.h - the few system services every process of airlock needs done the
 * same careful way: whole reads and writes (short counts and EINTR
 * retried, an optional deadline) and the clocks.
 *
 * Trust: none needed; these move bytes and read clocks. Errors are
 * returned, never printed: the message is the caller's (it knows what was
 * being read), and errno is left as the failing call set it.
 */
#ifndef AIRLOCK_OS_H
#define AIRLOCK_OS_H

#include <stddef.h>
#include <stdint.h>

/* Writes all n bytes (retrying short writes and EINTR). AL_EIO on failure,
 * errno telling why (EIO when the descriptor took nothing). */
int al_write_full(int fd, const void *p, size_t n)
	__attribute__((warn_unused_result));

/*
 * Reads exactly n bytes before deadline (seconds on al_mono_now()'s
 * clock; negative: no deadline). 0 when all came; AL_ENOTFOUND at end of
 * stream before n; AL_ELIMIT past the deadline; AL_EIO on a read error
 * (errno). *got, when set, is how many bytes did come.
 */
int al_read_full(int fd, void *p, size_t n, double deadline, size_t *got)
	__attribute__((warn_unused_result));

/* Seconds on CLOCK_MONOTONIC: for timeouts and durations, never dates. */
double al_mono_now(void);

/* Milliseconds since the Unix epoch (CLOCK_REALTIME): what is recorded. */
int64_t al_now_ms(void);
/* ISO 8601 UTC with milliseconds: "2026-11-29T19:00:00.000Z". */
void al_time_iso(int64_t ms, char out[32]);

#endif
