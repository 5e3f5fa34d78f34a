/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-call-private.h"
#include "esd-mock-transport.h"
#include "esd-server.h"

typedef struct {
	EsdServer *server;
	EsdMockTransport *transport;
} DispatcherFixture;

static EsdServer *
make_server(guint concurrent, guint grace)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path =
	    g_build_filename(g_getenv("ESD_TEST_PLUGINDIR"), "libesd-plugin-echo.so", NULL);
	g_autoptr(ErpcPlugin) plugin = NULL;
	EsdServer *server = g_object_new(ESD_TYPE_SERVER,
					 "concurrent-requests",
					 concurrent,
					 "session-grace",
					 grace,
					 NULL);

	plugin = esd_plugin_loader_load_file(esd_server_get_loader(server), path, &error);
	g_assert_no_error(error);
	g_assert_true(esd_server_setup(server, &error));
	g_assert_no_error(error);
	return server;
}

static EsdMockTransport *
connect_mock(EsdServer *server)
{
	EsdMockTransport *transport = esd_mock_transport_new();
	esd_server_add_transport(server, ERPC_TRANSPORT(transport));
	return transport;
}

static void
inject(EsdMockTransport *transport, const gchar *json)
{
	esd_mock_transport_inject(transport, json, -1);
}

static const gchar *
last_sent(EsdMockTransport *transport)
{
	const gchar *last = esd_mock_transport_get_last(transport);
	g_assert_nonnull(last);
	return last;
}

static void
wait_for_sent(EsdMockTransport *transport, guint n, guint timeout_ms)
{
	g_assert_true(esd_mock_transport_wait_for(transport, n, timeout_ms));
}

static gchar *
initialize(EsdMockTransport *transport, const gchar *resume)
{
	g_autofree gchar *request = NULL;
	g_autoptr(JsonNode) root = NULL;

	if (resume != NULL)
		request = g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":"
					  "{\"clientName\":\"t\",\"resumeSessionId\":\"%s\"}}",
					  resume);
	else
		request = g_strdup(
		    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}");
	inject(transport, request);
	root = json_from_string(last_sent(transport), NULL);
	g_assert_nonnull(root);
	if (json_object_has_member(json_node_get_object(root), "error"))
		return NULL;
	return g_strdup(json_object_get_string_member(
	    json_object_get_object_member(json_node_get_object(root), "result"),
	    "sessionId"));
}

static void
fixture_setup(DispatcherFixture *fixture, gconstpointer user_data)
{
	fixture->server =
	    make_server(GPOINTER_TO_UINT(user_data) != 0 ? GPOINTER_TO_UINT(user_data) : 1, 80);
	fixture->transport = connect_mock(fixture->server);
}

static void
fixture_teardown(DispatcherFixture *fixture, gconstpointer user_data)
{
	g_clear_object(&fixture->transport);
	g_clear_object(&fixture->server);
	while (g_main_context_iteration(NULL, FALSE))
		;
}

static void
test_handshake(DispatcherFixture *fixture, gconstpointer user_data)
{
	EsdMockTransport *t = fixture->transport;
	g_autofree gchar *session = NULL;

	inject(t, "{\"id\":1,\"method\":\"test/echo\",\"params\":{}}");
	g_assert_cmpstr(last_sent(t),
			==,
			"{\"error\":{\"code\":-32600,\"message\":\"client must call initialize "
			"before using test methods\"},\"id\":1}");
	session = initialize(t, NULL);
	g_assert_nonnull(session);
	g_assert_true(g_uuid_string_is_valid(session));
	inject(t, "{\"id\":\"x\",\"method\":\"environment/status\"}");
	g_assert_cmpstr(last_sent(t),
			==,
			"{\"error\":{\"code\":-32600,\"message\":\"client must send initialized "
			"before using environment status methods\"},\"id\":\"x\"}");
	inject(t, "{\"method\":\"initialized\"}");
	inject(t, "{\"id\":-3,\"method\":\"environment/status\"}");
	g_assert_cmpstr(last_sent(t), ==, "{\"id\":-3,\"result\":{\"status\":\"ready\"}}");
	inject(t, "{\"id\":4,\"method\":\"test/echo\",\"params\":{\"a\":[1,\"b\",null]}}");
	g_assert_cmpstr(last_sent(t), ==, "{\"id\":4,\"result\":{\"a\":[1,\"b\",null]}}");
	inject(t, "{\"id\":5,\"method\":\"test/future\",\"params\":{}}");
	g_assert_cmpstr(last_sent(t),
			==,
			"{\"error\":{\"code\":-32601,\"message\":\"exec-server stub does not "
			"implement `test/future` yet\"},\"id\":5}");
	inject(t, "{\"id\":6,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}");
	g_assert_cmpstr(last_sent(t),
			==,
			"{\"error\":{\"code\":-32600,\"message\":\"initialize may only be sent "
			"once per connection\"},\"id\":6}");
	inject(t, "{\"id\":7,\"method\":\"test/echo\"}");
	g_assert_cmpstr(last_sent(t),
			==,
			"{\"error\":{\"code\":-32602,\"message\":\"invalid type: null, expected "
			"struct EchoParams\"},\"id\":7}");
	inject(t, "{\"id\":8,\"method\":\"environment/info\",\"params\":[1]}");
	g_assert_cmpstr(last_sent(t),
			==,
			"{\"error\":{\"code\":-32602,\"message\":\"invalid type: sequence, "
			"expected unit\"},\"id\":8}");
	inject(t, "{not json");
	g_assert_true(g_str_has_prefix(last_sent(t),
				       "{\"error\":{\"code\":-32600,\"message\":\"failed to parse "
				       "mock JSON-RPC message from exec-server mock peer: "));
	g_assert_true(g_str_has_suffix(last_sent(t), ",\"id\":-1}"));
	g_assert_false(esd_mock_transport_get_closed(t));
}

