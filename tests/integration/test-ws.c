/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "esd-test-utils.h"

/*
 * `execserverd` on its default `ws://127.0.0.1:0`. Table rows share one
 * daemon, each on a new connection, and check afterwards that yet another
 * connection works: the daemon must survive every hostile input. Fixture
 * tests start their own daemon and check it exits 0 on SIGTERM.
 */

#define WS_TEST "/execserverd/integration/ws/"

static EsdTestDaemon *shared_daemon = NULL;

static EsdTestDaemon *
get_shared_daemon(void)
{
	if (shared_daemon == NULL)
		shared_daemon = esd_test_daemon_new_ws(NULL);
	g_assert_true(esd_test_daemon_is_running(shared_daemon));
	return shared_daemon;
}

/* a new connection can still do the whole handshake */
static void
assert_fresh_connection_works(EsdTestDaemon *daemon)
{
	g_autoptr(EsdTestWsClient) client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *session_id = esd_test_peer_handshake(ESD_TEST_PEER(client));

	esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	esd_test_ws_client_close(client);
}

/* ends a client: no message may be left unread */
static void
finish_client(EsdTestWsClient *client)
{
	if (esd_test_ws_client_is_open(client))
		esd_test_peer_assert_alive(ESD_TEST_PEER(client));
	if (esd_test_ws_client_is_open(client))
		esd_test_ws_client_close(client);
}

typedef struct {
	EsdTestDaemon *daemon;
	EsdTestWsClient *client;
	EsdTestPeer *peer;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	const gchar *const *args = user_data;

	fx->daemon = esd_test_daemon_new_ws(args);
	fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	fx->peer = ESD_TEST_PEER(fx->client);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	/* a known bug may have left anything behind, even a dead daemon */
	if (esd_test_take_known_bug()) {
		g_clear_object(&fx->client);
		g_clear_object(&fx->daemon);
		return;
	}
	if (fx->client != NULL)
		finish_client(fx->client);
	g_clear_object(&fx->client);
	if (esd_test_daemon_is_running(fx->daemon)) {
		assert_fresh_connection_works(fx->daemon);
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	}
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 2000);
	/* nothing but the URL on stdout */
	g_assert_true(esd_test_daemon_wait_stdout_eof(fx->daemon, ESD_TEST_TIMEOUT_MS));
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	g_clear_object(&fx->daemon);
}

static const gchar *const small_args[] = {"--max-message-size", "4096", NULL};
static const gchar *const grace_args[] = {"--session-grace", "1", NULL};
static const gchar *const explicit_args[] = {"--listen", "ws://127.0.0.1:0", NULL};

/* table rows on the shared daemon */
static void
test_exchange(gconstpointer user_data)
{
	EsdTestDaemon *daemon = get_shared_daemon();
	g_autoptr(EsdTestWsClient) client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));

	esd_test_peer_run_exchange(ESD_TEST_PEER(client), user_data);
	if (esd_test_ws_client_is_open(client))
		esd_test_ws_client_close(client);
	esd_test_take_known_bug();
	assert_fresh_connection_works(daemon);
}

/* scenarios shared with stdio, each on its own daemon since a bug may kill it */
static void
test_initialize_result(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_result(fx->peer);
}

static void
test_environment_info(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_environment_info(fx->peer);
}

static void
test_id_escaped_nul(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_id_escaped_nul(fx->peer);
}

static void
test_lone_surrogate(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_lone_surrogate(fx->peer);
}

static void
test_deep_nesting(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_deep_nesting(fx->peer);
}

static void
test_initialize_jsonrpc_member(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_jsonrpc_member(fx->peer);
}

static void
test_initialize_unknown_members(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_unknown_members(fx->peer);
}

static void
test_initialize_retry(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_retry(fx->peer);
}

static void
test_initialized_twice(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialized_twice(fx->peer);
}

static void
test_initialized_params_ignored(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialized_params_ignored(fx->peer);
}

/* HTTP routes, PROTOCOL.md §1.2 */
typedef struct {
	const gchar *name;
	const gchar *method;
	const gchar *path;
	guint status;
	const gchar *body; /* NULL: not checked */
} HttpRoute;

