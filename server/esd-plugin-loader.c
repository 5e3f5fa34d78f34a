/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erpc-context-private.h"
#include "erpc-plugin-private.h"
#include "erpc-registry-private.h"
#include "esd-plugin-loader.h"

/*
 * Plugins are found in the --plugins-dir directories first, then in the
 * installed plugin directory; the first file of a given name wins. Each file
 * is checked (owner, mode, and those of every directory above it) before it
 * is opened, and its entry symbol is checked (ABI, build id, name, type)
 * before anything is instantiated.
 *
 * The rule: nobody but root and the daemon's user may be able to change the
 * file, or replace it through a directory on its path. The file and every
 * directory from / down to it are owned by root or by us and not writable
 * by group or others; a directory may be writable by others if it is sticky
 * (as /tmp), because then nobody else can rename or remove what root or we
 * own in it. The path is resolved first and loaded as resolved, so no link
 * can be swapped after the check.
 *
 * Inside a user namespace that does not map the overflow uid
 * (/proc/sys/kernel/overflowuid, 65534), files whose
 * owner is not mapped in are shown as owned by the overflow uid: root's
 * files, when the daemon runs unprivileged inside bwrap --unshare-user, but
 * just as well any other user's of the host. Nobody inside the namespace can
 * write such a file (not even a namespace root: capabilities do not reach
 * unmapped owners), only its real owner outside can. So an owner shown as
 * the overflow uid is accepted where it can only be root's on a sane host:
 * for the directories above a plugin directory (/, /usr, /home…) and, when
 * the namespace does not map its parent's root either, in the plugin
 * directories installed with the daemon (its $libdir/execserverd-N,
 * or the build tree's when run from there), for those directories and their
 * plugins, which are trusted as much as the daemon's own binary next to
 * them. A directory given with --plugins-dir, and what it holds, must be
 * owned by root or us as mapped here; and nothing owned by the overflow uid
 * is accepted inside a directory others can write to, sticky or not, since
 * anybody outside could have put it there. A read-only mount would add
 * nothing: the real owner writes through a mount of its own.
 */

#define ESD_PLUGIN_PREFIX	   "libesd-plugin-"
#define ESD_PLUGIN_SUFFIX	   ".so"
#define ESD_PLUGIN_MANIFEST_SUFFIX ".manifest"
#define ESD_PLUGIN_MANIFEST_GROUP  "Plugin"

/*
 * Deferred plugins. A plugin that provides transports, methods and
 * capabilities only (no launch hooks) may come with a manifest,
 * libesd-plugin-NAME.manifest next to it (written at build time by
 * esd-plugin-manifest from the loaded plugin), that lists them and its
 * options. When deferring is on, such a plugin is not opened at start-up,
 * only when one of its schemes is to be listened on, one of its options is on
 * the command line, its config section is read, one of its methods is called,
 * or everything is wanted (--help, --list-plugins): a stdio daemon need not
 * map the WebSocket and TLS libraries, nor a daemon that never serves an
 * http/request the http plugin. Until then its capabilities are registered
 * from the manifest and its methods as stubs with the same gating and params
 * type, so that the handshake and every check before a handler answer as if
 * it were loaded; the first call opens it, which replaces the stubs, and is
 * handed to the real handler. The manifest is checked as the plugin file is,
 * and ignored (the plugin loaded at once) when it is unreadable, of another
 * build, or names a method another plugin has, and when one of the
 * environment variables of its LoadWithEnvironment key is set (the sockets
 * systemd passes, which the accepted-socket plugin serves unasked).
 */

typedef struct {
	gchar *dir;
	EsdPluginDirFlags flags;
} EsdPluginDir;

typedef struct {
	ErpcPlugin *plugin;
	const ErpcPluginInfo *info;
	gchar *path;
} EsdPluginEntry;

/* a plugin known from its manifest, not opened yet */
typedef struct {
	gchar *name;
	gchar *path;
	const EsdPluginDir *dir; /* owned by the loader's dirs */
	GStrv transports;
	GStrv options; /* long names without dashes */
	gchar *short_options;
	GPtrArray *methods;    /* of ErpcMethodInfo, strings owned; func unset */
	gboolean launch_hooks; /* loaded before launch hooks are first looked at */
	GKeyFile *file;	       /* the manifest: capabilities are read from it */
} EsdPluginDeferred;

/* the user data of a stub method: whose it is */
typedef struct {
	EsdPluginLoader *loader;
	gchar *plugin;
} EsdPluginStub;

