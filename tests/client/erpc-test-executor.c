/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <libsoup/soup.h>

#include "erpc-test-executor.h"

static void
erpc_test_executor_send(SoupWebsocketConnection *ws, JsonNode *id, JsonNode *result, gint code)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree gchar *text = NULL;

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "id");
	json_builder_add_value(builder, json_node_copy(id));
	if (code != 0) {
		json_builder_set_member_name(builder, "error");
		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "code");
		json_builder_add_int_value(builder, code);
		json_builder_set_member_name(builder, "message");
		json_builder_add_string_value(builder, "refused by the test executor");
		json_builder_end_object(builder);
	} else {
		json_builder_set_member_name(builder, "result");
		json_builder_add_value(builder, result);
	}
	json_builder_end_object(builder);
	root = json_builder_get_root(builder);
	text = json_to_string(root, FALSE);
	soup_websocket_connection_send_text(ws, text);
}

static JsonNode *
erpc_test_executor_initialize(ErpcTestExecutor *self, JsonObject *params)
{
	g_autofree gchar *session = NULL;
	g_autofree gchar *json = NULL;
	const gchar *resume =
	    json_object_get_string_member_with_default(params, "resumeSessionId", NULL);

	self->initializes++;
	if (resume != NULL) {
		self->resumes++;
		session = g_strdup(resume);
	} else {
		session = g_strdup_printf("session-%u", ++self->sessions);
	}
	json = g_strdup_printf("{\"sessionId\":\"%s\",\"environmentInfo\":{"
			       "\"shell\":{\"name\":\"sh\",\"path\":\"/bin/sh\"},"
			       "\"executorVersion\":\"0.171.0\",\"platformOs\":\"linux\","
			       "\"capabilities\":{\"capabilityDiscoverySandbox\":%s,"
			       "\"capabilityDiscoveryV2\":%s}}}",
			       session,
			       self->sandbox_capability ? "true" : "false",
			       self->v2_capability ? "true" : "false");
	return json_from_string(json, NULL);
}

/* each root found, empty */
static JsonNode *
erpc_test_executor_discover(ErpcTestExecutor *self, JsonObject *params)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	JsonArray *roots = json_object_get_array_member(params, "roots");

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "roots");
	json_builder_begin_array(builder);
	for (guint i = 0; i < json_array_get_length(roots); i++) {
		JsonObject *root = json_array_get_object_element(roots, i);
		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "id");
		json_builder_add_string_value(
		    builder,
		    self->mismatch ? "other" : json_object_get_string_member(root, "id"));
		json_builder_set_member_name(builder, "path");
		json_builder_add_string_value(builder, json_object_get_string_member(root, "path"));
		json_builder_set_member_name(builder, "plugin");
		json_builder_add_null_value(builder);
		json_builder_set_member_name(builder, "skills");
		json_builder_begin_array(builder);
		json_builder_end_array(builder);
		json_builder_set_member_name(builder, "namespaceManifests");
		json_builder_begin_array(builder);
		json_builder_end_array(builder);
		json_builder_set_member_name(builder, "warnings");
		json_builder_begin_array(builder);
		json_builder_end_array(builder);
		json_builder_set_member_name(builder, "error");
		json_builder_add_null_value(builder);
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static void
erpc_test_executor_message_cb(SoupWebsocketConnection *ws,
			      gint type,
			      GBytes *message,
			      ErpcTestExecutor *self)
{
	g_autoptr(JsonNode) node = NULL;
	JsonObject *request;
	JsonNode *id;
	const gchar *method;
	JsonObject *params = NULL;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(message, &len);
	g_autofree gchar *text = g_strndup(data, len);

	node = json_from_string(text, NULL);
	g_assert_nonnull(node);
	request = json_node_get_object(node);
	method = json_object_get_string_member_with_default(request, "method", NULL);
	id = json_object_get_member(request, "id");
	if (json_object_has_member(request, "params") &&
	    JSON_NODE_HOLDS_OBJECT(json_object_get_member(request, "params")))
		params = json_object_get_object_member(request, "params");
	if (method == NULL || id == NULL)
		return;
	if (g_strcmp0(method, "initialize") == 0) {
		if (self->refuse_resume && json_object_has_member(params, "resumeSessionId")) {
			self->initializes++;
			erpc_test_executor_send(ws, id, NULL, -32600);
			return;
		}
		erpc_test_executor_send(ws, id, erpc_test_executor_initialize(self, params), 0);
		return;
	}
	if (g_strcmp0(method, "capabilityRoots/discoverV1") == 0 ||
	    g_strcmp0(method, "capabilities/discoverV2") == 0) {
		self->discovers++;
		g_clear_pointer(&self->last_params, json_object_unref);
		self->last_params = params != NULL ? json_object_ref(params) : NULL;
		if (self->drop_discovers > 0) {
			self->drop_discovers--;
			g_io_stream_close(soup_websocket_connection_get_io_stream(ws), NULL, NULL);
			return;
		}
		if (g_strcmp0(method, "capabilities/discoverV2") == 0)
			erpc_test_executor_send(
			    ws,
			    id,
			    json_from_string("{\"plugins\":[],\"skills\":[],\"warnings\":[]}",
					     NULL),
			    0);
		else
			erpc_test_executor_send(ws,
						id,
						erpc_test_executor_discover(self, params),
						0);
		return;
	}
	if (g_strcmp0(method, "environment/status") == 0) {
		erpc_test_executor_send(ws,
					id,
					json_from_string("{\"status\":\"ready\"}", NULL),
					0);
		return;
	}
	erpc_test_executor_send(ws, id, NULL, -32601);
}

