/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-client-private.h"
#include "erpc-environment-manager-private.h"

/**
 * ErpcEnvironmentManager:
 *
 * The environments a program may run things in: remote execserverd (or
 * Codex exec-server) instances reached over WebSocket, programs spoken to
 * over stdio, and optionally `local`, a private `execserverd --listen
 * stdio`. They come from Codex's own `environments.toml` (see
 * erpc_environment_manager_load_codex_home()), read with Codex's schema
 * and rules:
 *
 * |[
 * default = "build"          # absent: local (or none without local); "none": no default
 * include_local = true       # offer `local` (default true)
 *
 * [[environments]]
 * id = "build"               # 1-64 of A-Z a-z 0-9 - _; `local` and `none` are reserved
 * url = "wss://build.example.com:8443/"
 * auth_bearer_token = "…"    # sent as Authorization: Bearer; needs url
 * connect_timeout_sec = 10   # needs url; fractions allowed
 * initialize_timeout_sec = 10
 *
 * [[environments]]
 * id = "ssh-dev"             # exactly one of url or program
 * program = "ssh"
 * args = ["dev", "execserverd --listen stdio"]
 * cwd = "work"               # relative to the config's directory
 * env = { EXECSERVERD_LOG = "debug" }
 * ]|
 *
 * Unknown keys are refused, as Codex refuses them. One rule is stricter
 * than Codex: a token (or extra header) is never sent over plain `ws://`
 * to another host. Before 0.2 the format was a #GKeyFile; it is gone.
 *
 * Environments may also be added at run time with
 * erpc_environment_manager_upsert(). Each environment gets one #ErpcClient,
 * created when first asked for and connected by
 * erpc_environment_manager_wait_until_ready_async().
 *
 * Since: 0.1
 */

G_DEFINE_ENUM_TYPE(ErpcEnvironmentStatus,
		   erpc_environment_status,
		   G_DEFINE_ENUM_VALUE(ERPC_ENVIRONMENT_STATUS_IDLE, "idle"),
		   G_DEFINE_ENUM_VALUE(ERPC_ENVIRONMENT_STATUS_CONNECTING, "connecting"),
		   G_DEFINE_ENUM_VALUE(ERPC_ENVIRONMENT_STATUS_READY, "ready"),
		   G_DEFINE_ENUM_VALUE(ERPC_ENVIRONMENT_STATUS_RECOVERING, "recovering"),
		   G_DEFINE_ENUM_VALUE(ERPC_ENVIRONMENT_STATUS_DISCONNECTED, "disconnected"))

void
_erpc_environment_entry_free(ErpcEnvironmentEntry *entry)
{
	if (entry->client != NULL) {
		g_signal_handlers_disconnect_by_data(entry->client, entry);
		erpc_client_close(entry->client);
		g_object_unref(entry->client);
	}
	g_free(entry->id);
	g_free(entry->url);
	g_strfreev(entry->argv);
	g_strfreev(entry->envp);
	g_free(entry->cwd);
	g_strfreev(entry->headers);
	if (entry->bearer_token != NULL)
		memset(entry->bearer_token, 0, strlen(entry->bearer_token));
	g_free(entry->bearer_token);
	g_free(entry->token_file);
	g_free(entry->ca_file);
	g_free(entry);
}

static ErpcEnvironmentStatus
erpc_environment_entry_status(ErpcEnvironmentEntry *entry)
{
	if (entry->client == NULL)
		return ERPC_ENVIRONMENT_STATUS_IDLE;
	switch (erpc_client_get_state(entry->client)) {
	case ERPC_CLIENT_STATE_CONNECTING:
		return ERPC_ENVIRONMENT_STATUS_CONNECTING;
	case ERPC_CLIENT_STATE_READY:
		return ERPC_ENVIRONMENT_STATUS_READY;
	case ERPC_CLIENT_STATE_RECOVERING:
		return ERPC_ENVIRONMENT_STATUS_RECOVERING;
	case ERPC_CLIENT_STATE_DISCONNECTED:
	default:
		return entry->attempted ? ERPC_ENVIRONMENT_STATUS_DISCONNECTED
					: ERPC_ENVIRONMENT_STATUS_IDLE;
	}
}

