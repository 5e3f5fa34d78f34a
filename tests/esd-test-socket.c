/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "esd-test-socket.h"

#define ESD_TEST_SOCKET_PREFIX "failed to parse JSON-RPC message from exec-server stdio: "

/* EsdTestSocketPeer */

struct _EsdTestSocketPeer {
	GObject parent_instance;
	gint fd;
	GByteArray *buffer; /* received, not yet returned */
	gboolean eof;
};

static void
esd_test_socket_peer_iface_init(EsdTestPeerInterface *iface);

G_DEFINE_TYPE_WITH_CODE(EsdTestSocketPeer,
			esd_test_socket_peer,
			G_TYPE_OBJECT,
			G_IMPLEMENT_INTERFACE(ESD_TYPE_TEST_PEER, esd_test_socket_peer_iface_init))

/* reads once; FALSE when nothing came within @timeout_ms */
static gboolean
esd_test_socket_peer_fill(EsdTestSocketPeer *self, gint timeout_ms)
{
	struct pollfd pfd = {.fd = self->fd, .events = POLLIN};
	guint8 chunk[65536];
	gssize n;

	if (poll(&pfd, 1, MAX(timeout_ms, 0)) <= 0)
		return FALSE;
	n = read(self->fd, chunk, sizeof(chunk));
	if (n < 0 && errno == ECONNRESET)
		n = 0;
	g_assert_cmpint(n, >=, 0);
	if (n == 0)
		self->eof = TRUE;
	else
		g_byte_array_append(self->buffer, chunk, (guint)n);
	return TRUE;
}

static void
esd_test_socket_peer_send(EsdTestPeer *peer, const gchar *data, gsize len)
{
	EsdTestSocketPeer *self = ESD_TEST_SOCKET_PEER(peer);
	g_autoptr(GByteArray) line = g_byte_array_sized_new(len + 1);
	gsize done = 0;

	g_assert_cmpint(self->fd, >=, 0);
	g_byte_array_append(line, (const guint8 *)data, len);
	g_byte_array_append(line, (const guint8 *)"\n", 1);
	while (done < line->len) {
		gssize n = send(self->fd, line->data + done, line->len - done, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			g_error("writing to the daemon's socket: %s", g_strerror(errno));
		done += (gsize)n;
	}
}

static GBytes *
esd_test_socket_peer_receive(EsdTestPeer *peer, guint timeout_ms)
{
	EsdTestSocketPeer *self = ESD_TEST_SOCKET_PEER(peer);
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	for (;;) {
		guint8 *nl = self->buffer->len > 0
				 ? memchr(self->buffer->data, '\n', self->buffer->len)
				 : NULL;
		if (nl != NULL) {
			gsize len = (gsize)(nl - self->buffer->data);
			GBytes *line = g_bytes_new(self->buffer->data, len);
			g_byte_array_remove_range(self->buffer, 0, (guint)len + 1);
			return line;
		}
		if (self->eof)
			return NULL;
		if (!esd_test_socket_peer_fill(
			self,
			(gint)((deadline - g_get_monotonic_time()) / 1000)) &&
		    g_get_monotonic_time() >= deadline)
			g_error("timed out after %u ms waiting for a line on the socket",
				timeout_ms);
	}
}

/**
 * esd_test_socket_peer_wait_eof:
 * @self: a peer
 * @timeout_ms: the longest to wait
 *
 * Reads and drops what the daemon still sends until it closes its end.
 *
 * Returns: %TRUE if the daemon closed the connection in time
 */
gboolean
esd_test_socket_peer_wait_eof(EsdTestSocketPeer *self, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (!self->eof && g_get_monotonic_time() < deadline)
		esd_test_socket_peer_fill(self, (gint)((deadline - g_get_monotonic_time()) / 1000));
	g_byte_array_set_size(self->buffer, 0);
	return self->eof;
}

static void
esd_test_socket_peer_assert_dropped(EsdTestPeer *peer, guint timeout_ms)
{
	EsdTestSocketPeer *self = ESD_TEST_SOCKET_PEER(peer);
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (!self->eof && g_get_monotonic_time() < deadline)
		esd_test_socket_peer_fill(self, (gint)((deadline - g_get_monotonic_time()) / 1000));
	if (!self->eof)
		g_error("the daemon did not close the socket within %u ms", timeout_ms);
	if (self->buffer->len > 0)
		g_error("the daemon sent %u bytes before closing", self->buffer->len);
}

static const gchar *
esd_test_socket_peer_get_parse_error_prefix(EsdTestPeer *peer)
{
	return ESD_TEST_SOCKET_PREFIX;
}

static void
esd_test_socket_peer_iface_init(EsdTestPeerInterface *iface)
{
	iface->send = esd_test_socket_peer_send;
	iface->receive = esd_test_socket_peer_receive;
	iface->assert_dropped = esd_test_socket_peer_assert_dropped;
	iface->get_parse_error_prefix = esd_test_socket_peer_get_parse_error_prefix;
}

/**
 * esd_test_socket_peer_close:
 * @self: a peer
 *
 * Closes the test's end; the daemon sees the connection end.
 */
void
esd_test_socket_peer_close(EsdTestSocketPeer *self)
{
	if (self->fd >= 0)
		close(self->fd);
	self->fd = -1;
}

static void
esd_test_socket_peer_finalize(GObject *object)
{
	EsdTestSocketPeer *self = ESD_TEST_SOCKET_PEER(object);
	esd_test_socket_peer_close(self);
	g_byte_array_unref(self->buffer);
	G_OBJECT_CLASS(esd_test_socket_peer_parent_class)->finalize(object);
}

static void
esd_test_socket_peer_init(EsdTestSocketPeer *self)
{
	self->fd = -1;
	self->buffer = g_byte_array_new();
}

static void
esd_test_socket_peer_class_init(EsdTestSocketPeerClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_test_socket_peer_finalize;
}

/**
 * esd_test_socket_peer_new:
 * @fd: a connected stream socket, taken
 *
 * Returns: (transfer full): a peer on @fd
 */
EsdTestSocketPeer *
esd_test_socket_peer_new(gint fd)
{
	EsdTestSocketPeer *self = g_object_new(ESD_TYPE_TEST_SOCKET_PEER, NULL);
	g_assert_cmpint(fd, >=, 0);
	self->fd = fd;
	return self;
}

/**
 * esd_test_socket_peer_connect:
 * @path: a listening Unix socket
 *
 * Returns: (transfer full): a peer connected to @path
 */
EsdTestSocketPeer *
esd_test_socket_peer_connect(const gchar *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	gint fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpuint(strlen(path), <, sizeof(address.sun_path));
	strcpy(address.sun_path, path);
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0)
		g_error("connecting to %s: %s", path, g_strerror(errno));
	return esd_test_socket_peer_new(fd);
}

