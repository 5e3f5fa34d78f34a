/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "esd-shell-snapshot-cache.h"
#include "esd-shell-snapshot-capture.h"
#include "esd-shell-snapshot-plugin.h"
#include "esd-shell-snapshot-request.h"

#define ESD_SHELL_SNAPSHOT_MAX_ENTRIES_DEFAULT 16
#define ESD_SHELL_SNAPSHOT_MAX_BYTES_DEFAULT   (1024 * 1024)
#define ESD_SHELL_SNAPSHOT_TIMEOUT_DEFAULT     10

/**
 * EsdShellSnapshotPlugin:
 *
 * `shellSnapshotV2`: a launch hook that claims `process/start.shellSnapshot`
 * and runs `[shell.path, "-lc", script]` with the login shell's state
 * captured once per (session, scopeId, cwd) instead of the startup files.
 * The snapshots of a session live in its #EsdShellSnapshotCache, dropped
 * when the session goes.
 */

struct _EsdShellSnapshotPlugin {
	ErpcPlugin parent_instance;
	GHashTable *caches; /* ErpcSession (weak) → EsdShellSnapshotCache */
	gint max_entries;   /* --shell-snapshots */
	gint max_bytes;	    /* --shell-snapshot-max-bytes */
	gint timeout;	    /* --shell-snapshot-timeout, seconds */
};

static void
esd_shell_snapshot_plugin_hook_init(ErpcLaunchHookInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(EsdShellSnapshotPlugin,
			      esd_shell_snapshot_plugin,
			      ERPC_TYPE_PLUGIN,
			      G_IMPLEMENT_INTERFACE(ERPC_TYPE_LAUNCH_HOOK,
						    esd_shell_snapshot_plugin_hook_init))

static void
esd_shell_snapshot_plugin_session_gone(gpointer data, GObject *session)
{
	EsdShellSnapshotPlugin *self = data;
	EsdShellSnapshotCache *cache = g_hash_table_lookup(self->caches, session);

	/* kills a capture still running; lookups waiting for it get no snapshot */
	if (cache != NULL)
		g_object_run_dispose(G_OBJECT(cache));
	g_hash_table_remove(self->caches, session);
}

static EsdShellSnapshotCache *
esd_shell_snapshot_plugin_get_cache(EsdShellSnapshotPlugin *self, ErpcSession *session)
{
	EsdShellSnapshotCache *cache = g_hash_table_lookup(self->caches, session);
	ErpcContext *context;

	if (cache != NULL)
		return cache;
	context = erpc_plugin_get_context(ERPC_PLUGIN(self));
	cache =
	    esd_shell_snapshot_cache_new(context != NULL ? erpc_context_get_sandbox(context) : NULL,
					 (guint)self->max_entries,
					 (gsize)self->max_bytes,
					 (guint)self->timeout * 1000);
	g_hash_table_insert(self->caches, session, cache);
	g_object_weak_ref(G_OBJECT(session), esd_shell_snapshot_plugin_session_gone, self);
	return cache;
}

static const gchar *const *
esd_shell_snapshot_plugin_get_members(ErpcLaunchHook *hook)
{
	static const gchar *const members[] = {"shellSnapshot", NULL};
	return members;
}

static gboolean
esd_shell_snapshot_plugin_claim(ErpcLaunchHook *hook,
				ErpcLaunch *launch,
				const gchar *member,
				JsonNode *value,
				GError **error)
{
	EsdShellSnapshotRequest *request =
	    esd_shell_snapshot_request_parse(value, erpc_launch_get_params(launch), error);

	if (request == NULL)
		return FALSE;
	erpc_launch_set_hook_data(launch,
				  hook,
				  request,
				  (GDestroyNotify)esd_shell_snapshot_request_free);
	return TRUE;
}

/* the variables of the command's environment the snapshot sets too */
static gchar **
esd_shell_snapshot_plugin_kept(ErpcLaunch *launch, const gchar *const *names)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();

	for (guint i = 0; names != NULL && names[i] != NULL; i++) {
		if (erpc_launch_getenv(launch, names[i]) != NULL)
			g_strv_builder_add(builder, names[i]);
	}
	return g_strv_builder_end(builder);
}

