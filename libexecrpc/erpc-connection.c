/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-connection.h"
#include "erpc-error.h"
#include "erpc-message-private.h"
#include "erpc-transport-private.h"

/**
 * ErpcConnection:
 *
 * One peer: a transport plus the envelope codec. Received frames are parsed
 * with the connection's limits and emitted as #ErpcConnection::message, or
 * as #ErpcConnection::malformed when they are not a valid message. What a
 * message means is up to the owner (the daemon's dispatcher, or a client).
 *
 * Plugins keep per-connection state in a slot of their own, see
 * erpc_connection_set_plugin_state().
 *
 * Since: 0.1
 */

struct _ErpcConnection {
	GObject parent_instance;
	ErpcTransport *transport;
	GCancellable *cancellable;
	guint64 id;
	gsize max_message_size;
	guint max_depth;
	gboolean closed;
	guint64 max_queued_bytes; /* 0: no limit */
	guint drop_id;		  /* the close of a peer that stopped reading, scheduled */
	JsonNode *refused_id;	  /* while ::malformed runs: the id of the request refused */
	GArray *slots;		  /* of ErpcConnectionSlot: what plugins keep here */
};

typedef struct {
	gconstpointer key;
	gpointer state;
	GDestroyNotify destroy;
} ErpcConnectionSlot;

G_DEFINE_TYPE(ErpcConnection, erpc_connection, G_TYPE_OBJECT)

enum { SIGNAL_MESSAGE, SIGNAL_MALFORMED, SIGNAL_CLOSED, SIGNAL_LAST };
static guint erpc_connection_signals[SIGNAL_LAST] = {0};

static guint64 erpc_connection_next_id = 1;

static gboolean
erpc_connection_drop_cb(gpointer user_data)
{
	ErpcConnection *self = ERPC_CONNECTION(user_data);
	self->drop_id = 0;
	erpc_connection_close(self, TRUE);
	return G_SOURCE_REMOVE;
}

static void
erpc_connection_message_cb(ErpcTransport *transport,
			   gpointer data,
			   guint64 len,
			   ErpcConnection *self)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcMessage) message = NULL;
	g_autoptr(JsonNode) refused_id = NULL;
	GBytes *frame = _erpc_transport_get_delivering(transport);
	const ErpcJsonPlainMap *plain = _erpc_transport_get_delivering_plain(transport);

	message = _erpc_message_parse_refusable(frame,
						data,
						(gsize)len,
						self->max_message_size,
						self->max_depth,
						plain,
						&refused_id,
						&error);
	if (message == NULL) {
		/* erpc_connection_send_parse_error() answers the request with its id */
		g_object_ref(self);
		self->refused_id = refused_id;
		g_signal_emit(self, erpc_connection_signals[SIGNAL_MALFORMED], 0, error);
		self->refused_id = NULL;
		g_object_unref(self);
		return;
	}
	g_signal_emit(self, erpc_connection_signals[SIGNAL_MESSAGE], 0, message);
}

static void
erpc_connection_frame_error_cb(ErpcTransport *transport, const GError *error, ErpcConnection *self)
{
	g_signal_emit(self, erpc_connection_signals[SIGNAL_MALFORMED], 0, error);
}

/* destroys every slot; a destroy function may set a slot again, which the next clear frees */
static void
erpc_connection_clear_plugin_states(ErpcConnection *self)
{
	g_autoptr(GArray) slots = g_steal_pointer(&self->slots);

	for (guint i = 0; slots != NULL && i < slots->len; i++) {
		ErpcConnectionSlot *slot = &g_array_index(slots, ErpcConnectionSlot, i);
		if (slot->destroy != NULL)
			slot->destroy(slot->state);
	}
}

static void
erpc_connection_closed_cb(ErpcTransport *transport, const GError *error, ErpcConnection *self)
{
	if (self->closed)
		return;
	self->closed = TRUE;
	g_debug("connection %" G_GUINT64_FORMAT " (%s) closed%s%s",
		self->id,
		erpc_transport_get_peer(transport),
		error != NULL ? ": " : "",
		error != NULL ? error->message : "");
	g_cancellable_cancel(self->cancellable);
	g_object_ref(self);
	g_signal_emit(self, erpc_connection_signals[SIGNAL_CLOSED], 0);
	/* every handler of ::closed, a plugin's connection_closed too, has seen its state */
	erpc_connection_clear_plugin_states(self);
	g_object_unref(self);
}

