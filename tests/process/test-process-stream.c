/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esd-test-leftovers.h"
#include "esd-test-utils.h"

/*
 * Volume: a peer that stops reading holds the daemon's memory down by
 * back-pressure (the daemon stops draining the command's pipes), a fast
 * peer gets every byte exactly once and in order, and retained output is
 * capped at --max-retained-output, keeping the newest.
 */

#define STREAM_TEST "/execserverd/process-stream/"
#define MARK_VAR    "ESD_PTEST_MARK"
#define WAIT_MS	    5000
/* the daemon's resident memory may not grow past this, however much a command writes */
/* a sanitizer build keeps freed memory in quarantine and shadows the rest */
#if defined(__SANITIZE_ADDRESS__)
#define MAX_RSS_KB (512 * 1024)
#else
#define MAX_RSS_KB (64 * 1024)
#endif

typedef struct {
	gboolean ws;
	const gchar *const *args;
} Variant;

typedef struct {
	const Variant *variant;
	EsdTestDaemon *daemon;
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	guint next_id;
	gint daemon_pid;
} Fixture;

/* what a process sent in notifications */
typedef struct {
	guint64 bytes;
	guint64 chunks;
	guint64 last_seq;
	gboolean exited;
	gint64 exit_code;
	gboolean closed;
	GString *data; /* NULL: only counted */
	GArray *sizes; /* NULL, or the size of each output chunk (guint64) */
} Stream;

static guint test_counter = 0;
/* "<test pid>-<n>", in the environment of the daemon and the commands of a test */
static gchar *test_mark = NULL;

/* /proc */

/* the daemon: our child, running $ESD_TEST_DAEMON (its supervisors are its children) */
static gint
find_daemon_pid(void)
{
	g_autofree gchar *binary = realpath(g_getenv("ESD_TEST_DAEMON"), NULL);
	g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
	const gchar *name;
	gint found = -1;

	g_assert_nonnull(binary);
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *exe_path = g_strdup_printf("/proc/%s/exe", name);
		g_autofree gchar *stat_path = g_strdup_printf("/proc/%s/stat", name);
		g_autofree gchar *exe = NULL;
		g_autofree gchar *stat = NULL;
		const gchar *paren;
		gint ppid = 0;

		if (!g_ascii_isdigit(name[0]))
			continue;
		exe = g_file_read_link(exe_path, NULL);
		if (g_strcmp0(exe, binary) != 0 ||
		    !g_file_get_contents(stat_path, &stat, NULL, NULL))
			continue;
		paren = strrchr(stat, ')');
		if (paren == NULL || sscanf(paren + 2, "%*c %d", &ppid) != 1 || ppid != getpid())
			continue;
		g_assert_cmpint(found, ==, -1);
		found = atoi(name);
	}
	g_assert_cmpint(found, >, 0);
	return found;
}

/* a field of /proc/PID/status in kB; the test fails when it cannot be read */
static gint64
status_kb(gint pid, const gchar *field)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/status", pid);
	g_autofree gchar *text = NULL;
	g_autofree gchar *prefix = g_strdup_printf("\n%s:", field);
	g_autoptr(GError) error = NULL;
	const gchar *line;
	gint64 kb;

	/* a -1 would pass every "less than" bound */
	g_file_get_contents(path, &text, NULL, &error);
	g_assert_no_error(error);
	line = strstr(text, prefix);
	if (line == NULL)
		g_error("no %s in %s", field, path);
	kb = g_ascii_strtoll(line + strlen(prefix), NULL, 10);
	g_assert_cmpint(kb, >, 0);
	return kb;
}

static gint
find_argv(const gchar *const *argv)
{
	g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
	const gchar *name;

	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = g_strdup_printf("/proc/%s/cmdline", name);
		g_autofree gchar *cmdline = NULL;
		gsize len = 0;
		gsize pos = 0;
		guint i = 0;

		if (!g_ascii_isdigit(name[0]) || !g_file_get_contents(path, &cmdline, &len, NULL))
			continue;
		for (; argv[i] != NULL && pos < len; i++) {
			if (strcmp(cmdline + pos, argv[i]) != 0)
				break;
			pos += strlen(argv[i]) + 1;
		}
		if (argv[i] == NULL && pos == len)
			return atoi(name);
	}
	return -1;
}

/* messages */

static JsonNode *
receive(Fixture *fx)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(fx->peer, WAIT_MS);
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *data;

	if (bytes == NULL)
		g_error("the daemon closed the connection");
	data = g_bytes_get_data(bytes, &len);
	if (!json_parser_load_from_data(parser, data, (gssize)len, &error))
		g_error("invalid JSON from the daemon: %s", error->message);
	return json_parser_steal_root(parser);
}

