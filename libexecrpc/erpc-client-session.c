/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-client-state.h"
#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-line-transport.h"
#include "erpc-uri.h"

/*
 * The connection side of ErpcClient: connection attempts and the handshake,
 * incoming messages, and recovery after a lost transport.
 */

/* ties a callback to the connection attempt that started it */
typedef struct {
	ErpcClient *client;
	guint attempt;
} ErpcClientAttempt;

static void
erpc_client_attempt_start(ErpcClient *self);

void
_erpc_client_register_process(ErpcClient *self, ErpcClientProcess *process)
{
	g_hash_table_insert(self->processes,
			    g_strdup(erpc_client_process_get_id(process)),
			    process);
}

void
_erpc_client_unregister_process(ErpcClient *self, ErpcClientProcess *process)
{
	const gchar *id = erpc_client_process_get_id(process);
	if (g_hash_table_lookup(self->processes, id) == process)
		g_hash_table_remove(self->processes, id);
}

/* a started process is kept until it closed, so that its events are not
 * lost when the application dropped its handle; the session ends that */
void
_erpc_client_keep_process(ErpcClient *self, ErpcClientProcess *process)
{
	if (!g_ptr_array_find(self->live, process, NULL))
		g_ptr_array_add(self->live, g_object_ref(process));
}

void
_erpc_client_release_process(ErpcClient *self, ErpcClientProcess *process)
{
	/* the last reference may be this one: the process unregisters itself */
	g_ptr_array_remove_fast(self->live, process);
}

static void
erpc_client_release_processes(ErpcClient *self)
{
	g_autoptr(GPtrArray) live = g_steal_pointer(&self->live);
	self->live = g_ptr_array_new_with_free_func(g_object_unref);
}

void
_erpc_client_catch_up_processes(ErpcClient *self)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, self->processes);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		_erpc_client_process_catch_up(ERPC_CLIENT_PROCESS(value));
}

ErpcClientWsOptions *
_erpc_client_ws_options_new(ErpcClient *self)
{
	ErpcClientWsOptions *options = g_new0(ErpcClientWsOptions, 1);

	options->url = g_strdup(self->url);
	options->headers = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < self->headers->len; i++)
		g_ptr_array_add(options->headers, g_strdup(g_ptr_array_index(self->headers, i)));
	options->bearer_token = g_strdup(self->bearer_token);
	if (self->proxy_resolver != NULL)
		options->proxy_resolver = g_object_ref(self->proxy_resolver);
	if (self->tls_database != NULL)
		options->tls_database = g_object_ref(self->tls_database);
	options->timeout_ms = self->connect_timeout_ms;
	options->max_message_size = self->max_message_size;
	options->keepalive_ms = self->keepalive_ms;
	return options;
}

static ErpcClientAttempt *
erpc_client_attempt_new(ErpcClient *self)
{
	ErpcClientAttempt *attempt = g_new0(ErpcClientAttempt, 1);
	attempt->client = g_object_ref(self);
	attempt->attempt = self->attempt;
	return attempt;
}

static void
erpc_client_attempt_free(ErpcClientAttempt *attempt)
{
	g_object_unref(attempt->client);
	g_free(attempt);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcClientAttempt, erpc_client_attempt_free)

static void
erpc_client_message_cb(ErpcConnection *connection, ErpcMessage *message, ErpcClient *self)
{
	g_autoptr(GBytes) reply = NULL;
	g_autofree gchar *text = NULL;

	switch (erpc_message_get_kind(message)) {
	case ERPC_MESSAGE_KIND_RESPONSE:
	case ERPC_MESSAGE_KIND_ERROR:
		_erpc_client_handle_answer(self, message);
		break;
	case ERPC_MESSAGE_KIND_NOTIFICATION:
		_erpc_client_emit_notification(self,
					       erpc_message_get_method(message),
					       erpc_message_get_params(message));
		break;
	case ERPC_MESSAGE_KIND_REQUEST:
		/* network/policyRequest: never asked for, so never answered with a decision */
		text = g_strdup_printf("client does not implement `%s`",
				       erpc_message_get_method(message));
		reply = erpc_message_new_error(erpc_message_get_id(message),
					       ERPC_WIRE_METHOD_NOT_FOUND,
					       text,
					       NULL);
		erpc_connection_send(connection, reply);
		break;
	default:
		break;
	}
}