/* Codex's rules: 1 to 64 of [A-Za-z0-9_-], `local` and `none` reserved */
gboolean
_erpc_environment_id_validate(const gchar *id, gboolean allow_local, GError **error)
{
	g_autofree gchar *trimmed = g_strstrip(g_strdup(id != NULL ? id : ""));
	gsize len = id != NULL ? strlen(id) : 0;

	if (*trimmed == '\0') {
		g_set_error_literal(error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_ARGUMENT,
				    "environment id cannot be empty");
		return FALSE;
	}
	if (strcmp(trimmed, id) != 0) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "environment id `%s` must not contain surrounding whitespace",
			    id);
		return FALSE;
	}
	if ((!allow_local && strcmp(id, ERPC_ENVIRONMENT_LOCAL) == 0) ||
	    g_ascii_strcasecmp(id, "none") == 0) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "environment id `%s` is reserved",
			    id);
		return FALSE;
	}
	if (len > ERPC_ENVIRONMENT_ID_MAX) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "environment id `%s` cannot be longer than %d characters",
			    id,
			    ERPC_ENVIRONMENT_ID_MAX);
		return FALSE;
	}
	for (gsize i = 0; i < len; i++) {
		if (!g_ascii_isalnum(id[i]) && id[i] != '-' && id[i] != '_') {
			g_set_error(error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_ARGUMENT,
				    "environment id `%s` must contain only ASCII letters, numbers, "
				    "'-' or '_'",
				    id);
			return FALSE;
		}
	}
	return TRUE;
}

/* every check a client would make later, made now so that a bad entry is refused */
gboolean
_erpc_environment_entry_validate(ErpcEnvironmentEntry *entry, GError **error)
{
	g_autoptr(GUri) uri = NULL;
	g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	gboolean secure;

	if (entry->argv != NULL)
		return TRUE;
	if (entry->url == NULL) {
		g_set_error_literal(error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_ARGUMENT,
				    "url is missing");
		return FALSE;
	}
	uri = g_uri_parse(entry->url, G_URI_FLAGS_NONE, error);
	if (uri == NULL)
		return FALSE;
	secure = g_strcmp0(g_uri_get_scheme(uri), "wss") == 0;
	if ((!secure && g_strcmp0(g_uri_get_scheme(uri), "ws") != 0) ||
	    g_uri_get_host(uri) == NULL) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "unsupported url %s; expected ws://HOST:PORT or wss://HOST:PORT",
			    entry->url);
		return FALSE;
	}
	for (guint i = 0; entry->headers != NULL && entry->headers[i] != NULL; i++) {
		const gchar *colon = strchr(entry->headers[i], ':');
		g_autofree gchar *name = NULL;
		g_autofree gchar *value = NULL;
		if (colon == NULL) {
			g_set_error_literal(error,
					    ERPC_CLIENT_ERROR,
					    ERPC_CLIENT_ERROR_INVALID_HEADER,
					    "a header must look like \"Name: value\"");
			return FALSE;
		}
		name = g_strstrip(g_strndup(entry->headers[i], colon - entry->headers[i]));
		value = g_strstrip(g_strdup(colon + 1));
		if (!_erpc_client_header_validate(name, value, error))
			return FALSE;
		if (!g_hash_table_add(names, g_ascii_strdown(name, -1))) {
			g_set_error_literal(error,
					    ERPC_CLIENT_ERROR,
					    ERPC_CLIENT_ERROR_INVALID_HEADER,
					    "a header is set twice");
			return FALSE;
		}
	}
	if (!secure &&
	    (g_hash_table_size(names) > 0 || entry->token_file != NULL ||
	     entry->bearer_token != NULL) &&
	    !_erpc_client_url_is_loopback(entry->url)) {
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    ERPC_CLIENT_ERROR_INSECURE,
			    "%s carries credentials or extra headers: use wss://",
			    entry->url);
		return FALSE;
	}
	return TRUE;
}

static void
erpc_environment_manager_client_state_cb(ErpcClient *client,
					 ErpcClientState old_state,
					 ErpcClientState new_state,
					 ErpcEnvironmentEntry *entry)
{
	entry->attempted = TRUE;
	_erpc_environment_manager_emit_status(entry->manager,
					      entry->id,
					      erpc_environment_entry_status(entry));
}

