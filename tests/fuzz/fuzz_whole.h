/*
 * fuzz_whole.h - what the patch, mailbox and bundle fuzz targets share: the
 * input goes into a memfd and is read with a forced kind, the way the scan
 * child reads an artifact; the findings are then checked for shape.
 */
#ifndef AIRLOCK_FUZZ_WHOLE_H
#define AIRLOCK_FUZZ_WHOLE_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_engine.h"
#include "scan_archive.h"
#include "scan_patch.h"

static struct scan_worker *fuzz_worker;

static void
fuzz_whole_init(const char *who)
{
	fuzz_worker = fuzz_engine_worker(who);
	if (scan_git_init() < 0)
		abort();
}

static void
fuzz_whole_one(enum scan_kind kind, const uint8_t *data, size_t size)
{
	struct finding_list fl = {0};
	uint64_t bytes = 0;
	size_t i;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		abort();
	if ((size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (scan_artifact_fd(fuzz_worker, fd, "upload", "upload", kind, &fl,
	    &bytes, NULL, NULL) < 0)
		abort(); /* only out-of-memory may fail */
	close(fd);
	if (bytes != size)
		abort();
	for (i = 0; i < fl.n; i++)
		if ((fl.v[i].line == 0) != (fl.v[i].column == 0) ||
		    strlen(fl.v[i].fingerprint) != 32 ||
		    !(strcmp(fl.v[i].path, "upload") == 0 ||
		    strncmp(fl.v[i].path, "upload!/", 8) == 0))
			abort();
	finding_list_free(&fl);
}

#endif
