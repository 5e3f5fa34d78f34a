/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <gio/gunixfdlist.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "esd-test-socket.h"

/*
 * `execserverd --dbus` as the session bus starts it. Every test runs a
 * private dbus-daemon whose only service directory holds the build tree's
 * dev.execserverd.ExecServer1.service, with extra arguments added to its
 * Exec line; the first call to the name activates the daemon. The bus's
 * output, which the activated daemon inherits, goes to a file that must show
 * no warning.
 */

#define DBUS_TEST "/execserverd/integration/dbus/"
#define BUS_NAME  "dev.execserverd.ExecServer1"
#define BUS_PATH  "/dev/execserverd/ExecServer1"
#define BUS_IFACE "dev.execserverd.ExecServer1"
#define WAIT_MS	  5000
/* activation under valgrind or ASan takes a while */
#define CALL_TIMEOUT_MS 30000

typedef struct {
	gchar *dir;
	gchar *address;
	gchar *log;
	GSubprocess *bus;
	GDBusConnection *connection;
	guint expected_problems; /* warnings the test makes the daemon log */
} Fixture;

static const gchar *const default_args = "--verbose";
static const gchar *const idle_args = "--verbose --idle-timeout 2";
static const gchar *const allow_sandboxed_args = "--verbose --dbus-allow-sandboxed";

static void
fixture_child_setup(gpointer user_data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* the build tree's service file with @args added to its Exec line */
static void
fixture_write_service(Fixture *fx, const gchar *args)
{
	const gchar *source = g_getenv("ESD_TEST_DBUS_SERVICE");
	g_autofree gchar *text = NULL;
	g_autofree gchar *services = g_build_filename(fx->dir, "services", NULL);
	g_autofree gchar *path = NULL;
	g_auto(GStrv) lines = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) error = NULL;

	g_assert_nonnull(source);
	g_assert_true(g_file_get_contents(source, &text, NULL, &error));
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		g_string_append(out, lines[i]);
		if (g_str_has_prefix(lines[i], "Exec="))
			g_string_append_printf(out, " %s", args);
		if (lines[i + 1] != NULL)
			g_string_append_c(out, '\n');
	}
	g_assert_cmpint(g_mkdir_with_parents(services, 0700), ==, 0);
	path = g_build_filename(services, BUS_NAME ".service", NULL);
	g_assert_true(g_file_set_contents(path, out->str, -1, &error));
}

static void
fixture_write_config(Fixture *fx)
{
	g_autofree gchar *path = g_build_filename(fx->dir, "bus.conf", NULL);
	g_autofree gchar *config = NULL;
	g_autoptr(GError) error = NULL;

	config = g_strdup_printf(
	    "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
	    " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
	    "<busconfig>\n"
	    "  <type>session</type>\n"
	    "  <listen>unix:path=%s/bus</listen>\n"
	    "  <auth>EXTERNAL</auth>\n"
	    "  <servicedir>%s/services</servicedir>\n"
	    "  <policy context=\"default\">\n"
	    "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
	    "    <allow eavesdrop=\"true\"/>\n"
	    "    <allow own=\"*\"/>\n"
	    "  </policy>\n"
	    "</busconfig>\n",
	    fx->dir,
	    fx->dir);
	g_assert_true(g_file_set_contents(path, config, -1, &error));
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *dbus_daemon = g_find_program_in_path("dbus-daemon");
	g_autofree gchar *config_arg = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GDataInputStream) out = NULL;
	g_autofree gchar *printed = NULL;
	g_autoptr(GError) error = NULL;

	if (dbus_daemon == NULL) {
		g_test_skip("dbus-daemon is not installed (Debian: dbus-daemon)");
		return;
	}
	fx->dir = g_dir_make_tmp("esd-dbus-XXXXXX", &error);
	g_assert_no_error(error);
	fx->address = g_strdup_printf("unix:path=%s/bus", fx->dir);
	fx->log = g_build_filename(fx->dir, "bus.log", NULL);
	fixture_write_service(fx, user_data != NULL ? user_data : default_args);
	fixture_write_config(fx);

	config_arg = g_strdup_printf("--config-file=%s/bus.conf", fx->dir);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	/* the activated daemon inherits the bus's environment and output */
	g_subprocess_launcher_setenv(launcher, "DBUS_SESSION_BUS_ADDRESS", fx->address, TRUE);
	g_subprocess_launcher_set_stderr_file_path(launcher, fx->log);
	g_subprocess_launcher_set_child_setup(launcher, fixture_child_setup, NULL, NULL);
	fx->bus = g_subprocess_launcher_spawn(launcher,
					      &error,
					      dbus_daemon,
					      config_arg,
					      "--nofork",
					      "--print-address",
					      NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(fx->bus));
	printed = g_data_input_stream_read_line(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(printed);
	fx->connection = g_dbus_connection_new_for_address_sync(
	    fx->address,
	    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
	    NULL,
	    NULL,
	    &error);
	g_assert_no_error(error);
}