/**
 * erpc_connection_get_id:
 * @self: a #ErpcConnection
 *
 * Gets the number of the connection.
 *
 * Returns: a number unique to this connection within the process, for logs
 *
 * Since: 0.1
 */
guint64
erpc_connection_get_id(ErpcConnection *self)
{
	g_return_val_if_fail(ERPC_IS_CONNECTION(self), 0);
	return self->id;
}

/**
 * erpc_connection_get_peer:
 * @self: a #ErpcConnection
 *
 * Gets who is on the other end, as the transport describes it.
 *
 * Returns: a description of the peer
 *
 * Since: 0.1
 */
const gchar *
erpc_connection_get_peer(ErpcConnection *self)
{
	g_return_val_if_fail(ERPC_IS_CONNECTION(self), NULL);
	return erpc_transport_get_peer(self->transport);
}

/**
 * erpc_connection_get_transport:
 * @self: a #ErpcConnection
 *
 * Gets the transport the connection runs on.
 *
 * Returns: (transfer none): the transport
 *
 * Since: 0.1
 */
ErpcTransport *
erpc_connection_get_transport(ErpcConnection *self)
{
	g_return_val_if_fail(ERPC_IS_CONNECTION(self), NULL);
	return self->transport;
}

/**
 * erpc_connection_get_cancellable:
 * @self: a #ErpcConnection
 *
 * Gets the cancellable of the connection, for work done on its behalf.
 *
 * Returns: (transfer none): a cancellable that is cancelled when the
 *   connection closes
 *
 * Since: 0.1
 */
GCancellable *
erpc_connection_get_cancellable(ErpcConnection *self)
{
	g_return_val_if_fail(ERPC_IS_CONNECTION(self), NULL);
	return self->cancellable;
}

/**
 * erpc_connection_is_closed:
 * @self: a #ErpcConnection
 *
 * Tells whether the connection has closed.
 *
 * Returns: %TRUE once the connection has closed
 *
 * Since: 0.1
 */
gboolean
erpc_connection_is_closed(ErpcConnection *self)
{
	g_return_val_if_fail(ERPC_IS_CONNECTION(self), TRUE);
	return self->closed;
}

/**
 * erpc_connection_send:
 * @self: a #ErpcConnection
 * @message: one serialized message
 *
 * Queues @message; dropped if the connection has closed.
 *
 * Since: 0.1
 */
void
erpc_connection_send(ErpcConnection *self, GBytes *message)
{
	guint64 queued;

	g_return_if_fail(ERPC_IS_CONNECTION(self));
	if (self->closed)
		return;
	erpc_transport_send(self->transport, message);
	if (self->max_queued_bytes == 0 || self->drop_id != 0)
		return;
	queued = erpc_transport_get_queued_bytes(self->transport);
	if (queued <= self->max_queued_bytes)
		return;
	g_message("connection %" G_GUINT64_FORMAT " (%s): the peer does not read what it is sent "
		  "(%" G_GUINT64_FORMAT " bytes queued, limit %" G_GUINT64_FORMAT
		  "); disconnecting",
		  self->id,
		  erpc_transport_get_peer(self->transport),
		  queued,
		  self->max_queued_bytes);
	/* not from inside whatever is sending */
	self->drop_id = g_idle_add_full(G_PRIORITY_HIGH,
					erpc_connection_drop_cb,
					g_object_ref(self),
					g_object_unref);
}

/**
 * erpc_connection_set_max_queued_bytes:
 * @self: a #ErpcConnection
 * @max_bytes: the most output that may wait for the peer, 0 for no limit
 *
 * A peer that stops reading while more than @max_bytes wait to be sent is
 * disconnected, so that it cannot make the daemon grow without bound.
 *
 * Since: 0.1
 */
void
erpc_connection_set_max_queued_bytes(ErpcConnection *self, guint64 max_bytes)
{
	g_return_if_fail(ERPC_IS_CONNECTION(self));
	self->max_queued_bytes = max_bytes;
}

/**
 * erpc_connection_notify:
 * @self: a #ErpcConnection
 * @method: the notification method
 * @params: (nullable): its params
 *
 * Sends a notification to the peer.
 *
 * Since: 0.1
 */
void
erpc_connection_notify(ErpcConnection *self, const gchar *method, JsonNode *params)
{
	g_autoptr(GBytes) message = NULL;

	g_return_if_fail(ERPC_IS_CONNECTION(self));
	g_return_if_fail(method != NULL);
	if (self->closed)
		return;
	message = erpc_message_new_notification(method, params);
	erpc_transport_send(self->transport, message);
}

