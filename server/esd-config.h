/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-plugin-loader.h"

G_BEGIN_DECLS

/* the daemon's own options in the config file */
#define ESD_CONFIG_GROUP "execserverd"

GStrv
esd_config_prescan(gint argc, gchar **argv, const gchar *option);
GKeyFile *
esd_config_read(const gchar *path, gboolean required, GError **error);
gchar *
esd_config_system_path(void);
gchar *
esd_config_user_path(void);
gboolean
esd_config_apply_entries(GKeyFile *file,
			 const gchar *path,
			 const gchar *group,
			 const GOptionEntry *entries,
			 const gchar *const *not_keys,
			 GError **error);
gboolean
esd_config_apply(GKeyFile *file, const gchar *path, EsdPluginLoader *loader, GError **error);

G_END_DECLS
