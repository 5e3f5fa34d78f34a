/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "esd-ws-listener.h"
#include "esd-ws-plugin.h"

struct _EsdWsPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(EsdWsPlugin, esd_ws_plugin, ERPC_TYPE_PLUGIN)

static gboolean
esd_ws_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	if (!erpc_registry_add_extension(registry,
					 ERPC_EXTENSION_POINT_TRANSPORT,
					 "ws",
					 ESD_TYPE_WS_LISTENER,
					 0,
					 error))
		return FALSE;
	/* the same listener, over TLS */
	return erpc_registry_add_extension(registry,
					   ERPC_EXTENSION_POINT_TRANSPORT,
					   "wss",
					   ESD_TYPE_WS_LISTENER,
					   0,
					   error);
}

static void
esd_ws_plugin_init(EsdWsPlugin *self)
{
}

static void
esd_ws_plugin_class_init(EsdWsPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = esd_ws_plugin_setup;
}

ERPC_PLUGIN_DEFINE("ws",
		   PACKAGE_VERSION,
		   "JSON-RPC over WebSocket (libsoup), one message per WebSocket message",
		   esd_ws_plugin_get_type)