struct _EsdPluginLoader {
	GObject parent_instance;
	ErpcRegistry *registry;
	GPtrArray *dirs;     /* of EsdPluginDir */
	GPtrArray *entries;  /* of EsdPluginEntry, in load order */
	GPtrArray *plugins;  /* of ErpcPlugin, same order */
	GPtrArray *deferred; /* of EsdPluginDeferred, in the order found */
	gboolean defer;
	gboolean started; /* a plugin loaded from now on is started at once */
	gboolean userns_known;
	gboolean overflow_unmapped;  /* the overflow uid stands for owners not mapped in */
	gboolean parent_root_mapped; /* the parent namespace's root is mapped in */
	guint32 overflow_uid;
	/* from esd_plugin_loader_load_all() to _end_startup(): the directories checked */
	GHashTable *checked;
	GHashTable *resolved; /* path → realpath(), same lifetime */
};

/* what esd_plugin_loader_validate_file() found of the directories above a file */
typedef struct {
	gchar *real_parent;
	guint inside_from;
	gboolean installed;
	gboolean shared; /* the parent is writable by others (sticky) */
} EsdPluginDirCheck;

static void
esd_plugin_dir_check_free(EsdPluginDirCheck *check)
{
	g_free(check->real_parent);
	g_free(check);
}

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

static void
esd_plugin_deferred_free(EsdPluginDeferred *deferred)
{
	g_free(deferred->name);
	g_free(deferred->path);
	g_strfreev(deferred->transports);
	g_strfreev(deferred->options);
	g_free(deferred->short_options);
	g_clear_pointer(&deferred->methods, g_ptr_array_unref);
	g_clear_pointer(&deferred->file, g_key_file_unref);
	g_free(deferred);
}

static void
esd_plugin_method_info_free(ErpcMethodInfo *info)
{
	g_free((gchar *)info->name);
	g_free((gchar *)info->family);
	g_free((gchar *)info->params_type);
	g_free((gchar *)info->capability);
	g_free(info);
}

static void
esd_plugin_stub_free(EsdPluginStub *stub)
{
	g_free(stub->plugin);
	g_free(stub);
}

/**
 * esd_plugin_loader_add_dir_full:
 * @dir: a directory to search, after those added before
 * @flags: %ESD_PLUGIN_DIR_FLAG_SUBDIRS to search one level of subdirectories
 *   too; %ESD_PLUGIN_DIR_FLAG_INSTALLED for the directory installed with the
 *   daemon, whose files may be owned by an unmapped root (see above)
 */
void
esd_plugin_loader_add_dir_full(EsdPluginLoader *self, const gchar *dir, EsdPluginDirFlags flags)
{
	EsdPluginDir *entry = g_new0(EsdPluginDir, 1);
	entry->dir = g_strdup(dir);
	entry->flags = flags;
	g_ptr_array_add(self->dirs, entry);
}

void
esd_plugin_loader_add_dir(EsdPluginLoader *self, const gchar *dir, gboolean with_subdirs)
{
	esd_plugin_loader_add_dir_full(self,
				       dir,
				       with_subdirs ? ESD_PLUGIN_DIR_FLAG_SUBDIRS
						    : ESD_PLUGIN_DIR_FLAG_NONE);
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

/* the overflow uid, and whether our user namespace maps neither it nor the parent's root */
static void
esd_plugin_loader_read_userns(EsdPluginLoader *self)
{
	g_autofree gchar *overflow = NULL;
	g_autofree gchar *map = NULL;
	g_auto(GStrv) lines = NULL;
	guint64 value;

	if (self->userns_known)
		return;
	self->userns_known = TRUE;
	self->overflow_unmapped = FALSE;
	self->parent_root_mapped = FALSE;
	if (!g_file_get_contents("/proc/sys/kernel/overflowuid", &overflow, NULL, NULL) ||
	    !g_file_get_contents("/proc/self/uid_map", &map, NULL, NULL))
		return;
	value = g_ascii_strtoull(overflow, NULL, 10);
	if (value == 0 || value > G_MAXUINT32)
		return;
	self->overflow_uid = (guint32)value;
	lines = g_strsplit(map, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		/* "inside outside count"; the initial namespace maps everything */
		g_auto(GStrv) fields = g_strsplit_set(g_strstrip(lines[i]), " \t", -1);
		guint64 numbers[3] = {0};
		guint n = 0;

		for (guint j = 0; fields[j] != NULL && n < 3; j++) {
			if (fields[j][0] != '\0')
				numbers[n++] = g_ascii_strtoull(fields[j], NULL, 10);
		}
		if (n != 3 || numbers[2] == 0)
			continue;
		if (numbers[0] <= value && value - numbers[0] < numbers[2])
			return;
		if (numbers[1] == 0)
			self->parent_root_mapped = TRUE;
	}
	self->overflow_unmapped = TRUE;
}

/*
 * the owner of one element of a plugin's path: @inside for the plugin
 * directory and below, @shared if its parent is writable by others (sticky)
 */
static gboolean
esd_plugin_loader_check_owner(EsdPluginLoader *self,
			      const gchar *path,
			      const struct stat *st,
			      gboolean inside,
			      gboolean installed,
			      gboolean shared,
			      GError **error)
{
	if (st->st_uid == 0 || st->st_uid == geteuid())
		return TRUE;
	esd_plugin_loader_read_userns(self);
	if (!self->overflow_unmapped || st->st_uid != self->overflow_uid) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s is owned by uid %u, neither root nor uid %u",
			    path,
			    (guint)st->st_uid,
			    (guint)geteuid());
		return FALSE;
	}
	if (shared) {
		g_set_error(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_PERMISSION_DENIED,
		    "%s is owned by uid %u, a user not mapped into this user namespace, in a "
		    "directory others can write to",
		    path,
		    (guint)st->st_uid);
		return FALSE;
	}
	/*
	 * bwrap, run unprivileged with mounts to make, nests two namespaces: the
	 * parent's root there is the user who ran it, not the host's, so a mapped
	 * parent root says nothing about the directories above; it does for what
	 * holds plugins, where the overflow uid is then someone else's
	 */
	if (inside && (!installed || self->parent_root_mapped)) {
		g_set_error(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_PERMISSION_DENIED,
		    "%s is owned by uid %u, a user not mapped into this user namespace, which "
		    "only the installed plugin directory may hold",
		    path,
		    (guint)st->st_uid);
		return FALSE;
	}
	return TRUE;
}

