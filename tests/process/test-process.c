/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esd-test-leftovers.h"
#include "esd-test-utils.h"

/*
 * process/start, read, write, signal and terminate, and the process/output,
 * exited and closed notifications, against the real daemon over WebSocket
 * and stdio (PROTOCOL.md §5.2, §8; transcripts.md A, B.2, B.4, B.5).
 *
 * Every test starts its own daemon. A marker variable in the environment of
 * the daemon (and so of its supervisors) and of every long-running command
 * lets the teardown check that nothing was left running.
 */

#define PROCESS_TEST "/execserverd/process/"
#define MARK_VAR     "ESD_PTEST_MARK"
#define WAIT_MS	     5000

/* the marker of the running test, "<test pid>-<n>" */
static gchar *test_mark = NULL;
static guint test_counter = 0;

/* waiting and /proc */

/* iterates the default main context for @ms, so that messages keep arriving */
static void
wait_ms(guint ms)
{
	gint64 until = g_get_monotonic_time() + (gint64)ms * 1000;
	while (g_get_monotonic_time() < until)
		esd_test_iterate(MIN(ms, 20));
}

/* JSON text */

static gchar *
json_quote(const gchar *text)
{
	g_autoptr(JsonNode) node = json_node_init_string(json_node_alloc(), text);
	return json_to_string(node, FALSE);
}

static gchar *
sh_argv(const gchar *script)
{
	g_autofree gchar *quoted = json_quote(script);
	return g_strdup_printf("[\"/bin/sh\",\"-c\",%s]", quoted);
}

/* a JSON object with @members plus the marker */
static gchar *
env_with_mark(const gchar *members)
{
	return g_strdup_printf("{%s%s\"%s\":\"%s\"}",
			       members,
			       members[0] != '\0' ? "," : "",
			       MARK_VAR,
			       test_mark);
}

static gchar *
b64(const gchar *text)
{
	return g_base64_encode((const guchar *)text, strlen(text));
}

static void
gstring_free(gpointer data)
{
	g_string_free(data, TRUE);
}

/* Conn: one protocol connection, every received message logged in wire order */

typedef struct {
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	GPtrArray *log;	     /* JsonNode, every message received */
	GArray *times;	     /* gint64 monotonic time each message arrived */
	GHashTable *replies; /* request id → JsonNode in log */
	GHashTable *outputs; /* processId → GString, decoded output of all streams */
	GHashTable *closed;  /* processIds whose process/closed arrived */
	guint next_id;
} Conn;

static Conn *
conn_new(EsdTestPeer *peer, EsdTestWsClient *client)
{
	Conn *conn = g_new0(Conn, 1);

	conn->peer = g_object_ref(peer);
	conn->client = client != NULL ? g_object_ref(client) : NULL;
	conn->log = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	conn->times = g_array_new(FALSE, FALSE, sizeof(gint64));
	conn->replies = g_hash_table_new(g_direct_hash, g_direct_equal);
	conn->outputs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, gstring_free);
	conn->closed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	conn->next_id = 100;
	return conn;
}

static void
conn_free(Conn *conn)
{
	g_hash_table_unref(conn->closed);
	g_hash_table_unref(conn->outputs);
	g_hash_table_unref(conn->replies);
	g_array_unref(conn->times);
	g_ptr_array_unref(conn->log);
	g_clear_object(&conn->client);
	g_object_unref(conn->peer);
	g_free(conn);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Conn, conn_free)

/* what a wait is for, printed when a helper gives up on a timeout */
static Conn *waiting_conn = NULL;	/* with waiting_for: the output of that process */
static const gchar *waiting_for = NULL; /* a processId */
static gchar waiting_request[256];	/* or a reply */

/* a helper failing on a timeout says only that: add what the test was waiting for */
static void
error_log_cb(const gchar *log_domain,
	     GLogLevelFlags log_level,
	     const gchar *message,
	     gpointer user_data)
{
	if (waiting_request[0] != '\0')
		g_printerr("while waiting for %s\n", waiting_request);
	if (waiting_conn != NULL && waiting_for != NULL) {
		GString *out = g_hash_table_lookup(waiting_conn->outputs, waiting_for);
		g_autofree gchar *escaped =
		    out != NULL ? g_strescape(out->str, NULL) : g_strdup("");
		g_printerr("while waiting for process %s; its output so far: \"%s\"\n",
			   waiting_for,
			   escaped);
	}
	g_log_default_handler(log_domain, log_level, message, user_data);
}

static gboolean
conn_is_open(Conn *conn)
{
	return conn->client == NULL || esd_test_ws_client_is_open(conn->client);
}

/* standard alphabet, padded; GRegex gives up on long inputs */
static void
assert_base64(const gchar *text)
{
	gsize len = strlen(text);
	gsize pad = 0;

	if (len % 4 != 0)
		g_error("base64 of a length not a multiple of 4: %.200s", text);
	while (pad < 2 && pad < len && text[len - 1 - pad] == '=')
		pad++;
	for (gsize i = 0; i < len - pad; i++) {
		if (!g_ascii_isalnum(text[i]) && text[i] != '+' && text[i] != '/')
			g_error("not standard padded base64 at %" G_GSIZE_FORMAT ": %.200s",
				i,
				text);
	}
}

/* indexes a notification for the per-process lookups */
static void
conn_index_notification(Conn *conn, JsonNode *msg)
{
	const gchar *method = esd_test_json_get_string(msg, "method");
	JsonNode *pid_node = esd_test_json_get(msg, "params.processId");
	const gchar *pid;

	if (!g_str_has_prefix(method, "process/"))
		return;
	g_assert_nonnull(pid_node);
	pid = esd_test_json_get_string(msg, "params.processId");
	if (g_str_equal(method, "process/output")) {
		const gchar *chunk = esd_test_json_get_string(msg, "params.chunk");
		GString *out = g_hash_table_lookup(conn->outputs, pid);
		g_autofree guchar *data = NULL;
		gsize len = 0;

		assert_base64(chunk);
		data = g_base64_decode(chunk, &len);
		if (out == NULL) {
			out = g_string_new(NULL);
			g_hash_table_insert(conn->outputs, g_strdup(pid), out);
		}
		g_string_append_len(out, (const gchar *)data, (gssize)len);
	} else if (g_str_equal(method, "process/closed")) {
		g_hash_table_add(conn->closed, g_strdup(pid));
	}
}

/* the next message, which must come within @timeout_ms; borrowed from the log */
static JsonNode *
conn_receive(Conn *conn, guint timeout_ms)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(conn->peer, timeout_ms);
	g_autofree gchar *text = NULL;
	JsonNode *msg;
	JsonObject *obj;
	gint64 now = g_get_monotonic_time();
	gsize len = 0;
	const gchar *data;

	if (bytes == NULL)
		g_error("the daemon closed the connection");
	data = g_bytes_get_data(bytes, &len);
	g_assert_true(g_utf8_validate_len(data, len, NULL));
	text = g_strndup(data, len);
	msg = esd_test_json_parse(text);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(msg));
	obj = json_node_get_object(msg);
	g_assert_false(json_object_has_member(obj, "jsonrpc"));
	g_ptr_array_add(conn->log, msg);
	g_array_append_val(conn->times, now);
	if (json_object_has_member(obj, "id")) {
		JsonNode *id = json_object_get_member(obj, "id");
		if (JSON_NODE_HOLDS_VALUE(id) && json_node_get_value_type(id) == G_TYPE_INT64)
			g_hash_table_insert(conn->replies,
					    GUINT_TO_POINTER((guint)json_node_get_int(id)),
					    msg);
	} else {
		conn_index_notification(conn, msg);
	}
	return msg;
}

static guint
conn_request(Conn *conn, const gchar *method, const gchar *params)
{
	guint id = ++conn->next_id;
	g_autofree gchar *text = NULL;

	if (params != NULL && strlen(params) > 150) {
		g_autofree gchar *head = g_utf8_substring(params, 0, 120);
		g_test_message("request %u: %s %s...", id, method, head);
	} else {
		g_test_message("request %u: %s %s", id, method, params != NULL ? params : "");
	}

	if (params != NULL)
		text = g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}",
				       id,
				       method,
				       params);
	else
		text = g_strdup_printf("{\"id\":%u,\"method\":\"%s\"}", id, method);
	esd_test_peer_send_text(conn->peer, text);
	return id;
}

static JsonNode *
conn_wait_reply(Conn *conn, guint id, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	JsonNode *reply;

	g_snprintf(waiting_request, sizeof(waiting_request), "the reply to request %u", id);

	while ((reply = g_hash_table_lookup(conn->replies, GUINT_TO_POINTER(id))) == NULL) {
		gint64 left = deadline - g_get_monotonic_time();
		if (left <= 0)
			g_error("no reply to request %u within %u ms", id, timeout_ms);
		conn_receive(conn, (guint)(left / 1000) + 1);
	}
	waiting_request[0] = '\0';
	return reply;
}

static gint
conn_log_index(Conn *conn, JsonNode *msg)
{
	guint index = 0;
	g_assert_true(g_ptr_array_find(conn->log, msg, &index));
	return (gint)index;
}

static JsonNode *
conn_call(Conn *conn, const gchar *method, const gchar *params)
{
	return conn_wait_reply(conn, conn_request(conn, method, params), WAIT_MS);
}

/* the result member of a successful reply */
static JsonNode *
conn_call_result(Conn *conn, const gchar *method, const gchar *params)
{
	JsonNode *reply = conn_call(conn, method, params);
	JsonNode *result = esd_test_json_get(reply, "result");

	if (result == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("%s %s failed: %s", method, params, text);
	}
	return result;
}

static void
conn_assert_call(Conn *conn, const gchar *method, const gchar *params, const gchar *expected_result)
{
	guint id = conn_request(conn, method, params);
	JsonNode *reply = conn_wait_reply(conn, id, WAIT_MS);
	g_autofree gchar *expected =
	    g_strdup_printf("{\"id\":%u,\"result\":%s}", id, expected_result);

	esd_assert_json_node_eq(reply, expected);
}

/* exactly {"id", "error": {"code", "message"[, "data": {"kind"}]}} */
static void
assert_error_reply(JsonNode *reply, guint id, gint64 code, const gchar *pattern, const gchar *kind)
{
	g_autofree gchar *text = esd_test_json_to_string(reply);
	JsonNode *error = esd_test_json_get(reply, "error");
	JsonNode *message = esd_test_json_get(reply, "error.message");
	JsonNode *code_node = esd_test_json_get(reply, "error.code");

	if (error == NULL || !JSON_NODE_HOLDS_OBJECT(error) ||
	    json_object_get_size(json_node_get_object(reply)) != 2 ||
	    esd_test_json_get_int(reply, "id") != (gint64)id)
		g_error("expected an error reply to request %u, got %s", id, text);
	if (json_object_get_size(json_node_get_object(error)) != (kind != NULL ? 3u : 2u))
		g_error("expected error members code, message%s in %s",
			kind != NULL ? ", data" : "",
			text);
	if (code_node == NULL || !JSON_NODE_HOLDS_VALUE(code_node) ||
	    json_node_get_value_type(code_node) != G_TYPE_INT64 ||
	    json_node_get_int(code_node) != code)
		g_error("expected error code %" G_GINT64_FORMAT " in %s", code, text);
	if (message == NULL || !JSON_NODE_HOLDS_VALUE(message) ||
	    json_node_get_value_type(message) != G_TYPE_STRING ||
	    !g_pattern_match_simple(pattern, json_node_get_string(message)))
		g_error("error message mismatch, expected \"%s\" in %s", pattern, text);
	if (kind != NULL) {
		g_autofree gchar *expected = g_strdup_printf("{\"kind\":\"%s\"}", kind);
		esd_assert_json_node_eq(esd_test_json_get(reply, "error.data"), expected);
	}
}

static void
conn_assert_error(Conn *conn,
		  const gchar *method,
		  const gchar *params,
		  gint64 code,
		  const gchar *pattern,
		  const gchar *kind)
{
	guint id = conn_request(conn, method, params);
	assert_error_reply(conn_wait_reply(conn, id, WAIT_MS), id, code, pattern, kind);
}

/* everything sent before now has been received */
static void
conn_sync(Conn *conn)
{
	conn_assert_call(conn, "environment/status", NULL, "{\"status\":\"ready\"}");
}

static gboolean
is_event_of(JsonNode *msg, const gchar *process_id)
{
	JsonNode *method = esd_test_json_get(msg, "method");
	JsonNode *pid = esd_test_json_get(msg, "params.processId");

	return method != NULL && esd_test_json_get(msg, "id") == NULL && pid != NULL &&
	       g_str_has_prefix(json_node_get_string(method), "process/") &&
	       g_strcmp0(json_node_get_string(pid), process_id) == 0;
}

/* (transfer container): the notifications of @process_id, in wire order */
static GPtrArray *
conn_events(Conn *conn, const gchar *process_id)
{
	GPtrArray *events = g_ptr_array_new();
	for (guint i = 0; i < conn->log->len; i++) {
		JsonNode *msg = g_ptr_array_index(conn->log, i);
		if (is_event_of(msg, process_id))
			g_ptr_array_add(events, msg);
	}
	return events;
}

static const gchar *
conn_output(Conn *conn, const gchar *process_id)
{
	GString *out = g_hash_table_lookup(conn->outputs, process_id);
	return out != NULL ? out->str : "";
}

static GPtrArray *
conn_wait_closed(Conn *conn, const gchar *process_id, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	waiting_conn = conn;
	waiting_for = process_id;
	while (!g_hash_table_contains(conn->closed, process_id)) {
		gint64 left = deadline - g_get_monotonic_time();
		if (left <= 0)
			g_error("no process/closed for %s within %u ms; output so far: %s",
				process_id,
				timeout_ms,
				conn_output(conn, process_id));
		conn_receive(conn, (guint)(left / 1000) + 1);
	}
	waiting_conn = NULL;
	return conn_events(conn, process_id);
}