/* decoded size of padded base64, without decoding it */
static gsize
base64_size(const gchar *text)
{
	gsize len = strlen(text);
	gsize pad = 0;

	g_assert_cmpuint(len % 4, ==, 0);
	if (len > 0 && text[len - 1] == '=')
		pad++;
	if (len > 1 && text[len - 2] == '=')
		pad++;
	return len / 4 * 3 - pad;
}

/* folds one notification of @process_id into @stream; checks the order on the wire */
static void
stream_take(Stream *stream, JsonNode *msg, const gchar *process_id)
{
	const gchar *method = esd_test_json_get_string(msg, "method");
	guint64 seq;

	if (g_strcmp0(esd_test_json_get_string(msg, "params.processId"), process_id) != 0)
		return;
	seq = (guint64)esd_test_json_get_int(msg, "params.seq");
	g_assert_false(stream->closed);
	g_assert_cmpuint(seq, ==, stream->last_seq + 1);
	stream->last_seq = seq;
	if (g_str_equal(method, "process/output")) {
		const gchar *chunk = esd_test_json_get_string(msg, "params.chunk");
		/* the exit is announced after all the output */
		g_assert_false(stream->exited);
		guint64 size = base64_size(chunk);
		stream->bytes += size;
		stream->chunks++;
		if (stream->sizes != NULL)
			g_array_append_val(stream->sizes, size);
		if (stream->data != NULL) {
			gsize len = 0;
			g_autofree guchar *bytes = g_base64_decode(chunk, &len);
			g_string_append_len(stream->data, (const gchar *)bytes, (gssize)len);
		}
	} else if (g_str_equal(method, "process/exited")) {
		g_assert_false(stream->exited);
		stream->exited = TRUE;
		stream->exit_code = esd_test_json_get_int(msg, "params.exitCode");
	} else if (g_str_equal(method, "process/closed")) {
		g_assert_true(stream->exited);
		stream->closed = TRUE;
	}
}

/* sends a request, returns its reply; notifications of @process_id go into @stream */
static JsonNode *
call(Fixture *fx, const gchar *method, const gchar *params, Stream *stream, const gchar *process_id)
{
	guint id = ++fx->next_id;
	g_autofree gchar *text =
	    g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}", id, method, params);

	esd_test_peer_send_text(fx->peer, text);
	for (;;) {
		g_autoptr(JsonNode) msg = receive(fx);
		JsonNode *reply_id = esd_test_json_get(msg, "id");
		if (reply_id != NULL) {
			g_assert_cmpint(json_node_get_int(reply_id), ==, (gint64)id);
			return g_steal_pointer(&msg);
		}
		if (stream != NULL)
			stream_take(stream, msg, process_id);
	}
}

static JsonNode *
call_result(Fixture *fx,
	    const gchar *method,
	    const gchar *params,
	    Stream *stream,
	    const gchar *process_id)
{
	g_autoptr(JsonNode) reply = call(fx, method, params, stream, process_id);
	JsonNode *result = esd_test_json_get(reply, "result");

	if (result == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("%s failed: %s", method, text);
	}
	return json_node_copy(result);
}

static gchar *
json_quote(const gchar *text)
{
	g_autoptr(JsonNode) node = json_node_init_string(json_node_alloc(), text);
	return json_to_string(node, FALSE);
}

static void
start(Fixture *fx,
      const gchar *process_id,
      const gchar *argv_json,
      const gchar *extra,
      Stream *stream)
{
	g_autofree gchar *params =
	    g_strdup_printf("{\"processId\":\"%s\",\"argv\":%s,\"cwd\":\"file:///"
			    "tmp\",\"env\":{\"PATH\":\"/usr/bin:/bin\","
			    "\"%s\":\"%s\"},\"tty\":false%s%s}",
			    process_id,
			    argv_json,
			    MARK_VAR,
			    test_mark,
			    extra != NULL ? "," : "",
			    extra != NULL ? extra : "");
	g_autoptr(JsonNode) result = call_result(fx, "process/start", params, stream, process_id);
	g_autofree gchar *expected =
	    g_strdup_printf("{\"processId\":\"%s\",\"sandboxType\":\"none\"}", process_id);

	esd_assert_json_node_eq(result, expected);
}

static void
start_sh(Fixture *fx, const gchar *process_id, const gchar *script, Stream *stream)
{
	g_autofree gchar *quoted = json_quote(script);
	g_autofree gchar *argv = g_strdup_printf("[\"/bin/sh\",\"-c\",%s]", quoted);
	start(fx, process_id, argv, NULL, stream);
}

