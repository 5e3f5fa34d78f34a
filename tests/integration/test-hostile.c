/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "hostile-cases.h"

/*
 * Hostile input against the real daemon (hostile-cases.h), each row over
 * WebSocket and over stdio unless it is specific to one. A row is answered
 * with exactly the error it names, or the connection ends; afterwards the
 * daemon must still serve (over WebSocket a fresh connection does the whole
 * handshake, over stdio the same connection answers) and must not have
 * logged a warning.
 *
 * The WebSocket rows share one daemon, so that it meets every input in turn;
 * each stdio row has its own, as a stdio daemon has one connection.
 */

#define HOSTILE_TEST	 "/execserverd/integration/hostile/"
#define HOSTILE_LIMIT	 (1024 * 1024)
#define HOSTILE_BIG_DATA (10 * 1024 * 1024)

static const gchar *const limit_args[] = {"--max-message-size", "1048576", NULL};

static EsdTestDaemon *ws_daemon = NULL;

static EsdTestDaemon *
get_ws_daemon(void)
{
	if (ws_daemon == NULL)
		ws_daemon = esd_test_daemon_new_ws(limit_args);
	g_assert_true(esd_test_daemon_is_running(ws_daemon));
	return ws_daemon;
}

static void
assert_fresh_ws_connection_works(EsdTestDaemon *daemon)
{
	g_autoptr(EsdTestWsClient) client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *session_id = esd_test_peer_handshake(ESD_TEST_PEER(client));

	esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	esd_test_ws_client_close(client);
}

/* lets the daemon's stderr be read before its warnings are counted */
static void
assert_no_warning(EsdTestDaemon *daemon)
{
	esd_test_iterate(50);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
}

/* a fs/writeFile request of exactly @len bytes */
static gchar *
build_write_file(gsize len)
{
	const gchar *head = "{\"id\":7,\"method\":\"fs/writeFile\",\"params\":{\"path\":\"" NOPE
			    "/big\",\"dataBase64\":\"";
	const gchar *tail = "\"}}";
	GString *request = g_string_new(head);

	g_assert_cmpuint(len, >, strlen(head) + strlen(tail));
	while (request->len < len - strlen(tail))
		g_string_append_c(request, 'A');
	g_string_append(request, tail);
	return g_string_free(request, FALSE);
}

/* a process/write of @size zero bytes to process p */
static gchar *
build_big_write(gsize size)
{
	g_autofree guint8 *zeros = g_malloc0(size);
	g_autofree gchar *chunk = g_base64_encode(zeros, size);

	return g_strdup_printf("{\"id\":9,\"method\":\"process/write\",\"params\":{\"processId\":"
			       "\"p\",\"chunk\":\"%s\",\"writeId\":\"big\"}}",
			       chunk);
}

static void
send_frame(EsdTestWsClient *client, guint8 opcode, gboolean fin, const gchar *data, gsize len)
{
	g_autoptr(GBytes) frame = esd_test_ws_client_build_frame(opcode, fin, data, len);
	gsize frame_len = 0;
	const guint8 *bytes = g_bytes_get_data(frame, &frame_len);

	esd_test_ws_client_send_raw(client, bytes, frame_len);
}

/* a message just over the limit is refused as malformed, one at the limit is read */
void
hostile_oversized_message(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	g_autofree gchar *at_limit = build_write_file(HOSTILE_LIMIT);
	g_autofree gchar *over = build_write_file(HOSTILE_LIMIT + 4096);
	g_autofree gchar *detail = g_strdup_printf("message of more than %" G_GSIZE_FORMAT
						   " bytes exceeds the limit of %u bytes",
						   strlen(over),
						   HOSTILE_LIMIT);

	esd_test_peer_assert_malformed(peer, over, strlen(over), detail);
	esd_test_peer_assert_alive(peer);
	esd_test_peer_assert_error(peer,
				   at_limit,
				   "7",
				   -32004,
				   "No such file or directory (os error 2)");
	/* the CR of a CRLF line end is no part of the message */
	if (ESD_IS_TEST_DAEMON(peer)) {
		g_autofree gchar *crlf = g_strconcat(at_limit, "\r\n", NULL);
		g_autoptr(JsonNode) reply = NULL;

		esd_test_daemon_write(daemon, crlf, strlen(crlf));
		reply = esd_test_peer_receive_json(peer);
		esd_test_peer_assert_reply_error(reply,
						 "7",
						 -32004,
						 "No such file or directory (os error 2)");
	}
	esd_test_peer_assert_alive(peer);
}

