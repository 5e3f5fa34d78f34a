/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "esd-test-socket.h"
#include "esd-test-tls.h"

/*
 * Every listener when the daemon runs out of descriptors: ws, wss, and the
 * accepted-socket transport's listening sockets (fd:N and systemd's). The
 * daemon's descriptor limit, soft and hard, is set low once it serves; then
 * connections are opened until one is not answered, because the daemon
 * cannot accept it. Once they are closed again, a new connection and
 * `GET /readyz` must be served within a couple of seconds, and the daemon
 * must have logged exactly one warning about it however often accept()
 * failed. (D-Bus OpenConnection is tested in tests/dbus/test-dbus.c.)
 */

#define FD_TEST "/execserverd/integration/fd-limit/"
/* the daemon needs a few of its own; the rest go to connections */
#define FD_LIMIT 32
/*
 * how long an attempt waits for its answer; the daemon retries accept() at
 * least once a second. A sanitizer build takes longer over everything, TLS
 * handshakes above all.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ATTEMPT_MS  3000
#define RECOVERY_MS 10000
#else
#define ATTEMPT_MS  1000
#define RECOVERY_MS 3000
#endif
#define WAIT_MS 5000

typedef enum {
	KIND_WS,
	KIND_WSS,
	KIND_FD,      /* --listen fd:3 with a listening Unix socket */
	KIND_SYSTEMD, /* the same socket as systemd passes it */
} Kind;

typedef struct {
	Kind kind;
	gchar *dir;
	gchar *socket_path;
	gchar *log;
	GTlsCertificate *certificate;
	EsdTestDaemon *daemon;	 /* ws kinds */
	GSubprocess *subprocess; /* fd kinds */
} Fixture;

#define UPGRADE                                                                                    \
	"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"       \
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
#define READYZ	   "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
#define INITIALIZE "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"fd-limit\"}}\n"

static gboolean
fixture_is_ws(Fixture *fx)
{
	return fx->kind == KIND_WS || fx->kind == KIND_WSS;
}

static gboolean
accept_certificate_cb(GTlsConnection *connection,
		      GTlsCertificate *peer,
		      GTlsCertificateFlags errors,
		      gpointer user_data)
{
	return g_tls_certificate_is_same(peer, G_TLS_CERTIFICATE(user_data));
}

static void
close_stream(gpointer stream)
{
	g_io_stream_close(stream, NULL, NULL);
	g_object_unref(stream);
}

/*
 * a connection that sent @request and got an answer holding @expect, or NULL
 * when none came within @timeout_ms (the daemon could not accept it)
 */
static GIOStream *
attempt(Fixture *fx, const gchar *request, const gchar *expect, guint timeout_ms)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) connection = NULL;
	g_autoptr(GIOStream) stream = NULL;
	g_autoptr(GString) answer = g_string_new(NULL);
	g_autoptr(GError) error = NULL;

	g_socket_client_set_enable_proxy(client, FALSE);
	if (fixture_is_ws(fx)) {
		connection = g_socket_client_connect_to_host(client,
							     "127.0.0.1",
							     esd_test_daemon_get_port(fx->daemon),
							     NULL,
							     &error);
	} else {
		g_autoptr(GSocketAddress) address = g_unix_socket_address_new(fx->socket_path);
		connection =
		    g_socket_client_connect(client, G_SOCKET_CONNECTABLE(address), NULL, &error);
	}
	/* the kernel completes the connection: the backlog takes it without the daemon */
	g_assert_no_error(error);
	g_socket_set_timeout(g_socket_connection_get_socket(connection), timeout_ms / 1000);
	if (fx->kind == KIND_WSS) {
		stream = g_tls_client_connection_new(G_IO_STREAM(connection), NULL, &error);
		g_assert_no_error(error);
		g_signal_connect(stream,
				 "accept-certificate",
				 G_CALLBACK(accept_certificate_cb),
				 fx->certificate);
		if (!g_tls_connection_handshake(G_TLS_CONNECTION(stream), NULL, &error)) {
			g_test_message("TLS handshake: %s", error->message);
			g_io_stream_close(stream, NULL, NULL);
			return NULL;
		}
	} else {
		stream = G_IO_STREAM(g_steal_pointer(&connection));
	}
	g_assert_true(g_output_stream_write_all(g_io_stream_get_output_stream(stream),
						request,
						strlen(request),
						NULL,
						NULL,
						&error));
	g_assert_no_error(error);
	while (strstr(answer->str, expect) == NULL) {
		gchar buf[256];
		gssize n = g_input_stream_read(g_io_stream_get_input_stream(stream),
					       buf,
					       sizeof(buf),
					       NULL,
					       &error);
		if (n <= 0) {
			g_test_message("no answer: %s", n < 0 ? error->message : "end of stream");
			g_io_stream_close(stream, NULL, NULL);
			return NULL;
		}
		g_string_append_len(answer, buf, n);
	}
	return g_steal_pointer(&stream);
}

