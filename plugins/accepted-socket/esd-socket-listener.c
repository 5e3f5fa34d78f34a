/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include "esd-socket-fds.h"
#include "esd-socket-listener.h"

/*
 * Newline-delimited JSON, as over stdio, on sockets the daemon did not open:
 * `--listen fd:N`, the sockets of systemd socket activation, and the
 * socketpair ends the D-Bus service hands over. A listening socket is
 * accepted from until the listener stops; a connected one is served at
 * once. The listener is finished when it has no listening socket and its
 * last connection closed, so that a daemon given one connection exits with
 * it, as with stdio.
 */

struct _EsdSocketListener {
	ErpcListener parent_instance;
	GHashTable *transports; /* of ErpcTransport, the open connections */
	gboolean accepting;	/* from a listening socket, through ErpcListener */
	gboolean started;
};

G_DEFINE_TYPE(EsdSocketListener, esd_socket_listener, ERPC_TYPE_LISTENER)

static void
esd_socket_listener_maybe_finished(EsdSocketListener *self)
{
	if (!self->accepting && g_hash_table_size(self->transports) == 0)
		erpc_listener_emit_finished(ERPC_LISTENER(self));
}

/* the transport closed its streams; closing the connection closes the socket */
static void
esd_socket_listener_close_socket_cb(ErpcTransport *transport,
				    const GError *error,
				    GSocketConnection *connection)
{
	g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
}

static void
esd_socket_listener_transport_closed_cb(ErpcTransport *transport,
					const GError *error,
					EsdSocketListener *self)
{
	g_hash_table_remove(self->transports, transport);
	esd_socket_listener_maybe_finished(self);
}

static void
esd_socket_listener_serve(EsdSocketListener *self, GSocketConnection *connection)
{
	GSocket *socket = g_socket_connection_get_socket(connection);
	GSocketFamily family = g_socket_get_family(socket);
	g_autofree gchar *peer = NULL;
	g_autoptr(ErpcTransport) transport = NULL;

	/* replies must not wait for the client's delayed acknowledgement */
	if (family == G_SOCKET_FAMILY_IPV4 || family == G_SOCKET_FAMILY_IPV6)
		g_socket_set_option(socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
	peer = esd_socket_fds_peer_name(socket);
	transport = ERPC_TRANSPORT(
	    erpc_line_transport_new(g_io_stream_get_input_stream(G_IO_STREAM(connection)),
				    g_io_stream_get_output_stream(G_IO_STREAM(connection)),
				    peer,
				    erpc_listener_get_max_message_size(ERPC_LISTENER(self))));
	g_signal_connect_data(transport,
			      "closed",
			      G_CALLBACK(esd_socket_listener_close_socket_cb),
			      g_object_ref(connection),
			      (GClosureNotify)(void (*)(void))g_object_unref,
			      0);
	g_signal_connect_object(transport,
				"closed",
				G_CALLBACK(esd_socket_listener_transport_closed_cb),
				self,
				0);
	g_hash_table_add(self->transports, g_object_ref(transport));
	erpc_listener_emit_transport(ERPC_LISTENER(self), transport);
}

static void
esd_socket_listener_serve_socket(EsdSocketListener *self, GSocket *socket)
{
	g_autoptr(GSocketConnection) connection =
	    g_socket_connection_factory_create_connection(socket);
	esd_socket_listener_serve(self, connection);
}

/* from a listening socket; ErpcListener survives accepts that fail */
static void
esd_socket_listener_accepted(ErpcListener *listener, GSocket *socket)
{
	EsdSocketListener *self = ESD_SOCKET_LISTENER(listener);

	if (self->accepting)
		esd_socket_listener_serve_socket(self, socket);
}

static gboolean
esd_socket_listener_listen(ErpcListener *listener, const gchar *uri, GError **error)
{
	EsdSocketListener *self = ESD_SOCKET_LISTENER(listener);
	g_autoptr(GPtrArray) items = NULL;

	if (self->started) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_EXISTS,
				    "this listener is already serving its sockets");
		return FALSE;
	}
	items = esd_socket_fds_take(uri, error);
	if (items == NULL)
		return FALSE;
	self->started = TRUE;
	erpc_listener_set_announce(listener, FALSE);
	erpc_listener_set_bound_uri(listener, uri);
	for (guint i = 0; i < items->len; i++) {
		EsdSocketFd *item = g_ptr_array_index(items, i);
		if (!item->listening)
			continue;
		self->accepting = TRUE;
		erpc_listener_accept_from(listener, item->socket);
		g_debug("accepting connections on fd %d", item->source_fd);
	}
	for (guint i = 0; i < items->len; i++) {
		EsdSocketFd *item = g_ptr_array_index(items, i);
		if (!item->listening)
			esd_socket_listener_serve_socket(self, item->socket);
	}
	return TRUE;
}

/* ErpcListener closes the listening sockets */
static void
esd_socket_listener_stop(ErpcListener *listener)
{
	ESD_SOCKET_LISTENER(listener)->accepting = FALSE;
}

static void
esd_socket_listener_dispose(GObject *object)
{
	EsdSocketListener *self = ESD_SOCKET_LISTENER(object);

	esd_socket_listener_stop(ERPC_LISTENER(self));
	/* the transports live on with their connections; only our interest ends */
	g_hash_table_remove_all(self->transports);
	G_OBJECT_CLASS(esd_socket_listener_parent_class)->dispose(object);
}

static void
esd_socket_listener_finalize(GObject *object)
{
	EsdSocketListener *self = ESD_SOCKET_LISTENER(object);

	g_hash_table_unref(self->transports);
	G_OBJECT_CLASS(esd_socket_listener_parent_class)->finalize(object);
}

static void
esd_socket_listener_init(EsdSocketListener *self)
{
	self->transports =
	    g_hash_table_new_full(g_direct_hash, g_direct_equal, g_object_unref, NULL);
}

static void
esd_socket_listener_class_init(EsdSocketListenerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	ErpcListenerClass *listener_class = ERPC_LISTENER_CLASS(klass);

	object_class->dispose = esd_socket_listener_dispose;
	object_class->finalize = esd_socket_listener_finalize;
	listener_class->listen = esd_socket_listener_listen;
	listener_class->stop = esd_socket_listener_stop;
	listener_class->accepted = esd_socket_listener_accepted;
}