/* libsoup 3.2 caps frames, not messages: the daemon counts fragments itself */
void
hostile_oversized_fragments(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	EsdTestWsClient *client = ESD_TEST_WS_CLIENT(peer);
	g_autofree gchar *over = build_write_file(HOSTILE_LIMIT + 1);
	g_autofree gchar *detail = g_strdup_printf("message of more than %" G_GSIZE_FORMAT
						   " bytes exceeds the limit of %u bytes",
						   strlen(over),
						   HOSTILE_LIMIT);
	gsize len = strlen(over);
	gsize step = 64 * 1024;
	g_autoptr(JsonNode) reply = NULL;

	for (gsize pos = 0; pos < len; pos += step)
		send_frame(client,
			   pos == 0 ? 0x1 : 0x0,
			   pos + step >= len,
			   over + pos,
			   MIN(step, len - pos));
	reply = esd_test_peer_receive_json(peer);
	esd_test_peer_assert_malformed_reply(peer, reply, detail);
	esd_test_peer_assert_alive(peer);
}

/* a frame that stops halfway holds up its own connection only */
void
hostile_half_frame(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	EsdTestWsClient *client = ESD_TEST_WS_CLIENT(peer);
	const gchar request[] = "{\"id\":7,\"method\":\"environment/status\"}";
	g_autoptr(GBytes) frame =
	    esd_test_ws_client_build_frame(0x1, TRUE, request, strlen(request));
	gsize len = 0;
	const guint8 *bytes = g_bytes_get_data(frame, &len);

	esd_test_ws_client_send_raw(client, bytes, 12);
	esd_test_iterate(200);
	assert_fresh_ws_connection_works(daemon);
	esd_test_ws_client_send_raw(client, bytes + 12, len - 12);
	esd_test_peer_assert_call(peer,
				  "{\"id\":8,\"method\":\"environment/status\"}",
				  "{\"id\":7,\"result\":{\"status\":\"ready\"}}");
	esd_assert_json_node_eq(esd_test_peer_receive_json(peer),
				"{\"id\":8,\"result\":{\"status\":\"ready\"}}");
}

/* a peer that stops in the middle of its upgrade request */
void
hostile_half_upgrade(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	const gchar head[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConn";
	g_autoptr(GSocketClient) socket_client = g_socket_client_new();
	g_autoptr(GSocketConnection) raw = NULL;
	g_autoptr(GError) error = NULL;

	/* straight to the daemon, never through a proxy from the environment */
	g_socket_client_set_enable_proxy(socket_client, FALSE);
	raw = g_socket_client_connect_to_host(socket_client,
					      "127.0.0.1",
					      esd_test_daemon_get_port(daemon),
					      NULL,
					      &error);
	g_assert_no_error(error);
	g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(raw)),
				  head,
				  strlen(head),
				  NULL,
				  NULL,
				  &error);
	g_assert_no_error(error);
	esd_test_iterate(200);
	assert_fresh_ws_connection_works(daemon);
	esd_test_peer_assert_alive(peer);
	g_io_stream_close(G_IO_STREAM(raw), NULL, NULL);
}

/* half a line, a pause, then the rest: one request, answered once */
void
hostile_half_line(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	const gchar head[] = "{\"id\":7,\"method\":\"environ";
	const gchar tail[] = "ment/status\"}\n";

	esd_test_daemon_write(daemon, head, strlen(head));
	esd_test_iterate(300);
	esd_test_daemon_write(daemon, tail, strlen(tail));
	esd_assert_json_node_eq(esd_test_peer_receive_json(peer),
				"{\"id\":7,\"result\":{\"status\":\"ready\"}}");
}

/* a frame the WebSocket protocol forbids ends the connection without a reply */
void
hostile_bad_frame(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	EsdTestWsClient *client = ESD_TEST_WS_CLIENT(peer);

	esd_test_ws_client_send_raw(client, (const guint8 *)row->request, (gsize)row->len);
	esd_test_peer_assert_dropped(peer);
}

