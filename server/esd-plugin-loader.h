/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_PLUGIN_LOADER (esd_plugin_loader_get_type())
G_DECLARE_FINAL_TYPE(EsdPluginLoader, esd_plugin_loader, ESD, PLUGIN_LOADER, GObject)

typedef enum {
	ESD_PLUGIN_DIR_FLAG_NONE = 0,
	ESD_PLUGIN_DIR_FLAG_SUBDIRS = 1 << 0,	/* one level of subdirectories too (a build tree) */
	ESD_PLUGIN_DIR_FLAG_INSTALLED = 1 << 1, /* installed with the daemon */
} EsdPluginDirFlags;

EsdPluginLoader *
esd_plugin_loader_new(ErpcRegistry *registry);
void
esd_plugin_loader_add_dir(EsdPluginLoader *self, const gchar *dir, gboolean with_subdirs);
void
esd_plugin_loader_add_dir_full(EsdPluginLoader *self, const gchar *dir, EsdPluginDirFlags flags);
guint
esd_plugin_loader_load_all(EsdPluginLoader *self);
void
esd_plugin_loader_end_startup(EsdPluginLoader *self);
void
esd_plugin_loader_set_defer(EsdPluginLoader *self, gboolean defer);
void
esd_plugin_loader_load_deferred(EsdPluginLoader *self, const gchar *name);
ErpcPlugin *
esd_plugin_loader_load_deferred_for_scheme(EsdPluginLoader *self, const gchar *scheme);
void
esd_plugin_loader_load_deferred_for_args(EsdPluginLoader *self, gint argc, gchar **argv);
ErpcPlugin *
esd_plugin_loader_load_file(EsdPluginLoader *self, const gchar *path, GError **error);
GPtrArray *
esd_plugin_loader_get_plugins(EsdPluginLoader *self);
const ErpcPluginInfo *
esd_plugin_loader_get_info(EsdPluginLoader *self, ErpcPlugin *plugin);
const gchar *
esd_plugin_loader_get_path(EsdPluginLoader *self, ErpcPlugin *plugin);
gboolean
esd_plugin_loader_startup(EsdPluginLoader *self, GError **error);
void
esd_plugin_loader_connection_closed(EsdPluginLoader *self, ErpcConnection *connection);
void
esd_plugin_loader_shutdown(EsdPluginLoader *self);

G_END_DECLS
