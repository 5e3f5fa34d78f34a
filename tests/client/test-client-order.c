/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "erpc-test-client.h"

/*
 * ErpcClient against a scripted server on the other end of a socketpair:
 * process events fed out of order, repeated and before the process/start
 * answer come out in seq order; requests of the server, notifications for
 * unknown processes, a lost connection, a refused initialize and a
 * cancelled request.
 */

typedef struct {
	ErpcClient *client;
	GSocketConnection *stream;
	ErpcConnection *server;
	GQueue received; /* ErpcMessage from the client */
} Fixture;

static void
server_message_cb(ErpcConnection *connection, ErpcMessage *message, Fixture *fx)
{
	g_queue_push_tail(&fx->received, erpc_message_ref(message));
}

/* the next message from the client, which must be @method */
static ErpcMessage *
server_receive(Fixture *fx, const gchar *method)
{
	ErpcMessage *message;

	ESD_WAIT_UNTIL(!g_queue_is_empty(&fx->received), ERPC_TEST_TIMEOUT_MS);
	message = g_queue_pop_head(&fx->received);
	g_assert_cmpstr(erpc_message_get_method(message), ==, method);
	return message;
}

static void
server_send(Fixture *fx, const gchar *json)
{
	g_autoptr(GBytes) bytes = g_bytes_new(json, strlen(json));
	erpc_connection_send(fx->server, bytes);
}

static void
server_answer(Fixture *fx, ErpcMessage *request, const gchar *result_json)
{
	g_autoptr(JsonNode) result = esd_test_json_parse(result_json);
	g_autoptr(GBytes) bytes = erpc_message_new_result(erpc_message_get_id(request), result);
	erpc_connection_send(fx->server, bytes);
}

static void
server_close(Fixture *fx)
{
	erpc_connection_close(fx->server, TRUE);
	g_io_stream_close(G_IO_STREAM(fx->stream), NULL, NULL);
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(ErpcLineTransport) transport = NULL;
	g_autoptr(ErpcMessage) initialize = NULL;
	g_autoptr(ErpcMessage) initialized = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;
	gint fds[2];

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
	fx->client = erpc_client_new_for_fd(fds[0], &error);
	g_assert_no_error(error);
	socket = g_socket_new_from_fd(fds[1], &error);
	g_assert_no_error(error);
	fx->stream = g_socket_connection_factory_create_connection(socket);
	transport = erpc_line_transport_new(g_io_stream_get_input_stream(G_IO_STREAM(fx->stream)),
					    g_io_stream_get_output_stream(G_IO_STREAM(fx->stream)),
					    "test",
					    1024 * 1024);
	fx->server = erpc_connection_new(ERPC_TRANSPORT(transport), 1024 * 1024, 64);
	g_signal_connect(fx->server, "message", G_CALLBACK(server_message_cb), fx);
	g_queue_init(&fx->received);

	erpc_client_connect_async(fx->client, NULL, erpc_test_result_cb, &slot);
	initialize = server_receive(fx, "initialize");
	server_answer(fx, initialize, "{\"sessionId\":\"s1\",\"environmentInfo\":{}}");
	initialized = server_receive(fx, "initialized");
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_connect_finish(fx->client, res, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_client_get_session_id(fx->client), ==, "s1");
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	g_queue_clear_full(&fx->received, (GDestroyNotify)erpc_message_unref);
	erpc_client_close(fx->client);
	server_close(fx);
	g_clear_object(&fx->server);
	g_clear_object(&fx->stream);
	g_clear_object(&fx->client);
}

