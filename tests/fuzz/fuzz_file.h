/*
 * fuzz_file.h - for the targets whose parser reads a file by its name (the
 * rule loader, the policy, the allow-list): a private directory, made once
 * (under /dev/shm when there is one, so that a run does not wear a disk),
 * and each input written to one file in it before the parser reads it.
 * The directory is removed at exit (libFuzzer exits at the end of -runs).
 */
#ifndef AIRLOCK_FUZZ_FILE_H
#define AIRLOCK_FUZZ_FILE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[64];
static char fuzz_names[4][128];
static size_t fuzz_nnames;

static void
fuzz_dir_clean(void)
{
	size_t i;

	for (i = 0; i < fuzz_nnames; i++)
		(void)unlink(fuzz_names[i]);
	(void)rmdir(fuzz_dir);
}

/* Makes the directory; aborts when it cannot. */
static const char *
fuzz_dir_init(const char *who)
{
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/airlock-%s-XXXXXX",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", who);
	if (mkdtemp(fuzz_dir) == NULL) {
		perror(who);
		abort();
	}
	atexit(fuzz_dir_clean);
	return fuzz_dir;
}

/* The path of NAME in the directory (one of at most 4 names). */
static const char *
fuzz_file_path(const char *name)
{
	size_t i;

	for (i = 0; i < fuzz_nnames; i++)
		if (strcmp(strrchr(fuzz_names[i], '/') + 1, name) == 0)
			return fuzz_names[i];
	if (fuzz_nnames == sizeof(fuzz_names) / sizeof(fuzz_names[0]))
		abort();
	snprintf(fuzz_names[fuzz_nnames], sizeof(fuzz_names[0]), "%s/%s",
	    fuzz_dir, name);
	return fuzz_names[fuzz_nnames++];
}

/* Writes the input to NAME in the directory, replacing what was there. */
static void
fuzz_file_put(const char *name, const uint8_t *data, size_t size)
{
	int fd = open(fuzz_file_path(name), O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0600);

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    close(fd) < 0)
		abort();
}

#endif