static GIOStream *
attempt_session(Fixture *fx, guint timeout_ms)
{
	if (fixture_is_ws(fx))
		return attempt(fx, UPGRADE, "HTTP/1.1 101 ", timeout_ms);
	return attempt(fx, INITIALIZE, "\"sessionId\"", timeout_ms);
}

/* descriptors of the daemon, soft and hard: raising the soft one again gets it no more */
static void
limit_descriptors(GPid pid)
{
	const struct rlimit limit = {.rlim_cur = FD_LIMIT, .rlim_max = FD_LIMIT};
	g_assert_cmpint(prlimit(pid, RLIMIT_NOFILE, &limit, NULL), ==, 0);
}

static gint
listening_socket(const gchar *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	gint fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpuint(strlen(path), <, sizeof(address.sun_path));
	strcpy(address.sun_path, path);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&address, sizeof(address)), ==, 0);
	g_assert_cmpint(listen(fd, 128), ==, 0);
	return fd;
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;

	fx->kind = GPOINTER_TO_INT(user_data);
	fx->dir = g_dir_make_tmp("esd-fdl-XXXXXX", &error);
	g_assert_no_error(error);
	fx->socket_path = g_build_filename(fx->dir, "sock", NULL);
	fx->log = g_build_filename(fx->dir, "daemon.log", NULL);
	if (fx->kind == KIND_WS) {
		const gchar *args[] = {"-v", "--handshake-timeout", "0", NULL};
		fx->daemon = esd_test_daemon_new_ws(args);
	} else if (fx->kind == KIND_WSS) {
		g_autofree gchar *cert = g_build_filename(fx->dir, "cert.pem", NULL);
		g_autofree gchar *key = g_build_filename(fx->dir, "key.pem", NULL);
		const gchar *args[] = {"-v",
				       "--listen",
				       "wss://127.0.0.1:0",
				       "--tls-certificate",
				       cert,
				       "--tls-key",
				       key,
				       "--handshake-timeout",
				       "0",
				       NULL};
		esd_test_make_certificate(cert, key);
		fx->certificate = g_tls_certificate_new_from_file(cert, &error);
		g_assert_no_error(error);
		fx->daemon = esd_test_daemon_new_ws(args);
		g_unlink(cert);
		g_unlink(key);
	} else {
		const gchar *args[] = {"-v", "--listen", "fd:3", NULL};
		const gchar *systemd_args[] = {"-v", NULL};
		gint fd = listening_socket(fx->socket_path);
		fx->subprocess = esd_test_spawn_daemon_with_fd(
		    fx->kind == KIND_FD ? args : systemd_args,
		    fd,
		    fx->kind == KIND_FD ? ESD_TEST_FD_PLAIN : ESD_TEST_FD_SYSTEMD,
		    NULL,
		    fx->log);
		close(fd);
	}
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	g_clear_object(&fx->daemon);
	if (fx->subprocess != NULL) {
		g_subprocess_force_exit(fx->subprocess);
		esd_test_subprocess_wait(fx->subprocess, WAIT_MS);
		g_clear_object(&fx->subprocess);
	}
	g_clear_object(&fx->certificate);
	g_unlink(fx->socket_path);
	g_unlink(fx->log);
	g_rmdir(fx->dir);
	g_free(fx->socket_path);
	g_free(fx->log);
	g_free(fx->dir);
}

static gint
fixture_daemon_pid(Fixture *fx)
{
	if (fx->daemon != NULL)
		return esd_test_daemon_get_pid(fx->daemon);
	return (gint)g_ascii_strtoll(g_subprocess_get_identifier(fx->subprocess), NULL, 10);
}

static guint
count_fds(gint pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/fd", pid);
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	guint n = 0;

	g_assert_nonnull(dir);
	while (g_dir_read_name(dir) != NULL)
		n++;
	return n;
}

/* what the daemon logged, once it said it accepts again */
static gchar *
fixture_read_log(Fixture *fx)
{
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;
	gchar *text = NULL;

	while (TRUE) {
		g_clear_pointer(&text, g_free);
		if (fx->daemon != NULL)
			text = g_strdup(esd_test_daemon_get_stderr(fx->daemon));
		else
			g_assert_true(g_file_get_contents(fx->log, &text, NULL, NULL));
		if (strstr(text, "accepting connections again") != NULL ||
		    g_get_monotonic_time() >= deadline)
			break;
		/* the daemon's stderr is read as the main context runs */
		esd_test_iterate(50);
	}
	return text;
}

