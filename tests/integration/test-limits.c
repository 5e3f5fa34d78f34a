/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>

#include "esd-test-utils.h"

/*
 * The limits that keep one client from hurting the others, each set low on
 * the real daemon's command line: what happens at the limit, and that the
 * daemon goes on serving a fresh connection afterwards.
 */

#define WAIT_MS 5000

static EsdTestDaemon *
daemon_with(const gchar *flag, const gchar *value)
{
	const gchar *args[] = {flag, value, NULL};
	return esd_test_daemon_new_ws(args);
}

static EsdTestWsClient *
client_ready(EsdTestDaemon *daemon)
{
	EsdTestWsClient *client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *session = esd_test_peer_handshake(ESD_TEST_PEER(client));
	esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	return client;
}

static void
assert_clean_exit_within(EsdTestDaemon *daemon, guint timeout_ms)
{
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, timeout_ms);
}

static void
assert_clean_exit(EsdTestDaemon *daemon)
{
	assert_clean_exit_within(daemon, 3000);
}

static void
test_max_connections(void)
{
	g_autoptr(EsdTestDaemon) daemon = daemon_with("--max-connections", "2");
	g_autoptr(EsdTestWsClient) a = client_ready(daemon);
	g_autoptr(EsdTestWsClient) b = client_ready(daemon);
	g_autoptr(EsdTestWsClient) c = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autoptr(EsdTestWsClient) d = NULL;

	/* the third is dropped at once, without a reply */
	esd_test_peer_send_text(
	    ESD_TEST_PEER(c),
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"c\"}}");
	g_assert_cmpuint(esd_test_ws_client_wait_closed(c, WAIT_MS),
			 ==,
			 ESD_TEST_WS_CLOSE_NO_FRAME);
	esd_test_peer_assert_alive(ESD_TEST_PEER(a));
	/* a slot that frees up is taken again, once the daemon has seen the close */
	esd_test_ws_client_close(b);
	for (guint attempt = 0; attempt < 50 && d == NULL; attempt++) {
		g_autoptr(EsdTestWsClient) next =
		    esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
		g_autoptr(GBytes) reply = NULL;
		esd_test_peer_send_text(ESD_TEST_PEER(next),
					"{\"id\":1,\"method\":\"initialize\",\"params\":{"
					"\"clientName\":\"d\"}}");
		reply = esd_test_peer_receive(ESD_TEST_PEER(next), WAIT_MS);
		if (reply != NULL)
			d = g_steal_pointer(&next);
		else
			esd_test_iterate(100);
	}
	g_assert_nonnull(d);
	assert_clean_exit(daemon);
}

/*
 * every client on the host shares 127.0.0.1: loopback is not capped per
 * address (tests/server/test-admission.c checks the cap on other addresses)
 */
static void
test_max_connections_per_peer_loopback(void)
{
	g_autoptr(EsdTestDaemon) daemon = daemon_with("--max-connections-per-peer", "1");
	g_autoptr(EsdTestWsClient) a = client_ready(daemon);
	g_autoptr(EsdTestWsClient) b = client_ready(daemon);
	g_autoptr(EsdTestWsClient) c = client_ready(daemon);

	esd_test_peer_assert_alive(ESD_TEST_PEER(a));
	assert_clean_exit(daemon);
}

/* Private_Clean + Private_Dirty of @pid, in kB */
static guint64
private_kb(gint pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/smaps_rollup", pid);
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;
	guint64 total = 0;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		if (g_str_has_prefix(lines[i], "Private_Clean:") ||
		    g_str_has_prefix(lines[i], "Private_Dirty:"))
			total += g_ascii_strtoull(strchr(lines[i], ':') + 1, NULL, 10);
	}
	g_assert_cmpuint(total, >, 0);
	return total;
}

#define MANY_SESSIONS 1000
/* what an idle, initialized session may cost the daemon */
#define MAX_KB_PER_SESSION 16

/*
 * one host running many agents: 1,000 sessions over ws from 127.0.0.1 with
 * the default limits, then one more is served at once
 */
