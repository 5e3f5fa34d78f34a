/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "erpc-environment-manager-private.h"

/*
 * The ErpcEnvironmentManager object and where its environments come from:
 * the config file, and upsert/remove at run time.
 */

#define ERPC_ENVIRONMENT_GROUP_PREFIX "environment "

G_DEFINE_TYPE(ErpcEnvironmentManager, erpc_environment_manager, G_TYPE_OBJECT)

enum { SIGNAL_STATUS_CHANGED, SIGNAL_LAST };
static guint erpc_environment_manager_signals[SIGNAL_LAST] = {0};

void
_erpc_environment_manager_emit_status(ErpcEnvironmentManager *self,
				      const gchar *id,
				      ErpcEnvironmentStatus status)
{
	g_signal_emit(self, erpc_environment_manager_signals[SIGNAL_STATUS_CHANGED], 0, id, status);
}

static ErpcEnvironmentEntry *
erpc_environment_entry_new(ErpcEnvironmentManager *self, const gchar *id)
{
	ErpcEnvironmentEntry *entry = g_new0(ErpcEnvironmentEntry, 1);
	entry->manager = self;
	entry->id = g_strdup(id);
	entry->connect_timeout = -1;
	entry->recovery_timeout = -1;
	return entry;
}

/* replaces an environment of the same id, closing its client */
static void
erpc_environment_manager_insert(ErpcEnvironmentManager *self, ErpcEnvironmentEntry *entry)
{
	g_hash_table_replace(self->entries, entry->id, entry);
	_erpc_environment_manager_emit_status(self, entry->id, ERPC_ENVIRONMENT_STATUS_IDLE);
}

static gchar *
erpc_environment_resolve(const gchar *base_dir, const gchar *path)
{
	if (path == NULL || g_path_is_absolute(path) || base_dir == NULL)
		return g_strdup(path);
	return g_build_filename(base_dir, path, NULL);
}

static gboolean
erpc_environment_timeout(GKeyFile *keyfile,
			 const gchar *group,
			 const gchar *key,
			 gint *out,
			 GError **error)
{
	g_autoptr(GError) local_error = NULL;
	gint value;

	if (!g_key_file_has_key(keyfile, group, key, NULL))
		return TRUE;
	value = g_key_file_get_integer(keyfile, group, key, &local_error);
	if (local_error != NULL || value < 0 || value > 86400) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "[%s] %s: expected seconds from 0 to 86400",
			    group,
			    key);
		return FALSE;
	}
	*out = value;
	return TRUE;
}

static ErpcEnvironmentEntry *
erpc_environment_entry_from_group(ErpcEnvironmentManager *self,
				  GKeyFile *keyfile,
				  const gchar *group,
				  const gchar *base_dir,
				  GError **error)
{
	g_autofree gchar *id = g_strstrip(g_strdup(group + strlen(ERPC_ENVIRONMENT_GROUP_PREFIX)));
	g_autoptr(ErpcEnvironmentEntry) entry = NULL;
	g_autofree gchar *token_file = NULL;
	g_autofree gchar *ca_file = NULL;

	if (!_erpc_environment_id_validate(id, FALSE, error))
		return NULL;
	entry = erpc_environment_entry_new(self, id);
	entry->url = g_key_file_get_string(keyfile, group, "url", NULL);
	entry->headers = g_key_file_get_string_list(keyfile, group, "headers", NULL, NULL);
	token_file = g_key_file_get_string(keyfile, group, "token-file", NULL);
	ca_file = g_key_file_get_string(keyfile, group, "ca-file", NULL);
	entry->token_file = erpc_environment_resolve(base_dir, token_file);
	entry->ca_file = erpc_environment_resolve(base_dir, ca_file);
	if (!erpc_environment_timeout(keyfile,
				      group,
				      "connect-timeout",
				      &entry->connect_timeout,
				      error) ||
	    !erpc_environment_timeout(keyfile,
				      group,
				      "recovery-timeout",
				      &entry->recovery_timeout,
				      error))
		return NULL;
	if (!_erpc_environment_entry_validate(entry, error)) {
		g_prefix_error(error, "[%s]: ", group);
		return NULL;
	}
	return g_steal_pointer(&entry);
}