/* receives until @stream is closed; returns the daemon's peak RSS sampled meanwhile */
static gint64
wait_closed(Fixture *fx, Stream *stream, const gchar *process_id, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	gint64 peak = 0;
	guint n = 0;

	while (!stream->closed) {
		g_autoptr(JsonNode) msg = NULL;
		if (g_get_monotonic_time() > deadline)
			g_error("%s not closed within %u ms: %" G_GUINT64_FORMAT " bytes so far",
				process_id,
				timeout_ms,
				stream->bytes);
		msg = receive(fx);
		g_assert_null(esd_test_json_get(msg, "id"));
		stream_take(stream, msg, process_id);
		if (n++ % 16 == 0)
			peak = MAX(peak, status_kb(fx->daemon_pid, "VmRSS"));
	}
	return peak;
}

/* fixture */

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_autofree gchar *session_id = NULL;
	g_autofree gchar *mark = NULL;
	const gchar *envp[] = {NULL, NULL};

	test_counter++;
	g_free(test_mark);
	test_mark = g_strdup_printf("%d-%u", getpid(), test_counter);
	mark = g_strdup_printf("%s=%s", MARK_VAR, test_mark);
	fx->variant = user_data;
	fx->next_id = 100;
	if (!fx->variant->ws) {
		g_ptr_array_add(args, (gpointer) "--listen");
		g_ptr_array_add(args, (gpointer) "stdio");
	}
	for (guint i = 0; fx->variant->args != NULL && fx->variant->args[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)fx->variant->args[i]);
	g_ptr_array_add(args, NULL);
	envp[0] = mark;
	fx->daemon = esd_test_daemon_new_full((const gchar *const *)args->pdata,
					      envp,
					      NULL,
					      fx->variant->ws);
	if (fx->variant->ws) {
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	} else {
		fx->peer = ESD_TEST_PEER(fx->daemon);
	}
	session_id = esd_test_peer_handshake(fx->peer);
	if (fx->client != NULL)
		g_object_set_data_full(G_OBJECT(fx->client),
				       "session-id",
				       g_steal_pointer(&session_id),
				       g_free);
	fx->daemon_pid = find_daemon_pid();
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (esd_test_daemon_is_running(fx->daemon)) {
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	}
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
	esd_test_assert_nothing_left(MARK_VAR, test_mark, 3000);
}

/* tests */

/*
 * A command writes @total bytes while the peer reads nothing for 3 s: the
 * daemon must stop draining the pipe instead of buffering; then a fast
 * reader gets every byte.
 */
static void
check_back_pressure(Fixture *fx, guint64 total)
{
	g_autofree gchar *size = g_strdup_printf("%" G_GUINT64_FORMAT, total);
	const gchar *head_argv[] = {"head", "-c", size, "/dev/zero", NULL};
	g_autofree gchar *argv = g_strdup_printf("[\"head\",\"-c\",\"%s\",\"/dev/zero\"]", size);
	Stream stream = {0};
	gint64 paused_peak = 0;
	gint64 reading_peak;
	gint64 start_time;
	gint64 elapsed;
	gint head_pid;

	start(fx, "flood", argv, NULL, &stream);
	head_pid = find_argv(head_argv);
	g_assert_cmpint(head_pid, >, 0);
	/* not a single main-context iteration: nothing is read from the daemon */
	for (guint i = 0; i < 30; i++) {
		g_usleep(100 * 1000);
		paused_peak = MAX(paused_peak, status_kb(fx->daemon_pid, "VmRSS"));
	}
	g_test_message("daemon VmRSS peak while the peer did not read: %" G_GINT64_FORMAT " kB",
		       paused_peak);
	/* the command is held up, not drained into the daemon's memory */
	g_assert_cmpint(kill(head_pid, 0), ==, 0);
	g_assert_cmpint(paused_peak, <, MAX_RSS_KB);

	start_time = g_get_monotonic_time();
	reading_peak = wait_closed(fx, &stream, "flood", 120000);
	elapsed = (g_get_monotonic_time() - start_time) / 1000;
	g_test_message(
	    "read %" G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT " chunks in %" G_GINT64_FORMAT
	    " ms; VmRSS peak while reading %" G_GINT64_FORMAT " kB, VmHWM %" G_GINT64_FORMAT " kB",
	    stream.bytes,
	    stream.chunks,
	    elapsed,
	    reading_peak,
	    status_kb(fx->daemon_pid, "VmHWM"));
	g_assert_cmpuint(stream.bytes, ==, total);
	g_assert_cmpint(stream.exit_code, ==, 0);
	g_assert_cmpint(reading_peak, <, MAX_RSS_KB);
	g_assert_cmpint(status_kb(fx->daemon_pid, "VmHWM"), <, MAX_RSS_KB);
}

static void
test_back_pressure(Fixture *fx, gconstpointer user_data)
{
	/* 300 MB, made unique so that find_argv() finds our head */
	check_back_pressure(fx, 300000000 + (guint64)(getpid() % 1000) * 10 + test_counter);
}