/* waits until the output of @process_id holds @needle after byte @from; returns where it ends */
static gsize
conn_wait_output(Conn *conn,
		 const gchar *process_id,
		 gsize from,
		 const gchar *needle,
		 guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	{
		g_autofree gchar *escaped = g_strescape(needle, NULL);
		g_test_message("waiting for \"%s\" from %s", escaped, process_id);
	}
	waiting_conn = conn;
	waiting_for = process_id;
	for (;;) {
		GString *out = g_hash_table_lookup(conn->outputs, process_id);
		gint64 left;
		if (out != NULL && out->len >= from) {
			const gchar *hit =
			    memmem(out->str + from, out->len - from, needle, strlen(needle));
			if (hit != NULL) {
				waiting_conn = NULL;
				return (gsize)(hit - out->str) + strlen(needle);
			}
		}
		left = deadline - g_get_monotonic_time();
		if (left <= 0) {
			g_autofree gchar *escaped =
			    g_strescape(conn_output(conn, process_id), NULL);
			g_error("output of %s never showed \"%s\" within %u ms; it is \"%s\"",
				process_id,
				needle,
				timeout_ms,
				escaped);
		}
		conn_receive(conn, (guint)(left / 1000) + 1);
	}
}

/* event checks */

static gchar *
dump_events(GPtrArray *events)
{
	GString *text = g_string_new(NULL);
	for (guint i = 0; i < events->len; i++) {
		g_autofree gchar *line = esd_test_json_to_string(g_ptr_array_index(events, i));
		g_string_append_printf(text, "\n  %s", line);
	}
	return g_string_free(text, FALSE);
}

static gsize
chunk_len(JsonNode *chunk_node)
{
	gsize len = 0;
	g_free(g_base64_decode(json_node_get_string(chunk_node), &len));
	return len;
}

/* the decoded output of @stream in @events */
static gchar *
events_stream(GPtrArray *events, const gchar *stream)
{
	GString *out = g_string_new(NULL);
	for (guint i = 0; i < events->len; i++) {
		JsonNode *ev = g_ptr_array_index(events, i);
		g_autofree guchar *data = NULL;
		gsize len = 0;
		if (g_strcmp0(esd_test_json_get_string(ev, "method"), "process/output") != 0 ||
		    g_strcmp0(esd_test_json_get_string(ev, "params.stream"), stream) != 0)
			continue;
		data = g_base64_decode(esd_test_json_get_string(ev, "params.chunk"), &len);
		g_string_append_len(out, (const gchar *)data, (gssize)len);
	}
	return g_string_free(out, FALSE);
}

static guint
events_count(GPtrArray *events, const gchar *method)
{
	guint n = 0;
	for (guint i = 0; i < events->len; i++) {
		if (g_strcmp0(esd_test_json_get_string(g_ptr_array_index(events, i), "method"),
			      method) == 0)
			n++;
	}
	return n;
}

/*
 * PROTOCOL.md §8.2 on the wire order: seq 1, 2, 3... across all events;
 * output only before the exit; exactly one exit (with @exit_code unless it
 * is G_MININT), then process/closed, last; every member as the reference has it
 */
static void
assert_event_sequence_from(GPtrArray *events, gint64 first_seq, gint exit_code)
{
	g_autofree gchar *dump = dump_events(events);
	gboolean exited = FALSE;
	gboolean closed = FALSE;

	/* 0: the first event seen, when earlier ones went to another connection */
	if (first_seq == 0 && events->len > 0)
		first_seq = esd_test_json_get_int(g_ptr_array_index(events, 0), "params.seq");

	for (guint i = 0; i < events->len; i++) {
		JsonNode *ev = g_ptr_array_index(events, i);
		const gchar *method = esd_test_json_get_string(ev, "method");
		JsonObject *params = json_node_get_object(esd_test_json_get(ev, "params"));

		if (closed)
			g_error("event after process/closed:%s", dump);
		if (json_object_get_size(json_node_get_object(ev)) != 2)
			g_error("a notification is {method, params}:%s", dump);
		if (esd_test_json_get_int(ev, "params.seq") != first_seq + (gint64)i)
			g_error("event %u does not have seq %" G_GINT64_FORMAT ":%s",
				i,
				first_seq + (gint64)i,
				dump);
		if (g_str_equal(method, "process/output")) {
			const gchar *stream = esd_test_json_get_string(ev, "params.stream");
			if (exited)
				g_error("output after process/exited:%s", dump);
			if (json_object_get_size(params) != 4 ||
			    !(g_str_equal(stream, "stdout") || g_str_equal(stream, "stderr") ||
			      g_str_equal(stream, "pty")))
				g_error("malformed process/output:%s", dump);
			assert_base64(esd_test_json_get_string(ev, "params.chunk"));
			if (chunk_len(esd_test_json_get(ev, "params.chunk")) == 0)
				g_error("empty output chunk:%s", dump);
		} else if (g_str_equal(method, "process/exited")) {
			if (exited)
				g_error("two process/exited:%s", dump);
			exited = TRUE;
			if (json_object_get_size(params) != 4 ||
			    esd_test_json_get(ev, "params.sandboxDenied") == NULL ||
			    json_object_get_boolean_member(params, "sandboxDenied") ||
			    (exit_code != G_MININT &&
			     esd_test_json_get_int(ev, "params.exitCode") != exit_code))
				g_error("expected process/exited with exitCode %d, sandboxDenied "
					"false:%s",
					exit_code,
					dump);
		} else if (g_str_equal(method, "process/closed")) {
			if (!exited)
				g_error("process/closed before process/exited:%s", dump);
			if (json_object_get_size(params) != 2)
				g_error("malformed process/closed:%s", dump);
			closed = TRUE;
		} else {
			g_error("unknown process notification:%s", dump);
		}
	}
	if (!closed)
		g_error("no process/closed:%s", dump);
}

static void
assert_event_sequence(GPtrArray *events, gint exit_code)
{
	assert_event_sequence_from(events, 1, exit_code);
}

/*
 * The process/read result PROTOCOL.md §8.3 asks for, for a closed process
 * whose every event is in @events: chunks after @after_seq, at least one,
 * never split, while the total stays within @max_bytes
 */
static gchar *
expected_read(GPtrArray *events, guint64 after_seq, gboolean has_max, guint64 max_bytes)
{
	g_autoptr(GString) chunks = g_string_new("[");
	guint64 total = 0;
	guint64 last = 0;
	guint64 next_seq = 1;
	gboolean stop = FALSE;
	gint64 exit_code = 0;
	gboolean exited = FALSE;
	gboolean closed = FALSE;

	for (guint i = 0; i < events->len; i++) {
		JsonNode *ev = g_ptr_array_index(events, i);
		const gchar *method = esd_test_json_get_string(ev, "method");
		guint64 seq = (guint64)esd_test_json_get_int(ev, "params.seq");

		next_seq = seq + 1;
		if (g_str_equal(method, "process/exited")) {
			exited = TRUE;
			exit_code = esd_test_json_get_int(ev, "params.exitCode");
		} else if (g_str_equal(method, "process/closed")) {
			closed = TRUE;
		} else if (seq > after_seq && !stop) {
			gsize len = chunk_len(esd_test_json_get(ev, "params.chunk"));
			if (has_max && last != 0 && total + len > max_bytes) {
				stop = TRUE;
				continue;
			}
			g_string_append_printf(chunks,
					       "%s{\"seq\":%" G_GUINT64_FORMAT
					       ",\"stream\":\"%s\",\"chunk\":\"%s\"}",
					       last != 0 ? "," : "",
					       seq,
					       esd_test_json_get_string(ev, "params.stream"),
					       esd_test_json_get_string(ev, "params.chunk"));
			total += len;
			last = seq;
		}
	}
	g_string_append_c(chunks, ']');
	g_assert_true(exited && closed);
	return g_strdup_printf("{\"chunks\":%s,\"nextSeq\":%" G_GUINT64_FORMAT ",\"exited\":true,"
			       "\"exitCode\":%" G_GINT64_FORMAT
			       ",\"closed\":true,\"failure\":null,\"sandboxDenied\":false}",
			       chunks->str,
			       has_max && last != 0 ? last + 1 : next_seq,
			       exit_code);
}

/* starting processes */

typedef struct {
	const gchar *env; /* a JSON object; NULL: PATH and the marker */
	const gchar *cwd; /* NULL: file:///tmp */
	gboolean tty;
	const gchar *extra; /* more members, e.g. "\"pipeStdin\":true" */
} StartOptions;

static gchar *
start_params(const gchar *process_id, const gchar *argv_json, const StartOptions *opts)
{
	StartOptions none = {0};
	g_autofree gchar *quoted = json_quote(process_id);
	g_autofree gchar *default_env = env_with_mark("\"PATH\":\"/usr/bin:/bin\"");

	if (opts == NULL)
		opts = &none;
	return g_strdup_printf("{\"processId\":%s,\"argv\":%s,\"cwd\":\"%s\",\"env\":%s,"
			       "\"tty\":%s%s%s}",
			       quoted,
			       argv_json,
			       opts->cwd != NULL ? opts->cwd : "file:///tmp",
			       opts->env != NULL ? opts->env : default_env,
			       opts->tty ? "true" : "false",
			       opts->extra != NULL ? "," : "",
			       opts->extra != NULL ? opts->extra : "");
}

static void
conn_start_ok(Conn *conn, const gchar *process_id, const gchar *argv_json, const StartOptions *opts)
{
	g_autofree gchar *params = start_params(process_id, argv_json, opts);
	g_autofree gchar *quoted = json_quote(process_id);
	g_autofree gchar *expected =
	    g_strdup_printf("{\"processId\":%s,\"sandboxType\":\"none\"}", quoted);

	conn_assert_call(conn, "process/start", params, expected);
}

/* starts, waits for the close, checks the events; returns the events */
static GPtrArray *
conn_run(Conn *conn,
	 const gchar *process_id,
	 const gchar *argv_json,
	 const StartOptions *opts,
	 gint exit_code)
{
	GPtrArray *events;

	conn_start_ok(conn, process_id, argv_json, opts);
	events = conn_wait_closed(conn, process_id, WAIT_MS);
	assert_event_sequence(events, exit_code);
	return events;
}

static gchar *
conn_run_output(Conn *conn,
		const gchar *process_id,
		const gchar *argv_json,
		const StartOptions *opts,
		gint exit_code)
{
	g_autoptr(GPtrArray) events = conn_run(conn, process_id, argv_json, opts, exit_code);
	return g_strdup(conn_output(conn, process_id));
}

static gchar *
read_params(const gchar *process_id, guint64 after_seq, gint64 max_bytes, guint64 wait_ms)
{
	g_autofree gchar *max = max_bytes >= 0
				    ? g_strdup_printf(",\"maxBytes\":%" G_GINT64_FORMAT, max_bytes)
				    : g_strdup("");
	return g_strdup_printf("{\"processId\":\"%s\",\"afterSeq\":%" G_GUINT64_FORMAT
			       "%s,\"waitMs\":%" G_GUINT64_FORMAT "}",
			       process_id,
			       after_seq,
			       max,
			       wait_ms);
}

static void
conn_write(Conn *conn,
	   const gchar *process_id,
	   const gchar *write_id,
	   const gchar *text,
	   const gchar *status)
{
	g_autofree gchar *chunk = b64(text);
	g_autofree gchar *params =
	    g_strdup_printf("{\"processId\":\"%s\",\"chunk\":\"%s\",\"writeId\":\"%s\"}",
			    process_id,
			    chunk,
			    write_id);
	g_autofree gchar *expected = g_strdup_printf("{\"status\":\"%s\"}", status);

	conn_assert_call(conn, "process/write", params, expected);
}

static void
conn_terminate(Conn *conn, const gchar *process_id, gboolean running)
{
	g_autofree gchar *params = g_strdup_printf("{\"processId\":\"%s\"}", process_id);
	conn_assert_call(conn,
			 "process/terminate",
			 params,
			 running ? "{\"running\":true}" : "{\"running\":false}");
}

/* terminates a live process and checks its end, 128 + SIGKILL; @first_seq: of its first event seen
 * here */
static void
conn_kill_from(Conn *conn, const gchar *process_id, gint64 first_seq)
{
	g_autoptr(GPtrArray) events = NULL;

	conn_terminate(conn, process_id, TRUE);
	events = conn_wait_closed(conn, process_id, WAIT_MS);
	assert_event_sequence_from(events, first_seq, 137);
}

static void
conn_kill(Conn *conn, const gchar *process_id)
{
	conn_kill_from(conn, process_id, 1);
}

/* fixture: a daemon and one handshaken connection, over WebSocket or stdio */

typedef struct {
	gboolean ws;
	const gchar *const *args;
} Variant;

typedef struct {
	const Variant *variant;
	EsdTestDaemon *daemon;
	Conn *conn;
	gchar *session_id;
} Fixture;

static EsdTestDaemon *
start_daemon(const Variant *variant)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_autofree gchar *mark = g_strdup_printf("%s=%s", MARK_VAR, test_mark);
	const gchar *envp[] = {
	    mark,
	    /* for envPolicy: inherited, and what the default excludes drop */
	    "ESD_PTEST_VAR=inherited",
	    "ESD_PTEST_API_KEY=k",
	    "ESD_PTEST_MY_SECRET=s",
	    "ESD_PTEST_TOKEN_X=t",
	    /* never inherited, whatever the policy */
	    "CODEX_EXEC_SERVER_NOISE_AUTH_TOKEN=leak",
	    "codex_exec_server_noise_auth_token=leak2",
	    NULL,
	};

	if (!variant->ws) {
		g_ptr_array_add(args, (gpointer) "--listen");
		g_ptr_array_add(args, (gpointer) "stdio");
	}
	for (guint i = 0; variant->args != NULL && variant->args[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)variant->args[i]);
	g_ptr_array_add(args, NULL);
	return esd_test_daemon_new_full((const gchar *const *)args->pdata, envp, NULL, variant->ws);
}

