/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "erpc-test-client.h"

/*
 * ErpcEnvironmentManager: the config format (and every way it is refused,
 * all or nothing), upsert and remove with the reserved `local`, the default
 * environment, status without connecting, and wait_until_ready against the
 * real daemon over WebSocket (with a token file relative to the config) and
 * as the local stdio environment.
 */

static const gchar *good_config = "[execrpc]\n"
				  "default=build\n"
				  "\n"
				  "[environment build]\n"
				  "url=wss://build.example.com:8443/\n"
				  "connect-timeout=5\n"
				  "recovery-timeout=0\n"
				  "headers=X-Tenant: blue;X-Region: eu\n"
				  "\n"
				  "[environment staging]\n"
				  "url=ws://127.0.0.1:1\n"
				  "\n"
				  "[something-else]\n"
				  "ignored=true\n";

static void
test_config(void)
{
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) ids = NULL;
	ErpcClient *client;

	g_assert_true(erpc_environment_manager_load_data(manager, good_config, -1, &error));
	g_assert_no_error(error);
	ids = erpc_environment_manager_list_ids(manager);
	g_assert_cmpstrv(ids, ((const gchar *const[]){"build", "local", "staging", NULL}));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "build");
	g_assert_cmpint(erpc_environment_manager_get_status(manager, NULL, &error),
			==,
			ERPC_ENVIRONMENT_STATUS_IDLE);
	g_assert_no_error(error);

	/* the client is made once, with the config's settings, and not connected */
	client = erpc_environment_manager_get_environment(manager, "build", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_client_get_url(client), ==, "wss://build.example.com:8443/");
	g_assert_cmpuint(erpc_client_get_recovery_timeout(client), ==, 0);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	g_assert_true(client == erpc_environment_manager_get_environment(manager, NULL, NULL));

	g_assert_null(erpc_environment_manager_get_environment(manager, "nope", &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static const struct {
	const gchar *name;
	const gchar *config;
} bad_configs[] = {
    {"no-url", "[environment a]\nheaders=X-A: b\n"},
    {"scheme", "[environment a]\nurl=http://127.0.0.1:1\n"},
    {"reserved-id", "[environment local]\nurl=ws://127.0.0.1:1\n"},
    {"id-characters", "[environment a/b]\nurl=ws://127.0.0.1:1\n"},
    {"header-name", "[environment a]\nurl=wss://h:1\nheaders=Bad Name: x\n"},
    {"header-controlled", "[environment a]\nurl=wss://h:1\nheaders=Sec-WebSocket-Key: x\n"},
    {"header-twice", "[environment a]\nurl=wss://h:1\nheaders=X-A: 1;x-a: 2\n"},
    {"header-no-colon", "[environment a]\nurl=wss://h:1\nheaders=X-A\n"},
    {"header-plain-ws", "[environment a]\nurl=ws://example.com:1\nheaders=X-A: 1\n"},
    {"token-plain-ws", "[environment a]\nurl=ws://example.com:1\ntoken-file=/t\n"},
    {"timeout", "[environment a]\nurl=ws://127.0.0.1:1\nconnect-timeout=soon\n"},
    {"negative-timeout", "[environment a]\nurl=ws://127.0.0.1:1\nrecovery-timeout=-1\n"},
    {"include-local", "[execrpc]\ninclude-local=maybe\n"},
    {"all-or-nothing", "[environment good]\nurl=ws://127.0.0.1:1\n[environment b]\nurl=x\n"},
    {"syntax", "[environment a\nurl=ws://127.0.0.1:1\n"},
};

static void
test_bad_config(gconstpointer user_data)
{
	const gchar *config = user_data;
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) ids = NULL;

	g_assert_false(erpc_environment_manager_load_data(manager, config, -1, &error));
	g_assert_nonnull(error);
	ids = erpc_environment_manager_list_ids(manager);
	g_assert_cmpstrv(ids, ((const gchar *const[]){"local", NULL}));
}

static GVariant *
options_new(const gchar *url)
{
	g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&builder, "{sv}", "url", g_variant_new_string(url));
	g_variant_builder_add(&builder, "{sv}", "connect-timeout", g_variant_new_uint32(3));
	g_variant_builder_add(&builder, "{sv}", "future-option", g_variant_new_boolean(TRUE));
	return g_variant_builder_end(&builder);
}