static void
erpc_client_malformed_cb(ErpcConnection *connection, const GError *error, ErpcClient *self)
{
	g_debug("client %s: ignoring a malformed message: %s", self->url, error->message);
}

static void
erpc_client_connection_closed_cb(ErpcConnection *connection, ErpcClient *self);

static void
erpc_client_drop_connection(ErpcClient *self, gboolean abort)
{
	g_autoptr(ErpcConnection) connection = g_steal_pointer(&self->connection);

	if (connection == NULL)
		return;
	g_clear_signal_handler(&self->message_id, connection);
	g_clear_signal_handler(&self->closed_id, connection);
	g_clear_signal_handler(&self->malformed_id, connection);
	erpc_connection_close(connection, abort);
}

static void
erpc_client_stop_attempts(ErpcClient *self)
{
	self->attempt++;
	if (self->attempt_cancellable != NULL) {
		g_cancellable_cancel(self->attempt_cancellable);
		g_clear_object(&self->attempt_cancellable);
	}
	g_clear_handle_id(&self->retry_id, g_source_remove);
	g_clear_handle_id(&self->deadline_id, g_source_remove);
	g_clear_handle_id(&self->initialize_id, g_source_remove);
}

/* the connect task, with its cancellable's handler gone */
static GTask *
erpc_client_take_connect_task(ErpcClient *self)
{
	GTask *task = g_steal_pointer(&self->connect_task);

	if (task != NULL && self->connect_cancelled_id != 0)
		g_cancellable_disconnect(g_task_get_cancellable(task), self->connect_cancelled_id);
	self->connect_cancelled_id = 0;
	return task;
}

/* no recovery is possible any more; @error is taken */
static void
erpc_client_give_up(ErpcClient *self, GError *error)
{
	g_autoptr(GError) reason = error;
	g_autoptr(GTask) connect_task = erpc_client_take_connect_task(self);

	g_object_ref(self);
	erpc_client_stop_attempts(self);
	erpc_client_drop_connection(self, TRUE);
	g_debug("client %s: disconnected: %s", self->url, reason->message);
	_erpc_client_set_state(self, ERPC_CLIENT_STATE_DISCONNECTED);
	_erpc_client_fail_all(self, reason);
	if (connect_task != NULL)
		_erpc_client_emit_attempt(self,
					  g_error_matches(reason, G_IO_ERROR, G_IO_ERROR_CANCELLED)
					      ? ERPC_CLIENT_ATTEMPT_CANCELLED
					      : ERPC_CLIENT_ATTEMPT_FAILED,
					  reason);
	else
		_erpc_client_emit_disconnected(self, reason);
	if (connect_task != NULL)
		g_task_return_error(connect_task, g_error_copy(reason));
	/* no event can reach a process any more */
	erpc_client_release_processes(self);
	g_object_unref(self);
}

static guint
erpc_client_add_timeout(ErpcClient *self, guint ms, GSourceFunc func)
{
	g_autoptr(GSource) source = g_timeout_source_new(ms);
	g_source_set_callback(source, func, self, NULL);
	return g_source_attach(source, self->context);
}

static gboolean
erpc_client_retry_cb(gpointer user_data)
{
	ErpcClient *self = ERPC_CLIENT(user_data);
	self->retry_id = 0;
	erpc_client_attempt_start(self);
	return G_SOURCE_REMOVE;
}