static void
send_event(Fixture *fx, const gchar *kind, guint seq)
{
	g_autofree gchar *json = NULL;

	if (g_strcmp0(kind, "a") == 0 || g_strcmp0(kind, "c") == 0)
		json = g_strdup_printf("{\"method\":\"process/output\",\"params\":{\"processId\":"
				       "\"p\",\"seq\":%u,\"stream\":\"stdout\",\"chunk\":\"%s\"}}",
				       seq,
				       g_strcmp0(kind, "a") == 0 ? "YQ==" : "Yw==");
	else if (g_strcmp0(kind, "b") == 0)
		json =
		    g_strdup_printf("{\"method\":\"process/output\",\"params\":{\"processId\":"
				    "\"p\",\"seq\":%u,\"stream\":\"stderr\",\"chunk\":\"Yg==\"}}",
				    seq);
	else if (g_strcmp0(kind, "exited") == 0)
		json = g_strdup_printf("{\"method\":\"process/exited\",\"params\":{\"processId\":"
				       "\"p\",\"seq\":%u,\"exitCode\":2,\"sandboxDenied\":false}}",
				       seq);
	else
		json = g_strdup_printf(
		    "{\"method\":\"process/closed\",\"params\":{\"processId\":\"p\",\"seq\":%u}}",
		    seq);
	server_send(fx, json);
}

/* seq 1 a, 2 b (stderr), 3 c, 4 exit 2, 5 closed: sent 4 2 5 3, then 1, then repeats */
static void
test_order(Fixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"true", NULL};
	g_autoptr(ErpcClientProcess) process = erpc_client_process_new(fx->client, "p", argv);
	g_autoptr(ErpcMessage) start = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;
	ErpcTestRun run = {0};

	erpc_test_run_watch(&run, process);
	erpc_client_process_start_async(process, NULL, erpc_test_result_cb, &slot);
	start = server_receive(fx, "process/start");

	/* events may come before the start answer, and in any order */
	send_event(fx, "exited", 4);
	send_event(fx, "b", 2);
	send_event(fx, "closed", 5);
	send_event(fx, "c", 3);
	esd_test_iterate(100);
	esd_test_iterate(100);
	g_assert_cmpstr(run.events->str, ==, "");
	g_assert_cmpuint(erpc_client_process_get_last_seq(process), ==, 0);

	send_event(fx, "a", 1);
	send_event(fx, "b", 2);
	send_event(fx, "c", 3);
	erpc_test_wait_closed(&run);
	server_answer(fx, start, "{\"processId\":\"p\",\"sandboxType\":\"none\"}");
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_process_start_finish(process, res, &error));
	g_assert_no_error(error);

	g_assert_cmpstr(run.events->str, ==, "ooox2c");
	g_assert_cmpstr(run.out->str, ==, "ac");
	g_assert_cmpstr(run.err->str, ==, "b");
	g_assert_cmpuint(run.seq_errors, ==, 0);
	g_assert_cmpuint(erpc_client_process_get_last_seq(process), ==, 5);
	g_assert_cmpint(erpc_client_process_get_exit_code(process), ==, 2);

	/* after the close nothing more is emitted */
	send_event(fx, "a", 6);
	esd_test_iterate(100);
	g_assert_cmpstr(run.events->str, ==, "ooox2c");
	erpc_test_run_clear(&run);
}

static void
count_cb(ErpcClient *client, const gchar *method, JsonNode *params, guint *count)
{
	(*count)++;
}

/* a request of the server is answered -32601; unknown processes are only notifications */
static void
test_server_request(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(ErpcMessage) reply = NULL;
	guint count = 0;

	g_signal_connect(fx->client, "notification", G_CALLBACK(count_cb), &count);
	server_send(fx,
		    "{\"id\":1,\"method\":\"network/policyRequest\",\"params\":{\"processId\":"
		    "\"x\"}}");
	ESD_WAIT_UNTIL(!g_queue_is_empty(&fx->received), ERPC_TEST_TIMEOUT_MS);
	reply = g_queue_pop_head(&fx->received);
	g_assert_cmpint(erpc_message_get_kind(reply), ==, ERPC_MESSAGE_KIND_ERROR);
	g_assert_cmpint(erpc_message_get_error_code(reply), ==, ERPC_WIRE_METHOD_NOT_FOUND);

	send_event(fx, "a", 1);
	ESD_WAIT_UNTIL(count == 1, ERPC_TEST_TIMEOUT_MS);
	g_signal_handlers_disconnect_by_data(fx->client, &count);
}

