/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-socket-fds.h"

/*
 * The descriptors behind `--listen fd:N` and `--listen systemd`: checked to
 * be stream sockets, sorted into listening and connected ones, and wrapped
 * in GSockets. systemd's protocol (sd_listen_fds(3)): LISTEN_PID names the
 * process the sockets are for, LISTEN_FDS how many there are, numbered from
 * 3. The variables are removed so that no command sees sockets that are not
 * its own.
 */

#define ESD_SD_LISTEN_FDS_START 3
/* more than any socket unit passes; bounds the loop over a hostile LISTEN_FDS */
#define ESD_SOCKET_FDS_MAX 1024

void
esd_socket_fd_free(EsdSocketFd *item)
{
	g_clear_object(&item->socket);
	g_free(item);
}

static gboolean
esd_socket_fds_parse_uri_fd(const gchar *uri, GArray *fds, GError **error)
{
	guint64 value = 0;

	if (!g_ascii_string_to_unsigned(uri + strlen("fd:"), 10, 0, G_MAXINT, &value, NULL)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid --listen %s: expected fd:N with a descriptor number",
			    uri);
		return FALSE;
	}
	/* stdin and stdout are the stdio transport's; a socket there is served by --listen stdio */
	if (value <= STDERR_FILENO) {
		g_set_error(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid --listen %s: descriptors 0 to 2 are served with --listen stdio",
		    uri);
		return FALSE;
	}
	g_array_append_val(fds, value);
	return TRUE;
}

static gboolean
esd_socket_fds_from_systemd(GArray *fds, GError **error)
{
	g_autofree gchar *pid_text = g_strdup(g_getenv("LISTEN_PID"));
	g_autofree gchar *fds_text = g_strdup(g_getenv("LISTEN_FDS"));
	guint64 pid = 0;
	guint64 n_fds = 0;

	g_unsetenv("LISTEN_PID");
	g_unsetenv("LISTEN_FDS");
	g_unsetenv("LISTEN_FDNAMES");
	if (pid_text == NULL || fds_text == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_NOT_FOUND,
				    "--listen systemd: no sockets were passed (LISTEN_PID and "
				    "LISTEN_FDS are not set)");
		return FALSE;
	}
	if (!g_ascii_string_to_unsigned(pid_text, 10, 1, G_MAXINT, &pid, NULL) ||
	    (pid_t)pid != getpid()) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_FOUND,
			    "--listen systemd: the sockets were passed to process %s, not to this "
			    "one",
			    pid_text);
		return FALSE;
	}
	if (!g_ascii_string_to_unsigned(fds_text, 10, 1, ESD_SOCKET_FDS_MAX, &n_fds, NULL)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "--listen systemd: invalid LISTEN_FDS %s",
			    fds_text);
		return FALSE;
	}
	for (guint i = 0; i < n_fds; i++) {
		gint fd = ESD_SD_LISTEN_FDS_START + (gint)i;
		g_array_append_val(fds, fd);
	}
	return TRUE;
}

static gboolean
esd_socket_fds_fail(gint fd, const gchar *what, gint saved_errno, GError **error)
{
	if (saved_errno != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "fd %d: %s: %s",
			    fd,
			    what,
			    g_strerror(saved_errno));
		return FALSE;
	}
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "fd %d %s", fd, what);
	return FALSE;
}

/* a stream socket that listens (accept from it) or is connected (serve it) */
static gboolean
esd_socket_fds_check(gint fd, gboolean *listening, GError **error)
{
	struct stat st;
	struct sockaddr_storage address;
	socklen_t len = sizeof(gint);
	gint type = 0;
	gint accepting = 0;

	if (fstat(fd, &st) != 0)
		return esd_socket_fds_fail(fd, "cannot be used", errno, error);
	if (!S_ISSOCK(st.st_mode))
		return esd_socket_fds_fail(fd, "is not a socket", 0, error);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
		return esd_socket_fds_fail(fd, "cannot read its type", errno, error);
	if (type != SOCK_STREAM)
		return esd_socket_fds_fail(fd, "is not a stream socket", 0, error);
	len = sizeof(accepting);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) != 0)
		return esd_socket_fds_fail(fd, "cannot tell whether it listens", errno, error);
	*listening = accepting != 0;
	len = sizeof(address);
	if (!*listening && getpeername(fd, (struct sockaddr *)&address, &len) != 0)
		return esd_socket_fds_fail(fd, "is neither listening nor connected", 0, error);
	return TRUE;
}

