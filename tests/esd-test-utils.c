/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "esd-test-utils.h"

/* iteration and waiting */

static gboolean
esd_test_iterate_timeout_cb(gpointer user_data)
{
	gboolean *fired = user_data;
	*fired = TRUE;
	return G_SOURCE_REMOVE;
}

/**
 * esd_test_iterate:
 * @max_ms: the longest the iteration may block
 *
 * Runs one iteration of the default main context, blocking for at most
 * @max_ms when nothing is ready.
 */
void
esd_test_iterate(guint max_ms)
{
	gboolean fired = FALSE;
	guint id = g_timeout_add(max_ms, esd_test_iterate_timeout_cb, &fired);

	g_main_context_iteration(NULL, TRUE);
	if (!fired)
		g_source_remove(id);
}

/*
 * ESD_TEST_TIMEOUT_SCALE (a whole number, default 1) stretches the waits of
 * the shared clients: the sanitizer build, with full stack unwinding on
 * every allocation, runs a TLS handshake several times slower
 */
static guint
esd_test_timeout_scale(void)
{
	static guint scale = 0;

	if (scale == 0) {
		guint64 value = g_ascii_strtoull(g_getenv("ESD_TEST_TIMEOUT_SCALE") != NULL
						     ? g_getenv("ESD_TEST_TIMEOUT_SCALE")
						     : "1",
						 NULL,
						 10);
		scale = value >= 1 && value <= 100 ? (guint)value : 1;
	}
	return scale;
}

/* iterates until *done; on timeout cancels, lets the callback run, then fails */
static void
esd_test_wait_async(const gboolean *done,
		    GCancellable *cancellable,
		    guint timeout_ms,
		    const gchar *what)
{
	gint64 deadline =
	    g_get_monotonic_time() + (gint64)timeout_ms * 1000 * esd_test_timeout_scale();
	g_autofree gchar *msg = NULL;

	while (!*done && g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
	if (*done)
		return;
	if (cancellable != NULL)
		g_cancellable_cancel(cancellable);
	deadline = g_get_monotonic_time() + G_USEC_PER_SEC;
	while (!*done && g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
	msg = g_strdup_printf("timed out after %u ms: %s", timeout_ms, what);
	g_assertion_message(G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, msg);
}

/* set by esd_test_known_bug(), cleared by esd_test_take_known_bug() */
static gboolean esd_test_known_bug_seen = FALSE;

/**
 * esd_test_known_bug:
 * @format: printf-style description of the daemon bug
 *
 * Fails the running test with a description of the daemon's misbehaviour,
 * and lets its teardown know (esd_test_take_known_bug()) that the daemon may
 * be in a state the usual checks do not expect. The caller returns right
 * after.
 */
void
esd_test_known_bug(const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *msg = NULL;

	esd_test_known_bug_seen = TRUE;
	va_start(args, format);
	msg = g_strdup_vprintf(format, args);
	va_end(args);
	/* one TAP line */
	g_strdelimit(msg, "\r\n", ' ');
	g_printerr("DAEMON BUG: %s\n", msg);
	g_test_fail_printf("daemon bug: %s", msg);
}

/**
 * esd_test_take_known_bug:
 *
 * Lets a teardown relax its checks after esd_test_known_bug().
 *
 * Returns: %TRUE if esd_test_known_bug() was called since the last call
 */
gboolean
esd_test_take_known_bug(void)
{
	gboolean seen = esd_test_known_bug_seen;
	esd_test_known_bug_seen = FALSE;
	return seen;
}

/* JSON */

static JsonNode *
esd_test_json_parse_len(const gchar *json, gssize len)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;

	if (!json_parser_load_from_data(parser, json, len, &error))
		g_error("invalid JSON in test: %s: %.*s", error->message, (gint)len, json);
	g_assert_nonnull(json_parser_get_root(parser));
	return json_parser_steal_root(parser);
}

/**
 * esd_test_json_parse:
 * @json: JSON text, which must be valid
 *
 * Returns: (transfer full): the parsed value
 */
JsonNode *
esd_test_json_parse(const gchar *json)
{
	return esd_test_json_parse_len(json, -1);
}

/**
 * esd_test_json_to_string:
 * @node: (nullable): a value
 *
 * Returns: (transfer full): compact JSON text, or "(missing)"
 */
gchar *
esd_test_json_to_string(JsonNode *node)
{
	if (node == NULL)
		return g_strdup("(missing)");
	return json_to_string(node, FALSE);
}

/**
 * esd_test_json_get:
 * @node: (nullable): a value
 * @path: member names separated by dots; a number indexes an array
 *
 * Returns: (transfer none) (nullable): the value at @path, e.g.
 * `error.code` or `result.environmentInfo.shell.path`
 */
JsonNode *
esd_test_json_get(JsonNode *node, const gchar *path)
{
	g_auto(GStrv) parts = g_strsplit(path, ".", -1);

	for (guint i = 0; parts[i] != NULL && node != NULL; i++) {
		if (JSON_NODE_HOLDS_OBJECT(node)) {
			JsonObject *obj = json_node_get_object(node);
			node = json_object_get_member(obj, parts[i]);
		} else if (JSON_NODE_HOLDS_ARRAY(node)) {
			JsonArray *array = json_node_get_array(node);
			guint64 idx = 0;
			if (!g_ascii_string_to_unsigned(parts[i], 10, 0, G_MAXUINT, &idx, NULL) ||
			    idx >= json_array_get_length(array))
				return NULL;
			node = json_array_get_element(array, (guint)idx);
		} else {
			return NULL;
		}
	}
	return node;
}

static JsonNode *
esd_test_json_get_value(JsonNode *node, const gchar *path, GType gtype)
{
	JsonNode *value = esd_test_json_get(node, path);
	if (value == NULL || !JSON_NODE_HOLDS_VALUE(value) ||
	    json_node_get_value_type(value) != gtype) {
		g_autofree gchar *text = esd_test_json_to_string(node);
		g_error("%s is missing or not a %s in %s", path, g_type_name(gtype), text);
	}
	return value;
}

/**
 * esd_test_json_get_string:
 * @node: a value
 * @path: see esd_test_json_get()
 *
 * Returns: the string at @path; the test fails if it is not a string
 */
const gchar *
esd_test_json_get_string(JsonNode *node, const gchar *path)
{
	return json_node_get_string(esd_test_json_get_value(node, path, G_TYPE_STRING));
}

/**
 * esd_test_json_get_int:
 * @node: a value
 * @path: see esd_test_json_get()
 *
 * Returns: the integer at @path; the test fails if it is not an integer
 */
gint64
esd_test_json_get_int(JsonNode *node, const gchar *path)
{
	return json_node_get_int(esd_test_json_get_value(node, path, G_TYPE_INT64));
}

static gboolean
esd_test_json_value_equal(JsonNode *a, JsonNode *b)
{
	GType gtype = json_node_get_value_type(a);

	if (gtype != json_node_get_value_type(b))
		return FALSE;
	if (gtype == G_TYPE_INT64)
		return json_node_get_int(a) == json_node_get_int(b);
	if (gtype == G_TYPE_DOUBLE)
		return json_node_get_double(a) <= json_node_get_double(b) &&
		       json_node_get_double(a) >= json_node_get_double(b);
	if (gtype == G_TYPE_BOOLEAN)
		return json_node_get_boolean(a) == json_node_get_boolean(b);
	if (gtype == G_TYPE_STRING)
		return g_strcmp0(json_node_get_string(a), json_node_get_string(b)) == 0;
	return FALSE;
}

/**
 * esd_test_json_equal:
 * @a: a value
 * @b: a value
 *
 * Structural equality: object member order does not matter, value types do.
 *
 * Returns: %TRUE if @a and @b are the same JSON value
 */
gboolean
esd_test_json_equal(JsonNode *a, JsonNode *b)
{
	if (JSON_NODE_TYPE(a) != JSON_NODE_TYPE(b))
		return FALSE;
	switch (JSON_NODE_TYPE(a)) {
	case JSON_NODE_NULL:
		return TRUE;
	case JSON_NODE_VALUE:
		return esd_test_json_value_equal(a, b);
	case JSON_NODE_ARRAY: {
		JsonArray *aa = json_node_get_array(a);
		JsonArray *ab = json_node_get_array(b);
		if (json_array_get_length(aa) != json_array_get_length(ab))
			return FALSE;
		for (guint i = 0; i < json_array_get_length(aa); i++) {
			if (!esd_test_json_equal(json_array_get_element(aa, i),
						 json_array_get_element(ab, i)))
				return FALSE;
		}
		return TRUE;
	}
	case JSON_NODE_OBJECT: {
		JsonObject *oa = json_node_get_object(a);
		JsonObject *ob = json_node_get_object(b);
		g_autoptr(GList) members = json_object_get_members(oa);
		if (json_object_get_size(oa) != json_object_get_size(ob))
			return FALSE;
		for (GList *l = members; l != NULL; l = l->next) {
			JsonNode *mb = json_object_get_member(ob, l->data);
			if (mb == NULL ||
			    !esd_test_json_equal(json_object_get_member(oa, l->data), mb))
				return FALSE;
		}
		return TRUE;
	}
	default:
		return FALSE;
	}
}

/* the implementation of esd_assert_json_eq() and esd_assert_json_node_eq() */
void
esd_test_assert_json_eq_impl(const gchar *file,
			     gint line,
			     const gchar *func,
			     JsonNode *actual,
			     const gchar *expected_json)
{
	g_autoptr(JsonNode) expected = esd_test_json_parse(expected_json);
	g_autofree gchar *actual_text = NULL;
	g_autofree gchar *expected_text = NULL;
	g_autofree gchar *msg = NULL;

	if (actual != NULL && esd_test_json_equal(actual, expected))
		return;
	actual_text = esd_test_json_to_string(actual);
	expected_text = esd_test_json_to_string(expected);
	msg = g_strdup_printf("JSON mismatch:\n  actual:   %s\n  expected: %s",
			      actual_text,
			      expected_text);
	g_assertion_message(G_LOG_DOMAIN, file, line, func, msg);
}

/* EsdTestPeer */

G_DEFINE_INTERFACE(EsdTestPeer, esd_test_peer, G_TYPE_OBJECT)

static void
esd_test_peer_default_init(EsdTestPeerInterface *iface)
{
}

/**
 * esd_test_peer_send:
 * @self: a peer
 * @data: the message bytes, sent as they are
 * @len: length of @data
 *
 * Sends one message (stdio: one line; WebSocket: one text frame).
 */
void
esd_test_peer_send(EsdTestPeer *self, const gchar *data, gsize len)
{
	ESD_TEST_PEER_GET_IFACE(self)->send(self, data, len);
}

/**
 * esd_test_peer_send_text:
 * @self: a peer
 * @text: the message
 *
 * Sends one message.
 */
void
esd_test_peer_send_text(EsdTestPeer *self, const gchar *text)
{
	esd_test_peer_send(self, text, strlen(text));
}

/**
 * esd_test_peer_receive:
 * @self: a peer
 * @timeout_ms: the longest to wait; the test fails when it passes
 *
 * Returns: (transfer full) (nullable): the next message, or %NULL when the
 * daemon closed the connection
 */
GBytes *
esd_test_peer_receive(EsdTestPeer *self, guint timeout_ms)
{
	return ESD_TEST_PEER_GET_IFACE(self)->receive(self, timeout_ms);
}

/**
 * esd_test_peer_receive_json:
 * @self: a peer
 *
 * Receives the next message and checks it is a JSON object in valid UTF-8
 * without a `jsonrpc` member.
 *
 * Returns: (transfer full): the message
 */
JsonNode *
esd_test_peer_receive_json(EsdTestPeer *self)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(self, ESD_TEST_TIMEOUT_MS);
	JsonNode *node;
	const gchar *data;
	gsize len = 0;

	if (bytes == NULL)
		g_error("the daemon closed the connection instead of replying");
	data = g_bytes_get_data(bytes, &len);
	if (!g_utf8_validate_len(data, len, NULL)) {
		g_autofree gchar *copy = g_strndup(data, len);
		g_autofree gchar *escaped = g_strescape(copy, NULL);
		g_error("reply is not valid UTF-8 or contains NUL: %s", escaped);
	}
	node = esd_test_json_parse_len(data, (gssize)len);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(node));
	g_assert_false(json_object_has_member(json_node_get_object(node), "jsonrpc"));
	return node;
}

/**
 * esd_test_peer_assert_dropped:
 * @self: a peer
 *
 * Asserts the daemon ends the connection without sending anything: over
 * WebSocket a TCP drop without a Close frame, over stdio EOF and exit 0.
 */
void
esd_test_peer_assert_dropped(EsdTestPeer *self)
{
	ESD_TEST_PEER_GET_IFACE(self)->assert_dropped(self, ESD_TEST_TIMEOUT_MS);
}

