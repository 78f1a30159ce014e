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

#include <stdint.h>

#include "scan_engine.h"

/* 1 if the first bytes of fd look like an archive; the fd is rewound. */
int scan_is_archive(int fd);

/*
 * Scans the file open at fd: as an archive when it is one, else as one file
 * (scan_fd). digest as scan_fd's; archives get no digest (the allow-list
 * does not apply inside them).
 */
int scan_artifact_fd(struct scan_worker *w, int fd, const char *path,
    const char *relpath, struct finding_list *out, uint64_t *bytes,
    char *digest);

#endif
