/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erpc-plugin-private.h"
#include "esd-plugin-loader.h"

/*
 * Plugins are found in the --plugins-dir directories first, then in the
 * installed plugin directory; the first file of a given name wins. Each file
 * is checked (owner, mode) before it is opened, and its entry symbol is
 * checked (ABI, build id, name, type) before anything is instantiated.
 */

#define ESD_PLUGIN_PREFIX "libesd-plugin-"
#define ESD_PLUGIN_SUFFIX ".so"

typedef struct {
	gchar *dir;
	gboolean with_subdirs;
} EsdPluginDir;

typedef struct {
	ErpcPlugin *plugin;
	const ErpcPluginInfo *info;
	gchar *path;
} EsdPluginEntry;

struct _EsdPluginLoader {
	GObject parent_instance;
	ErpcRegistry *registry;
	GPtrArray *dirs;    /* of EsdPluginDir */
	GPtrArray *entries; /* of EsdPluginEntry, in load order */
	GPtrArray *plugins; /* of ErpcPlugin, same order */
};

G_DEFINE_TYPE(EsdPluginLoader, esd_plugin_loader, G_TYPE_OBJECT)

static void
esd_plugin_dir_free(EsdPluginDir *dir)
{
	g_free(dir->dir);
	g_free(dir);
}

static void
esd_plugin_entry_free(EsdPluginEntry *entry)
{
	g_object_unref(entry->plugin);
	g_free(entry->path);
	g_free(entry);
}

void
esd_plugin_loader_add_dir(EsdPluginLoader *self, const gchar *dir, gboolean with_subdirs)
{
	EsdPluginDir *entry = g_new0(EsdPluginDir, 1);
	entry->dir = g_strdup(dir);
	entry->with_subdirs = with_subdirs;
	g_ptr_array_add(self->dirs, entry);
}

static EsdPluginEntry *
esd_plugin_loader_find(EsdPluginLoader *self, const gchar *name)
{
	for (guint i = 0; i < self->entries->len; i++) {
		EsdPluginEntry *entry = g_ptr_array_index(self->entries, i);
		if (g_strcmp0(entry->info->name, name) == 0)
			return entry;
	}
	return NULL;
}

/* as NetworkManager does: only files we or root own, writable by nobody else */
static gboolean
esd_plugin_loader_validate_file(const gchar *path, GError **error)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    erpc_error_code_from_errno(errno),
			    "cannot stat %s: %s",
			    path,
			    g_strerror(errno));
		return FALSE;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s is not a regular file",
			    path);
		return FALSE;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s is owned by uid %u, neither root nor uid %u",
			    path,
			    (guint)st.st_uid,
			    (guint)geteuid());
		return FALSE;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 || (st.st_mode & (S_ISUID | S_ISGID)) != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s has unsafe mode %04o",
			    path,
			    (guint)(st.st_mode & 07777));
		return FALSE;
	}
	return TRUE;
}

static gchar *
esd_plugin_loader_name_from_path(const gchar *path)
{
	g_autofree gchar *base = g_path_get_basename(path);
	if (!g_str_has_prefix(base, ESD_PLUGIN_PREFIX) ||
	    !g_str_has_suffix(base, ESD_PLUGIN_SUFFIX))
		return NULL;
	return g_strndup(base + strlen(ESD_PLUGIN_PREFIX),
			 strlen(base) - strlen(ESD_PLUGIN_PREFIX) - strlen(ESD_PLUGIN_SUFFIX));
}

static gboolean
esd_plugin_loader_check_info(const ErpcPluginInfo *info,
			     const gchar *path,
			     const gchar *file_name,
			     GError **error)
{
	if (info == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s returned no plugin info",
			    path);
		return FALSE;
	}
	if (info->abi_version != ERPC_PLUGIN_ABI_VERSION) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s has plugin ABI %u, the daemon has ABI %u",
			    path,
			    (guint)info->abi_version,
			    (guint)ERPC_PLUGIN_ABI_VERSION);
		return FALSE;
	}
	if (g_strcmp0(info->build_id, ERPC_BUILD_ID) != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s was built for %s, the daemon is build %s",
			    path,
			    info->build_id != NULL ? info->build_id : "(none)",
			    ERPC_BUILD_ID);
		return FALSE;
	}
	if (g_strcmp0(info->name, file_name) != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s calls itself %s, expected %s",
			    path,
			    info->name != NULL ? info->name : "(none)",
			    file_name);
		return FALSE;
	}
	if (info->get_type == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s has no plugin type",
			    path);
		return FALSE;
	}
	return TRUE;
}

