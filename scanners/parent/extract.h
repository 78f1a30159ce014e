/*
 * extract.h - airlock pull's unpacking: an archive's top level, unpacked by
 * a sandboxed child (scanners/child/extract_child.c) beneath a directory, then
 * checked by this process and moved into place whole, or not at all.
 *
 * Trust: the caller hands over bytes it has not parsed; what the child
 * reports and what it left on disk are read as hostile.
 */
#ifndef AIRLOCK_EXTRACT_PARENT_H
#define AIRLOCK_EXTRACT_PARENT_H

#include <stddef.h>
#include <stdint.h>

#include "extract_proto.h"

/* What was unpacked, entry by entry, as the child reported it and this
 * process checked it. */
struct extract_report {
	struct extract_entry *v;
	size_t n, cap;
	uint64_t files, dirs, links;
	uint64_t bytes;           /* file content written */
	int landlock;             /* 1: the child was confined by Landlock */
};

/*
 * Unpacks the archive at archive_fd (a regular file or memfd, read from
 * offset 0; name is the artifact's name, for a compressed single file)
 * beneath the directory target_dirfd:
 *   1. into a fresh directory TARGET/.airlock-pull.XXXXXXXXXXXX, by a
 *      forked child in a sandbox (scanners/child/sbx.c: rlimits, no
 *      network, seccomp, Landlock where the kernel has it) that writes only
 *      through that directory's fd, with openat2(RESOLVE_BENEATH |
 *      RESOLVE_NO_SYMLINKS);
 *   2. that tree is checked here, without following links: only
 *      directories, files with one link and symbolic links, no setuid,
 *      setgid or sticky bit, no .git, every link resolving beneath it by
 *      the kernel (RESOLVE_BENEATH), as many entries as the child reported;
 *   3. its top-level entries are renamed into the target, none over an
 *      existing name (RENAME_NOREPLACE; one there already: nothing moves).
 * On any failure the temporary directory and all in it are removed and the
 * target is as it was. Refuses (AL_EIO) on kernels without openat2.
 * Returns 0 with *out filled (free with extract_report_free), or a negative
 * al_err with the message set.
 */
int extract_archive_fd(struct extract_report *out, int archive_fd,
    const char *name, int target_dirfd);

void extract_report_free(struct extract_report *r);

#endif
