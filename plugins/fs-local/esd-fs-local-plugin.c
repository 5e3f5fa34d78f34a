/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "esd-fs-connection-state.h"
#include "esd-fs-handle-table.h"
#include "esd-fs-local-plugin.h"
#include "esd-fs-methods.h"
#include "esd-fs-sandbox-warm.h"

/**
 * EsdFsLocalPlugin:
 *
 * The file system of the machine the daemon runs on: the fs methods,
 * file handles and missing-path watches. Per-connection state lives on the
 * #ErpcConnection and goes with it.
 */

struct _EsdFsLocalPlugin {
	ErpcPlugin parent_instance;
	EsdFsInotify *inotify;
	gint max_file_handles; /* --max-file-handles, or max-file-handles in [fs-local] */
	gint warm_helpers;     /* --fs-sandbox-helpers */
	gint warm_idle;	       /* --fs-sandbox-helper-idle */
};

G_DEFINE_TYPE(EsdFsLocalPlugin, esd_fs_local_plugin, ERPC_TYPE_PLUGIN)

/**
 * esd_fs_local_plugin_get_inotify:
 * @self: the plugin
 *
 * Returns: (transfer none): the inotify instance shared by all watches
 */
EsdFsInotify *
esd_fs_local_plugin_get_inotify(EsdFsLocalPlugin *self)
{
	g_return_val_if_fail(ESD_IS_FS_LOCAL_PLUGIN(self), NULL);
	if (self->inotify == NULL)
		self->inotify = esd_fs_inotify_new();
	return self->inotify;
}

static gboolean
esd_fs_local_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	/* sandboxedFileStreaming: fs/open honours a restricted `sandbox` (the helper opens it) */
	if (!erpc_registry_add_capability(registry, "fsWatchMissing", 1, error) ||
	    !erpc_registry_add_capability(registry, "fileWriteStreaming", 1, error) ||
	    !erpc_registry_add_capability(registry, "sandboxedFileStreaming", 1, error))
		return FALSE;
	return esd_fs_methods_register(registry, ESD_FS_LOCAL_PLUGIN(plugin), error);
}

static GOptionGroup *
esd_fs_local_plugin_get_option_group(ErpcPlugin *plugin)
{
	EsdFsLocalPlugin *self = ESD_FS_LOCAL_PLUGIN(plugin);
	const GOptionEntry entries[] = {
	    {"max-file-handles",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_file_handles,
	     N_("Open file handles per connection (default 128, as the reference)"),
	     "N"},
	    {"fs-sandbox-helpers",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->warm_helpers,
	     N_("Sandboxed file system helpers kept per connection (default 4)"),
	     "N"},
	    {"fs-sandbox-helper-idle",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->warm_idle,
	     N_("Seconds an idle sandboxed file system helper is kept (default 30)"),
	     "SECONDS"},
	    {NULL}};
	GOptionGroup *group =
	    g_option_group_new("fs-local",
			       /* TRANSLATORS: the heading of the fs-local plugin's options */
			       _("Local file system (fs-local plugin):"),
			       _("Show the local file system options"),
			       self,
			       NULL);

	g_option_group_add_entries(group, entries);
	g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);
	return group;
}

static gboolean
esd_fs_local_plugin_load_config(ErpcPlugin *plugin,
				GKeyFile *file,
				const gchar *group,
				GError **error)
{
	EsdFsLocalPlugin *self = ESD_FS_LOCAL_PLUGIN(plugin);
	const ErpcConfigKey keys[] = {
	    {"max-file-handles", ERPC_CONFIG_KEY_INT, &self->max_file_handles},
	    {"fs-sandbox-helpers", ERPC_CONFIG_KEY_INT, &self->warm_helpers},
	    {"fs-sandbox-helper-idle", ERPC_CONFIG_KEY_INT, &self->warm_idle},
	    {NULL}};

	return erpc_plugin_read_config_keys(plugin, file, group, keys, error);
}

static gboolean
esd_fs_local_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdFsLocalPlugin *self = ESD_FS_LOCAL_PLUGIN(plugin);

	if (self->max_file_handles < 1) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--max-file-handles must be at least 1");
		return FALSE;
	}
	if (self->warm_helpers < 1 || self->warm_idle < 1) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--fs-sandbox-helpers and --fs-sandbox-helper-idle must be at "
				    "least 1");
		return FALSE;
	}
	esd_fs_handle_table_set_limit((guint)self->max_file_handles);
	esd_fs_warm_set_limits((guint)self->warm_helpers, (guint)self->warm_idle);
	return TRUE;
}

static void
esd_fs_local_plugin_connection_closed(ErpcPlugin *plugin, ErpcConnection *connection)
{
	esd_fs_connection_state_drop(connection);
}

static void
esd_fs_local_plugin_shutdown(ErpcPlugin *plugin)
{
	EsdFsLocalPlugin *self = ESD_FS_LOCAL_PLUGIN(plugin);
	g_clear_object(&self->inotify);
}

static void
esd_fs_local_plugin_finalize(GObject *object)
{
	EsdFsLocalPlugin *self = ESD_FS_LOCAL_PLUGIN(object);
	g_clear_object(&self->inotify);
	G_OBJECT_CLASS(esd_fs_local_plugin_parent_class)->finalize(object);
}

static void
esd_fs_local_plugin_init(EsdFsLocalPlugin *self)
{
	self->max_file_handles = ESD_FS_HANDLES_MAX;
	self->warm_helpers = ESD_FS_WARM_MAX_DEFAULT;
	self->warm_idle = ESD_FS_WARM_IDLE_DEFAULT;
}

static void
esd_fs_local_plugin_class_init(EsdFsLocalPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_fs_local_plugin_finalize;
	plugin_class->setup = esd_fs_local_plugin_setup;
	plugin_class->get_option_group = esd_fs_local_plugin_get_option_group;
	plugin_class->load_config = esd_fs_local_plugin_load_config;
	plugin_class->startup = esd_fs_local_plugin_startup;
	plugin_class->connection_closed = esd_fs_local_plugin_connection_closed;
	plugin_class->shutdown = esd_fs_local_plugin_shutdown;
}

ERPC_PLUGIN_DEFINE("fs-local",
		   PACKAGE_VERSION,
		   "the local file system: fs/* methods, file handles, missing-path watches",
		   esd_fs_local_plugin_get_type)
