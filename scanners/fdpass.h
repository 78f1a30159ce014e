/*
 * fdpass.h - open files handed over a unix socket (SCM_RIGHTS): the parent
 * gives the scan child the files to read, since the child can open
 * nothing itself; the launcher gives the gate each child's socket.
 *
 * Trust: a receiver checks what arrived (one control message of fds, no
 * truncation, the count it allows) before it uses any fd.
 */
#ifndef AIRLOCK_FDPASS_H
#define AIRLOCK_FDPASS_H

#include <stddef.h>

#include "dynbuf.h"

/* Sends nfd (1..AL_CHILD_INFLIGHT) fds, with a marker byte and then the
 * bytes of data, in one message; the receiver reads the marker with the
 * fds, then the data as a stream. */
int fdpass_send(int sock, const int *fds, size_t nfd,
    const struct dynbuf *data);
/* Receives up to AL_CHILD_INFLIGHT fds and the marker byte; AL_ENOTFOUND
 * at end of stream, AL_EIO for anything malformed. */
int fdpass_recv(int sock, int *fds, size_t *nfd);

#endif
