/*
 * fuzz_archive.c - fuzz target for the archive reader: arbitrary bytes as a
 * file named upload.bin, read the way the scan child reads an artifact
 * (scan_artifact_fd on an fd), with the test rule set. Nothing may crash or
 * leak, and every finding must be well formed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_engine.h"
#include "scan_archive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct scan_worker *worker;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	worker = fuzz_engine_worker("fuzz_archive");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct finding_list fl = {0};
	uint64_t bytes = 0;
	size_t i;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (scan_artifact_fd(worker, fd, "upload.bin", "upload.bin",
	    SCAN_KIND_MEMBER, &fl, &bytes, NULL, NULL) < 0)
		abort(); /* only out-of-memory may fail */
	close(fd);
	for (i = 0; i < fl.n; i++)
		if ((fl.v[i].line == 0) != (fl.v[i].column == 0) ||
		    strlen(fl.v[i].fingerprint) != 32 ||
		    strncmp(fl.v[i].path, "upload.bin", 10) != 0)
			abort();
	finding_list_free(&fl);
	return 0;
}
