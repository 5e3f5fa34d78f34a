/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include "erpc-test-client.h"
#include "erpc-test-executor.h"

/*
 * The connection lifecycle as Codex reports it: each initial attempt
 * (outcome, time, error), the last accepted ready report, `disconnected`
 * only once recovery failed, an explicit refresh, and keep-alive pings that
 * notice a connection which silently stopped carrying anything.
 */

typedef struct {
	guint attempts;
	ErpcClientAttemptOutcome outcome;
	guint64 elapsed_us;
	GError *error;
	guint ready;
	guint disconnected;
	GError *reason;
	GString *states;
	guint disconnected_while_recovering;
} Seen;

static void
attempt_cb(ErpcClient *client,
	   guint64 elapsed_us,
	   ErpcClientAttemptOutcome outcome,
	   const GError *error,
	   Seen *seen)
{
	seen->attempts++;
	seen->outcome = outcome;
	seen->elapsed_us = elapsed_us;
	g_clear_error(&seen->error);
	seen->error = error != NULL ? g_error_copy(error) : NULL;
}

static void
ready_cb(ErpcClient *client, JsonObject *info, Seen *seen)
{
	g_assert_nonnull(info);
	g_assert_true(info == erpc_client_get_environment_info(client));
	seen->ready++;
}

static void
disconnected_cb(ErpcClient *client, const GError *error, Seen *seen)
{
	seen->disconnected++;
	g_clear_error(&seen->reason);
	seen->reason = g_error_copy(error);
}

static void
state_cb(ErpcClient *client, ErpcClientState old_state, ErpcClientState new_state, Seen *seen)
{
	g_string_append_c(seen->states, "dcrR"[new_state]);
	if (new_state == ERPC_CLIENT_STATE_RECOVERING && seen->disconnected > 0)
		seen->disconnected_while_recovering++;
}

static void
watch(ErpcClient *client, Seen *seen)
{
	seen->states = g_string_new(NULL);
	g_signal_connect(client, "connection-attempt", G_CALLBACK(attempt_cb), seen);
	g_signal_connect(client, "ready", G_CALLBACK(ready_cb), seen);
	g_signal_connect(client, "disconnected", G_CALLBACK(disconnected_cb), seen);
	g_signal_connect(client, "state-changed", G_CALLBACK(state_cb), seen);
}

static void
seen_clear(ErpcClient *client, Seen *seen)
{
	g_signal_handlers_disconnect_by_data(client, seen);
	g_clear_error(&seen->error);
	g_clear_error(&seen->reason);
	g_string_free(seen->states, TRUE);
}

static void
iterate_for(guint ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)ms * 1000;

	while (g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
}

static gboolean
connect_client(ErpcClient *client, GCancellable *cancellable, GError **error)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_connect_async(client, cancellable, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	return erpc_client_connect_finish(client, res, error);
}

/* one report per initial attempt: success, failure, cancellation */
static void
test_attempts(void)
{
	g_autoptr(ErpcTestExecutor) executor = erpc_test_executor_new();
	g_autofree gchar *url = erpc_test_executor_get_url(executor);
	g_autoptr(ErpcClient) client = erpc_client_new(url);
	g_autoptr(ErpcClient) refused = NULL;
	g_autoptr(ErpcClient) cancelled = NULL;
	g_autoptr(GSocketListener) listener = g_socket_listener_new();
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GSocketListener) silent = g_socket_listener_new();
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *closed_url = NULL;
	g_autofree gchar *silent_url = NULL;
	GAsyncResult *slot = NULL;
	Seen seen = {0};
	Seen seen_refused = {0};
	Seen seen_cancelled = {0};
	gint64 first_ready;
	guint16 port;

	watch(client, &seen);
	g_assert_cmpint(erpc_client_get_last_ready_time(client), ==, 0);
	g_assert_true(connect_client(client, NULL, &error));
	g_assert_cmpuint(seen.attempts, ==, 1);
	g_assert_cmpint(seen.outcome, ==, ERPC_CLIENT_ATTEMPT_SUCCEEDED);
	g_assert_null(seen.error);
	g_assert_cmpuint(seen.elapsed_us, >, 0);
	g_assert_cmpuint(seen.ready, ==, 1);
	first_ready = erpc_client_get_last_ready_time(client);
	g_assert_cmpint(first_ready, >, 0);

	/* a recovery is not an initial attempt, but it is a ready report */
	erpc_test_executor_drop_all(executor);
	ESD_WAIT_UNTIL(seen.ready == 2, ERPC_TEST_TIMEOUT_MS);
	g_assert_cmpuint(executor->resumes, ==, 1);
	g_assert_cmpuint(seen.attempts, ==, 1);
	g_assert_cmpint(erpc_client_get_last_ready_time(client), >, first_ready);
	g_assert_cmpuint(seen.disconnected, ==, 0);

	port = g_socket_listener_add_any_inet_port(listener, NULL, &error);
	g_assert_no_error(error);
	g_socket_listener_close(listener);
	closed_url = g_strdup_printf("ws://127.0.0.1:%u", port);
	refused = erpc_client_new(closed_url);
	watch(refused, &seen_refused);
	g_assert_false(connect_client(refused, NULL, &error));
	g_clear_error(&error);
	g_assert_cmpuint(seen_refused.attempts, ==, 1);
	g_assert_cmpint(seen_refused.outcome, ==, ERPC_CLIENT_ATTEMPT_FAILED);
	g_assert_error(seen_refused.error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
	g_assert_cmpuint(seen_refused.ready, ==, 0);
	g_assert_cmpuint(seen_refused.disconnected, ==, 0);

	/* a listener nobody accepts from: the handshake waits until cancelled */
	port = g_socket_listener_add_any_inet_port(silent, NULL, &error);
	g_assert_no_error(error);
	silent_url = g_strdup_printf("ws://127.0.0.1:%u", port);
	cancelled = erpc_client_new(silent_url);
	watch(cancelled, &seen_cancelled);
	erpc_client_connect_async(cancelled, cancellable, erpc_test_result_cb, &slot);
	iterate_for(200);
	g_assert_cmpuint(seen_cancelled.attempts, ==, 0);
	g_cancellable_cancel(cancellable);
	res = erpc_test_wait(&slot);
	g_assert_false(erpc_client_connect_finish(cancelled, res, &error));
	g_clear_error(&error);
	g_assert_cmpuint(seen_cancelled.attempts, ==, 1);
	g_assert_cmpint(seen_cancelled.outcome, ==, ERPC_CLIENT_ATTEMPT_CANCELLED);

	seen_clear(client, &seen);
	seen_clear(refused, &seen_refused);
	seen_clear(cancelled, &seen_cancelled);
}

