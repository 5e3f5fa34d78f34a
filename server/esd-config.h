/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "esd-plugin-loader.h"

G_BEGIN_DECLS

GStrv
esd_config_prescan(gint argc, gchar **argv, const gchar *option);
GKeyFile *
esd_config_read(const gchar *path, gboolean required, GError **error);
gboolean
esd_config_apply(GKeyFile *file, const gchar *path, EsdPluginLoader *loader, GError **error);

G_END_DECLS