static void
esd_shell_snapshot_plugin_lookup_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	ErpcLaunch *launch = g_task_get_task_data(task);
	ErpcLaunchHook *hook = g_task_get_source_object(task);
	EsdShellSnapshotRequest *request = erpc_launch_get_hook_data(launch, hook);
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) argv = NULL;
	g_auto(GStrv) kept = NULL;
	g_autoptr(EsdShellSnapshotImage) image =
	    esd_shell_snapshot_cache_lookup_finish(ESD_SHELL_SNAPSHOT_CACHE(source),
						   result,
						   &error);
	gint number;

	if (error != NULL) {
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	if (image == NULL) {
		g_task_return_boolean(task, TRUE);
		return;
	}
	number = erpc_launch_add_fd(launch, image->fd, &error);
	image->fd = -1;
	/* no snapshot rather than no command */
	if (number < 0) {
		g_debug("shell snapshot not passed: %s", error->message);
		g_task_return_boolean(task, TRUE);
		return;
	}
	kept = esd_shell_snapshot_plugin_kept(launch, (const gchar *const *)image->names);
	argv = esd_shell_snapshot_restore_argv(request->shell,
					       erpc_launch_get_argv(launch),
					       number,
					       (const gchar *const *)kept);
	erpc_launch_set_argv(launch, (const gchar *const *)argv);
	g_task_return_boolean(task, TRUE);
}

static void
esd_shell_snapshot_plugin_prepare_async(ErpcLaunchHook *hook,
					ErpcLaunch *launch,
					GCancellable *cancellable,
					GAsyncReadyCallback callback,
					gpointer user_data)
{
	EsdShellSnapshotPlugin *self = ESD_SHELL_SNAPSHOT_PLUGIN(hook);
	g_autoptr(GTask) task = g_task_new(hook, cancellable, callback, user_data);
	EsdShellSnapshotRequest *request = erpc_launch_get_hook_data(launch, hook);
	const gchar *const *argv = erpc_launch_get_argv(launch);

	g_task_set_source_tag(task, esd_shell_snapshot_plugin_prepare_async);
	/* another form of command, a shell without snapshots here, or another
	 * hook changed the command: it runs as it stands */
	if (request == NULL || !request->applies ||
	    esd_shell_snapshot_capture_script(request->shell) == NULL ||
	    g_strv_length((gchar **)argv) < 3 || g_strcmp0(argv[1], "-lc") != 0) {
		g_task_return_boolean(task, TRUE);
		return;
	}
	g_task_set_task_data(task, g_object_ref(launch), g_object_unref);
	esd_shell_snapshot_cache_lookup_async(
	    esd_shell_snapshot_plugin_get_cache(self, erpc_launch_get_session(launch)),
	    request,
	    launch,
	    cancellable,
	    esd_shell_snapshot_plugin_lookup_cb,
	    g_steal_pointer(&task));
}

static gboolean
esd_shell_snapshot_plugin_prepare_finish(ErpcLaunchHook *hook, GAsyncResult *result, GError **error)
{
	return g_task_propagate_boolean(G_TASK(result), error);
}

static void
esd_shell_snapshot_plugin_hook_init(ErpcLaunchHookInterface *iface)
{
	iface->get_members = esd_shell_snapshot_plugin_get_members;
	iface->claim = esd_shell_snapshot_plugin_claim;
	iface->prepare_async = esd_shell_snapshot_plugin_prepare_async;
	iface->prepare_finish = esd_shell_snapshot_plugin_prepare_finish;
}

static gboolean
esd_shell_snapshot_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	if (!erpc_registry_add_capability(registry, "shellSnapshotV2", 1, error))
		return FALSE;
	return erpc_context_add_launch_hook(erpc_registry_get_context(registry),
					    ERPC_LAUNCH_HOOK(plugin),
					    error);
}

