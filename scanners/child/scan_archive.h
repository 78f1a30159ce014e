/*
 * scan_archive.h - reading archives (tar in any compression libarchive knows,
 * zip, 7z, cpio) the way an unpacker would, in the scan child.
 *
 * Trust: the archive is hostile; this runs only inside the sandboxed child
 * (or with --no-sandbox, for debugging). Every member is scanned with the
 * rules under "ARCHIVE!/member"; what unpacking would do dangerously is a
 * finding; what cannot be read whole (encryption, corruption, a limit) is
 * unscannable, never clean.
 */
#ifndef AIRLOCK_SCAN_ARCHIVE_H
#define AIRLOCK_SCAN_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "scan_engine.h"

/* Loads what libarchive's name conversions need from disk (iconv modules);
 * call before the sandbox closes. */
int scan_archive_warm(void);

/* 1 if these first bytes of a file look like an archive. */
int scan_is_archive_magic(const unsigned char *h, size_t n);

/*
 * Scans the archive open at fd, or held in memory (a blob of a bundle, a
 * binary hunk), as the outermost of its nest: the limits are measured
 * against its size. What was scanned of its members is added to *bytes.
 */
int scan_archive_fd(struct scan_worker *w, int fd, const char *path,
    struct finding_list *out, uint64_t *bytes);
int scan_archive_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, struct finding_list *out, uint64_t *bytes);

#endif
