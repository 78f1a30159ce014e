/*
 * fdpass.c - passing fds over unix sockets; see fdpass.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "al_limits.h"
#include "err.h"
#include "fdpass.h"

/* Sends nfd fds, with a marker byte and then the bytes of data, in one
 * message (the child reads the marker with the fds, then the data). */
int
fdpass_send(int sock, const int *fds, size_t nfd, const struct dynbuf *data)
{
	char byte = 'F';
	struct iovec iov[2] = {{&byte, 1}, {data->data, data->len}};
	union {
		char buf[CMSG_SPACE(sizeof(int) * AL_CHILD_INFLIGHT)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct cmsghdr *cm;

	if (nfd == 0 || nfd > AL_CHILD_INFLIGHT)
		return al_err_set(AL_EINVAL, "bad number of files to pass");
	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	msg.msg_control = u.buf;
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfd);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * nfd);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfd);
	for (;;) {
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
		size_t sent;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 1)
			return al_err_set(AL_EIO, "passing files to the scan "
			    "child: %s", n < 0 ? strerror(errno) : "no progress");
		/* The fds went with the first byte; send what is left. */
		sent = (size_t)n - 1;
		while (sent < data->len) {
			n = send(sock, data->data + sent, data->len - sent,
			    MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return al_err_set(AL_EIO, "writing to the scan "
				    "child: %s", n < 0 ? strerror(errno) : "closed");
			sent += (size_t)n;
		}
		return 0;
	}
}

/* Receives up to AL_CHILD_INFLIGHT fds; AL_ENOTFOUND at end of stream. */
int
fdpass_recv(int sock, int *fds, size_t *nfd)
{
	char byte;
	struct iovec iov = {&byte, 1};
	union {
		char buf[CMSG_SPACE(sizeof(int) * AL_CHILD_INFLIGHT)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(sock, &msg, 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return AL_ENOTFOUND;
	cm = CMSG_FIRSTHDR(&msg);
	if (n != 1 || cm == NULL || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(sizeof(int)) ||
	    (msg.msg_flags & MSG_CTRUNC))
		return AL_EIO;
	*nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (*nfd == 0 || *nfd > AL_CHILD_INFLIGHT)
		return AL_EIO;
	memcpy(fds, CMSG_DATA(cm), sizeof(int) * *nfd);
	return 0;
}
