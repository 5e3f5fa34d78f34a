/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-session-private.h"

/* what the client could be asked at once; past it a plugin gets an error */
#define ERPC_SESSION_MAX_PENDING 4096

typedef struct {
	gchar *id;
	ErpcConnection *connection; /* weak */
	GHashTable *pending;	    /* request id (gint64 *) → ErpcSessionPending */
	gint64 next_id;
	ErpcSessionNotifyObserver observer;
} ErpcSessionPrivate;

/* one request to the client, until it is answered, times out or is cancelled */
typedef struct {
	gint64 id;
	GTask *task;
	GSource *timeout;
	GSource *cancel;
} ErpcSessionPending;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(ErpcSession, erpc_session, G_TYPE_OBJECT)
/**
 * erpc_session_error_quark:
 *
 * The domain of the errors of server-to-client requests, %ERPC_SESSION_ERROR.
 *
 * Returns: the quark of `erpc-session-error-quark`
 *
 * Since: 0.2
 */
GQuark
erpc_session_error_quark(void)
{
	/* written out: clang-format would space the dashes of G_DEFINE_QUARK() */
	return g_quark_from_static_string("erpc-session-error-quark");
}

#define GET_PRIVATE(o) ((ErpcSessionPrivate *)erpc_session_get_instance_private(o))

static void
erpc_session_pending_free(ErpcSessionPending *pending)
{
	if (pending->timeout != NULL) {
		g_source_destroy(pending->timeout);
		g_source_unref(pending->timeout);
	}
	if (pending->cancel != NULL) {
		g_source_destroy(pending->cancel);
		g_source_unref(pending->cancel);
	}
	g_clear_object(&pending->task);
	g_free(pending);
}

/* takes the request out of the table and fails it */
static void
erpc_session_pending_fail(ErpcSession *self, gint64 id, GError *error)
{
	ErpcSessionPrivate *priv = GET_PRIVATE(self);
	g_autoptr(GTask) task = NULL;
	ErpcSessionPending *pending = g_hash_table_lookup(priv->pending, &id);

	if (pending == NULL) {
		g_error_free(error);
		return;
	}
	task = g_steal_pointer(&pending->task);
	g_hash_table_remove(priv->pending, &id);
	g_task_return_error(task, error);
}

/**
 * erpc_session_get_id:
 * @self: a #ErpcSession
 *
 * The id of the session, as `initialize` returned it.
 *
 * Returns: the `sessionId` the client resumes the session with
 *
 * Since: 0.2
 */
const gchar *
erpc_session_get_id(ErpcSession *self)
{
	g_return_val_if_fail(ERPC_IS_SESSION(self), NULL);
	return GET_PRIVATE(self)->id;
}

/**
 * erpc_session_is_attached:
 * @self: a #ErpcSession
 *
 * Whether a connection is attached to the session.
 *
 * Returns: %TRUE while a connection is attached, so that requests and
 *   notifications can reach the client
 *
 * Since: 0.2
 */
gboolean
erpc_session_is_attached(ErpcSession *self)
{
	ErpcSessionPrivate *priv;

	g_return_val_if_fail(ERPC_IS_SESSION(self), FALSE);
	priv = GET_PRIVATE(self);
	return priv->connection != NULL && !erpc_connection_is_closed(priv->connection);
}

/**
 * erpc_session_get_connection:
 * @self: a #ErpcSession
 *
 * Returns: (transfer none) (nullable): the attached connection
 */
ErpcConnection *
erpc_session_get_connection(ErpcSession *self)
{
	g_return_val_if_fail(ERPC_IS_SESSION(self), NULL);
	return GET_PRIVATE(self)->connection;
}

static void
erpc_session_fail_all(ErpcSession *self, const gchar *reason)
{
	ErpcSessionPrivate *priv = GET_PRIVATE(self);
	g_autoptr(GList) ids = g_hash_table_get_keys(priv->pending);
	g_autoptr(GArray) copy = g_array_new(FALSE, FALSE, sizeof(gint64));

	/* the keys belong to the entries we remove */
	for (GList *l = ids; l != NULL; l = l->next)
		g_array_append_val(copy, *(gint64 *)l->data);
	for (guint i = 0; i < copy->len; i++)
		erpc_session_pending_fail(
		    self,
		    g_array_index(copy, gint64, i),
		    g_error_new_literal(ERPC_SESSION_ERROR, ERPC_SESSION_ERROR_CLOSED, reason));
}

/**
 * erpc_session_set_connection:
 * @self: a #ErpcSession
 * @connection: (nullable): the connection that attached, %NULL when detached
 *
 * Requests still waiting for the previous connection fail: an answer can
 * only come on the connection that was asked.
 */