/* loads, checks and sets up one plugin file; nothing is kept on failure */
ErpcPlugin *
esd_plugin_loader_load_file(EsdPluginLoader *self, const gchar *path, GError **error)
{
	g_autofree gchar *file_name = NULL;
	GModule *module;
	ErpcPluginQueryFunc query = NULL;
	const ErpcPluginInfo *info;
	EsdPluginEntry *existing;
	EsdPluginEntry *entry;
	GType gtype;
	g_autoptr(ErpcPlugin) plugin = NULL;

	file_name = esd_plugin_loader_name_from_path(path);
	if (file_name == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s is not named " ESD_PLUGIN_PREFIX "NAME" ESD_PLUGIN_SUFFIX,
			    path);
		return NULL;
	}
	existing = esd_plugin_loader_find(self, file_name);
	if (existing != NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_EXISTS,
			    "plugin %s at %s ignored: already loaded from %s",
			    file_name,
			    path,
			    existing->path);
		return NULL;
	}
	if (!esd_plugin_loader_validate_file(path, error))
		return NULL;
	module = g_module_open_full(path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL, error);
	if (module == NULL)
		return NULL;
	if (!g_module_symbol(module, ERPC_PLUGIN_SYMBOL, (gpointer *)&query) || query == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s does not export " ERPC_PLUGIN_SYMBOL,
			    path);
		g_module_close(module);
		return NULL;
	}
	info = query();
	if (!esd_plugin_loader_check_info(info, path, file_name, error)) {
		g_module_close(module);
		return NULL;
	}
	gtype = info->get_type();
	if (!g_type_is_a(gtype, ERPC_TYPE_PLUGIN) || G_TYPE_IS_ABSTRACT(gtype)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s: type %s is not a concrete ErpcPlugin",
			    path,
			    g_type_name(gtype));
		g_module_close(module);
		return NULL;
	}
	/* a registered GType cannot be unloaded */
	g_module_make_resident(module);
	plugin = g_object_new(gtype, "name", info->name, NULL);
	if (!erpc_plugin_runner_setup(plugin, self->registry, error))
		return NULL;

	entry = g_new0(EsdPluginEntry, 1);
	entry->plugin = g_object_ref(plugin);
	entry->info = info;
	entry->path = g_strdup(path);
	g_ptr_array_add(self->entries, entry);
	g_ptr_array_add(self->plugins, plugin);
	g_debug("loaded plugin %s %s from %s", info->name, info->version, path);
	return g_steal_pointer(&plugin);
}

static gint
esd_plugin_loader_sort_paths(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar **)a, *(const gchar **)b);
}

static void
esd_plugin_loader_collect(const gchar *dir, gboolean with_subdirs, GPtrArray *paths)
{
	g_autoptr(GDir) gdir = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *name;

	gdir = g_dir_open(dir, 0, &error);
	if (gdir == NULL) {
		g_debug("no plugins in %s: %s", dir, error->message);
		return;
	}
	while ((name = g_dir_read_name(gdir)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);
		if (g_str_has_prefix(name, ESD_PLUGIN_PREFIX) &&
		    g_str_has_suffix(name, ESD_PLUGIN_SUFFIX))
			g_ptr_array_add(paths, g_steal_pointer(&path));
		else if (with_subdirs && g_file_test(path, G_FILE_TEST_IS_DIR))
			esd_plugin_loader_collect(path, FALSE, paths);
	}
}