static void
erpc_test_executor_websocket_cb(SoupServer *server,
				SoupServerMessage *msg,
				const char *path,
				SoupWebsocketConnection *ws,
				gpointer user_data)
{
	ErpcTestExecutor *self = user_data;

	self->connections++;
	g_ptr_array_add(self->sockets, g_object_ref(ws));
	g_signal_connect(ws, "message", G_CALLBACK(erpc_test_executor_message_cb), self);
}

ErpcTestExecutor *
erpc_test_executor_new(void)
{
	ErpcTestExecutor *self = g_new0(ErpcTestExecutor, 1);
	g_autoptr(GError) error = NULL;
	g_autoslist(GUri) uris = NULL;
	SoupServer *server = soup_server_new(NULL, NULL);

	self->server = server;
	self->sockets = g_ptr_array_new_with_free_func(g_object_unref);
	self->sandbox_capability = TRUE;
	self->v2_capability = TRUE;
	soup_server_add_websocket_handler(server,
					  NULL,
					  NULL,
					  NULL,
					  erpc_test_executor_websocket_cb,
					  self,
					  NULL);
	g_assert_true(soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
	g_assert_no_error(error);
	uris = soup_server_get_uris(server);
	self->port = (guint16)g_uri_get_port(uris->data);
	return self;
}

gchar *
erpc_test_executor_get_url(ErpcTestExecutor *self)
{
	return g_strdup_printf("ws://127.0.0.1:%u", self->port);
}

/* every open connection, without a closing handshake */
void
erpc_test_executor_drop_all(ErpcTestExecutor *self)
{
	/* a copy of the list keeps its free function: take references */
	g_autoptr(GPtrArray) sockets =
	    g_ptr_array_copy(self->sockets, (GCopyFunc)(void (*)(void))g_object_ref, NULL);

	for (guint i = 0; i < sockets->len; i++)
		if (soup_websocket_connection_get_state(g_ptr_array_index(sockets, i)) ==
		    SOUP_WEBSOCKET_STATE_OPEN)
			g_io_stream_close(
			    soup_websocket_connection_get_io_stream(g_ptr_array_index(sockets, i)),
			    NULL,
			    NULL);
}

void
erpc_test_executor_free(ErpcTestExecutor *self)
{
	for (guint i = 0; i < self->sockets->len; i++)
		g_signal_handlers_disconnect_by_data(g_ptr_array_index(self->sockets, i), self);
	g_ptr_array_unref(self->sockets);
	soup_server_disconnect(self->server);
	g_object_unref(self->server);
	g_clear_pointer(&self->last_params, json_object_unref);
	g_free(self);
}