/*
 * Nobody attached: the output is dropped after retention, not buffered, so
 * the command runs at full speed and the daemon's memory stays small
 */
static void
test_detached_flood(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *size =
	    g_strdup_printf("%u", 300000000 + (guint)(getpid() % 1000) * 10 + test_counter);
	const gchar *head_argv[] = {"head", "-c", size, "/dev/zero", NULL};
	g_autofree gchar *argv = g_strdup_printf("[\"head\",\"-c\",\"%s\",\"/dev/zero\"]", size);
	g_autofree gchar *session_id = NULL;
	g_autofree gchar *request = NULL;
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(JsonNode) init = NULL;
	gint64 deadline;
	gint64 peak = 0;
	gint head_pid;
	gsize retained = 0;
	JsonArray *chunks;
	Stream stream = {0};

	session_id = g_strdup(g_object_get_data(G_OBJECT(fx->client), "session-id"));
	start(fx, "flood", argv, NULL, &stream);
	head_pid = find_argv(head_argv);
	g_assert_cmpint(head_pid, >, 0);
	esd_test_ws_client_close(fx->client);
	g_clear_object(&fx->client);
	deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	while (find_argv(head_argv) == head_pid) {
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		peak = MAX(peak, status_kb(fx->daemon_pid, "VmRSS"));
		g_usleep(50 * 1000);
	}
	g_test_message("daemon VmRSS peak while detached: %" G_GINT64_FORMAT
		       " kB, VmHWM %" G_GINT64_FORMAT " kB",
		       peak,
		       status_kb(fx->daemon_pid, "VmHWM"));
	g_assert_cmpint(peak, <, MAX_RSS_KB);
	g_assert_cmpint(status_kb(fx->daemon_pid, "VmHWM"), <, MAX_RSS_KB);

	/* resume: the newest MiB is there, the exit too */
	fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	fx->peer = ESD_TEST_PEER(fx->client);
	request =
	    g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\","
			    "\"resumeSessionId\":\"%s\"}}",
			    session_id);
	init = esd_test_peer_call(fx->peer, request);
	g_assert_cmpstr(esd_test_json_get_string(init, "result.sessionId"), ==, session_id);
	esd_test_peer_send_text(fx->peer, "{\"method\":\"initialized\"}");
	deadline = g_get_monotonic_time() + WAIT_MS * 1000;
	do {
		g_clear_pointer(&result, json_node_unref);
		result = call_result(fx,
				     "process/read",
				     "{\"processId\":\"flood\",\"afterSeq\":0,\"waitMs\":500}",
				     NULL,
				     NULL);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
	} while (!json_object_get_boolean_member(json_node_get_object(result), "closed"));
	g_assert_cmpint(esd_test_json_get_int(result, "exitCode"), ==, 0);
	chunks = json_node_get_array(esd_test_json_get(result, "chunks"));
	for (guint i = 0; i < json_array_get_length(chunks); i++)
		retained += base64_size(
		    esd_test_json_get_string(json_array_get_element(chunks, i), "chunk"));
	g_assert_cmpuint(retained, >, 0);
	g_assert_cmpuint(retained, <=, 2 * 1024 * 1024);
}

/*
 * RawWs: a WebSocket client on a plain blocking socket. Unlike libsoup, it
 * reads only when asked to, whatever else iterates the main context: a
 * peer that stalls while another one is served.
 */
typedef struct {
	GSocketConnection *connection;
	GInputStream *input;
	GOutputStream *output;
	guint next_id;
} RawWs;

static void
raw_ws_free(RawWs *ws)
{
	g_clear_object(&ws->connection);
	g_free(ws);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(RawWs, raw_ws_free)

static void
raw_ws_read_exactly(RawWs *ws, guint8 *buf, gsize len)
{
	g_autoptr(GError) error = NULL;
	gsize got = 0;

	if (!g_input_stream_read_all(ws->input, buf, len, &got, NULL, &error) || got != len)
		g_error("raw websocket read: %s", error != NULL ? error->message : "end of stream");
}

static RawWs *
raw_ws_connect(guint16 port)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *request =
	    g_strdup_printf("GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
			    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
			    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
			    "Sec-WebSocket-Version: 13\r\n\r\n",
			    port);
	g_autoptr(GString) response = g_string_new(NULL);
	RawWs *ws = g_new0(RawWs, 1);

	g_socket_client_set_timeout(client, 5);
	g_socket_client_set_enable_proxy(client, FALSE);
	ws->connection = g_socket_client_connect_to_host(client, "127.0.0.1", port, NULL, &error);
	g_assert_no_error(error);
	ws->input = g_io_stream_get_input_stream(G_IO_STREAM(ws->connection));
	ws->output = g_io_stream_get_output_stream(G_IO_STREAM(ws->connection));
	g_output_stream_write_all(ws->output, request, strlen(request), NULL, NULL, &error);
	g_assert_no_error(error);
	while (!g_str_has_suffix(response->str, "\r\n\r\n")) {
		guint8 c;
		raw_ws_read_exactly(ws, &c, 1);
		g_string_append_c(response, (gchar)c);
	}
	g_assert_true(g_str_has_prefix(response->str, "HTTP/1.1 101"));
	ws->next_id = 100;
	return ws;
}

