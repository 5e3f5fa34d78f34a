/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "erpc-test-client.h"

/*
 * ErpcEnvironmentManager: Codex's environments.toml (and every way it is
 * refused, all or nothing), $CODEX_HOME and CODEX_EXEC_SERVER_URL, upsert and remove with the
 * reserved `local`, the default environment, status without connecting, and wait_until_ready
 * against the real daemon over WebSocket (with the config's auth_bearer_token) and as the local
 * stdio environment.
 */

/* a Codex environments.toml: every key of its schema */
static const gchar *good_config = "default = \"build\"\n"
				  "\n"
				  "[[environments]]\n"
				  "id = \"build\"\n"
				  "url = \" wss://build.example.com:8443/ \"\n"
				  "auth_bearer_token = \"secret\"\n"
				  "connect_timeout_sec = 5\n"
				  "initialize_timeout_sec = 2.5\n"
				  "\n"
				  "[[environments]]\n"
				  "id = \"staging\"\n"
				  "url = \"ws://127.0.0.1:1\"\n"
				  "\n"
				  "[[environments]]\n"
				  "id = \"ssh-dev\"\n"
				  "program = \" ssh \"\n"
				  "args = [\"dev\", \"execserverd --listen stdio\"]\n"
				  "cwd = \"/tmp\"\n"
				  "[environments.env]\n"
				  "EXECSERVERD_LOG = \"debug\"\n";

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
	g_assert_cmpstrv(ids,
			 ((const gchar *const[]){"build", "local", "ssh-dev", "staging", NULL}));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "build");
	g_assert_cmpint(erpc_environment_manager_get_status(manager, NULL, &error),
			==,
			ERPC_ENVIRONMENT_STATUS_IDLE);
	g_assert_no_error(error);

	/* the client is made once, with the config's settings, and not connected */
	client = erpc_environment_manager_get_environment(manager, "build", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_client_get_url(client), ==, "wss://build.example.com:8443/");
	g_assert_cmpuint(erpc_client_get_initialize_timeout(client), ==, 2500);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	g_assert_true(client == erpc_environment_manager_get_environment(manager, NULL, NULL));
	client = erpc_environment_manager_get_environment(manager, "staging", &error);
	g_assert_cmpuint(erpc_client_get_initialize_timeout(client), ==, 10000);
	client = erpc_environment_manager_get_environment(manager, "ssh-dev", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_client_get_url(client), ==, "stdio");

	g_assert_null(erpc_environment_manager_get_environment(manager, "nope", &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* Codex's own refusals (environment_toml.rs), and ours for credentials */
static const struct {
	const gchar *name;
	const gchar *config;
	const gchar *message;
} bad_configs[] = {
    {"unknown-top", "unknown = true\n", "unknown field `unknown`"},
    {"unknown-entry",
     "[[environments]]\nid = \"a\"\nurl = \"ws://127.0.0.1:1\"\nheaders = []\n",
     "unknown field `headers`"},
    {"no-id", "[[environments]]\nurl = \"ws://127.0.0.1:1\"\n", "missing field `id`"},
    {"neither", "[[environments]]\nid = \"a\"\n", "must set exactly one of url or program"},
    {"both",
     "[[environments]]\nid = \"a\"\nurl = \"ws://127.0.0.1:1\"\nprogram = \"codex\"\n",
     "must set exactly one of url or program"},
    {"scheme",
     "[[environments]]\nid = \"a\"\nurl = \"http://127.0.0.1:1\"\n",
     "environment url `http://127.0.0.1:1` must use ws:// or wss://"},
    {"malformed-url", "[[environments]]\nid = \"a\"\nurl = \"ws://\"\n", "is invalid"},
    {"reserved-local",
     "[[environments]]\nid = \"local\"\nurl = \"ws://127.0.0.1:1\"\n",
     "environment id `local` is reserved"},
    {"reserved-none",
     "[[environments]]\nid = \"None\"\nurl = \"ws://127.0.0.1:1\"\n",
     "environment id `None` is reserved"},
    {"whitespace-id",
     "[[environments]]\nid = \" devbox \"\nurl = \"ws://127.0.0.1:1\"\n",
     "must not contain surrounding whitespace"},
    {"id-characters",
     "[[environments]]\nid = \"dev.box\"\nurl = \"ws://127.0.0.1:1\"\n",
     "must contain only ASCII letters, numbers, '-' or '_'"},
    {"long-id",
     "[[environments]]\nid = "
     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n"
     "url = \"ws://127.0.0.1:1\"\n",
     "cannot be longer than 64 characters"},
    {"duplicate",
     "[[environments]]\nid = \"a\"\nurl = \"ws://127.0.0.1:1\"\n"
     "[[environments]]\nid = \"a\"\nprogram = \"codex\"\n",
     "environment id `a` is duplicated"},
    {"empty-program",
     "[[environments]]\nid = \"a\"\nprogram = \" \"\n",
     "environment `a` program cannot be empty"},
    {"args-without-program",
     "[[environments]]\nid = \"a\"\nargs = []\n",
     "environment `a` args, env, and cwd require program"},
    {"connect-timeout-without-url",
     "[[environments]]\nid = \"a\"\nprogram = \"ssh\"\nconnect_timeout_sec = 1\n",
     "environment `a` connect_timeout_sec requires url"},
    {"token-without-url",
     "[[environments]]\nid = \"a\"\nprogram = \"ssh\"\nauth_bearer_token = \"t\"\n",
     "environment `a` auth_bearer_token requires url"},
    {"relative-cwd",
     "[[environments]]\nid = \"a\"\nprogram = \"ssh\"\ncwd = \"work\"\n",
     "environment `a` cwd must be absolute"},
    {"negative-timeout",
     "[[environments]]\nid = \"a\"\nurl = \"ws://127.0.0.1:1\"\ninitialize_timeout_sec = -1\n",
     "non-negative"},
    {"timeout-type",
     "[[environments]]\nid = \"a\"\nurl = \"ws://127.0.0.1:1\"\nconnect_timeout_sec = \"soon\"\n",
     "expected seconds"},
    {"unknown-default",
     "default = \"missing\"\n",
     "default environment `missing` is not configured"},
    {"empty-default", "default = \" \"\n", "default environment id cannot be empty"},
    {"local-default-without-local",
     "default = \"local\"\ninclude_local = false\n",
     "default environment `local` is not configured"},
    {"include-local", "include_local = \"maybe\"\n", "include_local"},
    {"token-plain-ws",
     "[[environments]]\nid = \"a\"\nurl = \"ws://example.com:1\"\nauth_bearer_token = \"t\"\n",
     "use wss://"},
    {"all-or-nothing",
     "[[environments]]\nid = \"good\"\nurl = \"ws://127.0.0.1:1\"\n"
     "[[environments]]\nid = \"b\"\nurl = \"x\"\n",
     "must use ws:// or wss://"},
    {"syntax", "[[environments]\nid = \"a\"\n", "invalid TOML: line 1"},
    {"duplicate-key", "default = \"a\"\ndefault = \"b\"\n", "invalid TOML"},
};

static void
test_bad_config(gconstpointer user_data)
{
	guint i = GPOINTER_TO_UINT(user_data);
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) ids = NULL;

	g_assert_false(
	    erpc_environment_manager_load_data(manager, bad_configs[i].config, -1, &error));
	g_assert_nonnull(error);
	if (strstr(error->message, bad_configs[i].message) == NULL)
		g_error("%s: expected %s", error->message, bad_configs[i].message);
	ids = erpc_environment_manager_list_ids(manager);
	g_assert_cmpstrv(ids, ((const gchar *const[]){"local", NULL}));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "local");
}