static Conn *
conn_new_ws(Fixture *fx)
{
	g_autoptr(EsdTestWsClient) client =
	    esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	return conn_new(ESD_TEST_PEER(client), client);
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_free(test_mark);
	test_mark = g_strdup_printf("%d-%u", getpid(), ++test_counter);
	fx->variant = user_data;
	fx->daemon = start_daemon(fx->variant);
	if (fx->variant->ws)
		fx->conn = conn_new_ws(fx);
	else
		fx->conn = conn_new(ESD_TEST_PEER(fx->daemon), NULL);
	fx->session_id = esd_test_peer_handshake(fx->conn->peer);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (fx->conn != NULL && conn_is_open(fx->conn) && esd_test_daemon_is_running(fx->daemon))
		conn_sync(fx->conn);
	if (esd_test_daemon_is_running(fx->daemon)) {
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	}
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	waiting_conn = NULL;
	g_clear_pointer(&fx->conn, conn_free);
	g_clear_object(&fx->daemon);
	esd_test_assert_nothing_left(MARK_VAR, test_mark, 3000);
	g_free(fx->session_id);
}

/* 1. start, output, exit, close */

/* transcripts.md "process/start tty=false ..." */
static void
test_output_exit(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	g_autofree gchar *argv = sh_argv("echo out; echo err 1>&2; exit 3");
	g_autoptr(GPtrArray) events = conn_run(conn, "p1", argv, NULL, 3);
	g_autoptr(GPtrArray) after = NULL;
	g_autofree gchar *out = events_stream(events, "stdout");
	g_autofree gchar *err = events_stream(events, "stderr");
	g_autofree gchar *all = expected_read(events, 0, FALSE, 0);
	g_autofree gchar *all_max = expected_read(events, 0, TRUE, 65536);
	g_autofree gchar *from1 = expected_read(events, 1, FALSE, 0);
	g_autofree gchar *first = expected_read(events, 0, TRUE, 1);
	g_autofree gchar *p0 = read_params("p1", 0, -1, 0);
	g_autofree gchar *p0max = read_params("p1", 0, 65536, 100);
	g_autofree gchar *p1 = read_params("p1", 1, -1, 0);
	g_autofree gchar *p0one = read_params("p1", 0, 1, 0);

	g_assert_cmpstr(out, ==, "out\n");
	g_assert_cmpstr(err, ==, "err\n");
	g_assert_cmpuint(events->len, ==, 4);
	/* nothing follows process/closed */
	conn_sync(conn);
	after = conn_events(conn, "p1");
	g_assert_cmpuint(after->len, ==, 4);
	/* process/read returns what the notifications carried */
	conn_assert_call(conn, "process/read", p0, all);
	conn_assert_call(conn, "process/read", p0max, all_max);
	conn_assert_call(conn, "process/read", p1, from1);
	conn_assert_call(conn, "process/read", p0one, first);
	/* absent afterSeq means 0 */
	conn_assert_call(conn, "process/read", "{\"processId\":\"p1\"}", all);
}

/* without envPolicy the environment is exactly env, minus the daemon's own secrets */
static void
test_env_exact(Fixture *fx, gconstpointer user_data)
{
	StartOptions only = {
	    .env = "{\"ONLY\":\"1\",\"codex_exec_server_noise_auth_token\":\"x\","
		   "\"CODEX_EXEC_SERVER_NOISE_AUTH_TOKEN\":\"y\","
		   "\"Codex_Exec_Server_Noise_Auth_Token\":\"z\","
		   "\"CODEX_EXEC_SERVER_EXIT_ON_STDIN_CLOSE\":\"1\"}",
	};
	StartOptions empty = {.env = "{}"};
	g_autofree gchar *out = conn_run_output(fx->conn, "e5", "[\"/usr/bin/env\"]", &only, 0);
	g_autoptr(GPtrArray) events = NULL;

	g_assert_cmpstr(out, ==, "ONLY=1\n");
	/* without a terminal a bare program name is found on the daemon's PATH, not env's */
	g_free(out);
	out = conn_run_output(fx->conn, "e7", "[\"env\"]", &only, 0);
	g_assert_cmpstr(out, ==, "ONLY=1\n");
	/* nothing injected: no output at all */
	events = conn_run(fx->conn, "e6", "[\"/usr/bin/env\"]", &empty, 0);
	g_assert_cmpuint(events->len, ==, 2);
}

/* transcripts.md B.4: arg0 is what the command sees as argv[0] */
static void
test_arg0(Fixture *fx, gconstpointer user_data)
{
	StartOptions custom = {.extra = "\"arg0\":\"customname\""};
	StartOptions null_arg0 = {.extra = "\"arg0\":null"};
	g_autofree gchar *out1 =
	    conn_run_output(fx->conn, "t8", "[\"sh\",\"-c\",\"echo $0\"]", &custom, 0);
	g_autofree gchar *out2 =
	    conn_run_output(fx->conn, "t9", "[\"/bin/sh\",\"-c\",\"echo $0\"]", &null_arg0, 0);
	g_autofree gchar *out3 =
	    conn_run_output(fx->conn, "t10", "[\"sh\",\"-c\",\"echo $0\"]", NULL, 0);

	g_assert_cmpstr(out1, ==, "customname\n");
	g_assert_cmpstr(out2, ==, "/bin/sh\n");
	g_assert_cmpstr(out3, ==, "sh\n");
}

/* pipeStdin false: stdin is /dev/null, so cat ends at once */
static void
test_stdin(Fixture *fx, gconstpointer user_data)
{
	StartOptions piped = {.extra = "\"pipeStdin\":true"};
	StartOptions not_piped = {.extra = "\"pipeStdin\":false"};
	g_autofree gchar *script = sh_argv("readlink /proc/self/fd/0; cat; echo rc=$?");
	g_autofree gchar *piped_script = sh_argv("readlink /proc/self/fd/0");
	g_autofree gchar *out1 = conn_run_output(fx->conn, "n1", script, NULL, 0);
	g_autofree gchar *out2 = conn_run_output(fx->conn, "n2", script, &not_piped, 0);
	g_autofree gchar *out3 = conn_run_output(fx->conn, "n3", "[\"cat\"]", NULL, 0);
	g_autofree gchar *out4 = conn_run_output(fx->conn, "n4", piped_script, &piped, 0);

	g_assert_cmpstr(out1, ==, "/dev/null\nrc=0\n");
	g_assert_cmpstr(out2, ==, "/dev/null\nrc=0\n");
	g_assert_cmpstr(out3, ==, "");
	g_assert_true(g_str_has_prefix(out4, "pipe:["));
}

/* nothing of the daemon's leaks into a command: fds 0, 1, 2 and the one ls opened */
static void
test_no_leaked_fds(Fixture *fx, gconstpointer user_data)
{
	StartOptions piped = {.extra = "\"pipeStdin\":true"};
	StartOptions tty = {.tty = TRUE};
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	const gchar *ls = "[\"ls\",\"-1\",\"/proc/self/fd\"]";
	g_autofree gchar *out1 = NULL;
	g_autofree gchar *out2 = NULL;
	g_autofree gchar *out3 = NULL;

	/* more processes in flight: their descriptors must not leak either */
	conn_start_ok(fx->conn, "other", "[\"cat\"]", &cat);
	out1 = conn_run_output(fx->conn, "fd1", ls, NULL, 0);
	out2 = conn_run_output(fx->conn, "fd2", ls, &piped, 0);
	out3 = conn_run_output(fx->conn, "fd3", ls, &tty, 0);
	g_assert_cmpstr(out1, ==, "0\n1\n2\n3\n");
	g_assert_cmpstr(out2, ==, "0\n1\n2\n3\n");
	g_assert_cmpstr(out3, ==, "0\r\n1\r\n2\r\n3\r\n");
	conn_kill(fx->conn, "other");
}

/* envPolicy (PROTOCOL.md §8.1.2) */

/* runs env under @policy and @env; returns its lines as a set */
static GHashTable *
run_env(Conn *conn, const gchar *process_id, const gchar *policy, const gchar *env)
{
	g_autofree gchar *extra = g_strdup_printf("\"envPolicy\":%s", policy);
	StartOptions opts = {.env = env, .extra = extra};
	g_autofree gchar *out = conn_run_output(conn, process_id, "[\"/usr/bin/env\"]", &opts, 0);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; lines[i] != NULL; i++) {
		if (lines[i][0] != '\0')
			g_hash_table_add(set, g_strdup(lines[i]));
	}
	return set;
}

static void
assert_env_has(GHashTable *set, const gchar *entry, gboolean present)
{
	if (g_hash_table_contains(set, entry) != present)
		g_error("the command's environment %s %s", present ? "lacks" : "has", entry);
}

/* no variable named @name, whatever its value */
static void
assert_env_lacks_name(GHashTable *set, const gchar *name)
{
	GHashTableIter iter;
	gpointer key;
	g_autofree gchar *prefix = g_strdup_printf("%s=", name);

	g_hash_table_iter_init(&iter, set);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		if (g_str_has_prefix(key, prefix))
			g_error("the command's environment has %s", (const gchar *)key);
	}
}

static void
assert_env_exactly(GHashTable *set, const gchar *const *entries)
{
	g_assert_cmpuint(g_hash_table_size(set), ==, g_strv_length((gchar **)entries));
	for (guint i = 0; entries[i] != NULL; i++)
		assert_env_has(set, entries[i], TRUE);
}

#define POLICY(inherit, ignore, exclude, set, include)                                             \
	"{\"inherit\":\"" inherit "\",\"ignoreDefaultExcludes\":" ignore ",\"exclude\":" exclude   \
	",\"set\":" set ",\"includeOnly\":" include "}"

static void
test_env_policy(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	g_autofree gchar *path = g_strdup_printf("PATH=%s", g_getenv("PATH"));
	g_autofree gchar *mark = g_strdup_printf("%s=%s", MARK_VAR, test_mark);
	g_autoptr(GHashTable) all = NULL;
	g_autoptr(GHashTable) unexcluded = NULL;
	g_autoptr(GHashTable) core = NULL;
	g_autoptr(GHashTable) none = NULL;
	g_autoptr(GHashTable) excluded = NULL;
	g_autoptr(GHashTable) include = NULL;
	g_autoptr(GHashTable) set = NULL;
	const gchar *none_expected[] = {"S=1", "E=fromenv", NULL};
	const gchar *include_expected[] = {"ESD_PTEST_VAR=inherited", NULL, "E=2", NULL};
	const gchar *const missing[] =
	    {"inherit", "ignoreDefaultExcludes", "exclude", "set", "includeOnly", NULL};
	const gchar *const members[] = {"\"inherit\":\"all\"",
					"\"ignoreDefaultExcludes\":false",
					"\"exclude\":[]",
					"\"set\":{}",
					"\"includeOnly\":[]",
					NULL};

	/* inherit all: the daemon's environment, minus *KEY*, *SECRET*, *TOKEN*, plus env */
	all = run_env(conn, "all", POLICY("all", "false", "[]", "{}", "[]"), "{\"FROMREQ\":\"1\"}");
	assert_env_has(all, "ESD_PTEST_VAR=inherited", TRUE);
	assert_env_has(all, "FROMREQ=1", TRUE);
	assert_env_has(all, path, TRUE);
	assert_env_lacks_name(all, "ESD_PTEST_API_KEY");
	assert_env_lacks_name(all, "ESD_PTEST_MY_SECRET");
	assert_env_lacks_name(all, "ESD_PTEST_TOKEN_X");
	assert_env_lacks_name(all, "CODEX_EXEC_SERVER_NOISE_AUTH_TOKEN");
	assert_env_lacks_name(all, "codex_exec_server_noise_auth_token");

	/* without the default excludes: still never the daemon's own secrets */
	unexcluded = run_env(conn, "unexcluded", POLICY("all", "true", "[]", "{}", "[]"), "{}");
	assert_env_has(unexcluded, "ESD_PTEST_API_KEY=k", TRUE);
	assert_env_has(unexcluded, "ESD_PTEST_MY_SECRET=s", TRUE);
	assert_env_has(unexcluded, "ESD_PTEST_TOKEN_X=t", TRUE);
	assert_env_lacks_name(unexcluded, "CODEX_EXEC_SERVER_NOISE_AUTH_TOKEN");
	assert_env_lacks_name(unexcluded, "codex_exec_server_noise_auth_token");

	core = run_env(conn, "core", POLICY("core", "false", "[]", "{}", "[]"), "{}");
	assert_env_has(core, path, TRUE);
	assert_env_lacks_name(core, "ESD_PTEST_VAR");
	assert_env_lacks_name(core, MARK_VAR);

	/* inherit none: set, then env on top */
	none = run_env(conn,
		       "none",
		       POLICY("none", "false", "[]", "{\"S\":\"1\",\"E\":\"fromset\"}", "[]"),
		       "{\"E\":\"fromenv\"}");
	assert_env_exactly(none, none_expected);

	/* exclude patterns are case-insensitive globs */
	excluded = run_env(conn,
			   "excluded",
			   POLICY("all", "false", "[\"esd_ptest_v*\"]", "{}", "[]"),
			   "{}");
	assert_env_lacks_name(excluded, "ESD_PTEST_VAR");
	assert_env_has(excluded, mark, TRUE);

	/* includeOnly filters what the policy built, set included; env comes after */
	include = run_env(conn,
			  "include",
			  POLICY("all",
				 "false",
				 "[]",
				 "{\"SETVAR\":\"1\"}",
				 "[\"ESD_PTEST_V*\",\"" MARK_VAR "\"]"),
			  "{\"E\":\"2\"}");
	include_expected[1] = mark;
	assert_env_exactly(include, include_expected);

	/* set overrides what was inherited */
	set = run_env(conn,
		      "set",
		      POLICY("all", "false", "[]", "{\"ESD_PTEST_VAR\":\"overridden\"}", "[]"),
		      "{}");
	assert_env_has(set, "ESD_PTEST_VAR=overridden", TRUE);

	/* every member is required */
	for (guint i = 0; missing[i] != NULL; i++) {
		g_autoptr(GString) policy = g_string_new("{");
		g_autofree gchar *params = NULL;
		g_autofree gchar *message = g_strdup_printf("missing field `%s`", missing[i]);
		g_autofree gchar *extra = NULL;
		StartOptions opts = {0};

		for (guint j = 0; members[j] != NULL; j++) {
			if (j == i)
				continue;
			if (policy->len > 1)
				g_string_append_c(policy, ',');
			g_string_append(policy, members[j]);
		}
		g_string_append_c(policy, '}');
		extra = g_strdup_printf("\"envPolicy\":%s", policy->str);
		opts.extra = extra;
		params = start_params("bad", "[\"true\"]", &opts);
		conn_assert_error(conn, "process/start", params, -32602, message, NULL);
	}
	{
		StartOptions opts = {
		    .extra = "\"envPolicy\":" POLICY("bogus", "false", "[]", "{}", "[]")};
		g_autofree gchar *params = start_params("bad", "[\"true\"]", &opts);
		conn_assert_error(conn,
				  "process/start",
				  params,
				  -32602,
				  "unknown variant `bogus`, expected one of `core`, `all`, `none`",
				  NULL);
	}
	conn_assert_error(conn,
			  "process/read",
			  "{\"processId\":\"bad\"}",
			  -32600,
			  "unknown process id bad",
			  NULL);
}