/**
 * esd_test_peer_get_parse_error_prefix:
 * @self: a peer
 *
 * Returns: the start of the message of an `id:-1` parse error on this
 * connection, up to and including ": "
 */
const gchar *
esd_test_peer_get_parse_error_prefix(EsdTestPeer *self)
{
	return ESD_TEST_PEER_GET_IFACE(self)->get_parse_error_prefix(self);
}

/**
 * esd_test_peer_call:
 * @self: a peer
 * @request: one JSON-RPC message
 *
 * Sends @request and receives the next message.
 *
 * Returns: (transfer full): the reply
 */
JsonNode *
esd_test_peer_call(EsdTestPeer *self, const gchar *request)
{
	esd_test_peer_send_text(self, request);
	return esd_test_peer_receive_json(self);
}

/**
 * esd_test_peer_assert_call:
 * @self: a peer
 * @request: one JSON-RPC message
 * @expected_reply: the exact reply, as JSON text
 *
 * Sends @request and asserts the reply equals @expected_reply.
 */
void
esd_test_peer_assert_call(EsdTestPeer *self, const gchar *request, const gchar *expected_reply)
{
	g_autoptr(JsonNode) reply = esd_test_peer_call(self, request);
	esd_assert_json_node_eq(reply, expected_reply);
}

/* like esd_test_peer_assert_reply_error(), but explains a mismatch instead of failing */
static gchar *
esd_test_reply_error_mismatch(JsonNode *reply,
			      const gchar *expected_id,
			      gint64 code,
			      const gchar *message_pattern)
{
	g_autofree gchar *text = esd_test_json_to_string(reply);
	g_autoptr(JsonNode) id = esd_test_json_parse(expected_id);
	JsonObject *obj = json_node_get_object(reply);
	JsonNode *error = json_object_get_member(obj, "error");
	JsonNode *error_code = esd_test_json_get(reply, "error.code");
	JsonNode *error_message = esd_test_json_get(reply, "error.message");

	if (error == NULL || !JSON_NODE_HOLDS_OBJECT(error) || json_object_get_size(obj) != 2 ||
	    !json_object_has_member(obj, "id"))
		return g_strdup_printf("expected an error reply, got %s", text);
	if (!esd_test_json_equal(json_object_get_member(obj, "id"), id))
		return g_strdup_printf("expected id %s in %s", expected_id, text);
	if (json_object_get_size(json_node_get_object(error)) != 2 || error_code == NULL ||
	    error_message == NULL || !JSON_NODE_HOLDS_VALUE(error_code) ||
	    json_node_get_value_type(error_code) != G_TYPE_INT64 ||
	    !JSON_NODE_HOLDS_VALUE(error_message) ||
	    json_node_get_value_type(error_message) != G_TYPE_STRING)
		return g_strdup_printf("the error object is not {code, message} in %s", text);
	if (json_node_get_int(error_code) != code)
		return g_strdup_printf("expected code %" G_GINT64_FORMAT " in %s", code, text);
	if (!g_pattern_match_simple(message_pattern, json_node_get_string(error_message)))
		return g_strdup_printf("error message mismatch:\n  actual:   %s\n  expected: %s",
				       json_node_get_string(error_message),
				       message_pattern);
	return NULL;
}

/**
 * esd_test_peer_assert_reply_error:
 * @reply: a received message
 * @expected_id: the id expected, as JSON text (`"\"a\""`, `"-1"`)
 * @code: the error code expected
 * @message_pattern: the message, matched with g_pattern_match_simple()
 *
 * Asserts @reply is exactly `{"id":..,"error":{"code":..,"message":..}}`.
 */
void
esd_test_peer_assert_reply_error(JsonNode *reply,
				 const gchar *expected_id,
				 gint64 code,
				 const gchar *message_pattern)
{
	g_autofree gchar *mismatch =
	    esd_test_reply_error_mismatch(reply, expected_id, code, message_pattern);
	if (mismatch != NULL)
		g_error("%s", mismatch);
}

/**
 * esd_test_peer_assert_error:
 * @self: a peer
 * @request: one JSON-RPC message
 * @expected_id: see esd_test_peer_assert_reply_error()
 * @code: the error code expected
 * @message_pattern: see esd_test_peer_assert_reply_error()
 *
 * Sends @request and asserts the reply is the error described.
 */
void
esd_test_peer_assert_error(EsdTestPeer *self,
			   const gchar *request,
			   const gchar *expected_id,
			   gint64 code,
			   const gchar *message_pattern)
{
	g_autoptr(JsonNode) reply = esd_test_peer_call(self, request);
	esd_test_peer_assert_reply_error(reply, expected_id, code, message_pattern);
}

/**
 * esd_test_peer_assert_malformed_reply:
 * @self: a peer
 * @reply: a received message
 * @detail_pattern: what follows the transport prefix, as a pattern
 *
 * Asserts @reply is the `id:-1` parse error of this connection.
 */
void
esd_test_peer_assert_malformed_reply(EsdTestPeer *self,
				     JsonNode *reply,
				     const gchar *detail_pattern)
{
	g_autofree gchar *pattern =
	    g_strconcat(esd_test_peer_get_parse_error_prefix(self), detail_pattern, NULL);
	esd_test_peer_assert_reply_error(reply, "-1", -32600, pattern);
}

/**
 * esd_test_peer_assert_malformed:
 * @self: a peer
 * @data: the bytes of one message
 * @len: length of @data
 * @detail_pattern: what follows the transport prefix, as a pattern
 *
 * Sends @data and asserts the daemon answers with the `id:-1` parse error.
 */
void
esd_test_peer_assert_malformed(EsdTestPeer *self,
			       const gchar *data,
			       gsize len,
			       const gchar *detail_pattern)
{
	g_autoptr(JsonNode) reply = NULL;

	esd_test_peer_send(self, data, len);
	reply = esd_test_peer_receive_json(self);
	esd_test_peer_assert_malformed_reply(self, reply, detail_pattern);
}

/**
 * esd_test_peer_assert_refused_reply:
 * @self: a peer
 * @reply: a received message
 * @expected_id: the id of the request refused, as JSON text
 * @detail_pattern: what follows the transport prefix, as a pattern
 *
 * Asserts @reply is the parse error of this connection for a request whose
 * envelope could be read and something inside it not: it has the request's id.
 */
void
esd_test_peer_assert_refused_reply(EsdTestPeer *self,
				   JsonNode *reply,
				   const gchar *expected_id,
				   const gchar *detail_pattern)
{
	g_autofree gchar *pattern =
	    g_strconcat(esd_test_peer_get_parse_error_prefix(self), detail_pattern, NULL);
	esd_test_peer_assert_reply_error(reply, expected_id, -32600, pattern);
}

/**
 * esd_test_peer_assert_refused:
 * @self: a peer
 * @data: the bytes of one request
 * @len: length of @data
 * @expected_id: see esd_test_peer_assert_refused_reply()
 * @detail_pattern: see esd_test_peer_assert_refused_reply()
 *
 * Sends @data and asserts the daemon refuses it with the request's id.
 */
void
esd_test_peer_assert_refused(EsdTestPeer *self,
			     const gchar *data,
			     gsize len,
			     const gchar *expected_id,
			     const gchar *detail_pattern)
{
	g_autoptr(JsonNode) reply = NULL;

	esd_test_peer_send(self, data, len);
	reply = esd_test_peer_receive_json(self);
	esd_test_peer_assert_refused_reply(self, reply, expected_id, detail_pattern);
}

/**
 * esd_test_peer_initialize:
 * @self: a peer
 * @resume_session_id: (nullable): a session to resume
 *
 * Sends `initialize` and asserts it succeeds.
 *
 * Returns: (transfer full): the session id
 */
gchar *
esd_test_peer_initialize(EsdTestPeer *self, const gchar *resume_session_id)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) request = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *text = NULL;

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "id");
	json_builder_add_string_value(builder, "init");
	json_builder_set_member_name(builder, "method");
	json_builder_add_string_value(builder, "initialize");
	json_builder_set_member_name(builder, "params");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "clientName");
	json_builder_add_string_value(builder, "esd-test");
	if (resume_session_id != NULL) {
		json_builder_set_member_name(builder, "resumeSessionId");
		json_builder_add_string_value(builder, resume_session_id);
	}
	json_builder_end_object(builder);
	json_builder_end_object(builder);
	request = json_builder_get_root(builder);
	text = json_to_string(request, FALSE);
	reply = esd_test_peer_call(self, text);
	esd_assert_json_node_eq(esd_test_json_get(reply, "id"), "\"init\"");
	return g_strdup(esd_test_json_get_string(reply, "result.sessionId"));
}

/**
 * esd_test_peer_handshake:
 * @self: a peer
 *
 * Sends `initialize` and the `initialized` notification.
 *
 * Returns: (transfer full): the new session id
 */
gchar *
esd_test_peer_handshake(EsdTestPeer *self)
{
	g_autofree gchar *session_id = esd_test_peer_initialize(self, NULL);
	esd_test_peer_send_text(self, "{\"method\":\"initialized\"}");
	return g_steal_pointer(&session_id);
}

/**
 * esd_test_peer_assert_alive:
 * @self: a handshaken peer
 *
 * Asserts `environment/status` answers `ready`, and that no other message
 * was waiting before its reply.
 */
void
esd_test_peer_assert_alive(EsdTestPeer *self)
{
	static guint counter = 0;
	g_autofree gchar *request = NULL;
	g_autofree gchar *expected = NULL;

	counter++;
	request =
	    g_strdup_printf("{\"id\":\"alive-%u\",\"method\":\"environment/status\"}", counter);
	expected =
	    g_strdup_printf("{\"id\":\"alive-%u\",\"result\":{\"status\":\"ready\"}}", counter);
	esd_test_peer_assert_call(self, request, expected);
}

/* protocol checks */

/**
 * esd_test_assert_uuid_v4:
 * @text: a session id
 *
 * Asserts @text is a lower-case UUID of version 4, variant 1.
 */
void
esd_test_assert_uuid_v4(const gchar *text)
{
	if (!g_regex_match_simple(
		"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
		text,
		0,
		0))
		g_error("not a UUIDv4: %s", text);
}

static void
esd_test_assert_path_uri(JsonNode *info, const gchar *member)
{
	const gchar *uri = esd_test_json_get_string(info, member);
	g_autofree gchar *path = g_filename_from_uri(uri, NULL, NULL);

	if (!g_str_has_prefix(uri, "file:///") || path == NULL || !g_path_is_absolute(path))
		g_error("%s is not an absolute file URI: %s", member, uri);
}

static void
esd_test_assert_path_uri_array(JsonNode *info, const gchar *member)
{
	JsonNode *node = esd_test_json_get(info, member);

	g_assert_nonnull(node);
	g_assert_true(JSON_NODE_HOLDS_ARRAY(node));
	for (guint i = 0; i < json_array_get_length(json_node_get_array(node)); i++) {
		g_autofree gchar *path = g_strdup_printf("%s.%u", member, i);
		esd_test_assert_path_uri(info, path);
	}
}

/**
 * esd_test_assert_environment_info:
 * @info: an EnvironmentInfo object
 *
 * Asserts the shape of EnvironmentInfo (PROTOCOL.md §7.2 and §7.3): every
 * member present with its type, no unknown member, the 16 capability flags.
 */
