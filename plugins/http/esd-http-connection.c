/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-http-connection.h"
#include "esd-http-request.h"

/*
 * Per connection: the requestIds of its active streams (one may not be
 * reused until its final frame) and every request still running, which
 * the end of the connection cancels.
 */
struct _EsdHttpConnection {
	GHashTable *streams;  /* requestId → itself */
	GHashTable *requests; /* EsdHttpRequest, a reference each */
};

static void
esd_http_connection_free(gpointer data)
{
	EsdHttpConnection *self = data;
	g_autoptr(GHashTable) requests = g_steal_pointer(&self->requests);
	GHashTableIter iter;
	gpointer request;

	/* a cancelled request no longer knows this state, and never calls back */
	g_hash_table_iter_init(&iter, requests);
	while (g_hash_table_iter_next(&iter, &request, NULL))
		esd_http_request_cancel(request);
	g_hash_table_iter_init(&iter, requests);
	while (g_hash_table_iter_next(&iter, &request, NULL)) {
		g_hash_table_iter_steal(&iter);
		g_object_unref(request);
	}
	g_hash_table_unref(self->streams);
	g_free(self);
}

/**
 * esd_http_connection_get:
 * @connection: a connection
 * @key: the plugin
 *
 * Returns: (transfer none): the state of @connection, made on first use
 */
EsdHttpConnection *
esd_http_connection_get(ErpcConnection *connection, gconstpointer key)
{
	EsdHttpConnection *self = erpc_connection_get_plugin_state(connection, key);

	if (self == NULL) {
		self = g_new0(EsdHttpConnection, 1);
		self->streams = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		self->requests = g_hash_table_new(NULL, NULL);
		erpc_connection_set_plugin_state(connection, key, self, esd_http_connection_free);
	}
	return self;
}

/* the connection has gone: cancel what runs for it */
void
esd_http_connection_drop(ErpcConnection *connection, gconstpointer key)
{
	erpc_connection_set_plugin_state(connection, key, NULL, NULL);
}

/**
 * esd_http_connection_add_stream:
 * @self: the state of a connection
 * @request_id: the stream's requestId
 * @max_streams: how many streams the connection may have
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @request_id is now active
 */
gboolean
esd_http_connection_add_stream(EsdHttpConnection *self,
			       const gchar *request_id,
			       guint max_streams,
			       GError **error)
{
	if (g_hash_table_contains(self->streams, request_id)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "http/request streamResponse requestId `%s` is already active",
			    request_id);
		return FALSE;
	}
	if (g_hash_table_size(self->streams) >= max_streams) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_BUSY,
			    "http/request: too many active streamed responses on this connection "
			    "(limit %u, --http-max-streams)",
			    max_streams);
		return FALSE;
	}
	g_hash_table_add(self->streams, g_strdup(request_id));
	return TRUE;
}

void
esd_http_connection_remove_stream(EsdHttpConnection *self, const gchar *request_id)
{
	g_hash_table_remove(self->streams, request_id);
}

void
esd_http_connection_add_request(EsdHttpConnection *self, GObject *request)
{
	g_hash_table_add(self->requests, g_object_ref(request));
}

void
esd_http_connection_remove_request(EsdHttpConnection *self, GObject *request)
{
	if (g_hash_table_steal(self->requests, request))
		g_object_unref(request);
}