static gboolean
esd_plugin_loader_check_mode(const gchar *path,
			     const struct stat *st,
			     gboolean last,
			     GError **error)
{
	if (last && !S_ISREG(st->st_mode)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s is not a regular file",
			    path);
		return FALSE;
	}
	if (!last && !S_ISDIR(st->st_mode)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s is not a directory",
			    path);
		return FALSE;
	}
	if (last && ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
		     (st->st_mode & (S_ISUID | S_ISGID)) != 0)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s has unsafe mode %04o",
			    path,
			    (guint)(st->st_mode & 07777));
		return FALSE;
	}
	/* in a sticky directory, others cannot rename or remove what is not theirs */
	if (!last && (st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "directory %s is writable by group or others (mode %04o)",
			    path,
			    (guint)(st->st_mode & 07777));
		return FALSE;
	}
	return TRUE;
}

/* the number of components of an absolute, resolved path: "/" 0, "/usr" 1 */
static guint
esd_plugin_loader_depth(const gchar *path)
{
	guint depth = 0;

	for (const gchar *p = path; *p != '\0'; p++) {
		if (*p == '/' && p[1] != '\0')
			depth++;
	}
	return depth;
}

/* @path could not be looked at: errno says why */
static void
esd_plugin_loader_stat_error(const gchar *path, GError **error)
{
	gint saved = errno;

	g_set_error(error,
		    ERPC_ERROR,
		    erpc_error_code_from_errno(saved),
		    "cannot stat %s: %s",
		    path,
		    g_strerror(saved));
}

/*
 * realpath(), from what this pass resolved already when it can: a directory
 * that is no link, in a resolved one, is that one's resolved path and its name
 */
static gchar *
esd_plugin_loader_realpath(EsdPluginLoader *self, const gchar *path)
{
	g_autofree gchar *parent = NULL;
	const gchar *known;
	gchar *real = NULL;
	struct stat st;

	if (self->resolved == NULL)
		return realpath(path, NULL);
	known = g_hash_table_lookup(self->resolved, path);
	if (known != NULL)
		return g_strdup(known);
	parent = g_path_get_dirname(path);
	known = g_strcmp0(parent, path) != 0 ? g_hash_table_lookup(self->resolved, parent) : NULL;
	if (known != NULL && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		g_autofree gchar *base = g_path_get_basename(path);

		if (!g_str_equal(base, ".") && !g_str_equal(base, ".."))
			real = g_build_filename(known, base, NULL);
	}
	if (real == NULL) {
		gchar *resolved = realpath(path, NULL);

		if (resolved == NULL)
			return NULL;
		/* realpath()'s memory is malloc()'s, as g_free() takes it */
		real = resolved;
	}
	g_hash_table_replace(self->resolved, g_strdup(path), g_strdup(real));
	return real;
}

/*
 * checks @path and each directory from / down to it, as the comment at the
 * top says; @dir is the plugin directory it was found in, if any. Returns the
 * resolved path to load.
 */