static gboolean
erpc_client_deadline_cb(gpointer user_data)
{
	ErpcClient *self = ERPC_CLIENT(user_data);
	self->deadline_id = 0;
	erpc_client_give_up(self,
			    g_error_new(ERPC_ERROR,
					ERPC_ERROR_TIMED_OUT,
					"the connection to %s was not recovered within %u ms",
					self->url,
					self->recovery_timeout_ms));
	return G_SOURCE_REMOVE;
}

static void
erpc_client_attempt_failed(ErpcClient *self, GError *error)
{
	g_autoptr(GError) reason = error;

	g_clear_handle_id(&self->initialize_id, g_source_remove);
	erpc_client_drop_connection(self, TRUE);
	if (self->state == ERPC_CLIENT_STATE_CONNECTING) {
		erpc_client_give_up(self, g_steal_pointer(&reason));
		return;
	}
	if (self->state != ERPC_CLIENT_STATE_RECOVERING)
		return;
	/* initialize refused the session: it expired, or the server restarted */
	if (g_error_matches(reason, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST)) {
		erpc_client_give_up(self,
				    g_error_new(ERPC_CLIENT_ERROR,
						ERPC_CLIENT_ERROR_SESSION_LOST,
						"session %s could not be resumed: %s",
						self->session_id,
						reason->message));
		return;
	}
	if (g_error_matches(reason, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_UNAUTHORIZED)) {
		erpc_client_give_up(self, g_steal_pointer(&reason));
		return;
	}
	g_debug("client %s: recovery attempt failed, again in %u ms: %s",
		self->url,
		self->retry_delay_ms,
		reason->message);
	self->retry_id = erpc_client_add_timeout(self, self->retry_delay_ms, erpc_client_retry_cb);
	self->retry_delay_ms = MIN(self->retry_delay_ms * 2, ERPC_CLIENT_RETRY_MAX_MS);
}

static void
erpc_client_attempt_succeeded(ErpcClient *self)
{
	g_autoptr(GTask) connect_task = erpc_client_take_connect_task(self);
	gboolean recovered = self->state == ERPC_CLIENT_STATE_RECOVERING;

	g_clear_object(&self->attempt_cancellable);
	g_clear_handle_id(&self->retry_id, g_source_remove);
	g_clear_handle_id(&self->deadline_id, g_source_remove);
	g_clear_handle_id(&self->initialize_id, g_source_remove);
	_erpc_client_set_state(self, ERPC_CLIENT_STATE_READY);
	if (connect_task != NULL)
		_erpc_client_emit_attempt(self, ERPC_CLIENT_ATTEMPT_SUCCEEDED, NULL);
	_erpc_client_emit_ready(self);
	_erpc_client_flush(self);
	if (recovered)
		_erpc_client_catch_up_processes(self);
	if (connect_task != NULL)
		g_task_return_boolean(connect_task, TRUE);
}

static void
erpc_client_initialize_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(ErpcClientAttempt) attempt = user_data;
	ErpcClient *self = attempt->client;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = erpc_client_call_finish(self, res, &error);
	g_autoptr(GBytes) initialized = NULL;
	JsonObject *info = NULL;
	const gchar *session_id = NULL;

	if (attempt->attempt != self->attempt)
		return;
	if (self->initialize_expired) {
		self->initialize_expired = FALSE;
		g_clear_error(&error);
		g_clear_pointer(&result, json_node_unref);
		error = g_error_new(ERPC_ERROR,
				    ERPC_ERROR_TIMED_OUT,
				    "%s did not answer within %u ms",
				    self->url,
				    self->initialize_timeout_ms);
	}
	if (result != NULL && !JSON_NODE_HOLDS_OBJECT(result))
		g_set_error_literal(&error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_PROTOCOL,
				    "initialize did not answer an object");
	if (error == NULL && (!erpc_json_require_string(json_node_get_object(result),
							"sessionId",
							&session_id,
							&error) ||
			      !erpc_json_get_object(json_node_get_object(result),
						    "environmentInfo",
						    &info,
						    &error))) {
		g_prefix_error(&error, "invalid initialize result: ");
		error->domain = ERPC_CLIENT_ERROR;
		error->code = ERPC_CLIENT_ERROR_PROTOCOL;
	}
	if (error != NULL) {
		g_prefix_error(&error, "initialize failed: ");
		erpc_client_attempt_failed(self, g_steal_pointer(&error));
		return;
	}
	_erpc_client_set_session(self, session_id, info);
	initialized = erpc_message_new_notification("initialized", NULL);
	erpc_connection_send(self->connection, initialized);
	erpc_client_attempt_succeeded(self);
}

