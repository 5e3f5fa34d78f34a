/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-host-doors.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gio/gio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "esd-landlock.h"
#include "esd-sandbox-mounts.h"

/**
 * esd_host_doors_parse_bus_address:
 * @address: a D-Bus address, e.g. `unix:path=/run/user/1000/bus;unix:abstract=/tmp/x`
 * @abstract: (out): set when one of its entries is an abstract socket
 *
 * Returns: (transfer full): the socket paths of its `unix:path=` entries, unescaped
 */
gchar **
esd_host_doors_parse_bus_address(const gchar *address, gboolean *abstract)
{
	g_autoptr(GStrvBuilder) paths = g_strv_builder_new();
	g_auto(GStrv) entries = g_strsplit(address != NULL ? address : "", ";", -1);

	*abstract = FALSE;
	for (guint i = 0; entries[i] != NULL; i++) {
		g_auto(GStrv) pairs = NULL;

		if (!g_str_has_prefix(entries[i], "unix:"))
			continue;
		pairs = g_strsplit(entries[i] + strlen("unix:"), ",", -1);
		for (guint j = 0; pairs[j] != NULL; j++) {
			if (g_str_has_prefix(pairs[j], "abstract="))
				*abstract = TRUE;
			else if (g_str_has_prefix(pairs[j], "path=")) {
				g_autofree gchar *path =
				    g_uri_unescape_string(pairs[j] + strlen("path="), NULL);
				if (path != NULL && g_path_is_absolute(path))
					g_strv_builder_add(paths, path);
			}
		}
	}
	return g_strv_builder_end(paths);
}

static void
esd_host_doors_hide_bus(const gchar *variable)
{
	g_auto(GStrv) paths = NULL;
	gboolean abstract = FALSE;

	paths = esd_host_doors_parse_bus_address(g_getenv(variable), &abstract);
	for (guint i = 0; paths[i] != NULL; i++)
		esd_sandbox_hide_path(paths[i]);
	if (abstract)
		esd_landlock_hide_abstract_sockets();
}

/* the listening sockets among this process's descriptors, whoever opened them */
static void
esd_host_doors_hide_listeners(gboolean tcp_authenticated)
{
	g_autoptr(GDir) dir = g_dir_open("/proc/self/fd", 0, NULL);
	const gchar *name;

	if (dir == NULL) {
		g_warning("cannot list this process's descriptors: the sandbox cannot hide "
			  "the daemon's listening sockets");
		return;
	}
	while ((name = g_dir_read_name(dir)) != NULL) {
		struct sockaddr_storage addr = {0};
		socklen_t len = sizeof(addr);
		socklen_t optlen = sizeof(gint);
		gint listening = 0;
		gint fd = atoi(name);

		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 ||
		    !listening || getsockname(fd, (struct sockaddr *)&addr, &len) != 0)
			continue;
		if (addr.ss_family == AF_UNIX) {
			const struct sockaddr_un *un = (const struct sockaddr_un *)&addr;
			gsize n = len > offsetof(struct sockaddr_un, sun_path)
				      ? len - offsetof(struct sockaddr_un, sun_path)
				      : 0;
			if (n > 0 && un->sun_path[0] == '\0')
				esd_landlock_hide_abstract_sockets();
			else if (n > 0) {
				g_autofree gchar *path = g_strndup(un->sun_path, n);
				g_autofree gchar *cwd = g_get_current_dir();
				g_autofree gchar *abs = g_canonicalize_filename(path, cwd);
				g_debug("hiding the listening socket %s from sandboxes", abs);
				esd_sandbox_hide_path(abs);
			}
		} else if (!tcp_authenticated &&
			   (addr.ss_family == AF_INET || addr.ss_family == AF_INET6)) {
			guint16 port = addr.ss_family == AF_INET
					   ? ntohs(((struct sockaddr_in *)&addr)->sin_port)
					   : ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
			g_debug("keeping sandboxes that share the network off TCP port %u", port);
			esd_landlock_hide_tcp_port(port);
		}
	}
}

/**
 * esd_host_doors_close:
 * @config: what the daemon was configured with
 *
 * Hands every door of this host to the sandbox module; called once the
 * listeners are up. Under a restricted network the seccomp filter already
 * refuses connect(2); this also covers sandboxes that share the network:
 * - the daemon's listening sockets: Unix paths are masked, abstract names
 *   and (without authentication) TCP ports are refused through Landlock;
 * - the session bus and, for a daemon running as root, the system bus and
 *   systemd's private socket: either starts a process outside the sandbox
 *   on request (StartTransientUnit), as the daemon's own user;
 * - the user's systemd manager (`systemd-run --user`);
 * - the files plugins name, such as those that authenticate WebSocket
 *   clients and the TLS key.
 */
void
esd_host_doors_close(const EsdHostDoorsConfig *config)
{
	const gchar *runtime = g_get_user_runtime_dir();
	g_autofree gchar *user_bus = g_build_filename(runtime, "bus", NULL);
	g_autofree gchar *user_systemd = g_build_filename(runtime, "systemd", "private", NULL);
	g_autofree gchar *run_user = g_strdup_printf("/run/user/%u", (guint)getuid());
	g_autofree gchar *run_user_bus = g_build_filename(run_user, "bus", NULL);
	g_autofree gchar *run_user_systemd = g_build_filename(run_user, "systemd", "private", NULL);

	for (guint i = 0; config->secret_files != NULL && config->secret_files[i] != NULL; i++)
		esd_sandbox_hide_path(config->secret_files[i]);
	esd_host_doors_hide_listeners(config->tcp_authenticated);
	esd_host_doors_hide_bus("DBUS_SESSION_BUS_ADDRESS");
	esd_host_doors_hide_bus("DBUS_STARTER_ADDRESS");
	esd_sandbox_hide_path(user_bus);
	esd_sandbox_hide_path(user_systemd);
	esd_sandbox_hide_path(run_user_bus);
	esd_sandbox_hide_path(run_user_systemd);
	if (geteuid() == 0) {
		esd_host_doors_hide_bus("DBUS_SYSTEM_BUS_ADDRESS");
		esd_sandbox_hide_path("/run/dbus/system_bus_socket");
		esd_sandbox_hide_path("/run/systemd/private");
	}
}
