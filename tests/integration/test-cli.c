/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "esd-test-utils.h"

/* the command line of execserverd (PROTOCOL.md §1.1), each run with stdin at EOF */

#define CLI_TEST "/execserverd/integration/cli/"

static void
test_help(void)
{
	const gchar *args[] = {"--help", NULL};
	const gchar *options[] = {"--listen",
				  "--plugins-dir",
				  "--list-plugins",
				  "--version",
				  "--concurrent-requests",
				  "--session-grace",
				  "--max-message-size",
				  "--verbose",
				  "--dbus-allow-sandboxed",
				  "--config",
				  "wss://IP:PORT",
				  NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	for (guint i = 0; options[i] != NULL; i++) {
		if (strstr(out, options[i]) == NULL)
			g_error("--help does not mention %s:\n%s", options[i], out);
	}
	g_assert_cmpstr(err, ==, "");
}

static void
test_version(void)
{
	const gchar *args[] = {"--version", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	g_assert_true(g_str_has_prefix(out, "execserverd " PACKAGE_VERSION));
	g_assert_true(
	    g_regex_match_simple("^execserverd [0-9]+\\.[0-9]+\\.[0-9]+[^\n]*\n$", out, 0, 0));
	g_assert_cmpstr(err, ==, "");
}

/* the value of "  KEY: value" in the block of a plugin, or NULL */
static gchar *
plugin_field(const gchar *listing, const gchar *plugin, const gchar *key)
{
	g_auto(GStrv) lines = g_strsplit(listing, "\n", -1);
	g_autofree gchar *header = g_strdup_printf("%s ", plugin);
	g_autofree gchar *prefix = g_strdup_printf("  %s:", key);
	gboolean in_block = FALSE;

	for (guint i = 0; lines[i] != NULL; i++) {
		if (lines[i][0] != ' ' && lines[i][0] != '\0')
			in_block = g_str_has_prefix(lines[i], header);
		else if (in_block && g_str_has_prefix(lines[i], prefix))
			return g_strstrip(g_strdup(lines[i] + strlen(prefix)));
	}
	return NULL;
}

static void
assert_transports_listed(const gchar *out)
{
	g_autofree gchar *stdio_ext = plugin_field(out, "stdio", "extensions");
	g_autofree gchar *ws_ext = plugin_field(out, "ws", "extensions");
	g_autofree gchar *ws_path = plugin_field(out, "ws", "path");

	if (stdio_ext == NULL || ws_ext == NULL)
		g_error("stdio or ws missing from --list-plugins:\n%s", out);
	g_assert_nonnull(strstr(stdio_ext, "transport:stdio"));
	g_assert_nonnull(strstr(ws_ext, "transport:ws"));
	g_assert_nonnull(ws_path);
	g_assert_true(g_str_has_suffix(ws_path, "libesd-plugin-ws.so"));
}

static void
test_list_plugins(void)
{
	const gchar *args[] = {"--list-plugins", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	assert_transports_listed(out);
}

/* an extra, empty plugin directory changes nothing */
static void
test_list_plugins_extra_dir(void)
{
	g_autofree gchar *dir = g_build_filename(g_get_user_cache_dir(), "no-plugins", NULL);
	const gchar *args[] = {"--plugins-dir", dir, "--list-plugins", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	assert_transports_listed(out);
}

/* PROTOCOL.md §1.3: stdin at EOF ends the only connection at once, exit 0, stdout silent */
static void
test_stdio_eof(gconstpointer user_data)
{
	const gchar *listen = user_data;
	const gchar *args[] = {"--listen", listen, NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(esd_test_run_daemon(args, &out, &err), ==, 0);
	g_assert_cmpstr(out, ==, "");
}

typedef struct {
	const gchar *name;
	const gchar *args[5];
	const gchar *stderr_text; /* a substring of what must be printed on stderr */
} BadInvocation;

static const BadInvocation bad_invocations[] = {
    {"unknown-option", {"--bogus", NULL}, "--bogus"},
    {"unexpected-argument", {"extra", NULL}, "extra"},
    {"listen-ftp", {"--listen", "ftp://x", NULL}, "unsupported --listen URL ftp://x"},
    {"listen-localhost",
     {"--listen", "ws://localhost:1", NULL},
     "unsupported --listen URL ws://localhost:1; expected ws://IP:PORT or stdio"},
    {"listen-no-port", {"--listen", "ws://127.0.0.1", NULL}, "unsupported --listen URL"},
    {"listen-port-too-big", {"--listen", "ws://127.0.0.1:80000", NULL}, "unsupported --listen URL"},
    {"listen-path", {"--listen", "ws://127.0.0.1:0/path", NULL}, "unsupported --listen URL"},
    {"listen-http", {"--listen", "http://127.0.0.1:0", NULL}, "unsupported --listen URL"},
    {"listen-empty", {"--listen", "", NULL}, "--listen"},
    {"listen-missing-value", {"--listen", NULL}, "--listen"},
    {"concurrent-requests-zero", {"--concurrent-requests", "0", NULL}, "--concurrent-requests"},
    {"concurrent-requests-text", {"--concurrent-requests", "abc", NULL}, "--concurrent-requests"},
    {"session-grace-zero", {"--session-grace", "0", NULL}, "--session-grace"},
    {"max-message-size-tiny", {"--max-message-size", "10", NULL}, "--max-message-size"},
    {NULL},
};

/* a usage error: a plain non-zero exit (not a signal), a message, nothing on stdout */
static void
assert_fails(const gchar *const *args, const gchar *stderr_text)
{
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	gint rc = esd_test_run_daemon(args, &out, &err);

	if (rc <= 0 || rc >= 128)
		g_error("exit status %d, stderr: %s", rc, err);
	g_assert_cmpstr(out, ==, "");
	if (strstr(err, stderr_text) == NULL)
		g_error("stderr does not mention \"%s\": \"%s\"", stderr_text, err);
}

static void
test_bad_invocation(gconstpointer user_data)
{
	const BadInvocation *bad = user_data;
	assert_fails(bad->args, bad->stderr_text);
}

/* a port that is already taken */
static void
test_listen_busy_port(void)
{
	g_autoptr(GSocketListener) listener = g_socket_listener_new();
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *url = NULL;
	const gchar *args[] = {"--listen", NULL, NULL};

	g_socket_listener_add_address(listener,
				      address,
				      G_SOCKET_TYPE_STREAM,
				      G_SOCKET_PROTOCOL_TCP,
				      NULL,
				      (GSocketAddress **)&bound,
				      &error);
	g_assert_no_error(error);
	url = g_strdup_printf("ws://127.0.0.1:%u",
			      g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound)));
	args[1] = url;
	assert_fails(args, url);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);

	g_test_add_func(CLI_TEST "help", test_help);
	g_test_add_func(CLI_TEST "version", test_version);
	g_test_add_func(CLI_TEST "list-plugins", test_list_plugins);
	g_test_add_func(CLI_TEST "list-plugins-extra-dir", test_list_plugins_extra_dir);
	g_test_add_data_func(CLI_TEST "stdio-eof", "stdio", test_stdio_eof);
	g_test_add_data_func(CLI_TEST "stdio-url-eof", "stdio://", test_stdio_eof);
	for (guint i = 0; bad_invocations[i].name != NULL; i++) {
		g_autofree gchar *path =
		    g_strdup_printf(CLI_TEST "fails/%s", bad_invocations[i].name);
		g_test_add_data_func(path, &bad_invocations[i], test_bad_invocation);
	}
	g_test_add_func(CLI_TEST "fails/listen-busy-port", test_listen_busy_port);
	return g_test_run();
}
