/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc-plugin.h>

/* a plugin built for another ABI: the loader must refuse it unopened */
G_MODULE_EXPORT const ErpcPluginInfo *
erpc_plugin_query(void);

const ErpcPluginInfo *
erpc_plugin_query(void)
{
	static const ErpcPluginInfo info = {ERPC_PLUGIN_ABI_VERSION + 998,
					    ERPC_BUILD_ID,
					    "badabi",
					    "0",
					    "wrong ABI",
					    NULL,
					    {NULL}};
	return &info;
}