/* the server accepted the transport but does not answer: fail the handshake */
static gboolean
erpc_client_initialize_deadline_cb(gpointer user_data)
{
	ErpcClient *self = ERPC_CLIENT(user_data);

	self->initialize_id = 0;
	self->initialize_expired = TRUE;
	g_object_ref(self);
	erpc_client_drop_connection(self, TRUE);
	/* fails initialize; its callback sees initialize_expired */
	_erpc_client_requeue(self, FALSE);
	g_object_unref(self);
	return G_SOURCE_REMOVE;
}

static void
erpc_client_attempt_transport(ErpcClient *self, ErpcTransport *transport)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) params = NULL;

	self->connection =
	    erpc_connection_new(transport, self->max_message_size, ERPC_JSON_MAX_DEPTH);
	self->message_id =
	    g_signal_connect(self->connection, "message", G_CALLBACK(erpc_client_message_cb), self);
	self->malformed_id = g_signal_connect(self->connection,
					      "malformed",
					      G_CALLBACK(erpc_client_malformed_cb),
					      self);
	self->closed_id = g_signal_connect(self->connection,
					   "closed",
					   G_CALLBACK(erpc_client_connection_closed_cb),
					   self);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "clientName");
	json_builder_add_string_value(builder, self->client_name);
	if (self->state == ERPC_CLIENT_STATE_RECOVERING && self->session_id != NULL) {
		json_builder_set_member_name(builder, "resumeSessionId");
		json_builder_add_string_value(builder, self->session_id);
	}
	json_builder_end_object(builder);
	params = json_builder_get_root(builder);
	self->initialize_expired = FALSE;
	g_clear_handle_id(&self->initialize_id, g_source_remove);
	if (self->initialize_timeout_ms > 0)
		self->initialize_id = erpc_client_add_timeout(self,
							      self->initialize_timeout_ms,
							      erpc_client_initialize_deadline_cb);
	_erpc_client_call_full(self,
			       "initialize",
			       params,
			       ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE,
			       NULL,
			       erpc_client_initialize_cb,
			       erpc_client_attempt_new(self));
}

static void
erpc_client_ws_ready_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(ErpcClientAttempt) attempt = user_data;
	ErpcClient *self = attempt->client;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcTransport) transport = _erpc_client_ws_connect_finish(res, &error);

	if (attempt->attempt != self->attempt) {
		if (transport != NULL)
			erpc_transport_close(transport, TRUE);
		return;
	}
	if (transport == NULL) {
		erpc_client_attempt_failed(self, g_steal_pointer(&error));
		return;
	}
	erpc_client_attempt_transport(self, transport);
}

/* closing a socket's streams leaves the socket open: close it with the transport */
static void
erpc_client_stream_closed_cb(ErpcTransport *transport, const GError *error, GIOStream *stream)
{
	g_io_stream_close(stream, NULL, NULL);
}