static GVariant *
bus_call(GDBusConnection *connection, const gchar *method, GVariant *args, const gchar *reply_type)
{
	g_autoptr(GError) error = NULL;
	GVariant *reply = g_dbus_connection_call_sync(connection,
						      "org.freedesktop.DBus",
						      "/org/freedesktop/DBus",
						      "org.freedesktop.DBus",
						      method,
						      args,
						      G_VARIANT_TYPE(reply_type),
						      G_DBUS_CALL_FLAGS_NONE,
						      WAIT_MS,
						      NULL,
						      &error);
	g_assert_no_error(error);
	return reply;
}

static gboolean
fixture_name_has_owner(Fixture *fx)
{
	g_autoptr(GVariant) reply =
	    bus_call(fx->connection, "NameHasOwner", g_variant_new("(s)", BUS_NAME), "(b)");
	gboolean owned = FALSE;
	g_variant_get(reply, "(b)", &owned);
	return owned;
}

static guint32
fixture_daemon_pid(Fixture *fx)
{
	g_autoptr(GVariant) reply = bus_call(fx->connection,
					     "GetConnectionUnixProcessID",
					     g_variant_new("(s)", BUS_NAME),
					     "(u)");
	guint32 pid = 0;
	g_variant_get(reply, "(u)", &pid);
	return pid;
}

/* gone, or a zombie nobody reaped yet */
static gboolean
pid_is_gone(guint32 pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%u/stat", pid);
	g_autofree gchar *stat = NULL;
	const gchar *paren;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return TRUE;
	paren = strrchr(stat, ')');
	return paren != NULL && paren[1] == ' ' && paren[2] == 'Z';
}

static void
remove_tree(const gchar *dir)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *name;

	while (handle != NULL && (name = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			remove_tree(path);
		else
			g_unlink(path);
	}
	g_rmdir(dir);
}

/* the daemon loses the bus with the bus, and exits */
static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	guint32 pid = 0;

	if (fx->bus == NULL)
		return;
	if (fixture_name_has_owner(fx))
		pid = fixture_daemon_pid(fx);
	g_dbus_connection_close_sync(fx->connection, NULL, NULL);
	g_clear_object(&fx->connection);
	g_subprocess_send_signal(fx->bus, SIGTERM);
	esd_test_subprocess_wait(fx->bus, WAIT_MS);
	g_clear_object(&fx->bus);
	if (pid != 0)
		ESD_WAIT_UNTIL(pid_is_gone(pid), WAIT_MS);
	g_assert_cmpuint(esd_test_log_count_problems(fx->log), ==, fx->expected_problems);
	remove_tree(fx->dir);
	g_free(fx->dir);
	g_free(fx->address);
	g_free(fx->log);
}

/* OpenConnection; the fd, or -1 with @error set */
static gint
open_connection(GDBusConnection *connection, GVariant *options, GError **error)
{
	g_autoptr(GUnixFDList) fds = NULL;
	g_autoptr(GVariant) reply = NULL;
	gint32 handle = -1;

	reply = g_dbus_connection_call_with_unix_fd_list_sync(connection,
							      BUS_NAME,
							      BUS_PATH,
							      BUS_IFACE,
							      "OpenConnection",
							      g_variant_new("(@a{sv})", options),
							      G_VARIANT_TYPE("(h)"),
							      G_DBUS_CALL_FLAGS_NONE,
							      CALL_TIMEOUT_MS,
							      NULL,
							      &fds,
							      NULL,
							      error);
	if (reply == NULL)
		return -1;
	g_variant_get(reply, "(h)", &handle);
	g_assert_nonnull(fds);
	g_assert_cmpint(g_unix_fd_list_get_length(fds), ==, 1);
	return g_unix_fd_list_get(fds, handle, error);
}

static EsdTestSocketPeer *
open_peer(GDBusConnection *connection)
{
	g_autoptr(GError) error = NULL;
	gint fd = open_connection(connection, g_variant_new("a{sv}", NULL), &error);

	g_assert_no_error(error);
	return esd_test_socket_peer_new(fd);
}

