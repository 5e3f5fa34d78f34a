/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "erpc-test-client.h"

/*
 * Recovery of ErpcClient through a TCP proxy (in this process) that drops
 * the connection: a process's numbered output arrives complete, once and in
 * order across several drops mid-stream; a write whose answer was lost is
 * sent again with the same writeId and runs once; idempotent requests are
 * repeated; the state goes ready → recovering → ready, never disconnected
 * while recovery is possible; the deadline ends in ERPC_ERROR_TIMED_OUT and
 * a session the server no longer knows in ERPC_CLIENT_ERROR_SESSION_LOST.
 */

typedef struct {
	EsdTestDaemon *daemon;
	ErpcTestProxy *proxy;
	ErpcClient *client;
	GString *states; /* one letter per state entered: c, r (ready), R (recovering), d */
} Fixture;

static void
state_changed_cb(ErpcClient *client, ErpcClientState old_state, ErpcClientState state, Fixture *fx)
{
	const gchar letters[] = {'d', 'c', 'r', 'R'};
	g_string_append_c(fx->states, letters[state]);
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *url = NULL;

	fx->daemon = esd_test_daemon_new_ws(NULL);
	fx->proxy = erpc_test_proxy_new(esd_test_daemon_get_port(fx->daemon), FALSE);
	url = erpc_test_proxy_get_url(fx->proxy);
	fx->client = erpc_client_new(url);
	fx->states = g_string_new(NULL);
	erpc_client_set_recovery_timeout(fx->client, 20000);
	g_signal_connect(fx->client, "state-changed", G_CALLBACK(state_changed_cb), fx);
	erpc_test_connect(fx->client);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	erpc_client_close(fx->client);
	g_clear_object(&fx->client);
	g_clear_object(&fx->proxy);
	g_clear_object(&fx->daemon);
	g_string_free(fx->states, TRUE);
}

static void
test_output_across_drops(Fixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"sh",
			       "-c",
			       "i=1; while [ $i -le 300 ]; do echo line $i; i=$((i+1)); "
			       "sleep 0.003; done",
			       NULL};
	g_autoptr(ErpcClientProcess) process = NULL;
	g_autoptr(GString) expected = g_string_new(NULL);
	ErpcTestRun run = {0};

	for (guint i = 1; i <= 300; i++)
		g_string_append_printf(expected, "line %u\n", i);
	process = erpc_test_start(fx->client, "numbers", argv, FALSE, &run);
	/* the connection in use and the next two break after 1500 bytes each */
	erpc_test_proxy_cut_after(fx->proxy, 1500, 2);
	erpc_test_wait_closed(&run);

	g_assert_cmpstr(run.out->str, ==, expected->str);
	g_assert_cmpuint(run.seq_errors, ==, 0);
	g_assert_true(g_str_has_suffix(run.events->str, "x0c"));
	g_assert_cmpuint(erpc_test_proxy_get_connections(fx->proxy), >=, 3);
	/* recovered at least twice, and never gave up */
	g_assert_true(g_str_has_prefix(fx->states->str, "crRr"));
	g_assert_nonnull(strstr(fx->states->str + 4, "Rr"));
	g_assert_null(strchr(fx->states->str, 'd'));
	g_assert_cmpint(erpc_client_get_state(fx->client), ==, ERPC_CLIENT_STATE_READY);
	erpc_test_run_clear(&run);
}

static void
write_line(ErpcClientProcess *process, const gchar *line, GAsyncResult **slot)
{
	g_autoptr(GBytes) data = g_bytes_new(line, strlen(line));
	erpc_client_process_write_async(process, data, NULL, erpc_test_result_cb, slot);
}

static void
assert_accepted(ErpcClientProcess *process, GAsyncResult **slot)
{
	g_autoptr(GAsyncResult) res = erpc_test_wait(slot);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *status = erpc_client_process_write_finish(process, res, &error);

	g_assert_no_error(error);
	g_assert_cmpstr(status, ==, "accepted");
}

