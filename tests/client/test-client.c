/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "erpc-test-client.h"

/*
 * ErpcClient against the real daemon, every typed call over WebSocket and
 * over a spawned `execserverd --listen stdio`: the handshake, environment,
 * processes (output order, exit codes, stdin, interrupt, terminate, read)
 * and server errors mapped back into ERPC_ERROR. test-client-fs.c has fs.
 */

static void
test_handshake(ErpcTestFixture *fx, gconstpointer user_data)
{
	JsonObject *info = erpc_client_get_environment_info(fx->client);

	esd_test_assert_uuid_v4(erpc_client_get_session_id(fx->client));
	g_assert_nonnull(info);
	g_assert_true(json_object_has_member(info, "shell"));
	g_assert_true(json_object_has_member(info, "capabilities"));
}

static void
test_environment(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(JsonObject) info = NULL;
	g_autofree gchar *status = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_get_info_async(fx->client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	info = erpc_client_get_info_finish(fx->client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(info, "executorVersion"), ==, "0.171.0");
	g_clear_object(&res);

	erpc_client_get_status_async(fx->client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	status = erpc_client_get_status_finish(fx->client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(status, ==, "ready");
}

static void
count_notification_cb(ErpcClient *client, const gchar *method, JsonNode *params, guint *count)
{
	g_assert_cmpstr(method, ==, "process/output");
	(*count)++;
}

static void
test_process_output(ErpcTestFixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"sh", "-c", "echo out; echo err >&2; echo more; exit 3", NULL};
	g_autoptr(ErpcClientProcess) process = NULL;
	ErpcTestRun run = {0};
	guint notifications = 0;

	g_signal_connect(fx->client,
			 "notification::process/output",
			 G_CALLBACK(count_notification_cb),
			 &notifications);
	process = erpc_test_start(fx->client, "p1", argv, FALSE, &run);
	erpc_test_wait_closed(&run);
	g_assert_cmpstr(run.out->str, ==, "out\nmore\n");
	g_assert_cmpstr(run.err->str, ==, "err\n");
	g_assert_cmpint(run.exit_code, ==, 3);
	g_assert_cmpint(erpc_client_process_get_exit_code(process), ==, 3);
	g_assert_true(erpc_client_process_is_closed(process));
	g_assert_true(g_str_has_suffix(run.events->str, "x3c"));
	g_assert_cmpuint(run.seq_errors, ==, 0);
	g_assert_cmpuint(notifications, >, 0);
	g_signal_handlers_disconnect_by_data(fx->client, &notifications);
	erpc_test_run_clear(&run);
}

static void
test_process_write(ErpcTestFixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"sh", "-c", "read a; echo got $a; read b; echo got $b", NULL};
	g_autoptr(ErpcClientProcess) process = NULL;
	g_autoptr(GError) error = NULL;
	ErpcTestRun run = {0};
	const gchar *lines[] = {"one\n", "two\n"};

	process = erpc_test_start(fx->client, "writer", argv, TRUE, &run);
	for (guint i = 0; i < G_N_ELEMENTS(lines); i++) {
		g_autoptr(GBytes) data = g_bytes_new_static(lines[i], strlen(lines[i]));
		g_autoptr(GAsyncResult) res = NULL;
		g_autofree gchar *status = NULL;
		GAsyncResult *slot = NULL;

		erpc_client_process_write_async(process, data, NULL, erpc_test_result_cb, &slot);
		res = erpc_test_wait(&slot);
		status = erpc_client_process_write_finish(process, res, &error);
		g_assert_no_error(error);
		g_assert_cmpstr(status, ==, "accepted");
	}
	erpc_test_wait_closed(&run);
	g_assert_cmpstr(run.out->str, ==, "got one\ngot two\n");
	g_assert_cmpint(run.exit_code, ==, 0);
	erpc_test_run_clear(&run);
}

static void
test_process_interrupt(ErpcTestFixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {
	    "sh",
	    "-c",
	    "trap 'echo INT; exit 5' INT; echo ready; while :; do sleep 0.05; done",
	    NULL};
	g_autoptr(ErpcClientProcess) process = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;
	ErpcTestRun run = {0};

	process = erpc_test_start(fx->client, "int", argv, FALSE, &run);
	ESD_WAIT_UNTIL(strstr(run.out->str, "ready") != NULL, ERPC_TEST_TIMEOUT_MS);
	erpc_client_process_interrupt_async(process, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_process_interrupt_finish(process, res, &error));
	g_assert_no_error(error);
	erpc_test_wait_closed(&run);
	g_assert_cmpstr(run.out->str, ==, "ready\nINT\n");
	g_assert_cmpint(run.exit_code, ==, 5);
	erpc_test_run_clear(&run);
}

static void
test_process_terminate(ErpcTestFixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"sleep", "30", NULL};
	g_autoptr(ErpcClientProcess) process = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) read = NULL;
	GAsyncResult *slot = NULL;
	gboolean running = FALSE;
	ErpcTestRun run = {0};

	process = erpc_test_start(fx->client, "sleeper", argv, FALSE, &run);
	erpc_client_process_terminate_async(process, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_process_terminate_finish(process, res, &running, &error));
	g_assert_no_error(error);
	g_assert_true(running);
	erpc_test_wait_closed(&run);
	g_assert_cmpint(run.exit_code, ==, 137);
	g_clear_object(&res);

	/* process/read after the close: nothing left, but exit and close */
	erpc_client_process_read_async(process, 0, 0, 0, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	read = erpc_client_process_read_finish(process, res, &error);
	g_assert_no_error(error);
	g_assert_true(json_object_get_boolean_member(read, "closed"));
	g_assert_cmpint(json_object_get_int_member(read, "exitCode"), ==, 137);
	g_assert_cmpint(json_object_get_int_member(read, "nextSeq"), ==, 3);
	erpc_test_run_clear(&run);
}