static void
erpc_environment_manager_client_attempt_cb(ErpcClient *client,
					   guint64 elapsed_us,
					   ErpcClientAttemptOutcome outcome,
					   const GError *error,
					   ErpcEnvironmentEntry *entry)
{
	_erpc_environment_manager_emit_attempt(entry->manager,
					       entry->id,
					       elapsed_us,
					       outcome,
					       error);
}

static gboolean
erpc_environment_entry_configure(ErpcEnvironmentEntry *entry, ErpcClient *client, GError **error)
{
	if (entry->connect_timeout_ms >= 0)
		erpc_client_set_connect_timeout(client, (guint)entry->connect_timeout_ms);
	if (entry->initialize_timeout_ms >= 0)
		erpc_client_set_initialize_timeout(client, (guint)entry->initialize_timeout_ms);
	if (entry->recovery_timeout_ms >= 0)
		erpc_client_set_recovery_timeout(client, (guint)entry->recovery_timeout_ms);
	if (entry->argv != NULL)
		_erpc_client_set_command_environment(client,
						     (const gchar *const *)entry->envp,
						     entry->cwd);
	if (entry->bearer_token != NULL)
		erpc_client_set_bearer_token(client, entry->bearer_token);
	for (guint i = 0; entry->headers != NULL && entry->headers[i] != NULL; i++) {
		const gchar *colon = strchr(entry->headers[i], ':');
		g_autofree gchar *name =
		    g_strstrip(g_strndup(entry->headers[i], colon - entry->headers[i]));
		g_autofree gchar *value = g_strstrip(g_strdup(colon + 1));
		if (!erpc_client_add_header(client, name, value, error))
			return FALSE;
	}
	if (entry->token_file != NULL) {
		g_autofree gchar *token = NULL;
		if (!g_file_get_contents(entry->token_file, &token, NULL, error)) {
			g_prefix_error(error, "environment %s: ", entry->id);
			return FALSE;
		}
		erpc_client_set_bearer_token(client, g_strstrip(token));
		memset(token, 0, strlen(token));
	}
	if (entry->ca_file != NULL) {
		g_autoptr(GTlsDatabase) database = g_tls_file_database_new(entry->ca_file, error);
		if (database == NULL)
			return FALSE;
		erpc_client_set_tls_database(client, database);
	}
	return TRUE;
}

static ErpcEnvironmentEntry *
erpc_environment_manager_lookup(ErpcEnvironmentManager *self, const gchar *id, GError **error)
{
	ErpcEnvironmentEntry *entry;

	if (id == NULL)
		id = erpc_environment_manager_get_default_id(self);
	if (id == NULL) {
		g_set_error_literal(error,
				    G_IO_ERROR,
				    G_IO_ERROR_NOT_FOUND,
				    "no environment is configured");
		return NULL;
	}
	if (g_strcmp0(id, ERPC_ENVIRONMENT_LOCAL) == 0 && !self->include_local) {
		g_set_error_literal(error,
				    G_IO_ERROR,
				    G_IO_ERROR_NOT_FOUND,
				    "the local environment is not included");
		return NULL;
	}
	entry = g_hash_table_lookup(self->entries, id);
	if (entry == NULL)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "unknown environment %s", id);
	return entry;
}

/**
 * erpc_environment_manager_get_environment:
 * @self: a #ErpcEnvironmentManager
 * @id: (nullable): an environment id, %NULL for the default one
 * @error: return location for a #GError, or %NULL
 *
 * Returns the environment's client, creating it (unconnected) the first time.
 *
 * Returns: (transfer none): the client, or %NULL if @id is unknown
 *
 * Since: 0.1
 */
ErpcClient *
erpc_environment_manager_get_environment(ErpcEnvironmentManager *self,
					 const gchar *id,
					 GError **error)
{
	ErpcEnvironmentEntry *entry;
	g_autoptr(ErpcClient) client = NULL;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), NULL);
	entry = erpc_environment_manager_lookup(self, id, error);
	if (entry == NULL)
		return NULL;
	if (entry->client != NULL)
		return entry->client;
	if (entry->argv != NULL)
		client = erpc_client_new_for_command((const gchar *const *)entry->argv);
	else if (entry->url == NULL)
		client = erpc_client_new_for_command((const gchar *const *)self->local_argv);
	else
		client = erpc_client_new(entry->url);
	if (!erpc_environment_entry_configure(entry, client, error))
		return NULL;
	g_signal_connect(client,
			 "state-changed",
			 G_CALLBACK(erpc_environment_manager_client_state_cb),
			 entry);
	g_signal_connect(client,
			 "connection-attempt",
			 G_CALLBACK(erpc_environment_manager_client_attempt_cb),
			 entry);
	entry->client = g_steal_pointer(&client);
	return entry->client;
}

