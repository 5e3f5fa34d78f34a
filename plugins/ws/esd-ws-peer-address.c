/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-ws-peer-address.h"

/*
 * The remote address of an accepted connection, carrying its socket. The
 * listener accepts connections itself and hands SoupServer their streams;
 * libsoup then knows no socket, but gives back the remote address it was
 * given with every message. Through it the listener finds the socket again:
 * to drop a request that does not arrive in time, and to hand the socket to
 * the WebSocket transport after the upgrade.
 */

struct _EsdWsPeerAddress {
	GInetSocketAddress parent_instance;
	GSocket *socket;
};

G_DEFINE_FINAL_TYPE(EsdWsPeerAddress, esd_ws_peer_address, G_TYPE_INET_SOCKET_ADDRESS)

static void
esd_ws_peer_address_finalize(GObject *object)
{
	EsdWsPeerAddress *self = ESD_WS_PEER_ADDRESS(object);
	g_clear_object(&self->socket);
	G_OBJECT_CLASS(esd_ws_peer_address_parent_class)->finalize(object);
}

static void
esd_ws_peer_address_init(EsdWsPeerAddress *self)
{
}

static void
esd_ws_peer_address_class_init(EsdWsPeerAddressClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_ws_peer_address_finalize;
}

/**
 * esd_ws_peer_address_new:
 * @socket: a connected TCP socket
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the address of @socket's peer, or %NULL
 */
EsdWsPeerAddress *
esd_ws_peer_address_new(GSocket *socket, GError **error)
{
	g_autoptr(GSocketAddress) remote = g_socket_get_remote_address(socket, error);
	GInetSocketAddress *inet;
	EsdWsPeerAddress *self;

	if (remote == NULL)
		return NULL;
	if (!G_IS_INET_SOCKET_ADDRESS(remote)) {
		g_set_error_literal(error,
				    G_IO_ERROR,
				    G_IO_ERROR_NOT_SUPPORTED,
				    "the peer has no IP address");
		return NULL;
	}
	inet = G_INET_SOCKET_ADDRESS(remote);
	if (g_socket_address_get_family(remote) == G_SOCKET_FAMILY_IPV6)
		self = g_object_new(ESD_TYPE_WS_PEER_ADDRESS,
				    "address",
				    g_inet_socket_address_get_address(inet),
				    "port",
				    (guint)g_inet_socket_address_get_port(inet),
				    "flowinfo",
				    g_inet_socket_address_get_flowinfo(inet),
				    "scope-id",
				    g_inet_socket_address_get_scope_id(inet),
				    NULL);
	else
		self = g_object_new(ESD_TYPE_WS_PEER_ADDRESS,
				    "address",
				    g_inet_socket_address_get_address(inet),
				    "port",
				    (guint)g_inet_socket_address_get_port(inet),
				    NULL);
	self->socket = g_object_ref(socket);
	return self;
}

/**
 * esd_ws_peer_address_get_socket:
 * @self: an address made by esd_ws_peer_address_new()
 *
 * Returns: (transfer none): the connection's socket
 */
GSocket *
esd_ws_peer_address_get_socket(EsdWsPeerAddress *self)
{
	g_return_val_if_fail(ESD_IS_WS_PEER_ADDRESS(self), NULL);
	return self->socket;
}