/* a stream cannot be recovered: idempotent requests fail as disconnected,
 * others as lost, since they may have run */
static void
test_connection_lost(Fixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"true", NULL};
	g_autoptr(ErpcClientProcess) process = erpc_client_process_new(fx->client, "p", argv);
	g_autoptr(ErpcMessage) info = NULL;
	g_autoptr(ErpcMessage) signal = NULL;
	g_autoptr(GAsyncResult) res1 = NULL;
	g_autoptr(GAsyncResult) res2 = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot1 = NULL;
	GAsyncResult *slot2 = NULL;

	erpc_client_get_info_async(fx->client, NULL, erpc_test_result_cb, &slot1);
	erpc_client_process_interrupt_async(process, NULL, erpc_test_result_cb, &slot2);
	info = server_receive(fx, "environment/info");
	signal = server_receive(fx, "process/signal");
	server_close(fx);

	res1 = erpc_test_wait(&slot1);
	g_assert_null(erpc_client_get_info_finish(fx->client, res1, &error));
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_DISCONNECTED);
	g_clear_error(&error);
	res2 = erpc_test_wait(&slot2);
	g_assert_false(erpc_client_process_interrupt_finish(process, res2, &error));
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_CONNECTION_LOST);
	g_assert_cmpint(erpc_client_get_state(fx->client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	g_clear_error(&error);
	g_clear_object(&res1);

	/* later requests fail at once */
	erpc_client_get_info_async(fx->client, NULL, erpc_test_result_cb, &slot1);
	res1 = erpc_test_wait(&slot1);
	g_assert_null(erpc_client_get_info_finish(fx->client, res1, &error));
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_DISCONNECTED);
}