static void
raw_ws_send(RawWs *ws, const gchar *text)
{
	g_autoptr(GBytes) frame = esd_test_ws_client_build_frame(0x1, TRUE, text, strlen(text));
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const guint8 *data = g_bytes_get_data(frame, &len);

	g_output_stream_write_all(ws->output, data, len, NULL, NULL, &error);
	g_assert_no_error(error);
}

/* the next text message; the daemon neither fragments nor masks */
static JsonNode *
raw_ws_receive(RawWs *ws)
{
	for (;;) {
		guint8 header[2];
		guint64 len;
		g_autofree gchar *payload = NULL;

		raw_ws_read_exactly(ws, header, 2);
		len = header[1] & 0x7f;
		g_assert_cmpuint(header[1] & 0x80, ==, 0);
		if (len == 126) {
			guint8 ext[2];
			raw_ws_read_exactly(ws, ext, 2);
			len = (guint64)ext[0] << 8 | ext[1];
		} else if (len == 127) {
			guint8 ext[8];
			raw_ws_read_exactly(ws, ext, 8);
			len = 0;
			for (guint i = 0; i < 8; i++)
				len = len << 8 | ext[i];
		}
		g_assert_cmpuint(len, <, 64 * 1024 * 1024);
		payload = g_malloc(len + 1);
		raw_ws_read_exactly(ws, (guint8 *)payload, len);
		payload[len] = '\0';
		/* pings are answered by nobody: the test is far shorter than 30 s */
		if ((header[0] & 0x0f) == 0x9 || (header[0] & 0x0f) == 0xa)
			continue;
		g_assert_cmpuint(header[0], ==, 0x81);
		return esd_test_json_parse(payload);
	}
}

static JsonNode *
raw_ws_call(RawWs *ws,
	    const gchar *method,
	    const gchar *params,
	    Stream *stream,
	    const gchar *process_id)
{
	guint id = ++ws->next_id;
	g_autofree gchar *text =
	    g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}", id, method, params);

	raw_ws_send(ws, text);
	for (;;) {
		g_autoptr(JsonNode) msg = raw_ws_receive(ws);
		if (esd_test_json_get(msg, "id") != NULL) {
			g_assert_cmpint(esd_test_json_get_int(msg, "id"), ==, (gint64)id);
			return g_steal_pointer(&msg);
		}
		if (stream != NULL)
			stream_take(stream, msg, process_id);
	}
}

/*
 * One peer stops reading while its command floods; another peer of the
 * same daemon is still served at once, and the daemon's memory stays small.
 */
static void
test_stalled_peer(Fixture *fx, gconstpointer user_data)
{
	guint64 total = 300000000 + (guint64)(getpid() % 1000) * 10 + test_counter;
	g_autofree gchar *size = g_strdup_printf("%" G_GUINT64_FORMAT, total);
	const gchar *head_argv[] = {"head", "-c", size, "/dev/zero", NULL};
	g_autofree gchar *start_params = g_strdup_printf(
	    "{\"processId\":\"flood\",\"argv\":[\"head\",\"-c\",\"%s\",\"/dev/zero\"],"
	    "\"cwd\":\"file:///tmp\",\"env\":{\"%s\":\"%s\"},\"tty\":false}",
	    size,
	    MARK_VAR,
	    test_mark);
	g_autoptr(RawWs) stalled = raw_ws_connect(esd_test_daemon_get_port(fx->daemon));
	g_autoptr(JsonNode) init = NULL;
	g_autoptr(JsonNode) started = NULL;
	Stream stream = {0};
	gint64 peak = 0;
	gint64 slowest = 0;
	gint head_pid;

	init = raw_ws_call(stalled, "initialize", "{\"clientName\":\"stalled\"}", NULL, NULL);
	g_assert_nonnull(esd_test_json_get(init, "result.sessionId"));
	raw_ws_send(stalled, "{\"method\":\"initialized\"}");
	started = raw_ws_call(stalled, "process/start", start_params, &stream, "flood");
	esd_assert_json_node_eq(esd_test_json_get(started, "result"),
				"{\"processId\":\"flood\",\"sandboxType\":\"none\"}");
	head_pid = find_argv(head_argv);
	g_assert_cmpint(head_pid, >, 0);

	/* the fixture's libsoup client is served while the raw one reads nothing */
	for (guint i = 0; i < 10; i++) {
		g_autofree gchar *id = g_strdup_printf("quick%u", i);
		Stream quick = {.data = g_string_new(NULL)};
		gint64 t0 = g_get_monotonic_time();

		start_sh(fx, id, "echo hi", &quick);
		wait_closed(fx, &quick, id, WAIT_MS);
		g_assert_cmpstr(quick.data->str, ==, "hi\n");
		g_string_free(quick.data, TRUE);
		slowest = MAX(slowest, g_get_monotonic_time() - t0);
		peak = MAX(peak, status_kb(fx->daemon_pid, "VmRSS"));
		g_usleep(200 * 1000);
	}
	g_test_message("slowest round trip while another peer stalled: %" G_GINT64_FORMAT
		       " ms; VmRSS peak %" G_GINT64_FORMAT " kB",
		       slowest / 1000,
		       peak);
	/* not held up behind the stalled peer; generous for a loaded machine */
	g_assert_cmpint(slowest / 1000, <, 3000);
	g_assert_cmpint(peak, <, MAX_RSS_KB);
	g_assert_cmpint(kill(head_pid, 0), ==, 0);

	/* and the stalled one still gets everything */
	while (!stream.closed) {
		g_autoptr(JsonNode) msg = raw_ws_receive(stalled);
		g_assert_null(esd_test_json_get(msg, "id"));
		stream_take(&stream, msg, "flood");
	}
	g_assert_cmpuint(stream.bytes, ==, total);
	g_assert_cmpint(stream.exit_code, ==, 0);
	g_assert_cmpint(status_kb(fx->daemon_pid, "VmHWM"), <, MAX_RSS_KB);
}