static void
test_many_loopback_sessions(void)
{
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(GPtrArray) clients = g_ptr_array_new_with_free_func(g_object_unref);
	g_autoptr(EsdTestWsClient) fresh = NULL;
	struct rlimit files;
	guint64 before;
	guint64 after;
	gint64 start;

	/* a socket each, and libsoup's own */
	g_assert_cmpint(getrlimit(RLIMIT_NOFILE, &files), ==, 0);
	files.rlim_cur = files.rlim_max;
	g_assert_cmpint(setrlimit(RLIMIT_NOFILE, &files), ==, 0);
	if (files.rlim_cur < MANY_SESSIONS + 256) {
		g_test_skip_printf("the descriptor hard limit (%" G_GUINT64_FORMAT
				   ") is below what %u sessions need",
				   (guint64)files.rlim_cur,
				   (guint)MANY_SESSIONS);
		return;
	}
	daemon = esd_test_daemon_new_ws(NULL);
	/* one session first, so that what every connection shares is counted before */
	g_ptr_array_add(clients, client_ready(daemon));
	before = private_kb(esd_test_daemon_get_pid(daemon));
	for (guint i = 0; i < MANY_SESSIONS; i++) {
		EsdTestWsClient *client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
		g_free(esd_test_peer_handshake(ESD_TEST_PEER(client)));
		g_ptr_array_add(clients, client);
	}
	/* the last initialized is read before this answer */
	esd_test_peer_assert_alive(g_ptr_array_index(clients, clients->len - 1));
	after = private_kb(esd_test_daemon_get_pid(daemon));
	g_test_message("daemon private memory: %" G_GUINT64_FORMAT " kB before, %" G_GUINT64_FORMAT
		       " kB with %u more sessions: %.1f kB each",
		       before,
		       after,
		       (guint)MANY_SESSIONS,
		       (gdouble)(after - MIN(after, before)) / MANY_SESSIONS);
#if !defined(__SANITIZE_ADDRESS__)
	/* a sanitizer build pads and quarantines every allocation */
	g_assert_cmpuint(after, <=, before + (guint64)MANY_SESSIONS * MAX_KB_PER_SESSION);
#endif
	start = g_get_monotonic_time();
	fresh = client_ready(daemon);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	esd_test_peer_assert_alive(g_ptr_array_index(clients, 0));
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * freeing a thousand sessions with CI's slow unwinding on every free
	 * (fast_unwind_on_malloc=0) takes about 2.8 s on a slow day, against
	 * 0.1 s without a sanitizer
	 */
	assert_clean_exit_within(daemon, 20000);
#else
	assert_clean_exit(daemon);
#endif
}

/* slowloris: a connection that never completes the handshake is dropped */
static void
test_handshake_timeout(void)
{
	g_autoptr(EsdTestDaemon) daemon = daemon_with("--handshake-timeout", "2");
	gint64 start = g_get_monotonic_time();
	g_autoptr(EsdTestWsClient) idle = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autoptr(EsdTestWsClient) half = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	/* initialize without initialized counts as no handshake */
	g_autofree gchar *session = esd_test_peer_initialize(ESD_TEST_PEER(half), NULL);
	g_autoptr(EsdTestWsClient) ready = client_ready(daemon);

	g_assert_cmpuint(esd_test_ws_client_wait_closed(idle, 6000),
			 ==,
			 ESD_TEST_WS_CLOSE_NO_FRAME);
	g_assert_cmpuint(esd_test_ws_client_wait_closed(half, 6000),
			 ==,
			 ESD_TEST_WS_CLOSE_NO_FRAME);
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 1900 * 1000);
	/* a handshaken connection stays */
	esd_test_iterate(300);
	esd_test_peer_assert_alive(ESD_TEST_PEER(ready));
	/* half an HTTP request: the connection is dropped too */
	{
		g_autoptr(GSocketClient) socket_client = g_socket_client_new();
		g_autoptr(GSocketConnection) slow =
		    g_socket_client_connect_to_host(socket_client,
						    "127.0.0.1",
						    esd_test_daemon_get_port(daemon),
						    NULL,
						    NULL);
		GInputStream *in;
		gchar buf[64];
		const gchar *partial = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n";

		g_assert_nonnull(slow);
		g_assert_true(
		    g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(slow)),
					      partial,
					      strlen(partial),
					      NULL,
					      NULL,
					      NULL));
		in = g_io_stream_get_input_stream(G_IO_STREAM(slow));
		g_socket_set_timeout(g_socket_connection_get_socket(slow), 4);
		/* end of stream, not a timeout */
		g_assert_cmpint(g_input_stream_read(in, buf, sizeof(buf), NULL, NULL), ==, 0);
	}
	assert_clean_exit(daemon);
}