void
erpc_session_set_connection(ErpcSession *self, ErpcConnection *connection)
{
	ErpcSessionPrivate *priv;

	g_return_if_fail(ERPC_IS_SESSION(self));
	priv = GET_PRIVATE(self);
	if (priv->connection == connection)
		return;
	if (priv->connection != NULL) {
		g_object_remove_weak_pointer(G_OBJECT(priv->connection),
					     (gpointer *)&priv->connection);
		priv->connection = NULL;
		erpc_session_fail_all(self, "the connection of the session went away");
	}
	if (connection != NULL) {
		priv->connection = connection;
		g_object_add_weak_pointer(G_OBJECT(connection), (gpointer *)&priv->connection);
	}
}

static gboolean
erpc_session_timeout_cb(gpointer user_data)
{
	GTask *task = G_TASK(user_data);
	ErpcSession *self = g_task_get_source_object(task);
	gint64 id = GPOINTER_TO_SIZE(g_task_get_task_data(task));

	erpc_session_pending_fail(self,
				  id,
				  g_error_new(ERPC_SESSION_ERROR,
					      ERPC_SESSION_ERROR_TIMED_OUT,
					      "the client did not answer %s in time",
					      g_task_get_name(task)));
	return G_SOURCE_REMOVE;
}

static gboolean
erpc_session_cancelled_cb(GCancellable *cancellable, gpointer user_data)
{
	GTask *task = G_TASK(user_data);
	ErpcSession *self = g_task_get_source_object(task);
	gint64 id = GPOINTER_TO_SIZE(g_task_get_task_data(task));

	erpc_session_pending_fail(
	    self,
	    id,
	    g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CANCELLED, "the request was cancelled"));
	return G_SOURCE_REMOVE;
}

/**
 * erpc_session_request_async:
 * @self: a #ErpcSession
 * @method: the method the client is asked, e.g. `network/policyRequest`
 * @params: (nullable): its params, copied
 * @timeout_ms: how long the client has to answer, at least 1 ms
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the answer or an error
 * @user_data: for @callback
 *
 * Sends a request to the client of the session. It fails with
 * %ERPC_SESSION_ERROR_DETACHED when no connection is attached, with
 * %ERPC_SESSION_ERROR_CLOSED when the connection goes before the answer,
 * with %ERPC_SESSION_ERROR_TIMED_OUT after @timeout_ms, with
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and with
 * %ERPC_SESSION_ERROR_REMOTE when the client answers with an error. An
 * answer that comes after any of these is dropped. The result is the
 * client's `result` as sent: check its shape before using it.
 *
 * Since: 0.2
 */
void
erpc_session_request_async(ErpcSession *self,
			   const gchar *method,
			   JsonNode *params,
			   guint timeout_ms,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data)
{
	ErpcSessionPrivate *priv;
	g_autoptr(GTask) task = NULL;
	g_autoptr(JsonNode) id_node = NULL;
	g_autoptr(GBytes) message = NULL;
	ErpcSessionPending *pending;

	g_return_if_fail(ERPC_IS_SESSION(self));
	g_return_if_fail(method != NULL);
	g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
	priv = GET_PRIVATE(self);

	task = g_task_new(self, cancellable, callback, user_data);
	g_task_set_source_tag(task, erpc_session_request_async);
	g_task_set_name(task, method);
	if (g_task_return_error_if_cancelled(task))
		return;
	if (!erpc_session_is_attached(self)) {
		g_task_return_new_error(task,
					ERPC_SESSION_ERROR,
					ERPC_SESSION_ERROR_DETACHED,
					"session %s has no connection to send %s on",
					priv->id,
					method);
		return;
	}
	if (g_hash_table_size(priv->pending) >= ERPC_SESSION_MAX_PENDING) {
		g_task_return_new_error(task,
					ERPC_ERROR,
					ERPC_ERROR_BUSY,
					"too many requests wait for the client (limit %u)",
					ERPC_SESSION_MAX_PENDING);
		return;
	}

	pending = g_new0(ErpcSessionPending, 1);
	pending->id = priv->next_id++;
	pending->task = g_object_ref(task);
	g_task_set_task_data(task, GSIZE_TO_POINTER(pending->id), NULL);
	pending->timeout = g_timeout_source_new(MAX(timeout_ms, 1));
	g_source_set_callback(pending->timeout, erpc_session_timeout_cb, task, NULL);
	g_source_attach(pending->timeout, g_task_get_context(task));
	if (cancellable != NULL) {
		pending->cancel = g_cancellable_source_new(cancellable);
		g_source_set_callback(pending->cancel,
				      G_SOURCE_FUNC(erpc_session_cancelled_cb),
				      task,
				      NULL);
		g_source_attach(pending->cancel, g_task_get_context(task));
	}
	g_hash_table_insert(priv->pending, &pending->id, pending);

	id_node = erpc_id_new_int(pending->id);
	message = erpc_message_new_request(id_node, method, params);
	g_debug("session %s: asking the client %s (id %" G_GINT64_FORMAT ")",
		priv->id,
		method,
		pending->id);
	erpc_connection_send(priv->connection, message);
}

