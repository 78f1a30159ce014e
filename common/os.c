/*
 * os.c - whole reads and writes, clocks; see os.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "os.h"

int
al_write_full(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n > 0) {
		ssize_t k = write(fd, b, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return AL_EIO;
		}
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int
al_read_full(int fd, void *p, size_t n, double deadline, size_t *got)
{
	char *b = p;
	size_t done = 0;
	int rc = 0;

	while (done < n) {
		struct pollfd pf = {fd, POLLIN, 0};
		ssize_t k;

		if (deadline >= 0) {
			double left = deadline - al_mono_now();
			int r;

			if (left <= 0) {
				rc = AL_ELIMIT;
				break;
			}
			r = poll(&pf, 1, (int)(left * 1000) + 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0) {
				rc = AL_ELIMIT;
				break;
			}
		}
		k = read(fd, b + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0) {
			rc = AL_ENOTFOUND;
			break;
		}
		if (k < 0) {
			rc = AL_EIO;
			break;
		}
		done += (size_t)k;
	}
	if (got != NULL)
		*got = done;
	return rc;
}

double
al_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int64_t
al_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
al_time_iso(int64_t ms, char out[32])
{
	time_t t = (time_t)(ms / 1000);
	unsigned milli = (unsigned)(ms % 1000) % 1000u;
	struct tm tm;

	/* Out of ISO 8601's four-digit years, or of gmtime's range (tm is
	 * then not written): the epoch. Never, in practice, but a time read
	 * from a file (the keyring) can be any integer. */
	if (gmtime_r(&t, &tm) == NULL || tm.tm_year < -1900 ||
	    tm.tm_year > 9999 - 1900) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_year = 70;
		tm.tm_mday = 1;
		milli = 0;
	}
	snprintf(out, 32, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ",
	    (unsigned)(tm.tm_year + 1900) % 10000u, (unsigned)(tm.tm_mon + 1) % 100u,
	    (unsigned)tm.tm_mday % 100u, (unsigned)tm.tm_hour % 100u,
	    (unsigned)tm.tm_min % 100u, (unsigned)tm.tm_sec % 100u, milli);
}