static ErpcTransport *
erpc_client_open_local(ErpcClient *self, GError **error)
{
	g_autoptr(GIOStream) stream = NULL;
	ErpcTransport *transport;

	if (self->kind == ERPC_CLIENT_KIND_COMMAND) {
		g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		    G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
		for (guint i = 0; self->envp != NULL && self->envp[i] != NULL; i++) {
			g_autofree gchar *name =
			    g_strndup(self->envp[i], strcspn(self->envp[i], "="));
			g_subprocess_launcher_setenv(launcher,
						     name,
						     self->envp[i] + strlen(name) + 1,
						     TRUE);
		}
		if (self->cwd != NULL)
			g_subprocess_launcher_set_cwd(launcher, self->cwd);
		g_clear_object(&self->subprocess);
		self->subprocess =
		    g_subprocess_launcher_spawnv(launcher, (const gchar *const *)self->argv, error);
		if (self->subprocess == NULL) {
			g_prefix_error(error, "failed to start %s: ", self->argv[0]);
			return NULL;
		}
		return ERPC_TRANSPORT(
		    erpc_line_transport_new(g_subprocess_get_stdout_pipe(self->subprocess),
					    g_subprocess_get_stdin_pipe(self->subprocess),
					    self->url,
					    self->max_message_size));
	}
	if (self->stream == NULL) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_DISCONNECTED,
				    "the stream of this client was already used");
		return NULL;
	}
	/* one connection per stream */
	stream = g_steal_pointer(&self->stream);
	transport = ERPC_TRANSPORT(erpc_line_transport_new(g_io_stream_get_input_stream(stream),
							   g_io_stream_get_output_stream(stream),
							   self->url,
							   self->max_message_size));
	g_signal_connect_data(transport,
			      "closed",
			      G_CALLBACK(erpc_client_stream_closed_cb),
			      g_object_ref(stream),
			      (GClosureNotify)(void (*)(void))g_object_unref,
			      0);
	return transport;
}

static void
erpc_client_attempt_start(ErpcClient *self)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcTransport) transport = NULL;

	self->attempt++;
	g_clear_object(&self->attempt_cancellable);
	self->attempt_cancellable = g_cancellable_new();
	if (self->kind == ERPC_CLIENT_KIND_URL) {
		_erpc_client_ws_connect_async(_erpc_client_ws_options_new(self),
					      self->attempt_cancellable,
					      erpc_client_ws_ready_cb,
					      erpc_client_attempt_new(self));
		return;
	}
	transport = erpc_client_open_local(self, &error);
	if (transport == NULL) {
		erpc_client_attempt_failed(self, g_steal_pointer(&error));
		return;
	}
	erpc_client_attempt_transport(self, transport);
}

static gboolean
erpc_client_recover_cb(gpointer user_data)
{
	ErpcClient *self = ERPC_CLIENT(user_data);
	self->retry_id = 0;
	erpc_client_attempt_start(self);
	return G_SOURCE_REMOVE;
}

static void
erpc_client_connection_closed_cb(ErpcConnection *connection, ErpcClient *self)
{
	if (connection != self->connection)
		return;
	g_object_ref(self);
	erpc_client_drop_connection(self, TRUE);
	g_debug("client %s: connection lost", self->url);

	_erpc_client_requeue(self, self->state == ERPC_CLIENT_STATE_READY);
	if (self->state != ERPC_CLIENT_STATE_READY) {
		g_object_unref(self);
		return;
	}
	if (self->kind == ERPC_CLIENT_KIND_URL && self->recovery_timeout_ms > 0 &&
	    self->session_id != NULL) {
		_erpc_client_set_state(self, ERPC_CLIENT_STATE_RECOVERING);
		self->retry_delay_ms = ERPC_CLIENT_RETRY_FIRST_MS;
		self->deadline_id = erpc_client_add_timeout(self,
							    self->recovery_timeout_ms,
							    erpc_client_deadline_cb);
		/* not from inside the transport's own signal */
		self->retry_id = erpc_client_add_timeout(self, 0, erpc_client_recover_cb);
	} else {
		erpc_client_give_up(self,
				    g_error_new(ERPC_CLIENT_ERROR,
						ERPC_CLIENT_ERROR_DISCONNECTED,
						"the connection to %s was closed",
						self->url));
	}
	g_object_unref(self);
}