/*
 * A peer stalls, then goes away without reading: the paused command must
 * be drained again (nobody is attached), run to its end, and stay readable
 * for a resumed session.
 */
static void
test_stalled_then_gone(Fixture *fx, gconstpointer user_data)
{
	guint64 total = 300000000 + (guint64)(getpid() % 1000) * 10 + test_counter;
	g_autofree gchar *size = g_strdup_printf("%" G_GUINT64_FORMAT, total);
	const gchar *head_argv[] = {"head", "-c", size, "/dev/zero", NULL};
	g_autofree gchar *start_params = g_strdup_printf(
	    "{\"processId\":\"flood\",\"argv\":[\"head\",\"-c\",\"%s\",\"/dev/zero\"],"
	    "\"cwd\":\"file:///tmp\",\"env\":{\"%s\":\"%s\"},\"tty\":false}",
	    size,
	    MARK_VAR,
	    test_mark);
	g_autoptr(RawWs) stalled = raw_ws_connect(esd_test_daemon_get_port(fx->daemon));
	g_autoptr(JsonNode) init = NULL;
	g_autoptr(JsonNode) started = NULL;
	g_autoptr(JsonNode) resumed = NULL;
	g_autoptr(JsonNode) result = NULL;
	g_autofree gchar *session_id = NULL;
	g_autofree gchar *request = NULL;
	gint64 deadline;
	gint head_pid;

	init = raw_ws_call(stalled, "initialize", "{\"clientName\":\"stalled\"}", NULL, NULL);
	session_id = g_strdup(esd_test_json_get_string(init, "result.sessionId"));
	raw_ws_send(stalled, "{\"method\":\"initialized\"}");
	started = raw_ws_call(stalled, "process/start", start_params, NULL, NULL);
	g_assert_nonnull(esd_test_json_get(started, "result"));
	head_pid = find_argv(head_argv);
	g_assert_cmpint(head_pid, >, 0);
	g_usleep(1000 * 1000);
	g_assert_cmpint(kill(head_pid, 0), ==, 0);
	g_clear_pointer(&stalled, raw_ws_free);

	/* detached now: nothing holds the command back */
	deadline = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
	while (find_argv(head_argv) == head_pid) {
		if (g_get_monotonic_time() > deadline)
			g_error("the command stays paused after its peer went away");
		esd_test_iterate(50);
	}
	g_assert_cmpint(status_kb(fx->daemon_pid, "VmHWM"), <, MAX_RSS_KB);

	g_clear_object(&fx->client);
	fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	fx->peer = ESD_TEST_PEER(fx->client);
	request = g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":"
				  "\"t\",\"resumeSessionId\":\"%s\"}}",
				  session_id);
	deadline = g_get_monotonic_time() + WAIT_MS * 1000;
	do {
		g_clear_pointer(&resumed, json_node_unref);
		resumed = esd_test_peer_call(fx->peer, request);
		if (esd_test_json_get(resumed, "result") != NULL)
			break;
		/* the daemon may not have seen the end of the raw connection yet */
		esd_test_peer_assert_reply_error(resumed, "1", -32010, "*");
		g_clear_object(&fx->client);
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
	} while (TRUE);
	esd_test_peer_send_text(fx->peer, "{\"method\":\"initialized\"}");
	deadline = g_get_monotonic_time() + WAIT_MS * 1000;
	do {
		g_clear_pointer(&result, json_node_unref);
		result = call_result(fx,
				     "process/read",
				     "{\"processId\":\"flood\",\"afterSeq\":0,\"waitMs\":500}",
				     NULL,
				     NULL);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
	} while (!json_object_get_boolean_member(json_node_get_object(result), "closed"));
	g_assert_cmpint(esd_test_json_get_int(result, "exitCode"), ==, 0);
}