void
esd_test_assert_environment_info(JsonNode *info)
{
	const gchar *members[] = {"shell",
				  "executorVersion",
				  "providerId",
				  "cwd",
				  "userHomeDir",
				  "platformOs",
				  "prependPathDirs",
				  "temporaryDirectories",
				  "tempDir",
				  "capabilities",
				  NULL};
	const gchar *capabilities[] = {"networkProxyLaunch",
				       "networkProxyReviewDomains",
				       "networkProxyTransparentTcp",
				       "credentialMasking",
				       "credentialMaskingCustomProviders",
				       "capabilityDiscoverySandbox",
				       "fsWatchMissing",
				       "capabilityDiscoveryV2",
				       "environmentConfigRead",
				       "httpHeaderEnvVars",
				       "sandboxedFileStreaming",
				       "fileWriteStreaming",
				       "shellSnapshotV2",
				       "windowsMxc",
				       "linuxRootWritePreservesDevices",
				       "linuxApprovedRootWritePreservesRestrictions",
				       NULL};
	g_autoptr(GList) names = NULL;
	JsonNode *caps;
	g_autofree gchar *shell_name = NULL;

	g_assert_true(JSON_NODE_HOLDS_OBJECT(info));
	names = json_object_get_members(json_node_get_object(info));
	for (GList *l = names; l != NULL; l = l->next) {
		if (!g_strv_contains(members, l->data))
			g_error("unknown EnvironmentInfo member %s", (const gchar *)l->data);
	}

	g_assert_cmpuint(
	    json_object_get_size(json_node_get_object(esd_test_json_get(info, "shell"))),
	    ==,
	    2);
	g_assert_true(g_path_is_absolute(esd_test_json_get_string(info, "shell.path")));
	shell_name = g_path_get_basename(esd_test_json_get_string(info, "shell.path"));
	g_assert_cmpstr(esd_test_json_get_string(info, "shell.name"), ==, shell_name);
	g_assert_cmpstr(esd_test_json_get_string(info, "executorVersion"), ==, "0.171.0");
	if (!g_regex_match_simple("^sha256:[0-9a-f]{64}$",
				  esd_test_json_get_string(info, "providerId"),
				  0,
				  0))
		g_error("providerId is not sha256:<64 hex>: %s",
			esd_test_json_get_string(info, "providerId"));
	esd_test_assert_path_uri(info, "cwd");
	esd_test_assert_path_uri(info, "userHomeDir");
	g_assert_cmpstr(esd_test_json_get_string(info, "platformOs"), ==, "linux");
	/* omitted when empty */
	if (esd_test_json_get(info, "prependPathDirs") != NULL) {
		esd_test_assert_path_uri_array(info, "prependPathDirs");
		g_assert_cmpuint(json_array_get_length(json_node_get_array(
				     esd_test_json_get(info, "prependPathDirs"))),
				 >,
				 0);
	}
	esd_test_assert_path_uri_array(info, "temporaryDirectories");
	esd_test_assert_path_uri(info, "tempDir");

	caps = esd_test_json_get(info, "capabilities");
	g_assert_nonnull(caps);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(caps));
	g_assert_cmpuint(json_object_get_size(json_node_get_object(caps)),
			 ==,
			 g_strv_length((gchar **)capabilities));
	for (guint i = 0; capabilities[i] != NULL; i++) {
		JsonNode *flag = esd_test_json_get(caps, capabilities[i]);
		if (flag == NULL || !JSON_NODE_HOLDS_VALUE(flag) ||
		    json_node_get_value_type(flag) != G_TYPE_BOOLEAN)
			g_error("capabilities.%s is missing or not a boolean", capabilities[i]);
	}
}

static void
esd_test_peer_reach_stage(EsdTestPeer *self, EsdTestStage stage)
{
	g_autofree gchar *session_id = NULL;

	switch (stage) {
	case ESD_TEST_STAGE_NEW:
		break;
	case ESD_TEST_STAGE_INITIALIZED:
		session_id = esd_test_peer_initialize(self, NULL);
		break;
	case ESD_TEST_STAGE_READY:
		session_id = esd_test_peer_handshake(self);
		break;
	default:
		g_assert_not_reached();
	}
}

/* what esd_test_peer_run_exchange() checks after the exchange: the connection still works */
static void
esd_test_peer_assert_still_usable(EsdTestPeer *self, EsdTestStage stage)
{
	g_autofree gchar *session_id = NULL;

	switch (stage) {
	case ESD_TEST_STAGE_NEW:
		/* a failed request, even a failed initialize, does not count */
		session_id = esd_test_peer_handshake(self);
		break;
	case ESD_TEST_STAGE_INITIALIZED:
		esd_test_peer_send_text(self, "{\"method\":\"initialized\"}");
		break;
	case ESD_TEST_STAGE_READY:
		break;
	default:
		g_assert_not_reached();
	}
	esd_test_peer_assert_alive(self);
}

/**
 * esd_test_peer_run_exchange:
 * @self: a new peer
 * @exchange: the table row
 *
 * Brings @self to the stage of @exchange, sends its request and checks the
 * answer; then checks the connection is still usable (or, for a fatal
 * exchange, that the daemon dropped it).
 */
void
esd_test_peer_run_exchange(EsdTestPeer *self, const EsdTestExchange *exchange)
{
	gsize len =
	    exchange->request_len < 0 ? strlen(exchange->request) : (gsize)exchange->request_len;
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *mismatch = NULL;
	g_autofree gchar *expected_id = NULL;
	g_autofree gchar *pattern = NULL;

	esd_test_peer_reach_stage(self, exchange->stage);
	esd_test_peer_send(self, exchange->request, len);
	if (exchange->flags & ESD_TEST_EXCHANGE_FATAL) {
		esd_test_peer_assert_dropped(self);
		return;
	}
	reply = esd_test_peer_receive_json(self);
	if (exchange->reply != NULL) {
		g_autoptr(JsonNode) expected = esd_test_json_parse(exchange->reply);
		if (!esd_test_json_equal(reply, expected)) {
			g_autofree gchar *text = esd_test_json_to_string(reply);
			mismatch = g_strdup_printf("expected %s, got %s", exchange->reply, text);
		}
	} else if (exchange->flags & ESD_TEST_EXCHANGE_MALFORMED) {
		pattern = g_strconcat(esd_test_peer_get_parse_error_prefix(self),
				      exchange->message,
				      NULL);
		mismatch = esd_test_reply_error_mismatch(reply, "-1", -32600, pattern);
	} else {
		g_autoptr(JsonNode) request = esd_test_json_parse(exchange->request);
		expected_id = esd_test_json_to_string(esd_test_json_get(request, "id"));
		if (exchange->flags & ESD_TEST_EXCHANGE_PENDING) {
			g_autofree gchar *implemented =
			    esd_test_reply_error_mismatch(reply, expected_id, -32601, "*");
			if (implemented == NULL) {
				g_test_skip_printf("%s is not provided by this daemon",
						   esd_test_json_get_string(request, "method"));
				return;
			}
		}
		mismatch = esd_test_reply_error_mismatch(reply,
							 expected_id,
							 exchange->code,
							 exchange->message);
	}
	if (mismatch != NULL && exchange->known_bug != NULL) {
		esd_test_known_bug("%s: %s", exchange->known_bug, mismatch);
		return;
	}
	if (mismatch != NULL)
		g_error("%s: %s", exchange->name, mismatch);
	esd_test_peer_assert_still_usable(self, exchange->stage);
}

/* scenarios run over every transport */

/**
 * esd_test_scenario_initialize_result:
 * @peer: a new peer
 *
 * `initialize` answers `{id, result: {sessionId, environmentInfo}}`
 * (transcripts.md B.1), with a UUIDv4 and a well-formed EnvironmentInfo.
 */
void
esd_test_scenario_initialize_result(EsdTestPeer *peer)
{
	g_autoptr(JsonNode) reply = esd_test_peer_call(
	    peer,
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"probe-handshake\"}}");
	JsonNode *info = esd_test_json_get(reply, "result.environmentInfo");
	g_autofree gchar *cwd = g_get_current_dir();
	g_autofree gchar *cwd_uri = g_filename_to_uri(cwd, NULL, NULL);

	esd_assert_json_node_eq(esd_test_json_get(reply, "id"), "1");
	g_assert_cmpuint(json_object_get_size(json_node_get_object(reply)), ==, 2);
	g_assert_cmpuint(
	    json_object_get_size(json_node_get_object(esd_test_json_get(reply, "result"))),
	    ==,
	    2);
	esd_test_assert_uuid_v4(esd_test_json_get_string(reply, "result.sessionId"));
	esd_test_assert_environment_info(info);
	/* the daemon reports its own environment: ours, since it inherited it */
	g_assert_cmpstr(esd_test_json_get_string(info, "cwd"), ==, cwd_uri);
	esd_test_peer_send_text(peer, "{\"method\":\"initialized\",\"params\":{}}");
	esd_test_peer_assert_alive(peer);
}

/**
 * esd_test_scenario_environment_info:
 * @peer: a new peer
 *
 * `environment/info` with absent, null or empty params returns exactly the
 * environmentInfo of the `initialize` result.
 */
void
esd_test_scenario_environment_info(EsdTestPeer *peer)
{
	g_autoptr(JsonNode) init = esd_test_peer_call(
	    peer,
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}");
	g_autofree gchar *expected = NULL;
	g_autofree gchar *info = NULL;
	const gchar *requests[] = {
	    "{\"id\":3,\"method\":\"environment/info\",\"params\":{}}",
	    "{\"id\":3,\"method\":\"environment/info\"}",
	    "{\"id\":3,\"method\":\"environment/info\",\"params\":null}",
	    NULL,
	};

	info = esd_test_json_to_string(esd_test_json_get(init, "result.environmentInfo"));
	expected = g_strdup_printf("{\"id\":3,\"result\":%s}", info);
	esd_test_peer_send_text(peer, "{\"method\":\"initialized\"}");
	/* byte-identical to the initialize result, whatever the form of empty params */
	for (guint i = 0; requests[i] != NULL; i++)
		esd_test_peer_assert_call(peer, requests[i], expected);
}

/* the next message, as sent: json-glib, which the tests parse with, ends a string at \u0000 */
static gchar *
esd_test_peer_receive_text(EsdTestPeer *peer)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(peer, ESD_TEST_TIMEOUT_MS);
	gsize len = 0;
	const gchar *data;
	gchar *text;

	g_assert_nonnull(bytes);
	data = g_bytes_get_data(bytes, &len);
	text = g_strndup(data, len);
	return g_strchomp(text);
}

/**
 * esd_test_scenario_id_escaped_nul:
 * @peer: a new peer
 *
 * A string id containing `\u0000` is echoed verbatim, and a method name
 * holding one is no other method.
 */
void
esd_test_scenario_id_escaped_nul(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(peer);
	g_autofree gchar *echoed = NULL;
	g_autofree gchar *unknown = NULL;

	esd_test_peer_send_text(peer, "{\"id\":\"a\\u0000b\",\"method\":\"environment/status\"}");
	echoed = esd_test_peer_receive_text(peer);
	g_assert_cmpstr(echoed, ==, "{\"id\":\"a\\u0000b\",\"result\":{\"status\":\"ready\"}}");
	esd_test_peer_send_text(peer, "{\"id\":7,\"method\":\"environment/status\\u0000x\"}");
	unknown = esd_test_peer_receive_text(peer);
	g_assert_cmpstr(unknown,
			==,
			"{\"error\":{\"code\":-32601,\"message\":\"exec-server stub does not "
			"implement `environment/status\\u0000x` yet\"},\"id\":7}");
	esd_test_peer_assert_alive(peer);
}

/**
 * esd_test_scenario_lone_surrogate:
 * @peer: a new peer
 *
 * A lone surrogate escape is a parse error, and the error stays valid UTF-8.
 */
void
esd_test_scenario_lone_surrogate(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(peer);
	g_autoptr(GBytes) bytes = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *text = NULL;
	gsize len = 0;
	const gchar *data;

	esd_test_peer_send_text(peer, "{\"id\":\"\\ud800\",\"method\":\"environment/status\"}");
	bytes = esd_test_peer_receive(peer, ESD_TEST_TIMEOUT_MS);
	if (bytes == NULL) {
		esd_test_known_bug("a lone surrogate escape ends the connection instead of a "
				   "parse error reply (the error text is not UTF-8)");
		return;
	}
	data = g_bytes_get_data(bytes, &len);
	text = g_strndup(data, len);
	if (!g_utf8_validate_len(data, len, NULL)) {
		g_autofree gchar *escaped = g_strescape(text, NULL);
		esd_test_known_bug("a lone surrogate escape is answered with invalid UTF-8: %s",
				   escaped);
		return;
	}
	reply = esd_test_json_parse(text);
	esd_test_peer_assert_malformed_reply(peer, reply, "*");
	esd_test_peer_assert_alive(peer);
}

/**
 * esd_test_scenario_deep_nesting:
 * @peer: a new peer
 *
 * 10000 nested arrays, alone or as params, are parse errors; 30 levels parse.
 */
void
esd_test_scenario_deep_nesting(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(peer);
	g_autoptr(GString) deep = g_string_new(NULL);
	g_autoptr(GString) in_params =
	    g_string_new("{\"id\":6,\"method\":\"environment/status\",\"params\":");
	g_autoptr(GString) moderate =
	    g_string_new("{\"id\":7,\"method\":\"environment/status\",\"params\":");

	for (guint i = 0; i < 10000; i++)
		g_string_append_c(deep, '[');
	for (guint i = 0; i < 10000; i++)
		g_string_append_c(deep, ']');
	esd_test_peer_assert_malformed(peer, deep->str, deep->len, "*");
	g_string_append(in_params, deep->str);
	g_string_append_c(in_params, '}');
	esd_test_peer_assert_malformed(peer, in_params->str, in_params->len, "*");
	/* moderate nesting parses, and is then refused as params */
	for (guint i = 0; i < 30; i++)
		g_string_append(moderate, "{\"a\":");
	g_string_append(moderate, "1");
	for (guint i = 0; i < 30; i++)
		g_string_append_c(moderate, '}');
	g_string_append_c(moderate, '}');
	esd_test_peer_assert_error(peer,
				   moderate->str,
				   "7",
				   -32602,
				   "invalid type: map, expected unit");
	esd_test_peer_assert_alive(peer);
}