static gboolean
erpc_environment_manager_load_keyfile(ErpcEnvironmentManager *self,
				      GKeyFile *keyfile,
				      const gchar *base_dir,
				      GError **error)
{
	g_auto(GStrv) groups = g_key_file_get_groups(keyfile, NULL);
	g_autoptr(GPtrArray) entries =
	    g_ptr_array_new_with_free_func((GDestroyNotify)_erpc_environment_entry_free);
	g_autofree gchar *default_id = g_key_file_get_string(keyfile, "execrpc", "default", NULL);
	g_autofree gchar *server = g_key_file_get_string(keyfile, "execrpc", "server", NULL);
	g_autoptr(GError) local_error = NULL;
	gboolean include_local = self->include_local;

	if (g_key_file_has_key(keyfile, "execrpc", "include-local", NULL)) {
		include_local =
		    g_key_file_get_boolean(keyfile, "execrpc", "include-local", &local_error);
		if (local_error != NULL) {
			g_set_error_literal(error,
					    G_IO_ERROR,
					    G_IO_ERROR_INVALID_DATA,
					    "[execrpc] include-local: expected true or false");
			return FALSE;
		}
	}
	/* all or nothing: check every environment before taking any */
	for (guint i = 0; groups[i] != NULL; i++) {
		ErpcEnvironmentEntry *entry;
		if (!g_str_has_prefix(groups[i], ERPC_ENVIRONMENT_GROUP_PREFIX))
			continue;
		entry =
		    erpc_environment_entry_from_group(self, keyfile, groups[i], base_dir, error);
		if (entry == NULL)
			return FALSE;
		g_ptr_array_add(entries, entry);
	}
	for (guint i = 0; i < entries->len; i++)
		erpc_environment_manager_insert(self, g_ptr_array_steal_index(entries, i--));
	erpc_environment_manager_set_include_local(self, include_local);
	if (server != NULL) {
		const gchar *argv[] = {server, "--listen", "stdio", NULL};
		g_autofree gchar *resolved = erpc_environment_resolve(base_dir, server);
		argv[0] = strchr(server, '/') != NULL ? resolved : server;
		erpc_environment_manager_set_local_command(self, argv);
	}
	if (default_id != NULL) {
		g_free(self->default_id);
		self->default_id = g_steal_pointer(&default_id);
	}
	return TRUE;
}

/**
 * erpc_environment_manager_load_data:
 * @self: a #ErpcEnvironmentManager
 * @data: a config in #GKeyFile format (see #ErpcEnvironmentManager)
 * @len: the length of @data, or -1 if it is NUL-terminated
 * @error: return location for a #GError, or %NULL
 *
 * Adds the config's environments, replacing those with the same id. Either
 * every environment is taken or, on error, none is. Relative file names are
 * relative to the working directory.
 *
 * Returns: %TRUE if the config was valid
 *
 * Since: 0.1
 */
gboolean
erpc_environment_manager_load_data(ErpcEnvironmentManager *self,
				   const gchar *data,
				   gssize len,
				   GError **error)
{
	g_autoptr(GKeyFile) keyfile = g_key_file_new();

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	if (!g_key_file_load_from_data(keyfile,
				       data,
				       len < 0 ? strlen(data) : (gsize)len,
				       G_KEY_FILE_NONE,
				       error))
		return FALSE;
	return erpc_environment_manager_load_keyfile(self, keyfile, NULL, error);
}

/**
 * erpc_environment_manager_load_file:
 * @self: a #ErpcEnvironmentManager
 * @path: a config file
 * @error: return location for a #GError, or %NULL
 *
 * Like erpc_environment_manager_load_data(); relative file names in the
 * config are relative to the directory of @path.
 *
 * Returns: %TRUE if the config was read and valid
 *
 * Since: 0.1
 */
gboolean
erpc_environment_manager_load_file(ErpcEnvironmentManager *self, const gchar *path, GError **error)
{
	g_autoptr(GKeyFile) keyfile = g_key_file_new();
	g_autofree gchar *dir = g_path_get_dirname(path);

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	if (!g_key_file_load_from_file(keyfile, path, G_KEY_FILE_NONE, error) ||
	    !erpc_environment_manager_load_keyfile(self, keyfile, dir, error)) {
		g_prefix_error(error, "%s: ", path);
		return FALSE;
	}
	return TRUE;
}

static gboolean
erpc_environment_option_type(const gchar *key,
			     GVariant *value,
			     const GVariantType *type,
			     GError **error)
{
	if (g_variant_is_of_type(value, type))
		return TRUE;
	g_set_error(error,
		    G_IO_ERROR,
		    G_IO_ERROR_INVALID_ARGUMENT,
		    "option %s must be of type %s",
		    key,
		    (const gchar *)type);
	return FALSE;
}