/**
 * erpc_connection_send_parse_error:
 * @self: a #ErpcConnection
 * @error: why a frame was refused
 *
 * Answers a malformed frame with an error naming the peer. Its id is -1,
 * unless it is called from #ErpcConnection::malformed for a request whose
 * envelope could be read but whose params could not (a lone surrogate, a
 * raw control character in a string): then it is that request's id, so
 * that the peer is not left waiting for an answer.
 *
 * Since: 0.1
 */
void
erpc_connection_send_parse_error(ErpcConnection *self, const GError *error)
{
	const gchar *kind = ERPC_TRANSPORT_GET_CLASS(self->transport)->frame_kind;
	g_autofree gchar *text = NULL;
	g_autoptr(GBytes) message = NULL;

	text = g_strdup_printf("failed to parse %s%sJSON-RPC message from exec-server %s: %s",
			       kind != NULL ? kind : "",
			       kind != NULL ? " " : "",
			       erpc_transport_get_peer(self->transport),
			       error->message);
	message = erpc_message_new_error(self->refused_id, ERPC_WIRE_INVALID_REQUEST, text, NULL);
	erpc_connection_send(self, message);
}

static ErpcConnectionSlot *
erpc_connection_find_slot(ErpcConnection *self, gconstpointer key, guint *index)
{
	for (guint i = 0; self->slots != NULL && i < self->slots->len; i++) {
		ErpcConnectionSlot *slot = &g_array_index(self->slots, ErpcConnectionSlot, i);
		if (slot->key == key) {
			if (index != NULL)
				*index = i;
			return slot;
		}
	}
	return NULL;
}

/**
 * erpc_connection_get_plugin_state:
 * @self: a #ErpcConnection
 * @key: what identifies the slot: the plugin instance, or a #GType or the
 *   address of a static variable of the plugin's own
 *
 * Reads the state a plugin keeps for this connection.
 *
 * Returns: (transfer none) (nullable): what was set for @key with
 *   erpc_connection_set_plugin_state(), or %NULL
 *
 * Since: 0.2
 */
gpointer
erpc_connection_get_plugin_state(ErpcConnection *self, gconstpointer key)
{
	ErpcConnectionSlot *slot;

	g_return_val_if_fail(ERPC_IS_CONNECTION(self), NULL);
	g_return_val_if_fail(key != NULL, NULL);
	slot = erpc_connection_find_slot(self, key, NULL);
	return slot != NULL ? slot->state : NULL;
}

/**
 * erpc_connection_set_plugin_state:
 * @self: a #ErpcConnection
 * @key: what identifies the slot, see erpc_connection_get_plugin_state()
 * @state: (nullable) (transfer full): the state; %NULL empties the slot
 * @destroy: (nullable): frees @state
 *
 * Keeps what a plugin knows about this connection (open handles, watches)
 * in a slot of its own. Slots are keyed by an address, not a name: a
 * plugin that keys by its own instance, or by a type or a static variable
 * of its own, cannot read or replace another plugin's slot by accident.
 * What a slot held before is destroyed first.
 *
 * Every slot is destroyed once the connection has closed, right after
 * #ErpcConnection::closed has been emitted (so after each plugin's
 * `connection_closed`, which runs from that signal), and, for what was
 * set after that, when the connection is disposed. Call from the thread
 * that runs the connection.
 *
 * Since: 0.2
 */
void
erpc_connection_set_plugin_state(ErpcConnection *self,
				 gconstpointer key,
				 gpointer state,
				 GDestroyNotify destroy)
{
	ErpcConnectionSlot *slot;
	ErpcConnectionSlot old = {0};
	guint index = 0;

	g_return_if_fail(ERPC_IS_CONNECTION(self));
	g_return_if_fail(key != NULL);
	slot = erpc_connection_find_slot(self, key, &index);
	if (slot != NULL) {
		old = *slot;
		if (state != NULL) {
			slot->state = state;
			slot->destroy = destroy;
		} else {
			g_array_remove_index_fast(self->slots, index);
		}
	} else if (state != NULL) {
		ErpcConnectionSlot added = {key, state, destroy};
		if (self->slots == NULL)
			self->slots = g_array_new(FALSE, FALSE, sizeof(ErpcConnectionSlot));
		g_array_append_val(self->slots, added);
	}
	/* last: the destroy function may touch the slots */
	if (old.destroy != NULL && old.state != state)
		old.destroy(old.state);
}