/* 2. errors */

typedef struct {
	const gchar *name;
	const gchar *params; /* @PROGRAM@ is replaced by a path made for the row */
	gint64 code;
	const gchar *message;
	const gchar *kind; /* error.data.kind, or NULL for no data */
} StartError;

#define E_ENV "\"env\":{\"PATH\":\"/usr/bin:/bin\"}"
#define E_START(argv, cwd, more)                                                                   \
	"{\"processId\":\"e\",\"argv\":" argv ",\"cwd\":\"" cwd "\"," E_ENV ",\"tty\":false" more  \
	"}"
#define E_SANDBOX(obj) E_START("[\"true\"]", "file:///tmp", ",\"sandbox\":" obj)

/* transcripts.md "process/start errors", B.4; PROTOCOL.md §4, §6.1, §6.4, §8.1 */
/* clang-format off */
static const StartError start_errors[] = {
    {"empty-argv", E_START("[]", "file:///tmp", ""), -32602, "argv must not be empty"},
    {"cwd-absolute-path", E_START("[\"true\"]", "/tmp", ""), -32602,
     "invalid URI: relative URL without a base"},
    {"cwd-relative", E_START("[\"true\"]", "tmp", ""), -32602,
     "invalid URI: relative URL without a base"},
    {"cwd-http", E_START("[\"true\"]", "http://x/", ""), -32602,
     "unsupported path URI scheme `http`"},
    {"cwd-host", E_START("[\"true\"]", "file://host/tmp", ""), -32600,
     "'file://host/tmp' is invalid on 'linux'"},
    {"missing-env",
     "{\"processId\":\"e\",\"argv\":[\"true\"],\"cwd\":\"file:///tmp\",\"tty\":false}", -32602,
     "missing field `env`"},
    {"missing-argv", "{\"processId\":\"e\",\"cwd\":\"file:///tmp\"," E_ENV ",\"tty\":false}",
     -32602, "missing field `argv`"},
    {"missing-cwd", "{\"processId\":\"e\",\"argv\":[\"true\"]," E_ENV ",\"tty\":false}", -32602,
     "missing field `cwd`"},
    {"missing-tty", "{\"processId\":\"e\",\"argv\":[\"true\"],\"cwd\":\"file:///tmp\"," E_ENV "}",
     -32602, "missing field `tty`"},
    {"missing-process-id",
     "{\"argv\":[\"true\"],\"cwd\":\"file:///tmp\"," E_ENV ",\"tty\":false}", -32602,
     "missing field `processId`"},
    {"null-params", "null", -32602, "invalid type: null, expected struct *"},
    {"env-value-number",
     "{\"processId\":\"e\",\"argv\":[\"true\"],\"cwd\":\"file:///tmp\",\"env\":{\"A\":1},"
     "\"tty\":false}",
     -32602, "invalid type: integer `1`, expected a string"},
    {"argv-number", E_START("[1]", "file:///tmp", ""), -32602,
     "invalid type: integer `1`, expected a string"},
    {"tty-string", "{\"processId\":\"e\",\"argv\":[\"true\"],\"cwd\":\"file:///tmp\"," E_ENV
     ",\"tty\":\"yes\"}",
     -32602, "invalid type: string \"yes\", expected a boolean"},
    {"nonexistent-program", E_START("[\"/nonexistent/bin\"]", "file:///tmp", ""), -32603,
     "No such file or directory (os error 2)", "spawnNotFound"},
    {"program-not-on-path", E_START("[\"esd-ptest-no-such-program\"]", "file:///tmp", ""),
     -32603, "No such file or directory (os error 2)", "spawnNotFound"},
    {"nonexistent-cwd", E_START("[\"true\"]", "file:///nonexistent/dir", ""), -32603,
     "No such file or directory (os error 2)", "spawnNotFound"},
    {"exec-format", E_START("[\"@PROGRAM@\"]", "file:///tmp", ""), -32603,
     "Exec format error (os error 8)", "spawnFailed"},
    {"not-executable", E_START("[\"@PROGRAM@\"]", "file:///tmp", ""), -32603,
     "Permission denied (os error 13)", "spawnPermissionDenied"},
    {"tty-without-path",
     "{\"processId\":\"e\",\"argv\":[\"true\"],\"cwd\":\"file:///tmp\",\"env\":{},\"tty\":true}",
     -32603, "Unable to spawn true because:\nUnable to resolve the PATH", "spawnFailed"},
    {"tty-without-path-pipe-stdin",
     "{\"processId\":\"e\",\"argv\":[\"true\"],\"cwd\":\"file:///tmp\",\"env\":{},\"tty\":true,"
     "\"pipeStdin\":true}",
     -32603, "Unable to spawn true because:\nUnable to resolve the PATH", "spawnFailed"},
    {"sandbox-mxc",
     E_SANDBOX("{\"permissions\":{\"type\":\"disabled\"},\"windowsSandboxLevel\":\"mxc\"}"), -32602,
     "native MXC is unavailable on this executor", "sandboxUnavailable"},
    {"sandbox-missing-permissions", E_SANDBOX("{\"windowsSandboxLevel\":\"disabled\"}"), -32602,
     "missing field `permissions`"},
    {"sandbox-unknown-level",
     E_SANDBOX("{\"permissions\":{\"type\":\"disabled\"},\"windowsSandboxLevel\":\"bogus\"}"),
     -32602, "unknown variant `bogus`, expected one of *"},
    {"shell-snapshot-empty-scope",
     E_START("[\"true\"]", "file:///tmp",
	     ",\"shellSnapshot\":{\"scopeId\":\"\",\"shell\":{\"name\":\"sh\",\"path\":\"/bin/sh\"}}"),
     -32602, "shell snapshot scope must be non-empty and at most 256 bytes"},
    {NULL},
};
/* clang-format on */

/* a file for the @PROGRAM@ rows: text, executable or not */
static gchar *
make_program(const StartError *row)
{
	g_autoptr(GError) error = NULL;
	gchar *path = NULL;
	gint fd = g_file_open_tmp("esd-ptest-XXXXXX", &path, &error);

	g_assert_no_error(error);
	g_assert_cmpint(write(fd, "not a program\n", 14), ==, 14);
	close(fd);
	g_assert_cmpint(g_chmod(path, g_str_equal(row->name, "exec-format") ? 0755 : 0644), ==, 0);
	return path;
}

/* every row on one connection: the error, and no process left in the table */
static void
test_start_errors(Fixture *fx, gconstpointer user_data)
{
	for (guint i = 0; start_errors[i].name != NULL; i++) {
		const StartError *row = &start_errors[i];
		g_autoptr(GString) params = g_string_new(row->params);
		g_autofree gchar *program = NULL;

		g_test_message("%s", row->name);
		if (strstr(row->params, "@PROGRAM@") != NULL) {
			program = make_program(row);
			g_string_replace(params, "@PROGRAM@", program, 0);
		}
		conn_assert_error(fx->conn,
				  "process/start",
				  params->str,
				  row->code,
				  row->message,
				  row->kind);
		if (program != NULL)
			g_unlink(program);
		conn_assert_error(fx->conn,
				  "process/read",
				  "{\"processId\":\"e\"}",
				  -32600,
				  "unknown process id e",
				  NULL);
	}
	/* transcripts.md B.4 used /etc/hostname, executable on that machine */
	if (g_file_test("/etc/hostname", G_FILE_TEST_IS_EXECUTABLE)) {
		conn_assert_error(fx->conn,
				  "process/start",
				  E_START("[\"/etc/hostname\"]", "file:///tmp", ""),
				  -32603,
				  "Exec format error (os error 8)",
				  "spawnFailed");
	}
	conn_assert_error(fx->conn,
			  "process/read",
			  "{\"processId\":\"x\"}",
			  -32600,
			  "unknown process id x",
			  NULL);
	/* the id of a refused process stays free */
	g_ptr_array_unref(conn_run(fx->conn, "e", "[\"true\"]", NULL, 0));
}

/* a sandbox that asks for no isolation runs the command directly */
static void
test_sandbox_allowed(Fixture *fx, gconstpointer user_data)
{
	const gchar *sandboxes[] = {
	    "{\"permissions\":{\"type\":\"disabled\"},\"windowsSandboxLevel\":\"disabled\"}",
	    "{\"permissions\":{\"type\":\"external\",\"network\":\"enabled\"},"
	    "\"windowsSandboxLevel\":"
	    "\"disabled\"}",
	    "{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":\"unrestricted\"},"
	    "\"network\":\"enabled\"},\"windowsSandboxLevel\":\"disabled\",\"cwd\":\"file:///"
	    "tmp\"}",
	    NULL,
	};

	for (guint i = 0; sandboxes[i] != NULL; i++) {
		g_autofree gchar *id = g_strdup_printf("s%u", i);
		g_autofree gchar *extra = g_strdup_printf("\"sandbox\":%s", sandboxes[i]);
		StartOptions opts = {.extra = extra};
		JsonNode *result = NULL;
		const gchar *type;
		g_autoptr(GPtrArray) events = NULL;
		g_autofree gchar *params = start_params(id, "[\"sh\",\"-c\",\"echo ran\"]", &opts);

		result = conn_call_result(fx->conn, "process/start", params);
		g_assert_cmpstr(esd_test_json_get_string(result, "processId"), ==, id);
		/* as the reference: linuxSeccomp for any sandbox object */
		type = esd_test_json_get_string(result, "sandboxType");
		g_assert_cmpstr(type, ==, "linuxSeccomp");
		g_assert_cmpuint(json_object_get_size(json_node_get_object(result)), ==, 2);
		events = conn_wait_closed(fx->conn, id, WAIT_MS);
		assert_event_sequence(events, 0);
		g_assert_cmpstr(conn_output(fx->conn, id), ==, "ran\n");
	}
}

/* cwd is a file URI: percent escapes decoded, dot segments resolved */
static void
test_cwd(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *dir = g_strdup_printf("%s/esd-ptest %s", g_get_tmp_dir(), test_mark);
	g_autofree gchar *uri = g_filename_to_uri(dir, NULL, NULL);
	g_autofree gchar *dotted = g_strdup_printf("%s/sub/..", uri);
	g_autofree gchar *expected = g_strdup_printf("%s\n", dir);
	StartOptions at_dir = {.cwd = uri};
	StartOptions at_dotted = {.cwd = dotted};
	g_autofree gchar *out1 = NULL;
	g_autofree gchar *out2 = NULL;

	g_assert_nonnull(strstr(uri, "%20"));
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	out1 = conn_run_output(fx->conn, "pwd1", "[\"pwd\"]", &at_dir, 0);
	out2 = conn_run_output(fx->conn, "pwd2", "[\"pwd\"]", &at_dotted, 0);
	g_assert_cmpstr(out1, ==, expected);
	g_assert_cmpstr(out2, ==, expected);
	g_rmdir(dir);
}

/* a processId is any string, and comes back exactly as it was sent */
static void
test_odd_process_id(Fixture *fx, gconstpointer user_data)
{
	const gchar *id = "p \"q\" \\ \xc3\xa9 \xe2\x9c\x93\n/\t{}";
	g_autofree gchar *quoted = json_quote(id);
	g_autofree gchar *terminate = g_strdup_printf("{\"processId\":%s}", quoted);
	g_autofree gchar *read = g_strdup_printf("{\"processId\":%s,\"afterSeq\":0}", quoted);
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autoptr(GPtrArray) events = NULL;
	JsonNode *result;

	conn_start_ok(fx->conn, id, "[\"sh\",\"-c\",\"echo hi; exec cat\"]", &cat);
	conn_wait_output(fx->conn, id, 0, "hi\n", WAIT_MS);
	result = conn_call_result(fx->conn, "process/read", read);
	g_assert_cmpuint(
	    json_array_get_length(json_node_get_array(esd_test_json_get(result, "chunks"))),
	    ==,
	    1);
	conn_assert_call(fx->conn, "process/terminate", terminate, "{\"running\":true}");
	events = conn_wait_closed(fx->conn, id, WAIT_MS);
	assert_event_sequence(events, 137);
}

