/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-transport-private.h"
#include "erpc-transport.h"

typedef struct {
	gchar *peer;
	gboolean closed;
	GBytes *delivering; /* the message being emitted, when the subclass gave it as bytes */
	const ErpcJsonPlainMap *delivering_plain; /* nullable: what the subclass noted of it */
} ErpcTransportPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(ErpcTransport, erpc_transport, G_TYPE_OBJECT)

enum { PROP_0, PROP_PEER, PROP_LAST };
enum { SIGNAL_MESSAGE, SIGNAL_FRAME_ERROR, SIGNAL_CLOSED, SIGNAL_LAST };

static GParamSpec *erpc_transport_props[PROP_LAST] = {NULL};
static guint erpc_transport_signals[SIGNAL_LAST] = {0};

#define GET_PRIVATE(o) ((ErpcTransportPrivate *)erpc_transport_get_instance_private(o))

/**
 * erpc_transport_send:
 * @self: a #ErpcTransport
 * @message: one serialized message, without framing
 *
 * Queues @message for the peer. Messages sent after the transport closed are
 * dropped.
 *
 * Since: 0.1
 */
void
erpc_transport_send(ErpcTransport *self, GBytes *message)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);

	g_return_if_fail(ERPC_IS_TRANSPORT(self));
	g_return_if_fail(message != NULL);
	if (priv->closed)
		return;
	ERPC_TRANSPORT_GET_CLASS(self)->send(self, message);
}

/**
 * erpc_transport_close:
 * @self: a #ErpcTransport
 * @abort: drop the connection without a closing handshake
 *
 * Closes the transport; #ErpcTransport::closed is emitted if it was not
 * emitted yet.
 *
 * Since: 0.1
 */
void
erpc_transport_close(ErpcTransport *self, gboolean abort)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);

	g_return_if_fail(ERPC_IS_TRANSPORT(self));
	if (priv->closed)
		return;
	g_object_ref(self);
	ERPC_TRANSPORT_GET_CLASS(self)->close(self, abort);
	erpc_transport_emit_closed(self, NULL);
	g_object_unref(self);
}

/**
 * erpc_transport_get_queued_bytes:
 * @self: a #ErpcTransport
 *
 * Gets how much is waiting to be written, so that a writer can slow down
 * while the peer does not read.
 *
 * Returns: bytes queued for the peer and not yet written
 *
 * Since: 0.1
 */
gsize
erpc_transport_get_queued_bytes(ErpcTransport *self)
{
	ErpcTransportClass *klass;

	g_return_val_if_fail(ERPC_IS_TRANSPORT(self), 0);
	klass = ERPC_TRANSPORT_GET_CLASS(self);
	if (klass->get_queued_bytes == NULL)
		return 0;
	return klass->get_queued_bytes(self);
}

/* queued output beyond which producers should wait for the peer */
#define ERPC_TRANSPORT_CONGESTION_BYTES (8 * 1024 * 1024)

/**
 * erpc_transport_is_congested:
 * @self: a #ErpcTransport
 *
 * Producers of bulk output (process streams) stop producing while this is
 * %TRUE, so that a peer that does not read cannot make the daemon grow.
 *
 * Returns: %TRUE if the peer is behind
 *
 * Since: 0.1
 */
gboolean
erpc_transport_is_congested(ErpcTransport *self)
{
	ErpcTransportClass *klass;

	g_return_val_if_fail(ERPC_IS_TRANSPORT(self), FALSE);
	klass = ERPC_TRANSPORT_GET_CLASS(self);
	if (klass->is_congested != NULL)
		return klass->is_congested(self);
	return erpc_transport_get_queued_bytes(self) > ERPC_TRANSPORT_CONGESTION_BYTES;
}

/**
 * erpc_transport_get_peer:
 * @self: a #ErpcTransport
 *
 * Gets who is on the other end of the transport.
 *
 * Returns: a description of the peer for messages, e.g. `websocket 127.0.0.1:4242`
 *
 * Since: 0.1
 */
const gchar *
erpc_transport_get_peer(ErpcTransport *self)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);
	g_return_val_if_fail(ERPC_IS_TRANSPORT(self), NULL);
	return priv->peer != NULL ? priv->peer : "unknown";
}

/**
 * erpc_transport_is_closed:
 * @self: a #ErpcTransport
 *
 * Tells whether the transport has closed.
 *
 * Returns: %TRUE once #ErpcTransport::closed was emitted
 *
 * Since: 0.1
 */
gboolean
erpc_transport_is_closed(ErpcTransport *self)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);
	g_return_val_if_fail(ERPC_IS_TRANSPORT(self), TRUE);
	return priv->closed;
}

/**
 * erpc_transport_emit_message:
 * @self: a #ErpcTransport
 * @data: the bytes of one message
 * @len: length of @data
 *
 * For subclasses: reports one received message.
 *
 * Since: 0.1
 */
void
erpc_transport_emit_message(ErpcTransport *self, const gchar *data, gsize len)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);
	if (priv->closed)
		return;
	g_signal_emit(self, erpc_transport_signals[SIGNAL_MESSAGE], 0, data, (guint64)len);
}

/**
 * erpc_transport_emit_message_bytes:
 * @self: a #ErpcTransport
 * @message: the bytes of one message, which the transport no longer changes
 *
 * For subclasses: reports one received message held in @message. The
 * connection may keep a reference instead of copying large strings out of
 * it, which saves copying file contents tens of megabytes long.
 *
 * Since: 0.1
 */