/**
 * erpc_connection_close:
 * @self: a #ErpcConnection
 * @abort: drop the connection without a closing handshake
 *
 * Closes the connection and its transport.
 *
 * Since: 0.1
 */
void
erpc_connection_close(ErpcConnection *self, gboolean abort)
{
	g_return_if_fail(ERPC_IS_CONNECTION(self));
	erpc_transport_close(self->transport, abort);
}

static void
erpc_connection_dispose(GObject *object)
{
	ErpcConnection *self = ERPC_CONNECTION(object);
	if (self->transport != NULL) {
		g_signal_handlers_disconnect_by_data(self->transport, self);
		g_clear_object(&self->transport);
	}
	erpc_connection_clear_plugin_states(self);
	G_OBJECT_CLASS(erpc_connection_parent_class)->dispose(object);
}

static void
erpc_connection_finalize(GObject *object)
{
	ErpcConnection *self = ERPC_CONNECTION(object);
	/* what a destroy function set again while the connection was disposed */
	erpc_connection_clear_plugin_states(self);
	g_object_unref(self->cancellable);
	G_OBJECT_CLASS(erpc_connection_parent_class)->finalize(object);
}

static void
erpc_connection_init(ErpcConnection *self)
{
	self->cancellable = g_cancellable_new();
	self->id = erpc_connection_next_id++;
}

static void
erpc_connection_class_init(ErpcConnectionClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = erpc_connection_dispose;
	object_class->finalize = erpc_connection_finalize;

	/**
	 * ErpcConnection::message:
	 * @self: the connection
	 * @message: a valid message
	 *
	 * Emitted for each message the peer sent that is well-formed JSON-RPC.
	 *
	 * Since: 0.1
	 */
	erpc_connection_signals[SIGNAL_MESSAGE] =
	    g_signal_new("message",
			 G_TYPE_FROM_CLASS(klass),
			 G_SIGNAL_RUN_LAST,
			 0,
			 NULL,
			 NULL,
			 NULL,
			 G_TYPE_NONE,
			 1,
			 ERPC_TYPE_MESSAGE | G_SIGNAL_TYPE_STATIC_SCOPE);
	/**
	 * ErpcConnection::malformed:
	 * @self: the connection
	 * @error: why the frame was refused
	 *
	 * Emitted for each frame that is not a message: too large, too deep,
	 * not UTF-8, not JSON or not JSON-RPC. The peer is answered with id -1.
	 *
	 * Since: 0.1
	 */
	erpc_connection_signals[SIGNAL_MALFORMED] =
	    g_signal_new("malformed",
			 G_TYPE_FROM_CLASS(klass),
			 G_SIGNAL_RUN_LAST,
			 0,
			 NULL,
			 NULL,
			 NULL,
			 G_TYPE_NONE,
			 1,
			 G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
	/**
	 * ErpcConnection::closed:
	 * @self: the connection
	 *
	 * Emitted once when the peer is gone or the connection was closed.
	 *
	 * Since: 0.1
	 */
	erpc_connection_signals[SIGNAL_CLOSED] = g_signal_new("closed",
							      G_TYPE_FROM_CLASS(klass),
							      G_SIGNAL_RUN_LAST,
							      0,
							      NULL,
							      NULL,
							      NULL,
							      G_TYPE_NONE,
							      0);
}

/**
 * erpc_connection_new:
 * @transport: a transport
 * @max_message_size: the largest message accepted, in bytes
 * @max_depth: the deepest JSON nesting accepted
 *
 * Makes a connection that reads and writes JSON-RPC messages on @transport,
 * refusing larger or deeper ones than given.
 *
 * Returns: (transfer full): a new connection
 *
 * Since: 0.1
 */
ErpcConnection *
erpc_connection_new(ErpcTransport *transport, gsize max_message_size, guint max_depth)
{
	ErpcConnection *self;

	g_return_val_if_fail(ERPC_IS_TRANSPORT(transport), NULL);
	self = g_object_new(ERPC_TYPE_CONNECTION, NULL);
	self->transport = g_object_ref(transport);
	self->max_message_size = max_message_size;
	self->max_depth = max_depth;
	g_signal_connect(transport, "message", G_CALLBACK(erpc_connection_message_cb), self);
	g_signal_connect(transport,
			 "frame-error",
			 G_CALLBACK(erpc_connection_frame_error_cb),
			 self);
	g_signal_connect(transport, "closed", G_CALLBACK(erpc_connection_closed_cb), self);
	return self;
}