/* Codex's defaults: local unless include_local is false, none for "none" */
static void
test_config_default(void)
{
	static const struct {
		const gchar *config;
		const gchar *default_id;
		gboolean local;
	} cases[] = {
	    {"", "local", TRUE},
	    {"default = \"none\"\n", NULL, TRUE},
	    {"default = \"NONE\"\ninclude_local = false\n", NULL, FALSE},
	    {"include_local = false\n", NULL, FALSE},
	    {"default = \" d \"\ninclude_local = false\n"
	     "[[environments]]\nid = \"d\"\nprogram = \"ssh\"\n",
	     "d",
	     FALSE},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
		g_autoptr(GError) error = NULL;
		g_auto(GStrv) ids = NULL;

		g_assert_true(
		    erpc_environment_manager_load_data(manager, cases[i].config, -1, &error));
		g_assert_no_error(error);
		g_assert_cmpstr(erpc_environment_manager_get_default_id(manager),
				==,
				cases[i].default_id);
		ids = erpc_environment_manager_list_ids(manager);
		g_assert_cmpint(g_strv_contains((const gchar *const *)ids, "local"),
				==,
				cases[i].local);
	}
}

/* $CODEX_HOME/environments.toml, with a relative cwd; else CODEX_EXEC_SERVER_URL */
static void
test_codex_home(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("erpc-codex-home-XXXXXX", &error);
	g_autofree gchar *path = g_build_filename(dir, "environments.toml", NULL);
	g_autofree gchar *home = NULL;
	g_autoptr(ErpcEnvironmentManager) empty = erpc_environment_manager_new();
	g_autoptr(ErpcEnvironmentManager) remote = erpc_environment_manager_new();
	g_autoptr(ErpcEnvironmentManager) none = erpc_environment_manager_new();
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_auto(GStrv) ids = NULL;

	g_setenv("CODEX_HOME", dir, TRUE);
	home = erpc_environment_manager_get_codex_home();
	g_assert_cmpstr(home, ==, dir);

	/* no file: CODEX_EXEC_SERVER_URL decides */
	g_unsetenv("CODEX_EXEC_SERVER_URL");
	g_assert_true(erpc_environment_manager_load_codex_home(empty, NULL, &error));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(empty), ==, "local");
	g_setenv("CODEX_EXEC_SERVER_URL", " ws://127.0.0.1:8765 ", TRUE);
	g_assert_true(erpc_environment_manager_load_codex_home(remote, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_environment_manager_get_default_id(remote), ==, "remote");
	ids = erpc_environment_manager_list_ids(remote);
	g_assert_cmpstrv(ids, ((const gchar *const[]){"remote", NULL}));
	g_clear_pointer(&ids, g_strfreev);
	g_assert_cmpstr(
	    erpc_client_get_url(erpc_environment_manager_get_environment(remote, NULL, NULL)),
	    ==,
	    "ws://127.0.0.1:8765");
	g_setenv("CODEX_EXEC_SERVER_URL", "none", TRUE);
	g_assert_true(erpc_environment_manager_load_codex_home(none, NULL, &error));
	g_assert_null(erpc_environment_manager_get_default_id(none));
	ids = erpc_environment_manager_list_ids(none);
	g_assert_cmpstrv(ids, ((const gchar *const[]){NULL}));
	g_clear_pointer(&ids, g_strfreev);

	/* the file wins over the variable */
	g_assert_true(g_file_set_contents(path,
					  "default = \"dev\"\n[[environments]]\nid = \"dev\"\n"
					  "program = \"true\"\ncwd = \"work\"\n",
					  -1,
					  NULL));
	g_assert_true(erpc_environment_manager_load_codex_home(manager, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "dev");
	ids = erpc_environment_manager_list_ids(manager);
	g_assert_cmpstrv(ids, ((const gchar *const[]){"dev", "local", NULL}));
	g_assert_true(g_file_set_contents(path, "default = 1\n", -1, NULL));
	g_assert_false(erpc_environment_manager_load_codex_home(manager, dir, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
	g_assert_nonnull(strstr(error->message, path));
	g_unsetenv("CODEX_EXEC_SERVER_URL");
	g_unsetenv("CODEX_HOME");
	g_unlink(path);
	g_rmdir(dir);
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
	g_clear_error(&error);
	/* handles given out before stay usable: neither closed nor freed */
	g_assert_cmpstr(erpc_client_get_url(first), ==, "ws://127.0.0.1:1");
	g_assert_cmpstr(erpc_client_get_url(second), ==, "ws://127.0.0.1:2");
	g_assert_null(erpc_environment_manager_get_environment(manager, "a", &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* removing the default environment keeps the default id, as in Codex */
static void
test_remove_default(void)
{
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(NULL);
	g_autofree gchar *config = g_strdup_printf("default = \"d\"\n[[environments]]\nid = \"d\"\n"
						   "url = \"%s\"\n",
						   esd_test_daemon_get_url(daemon));
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;
	g_autoptr(JsonObject) info = NULL;
	ErpcClient *client;

	g_assert_true(erpc_environment_manager_load_data(manager, config, -1, &error));
	g_assert_no_error(error);
	erpc_environment_manager_wait_until_ready_async(manager,
							"d",
							NULL,
							erpc_test_result_cb,
							&slot);
	res = erpc_test_wait(&slot);
	client = erpc_environment_manager_wait_until_ready_finish(manager, res, &error);
	g_assert_no_error(error);
	g_object_unref(client);
	g_clear_object(&res);
	g_assert_true(erpc_environment_manager_remove(manager, "d", &error));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "d");
	/* the connected client still answers */
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_READY);
	erpc_client_get_info_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	info = erpc_client_get_info_finish(client, res, &error);
	g_assert_no_error(error);
	g_assert_nonnull(info);
}

static void
test_default(void)
{
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(GError) error = NULL;

	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "local");
	g_assert_true(erpc_environment_manager_load_data(manager,
							 "include_local = false\n"
							 "default = \"one\"\n"
							 "[[environments]]\nid = \"one\"\n"
							 "url = \"ws://127.0.0.1:1\"\n",
							 -1,
							 &error));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "one");
	g_assert_null(erpc_environment_manager_get_environment(manager, "local", &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
	g_clear_error(&error);
	/* a dynamic environment leaves the configured default alone */
	g_assert_true(
	    erpc_environment_manager_upsert(manager, "two", options_new("ws://127.0.0.1:1"), NULL));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "one");

	/* without a config: the only environment when local is not offered */
	g_clear_object(&manager);
	manager = erpc_environment_manager_new();
	erpc_environment_manager_set_include_local(manager, FALSE);
	g_assert_null(erpc_environment_manager_get_default_id(manager));
	g_assert_true(
	    erpc_environment_manager_upsert(manager, "two", options_new("ws://127.0.0.1:1"), NULL));
	g_assert_cmpstr(erpc_environment_manager_get_default_id(manager), ==, "two");
	g_assert_true(erpc_environment_manager_upsert(manager,
						      "three",
						      options_new("ws://127.0.0.1:1"),
						      NULL));
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
	g_autofree gchar *path = g_build_filename(dir, "environments.toml", NULL);
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
	config = g_strdup_printf("[[environments]]\nid = \"auth\"\nurl = \"%s\"\n"
				 "auth_bearer_token = \"config-token\"\n"
				 "[[environments]]\nid = \"down\"\nurl = \"ws://127.0.0.1:1\"\n"
				 "connect_timeout_sec = 2\n",
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

/* a `program` environment gets its args, env and cwd (relative to the config);
 * one that never answers initialize fails after initialize_timeout_sec */
static void
test_program(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("erpc-program-XXXXXX", &error);
	g_autofree gchar *real = realpath(dir, NULL);
	g_autofree gchar *work = g_build_filename(dir, "work", NULL);
	g_autofree gchar *path = g_build_filename(dir, "environments.toml", NULL);
	g_autofree gchar *config = NULL;
	g_autoptr(ErpcEnvironmentManager) manager = erpc_environment_manager_new();
	g_autoptr(ErpcClient) client = NULL;
	g_autoptr(ErpcClient) silent = NULL;
	gint64 start;

	g_assert_cmpint(g_mkdir(work, 0700), ==, 0);
	config = g_strdup_printf(
	    "[[environments]]\nid = \"sh\"\nprogram = \"/bin/sh\"\ncwd = \"work\"\n"
	    "args = [\"-c\", \"test \\\"$ERPC_MARK\\\" = yes && test \\\"$(pwd -P)\\\" = "
	    "%s/work && exec %s --listen stdio\"]\n"
	    "env = { ERPC_MARK = \"yes\" }\n"
	    "[[environments]]\nid = \"silent\"\nprogram = \"sh\"\n"
	    "args = [\"-c\", \"cat >/dev/null; exit 0\"]\n"
	    "initialize_timeout_sec = 0.3\n",
	    real,
	    g_getenv("ESD_TEST_DAEMON"));
	g_assert_true(g_file_set_contents(path, config, -1, NULL));
	g_assert_true(erpc_environment_manager_load_file(manager, path, &error));
	g_assert_no_error(error);
	client = wait_ready(manager, "sh", &error);
	g_assert_no_error(error);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_READY);

	start = g_get_monotonic_time();
	silent = wait_ready(manager, "silent", &error);
	g_assert_null(silent);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_TIMED_OUT);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 20 * G_USEC_PER_SEC);
	g_clear_object(&manager);
	g_rmdir(work);
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
		g_test_add_data_func(path, GUINT_TO_POINTER(i), test_bad_config);
	}
	g_test_add_func("/execserverd/environment-manager/config-default", test_config_default);
	g_test_add_func("/execserverd/environment-manager/codex-home", test_codex_home);
	g_test_add_func("/execserverd/environment-manager/upsert-remove", test_upsert_remove);
	g_test_add_func("/execserverd/environment-manager/remove-default", test_remove_default);
	g_test_add_func("/execserverd/environment-manager/default", test_default);
	g_test_add_func("/execserverd/environment-manager/ready", test_ready);
	g_test_add_func("/execserverd/environment-manager/program", test_program);
	return g_test_run();
}