/* the expected output of `seq 1 @n` */
static GString *
seq_output(guint n)
{
	GString *out = g_string_new(NULL);
	for (guint i = 1; i <= n; i++)
		g_string_append_printf(out, "%u\n", i);
	return out;
}

/*
 * --max-retained-output: every byte is sent as notifications, but
 * process/read keeps only the newest ones, a contiguous tail of at most
 * the cap, or the last chunk alone if it is bigger
 */
static void
check_retention(Fixture *fx, guint lines, gsize cap)
{
	g_autofree gchar *script = g_strdup_printf("seq 1 %u", lines);
	g_autoptr(GString) expected = seq_output(lines);
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(GString) retained = g_string_new(NULL);
	Stream stream = {.data = g_string_new(NULL),
			 .sizes = g_array_new(FALSE, FALSE, sizeof(guint64))};
	JsonArray *chunks;
	guint64 first_seq = 0;
	gsize largest = 0;

	start_sh(fx, "seq", script, &stream);
	wait_closed(fx, &stream, "seq", WAIT_MS * 2);
	g_assert_cmpstr(stream.data->str, ==, expected->str);
	g_assert_cmpint(stream.exit_code, ==, 0);
	g_assert_cmpuint(stream.chunks, >, 1);

	result =
	    call_result(fx, "process/read", "{\"processId\":\"seq\",\"afterSeq\":0}", NULL, NULL);
	chunks = json_node_get_array(esd_test_json_get(result, "chunks"));
	g_assert_cmpuint(json_array_get_length(chunks), >, 0);
	for (guint i = 0; i < json_array_get_length(chunks); i++) {
		JsonNode *chunk = json_array_get_element(chunks, i);
		guint64 seq = (guint64)esd_test_json_get_int(chunk, "seq");
		gsize len = 0;
		g_autofree guchar *data =
		    g_base64_decode(esd_test_json_get_string(chunk, "chunk"), &len);

		if (i == 0)
			first_seq = seq;
		/* contiguous */
		g_assert_cmpuint(seq, ==, first_seq + i);
		largest = MAX(largest, len);
		g_string_append_len(retained, (const gchar *)data, (gssize)len);
	}
	g_test_message("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
		       " bytes retained in %u chunks from seq %" G_GUINT64_FORMAT,
		       retained->len,
		       expected->len,
		       json_array_get_length(chunks),
		       first_seq);
	/* the newest: up to the last output chunk */
	g_assert_cmpuint(first_seq + json_array_get_length(chunks) - 1, ==, stream.chunks);
	g_assert_cmpuint(retained->len, <, expected->len);
	g_assert_true(g_str_has_suffix(expected->str, retained->str));
	g_assert_true(retained->len <= cap || json_array_get_length(chunks) == 1);
	g_assert_cmpuint(retained->len, <=, cap + largest);
	/* and no less: one more older chunk would have exceeded the cap */
	g_assert_cmpuint(first_seq, >, 1);
	g_assert_cmpuint(retained->len + g_array_index(stream.sizes, guint64, first_seq - 2),
			 >,
			 cap);
	g_assert_cmpint(esd_test_json_get_int(result, "nextSeq"), ==, (gint64)stream.last_seq + 1);
	g_string_free(stream.data, TRUE);
	g_array_unref(stream.sizes);
}

static void
test_retention_cap(Fixture *fx, gconstpointer user_data)
{
	check_retention(fx, 200000, 65536);
}

static void
test_retention_default(Fixture *fx, gconstpointer user_data)
{
	check_retention(fx, 450000, 1024 * 1024);
}

