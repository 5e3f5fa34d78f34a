/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "esd-test-socket.h"
#include "esd-test-utils.h"

/*
 * The doors out of a sandbox: a sandboxed command must not reach a socket
 * or secret that gets it an unsandboxed process. The daemon under test
 * listens on a Unix socket (fd:3, as socket activation sets it up) and on
 * ws with a capability token; a second daemon serves another Unix socket;
 * a dbus-daemon started for the test is the session bus, on a path and on
 * an abstract name. tests/sandbox/door-probe.py makes each attempt, first
 * unsandboxed (every attempt must work, or the case proves nothing), then
 * through the daemon under a managed profile with a restricted file system.
 */

#define WAIT_MS 20000

typedef struct {
	gchar *dir;
	gchar *probe;
	gchar *main_sock;
	gchar *target_sock;
	gchar *bus_path;
	gchar *bus_abstract;
	gchar *token_path;
	gchar *log;
	gchar *target_log;
	GSubprocess *daemon;
	GSubprocess *target;
	GSubprocess *bus;
	EsdTestPeer *peer; /* the control connection: main.sock, or ws with the token */
	gboolean token;
	gboolean skipped;
} Fx;

static gboolean
have_bwrap(gchar **reason)
{
	const gchar *argv[] = {"bwrap",
			       "--unshare-user",
			       "--unshare-pid",
			       "--ro-bind",
			       "/",
			       "/",
			       "--proc",
			       "/proc",
			       "--dev",
			       "/dev",
			       "true",
			       NULL};
	gint status = 0;

	if (!g_spawn_sync(NULL,
			  (gchar **)argv,
			  NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
			      G_SPAWN_STDERR_TO_DEV_NULL,
			  NULL,
			  NULL,
			  NULL,
			  NULL,
			  &status,
			  NULL)) {
		*reason = g_strdup("bwrap is not installed");
		return FALSE;
	}
	if (!g_spawn_check_wait_status(status, NULL)) {
		*reason = g_strdup("bwrap cannot create a user namespace here");
		return FALSE;
	}
	if (!g_file_test("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE)) {
		*reason = g_strdup("needs /usr/bin/python3 for the probe");
		return FALSE;
	}
	return TRUE;
}

static gint
listening_socket(const gchar *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	gint fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpuint(strlen(path), <, sizeof(addr.sun_path));
	strcpy(addr.sun_path, path);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(listen(fd, 16), ==, 0);
	return fd;
}

static void
wait_for_socket(const gchar *path)
{
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	while (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(10000);
	}
}

static void
die_with_parent(gpointer user_data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* a private session bus on a path and an abstract name */
static void
start_bus(Fx *fx)
{
	g_autofree gchar *dbus = g_find_program_in_path("dbus-daemon");
	g_autofree gchar *conf_path = g_build_filename(fx->dir, "bus.conf", NULL);
	g_autofree gchar *conf = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *conf_arg = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;

	if (dbus == NULL)
		return;
	conf =
	    g_strdup_printf("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus "
			    "Configuration 1.0//EN\" "
			    "\"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
			    "<busconfig><type>session</type>"
			    "<listen>unix:path=%s</listen><listen>unix:abstract=%s</listen>"
			    "<auth>EXTERNAL</auth><policy context=\"default\">"
			    "<allow send_destination=\"*\" eavesdrop=\"true\"/>"
			    "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n",
			    fx->bus_path,
			    fx->bus_abstract);
	g_assert_true(g_file_set_contents(conf_path, conf, -1, NULL));
	conf_arg = g_strdup_printf("--config-file=%s", conf_path);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
					     G_SUBPROCESS_FLAGS_STDERR_SILENCE);
	/* gone with the test, even when it aborts */
	g_subprocess_launcher_set_child_setup(launcher, die_with_parent, NULL, NULL);
	fx->bus = g_subprocess_launcher_spawn(launcher, &error, dbus, conf_arg, "--nofork", NULL);
	g_assert_no_error(error);
	wait_for_socket(fx->bus_path);
}

/* the daemon on @sock as fd:3, or (@sock NULL) on ws only */
static GSubprocess *
spawn_daemon(Fx *fx, const gchar *sock, const gchar *const *extra, const gchar *log)
{
	g_autofree gchar *bus_env =
	    g_strdup_printf("DBUS_SESSION_BUS_ADDRESS=unix:path=%s;unix:abstract=%s",
			    fx->bus_path,
			    fx->bus_abstract);
	const gchar *envp[] = {bus_env, NULL};
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	gint fd = sock != NULL ? listening_socket(sock) : -1;
	GSubprocess *daemon;

	if (fd >= 0) {
		g_ptr_array_add(args, (gpointer) "--listen");
		g_ptr_array_add(args, (gpointer) "fd:3");
	}
	for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)extra[i]);
	g_ptr_array_add(args, NULL);
	daemon = esd_test_spawn_daemon_with_fd((const gchar *const *)args->pdata,
					       fd,
					       ESD_TEST_FD_PLAIN,
					       fx->bus != NULL ? envp : NULL,
					       log);
	if (fd >= 0)
		close(fd);
	return daemon;
}