/**
 * erpc_environment_manager_get_status:
 * @self: a #ErpcEnvironmentManager
 * @id: (nullable): an environment id, %NULL for the default one
 * @error: return location for a #GError, or %NULL
 *
 * Tells what is known of the environment, without connecting.
 *
 * Returns: the status; %ERPC_ENVIRONMENT_STATUS_IDLE with @error set if
 *   @id is unknown
 *
 * Since: 0.1
 */
ErpcEnvironmentStatus
erpc_environment_manager_get_status(ErpcEnvironmentManager *self, const gchar *id, GError **error)
{
	ErpcEnvironmentEntry *entry;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), ERPC_ENVIRONMENT_STATUS_IDLE);
	entry = erpc_environment_manager_lookup(self, id, error);
	return entry != NULL ? erpc_environment_entry_status(entry) : ERPC_ENVIRONMENT_STATUS_IDLE;
}

/**
 * erpc_environment_manager_get_last_ready:
 * @self: a #ErpcEnvironmentManager
 * @id: (nullable): an environment id, %NULL for the default one
 * @ready_time: (out) (optional): when it was accepted, as
 *   g_get_monotonic_time(); 0 if never
 * @error: return location for a #GError, or %NULL
 *
 * Gets the last ready report the environment's client accepted: the
 * EnvironmentInfo of its last successful handshake (first connection,
 * recovery or refresh), without connecting.
 *
 * Returns: (transfer none) (nullable): the EnvironmentInfo, %NULL if the
 *   environment was never ready (or @id is unknown, with @error set)
 *
 * Since: 0.2
 */
JsonObject *
erpc_environment_manager_get_last_ready(ErpcEnvironmentManager *self,
					const gchar *id,
					gint64 *ready_time,
					GError **error)
{
	ErpcEnvironmentEntry *entry;
	gint64 when = 0;

	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), NULL);
	if (ready_time != NULL)
		*ready_time = 0;
	entry = erpc_environment_manager_lookup(self, id, error);
	if (entry == NULL || entry->client == NULL)
		return NULL;
	when = erpc_client_get_last_ready_time(entry->client);
	if (ready_time != NULL)
		*ready_time = when;
	return when != 0 ? erpc_client_get_environment_info(entry->client) : NULL;
}

typedef struct {
	ErpcClient *client;
	gulong state_id;
	GCancellable *cancellable;
	gulong cancelled_id;
} ErpcEnvironmentWait;

static void
erpc_environment_wait_stop(ErpcEnvironmentWait *wait)
{
	g_clear_signal_handler(&wait->state_id, wait->client);
	if (wait->cancelled_id != 0)
		g_cancellable_disconnect(wait->cancellable, wait->cancelled_id);
	wait->cancelled_id = 0;
}

static void
erpc_environment_wait_free(ErpcEnvironmentWait *wait)
{
	erpc_environment_wait_stop(wait);
	g_clear_object(&wait->cancellable);
	g_object_unref(wait->client);
	g_free(wait);
}

/* in the loop, not inside g_cancellable_cancel() */
static gboolean
erpc_environment_wait_cancelled_idle_cb(gpointer user_data)
{
	GTask *task = user_data;
	ErpcEnvironmentWait *wait = g_task_get_task_data(task);

	if (wait->state_id == 0)
		return G_SOURCE_REMOVE;
	erpc_environment_wait_stop(wait);
	g_task_return_new_error(task,
				G_IO_ERROR,
				G_IO_ERROR_CANCELLED,
				"waiting for the environment was cancelled");
	/* the reference the state handler held */
	g_object_unref(task);
	return G_SOURCE_REMOVE;
}