/* many processes at once, requests pipelined: each its own output, seqs, exit code */
static void
test_many(Fixture *fx, gconstpointer user_data)
{
	const guint n = 48;
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint));

	for (guint i = 0; i < n; i++) {
		g_autofree gchar *id = g_strdup_printf("m%u", i);
		g_autofree gchar *script =
		    g_strdup_printf("echo out%u; echo err%u >&2; exit %u", i, i, i % 7);
		g_autofree gchar *argv = sh_argv(script);
		g_autofree gchar *params = start_params(id, argv, NULL);
		guint request = conn_request(fx->conn, "process/start", params);
		g_array_append_val(ids, request);
	}
	for (guint i = 0; i < n; i++) {
		g_autofree gchar *id = g_strdup_printf("m%u", i);
		g_autofree gchar *result =
		    g_strdup_printf("{\"id\":%u,\"result\":{\"processId\":\"%s\","
				    "\"sandboxType\":\"none\"}}",
				    g_array_index(ids, guint, i),
				    id);
		esd_assert_json_node_eq(
		    conn_wait_reply(fx->conn, g_array_index(ids, guint, i), WAIT_MS),
		    result);
	}
	for (guint i = 0; i < n; i++) {
		g_autofree gchar *id = g_strdup_printf("m%u", i);
		g_autofree gchar *out = g_strdup_printf("out%u\n", i);
		g_autofree gchar *err = g_strdup_printf("err%u\n", i);
		g_autoptr(GPtrArray) events = conn_wait_closed(fx->conn, id, WAIT_MS);
		g_autofree gchar *stdout_text = events_stream(events, "stdout");
		g_autofree gchar *stderr_text = events_stream(events, "stderr");

		assert_event_sequence(events, (gint)(i % 7));
		g_assert_cmpstr(stdout_text, ==, out);
		g_assert_cmpstr(stderr_text, ==, err);
	}
}

/*
 * process/closed waits for the end of output too: a child may hold the pipe
 * after the command exited. Its output then follows the exit, still in seq
 * order, and the close comes last.
 */
static void
test_closed_waits_for_eof(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *argv = sh_argv("(sleep 0.5; echo late) & echo early");
	g_autofree gchar *dump = NULL;
	g_autoptr(GPtrArray) events = NULL;
	const gchar *methods[] = {"process/output",
				  "process/exited",
				  "process/output",
				  "process/closed"};
	gint idx_exited;
	gint idx_closed;
	gint64 gap;

	conn_start_ok(fx->conn, "bg", argv, NULL);
	events = conn_wait_closed(fx->conn, "bg", WAIT_MS);
	dump = dump_events(events);
	if (events->len != G_N_ELEMENTS(methods))
		g_error("expected early output, exit, late output, close:%s", dump);
	for (guint i = 0; i < events->len; i++) {
		JsonNode *ev = g_ptr_array_index(events, i);
		if (g_strcmp0(esd_test_json_get_string(ev, "method"), methods[i]) != 0 ||
		    esd_test_json_get_int(ev, "params.seq") != (gint64)i + 1)
			g_error("expected early output, exit, late output, close:%s", dump);
	}
	g_assert_cmpstr(conn_output(fx->conn, "bg"), ==, "early\nlate\n");
	g_assert_cmpint(esd_test_json_get_int(g_ptr_array_index(events, 1), "params.exitCode"),
			==,
			0);
	idx_exited = conn_log_index(fx->conn, g_ptr_array_index(events, 1));
	idx_closed = conn_log_index(fx->conn, g_ptr_array_index(events, 3));
	gap = (g_array_index(fx->conn->times, gint64, idx_closed) -
	       g_array_index(fx->conn->times, gint64, idx_exited)) /
	      1000;
	g_test_message("closed %" G_GINT64_FORMAT " ms after the exit", gap);
	/* the exit is announced when it happens, not when the pipes end */
	g_assert_cmpint(gap, >=, 300);
}

/* --concurrent-requests 2: terminate ends a long poll on the same process at once */
static void
test_long_poll_terminate(Fixture *fx, gconstpointer user_data)
{
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *poll = read_params("cat", 0, -1, 5000);
	JsonNode *reply;
	guint read_id;
	gint64 start;

	conn_start_ok(fx->conn, "cat", "[\"cat\"]", &cat);
	start = g_get_monotonic_time();
	read_id = conn_request(fx->conn, "process/read", poll);
	wait_ms(200);
	conn_terminate(fx->conn, "cat", TRUE);
	reply = conn_wait_reply(fx->conn, read_id, WAIT_MS);
	g_assert_cmpint((g_get_monotonic_time() - start) / 1000, <, 2500);
	g_assert_true(
	    json_object_get_boolean_member(json_node_get_object(esd_test_json_get(reply, "result")),
					   "exited"));
	g_assert_cmpint(esd_test_json_get_int(reply, "result.exitCode"), ==, 137);
	g_ptr_array_unref(conn_wait_closed(fx->conn, "cat", WAIT_MS));
}

/* ids are unique in the session, also after the process closed (§8.1) */
static void
test_duplicate_id(Fixture *fx, gconstpointer user_data)
{
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autoptr(GPtrArray) events = NULL;
	g_autofree gchar *params_p = start_params("p", "[\"true\"]", NULL);
	g_autofree gchar *params_q = start_params("q", "[\"true\"]", NULL);
	g_autofree gchar *params_empty = start_params("", "[\"true\"]", NULL);

	conn_start_ok(fx->conn, "p", "[\"cat\"]", &cat);
	conn_assert_error(fx->conn,
			  "process/start",
			  params_p,
			  -32600,
			  "process p already exists",
			  NULL);
	events = conn_run(fx->conn, "q", "[\"true\"]", NULL, 0);
	conn_assert_error(fx->conn,
			  "process/start",
			  params_q,
			  -32600,
			  "process q already exists",
			  NULL);
	/* still the first one */
	conn_write(fx->conn, "p", "w", "still\n", "accepted");
	conn_wait_output(fx->conn, "p", 0, "still\n", WAIT_MS);
	conn_kill(fx->conn, "p");
	conn_assert_error(fx->conn,
			  "process/start",
			  params_p,
			  -32600,
			  "process p already exists",
			  NULL);
	/* the empty string is an id like any other (B.4) */
	g_ptr_array_unref(conn_run(fx->conn, "", "[\"true\"]", NULL, 0));
	conn_assert_error(fx->conn,
			  "process/start",
			  params_empty,
			  -32600,
			  "process  already exists",
			  NULL);
}

/* 3. process/read */

/* maxBytes: at least one chunk, never split; nextSeq after the last returned */
static void
test_read_max_bytes(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *argv =
	    sh_argv("printf 1234; sleep 0.2; printf ab >&2; sleep 0.2; printf xyz");
	g_autoptr(GPtrArray) events = conn_run(fx->conn, "m", argv, NULL, 0);
	g_autoptr(GArray) sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GArray) limits = g_array_new(FALSE, FALSE, sizeof(guint64));
	guint64 sum = 0;
	guint n_chunks = events_count(events, "process/output");

	g_assert_cmpuint(n_chunks, >=, 2);
	for (guint i = 0; i < n_chunks; i++) {
		guint64 len =
		    chunk_len(esd_test_json_get(g_ptr_array_index(events, i), "params.chunk"));
		g_array_append_val(sizes, len);
	}
	/* around every boundary */
	for (guint i = 0; i < n_chunks; i++) {
		guint64 below;
		sum += g_array_index(sizes, guint64, i);
		below = sum - 1;
		g_array_append_val(limits, below);
		g_array_append_val(limits, sum);
	}
	sum += 100;
	g_array_append_val(limits, sum);
	sum = 0;
	g_array_append_val(limits, sum);
	for (guint64 after = 0; after <= n_chunks + 2; after++) {
		for (guint i = 0; i < limits->len; i++) {
			guint64 limit = g_array_index(limits, guint64, i);
			g_autofree gchar *params = read_params("m", after, (gint64)limit, 0);
			g_autofree gchar *expected = expected_read(events, after, TRUE, limit);
			conn_assert_call(fx->conn, "process/read", params, expected);
		}
		{
			g_autofree gchar *params = read_params("m", after, -1, 0);
			g_autofree gchar *expected = expected_read(events, after, FALSE, 0);
			conn_assert_call(fx->conn, "process/read", params, expected);
		}
	}
}

static const gchar *
read_result_running_empty(guint64 next_seq)
{
	static gchar text[256];
	g_snprintf(text,
		   sizeof(text),
		   "{\"chunks\":[],\"nextSeq\":%" G_GUINT64_FORMAT
		   ",\"exited\":false,\"exitCode\":null,"
		   "\"closed\":false,\"failure\":null,\"sandboxDenied\":false}",
		   next_seq);
	return text;
}

/* transcripts.md "process/read long-poll": returns as soon as output arrives */
static void
test_read_long_poll(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	g_autofree gchar *argv = sh_argv("sleep 0.3; echo late");
	g_autofree gchar *poll0 = read_params("p2", 0, -1, 3000);
	g_autofree gchar *poll1 = read_params("p2", 1, -1, 3000);
	g_autofree gchar *chunk = b64("late\n");
	g_autofree gchar *expected = g_strdup_printf(
	    "{\"chunks\":[{\"seq\":1,\"stream\":\"stdout\",\"chunk\":\"%s\"}],\"nextSeq\":2,"
	    "\"exited\":false,\"exitCode\":null,\"closed\":false,\"failure\":null,"
	    "\"sandboxDenied\":false}",
	    chunk);
	JsonNode *result;
	gint64 start;
	gint64 elapsed;

	conn_start_ok(conn, "p2", argv, NULL);
	start = g_get_monotonic_time();
	result = conn_call_result(conn, "process/read", poll0);
	elapsed = (g_get_monotonic_time() - start) / 1000;
	g_test_message("long poll returned after %" G_GINT64_FORMAT " ms", elapsed);
	g_assert_cmpint(elapsed, >=, 200);
	g_assert_cmpint(elapsed, <, 2500);
	esd_assert_json_node_eq(result, expected);
	/* nothing after seq 1 yet: waits for the exit, an event not covered by afterSeq */
	start = g_get_monotonic_time();
	result = conn_call_result(conn, "process/read", poll1);
	elapsed = (g_get_monotonic_time() - start) / 1000;
	g_assert_cmpint(elapsed, <, 2500);
	g_assert_true(json_object_get_boolean_member(json_node_get_object(result), "exited"));
	g_assert_cmpint(esd_test_json_get_int(result, "exitCode"), ==, 0);
	esd_assert_json_node_eq(esd_test_json_get(result, "chunks"), "[]");
	g_ptr_array_unref(conn_wait_closed(conn, "p2", WAIT_MS));
	/* output already there: no wait at all */
	start = g_get_monotonic_time();
	result = conn_call_result(conn, "process/read", poll0);
	g_assert_cmpint((g_get_monotonic_time() - start) / 1000, <, 1000);
	g_assert_true(json_object_get_boolean_member(json_node_get_object(result), "closed"));
}

/* no output: the long poll ends after waitMs with nothing */
static void
test_read_wait_timeout(Fixture *fx, gconstpointer user_data)
{
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *poll = read_params("quiet", 0, -1, 400);
	g_autofree gchar *poll_max = read_params("quiet", 0, 10, 400);
	gint64 start;
	gint64 elapsed;
	JsonNode *result;

	conn_start_ok(fx->conn, "quiet", "[\"cat\"]", &cat);
	for (guint i = 0; i < 2; i++) {
		start = g_get_monotonic_time();
		result = conn_call_result(fx->conn, "process/read", i == 0 ? poll : poll_max);
		elapsed = (g_get_monotonic_time() - start) / 1000;
		g_test_message("empty long poll returned after %" G_GINT64_FORMAT " ms", elapsed);
		g_assert_cmpint(elapsed, >=, 350);
		g_assert_cmpint(elapsed, <, 3000);
		esd_assert_json_node_eq(result, read_result_running_empty(1));
	}
	/* without waitMs: at once */
	conn_assert_call(fx->conn,
			 "process/read",
			 "{\"processId\":\"quiet\"}",
			 read_result_running_empty(1));
	conn_kill(fx->conn, "quiet");
}

/*
 * transcripts.md B.2: a long-polling read on a silent process, then
 * environment/status. Notifications of another process arrive meanwhile;
 * with one request at a time the status waits for the read.
 */
static void
check_long_poll_and_status(Fixture *fx, gboolean concurrent)
{
	Conn *conn = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *tick = sh_argv("sleep 0.5; echo tick");
	g_autofree gchar *poll = read_params("quiet", 0, -1, 1500);
	g_autoptr(GPtrArray) events = NULL;
	guint read_id;
	guint status_id;
	gint64 sent;
	gint idx_read;
	gint idx_status;
	gint idx_tick;
	gint64 t_read;
	gint64 t_status;
	JsonNode *read_reply;

	conn_start_ok(conn, "quiet", "[\"cat\"]", &cat);
	conn_start_ok(conn, "p", tick, NULL);
	sent = g_get_monotonic_time();
	read_id = conn_request(conn, "process/read", poll);
	status_id = conn_request(conn, "environment/status", NULL);
	read_reply = conn_wait_reply(conn, read_id, WAIT_MS);
	conn_wait_reply(conn, status_id, WAIT_MS);
	events = conn_wait_closed(conn, "p", WAIT_MS);
	assert_event_sequence(events, 0);
	g_assert_cmpstr(conn_output(conn, "p"), ==, "tick\n");

	idx_read = conn_log_index(conn, read_reply);
	idx_status =
	    conn_log_index(conn, g_hash_table_lookup(conn->replies, GUINT_TO_POINTER(status_id)));
	idx_tick = conn_log_index(conn, g_ptr_array_index(events, 0));
	t_read = (g_array_index(conn->times, gint64, idx_read) - sent) / 1000;
	t_status = (g_array_index(conn->times, gint64, idx_status) - sent) / 1000;
	g_test_message("read answered after %" G_GINT64_FORMAT " ms, status after %" G_GINT64_FORMAT
		       " ms",
		       t_read,
		       t_status);
	esd_assert_json_node_eq(esd_test_json_get(read_reply, "result"),
				read_result_running_empty(1));
	g_assert_cmpint(t_read, >=, 1400);
	/* the output notification came while the read was pending */
	g_assert_cmpint(idx_tick, <, idx_read);
	if (concurrent) {
		g_assert_cmpint(idx_status, <, idx_read);
		g_assert_cmpint(t_status, <, 1000);
	} else {
		g_assert_cmpint(idx_status, >, idx_read);
		g_assert_cmpint(t_status, >=, 1400);
	}
	conn_kill(conn, "quiet");
}