static const HttpRoute http_routes[] = {
    {"readyz-get", "GET", "/readyz", 200, ""},
    {"readyz-head", "HEAD", "/readyz", 200, ""},
    {"readyz-post", "POST", "/readyz", 405, NULL},
    {"readyz-put", "PUT", "/readyz", 405, NULL},
    {"readyz-subpath", "GET", "/readyz/x", 404, NULL},
    {"root-without-upgrade", "GET", "/", 400, "Connection header did not include 'upgrade'"},
    {"unknown-path", "GET", "/nope", 404, NULL},
    {"unknown-path-post", "POST", "/nope", 404, NULL},
    {NULL},
};

static void
test_http_route(gconstpointer user_data)
{
	const HttpRoute *route = user_data;
	g_autofree gchar *url = esd_test_daemon_get_http_url(get_shared_daemon(), route->path);
	g_autofree gchar *body = NULL;
	guint status = esd_test_http_request(route->method, url, NULL, &body);

	g_assert_cmpuint(status, ==, route->status);
	if (route->body != NULL)
		g_assert_cmpstr(body, ==, route->body);
}

/* upgrades that must be refused, with their HTTP status */
static void
test_upgrade_refused(const gchar *path, const gchar *origin, guint expected_status)
{
	EsdTestDaemon *daemon = get_shared_daemon();
	g_autofree gchar *url = g_strdup_printf("%s%s", esd_test_daemon_get_url(daemon), path);
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdTestWsClient) client = NULL;
	guint status = 0;

	client = esd_test_ws_client_connect(url, origin, &status, &error);
	g_assert_null(client);
	g_assert_nonnull(error);
	g_assert_cmpuint(status, ==, expected_status);
	assert_fresh_connection_works(daemon);
}

static void
test_upgrade_origin(void)
{
	test_upgrade_refused("/", "http://evil.example", 403);
}

static void
test_upgrade_origin_null(void)
{
	test_upgrade_refused("/", "null", 403);
}

static void
test_upgrade_unknown_path(void)
{
	test_upgrade_refused("/nope", NULL, 404);
}

static void
test_upgrade_readyz(void)
{
	test_upgrade_refused("/readyz", NULL, 200);
}

/* the first stdout line is the URL, with or without an explicit --listen */
static void
test_url(Fixture *fx, gconstpointer user_data)
{
	g_assert_true(g_str_has_prefix(esd_test_daemon_get_url(fx->daemon), "ws://127.0.0.1:"));
	g_assert_cmpuint(esd_test_daemon_get_port(fx->daemon), !=, 0);
	g_assert_cmpuint(esd_test_ws_client_get_local_port(fx->client),
			 !=,
			 esd_test_daemon_get_port(fx->daemon));
	g_free(esd_test_peer_handshake(fx->peer));
}

/* binary frames are parsed as JSON; the answers are text frames */
static void
test_binary_frames(Fixture *fx, gconstpointer user_data)
{
	const gchar init[] =
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}";
	const gchar initialized[] = "{\"method\":\"initialized\"}";
	const gchar status[] = "{\"id\":2,\"method\":\"environment/status\"}";
	const gchar float_id[] = "{\"id\":3.5,\"method\":\"environment/status\"}";
	g_autoptr(JsonNode) reply = NULL;
	g_autoptr(JsonNode) ready = NULL;
	g_autoptr(JsonNode) bad = NULL;

	esd_test_ws_client_send(fx->client, SOUP_WEBSOCKET_DATA_BINARY, init, strlen(init));
	reply = esd_test_peer_receive_json(fx->peer);
	esd_test_assert_uuid_v4(esd_test_json_get_string(reply, "result.sessionId"));
	esd_test_ws_client_send(fx->client,
				SOUP_WEBSOCKET_DATA_BINARY,
				initialized,
				strlen(initialized));
	esd_test_ws_client_send(fx->client, SOUP_WEBSOCKET_DATA_BINARY, status, strlen(status));
	ready = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(ready, "{\"id\":2,\"result\":{\"status\":\"ready\"}}");
	esd_test_ws_client_send(fx->client, SOUP_WEBSOCKET_DATA_BINARY, float_id, strlen(float_id));
	bad = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_malformed_reply(
	    fx->peer,
	    bad,
	    "data did not match any variant of untagged enum RequestId");
}

/* @id: the id of the request refused, or NULL for -1 */
static void
assert_binary_malformed(Fixture *fx, const gchar *data, gsize len, const gchar *id)
{
	g_autoptr(JsonNode) reply = NULL;

	esd_test_ws_client_send(fx->client, SOUP_WEBSOCKET_DATA_BINARY, data, len);
	reply = esd_test_peer_receive_json(fx->peer);
	if (id != NULL)
		esd_test_peer_assert_refused_reply(fx->peer, reply, id, "*");
	else
		esd_test_peer_assert_malformed_reply(fx->peer, reply, "*");
}