/* the first call activates the daemon; the fd carries a whole exchange */
static void
test_activation(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(EsdTestSocketPeer) peer = NULL;

	if (fx->bus == NULL)
		return;
	g_assert_false(fixture_name_has_owner(fx));
	peer = open_peer(fx->connection);
	g_assert_true(fixture_name_has_owner(fx));
	esd_test_scenario_echo_hi(ESD_TEST_PEER(peer));
	esd_test_socket_peer_close(peer);
}

static GVariant *
get_property(Fixture *fx, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply =
	    g_dbus_connection_call_sync(fx->connection,
					BUS_NAME,
					BUS_PATH,
					"org.freedesktop.DBus.Properties",
					"Get",
					g_variant_new("(ss)", BUS_IFACE, name),
					G_VARIANT_TYPE("(v)"),
					G_DBUS_CALL_FLAGS_NONE,
					CALL_TIMEOUT_MS,
					NULL,
					&error);
	GVariant *value = NULL;

	g_assert_no_error(error);
	g_variant_get(reply, "(v)", &value);
	return value;
}

/* Version is the daemon's; Capabilities is environmentInfo.capabilities */
static void
test_properties(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GVariant) version = NULL;
	g_autoptr(GVariant) capabilities = NULL;
	g_autoptr(EsdTestSocketPeer) peer = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autoptr(GString) json = g_string_new("{");
	GVariantIter iter;
	const gchar *name;
	gboolean enabled;

	if (fx->bus == NULL)
		return;
	version = get_property(fx, "Version");
	g_assert_cmpstr(g_variant_get_type_string(version), ==, "s");
	g_assert_cmpstr(g_variant_get_string(version, NULL), ==, PACKAGE_VERSION);
	capabilities = get_property(fx, "Capabilities");
	g_assert_cmpstr(g_variant_get_type_string(capabilities), ==, "a{sb}");
	g_assert_cmpuint(g_variant_n_children(capabilities), >, 0);
	g_variant_iter_init(&iter, capabilities);
	while (g_variant_iter_next(&iter, "{&sb}", &name, &enabled))
		g_string_append_printf(json,
				       "%s\"%s\":%s",
				       json->len > 1 ? "," : "",
				       name,
				       enabled ? "true" : "false");
	g_string_append_c(json, '}');

	peer = open_peer(fx->connection);
	reply = esd_test_peer_call(
	    ESD_TEST_PEER(peer),
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}");
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.environmentInfo.capabilities"),
				json->str);
	esd_test_socket_peer_close(peer);
}

static void
assert_invalid_args(GDBusConnection *connection, GVariant *options, const gchar *pattern)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *remote = NULL;

	g_assert_cmpint(open_connection(connection, options, &error), ==, -1);
	g_assert_nonnull(error);
	remote = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(remote, ==, "org.freedesktop.DBus.Error.InvalidArgs");
	if (!g_pattern_match_simple(pattern, error->message))
		g_error("unexpected error: %s", error->message);
}

/* unknown keys are ignored; a known key of the wrong type is refused */
static void
test_options(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariantBuilder) good = g_variant_builder_new(G_VARIANT_TYPE("a{sv}"));
	g_autoptr(GVariantBuilder) bad = g_variant_builder_new(G_VARIANT_TYPE("a{sv}"));
	g_autoptr(GVariantBuilder) long_name = g_variant_builder_new(G_VARIANT_TYPE("a{sv}"));
	g_autoptr(EsdTestSocketPeer) peer = NULL;
	g_autofree gchar *too_long = g_strnfill(257, 'x');
	g_autofree gchar *session_id = NULL;
	gint fd;

	if (fx->bus == NULL)
		return;
	g_variant_builder_add(good, "{sv}", "client-name", g_variant_new_string("a test\n"));
	g_variant_builder_add(good, "{sv}", "x-unknown", g_variant_new_uint32(7));
	fd = open_connection(fx->connection, g_variant_builder_end(good), &error);
	g_assert_no_error(error);
	peer = esd_test_socket_peer_new(fd);
	session_id = esd_test_peer_handshake(ESD_TEST_PEER(peer));
	esd_test_peer_assert_alive(ESD_TEST_PEER(peer));

	g_variant_builder_add(bad, "{sv}", "client-name", g_variant_new_int32(42));
	assert_invalid_args(fx->connection,
			    g_variant_builder_end(bad),
			    "*client-name must be a string (s), not i*");
	g_variant_builder_add(long_name, "{sv}", "client-name", g_variant_new_string(too_long));
	assert_invalid_args(fx->connection,
			    g_variant_builder_end(long_name),
			    "*client-name is longer than 256 bytes*");
	/* the first connection is untouched by the refusals */
	esd_test_peer_assert_alive(ESD_TEST_PEER(peer));
	esd_test_socket_peer_close(peer);
}