/* returns the number of plugins loaded; failures are logged and skipped */
guint
esd_plugin_loader_load_all(EsdPluginLoader *self)
{
	guint n = 0;

	for (guint i = 0; i < self->dirs->len; i++) {
		EsdPluginDir *dir = g_ptr_array_index(self->dirs, i);
		g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);

		esd_plugin_loader_collect(dir->dir, dir->with_subdirs, paths);
		g_ptr_array_sort(paths, esd_plugin_loader_sort_paths);
		for (guint j = 0; j < paths->len; j++) {
			const gchar *path = g_ptr_array_index(paths, j);
			g_autofree gchar *name = esd_plugin_loader_name_from_path(path);
			EsdPluginEntry *existing = esd_plugin_loader_find(self, name);
			g_autoptr(GError) error = NULL;
			g_autoptr(ErpcPlugin) plugin = NULL;

			/* an earlier directory overrides a later one, e.g. the installed plugins */
			if (existing != NULL) {
				g_info("plugin %s at %s ignored: already loaded from %s",
				       name,
				       path,
				       existing->path);
				continue;
			}
			plugin = esd_plugin_loader_load_file(self, path, &error);
			if (plugin == NULL) {
				g_warning("refusing plugin: %s", error->message);
				continue;
			}
			n++;
		}
	}
	return n;
}

GPtrArray *
esd_plugin_loader_get_plugins(EsdPluginLoader *self)
{
	return self->plugins;
}

static EsdPluginEntry *
esd_plugin_loader_entry(EsdPluginLoader *self, ErpcPlugin *plugin)
{
	for (guint i = 0; i < self->entries->len; i++) {
		EsdPluginEntry *entry = g_ptr_array_index(self->entries, i);
		if (entry->plugin == plugin)
			return entry;
	}
	return NULL;
}

const ErpcPluginInfo *
esd_plugin_loader_get_info(EsdPluginLoader *self, ErpcPlugin *plugin)
{
	EsdPluginEntry *entry = esd_plugin_loader_entry(self, plugin);
	return entry != NULL ? entry->info : NULL;
}

const gchar *
esd_plugin_loader_get_path(EsdPluginLoader *self, ErpcPlugin *plugin)
{
	EsdPluginEntry *entry = esd_plugin_loader_entry(self, plugin);
	return entry != NULL ? entry->path : NULL;
}

/* a plugin that fails to start is shut down and kept out of the way */
gboolean
esd_plugin_loader_startup(EsdPluginLoader *self)
{
	gboolean ret = TRUE;

	for (guint i = 0; i < self->plugins->len; i++) {
		ErpcPlugin *plugin = g_ptr_array_index(self->plugins, i);
		g_autoptr(GError) error = NULL;
		if (!erpc_plugin_runner_startup(plugin, &error)) {
			g_warning("%s", error->message);
			ret = FALSE;
		}
	}
	return ret;
}

void
esd_plugin_loader_connection_closed(EsdPluginLoader *self, ErpcConnection *connection)
{
	for (guint i = 0; i < self->plugins->len; i++)
		erpc_plugin_runner_connection_closed(g_ptr_array_index(self->plugins, i),
						     connection);
}

void
esd_plugin_loader_shutdown(EsdPluginLoader *self)
{
	for (guint i = 0; i < self->plugins->len; i++)
		erpc_plugin_runner_shutdown(g_ptr_array_index(self->plugins, i));
}

static void
esd_plugin_loader_finalize(GObject *object)
{
	EsdPluginLoader *self = ESD_PLUGIN_LOADER(object);
	g_ptr_array_unref(self->plugins);
	g_ptr_array_unref(self->entries);
	g_ptr_array_unref(self->dirs);
	g_object_unref(self->registry);
	G_OBJECT_CLASS(esd_plugin_loader_parent_class)->finalize(object);
}

static void
esd_plugin_loader_init(EsdPluginLoader *self)
{
	self->dirs = g_ptr_array_new_with_free_func((GDestroyNotify)esd_plugin_dir_free);
	self->entries = g_ptr_array_new_with_free_func((GDestroyNotify)esd_plugin_entry_free);
	self->plugins = g_ptr_array_new();
}

static void
esd_plugin_loader_class_init(EsdPluginLoaderClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_plugin_loader_finalize;
}

EsdPluginLoader *
esd_plugin_loader_new(ErpcRegistry *registry)
{
	EsdPluginLoader *self = g_object_new(ESD_TYPE_PLUGIN_LOADER, NULL);
	self->registry = g_object_ref(registry);
	return self;
}
