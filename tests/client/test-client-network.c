/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "erpc-test-client.h"
#include "esd-test-tls.h"

/*
 * The client's network side against the real daemon: the proxy its
 * GProxyResolver names is crossed with HTTP CONNECT for ws://; a bearer
 * token and extra headers reach the server in the upgrade request, but
 * never the debug output; a refused token is ERPC_CLIENT_ERROR_UNAUTHORIZED
 * with the server's reason; wss:// with a certificate trusted through the
 * client's TLS database, and refused without it.
 */

static GMutex log_lock;

static void
capture_log_cb(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data)
{
	GString *log = user_data;
	g_mutex_lock(&log_lock);
	g_string_append_printf(log, "%s\n", message);
	g_mutex_unlock(&log_lock);
}

static GError *
try_connect(ErpcClient *client)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;
	GError *error = NULL;

	erpc_client_connect_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	erpc_client_connect_finish(client, res, &error);
	return error;
}

static void
test_http_connect(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(NULL);
	g_autoptr(ErpcTestProxy) proxy = erpc_test_proxy_new(0, TRUE);
	g_autofree gchar *proxy_url =
	    g_strdup_printf("http://127.0.0.1:%u", erpc_test_proxy_get_port(proxy));
	g_autoptr(GProxyResolver) resolver = g_simple_proxy_resolver_new(proxy_url, NULL);
	g_autoptr(ErpcClient) client = erpc_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *target =
	    g_strdup_printf("127.0.0.1:%u", esd_test_daemon_get_port(daemon));
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *status = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_set_proxy_resolver(client, resolver);
	erpc_test_connect(client);
	erpc_client_get_status_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	status = erpc_client_get_status_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(status, ==, "ready");
	g_assert_cmpuint(erpc_test_proxy_get_connections(proxy), ==, 1);
	g_assert_cmpstr(erpc_test_proxy_get_connect_target(proxy), ==, target);
	g_assert_true(
	    g_str_has_prefix(erpc_test_proxy_get_upstream_head(proxy), "GET / HTTP/1.1\r\n"));
	erpc_client_close(client);
}

static void
test_credentials(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("erpc-net-XXXXXX", &error);
	g_autofree gchar *token = g_build_filename(dir, "token", NULL);
	const gchar *args[] = {"--ws-auth", "capability-token", "--ws-token-file", token, NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(ErpcTestProxy) proxy = NULL;
	g_autoptr(ErpcClient) client = NULL;
	g_autoptr(ErpcClient) refused = NULL;
	g_autoptr(GString) log = g_string_new(NULL);
	g_autofree gchar *url = NULL;
	const gchar *head;
	guint handler;

	g_assert_true(g_file_set_contents(token, "t0ken-Value-42\n", -1, NULL));
	daemon = esd_test_daemon_new_ws(args);
	proxy = erpc_test_proxy_new(esd_test_daemon_get_port(daemon), FALSE);
	url = erpc_test_proxy_get_url(proxy);
	handler = g_log_set_handler("execrpc", G_LOG_LEVEL_DEBUG, capture_log_cb, log);

	client = erpc_client_new(url);
	erpc_client_set_bearer_token(client, "t0ken-Value-42");
	g_assert_true(erpc_client_add_header(client, "X-Tenant", "blue-tenant-secret", NULL));
	erpc_test_connect(client);
	head = erpc_test_proxy_get_upstream_head(proxy);
	g_assert_nonnull(strstr(head, "\r\nAuthorization: Bearer t0ken-Value-42\r\n"));
	g_assert_nonnull(strstr(head, "\r\nX-Tenant: blue-tenant-secret\r\n"));
	erpc_client_close(client);

	refused = erpc_client_new(url);
	erpc_client_set_bearer_token(refused, "wrong-t0ken");
	error = try_connect(refused);
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_UNAUTHORIZED);
	g_assert_nonnull(strstr(error->message, "HTTP 401: invalid websocket bearer token"));

	g_log_remove_handler("execrpc", handler);
	g_assert_nonnull(strstr(log->str, "X-Tenant: <redacted>"));
	g_assert_null(strstr(log->str, "blue-tenant-secret"));
	g_assert_null(strstr(log->str, "t0ken"));
	g_unlink(token);
	g_rmdir(dir);
}

static void
test_wss(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("erpc-wss-XXXXXX", &error);
	g_autofree gchar *cert = g_build_filename(dir, "cert.pem", NULL);
	g_autofree gchar *key = g_build_filename(dir, "key.pem", NULL);
	g_autofree gchar *token = g_build_filename(dir, "token", NULL);
	const gchar *args[] = {"--listen",
			       "wss://127.0.0.1:0",
			       "--tls-certificate",
			       cert,
			       "--tls-key",
			       key,
			       "--ws-auth",
			       "capability-token",
			       "--ws-token-file",
			       token,
			       NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(GTlsDatabase) database = NULL;
	g_autoptr(ErpcClient) client = NULL;
	g_autoptr(ErpcClient) untrusting = NULL;
	g_autofree gchar *url = NULL;

	esd_test_make_certificate(cert, key);
	g_assert_true(g_file_set_contents(token, "wss-token", -1, NULL));
	daemon = esd_test_daemon_new_ws(args);
	g_assert_true(g_str_has_prefix(esd_test_daemon_get_url(daemon), "wss://"));
	url = g_strdup_printf("wss://localhost:%u", esd_test_daemon_get_port(daemon));
	database = g_tls_file_database_new(cert, &error);
	g_assert_no_error(error);

	client = erpc_client_new(url);
	erpc_client_set_tls_database(client, database);
	erpc_client_set_bearer_token(client, "wss-token");
	g_assert_true(erpc_client_add_header(client, "X-Tenant", "blue", NULL));
	erpc_test_connect(client);
	erpc_client_close(client);

	/* the system's trust anchors do not know this certificate */
	untrusting = erpc_client_new(url);
	erpc_client_set_bearer_token(untrusting, "wss-token");
	error = try_connect(untrusting);
	g_assert_error(error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE);
	g_unlink(cert);
	g_unlink(key);
	g_unlink(token);
	g_rmdir(dir);
}

#ifdef __SANITIZE_ADDRESS__
static guint
count_threads(void)
{
	g_autoptr(GDir) dir = g_dir_open("/proc/self/task", 0, NULL);
	guint n = 0;

	while (dir != NULL && g_dir_read_name(dir) != NULL)
		n++;
	return n;
}
#endif

int
main(int argc, char **argv)
{
	gint ret;

	erpc_test_init(&argc, &argv);
	g_test_add_func("/execserverd/client/network/http-connect", test_http_connect);
	g_test_add_func("/execserverd/client/network/credentials", test_credentials);
	g_test_add_func("/execserverd/client/network/wss", test_wss);
	ret = g_test_run();
#ifdef __SANITIZE_ADDRESS__
	/*
	 * as in tests/integration/test-ws-auth.c (LSAN_TLS_WORKAROUND): the
	 * LeakSanitizer of GCC 12 crashes scanning the gnutls thread-local data
	 * of the worker threads that ran TLS handshakes; wait until they ended
	 */
	g_thread_pool_set_max_unused_threads(0);
	for (guint i = 0; i < 40 && count_threads() > 2; i++)
		g_usleep(50 * 1000);
#endif
	return ret;
}
