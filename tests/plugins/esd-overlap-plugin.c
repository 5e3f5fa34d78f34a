/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc-plugin.h>

/* registers a method the echo plugin owns: its setup must fail whole */

#define ESD_TYPE_OVERLAP_PLUGIN (esd_overlap_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdOverlapPlugin, esd_overlap_plugin, ESD, OVERLAP_PLUGIN, ErpcPlugin)

struct _EsdOverlapPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(EsdOverlapPlugin, esd_overlap_plugin, ERPC_TYPE_PLUGIN)

static void
esd_overlap_plugin_handler(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	erpc_call_return(call, NULL);
}

static gboolean
esd_overlap_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo unique = {.name = "test/overlap-only",
				       .family = "test",
				       .func = esd_overlap_plugin_handler};
	const ErpcMethodInfo clash = {.name = "test/echo",
				      .family = "test",
				      .func = esd_overlap_plugin_handler};

	if (!erpc_registry_add_method(registry, &unique, NULL, NULL, error))
		return FALSE;
	return erpc_registry_add_method(registry, &clash, NULL, NULL, error);
}

static void
esd_overlap_plugin_init(EsdOverlapPlugin *self)
{
}

static void
esd_overlap_plugin_class_init(EsdOverlapPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = esd_overlap_plugin_setup;
}

ERPC_PLUGIN_DEFINE("overlap", "0", "test plugin: duplicate method", esd_overlap_plugin_get_type)