static void
test_read_serial(Fixture *fx, gconstpointer user_data)
{
	check_long_poll_and_status(fx, FALSE);
}

static void
test_read_concurrent(Fixture *fx, gconstpointer user_data)
{
	check_long_poll_and_status(fx, TRUE);
}

static void
test_read_errors(Fixture *fx, gconstpointer user_data)
{
	conn_assert_error(fx->conn,
			  "process/read",
			  "{\"processId\":\"nope\"}",
			  -32600,
			  "unknown process id nope",
			  NULL);
	conn_assert_error(fx->conn,
			  "process/read",
			  "{}",
			  -32602,
			  "missing field `processId`",
			  NULL);
	conn_assert_error(fx->conn,
			  "process/read",
			  NULL,
			  -32602,
			  "invalid type: null, expected struct *",
			  NULL);
	g_ptr_array_unref(conn_run(fx->conn, "r", "[\"true\"]", NULL, 0));
	conn_assert_error(fx->conn,
			  "process/read",
			  "{\"processId\":\"r\",\"afterSeq\":-1}",
			  -32602,
			  "invalid value: integer `-1`, expected u64",
			  NULL);
	conn_assert_error(fx->conn,
			  "process/read",
			  "{\"processId\":\"r\",\"waitMs\":\"x\"}",
			  -32602,
			  "invalid type: string \"x\", expected u64",
			  NULL);
}

/* --process-retention 1: readable at once, gone (and the id free) after about 1 s */
static void
test_retention(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *params = start_params("r", "[\"true\"]", NULL);
	gint64 closed_at;
	gint64 gone_after = -1;
	gint64 deadline;

	g_ptr_array_unref(conn_run(fx->conn, "r", "[\"true\"]", NULL, 0));
	closed_at = g_get_monotonic_time();
	g_assert_true(json_object_get_boolean_member(
	    json_node_get_object(
		conn_call_result(fx->conn, "process/read", "{\"processId\":\"r\"}")),
	    "closed"));
	conn_assert_error(fx->conn,
			  "process/start",
			  params,
			  -32600,
			  "process r already exists",
			  NULL);
	deadline = closed_at + 4 * G_USEC_PER_SEC;
	while (g_get_monotonic_time() < deadline) {
		JsonNode *reply = conn_call(fx->conn, "process/read", "{\"processId\":\"r\"}");
		if (esd_test_json_get(reply, "error") != NULL) {
			gone_after = (g_get_monotonic_time() - closed_at) / 1000;
			assert_error_reply(reply,
					   (guint)esd_test_json_get_int(reply, "id"),
					   -32600,
					   "unknown process id r",
					   NULL);
			break;
		}
		wait_ms(100);
	}
	g_test_message("closed process removed after %" G_GINT64_FORMAT " ms", gone_after);
	g_assert_cmpint(gone_after, >=, 800);
	g_ptr_array_unref(conn_run(fx->conn, "r", "[\"true\"]", NULL, 0));
}

/* 4. process/write */

/* transcripts.md "pipeStdin + process/write": echo round trip, writeId idempotency */
static void
test_write_cat(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autoptr(GPtrArray) events = NULL;
	gsize pos;

	conn_start_ok(conn, "cat", "[\"cat\"]", &cat);
	conn_write(conn, "cat", "w-1", "hello\n", "accepted");
	pos = conn_wait_output(conn, "cat", 0, "hello\n", WAIT_MS);
	/* a retry is accepted but not written again */
	conn_write(conn, "cat", "w-1", "hello\n", "accepted");
	conn_write(conn, "cat", "w-1", "other\n", "accepted");
	/* an empty chunk is fine */
	conn_write(conn, "cat", "w-empty", "", "accepted");
	conn_write(conn, "cat", "w-2", "world\n", "accepted");
	conn_wait_output(conn, "cat", pos, "world\n", WAIT_MS);
	conn_sync(conn);
	g_assert_cmpstr(conn_output(conn, "cat"), ==, "hello\nworld\n");
	/* binary, not just text */
	conn_assert_call(conn,
			 "process/write",
			 "{\"processId\":\"cat\",\"chunk\":\"AAEC/w==\",\"writeId\":\"w-3\"}",
			 "{\"status\":\"accepted\"}");
	conn_wait_output(conn, "cat", pos, "\x01\x02\xff", WAIT_MS);
	{
		GString *out = g_hash_table_lookup(conn->outputs, "cat");
		g_assert_cmpmem(out->str, out->len, "hello\nworld\n\0\x01\x02\xff", 16);
	}
	conn_kill(conn, "cat");
	events = conn_events(conn, "cat");
	g_assert_cmpuint(events_count(events, "process/exited"), ==, 1);
}

/*
 * --concurrent-requests 2: a write may reach a process still starting. It is
 * then not written ("starting"), and a retry with the same writeId must be:
 * the input arrives exactly once either way.
 */
static void
test_write_while_starting(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *params = start_params("cat", "[\"cat\"]", &cat);
	g_autofree gchar *chunk = b64("once\n");
	g_autofree gchar *write =
	    g_strdup_printf("{\"processId\":\"cat\",\"chunk\":\"%s\",\"writeId\":\"w-1\"}", chunk);
	guint start_id = conn_request(conn, "process/start", params);
	guint write_id = conn_request(conn, "process/write", write);
	guint read_id = conn_request(conn, "process/read", "{\"processId\":\"cat\"}");
	JsonNode *reply;
	const gchar *status;

	reply = conn_wait_reply(conn, write_id, WAIT_MS);
	status = esd_test_json_get_string(reply, "result.status");
	g_test_message("write during start: %s", status);
	g_assert_true(g_str_equal(status, "starting") || g_str_equal(status, "accepted"));
	reply = conn_wait_reply(conn, read_id, WAIT_MS);
	if (esd_test_json_get(reply, "error") != NULL)
		assert_error_reply(reply, read_id, -32600, "process id cat is starting", NULL);
	reply = conn_wait_reply(conn, start_id, WAIT_MS);
	esd_assert_json_node_eq(esd_test_json_get(reply, "result"),
				"{\"processId\":\"cat\",\"sandboxType\":\"none\"}");
	conn_write(conn, "cat", "w-1", "once\n", "accepted");
	conn_write(conn, "cat", "w-2", "end\n", "accepted");
	conn_wait_output(conn, "cat", 0, "end\n", WAIT_MS);
	g_assert_cmpstr(conn_output(conn, "cat"), ==, "once\nend\n");
	conn_kill(conn, "cat");
}

/* the last 4096 writeIds of a process are remembered, no more */
/* a retried write keeps its first answer after stdin has closed; a new one does not */
static void
test_write_retry_after_exit(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	StartOptions opts = {.extra = "\"pipeStdin\":true"};
	g_autoptr(GPtrArray) events = NULL;

	conn_start_ok(conn, "one", "[\"head\",\"-c\",\"1\"]", &opts);
	conn_write(conn, "one", "w1", "A", "accepted");
	events = conn_wait_closed(conn, "one", WAIT_MS);
	g_assert_cmpstr(conn_output(conn, "one"), ==, "A");
	conn_write(conn, "one", "w1", "A", "accepted");
	conn_write(conn, "one", "w2", "B", "stdinClosed");
}

static void
test_write_id_window(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autoptr(GString) expected = g_string_new("A");
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint));
	gchar chunk[] = "Lg=="; /* "." */

	conn_start_ok(conn, "cat", "[\"cat\"]", &cat);
	conn_write(conn, "cat", "first", "A", "accepted");
	conn_wait_output(conn, "cat", 0, "A", WAIT_MS);
	/* 4095 more: "first" is still one of the last 4096 */
	for (guint i = 1; i < 4096; i++) {
		g_autofree gchar *params =
		    g_strdup_printf("{\"processId\":\"cat\",\"chunk\":\"%s\",\"writeId\":\"d-%u\"}",
				    chunk,
				    i);
		guint id = conn_request(conn, "process/write", params);
		g_array_append_val(ids, id);
		g_string_append_c(expected, '.');
	}
	for (guint i = 0; i < ids->len; i++) {
		guint id = g_array_index(ids, guint, i);
		g_autofree gchar *want =
		    g_strdup_printf("{\"id\":%u,\"result\":{\"status\":\"accepted\"}}", id);
		esd_assert_json_node_eq(conn_wait_reply(conn, id, WAIT_MS), want);
	}
	conn_write(conn, "cat", "first", "B", "accepted");
	/* the 4097th id pushes "first" out: then it is a new write */
	conn_write(conn, "cat", "d-4096", ".", "accepted");
	g_string_append_c(expected, '.');
	conn_write(conn, "cat", "first", "C", "accepted");
	g_string_append_c(expected, 'C');
	conn_wait_output(conn, "cat", 0, "C", WAIT_MS);
	conn_sync(conn);
	g_assert_cmpuint(strlen(conn_output(conn, "cat")), ==, expected->len);
	g_assert_cmpstr(conn_output(conn, "cat"), ==, expected->str);
	conn_kill(conn, "cat");
}

static void
test_write_errors(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	const gchar *bad_chunks[] = {"eA=", "!!!!", "eA", "eA===", "e A=", "eA==eA==x", NULL};
	g_autofree gchar *sleeper = g_strdup_printf("[\"sleep\",\"3%u\"]", test_counter);

	conn_start_ok(conn, "cat", "[\"cat\"]", &cat);
	for (guint i = 0; bad_chunks[i] != NULL; i++) {
		g_autofree gchar *params = g_strdup_printf(
		    "{\"processId\":\"cat\",\"chunk\":\"%s\",\"writeId\":\"bad-%u\"}",
		    bad_chunks[i],
		    i);
		conn_assert_error(conn, "process/write", params, -32602, "Invalid *", NULL);
	}
	conn_assert_error(conn,
			  "process/write",
			  "{\"processId\":\"cat\",\"chunk\":\"eA==\",\"writeId\":\"\"}",
			  -32602,
			  "writeId must not be empty",
			  NULL);
	conn_assert_error(conn,
			  "process/write",
			  "{\"processId\":\"cat\",\"chunk\":\"eA==\"}",
			  -32602,
			  "missing field `writeId`",
			  NULL);
	conn_assert_error(conn,
			  "process/write",
			  "{\"processId\":\"cat\",\"writeId\":\"w\"}",
			  -32602,
			  "missing field `chunk`",
			  NULL);
	conn_write(conn, "ghost", "w-2", "x", "unknownProcess");
	/* without pipeStdin, running or not */
	conn_start_ok(conn, "nostdin", sleeper, NULL);
	conn_write(conn, "nostdin", "w-3", "x", "stdinClosed");
	g_ptr_array_unref(conn_run(conn, "t2", "[\"cat\"]", NULL, 0));
	conn_write(conn, "t2", "w-4", "x", "stdinClosed");
	/* none of the refused writes reached cat, nor a refused writeId */
	conn_write(conn, "cat", "bad-0", "ok\n", "accepted");
	conn_wait_output(conn, "cat", 0, "ok\n", WAIT_MS);
	g_assert_cmpstr(conn_output(conn, "cat"), ==, "ok\n");
	conn_kill(conn, "cat");
	conn_kill(conn, "nostdin");
}

/* 5. terminals and signals */

/* transcripts.md "process/start tty=true, process/signal" and B.4 */
static void
test_tty_bash(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	g_autofree gchar *env =
	    env_with_mark("\"PATH\":\"/usr/bin:/bin\",\"TERM\":\"dumb\",\"PS1\":\"$ \"");
	StartOptions tty = {.env = env, .tty = TRUE};
	g_autoptr(GPtrArray) events = NULL;
	g_autofree gchar *streams = NULL;
	gsize pos;

	conn_start_ok(conn, "tty1", "[\"/bin/bash\",\"--norc\",\"--noprofile\",\"-i\"]", &tty);
	pos = conn_wait_output(conn, "tty1", 0, "$ ", WAIT_MS);
	conn_write(conn, "tty1", "t1", "stty size; tty; echo $((6*7))\n", "accepted");
	pos = conn_wait_output(conn, "tty1", pos, "42\r\n", WAIT_MS);
	g_assert_nonnull(strstr(conn_output(conn, "tty1"), "24 80\r\n"));
	g_assert_nonnull(strstr(conn_output(conn, "tty1"), "/dev/pts/"));
	/*
	 * the prompt again, then a moment: bash 5.2 just after printing its
	 * prompt may swallow an interrupt (^C, no new prompt; a ^C typed into
	 * the terminal does the same), so let it settle into reading input
	 */
	pos = conn_wait_output(conn, "tty1", pos, "$ ", WAIT_MS);
	wait_ms(300);
	conn_assert_call(conn,
			 "process/signal",
			 "{\"processId\":\"tty1\",\"signal\":\"interrupt\"}",
			 "{}");
	pos = conn_wait_output(conn, "tty1", pos, "^C", WAIT_MS);
	pos = conn_wait_output(conn, "tty1", pos, "$ ", WAIT_MS);
	conn_assert_error(conn,
			  "process/signal",
			  "{\"processId\":\"tty1\",\"signal\":\"kill\"}",
			  -32602,
			  "unknown variant `kill`, expected `interrupt`",
			  NULL);
	/* bash survived the interrupt */
	conn_write(conn, "tty1", "t2", "echo alive\n", "accepted");
	pos = conn_wait_output(conn, "tty1", pos, "alive\r\n", WAIT_MS);
	conn_write(conn, "tty1", "t3", "exit 5\n", "accepted");
	events = conn_wait_closed(conn, "tty1", WAIT_MS);
	assert_event_sequence(events, 5);
	/* one stream, pty */
	streams = events_stream(events, "pty");
	g_assert_cmpstr(streams, ==, conn_output(conn, "tty1"));
	/* a write to a closed terminal is still accepted (§8.4) */
	conn_write(conn, "tty1", "t4", "x", "accepted");
	{
		g_autofree gchar *params = read_params("tty1", 0, 10, 0);
		JsonNode *result = conn_call_result(conn, "process/read", params);
		g_assert_cmpint(esd_test_json_get_int(result, "exitCode"), ==, 5);
		g_assert_cmpuint(
		    json_array_get_length(json_node_get_array(esd_test_json_get(result, "chunks"))),
		    ==,
		    1);
		g_assert_cmpint(esd_test_json_get_int(result, "nextSeq"), ==, 2);
	}
}