/**
 * esd_test_scenario_initialize_jsonrpc_member:
 * @peer: a new peer
 *
 * A `"jsonrpc":"2.0"` member is ignored on every kind of message.
 */
void
esd_test_scenario_initialize_jsonrpc_member(EsdTestPeer *peer)
{
	g_autoptr(JsonNode) reply =
	    esd_test_peer_call(peer,
			       "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"initialize\","
			       "\"params\":{\"clientName\":\"t\"}}");

	esd_assert_json_node_eq(esd_test_json_get(reply, "id"), "\"abc\"");
	esd_test_assert_uuid_v4(esd_test_json_get_string(reply, "result.sessionId"));
	esd_test_peer_send_text(peer, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}");
	esd_test_peer_assert_call(
	    peer,
	    "{\"jsonrpc\":\"2.0\",\"id\":\"s-2\",\"method\":\"environment/status\"}",
	    "{\"id\":\"s-2\",\"result\":{\"status\":\"ready\"}}");
}

/**
 * esd_test_scenario_initialize_unknown_members:
 * @peer: a new peer
 *
 * Unknown members of initialize params are ignored; a null resumeSessionId is absent.
 */
void
esd_test_scenario_initialize_unknown_members(EsdTestPeer *peer)
{
	g_autoptr(JsonNode) reply = esd_test_peer_call(
	    peer,
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\","
	    "\"resumeSessionId\":null,\"extra\":[1,{\"a\":null}]}}");

	esd_test_assert_uuid_v4(esd_test_json_get_string(reply, "result.sessionId"));
	esd_test_peer_send_text(peer, "{\"method\":\"initialized\"}");
	esd_test_peer_assert_alive(peer);
}

/**
 * esd_test_scenario_initialize_retry:
 * @peer: a new peer
 *
 * A failed initialize leaves the connection uninitialised: still gated, and a retry works.
 */
void
esd_test_scenario_initialize_retry(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = NULL;

	esd_test_peer_assert_error(peer,
				   "{\"id\":1,\"method\":\"initialize\",\"params\":{}}",
				   "1",
				   -32602,
				   "missing field `clientName`");
	esd_test_peer_assert_error(
	    peer,
	    "{\"id\":2,\"method\":\"environment/status\"}",
	    "2",
	    -32600,
	    "client must call initialize before using environment status methods");
	esd_test_peer_assert_error(peer,
				   "{\"id\":3,\"method\":\"initialize\",\"params\":{\"clientName\":"
				   "\"t\",\"resumeSessionId\":\"nope\"}}",
				   "3",
				   -32600,
				   "unknown session id nope");
	session_id = esd_test_peer_handshake(peer);
	esd_test_assert_uuid_v4(session_id);
	esd_test_peer_assert_alive(peer);
}

/**
 * esd_test_scenario_initialized_twice:
 * @peer: a new peer
 *
 * A second and third `initialized` are ignored.
 */
void
esd_test_scenario_initialized_twice(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(peer);

	esd_test_peer_send_text(peer, "{\"method\":\"initialized\",\"params\":{}}");
	esd_test_peer_send_text(peer, "{\"method\":\"initialized\"}");
	esd_test_peer_assert_call(peer,
				  "{\"id\":2,\"method\":\"environment/status\",\"params\":{}}",
				  "{\"id\":2,\"result\":{\"status\":\"ready\"}}");
}

/**
 * esd_test_scenario_initialized_params_ignored:
 * @peer: a new peer
 *
 * The params of `initialized` are ignored, and so is an invalid trace on a notification.
 */
void
esd_test_scenario_initialized_params_ignored(EsdTestPeer *peer)
{
	g_autofree gchar *session_id = esd_test_peer_initialize(peer, NULL);

	esd_test_peer_send_text(peer, "{\"method\":\"initialized\",\"params\":5,\"trace\":5}");
	esd_test_peer_assert_alive(peer);
}

/* EsdTestDaemon */

#define ESD_TEST_STDIO_PREFIX "failed to parse JSON-RPC message from exec-server stdio: "

struct _EsdTestDaemon {
	GObject parent_instance;
	GSubprocess *subprocess;
	GDataInputStream *stdout_data;
	GDataInputStream *stderr_data;
	GCancellable *cancellable;
	GQueue stdout_lines; /* of GBytes, without the newline */
	gboolean stdout_eof;
	gboolean exited;
	gboolean write_done;
	GError *write_error;
	guint pending; /* async operations that hold a pointer to self */
	guint warnings;
	GString *stderr_text; /* everything it logged */
	gchar *name;
	gchar *url;
	guint16 port;
};

static void
esd_test_daemon_peer_iface_init(EsdTestPeerInterface *iface);

G_DEFINE_TYPE_WITH_CODE(EsdTestDaemon,
			esd_test_daemon,
			G_TYPE_OBJECT,
			G_IMPLEMENT_INTERFACE(ESD_TYPE_TEST_PEER, esd_test_daemon_peer_iface_init))

static void
esd_test_daemon_read_stdout(EsdTestDaemon *self);
static void
esd_test_daemon_read_stderr(EsdTestDaemon *self);

static void
esd_test_daemon_stdout_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(user_data);
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	gchar *line =
	    g_data_input_stream_read_line_finish(G_DATA_INPUT_STREAM(source), res, &len, &error);

	self->pending--;
	if (line == NULL) {
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			return;
		if (error != NULL)
			g_printerr("%s: reading stdout: %s\n", self->name, error->message);
		self->stdout_eof = TRUE;
		return;
	}
	g_queue_push_tail(&self->stdout_lines, g_bytes_new_take(line, len));
	esd_test_daemon_read_stdout(self);
}

static void
esd_test_daemon_read_stdout(EsdTestDaemon *self)
{
	self->pending++;
	g_data_input_stream_read_line_async(self->stdout_data,
					    G_PRIORITY_DEFAULT,
					    self->cancellable,
					    esd_test_daemon_stdout_cb,
					    self);
}

/* daemon logs go to our stderr; warnings are counted, since peers must not cause any */
static void
esd_test_daemon_stderr_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(user_data);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *line =
	    g_data_input_stream_read_line_finish(G_DATA_INPUT_STREAM(source), res, NULL, &error);

	self->pending--;
	if (line == NULL)
		return;
	g_printerr("%s: %s\n", self->name, line);
	g_string_append_printf(self->stderr_text, "%s\n", line);
	if (strstr(line, "-WARNING: ") != NULL || strstr(line, "-CRITICAL: ") != NULL ||
	    strstr(line, "-ERROR: ") != NULL || strstr(line, "CRITICAL **") != NULL ||
	    strstr(line, "WARNING **") != NULL)
		self->warnings++;
	esd_test_daemon_read_stderr(self);
}

static void
esd_test_daemon_read_stderr(EsdTestDaemon *self)
{
	self->pending++;
	g_data_input_stream_read_line_async(self->stderr_data,
					    G_PRIORITY_DEFAULT,
					    self->cancellable,
					    esd_test_daemon_stderr_cb,
					    self);
}

static void
esd_test_daemon_wait_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(user_data);
	g_autoptr(GError) error = NULL;

	self->pending--;
	if (g_subprocess_wait_finish(G_SUBPROCESS(source), res, &error))
		self->exited = TRUE;
}

static void
esd_test_daemon_write_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(user_data);

	self->pending--;
	g_output_stream_write_all_finish(G_OUTPUT_STREAM(source), res, NULL, &self->write_error);
	self->write_done = TRUE;
}

/* runs in the child between fork and exec: die with the test, even when it aborts */
static void
esd_test_child_setup(gpointer user_data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static GSubprocess *
esd_test_spawn(const gchar *const *args,
	       const gchar *const *envp_extra,
	       const gchar *cwd,
	       GSubprocessFlags flags)
{
	const gchar *daemon = g_getenv("ESD_TEST_DAEMON");
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(flags);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	GSubprocess *subprocess;

	if (daemon == NULL)
		g_error("ESD_TEST_DAEMON is not set: run the tests with meson test");
	g_ptr_array_add(argv, (gpointer)daemon);
	for (guint i = 0; args != NULL && args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	for (guint i = 0; envp_extra != NULL && envp_extra[i] != NULL; i++) {
		g_auto(GStrv) kv = g_strsplit(envp_extra[i], "=", 2);
		g_assert_nonnull(kv[1]);
		g_subprocess_launcher_setenv(launcher, kv[0], kv[1], TRUE);
	}
	if (cwd != NULL)
		g_subprocess_launcher_set_cwd(launcher, cwd);
	g_subprocess_launcher_set_child_setup(launcher, esd_test_child_setup, NULL, NULL);
	subprocess =
	    g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	return subprocess;
}

static void
esd_test_daemon_read_url(EsdTestDaemon *self)
{
	g_autofree gchar *line = esd_test_daemon_read_line(self, ESD_TEST_TIMEOUT_MS);
	g_autoptr(GRegex) regex = g_regex_new("^wss?://127\\.0\\.0\\.1:([0-9]{1,5})$", 0, 0, NULL);
	g_autoptr(GMatchInfo) match = NULL;
	g_autofree gchar *port = NULL;
	guint64 value = 0;

	if (line == NULL) {
		gint64 deadline = g_get_monotonic_time() + G_USEC_PER_SEC;

		/* what it wrote says why: read on until it has been reaped, 1 s at most */
		while (!self->exited && g_get_monotonic_time() < deadline)
			esd_test_iterate(50);
		for (guint i = 0; i < 4; i++)
			esd_test_iterate(10);
		g_error("%s exited before printing its URL; its stderr:\n%s",
			self->name,
			esd_test_daemon_get_stderr(self));
	}
	if (!g_regex_match(regex, line, 0, &match))
		g_error("first stdout line is not the ws URL: \"%s\"", line);
	port = g_match_info_fetch(match, 1);
	g_assert_true(g_ascii_string_to_unsigned(port, 10, 1, 65535, &value, NULL));
	self->port = (guint16)value;
	self->url = g_steal_pointer(&line);
}

/**
 * esd_test_daemon_new_full:
 * @args: (nullable): arguments after the program name
 * @envp_extra: (nullable): `NAME=VALUE` to add to the environment
 * @cwd: (nullable): the working directory
 * @read_url: whether to read the bound `ws://` (or `wss://`) URL from the first stdout line
 *
 * Starts `$ESD_TEST_DAEMON` with pipes on stdin, stdout and stderr. The
 * daemon is killed when the object is disposed, and also if the test dies.
 *
 * Returns: (transfer full): the daemon
 */
EsdTestDaemon *
esd_test_daemon_new_full(const gchar *const *args,
			 const gchar *const *envp_extra,
			 const gchar *cwd,
			 gboolean read_url)
{
	EsdTestDaemon *self = g_object_new(ESD_TYPE_TEST_DAEMON, NULL);

	self->subprocess =
	    esd_test_spawn(args,
			   envp_extra,
			   cwd,
			   G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
			       G_SUBPROCESS_FLAGS_STDERR_PIPE);
	self->name =
	    g_strdup_printf("execserverd[%s]", g_subprocess_get_identifier(self->subprocess));
	self->stdout_data = g_data_input_stream_new(g_subprocess_get_stdout_pipe(self->subprocess));
	g_data_input_stream_set_newline_type(self->stdout_data, G_DATA_STREAM_NEWLINE_TYPE_LF);
	self->stderr_data = g_data_input_stream_new(g_subprocess_get_stderr_pipe(self->subprocess));
	g_data_input_stream_set_newline_type(self->stderr_data, G_DATA_STREAM_NEWLINE_TYPE_LF);
	esd_test_daemon_read_stdout(self);
	esd_test_daemon_read_stderr(self);
	self->pending++;
	g_subprocess_wait_async(self->subprocess, self->cancellable, esd_test_daemon_wait_cb, self);
	if (read_url)
		esd_test_daemon_read_url(self);
	return self;
}

/**
 * esd_test_daemon_new_stdio:
 * @extra_args: (nullable): arguments after `--listen stdio`
 *
 * Returns: (transfer full): a daemon speaking the protocol on its stdio
 */
EsdTestDaemon *
esd_test_daemon_new_stdio(const gchar *const *extra_args)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();

	g_ptr_array_add(args, (gpointer) "--listen");
	g_ptr_array_add(args, (gpointer) "stdio");
	for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)extra_args[i]);
	g_ptr_array_add(args, NULL);
	return esd_test_daemon_new_full((const gchar *const *)args->pdata, NULL, NULL, FALSE);
}