static void
test_cancel(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(ErpcMessage) info = NULL;
	g_autoptr(ErpcMessage) status = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_get_info_async(fx->client, cancellable, erpc_test_result_cb, &slot);
	info = server_receive(fx, "environment/info");
	g_cancellable_cancel(cancellable);
	res = erpc_test_wait(&slot);
	g_assert_null(erpc_client_get_info_finish(fx->client, res, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_clear_error(&error);
	g_clear_object(&res);

	/* the late answer is dropped, the next request goes on */
	server_answer(fx, info, "{}");
	erpc_client_get_status_async(fx->client, NULL, erpc_test_result_cb, &slot);
	status = server_receive(fx, "environment/status");
	server_answer(fx, status, "{\"status\":\"ready\"}");
	res = erpc_test_wait(&slot);
	text = erpc_client_get_status_finish(fx->client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(text, ==, "ready");
}

/* an error answer carries the wire code back as an ErpcError */
static void
test_error_answer(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(ErpcMessage) read = NULL;
	g_autoptr(GBytes) reply = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_fs_read_file_async(fx->client, "/x", NULL, erpc_test_result_cb, &slot);
	read = server_receive(fx, "fs/readFile");
	reply = erpc_message_new_error(erpc_message_get_id(read),
				       ERPC_WIRE_NOT_FOUND,
				       "No such file or directory (os error 2)",
				       NULL);
	erpc_connection_send(fx->server, reply);
	res = erpc_test_wait(&slot);
	g_assert_null(erpc_client_fs_read_file_finish(fx->client, res, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "No such file or directory (os error 2)");
}

/* the requests that are neither processes nor files: their params, and their answers passed on */
static void
test_services(Fixture *fx, gconstpointer user_data)
{
	const gchar *headers[] = {"Accept: text/plain", "X-Two: a: b", NULL};
	const gchar *config_paths[] = {"model", "sandbox_workspace_write.writable_roots", NULL};
	const gchar *ids[] = {"r1", NULL};
	const gchar *paths[] = {"/srv/root", NULL};
	g_autoptr(GBytes) body = g_bytes_new_static("hi", 2);
	g_autoptr(ErpcMessage) http = NULL;
	g_autoptr(ErpcMessage) config = NULL;
	g_autoptr(ErpcMessage) roots = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) response = NULL;
	g_autoptr(JsonObject) layers = NULL;
	g_autoptr(JsonArray) found = NULL;
	g_autofree gchar *params = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_http_request_async(fx->client,
				       "POST",
				       "http://example.com/x",
				       headers,
				       body,
				       1500,
				       FALSE,
				       NULL,
				       erpc_test_result_cb,
				       &slot);
	http = server_receive(fx, "http/request");
	params = esd_test_json_to_string(erpc_message_get_params(http));
	esd_assert_json_eq(
	    params,
	    "{\"method\":\"POST\",\"url\":\"http://example.com/x\",\"requestId\":\"r1\","
	    "\"headers\":[{\"name\":\"Accept\",\"value\":\"text/plain\"},"
	    "{\"name\":\"X-Two\",\"value\":\"a: b\"}],\"bodyBase64\":\"aGk=\","
	    "\"timeoutMs\":1500,\"redirectPolicy\":\"stop\",\"streamResponse\":false}");
	server_answer(fx, http, "{\"status\":201,\"headers\":[],\"bodyBase64\":\"\"}");
	res = erpc_test_wait(&slot);
	response = erpc_client_http_request_finish(fx->client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpint(json_object_get_int_member(response, "status"), ==, 201);
	g_clear_object(&res);
	g_clear_pointer(&params, g_free);

	erpc_client_read_environment_config_async(fx->client,
						  "/work",
						  config_paths,
						  NULL,
						  NULL,
						  erpc_test_result_cb,
						  &slot);
	config = server_receive(fx, "environmentConfig/read");
	params = esd_test_json_to_string(erpc_message_get_params(config));
	esd_assert_json_eq(
	    params,
	    "{\"cwd\":\"file:///work\",\"configPaths\":[[\"model\"],"
	    "[\"sandbox_workspace_write\",\"writable_roots\"]],\"requirementsPaths\":[]}");
	server_answer(fx, config, "{\"config\":{\"layers\":[]}}");
	res = erpc_test_wait(&slot);
	layers = erpc_client_read_environment_config_finish(fx->client, res, &error);
	g_assert_no_error(error);
	g_assert_true(json_object_has_member(layers, "config"));
	g_clear_object(&res);
	g_clear_pointer(&params, g_free);

	erpc_client_discover_capability_roots_async(fx->client,
						    ids,
						    paths,
						    NULL,
						    erpc_test_result_cb,
						    &slot);
	roots = server_receive(fx, "capabilityRoots/discoverV1");
	params = esd_test_json_to_string(erpc_message_get_params(roots));
	esd_assert_json_eq(params, "{\"roots\":[{\"id\":\"r1\",\"path\":\"file:///srv/root\"}]}");
	server_answer(fx, roots, "{\"roots\":[{\"id\":\"r1\",\"error\":null}]}");
	res = erpc_test_wait(&slot);
	found = erpc_client_discover_capability_roots_finish(fx->client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(found), ==, 1);
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	g_test_add("/execserverd/client/order/events",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_order,
		   fixture_teardown);
	g_test_add("/execserverd/client/order/server-request",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_server_request,
		   fixture_teardown);
	g_test_add("/execserverd/client/order/connection-lost",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_connection_lost,
		   fixture_teardown);
	g_test_add("/execserverd/client/order/cancel",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_cancel,
		   fixture_teardown);
	g_test_add("/execserverd/client/order/error-answer",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_error_answer,
		   fixture_teardown);
	g_test_add("/execserverd/client/order/services",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_services,
		   fixture_teardown);
	return g_test_run();
}