/* invalid UTF-8 can only come in binary frames; NUL fits in both kinds */
static void
test_bad_bytes(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	const gchar invalid[] =
	    "{\"id\":2,\"method\":\"environment/status\",\"params\":{\"a\":\"\xff\xfe\"}}";
	const gchar latin1[] = "{\"id\":\"\xe9\",\"method\":\"environment/status\"}";
	const gchar nul_inside[] = "{\"id\":3,\"method\":\"environment/\0status\"}";
	const gchar nul_after[] = "{\"id\":3,\"method\":\"environment/status\"}\0";
	const gchar not_json[] = "\x00\x01\x02\x03";

	/* inside a string, the request is refused with its id; outside or in the id, -1 */
	assert_binary_malformed(fx, invalid, sizeof(invalid) - 1, "2");
	assert_binary_malformed(fx, latin1, sizeof(latin1) - 1, NULL);
	assert_binary_malformed(fx, nul_inside, sizeof(nul_inside) - 1, "3");
	assert_binary_malformed(fx, nul_after, sizeof(nul_after) - 1, NULL);
	assert_binary_malformed(fx, not_json, sizeof(not_json) - 1, NULL);
	esd_test_peer_assert_refused(fx->peer, nul_inside, sizeof(nul_inside) - 1, "3", "*");
	esd_test_peer_assert_malformed(fx->peer, nul_after, sizeof(nul_after) - 1, "*");
	/* an empty message */
	esd_test_peer_assert_malformed(fx->peer, "", 0, "*");
	assert_binary_malformed(fx, "", 0, NULL);
	esd_test_peer_assert_alive(fx->peer);
}

/* PROTOCOL.md §1.2: no line framing inside a WebSocket message */
static void
test_two_objects_in_a_message(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	const gchar *messages[] = {
	    "{\"id\":2,\"method\":\"environment/status\",\"params\":{}}\n"
	    "{\"id\":3,\"method\":\"environment/status\",\"params\":{}}",
	    "{\"id\":2,\"method\":\"environment/status\"} "
	    "{\"id\":3,\"method\":\"environment/status\"}",
	    "{\"id\":2,\"method\":\"environment/status\"}{\"id\":3}",
	    "{\"id\":2,\"method\":\"environment/status\"} x",
	    NULL,
	};

	for (guint i = 0; messages[i] != NULL; i++) {
		g_autoptr(JsonNode) reply = NULL;
		esd_test_peer_send_text(fx->peer, messages[i]);
		reply = esd_test_peer_receive_json(fx->peer);
		if (esd_test_json_get(reply, "error") == NULL) {
			g_autofree gchar *text = esd_test_json_to_string(reply);
			esd_test_ws_client_close(fx->client);
			esd_test_known_bug("a WebSocket message with trailing data after the first "
					   "JSON object is not malformed: %s is answered with %s",
					   messages[i],
					   text);
			return;
		}
		esd_test_peer_assert_malformed_reply(fx->peer, reply, "trailing characters*");
	}
	esd_test_peer_assert_alive(fx->peer);
}

/* fragments (continuation frames) make one message */
static void
test_fragmented_message(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	const gchar *part1 = "{\"id\":\"frag\",\"met";
	const gchar *part2 = "hod\":\"environment/";
	const gchar *part3 = "status\"}";
	g_autoptr(GBytes) f1 = esd_test_ws_client_build_frame(0x1, FALSE, part1, strlen(part1));
	g_autoptr(GBytes) f2 = esd_test_ws_client_build_frame(0x0, FALSE, part2, strlen(part2));
	g_autoptr(GBytes) f3 = esd_test_ws_client_build_frame(0x0, TRUE, part3, strlen(part3));
	g_autoptr(GByteArray) all = g_byte_array_new();
	g_autoptr(JsonNode) reply = NULL;
	gsize len = 0;
	const guint8 *data;

	data = g_bytes_get_data(f1, &len);
	g_byte_array_append(all, data, len);
	data = g_bytes_get_data(f2, &len);
	g_byte_array_append(all, data, len);
	data = g_bytes_get_data(f3, &len);
	g_byte_array_append(all, data, len);
	esd_test_ws_client_send_raw(fx->client, all->data, all->len);
	reply = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(reply, "{\"id\":\"frag\",\"result\":{\"status\":\"ready\"}}");
	esd_test_peer_assert_alive(fx->peer);
}