/* the ws port the daemon announced on its first line */
static guint
announced_port(Fx *fx)
{
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	for (;;) {
		g_autofree gchar *text = NULL;
		const gchar *colon;

		if (g_file_get_contents(fx->log, &text, NULL, NULL) &&
		    g_str_has_prefix(text, "ws://127.0.0.1:") && strchr(text, '\n') != NULL) {
			colon = strrchr(strtok(text, "\n"), ':');
			return (guint)g_ascii_strtoull(colon + 1, NULL, 10);
		}
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(10000);
	}
}

static void
fx_setup(Fx *fx, gconstpointer user_data)
{
	const gchar *auth = user_data;
	g_autofree gchar *reason = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *args[] = {"--listen",
			       "ws://127.0.0.1:0",
			       "--ws-auth",
			       "capability-token",
			       "--ws-token-file",
			       NULL,
			       NULL};

	if (!have_bwrap(&reason)) {
		fx->skipped = TRUE;
		g_test_skip(reason);
		return;
	}
	fx->dir = g_dir_make_tmp("esd-doors-XXXXXX", &error);
	g_assert_no_error(error);
	fx->probe = g_test_build_filename(G_TEST_DIST, "sandbox", "door-probe.py", NULL);
	fx->main_sock = g_build_filename(fx->dir, "main.sock", NULL);
	fx->target_sock = g_build_filename(fx->dir, "target.sock", NULL);
	fx->bus_path = g_build_filename(fx->dir, "bus", NULL);
	fx->bus_abstract = g_strdup_printf("esd-test-bus-%d", (gint)getpid());
	fx->token_path = g_build_filename(fx->dir, "token", NULL);
	fx->log = g_build_filename(fx->dir, "daemon.log", NULL);
	fx->target_log = g_build_filename(fx->dir, "target.log", NULL);
	g_assert_true(g_file_set_contents(fx->token_path, "door-token-0123456789\n", -1, NULL));
	start_bus(fx);
	args[5] = fx->token_path;
	fx->token = g_strcmp0(auth, "token") == 0;
	/* WebSocket auth goes with WebSocket listeners only: the Unix socket without it */
	if (!fx->token)
		args[2] = NULL;
	fx->daemon = spawn_daemon(fx, fx->token ? NULL : fx->main_sock, args, fx->log);
	fx->target = spawn_daemon(fx, fx->target_sock, NULL, fx->target_log);
	if (fx->token) {
		g_autofree gchar *url = g_strdup_printf("ws://127.0.0.1:%u", announced_port(fx));
		const gchar *headers[] = {"Authorization", "Bearer door-token-0123456789", NULL};
		guint status = 0;
		fx->peer = ESD_TEST_PEER(
		    esd_test_ws_client_connect_full(url, NULL, headers, NULL, &status, &error));
		g_assert_no_error(error);
	} else {
		wait_for_socket(fx->main_sock);
		fx->peer = ESD_TEST_PEER(esd_test_socket_peer_connect(fx->main_sock));
	}
	g_free(esd_test_peer_handshake(fx->peer));
}

static void
stop(GSubprocess *proc)
{
	if (proc == NULL)
		return;
	g_subprocess_send_signal(proc, SIGTERM);
	if (esd_test_subprocess_wait(proc, 5000) != 0)
		g_test_message("a process did not exit cleanly");
	g_object_unref(proc);
}

static void
fx_teardown(Fx *fx, gconstpointer user_data)
{
	if (fx->skipped)
		return;
	g_clear_object(&fx->peer);
	stop(g_steal_pointer(&fx->daemon));
	stop(g_steal_pointer(&fx->target));
	if (fx->bus != NULL) {
		g_subprocess_force_exit(fx->bus);
		g_subprocess_wait(fx->bus, NULL, NULL);
		g_clear_object(&fx->bus);
	}
	g_assert_cmpuint(esd_test_log_count_problems(fx->log), ==, 0);
	g_assert_cmpuint(esd_test_log_count_problems(fx->target_log), ==, 0);
	{
		g_autofree gchar *rm = g_strdup_printf("rm -rf '%s'", fx->dir);
		g_assert_true(g_spawn_command_line_sync(rm, NULL, NULL, NULL, NULL));
	}
	g_free(fx->dir);
	g_free(fx->probe);
	g_free(fx->main_sock);
	g_free(fx->target_sock);
	g_free(fx->bus_path);
	g_free(fx->bus_abstract);
	g_free(fx->token_path);
	g_free(fx->log);
	g_free(fx->target_log);
}