/* protocol exchanges */

static gchar *
esd_test_process_request(const gchar *process_id, const gchar *argv_json, const gchar *extra_params)
{
	return g_strdup_printf("{\"id\":\"start-%s\",\"method\":\"process/start\",\"params\":{"
			       "\"processId\":\"%s\",\"argv\":%s,\"cwd\":\"file:///tmp\","
			       "\"env\":{\"PATH\":\"/usr/bin:/bin\"},\"tty\":false%s%s}}",
			       process_id,
			       process_id,
			       argv_json,
			       extra_params != NULL ? "," : "",
			       extra_params != NULL ? extra_params : "");
}

static void
esd_test_assert_start_reply(JsonNode *reply, const gchar *process_id)
{
	g_autofree gchar *expected = g_strdup_printf(
	    "{\"id\":\"start-%s\",\"result\":{\"processId\":\"%s\",\"sandboxType\":\"none\"}}",
	    process_id,
	    process_id);
	esd_assert_json_node_eq(reply, expected);
}

/**
 * esd_test_peer_start_process:
 * @peer: a handshaken peer
 * @process_id: the id
 * @argv_json: the argv as a JSON array
 * @extra_params: (nullable): more members of the params, e.g. an envPolicy
 *
 * Starts a command that writes nothing, and checks the reply.
 */
void
esd_test_peer_start_process(EsdTestPeer *peer,
			    const gchar *process_id,
			    const gchar *argv_json,
			    const gchar *extra_params)
{
	g_autofree gchar *request = esd_test_process_request(process_id, argv_json, extra_params);
	g_autoptr(JsonNode) reply = esd_test_peer_call(peer, request);
	esd_test_assert_start_reply(reply, process_id);
}

/**
 * esd_test_peer_run_process:
 * @peer: a handshaken peer
 * @process_id: the id
 * @argv_json: the argv as a JSON array
 * @extra_params: (nullable): more members of the params
 *
 * Starts a command and reads the reply and process/output, process/exited
 * (exit code 0) and process/closed, in whatever order the reply and the
 * output interleave.
 *
 * Returns: (transfer full): what the command wrote on stdout
 */
