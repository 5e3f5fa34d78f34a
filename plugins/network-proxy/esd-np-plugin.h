/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_NP_PLUGIN (esd_np_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdNpPlugin, esd_np_plugin, ESD, NP_PLUGIN, ErpcPlugin)

G_END_DECLS
