/*
 * iofail.c - an LD_PRELOAD shim that makes the gate's own I/O fail on
 * command, for the reliability tests (SQLite's I/O-error tests, done from
 * outside the process): write(2) to regular files, pwrite(2)/pwrite64
 * and fsync(2)/fdatasync(2) fail with the errno a rule names while the
 * rule is in the control file.
 *
 * Control: IOFAIL_CTL names a file, read again whenever it changes (size or
 * mtime); each line is
 *
 *     OP ERRNO PATH THREAD [COUNT]
 *
 * OP is write, pwrite or fsync (fsync covers fdatasync, pwrite pwrite64);
 * ERRNO is EIO, ENOSPC or EDQUOT; PATH a substring of the file's path
 * (/proc/self/fd) or "*"; THREAD a prefix of the calling thread's name
 * (the gate names its scan threads al-scan-N) or "*"; COUNT, if given,
 * how many calls fail before the rule stops. An empty or missing file
 * injects nothing. Each injection is logged to IOFAIL_LOG, if set, as
 * "OP ERRNO PATH THREAD".
 *
 * Trust: test code; runs inside the gate under test and nowhere else. Only
 * the calls above are wrapped; they reach libc through dlsym(RTLD_NEXT).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum op { OP_WRITE, OP_PWRITE, OP_FSYNC };

struct rule {
	enum op op;
	int err;
	char path[128];
	char thread[16];
	long count;               /* -1: no limit */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct rule rules[16];
static size_t nrules;
static struct timespec seen_mtime;
static off_t seen_size = -1;

static int
parse_errno(const char *s)
{
	if (strcmp(s, "EIO") == 0)
		return EIO;
	if (strcmp(s, "ENOSPC") == 0)
		return ENOSPC;
	if (strcmp(s, "EDQUOT") == 0)
		return EDQUOT;
	return 0;
}

/* Under mu: the rules, read again if the control file changed. */
static void
reload(void)
{
	const char *ctl = getenv("IOFAIL_CTL");
	struct stat st;
	char buf[4096], *line, *save = NULL;
	ssize_t n;
	int fd;

	if (ctl == NULL || stat(ctl, &st) != 0) {
		nrules = 0;
		seen_size = -1;
		return;
	}
	if (st.st_size == seen_size && st.st_mtim.tv_sec == seen_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == seen_mtime.tv_nsec)
		return;
	seen_size = st.st_size;
	seen_mtime = st.st_mtim;
	nrules = 0;
	if ((fd = open(ctl, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL &&
	    nrules < sizeof(rules) / sizeof(rules[0]);
	    line = strtok_r(NULL, "\n", &save)) {
		char op[16], e[16], path[128], thread[16];
		long count = -1;
		struct rule *r = &rules[nrules];

		if (sscanf(line, "%15s %15s %127s %15s %ld", op, e, path, thread,
		    &count) < 4)
			continue;
		if (strcmp(op, "write") == 0)
			r->op = OP_WRITE;
		else if (strcmp(op, "pwrite") == 0)
			r->op = OP_PWRITE;
		else if (strcmp(op, "fsync") == 0)
			r->op = OP_FSYNC;
		else
			continue;
		if ((r->err = parse_errno(e)) == 0)
			continue;
		snprintf(r->path, sizeof(r->path), "%s", path);
		snprintf(r->thread, sizeof(r->thread), "%s", thread);
		r->count = count;
		nrules++;
	}
}

static void
log_hit(const struct rule *r, const char *path, const char *thread)
{
	const char *lp = getenv("IOFAIL_LOG");
	static const char *const ops[] = {"write", "pwrite", "fsync"};
	char line[400];
	int fd, n;

	if (lp == NULL || (fd = open(lp, O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC, 0600)) < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %s %s %s\n", ops[r->op],
	    strerrorname_np(r->err), path, thread);
	if (n > 0)
		(void)!syscall(SYS_write, fd, line, (size_t)n);
	close(fd);
}

/* The errno to fail this call with, or 0. */
static int
inject(enum op op, int fd)
{
	char link[64], path[256] = "", thread[17] = "";
	ssize_t n;
	size_t i;
	int err = 0;

	if (getenv("IOFAIL_CTL") == NULL)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) > 0)
		path[n] = '\0';
	(void)prctl(PR_GET_NAME, thread, 0, 0, 0);
	pthread_mutex_lock(&mu);
	reload();
	for (i = 0; i < nrules && err == 0; i++) {
		struct rule *r = &rules[i];

		if (r->op != op || r->count == 0)
			continue;
		if (strcmp(r->path, "*") != 0 && strstr(path, r->path) == NULL)
			continue;
		if (strcmp(r->thread, "*") != 0 && strncmp(thread, r->thread,
		    strlen(r->thread)) != 0)
			continue;
		if (r->count > 0)
			r->count--;
		err = r->err;
		log_hit(r, path, thread);
	}
	pthread_mutex_unlock(&mu);
	return err;
}

static int
regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	int e;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
		    "write");
	if (fd > 2 && regular(fd) && (e = inject(OP_WRITE, fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd, buf, n);
}

ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	int e;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(
		    RTLD_NEXT, "pwrite");
	if ((e = inject(OP_PWRITE, fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd, buf, n, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off64_t);
	int e;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t, off64_t))dlsym(
		    RTLD_NEXT, "pwrite64");
	if ((e = inject(OP_PWRITE, fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd, buf, n, off);
}

int
fsync(int fd)
{
	static int (*real)(int);
	int e;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if ((e = inject(OP_FSYNC, fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd);
}

int
fdatasync(int fd)
{
	static int (*real)(int);
	int e;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	if ((e = inject(OP_FSYNC, fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd);
}
