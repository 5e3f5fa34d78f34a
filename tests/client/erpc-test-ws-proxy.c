/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <libsoup/soup.h>

#include "erpc-test-ws-proxy.h"

typedef struct {
	ErpcTestWsProxy *proxy;
	SoupWebsocketConnection *down;
	SoupWebsocketConnection *up;
	GPtrArray *queued; /* GBytes from downstream before upstream is open */
	gboolean closed;
} ErpcTestWsPair;

static void
erpc_test_ws_pair_close(ErpcTestWsPair *pair)
{
	if (pair->closed)
		return;
	pair->closed = TRUE;
	/* a drop, not a closing handshake */
	if (pair->down != NULL)
		g_io_stream_close(soup_websocket_connection_get_io_stream(pair->down), NULL, NULL);
	if (pair->up != NULL)
		g_io_stream_close(soup_websocket_connection_get_io_stream(pair->up), NULL, NULL);
}

static void
erpc_test_ws_pair_free(ErpcTestWsPair *pair)
{
	if (pair->down != NULL)
		g_signal_handlers_disconnect_by_data(pair->down, pair);
	if (pair->up != NULL)
		g_signal_handlers_disconnect_by_data(pair->up, pair);
	g_clear_object(&pair->down);
	g_clear_object(&pair->up);
	g_ptr_array_unref(pair->queued);
	g_free(pair);
}

static void
erpc_test_ws_pair_rewrite_in(ErpcTestWsProxy *self, JsonObject *capabilities)
{
	GHashTableIter iter;
	gpointer key;
	gpointer value;

	g_hash_table_iter_init(&iter, self->capabilities);
	while (g_hash_table_iter_next(&iter, &key, &value))
		json_object_set_boolean_member(capabilities, key, GPOINTER_TO_INT(value) - 1);
}

static JsonObject *
erpc_test_ws_object(JsonObject *object, const gchar *member)
{
	JsonNode *node = object != NULL ? json_object_get_member(object, member) : NULL;
	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

/* the server's answers, with the capabilities told */
static void
erpc_test_ws_up_message_cb(SoupWebsocketConnection *ws,
			   gint type,
			   GBytes *message,
			   ErpcTestWsPair *pair)
{
	gsize len = 0;
	const gchar *data = g_bytes_get_data(message, &len);
	g_autofree gchar *text = g_strndup(data, len);
	g_autoptr(JsonNode) node = json_from_string(text, NULL);
	JsonObject *result = node != NULL && JSON_NODE_HOLDS_OBJECT(node)
				 ? erpc_test_ws_object(json_node_get_object(node), "result")
				 : NULL;
	JsonObject *capabilities = erpc_test_ws_object(result, "capabilities");
	g_autofree gchar *rewritten = NULL;

	if (capabilities == NULL)
		capabilities = erpc_test_ws_object(erpc_test_ws_object(result, "environmentInfo"),
						   "capabilities");
	if (capabilities == NULL) {
		soup_websocket_connection_send_text(pair->down, text);
		return;
	}
	erpc_test_ws_pair_rewrite_in(pair->proxy, capabilities);
	rewritten = json_to_string(node, FALSE);
	soup_websocket_connection_send_text(pair->down, rewritten);
}

/* the client's requests; FALSE when the pair was dropped */
static gboolean
erpc_test_ws_pair_forward(ErpcTestWsPair *pair, GBytes *message)
{
	ErpcTestWsProxy *self = pair->proxy;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(message, &len);
	g_autofree gchar *text = g_strndup(data, len);
	g_autoptr(JsonNode) node = json_from_string(text, NULL);
	JsonObject *request =
	    node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
	const gchar *method =
	    request != NULL ? json_object_get_string_member_with_default(request, "method", "")
			    : "";

	if (g_str_has_prefix(method, "capabilityRoots/") ||
	    g_str_has_prefix(method, "capabilities/")) {
		self->discovers++;
		g_clear_pointer(&self->last_params, json_object_unref);
		if (erpc_test_ws_object(request, "params") != NULL)
			self->last_params = json_object_ref(erpc_test_ws_object(request, "params"));
		if (self->drop_discovers > 0) {
			self->drop_discovers--;
			erpc_test_ws_pair_close(pair);
			return FALSE;
		}
	}
	soup_websocket_connection_send_text(pair->up, text);
	return TRUE;
}

static void
erpc_test_ws_down_message_cb(SoupWebsocketConnection *ws,
			     gint type,
			     GBytes *message,
			     ErpcTestWsPair *pair)
{
	if (pair->closed)
		return;
	if (pair->up == NULL) {
		g_ptr_array_add(pair->queued, g_bytes_ref(message));
		return;
	}
	erpc_test_ws_pair_forward(pair, message);
}

static void
erpc_test_ws_closed_cb(SoupWebsocketConnection *ws, ErpcTestWsPair *pair)
{
	erpc_test_ws_pair_close(pair);
}

static void
erpc_test_ws_up_ready_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcTestWsPair *pair = user_data;
	g_autoptr(GError) error = NULL;
	SoupWebsocketConnection *up =
	    soup_session_websocket_connect_finish(SOUP_SESSION(source), res, &error);

	if (up == NULL) {
		g_debug("ws proxy: upstream: %s", error->message);
		erpc_test_ws_pair_close(pair);
		return;
	}
	pair->up = up;
	/* as the client and the daemon: libsoup's 128 KiB would cut a large answer */
	soup_websocket_connection_set_max_incoming_payload_size(up, 0);
	if (pair->closed) {
		erpc_test_ws_pair_close(pair);
		return;
	}
	g_signal_connect(up, "message", G_CALLBACK(erpc_test_ws_up_message_cb), pair);
	g_signal_connect(up, "closed", G_CALLBACK(erpc_test_ws_closed_cb), pair);
	for (guint i = 0; i < pair->queued->len; i++) {
		if (!erpc_test_ws_pair_forward(pair, g_ptr_array_index(pair->queued, i)))
			break;
	}
	g_ptr_array_set_size(pair->queued, 0);
}