void
erpc_transport_emit_message_bytes(ErpcTransport *self, GBytes *message)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);
	gsize len = 0;
	const gchar *data;

	g_return_if_fail(ERPC_IS_TRANSPORT(self));
	g_return_if_fail(message != NULL);
	if (priv->closed)
		return;
	data = g_bytes_get_data(message, &len);
	priv->delivering = message;
	g_signal_emit(self, erpc_transport_signals[SIGNAL_MESSAGE], 0, data, (guint64)len);
	priv->delivering = NULL;
}

/**
 * erpc_transport_emit_message_bytes_mapped: (skip)
 * @self: a #ErpcTransport
 * @message: the bytes of one message, which the transport no longer changes
 * @plain: (nullable): the plain blocks of @message, noted as it arrived
 *
 * For subclasses: erpc_transport_emit_message_bytes(), with a map that
 * spares the parser a pass over the plain blocks of a large message.
 *
 * Since: 0.1
 */
void
erpc_transport_emit_message_bytes_mapped(ErpcTransport *self,
					 GBytes *message,
					 const ErpcJsonPlainMap *plain)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);

	priv->delivering_plain = plain;
	erpc_transport_emit_message_bytes(self, message);
	priv->delivering_plain = NULL;
}

/* for ErpcConnection: the map of the message being emitted, if any */
const ErpcJsonPlainMap *
_erpc_transport_get_delivering_plain(ErpcTransport *self)
{
	return GET_PRIVATE(self)->delivering_plain;
}

/* for ErpcConnection: the bytes behind the "message" signal being emitted, if any */
GBytes *
_erpc_transport_get_delivering(ErpcTransport *self)
{
	return GET_PRIVATE(self)->delivering;
}

/**
 * erpc_transport_emit_closed:
 * @self: a #ErpcTransport
 * @error: (nullable): why the transport closed, %NULL for an orderly close
 *
 * For subclasses: reports the end of the connection. Only the first call
 * has an effect.
 *
 * Since: 0.1
 */
void
erpc_transport_emit_closed(ErpcTransport *self, const GError *error)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);
	if (priv->closed)
		return;
	priv->closed = TRUE;
	g_signal_emit(self, erpc_transport_signals[SIGNAL_CLOSED], 0, error);
}

/**
 * erpc_transport_emit_frame_error:
 * @self: a #ErpcTransport
 * @error: what was wrong with the frame
 *
 * For subclasses: reports a frame that could not be delivered, for example
 * one over the size limit. The connection answers it and lives on.
 *
 * Since: 0.1
 */
void
erpc_transport_emit_frame_error(ErpcTransport *self, const GError *error)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(self);
	if (priv->closed)
		return;
	g_signal_emit(self, erpc_transport_signals[SIGNAL_FRAME_ERROR], 0, error);
}

static void
erpc_transport_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(ERPC_TRANSPORT(object));
	switch (prop_id) {
	case PROP_PEER:
		g_value_set_string(value, priv->peer);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_transport_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(ERPC_TRANSPORT(object));
	switch (prop_id) {
	case PROP_PEER:
		g_free(priv->peer);
		priv->peer = g_value_dup_string(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_transport_finalize(GObject *object)
{
	ErpcTransportPrivate *priv = GET_PRIVATE(ERPC_TRANSPORT(object));
	g_free(priv->peer);
	G_OBJECT_CLASS(erpc_transport_parent_class)->finalize(object);
}

static void
erpc_transport_init(ErpcTransport *self)
{
}

static void
erpc_transport_class_init(ErpcTransportClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->get_property = erpc_transport_get_property;
	object_class->set_property = erpc_transport_set_property;
	object_class->finalize = erpc_transport_finalize;

	/**
	 * ErpcTransport:peer:
	 *
	 * A description of the peer, used in error messages and logs.
	 *
	 * Since: 0.1
	 */
	erpc_transport_props[PROP_PEER] = g_param_spec_string(
	    "peer",
	    NULL,
	    NULL,
	    NULL,
	    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, PROP_LAST, erpc_transport_props);

	/**
	 * ErpcTransport::message:
	 * @self: the transport
	 * @data: (type gpointer): the message bytes, valid during the emission
	 * @len: their length
	 *
	 * Emitted for every message received.
	 *
	 * Since: 0.1
	 */
	erpc_transport_signals[SIGNAL_MESSAGE] = g_signal_new("message",
							      G_TYPE_FROM_CLASS(klass),
							      G_SIGNAL_RUN_LAST,
							      0,
							      NULL,
							      NULL,
							      NULL,
							      G_TYPE_NONE,
							      2,
							      G_TYPE_POINTER,
							      G_TYPE_UINT64);
	/**
	 * ErpcTransport::frame-error:
	 * @self: the transport
	 * @error: what was wrong
	 *
	 * Emitted for a frame that could not be delivered as a message.
	 *
	 * Since: 0.1
	 */
	erpc_transport_signals[SIGNAL_FRAME_ERROR] = g_signal_new("frame-error",
								  G_TYPE_FROM_CLASS(klass),
								  G_SIGNAL_RUN_LAST,
								  0,
								  NULL,
								  NULL,
								  NULL,
								  G_TYPE_NONE,
								  1,
								  G_TYPE_ERROR);
	/**
	 * ErpcTransport::closed:
	 * @self: the transport
	 * @error: (nullable): why it closed
	 *
	 * Emitted once, when the connection has ended.
	 *
	 * Since: 0.1
	 */
	erpc_transport_signals[SIGNAL_CLOSED] = g_signal_new("closed",
							     G_TYPE_FROM_CLASS(klass),
							     G_SIGNAL_RUN_LAST,
							     0,
							     NULL,
							     NULL,
							     NULL,
							     G_TYPE_NONE,
							     1,
							     G_TYPE_ERROR);
}