/* an interrupt reaches the terminal's foreground job, not just the shell */
static void
test_tty_interrupt_job(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	g_autofree gchar *env =
	    env_with_mark("\"PATH\":\"/usr/bin:/bin\",\"TERM\":\"dumb\",\"PS1\":\"$ \"");
	StartOptions tty = {.env = env, .tty = TRUE};
	gsize pos;

	conn_start_ok(conn, "tty2", "[\"/bin/bash\",\"--norc\",\"--noprofile\",\"-i\"]", &tty);
	pos = conn_wait_output(conn, "tty2", 0, "$ ", WAIT_MS);
	conn_write(conn, "tty2", "t1", "echo start; sleep 30\n", "accepted");
	pos = conn_wait_output(conn, "tty2", pos, "start\r\n", WAIT_MS);
	wait_ms(300);
	conn_assert_call(conn,
			 "process/signal",
			 "{\"processId\":\"tty2\",\"signal\":\"interrupt\"}",
			 "{}");
	pos = conn_wait_output(conn, "tty2", pos, "$ ", WAIT_MS);
	wait_ms(300);
	conn_write(conn, "tty2", "t2", "echo status=$?\n", "accepted");
	conn_wait_output(conn, "tty2", pos, "status=130\r\n", WAIT_MS);
	/* terminate works on a terminal too */
	conn_kill(conn, "tty2");
}

/* with a terminal and no SHELL in env, SHELL is added; nothing else */
static void
test_tty_env(Fixture *fx, gconstpointer user_data)
{
	StartOptions bare = {.env = "{\"PATH\":\"/usr/bin:/bin\"}", .tty = TRUE};
	StartOptions with_shell = {.env = "{\"PATH\":\"/usr/bin:/bin\",\"SHELL\":\"/bin/custom\"}",
				   .tty = TRUE};
	StartOptions pipes = {.env = "{\"PATH\":\"/usr/bin:/bin\"}"};
	g_autofree gchar *out1 = conn_run_output(fx->conn, "te1", "[\"env\"]", &bare, 0);
	g_autofree gchar *out2 = conn_run_output(fx->conn, "te2", "[\"env\"]", &with_shell, 0);
	g_autofree gchar *out3 = conn_run_output(fx->conn, "te3", "[\"env\"]", &pipes, 0);
	g_auto(GStrv) lines = g_strsplit(out1, "\r\n", -1);

	g_assert_cmpuint(g_strv_length(lines), ==, 3);
	g_assert_true(g_strv_contains((const gchar *const *)lines, "PATH=/usr/bin:/bin"));
	g_assert_true(g_str_has_prefix(lines[0], "SHELL=/") ||
		      g_str_has_prefix(lines[1], "SHELL=/"));
	g_assert_cmpstr(lines[2], ==, "");
	g_assert_true(g_str_equal(out2, "PATH=/usr/bin:/bin\r\nSHELL=/bin/custom\r\n") ||
		      g_str_equal(out2, "SHELL=/bin/custom\r\nPATH=/usr/bin:/bin\r\n"));
	g_assert_cmpstr(out3, ==, "PATH=/usr/bin:/bin\n");
}

/* interrupt to a process without a terminal: SIGINT to its group, the trap runs */
static void
test_signal_trap(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	g_autofree gchar *argv =
	    sh_argv("trap 'echo got; kill $! 2>/dev/null; exit 7' INT; echo ready; sleep 5 & wait");
	g_autoptr(GPtrArray) events = NULL;

	conn_start_ok(conn, "trap", argv, NULL);
	conn_wait_output(conn, "trap", 0, "ready\n", WAIT_MS);
	conn_assert_call(conn,
			 "process/signal",
			 "{\"processId\":\"trap\",\"signal\":\"interrupt\"}",
			 "{}");
	events = conn_wait_closed(conn, "trap", WAIT_MS);
	assert_event_sequence(events, 7);
	g_assert_cmpstr(conn_output(conn, "trap"), ==, "ready\ngot\n");
}

/* without a trap, an interrupt ends the command as SIGINT does: 128 + 2 */
static void
test_signal_default(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *argv = sh_argv("echo ready; exec sleep 30");
	g_autoptr(GPtrArray) events = NULL;

	conn_start_ok(fx->conn, "sleeper", argv, NULL);
	conn_wait_output(fx->conn, "sleeper", 0, "ready\n", WAIT_MS);
	wait_ms(200);
	conn_assert_call(fx->conn,
			 "process/signal",
			 "{\"processId\":\"sleeper\",\"signal\":\"interrupt\"}",
			 "{}");
	events = conn_wait_closed(fx->conn, "sleeper", WAIT_MS);
	assert_event_sequence(events, 130);
}

static void
test_signal_errors(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;

	conn_assert_call(conn,
			 "process/signal",
			 "{\"processId\":\"ghost\",\"signal\":\"interrupt\"}",
			 "{}");
	g_ptr_array_unref(conn_run(conn, "done", "[\"true\"]", NULL, 0));
	conn_assert_call(conn,
			 "process/signal",
			 "{\"processId\":\"done\",\"signal\":\"interrupt\"}",
			 "{}");
	conn_assert_error(conn,
			  "process/signal",
			  "{\"processId\":\"done\",\"signal\":\"kill\"}",
			  -32602,
			  "unknown variant `kill`, expected `interrupt`",
			  NULL);
	conn_assert_error(conn,
			  "process/signal",
			  "{\"processId\":\"done\",\"signal\":\"Interrupt\"}",
			  -32602,
			  "unknown variant `Interrupt`, expected `interrupt`",
			  NULL);
	conn_assert_error(conn,
			  "process/signal",
			  "{\"processId\":\"done\"}",
			  -32602,
			  "missing field `signal`",
			  NULL);
	conn_assert_error(conn,
			  "process/terminate",
			  "{}",
			  -32602,
			  "missing field `processId`",
			  NULL);
}

/* 6. terminate (transcripts.md "process/terminate") */
static void
test_terminate(Fixture *fx, gconstpointer user_data)
{
	Conn *conn = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *sleeper = g_strdup_printf("[\"sleep\",\"4%u\"]", test_counter);
	g_autoptr(GPtrArray) events = NULL;

	conn_start_ok(conn, "cat", "[\"cat\"]", &cat);
	conn_start_ok(conn, "nostdin", sleeper, NULL);
	conn_kill(conn, "cat");
	conn_terminate(conn, "cat", FALSE);
	conn_terminate(conn, "never-existed", FALSE);
	conn_kill(conn, "nostdin");
	conn_terminate(conn, "nostdin", FALSE);
	/* ended by itself */
	events = conn_run(conn, "done", "[\"true\"]", NULL, 0);
	conn_terminate(conn, "done", FALSE);
	/* still readable, with the kill's exit code */
	{
		JsonNode *result =
		    conn_call_result(conn, "process/read", "{\"processId\":\"cat\"}");
		g_assert_cmpint(esd_test_json_get_int(result, "exitCode"), ==, 137);
		g_assert_true(
		    json_object_get_boolean_member(json_node_get_object(result), "closed"));
	}
}

/* 7. sessions (§5.2), WebSocket only */

static Conn *
conn_resume(Fixture *fx, const gchar *session_id)
{
	g_autofree gchar *request =
	    g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\","
			    "\"resumeSessionId\":\"%s\"}}",
			    session_id);
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	/* the daemon learns of the old connection's end a little after the client */
	for (;;) {
		g_autoptr(Conn) conn = conn_new_ws(fx);
		g_autoptr(JsonNode) reply = esd_test_peer_call(conn->peer, request);

		if (esd_test_json_get(reply, "result") != NULL) {
			g_assert_cmpstr(esd_test_json_get_string(reply, "result.sessionId"),
					==,
					session_id);
			esd_test_peer_send_text(conn->peer, "{\"method\":\"initialized\"}");
			return g_steal_pointer(&conn);
		}
		esd_test_peer_assert_reply_error(reply, "1", -32010, "*");
		esd_test_ws_client_close(conn->client);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		esd_test_iterate(20);
	}
}

static Conn *
conn_new_session(Fixture *fx)
{
	Conn *conn = conn_new_ws(fx);
	g_free(esd_test_peer_handshake(conn->peer));
	return conn;
}

/* reads with afterSeq from @after_seq until the process closed (or @needle showed); returns the
 * data */
static GString *
conn_read_until(Conn *conn,
		const gchar *process_id,
		guint64 after_seq,
		const gchar *needle,
		gint *exit_code)
{
	GString *data = g_string_new(NULL);
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	for (;;) {
		g_autofree gchar *params = read_params(process_id, after_seq, -1, 500);
		JsonNode *result = conn_call_result(conn, "process/read", params);
		JsonArray *chunks = json_node_get_array(esd_test_json_get(result, "chunks"));
		guint64 next_seq = (guint64)esd_test_json_get_int(result, "nextSeq");

		for (guint i = 0; i < json_array_get_length(chunks); i++) {
			JsonNode *chunk = json_array_get_element(chunks, i);
			g_autofree guchar *bytes = NULL;
			gsize len = 0;
			guint64 seq = (guint64)esd_test_json_get_int(chunk, "seq");

			/* retained output is newest-first evicted, never reordered */
			g_assert_cmpuint(seq, >, after_seq);
			after_seq = seq;
			bytes = g_base64_decode(esd_test_json_get_string(chunk, "chunk"), &len);
			g_string_append_len(data, (const gchar *)bytes, (gssize)len);
		}
		g_assert_cmpuint(next_seq, >, after_seq);
		after_seq = next_seq - 1;
		if (exit_code != NULL &&
		    json_object_get_boolean_member(json_node_get_object(result), "exited"))
			*exit_code = (gint)esd_test_json_get_int(result, "exitCode");
		if (needle != NULL
			? strstr(data->str, needle) != NULL
			: json_object_get_boolean_member(json_node_get_object(result), "closed"))
			return data;
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
	}
}

/* transcripts.md B.5 */
static void
test_session_resume(Fixture *fx, gconstpointer user_data)
{
	Conn *a = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *argv = sh_argv("echo start; sleep 1; echo after; exit 7");
	g_autofree gchar *start_b64 = b64("start\n");
	g_autofree gchar *after_b64 = b64("after\n");
	g_autofree gchar *expected = g_strdup_printf(
	    "{\"chunks\":[{\"seq\":1,\"stream\":\"stdout\",\"chunk\":\"%s\"},{\"seq\":2,\"stream\":"
	    "\"stdout\",\"chunk\":\"%s\"}],\"nextSeq\":5,\"exited\":true,\"exitCode\":7,"
	    "\"closed\":true,\"failure\":null,\"sandboxDenied\":false}",
	    start_b64,
	    after_b64);
	g_autoptr(Conn) b = NULL;
	g_autoptr(GPtrArray) b_events = NULL;
	g_autoptr(GString) cat_data = NULL;

	conn_start_ok(a, "long", argv, NULL);
	conn_start_ok(a, "cat", "[\"cat\"]", &cat);
	conn_write(a, "cat", "w1", "hello\n", "accepted");
	conn_wait_output(a, "cat", 0, "hello\n", WAIT_MS);
	conn_wait_output(a, "long", 0, "start\n", WAIT_MS);
	esd_test_ws_client_close(a->client);
	/* "long" ends while nobody is attached */
	wait_ms(1500);
	b = conn_resume(fx, fx->session_id);
	conn_sync(b);
	/* notifications of the detached time are not replayed */
	b_events = conn_events(b, "long");
	g_assert_cmpuint(b_events->len, ==, 0);
	conn_assert_call(b, "process/read", "{\"processId\":\"long\",\"afterSeq\":0}", expected);
	/* the writeId cache survived: w1 is not written again */
	conn_write(b, "cat", "w1", "hello\n", "accepted");
	conn_write(b, "cat", "w2", "x\n", "accepted");
	cat_data = conn_read_until(b, "cat", 0, "x\n", NULL);
	g_assert_cmpstr(cat_data->str, ==, "hello\nx\n");
	/* seq 1 was sent to A */
	conn_kill_from(b, "cat", 2);
	g_clear_pointer(&fx->conn, conn_free);
	fx->conn = g_steal_pointer(&b);
}