static GOptionGroup *
esd_shell_snapshot_plugin_get_option_group(ErpcPlugin *plugin)
{
	EsdShellSnapshotPlugin *self = ESD_SHELL_SNAPSHOT_PLUGIN(plugin);
	const GOptionEntry entries[] = {
	    {"shell-snapshots",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_entries,
	     N_("Shell snapshots kept per session (default 16)"),
	     "N"},
	    {"shell-snapshot-max-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_bytes,
	     N_("Largest shell snapshot kept, in bytes (default 1048576)"),
	     "BYTES"},
	    {"shell-snapshot-timeout",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->timeout,
	     N_("Seconds a shell snapshot capture may take (default 10)"),
	     "SECONDS"},
	    {NULL}};
	GOptionGroup *group =
	    g_option_group_new("shell-snapshot",
			       /* TRANSLATORS: the heading of the shell-snapshot plugin's options */
			       _("Shell snapshots (shell-snapshot plugin):"),
			       _("Show the shell snapshot options"),
			       self,
			       NULL);

	g_option_group_add_entries(group, entries);
	g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);
	return group;
}

static gboolean
esd_shell_snapshot_plugin_load_config(ErpcPlugin *plugin,
				      GKeyFile *file,
				      const gchar *group,
				      GError **error)
{
	EsdShellSnapshotPlugin *self = ESD_SHELL_SNAPSHOT_PLUGIN(plugin);
	const ErpcConfigKey keys[] = {
	    {"shell-snapshots", ERPC_CONFIG_KEY_INT, &self->max_entries},
	    {"shell-snapshot-max-bytes", ERPC_CONFIG_KEY_INT, &self->max_bytes},
	    {"shell-snapshot-timeout", ERPC_CONFIG_KEY_INT, &self->timeout},
	    {NULL}};

	return erpc_plugin_read_config_keys(plugin, file, group, keys, error);
}

static gboolean
esd_shell_snapshot_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdShellSnapshotPlugin *self = ESD_SHELL_SNAPSHOT_PLUGIN(plugin);

	if (self->max_entries < 0 || self->max_bytes < 1 || self->timeout < 1) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--shell-snapshots must be at least 0, "
				    "--shell-snapshot-max-bytes and --shell-snapshot-timeout at "
				    "least 1");
		return FALSE;
	}
	return TRUE;
}

static void
esd_shell_snapshot_plugin_drop_all(EsdShellSnapshotPlugin *self)
{
	GHashTableIter iter;
	gpointer session;
	gpointer cache;

	g_hash_table_iter_init(&iter, self->caches);
	while (g_hash_table_iter_next(&iter, &session, &cache)) {
		g_object_weak_unref(session, esd_shell_snapshot_plugin_session_gone, self);
		g_object_run_dispose(cache);
		g_hash_table_iter_remove(&iter);
	}
}

static void
esd_shell_snapshot_plugin_shutdown(ErpcPlugin *plugin)
{
	esd_shell_snapshot_plugin_drop_all(ESD_SHELL_SNAPSHOT_PLUGIN(plugin));
}

static void
esd_shell_snapshot_plugin_finalize(GObject *object)
{
	EsdShellSnapshotPlugin *self = ESD_SHELL_SNAPSHOT_PLUGIN(object);

	esd_shell_snapshot_plugin_drop_all(self);
	g_hash_table_unref(self->caches);
	G_OBJECT_CLASS(esd_shell_snapshot_plugin_parent_class)->finalize(object);
}

static void
esd_shell_snapshot_plugin_init(EsdShellSnapshotPlugin *self)
{
	self->caches = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_object_unref);
	self->max_entries = ESD_SHELL_SNAPSHOT_MAX_ENTRIES_DEFAULT;
	self->max_bytes = ESD_SHELL_SNAPSHOT_MAX_BYTES_DEFAULT;
	self->timeout = ESD_SHELL_SNAPSHOT_TIMEOUT_DEFAULT;
}

static void
esd_shell_snapshot_plugin_class_init(EsdShellSnapshotPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_shell_snapshot_plugin_finalize;
	plugin_class->setup = esd_shell_snapshot_plugin_setup;
	plugin_class->get_option_group = esd_shell_snapshot_plugin_get_option_group;
	plugin_class->load_config = esd_shell_snapshot_plugin_load_config;
	plugin_class->startup = esd_shell_snapshot_plugin_startup;
	plugin_class->shutdown = esd_shell_snapshot_plugin_shutdown;
}

ERPC_PLUGIN_DEFINE("shell-snapshot",
		   PACKAGE_VERSION,
		   "shell snapshots: process/start runs login shells with their state captured "
		   "once per session",
		   esd_shell_snapshot_plugin_get_type)