static void
test_max_processes(void)
{
	g_autoptr(EsdTestDaemon) daemon = daemon_with("--max-processes", "2");
	g_autoptr(EsdTestWsClient) client = client_ready(daemon);
	EsdTestPeer *peer = ESD_TEST_PEER(client);
#define START                                                                                      \
	"{\"id\":%u,\"method\":\"process/start\",\"params\":{\"processId\":\"p%u\",\"argv\":"      \
	"[\"sleep\",\"30\"],\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\"},\"tty\":"    \
	"false}}"

	for (guint i = 1; i <= 2; i++) {
		g_autofree gchar *request = g_strdup_printf(START, 10 + i, i);
		g_autoptr(JsonNode) reply = esd_test_peer_call(peer, request);
		g_assert_nonnull(esd_test_json_get(reply, "result"));
	}
	{
		g_autofree gchar *request = g_strdup_printf(START, 13, 3);
		esd_test_peer_assert_error(peer,
					   request,
					   "13",
					   -32600,
					   "too many processes in this session (limit 2)");
	}
	esd_test_peer_assert_alive(peer);
	assert_clean_exit(daemon);
}

/* a pipeline beyond the queue gets errors, the requests in it their answers */
static void
test_max_pending(void)
{
	const gchar *args[] = {"--max-pending-requests", "2", NULL};
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(args);
	g_autoptr(EsdTestWsClient) client = client_ready(daemon);
	EsdTestPeer *peer = ESD_TEST_PEER(client);
	gboolean answered[5] = {FALSE};
	guint busy = 0;

	g_autoptr(JsonNode) started = esd_test_peer_call(
	    peer,
	    "{\"id\":2,\"method\":\"process/start\",\"params\":{\"processId\":\"w\",\"argv\":"
	    "[\"sleep\",\"1\"],\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\"},\"tty\":"
	    "false}}");
	g_assert_nonnull(esd_test_json_get(started, "result"));
	/* holds the only slot until the process exits */
	esd_test_peer_send_text(peer,
				"{\"id\":100,\"method\":\"process/read\",\"params\":{\"processId\":"
				"\"w\",\"afterSeq\":0,\"waitMs\":3000}}");
	for (guint i = 0; i < 5; i++) {
		g_autofree gchar *request =
		    g_strdup_printf("{\"id\":%u,\"method\":\"environment/status\"}", 200 + i);
		esd_test_peer_send_text(peer, request);
	}
	while (!answered[0] || !answered[1] || busy < 3) {
		g_autoptr(JsonNode) reply = esd_test_peer_receive_json(peer);
		gint64 id;
		g_assert_nonnull(reply);
		if (esd_test_json_get(reply, "id") == NULL)
			continue; /* process notifications */
		id = esd_test_json_get_int(reply, "id");
		if (id == 100)
			continue;
		g_assert_cmpint(id, >=, 200);
		g_assert_cmpint(id, <, 205);
		if (esd_test_json_get(reply, "error") != NULL) {
			g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32600);
			g_assert_cmpstr(esd_test_json_get_string(reply, "error.message"),
					==,
					"too many requests waiting on this connection (limit 2)");
			g_assert_cmpint(id, >=, 202);
			busy++;
		} else {
			g_assert_cmpint(id, <, 202);
			answered[id - 200] = TRUE;
		}
	}
	assert_clean_exit(daemon);
}

/* a peer that stops reading is dropped; its session can be resumed */
static void
test_max_queued_bytes(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("esd-test-limits-XXXXXX", NULL);
	g_autofree gchar *file = g_build_filename(dir, "big", NULL);
	g_autofree gchar *data = g_strnfill(512 * 1024, 'x');
	const gchar *args[] = {"--max-queued-bytes", "1048576", NULL};
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(args);
	g_autoptr(EsdTestWsClient) reader = client_ready(daemon);
	g_autoptr(EsdTestWsClient) stalled = NULL;
	g_autoptr(EsdTestWsClient) resumed = NULL;
	g_autoptr(GString) burst = g_string_new(NULL);
	g_autofree gchar *session = NULL;

	g_assert_true(g_file_set_contents(file, data, -1, NULL));
	stalled = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	session = esd_test_peer_handshake(ESD_TEST_PEER(stalled));
	esd_test_peer_assert_alive(ESD_TEST_PEER(stalled));
	/* 200 reads of 512 KiB without reading a single answer: 130 MiB of replies */
	for (guint i = 0; i < 200; i++) {
		g_autofree gchar *request = g_strdup_printf(
		    "{\"id\":%u,\"method\":\"fs/readFile\",\"params\":{\"path\":\"file://%s\"}}",
		    1000 + i,
		    file);
		g_autoptr(GBytes) frame =
		    esd_test_ws_client_build_frame(1, TRUE, request, strlen(request));
		g_string_append_len(burst,
				    g_bytes_get_data(frame, NULL),
				    (gssize)g_bytes_get_size(frame));
	}
	esd_test_ws_client_send_raw(stalled, (const guint8 *)burst->str, burst->len);
	/* the test client does not read while it sleeps here */
	g_usleep(1500 * 1000);
	esd_test_peer_assert_alive(ESD_TEST_PEER(reader));
	g_assert_cmpuint(esd_test_ws_client_wait_closed(stalled, WAIT_MS),
			 ==,
			 ESD_TEST_WS_CLOSE_NO_FRAME);
	/* the session was detached, not lost */
	resumed = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_free(esd_test_peer_initialize(ESD_TEST_PEER(resumed), session));
	assert_clean_exit(daemon);
	g_unlink(file);
	g_rmdir(dir);
}

