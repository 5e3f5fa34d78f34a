/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <unistd.h>

#include "esd-activation.h"

/*
 * What to listen on when the daemon was started for someone: sockets that
 * systemd passed are always served, and the default WebSocket listener is
 * only for a daemon that was given no other way to be reached.
 */

/* sd_listen_fds(3): LISTEN_PID is this process and LISTEN_FDS a positive count */
gboolean
esd_activation_has_systemd_sockets(void)
{
	const gchar *pid_text = g_getenv("LISTEN_PID");
	const gchar *fds_text = g_getenv("LISTEN_FDS");
	guint64 pid = 0;
	guint64 n_fds = 0;

	if (pid_text == NULL || fds_text == NULL)
		return FALSE;
	if (!g_ascii_string_to_unsigned(pid_text, 10, 1, G_MAXINT, &pid, NULL) ||
	    (pid_t)pid != getpid())
		return FALSE;
	return g_ascii_string_to_unsigned(fds_text, 10, 1, G_MAXINT, &n_fds, NULL);
}

/**
 * esd_activation_listen_uris:
 * @listen: (nullable): the `--listen` arguments
 * @dbus: whether the daemon is on the session bus (`--dbus`)
 *
 * Returns: (transfer full): @listen, plus `systemd` when systemd passed
 *   sockets and it is not named already; `ws://127.0.0.1:0` when that leaves
 *   nothing and the daemon is not on the bus
 */
GStrv
esd_activation_listen_uris(const gchar *const *listen, gboolean dbus)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	gboolean empty = listen == NULL || listen[0] == NULL;

	if (listen != NULL)
		g_strv_builder_addv(builder, (const gchar **)listen);
	if (esd_activation_has_systemd_sockets() &&
	    (listen == NULL || !g_strv_contains(listen, "systemd"))) {
		g_strv_builder_add(builder, "systemd");
		empty = FALSE;
	}
	if (empty && !dbus)
		g_strv_builder_add(builder, "ws://127.0.0.1:0");
	return g_strv_builder_end(builder);
}
