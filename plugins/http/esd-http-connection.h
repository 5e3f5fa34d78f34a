/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* the http requests of one connection, with their active stream ids */
typedef struct _EsdHttpConnection EsdHttpConnection;

EsdHttpConnection *
esd_http_connection_get(ErpcConnection *connection, gconstpointer key);
void
esd_http_connection_drop(ErpcConnection *connection, gconstpointer key);
gboolean
esd_http_connection_add_stream(EsdHttpConnection *self,
			       const gchar *request_id,
			       guint max_streams,
			       GError **error);
void
esd_http_connection_remove_stream(EsdHttpConnection *self, const gchar *request_id);
void
esd_http_connection_add_request(EsdHttpConnection *self, GObject *request);
void
esd_http_connection_remove_request(EsdHttpConnection *self, GObject *request);

G_END_DECLS
