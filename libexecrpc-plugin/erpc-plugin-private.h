/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-plugin.h"

G_BEGIN_DECLS

/* for the daemon only: it drives every plugin through its vfuncs */

gboolean
erpc_plugin_runner_setup(ErpcPlugin *self, ErpcRegistry *registry, GError **error);
gboolean
erpc_plugin_runner_startup(ErpcPlugin *self, GError **error);
void
erpc_plugin_runner_connection_closed(ErpcPlugin *self, ErpcConnection *connection);
void
erpc_plugin_runner_shutdown(ErpcPlugin *self);
GOptionGroup *
erpc_plugin_runner_get_option_group(ErpcPlugin *self);
gboolean
erpc_plugin_runner_load_config(ErpcPlugin *self,
			       GKeyFile *file,
			       const gchar *group,
			       GError **error);

G_END_DECLS