static gchar *
esd_plugin_loader_validate_file(EsdPluginLoader *self,
				const gchar *path,
				const EsdPluginDir *dir,
				GError **error)
{
	g_autofree gchar *parent = g_path_get_dirname(path);
	g_autofree gchar *base = g_path_get_basename(path);
	g_autofree gchar *real_parent = NULL;
	g_autofree gchar *real_anchor = NULL;
	g_autofree gchar *real_path = NULL;
	g_autofree gchar *key = NULL;
	g_auto(GStrv) parts = NULL;
	g_autoptr(GString) prefix = g_string_new("/");
	gboolean installed = dir != NULL && (dir->flags & ESD_PLUGIN_DIR_FLAG_INSTALLED) != 0;
	gboolean shared = FALSE;
	EsdPluginDirCheck *check;
	guint inside_from;
	guint n;
	struct stat st;

	if (lstat(path, &st) != 0) {
		esd_plugin_loader_stat_error(path, error);
		return NULL;
	}
	/* the file itself is never a link */
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PERMISSION_DENIED,
			    "%s is not a regular file",
			    path);
		return NULL;
	}
	/*
	 * the directories of a file found at start-up were checked for the file
	 * before it in the same directory (a plugin and its manifest; every
	 * plugin in an installed directory): only the file is left to check
	 */
	key = g_strconcat(parent, "\n", dir != NULL ? dir->dir : "", NULL);
	check = self->checked != NULL ? g_hash_table_lookup(self->checked, key) : NULL;
	if (check != NULL) {
		real_path = g_build_filename(check->real_parent, base, NULL);
		if (!esd_plugin_loader_check_mode(real_path, &st, TRUE, error) ||
		    !esd_plugin_loader_check_owner(self,
						   real_path,
						   &st,
						   esd_plugin_loader_depth(real_path) >=
						       check->inside_from,
						   check->installed,
						   check->shared,
						   error))
			return NULL;
		return g_steal_pointer(&real_path);
	}
	real_parent = esd_plugin_loader_realpath(self, parent);
	if (real_parent == NULL) {
		esd_plugin_loader_stat_error(path, error);
		return NULL;
	}
	real_path = g_build_filename(real_parent, base, NULL);
	/* where the plugin directory starts; without one, at the file's own directory */
	inside_from = esd_plugin_loader_depth(real_parent);
	if (dir != NULL)
		real_anchor = esd_plugin_loader_realpath(self, dir->dir);
	if (real_anchor != NULL &&
	    (g_strcmp0(real_anchor, real_parent) == 0 ||
	     (g_str_has_prefix(real_parent, real_anchor) &&
	      (real_parent[strlen(real_anchor)] == '/' || g_strcmp0(real_anchor, "/") == 0))))
		inside_from = esd_plugin_loader_depth(real_anchor);
	else
		/* a link out of the installed directory leads somewhere else */
		installed = FALSE;

	parts = g_strsplit(real_path + 1, "/", -1);
	n = g_strv_length(parts);
	/* "/" first, then each component; the last one is the file */
	for (guint i = 0; i <= n; i++) {
		gboolean last = i == n;

		if (i > 0) {
			if (i > 1)
				g_string_append_c(prefix, '/');
			g_string_append(prefix, parts[i - 1]);
		}
		if (lstat(prefix->str, &st) != 0) {
			esd_plugin_loader_stat_error(prefix->str, error);
			return NULL;
		}
		if (!esd_plugin_loader_check_mode(prefix->str, &st, last, error) ||
		    !esd_plugin_loader_check_owner(self,
						   prefix->str,
						   &st,
						   i >= inside_from,
						   installed,
						   shared,
						   error)) {
			if (!last)
				g_prefix_error(error, "%s: ", path);
			return NULL;
		}
		if (last && self->checked != NULL) {
			check = g_new0(EsdPluginDirCheck, 1);
			check->real_parent = g_steal_pointer(&real_parent);
			check->inside_from = inside_from;
			check->installed = installed;
			check->shared = shared;
			g_hash_table_replace(self->checked, g_steal_pointer(&key), check);
		}
		shared = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
	}
	return g_steal_pointer(&real_path);
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

/* loads, checks and sets up one plugin file found in @dir; nothing is kept on failure */
static ErpcPlugin *
esd_plugin_loader_load_file_in(EsdPluginLoader *self,
			       const gchar *path,
			       const EsdPluginDir *dir,
			       GError **error)
{
	g_autofree gchar *file_name = NULL;
	g_autofree gchar *real_path = NULL;
	void *module;
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
	real_path = esd_plugin_loader_validate_file(self, path, dir, error);
	if (real_path == NULL)
		return NULL;
	/*
	 * dlopen(), not g_module_open(): GModule holds its lock across dlopen(),
	 * and libsoup's constructor calls g_module_open() under the loader's
	 * lock, so a plugin opened here while a thread opens libsoup (the ws
	 * plugin does at start-up) would deadlock the two. Never unloaded: a
	 * registered GType cannot be.
	 */
	module = dlopen(real_path, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	if (module == NULL) {
		const gchar *reason = dlerror();
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s",
			    reason != NULL ? reason : real_path);
		return NULL;
	}
	query = (ErpcPluginQueryFunc)dlsym(module, ERPC_PLUGIN_SYMBOL);
	if (query == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "%s does not export " ERPC_PLUGIN_SYMBOL,
			    path);
		dlclose(module);
		return NULL;
	}
	info = query();
	if (!esd_plugin_loader_check_info(info, path, file_name, error)) {
		dlclose(module);
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
		return NULL;
	}
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