/* the probe's attempts, each "ACTION=TARGET" */
static GPtrArray *
attempts(Fx *fx, const gchar *pwned, guint ws_port)
{
	GPtrArray *list = g_ptr_array_new_with_free_func(g_free);

	if (!fx->token)
		g_ptr_array_add(list, g_strdup_printf("unix=%s", fx->main_sock));
	if (pwned != NULL)
		g_ptr_array_add(list, g_strdup_printf("drive=%s:%s", fx->target_sock, pwned));
	if (fx->bus != NULL) {
		g_ptr_array_add(list, g_strdup_printf("unix=%s", fx->bus_path));
		g_ptr_array_add(list, g_strdup_printf("abstract=%s", fx->bus_abstract));
	}
	if (fx->token)
		g_ptr_array_add(list, g_strdup_printf("read=%s", fx->token_path));
	if (ws_port != 0)
		g_ptr_array_add(list, g_strdup_printf("tcp=%u", ws_port));
	return list;
}

static gchar *
probe_on_host(Fx *fx, GPtrArray *list)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	gchar *out = NULL;
	gint status = 0;

	g_ptr_array_add(argv, (gpointer) "/usr/bin/python3");
	g_ptr_array_add(argv, fx->probe);
	for (guint i = 0; i < list->len; i++)
		g_ptr_array_add(argv, g_ptr_array_index(list, i));
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL,
				   (gchar **)argv->pdata,
				   NULL,
				   0,
				   NULL,
				   NULL,
				   &out,
				   NULL,
				   &status,
				   &error));
	g_assert_no_error(error);
	g_test_message("unsandboxed:\n%s", out);
	return out;
}

/* process/start under a sandbox, then its stdout until process/closed */
static gchar *
run_sandboxed(EsdTestPeer *peer, const gchar *argv_text, const gchar *sandbox)
{
	static guint serial = 0;
	g_autofree gchar *request = g_strdup_printf(
	    "{\"id\":\"start-probe\",\"method\":\"process/start\",\"params\":{\"processId\":"
	    "\"probe-%u\",\"argv\":%s,\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\"},"
	    "\"tty\":false,%s}}",
	    ++serial,
	    argv_text,
	    sandbox);
	GString *output = g_string_new(NULL);
	gboolean closed = FALSE;

	esd_test_peer_send_text(peer, request);
	while (!closed) {
		g_autoptr(JsonNode) message = esd_test_peer_receive_json(peer);
		const gchar *method = NULL;

		if (esd_test_json_get(message, "method") == NULL) {
			if (esd_test_json_get(message, "error") != NULL)
				g_error("process/start failed: %s",
					esd_test_json_get_string(message, "error.message"));
			g_assert_cmpstr(esd_test_json_get_string(message, "result.sandboxType"),
					==,
					"linuxSeccomp");
			continue;
		}
		method = esd_test_json_get_string(message, "method");
		if (g_str_equal(method, "process/output")) {
			gsize len = 0;
			g_autofree guchar *chunk =
			    g_base64_decode(esd_test_json_get_string(message, "params.chunk"),
					    &len);
			g_string_append_len(output, (const gchar *)chunk, (gssize)len);
		} else if (g_str_equal(method, "process/closed")) {
			closed = TRUE;
		}
	}
	return g_string_free(output, FALSE);
}

/* a `"sandbox":{…}` member: root read, the scratch directory writable, @extra_entry */
static gchar *
sandbox_member(Fx *fx, const gchar *network, const gchar *extra_entry)
{
	return g_strdup_printf(
	    "\"sandbox\":{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":"
	    "\"restricted\",\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{\"kind\":"
	    "\"root\"}},\"access\":\"read\"},{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"
	    "\"access\":\"write\"}%s]},\"network\":\"%s\"},\"windowsSandboxLevel\":\"disabled\"}",
	    fx->dir,
	    extra_entry != NULL ? extra_entry : "",
	    network);
}

