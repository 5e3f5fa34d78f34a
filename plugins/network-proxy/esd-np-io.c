/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "esd-np-io.h"

/*
 * Blocking I/O of a connection thread on plain non-blocking descriptors: a
 * try first, then a poll() with the proxy's cancel descriptor and a timeout.
 * A small request costs its system calls, so nothing is wrapped: a GSocket
 * made from an accepted descriptor alone asks the kernel six questions.
 */

/**
 * esd_np_io_wait:
 * @fd: a descriptor
 * @events: `POLLIN` or `POLLOUT`
 * @cancel_fd: readable once the wait must end, or -1
 * @timeout_ms: how long to wait at most, or -1
 *
 * Returns: @fd's revents, 0 on a timeout, on cancellation or on an error
 */
gshort
esd_np_io_wait(gint fd, gshort events, gint cancel_fd, gint timeout_ms)
{
	struct pollfd fds[2] = {{.fd = fd, .events = events}, {.fd = cancel_fd, .events = POLLIN}};

	while (TRUE) {
		gint n = poll(fds, cancel_fd >= 0 ? 2 : 1, timeout_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (cancel_fd >= 0 && fds[1].revents != 0))
			return 0;
		return fds[0].revents;
	}
}

/**
 * esd_np_io_read:
 * @fd: a non-blocking stream socket
 * @buffer: where to read to
 * @len: at most this many bytes
 * @cancel_fd: as for esd_np_io_wait()
 * @timeout_ms: as for esd_np_io_wait()
 *
 * Returns: the bytes read, 0 at the end, -1 on an error, a timeout or cancellation
 */
gssize
esd_np_io_read(gint fd, gpointer buffer, gsize len, gint cancel_fd, gint timeout_ms)
{
	while (TRUE) {
		gssize n = recv(fd, buffer, len, 0);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (esd_np_io_wait(fd, POLLIN, cancel_fd, timeout_ms) == 0)
			return -1;
	}
}

/**
 * esd_np_io_write_all:
 * @fd: a non-blocking stream socket
 * @buffer: the bytes
 * @len: how many
 * @cancel_fd: as for esd_np_io_wait()
 * @timeout_ms: each wait for room, as for esd_np_io_wait()
 *
 * Returns: whether all were sent
 */
gboolean
esd_np_io_write_all(gint fd, gconstpointer buffer, gsize len, gint cancel_fd, gint timeout_ms)
{
	const guint8 *p = buffer;

	while (len > 0) {
		gssize n = send(fd, p, len, MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= (gsize)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return FALSE;
		if (esd_np_io_wait(fd, POLLOUT, cancel_fd, timeout_ms) == 0)
			return FALSE;
	}
	return TRUE;
}

/**
 * esd_np_io_dial:
 * @address: where to
 * @port: its port
 * @cancel_fd: as for esd_np_io_wait()
 * @timeout_ms: for the handshake, as for esd_np_io_wait()
 *
 * Returns: a connected non-blocking socket, or -1
 */
gint
esd_np_io_dial(GInetAddress *address, guint16 port, gint cancel_fd, gint timeout_ms)
{
	struct sockaddr_storage storage = {0};
	g_autoptr(GSocketAddress) socket_address = g_inet_socket_address_new(address, port);
	gint fd;
	gshort revents;

	if (!g_socket_address_to_native(socket_address, &storage, sizeof(storage), NULL))
		return -1;
	fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fd < 0)
		return -1;
	if (connect(fd,
		    (struct sockaddr *)&storage,
		    (socklen_t)g_socket_address_get_native_size(socket_address)) == 0)
		return fd;
	if (errno != EINPROGRESS && errno != EINTR) {
		g_debug("dial: %s", g_strerror(errno));
		close(fd);
		return -1;
	}
	/* a refused or unreachable handshake reports POLLERR (and POLLHUP) with POLLOUT */
	revents = esd_np_io_wait(fd, POLLOUT, cancel_fd, timeout_ms);
	if ((revents & POLLOUT) == 0 || (revents & (POLLERR | POLLHUP)) != 0) {
		gint error = 0;
		socklen_t len = sizeof(error);

		(void)getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
		g_debug("dial: %s", error != 0 ? g_strerror(error) : "timed out or cancelled");
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * esd_np_io_peer:
 * @fd: a connected socket
 * @port: (out) (optional): the peer's port
 *
 * Returns: (transfer full): the peer as `ADDRESS:PORT` (an IPv6 address
 *   unbracketed, as the notifications write it), or "" if not an IP peer
 */
gchar *
esd_np_io_peer(gint fd, guint16 *port)
{
	struct sockaddr_storage storage = {0};
	socklen_t len = sizeof(storage);
	gchar text[INET6_ADDRSTRLEN];
	guint16 peer_port;

	if (getpeername(fd, (struct sockaddr *)&storage, &len) != 0)
		return g_strdup("");
	if (storage.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&storage;
		inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
		peer_port = ntohs(in->sin_port);
	} else if (storage.ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&storage;
		inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
		peer_port = ntohs(in6->sin6_port);
	} else {
		return g_strdup("");
	}
	if (port != NULL)
		*port = peer_port;
	return g_strdup_printf("%s:%u", text, peer_port);
}

/**
 * esd_np_io_set_error:
 * @error: return location for a #GError, or %NULL
 * @errnum: the errno of the call that failed, taken before anything else
 * @what: what failed: a call, a path
 *
 * Sets @error to "@what: the reason", in %G_IO_ERROR.
 */
void
esd_np_io_set_error(GError **error, gint errnum, const gchar *what)
{
	g_set_error(error,
		    G_IO_ERROR,
		    g_io_error_from_errno(errnum),
		    "%s: %s",
		    what,
		    g_strerror(errnum));
}