/* loads, checks and sets up one plugin file; nothing is kept on failure */
ErpcPlugin *
esd_plugin_loader_load_file(EsdPluginLoader *self, const gchar *path, GError **error)
{
	return esd_plugin_loader_load_file_in(self, path, NULL, error);
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

static EsdPluginDeferred *
esd_plugin_loader_find_deferred(EsdPluginLoader *self, const gchar *name, guint *index)
{
	for (guint i = 0; i < self->deferred->len; i++) {
		EsdPluginDeferred *deferred = g_ptr_array_index(self->deferred, i);
		if (g_strcmp0(deferred->name, name) == 0) {
			if (index != NULL)
				*index = i;
			return deferred;
		}
	}
	return NULL;
}

static gboolean
esd_plugin_loader_read_methods(GKeyFile *file, GPtrArray *methods, GError **error);

/* the manifest of the plugin at @path, if it has a usable one; see the top */
static EsdPluginDeferred *
esd_plugin_loader_read_manifest(EsdPluginLoader *self,
				const gchar *path,
				const gchar *name,
				const EsdPluginDir *dir)
{
	g_autofree gchar *stem = g_strndup(path, strlen(path) - strlen(ESD_PLUGIN_SUFFIX));
	g_autofree gchar *manifest = g_strconcat(stem, ESD_PLUGIN_MANIFEST_SUFFIX, NULL);
	g_autofree gchar *real_path = NULL;
	g_autofree gchar *manifest_name = NULL;
	g_autofree gchar *build_id = NULL;
	g_auto(GStrv) load_with = NULL;
	g_autoptr(GKeyFile) file = NULL;
	g_autoptr(GError) error = NULL;
	EsdPluginDeferred *deferred;

	if (access(manifest, F_OK) != 0)
		return NULL;
	real_path = esd_plugin_loader_validate_file(self, manifest, dir, &error);
	file = g_key_file_new();
	if (real_path == NULL ||
	    !g_key_file_load_from_file(file, real_path, G_KEY_FILE_NONE, &error)) {
		g_info("ignoring the manifest of plugin %s: %s", name, error->message);
		return NULL;
	}
	manifest_name = g_key_file_get_string(file, ESD_PLUGIN_MANIFEST_GROUP, "Name", NULL);
	build_id = g_key_file_get_string(file, ESD_PLUGIN_MANIFEST_GROUP, "BuildId", NULL);
	if (g_strcmp0(manifest_name, name) != 0 || g_strcmp0(build_id, ERPC_BUILD_ID) != 0) {
		g_info("ignoring the manifest %s: of another plugin or build", manifest);
		return NULL;
	}
	/* what the environment passes a plugin, it takes at start-up (socket activation) */
	load_with = g_key_file_get_string_list(file,
					       ESD_PLUGIN_MANIFEST_GROUP,
					       "LoadWithEnvironment",
					       NULL,
					       NULL);
	for (guint i = 0; load_with != NULL && load_with[i] != NULL; i++) {
		if (g_getenv(load_with[i]) != NULL) {
			g_debug("plugin %s is opened at start-up: %s is set", name, load_with[i]);
			return NULL;
		}
	}
	deferred = g_new0(EsdPluginDeferred, 1);
	deferred->name = g_strdup(name);
	deferred->path = g_strdup(path);
	deferred->dir = dir;
	deferred->transports =
	    g_key_file_get_string_list(file, ESD_PLUGIN_MANIFEST_GROUP, "Transports", NULL, NULL);
	deferred->options =
	    g_key_file_get_string_list(file, ESD_PLUGIN_MANIFEST_GROUP, "Options", NULL, NULL);
	deferred->short_options =
	    g_key_file_get_string(file, ESD_PLUGIN_MANIFEST_GROUP, "ShortOptions", NULL);
	if (deferred->transports == NULL)
		deferred->transports = g_new0(gchar *, 1);
	if (deferred->options == NULL)
		deferred->options = g_new0(gchar *, 1);
	if (deferred->short_options == NULL)
		deferred->short_options = g_strdup("");
	deferred->launch_hooks =
	    g_key_file_get_boolean(file, ESD_PLUGIN_MANIFEST_GROUP, "LaunchHooks", NULL);
	deferred->methods =
	    g_ptr_array_new_with_free_func((GDestroyNotify)esd_plugin_method_info_free);
	if (!esd_plugin_loader_read_methods(file, deferred->methods, &error)) {
		g_info("ignoring the manifest %s: %s", manifest, error->message);
		esd_plugin_deferred_free(deferred);
		return NULL;
	}
	deferred->file = g_steal_pointer(&file);
	return deferred;
}

/* the [Method NAME] groups of a manifest */
static gboolean
esd_plugin_loader_read_methods(GKeyFile *file, GPtrArray *methods, GError **error)
{
	g_auto(GStrv) groups = g_key_file_get_groups(file, NULL);

	for (guint i = 0; groups[i] != NULL; i++) {
		g_autofree ErpcMethodInfo *info = NULL;
		g_autoptr(GError) local_error = NULL;
		const gchar *group = groups[i];
		guint64 since;
		guint64 flags;

		if (!g_str_has_prefix(group, "Method "))
			continue;
		since = g_key_file_get_uint64(file, group, "Since", &local_error);
		if (local_error == NULL)
			flags = g_key_file_get_uint64(file, group, "Flags", &local_error);
		if (local_error != NULL || since > G_MAXUINT ||
		    (flags & ~(guint64)(ERPC_METHOD_FLAG_PRE_INIT | ERPC_METHOD_FLAG_BLOBS)) != 0 ||
		    group[strlen("Method ")] == '\0') {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "[%s]: %s",
				    group,
				    local_error != NULL ? local_error->message : "bad values");
			return FALSE;
		}
		info = g_new0(ErpcMethodInfo, 1);
		info->name = g_strdup(group + strlen("Method "));
		info->family = g_key_file_get_string(file, group, "Family", NULL);
		info->params_type = g_key_file_get_string(file, group, "ParamsType", NULL);
		info->capability = g_key_file_get_string(file, group, "Capability", NULL);
		info->since_version = (guint)since;
		info->flags = (ErpcMethodFlags)flags;
		g_ptr_array_add(methods, g_steal_pointer(&info));
	}
	return TRUE;
}

