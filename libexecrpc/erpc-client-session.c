/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "erpc-client-state.h"
#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-line-transport.h"
#include "erpc-uri.h"

/*
 * The connection side of ErpcClient: connection attempts and the handshake,
 * requests in flight and their answers, and recovery after a lost transport.
 */

/* sent while the handshake runs, never repeated */
#define ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE (1u << 9)

typedef struct {
	gint64 id;
	gchar *method;
	GBytes *message;
	guint flags;
	gboolean sent;
	guint sends;
	GTask *task;
	GCancellable *cancellable;
	gulong cancelled_id;
} ErpcClientPending;

/* ties a callback to the connection attempt that started it */
typedef struct {
	ErpcClient *client;
	guint attempt;
} ErpcClientAttempt;

static void
erpc_client_attempt_start(ErpcClient *self);

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
erpc_client_pending_free(ErpcClientPending *pending)
{
	if (pending->cancelled_id != 0)
		g_cancellable_disconnect(pending->cancellable, pending->cancelled_id);
	g_clear_object(&pending->cancellable);
	g_clear_object(&pending->task);
	g_bytes_unref(pending->message);
	g_free(pending->method);
	g_free(pending);
}

/* completes a request; @result and @error are taken */
static void
erpc_client_pending_return(ErpcClient *self,
			   ErpcClientPending *pending,
			   JsonNode *result,
			   GError *error)
{
	g_autoptr(GTask) task = g_steal_pointer(&pending->task);

	g_hash_table_remove(self->pending, &pending->id);
	g_queue_remove(&self->order, pending);
	erpc_client_pending_free(pending);
	if (error != NULL)
		g_task_return_error(task, error);
	else
		g_task_return_pointer(task, result, (GDestroyNotify)json_node_unref);
}

static void
erpc_client_pending_send(ErpcClient *self, ErpcClientPending *pending)
{
	pending->sent = TRUE;
	pending->sends++;
	g_debug("client %s: request %" G_GINT64_FORMAT " %s%s",
		self->url,
		pending->id,
		pending->method,
		pending->sends > 1 ? " (again)" : "");
	erpc_connection_send(self->connection, pending->message);
}

/* sends what waited for the connection, oldest first */
static void
erpc_client_flush(ErpcClient *self)
{
	for (GList *l = self->order.head; l != NULL; l = l->next) {
		ErpcClientPending *pending = l->data;
		if (self->connection == NULL || self->state != ERPC_CLIENT_STATE_READY)
			return;
		if (!pending->sent)
			erpc_client_pending_send(self, pending);
	}
}

static void
erpc_client_fail_all(ErpcClient *self, const GError *error)
{
	ErpcClientPending *pending;
	while ((pending = g_queue_peek_head(&self->order)) != NULL)
		erpc_client_pending_return(self, pending, NULL, g_error_copy(error));
}

typedef struct {
	ErpcClient *client;
	gint64 id;
} ErpcClientCancel;

static void
erpc_client_cancel_free(ErpcClientCancel *cancel)
{
	g_object_unref(cancel->client);
	g_free(cancel);
}

static gboolean
erpc_client_cancel_idle_cb(gpointer user_data)
{
	ErpcClientCancel *cancel = user_data;
	ErpcClientPending *pending = g_hash_table_lookup(cancel->client->pending, &cancel->id);

	if (pending != NULL && (pending->flags & ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE) == 0)
		erpc_client_pending_return(cancel->client,
					   pending,
					   NULL,
					   g_error_new_literal(G_IO_ERROR,
							       G_IO_ERROR_CANCELLED,
							       "the request was cancelled"));
	return G_SOURCE_REMOVE;
}

/* may run in any thread, and inside g_cancellable_connect(): defer */
static void
erpc_client_cancelled_cb(GCancellable *cancellable, ErpcClientCancel *cancel)
{
	ErpcClientCancel *copy = g_new0(ErpcClientCancel, 1);
	g_autoptr(GSource) source = g_idle_source_new();

	copy->client = g_object_ref(cancel->client);
	copy->id = cancel->id;
	g_source_set_callback(source,
			      erpc_client_cancel_idle_cb,
			      copy,
			      (GDestroyNotify)erpc_client_cancel_free);
	g_source_attach(source, copy->client->context);
}

static GError *
erpc_client_error_from_answer(ErpcMessage *message)
{
	const gchar *text = erpc_message_get_error_message(message);
	JsonNode *data = erpc_message_get_error_data(message);
	ErpcError code = erpc_error_from_wire_code((gint)erpc_message_get_error_code(message));

	/* process/start says what went wrong in data.kind; keep that in the code */
	if (data != NULL && JSON_NODE_HOLDS_OBJECT(data)) {
		const gchar *kind = NULL;
		if (erpc_json_get_string(json_node_get_object(data), "kind", NULL, &kind, NULL) &&
		    kind != NULL) {
			if (g_strcmp0(kind, "spawnNotFound") == 0)
				code = ERPC_ERROR_NOT_FOUND;
			else if (g_strcmp0(kind, "spawnPermissionDenied") == 0)
				code = ERPC_ERROR_PERMISSION_DENIED;
			else if (g_strcmp0(kind, "sandboxUnavailable") == 0)
				code = ERPC_ERROR_NOT_SUPPORTED;
		}
	}
	return g_error_new_literal(ERPC_ERROR,
				   code,
				   text != NULL ? text
						: "the server answered an error without a message");
}