static void
erpc_environment_wait_cancelled_cb(GCancellable *cancellable, GTask *task)
{
	g_autoptr(GSource) source = g_idle_source_new();

	g_source_set_callback(source,
			      erpc_environment_wait_cancelled_idle_cb,
			      g_object_ref(task),
			      g_object_unref);
	g_source_attach(source, g_task_get_context(task));
}

static void
erpc_environment_manager_connect_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	ErpcEnvironmentWait *wait = g_task_get_task_data(task);
	GError *error = NULL;

	if (!erpc_client_connect_finish(ERPC_CLIENT(source), res, &error)) {
		g_task_return_error(task, error);
		return;
	}
	g_task_return_pointer(task, g_object_ref(wait->client), g_object_unref);
}

static void
erpc_environment_manager_wait_state_cb(ErpcClient *client,
				       ErpcClientState old_state,
				       ErpcClientState new_state,
				       GTask *task)
{
	ErpcEnvironmentWait *wait = g_task_get_task_data(task);

	if (new_state != ERPC_CLIENT_STATE_READY && new_state != ERPC_CLIENT_STATE_DISCONNECTED)
		return;
	erpc_environment_wait_stop(wait);
	if (new_state == ERPC_CLIENT_STATE_READY)
		g_task_return_pointer(task, g_object_ref(client), g_object_unref);
	else
		g_task_return_new_error(task,
					ERPC_CLIENT_ERROR,
					ERPC_CLIENT_ERROR_DISCONNECTED,
					"the environment at %s is disconnected",
					erpc_client_get_url(client));
	g_object_unref(task);
}

/**
 * erpc_environment_manager_wait_until_ready_async:
 * @self: a #ErpcEnvironmentManager
 * @id: (nullable): an environment id, %NULL for the default one
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once the environment is ready, or cannot be
 * @user_data: data for @callback
 *
 * Connects the environment if it is not connected, or waits for the
 * connection or recovery under way.
 *
 * Since: 0.1
 */
void
erpc_environment_manager_wait_until_ready_async(ErpcEnvironmentManager *self,
						const gchar *id,
						GCancellable *cancellable,
						GAsyncReadyCallback callback,
						gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);
	ErpcEnvironmentWait *wait;
	GError *error = NULL;
	ErpcClient *client;

	g_return_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self));
	g_task_set_source_tag(task, erpc_environment_manager_wait_until_ready_async);
	client = erpc_environment_manager_get_environment(self, id, &error);
	if (client == NULL) {
		g_task_return_error(task, error);
		return;
	}
	wait = g_new0(ErpcEnvironmentWait, 1);
	wait->client = g_object_ref(client);
	g_task_set_task_data(task, wait, (GDestroyNotify)erpc_environment_wait_free);
	switch (erpc_client_get_state(client)) {
	case ERPC_CLIENT_STATE_READY:
		g_task_return_pointer(task, g_object_ref(client), g_object_unref);
		break;
	case ERPC_CLIENT_STATE_DISCONNECTED:
		erpc_client_connect_async(client,
					  cancellable,
					  erpc_environment_manager_connect_cb,
					  g_steal_pointer(&task));
		break;
	case ERPC_CLIENT_STATE_CONNECTING:
	case ERPC_CLIENT_STATE_RECOVERING:
	default:
		wait->state_id =
		    g_signal_connect(client,
				     "state-changed",
				     G_CALLBACK(erpc_environment_manager_wait_state_cb),
				     task);
		if (cancellable != NULL) {
			wait->cancellable = g_object_ref(cancellable);
			wait->cancelled_id =
			    g_cancellable_connect(cancellable,
						  G_CALLBACK(erpc_environment_wait_cancelled_cb),
						  task,
						  NULL);
		}
		/* held by the state handler until it returns the task */
		g_steal_pointer(&task);
		break;
	}
}

/**
 * erpc_environment_manager_wait_until_ready_finish:
 * @self: a #ErpcEnvironmentManager
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_environment_manager_wait_until_ready_async().
 *
 * Returns: (transfer full): the ready client, or %NULL
 *
 * Since: 0.1
 */
ErpcClient *
erpc_environment_manager_wait_until_ready_finish(ErpcEnvironmentManager *self,
						 GAsyncResult *result,
						 GError **error)
{
	g_return_val_if_fail(ERPC_IS_ENVIRONMENT_MANAGER(self), NULL);
	g_return_val_if_fail(g_task_is_valid(result, self), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}
