/*
 * tarpack.c - packs a directory as a tar for `airlock submit DIR`: pax
 * restricted, into an unlinked temporary file, entries named relative to
 * the directory. It runs in the CLI client process before the upload.
 *
 * Trust: the directory is the caller's own. Symbolic links in it are stored
 * as links and never followed (only DIR itself is), so packing never reads
 * outside it; what tar cannot hold (sockets) is left out with a warning
 * whose name is escaped, and an entry that cannot be read fails the pack
 * instead of being left out silently. Nothing here talks to the gate or
 * sees the token: submit.c streams the tar with the transport.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "al_limits.h"
#include "client.h"
#include "dynbuf.h"
#include "err.h"
#include "tarpack.h"
#include "term.h"

/* An unlinked temporary file in $TMPDIR (or /tmp), read-write. */
static int
temp_fd(int *out)
{
	const char *dir = client_env_nonempty("TMPDIR");
	struct dynbuf path;
	int fd;

	if (dir == NULL)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		/* Not every file system has O_TMPFILE. */
		dynbuf_init(&path, PATH_MAX);
		if (dynbuf_addf(&path, "%s/airlock-submit.XXXXXX", dir) < 0) {
			dynbuf_free(&path);
			return al_err_set(AL_ELIMIT, "TMPDIR is too long");
		}
		fd = mkostemp(path.data, O_CLOEXEC);
		if (fd >= 0)
			unlink(path.data);
		dynbuf_free(&path);
	}
	if (fd < 0)
		return al_err_set(AL_EIO, "temporary file in %s: %s", dir,
		    strerror(errno));
	*out = fd;
	return 0;
}

/* The entry's name relative to the packed directory; "" for the root. */
static int
tar_relname(const char *full, const char *prefix, size_t plen,
    struct dynbuf *out)
{
	const char *rel;

	dynbuf_reset(out);
	if (strncmp(full, prefix, plen) != 0)
		return al_err_set(AL_EINVAL, "unexpected entry %s outside %s",
		    full, prefix);
	rel = full + plen;
	if (*rel != '\0' && *rel != '/' && plen > 0 && prefix[plen - 1] != '/')
		return al_err_set(AL_EINVAL, "unexpected entry %s outside %s",
		    full, prefix);
	while (*rel == '/')
		rel++;
	if (dynbuf_adds(out, rel) < 0)
		return al_err_set(AL_ELIMIT, "%s: path too long", full);
	return 0;
}

static int
tar_copy_data(struct archive *disk, struct archive *w, const char *name)
{
	char buf[65536];
	la_ssize_t n;

	for (;;) {
		n = archive_read_data(disk, buf, sizeof(buf));
		if (n == 0)
			return 0;
		if (n < 0)
			return al_err_set(AL_EIO, "%s: %s", name,
			    archive_error_string(disk));
		if (archive_write_data(w, buf, (size_t)n) != n)
			return al_err_set(AL_EIO, "writing the tar: %s",
			    archive_error_string(w));
	}
}

/* Adds every entry under dir (already opened on disk) to w. */
static int
tar_walk(struct archive *disk, struct archive *w, const char *dir)
{
	struct archive_entry *e = NULL;
	struct dynbuf rel;
	size_t plen = strlen(dir);
	int r, rc = 0;

	/* The entries' names start with dir as given ("a/", ".", "/"...). */
	while (plen > 1 && dir[plen - 1] == '/')
		plen--;
	dynbuf_init(&rel, AL_MAX_PATH);
	while (rc == 0) {
		archive_entry_free(e);
		if ((e = archive_entry_new()) == NULL) {
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		r = archive_read_next_header2(disk, e);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			/* An entry we cannot read is not silently left out. */
			rc = al_err_set(AL_EIO, "%s", archive_error_string(disk));
			break;
		}
		if (archive_read_disk_can_descend(disk) &&
		    archive_read_disk_descend(disk) != ARCHIVE_OK) {
			rc = al_err_set(AL_EIO, "%s", archive_error_string(disk));
			break;
		}
		if ((rc = tar_relname(archive_entry_pathname(e), dir, plen,
		    &rel)) < 0)
			break;
		if (rel.len == 0)
			continue;
		if (archive_entry_filetype(e) == AE_IFSOCK) {
			fputs("airlock: warning: leaving out socket ", stderr);
			al_term_put(stderr, archive_entry_pathname(e));
			fputc('\n', stderr);
			continue;
		}
		archive_entry_copy_pathname(e, dynbuf_str(&rel));
		r = archive_write_header(w, e);
		if (r < ARCHIVE_WARN) {
			rc = al_err_set(AL_EIO, "writing the tar: %s: %s",
			    dynbuf_str(&rel), archive_error_string(w));
			break;
		}
		if (archive_entry_filetype(e) == AE_IFREG &&
		    archive_entry_size(e) > 0)
			rc = tar_copy_data(disk, w, dynbuf_str(&rel));
	}
	archive_entry_free(e);
	dynbuf_free(&rel);
	return rc;
}

int
client_tar_dir(const char *dir, int *fd_out, off_t *size_out)
{
	struct archive *disk = NULL, *w = NULL;
	off_t end;
	int fd = -1, rc;

	*fd_out = -1;
	if ((rc = temp_fd(&fd)) < 0)
		return rc;
	disk = archive_read_disk_new();
	w = archive_write_new();
	if (disk == NULL || w == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	/* Links inside are stored as links; only dir itself is followed. */
	archive_read_disk_set_symlink_hybrid(disk);
	archive_read_disk_set_behavior(disk, ARCHIVE_READDISK_NO_XATTR |
	    ARCHIVE_READDISK_NO_ACL | ARCHIVE_READDISK_NO_FFLAGS |
	    ARCHIVE_READDISK_NO_SPARSE);
	if (archive_write_set_format_pax_restricted(w) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(w, fd) != ARCHIVE_OK) {
		rc = al_err_set(AL_EIO, "tar: %s", archive_error_string(w));
		goto out;
	}
	if (archive_read_disk_open(disk, dir) != ARCHIVE_OK) {
		rc = al_err_set(AL_EIO, "%s: %s", dir,
		    archive_error_string(disk));
		goto out;
	}
	if ((rc = tar_walk(disk, w, dir)) < 0)
		goto out;
	if (archive_write_close(w) != ARCHIVE_OK) {
		rc = al_err_set(AL_EIO, "writing the tar: %s",
		    archive_error_string(w));
		goto out;
	}
	if ((end = lseek(fd, 0, SEEK_END)) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		rc = al_err_set(AL_EIO, "temporary file: %s", strerror(errno));
		goto out;
	}
	*size_out = end;
	*fd_out = fd;
	fd = -1;
out:
	if (disk != NULL)
		archive_read_free(disk);
	if (w != NULL)
		archive_write_free(w);
	if (fd >= 0)
		close(fd);
	return rc;
}