/* a new session sees none of another's processes, and may reuse their ids */
static void
test_session_isolation(Fixture *fx, gconstpointer user_data)
{
	Conn *a = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autoptr(Conn) c = conn_new_session(fx);
	JsonNode *result;

	conn_start_ok(a, "cat", "[\"cat\"]", &cat);
	conn_assert_error(c,
			  "process/read",
			  "{\"processId\":\"cat\"}",
			  -32600,
			  "unknown process id cat",
			  NULL);
	conn_write(c, "cat", "w", "x\n", "unknownProcess");
	conn_assert_call(c,
			 "process/signal",
			 "{\"processId\":\"cat\",\"signal\":\"interrupt\"}",
			 "{}");
	conn_terminate(c, "cat", FALSE);
	g_ptr_array_unref(conn_run(c, "cat", "[\"true\"]", NULL, 0));
	conn_write(c, "cat", "w", "x\n", "stdinClosed");
	/* A's cat is untouched: running, nothing written, and its events went to A only */
	result = conn_call_result(a, "process/read", "{\"processId\":\"cat\"}");
	g_assert_false(json_object_get_boolean_member(json_node_get_object(result), "exited"));
	esd_assert_json_node_eq(esd_test_json_get(result, "chunks"), "[]");
	g_assert_cmpuint(g_hash_table_size(a->outputs), ==, 0);
	conn_kill(a, "cat");
	conn_sync(c);
	{
		g_autoptr(GPtrArray) c_events = conn_events(c, "cat");
		g_assert_cmpuint(c_events->len, ==, 2);
	}
	esd_test_ws_client_close(c->client);
}

static void
test_session_resume_attached(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(Conn) b = conn_new_ws(fx);
	g_autofree gchar *request =
	    g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"B\","
			    "\"resumeSessionId\":\"%s\"}}",
			    fx->session_id);
	g_autofree gchar *message =
	    g_strdup_printf("session %s is already attached to another connection", fx->session_id);
	g_autofree gchar *fresh = NULL;

	g_ptr_array_unref(conn_run(fx->conn, "p", "[\"true\"]", NULL, 0));
	esd_test_peer_assert_error(b->peer, request, "1", -32010, message);
	conn_sync(fx->conn);
	fresh = esd_test_peer_handshake(b->peer);
	g_assert_cmpstr(fresh, !=, fx->session_id);
	conn_assert_error(b,
			  "process/read",
			  "{\"processId\":\"p\"}",
			  -32600,
			  "unknown process id p",
			  NULL);
	esd_test_ws_client_close(b->client);
}

/* 9. what the Codex client does after a dropped connection: nothing lost, nothing twice */
static void
test_session_reconnect(Fixture *fx, gconstpointer user_data)
{
	Conn *a = fx->conn;
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *argv =
	    sh_argv("i=0; while [ $i -lt 20 ]; do echo line$i; i=$((i+1)); sleep 0.05; done");
	g_autofree gchar *chunk = b64("ping\n");
	g_autofree gchar *write_params =
	    g_strdup_printf("{\"processId\":\"cat\",\"chunk\":\"%s\",\"writeId\":\"w-7\"}", chunk);
	g_autoptr(GString) expected = g_string_new(NULL);
	g_autoptr(GString) seen = g_string_new(NULL);
	g_autoptr(GPtrArray) a_events = NULL;
	g_autoptr(GString) rest = NULL;
	g_autoptr(GString) cat_data = NULL;
	g_autoptr(Conn) b = NULL;
	guint64 last_seq = 0;
	gint exit_code = -1;

	for (guint i = 0; i < 20; i++)
		g_string_append_printf(expected, "line%u\n", i);
	conn_start_ok(a, "cat", "[\"cat\"]", &cat);
	conn_start_ok(a, "prod", argv, NULL);
	conn_wait_output(a, "prod", 0, "line5\n", WAIT_MS);
	/* the write goes out, the connection drops before its answer is read */
	conn_request(a, "process/write", write_params);
	esd_test_ws_client_abort(a->client);
	a_events = conn_events(a, "prod");
	for (guint i = 0; i < a_events->len; i++) {
		JsonNode *ev = g_ptr_array_index(a_events, i);
		g_autofree guchar *data = NULL;
		gsize len = 0;
		if (g_strcmp0(esd_test_json_get_string(ev, "method"), "process/output") != 0)
			break;
		g_assert_cmpint(esd_test_json_get_int(ev, "params.seq"), ==, (gint64)last_seq + 1);
		last_seq++;
		data = g_base64_decode(esd_test_json_get_string(ev, "params.chunk"), &len);
		g_string_append_len(seen, (const gchar *)data, (gssize)len);
	}

	b = conn_resume(fx, fx->session_id);
	rest = conn_read_until(b, "prod", last_seq, NULL, &exit_code);
	g_string_append_len(seen, rest->str, (gssize)rest->len);
	g_assert_cmpstr(seen->str, ==, expected->str);
	g_assert_cmpint(exit_code, ==, 0);
	/* the write is resent with its writeId: written once, whether or not it got through */
	conn_assert_call(b, "process/write", write_params, "{\"status\":\"accepted\"}");
	conn_write(b, "cat", "w-8", "pong\n", "accepted");
	cat_data = conn_read_until(b, "cat", 0, "pong\n", NULL);
	g_assert_cmpstr(cat_data->str, ==, "ping\npong\n");
	/* the output of ping may have gone to A */
	conn_kill_from(b, "cat", 0);
	g_clear_pointer(&fx->conn, conn_free);
	fx->conn = g_steal_pointer(&b);
}

/* finds the pid of the process whose argv is exactly @argv */
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

/* the connection goes while a long poll is pending: the session survives, and so does the daemon */
static void
test_session_drop_during_long_poll(Fixture *fx, gconstpointer user_data)
{
	StartOptions cat = {.extra = "\"pipeStdin\":true"};
	g_autofree gchar *poll = read_params("cat", 0, -1, 3000);
	g_autoptr(Conn) b = NULL;
	g_autoptr(GString) data = NULL;

	conn_start_ok(fx->conn, "cat", "[\"cat\"]", &cat);
	conn_request(fx->conn, "process/read", poll);
	conn_request(fx->conn, "environment/status", NULL);
	wait_ms(100);
	esd_test_ws_client_abort(fx->conn->client);
	b = conn_resume(fx, fx->session_id);
	conn_sync(b);
	conn_write(b, "cat", "w", "after\n", "accepted");
	data = conn_read_until(b, "cat", 0, "after\n", NULL);
	g_assert_cmpstr(data->str, ==, "after\n");
	conn_kill_from(b, "cat", 0);
	/* the old poll's timer fires into nothing */
	wait_ms(3000);
	conn_sync(b);
	g_clear_pointer(&fx->conn, conn_free);
	fx->conn = g_steal_pointer(&b);
}

/* --session-grace 1: a detached session expires and its processes are killed */
static void
test_session_expiry(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *seconds = g_strdup_printf("5%u.%d", test_counter, getpid());
	const gchar *sleep_argv[] = {"sleep", seconds, NULL};
	g_autofree gchar *argv = g_strdup_printf("[\"sleep\",\"%s\"]", seconds);
	g_autofree gchar *request =
	    g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\","
			    "\"resumeSessionId\":\"%s\"}}",
			    fx->session_id);
	g_autofree gchar *message = g_strdup_printf("unknown session id %s", fx->session_id);
	g_autoptr(Conn) c = NULL;
	gint pid = -1;

	conn_start_ok(fx->conn, "sleeper", argv, NULL);
	ESD_WAIT_UNTIL((pid = find_argv(sleep_argv)) > 0, WAIT_MS);
	esd_test_ws_client_close(fx->conn->client);
	/* grace 1 s, then the kill */
	ESD_WAIT_UNTIL(kill(pid, 0) != 0, 4000);
	c = conn_new_ws(fx);
	esd_test_peer_assert_error(c->peer, request, "1", -32600, message);
	g_clear_pointer(&fx->conn, conn_free);
	fx->conn = g_steal_pointer(&c);
	g_free(esd_test_peer_handshake(fx->conn->peer));
}

/*
 * afterSeq, maxBytes and waitMs are u64 (usize for maxBytes): every value up
 * to 2^64-1 is a valid request that gets an answer for its id
 */
static void
test_u64_params(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *argv = sh_argv("echo a; echo bb >&2");
	g_autoptr(GPtrArray) events = conn_run(fx->conn, "m", argv, NULL, 0);
	g_autofree gchar *all_max = expected_read(events, 0, TRUE, G_MAXUINT64);
	g_autofree gchar *none = expected_read(events, G_MAXUINT64, FALSE, 0);
	g_autofree gchar *all = expected_read(events, 0, FALSE, 0);
	const gchar *params[] = {
	    "{\"processId\":\"m\",\"maxBytes\":18446744073709551615}",
	    "{\"processId\":\"m\",\"afterSeq\":18446744073709551615}",
	    "{\"processId\":\"m\",\"waitMs\":18446744073709551615}",
	    "{\"processId\":\"m\",\"afterSeq\":9223372036854775808}",
	};
	const gchar *expected[] = {all_max, none, all, none};

	for (guint i = 0; i < G_N_ELEMENTS(params); i++) {
		guint id = conn_request(fx->conn, "process/read", params[i]);
		JsonNode *reply = conn_receive(fx->conn, WAIT_MS);
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_autofree gchar *want =
		    g_strdup_printf("{\"id\":%u,\"result\":%s}", id, expected[i]);

		if (esd_test_json_get(reply, "id") == NULL ||
		    esd_test_json_get_int(reply, "id") != (gint64)id)
			g_error("process/read %s is answered with %s", params[i], text);
		esd_assert_json_node_eq(reply, want);
	}
}

/* registration */

static const gchar *const no_args[] = {NULL};
static const gchar *const concurrent_args[] = {"--concurrent-requests", "2", NULL};
static const gchar *const retention_args[] = {"--process-retention", "1", NULL};
static const gchar *const grace_args[] = {"--session-grace", "1", NULL};

static GPtrArray *variants = NULL;

typedef void (*FixtureFunc)(Fixture *fx, gconstpointer user_data);

static void
add(const gchar *name, gboolean ws_only, const gchar *const *args, FixtureFunc func)
{
	for (guint i = 0; i < (ws_only ? 1u : 2u); i++) {
		Variant *variant = g_new0(Variant, 1);
		g_autofree gchar *path = NULL;
		g_autofree gchar *group = g_path_get_dirname(name);
		g_autofree gchar *base = g_path_get_basename(name);

		variant->ws = i == 0;
		variant->args = args;
		g_ptr_array_add(variants, variant);
		/* group/transport/case for the u64 suite, which must run last; transport/group/case
		 * otherwise */
		if (g_str_equal(group, "u64"))
			path = g_strdup_printf(PROCESS_TEST "%s/%s/%s",
					       group,
					       variant->ws ? "ws" : "stdio",
					       base);
		else
			path = g_strdup_printf(PROCESS_TEST "%s/%s",
					       variant->ws ? "ws" : "stdio",
					       name);
		g_test_add(path, Fixture, variant, fixture_setup, func, fixture_teardown);
	}
}

int
main(int argc, char **argv)
{
	gint rc;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	g_log_set_handler(G_LOG_DOMAIN, G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL, error_log_cb, NULL);
	variants = g_ptr_array_new_with_free_func(g_free);

	add("start/output-exit", FALSE, no_args, test_output_exit);
	add("start/env-exact", FALSE, no_args, test_env_exact);
	add("start/arg0", FALSE, no_args, test_arg0);
	add("start/stdin", FALSE, no_args, test_stdin);
	add("start/no-leaked-fds", FALSE, no_args, test_no_leaked_fds);
	add("start/env-policy", FALSE, no_args, test_env_policy);
	add("start/errors", FALSE, no_args, test_start_errors);
	add("start/sandbox-allowed", FALSE, no_args, test_sandbox_allowed);
	add("start/duplicate-id", FALSE, no_args, test_duplicate_id);
	add("start/cwd", FALSE, no_args, test_cwd);
	add("start/odd-process-id", FALSE, no_args, test_odd_process_id);
	add("start/many", FALSE, no_args, test_many);
	add("start/closed-waits-for-eof", FALSE, no_args, test_closed_waits_for_eof);
	add("read/max-bytes", FALSE, no_args, test_read_max_bytes);
	add("read/long-poll", FALSE, no_args, test_read_long_poll);
	add("read/wait-timeout", FALSE, no_args, test_read_wait_timeout);
	add("read/serial", FALSE, no_args, test_read_serial);
	add("read/concurrent", FALSE, concurrent_args, test_read_concurrent);
	add("read/errors", FALSE, no_args, test_read_errors);
	add("read/long-poll-terminate", FALSE, concurrent_args, test_long_poll_terminate);
	add("read/retention", FALSE, retention_args, test_retention);
	add("write/cat", FALSE, no_args, test_write_cat);
	add("write/id-window", FALSE, no_args, test_write_id_window);
	add("write/retry-after-exit", FALSE, no_args, test_write_retry_after_exit);
	add("write/errors", FALSE, no_args, test_write_errors);
	add("write/while-starting", FALSE, concurrent_args, test_write_while_starting);
	add("tty/bash", FALSE, no_args, test_tty_bash);
	add("tty/env", FALSE, no_args, test_tty_env);
	add("tty/interrupt-job", FALSE, no_args, test_tty_interrupt_job);
	add("signal/trap", FALSE, no_args, test_signal_trap);
	add("signal/default", FALSE, no_args, test_signal_default);
	add("signal/errors", FALSE, no_args, test_signal_errors);
	add("terminate/basic", FALSE, no_args, test_terminate);
	add("sessions/resume", TRUE, no_args, test_session_resume);
	add("sessions/isolation", TRUE, no_args, test_session_isolation);
	add("sessions/resume-attached", TRUE, no_args, test_session_resume_attached);
	add("sessions/reconnect", TRUE, no_args, test_session_reconnect);
	add("sessions/expiry", TRUE, grace_args, test_session_expiry);
	add("sessions/drop-during-long-poll", TRUE, no_args, test_session_drop_during_long_poll);

	/* last, in a suite of their own: they fail on the daemon as it is */
	add("u64/read-params", FALSE, no_args, test_u64_params);

	rc = g_test_run();
	g_ptr_array_unref(variants);
	g_free(test_mark);
	return rc;
}