static gboolean
erpc_client_check_url(ErpcClient *self, GError **error)
{
	gboolean secure = g_str_has_prefix(self->url, "wss://");

	if (!secure && !g_str_has_prefix(self->url, "ws://")) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "unsupported URL %s; expected ws://HOST:PORT or wss://HOST:PORT",
			    self->url);
		return FALSE;
	}
	if (!secure && (self->headers->len > 0 || self->bearer_token != NULL) &&
	    !_erpc_client_url_is_loopback(self->url)) {
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    ERPC_CLIENT_ERROR_INSECURE,
			    "refusing to send credentials or extra headers to %s without TLS; "
			    "use wss://",
			    self->url);
		return FALSE;
	}
	return TRUE;
}

static gboolean
erpc_client_connect_cancelled_idle_cb(gpointer user_data)
{
	ErpcClient *self = ERPC_CLIENT(user_data);
	if (self->state == ERPC_CLIENT_STATE_CONNECTING)
		erpc_client_give_up(self,
				    g_error_new_literal(G_IO_ERROR,
							G_IO_ERROR_CANCELLED,
							"connecting was cancelled"));
	return G_SOURCE_REMOVE;
}

static void
erpc_client_connect_cancelled_cb(GCancellable *cancellable, ErpcClient *self)
{
	g_autoptr(GSource) source = g_idle_source_new();
	g_source_set_callback(source,
			      erpc_client_connect_cancelled_idle_cb,
			      g_object_ref(self),
			      g_object_unref);
	g_source_attach(source, self->context);
}

/**
 * erpc_client_connect_async:
 * @self: a #ErpcClient
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once the client is ready, or could not connect
 * @user_data: data for @callback
 *
 * Connects and runs the handshake (`initialize`, then `initialized`). A
 * disconnected client may connect again; it then starts a new session.
 *
 * Since: 0.1
 */
void
erpc_client_connect_async(ErpcClient *self,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);
	g_autoptr(GError) error = NULL;

	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_task_set_source_tag(task, erpc_client_connect_async);
	if (self->state != ERPC_CLIENT_STATE_DISCONNECTED) {
		g_task_return_new_error(task,
					G_IO_ERROR,
					G_IO_ERROR_PENDING,
					"the client is already connected");
		return;
	}
	if (self->kind == ERPC_CLIENT_KIND_URL && !erpc_client_check_url(self, &error)) {
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	/* cancelled already: nothing is started, the client stays as it was */
	if (g_cancellable_set_error_if_cancelled(cancellable, &error)) {
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	/* what the attempt ended with, even when a cancellation came too late */
	g_task_set_check_cancellable(task, FALSE);
	_erpc_client_set_session(self, NULL, NULL);
	self->connect_started = g_get_monotonic_time();
	self->connect_observed = self->observe_next_connect;
	self->observe_next_connect = TRUE;
	self->established = FALSE;
	self->connect_task = g_steal_pointer(&task);
	if (cancellable != NULL)
		self->connect_cancelled_id =
		    g_cancellable_connect(cancellable,
					  G_CALLBACK(erpc_client_connect_cancelled_cb),
					  g_object_ref(self),
					  g_object_unref);
	_erpc_client_set_state(self, ERPC_CLIENT_STATE_CONNECTING);
	erpc_client_attempt_start(self);
}

/**
 * erpc_client_connect_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_connect_async().
 *
 * Returns: %TRUE if the client is ready
 *
 * Since: 0.1
 */
gboolean
erpc_client_connect_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), FALSE);
	g_return_val_if_fail(g_task_is_valid(result, self), FALSE);
	return g_task_propagate_boolean(G_TASK(result), error);
}