/*
 * --max-message-size 4096: libsoup 3.2 only caps single frames, so a
 * message in small fragments must be refused by the daemon itself
 */
static void
test_max_message_size_fragments(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autofree gchar *pad = g_strnfill(3000, 'a');
	g_autofree gchar *head =
	    g_strdup_printf("{\"id\":2,\"method\":\"environment/status\",\"params\":{\"pad\":\"%s",
			    pad);
	g_autofree gchar *tail = g_strdup_printf("%s\"}}", pad);
	g_autoptr(GBytes) f1 = esd_test_ws_client_build_frame(0x1, FALSE, head, strlen(head));
	g_autoptr(GBytes) f2 = esd_test_ws_client_build_frame(0x0, TRUE, tail, strlen(tail));
	g_autoptr(JsonNode) reply = NULL;
	gsize len = 0;
	const guint8 *data;

	data = g_bytes_get_data(f1, &len);
	esd_test_ws_client_send_raw(fx->client, data, len);
	data = g_bytes_get_data(f2, &len);
	esd_test_ws_client_send_raw(fx->client, data, len);
	reply = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_malformed_reply(fx->peer, reply, "*");
	esd_test_peer_assert_alive(fx->peer);
}

/* a single frame over the limit: the daemon may close this connection, but survives (teardown) */
static void
test_max_message_size_frame(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autofree gchar *pad_small = g_strnfill(3900, 'a');
	g_autofree gchar *pad = g_strnfill(5000, 'a');
	g_autofree gchar *small = g_strdup_printf(
	    "{\"id\":1,\"method\":\"environment/status\",\"params\":{\"pad\":\"%s\"}}",
	    pad_small);
	g_autofree gchar *over = g_strdup_printf(
	    "{\"id\":2,\"method\":\"environment/status\",\"params\":{\"pad\":\"%s\"}}",
	    pad);
	g_autoptr(GBytes) reply = NULL;
	gushort code;

	/* under the limit: parsed, then refused as params */
	esd_test_peer_assert_error(fx->peer,
				   small,
				   "1",
				   -32602,
				   "invalid type: map, expected unit");
	esd_test_peer_send_text(fx->peer, over);
	reply = esd_test_peer_receive(fx->peer, ESD_TEST_TIMEOUT_MS);
	if (reply != NULL) {
		/* answering with a parse error and going on is fine too */
		gsize len = 0;
		const gchar *data = g_bytes_get_data(reply, &len);
		g_autofree gchar *text = g_strndup(data, len);
		g_autoptr(JsonNode) node = esd_test_json_parse(text);
		esd_test_peer_assert_malformed_reply(fx->peer, node, "*");
		esd_test_peer_assert_alive(fx->peer);
		return;
	}
	/* libsoup 3.2 refuses the frame and drops the connection, with or without 1009 */
	code = esd_test_ws_client_wait_closed(fx->client, ESD_TEST_TIMEOUT_MS);
	g_test_message("a frame over --max-message-size closed the connection with %u", code);
	g_assert_true(code == SOUP_WEBSOCKET_CLOSE_TOO_BIG || code == ESD_TEST_WS_CLOSE_NO_FRAME);
}

/* a Close frame whose body is one byte holds no code: answered with 1002 */
static void
test_close_one_byte(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GBytes) frame = esd_test_ws_client_build_frame(0x8, TRUE, "x", 1);

	esd_test_ws_client_send_raw(fx->client,
				    g_bytes_get_data(frame, NULL),
				    g_bytes_get_size(frame));
	g_assert_cmpuint(esd_test_ws_client_wait_closed(fx->client, ESD_TEST_TIMEOUT_MS),
			 ==,
			 SOUP_WEBSOCKET_CLOSE_PROTOCOL_ERROR);
}

/* a 64-bit length with its top bit set is a protocol error, not a very long frame */
static void
test_frame_length_top_bit(Fixture *fx, gconstpointer user_data)
{
	const guint8 header[] =
	    {0x81, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};

	esd_test_ws_client_send_raw(fx->client, header, sizeof(header));
	g_assert_cmpuint(esd_test_ws_client_wait_closed(fx->client, ESD_TEST_TIMEOUT_MS),
			 ==,
			 ESD_TEST_WS_CLOSE_NO_FRAME);
}