/* how often @needle is in @text */
static guint
count_lines(const gchar *text, const gchar *needle)
{
	g_auto(GStrv) parts = g_strsplit(text, needle, -1);
	return g_strv_length(parts) - 1;
}

static void
test_flood(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func(close_stream);
	g_autoptr(GIOStream) fresh = NULL;
	g_autofree gchar *log = NULL;
	GIOStream *stream;
	gint64 start;

	/* serving: the daemon raised its own limit already, and cannot raise it past this */
	g_ptr_array_add(held, attempt_session(fx, WAIT_MS));
	g_assert_nonnull(held->pdata[0]);
	limit_descriptors(fixture_daemon_pid(fx));
	while (TRUE) {
		stream = attempt_session(fx, ATTEMPT_MS);
		if (stream != NULL) {
			g_ptr_array_add(held, stream);
			g_assert_cmpuint(held->len, <, FD_LIMIT);
			continue;
		}
		/* refused, not slow: every descriptor is taken */
		if (count_fds(fixture_daemon_pid(fx)) >= FD_LIMIT)
			break;
		g_test_message("an answer came late, with descriptors to spare");
	}
	g_test_message("%u connections held before one was not accepted", held->len);
	/* a second refusal in the same run logs nothing more */
	g_assert_null(attempt_session(fx, ATTEMPT_MS));

	g_ptr_array_set_size(held, 0);
	start = g_get_monotonic_time();
	fresh = attempt_session(fx, RECOVERY_MS);
	g_assert_nonnull(fresh);
	g_test_message("served again after %.2f s", (g_get_monotonic_time() - start) / 1e6);
	g_assert_cmpint(g_get_monotonic_time() - start, <, RECOVERY_MS * 1000);
	if (fixture_is_ws(fx)) {
		g_autoptr(GIOStream) ready = attempt(fx, READYZ, "HTTP/1.1 200 ", RECOVERY_MS);
		g_assert_nonnull(ready);
	}

	log = fixture_read_log(fx);
	g_assert_cmpuint(count_lines(log, "-WARNING: "), ==, 1);
	g_assert_cmpuint(count_lines(log, "cannot accept connections: Too many open files"), ==, 1);
	g_assert_cmpuint(count_lines(log, "-CRITICAL: "), ==, 0);
	g_assert_nonnull(strstr(log, "accepting connections again"));

#ifdef __SANITIZE_ADDRESS__
	/* LSAN_TLS_WORKAROUND (test-ws-auth.c): the daemon's handshakes ran in worker threads */
	if (fx->kind == KIND_WSS)
		return;
#endif
	if (fx->daemon != NULL) {
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, WAIT_MS);
	} else {
		g_subprocess_send_signal(fx->subprocess, SIGTERM);
		g_assert_cmpint(esd_test_subprocess_wait(fx->subprocess, WAIT_MS), ==, 0);
		g_clear_object(&fx->subprocess);
	}
}

#ifdef __SANITIZE_ADDRESS__
/* threads of this process: the main one, GLib's worker, and any still ending */
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

	g_test_init(&argc, &argv, NULL);
	signal(SIGPIPE, SIG_IGN);
	g_test_add(FD_TEST "ws",
		   Fixture,
		   GINT_TO_POINTER(KIND_WS),
		   fixture_setup,
		   test_flood,
		   fixture_teardown);
	g_test_add(FD_TEST "wss",
		   Fixture,
		   GINT_TO_POINTER(KIND_WSS),
		   fixture_setup,
		   test_flood,
		   fixture_teardown);
	g_test_add(FD_TEST "fd-listening",
		   Fixture,
		   GINT_TO_POINTER(KIND_FD),
		   fixture_setup,
		   test_flood,
		   fixture_teardown);
	g_test_add(FD_TEST "systemd-listening",
		   Fixture,
		   GINT_TO_POINTER(KIND_SYSTEMD),
		   fixture_setup,
		   test_flood,
		   fixture_teardown);
	ret = g_test_run();
#ifdef __SANITIZE_ADDRESS__
	/* LSAN_TLS_WORKAROUND (test-ws-auth.c): our own handshakes ran in worker threads */
	g_thread_pool_set_max_unused_threads(0);
	for (guint i = 0; i < 40 && count_threads() > 2; i++)
		g_usleep(50 * 1000);
#endif
	return ret;
}
