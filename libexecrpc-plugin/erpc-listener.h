/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>

G_BEGIN_DECLS

/**
 * ErpcListener:
 *
 * Accepts the connections of one listen URI and hands each to the daemon as
 * an #ErpcTransport; see #ErpcListenerClass.
 *
 * Since: 0.1
 */
#define ERPC_TYPE_LISTENER (erpc_listener_get_type())
G_DECLARE_DERIVABLE_TYPE(ErpcListener, erpc_listener, ERPC, LISTENER, GObject)

/**
 * ErpcListenerClass:
 * @listen: start accepting connections for @uri; report each one with
 *   erpc_listener_emit_transport() and the bound address with
 *   erpc_listener_set_bound_uri()
 * @stop: stop accepting; existing transports stay open
 * @accepted: a connection accepted from a socket given to
 *   erpc_listener_accept_from(): a connected, non-blocking #GSocket to serve
 *   or drop
 *
 * The base class of the `transport` extension point. A transport plugin
 * registers a subclass with erpc_registry_add_extension() under the URI
 * scheme it serves (`ws`, `stdio`, `fd`, ...).
 *
 * Since: 0.1
 */
struct _ErpcListenerClass {
	GObjectClass parent_class;
	gboolean (*listen)(ErpcListener *self, const gchar *uri, GError **error);
	void (*stop)(ErpcListener *self);
	void (*accepted)(ErpcListener *self, GSocket *connection);
	/*< private >*/
	gpointer padding[11];
};

/**
 * ERPC_EXTENSION_POINT_TRANSPORT:
 *
 * The extension point of #ErpcListener subclasses, named by URI scheme.
 *
 * Since: 0.1
 */
#define ERPC_EXTENSION_POINT_TRANSPORT "transport"

const gchar *
erpc_listener_get_bound_uri(ErpcListener *self);
gsize
erpc_listener_get_max_message_size(ErpcListener *self);
gboolean
erpc_listener_get_announce(ErpcListener *self);
GVariant *
erpc_listener_get_options(ErpcListener *self);

void
erpc_listener_set_bound_uri(ErpcListener *self, const gchar *uri);
void
erpc_listener_set_announce(ErpcListener *self, gboolean announce);
void
erpc_listener_emit_transport(ErpcListener *self, ErpcTransport *transport);
void
erpc_listener_emit_finished(ErpcListener *self);
void
erpc_listener_accept_from(ErpcListener *self, GSocket *socket);

G_END_DECLS
