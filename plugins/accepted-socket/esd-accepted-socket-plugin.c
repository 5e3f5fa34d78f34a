/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "esd-accepted-socket-plugin.h"
#include "esd-socket-listener.h"

struct _EsdAcceptedSocketPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(EsdAcceptedSocketPlugin, esd_accepted_socket_plugin, ERPC_TYPE_PLUGIN)

/* one listener type serves both schemes: `fd:N` and `systemd` */
static gboolean
esd_accepted_socket_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
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