static gchar *
probe_in_sandbox(Fx *fx, GPtrArray *list, const gchar *network, const gchar *extra_entry)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) argv = NULL;
	g_autofree gchar *argv_text = NULL;
	g_autofree gchar *params = NULL;
	gchar *out;

	json_builder_begin_array(builder);
	json_builder_add_string_value(builder, "/usr/bin/python3");
	json_builder_add_string_value(builder, fx->probe);
	for (guint i = 0; i < list->len; i++)
		json_builder_add_string_value(builder, g_ptr_array_index(list, i));
	json_builder_end_array(builder);
	argv = json_builder_get_root(builder);
	argv_text = json_to_string(argv, FALSE);
	params = sandbox_member(fx, network, extra_entry);
	out = run_sandboxed(fx->peer, argv_text, params);
	g_test_message("sandboxed, network %s:\n%s", network, out);
	return out;
}

static void
assert_line(const gchar *out, const gchar *action, const gchar *target, const gchar *result)
{
	g_autofree gchar *line = g_strdup_printf("%s %s: %s\n", action, target, result);
	if (strstr(out, line) == NULL)
		g_error("expected \"%s\" in:\n%s", line, out);
}

/* every attempt works without the sandbox: otherwise the refusals below prove nothing */
static void
assert_host_baseline(Fx *fx, guint ws_port)
{
	g_autofree gchar *pwned = g_build_filename(fx->dir, "baseline", NULL);
	g_autoptr(GPtrArray) list = attempts(fx, pwned, ws_port);
	g_autofree gchar *out = probe_on_host(fx, list);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);

	g_assert_cmpuint(g_strv_length(lines), ==, list->len + 1);
	for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
		g_assert_true(g_str_has_suffix(lines[i], ": ok"));
	g_assert_true(g_file_test(pwned, G_FILE_TEST_EXISTS));
}

/* restricted network: no Unix socket of the host, no TCP, no datagrams; nothing runs outside */
static void
test_restricted_network(Fx *fx, gconstpointer user_data)
{
	g_autofree gchar *outside = g_dir_make_tmp("esd-doors-outside-XXXXXX", NULL);
	g_autofree gchar *pwned = g_build_filename(outside, "pwned", NULL);
	g_autofree gchar *drive = g_strdup_printf("%s:%s", fx->target_sock, pwned);
	g_autofree gchar *out = NULL;
	g_autofree gchar *port_text = NULL;
	g_autoptr(GPtrArray) list = NULL;
	guint port;

	if (fx->skipped)
		return;
	port = announced_port(fx);
	port_text = g_strdup_printf("%u", port);
	assert_host_baseline(fx, port);
	list = attempts(fx, pwned, port);
	g_ptr_array_add(list, g_strdup_printf("udp=%u", port));
	g_ptr_array_add(list, g_strdup_printf("dgram=%s", fx->target_sock));
	out = probe_in_sandbox(fx, list, "restricted", NULL);
	if (fx->token)
		assert_line(out, "read", fx->token_path, "EACCES");
	else
		assert_line(out, "unix", fx->main_sock, "EPERM");
	assert_line(out, "drive", drive, "EPERM");
	assert_line(out, "tcp", port_text, "EAFNOSUPPORT");
	assert_line(out, "udp", port_text, "EAFNOSUPPORT");
	assert_line(out, "dgram", fx->target_sock, "EPERM");
	if (fx->bus != NULL) {
		assert_line(out, "unix", fx->bus_path, "EPERM");
		assert_line(out, "abstract", fx->bus_abstract, "EPERM");
	}
	g_assert_null(strstr(out, ": ok\n"));
	g_assert_false(g_file_test(pwned, G_FILE_TEST_EXISTS));
	g_rmdir(outside);
}

