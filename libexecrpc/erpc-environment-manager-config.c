/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "erpc-environment-manager-private.h"
#include "erpc-toml-private.h"

/*
 * The ErpcEnvironmentManager object and where its environments come from:
 * the config file, and upsert/remove at run time.
 */

G_DEFINE_TYPE(ErpcEnvironmentManager, erpc_environment_manager, G_TYPE_OBJECT)

enum { SIGNAL_STATUS_CHANGED, SIGNAL_CONNECTION_ATTEMPT, SIGNAL_LAST };
static guint erpc_environment_manager_signals[SIGNAL_LAST] = {0};

void
_erpc_environment_manager_emit_status(ErpcEnvironmentManager *self,
				      const gchar *id,
				      ErpcEnvironmentStatus status)
{
	g_signal_emit(self, erpc_environment_manager_signals[SIGNAL_STATUS_CHANGED], 0, id, status);
}

void
_erpc_environment_manager_emit_attempt(ErpcEnvironmentManager *self,
				       const gchar *id,
				       guint64 elapsed_us,
				       ErpcClientAttemptOutcome outcome,
				       const GError *error)
{
	g_signal_emit(self,
		      erpc_environment_manager_signals[SIGNAL_CONNECTION_ATTEMPT],
		      0,
		      id,
		      elapsed_us,
		      outcome,
		      error);
}

static ErpcEnvironmentEntry *
erpc_environment_entry_new(ErpcEnvironmentManager *self, const gchar *id)
{
	ErpcEnvironmentEntry *entry = g_new0(ErpcEnvironmentEntry, 1);
	entry->manager = self;
	entry->id = g_strdup(id);
	entry->connect_timeout_ms = -1;
	entry->initialize_timeout_ms = -1;
	entry->recovery_timeout_ms = -1;
	return entry;
}

/* an environment's client outlives its removal or replacement: whoever got
 * it from erpc_environment_manager_get_environment() keeps using it */
static void
erpc_environment_manager_retire(ErpcEnvironmentManager *self, const gchar *id)
{
	ErpcEnvironmentEntry *entry = NULL;

	if (!g_hash_table_steal_extended(self->entries, id, NULL, (gpointer *)&entry))
		return;
	if (entry->client != NULL) {
		g_signal_handlers_disconnect_by_data(entry->client, entry);
		g_ptr_array_add(self->retired, g_steal_pointer(&entry->client));
	}
	_erpc_environment_entry_free(entry);
}

/* replaces an environment of the same id */
static void
erpc_environment_manager_insert(ErpcEnvironmentManager *self, ErpcEnvironmentEntry *entry)
{
	erpc_environment_manager_retire(self, entry->id);
	g_hash_table_insert(self->entries, entry->id, entry);
	_erpc_environment_manager_emit_status(self, entry->id, ERPC_ENVIRONMENT_STATUS_IDLE);
}

static gboolean G_GNUC_PRINTF(2, 3)
    erpc_environment_toml_error(GError **error, const gchar *format, ...)
{
	va_list args;

	va_start(args, format);
	g_propagate_error(error,
			  g_error_new_valist(G_IO_ERROR, G_IO_ERROR_INVALID_DATA, format, args));
	va_end(args);
	return FALSE;
}

/* deny_unknown_fields, as Codex's serde structs */
static gboolean
erpc_environment_toml_keys(JsonObject *object, const gchar *const *known, GError **error)
{
	g_autoptr(GList) members = json_object_get_members(object);

	for (GList *l = members; l != NULL; l = l->next) {
		if (!g_strv_contains(known, l->data))
			return erpc_environment_toml_error(error,
							   "unknown field `%s`",
							   (gchar *)l->data);
	}
	return TRUE;
}

static gboolean
erpc_environment_toml_string(JsonObject *object,
			     const gchar *key,
			     const gchar **out,
			     GError **error)
{
	JsonNode *node = json_object_get_member(object, key);

	*out = NULL;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return erpc_environment_toml_error(error, "`%s`: expected a string", key);
	*out = json_node_get_string(node);
	return TRUE;
}