/* a close-on-exec copy in a GSocket, which closes the copy itself if it fails */
static GSocket *
esd_socket_fds_wrap(gint fd, GError **error)
{
	gint copy = fcntl(fd, F_DUPFD_CLOEXEC, ESD_SD_LISTEN_FDS_START);

	/* out of descriptors is no fault of the descriptor: the code tells it */
	if (copy < 0) {
		gint errsv = errno;
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(errsv),
			    "fd %d: cannot be duplicated: %s",
			    fd,
			    g_strerror(errsv));
		return NULL;
	}
	return g_socket_new_from_fd(copy, error);
}

/**
 * esd_socket_fds_take:
 * @uri: `fd:N` or `systemd`
 * @error: return location for a #GError, or %NULL
 *
 * Checks every descriptor @uri names, then wraps them all. On success the
 * original descriptors are closed and the returned sockets own copies; on
 * failure nothing was closed.
 *
 * Returns: (transfer full) (element-type EsdSocketFd): the sockets, or %NULL
 */
GPtrArray *
esd_socket_fds_take(const gchar *uri, GError **error)
{
	g_autoptr(GArray) fds = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(GPtrArray) items =
	    g_ptr_array_new_with_free_func((GDestroyNotify)esd_socket_fd_free);

	if (g_str_has_prefix(uri, "fd:")) {
		if (!esd_socket_fds_parse_uri_fd(uri, fds, error))
			return NULL;
	} else if (g_strcmp0(uri, "systemd") == 0) {
		if (!esd_socket_fds_from_systemd(fds, error))
			return NULL;
	} else {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unsupported --listen URL %s; expected fd:N or systemd",
			    uri);
		return NULL;
	}
	for (guint i = 0; i < fds->len; i++) {
		g_autoptr(EsdSocketFd) item = g_new0(EsdSocketFd, 1);
		item->source_fd = g_array_index(fds, gint, i);
		if (!esd_socket_fds_check(item->source_fd, &item->listening, error))
			return NULL;
		g_ptr_array_add(items, g_steal_pointer(&item));
	}
	for (guint i = 0; i < items->len; i++) {
		EsdSocketFd *item = g_ptr_array_index(items, i);
		item->socket = esd_socket_fds_wrap(item->source_fd, error);
		if (item->socket == NULL)
			return NULL;
	}
	for (guint i = 0; i < items->len; i++) {
		EsdSocketFd *item = g_ptr_array_index(items, i);
		close(item->source_fd);
	}
	return g_steal_pointer(&items);
}

/*
 * `unix pid 42`, `unix socketpair` or `tcp 10.0.0.1:5000`: only network peers carry an
 * address with a port, which gives them the handshake timeout and per-address limit
 */
gchar *
esd_socket_fds_peer_name(GSocket *socket)
{
	g_autoptr(GSocketAddress) remote = NULL;

	if (g_socket_get_family(socket) == G_SOCKET_FAMILY_UNIX) {
		g_autoptr(GCredentials) credentials = g_socket_get_credentials(socket, NULL);
		pid_t pid = -1;
		if (credentials != NULL)
			pid = g_credentials_get_unix_pid(credentials, NULL);
		/* a socketpair the daemon made itself (D-Bus): its owner logs who it is for */
		if (pid == getpid())
			return g_strdup("unix socketpair");
		if (pid > 0)
			return g_strdup_printf("unix pid %d", (gint)pid);
		return g_strdup("unix");
	}
	remote = g_socket_get_remote_address(socket, NULL);
	if (G_IS_INET_SOCKET_ADDRESS(remote)) {
		g_autofree gchar *address =
		    g_socket_connectable_to_string(G_SOCKET_CONNECTABLE(remote));
		return g_strdup_printf("tcp %s", address);
	}
	return g_strdup("socket");
}