static void
esd_plugin_loader_stub_cb(ErpcCall *call, JsonObject *params, gpointer user_data);
static void
esd_plugin_loader_load_hook_plugins(gpointer user_data);

/*
 * What a deferred plugin would register, from its manifest, under its name:
 * loading it drops these first. FALSE (and nothing kept) when a method or
 * capability is taken: the plugin is then loaded at once, to fail as it would.
 */
static gboolean
esd_plugin_loader_register_stubs(EsdPluginLoader *self, EsdPluginDeferred *deferred)
{
	g_auto(GStrv) caps = NULL;
	g_autoptr(GError) error = NULL;
	gboolean ok = TRUE;

	erpc_registry_set_owner(self->registry, deferred->name);
	caps = g_key_file_get_keys(deferred->file, "Capabilities", NULL, NULL);
	for (guint i = 0; ok && caps != NULL && caps[i] != NULL; i++) {
		guint64 version =
		    g_key_file_get_uint64(deferred->file, "Capabilities", caps[i], NULL);
		ok = version > 0 && version <= G_MAXUINT &&
		     erpc_registry_add_capability(self->registry, caps[i], (guint)version, &error);
	}
	for (guint i = 0; ok && i < deferred->methods->len; i++) {
		ErpcMethodInfo info = *(ErpcMethodInfo *)g_ptr_array_index(deferred->methods, i);
		EsdPluginStub *stub = g_new0(EsdPluginStub, 1);

		stub->loader = self;
		stub->plugin = g_strdup(deferred->name);
		info.func = esd_plugin_loader_stub_cb;
		ok = erpc_registry_add_method(self->registry,
					      &info,
					      stub,
					      (GDestroyNotify)esd_plugin_stub_free,
					      &error);
	}
	erpc_registry_set_owner(self->registry, NULL);
	if (!ok) {
		g_debug("plugin %s not deferred: %s",
			deferred->name,
			error != NULL ? error->message : "a bad capability version");
		erpc_registry_remove_owner(self->registry, deferred->name);
	}
	return ok;
}

/* returns the number of plugins loaded; failures are logged and skipped */
guint
esd_plugin_loader_load_all(EsdPluginLoader *self)
{
	ErpcContext *context = erpc_registry_get_context(self->registry);
	guint n = 0;

	/*
	 * during start-up a directory is checked once for all its files; a
	 * plugin opened later (deferred) has its directories checked again, as
	 * they may have changed: see esd_plugin_loader_end_startup()
	 */
	if (self->checked == NULL)
		self->checked = g_hash_table_new_full(g_str_hash,
						      g_str_equal,
						      g_free,
						      (GDestroyNotify)esd_plugin_dir_check_free);
	if (self->resolved == NULL)
		self->resolved = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; i < self->dirs->len; i++) {
		EsdPluginDir *dir = g_ptr_array_index(self->dirs, i);
		g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);

		esd_plugin_loader_collect(dir->dir,
					  (dir->flags & ESD_PLUGIN_DIR_FLAG_SUBDIRS) != 0,
					  paths);
		g_ptr_array_sort(paths, esd_plugin_loader_sort_paths);
		for (guint j = 0; j < paths->len; j++) {
			const gchar *path = g_ptr_array_index(paths, j);
			g_autofree gchar *name = esd_plugin_loader_name_from_path(path);
			EsdPluginEntry *existing = esd_plugin_loader_find(self, name);
			EsdPluginDeferred *deferred =
			    esd_plugin_loader_find_deferred(self, name, NULL);
			g_autoptr(GError) error = NULL;
			g_autoptr(ErpcPlugin) plugin = NULL;

			/* an earlier directory overrides a later one, e.g. the installed plugins */
			if (existing != NULL || deferred != NULL) {
				g_info("plugin %s at %s ignored: already loaded from %s",
				       name,
				       path,
				       existing != NULL ? existing->path : deferred->path);
				continue;
			}
			if (self->defer &&
			    (deferred = esd_plugin_loader_read_manifest(self, path, name, dir)) !=
				NULL) {
				if (esd_plugin_loader_register_stubs(self, deferred)) {
					g_debug("plugin %s at %s deferred", name, path);
					g_ptr_array_add(self->deferred, deferred);
					if (deferred->launch_hooks && context != NULL)
						erpc_context_set_hooks_loader(
						    context,
						    esd_plugin_loader_load_hook_plugins,
						    self);
					continue;
				}
				esd_plugin_deferred_free(deferred);
			}
			plugin = esd_plugin_loader_load_file_in(self, path, dir, &error);
			if (plugin == NULL) {
				g_warning("refusing plugin: %s", error->message);
				continue;
			}
			n++;
		}
	}
	return n;
}