gchar *
esd_test_peer_run_process(EsdTestPeer *peer,
			  const gchar *process_id,
			  const gchar *argv_json,
			  const gchar *extra_params)
{
	g_autofree gchar *request = esd_test_process_request(process_id, argv_json, extra_params);
	g_autoptr(GString) output = g_string_new(NULL);
	gboolean replied = FALSE;
	gboolean exited = FALSE;
	gboolean closed = FALSE;

	esd_test_peer_send_text(peer, request);
	while (!closed || !replied) {
		g_autoptr(JsonNode) message = esd_test_peer_receive_json(peer);
		const gchar *method = NULL;

		if (esd_test_json_get(message, "method") == NULL) {
			g_assert_false(replied);
			esd_test_assert_start_reply(message, process_id);
			replied = TRUE;
			continue;
		}
		method = esd_test_json_get_string(message, "method");
		g_assert_cmpstr(esd_test_json_get_string(message, "params.processId"),
				==,
				process_id);
		if (g_str_equal(method, "process/output")) {
			gsize len = 0;
			g_autofree guchar *chunk =
			    g_base64_decode(esd_test_json_get_string(message, "params.chunk"),
					    &len);
			g_assert_false(exited);
			g_assert_cmpstr(esd_test_json_get_string(message, "params.stream"),
					==,
					"stdout");
			g_string_append_len(output, (const gchar *)chunk, (gssize)len);
		} else if (g_str_equal(method, "process/exited")) {
			g_assert_false(exited);
			g_assert_cmpint(esd_test_json_get_int(message, "params.exitCode"), ==, 0);
			exited = TRUE;
		} else {
			g_assert_cmpstr(method, ==, "process/closed");
			g_assert_true(exited);
			closed = TRUE;
		}
	}
	return g_string_free(g_steal_pointer(&output), FALSE);
}

/**
 * esd_test_scenario_echo_hi:
 * @peer: a new connection
 *
 * initialize, initialized, then `sh -c 'echo hi'` through to process/closed.
 */
void
esd_test_scenario_echo_hi(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(peer);
	g_autofree gchar *output = NULL;

	esd_test_assert_uuid_v4(session_id);
	output = esd_test_peer_run_process(peer, "echo-hi", "[\"sh\",\"-c\",\"echo hi\"]", NULL);
	g_assert_cmpstr(output, ==, "hi\n");
	esd_test_peer_assert_alive(peer);
}

/* processes */

/**
 * esd_test_new_marker:
 *
 * Returns: (transfer full): an argument no other process has, and a valid
 *   `sleep` duration of about 1000 s
 */
gchar *
esd_test_new_marker(void)
{
	static guint counter = 0;
	return g_strdup_printf("1000.%d%04u", (gint)getpid(), ++counter);
}

static gboolean
esd_test_cmdline_has(const gchar *cmdline, gsize len, const gchar *marker)
{
	for (gsize pos = 0; pos < len;) {
		const gchar *arg = cmdline + pos;
		gsize arg_len = strnlen(arg, len - pos);
		if (arg_len == strlen(marker) && memcmp(arg, marker, arg_len) == 0)
			return TRUE;
		pos += arg_len + 1;
	}
	return FALSE;
}

/**
 * esd_test_count_processes:
 * @marker: an argument
 *
 * Returns: how many live processes (zombies aside) have @marker in their argv
 */
guint
esd_test_count_processes(const gchar *marker)
{
	g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
	const gchar *name;
	guint n = 0;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = NULL;
		g_autofree gchar *cmdline = NULL;
		gsize len = 0;

		if (!g_ascii_isdigit(name[0]))
			continue;
		path = g_strdup_printf("/proc/%s/cmdline", name);
		if (g_file_get_contents(path, &cmdline, &len, NULL) &&
		    esd_test_cmdline_has(cmdline, len, marker))
			n++;
	}
	return n;
}

/* the daemon started with a descriptor */