/* a connect cancelled before it starts starts nothing, and the client stays usable */
static void
test_cancelled_before(void)
{
	g_autoptr(ErpcTestExecutor) executor = erpc_test_executor_new();
	g_autofree gchar *url = erpc_test_executor_get_url(executor);
	g_autoptr(ErpcClient) client = erpc_client_new(url);
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	Seen seen = {0};

	watch(client, &seen);
	g_cancellable_cancel(cancellable);
	g_assert_false(connect_client(client, cancellable, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_clear_error(&error);
	iterate_for(200);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	g_assert_cmpuint(executor->connections, ==, 0);
	g_assert_cmpuint(seen.attempts, ==, 0);
	g_assert_cmpuint(seen.ready, ==, 0);

	g_assert_true(connect_client(client, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_READY);
	g_assert_cmpuint(executor->connections, ==, 1);
	seen_clear(client, &seen);
}

static void
manager_attempt_cb(ErpcEnvironmentManager *manager,
		   const gchar *id,
		   guint64 elapsed_us,
		   ErpcClientAttemptOutcome outcome,
		   const GError *error,
		   GString *seen)
{
	g_string_append_printf(seen, "%s:%d ", id, (gint)outcome);
}

/* recovering is not disconnected: only a recovery that fails is */
static void
test_disconnected(void)
{
	g_autoptr(ErpcTestExecutor) executor = erpc_test_executor_new();
	g_autofree gchar *url = erpc_test_executor_get_url(executor);
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcClient) client = NULL;
	GAsyncResult *slot = NULL;
	gint64 ready_time = 0;
	g_autoptr(GString) manager_attempts = g_string_new(NULL);
	Seen seen = {0};

	g_variant_builder_add(&builder, "{sv}", "url", g_variant_new_string(url));
	g_signal_connect(manager,
			 "connection-attempt",
			 G_CALLBACK(manager_attempt_cb),
			 manager_attempts);
	g_assert_true(erpc_environment_manager_upsert(manager,
						      "exec",
						      g_variant_builder_end(&builder),
						      &error));
	g_assert_null(erpc_environment_manager_get_last_ready(manager, "exec", &ready_time, NULL));
	g_assert_cmpint(ready_time, ==, 0);
	erpc_environment_manager_wait_until_ready_async(manager,
							"exec",
							NULL,
							erpc_test_result_cb,
							&slot);
	res = erpc_test_wait(&slot);
	client = erpc_environment_manager_wait_until_ready_finish(manager, res, &error);
	g_assert_no_error(error);
	g_assert_nonnull(
	    erpc_environment_manager_get_last_ready(manager, "exec", &ready_time, NULL));
	g_assert_cmpint(ready_time, ==, erpc_client_get_last_ready_time(client));
	g_assert_cmpstr(manager_attempts->str, ==, "exec:0 ");
	watch(client, &seen);

	erpc_test_executor_drop_all(executor);
	ESD_WAIT_UNTIL(seen.ready == 1, ERPC_TEST_TIMEOUT_MS);
	g_assert_cmpstr(seen.states->str, ==, "Rr");
	g_assert_cmpuint(seen.disconnected, ==, 0);

	/* the executor forgets the session: recovery fails, now it is disconnected */
	executor->refuse_resume = TRUE;
	erpc_test_executor_drop_all(executor);
	ESD_WAIT_UNTIL(seen.disconnected == 1, ERPC_TEST_TIMEOUT_MS);
	g_assert_cmpstr(seen.states->str, ==, "RrRd");
	g_assert_error(seen.reason, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_SESSION_LOST);
	g_assert_cmpuint(seen.disconnected_while_recovering, ==, 0);
	g_assert_cmpint(erpc_environment_manager_get_status(manager, "exec", NULL),
			==,
			ERPC_ENVIRONMENT_STATUS_DISCONNECTED);
	/* the last accepted report stays; recoveries are no initial attempts */
	g_assert_nonnull(erpc_environment_manager_get_last_ready(manager, "exec", NULL, NULL));
	g_assert_cmpstr(manager_attempts->str, ==, "exec:0 ");

	/* closing is not a loss */
	executor->refuse_resume = FALSE;
	g_assert_true(connect_client(client, NULL, &error));
	erpc_client_close(client);
	g_assert_cmpuint(seen.disconnected, ==, 1);
	seen_clear(client, &seen);
	g_assert_cmpstr(manager_attempts->str, ==, "exec:0 exec:0 ");
	g_signal_handlers_disconnect_by_data(manager, manager_attempts);
}

/* a refresh starts a new session at once, reports it ready, and is no loss */
static void
test_refresh(void)
{
	g_autoptr(ErpcTestExecutor) executor = erpc_test_executor_new();
	g_autofree gchar *url = erpc_test_executor_get_url(executor);
	g_autoptr(ErpcClient) client = erpc_client_new(url);
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *first = NULL;
	GAsyncResult *slot = NULL;
	Seen seen = {0};

	watch(client, &seen);
	g_assert_true(connect_client(client, NULL, &error));
	first = g_strdup(erpc_client_get_session_id(client));
	erpc_client_refresh_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_refresh_finish(client, res, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_client_get_session_id(client), !=, first);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_READY);
	g_assert_cmpuint(executor->initializes, ==, 2);
	g_assert_cmpuint(executor->resumes, ==, 0);
	g_assert_cmpuint(seen.ready, ==, 2);
	g_assert_cmpuint(seen.attempts, ==, 1);
	g_assert_cmpuint(seen.disconnected, ==, 0);
	seen_clear(client, &seen);
}

/* the proxy stops forwarding without closing anything: only pings notice */
static void
test_keepalive(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(NULL);
	g_autoptr(GUri) uri = g_uri_parse(esd_test_daemon_get_url(daemon), G_URI_FLAGS_NONE, NULL);
	g_autoptr(ErpcTestProxy) proxy = erpc_test_proxy_new(g_uri_get_port(uri), FALSE);
	g_autofree gchar *url = erpc_test_proxy_get_url(proxy);
	g_autoptr(ErpcClient) client = erpc_client_new(url);
	g_autoptr(GError) error = NULL;
	Seen seen = {0};
	gint64 frozen_at;

	erpc_client_set_keepalive_interval(client, 1000);
	watch(client, &seen);
	g_assert_true(connect_client(client, NULL, &error));
	/* pings are answered: an idle connection stays up */
	iterate_for(3000);
	g_assert_cmpstr(seen.states->str, ==, "cr");

	erpc_test_proxy_freeze(proxy);
	frozen_at = g_get_monotonic_time();
	ESD_WAIT_UNTIL(erpc_client_get_state(client) == ERPC_CLIENT_STATE_RECOVERING, 10000);
	/* two intervals of silence, the last pong at most one interval before the
	 * freeze: not before about one interval */
	g_assert_cmpint(g_get_monotonic_time() - frozen_at, >=, 500 * 1000);
	erpc_test_proxy_cut(proxy);
	ESD_WAIT_UNTIL(erpc_client_get_state(client) == ERPC_CLIENT_STATE_READY, 15000);
	g_assert_cmpuint(seen.disconnected, ==, 0);
	g_assert_cmpuint(seen.ready, ==, 2);
	seen_clear(client, &seen);
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	g_test_add_func("/execserverd/client-lifecycle/attempts", test_attempts);
	g_test_add_func("/execserverd/client-lifecycle/cancelled-before", test_cancelled_before);
	g_test_add_func("/execserverd/client-lifecycle/disconnected", test_disconnected);
	g_test_add_func("/execserverd/client-lifecycle/refresh", test_refresh);
	g_test_add_func("/execserverd/client-lifecycle/keepalive", test_keepalive);
	return g_test_run();
}
