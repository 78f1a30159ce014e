/*
 * scan_container.h - the structure of an archive's raw bytes, read the way
 * its extractors read it: zip by its central directory (unzip, Python's
 * zipfile), tar to its end-of-archive block (GNU tar, tarfile), gzip member
 * by member (gzip -d). libarchive's streaming reader sees one reading of a
 * file; this pass finds the files that have more than one (a zip appended
 * to a tar, concatenated zips, a local header that disagrees with the
 * central directory, overlapping entries, a second tar after the first's
 * end, data after an archive's end) so that they are refused, not scanned
 * under the one reading an attacker chose for us.
 *
 * Trust: the bytes are hostile; this runs only in the scan child. Every
 * read is bounded (the zip end record is looked for in the last 64 KiB +
 * 22 bytes only, a central directory is at most AL_ZIP_MAX_CD_BYTES, a
 * decompressed stream is read to at most max_out bytes); no recursion.
 */
#ifndef AIRLOCK_SCAN_CONTAINER_H
#define AIRLOCK_SCAN_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

/* The bytes checked: mem when it is not NULL, else the file open at fd
 * (read with pread, so its offset is left alone). */
struct ctr_src {
	int fd;
	const unsigned char *mem;
	uint64_t size;            /* bytes in the file or at mem */
	uint64_t max_out;         /* decompressed bytes a check may read */
};

/*
 * 0: the file has one reading (or is no format this knows: 7z, cpio are
 * only checked for a zip hidden at their end); 1: it is ambiguous, and why
 * (NUL-terminated, at most whylen bytes) says how; < 0: out of memory.
 * Corruption that every reader would reject is not reported here: the
 * archive reader reports it.
 */
int ctr_check(const struct ctr_src *src, char *why, size_t whylen);

/*
 * A gzip file inflated once for both the checks and the archive reader:
 * ctr_gz_open inflates its first block (*is_tar: it is a tar, the one kind
 * the reader is then given the inflated stream of); ctr_gz_next gives the
 * next inflated bytes (*n == 0: the end, or where a limit stopped it), each
 * fed to the checks on the way; ctr_gz_raw says how many raw bytes were
 * read; ctr_gz_finish inflates what the reader left and answers as
 * ctr_check does. src is copied. < 0: out of memory.
 */
struct ctr_gz;
int ctr_gz_open(struct ctr_gz **out, const struct ctr_src *src, int *is_tar);
int ctr_gz_next(struct ctr_gz *g, const unsigned char **p, size_t *n);
uint64_t ctr_gz_raw(const struct ctr_gz *g);
int ctr_gz_finish(struct ctr_gz *g, char *why, size_t whylen);
void ctr_gz_free(struct ctr_gz *g);

#endif