/*
 * The answers to the requests of one read go out in one write at its end:
 * a protocol error later in the same read must not lose them
 */
static void
test_answers_before_protocol_error(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(GByteArray) all = g_byte_array_new();
	g_autoptr(GBytes) bad = NULL;
	guint8 *bad_data;
	gsize len = 0;

	for (guint i = 1; i <= 3; i++) {
		g_autofree gchar *request =
		    g_strdup_printf("{\"id\":%u,\"method\":\"environment/status\"}", i);
		g_autoptr(GBytes) frame =
		    esd_test_ws_client_build_frame(0x1, TRUE, request, strlen(request));
		const guint8 *data = g_bytes_get_data(frame, &len);
		g_byte_array_append(all, data, (guint)len);
	}
	/* a text frame with a reserved bit set */
	bad = esd_test_ws_client_build_frame(0x1, TRUE, "{}", 2);
	len = g_bytes_get_size(bad);
	bad_data = g_memdup2(g_bytes_get_data(bad, NULL), len);
	bad_data[0] |= 0x40;
	g_byte_array_append(all, bad_data, (guint)len);
	g_free(bad_data);
	esd_test_ws_client_send_raw(fx->client, all->data, all->len);
	for (guint i = 1; i <= 3; i++) {
		g_autoptr(JsonNode) reply = esd_test_peer_receive_json(fx->peer);
		g_autofree gchar *expected =
		    g_strdup_printf("{\"id\":%u,\"result\":{\"status\":\"ready\"}}", i);
		esd_assert_json_node_eq(reply, expected);
	}
	g_assert_cmpuint(esd_test_ws_client_wait_closed(fx->client, ESD_TEST_TIMEOUT_MS),
			 ==,
			 ESD_TEST_WS_CLOSE_NO_FRAME);
}

static void
test_pipelining(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);

	for (guint i = 1; i <= 200; i++) {
		g_autofree gchar *request =
		    g_strdup_printf("{\"id\":%u,\"method\":\"environment/status\"}", i);
		esd_test_peer_send_text(fx->peer, request);
	}
	for (guint i = 1; i <= 200; i++) {
		g_autoptr(JsonNode) reply = esd_test_peer_receive_json(fx->peer);
		g_autofree gchar *expected =
		    g_strdup_printf("{\"id\":%u,\"result\":{\"status\":\"ready\"}}", i);
		esd_assert_json_node_eq(reply, expected);
	}
}

/* PROTOCOL.md §5.2 sessions */

static EsdTestWsClient *
new_client(Fixture *fx)
{
	return esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
}

/*
 * the daemon learns that the previous connection ended a little after the
 * client does: retry the resume while it answers -32010
 */
static EsdTestWsClient *
resume_when_detached(Fixture *fx, const gchar *session_id)
{
	g_autofree gchar *request =
	    g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\","
			    "\"resumeSessionId\":\"%s\"}}",
			    session_id);
	gint64 deadline = g_get_monotonic_time() + ESD_TEST_TIMEOUT_MS * 1000;

	while (TRUE) {
		g_autoptr(EsdTestWsClient) client = new_client(fx);
		g_autoptr(JsonNode) reply = esd_test_peer_call(ESD_TEST_PEER(client), request);

		if (esd_test_json_get(reply, "result") != NULL) {
			g_assert_cmpstr(esd_test_json_get_string(reply, "result.sessionId"),
					==,
					session_id);
			return g_steal_pointer(&client);
		}
		esd_test_peer_assert_reply_error(reply, "1", -32010, "*");
		esd_test_ws_client_close(client);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		esd_test_iterate(20);
	}
}

static void
test_sessions_distinct(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(EsdTestWsClient) other = new_client(fx);
	g_autofree gchar *a = esd_test_peer_handshake(fx->peer);
	g_autofree gchar *b = esd_test_peer_handshake(ESD_TEST_PEER(other));

	esd_test_assert_uuid_v4(a);
	esd_test_assert_uuid_v4(b);
	g_assert_cmpstr(a, !=, b);
	esd_test_peer_assert_alive(fx->peer);
	esd_test_peer_assert_alive(ESD_TEST_PEER(other));
	esd_test_ws_client_close(other);
}