/**
 * esd_test_daemon_new_ws:
 * @extra_args: (nullable): arguments; without `--listen` the daemon uses its
 *   default `ws://127.0.0.1:0`
 *
 * Returns: (transfer full): a WebSocket daemon whose URL has been read
 */
EsdTestDaemon *
esd_test_daemon_new_ws(const gchar *const *extra_args)
{
	return esd_test_daemon_new_full(extra_args, NULL, NULL, TRUE);
}

/**
 * esd_test_daemon_get_url:
 * @self: a WebSocket daemon
 *
 * Returns: the URL it printed, `ws://127.0.0.1:PORT`
 */
const gchar *
esd_test_daemon_get_url(EsdTestDaemon *self)
{
	g_assert_nonnull(self->url);
	return self->url;
}

/**
 * esd_test_daemon_get_port:
 * @self: a WebSocket daemon
 *
 * Returns: its TCP port
 */
guint16
esd_test_daemon_get_port(EsdTestDaemon *self)
{
	g_assert_nonnull(self->url);
	return self->port;
}

/**
 * esd_test_daemon_get_pid:
 * @self: a daemon
 *
 * Returns: its process id, to read its `/proc` files
 */
GPid
esd_test_daemon_get_pid(EsdTestDaemon *self)
{
	guint64 pid = 0;
	g_assert_true(g_ascii_string_to_unsigned(g_subprocess_get_identifier(self->subprocess),
						 10,
						 1,
						 G_MAXINT,
						 &pid,
						 NULL));
	return (GPid)pid;
}

/**
 * esd_test_daemon_get_http_url:
 * @self: a WebSocket daemon
 * @path: an absolute path such as `/readyz`
 *
 * Returns: (transfer full): `http://127.0.0.1:PORT` + @path
 */
gchar *
esd_test_daemon_get_http_url(EsdTestDaemon *self, const gchar *path)
{
	return g_strdup_printf("http://127.0.0.1:%u%s", esd_test_daemon_get_port(self), path);
}

/**
 * esd_test_daemon_write:
 * @self: a daemon
 * @data: raw bytes for its stdin
 * @len: length of @data
 *
 * Writes @data to stdin, reading its output meanwhile.
 */
void
esd_test_daemon_write(EsdTestDaemon *self, const gchar *data, gsize len)
{
	GOutputStream *stream = g_subprocess_get_stdin_pipe(self->subprocess);

	g_assert_nonnull(stream);
	self->write_done = FALSE;
	g_clear_error(&self->write_error);
	self->pending++;
	g_output_stream_write_all_async(stream,
					data,
					len,
					G_PRIORITY_DEFAULT,
					self->cancellable,
					esd_test_daemon_write_cb,
					self);
	esd_test_wait_async(&self->write_done, NULL, ESD_TEST_TIMEOUT_MS, "writing to stdin");
	g_assert_no_error(self->write_error);
}

static GBytes *
esd_test_daemon_read_line_bytes(EsdTestDaemon *self, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (g_queue_is_empty(&self->stdout_lines) && !self->stdout_eof) {
		if (g_get_monotonic_time() >= deadline)
			g_error("timed out after %u ms waiting for a line from %s",
				timeout_ms,
				self->name);
		esd_test_iterate(50);
	}
	return g_queue_pop_head(&self->stdout_lines);
}

/**
 * esd_test_daemon_read_line:
 * @self: a daemon
 * @timeout_ms: the longest to wait; the test fails when it passes
 *
 * Returns: (transfer full) (nullable): the next stdout line without its
 * newline, or %NULL at end of file
 */
gchar *
esd_test_daemon_read_line(EsdTestDaemon *self, guint timeout_ms)
{
	g_autoptr(GBytes) bytes = esd_test_daemon_read_line_bytes(self, timeout_ms);
	gsize len = 0;
	const gchar *data;

	if (bytes == NULL)
		return NULL;
	data = g_bytes_get_data(bytes, &len);
	return g_strndup(data, len);
}

/**
 * esd_test_daemon_wait_stdout_eof:
 * @self: a daemon
 * @timeout_ms: the longest to wait
 *
 * Returns: %TRUE if stdout reached end of file with no unread line
 */
gboolean
esd_test_daemon_wait_stdout_eof(EsdTestDaemon *self, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (!self->stdout_eof && g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
	for (GList *l = self->stdout_lines.head; l != NULL; l = l->next) {
		gsize len = 0;
		const gchar *data = g_bytes_get_data(l->data, &len);
		g_printerr("%s: unread stdout line: %.*s\n", self->name, (gint)len, data);
	}
	return self->stdout_eof && g_queue_is_empty(&self->stdout_lines);
}

/**
 * esd_test_daemon_close_stdin:
 * @self: a daemon
 *
 * Closes the daemon's stdin; a stdio daemon then shuts down.
 */
void
esd_test_daemon_close_stdin(EsdTestDaemon *self)
{
	GOutputStream *stream = g_subprocess_get_stdin_pipe(self->subprocess);
	g_autoptr(GError) error = NULL;

	if (!g_output_stream_is_closed(stream) && !g_output_stream_close(stream, NULL, &error))
		g_debug("closing stdin: %s", error->message);
}

/**
 * esd_test_daemon_send_signal:
 * @self: a daemon
 * @signum: a signal number such as `SIGTERM`
 *
 * Sends @signum to the daemon.
 */
void
esd_test_daemon_send_signal(EsdTestDaemon *self, gint signum)
{
	g_subprocess_send_signal(self->subprocess, signum);
}

/**
 * esd_test_daemon_is_running:
 * @self: a daemon
 *
 * Returns: %FALSE once the daemon exited and was reaped
 */
gboolean
esd_test_daemon_is_running(EsdTestDaemon *self)
{
	return !self->exited;
}

/**
 * esd_test_daemon_wait_exit:
 * @self: a daemon
 * @timeout_ms: the longest to wait
 *
 * Returns: %TRUE if the daemon exited within @timeout_ms
 */
gboolean
esd_test_daemon_wait_exit(EsdTestDaemon *self, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (!self->exited && g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
	return self->exited;
}

/**
 * esd_test_daemon_get_exit_code:
 * @self: a daemon that exited
 *
 * Returns: the exit status, or 128 + the signal number when it was killed
 */
gint
esd_test_daemon_get_exit_code(EsdTestDaemon *self)
{
	g_assert_true(self->exited);
	if (g_subprocess_get_if_exited(self->subprocess))
		return g_subprocess_get_exit_status(self->subprocess);
	if (g_subprocess_get_if_signaled(self->subprocess))
		return 128 + g_subprocess_get_term_sig(self->subprocess);
	return -1;
}

/**
 * esd_test_daemon_assert_exit_code:
 * @self: a daemon
 * @exit_code: the exit status expected
 * @timeout_ms: how long the daemon may take to exit
 *
 * Asserts the daemon exits with @exit_code within @timeout_ms.
 */
void
esd_test_daemon_assert_exit_code(EsdTestDaemon *self, gint exit_code, guint timeout_ms)
{
	if (!esd_test_daemon_wait_exit(self, timeout_ms))
		g_error("%s did not exit within %u ms", self->name, timeout_ms);
	if (esd_test_daemon_get_exit_code(self) != exit_code)
		g_error("%s exited with %d (128+N: killed by signal N), expected %d",
			self->name,
			esd_test_daemon_get_exit_code(self),
			exit_code);
}

/**
 * esd_test_daemon_get_warning_count:
 * @self: a daemon
 *
 * Returns: how many warning, critical or error lines it logged so far
 */
guint
esd_test_daemon_get_warning_count(EsdTestDaemon *self)
{
	return self->warnings;
}

/**
 * esd_test_daemon_get_stderr:
 * @self: a daemon
 *
 * Returns: the lines it wrote to stderr so far (read as the main context runs)
 */
const gchar *
esd_test_daemon_get_stderr(EsdTestDaemon *self)
{
	return self->stderr_text->str;
}

static void
esd_test_daemon_peer_send(EsdTestPeer *peer, const gchar *data, gsize len)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(peer);
	g_autoptr(GByteArray) line = g_byte_array_sized_new(len + 1);

	g_byte_array_append(line, (const guint8 *)data, len);
	g_byte_array_append(line, (const guint8 *)"\n", 1);
	esd_test_daemon_write(self, (const gchar *)line->data, line->len);
}

static GBytes *
esd_test_daemon_peer_receive(EsdTestPeer *peer, guint timeout_ms)
{
	return esd_test_daemon_read_line_bytes(ESD_TEST_DAEMON(peer), timeout_ms);
}

/* the stdio connection is the daemon's only one: when it ends, the daemon exits 0 */
static void
esd_test_daemon_peer_assert_dropped(EsdTestPeer *peer, guint timeout_ms)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(peer);

	if (!esd_test_daemon_wait_stdout_eof(self, timeout_ms))
		g_error("%s did not close stdout (or wrote to it) within %u ms",
			self->name,
			timeout_ms);
	esd_test_daemon_assert_exit_code(self, 0, timeout_ms);
}

static const gchar *
esd_test_daemon_peer_get_parse_error_prefix(EsdTestPeer *peer)
{
	return ESD_TEST_STDIO_PREFIX;
}

static void
esd_test_daemon_peer_iface_init(EsdTestPeerInterface *iface)
{
	iface->send = esd_test_daemon_peer_send;
	iface->receive = esd_test_daemon_peer_receive;
	iface->assert_dropped = esd_test_daemon_peer_assert_dropped;
	iface->get_parse_error_prefix = esd_test_daemon_peer_get_parse_error_prefix;
}

static void
esd_test_daemon_dispose(GObject *object)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(object);

	if (self->subprocess != NULL) {
		gint64 deadline = g_get_monotonic_time() + ESD_TEST_TIMEOUT_MS * 1000;
		if (!self->exited)
			g_subprocess_force_exit(self->subprocess);
		while (!self->exited && g_get_monotonic_time() < deadline)
			esd_test_iterate(50);
		g_cancellable_cancel(self->cancellable);
		/* the callbacks point at self: let them all run */
		while (self->pending > 0 && g_get_monotonic_time() < deadline)
			esd_test_iterate(50);
		g_assert_cmpuint(self->pending, ==, 0);
		g_clear_object(&self->subprocess);
	}
	g_clear_object(&self->stdout_data);
	g_clear_object(&self->stderr_data);
	G_OBJECT_CLASS(esd_test_daemon_parent_class)->dispose(object);
}

static void
esd_test_daemon_finalize(GObject *object)
{
	EsdTestDaemon *self = ESD_TEST_DAEMON(object);

	g_queue_clear_full(&self->stdout_lines, (GDestroyNotify)g_bytes_unref);
	g_string_free(self->stderr_text, TRUE);
	g_clear_error(&self->write_error);
	g_clear_object(&self->cancellable);
	g_free(self->name);
	g_free(self->url);
	G_OBJECT_CLASS(esd_test_daemon_parent_class)->finalize(object);
}

static void
esd_test_daemon_init(EsdTestDaemon *self)
{
	self->cancellable = g_cancellable_new();
	g_queue_init(&self->stdout_lines);
	self->stderr_text = g_string_new(NULL);
}

static void
esd_test_daemon_class_init(EsdTestDaemonClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	object_class->dispose = esd_test_daemon_dispose;
	object_class->finalize = esd_test_daemon_finalize;
}

/* EsdTestWsClient */

typedef struct {
	SoupWebsocketDataType type;
	GBytes *data;
} EsdTestWsMessage;

static void
esd_test_ws_message_free(EsdTestWsMessage *message)
{
	g_bytes_unref(message->data);
	g_free(message);
}

struct _EsdTestWsClient {
	GObject parent_instance;
	SoupSession *session;
	SoupWebsocketConnection *connection;
	GQueue messages; /* of EsdTestWsMessage */
	gboolean closed;
	gushort close_code;
	GSocketConnection *socket_connection;
	guint16 local_port;
	gchar *prefix;
};

static void
esd_test_ws_client_peer_iface_init(EsdTestPeerInterface *iface);

G_DEFINE_TYPE_WITH_CODE(EsdTestWsClient,
			esd_test_ws_client,
			G_TYPE_OBJECT,
			G_IMPLEMENT_INTERFACE(ESD_TYPE_TEST_PEER,
					      esd_test_ws_client_peer_iface_init))

static void
esd_test_ws_client_message_cb(SoupWebsocketConnection *connection,
			      gint type,
			      GBytes *message,
			      EsdTestWsClient *self)
{
	EsdTestWsMessage *item = g_new0(EsdTestWsMessage, 1);
	item->type = type;
	item->data = g_bytes_ref(message);
	g_queue_push_tail(&self->messages, item);
}

