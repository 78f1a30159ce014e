/*
 * tarpack.h - the tar packer of `airlock submit DIR` (tarpack.c).
 *
 * Trust: the directory is the caller's own; links in it are stored, never
 * followed, so packing never reads outside it.
 */
#ifndef AIRLOCK_TARPACK_H
#define AIRLOCK_TARPACK_H

#include <sys/types.h>

/*
 * Packs the directory dir as a tar (pax restricted) into an unlinked
 * temporary file: entries are relative to dir, symbolic links are stored
 * as links and never followed, and what tar cannot hold (sockets) is left
 * out with a warning on stderr. *fd_out is positioned at 0; *size_out is
 * the tar's size.
 */
int client_tar_dir(const char *dir, int *fd_out, off_t *size_out);

#endif
