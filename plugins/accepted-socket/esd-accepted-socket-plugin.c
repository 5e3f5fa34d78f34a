/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <unistd.h>

#include "esd-accepted-socket-plugin.h"
#include "esd-socket-listener.h"

struct _EsdAcceptedSocketPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(EsdAcceptedSocketPlugin, esd_accepted_socket_plugin, ERPC_TYPE_PLUGIN)

/* sd_listen_fds(3): LISTEN_PID is this process and LISTEN_FDS a positive count */
static gboolean
esd_accepted_socket_plugin_has_systemd_sockets(void)
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

/* one listener type serves both schemes: `fd:N` and `systemd` */
static gboolean
esd_accepted_socket_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	ErpcContext *context = erpc_plugin_get_context(plugin);

	/* the sockets systemd passed are served whenever they are there */
	if (context != NULL && esd_accepted_socket_plugin_has_systemd_sockets())
		erpc_context_add_listen_uri(context, "systemd");
	if (!erpc_registry_add_extension(registry,
					 ERPC_EXTENSION_POINT_TRANSPORT,
					 "fd",
					 ESD_TYPE_SOCKET_LISTENER,
					 0,
					 error))
		return FALSE;
	return erpc_registry_add_extension(registry,
					   ERPC_EXTENSION_POINT_TRANSPORT,
					   "systemd",
					   ESD_TYPE_SOCKET_LISTENER,
					   0,
					   error);
}

static void
esd_accepted_socket_plugin_init(EsdAcceptedSocketPlugin *self)
{
}

static void
esd_accepted_socket_plugin_class_init(EsdAcceptedSocketPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = esd_accepted_socket_plugin_setup;
}

ERPC_PLUGIN_DEFINE("accepted-socket",
		   PACKAGE_VERSION,
		   "newline-delimited JSON over sockets handed over as descriptors (fd:N, "
		   "systemd socket activation, D-Bus)",
		   esd_accepted_socket_plugin_get_type)
