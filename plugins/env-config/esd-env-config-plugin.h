/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_ENV_CONFIG_PLUGIN (esd_env_config_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdEnvConfigPlugin, esd_env_config_plugin, ESD, ENV_CONFIG_PLUGIN, ErpcPlugin)

G_END_DECLS