/* a handshaken connection of @connection running `sleep <marker>` */
static EsdTestSocketPeer *
start_sleeper(GDBusConnection *connection, const gchar *marker)
{
	EsdTestSocketPeer *peer = open_peer(connection);
	g_autofree gchar *session_id = esd_test_peer_handshake(ESD_TEST_PEER(peer));
	g_autofree gchar *argv = g_strdup_printf("[\"sleep\",\"%s\"]", marker);

	esd_test_peer_start_process(ESD_TEST_PEER(peer), "sleeper", argv, NULL);
	ESD_WAIT_UNTIL(esd_test_count_processes(marker) > 0, WAIT_MS);
	return peer;
}

/* the caller leaving the bus closes its connection and ends its processes, not others' */
static void
test_caller_leaves(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GDBusConnection) caller = NULL;
	g_autoptr(EsdTestSocketPeer) leaving = NULL;
	g_autoptr(EsdTestSocketPeer) staying = NULL;
	g_autofree gchar *leaving_marker = esd_test_new_marker();
	g_autofree gchar *staying_marker = esd_test_new_marker();
	g_autoptr(GError) error = NULL;

	if (fx->bus == NULL)
		return;
	caller = g_dbus_connection_new_for_address_sync(
	    fx->address,
	    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
	    NULL,
	    NULL,
	    &error);
	g_assert_no_error(error);
	leaving = start_sleeper(caller, leaving_marker);
	staying = start_sleeper(fx->connection, staying_marker);

	/* the test still holds the socket: only the bus tells the daemon */
	g_assert_true(g_dbus_connection_close_sync(caller, NULL, &error));
	g_assert_no_error(error);
	g_assert_true(esd_test_socket_peer_wait_eof(leaving, WAIT_MS));
	ESD_WAIT_UNTIL(esd_test_count_processes(leaving_marker) == 0, WAIT_MS);

	g_assert_cmpuint(esd_test_count_processes(staying_marker), >, 0);
	esd_test_peer_assert_alive(ESD_TEST_PEER(staying));
	esd_test_socket_peer_close(staying);
	ESD_WAIT_UNTIL(esd_test_count_processes(staying_marker) == 0, WAIT_MS);
}

/* closing the socket ends the session at once, not after --session-grace */
static void
test_socket_closed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *marker = esd_test_new_marker();
	g_autoptr(EsdTestSocketPeer) peer = NULL;

	if (fx->bus == NULL)
		return;
	peer = start_sleeper(fx->connection, marker);
	esd_test_socket_peer_close(peer);
	ESD_WAIT_UNTIL(esd_test_count_processes(marker) == 0, WAIT_MS);
	g_assert_true(fixture_name_has_owner(fx));
}

/* the daemon's descriptors, soft and hard, once it runs */
#define FD_LIMIT 32

static guint
count_in_log(Fixture *fx, const gchar *needle)
{
	g_autofree gchar *log = NULL;
	g_auto(GStrv) parts = NULL;

	g_assert_true(g_file_get_contents(fx->log, &log, NULL, NULL));
	parts = g_strsplit(log, needle, -1);
	return g_strv_length(parts) - 1;
}

/*
 * out of descriptors, OpenConnection answers each caller an error and the
 * log one warning; once descriptors free up, it serves again
 */