/* close A, resume on B: same session; B must send initialized again */
static void
test_resume_after_close(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(EsdTestWsClient) b = NULL;
	g_autoptr(EsdTestWsClient) c = NULL;

	esd_test_peer_assert_alive(fx->peer);
	esd_test_ws_client_close(fx->client);
	b = resume_when_detached(fx, session_id);
	esd_test_peer_assert_error(
	    ESD_TEST_PEER(b),
	    "{\"id\":5,\"method\":\"environment/status\"}",
	    "5",
	    -32600,
	    "client must send initialized before using environment status methods");
	esd_test_peer_send_text(ESD_TEST_PEER(b), "{\"method\":\"initialized\"}");
	esd_test_peer_assert_alive(ESD_TEST_PEER(b));
	/* and once more */
	esd_test_ws_client_close(b);
	c = resume_when_detached(fx, session_id);
	esd_test_ws_client_close(c);
}

/* resume while A is attached: -32010, which does not count as an initialize */
static void
test_resume_while_attached(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(EsdTestWsClient) b = new_client(fx);
	g_autofree gchar *request = NULL;
	g_autofree gchar *message = NULL;
	g_autofree gchar *fresh = NULL;

	request = g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":"
				  "{\"clientName\":\"probe-resume-B\",\"resumeSessionId\":\"%s\"}}",
				  session_id);
	message =
	    g_strdup_printf("session %s is already attached to another connection", session_id);
	esd_test_peer_assert_error(ESD_TEST_PEER(b), request, "1", -32010, message);
	/* A is unaffected */
	esd_test_peer_assert_alive(fx->peer);
	/* B may still initialize a new session */
	fresh = esd_test_peer_handshake(ESD_TEST_PEER(b));
	g_assert_cmpstr(fresh, !=, session_id);
	esd_test_peer_assert_alive(ESD_TEST_PEER(b));
	esd_test_ws_client_close(b);
}

/* a connection dropped for a protocol violation detaches its session too */
static void
test_resume_after_drop(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(EsdTestWsClient) b = NULL;

	esd_test_peer_send_text(fx->peer, "{\"method\":\"bogus/notification\",\"params\":{}}");
	esd_test_peer_assert_dropped(fx->peer);
	b = resume_when_detached(fx, session_id);
	esd_test_ws_client_close(b);
}

/* a client that vanishes without a Close frame detaches its session as well */
static void
test_resume_after_abort(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(EsdTestWsClient) b = NULL;

	esd_test_peer_assert_alive(fx->peer);
	esd_test_ws_client_abort(fx->client);
	b = resume_when_detached(fx, session_id);
	esd_test_ws_client_close(b);
}

/* --session-grace 1: resumable right away, gone after ~2.5 s */
static void
test_session_grace(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(EsdTestWsClient) b = NULL;
	g_autoptr(EsdTestWsClient) c = NULL;
	g_autofree gchar *request = NULL;
	g_autofree gchar *message = NULL;
	gint64 until;

	esd_test_ws_client_close(fx->client);
	b = resume_when_detached(fx, session_id);
	esd_test_ws_client_close(b);
	until = g_get_monotonic_time() + 2500 * 1000;
	ESD_WAIT_UNTIL(g_get_monotonic_time() >= until, 3000);
	c = new_client(fx);
	request = g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":"
				  "{\"clientName\":\"t\",\"resumeSessionId\":\"%s\"}}",
				  session_id);
	message = g_strdup_printf("unknown session id %s", session_id);
	esd_test_peer_assert_error(ESD_TEST_PEER(c), request, "1", -32600, message);
	g_free(esd_test_peer_handshake(ESD_TEST_PEER(c)));
	esd_test_peer_assert_alive(ESD_TEST_PEER(c));
	esd_test_ws_client_close(c);
}

/* SIGTERM with a client attached: exit 0 within 2 s, the client sees the end */
static void
test_sigterm(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);

	esd_test_peer_assert_alive(fx->peer);
	esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 2000);
	ESD_WAIT_UNTIL(!esd_test_ws_client_is_open(fx->client), 2000);
	g_clear_object(&fx->client);
}

/* a Close frame from the client ends the connection cleanly */
static void
test_client_close(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);

	esd_test_peer_assert_alive(fx->peer);
	esd_test_ws_client_close(fx->client);
	g_assert_cmpuint(esd_test_ws_client_wait_closed(fx->client, ESD_TEST_TIMEOUT_MS),
			 ==,
			 SOUP_WEBSOCKET_CLOSE_NORMAL);
}