static void
erpc_client_handle_answer(ErpcClient *self, ErpcMessage *message)
{
	JsonNode *id = erpc_message_get_id(message);
	ErpcClientPending *pending;
	GError *error = NULL;
	gint64 key;

	if (id == NULL || json_node_get_value_type(id) != G_TYPE_INT64) {
		g_debug("client %s: answer without a request id of ours", self->url);
		return;
	}
	key = json_node_get_int(id);
	pending = g_hash_table_lookup(self->pending, &key);
	if (pending == NULL || !pending->sent) {
		g_debug("client %s: late answer to request %" G_GINT64_FORMAT, self->url, key);
		return;
	}
	if (erpc_message_get_kind(message) == ERPC_MESSAGE_KIND_RESPONSE) {
		JsonNode *result = erpc_message_get_result(message);
		erpc_client_pending_return(self,
					   pending,
					   result != NULL ? json_node_copy(result)
							  : json_node_new(JSON_NODE_NULL),
					   NULL);
		return;
	}
	error = erpc_client_error_from_answer(message);
	/* the first process/start was carried out before its answer was lost */
	if ((pending->flags & ERPC_CLIENT_CALL_INTERNAL_START) != 0 && pending->sends > 1 &&
	    g_error_matches(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST) &&
	    strstr(error->message, "already exists") != NULL) {
		JsonNode *result = json_node_new(JSON_NODE_OBJECT);
		json_node_take_object(result, json_object_new());
		g_clear_error(&error);
		erpc_client_pending_return(self, pending, result, NULL);
		return;
	}
	erpc_client_pending_return(self, pending, NULL, error);
}

