/*
 * fuzz_container.c - fuzz target for the structural checker of archives
 * (scan_container.c): arbitrary bytes are checked twice, held in memory and
 * read from a file descriptor (pread), as nested and outermost archives
 * are. Nothing may crash or leak; both readings must give the same answer,
 * and a reason must be a non-empty, NUL-terminated string.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scan_container.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A small output bound, so that a bomb stops at it quickly. */
	struct ctr_src mem = {-1, data, size, 1u << 20};
	struct ctr_src file = mem;
	char why1[512], why2[512];
	int r1, r2, fd = memfd_create("fuzz", 0);

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	file.mem = NULL;
	file.fd = fd;
	memset(why1, 'x', sizeof(why1));
	r1 = ctr_check(&mem, why1, sizeof(why1));
	r2 = ctr_check(&file, why2, sizeof(why2));
	close(fd);
	if (r1 < 0 || r2 < 0)
		abort(); /* only out-of-memory may fail */
	if (r1 != r2 || (r1 == 1 && (memchr(why1, '\0', sizeof(why1)) == NULL ||
	    why1[0] == '\0' || strcmp(why1, why2) != 0)))
		abort();
	return 0;
}