/* Codex's *_timeout_sec: non-negative seconds, fractions allowed; -1 when absent */
static gboolean
erpc_environment_toml_seconds(JsonObject *object, const gchar *key, gint *out_ms, GError **error)
{
	JsonNode *node = json_object_get_member(object, key);
	gdouble seconds;

	*out_ms = -1;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_VALUE(node) || (json_node_get_value_type(node) != G_TYPE_INT64 &&
					     json_node_get_value_type(node) != G_TYPE_DOUBLE))
		return erpc_environment_toml_error(error, "`%s`: expected seconds", key);
	seconds = json_node_get_value_type(node) == G_TYPE_INT64 ? (gdouble)json_node_get_int(node)
								 : json_node_get_double(node);
	if (!(seconds >= 0) || !isfinite(seconds))
		return erpc_environment_toml_error(error,
						   "`%s`: seconds must be a non-negative number",
						   key);
	*out_ms = (gint)MIN(seconds * 1000.0, (gdouble)G_MAXINT);
	return TRUE;
}

static gchar **
erpc_environment_toml_strings(JsonNode *node, const gchar *key, GError **error)
{
	g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func(g_free);
	JsonArray *array;

	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		erpc_environment_toml_error(error, "`%s`: expected an array of strings", key);
		return NULL;
	}
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *element = json_array_get_element(array, i);
		if (!JSON_NODE_HOLDS_VALUE(element) ||
		    json_node_get_value_type(element) != G_TYPE_STRING) {
			erpc_environment_toml_error(error,
						    "`%s`: expected an array of strings",
						    key);
			return NULL;
		}
		g_ptr_array_add(strings, g_strdup(json_node_get_string(element)));
	}
	g_ptr_array_add(strings, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&strings), FALSE);
}

/* `env`: a table of strings, as NAME=value */
static gchar **
erpc_environment_toml_env(JsonNode *node, GError **error)
{
	g_autoptr(GPtrArray) envp = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GList) members = NULL;
	JsonObject *object;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		erpc_environment_toml_error(error, "`env`: expected a table of strings");
		return NULL;
	}
	object = json_node_get_object(node);
	members = json_object_get_members(object);
	for (GList *l = members; l != NULL; l = l->next) {
		JsonNode *value = json_object_get_member(object, l->data);
		if (!JSON_NODE_HOLDS_VALUE(value) ||
		    json_node_get_value_type(value) != G_TYPE_STRING) {
			erpc_environment_toml_error(error, "`env`: expected a table of strings");
			return NULL;
		}
		if (*(const gchar *)l->data == '\0' || strchr(l->data, '=') != NULL) {
			erpc_environment_toml_error(error,
						    "`env`: invalid variable name `%s`",
						    (const gchar *)l->data);
			return NULL;
		}
		g_ptr_array_add(envp, g_strconcat(l->data, "=", json_node_get_string(value), NULL));
	}
	g_ptr_array_add(envp, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&envp), FALSE);
}

static gboolean
erpc_environment_toml_url(ErpcEnvironmentEntry *entry, const gchar *raw, GError **error)
{
	g_autofree gchar *url = g_strstrip(g_strdup(raw));
	g_autoptr(GError) local_error = NULL;
	g_autoptr(GUri) uri = NULL;

	if (*url == '\0')
		return erpc_environment_toml_error(error, "environment url cannot be empty");
	if (!g_str_has_prefix(url, "ws://") && !g_str_has_prefix(url, "wss://"))
		return erpc_environment_toml_error(error,
						   "environment url `%s` must use ws:// or wss://",
						   url);
	uri = g_uri_parse(url, G_URI_FLAGS_NONE, &local_error);
	if (uri == NULL || g_uri_get_host(uri) == NULL || *g_uri_get_host(uri) == '\0')
		return erpc_environment_toml_error(error,
						   "environment url `%s` is invalid: %s",
						   url,
						   local_error != NULL ? local_error->message
								       : "no host");
	entry->url = g_steal_pointer(&url);
	return TRUE;
}