static void
test_upsert_remove(void)
{
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);
	g_autoptr(GError) error = NULL;
	ErpcClient *first;
	ErpcClient *second;

	g_assert_true(
	    erpc_environment_manager_upsert(manager, "a", options_new("ws://127.0.0.1:1"), &error));
	g_assert_no_error(error);
	first = erpc_environment_manager_get_environment(manager, "a", NULL);
	g_assert_cmpstr(erpc_client_get_url(first), ==, "ws://127.0.0.1:1");

	/* replacing makes a new client */
	g_assert_true(
	    erpc_environment_manager_upsert(manager, "a", options_new("ws://127.0.0.1:2"), &error));
	second = erpc_environment_manager_get_environment(manager, "a", NULL);
	g_assert_cmpstr(erpc_client_get_url(second), ==, "ws://127.0.0.1:2");

	g_assert_false(erpc_environment_manager_upsert(manager,
						       ERPC_ENVIRONMENT_LOCAL,
						       options_new("ws://127.0.0.1:1"),
						       &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);

	/* a wrong type is refused */
	g_variant_builder_add(&builder, "{sv}", "url", g_variant_new_uint32(1));
	g_assert_false(
	    erpc_environment_manager_upsert(manager, "b", g_variant_builder_end(&builder), &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);

	g_assert_false(erpc_environment_manager_remove(manager, ERPC_ENVIRONMENT_LOCAL, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);
	g_assert_true(erpc_environment_manager_remove(manager, "a", &error));
	g_assert_false(erpc_environment_manager_remove(manager, "a", &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static void
test_default(void)
{
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GError) error = NULL;

	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "local");
	g_assert_true(
	    erpc_environment_manager_load_data(manager,
					       "[execrpc]\ninclude-local=false\n"
					       "[environment one]\nurl=ws://127.0.0.1:1\n",
					       -1,
					       &error));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "one");
	g_assert_null(erpc_environment_manager_get_environment(manager, "local", &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_true(
	    erpc_environment_manager_upsert(manager, "two", options_new("ws://127.0.0.1:1"), NULL));
	g_assert_null(erpc_environment_manager_get_default_id(manager));
	g_assert_null(erpc_environment_manager_get_environment(manager, NULL, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static void
status_cb(ErpcEnvironmentManager *manager,
	  const gchar *id,
	  ErpcEnvironmentStatus status,
	  GString *seen)
{
	g_string_append_printf(seen, "%s:%d ", id, (gint)status);
}

static ErpcClient *
wait_ready(ErpcEnvironmentManager *manager, const gchar *id, GError **error)
{
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_environment_manager_wait_until_ready_async(manager,
							id,
							NULL,
							erpc_test_result_cb,
							&slot);
	res = erpc_test_wait(&slot);
	return erpc_environment_manager_wait_until_ready_finish(manager, res, error);
}

static void
test_ready(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("erpc-envs-XXXXXX", &error);
	g_autofree gchar *token = g_build_filename(dir, "token", NULL);
	g_autofree gchar *path = g_build_filename(dir, "environments.conf", NULL);
	const gchar *daemon_args[] = {"--ws-auth",
				      "capability-token",
				      "--ws-token-file",
				      token,
				      NULL};
	const gchar *local_argv[] = {g_getenv("ESD_TEST_DAEMON"), "--listen", "stdio", NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GString) seen = g_string_new(NULL);
	g_autoptr(ErpcClient) client = NULL;
	g_autoptr(ErpcClient) again = NULL;
	g_autoptr(ErpcClient) local = NULL;
	g_autoptr(ErpcClient) down = NULL;
	g_autofree gchar *config = NULL;

	g_assert_true(g_file_set_contents(token, "config-token\n", -1, NULL));
	daemon = esd_test_daemon_new_ws(daemon_args);
	config = g_strdup_printf("[environment auth]\nurl=%s\ntoken-file=token\n"
				 "[environment down]\nurl=ws://127.0.0.1:1\nconnect-timeout=2\n",
				 esd_test_daemon_get_url(daemon));
	g_assert_true(g_file_set_contents(path, config, -1, NULL));
	g_assert_true(erpc_environment_manager_load_file(manager, path, &error));
	g_assert_no_error(error);
	erpc_environment_manager_set_local_command(manager, local_argv);
	g_signal_connect(manager, "status-changed", G_CALLBACK(status_cb), seen);

	client = wait_ready(manager, "auth", &error);
	g_assert_no_error(error);
	g_assert_cmpint(erpc_environment_manager_get_status(manager, "auth", NULL),
			==,
			ERPC_ENVIRONMENT_STATUS_READY);
	g_assert_cmpstr(seen->str, ==, "auth:1 auth:2 ");
	again = wait_ready(manager, "auth", &error);
	g_assert_true(client == again);

	local = wait_ready(manager, ERPC_ENVIRONMENT_LOCAL, &error);
	g_assert_no_error(error);
	g_assert_cmpint(erpc_client_get_state(local), ==, ERPC_CLIENT_STATE_READY);

	down = wait_ready(manager, "down", &error);
	g_assert_null(down);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
	g_assert_cmpint(erpc_environment_manager_get_status(manager, "down", NULL),
			==,
			ERPC_ENVIRONMENT_STATUS_DISCONNECTED);
	g_signal_handlers_disconnect_by_data(manager, seen);
	g_clear_object(&manager);
	g_unlink(token);
	g_unlink(path);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	erpc_test_init(&argc, &argv);
	g_test_add_func("/execserverd/environment-manager/config", test_config);
	for (guint i = 0; i < G_N_ELEMENTS(bad_configs); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/environment-manager/bad-config/%s",
				    bad_configs[i].name);
		g_test_add_data_func(path, bad_configs[i].config, test_bad_config);
	}
	g_test_add_func("/execserverd/environment-manager/upsert-remove", test_upsert_remove);
	g_test_add_func("/execserverd/environment-manager/default", test_default);
	g_test_add_func("/execserverd/environment-manager/ready", test_ready);
	return g_test_run();
}