static void
erpc_client_message_cb(ErpcConnection *connection, ErpcMessage *message, ErpcClient *self)
{
	g_autoptr(GBytes) reply = NULL;
	g_autofree gchar *text = NULL;

	switch (erpc_message_get_kind(message)) {
	case ERPC_MESSAGE_KIND_RESPONSE:
	case ERPC_MESSAGE_KIND_ERROR:
		erpc_client_handle_answer(self, message);
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
}

/* no recovery is possible any more; @error is taken */
static void
erpc_client_give_up(ErpcClient *self, GError *error)
{
	g_autoptr(GError) reason = error;
	g_autoptr(GTask) connect_task = g_steal_pointer(&self->connect_task);

	g_object_ref(self);
	erpc_client_stop_attempts(self);
	erpc_client_drop_connection(self, TRUE);
	g_debug("client %s: disconnected: %s", self->url, reason->message);
	_erpc_client_set_state(self, ERPC_CLIENT_STATE_DISCONNECTED);
	erpc_client_fail_all(self, reason);
	if (connect_task != NULL)
		g_task_return_error(connect_task, g_error_copy(reason));
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
	g_autoptr(GTask) connect_task = g_steal_pointer(&self->connect_task);
	gboolean recovered = self->state == ERPC_CLIENT_STATE_RECOVERING;

	g_clear_object(&self->attempt_cancellable);
	g_clear_handle_id(&self->retry_id, g_source_remove);
	g_clear_handle_id(&self->deadline_id, g_source_remove);
	_erpc_client_set_state(self, ERPC_CLIENT_STATE_READY);
	erpc_client_flush(self);
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

static ErpcTransport *
erpc_client_open_local(ErpcClient *self, GError **error)
{
	GInputStream *input;
	GOutputStream *output;

	if (self->kind == ERPC_CLIENT_KIND_COMMAND) {
		g_clear_object(&self->subprocess);
		self->subprocess = g_subprocess_newv((const gchar *const *)self->argv,
						     G_SUBPROCESS_FLAGS_STDIN_PIPE |
							 G_SUBPROCESS_FLAGS_STDOUT_PIPE,
						     error);
		if (self->subprocess == NULL) {
			g_prefix_error(error, "failed to start %s: ", self->argv[0]);
			return NULL;
		}
		input = g_subprocess_get_stdout_pipe(self->subprocess);
		output = g_subprocess_get_stdin_pipe(self->subprocess);
	} else {
		if (self->stream == NULL) {
			g_set_error_literal(error,
					    ERPC_CLIENT_ERROR,
					    ERPC_CLIENT_ERROR_DISCONNECTED,
					    "the stream of this client was already used");
			return NULL;
		}
		input = g_io_stream_get_input_stream(self->stream);
		output = g_io_stream_get_output_stream(self->stream);
		/* the line transport keeps both streams; one connection per stream */
		g_object_set_data_full(G_OBJECT(input),
				       "erpc-client-stream",
				       g_steal_pointer(&self->stream),
				       g_object_unref);
	}
	return ERPC_TRANSPORT(
	    erpc_line_transport_new(input, output, self->url, self->max_message_size));
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
	g_autoptr(GArray) failed = g_array_new(FALSE, FALSE, sizeof(gint64));

	if (connection != self->connection)
		return;
	g_object_ref(self);
	erpc_client_drop_connection(self, TRUE);
	g_debug("client %s: connection lost", self->url);

	/* requests in flight: those that may be repeated wait, the others fail */
	for (GList *l = self->order.head; l != NULL; l = l->next) {
		ErpcClientPending *pending = l->data;
		const guint retry =
		    ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT | ERPC_CLIENT_CALL_INTERNAL_START;
		if (!pending->sent)
			continue;
		pending->sent = FALSE;
		if ((pending->flags & ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE) != 0 ||
		    (pending->flags & retry) == 0 || self->state != ERPC_CLIENT_STATE_READY)
			g_array_append_val(failed, pending->id);
	}
	for (guint i = 0; i < failed->len; i++) {
		gint64 id = g_array_index(failed, gint64, i);
		ErpcClientPending *pending = g_hash_table_lookup(self->pending, &id);
		if (pending == NULL)
			continue;
		erpc_client_pending_return(self,
					   pending,
					   NULL,
					   g_error_new(ERPC_CLIENT_ERROR,
						       ERPC_CLIENT_ERROR_CONNECTION_LOST,
						       "the connection to %s was lost during %s",
						       self->url,
						       pending->method));
	}
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

void
_erpc_client_call_full(ErpcClient *self,
		       const gchar *method,
		       JsonNode *params,
		       guint flags,
		       GCancellable *cancellable,
		       GAsyncReadyCallback callback,
		       gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);
	g_autoptr(JsonNode) id = NULL;
	ErpcClientPending *pending;

	g_task_set_source_tag(task, erpc_client_call_async);
	if (self->state == ERPC_CLIENT_STATE_DISCONNECTED) {
		g_task_return_new_error(task,
					ERPC_CLIENT_ERROR,
					ERPC_CLIENT_ERROR_DISCONNECTED,
					"not connected to %s",
					self->url);
		return;
	}
	pending = g_new0(ErpcClientPending, 1);
	pending->id = self->next_id++;
	pending->method = g_strdup(method);
	pending->flags = flags;
	id = erpc_id_new_int(pending->id);
	pending->message = erpc_message_new_request(id, method, params);
	pending->task = g_steal_pointer(&task);
	g_hash_table_insert(self->pending, &pending->id, pending);
	g_queue_push_tail(&self->order, pending);
	if (cancellable != NULL) {
		ErpcClientCancel cancel = {self, pending->id};
		pending->cancellable = g_object_ref(cancellable);
		pending->cancelled_id = g_cancellable_connect(cancellable,
							      G_CALLBACK(erpc_client_cancelled_cb),
							      g_memdup2(&cancel, sizeof(cancel)),
							      g_free);
	}
	if (self->connection != NULL && (self->state == ERPC_CLIENT_STATE_READY ||
					 (flags & ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE) != 0))
		erpc_client_pending_send(self, pending);
}

/**
 * erpc_client_call_async:
 * @self: a #ErpcClient
 * @method: the request method, e.g. `http/request`
 * @params: (nullable): its params
 * @flags: #ErpcClientCallFlags
 * @cancellable: (nullable): a #GCancellable; cancelling stops waiting for
 *   the answer, the protocol has no way to cancel the request itself
 * @callback: called when the answer arrived
 * @user_data: data for @callback
 *
 * Sends any request. Requests made while the client connects or recovers
 * wait until it is ready.
 *
 * Since: 0.1
 */
void
erpc_client_call_async(ErpcClient *self,
		       const gchar *method,
		       JsonNode *params,
		       ErpcClientCallFlags flags,
		       GCancellable *cancellable,
		       GAsyncReadyCallback callback,
		       gpointer user_data)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_return_if_fail(method != NULL);
	_erpc_client_call_full(self,
			       method,
			       params,
			       flags & ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			       cancellable,
			       callback,
			       user_data);
}

/**
 * erpc_client_call_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the `result` member, or %NULL with @error set:
 *   %ERPC_ERROR for an error the server answered, %ERPC_CLIENT_ERROR or
 *   %ERPC_ERROR_TIMED_OUT when the answer was lost
 *
 * Since: 0.1
 */
JsonNode *
erpc_client_call_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), NULL);
	g_return_val_if_fail(g_task_is_valid(result, self), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
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
	_erpc_client_set_session(self, NULL, NULL);
	self->connect_task = g_steal_pointer(&task);
	if (cancellable != NULL)
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
	erpc_client_give_up(self,
			    g_error_new(ERPC_CLIENT_ERROR,
					ERPC_CLIENT_ERROR_DISCONNECTED,
					"the connection to %s was closed",
					self->url));
}