static void
esd_test_ws_client_closed_cb(SoupWebsocketConnection *connection, EsdTestWsClient *self)
{
	self->closed = TRUE;
	/* zero: no Close frame came, the TCP connection just ended */
	self->close_code = soup_websocket_connection_get_close_code(connection);
	if (self->close_code == 0)
		self->close_code = ESD_TEST_WS_CLOSE_NO_FRAME;
}

static void
esd_test_ws_client_error_cb(SoupWebsocketConnection *connection,
			    GError *error,
			    EsdTestWsClient *self)
{
	g_debug("websocket client: %s", error->message);
}

static void
esd_test_ws_client_network_event_cb(SoupMessage *msg,
				    GSocketClientEvent event,
				    GIOStream *connection,
				    EsdTestWsClient *self)
{
	g_autoptr(GSocketAddress) address = NULL;

	if (event != G_SOCKET_CLIENT_CONNECTED || !G_IS_SOCKET_CONNECTION(connection))
		return;
	g_set_object(&self->socket_connection, G_SOCKET_CONNECTION(connection));
	address = g_socket_connection_get_local_address(G_SOCKET_CONNECTION(connection), NULL);
	if (address != NULL && G_IS_INET_SOCKET_ADDRESS(address))
		self->local_port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(address));
}

typedef struct {
	gboolean done;
	SoupWebsocketConnection *connection;
	GError *error;
} EsdTestWsConnect;

static void
esd_test_ws_client_connect_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestWsConnect *op = user_data;
	op->connection =
	    soup_session_websocket_connect_finish(SOUP_SESSION(source), res, &op->error);
	op->done = TRUE;
}

static SoupSession *
esd_test_session_new(void)
{
	SoupSession *session = soup_session_new_with_options("timeout", 5, NULL);
	/* the daemon is on 127.0.0.1: never go through a proxy from the environment */
	soup_session_set_proxy_resolver(session, NULL);
	return session;
}

/* a wss:// server is trusted when it shows exactly the certificate the test made */
static gboolean
esd_test_ws_client_accept_certificate_cb(SoupMessage *msg,
					 GTlsCertificate *certificate,
					 GTlsCertificateFlags errors,
					 gpointer user_data)
{
	return g_tls_certificate_is_same(certificate, G_TLS_CERTIFICATE(user_data));
}

/**
 * esd_test_ws_client_connect_full:
 * @url: `ws://…` or `wss://…`
 * @origin: (nullable): the Origin header to send
 * @headers: (nullable): more request headers as name, value, …, %NULL
 * @certificate: (nullable): for `wss://`, the server certificate to trust
 * @status: (out) (optional): the HTTP status of the upgrade response
 * @error: return location for a #GError
 *
 * Performs the WebSocket handshake, waiting at most %ESD_TEST_TIMEOUT_MS.
 *
 * Returns: (transfer full) (nullable): a connected client, or %NULL
 */
EsdTestWsClient *
esd_test_ws_client_connect_full(const gchar *url,
				const gchar *origin,
				const gchar *const *headers,
				GTlsCertificate *certificate,
				guint *status,
				GError **error)
{
	g_autoptr(EsdTestWsClient) self = g_object_new(ESD_TYPE_TEST_WS_CLIENT, NULL);
	g_autoptr(SoupMessage) msg = soup_message_new(SOUP_METHOD_GET, url);
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	EsdTestWsConnect op = {0};

	g_assert_nonnull(msg);
	for (guint i = 0; headers != NULL && headers[i] != NULL && headers[i + 1] != NULL; i += 2)
		soup_message_headers_append(soup_message_get_request_headers(msg),
					    headers[i],
					    headers[i + 1]);
	if (certificate != NULL)
		g_signal_connect_object(msg,
					"accept-certificate",
					G_CALLBACK(esd_test_ws_client_accept_certificate_cb),
					certificate,
					0);
	self->session = esd_test_session_new();
	g_signal_connect(msg,
			 "network-event",
			 G_CALLBACK(esd_test_ws_client_network_event_cb),
			 self);
	soup_session_websocket_connect_async(self->session,
					     msg,
					     origin,
					     NULL,
					     G_PRIORITY_DEFAULT,
					     cancellable,
					     esd_test_ws_client_connect_cb,
					     &op);
	esd_test_wait_async(&op.done, cancellable, ESD_TEST_TIMEOUT_MS, "websocket handshake");
	g_signal_handlers_disconnect_by_data(msg, self);
	if (status != NULL)
		*status = soup_message_get_status(msg);
	if (op.connection == NULL) {
		g_propagate_error(error, op.error);
		return NULL;
	}
	self->connection = op.connection;
	soup_websocket_connection_set_max_incoming_payload_size(self->connection, 0);
	g_signal_connect(self->connection,
			 "message",
			 G_CALLBACK(esd_test_ws_client_message_cb),
			 self);
	g_signal_connect(self->connection,
			 "closed",
			 G_CALLBACK(esd_test_ws_client_closed_cb),
			 self);
	g_signal_connect(self->connection, "error", G_CALLBACK(esd_test_ws_client_error_cb), self);
	g_assert_cmpuint(self->local_port, !=, 0);
	self->prefix = g_strdup_printf("failed to parse websocket JSON-RPC message from "
				       "exec-server websocket 127.0.0.1:%u: ",
				       self->local_port);
	return g_steal_pointer(&self);
}

/**
 * esd_test_ws_client_connect:
 * @url: `ws://…`
 * @origin: (nullable): the Origin header to send
 * @status: (out) (optional): the HTTP status of the upgrade response
 * @error: return location for a #GError
 *
 * Performs the WebSocket handshake, waiting at most %ESD_TEST_TIMEOUT_MS.
 *
 * Returns: (transfer full) (nullable): a connected client, or %NULL
 */
EsdTestWsClient *
esd_test_ws_client_connect(const gchar *url, const gchar *origin, guint *status, GError **error)
{
	return esd_test_ws_client_connect_full(url, origin, NULL, NULL, status, error);
}

/**
 * esd_test_ws_client_new:
 * @url: `ws://…`
 *
 * Like esd_test_ws_client_connect(), but the test fails if it cannot connect.
 *
 * Returns: (transfer full): a connected client
 */
EsdTestWsClient *
esd_test_ws_client_new(const gchar *url)
{
	g_autoptr(GError) error = NULL;
	guint status = 0;
	EsdTestWsClient *self = esd_test_ws_client_connect(url, NULL, &status, &error);

	if (self == NULL)
		g_error("cannot connect to %s (HTTP %u): %s", url, status, error->message);
	return self;
}

/**
 * esd_test_ws_client_send:
 * @self: an open client
 * @type: text or binary
 * @data: the payload; valid UTF-8 for text
 * @len: length of @data
 *
 * Queues one WebSocket message.
 */
void
esd_test_ws_client_send(EsdTestWsClient *self,
			SoupWebsocketDataType type,
			const gchar *data,
			gsize len)
{
	g_autoptr(GBytes) bytes = g_bytes_new(data, len);

	g_assert_true(esd_test_ws_client_is_open(self));
	soup_websocket_connection_send_message(self->connection, type, bytes);
}

/**
 * esd_test_ws_client_build_frame:
 * @opcode: 0 continuation, 1 text, 2 binary, …
 * @fin: whether this is the last frame of the message
 * @payload: the payload
 * @len: length of @payload
 *
 * Returns: (transfer full): a masked client frame, for esd_test_ws_client_send_raw()
 */
GBytes *
esd_test_ws_client_build_frame(guint8 opcode, gboolean fin, const gchar *payload, gsize len)
{
	const guint8 mask[4] = {0x3a, 0x5c, 0x7e, 0x91};
	GByteArray *frame = g_byte_array_sized_new(len + 14);
	guint8 header[10];
	gsize header_len = 2;

	header[0] = (fin ? 0x80 : 0x00) | (opcode & 0x0f);
	if (len < 126) {
		header[1] = 0x80 | (guint8)len;
	} else if (len <= G_MAXUINT16) {
		header[1] = 0x80 | 126;
		header[2] = (guint8)(len >> 8);
		header[3] = (guint8)len;
		header_len = 4;
	} else {
		header[1] = 0x80 | 127;
		for (guint i = 0; i < 8; i++)
			header[2 + i] = (guint8)((guint64)len >> (56 - 8 * i));
		header_len = 10;
	}
	g_byte_array_append(frame, header, header_len);
	g_byte_array_append(frame, mask, sizeof(mask));
	for (gsize i = 0; i < len; i++) {
		guint8 b = (guint8)payload[i] ^ mask[i % 4];
		g_byte_array_append(frame, &b, 1);
	}
	return g_byte_array_free_to_bytes(frame);
}

/**
 * esd_test_ws_client_send_raw:
 * @self: an open client with nothing queued
 * @data: bytes, normally frames from esd_test_ws_client_build_frame()
 * @len: length of @data
 *
 * Writes @data straight to the socket, bypassing libsoup's framing, e.g. to
 * send a message in several fragments.
 */
void
esd_test_ws_client_send_raw(EsdTestWsClient *self, const guint8 *data, gsize len)
{
	GIOStream *stream = soup_websocket_connection_get_io_stream(self->connection);
	g_autoptr(GError) error = NULL;

	g_assert_true(esd_test_ws_client_is_open(self));
	g_output_stream_write_all(g_io_stream_get_output_stream(stream),
				  data,
				  len,
				  NULL,
				  NULL,
				  &error);
	g_assert_no_error(error);
}

/**
 * esd_test_ws_client_wait_closed:
 * @self: a client
 * @timeout_ms: the longest to wait; the test fails when it passes
 *
 * Returns: the close code the daemon sent, or %ESD_TEST_WS_CLOSE_NO_FRAME
 * (1006) when it dropped the connection without a Close frame
 */
gushort
esd_test_ws_client_wait_closed(EsdTestWsClient *self, guint timeout_ms)
{
	esd_test_wait_async(&self->closed, NULL, timeout_ms, "websocket close");
	return self->close_code;
}

/**
 * esd_test_ws_client_close:
 * @self: a client
 *
 * Closes the connection with a Close frame (1000) and waits until it is
 * closed.
 */
void
esd_test_ws_client_close(EsdTestWsClient *self)
{
	if (esd_test_ws_client_is_open(self))
		soup_websocket_connection_close(self->connection,
						SOUP_WEBSOCKET_CLOSE_NORMAL,
						NULL);
	esd_test_ws_client_wait_closed(self, ESD_TEST_TIMEOUT_MS);
}

/**
 * esd_test_ws_client_abort:
 * @self: a client
 *
 * Ends the TCP connection without a Close frame, as a crashing client
 * would, and waits until libsoup noticed.
 */
void
esd_test_ws_client_abort(EsdTestWsClient *self)
{
	g_autoptr(GError) error = NULL;

	g_assert_nonnull(self->socket_connection);
	if (!g_socket_shutdown(g_socket_connection_get_socket(self->socket_connection),
			       TRUE,
			       TRUE,
			       &error))
		g_debug("shutdown: %s", error->message);
	esd_test_ws_client_wait_closed(self, ESD_TEST_TIMEOUT_MS);
}

/**
 * esd_test_ws_client_is_open:
 * @self: a client
 *
 * Returns: %TRUE while messages can be sent
 */
gboolean
esd_test_ws_client_is_open(EsdTestWsClient *self)
{
	return !self->closed &&
	       soup_websocket_connection_get_state(self->connection) == SOUP_WEBSOCKET_STATE_OPEN;
}

/**
 * esd_test_ws_client_get_local_port:
 * @self: a client
 *
 * Returns: the client's TCP port, which the daemon names in parse errors
 */
guint16
esd_test_ws_client_get_local_port(EsdTestWsClient *self)
{
	return self->local_port;
}

static void
esd_test_ws_client_peer_send(EsdTestPeer *peer, const gchar *data, gsize len)
{
	esd_test_ws_client_send(ESD_TEST_WS_CLIENT(peer), SOUP_WEBSOCKET_DATA_TEXT, data, len);
}

/* the daemon always answers with text frames */
static GBytes *
esd_test_ws_client_peer_receive(EsdTestPeer *peer, guint timeout_ms)
{
	EsdTestWsClient *self = ESD_TEST_WS_CLIENT(peer);
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	EsdTestWsMessage *message;
	GBytes *data;

	while (g_queue_is_empty(&self->messages) && !self->closed) {
		if (g_get_monotonic_time() >= deadline)
			g_error("timed out after %u ms waiting for a websocket message",
				timeout_ms);
		esd_test_iterate(50);
	}
	message = g_queue_pop_head(&self->messages);
	if (message == NULL)
		return NULL;
	g_assert_cmpint(message->type, ==, SOUP_WEBSOCKET_DATA_TEXT);
	data = g_bytes_ref(message->data);
	esd_test_ws_message_free(message);
	return data;
}