static gboolean
erpc_environment_entry_set_option(ErpcEnvironmentEntry *entry,
				  const gchar *key,
				  GVariant *value,
				  GError **error)
{
	if (g_strcmp0(key, "url") == 0 || g_strcmp0(key, "token-file") == 0 ||
	    g_strcmp0(key, "ca-file") == 0) {
		gchar **field = g_strcmp0(key, "url") == 0	    ? &entry->url
				: g_strcmp0(key, "token-file") == 0 ? &entry->token_file
								    : &entry->ca_file;
		if (!erpc_environment_option_type(key, value, G_VARIANT_TYPE_STRING, error))
			return FALSE;
		g_free(*field);
		*field = g_variant_dup_string(value, NULL);
	} else if (g_strcmp0(key, "connect-timeout") == 0 ||
		   g_strcmp0(key, "recovery-timeout") == 0) {
		if (!erpc_environment_option_type(key, value, G_VARIANT_TYPE_UINT32, error))
			return FALSE;
		*(g_strcmp0(key, "connect-timeout") == 0 ? &entry->connect_timeout
							 : &entry->recovery_timeout) =
		    (gint)MIN(g_variant_get_uint32(value), 86400u);
	} else if (g_strcmp0(key, "headers") == 0) {
		if (!erpc_environment_option_type(key, value, G_VARIANT_TYPE_STRING_ARRAY, error))
			return FALSE;
		g_strfreev(entry->headers);
		entry->headers = g_variant_dup_strv(value, NULL);
	} else {
		g_debug("environment %s: ignoring unknown option %s", entry->id, key);
	}
	return TRUE;
}

/**
 * erpc_environment_manager_upsert:
 * @self: a #ErpcEnvironmentManager
 * @id: the environment id; `local` is reserved
 * @options: an `a{sv}` with the keys of a config group: `url` (s, required),
 *   `connect-timeout` and `recovery-timeout` (u, seconds), `headers` (as,
 *   `Name: value`), `token-file` and `ca-file` (s); unknown keys are ignored
 * @error: return location for a #GError, or %NULL
 *
 * Adds or replaces an environment. A replaced environment's client is
 * closed; the next erpc_environment_manager_get_environment() makes a new one.
 *
 * Returns: %TRUE if the environment was valid
 *
 * Since: 0.1
 */
gboolean
erpc_environment_manager_upsert(ErpcEnvironmentManager *self,
				const gchar *id,
				GVariant *options,
				GError **error)
{
	g_autoptr(ErpcEnvironmentEntry) entry = NULL;
	g_autoptr(GVariant) sunk = g_variant_ref_sink(options);
	GVariantIter iter;
	const gchar *key;
	GVariant *value;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	if (!_erpc_environment_id_validate(id, FALSE, error))
		return FALSE;
	if (!erpc_environment_option_type("options", sunk, G_VARIANT_TYPE_VARDICT, error))
		return FALSE;
	entry = erpc_environment_entry_new(self, id);
	g_variant_iter_init(&iter, sunk);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (!erpc_environment_entry_set_option(entry, key, value, error)) {
			g_variant_unref(value);
			return FALSE;
		}
	}
	if (!_erpc_environment_entry_validate(entry, error)) {
		g_prefix_error(error, "environment %s: ", id);
		return FALSE;
	}
	erpc_environment_manager_insert(self, g_steal_pointer(&entry));
	return TRUE;
}

/**
 * erpc_environment_manager_remove:
 * @self: a #ErpcEnvironmentManager
 * @id: an environment id; `local` is reserved
 * @error: return location for a #GError, or %NULL
 *
 * Removes an environment and closes its client.
 *
 * Returns: %TRUE if it existed
 *
 * Since: 0.1
 */
gboolean
erpc_environment_manager_remove(ErpcEnvironmentManager *self, const gchar *id, GError **error)
{
	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	if (!_erpc_environment_id_validate(id, FALSE, error))
		return FALSE;
	if (!g_hash_table_remove(self->entries, id)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "unknown environment %s", id);
		return FALSE;
	}
	if (g_strcmp0(self->default_id, id) == 0)
		g_clear_pointer(&self->default_id, g_free);
	return TRUE;
}

static gint
erpc_environment_manager_compare_ids(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/**
 * erpc_environment_manager_list_ids:
 * @self: a #ErpcEnvironmentManager
 *
 * Lists the environments the manager offers.
 *
 * Returns: (transfer full): the environment ids, sorted, `local` included
 *   when it is
 *
 * Since: 0.1
 */
gchar **
erpc_environment_manager_list_ids(ErpcEnvironmentManager *self)
{
	g_autoptr(GPtrArray) ids = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), NULL);
	g_hash_table_iter_init(&iter, self->entries);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		if (g_strcmp0(key, ERPC_ENVIRONMENT_LOCAL) != 0 || self->include_local)
			g_ptr_array_add(ids, g_strdup(key));
	}
	g_ptr_array_sort(ids, erpc_environment_manager_compare_ids);
	g_ptr_array_add(ids, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&ids), FALSE);
}

