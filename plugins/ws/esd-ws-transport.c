/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "esd-ws-transport.h"

/*
 * One JSON-RPC message per WebSocket message. Text and binary messages are
 * both accepted; everything is sent as text. A protocol violation drops the
 * TCP connection without a Close frame, as the reference does.
 */
struct _EsdWsTransport {
	ErpcTransport parent_instance;
	SoupWebsocketConnection *connection;
	GSocket *socket;
};

G_DEFINE_TYPE(EsdWsTransport, esd_ws_transport, ERPC_TYPE_TRANSPORT)

static void
esd_ws_transport_message_cb(SoupWebsocketConnection *connection,
			    gint type,
			    GBytes *message,
			    EsdWsTransport *self)
{
	gsize len = 0;
	const gchar *data = g_bytes_get_data(message, &len);
	erpc_transport_emit_message(ERPC_TRANSPORT(self), data != NULL ? data : "", len);
}

static void
esd_ws_transport_error_cb(SoupWebsocketConnection *connection,
			  const GError *error,
			  EsdWsTransport *self)
{
	g_debug("%s: %s", erpc_transport_get_peer(ERPC_TRANSPORT(self)), error->message);
}

static void
esd_ws_transport_closed_cb(SoupWebsocketConnection *connection, EsdWsTransport *self)
{
	erpc_transport_emit_closed(ERPC_TRANSPORT(self), NULL);
}

static void
esd_ws_transport_send(ErpcTransport *transport, GBytes *message)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(transport);
	if (soup_websocket_connection_get_state(self->connection) != SOUP_WEBSOCKET_STATE_OPEN)
		return;
	soup_websocket_connection_send_message(self->connection, SOUP_WEBSOCKET_DATA_TEXT, message);
}

/*
 * libsoup queues what the socket does not take, without a bound and without
 * telling how much. The kernel's queue is the signal: once it is mostly
 * full, libsoup's own queue starts to grow.
 */
static gboolean
esd_ws_transport_is_congested(ErpcTransport *transport)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(transport);
	gint fd;
	gint queued = 0;
	gint sndbuf = 0;
	socklen_t len = sizeof(sndbuf);

	if (self->socket == NULL)
		return FALSE;
	fd = g_socket_get_fd(self->socket);
	if (ioctl(fd, SIOCOUTQ, &queued) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) < 0)
		return FALSE;
	return queued > sndbuf / 2;
}

static void
esd_ws_transport_close(ErpcTransport *transport, gboolean abort)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(transport);

	if (abort && self->socket != NULL) {
		/* libsoup then sees the end of the stream and cleans up */
		g_socket_shutdown(self->socket, TRUE, TRUE, NULL);
		return;
	}
	if (soup_websocket_connection_get_state(self->connection) == SOUP_WEBSOCKET_STATE_OPEN)
		soup_websocket_connection_close(self->connection, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, NULL);
}

static void
esd_ws_transport_dispose(GObject *object)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(object);
	if (self->connection != NULL) {
		g_signal_handlers_disconnect_by_data(self->connection, self);
		if (soup_websocket_connection_get_state(self->connection) == SOUP_WEBSOCKET_STATE_OPEN)
			soup_websocket_connection_close(self->connection,
							SOUP_WEBSOCKET_CLOSE_GOING_AWAY,
							NULL);
		g_clear_object(&self->connection);
	}
	g_clear_object(&self->socket);
	G_OBJECT_CLASS(esd_ws_transport_parent_class)->dispose(object);
}

static void
esd_ws_transport_init(EsdWsTransport *self)
{
}

static void
esd_ws_transport_class_init(EsdWsTransportClass *klass)
{
	ErpcTransportClass *transport_class = ERPC_TRANSPORT_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = esd_ws_transport_dispose;
	transport_class->send = esd_ws_transport_send;
	transport_class->close = esd_ws_transport_close;
	transport_class->frame_kind = "websocket";
	transport_class->is_congested = esd_ws_transport_is_congested;
}

EsdWsTransport *
esd_ws_transport_new(SoupWebsocketConnection *connection, GSocket *socket, const gchar *peer)
{
	EsdWsTransport *self = g_object_new(ESD_TYPE_WS_TRANSPORT, "peer", peer, NULL);

	self->connection = g_object_ref(connection);
	self->socket = socket != NULL ? g_object_ref(socket) : NULL;
	g_signal_connect(connection, "message", G_CALLBACK(esd_ws_transport_message_cb), self);
	g_signal_connect(connection, "error", G_CALLBACK(esd_ws_transport_error_cb), self);
	g_signal_connect(connection, "closed", G_CALLBACK(esd_ws_transport_closed_cb), self);
	return self;
}
