/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

gchar *
esd_environment_build_info(ErpcRegistry *registry);
gchar *
esd_environment_path_to_uri(const gchar *path);
gchar *
esd_environment_provider_id(void);

typedef void (*EsdEnvironmentCapabilityFunc)(const gchar *name,
					     gboolean enabled,
					     gpointer user_data);
void
esd_environment_foreach_capability(ErpcRegistry *registry,
				   EsdEnvironmentCapabilityFunc func,
				   gpointer user_data);

G_END_DECLS