static void
test_fd_limit(Fixture *fx, gconstpointer user_data)
{
	const struct rlimit limit = {.rlim_cur = FD_LIMIT, .rlim_max = FD_LIMIT};
	g_autoptr(GArray) fds = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(EsdTestSocketPeer) first = NULL;
	g_autoptr(EsdTestSocketPeer) fresh = NULL;
	g_autoptr(GError) error = NULL;
	gint64 start;
	gint fd;

	if (fx->bus == NULL)
		return;
	first = open_peer(fx->connection);
	g_free(esd_test_peer_handshake(ESD_TEST_PEER(first)));
	g_assert_cmpint(prlimit((pid_t)fixture_daemon_pid(fx), RLIMIT_NOFILE, &limit, NULL), ==, 0);
	while ((fd = open_connection(fx->connection, g_variant_new("a{sv}", NULL), &error)) >= 0) {
		g_array_append_val(fds, fd);
		g_assert_cmpuint(fds->len, <, FD_LIMIT);
	}
	g_test_message("%u connections opened, then: %s", fds->len, error->message);
	g_assert_error(error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED);
	g_assert_true(g_pattern_match_simple("*Too many open files*", error->message));
	g_clear_error(&error);
	/*
	 * one descriptor fewer, an open file of the first session: now the
	 * caller check, which reads /proc with two at a time, or the socket
	 * pair fails
	 */
	{
		g_autofree gchar *file = g_build_filename(fx->dir, "file", NULL);
		g_autofree gchar *request = NULL;
		g_autoptr(JsonNode) reply = NULL;

		g_assert_true(g_file_set_contents(file, "x", -1, NULL));
		request = g_strdup_printf("{\"id\":\"open\",\"method\":\"fs/open\",\"params\":{"
					  "\"handleId\":\"h\",\"path\":\"file://%s\",\"mode\":"
					  "\"read\"}}",
					  file);
		reply = esd_test_peer_call(ESD_TEST_PEER(first), request);
		g_assert_nonnull(esd_test_json_get(reply, "result"));
	}
	fd = open_connection(fx->connection, g_variant_new("a{sv}", NULL), &error);
	g_assert_cmpint(fd, <, 0);
	g_assert_error(error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED);
	if (!g_pattern_match_simple("*cannot create a socket pair: Too many open files*",
				    error->message) &&
	    !g_pattern_match_simple("*cannot identify the caller: *Too many open files*",
				    error->message))
		g_error("unexpected error: %s", error->message);
	g_clear_error(&error);
	esd_test_peer_assert_alive(ESD_TEST_PEER(first));

	for (guint i = 0; i < fds->len; i++)
		close(g_array_index(fds, gint, i));
	start = g_get_monotonic_time();
	/* the daemon frees a descriptor as it sees each connection end */
	while ((fd = open_connection(fx->connection, g_variant_new("a{sv}", NULL), &error)) < 0 &&
	       g_get_monotonic_time() - start < 3 * G_USEC_PER_SEC) {
		g_clear_error(&error);
		g_usleep(100 * 1000);
	}
	g_assert_no_error(error);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 3 * G_USEC_PER_SEC);
	fresh = esd_test_socket_peer_new(fd);
	g_free(esd_test_peer_handshake(ESD_TEST_PEER(fresh)));
	esd_test_peer_assert_alive(ESD_TEST_PEER(fresh));

	g_assert_cmpuint(count_in_log(fx, "-WARNING: "), ==, 1);
	g_assert_cmpuint(count_in_log(fx, "cannot open connections for D-Bus callers"), ==, 1);
	g_assert_cmpuint(count_in_log(fx, "opening connections for D-Bus callers again"), ==, 1);
	fx->expected_problems = 1;
	esd_test_socket_peer_close(fresh);
	esd_test_socket_peer_close(first);
}

/* --idle-timeout 2: kept while a connection is open, then exits by itself */
static void
test_idle_exit(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(EsdTestSocketPeer) peer = NULL;
	guint32 pid;
	gint64 closed_at;
	gint64 gone_at;

	if (fx->bus == NULL)
		return;
	peer = open_peer(fx->connection);
	pid = fixture_daemon_pid(fx);
	esd_test_scenario_echo_hi(ESD_TEST_PEER(peer));
	/* longer than the timeout, with a connection open */
	g_usleep(3 * G_USEC_PER_SEC);
	g_assert_true(fixture_name_has_owner(fx));
	esd_test_peer_assert_alive(ESD_TEST_PEER(peer));

	esd_test_socket_peer_close(peer);
	closed_at = g_get_monotonic_time();
	ESD_WAIT_UNTIL(!fixture_name_has_owner(fx), 8000);
	gone_at = g_get_monotonic_time();
	ESD_WAIT_UNTIL(pid_is_gone(pid), WAIT_MS);
	g_assert_cmpint(gone_at - closed_at, >=, 3 * G_USEC_PER_SEC / 2);
}

/* the name is requested without queueing: a second instance exits at once */
static void
test_second_instance(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--dbus", NULL};
	g_autofree gchar *env_address = NULL;
	g_autofree gchar *log_path = NULL;
	g_autofree gchar *log = NULL;
	g_autoptr(EsdTestSocketPeer) peer = NULL;
	g_autoptr(GSubprocess) second = NULL;

	if (fx->bus == NULL)
		return;
	peer = open_peer(fx->connection);
	env_address = g_strdup_printf("DBUS_SESSION_BUS_ADDRESS=%s", fx->address);
	log_path = g_build_filename(fx->dir, "second.log", NULL);
	second = esd_test_spawn_daemon_with_fd(args,
					       -1,
					       ESD_TEST_FD_PLAIN,
					       (const gchar *const[]){env_address, NULL},
					       log_path);
	g_assert_cmpint(esd_test_subprocess_wait(second, WAIT_MS), ==, 1);
	g_assert_true(g_file_get_contents(log_path, &log, NULL, NULL));
	if (strstr(log, "cannot own " BUS_NAME " on the session bus: another process has it") ==
	    NULL)
		g_error("unexpected output of the second instance:\n%s", log);
	/* the first one goes on serving */
	esd_test_scenario_echo_hi(ESD_TEST_PEER(peer));
	esd_test_socket_peer_close(peer);
}

