/*
 * fuzz_whole.h - the artifact fuzz targets: a target defines FUZZ_KIND (the
 * kind its input is read as, the way the scan child reads an artifact from
 * an fd) and FUZZ_NAME, then includes this. The input goes into a memfd;
 * nothing may crash or leak, and every finding must be well formed and
 * inside the artifact.
 */
#ifndef AIRLOCK_FUZZ_WHOLE_H
#define AIRLOCK_FUZZ_WHOLE_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_engine.h"
#include "scan_archive.h"
#include "scan_artifact.h"
#include "scan_patch.h"

static struct scan_worker *fuzz_worker;

static void
fuzz_whole_init(const char *who)
{
	fuzz_worker = fuzz_engine_worker(who);
	/* As the scan child starts (child.c): names are read in C.UTF-8,
	 * with the character-set converters already open. */
	if (scan_git_init() < 0 || scan_archive_warm() < 0)
		abort();
}

static void
fuzz_whole_one(enum al_kind kind, const uint8_t *data, size_t size)
{
	struct finding_list fl = {0};
	uint64_t bytes = 0;
	enum al_kind read = AL_KIND_AUTO;
	size_t i;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		abort();
	if ((size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (scan_artifact_fd(fuzz_worker, fd, "upload", "upload", kind, &fl,
	    &bytes, NULL, &read) < 0)
		abort(); /* only out-of-memory may fail */
	close(fd);
	/* The kind read is the content's, one a reader reads; patches,
	 * mailboxes and bundles are read whole: bytes is their size. */
	if (read < AL_KIND_FILE || read > AL_KIND_BUNDLE ||
	    (kind == AL_KIND_MEMBER && read != AL_KIND_FILE &&
	    read != AL_KIND_ARCHIVE))
		abort();
	if ((read == AL_KIND_PATCH || read == AL_KIND_MBOX ||
	    read == AL_KIND_BUNDLE) && bytes != size)
		abort();
	for (i = 0; i < fl.n; i++)
		if ((fl.v[i].line == 0) != (fl.v[i].column == 0) ||
		    strlen(fl.v[i].fingerprint) != 32 ||
		    !(strcmp(fl.v[i].path, "upload") == 0 ||
		    strncmp(fl.v[i].path, "upload!/", 8) == 0))
			abort();
	finding_list_free(&fl);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_whole_init(FUZZ_NAME);
	return 0;
}

/*
 * The patch and mailbox readers are also handed the bytes directly, in a
 * buffer of exactly their size with no NUL after it, as the parsers'
 * (pointer, length) contract allows: a read past the end is then caught
 * (by AddressSanitizer under libFuzzer, and in the replay build by the
 * copy's exact allocation).
 */
static void
fuzz_patch_mem(const uint8_t *data, size_t size, int mbox)
{
	struct finding_list fl = {0};
	char *copy = malloc(size ? size : 1);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	if (scan_patch_mem(fuzz_worker, copy, size, "upload", mbox, &fl) < 0)
		abort();
	finding_list_free(&fl);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_whole_one(FUZZ_KIND, data, size);
	if (FUZZ_KIND == AL_KIND_PATCH || FUZZ_KIND == AL_KIND_MBOX)
		fuzz_patch_mem(data, size, FUZZ_KIND == AL_KIND_MBOX);
	return 0;
}

#endif