typedef struct {
	const gchar *name;
	gboolean initialize_first;
	const gchar *message;
} FatalCase;

static const FatalCase fatal_cases[] = {
    {"initialized-first", FALSE, "{\"method\":\"initialized\"}"},
    {"unknown-notification-before", FALSE, "{\"method\":\"bogus\"}"},
    {"unknown-notification-after", TRUE, "{\"method\":\"bogus/notify\",\"params\":{}}"},
    {"response", TRUE, "{\"id\":99,\"result\":{}}"},
    {"error-response", TRUE, "{\"id\":99,\"error\":{\"code\":1,\"message\":\"x\"}}"},
};

static void
test_fatal(gconstpointer user_data)
{
	const FatalCase *tc = user_data;
	g_autoptr(EsdServer) server = make_server(1, 80);
	g_autoptr(EsdMockTransport) t = connect_mock(server);

	if (tc->initialize_first) {
		g_autofree gchar *session = initialize(t, NULL);
		inject(t, "{\"method\":\"initialized\"}");
	}
	inject(t, tc->message);
	g_assert_true(esd_mock_transport_get_closed(t));
	g_assert_true(esd_mock_transport_get_aborted(t));
	g_assert_true(erpc_transport_is_closed(ERPC_TRANSPORT(t)));
}

/* answers leave in arrival order while only one request runs at a time */
static void
test_serial(void)
{
	g_autoptr(EsdServer) server = make_server(1, 80);
	g_autoptr(EsdMockTransport) t = connect_mock(server);
	g_autofree gchar *session = initialize(t, NULL);

	inject(t, "{\"method\":\"initialized\"}");
	inject(t, "{\"id\":1,\"method\":\"test/sleep\",\"params\":{\"ms\":50}}");
	inject(t, "{\"id\":2,\"method\":\"environment/status\"}");
	g_assert_cmpuint(esd_mock_transport_get_sent(t)->len, ==, 1);
	wait_for_sent(t, 3, 2000);
	g_assert_cmpstr(g_ptr_array_index(esd_mock_transport_get_sent(t), 1),
			==,
			"{\"id\":1,\"result\":{}}");
	g_assert_cmpstr(g_ptr_array_index(esd_mock_transport_get_sent(t), 2),
			==,
			"{\"id\":2,\"result\":{\"status\":\"ready\"}}");
}

static void
test_concurrent(void)
{
	g_autoptr(EsdServer) server = make_server(2, 80);
	g_autoptr(EsdMockTransport) t = connect_mock(server);
	g_autofree gchar *session = initialize(t, NULL);

	inject(t, "{\"method\":\"initialized\"}");
	inject(t, "{\"id\":1,\"method\":\"test/sleep\",\"params\":{\"ms\":50}}");
	inject(t, "{\"id\":2,\"method\":\"environment/status\"}");
	g_assert_cmpstr(last_sent(t), ==, "{\"id\":2,\"result\":{\"status\":\"ready\"}}");
	wait_for_sent(t, 3, 2000);
	g_assert_cmpstr(last_sent(t), ==, "{\"id\":1,\"result\":{}}");
}

