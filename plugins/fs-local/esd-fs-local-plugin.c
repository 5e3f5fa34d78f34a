/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "esd-fs-connection-state.h"
#include "esd-fs-handle-table.h"
#include "esd-fs-local-plugin.h"
#include "esd-fs-methods.h"

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
	GVariant *handles =
	    erpc_registry_get_option(registry, "max-file-handles", G_VARIANT_TYPE_UINT32);

	if (handles != NULL)
		esd_fs_handle_table_set_limit(g_variant_get_uint32(handles));
	/* sandboxedFileStreaming: fs/open honours a restricted `sandbox` (the helper opens it) */
	if (!erpc_registry_add_capability(registry, "fsWatchMissing", 1, error) ||
	    !erpc_registry_add_capability(registry, "fileWriteStreaming", 1, error) ||
	    !erpc_registry_add_capability(registry, "sandboxedFileStreaming", 1, error))
		return FALSE;
	return esd_fs_methods_register(registry, ESD_FS_LOCAL_PLUGIN(plugin), error);
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
}

static void
esd_fs_local_plugin_class_init(EsdFsLocalPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_fs_local_plugin_finalize;
	plugin_class->setup = esd_fs_local_plugin_setup;
	plugin_class->connection_closed = esd_fs_local_plugin_connection_closed;
	plugin_class->shutdown = esd_fs_local_plugin_shutdown;
}

ERPC_PLUGIN_DEFINE("fs-local",
		   PACKAGE_VERSION,
		   "the local file system: fs/* methods, file handles, missing-path watches",
		   esd_fs_local_plugin_get_type)