/* lots of output on both streams, then an immediate exit: nothing is lost or late */
static void
test_burst_then_exit(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GString) expected = seq_output(100000);
	Stream stream = {.data = g_string_new(NULL)};
	g_autoptr(JsonNode) result = NULL;

	for (guint round = 0; round < 5; round++) {
		g_autofree gchar *id = g_strdup_printf("burst%u", round);
		Stream s = {.data = g_string_new(NULL)};

		start_sh(fx, id, "seq 1 100000; seq 1 100000 >&2; exit 4", &s);
		wait_closed(fx, &s, id, WAIT_MS * 2);
		g_assert_cmpint(s.exit_code, ==, 4);
		/* both streams, interleaved by chunk */
		g_assert_cmpuint(s.data->len, ==, 2 * expected->len);
		g_string_free(s.data, TRUE);
	}
	start_sh(fx, "out", "seq 1 100000; exit 3", &stream);
	wait_closed(fx, &stream, "out", WAIT_MS * 2);
	g_assert_cmpstr(stream.data->str, ==, expected->str);
	g_assert_cmpint(stream.exit_code, ==, 3);
	g_string_free(stream.data, TRUE);
	result =
	    call_result(fx, "process/read", "{\"processId\":\"out\",\"afterSeq\":0}", NULL, NULL);
	g_assert_cmpint(esd_test_json_get_int(result, "exitCode"), ==, 3);
}

/* a few MiB through stdin and back: writes larger than the pipe, queued in order */
static void
test_stdin_large(Fixture *fx, gconstpointer user_data)
{
	const gsize block = 512 * 1024;
	g_autoptr(GString) expected = g_string_new(NULL);
	Stream stream = {.data = g_string_new(NULL)};
	guint n_blocks = 4;

	start(fx, "cat", "[\"cat\"]", "\"pipeStdin\":true", &stream);
	for (guint i = 0; i < n_blocks; i++) {
		g_autofree gchar *data = g_malloc(block);
		g_autofree gchar *chunk = NULL;
		g_autofree gchar *params = NULL;
		g_autoptr(JsonNode) result = NULL;

		for (gsize j = 0; j < block; j++)
			data[j] = (gchar)('a' + (i * 7 + j) % 26);
		g_string_append_len(expected, data, (gssize)block);
		chunk = g_base64_encode((const guchar *)data, block);
		params =
		    g_strdup_printf("{\"processId\":\"cat\",\"chunk\":\"%s\",\"writeId\":\"b%u\"}",
				    chunk,
				    i);
		result = call_result(fx, "process/write", params, &stream, "cat");
		esd_assert_json_node_eq(result, "{\"status\":\"accepted\"}");
	}
	while (stream.data->len < expected->len) {
		g_autoptr(JsonNode) msg = receive(fx);
		stream_take(&stream, msg, "cat");
	}
	g_assert_cmpuint(stream.data->len, ==, expected->len);
	g_assert_true(memcmp(stream.data->str, expected->str, expected->len) == 0);
	{
		g_autoptr(JsonNode) result =
		    call_result(fx, "process/terminate", "{\"processId\":\"cat\"}", &stream, "cat");
		esd_assert_json_node_eq(result, "{\"running\":true}");
	}
	wait_closed(fx, &stream, "cat", WAIT_MS);
	g_assert_cmpint(stream.exit_code, ==, 137);
	g_string_free(stream.data, TRUE);
}

static const gchar *const no_args[] = {NULL};
static const gchar *const cap_args[] = {"--max-retained-output", "65536", NULL};

static GPtrArray *variants = NULL;

typedef void (*FixtureFunc)(Fixture *fx, gconstpointer user_data);

static void
add(const gchar *name, const gchar *const *args, FixtureFunc func)
{
	for (guint i = 0; i < 2; i++) {
		Variant *variant = g_new0(Variant, 1);
		g_autofree gchar *path = NULL;

		variant->ws = i == 0;
		variant->args = args;
		g_ptr_array_add(variants, variant);
		path = g_strdup_printf(STREAM_TEST "%s/%s", variant->ws ? "ws" : "stdio", name);
		g_test_add(path, Fixture, variant, fixture_setup, func, fixture_teardown);
	}
}

int
main(int argc, char **argv)
{
	gint rc;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	variants = g_ptr_array_new_with_free_func(g_free);

	add("back-pressure", no_args, test_back_pressure);
	add("retention-cap", cap_args, test_retention_cap);
	add("retention-default", no_args, test_retention_default);
	add("burst-then-exit", no_args, test_burst_then_exit);
	add("stdin-large", no_args, test_stdin_large);
	{
		Variant *variant = g_new0(Variant, 1);
		variant->ws = TRUE;
		variant->args = no_args;
		g_ptr_array_add(variants, variant);
		g_test_add(STREAM_TEST "ws/stalled-peer",
			   Fixture,
			   variant,
			   fixture_setup,
			   test_stalled_peer,
			   fixture_teardown);
		g_test_add(STREAM_TEST "ws/stalled-then-gone",
			   Fixture,
			   variant,
			   fixture_setup,
			   test_stalled_then_gone,
			   fixture_teardown);
		g_test_add(STREAM_TEST "ws/detached-flood",
			   Fixture,
			   variant,
			   fixture_setup,
			   test_detached_flood,
			   fixture_teardown);
	}

	rc = g_test_run();
	g_ptr_array_unref(variants);
	g_free(test_mark);
	return rc;
}