static void
test_process_not_found(ErpcTestFixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"/nonexistent/command", NULL};
	g_autoptr(ErpcClientProcess) process = erpc_client_process_new(fx->client, "nf", argv);
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_process_start_async(process, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_false(erpc_client_process_start_finish(process, res, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
}

static void
test_call_errors(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_call_async(fx->client,
			       "nothing/here",
			       NULL,
			       ERPC_CLIENT_CALL_FLAGS_NONE,
			       NULL,
			       erpc_test_result_cb,
			       &slot);
	res = erpc_test_wait(&slot);
	result = erpc_client_call_finish(fx->client, res, &error);
	g_assert_null(result);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_METHOD_NOT_FOUND);
	g_clear_error(&error);
	g_clear_object(&res);

	erpc_client_fs_walk_async(fx->client, fx->tmpdir, 1, 0, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_null(erpc_client_fs_walk_finish(fx->client, res, &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST);
	g_clear_error(&error);
	g_clear_object(&res);

	/* refused before anything is sent */
	erpc_client_fs_read_file_async(fx->client, "relative", NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_null(erpc_client_fs_read_file_finish(fx->client, res, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static void
add_tests(const gchar *transport, gboolean ws)
{
	struct {
		const gchar *name;
		void (*func)(ErpcTestFixture *, gconstpointer);
	} tests[] = {
	    {"handshake", test_handshake},
	    {"environment", test_environment},
	    {"process-output", test_process_output},
	    {"process-write", test_process_write},
	    {"process-interrupt", test_process_interrupt},
	    {"process-terminate", test_process_terminate},
	    {"process-not-found", test_process_not_found},
	    {"call-errors", test_call_errors},
	};
	for (guint i = 0; i < G_N_ELEMENTS(tests); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/client/%s/%s", transport, tests[i].name);
		g_test_add(path,
			   ErpcTestFixture,
			   GINT_TO_POINTER(ws),
			   erpc_test_fixture_setup,
			   tests[i].func,
			   erpc_test_fixture_teardown);
	}
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	add_tests("ws", TRUE);
	add_tests("stdio", FALSE);
	return g_test_run();
}
