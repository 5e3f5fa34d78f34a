/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc-plugin.h>

/* claims a name that is not its file name */
G_MODULE_EXPORT const ErpcPluginInfo *
erpc_plugin_query(void);

const ErpcPluginInfo *
erpc_plugin_query(void)
{
	static const ErpcPluginInfo info = {ERPC_PLUGIN_ABI_VERSION,
					    ERPC_BUILD_ID,
					    "somebody-else",
					    "0",
					    "wrong name",
					    NULL,
					    {NULL}};
	return &info;
}