static gboolean
erpc_environment_toml_program(ErpcEnvironmentEntry *entry,
			      JsonObject *object,
			      const gchar *program,
			      const gchar *config_dir,
			      GError **error)
{
	g_autofree gchar *trimmed = g_strstrip(g_strdup(program));
	g_autoptr(GStrvBuilder) argv = g_strv_builder_new();
	const gchar *cwd = NULL;

	if (*trimmed == '\0')
		return erpc_environment_toml_error(error,
						   "environment `%s` program cannot be empty",
						   entry->id);
	g_strv_builder_add(argv, trimmed);
	if (json_object_has_member(object, "args")) {
		g_auto(GStrv) args =
		    erpc_environment_toml_strings(json_object_get_member(object, "args"),
						  "args",
						  error);
		if (args == NULL)
			return FALSE;
		g_strv_builder_addv(argv, (const gchar **)args);
	}
	entry->argv = g_strv_builder_end(argv);
	if (json_object_has_member(object, "env")) {
		entry->envp =
		    erpc_environment_toml_env(json_object_get_member(object, "env"), error);
		if (entry->envp == NULL)
			return FALSE;
	}
	if (!erpc_environment_toml_string(object, "cwd", &cwd, error))
		return FALSE;
	if (cwd != NULL && g_path_is_absolute(cwd)) {
		entry->cwd = g_strdup(cwd);
	} else if (cwd != NULL) {
		if (config_dir == NULL)
			return erpc_environment_toml_error(error,
							   "environment `%s` cwd must be absolute",
							   entry->id);
		entry->cwd = g_build_filename(config_dir, cwd, NULL);
	}
	return TRUE;
}

static const gchar *const erpc_environment_toml_entry_keys[] = {
    "id",
    "url",
    "auth_bearer_token",
    "program",
    "args",
    "env",
    "cwd",
    "connect_timeout_sec",
    "initialize_timeout_sec",
    NULL,
};

/* one [[environments]] item, checked in the order Codex checks it */
static ErpcEnvironmentEntry *
erpc_environment_toml_entry(ErpcEnvironmentManager *self,
			    JsonNode *node,
			    const gchar *config_dir,
			    GError **error)
{
	g_autoptr(ErpcEnvironmentEntry) entry = NULL;
	JsonObject *object;
	const gchar *id = NULL;
	const gchar *url = NULL;
	const gchar *program = NULL;
	const gchar *token = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		erpc_environment_toml_error(error, "`environments`: expected an array of tables");
		return NULL;
	}
	object = json_node_get_object(node);
	if (!erpc_environment_toml_keys(object, erpc_environment_toml_entry_keys, error) ||
	    !erpc_environment_toml_string(object, "id", &id, error) ||
	    !erpc_environment_toml_string(object, "url", &url, error) ||
	    !erpc_environment_toml_string(object, "program", &program, error) ||
	    !erpc_environment_toml_string(object, "auth_bearer_token", &token, error))
		return NULL;
	if (id == NULL) {
		erpc_environment_toml_error(error, "missing field `id`");
		return NULL;
	}
	if (!_erpc_environment_id_validate(id, FALSE, error))
		return NULL;
	entry = erpc_environment_entry_new(self, id);
	if (program == NULL &&
	    (json_object_has_member(object, "args") || json_object_has_member(object, "env") ||
	     json_object_has_member(object, "cwd"))) {
		erpc_environment_toml_error(error,
					    "environment `%s` args, env, and cwd require program",
					    id);
		return NULL;
	}
	if (url == NULL && token != NULL) {
		erpc_environment_toml_error(error,
					    "environment `%s` auth_bearer_token requires url",
					    id);
		return NULL;
	}
	if (url == NULL && json_object_has_member(object, "connect_timeout_sec")) {
		erpc_environment_toml_error(error,
					    "environment `%s` connect_timeout_sec requires url",
					    id);
		return NULL;
	}
	if (!erpc_environment_toml_seconds(object,
					   "connect_timeout_sec",
					   &entry->connect_timeout_ms,
					   error) ||
	    !erpc_environment_toml_seconds(object,
					   "initialize_timeout_sec",
					   &entry->initialize_timeout_ms,
					   error))
		return NULL;
	if ((url == NULL) == (program == NULL)) {
		erpc_environment_toml_error(
		    error,
		    "environment `%s` must set exactly one of url or program",
		    id);
		return NULL;
	}
	if (url != NULL && !erpc_environment_toml_url(entry, url, error))
		return NULL;
	if (program != NULL &&
	    !erpc_environment_toml_program(entry, object, program, config_dir, error))
		return NULL;
	if (token != NULL)
		entry->bearer_token = g_strstrip(g_strdup(token));
	/* stricter than Codex: no token or header over plain ws:// off this host */
	if (!_erpc_environment_entry_validate(entry, error)) {
		g_prefix_error(error, "environment `%s`: ", id);
		return NULL;
	}
	return g_steal_pointer(&entry);
}