static void
erpc_test_ws_proxy_websocket_cb(SoupServer *server,
				SoupServerMessage *msg,
				const char *path,
				SoupWebsocketConnection *ws,
				gpointer user_data)
{
	ErpcTestWsProxy *self = user_data;
	ErpcTestWsPair *pair = g_new0(ErpcTestWsPair, 1);
	g_autoptr(SoupMessage) upstream = soup_message_new("GET", self->upstream_url);

	self->connections++;
	pair->proxy = self;
	pair->down = g_object_ref(ws);
	soup_websocket_connection_set_max_incoming_payload_size(ws, 0);
	pair->queued = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
	g_ptr_array_add(self->pairs, pair);
	g_signal_connect(ws, "message", G_CALLBACK(erpc_test_ws_down_message_cb), pair);
	g_signal_connect(ws, "closed", G_CALLBACK(erpc_test_ws_closed_cb), pair);
	soup_session_websocket_connect_async(self->session,
					     upstream,
					     NULL,
					     NULL,
					     G_PRIORITY_DEFAULT,
					     NULL,
					     erpc_test_ws_up_ready_cb,
					     pair);
}

ErpcTestWsProxy *
erpc_test_ws_proxy_new(const gchar *upstream_url)
{
	ErpcTestWsProxy *self = g_new0(ErpcTestWsProxy, 1);
	g_autoptr(GError) error = NULL;
	g_autoslist(GUri) uris = NULL;

	self->capabilities = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->upstream_url = g_strdup(upstream_url);
	self->pairs = g_ptr_array_new_with_free_func((GDestroyNotify)erpc_test_ws_pair_free);
	self->session = soup_session_new();
	self->server = soup_server_new(NULL, NULL);
	soup_server_add_websocket_handler(self->server,
					  NULL,
					  NULL,
					  NULL,
					  erpc_test_ws_proxy_websocket_cb,
					  self,
					  NULL);
	g_assert_true(
	    soup_server_listen_local(self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
	g_assert_no_error(error);
	uris = soup_server_get_uris(self->server);
	self->port = (guint16)g_uri_get_port(uris->data);
	return self;
}

gchar *
erpc_test_ws_proxy_get_url(ErpcTestWsProxy *self)
{
	return g_strdup_printf("ws://127.0.0.1:%u", self->port);
}

void
erpc_test_ws_proxy_rewrite(ErpcTestWsProxy *self, const gchar *capability, gboolean value)
{
	g_hash_table_replace(self->capabilities,
			     g_strdup(capability),
			     GINT_TO_POINTER((value ? 1 : 0) + 1));
}

void
erpc_test_ws_proxy_free(ErpcTestWsProxy *self)
{
	for (guint i = 0; i < self->pairs->len; i++)
		erpc_test_ws_pair_close(g_ptr_array_index(self->pairs, i));
	g_ptr_array_unref(self->pairs);
	soup_server_disconnect(self->server);
	g_object_unref(self->server);
	g_object_unref(self->session);
	g_hash_table_unref(self->capabilities);
	g_clear_pointer(&self->last_params, json_object_unref);
	g_free(self->upstream_url);
	g_free(self);
}
