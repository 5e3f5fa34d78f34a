/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_WS_PLUGIN (esd_ws_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdWsPlugin, esd_ws_plugin, ESD, WS_PLUGIN, ErpcPlugin)

GVariant *
esd_ws_plugin_get_listener_options(void);

G_END_DECLS