static void
esd_test_ws_client_peer_assert_dropped(EsdTestPeer *peer, guint timeout_ms)
{
	EsdTestWsClient *self = ESD_TEST_WS_CLIENT(peer);
	gushort code = esd_test_ws_client_wait_closed(self, timeout_ms);

	g_assert_cmpuint(g_queue_get_length(&self->messages), ==, 0);
	g_assert_cmpuint(code, ==, ESD_TEST_WS_CLOSE_NO_FRAME);
}

static const gchar *
esd_test_ws_client_peer_get_parse_error_prefix(EsdTestPeer *peer)
{
	return ESD_TEST_WS_CLIENT(peer)->prefix;
}

static void
esd_test_ws_client_peer_iface_init(EsdTestPeerInterface *iface)
{
	iface->send = esd_test_ws_client_peer_send;
	iface->receive = esd_test_ws_client_peer_receive;
	iface->assert_dropped = esd_test_ws_client_peer_assert_dropped;
	iface->get_parse_error_prefix = esd_test_ws_client_peer_get_parse_error_prefix;
}

static void
esd_test_ws_client_dispose(GObject *object)
{
	EsdTestWsClient *self = ESD_TEST_WS_CLIENT(object);

	if (self->connection != NULL) {
		g_signal_handlers_disconnect_by_data(self->connection, self);
		g_clear_object(&self->connection);
	}
	g_clear_object(&self->socket_connection);
	g_clear_object(&self->session);
	G_OBJECT_CLASS(esd_test_ws_client_parent_class)->dispose(object);
}

static void
esd_test_ws_client_finalize(GObject *object)
{
	EsdTestWsClient *self = ESD_TEST_WS_CLIENT(object);

	g_queue_clear_full(&self->messages, (GDestroyNotify)esd_test_ws_message_free);
	g_free(self->prefix);
	G_OBJECT_CLASS(esd_test_ws_client_parent_class)->finalize(object);
}

static void
esd_test_ws_client_init(EsdTestWsClient *self)
{
	g_queue_init(&self->messages);
}

static void
esd_test_ws_client_class_init(EsdTestWsClientClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	object_class->dispose = esd_test_ws_client_dispose;
	object_class->finalize = esd_test_ws_client_finalize;
}

/* plain HTTP and one-shot runs */

typedef struct {
	gboolean done;
	GBytes *body;
	GError *error;
} EsdTestHttpOp;

static void
esd_test_http_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestHttpOp *op = user_data;
	op->body = soup_session_send_and_read_finish(SOUP_SESSION(source), res, &op->error);
	op->done = TRUE;
}

/**
 * esd_test_http_request:
 * @method: an HTTP method
 * @url: `http://…`
 * @headers: (nullable): request headers as name, value, …, %NULL
 * @body: (out) (optional): the response body
 *
 * Sends one request, waiting at most %ESD_TEST_TIMEOUT_MS; a transport
 * error fails the test.
 *
 * Returns: the response status
 */
guint
esd_test_http_request(const gchar *method,
		      const gchar *url,
		      const gchar *const *headers,
		      gchar **body)
{
	g_autoptr(SoupSession) session = esd_test_session_new();
	g_autoptr(SoupMessage) msg = soup_message_new(method, url);
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GBytes) response = NULL;
	EsdTestHttpOp op = {0};

	g_assert_nonnull(msg);
	for (guint i = 0; headers != NULL && headers[i] != NULL && headers[i + 1] != NULL; i += 2)
		soup_message_headers_append(soup_message_get_request_headers(msg),
					    headers[i],
					    headers[i + 1]);
	soup_session_send_and_read_async(session,
					 msg,
					 G_PRIORITY_DEFAULT,
					 cancellable,
					 esd_test_http_cb,
					 &op);
	esd_test_wait_async(&op.done, cancellable, ESD_TEST_TIMEOUT_MS, url);
	response = op.body;
	g_assert_no_error(op.error);
	if (body != NULL) {
		gsize len = 0;
		const gchar *data = g_bytes_get_data(response, &len);
		*body = g_strndup(data != NULL ? data : "", len);
	}
	return soup_message_get_status(msg);
}

typedef struct {
	gboolean done;
	gchar *stdout_text;
	gchar *stderr_text;
	GError *error;
} EsdTestRunOp;

static void
esd_test_run_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdTestRunOp *op = user_data;
	g_subprocess_communicate_utf8_finish(G_SUBPROCESS(source),
					     res,
					     &op->stdout_text,
					     &op->stderr_text,
					     &op->error);
	op->done = TRUE;
}

/**
 * esd_test_run_daemon:
 * @args: (nullable): arguments after the program name
 * @stdout_text: (out) (optional): what it printed on stdout
 * @stderr_text: (out) (optional): what it printed on stderr
 *
 * Runs the daemon with stdin at end of file and waits at most
 * %ESD_TEST_TIMEOUT_MS for it to exit.
 *
 * Returns: its exit status, or 128 + the signal number that killed it
 */