static const gchar *const erpc_environment_toml_keys_top[] = {
    "default",
    "include_local",
    "environments",
    NULL,
};

static gboolean
erpc_environment_manager_load_toml(ErpcEnvironmentManager *self,
				   const gchar *data,
				   gsize len,
				   const gchar *config_dir,
				   GError **error)
{
	g_autoptr(JsonNode) root = _erpc_toml_parse(data, len, error);
	g_autoptr(GPtrArray) entries =
	    g_ptr_array_new_with_free_func((GDestroyNotify)_erpc_environment_entry_free);
	g_autoptr(GHashTable) ids = g_hash_table_new(g_str_hash, g_str_equal);
	g_autofree gchar *default_id = NULL;
	JsonObject *object;
	JsonNode *node;
	const gchar *raw_default = NULL;
	gboolean include_local = TRUE;

	if (root == NULL)
		return FALSE;
	object = json_node_get_object(root);
	if (!erpc_environment_toml_keys(object, erpc_environment_toml_keys_top, error) ||
	    !erpc_environment_toml_string(object, "default", &raw_default, error))
		return FALSE;
	node = json_object_get_member(object, "include_local");
	if (node != NULL) {
		if (!JSON_NODE_HOLDS_VALUE(node) ||
		    json_node_get_value_type(node) != G_TYPE_BOOLEAN)
			return erpc_environment_toml_error(
			    error,
			    "`include_local`: expected true or false");
		include_local = json_node_get_boolean(node);
	}
	if (include_local)
		g_hash_table_add(ids, (gpointer)ERPC_ENVIRONMENT_LOCAL);
	node = json_object_get_member(object, "environments");
	if (node != NULL && !JSON_NODE_HOLDS_ARRAY(node))
		return erpc_environment_toml_error(error,
						   "`environments`: expected an array of tables");
	/* all or nothing: check every environment before taking any */
	for (guint i = 0; node != NULL && i < json_array_get_length(json_node_get_array(node));
	     i++) {
		ErpcEnvironmentEntry *entry = erpc_environment_toml_entry(
		    self,
		    json_array_get_element(json_node_get_array(node), i),
		    config_dir,
		    error);
		if (entry == NULL)
			return FALSE;
		g_ptr_array_add(entries, entry);
		if (!g_hash_table_add(ids, entry->id))
			return erpc_environment_toml_error(error,
							   "environment id `%s` is duplicated",
							   entry->id);
	}
	/* absent: local when it is included, else none */
	if (raw_default != NULL) {
		default_id = g_strstrip(g_strdup(raw_default));
		if (*default_id == '\0')
			return erpc_environment_toml_error(
			    error,
			    "default environment id cannot be empty");
		if (g_ascii_strcasecmp(default_id, "none") == 0)
			g_clear_pointer(&default_id, g_free);
		else if (!g_hash_table_contains(ids, default_id))
			return erpc_environment_toml_error(
			    error,
			    "default environment `%s` is not configured",
			    default_id);
	} else if (include_local) {
		default_id = g_strdup(ERPC_ENVIRONMENT_LOCAL);
	}
	for (guint i = 0; i < entries->len; i++)
		erpc_environment_manager_insert(self, g_ptr_array_steal_index(entries, i--));
	erpc_environment_manager_set_include_local(self, include_local);
	g_free(self->default_id);
	self->default_id = g_steal_pointer(&default_id);
	self->default_set = TRUE;
	return TRUE;
}