/* --- sandboxed callers ------------------------------------------------ */

#define FLATPAK_INFO "[Application]\nname=org.example.App\n\n[Instance]\ninstance-id=1\n"

/* the output of a caller run by run_caller() */
typedef struct {
	gint status; /* exit status, -1 if killed */
	gchar *out;
} CallerResult;

static void
caller_result_clear(CallerResult *result)
{
	g_clear_pointer(&result->out, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(CallerResult, caller_result_clear)

static gchar *
caller_path(void)
{
	return g_test_build_filename(G_TEST_BUILT, "dbus", "dbus-open-connection", NULL);
}

/*
 * bwrap with the host's /usr and /etc, the bus directory and the caller,
 * nothing else: a root of its own, as Flatpak gives an app, in which
 * /.flatpak-info can be created without touching the host's /
 */
static GPtrArray *
sandbox_argv(Fixture *fx, const gchar *flatpak_info)
{
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	const gchar *top[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
	g_autofree gchar *helper = caller_path();
	const gchar *binds[] = {"/usr", "/etc", fx->dir, NULL, NULL};

	binds[3] = g_path_get_dirname(helper);
	g_ptr_array_add(argv, g_strdup("bwrap"));
	g_ptr_array_add(argv, g_strdup("--die-with-parent"));
	/* a /proc of its own: LeakSanitizer reads /proc/PID/task at exit */
	g_ptr_array_add(argv, g_strdup("--unshare-pid"));
	g_ptr_array_add(argv, g_strdup("--proc"));
	g_ptr_array_add(argv, g_strdup("/proc"));
	g_ptr_array_add(argv, g_strdup("--dev"));
	g_ptr_array_add(argv, g_strdup("/dev"));
	for (guint i = 0; binds[i] != NULL; i++) {
		g_ptr_array_add(argv, g_strdup("--ro-bind"));
		g_ptr_array_add(argv, g_strdup(binds[i]));
		g_ptr_array_add(argv, g_strdup(binds[i]));
	}
	g_free((gchar *)binds[3]);
	/* merged /usr or not */
	for (guint i = 0; i < G_N_ELEMENTS(top); i++) {
		g_autofree gchar *target = g_file_read_link(top[i], NULL);
		if (target != NULL) {
			g_ptr_array_add(argv, g_strdup("--symlink"));
			g_ptr_array_add(argv, g_steal_pointer(&target));
			g_ptr_array_add(argv, g_strdup(top[i]));
		} else if (g_file_test(top[i], G_FILE_TEST_IS_DIR)) {
			g_ptr_array_add(argv, g_strdup("--ro-bind"));
			g_ptr_array_add(argv, g_strdup(top[i]));
			g_ptr_array_add(argv, g_strdup(top[i]));
		}
	}
	if (flatpak_info != NULL) {
		g_ptr_array_add(argv, g_strdup("--ro-bind"));
		g_ptr_array_add(argv, g_strdup(flatpak_info));
		g_ptr_array_add(argv, g_strdup("/.flatpak-info"));
	}
	g_ptr_array_add(argv, g_strdup("--"));
	return argv;
}

static void
caller_child_setup(gpointer user_data)
{
	const gchar *procs = user_data;
	gint fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (procs == NULL)
		return;
	/* "0" moves the writer itself */
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		_exit(97);
	close(fd);
}

/*
 * runs the caller on the fixture's bus: inside bwrap when @sandboxed (with
 * @flatpak_info as its /.flatpak-info when given), in the cgroup whose
 * cgroup.procs is @procs when given; FALSE with the test skipped when bwrap
 * cannot run here
 */
static gboolean
run_caller(Fixture *fx,
	   gboolean sandboxed,
	   const gchar *flatpak_info,
	   const gchar *procs,
	   CallerResult *result)
{
	g_autoptr(GPtrArray) argv = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GSubprocess) caller = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out_path = g_build_filename(fx->dir, "caller.out", NULL);
	g_autofree gchar *err_path = g_build_filename(fx->dir, "caller.err", NULL);
	g_autofree gchar *info_path = NULL;
	g_autofree gchar *err = NULL;
	g_autofree gchar *bwrap = g_find_program_in_path("bwrap");

	if (sandboxed && bwrap == NULL) {
		g_test_skip("bwrap is not installed (Debian: bubblewrap)");
		return FALSE;
	}
	if (flatpak_info != NULL) {
		info_path = g_build_filename(fx->dir, "flatpak-info", NULL);
		g_assert_true(g_file_set_contents(info_path, flatpak_info, -1, &error));
	}
	argv = sandboxed ? sandbox_argv(fx, info_path) : g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, caller_path());
	g_ptr_array_add(argv, NULL);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_subprocess_launcher_setenv(launcher, "DBUS_SESSION_BUS_ADDRESS", fx->address, TRUE);
	g_subprocess_launcher_set_stdout_file_path(launcher, out_path);
	g_subprocess_launcher_set_stderr_file_path(launcher, err_path);
	g_subprocess_launcher_set_child_setup(launcher, caller_child_setup, (gpointer)procs, NULL);
	caller = g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	result->status = esd_test_subprocess_wait(caller, CALL_TIMEOUT_MS + WAIT_MS);
	g_assert_true(g_file_get_contents(out_path, &result->out, NULL, NULL));
	g_assert_true(g_file_get_contents(err_path, &err, NULL, NULL));
	if (result->status == 97) {
		g_test_skip("cannot move a process into a new cgroup");
		return FALSE;
	}
	/* no user namespaces, no mount rights: not our failure */
	if (sandboxed && result->status != 0 && g_str_has_prefix(err, "bwrap:")) {
		g_autofree gchar *why =
		    g_strdup_printf("bwrap cannot run here: %s", g_strstrip(err));
		g_test_skip(why);
		return FALSE;
	}
	if (err[0] != '\0')
		g_printerr("caller: %s", err);
	return TRUE;
}

static void
assert_file_contains(const gchar *path, const gchar *needle)
{
	g_autofree gchar *text = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	if (strstr(text, needle) == NULL)
		g_error("%s does not contain '%s':\n%s", path, needle, text);
}

static void
assert_served(const CallerResult *result)
{
	if (result->status != 0 || !g_str_has_prefix(result->out, "reply {\"id\":1,\"result\":"))
		g_error("the caller was not served (status %d): %s", result->status, result->out);
}

/* a Flatpak app is refused with AccessDenied naming it and the option; others are not */
static void
test_sandboxed_refused(Fixture *fx, gconstpointer user_data)
{
	g_auto(CallerResult) result = {0};
	g_autoptr(EsdTestSocketPeer) peer = NULL;

	if (fx->bus == NULL || !run_caller(fx, TRUE, FLATPAK_INFO, NULL, &result))
		return;
	g_assert_cmpint(result.status, ==, 3);
	if (!g_pattern_match_simple(
		"error org.freedesktop.DBus.Error.AccessDenied: the caller is "
		"sandboxed (flatpak app org.example.App (pid *)) and its "
		"commands would run outside the sandbox; *--dbus-allow-sandboxed\n",
		result.out))
		g_error("unexpected refusal: %s", result.out);
	assert_file_contains(fx->log,
			     "refused: the caller is sandboxed (flatpak app org.example.App");
	/* an ordinary caller is still served */
	peer = open_peer(fx->connection);
	esd_test_scenario_echo_hi(ESD_TEST_PEER(peer));
	esd_test_socket_peer_close(peer);
}

/* the same caller, with --dbus-allow-sandboxed: served */
static void
test_sandboxed_allowed(Fixture *fx, gconstpointer user_data)
{
	g_auto(CallerResult) result = {0};

	if (fx->bus == NULL || !run_caller(fx, TRUE, FLATPAK_INFO, NULL, &result))
		return;
	assert_served(&result);
	assert_file_contains(fx->log, "is sandboxed (flatpak app org.example.App");
}

/* bubblewrap alone is not Flatpak: it is /.flatpak-info that marks an app */
static void
test_sandboxed_no_info(Fixture *fx, gconstpointer user_data)
{
	g_auto(CallerResult) result = {0};

	if (fx->bus == NULL || !run_caller(fx, TRUE, NULL, NULL, &result))
		return;
	assert_served(&result);
}

/* the cgroup hierarchies xdg-desktop-portal reads, with their mount points */
static gchar *
cgroup_mount_for(const gchar *controller)
{
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (!g_file_get_contents("/proc/self/mountinfo", &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) halves = g_strsplit(lines[i], " - ", 2);
		g_auto(GStrv) fields = NULL;
		g_auto(GStrv) fs = NULL;
		gboolean match;

		if (g_strv_length(halves) != 2)
			continue;
		fields = g_strsplit(halves[0], " ", -1);
		fs = g_strsplit(halves[1], " ", -1);
		if (g_strv_length(fields) < 5 || g_strv_length(fs) < 3 ||
		    g_strcmp0(fields[3], "/") != 0)
			continue;
		if (controller[0] == '\0')
			match = g_strcmp0(fs[0], "cgroup2") == 0;
		else {
			g_auto(GStrv) options = g_strsplit(fs[2], ",", -1);
			match = g_strcmp0(fs[0], "cgroup") == 0 &&
				g_strv_contains((const gchar *const *)options, controller);
		}
		if (match)
			return g_strdup(fields[4]);
	}
	return NULL;
}

/* a new cgroup snap.esdtest.caller-PID beside our own, or NULL */
static gchar *
snap_cgroup_new(void)
{
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (!g_file_get_contents("/proc/self/cgroup", &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) fields = g_strsplit(lines[i], ":", 3);
		g_autofree gchar *mount = NULL;
		g_autofree gchar *name = NULL;
		gchar *dir;

		if (g_strv_length(fields) != 3 ||
		    (fields[1][0] != '\0' && g_strcmp0(fields[1], "name=systemd") != 0))
			continue;
		mount = cgroup_mount_for(fields[1]);
		if (mount == NULL)
			continue;
		name = g_strdup_printf("snap.esdtest.caller-%d", (gint)getpid());
		dir = g_build_filename(mount, fields[2], name, NULL);
		if (g_mkdir(dir, 0755) == 0)
			return dir;
		g_free(dir);
	}
	return NULL;
}

/* a caller in a snap's cgroup is refused as a snap */
static void
test_sandboxed_snap(Fixture *fx, gconstpointer user_data)
{
	g_auto(CallerResult) result = {0};
	g_autofree gchar *cgroup = NULL;
	g_autofree gchar *procs = NULL;
	gboolean ran;

	if (fx->bus == NULL)
		return;
	cgroup = snap_cgroup_new();
	if (cgroup == NULL) {
		g_test_skip("no cgroup hierarchy to create a snap's cgroup in (needs root)");
		return;
	}
	procs = g_build_filename(cgroup, "cgroup.procs", NULL);
	ran = run_caller(fx, FALSE, NULL, procs, &result);
	ESD_WAIT_UNTIL(g_rmdir(cgroup) == 0, WAIT_MS);
	if (!ran)
		return;
	g_assert_cmpint(result.status, ==, 3);
	if (!g_pattern_match_simple("error org.freedesktop.DBus.Error.AccessDenied: the caller is "
				    "sandboxed (snap esdtest (pid *)*",
				    result.out))
		g_error("unexpected refusal: %s", result.out);
}

/* the caller outside any sandbox, as a control of the ones above */
static void
test_sandboxed_host(Fixture *fx, gconstpointer user_data)
{
	g_auto(CallerResult) result = {0};

	if (fx->bus == NULL || !run_caller(fx, FALSE, NULL, NULL, &result))
		return;
	assert_served(&result);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add(DBUS_TEST "activation",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_activation,
		   fixture_teardown);
	g_test_add(DBUS_TEST "properties",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_properties,
		   fixture_teardown);
	g_test_add(DBUS_TEST "options",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_options,
		   fixture_teardown);
	g_test_add(DBUS_TEST "caller-leaves",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_caller_leaves,
		   fixture_teardown);
	g_test_add(DBUS_TEST "socket-closed",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_socket_closed,
		   fixture_teardown);
	g_test_add(DBUS_TEST "second-instance",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_second_instance,
		   fixture_teardown);
	g_test_add(DBUS_TEST "fd-limit",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_fd_limit,
		   fixture_teardown);
	g_test_add(DBUS_TEST "sandboxed/refused",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_sandboxed_refused,
		   fixture_teardown);
	g_test_add(DBUS_TEST "sandboxed/allowed",
		   Fixture,
		   allow_sandboxed_args,
		   fixture_setup,
		   test_sandboxed_allowed,
		   fixture_teardown);
	g_test_add(DBUS_TEST "sandboxed/bwrap-without-flatpak-info",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_sandboxed_no_info,
		   fixture_teardown);
	g_test_add(DBUS_TEST "sandboxed/snap",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_sandboxed_snap,
		   fixture_teardown);
	g_test_add(DBUS_TEST "sandboxed/host",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_sandboxed_host,
		   fixture_teardown);
	g_test_add(DBUS_TEST "idle-exit",
		   Fixture,
		   idle_args,
		   fixture_setup,
		   test_idle_exit,
		   fixture_teardown);
	return g_test_run();
}