gint
esd_test_run_daemon(const gchar *const *args, gchar **stdout_text, gchar **stderr_text)
{
	g_autoptr(GSubprocess) subprocess = NULL;
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	EsdTestRunOp op = {0};
	gint64 deadline = g_get_monotonic_time() + ESD_TEST_TIMEOUT_MS * 1000;

	subprocess = esd_test_spawn(args,
				    NULL,
				    NULL,
				    G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
					G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_subprocess_communicate_utf8_async(subprocess, "", cancellable, esd_test_run_cb, &op);
	while (!op.done && g_get_monotonic_time() < deadline)
		esd_test_iterate(50);
	if (!op.done) {
		g_subprocess_force_exit(subprocess);
		esd_test_wait_async(&op.done, cancellable, ESD_TEST_TIMEOUT_MS, "killed daemon");
		g_error("the daemon did not exit within %d ms", ESD_TEST_TIMEOUT_MS);
	}
	g_assert_no_error(op.error);
	if (stdout_text != NULL)
		*stdout_text = g_steal_pointer(&op.stdout_text);
	if (stderr_text != NULL)
		*stderr_text = g_steal_pointer(&op.stderr_text);
	g_free(op.stdout_text);
	g_free(op.stderr_text);
	if (g_subprocess_get_if_exited(subprocess))
		return g_subprocess_get_exit_status(subprocess);
	if (g_subprocess_get_if_signaled(subprocess))
		return 128 + g_subprocess_get_term_sig(subprocess);
	return -1;
}

/*
 * Transport-neutral exchanges (PROTOCOL.md §3, §4, §5 and transcripts.md A,
 * B.3), run over both stdio and WebSocket. Unless a row says otherwise the
 * connection must stay usable afterwards.
 */

/* clang-format off */
#define ESD_STATUS(id) "{\"id\":" id ",\"method\":\"environment/status\"}"
#define ESD_READY(id)  "{\"id\":" id ",\"result\":{\"status\":\"ready\"}}"
#define ESD_UNTAGGED_ID "data did not match any variant of untagged enum RequestId"

/* PROTOCOL.md §5.1: gating, duplicate and failed initialize, initialize params */
const EsdTestExchange esd_test_exchanges_handshake[] = {
    {"env-info-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":2,\"method\":\"environment/info\",\"params\":{}}", -1, NULL, -32600,
     "client must call initialize before using environment info methods"},
    {"env-status-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"environment/status\",\"params\":{}}", -1, NULL, -32600,
     "client must call initialize before using environment status methods"},
    {"env-status-before-initialize-string-id", ESD_TEST_STAGE_NEW,
     "{\"id\":\"x\",\"method\":\"environment/status\"}", -1, NULL, -32600,
     "client must call initialize before using environment status methods"},
    {"fs-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":1,\"method\":\"fs/readFile\",\"params\":{\"path\":\"file:///etc/hostname\"}}", -1,
     NULL, -32600, "client must call initialize before using filesystem methods"},
    {"fs-watch-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":8,\"method\":\"fs/watchMissing\",\"params\":{\"watchId\":1,\"missing\":[]}}", -1,
     NULL, -32600, "client must call initialize before using filesystem methods"},
    {"exec-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":4,\"method\":\"process/read\",\"params\":{\"processId\":\"x\"}}", -1, NULL,
     -32600, "client must call initialize before using exec methods"},
    {"http-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":5,\"method\":\"http/request\",\"params\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:1/\",\"requestId\":\"a\"}}",
     -1, NULL, -32600, "client must call initialize before using http methods", ESD_TEST_EXCHANGE_PENDING},
    {"env-config-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":6,\"method\":\"environmentConfig/read\",\"params\":{\"cwd\":\"file:///tmp\",\"configPaths\":[[\"a\"]],\"requirementsPaths\":[]}}",
     -1, NULL, -32600, "client must call initialize before using environment config methods",
     ESD_TEST_EXCHANGE_PENDING},
    {"discovery-v2-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":7,\"method\":\"capabilities/discoverV2\",\"params\":{\"cwd\":\"file:///tmp\"}}", -1,
     NULL, -32600, "client must call initialize before using capability discovery methods"},
    {"discovery-v1-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":9,\"method\":\"capabilityRoots/discoverV1\",\"params\":{\"roots\":[]}}", -1, NULL,
     -32600, "client must call initialize before using capability discovery methods"},
    {"env-info-before-initialized", ESD_TEST_STAGE_INITIALIZED,
     "{\"id\":2,\"method\":\"environment/info\",\"params\":{}}", -1, NULL, -32600,
     "client must send initialized before using environment info methods"},
    {"env-status-before-initialized", ESD_TEST_STAGE_INITIALIZED,
     "{\"id\":5,\"method\":\"environment/status\"}", -1, NULL, -32600,
     "client must send initialized before using environment status methods"},
    {"fs-before-initialized", ESD_TEST_STAGE_INITIALIZED,
     "{\"id\":2,\"method\":\"fs/readFile\",\"params\":{\"path\":\"file:///etc/hostname\"}}", -1,
     NULL, -32600, "client must send initialized before using filesystem methods"},
    {"exec-before-initialized", ESD_TEST_STAGE_INITIALIZED,
     "{\"id\":4,\"method\":\"process/read\",\"params\":{\"processId\":\"x\"}}", -1, NULL,
     -32600, "client must send initialized before using exec methods"},
    {"initialize-twice-before-initialized", ESD_TEST_STAGE_INITIALIZED,
     "{\"id\":7,\"method\":\"initialize\",\"params\":{\"clientName\":\"again\"}}", -1, NULL,
     -32600, "initialize may only be sent once per connection"},
    {"initialize-twice", ESD_TEST_STAGE_READY,
     "{\"id\":7,\"method\":\"initialize\",\"params\":{\"clientName\":\"again\"}}", -1, NULL,
     -32600, "initialize may only be sent once per connection"},
    /* the duplicate check comes after params deserialisation */
    {"initialize-twice-bad-params", ESD_TEST_STAGE_READY,
     "{\"id\":7,\"method\":\"initialize\",\"params\":{}}", -1, NULL, -32602,
     "missing field `clientName`"},
    {"initialize-empty-params", ESD_TEST_STAGE_NEW,
     "{\"id\":4,\"method\":\"initialize\",\"params\":{}}", -1, NULL, -32602,
     "missing field `clientName`"},
    {"initialize-no-params", ESD_TEST_STAGE_NEW, "{\"id\":2,\"method\":\"initialize\"}", -1,
     NULL, -32602, "invalid type: null, expected struct InitializeParams"},
    {"initialize-null-params", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"initialize\",\"params\":null}", -1, NULL, -32602,
     "invalid type: null, expected struct InitializeParams"},
    {"initialize-array-params", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"initialize\",\"params\":[]}", -1, NULL, -32602,
     "invalid type: sequence, expected struct InitializeParams"},
    {"initialize-string-params", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"initialize\",\"params\":\"x\"}", -1, NULL, -32602,
     "invalid type: string \"x\", expected struct InitializeParams"},
    {"initialize-client-name-number", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"initialize\",\"params\":{\"clientName\":5}}", -1, NULL, -32602,
     "invalid type: integer `5`, expected a string"},
    {"initialize-client-name-null", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"initialize\",\"params\":{\"clientName\":null}}", -1, NULL, -32602,
     "invalid type: null, expected a string"},
    {"initialize-resume-number", ESD_TEST_STAGE_NEW,
     "{\"id\":3,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\",\"resumeSessionId\":5}}",
     -1, NULL, -32602, "invalid type: integer `5`, expected a string"},
    {"initialize-resume-unknown", ESD_TEST_STAGE_NEW,
     "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\",\"resumeSessionId\":\"00000000-0000-0000-0000-000000000000\"}}",
     -1, NULL, -32600, "unknown session id 00000000-0000-0000-0000-000000000000"},
    {"initialize-resume-not-a-uuid", ESD_TEST_STAGE_NEW,
     "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\",\"resumeSessionId\":\"not-a-session\"}}",
     -1, NULL, -32600, "unknown session id not-a-session"},
    {NULL},
};

/* PROTOCOL.md §3, §7.4, §7.5: ids, params of the unit methods, unknown methods, trace */
const EsdTestExchange esd_test_exchanges_envelope[] = {
    {"env-status-no-params", ESD_TEST_STAGE_READY, ESD_STATUS("5"), -1, ESD_READY("5")},
    {"env-status-null-params", ESD_TEST_STAGE_READY,
     "{\"id\":5,\"method\":\"environment/status\",\"params\":null}", -1, ESD_READY("5")},
    {"env-status-empty-params", ESD_TEST_STAGE_READY,
     "{\"id\":5,\"method\":\"environment/status\",\"params\":{}}", -1, ESD_READY("5")},
    {"env-status-map-params", ESD_TEST_STAGE_READY,
     "{\"id\":5,\"method\":\"environment/status\",\"params\":{\"x\":1}}", -1, NULL, -32602,
     "invalid type: map, expected unit"},
    {"env-info-map-params", ESD_TEST_STAGE_READY,
     "{\"id\":5,\"method\":\"environment/info\",\"params\":{\"unexpected\":1}}", -1, NULL,
     -32602, "invalid type: map, expected unit"},
    {"env-info-sequence-params", ESD_TEST_STAGE_READY,
     "{\"id\":3,\"method\":\"environment/info\",\"params\":[1]}", -1, NULL, -32602,
     "invalid type: sequence, expected unit"},
    {"env-info-empty-sequence-params", ESD_TEST_STAGE_READY,
     "{\"id\":3,\"method\":\"environment/info\",\"params\":[]}", -1, NULL, -32602,
     "invalid type: sequence, expected unit"},
    /* the reference says "invalid type: number, expected unit" */
    {"env-info-number-params", ESD_TEST_STAGE_READY,
     "{\"id\":4,\"method\":\"environment/info\",\"params\":5}", -1, NULL, -32602,
     "invalid type: *, expected unit"},
    {"env-info-string-params", ESD_TEST_STAGE_READY,
     "{\"id\":4,\"method\":\"environment/info\",\"params\":\"s\"}", -1, NULL, -32602,
     "invalid type: *, expected unit"},
    {"env-info-bool-params", ESD_TEST_STAGE_READY,
     "{\"id\":4,\"method\":\"environment/info\",\"params\":true}", -1, NULL, -32602,
     "invalid type: *, expected unit"},
    {"unknown-method", ESD_TEST_STAGE_READY,
     "{\"id\":8,\"method\":\"no/such/method\",\"params\":{}}", -1, NULL, -32601,
     "exec-server stub does not implement `no/such/method` yet"},
    {"unknown-method-short", ESD_TEST_STAGE_READY, "{\"id\":8,\"method\":\"x\"}", -1, NULL,
     -32601, "exec-server stub does not implement `x` yet"},
    {"id-string", ESD_TEST_STAGE_READY, ESD_STATUS("\"string-id-7\""), -1,
     ESD_READY("\"string-id-7\"")},
    {"id-string-empty", ESD_TEST_STAGE_READY, ESD_STATUS("\"\""), -1, ESD_READY("\"\"")},
    {"id-string-numeric", ESD_TEST_STAGE_READY, ESD_STATUS("\"7\""), -1, ESD_READY("\"7\"")},
    {"id-string-unicode", ESD_TEST_STAGE_READY, ESD_STATUS("\"\xc3\xbc\\u00e9\\n\\\"\""), -1,
     ESD_READY("\"\xc3\xbc\xc3\xa9\\n\\\"\"")},
    {"id-negative", ESD_TEST_STAGE_READY, ESD_STATUS("-7"), -1, ESD_READY("-7")},
    {"id-zero", ESD_TEST_STAGE_READY, ESD_STATUS("0"), -1, ESD_READY("0")},
    {"id-minus-one", ESD_TEST_STAGE_READY, ESD_STATUS("-1"), -1, ESD_READY("-1")},
    {"id-i64-max", ESD_TEST_STAGE_READY, ESD_STATUS("9223372036854775807"), -1,
     ESD_READY("9223372036854775807")},
    {"id-i64-min", ESD_TEST_STAGE_READY, ESD_STATUS("-9223372036854775808"), -1,
     ESD_READY("-9223372036854775808")},
    /* out of i64 range: not a RequestId (json-glib would wrap it) */
    {"id-i64-max-plus-one", ESD_TEST_STAGE_READY, ESD_STATUS("9223372036854775808"), -1, NULL,
     0, ESD_UNTAGGED_ID, ESD_TEST_EXCHANGE_MALFORMED},
    {"id-i64-min-minus-one", ESD_TEST_STAGE_READY, ESD_STATUS("-9223372036854775809"), -1, NULL,
     0, ESD_UNTAGGED_ID, ESD_TEST_EXCHANGE_MALFORMED},
    {"id-u64-max", ESD_TEST_STAGE_READY, ESD_STATUS("18446744073709551615"), -1, NULL, 0,
     ESD_UNTAGGED_ID, ESD_TEST_EXCHANGE_MALFORMED},
    /* beyond 64 bits: a float, as serde_json reads it, and no RequestId either */
    {"id-huge", ESD_TEST_STAGE_READY, ESD_STATUS("100000000000000000000"), -1, NULL, 0,
     ESD_UNTAGGED_ID, ESD_TEST_EXCHANGE_MALFORMED},
    {"jsonrpc-member-ignored", ESD_TEST_STAGE_READY,
     "{\"jsonrpc\":\"2.0\",\"id\":\"s-2\",\"method\":\"environment/status\"}", -1,
     ESD_READY("\"s-2\"")},
    {"trace-object", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"trace\":{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\",\"tracestate\":\"a=b\"}}",
     -1, ESD_READY("9")},
    {"trace-empty-object", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"trace\":{}}", -1, ESD_READY("9")},
    {"trace-null", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"trace\":null}", -1, ESD_READY("9")},
    {"unknown-member-ignored", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"extra\":{\"a\":[1,2]}}", -1, ESD_READY("9")},
    /* the method must not become environment/status; the scenario id-escaped-nul
     * reads the reply as sent, which json-glib would cut at the NUL */
    {"method-escaped-nul", ESD_TEST_STAGE_READY,
     "{\"id\":7,\"method\":\"environment/status\\u0000x\"}", -1, NULL, -32601,
     "exec-server stub does not implement `environment/status*"},
    {NULL},
};

/* PROTOCOL.md §3, §4: frames answered with an id:-1 error, the connection goes on */
const EsdTestExchange esd_test_exchanges_malformed[] = {
    {"not-json", ESD_TEST_STAGE_READY, "not json", -1, NULL, 0, "*", ESD_TEST_EXCHANGE_MALFORMED},
    {"not-json-before-initialize", ESD_TEST_STAGE_NEW, "{not json", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"key-not-string", ESD_TEST_STAGE_READY, "{not json", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"truncated", ESD_TEST_STAGE_READY, "{\"id\":4,", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"array", ESD_TEST_STAGE_READY, "[1,2]", -1, NULL, 0, "expected a JSON-RPC object",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"number", ESD_TEST_STAGE_READY, "42", -1, NULL, 0, "expected a JSON-RPC object",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"string", ESD_TEST_STAGE_READY, "\"str\"", -1, NULL, 0, "expected a JSON-RPC object",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"null", ESD_TEST_STAGE_READY, "null", -1, NULL, 0, "expected a JSON-RPC object",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"batch", ESD_TEST_STAGE_READY,
     "[{\"id\":2,\"method\":\"environment/status\",\"params\":{}},{\"id\":3,\"method\":\"nope\",\"params\":{}}]",
     -1, NULL, 0, "expected a JSON-RPC object", ESD_TEST_EXCHANGE_MALFORMED},
    {"batch-before-initialize", ESD_TEST_STAGE_NEW,
     "[{\"id\":99,\"method\":\"environment/status\"}]", -1, NULL, 0,
     "expected a JSON-RPC object", ESD_TEST_EXCHANGE_MALFORMED},
    {"batch-empty", ESD_TEST_STAGE_READY, "[]", -1, NULL, 0, "expected a JSON-RPC object",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"batch-notification", ESD_TEST_STAGE_READY, "[{\"method\":\"initialized\"}]", -1, NULL, 0,
     "expected a JSON-RPC object", ESD_TEST_EXCHANGE_MALFORMED},
    {"empty-object", ESD_TEST_STAGE_READY, "{}", -1, NULL, 0, "*", ESD_TEST_EXCHANGE_MALFORMED},
    {"id-only", ESD_TEST_STAGE_READY, "{\"id\":16}", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-float", ESD_TEST_STAGE_READY, ESD_STATUS("3.5"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-float-integral", ESD_TEST_STAGE_READY, ESD_STATUS("1.0"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-exponent", ESD_TEST_STAGE_READY, ESD_STATUS("1e3"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-null", ESD_TEST_STAGE_READY, ESD_STATUS("null"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-object", ESD_TEST_STAGE_READY, ESD_STATUS("{}"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-array", ESD_TEST_STAGE_READY, ESD_STATUS("[1]"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-bool", ESD_TEST_STAGE_READY, ESD_STATUS("true"), -1, NULL, 0, ESD_UNTAGGED_ID,
     ESD_TEST_EXCHANGE_MALFORMED},
    {"id-float-before-initialize", ESD_TEST_STAGE_NEW, ESD_STATUS("3.5"), -1, NULL, 0,
     ESD_UNTAGGED_ID, ESD_TEST_EXCHANGE_MALFORMED},
    {"method-number", ESD_TEST_STAGE_READY, "{\"id\":17,\"method\":5}", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"trace-number", ESD_TEST_STAGE_READY, "{\"id\":9,\"method\":\"environment/status\",\"trace\":5}",
     -1, NULL, 0, "*", ESD_TEST_EXCHANGE_MALFORMED},
    {"trace-string", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"trace\":\"x\"}", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"trace-array", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"trace\":[]}", -1, NULL, 0, "*",
     ESD_TEST_EXCHANGE_MALFORMED},
    {"trace-member-type", ESD_TEST_STAGE_READY,
     "{\"id\":9,\"method\":\"environment/status\",\"trace\":{\"traceparent\":5}}", -1, NULL, 0,
     "*", ESD_TEST_EXCHANGE_MALFORMED},
    {"trace-on-initialize", ESD_TEST_STAGE_NEW,
     "{\"id\":9,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"},\"trace\":5}", -1,
     NULL, 0, "*", ESD_TEST_EXCHANGE_MALFORMED},
    {NULL},
};

/* PROTOCOL.md §5.3, §5.4: the daemon drops the connection without a reply */
const EsdTestExchange esd_test_exchanges_fatal[] = {
    {"unknown-notification", ESD_TEST_STAGE_READY,
     "{\"method\":\"bogus/notification\",\"params\":{}}", -1, NULL, 0, NULL,
     ESD_TEST_EXCHANGE_FATAL},
    {"unknown-notification-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"method\":\"bogus/notify\",\"params\":{}}", -1, NULL, 0, NULL, ESD_TEST_EXCHANGE_FATAL},
    {"unknown-notification-before-initialized", ESD_TEST_STAGE_INITIALIZED,
     "{\"method\":\"bogus/notify\"}", -1, NULL, 0, NULL, ESD_TEST_EXCHANGE_FATAL},
    {"known-method-as-notification", ESD_TEST_STAGE_READY,
     "{\"method\":\"environment/status\"}", -1, NULL, 0, NULL, ESD_TEST_EXCHANGE_FATAL},
    {"initialized-before-initialize", ESD_TEST_STAGE_NEW,
     "{\"method\":\"initialized\",\"params\":{}}", -1, NULL, 0, NULL, ESD_TEST_EXCHANGE_FATAL},
    {"client-response", ESD_TEST_STAGE_READY, "{\"id\":99,\"result\":{}}", -1, NULL, 0, NULL,
     ESD_TEST_EXCHANGE_FATAL},
    {"client-error-response", ESD_TEST_STAGE_READY,
     "{\"id\":99,\"error\":{\"code\":1,\"message\":\"x\"}}", -1, NULL, 0, NULL,
     ESD_TEST_EXCHANGE_FATAL},
    {"client-response-before-initialize", ESD_TEST_STAGE_NEW, "{\"id\":12345,\"result\":{}}",
     -1, NULL, 0, NULL, ESD_TEST_EXCHANGE_FATAL},
    {NULL},
};
/* clang-format on */