/**
 * erpc_environment_manager_load_data:
 * @self: a #ErpcEnvironmentManager
 * @data: an `environments.toml` (see #ErpcEnvironmentManager)
 * @len: the length of @data, or -1 if it is NUL-terminated
 * @error: return location for a #GError, or %NULL
 *
 * Adds the config's environments, replacing those with the same id, and
 * takes its `default` and `include_local`. Either every environment is
 * taken or, on error, none is. A relative `cwd` is refused: there is no
 * config directory to resolve it against.
 *
 * Before 0.2 the config was a #GKeyFile; it is now Codex's TOML format.
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
	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	g_return_val_if_fail(data != NULL, FALSE);
	return erpc_environment_manager_load_toml(self,
						  data,
						  len < 0 ? strlen(data) : (gsize)len,
						  NULL,
						  error);
}

/**
 * erpc_environment_manager_load_file:
 * @self: a #ErpcEnvironmentManager
 * @path: an `environments.toml`
 * @error: return location for a #GError, or %NULL
 *
 * Like erpc_environment_manager_load_data(); a relative `cwd` is relative
 * to the directory of @path.
 *
 * Returns: %TRUE if the config was read and valid
 *
 * Since: 0.1
 */
gboolean
erpc_environment_manager_load_file(ErpcEnvironmentManager *self, const gchar *path, GError **error)
{
	g_autofree gchar *contents = NULL;
	g_autofree gchar *dir = NULL;
	gsize len = 0;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	g_return_val_if_fail(path != NULL, FALSE);
	dir = g_path_get_dirname(path);
	if (!g_file_get_contents(path, &contents, &len, error) ||
	    !erpc_environment_manager_load_toml(self, contents, len, dir, error)) {
		g_prefix_error(error, "environment config `%s`: ", path);
		return FALSE;
	}
	return TRUE;
}

/**
 * erpc_environment_manager_get_codex_home:
 *
 * Gets where Codex keeps its configuration: `$CODEX_HOME`, else `~/.codex`.
 *
 * Returns: (transfer full) (type filename): the directory
 *
 * Since: 0.2
 */
gchar *
erpc_environment_manager_get_codex_home(void)
{
	const gchar *home = g_getenv("CODEX_HOME");

	if (home != NULL && *home != '\0')
		return g_strdup(home);
	return g_build_filename(g_get_home_dir(), ".codex", NULL);
}

/**
 * erpc_environment_manager_load_codex_home:
 * @self: a #ErpcEnvironmentManager
 * @codex_home: (nullable) (type filename): a Codex home, %NULL for
 *   erpc_environment_manager_get_codex_home()
 * @error: return location for a #GError, or %NULL
 *
 * Loads `environments.toml` from a Codex home, as Codex does. Without that
 * file, `$CODEX_EXEC_SERVER_URL` decides, as for Codex: a URL is the
 * environment `remote`, which becomes the default and hides `local`;
 * `none` leaves no environment and no default; unset or empty changes
 * nothing.
 *
 * Returns: %TRUE if there was no file, or a valid one
 *
 * Since: 0.2
 */
