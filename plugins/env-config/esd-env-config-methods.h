/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* what the plugin's options set, read by every request */
typedef struct {
	gint64 max_bytes;
	gchar *system_dir;
} EsdEnvConfigSettings;

gboolean
esd_env_config_methods_register(ErpcRegistry *registry,
				const EsdEnvConfigSettings *settings,
				GError **error);

G_END_DECLS
