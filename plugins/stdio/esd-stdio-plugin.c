/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-stdio-listener.h"
#include "esd-stdio-plugin.h"

struct _EsdStdioPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(EsdStdioPlugin, esd_stdio_plugin, ERPC_TYPE_PLUGIN)

static gboolean
esd_stdio_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	return erpc_registry_add_extension(registry,
					   ERPC_EXTENSION_POINT_TRANSPORT,
					   "stdio",
					   ESD_TYPE_STDIO_LISTENER,
					   0,
					   error);
}

static void
esd_stdio_plugin_init(EsdStdioPlugin *self)
{
}

static void
esd_stdio_plugin_class_init(EsdStdioPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = esd_stdio_plugin_setup;
}

ERPC_PLUGIN_DEFINE("stdio",
		   PACKAGE_VERSION,
		   "newline-delimited JSON over the daemon's stdin and stdout",
		   esd_stdio_plugin_get_type)