gboolean
erpc_environment_manager_load_codex_home(ErpcEnvironmentManager *self,
					 const gchar *codex_home,
					 GError **error)
{
	g_autofree gchar *home = NULL;
	g_autofree gchar *path = NULL;
	g_autofree gchar *url = NULL;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), FALSE);
	home =
	    codex_home != NULL ? g_strdup(codex_home) : erpc_environment_manager_get_codex_home();
	path = g_build_filename(home, ERPC_ENVIRONMENTS_TOML, NULL);
	if (g_file_test(path, G_FILE_TEST_EXISTS))
		return erpc_environment_manager_load_file(self, path, error);
	url = g_strstrip(g_strdup(g_getenv("CODEX_EXEC_SERVER_URL") ?: ""));
	if (*url == '\0')
		return TRUE;
	if (g_ascii_strcasecmp(url, "none") != 0) {
		g_autoptr(ErpcEnvironmentEntry) entry =
		    erpc_environment_entry_new(self, ERPC_ENVIRONMENT_REMOTE);
		entry->url = g_steal_pointer(&url);
		if (!_erpc_environment_entry_validate(entry, error)) {
			g_prefix_error(error, "CODEX_EXEC_SERVER_URL: ");
			return FALSE;
		}
		erpc_environment_manager_insert(self, g_steal_pointer(&entry));
	}
	erpc_environment_manager_set_include_local(self, FALSE);
	g_free(self->default_id);
	self->default_id = url == NULL ? g_strdup(ERPC_ENVIRONMENT_REMOTE) : NULL;
	self->default_set = TRUE;
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
	    g_strcmp0(key, "ca-file") == 0 || g_strcmp0(key, "bearer-token") == 0) {
		gchar **field = g_strcmp0(key, "url") == 0	    ? &entry->url
				: g_strcmp0(key, "token-file") == 0 ? &entry->token_file
				: g_strcmp0(key, "ca-file") == 0    ? &entry->ca_file
								    : &entry->bearer_token;
		if (!erpc_environment_option_type(key, value, G_VARIANT_TYPE_STRING, error))
			return FALSE;
		g_free(*field);
		*field = g_variant_dup_string(value, NULL);
	} else if (g_strcmp0(key, "connect-timeout") == 0 ||
		   g_strcmp0(key, "initialize-timeout") == 0 ||
		   g_strcmp0(key, "recovery-timeout") == 0) {
		if (!erpc_environment_option_type(key, value, G_VARIANT_TYPE_UINT32, error))
			return FALSE;
		*(g_strcmp0(key, "connect-timeout") == 0      ? &entry->connect_timeout_ms
		  : g_strcmp0(key, "initialize-timeout") == 0 ? &entry->initialize_timeout_ms
							      : &entry->recovery_timeout_ms) =
		    (gint)MIN(g_variant_get_uint32(value), 86400u) * 1000;
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
 *   `connect-timeout`, `initialize-timeout` and `recovery-timeout` (u,
 *   seconds), `headers` (as, `Name: value`), `bearer-token`, `token-file`
 *   and `ca-file` (s); unknown keys are ignored
 * @error: return location for a #GError, or %NULL
 *
 * Adds or replaces an environment at run time. The next
 * erpc_environment_manager_get_environment() makes a new client; one
 * already handed out keeps working, as in Codex.
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
 * Removes an environment. Its client, if one was handed out, is not closed
 * and stays usable; if it was the default, the default id stays (and
 * names nothing until an environment of that id is added again).
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
	if (!g_hash_table_contains(self->entries, id)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "unknown environment %s", id);
		return FALSE;
	}
	/* as Codex: handles already given out stay usable, and the default id stays */
	erpc_environment_manager_retire(self, id);
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
 * Returns: (nullable): after a config was loaded, its `default` (as Codex:
 *   `local` when it is absent and `local` is included, %NULL for `none`);
 *   without a config, `local` when included, else the only environment;
 *   %NULL when there is no obvious choice
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
	if (self->default_set || self->default_id != NULL)
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
erpc_environment_client_release(gpointer client)
{
	erpc_client_close(client);
	g_object_unref(client);
}

static void
erpc_environment_manager_finalize(GObject *object)
{
	ErpcEnvironmentManager *self = ERPC_ENVIRONMENT_MANAGER(object);
	g_hash_table_unref(self->entries);
	g_ptr_array_unref(self->retired);
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
	self->retired = g_ptr_array_new_with_free_func(erpc_environment_client_release);
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
	/**
	 * ErpcEnvironmentManager::connection-attempt:
	 * @self: the manager
	 * @id: the environment
	 * @elapsed_us: how long the attempt took, in microseconds
	 * @outcome: the #ErpcClientAttemptOutcome
	 * @error: (nullable): why it failed
	 *
	 * Emitted when an initial connection attempt of an environment's client
	 * ends (#ErpcClient::connection-attempt): the observer Codex's
	 * environment manager gives each environment.
	 *
	 * Since: 0.2
	 */
	erpc_environment_manager_signals[SIGNAL_CONNECTION_ATTEMPT] =
	    g_signal_new("connection-attempt",
			 G_TYPE_FROM_CLASS(klass),
			 G_SIGNAL_RUN_LAST,
			 0,
			 NULL,
			 NULL,
			 NULL,
			 G_TYPE_NONE,
			 4,
			 G_TYPE_STRING,
			 G_TYPE_UINT64,
			 ERPC_TYPE_CLIENT_ATTEMPT_OUTCOME,
			 G_TYPE_ERROR);
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