/**
 * esd_plugin_loader_end_startup:
 *
 * From now on each plugin opened has every directory above it checked
 * again, not once for all the files found at start-up.
 */
void
esd_plugin_loader_end_startup(EsdPluginLoader *self)
{
	g_clear_pointer(&self->checked, g_hash_table_unref);
	g_clear_pointer(&self->resolved, g_hash_table_unref);
}

/**
 * esd_plugin_loader_set_defer:
 * @defer: whether esd_plugin_loader_load_all() leaves the plugins that have a
 *   manifest for later (see the top); off by default
 */
void
esd_plugin_loader_set_defer(EsdPluginLoader *self, gboolean defer)
{
	self->defer = defer;
}

/* opens the deferred plugin at @index; a failure is logged as at start-up */
static ErpcPlugin *
esd_plugin_loader_load_deferred_at(EsdPluginLoader *self, guint index)
{
	EsdPluginDeferred *deferred = g_ptr_array_steal_index(self->deferred, index);
	g_autoptr(GError) error = NULL;
	ErpcPlugin *plugin;

	g_debug("loading deferred plugin %s", deferred->name);
	/* the stubs go: the plugin registers the real ones */
	erpc_registry_remove_owner(self->registry, deferred->name);
	plugin = esd_plugin_loader_load_file_in(self, deferred->path, deferred->dir, &error);
	if (plugin == NULL) {
		g_warning("refusing plugin: %s", error->message);
	} else if (self->started && !erpc_plugin_runner_startup(plugin, &error)) {
		/* kept, as a plugin stays mapped, but with nothing registered */
		g_warning("plugin %s failed to start: %s", deferred->name, error->message);
		erpc_registry_remove_owner(self->registry, deferred->name);
	}
	esd_plugin_deferred_free(deferred);
	/* the loader keeps its reference */
	if (plugin != NULL)
		g_object_unref(plugin);
	return plugin;
}

/**
 * esd_plugin_loader_load_deferred:
 * @name: (nullable): a plugin name, or %NULL for every deferred plugin
 *
 * Loads what was deferred of that name, in the order found.
 */
void
esd_plugin_loader_load_deferred(EsdPluginLoader *self, const gchar *name)
{
	guint index;

	if (name != NULL) {
		if (esd_plugin_loader_find_deferred(self, name, &index) != NULL)
			esd_plugin_loader_load_deferred_at(self, index);
		return;
	}
	while (self->deferred->len > 0)
		esd_plugin_loader_load_deferred_at(self, 0);
}

/* the context's hooks loader: every deferred plugin that adds launch hooks */
static void
esd_plugin_loader_load_hook_plugins(gpointer user_data)
{
	EsdPluginLoader *self = ESD_PLUGIN_LOADER(user_data);

	for (guint i = 0; i < self->deferred->len;) {
		EsdPluginDeferred *deferred = g_ptr_array_index(self->deferred, i);
		if (deferred->launch_hooks)
			esd_plugin_loader_load_deferred_at(self, i);
		else
			i++;
	}
}

/**
 * esd_plugin_loader_load_deferred_for_scheme:
 * @scheme: a transport scheme, e.g. `ws`
 *
 * Loads the deferred plugin that provides @scheme, if there is one.
 *
 * Returns: (transfer none) (nullable): the plugin, once loaded and set up
 */
ErpcPlugin *
esd_plugin_loader_load_deferred_for_scheme(EsdPluginLoader *self, const gchar *scheme)
{
	for (guint i = 0; i < self->deferred->len; i++) {
		EsdPluginDeferred *deferred = g_ptr_array_index(self->deferred, i);
		if (g_strv_contains((const gchar *const *)deferred->transports, scheme))
			return esd_plugin_loader_load_deferred_at(self, i);
	}
	return NULL;
}

