/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>

#include "erpc-json.h"

G_BEGIN_DECLS

/**
 * ErpcTransport:
 *
 * One connection to a peer, moving whole messages; see #ErpcTransportClass.
 * #ErpcConnection reads and writes JSON-RPC on one.
 *
 * Since: 0.1
 */
#define ERPC_TYPE_TRANSPORT (erpc_transport_get_type())
G_DECLARE_DERIVABLE_TYPE(ErpcTransport, erpc_transport, ERPC, TRANSPORT, GObject)

/**
 * ErpcTransportClass:
 * @send: queue one complete message for the peer; never blocks
 * @close: stop reading and close; with @abort the connection is dropped
 *   without a closing handshake
 * @get_queued_bytes: bytes accepted by @send and not yet written
 * @frame_kind: (nullable): the framing named in parse errors, e.g. `websocket`
 * @is_congested: whether the peer is not reading what it is sent; the
 *   default compares @get_queued_bytes with a fixed limit
 *
 * A transport moves whole messages: one JSON-RPC message per WebSocket
 * message, or one per line. Subclasses report received messages with
 * erpc_transport_emit_message() and the end of the connection, once, with
 * erpc_transport_emit_closed().
 *
 * Since: 0.1
 */
struct _ErpcTransportClass {
	GObjectClass parent_class;
	void (*send)(ErpcTransport *self, GBytes *message);
	void (*close)(ErpcTransport *self, gboolean abort);
	gsize (*get_queued_bytes)(ErpcTransport *self);
	const gchar *frame_kind;
	gboolean (*is_congested)(ErpcTransport *self);
	/*< private >*/
	gpointer padding[11];
};

void
erpc_transport_send(ErpcTransport *self, GBytes *message);
void
erpc_transport_close(ErpcTransport *self, gboolean abort);
gsize
erpc_transport_get_queued_bytes(ErpcTransport *self);
gboolean
erpc_transport_is_congested(ErpcTransport *self);
const gchar *
erpc_transport_get_peer(ErpcTransport *self);
gboolean
erpc_transport_is_closed(ErpcTransport *self);

void
erpc_transport_emit_message(ErpcTransport *self, const gchar *data, gsize len);
void
erpc_transport_emit_message_bytes(ErpcTransport *self, GBytes *message);
void
erpc_transport_emit_message_bytes_mapped(ErpcTransport *self,
					 GBytes *message,
					 const ErpcJsonPlainMap *plain);
void
erpc_transport_emit_closed(ErpcTransport *self, const GError *error);
void
erpc_transport_emit_frame_error(ErpcTransport *self, const GError *error);

G_END_DECLS