/* the peer goes away with half a message sent */
void
hostile_vanish_mid_frame(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	g_autofree gchar *request = build_write_file(HOSTILE_LIMIT - 100);
	g_autofree gchar *detail = NULL;
	g_autoptr(JsonNode) reply = NULL;
	gsize half = strlen(request) / 2;

	if (ESD_IS_TEST_WS_CLIENT(peer)) {
		EsdTestWsClient *client = ESD_TEST_WS_CLIENT(peer);
		g_autoptr(GBytes) frame =
		    esd_test_ws_client_build_frame(0x1, TRUE, request, strlen(request));
		const guint8 *bytes = g_bytes_get_data(frame, NULL);

		esd_test_ws_client_send_raw(client, bytes, half);
		esd_test_ws_client_abort(client);
		return;
	}
	esd_test_daemon_write(daemon, request, half);
	esd_test_daemon_close_stdin(daemon);
	/* the last line, cut short by EOF, is still read and refused */
	detail =
	    g_strdup_printf("EOF while parsing a string at line 1 column %" G_GSIZE_FORMAT, half);
	reply = esd_test_peer_receive_json(peer);
	esd_test_peer_assert_malformed_reply(peer, reply, detail);
	g_assert_true(esd_test_daemon_wait_stdout_eof(daemon, ESD_TEST_TIMEOUT_MS));
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

/*
 * The peer goes away while a process it started runs and a 10 MiB write to
 * it is in flight. The process never reads, so the write cannot finish. On
 * a daemon of its own: the rows' limit would refuse the write.
 */
void
hostile_vanish_mid_request(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	const gchar *const args[] = {"--session-grace", "1", NULL};
	const gchar start[] =
	    "{\"id\":8,\"method\":\"process/start\",\"params\":{\"processId\":\"p\",\"argv\":["
	    "\"sleep\",\"30\"],\"cwd\":\"file:///\",\"env\":{},\"tty\":false,\"pipeStdin\":true}}";
	g_autofree gchar *write = build_big_write(HOSTILE_BIG_DATA);
	gboolean ws = ESD_IS_TEST_WS_CLIENT(peer);
	g_autoptr(EsdTestDaemon) own =
	    ws ? esd_test_daemon_new_ws(args) : esd_test_daemon_new_stdio(args);
	g_autoptr(EsdTestWsClient) client =
	    ws ? esd_test_ws_client_new(esd_test_daemon_get_url(own)) : NULL;
	EsdTestPeer *own_peer = ws ? ESD_TEST_PEER(client) : ESD_TEST_PEER(own);
	g_autofree gchar *session_id = esd_test_peer_handshake(own_peer);
	g_autoptr(JsonNode) started = esd_test_peer_call(own_peer, start);

	esd_assert_json_node_eq(
	    started,
	    "{\"id\":8,\"result\":{\"processId\":\"p\",\"sandboxType\":\"none\"}}");
	if (ws) {
		g_autoptr(GBytes) frame =
		    esd_test_ws_client_build_frame(0x1, TRUE, write, strlen(write));
		gsize len = 0;
		const guint8 *bytes = g_bytes_get_data(frame, &len);

		esd_test_ws_client_send_raw(client, bytes, len);
		esd_test_ws_client_abort(client);
		assert_fresh_ws_connection_works(own);
		/* the detached session expires and takes the process with it */
		esd_test_iterate(1500);
		assert_fresh_ws_connection_works(own);
		esd_test_daemon_send_signal(own, SIGTERM);
	} else {
		esd_test_daemon_write(own, write, strlen(write));
		esd_test_daemon_close_stdin(own);
	}
	esd_test_daemon_assert_exit_code(own, 0, ESD_TEST_TIMEOUT_MS);
	assert_no_warning(own);
	/* the row's own connection is untouched by all this */
	if (!ESD_IS_TEST_DAEMON(peer) || esd_test_daemon_is_running(daemon))
		esd_test_peer_assert_alive(peer);
	if (!ws) {
		esd_test_daemon_close_stdin(daemon);
		esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
	}
}

/* over WebSocket as a raw text frame: libsoup refuses to send text that is not UTF-8 */
static void
send_request(EsdTestPeer *peer, const gchar *data, gsize len)
{
	if (ESD_IS_TEST_WS_CLIENT(peer))
		send_frame(ESD_TEST_WS_CLIENT(peer), 0x1, TRUE, data, len);
	else
		esd_test_peer_send(peer, data, len);
}

static void
run_row(EsdTestDaemon *daemon, EsdTestPeer *peer, const HostileCase *row)
{
	gsize len = row->len < 0 ? strlen(row->request) : (gsize)row->len;
	g_autoptr(JsonNode) reply = NULL;

	if (row->func != NULL) {
		row->func(daemon, peer, row);
		return;
	}
	send_request(peer, row->request, len);
	if (row->flags & HOSTILE_CLOSE) {
		esd_test_peer_assert_dropped(peer);
		return;
	}
	/* as sent: the plain JSON parser of the tests would end a string at \u0000 */
	if (row->reply != NULL) {
		g_autoptr(GBytes) bytes = esd_test_peer_receive(peer, ESD_TEST_TIMEOUT_MS);
		g_autofree gchar *text = NULL;
		gsize size = 0;
		const gchar *data;

		g_assert_nonnull(bytes);
		data = g_bytes_get_data(bytes, &size);
		text = g_strndup(data, size);
		g_strchomp(text);
		g_assert_cmpstr(text, ==, row->reply);
		return;
	}
	reply = esd_test_peer_receive_json(peer);
	if (row->flags & HOSTILE_MALFORMED) {
		esd_test_peer_assert_malformed_reply(peer, reply, row->message);
	} else if (row->flags & HOSTILE_REFUSED) {
		esd_test_peer_assert_refused_reply(peer, reply, "7", row->message);
	} else {
		esd_test_peer_assert_reply_error(reply, "7", row->code, row->message);
	}
}

static void
test_ws(gconstpointer user_data)
{
	const HostileCase *row = user_data;
	EsdTestDaemon *daemon = get_ws_daemon();
	g_autoptr(EsdTestWsClient) client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *session_id = esd_test_peer_handshake(ESD_TEST_PEER(client));

	run_row(daemon, ESD_TEST_PEER(client), row);
	if (esd_test_ws_client_is_open(client)) {
		esd_test_peer_assert_alive(ESD_TEST_PEER(client));
		esd_test_ws_client_close(client);
	}
	assert_fresh_ws_connection_works(daemon);
	assert_no_warning(daemon);
}

static void
test_stdio(gconstpointer user_data)
{
	const HostileCase *row = user_data;
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(limit_args);
	EsdTestPeer *peer = ESD_TEST_PEER(daemon);
	g_autofree gchar *session_id = esd_test_peer_handshake(peer);

	run_row(daemon, peer, row);
	if ((row->flags & HOSTILE_CLOSE) == 0) {
		esd_test_peer_assert_alive(peer);
		esd_test_daemon_close_stdin(daemon);
		g_assert_true(esd_test_daemon_wait_stdout_eof(daemon, ESD_TEST_TIMEOUT_MS));
	}
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
	assert_no_warning(daemon);
}

/* after every row the shared daemon still shuts down cleanly */
static void
test_ws_shutdown(void)
{
	EsdTestDaemon *daemon = get_ws_daemon();

	assert_fresh_ws_connection_works(daemon);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
	g_assert_true(esd_test_daemon_wait_stdout_eof(daemon, ESD_TEST_TIMEOUT_MS));
	assert_no_warning(daemon);
	g_clear_object(&ws_daemon);
}

int
main(int argc, char **argv)
{
	gint ret;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (guint i = 0; i < G_N_ELEMENTS(hostile_cases); i++) {
		const HostileCase *row = &hostile_cases[i];
		g_autofree gchar *ws = g_strconcat(HOSTILE_TEST "ws/", row->name, NULL);
		g_autofree gchar *stdio = g_strconcat(HOSTILE_TEST "stdio/", row->name, NULL);

		if (row->flags & HOSTILE_WS)
			g_test_add_data_func(ws, row, test_ws);
		if (row->flags & HOSTILE_STDIO)
			g_test_add_data_func(stdio, row, test_stdio);
	}
	g_test_add_func(HOSTILE_TEST "ws/shutdown", test_ws_shutdown);
	ret = g_test_run();
	g_clear_object(&ws_daemon);
	return ret;
}