/* runs in the child between fork and exec: die with the test, even when it aborts */
static void
esd_test_socket_child_setup(gpointer user_data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/**
 * esd_test_spawn_daemon_with_fd:
 * @args: (nullable): arguments after the program name
 * @fd: a descriptor the daemon gets as 3 (a copy is passed), or -1
 * @mode: whether it comes as systemd passes sockets
 * @envp_extra: (nullable): `NAME=VALUE` to add to the environment
 * @log_path: where stdout and stderr go
 *
 * Starts `$ESD_TEST_DAEMON`. For systemd's protocol, a shell puts its own
 * pid in LISTEN_PID and executes the daemon in its place, as
 * systemd-socket-activate does.
 *
 * Returns: (transfer full): the daemon
 */
GSubprocess *
esd_test_spawn_daemon_with_fd(const gchar *const *args,
			      gint fd,
			      EsdTestFdMode mode,
			      const gchar *const *envp_extra,
			      const gchar *log_path)
{
	const gchar *daemon = g_getenv("ESD_TEST_DAEMON");
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
	    G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	GSubprocess *subprocess;

	g_assert_nonnull(daemon);
	if (mode == ESD_TEST_FD_SYSTEMD) {
		g_ptr_array_add(argv, (gpointer) "/bin/sh");
		g_ptr_array_add(argv, (gpointer) "-c");
		g_ptr_array_add(argv,
				(gpointer) "LISTEN_PID=$$; export LISTEN_PID; exec \"$0\" \"$@\"");
	}
	g_ptr_array_add(argv, (gpointer)daemon);
	for (guint i = 0; args != NULL && args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	g_subprocess_launcher_unsetenv(launcher, "LISTEN_PID");
	g_subprocess_launcher_unsetenv(launcher, "LISTEN_FDS");
	if (mode != ESD_TEST_FD_PLAIN)
		g_subprocess_launcher_setenv(launcher, "LISTEN_FDS", "1", TRUE);
	if (mode == ESD_TEST_FD_SYSTEMD_OTHER_PID)
		g_subprocess_launcher_setenv(launcher, "LISTEN_PID", "1", TRUE);
	for (guint i = 0; envp_extra != NULL && envp_extra[i] != NULL; i++) {
		g_auto(GStrv) kv = g_strsplit(envp_extra[i], "=", 2);
		g_assert_nonnull(kv[1]);
		g_subprocess_launcher_setenv(launcher, kv[0], kv[1], TRUE);
	}
	if (fd >= 0)
		g_subprocess_launcher_take_fd(launcher, fcntl(fd, F_DUPFD_CLOEXEC, 3), 3);
	g_subprocess_launcher_set_stdout_file_path(launcher, log_path);
	g_subprocess_launcher_set_child_setup(launcher, esd_test_socket_child_setup, NULL, NULL);
	subprocess =
	    g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	return subprocess;
}

static void
esd_test_subprocess_wait_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	gboolean *done = user_data;
	g_subprocess_wait_finish(G_SUBPROCESS(source), res, NULL);
	*done = TRUE;
}

/**
 * esd_test_subprocess_wait:
 * @subprocess: a process
 * @timeout_ms: the longest to wait; then it is killed
 *
 * Returns: its exit status, or -1 when it had to be killed or died of a signal
 */
gint
esd_test_subprocess_wait(GSubprocess *subprocess, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	gboolean done = FALSE;

	g_subprocess_wait_async(subprocess, NULL, esd_test_subprocess_wait_cb, &done);
	while (!done && g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
	if (!done) {
		g_subprocess_force_exit(subprocess);
		while (!done)
			esd_test_iterate(50);
		return -1;
	}
	if (!g_subprocess_get_if_exited(subprocess))
		return -1;
	return g_subprocess_get_exit_status(subprocess);
}

/**
 * esd_test_log_count_problems:
 * @log_path: a daemon's output
 *
 * Prints the log and counts what a clean run never has: warnings,
 * criticals and sanitizer reports.
 *
 * Returns: the number of such lines
 */
guint
esd_test_log_count_problems(const gchar *log_path)
{
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) lines = NULL;
	guint n = 0;

	/* a log that is not there is not a clean one */
	g_file_get_contents(log_path, &text, NULL, &error);
	g_assert_no_error(error);
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		const gchar *line = lines[i];
		if (line[0] == '\0')
			continue;
		g_printerr("log: %s\n", line);
		if (strstr(line, "-WARNING: ") != NULL || strstr(line, "-CRITICAL: ") != NULL ||
		    strstr(line, "-ERROR: ") != NULL || strstr(line, "CRITICAL **") != NULL ||
		    strstr(line, "WARNING **") != NULL || strstr(line, "Sanitizer") != NULL ||
		    strstr(line, "runtime error:") != NULL)
			n++;
	}
	return n;
}