/**
 * erpc_client_close:
 * @self: a #ErpcClient
 *
 * Closes the connection (a spawned server exits when its stdin closes) and
 * fails every waiting request with %ERPC_CLIENT_ERROR_DISCONNECTED. The
 * server keeps the session for a while, as after a lost connection.
 *
 * Since: 0.1
 */
void
erpc_client_close(ErpcClient *self)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	if (self->state == ERPC_CLIENT_STATE_DISCONNECTED && self->connection == NULL &&
	    g_queue_is_empty(&self->order))
		return;
	erpc_client_stop_attempts(self);
	erpc_client_drop_connection(self, FALSE);
	self->quiet_disconnect = TRUE;
	erpc_client_give_up(self,
			    g_error_new(ERPC_CLIENT_ERROR,
					ERPC_CLIENT_ERROR_DISCONNECTED,
					"the connection to %s was closed",
					self->url));
	self->quiet_disconnect = FALSE;
}

static void
erpc_client_refresh_status_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	GError *error = NULL;
	g_autofree gchar *status = erpc_client_get_status_finish(ERPC_CLIENT(source), res, &error);

	if (status == NULL) {
		g_task_return_error(task, error);
		return;
	}
	g_task_return_boolean(task, TRUE);
}

static void
erpc_client_refresh_connect_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	ErpcClient *self = ERPC_CLIENT(source);
	GCancellable *cancellable;
	GError *error = NULL;

	if (!erpc_client_connect_finish(self, res, &error)) {
		g_task_return_error(task, error);
		return;
	}
	/* a live answer, not the handshake's cached info */
	cancellable = g_task_get_cancellable(task);
	erpc_client_get_status_async(self,
				     cancellable,
				     erpc_client_refresh_status_cb,
				     g_steal_pointer(&task));
}

/**
 * erpc_client_refresh_async:
 * @self: a #ErpcClient
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once the new session answered `environment/status`
 * @user_data: data for @callback
 *
 * Starts over with a new session, as Codex's explicit refresh after a
 * planned replacement of the executor: the current connection (or the
 * recovery under way) is dropped without waiting for it to give up,
 * requests still waiting fail with %ERPC_CLIENT_ERROR_DISCONNECTED, a new
 * connection is made and probed with `environment/status`. Neither
 * #ErpcClient::disconnected nor #ErpcClient::connection-attempt is
 * emitted for it; #ErpcClient::ready is. A client made for a stream
 * cannot refresh.
 *
 * Since: 0.2
 */
void
erpc_client_refresh_async(ErpcClient *self,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);

	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_task_set_source_tag(task, erpc_client_refresh_async);
	if (self->kind == ERPC_CLIENT_KIND_STREAM) {
		g_task_return_new_error(task,
					G_IO_ERROR,
					G_IO_ERROR_NOT_SUPPORTED,
					"a client of a stream cannot connect again");
		return;
	}
	if (self->state != ERPC_CLIENT_STATE_DISCONNECTED || self->connection != NULL) {
		erpc_client_stop_attempts(self);
		erpc_client_drop_connection(self, FALSE);
		self->quiet_disconnect = TRUE;
		erpc_client_give_up(self,
				    g_error_new(ERPC_CLIENT_ERROR,
						ERPC_CLIENT_ERROR_DISCONNECTED,
						"the session with %s was refreshed",
						self->url));
		self->quiet_disconnect = FALSE;
	}
	self->observe_next_connect = FALSE;
	erpc_client_connect_async(self,
				  cancellable,
				  erpc_client_refresh_connect_cb,
				  g_steal_pointer(&task));
}

/**
 * erpc_client_refresh_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_refresh_async().
 *
 * Returns: %TRUE if the new session is ready and answered
 *
 * Since: 0.2
 */
gboolean
erpc_client_refresh_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), FALSE);
	g_return_val_if_fail(g_task_is_valid(result, self), FALSE);
	return g_task_propagate_boolean(G_TASK(result), error);
}