/* whether @arg, one command-line argument, names one of @deferred's options */
static gboolean
esd_plugin_loader_arg_wants(const EsdPluginDeferred *deferred, const gchar *arg)
{
	if (g_str_has_prefix(arg, "--")) {
		gsize len = strcspn(arg + 2, "=");
		for (guint i = 0; deferred->options[i] != NULL; i++) {
			if (strlen(deferred->options[i]) == len &&
			    strncmp(deferred->options[i], arg + 2, len) == 0)
				return TRUE;
		}
		return FALSE;
	}
	/* a cluster of short options, as -vx */
	for (const gchar *c = arg + 1; *c != '\0'; c++) {
		if (strchr(deferred->short_options, *c) != NULL)
			return TRUE;
	}
	return FALSE;
}

/**
 * esd_plugin_loader_load_deferred_for_args:
 * @argc: the argument count
 * @argv: the command line, the program name first
 *
 * Before the command line is parsed: loads the deferred plugins whose options
 * it names, and all of them when it asks for help, whose text lists every
 * plugin's options. An argument that is only the value of another option may
 * load a plugin for nothing, never too few.
 */
void
esd_plugin_loader_load_deferred_for_args(EsdPluginLoader *self, gint argc, gchar **argv)
{
	for (gint i = 1; i < argc && self->deferred->len > 0; i++) {
		const gchar *arg = argv[i];

		if (g_str_equal(arg, "--"))
			break;
		if (arg[0] != '-' || arg[1] == '\0')
			continue;
		if (g_str_has_prefix(arg, "--help") ||
		    (arg[1] != '-' && (strchr(arg, 'h') != NULL || strchr(arg, '?') != NULL))) {
			esd_plugin_loader_load_deferred(self, NULL);
			return;
		}
		for (guint j = 0; j < self->deferred->len;) {
			if (esd_plugin_loader_arg_wants(g_ptr_array_index(self->deferred, j), arg))
				esd_plugin_loader_load_deferred_at(self, j);
			else
				j++;
		}
	}
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

/* a plugin that cannot start, e.g. for an option it refuses, stops the daemon */
gboolean
esd_plugin_loader_startup(EsdPluginLoader *self, GError **error)
{
	for (guint i = 0; i < self->plugins->len; i++) {
		if (!erpc_plugin_runner_startup(g_ptr_array_index(self->plugins, i), error))
			return FALSE;
	}
	self->started = TRUE;
	return TRUE;
}

/*
 * The handler of a deferred plugin's methods: loads it and hands the call to
 * the handler it registers. Loading frees @user_data (the stubs are dropped).
 */
static void
esd_plugin_loader_stub_cb(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdPluginStub *stub = user_data;
	EsdPluginLoader *self = stub->loader;
	g_autofree gchar *plugin = g_strdup(stub->plugin);
	const gchar *method = erpc_call_get_method(call);
	const ErpcMethodInfo *info;
	gpointer data = NULL;
	guint index;

	if (esd_plugin_loader_find_deferred(self, plugin, &index) != NULL)
		esd_plugin_loader_load_deferred_at(self, index);
	info = erpc_registry_lookup_method(self->registry, method, &data);
	if (info == NULL || info->func == esd_plugin_loader_stub_cb) {
		g_autoptr(GError) error =
		    g_error_new(ERPC_ERROR,
				ERPC_ERROR_INTERNAL,
				"%s is not available: plugin %s could not be loaded",
				method,
				plugin);
		erpc_call_return_error(call, error);
		return;
	}
	info->func(call, params, data);
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
	ErpcContext *context = erpc_registry_get_context(self->registry);

	/* the registry may outlive us: nothing of ours is left to call */
	for (guint i = 0; i < self->deferred->len; i++) {
		EsdPluginDeferred *deferred = g_ptr_array_index(self->deferred, i);
		erpc_registry_remove_owner(self->registry, deferred->name);
	}
	if (context != NULL)
		erpc_context_set_hooks_loader(context, NULL, NULL);
	g_ptr_array_unref(self->plugins);
	g_ptr_array_unref(self->deferred);
	g_ptr_array_unref(self->entries);
	g_ptr_array_unref(self->dirs);
	esd_plugin_loader_end_startup(self);
	g_object_unref(self->registry);
	G_OBJECT_CLASS(esd_plugin_loader_parent_class)->finalize(object);
}

static void
esd_plugin_loader_init(EsdPluginLoader *self)
{
	self->dirs = g_ptr_array_new_with_free_func((GDestroyNotify)esd_plugin_dir_free);
	self->entries = g_ptr_array_new_with_free_func((GDestroyNotify)esd_plugin_entry_free);
	self->plugins = g_ptr_array_new();
	self->deferred = g_ptr_array_new_with_free_func((GDestroyNotify)esd_plugin_deferred_free);
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