static void
test_max_json_depth(void)
{
	g_autoptr(EsdTestDaemon) daemon = daemon_with("--max-json-depth", "4");
	g_autoptr(EsdTestWsClient) client = client_ready(daemon);
	EsdTestPeer *peer = ESD_TEST_PEER(client);
	const gchar *deep = "{\"id\":5,\"method\":\"environment/status\",\"params\":{\"a\":{\"b\":"
			    "{\"c\":{}}}}}";

	esd_test_peer_assert_malformed(peer, deep, strlen(deep), "recursion limit exceeded*");
	esd_test_peer_assert_alive(peer);
	assert_clean_exit(daemon);
}

static void
test_max_file_handles(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("esd-test-limits-XXXXXX", NULL);
	g_autofree gchar *file = g_build_filename(dir, "f", NULL);
	g_autoptr(EsdTestDaemon) daemon = daemon_with("--max-file-handles", "2");
	g_autoptr(EsdTestWsClient) client = client_ready(daemon);
	EsdTestPeer *peer = ESD_TEST_PEER(client);

	g_assert_true(g_file_set_contents(file, "x", -1, NULL));
	for (guint i = 0; i < 3; i++) {
		g_autofree gchar *request =
		    g_strdup_printf("{\"id\":%u,\"method\":\"fs/open\",\"params\":{\"handleId\":"
				    "\"h%u\",\"path\":\"file://%s\",\"mode\":\"read\"}}",
				    20 + i,
				    i,
				    file);
		g_autofree gchar *id = g_strdup_printf("%u", 20 + i);
		if (i < 2) {
			g_autoptr(JsonNode) reply = esd_test_peer_call(peer, request);
			g_assert_nonnull(esd_test_json_get(reply, "result"));
		} else {
			esd_test_peer_assert_error(
			    peer,
			    request,
			    id,
			    -32600,
			    "at most 2 file handles may be open per connection");
		}
	}
	assert_clean_exit(daemon);
	g_unlink(file);
	g_rmdir(dir);
}

static void
test_flag_validation(void)
{
	const gchar *bad[][2] = {
	    {"--max-json-depth", "0"},
	    {"--max-connections", "-1"},
	    {"--handshake-timeout", "-5"},
	    {"--max-queued-bytes", "-1"},
	    {"--max-file-handles", "0"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		const gchar *args[] = {"--listen", "stdio", bad[i][0], bad[i][1], NULL};
		g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_full(args, NULL, NULL, FALSE);
		esd_test_daemon_assert_exit_code(daemon, 1, 3000);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/execserverd/limits/max-connections", test_max_connections);
	g_test_add_func("/execserverd/limits/max-connections-per-peer-loopback",
			test_max_connections_per_peer_loopback);
	g_test_add_func("/execserverd/limits/many-loopback-sessions", test_many_loopback_sessions);
	g_test_add_func("/execserverd/limits/handshake-timeout", test_handshake_timeout);
	g_test_add_func("/execserverd/limits/max-processes", test_max_processes);
	g_test_add_func("/execserverd/limits/max-pending-requests", test_max_pending);
	g_test_add_func("/execserverd/limits/max-queued-bytes", test_max_queued_bytes);
	g_test_add_func("/execserverd/limits/max-json-depth", test_max_json_depth);
	g_test_add_func("/execserverd/limits/max-file-handles", test_max_file_handles);
	g_test_add_func("/execserverd/limits/flag-validation", test_flag_validation);
	return g_test_run();
}