/**
 * erpc_environment_manager_get_default_id:
 * @self: a #ErpcEnvironmentManager
 *
 * Gets the environment used when none is named.
 *
 * Returns: (nullable): the config's `default`, else `local` when included,
 *   else the only environment; %NULL when there is no obvious choice
 *
 * Since: 0.1
 */
const gchar *
erpc_environment_manager_get_default_id(ErpcEnvironmentManager *self)
{
	GHashTableIter iter;
	gpointer key;
	const gchar *only = NULL;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), NULL);
	if (self->default_id != NULL)
		return self->default_id;
	if (self->include_local)
		return ERPC_ENVIRONMENT_LOCAL;
	g_hash_table_iter_init(&iter, self->entries);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		if (g_strcmp0(key, ERPC_ENVIRONMENT_LOCAL) == 0)
			continue;
		if (only != NULL)
			return NULL;
		only = key;
	}
	return only;
}

/**
 * erpc_environment_manager_set_local_command:
 * @self: a #ErpcEnvironmentManager
 * @argv: (array zero-terminated=1): the command of the `local` environment,
 *   by default `execserverd --listen stdio`
 *
 * Sets the command the `local` environment spawns to talk to over stdio.
 *
 * Since: 0.1
 */
void
erpc_environment_manager_set_local_command(ErpcEnvironmentManager *self, const gchar *const *argv)
{
	ErpcEnvironmentEntry *entry;

	g_return_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self));
	g_return_if_fail(argv != NULL && argv[0] != NULL);
	g_strfreev(self->local_argv);
	self->local_argv = g_strdupv((gchar **)argv);
	/* the next client uses it */
	entry = erpc_environment_entry_new(self, ERPC_ENVIRONMENT_LOCAL);
	erpc_environment_manager_insert(self, entry);
}

/**
 * erpc_environment_manager_set_include_local:
 * @self: a #ErpcEnvironmentManager
 * @include_local: whether the `local` environment is offered
 *
 * Sets whether the `local` environment is offered.
 *
 * Since: 0.1
 */
void
erpc_environment_manager_set_include_local(ErpcEnvironmentManager *self, gboolean include_local)
{
	g_return_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self));
	self->include_local = include_local;
}

/**
 * erpc_environment_manager_new:
 *
 * Makes an environment manager; load a configuration into it to add remote
 * environments.
 *
 * Returns: (transfer full): a manager with only the `local` environment
 *
 * Since: 0.1
 */
ErpcEnvironmentManager *
erpc_environment_manager_new(void)
{
	return g_object_new(ERPC_TYPE_ENVIRONMENT_MANAGER, NULL);
}

static void
erpc_environment_manager_finalize(GObject *object)
{
	ErpcEnvironmentManager *self = ERPC_ENVIRONMENT_MANAGER(object);
	g_hash_table_unref(self->entries);
	g_strfreev(self->local_argv);
	g_free(self->default_id);
	G_OBJECT_CLASS(erpc_environment_manager_parent_class)->finalize(object);
}

static void
erpc_environment_manager_init(ErpcEnvironmentManager *self)
{
	const gchar *argv[] = {"execserverd", "--listen", "stdio", NULL};

	self->entries = g_hash_table_new_full(g_str_hash,
					      g_str_equal,
					      NULL,
					      (GDestroyNotify)_erpc_environment_entry_free);
	self->include_local = TRUE;
	self->local_argv = g_strdupv((gchar **)argv);
	g_hash_table_insert(self->entries,
			    (gpointer)ERPC_ENVIRONMENT_LOCAL,
			    erpc_environment_entry_new(self, ERPC_ENVIRONMENT_LOCAL));
}

static void
erpc_environment_manager_class_init(ErpcEnvironmentManagerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->finalize = erpc_environment_manager_finalize;

	/**
	 * ErpcEnvironmentManager::status-changed:
	 * @self: the manager
	 * @id: the environment
	 * @status: its new #ErpcEnvironmentStatus
	 *
	 * Emitted when an environment's connection changes state, or it is replaced.
	 *
	 * Since: 0.1
	 */
	erpc_environment_manager_signals[SIGNAL_STATUS_CHANGED] =
	    g_signal_new("status-changed",
			 G_TYPE_FROM_CLASS(klass),
			 G_SIGNAL_RUN_LAST,
			 0,
			 NULL,
			 NULL,
			 NULL,
			 G_TYPE_NONE,
			 2,
			 G_TYPE_STRING,
			 ERPC_TYPE_ENVIRONMENT_STATUS);
}
