/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc-plugin.h>

/* the right ABI but another build of libexecrpc */
G_MODULE_EXPORT const ErpcPluginInfo *
erpc_plugin_query(void);

const ErpcPluginInfo *
erpc_plugin_query(void)
{
	static const ErpcPluginInfo info = {ERPC_PLUGIN_ABI_VERSION,
					    "some-other-build",
					    "badbuild",
					    "0",
					    "wrong build id",
					    NULL,
					    {NULL}};
	return &info;
}