/* a request that finishes after its connection closed is dropped quietly */
static void
test_late_answer(void)
{
	g_autoptr(EsdServer) server = make_server(1, 80);
	g_autoptr(EsdMockTransport) t = connect_mock(server);
	g_autofree gchar *session = initialize(t, NULL);
	gint64 deadline;
	guint sent;

	inject(t, "{\"method\":\"initialized\"}");
	inject(t, "{\"id\":1,\"method\":\"test/sleep\",\"params\":{\"ms\":30}}");
	inject(t, "{\"id\":2,\"method\":\"environment/status\"}");
	sent = esd_mock_transport_get_sent(t)->len;
	erpc_transport_close(ERPC_TRANSPORT(t), FALSE);
	deadline = g_get_monotonic_time() + 100 * 1000;
	while (g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	g_assert_cmpuint(esd_mock_transport_get_sent(t)->len, ==, sent);
}

static void
test_resume(void)
{
	g_autoptr(EsdServer) server = make_server(1, 80);
	g_autoptr(EsdMockTransport) a = connect_mock(server);
	g_autoptr(EsdMockTransport) b = connect_mock(server);
	g_autoptr(EsdMockTransport) c = connect_mock(server);
	g_autofree gchar *session = initialize(a, NULL);
	g_autofree gchar *expected = NULL;
	g_autofree gchar *resumed = NULL;

	g_assert_null(initialize(b, session));
	expected =
	    g_strdup_printf("{\"error\":{\"code\":-32010,\"message\":\"session %s is already "
			    "attached to another connection\"},\"id\":1}",
			    session);
	g_assert_cmpstr(last_sent(b), ==, expected);
	g_assert_null(initialize(b, "00000000-0000-0000-0000-000000000000"));
	g_assert_cmpstr(last_sent(b),
			==,
			"{\"error\":{\"code\":-32600,\"message\":\"unknown session id "
			"00000000-0000-0000-0000-000000000000\"},\"id\":1}");
	erpc_transport_close(ERPC_TRANSPORT(a), FALSE);
	/* failed attempts do not count: the same connection may now resume */
	resumed = initialize(b, session);
	g_assert_cmpstr(resumed, ==, session);
	g_assert_null(initialize(c, session));
}

static void
test_expiry(void)
{
	g_autoptr(EsdServer) server = make_server(1, 1);
	g_autoptr(EsdMockTransport) a = connect_mock(server);
	g_autoptr(EsdMockTransport) b = connect_mock(server);
	g_autofree gchar *session = initialize(a, NULL);
	gint64 deadline;

	erpc_transport_close(ERPC_TRANSPORT(a), FALSE);
	deadline = g_get_monotonic_time() + 1500 * 1000;
	while (g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	g_assert_null(initialize(b, session));
	g_assert_true(strstr(last_sent(b), "unknown session id") != NULL);
}

/* large results are answered without copies, and their memory is used again */
static void
test_result_pool(void)
{
	g_autoptr(EsdMockTransport) t = esd_mock_transport_new();
	g_autoptr(ErpcConnection) connection =
	    erpc_connection_new(ERPC_TRANSPORT(t), 1024 * 1024, ERPC_JSON_MAX_DEPTH);
	const gchar *text = "{\"id\":7,\"method\":\"x\"}";
	g_autoptr(ErpcMessage) request = erpc_message_parse(text, strlen(text), 1024, 64, NULL);
	g_autoptr(ErpcCall) call = erpc_call_new(connection, request);
	g_autoptr(ErpcCall) call2 = erpc_call_new(connection, request);
	GString *result = erpc_call_result_string_new(8 * 1024 * 1024);
	GString *again;
	gpointer first;

	g_assert_cmpuint(result->allocated_len, >=, 8 * 1024 * 1024);
	first = result->str;
	g_string_append(result, "{\"big\":true}");
	erpc_call_return_gstring(call, result);
	g_assert_cmpstr(last_sent(t), ==, "{\"id\":7,\"result\":{\"big\":true}}");
	/* the message was written and freed: its buffer is handed out again */
	again = erpc_call_result_string_new(4 * 1024 * 1024);
	g_assert_true(again->str == first);
	g_assert_cmpuint(again->len, ==, 0);
	g_string_append(again, "[]");
	erpc_call_return_gstring(call2, again);
	g_assert_cmpstr(last_sent(t), ==, "{\"id\":7,\"result\":[]}");
	/* small results are plain strings */
	result = erpc_call_result_string_new(16);
	g_assert_cmpuint(result->allocated_len, <, 4 * 1024 * 1024);
	g_string_free(result, TRUE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add("/execserverd/server/dispatcher/handshake",
		   DispatcherFixture,
		   NULL,
		   fixture_setup,
		   test_handshake,
		   fixture_teardown);
	for (guint i = 0; i < G_N_ELEMENTS(fatal_cases); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/dispatcher/fatal/%s", fatal_cases[i].name);
		g_test_add_data_func(path, &fatal_cases[i], test_fatal);
	}
	g_test_add_func("/execserverd/server/dispatcher/serial", test_serial);
	g_test_add_func("/execserverd/server/dispatcher/concurrent", test_concurrent);
	g_test_add_func("/execserverd/server/dispatcher/late-answer", test_late_answer);
	g_test_add_func("/execserverd/server/dispatcher/resume", test_resume);
	g_test_add_func("/execserverd/server/dispatcher/expiry", test_expiry);
	g_test_add_func("/execserverd/server/dispatcher/result-pool", test_result_pool);
	return g_test_run();
}
