/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "erpc-test-client.h"

/*
 * Extra handshake headers and credentials: invalid, duplicate and
 * WebSocket-controlled names are refused, values with control characters
 * too, and a client carrying either refuses plain ws:// to a non-loopback
 * host before anything is sent.
 */

typedef struct {
	const gchar *name;
	const gchar *value;
} Header;

static const Header bad_headers[] = {
    {"", "x"},
    {"Bad Name", "x"},
    {"Bad:Name", "x"},
    {"Näme", "x"},
    {"Host", "example.com"},
    {"upgrade", "websocket"},
    {"Connection", "close"},
    {"Sec-WebSocket-Key", "x"},
    {"sec-websocket-protocol", "x"},
    {"Authorization", "Bearer x"},
    {"Origin", "http://evil"},
    {"Content-Length", "1"},
    {"X-Token", "a\r\nInjected: 1"},
    {"X-Token", "nul\001"},
    {NULL, NULL},
};

static void
test_bad_header(gconstpointer user_data)
{
	const Header *header = user_data;
	g_autoptr(ErpcClient) client = erpc_client_new("wss://example.com");
	g_autoptr(GError) error = NULL;

	g_assert_false(erpc_client_add_header(client, header->name, header->value, &error));
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_INVALID_HEADER);
	/* the message names the header, never the value */
	g_assert_null(strstr(error->message, "Injected"));
}

static void
test_duplicate(void)
{
	g_autoptr(ErpcClient) client = erpc_client_new("wss://example.com");
	g_autoptr(GError) error = NULL;

	g_assert_true(erpc_client_add_header(client, "X-Tenant", "a", &error));
	g_assert_no_error(error);
	g_assert_true(erpc_client_add_header(client, "X-Other", "b\tc", &error));
	g_assert_false(erpc_client_add_header(client, "x-tenant", "b", &error));
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_INVALID_HEADER);
}

static GError *
connect_error(ErpcClient *client)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;
	GError *error = NULL;

	erpc_client_set_connect_timeout(client, 2000);
	erpc_client_connect_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_false(erpc_client_connect_finish(client, res, &error));
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	return error;
}

static void
test_insecure(void)
{
	g_autoptr(ErpcClient) with_header = erpc_client_new("ws://192.0.2.1:9");
	g_autoptr(ErpcClient) with_token = erpc_client_new("ws://example.invalid:9/x");
	g_autoptr(ErpcClient) loopback = erpc_client_new("ws://127.0.0.1:1");
	g_autoptr(GError) error = NULL;

	g_assert_true(erpc_client_add_header(with_header, "X-Tenant", "a", NULL));
	error = connect_error(with_header);
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_INSECURE);
	g_clear_error(&error);

	erpc_client_set_bearer_token(with_token, "secret");
	error = connect_error(with_token);
	g_assert_error(error, ERPC_CLIENT_ERROR, ERPC_CLIENT_ERROR_INSECURE);
	g_assert_null(strstr(error->message, "secret"));
	g_clear_error(&error);

	/* loopback may carry them: this fails only because nothing listens */
	erpc_client_set_bearer_token(loopback, "secret");
	g_assert_true(erpc_client_add_header(loopback, "X-Tenant", "a", NULL));
	error = connect_error(loopback);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

static void
test_bad_url(void)
{
	g_autoptr(ErpcClient) client = erpc_client_new("http://127.0.0.1:1");
	g_autoptr(GError) error = connect_error(client);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	for (guint i = 0; bad_headers[i].name != NULL; i++) {
		g_autofree gchar *path = g_strdup_printf("/execserverd/client/headers/bad/%u", i);
		g_test_add_data_func(path, &bad_headers[i], test_bad_header);
	}
	g_test_add_func("/execserverd/client/headers/duplicate", test_duplicate);
	g_test_add_func("/execserverd/client/headers/insecure", test_insecure);
	g_test_add_func("/execserverd/client/headers/bad-url", test_bad_url);
	return g_test_run();
}
