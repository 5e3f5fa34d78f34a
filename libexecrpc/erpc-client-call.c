/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-client-state.h"
#include "erpc-error.h"
#include "erpc-json.h"

/*
 * Requests of ErpcClient: each waits in id order until the connection is
 * ready, is sent, and completes when its answer (or the end of every
 * chance of one) arrives.
 */

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
void
_erpc_client_flush(ErpcClient *self)
{
	for (GList *l = self->order.head; l != NULL; l = l->next) {
		ErpcClientPending *pending = l->data;
		if (self->connection == NULL || self->state != ERPC_CLIENT_STATE_READY)
			return;
		if (!pending->sent)
			erpc_client_pending_send(self, pending);
	}
}

void
_erpc_client_fail_all(ErpcClient *self, const GError *error)
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

void
_erpc_client_handle_answer(ErpcClient *self, ErpcMessage *message)
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

/* after a lost connection: requests that may be repeated wait for the next
 * one (when @keep), the others fail as they may or may not have run */
void
_erpc_client_requeue(ErpcClient *self, gboolean keep)
{
	g_autoptr(GArray) failed = g_array_new(FALSE, FALSE, sizeof(gint64));
	const guint retry = ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT | ERPC_CLIENT_CALL_INTERNAL_START;

	for (GList *l = self->order.head; l != NULL; l = l->next) {
		ErpcClientPending *pending = l->data;
		if (!pending->sent)
			continue;
		pending->sent = FALSE;
		if ((pending->flags & ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE) != 0 ||
		    (pending->flags & retry) == 0 || !keep)
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
 * Finishes erpc_client_call_async(): the answer of the request.
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

/**
 * erpc_client_get_info_async:
 * @self: a #ErpcClient
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the answer arrived
 * @user_data: data for @callback
 *
 * Sends `environment/info`.
 *
 * Since: 0.1
 */
void
erpc_client_get_info_async(ErpcClient *self,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data)
{
	erpc_client_call_async(self,
			       "environment/info",
			       NULL,
			       ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			       cancellable,
			       callback,
			       user_data);
}

/**
 * erpc_client_get_info_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_get_info_async().
 *
 * Returns: (transfer full): the `EnvironmentInfo` object, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_get_info_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = erpc_client_call_finish(self, result, error);

	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_PROTOCOL,
				    "environment/info did not answer an object");
		return NULL;
	}
	return json_object_ref(json_node_get_object(node));
}

/**
 * erpc_client_get_status_async:
 * @self: a #ErpcClient
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the answer arrived
 * @user_data: data for @callback
 *
 * Sends `environment/status`, a liveness check.
 *
 * Since: 0.1
 */
void
erpc_client_get_status_async(ErpcClient *self,
			     GCancellable *cancellable,
			     GAsyncReadyCallback callback,
			     gpointer user_data)
{
	erpc_client_call_async(self,
			       "environment/status",
			       NULL,
			       ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			       cancellable,
			       callback,
			       user_data);
}

/**
 * erpc_client_get_status_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_get_status_async().
 *
 * Returns: (transfer full): the status, `ready`, or %NULL
 *
 * Since: 0.1
 */
gchar *
erpc_client_get_status_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = erpc_client_call_finish(self, result, error);
	const gchar *status = NULL;

	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node) ||
	    !erpc_json_require_string(json_node_get_object(node), "status", &status, error)) {
		if (error != NULL && *error == NULL)
			g_set_error_literal(error,
					    ERPC_CLIENT_ERROR,
					    ERPC_CLIENT_ERROR_PROTOCOL,
					    "environment/status did not answer an object");
		return NULL;
	}
	return g_strdup(status);
}