/* the shared daemon, after every table row: still fine, and shuts down cleanly */
static void
test_shared_daemon_shutdown(void)
{
	EsdTestDaemon *daemon = get_shared_daemon();

	assert_fresh_connection_works(daemon);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 2000);
	g_assert_true(esd_test_daemon_wait_stdout_eof(daemon, ESD_TEST_TIMEOUT_MS));
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	g_clear_object(&shared_daemon);
}

static void
add_exchanges(const gchar *group, const EsdTestExchange *table)
{
	for (guint i = 0; table[i].name != NULL; i++) {
		g_autofree gchar *path = g_strdup_printf(WS_TEST "%s/%s", group, table[i].name);
		g_test_add_data_func(path, &table[i], test_exchange);
	}
}

#define ADD(path, func, data)                                                                      \
	g_test_add(WS_TEST path, Fixture, data, fixture_setup, func, fixture_teardown)

int
main(int argc, char **argv)
{
	gint rc;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);

	ADD("lifecycle/url", test_url, NULL);
	ADD("lifecycle/url-explicit-listen", test_url, explicit_args);
	for (guint i = 0; http_routes[i].name != NULL; i++) {
		g_autofree gchar *path = g_strdup_printf(WS_TEST "http/%s", http_routes[i].name);
		g_test_add_data_func(path, &http_routes[i], test_http_route);
	}
	g_test_add_func(WS_TEST "http/upgrade-with-origin", test_upgrade_origin);
	g_test_add_func(WS_TEST "http/upgrade-with-origin-null", test_upgrade_origin_null);
	g_test_add_func(WS_TEST "http/upgrade-unknown-path", test_upgrade_unknown_path);
	g_test_add_func(WS_TEST "http/upgrade-readyz", test_upgrade_readyz);
	ADD("handshake/initialize-result", test_initialize_result, NULL);
	ADD("framing/close-one-byte", test_close_one_byte, NULL);
	ADD("framing/length-top-bit", test_frame_length_top_bit, NULL);
	ADD("handshake/initialize-jsonrpc-member", test_initialize_jsonrpc_member, NULL);
	ADD("handshake/initialize-unknown-members", test_initialize_unknown_members, NULL);
	ADD("handshake/initialize-retry", test_initialize_retry, NULL);
	ADD("handshake/initialized-twice", test_initialized_twice, NULL);
	ADD("handshake/initialized-params-ignored", test_initialized_params_ignored, NULL);
	ADD("environment/info", test_environment_info, NULL);
	add_exchanges("handshake", esd_test_exchanges_handshake);
	add_exchanges("envelope", esd_test_exchanges_envelope);
	ADD("envelope/id-escaped-nul", test_id_escaped_nul, NULL);
	add_exchanges("malformed", esd_test_exchanges_malformed);
	ADD("malformed/lone-surrogate", test_lone_surrogate, NULL);
	ADD("malformed/deep-nesting", test_deep_nesting, NULL);
	ADD("malformed/bad-bytes", test_bad_bytes, NULL);
	ADD("malformed/two-objects-in-a-message", test_two_objects_in_a_message, NULL);
	ADD("malformed/max-message-size-frame", test_max_message_size_frame, small_args);
	ADD("malformed/max-message-size-fragments", test_max_message_size_fragments, small_args);
	add_exchanges("fatal", esd_test_exchanges_fatal);
	ADD("framing/binary-frames", test_binary_frames, NULL);
	ADD("framing/fragmented-message", test_fragmented_message, NULL);
	ADD("framing/answers-before-protocol-error", test_answers_before_protocol_error, NULL);
	ADD("framing/pipelining", test_pipelining, NULL);
	ADD("sessions/distinct", test_sessions_distinct, NULL);
	ADD("sessions/resume-after-close", test_resume_after_close, NULL);
	ADD("sessions/resume-while-attached", test_resume_while_attached, NULL);
	ADD("sessions/resume-after-drop", test_resume_after_drop, NULL);
	ADD("sessions/resume-after-abort", test_resume_after_abort, NULL);
	ADD("sessions/grace-expiry", test_session_grace, grace_args);
	ADD("lifecycle/client-close", test_client_close, NULL);
	ADD("lifecycle/sigterm", test_sigterm, NULL);
	g_test_add_func(WS_TEST "shared-daemon/shutdown", test_shared_daemon_shutdown);
	rc = g_test_run();
	g_clear_object(&shared_daemon);
	return rc;
}
