/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

#include "erpc-message.h"
#include "erpc-transport.h"

G_BEGIN_DECLS

#define ERPC_TYPE_CONNECTION (erpc_connection_get_type())
G_DECLARE_FINAL_TYPE(ErpcConnection, erpc_connection, ERPC, CONNECTION, GObject)

ErpcConnection *
erpc_connection_new(ErpcTransport *transport, gsize max_message_size, guint max_depth);
guint64
erpc_connection_get_id(ErpcConnection *self);
const gchar *
erpc_connection_get_peer(ErpcConnection *self);
ErpcTransport *
erpc_connection_get_transport(ErpcConnection *self);
GCancellable *
erpc_connection_get_cancellable(ErpcConnection *self);
gboolean
erpc_connection_is_closed(ErpcConnection *self);
void
erpc_connection_send(ErpcConnection *self, GBytes *message);
void
erpc_connection_set_max_queued_bytes(ErpcConnection *self, guint64 max_bytes);
void
erpc_connection_notify(ErpcConnection *self, const gchar *method, JsonNode *params);
void
erpc_connection_send_parse_error(ErpcConnection *self, const GError *error);
void
erpc_connection_close(ErpcConnection *self, gboolean abort);

gpointer
erpc_connection_get_plugin_state(ErpcConnection *self, gconstpointer key);
void
erpc_connection_set_plugin_state(ErpcConnection *self,
				 gconstpointer key,
				 gpointer state,
				 GDestroyNotify destroy);

G_END_DECLS