/* network enabled: the daemon's own socket, the bus and the token are still out of reach */
static void
test_enabled_network(Fx *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;
	g_autofree gchar *port_text = NULL;
	g_autoptr(GPtrArray) list = NULL;
	guint port;

	if (fx->skipped)
		return;
	port = announced_port(fx);
	port_text = g_strdup_printf("%u", port);
	assert_host_baseline(fx, port);
	list = attempts(fx, NULL, port);
	out = probe_in_sandbox(fx, list, "enabled", NULL);
	if (fx->bus != NULL) {
		/* a socket file masked by an empty one without permissions */
		assert_line(out, "unix", fx->bus_path, "EACCES");
		assert_line(out, "abstract", fx->bus_abstract, "EPERM");
	}
	if (fx->token) {
		g_autofree gchar *member = sandbox_member(fx, "enabled", NULL);
		g_autofree gchar *request = g_strdup_printf(
		    "{\"id\":\"read-token\",\"method\":\"fs/readFile\",\"params\":{\"path\":"
		    "\"file://%s\",%s}}",
		    fx->token_path,
		    member);
		g_autoptr(JsonNode) reply = esd_test_peer_call(fx->peer, request);
		g_autofree gchar *text = esd_test_json_to_string(reply);

		/* the file system backend's sandbox masks it too */
		g_test_message("fs/readFile of the token: %s", text);
		g_assert_null(strstr(text, "dataBase64"));
		g_assert_nonnull(esd_test_json_get(reply, "error"));
		assert_line(out, "read", fx->token_path, "EACCES");
		/* reachable, but only with the token the command cannot read */
		assert_line(out, "tcp", port_text, "ok");
	} else {
		assert_line(out, "unix", fx->main_sock, "EACCES");
		/* without authentication the daemon's TCP port itself is refused */
		assert_line(out, "tcp", port_text, "EACCES");
	}
}

/* a rule that names the secret itself makes it readable again */
static void
test_named_explicitly(Fx *fx, gconstpointer user_data)
{
	g_autofree gchar *entry = NULL;
	g_autofree gchar *out = NULL;
	g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func(g_free);

	if (fx->skipped)
		return;
	g_ptr_array_add(list, g_strdup_printf("read=%s", fx->token_path));
	entry = g_strdup_printf(",{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"
				"\"access\":\"read\"}",
				fx->token_path);
	out = probe_in_sandbox(fx, list, "enabled", entry);
	assert_line(out, "read", fx->token_path, "ok");
	g_free(out);
	out = probe_in_sandbox(fx, list, "restricted", NULL);
	assert_line(out, "read", fx->token_path, "EACCES");
}

/* what commands do among their own processes keeps working under a restricted network */
static void
test_ipc_keeps_working(Fx *fx, gconstpointer user_data)
{
	g_autofree gchar *makefile = g_build_filename(fx->dir, "Makefile", NULL);
	g_autofree gchar *script = NULL;
	g_autofree gchar *argv_text = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *sandbox = NULL;
	gboolean have_make = g_file_test("/usr/bin/make", G_FILE_TEST_IS_EXECUTABLE);

	if (fx->skipped)
		return;
	g_assert_true(g_file_set_contents(makefile,
					  "all: a b c d\n"
					  "a b c d:\n\tsleep 0.1; echo $@ > $@\n",
					  -1,
					  NULL));
	script = g_strdup_printf(
	    "echo abc | tr a-c x-z | cat; "
	    "/usr/bin/python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"p\"); "
	    "print(\"socketpair\", b.recv(1).decode())'; "
	    "/usr/bin/python3 -c 'import multiprocessing as m; "
	    "print(\"pool\", sum(m.Pool(2).map(abs, [-1, -2, -3])))'; "
	    "cd '%s' && %s && cat a b c d | tr -d '\\n'; echo",
	    fx->dir,
	    have_make ? "make -s -j4" : "false");
	{
		g_autoptr(JsonBuilder) builder = json_builder_new();
		g_autoptr(JsonNode) node = NULL;
		json_builder_begin_array(builder);
		json_builder_add_string_value(builder, "/bin/sh");
		json_builder_add_string_value(builder, "-c");
		json_builder_add_string_value(builder, script);
		json_builder_end_array(builder);
		node = json_builder_get_root(builder);
		argv_text = json_to_string(node, FALSE);
	}
	sandbox = sandbox_member(fx, "restricted", NULL);
	out = run_sandboxed(fx->peer, argv_text, sandbox);
	g_test_message("%s", out);
	g_assert_nonnull(strstr(out, "xyz\n"));
	g_assert_nonnull(strstr(out, "socketpair p\n"));
	g_assert_nonnull(strstr(out, "pool 6\n"));
	if (have_make)
		g_assert_nonnull(strstr(out, "abcd\n"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
#define ADD(name, data, func)                                                                      \
	g_test_add("/execserverd/sandbox/doors/" name, Fx, data, fx_setup, func, fx_teardown)
	ADD("restricted-network/unix-listener", "none", test_restricted_network);
	ADD("restricted-network/ws-token", "token", test_restricted_network);
	ADD("enabled-network/unix-listener", "none", test_enabled_network);
	ADD("enabled-network/ws-token", "token", test_enabled_network);
	ADD("named-explicitly", "token", test_named_explicitly);
	ADD("ipc-keeps-working", "none", test_ipc_keeps_working);
	return g_test_run();
}
