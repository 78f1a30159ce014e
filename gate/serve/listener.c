/*
 * listener.c - the two listeners: the review API on loopback TCP and
 * the intake unix socket for sandboxes, each served by libmicrohttpd's
 * thread pool, each with its own connections and limits (conn.c).
 *
 * Trust: the intake socket is mode 0666 (the sandbox's user is not the
 * gate's) and never replaces anything but a socket.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "err.h"
#include "serve.h"

unsigned
srv_open_connections(struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *i;

	if (d == NULL || (i = MHD_get_daemon_info(d,
	    MHD_DAEMON_INFO_CURRENT_CONNECTIONS)) == NULL)
		return 0;
	return i->num_connections;
}

int
srv_parse_listen(const char *arg, char *host, size_t hn, unsigned *port)
{
	const char *colon = strrchr(arg, ':');
	char *end;
	unsigned long p;

	if (colon == NULL || colon == arg || (size_t)(colon - arg) >= hn)
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || p == 0 || p > 65535)
		return -1;
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = '\0';
	*port = (unsigned)p;
	return 0;
}

/* The intake socket: a fresh unix socket at path, mode 0666 (the sandbox's
 * user is not the gate's), refusing to replace anything but a socket. */
int
srv_intake_socket(const char *path)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return al_err_set(AL_EINVAL, "%s: path too long for a socket",
		    path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return al_err_set(AL_EEXIST, "%s exists and is not a socket",
			    path);
		(void)unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return al_err_set(AL_EIO, "socket: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0666) < 0 || listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		return al_err_set(AL_EIO, "%s: %s", path, strerror(e));
	}
	return fd;
}

/* The options both listeners share; limits as conn.c explains. The
 * library's own idle timeout (it closes without an answer) is only a
 * back-stop, twice --body-timeout: conn.c's sweep, which answers 408, must
 * act first, also when a slow but honest client pauses for a while. */
#define DAEMON_OPTIONS(l) \
	MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVE_THREADS, \
	MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HEADER_LIMIT + 4096, \
	MHD_OPTION_CONNECTION_LIMIT, srv_conn_cap(&(l)->s->lim), \
	MHD_OPTION_CONNECTION_TIMEOUT, 2 * (l)->s->lim.body_timeout, \
	MHD_OPTION_NOTIFY_CONNECTION, srv_conn_notify, (l), \
	MHD_OPTION_NOTIFY_COMPLETED, srv_on_completed, NULL, \
	MHD_OPTION_URI_LOG_CALLBACK, srv_on_uri, (l)

struct MHD_Daemon *
srv_start_daemon(struct srv_listener *l, int listen_fd, unsigned port)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
	    MHD_USE_TURBO | MHD_USE_ITC;

	/* GET /v1/changes holds its request with no thread (changes.c). */
	if (!l->intake)
		flags |= MHD_ALLOW_SUSPEND_RESUME;
	struct MHD_Daemon *d;
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	if (listen_fd < 0) {
		sa.sin_family = AF_INET;
		sa.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, l->s->host, &sa.sin_addr) != 1)
			return NULL;
	}
	if (srv_listener_start(l) < 0)
		return NULL;
	if (listen_fd >= 0)
		d = MHD_start_daemon(flags, 0, NULL, NULL, srv_on_request, l,
		    DAEMON_OPTIONS(l),
		    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
		    MHD_OPTION_END);
	else
		d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL,
		    srv_on_request, l, DAEMON_OPTIONS(l),
		    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		    MHD_OPTION_END);
	if (d == NULL)
		srv_listener_stop(l);
	return d;
}
