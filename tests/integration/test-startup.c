/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "esd-test-utils.h"

/*
 * What the daemon loads at start-up: only what its command line needs (the
 * WebSocket plugin and libsoup not for a stdio daemon, no plugin of methods
 * before one of its methods is called), with every behaviour of a daemon
 * that loads everything: the ws plugin's options and config section still
 * work, the handshake lists the capabilities of plugins not loaded yet, a
 * method is answered by its plugin, loaded on the first call, and a missing
 * transport plugin is still reported.
 */

#define STARTUP_TEST "/execserverd/integration/startup/"

static gchar *
read_maps(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/maps", (gint)pid);
	g_autoptr(GError) error = NULL;
	gchar *maps = NULL;

	g_file_get_contents(path, &maps, NULL, &error);
	g_assert_no_error(error);
	return maps;
}

static void
assert_unmapped(const gchar *maps, const gchar *library)
{
	if (strstr(maps, library) != NULL)
		g_error("a stdio daemon mapped %s before it was needed:\n%s", library, maps);
}

/*
 * a stdio daemon answers the handshake without the ws plugin, libsoup or a
 * plugin of methods mapped, and still advertises what they provide
 */
static void
test_stdio_maps(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(NULL);
	g_autoptr(JsonNode) result = esd_test_peer_call(
	    ESD_TEST_PEER(daemon),
	    "{\"id\":0,\"method\":\"initialize\",\"params\":{\"clientName\":\"startup\"}}");
	g_autofree gchar *maps = read_maps(esd_test_daemon_get_pid(daemon));
	const gchar *deferred[] = {"libesd-plugin-ws.so",
				   "libsoup-3.0",
				   "libesd-plugin-fs-local.so",
				   "libesd-plugin-http.so",
				   "libesd-plugin-env-config.so",
				   "libesd-plugin-capability-discovery.so",
				   "libyaml",
				   "libesd-plugin-network-proxy.so",
				   "libesd-plugin-shell-snapshot.so",
				   /* without LISTEN_FDS: no sockets of systemd to serve */
				   "libesd-plugin-accepted-socket.so"};
	JsonNode *caps = esd_test_json_get(result, "result.environmentInfo.capabilities");

	g_assert_nonnull(strstr(maps, "libesd-plugin-stdio.so"));
	for (guint i = 0; i < G_N_ELEMENTS(deferred); i++)
		assert_unmapped(maps, deferred[i]);
	/* what the plugins not loaded yet provide, from their manifests */
	g_assert_nonnull(caps);
	g_assert_true(
	    json_object_get_boolean_member(json_node_get_object(caps), "httpHeaderEnvVars"));
	g_assert_true(
	    json_object_get_boolean_member(json_node_get_object(caps), "fileWriteStreaming"));
	g_assert_true(
	    json_object_get_boolean_member(json_node_get_object(caps), "networkProxyLaunch"));
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

/* the first fs/ call loads fs-local, and only it, and is answered by it */
static void
test_deferred_method(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(NULL);
	EsdTestPeer *peer = ESD_TEST_PEER(daemon);
	g_autofree gchar *maps = NULL;
	g_autoptr(JsonNode) reply = NULL;

	/* a check before the handler still answers for the plugin, and loads nothing */
	esd_test_peer_assert_error(peer,
				   "{\"id\":1,\"method\":\"fs/getMetadata\",\"params\":{}}",
				   "1",
				   -32600,
				   "client must call initialize before using filesystem methods");
	maps = read_maps(esd_test_daemon_get_pid(daemon));
	assert_unmapped(maps, "libesd-plugin-fs-local.so");
	g_clear_pointer(&maps, g_free);

	g_free(esd_test_peer_handshake(peer));
	reply = esd_test_peer_call(peer,
				   "{\"id\":2,\"method\":\"fs/getMetadata\","
				   "\"params\":{\"path\":\"file:///\"}}");
	g_assert_true(esd_test_json_get(reply, "result.isDirectory") != NULL);
	g_assert_true(json_node_get_boolean(esd_test_json_get(reply, "result.isDirectory")));
	maps = read_maps(esd_test_daemon_get_pid(daemon));
	g_assert_nonnull(strstr(maps, "libesd-plugin-fs-local.so"));
	assert_unmapped(maps, "libesd-plugin-http.so");
	assert_unmapped(maps, "libesd-plugin-network-proxy.so");
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

/* the plugins of launch hooks are there for the first process/start */
static void
test_deferred_hooks(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(NULL);
	EsdTestPeer *peer = ESD_TEST_PEER(daemon);
	g_autofree gchar *session = esd_test_peer_handshake(peer);
	g_autofree gchar *maps = NULL;
	g_autoptr(JsonNode) reply = NULL;

	/* a member only a deferred hook knows is checked by it, not refused as unknown */
	reply = esd_test_peer_call(peer,
				   "{\"id\":1,\"method\":\"process/start\",\"params\":{"
				   "\"processId\":\"p1\",\"argv\":[\"/bin/true\"],"
				   "\"cwd\":\"file:///\",\"env\":{},\"tty\":false,"
				   "\"shellSnapshot\":7}}");
	g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32602);
	maps = read_maps(esd_test_daemon_get_pid(daemon));
	g_assert_nonnull(strstr(maps, "libesd-plugin-shell-snapshot.so"));
	g_assert_nonnull(strstr(maps, "libesd-plugin-network-proxy.so"));
	assert_unmapped(maps, "libesd-plugin-http.so");
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

/* a deferred plugin that cannot be loaded when called: an error, not a crash or silence */
static void
test_deferred_broken(void)
{
	const gchar *daemon_path = g_getenv("ESD_TEST_DAEMON");
	g_autofree gchar *serverdir = g_path_get_dirname(daemon_path);
	g_autofree gchar *builddir = g_path_get_dirname(serverdir);
	g_autofree gchar *dir = g_dir_make_tmp("esd-startup-XXXXXX", NULL);
	g_autofree gchar *so = g_build_filename(dir, "libesd-plugin-http.so", NULL);
	g_autofree gchar *manifest = g_build_filename(dir, "libesd-plugin-http.manifest", NULL);
	const gchar *args[] = {"--plugins-dir", dir, NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autofree gchar *session = NULL;
	g_autofree gchar *from = NULL;
	g_autofree gchar *data = NULL;
	gsize size = 0;

	from = g_build_filename(builddir, "plugins", "http", "libesd-plugin-http.so", NULL);
	g_assert_true(g_file_get_contents(from, &data, &size, NULL));
	g_assert_true(g_file_set_contents_full(so, data, size, 0, 0755, NULL));
	g_clear_pointer(&from, g_free);
	g_clear_pointer(&data, g_free);
	from = g_build_filename(builddir, "plugins", "http", "libesd-plugin-http.manifest", NULL);
	g_assert_true(g_file_get_contents(from, &data, &size, NULL));
	g_assert_true(g_file_set_contents_full(manifest, data, size, 0, 0644, NULL));

	daemon = esd_test_daemon_new_stdio(args);
	session = esd_test_peer_handshake(ESD_TEST_PEER(daemon));
	/* the file changes under the daemon before the first call */
	g_assert_true(g_file_set_contents_full(so, "not a plugin", -1, 0, 0755, NULL));
	esd_test_peer_assert_error(
	    ESD_TEST_PEER(daemon),
	    "{\"id\":1,\"method\":\"http/request\",\"params\":{\"requestId\":\"r\","
	    "\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/\",\"headers\":[]}}",
	    "1",
	    -32603,
	    "http/request is not available: plugin http could not be loaded");
	/* and the method is gone, as a plugin that never loaded has none */
	esd_test_peer_assert_error(ESD_TEST_PEER(daemon),
				   "{\"id\":2,\"method\":\"http/request\",\"params\":{}}",
				   "2",
				   -32601,
				   "exec-server stub does not implement `http/request` yet");
	esd_test_peer_assert_alive(ESD_TEST_PEER(daemon));
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
	g_unlink(so);
	g_unlink(manifest);
	g_rmdir(dir);
}

/* a ws daemon loads its transport and serves over it */
static void
test_ws_serves(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(NULL);
	g_autoptr(EsdTestWsClient) client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *session = esd_test_peer_handshake(ESD_TEST_PEER(client));
	g_autofree gchar *maps = read_maps(esd_test_daemon_get_pid(daemon));

	g_assert_nonnull(strstr(maps, "libesd-plugin-ws.so"));
	if (strstr(maps, "libcrypto") != NULL)
		g_error("a ws daemon without wss:// mapped libcrypto:\n%s", maps);
	esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	esd_test_ws_client_close(client);
}

/* an option of the ws plugin is parsed by it, whatever --listen says */
static void
test_ws_option(gconstpointer data)
{
	const gchar *const *option = data;
	const gchar *args[] = {"--listen", "stdio", option[0], option[1], NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 2);
	if (strstr(err, "invalid value 'bogus' for '--ws-auth") == NULL)
		g_error("--ws-auth was not parsed by the ws plugin:\n%s", err);
}

/* a [ws] section of the config file reaches the ws plugin of a stdio daemon */
static void
test_ws_config_section(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("esd-startup-XXXXXX", NULL);
	g_autofree gchar *config = g_build_filename(dir, "execserverd.conf", NULL);
	const gchar *args[] = {"--listen", "stdio", "--config", config, NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_true(g_file_set_contents(config, "[ws]\nno-such-key=1\n", -1, NULL));
	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	if (strstr(err, "unknown key no-such-key in [ws]") == NULL)
		g_error("the [ws] section did not reach the ws plugin:\n%s", err);
	g_unlink(config);
	g_rmdir(dir);
}

/* --list-plugins lists the ws plugin whatever --listen says */
static void
test_list_plugins_stdio(void)
{
	const gchar *args[] = {"--listen", "stdio", "--list-plugins", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	if (strstr(out, "\nws ") == NULL || strstr(out, "transport:ws") == NULL)
		g_error("--list-plugins does not list ws:\n%s", out);
}

/*
 * a daemon whose plugins do not include ws: a copy of the binary with its
 * libraries, without $ESD_BUILD_PLUGINDIR (which would add the build's plugins)
 */
static void
test_missing_transport(void)
{
	const gchar *daemon = g_getenv("ESD_TEST_DAEMON");
	g_autofree gchar *serverdir = g_path_get_dirname(daemon);
	g_autofree gchar *builddir = g_path_get_dirname(serverdir);
	g_autofree gchar *dir = g_dir_make_tmp("esd-startup-XXXXXX", NULL);
	g_autofree gchar *copydir = g_build_filename(dir, "server", NULL);
	g_autofree gchar *copy = g_build_filename(copydir, "execserverd", NULL);
	g_autofree gchar *plugindir = g_build_filename(dir, "plugins", NULL);
	const gchar *libs[] = {"libexecrpc", "libexecrpc-plugin"};
	const gchar *plugins[] = {"stdio", "fs-local", "accepted-socket"};
	g_autofree gchar *contents = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GSubprocess) subprocess = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	gsize len = 0;

	g_assert_cmpint(g_mkdir(copydir, 0755), ==, 0);
	g_assert_cmpint(g_mkdir(plugindir, 0755), ==, 0);
	g_assert_true(g_file_get_contents(daemon, &contents, &len, NULL));
	g_assert_true(g_file_set_contents_full(copy, contents, len, 0, 0755, NULL));
	for (guint i = 0; i < G_N_ELEMENTS(libs); i++) {
		g_autofree gchar *target = g_build_filename(builddir, libs[i], NULL);
		g_autofree gchar *link = g_build_filename(dir, libs[i], NULL);
		g_assert_cmpint(symlink(target, link), ==, 0);
	}
	for (guint i = 0; i < G_N_ELEMENTS(plugins); i++) {
		g_autofree gchar *file = g_strdup_printf("libesd-plugin-%s.so", plugins[i]);
		g_autofree gchar *from =
		    g_build_filename(builddir, "plugins", plugins[i], file, NULL);
		g_autofree gchar *to = g_build_filename(plugindir, file, NULL);
		g_autofree gchar *data = NULL;
		gsize size = 0;

		g_assert_true(g_file_get_contents(from, &data, &size, NULL));
		g_assert_true(g_file_set_contents_full(to, data, size, 0, 0755, NULL));
	}

	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
					     G_SUBPROCESS_FLAGS_STDOUT_PIPE |
					     G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_subprocess_launcher_unsetenv(launcher, "ESD_BUILD_PLUGINDIR");
	subprocess = g_subprocess_launcher_spawn(launcher,
						 &error,
						 copy,
						 "--plugins-dir",
						 plugindir,
						 "--listen",
						 "ws://127.0.0.1:0",
						 NULL);
	g_assert_no_error(error);
	g_subprocess_communicate_utf8(subprocess, "", NULL, &out, &err, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(subprocess));
	g_assert_cmpint(g_subprocess_get_exit_status(subprocess), ==, 1);
	g_assert_cmpstr(out, ==, "");
	g_assert_cmpstr(err,
			==,
			"execserverd: unsupported --listen URL ws://127.0.0.1:0: no transport "
			"plugin provides ws\n");

	for (guint i = 0; i < G_N_ELEMENTS(plugins); i++) {
		g_autofree gchar *file = g_strdup_printf("libesd-plugin-%s.so", plugins[i]);
		g_autofree gchar *path = g_build_filename(plugindir, file, NULL);
		g_unlink(path);
	}
	for (guint i = 0; i < G_N_ELEMENTS(libs); i++) {
		g_autofree gchar *link = g_build_filename(dir, libs[i], NULL);
		g_unlink(link);
	}
	g_unlink(copy);
	g_rmdir(copydir);
	g_rmdir(plugindir);
	g_rmdir(dir);
}

int
main(int argc, char *argv[])
{
	static const gchar *const separate[] = {"--ws-auth", "bogus"};
	static const gchar *const joined[] = {"--ws-auth=bogus", NULL};

	g_test_init(&argc, &argv, NULL);
	g_test_add_func(STARTUP_TEST "stdio-maps", test_stdio_maps);
	g_test_add_func(STARTUP_TEST "deferred-method", test_deferred_method);
	g_test_add_func(STARTUP_TEST "deferred-hooks", test_deferred_hooks);
	g_test_add_func(STARTUP_TEST "deferred-broken", test_deferred_broken);
	g_test_add_func(STARTUP_TEST "ws-serves", test_ws_serves);
	g_test_add_data_func(STARTUP_TEST "ws-option", separate, test_ws_option);
	g_test_add_data_func(STARTUP_TEST "ws-option-joined", joined, test_ws_option);
	g_test_add_func(STARTUP_TEST "ws-config-section", test_ws_config_section);
	g_test_add_func(STARTUP_TEST "list-plugins-stdio", test_list_plugins_stdio);
	g_test_add_func(STARTUP_TEST "missing-transport", test_missing_transport);
	return g_test_run();
}