static void
test_write_resent(Fixture *fx, gconstpointer user_data)
{
	const gchar *argv[] = {"sh", "-c", "while read l; do echo \"got $l\"; done", NULL};
	g_autoptr(ErpcClientProcess) process = NULL;
	g_autoptr(GAsyncResult) status_res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *status = NULL;
	GAsyncResult *slot = NULL;
	GAsyncResult *status_slot = NULL;
	gint64 until;
	ErpcTestRun run = {0};

	process = erpc_test_start(fx->client, "echoer", argv, TRUE, &run);
	write_line(process, "a\n", &slot);
	assert_accepted(process, &slot);
	ESD_WAIT_UNTIL(g_strcmp0(run.out->str, "got a\n") == 0, ERPC_TEST_TIMEOUT_MS);

	/* the server gets the write, its answer and the output never come back */
	erpc_test_proxy_freeze(fx->proxy);
	write_line(process, "b\n", &slot);
	erpc_client_get_status_async(fx->client, NULL, erpc_test_result_cb, &status_slot);
	until = g_get_monotonic_time() + 500 * 1000;
	while (g_get_monotonic_time() < until)
		esd_test_iterate(50);
	g_assert_null(slot);
	g_assert_cmpstr(run.out->str, ==, "got a\n");
	erpc_test_proxy_cut(fx->proxy);

	/* resent with the same writeId: accepted, and not written twice */
	assert_accepted(process, &slot);
	status_res = erpc_test_wait(&status_slot);
	status = erpc_client_get_status_finish(fx->client, status_res, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(status, ==, "ready");
	write_line(process, "c\n", &slot);
	assert_accepted(process, &slot);
	ESD_WAIT_UNTIL(g_str_has_suffix(run.out->str, "got c\n"), ERPC_TEST_TIMEOUT_MS);
	g_assert_cmpstr(run.out->str, ==, "got a\ngot b\ngot c\n");
	g_assert_cmpuint(run.seq_errors, ==, 0);
	g_assert_cmpstr(fx->states->str, ==, "crRr");
	erpc_test_run_clear(&run);
}

static void
test_deadline(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) info = NULL;
	GAsyncResult *slot = NULL;
	gint64 start;

	erpc_client_set_recovery_timeout(fx->client, 1000);
	erpc_test_proxy_refuse(fx->proxy, TRUE);
	start = g_get_monotonic_time();
	erpc_test_proxy_cut(fx->proxy);
	ESD_WAIT_UNTIL(erpc_client_get_state(fx->client) == ERPC_CLIENT_STATE_RECOVERING,
		       ERPC_TEST_TIMEOUT_MS);

	/* a request made while recovering waits, then fails with the typed timeout */
	erpc_client_get_info_async(fx->client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	info = erpc_client_get_info_finish(fx->client, res, &error);
	g_assert_null(info);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_TIMED_OUT);
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 900 * 1000);
	g_assert_cmpint(erpc_client_get_state(fx->client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	g_assert_cmpstr(fx->states->str, ==, "crRd");
}

static void
test_session_lost(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(EsdTestDaemon) other = esd_test_daemon_new_ws(NULL);
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *status = NULL;
	GAsyncResult *slot = NULL;

	/* the same address now leads to a server that never saw the session */
	erpc_test_proxy_set_upstream(fx->proxy, esd_test_daemon_get_port(other));
	erpc_test_proxy_cut(fx->proxy);
	erpc_client_get_status_async(fx->client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	status = erpc_client_get_status_finish(fx->client, res, &error);
	g_assert_null(status);
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_SESSION_LOST);
	g_assert_cmpstr(fx->states->str, ==, "crRd");
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	g_test_add("/execserverd/client/recovery/output-across-drops",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_output_across_drops,
		   fixture_teardown);
	g_test_add("/execserverd/client/recovery/write-resent",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_write_resent,
		   fixture_teardown);
	g_test_add("/execserverd/client/recovery/deadline",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_deadline,
		   fixture_teardown);
	g_test_add("/execserverd/client/recovery/session-lost",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_session_lost,
		   fixture_teardown);
	return g_test_run();
}
