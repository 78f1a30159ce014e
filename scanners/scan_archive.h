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
#include "vocab.h"

/* Loads what libarchive's name conversions need from disk (iconv modules);
 * call before the sandbox closes. */
int scan_archive_warm(void);

/* 1 if these first bytes of a file look like an archive. */
int scan_is_archive_magic(const unsigned char *h, size_t n);

/* The kind the first bytes of an artifact show (never MEMBER or AUTO). */
enum al_kind scan_sniff_kind(const char *h, size_t n, const char *relpath,
    int top);

/*
 * Scans the file open at fd as kind (MEMBER and AUTO: the kind its content
 * shows; patches, mailboxes and bundles only with AUTO, since a .patch
 * file inside a tree is just a file to its consumer). digest as scan_fd's;
 * archives, patches and bundles get no digest (the allow-list does not
 * apply inside them). *kind_out, when set, receives the kind read.
 */
int scan_artifact_fd(struct scan_worker *w, int fd, const char *path,
    const char *relpath, enum al_kind kind, struct finding_list *out,
    uint64_t *bytes, char *digest, enum al_kind *kind_out);

/* Scans a file held in memory (a blob of a bundle, a binary hunk): opened as
 * an archive when it is one, else scanned as a file. */
int scan_blob_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, const char *relpath, struct finding_list *out);

#endif
