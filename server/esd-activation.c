/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-activation.h"

/*
 * What to listen on when the daemon was started for someone: the listeners
 * plugins ask for (the accepted-socket plugin asks for `systemd` when systemd
 * passed sockets) are always served, and the default WebSocket listener is
 * only for a daemon that was given no other way to be reached.
 */

/**
 * esd_activation_listen_uris:
 * @listen: (nullable): the `--listen` arguments
 * @requested: (nullable): the listeners plugins asked for
 *   (erpc_context_add_listen_uri())
 * @dbus: whether the daemon is on the session bus (`--dbus`)
 *
 * Returns: (transfer full): @listen, plus each of @requested it does not name
 *   already; `ws://127.0.0.1:0` when that leaves nothing and the daemon is
 *   not on the bus
 */
GStrv
esd_activation_listen_uris(const gchar *const *listen, const gchar *const *requested, gboolean dbus)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	gboolean empty = TRUE;

	for (guint i = 0; listen != NULL && listen[i] != NULL; i++) {
		g_strv_builder_add(builder, listen[i]);
		empty = FALSE;
	}
	for (guint i = 0; requested != NULL && requested[i] != NULL; i++) {
		if (listen != NULL && g_strv_contains(listen, requested[i]))
			continue;
		g_strv_builder_add(builder, requested[i]);
		empty = FALSE;
	}
	if (empty && !dbus)
		g_strv_builder_add(builder, "ws://127.0.0.1:0");
	return g_strv_builder_end(builder);
}