/**
 * erpc_session_request_finish:
 * @self: a #ErpcSession
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_session_request_async().
 *
 * Returns: (transfer full): the client's `result`, or %NULL with @error set
 *
 * Since: 0.2
 */
JsonNode *
erpc_session_request_finish(ErpcSession *self, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(ERPC_IS_SESSION(self), NULL);
	g_return_val_if_fail(g_task_is_valid(result, self), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

/**
 * erpc_session_handle_response:
 * @self: a #ErpcSession
 * @message: a response or error response from the client
 *
 * Completes the request @message answers. An answer to a request that no
 * longer waits is dropped.
 *
 * Returns: %FALSE if the session never issued the id of @message
 */
gboolean
erpc_session_handle_response(ErpcSession *self, ErpcMessage *message)
{
	ErpcSessionPrivate *priv;
	g_autoptr(GTask) task = NULL;
	JsonNode *id_node;
	ErpcSessionPending *pending;
	gint64 id;

	g_return_val_if_fail(ERPC_IS_SESSION(self), FALSE);
	priv = GET_PRIVATE(self);
	id_node = erpc_message_get_id(message);
	if (id_node == NULL || !JSON_NODE_HOLDS_VALUE(id_node) ||
	    json_node_get_value_type(id_node) != G_TYPE_INT64)
		return FALSE;
	id = json_node_get_int(id_node);
	if (id < 1 || id >= priv->next_id)
		return FALSE;
	pending = g_hash_table_lookup(priv->pending, &id);
	if (pending == NULL) {
		g_debug("session %s: dropping a late answer to request %" G_GINT64_FORMAT,
			priv->id,
			id);
		return TRUE;
	}
	task = g_steal_pointer(&pending->task);
	g_hash_table_remove(priv->pending, &id);
	if (erpc_message_get_kind(message) == ERPC_MESSAGE_KIND_ERROR) {
		g_task_return_new_error(task,
					ERPC_SESSION_ERROR,
					ERPC_SESSION_ERROR_REMOTE,
					"the client refused %s: %" G_GINT64_FORMAT " %s",
					g_task_get_name(task),
					erpc_message_get_error_code(message),
					erpc_message_get_error_message(message));
		return TRUE;
	}
	g_task_return_pointer(task,
			      json_node_copy(erpc_message_get_result(message)),
			      (GDestroyNotify)json_node_unref);
	return TRUE;
}

/**
 * erpc_session_notify:
 * @self: a #ErpcSession
 * @method: the notification method
 * @params: (nullable): its params, copied
 *
 * Sends a notification to the client. While the session is detached it is
 * dropped, as the session's process events are: the client catches up with
 * requests of its own after a resume.
 *
 * Returns: %TRUE if it was queued on the attached connection
 *
 * Since: 0.2
 */
gboolean
erpc_session_notify(ErpcSession *self, const gchar *method, JsonNode *params)
{
	ErpcSessionPrivate *priv;

	g_return_val_if_fail(ERPC_IS_SESSION(self), FALSE);
	g_return_val_if_fail(method != NULL, FALSE);
	priv = GET_PRIVATE(self);
	/* the daemon sees every notification, also those a detached session drops */
	if (priv->observer != NULL)
		priv->observer(self, method, params);
	if (!erpc_session_is_attached(self)) {
		g_debug("session %s: detached, dropping %s", priv->id, method);
		return FALSE;
	}
	erpc_connection_notify(priv->connection, method, params);
	return TRUE;
}

/* for the daemon: called with every notification a plugin sends */
void
erpc_session_set_notify_observer(ErpcSession *self, ErpcSessionNotifyObserver observer)
{
	g_return_if_fail(ERPC_IS_SESSION(self));
	GET_PRIVATE(self)->observer = observer;
}

static void
erpc_session_dispose(GObject *object)
{
	ErpcSession *self = ERPC_SESSION(object);

	erpc_session_set_connection(self, NULL);
	erpc_session_fail_all(self, "the session has ended");
	G_OBJECT_CLASS(erpc_session_parent_class)->dispose(object);
}

static void
erpc_session_finalize(GObject *object)
{
	ErpcSessionPrivate *priv = GET_PRIVATE(ERPC_SESSION(object));

	g_hash_table_unref(priv->pending);
	g_free(priv->id);
	G_OBJECT_CLASS(erpc_session_parent_class)->finalize(object);
}

static void
erpc_session_class_init(ErpcSessionClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = erpc_session_dispose;
	G_OBJECT_CLASS(klass)->finalize = erpc_session_finalize;
}

static void
erpc_session_init(ErpcSession *self)
{
	ErpcSessionPrivate *priv = GET_PRIVATE(self);

	priv->id = g_uuid_string_random();
	priv->next_id = 1;
	priv->pending = g_hash_table_new_full(g_int64_hash,
					      g_int64_equal,
					      NULL,
					      (GDestroyNotify)erpc_session_pending_free);
}
