/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "esd-test-utils.h"
#include "http-servers.h"

/*
 * http/request of the http plugin against the real daemon, over WebSocket
 * and stdio, written from PROTOCOL.md §12, WAVE2.md and the reference's
 * answers (transcripts "http/request" and B.10). The servers are local
 * (http-servers.c); every case runs in a child process with its own
 * daemon and servers.
 */

#define HTTP_TEST "/execserverd/http/"
#define WAIT_MS	  10000
#define BIG_SIZE  (100 * 1024 * 1024)
/* the daemon's resident memory may grow this much over a 100 MB stream */
#define BIG_RSS_MAX_KB (96 * 1024)

typedef struct {
	gboolean ws;
	EsdTestDaemon *daemon;
	EsdTestWsClient *client;
	EsdTestPeer *peer;
	HttpServers *servers;
	guint next_id;
	GQueue notes; /* of JsonNode */
	gboolean stopped;
} Fx;

typedef void (*HttpTestFunc)(Fx *fx);

typedef struct {
	const gchar *name;
	HttpTestFunc func;
	const gchar *const *args;
	const gchar *const *env;
} CaseDef;

typedef struct {
	const CaseDef *def;
	gboolean ws;
} Case;

/* `'` for `"` (in JSON), `@P` the HTTP port, `@T` the TLS port, `@R` the raw server's */
static gchar *
expand_full(Fx *fx, const gchar *tmpl, gboolean json)
{
	GString *out = g_string_new(NULL);

	for (const gchar *p = tmpl; *p != '\0'; p++) {
		if (json && *p == '\'')
			g_string_append_c(out, '"');
		else if (p[0] == '@' && p[1] == 'P' && p++)
			g_string_append_printf(out, "%u", http_servers_get_port(fx->servers));
		else if (p[0] == '@' && p[1] == 'T' && p++)
			g_string_append_printf(out, "%u", http_servers_get_tls_port(fx->servers));
		else if (p[0] == '@' && p[1] == 'R' && p++)
			g_string_append_printf(out, "%u", http_servers_get_raw_port(fx->servers));
		else
			g_string_append_c(out, *p);
	}
	return g_string_free(out, FALSE);
}

static gchar *
expand(Fx *fx, const gchar *tmpl)
{
	return expand_full(fx, tmpl, TRUE);
}

static JsonNode *
fx_receive(Fx *fx, guint timeout_ms)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(fx->peer, timeout_ms);
	g_autofree gchar *text = NULL;
	gsize len = 0;
	const gchar *data;

	if (bytes == NULL)
		g_error("the daemon closed the connection");
	data = g_bytes_get_data(bytes, &len);
	text = g_strndup(data, len);
	return esd_test_json_parse(text);
}

static guint
fx_send(Fx *fx, const gchar *params_tmpl)
{
	g_autofree gchar *params = expand(fx, params_tmpl);
	g_autofree gchar *text = NULL;
	guint id = ++fx->next_id;

	text = g_strdup_printf("{\"id\":%u,\"method\":\"http/request\",\"params\":%s}", id, params);
	esd_test_peer_send_text(fx->peer, text);
	return id;
}

/* the reply to @id; notifications meanwhile are queued */
static JsonNode *
fx_wait(Fx *fx, guint id)
{
	for (;;) {
		JsonNode *msg = fx_receive(fx, WAIT_MS);
		JsonNode *msg_id = esd_test_json_get(msg, "id");

		if (msg_id == NULL) {
			g_queue_push_tail(&fx->notes, msg);
			continue;
		}
		g_assert_cmpint(json_node_get_int(msg_id), ==, id);
		return msg;
	}
}

static JsonNode *
fx_call(Fx *fx, const gchar *params_tmpl)
{
	return fx_wait(fx, fx_send(fx, params_tmpl));
}

/* a result; its text when @expected is NULL, compared otherwise */
static JsonNode *
fx_ok(Fx *fx, const gchar *params_tmpl)
{
	JsonNode *reply = fx_call(fx, params_tmpl);
	JsonNode *result = esd_test_json_get(reply, "result");

	if (result == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("%s: %s", params_tmpl, text);
	}
	return json_node_ref(result);
}

static void
fx_fail(Fx *fx, const gchar *params_tmpl, gint64 code, const gchar *pattern_tmpl)
{
	g_autoptr(JsonNode) reply = fx_call(fx, params_tmpl);
	g_autofree gchar *pattern = expand_full(fx, pattern_tmpl, FALSE);
	g_autofree gchar *id = g_strdup_printf("%u", fx->next_id);

	esd_test_peer_assert_reply_error(reply, id, code, pattern);
}

/* the next bodyDelta of @request_id; checks its seq */
static JsonNode *
fx_delta(Fx *fx, const gchar *request_id, guint64 seq)
{
	JsonNode *note = g_queue_pop_head(&fx->notes);

	if (note == NULL)
		note = fx_receive(fx, WAIT_MS);
	g_assert_cmpstr(esd_test_json_get_string(note, "method"), ==, "http/request/bodyDelta");
	g_assert_cmpstr(esd_test_json_get_string(note, "params.requestId"), ==, request_id);
	g_assert_cmpint(esd_test_json_get_int(note, "params.seq"), ==, (gint64)seq);
	return note;
}

static GBytes *
delta_bytes(JsonNode *note)
{
	gsize len = 0;
	guchar *data = g_base64_decode(esd_test_json_get_string(note, "params.deltaBase64"), &len);
	return g_bytes_new_take(data, len);
}

static gboolean
delta_done(JsonNode *note)
{
	return json_node_get_boolean(esd_test_json_get(note, "params.done"));
}

/* the body of a result, decoded, as a string */
static gchar *
result_body(JsonNode *result)
{
	gsize len = 0;
	guchar *data = g_base64_decode(esd_test_json_get_string(result, "bodyBase64"), &len);
	gchar *text = g_strndup((const gchar *)data, len);
	g_free(data);
	return text;
}

/* the result's headers as `name: value` lines */
static gchar *
result_headers(JsonNode *result)
{
	JsonArray *headers = json_node_get_array(esd_test_json_get(result, "headers"));
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(headers); i++) {
		JsonObject *h = json_array_get_object_element(headers, i);
		g_string_append_printf(out,
				       "%s: %s\n",
				       json_object_get_string_member(h, "name"),
				       json_object_get_string_member(h, "value"));
	}
	return g_string_free(out, FALSE);
}

static guint64
daemon_status_kb(Fx *fx, const gchar *field)
{
	g_autofree gchar *path =
	    g_strdup_printf("/proc/%d/status", esd_test_daemon_get_pid(fx->daemon));
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		if (g_str_has_prefix(lines[i], field) && lines[i][strlen(field)] == ':')
			return g_ascii_strtoull(lines[i] + strlen(field) + 1, NULL, 10);
	}
	g_error("%s has no %s", path, field);
	return 0;
}

/* the cases */

static void
test_echo(Fx *fx)
{
	g_autoptr(JsonNode) result =
	    fx_ok(fx,
		  "{'method':'POST','url':'http://127.0.0.1:@P/echo','requestId':'r1',"
		  "'headers':[{'name':'X-A','value':'1'},{'name':'X-B','value':'2'},"
		  "{'name':'x-a','value':'3'},{'name':'X-Tok','value':'Bearer "
		  "','valueEnvVar':'ESD_TEST_TOKEN'}],"
		  "'bodyBase64':'aGVsbG8='}");
	g_autofree gchar *body = result_body(result);
	g_autofree gchar *headers = result_headers(result);

	g_assert_cmpint(esd_test_json_get_int(result, "status"), ==, 200);
	g_assert_true(g_str_has_prefix(body, "POST\n"));
	/* grouped by name, repeats in order, the daemon's variable appended */
	if (strstr(body, "x-a: 1\nx-a: 3\nx-b: 2\nx-tok: Bearer s3cret\n") == NULL)
		g_error("request headers not grouped:\n%s", body);
	g_assert_nonnull(strstr(body, "Accept: */*\n"));
	g_assert_true(g_str_has_suffix(body, "\n\nhello"));
	/* names lower-case, grouped, repeats in order */
	if (strstr(headers, "x-multi: a\nx-multi: b\nx-upper: V\n") == NULL)
		g_error("response headers:\n%s", headers);
	g_assert_null(strstr(headers, "X-"));
}

static void
test_status(Fx *fx)
{
	g_autoptr(JsonNode) result =
	    fx_ok(fx,
		  "{'method':'GET','url':'http://127.0.0.1:@P/echo?status=404','requestId':''}");
	g_autoptr(JsonNode) head =
	    fx_ok(fx, "{'method':'HEAD','url':'http://127.0.0.1:@P/echo','requestId':'h'}");

	g_assert_cmpint(esd_test_json_get_int(result, "status"), ==, 404);
	g_assert_cmpint(esd_test_json_get_int(head, "status"), ==, 200);
	g_assert_cmpstr(esd_test_json_get_string(head, "bodyBase64"), ==, "");
}

static void
test_refused_params(Fx *fx)
{
	struct {
		const gchar *params;
		const gchar *message;
	} rows[] = {
	    {"{'method':'GE T','url':'http://127.0.0.1:@P/echo','requestId':'a'}",
	     "http/request method is invalid: invalid HTTP method"},
	    {"{'method':'','url':'http://127.0.0.1:@P/echo','requestId':'a'}",
	     "http/request method is invalid: invalid HTTP method"},
	    {"{'method':'GET','url':'/echo','requestId':'a'}",
	     "http/request url is invalid: relative URL without a base"},
	    {"{'method':'GET','url':'http://','requestId':'a'}",
	     "http/request url is invalid: empty host"},
	    {"{'method':'GET','url':'http://127.0.0.1:99999/','requestId':'a'}",
	     "http/request url is invalid: invalid port number"},
	    {"{'method':'GET','url':'ftp://127.0.0.1:@P/','requestId':'a'}",
	     "http/request only supports http and https URLs, got ftp"},
	    {"{'method':'GET','url':'file:///etc/passwd','requestId':'a'}",
	     "http/request only supports http and https URLs, got file"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a',"
	     "'headers':[{'name':'bad name','value':'x'}]}",
	     "http/request header name is invalid: invalid HTTP header name"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a',"
	     "'headers':[{'name':'X','value':'a\\r\\nInjected: 1'}]}",
	     "http/request header value is invalid for X: failed to parse header value"},
	    /* set in the daemon's environment, denied all the same, in any case */
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a',"
	     "'headers':[{'name':'Authorization','value':'Bearer "
	     "','valueEnvVar':'openai_api_key'}]}",
	     "http/request header Authorization cannot use executor environment variable "
	     "openai_api_key"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a',"
	     "'headers':[{'name':'A','value':'','valueEnvVar':'AWS_SECRET_ACCESS_KEY'}]}",
	     "http/request header A cannot use executor environment variable "
	     "AWS_SECRET_ACCESS_KEY"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a',"
	     "'headers':[{'name':'A','value':'','valueEnvVar':'ESD_TEST_NOT_SET'}]}",
	     "http/request header A requires executor environment variable ESD_TEST_NOT_SET"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a',"
	     "'headers':[{'name':'A','value':'','valueEnvVar':'ESD_TEST_EMPTY'}]}",
	     "http/request header A requires a non-empty executor environment variable "
	     "ESD_TEST_EMPTY"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo'}", "missing field `requestId`"},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a','bodyBase64':'!!'}",
	     "Invalid symbol 33, offset 0."},
	    {"{'method':'GET','url':'http://127.0.0.1:@P/"
	     "echo','requestId':'a','redirectPolicy':'x'}",
	     "unknown variant `x`, expected `follow` or `stop`"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++)
		fx_fail(fx, rows[i].params, -32602, rows[i].message);
	/* none of them reached the network */
	g_assert_cmpuint(http_servers_get_requests(fx->servers), ==, 0);
}

static void
test_redirects(Fx *fx)
{
	g_autoptr(JsonNode) stop = fx_ok(fx,
					 "{'method':'GET','url':'http://127.0.0.1:@P/redirect',"
					 "'requestId':'a','redirectPolicy':'stop'}");
	g_autoptr(JsonNode) follow =
	    fx_ok(fx, "{'method':'GET','url':'http://127.0.0.1:@P/redirect','requestId':'a'}");
	g_autofree gchar *stop_headers = result_headers(stop);
	g_autofree gchar *stop_body = result_body(stop);
	g_autofree gchar *follow_body = result_body(follow);

	g_assert_cmpint(esd_test_json_get_int(stop, "status"), ==, 302);
	g_assert_nonnull(strstr(stop_headers, "location: /echo\n"));
	g_assert_cmpstr(stop_body, ==, "moved");
	g_assert_cmpint(esd_test_json_get_int(follow, "status"), ==, 200);
	g_assert_true(g_str_has_prefix(follow_body, "GET\n"));
	fx_fail(fx,
		"{'method':'GET','url':'http://127.0.0.1:@P/loop','requestId':'a'}",
		-32603,
		"http/request failed: too many redirects");
}

static void
test_transport_errors(Fx *fx)
{
	/* a port nobody listens on: the raw server's, once it is gone, would race; use port 1 */
	fx_fail(fx,
		"{'method':'GET','url':'http://127.0.0.1:1','requestId':'a'}",
		-32603,
		"http/request failed: error sending request for url (http://127.0.0.1:1/): *");
	fx_fail(
	    fx,
	    "{'method':'GET','url':'http://127.0.0.1:@P/never','requestId':'a','timeoutMs':300}",
	    -32603,
	    "http/request failed: error sending request for url (http://127.0.0.1:@P/never): "
	    "timed out after 300 ms");
	fx_fail(fx,
		"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'a','timeoutMs':0}",
		-32603,
		"http/request failed: route-aware request timed out");
	g_assert_cmpuint(http_servers_get_requests(fx->servers), ==, 1);
}

/* the system CA store does not know the test's self-signed certificate */
static void
test_tls(Fx *fx)
{
	fx_fail(fx,
		"{'method':'GET','url':'https://127.0.0.1:@T/echo','requestId':'a'}",
		-32603,
		"http/request failed: error sending request for url (https://127.0.0.1:@T/echo): "
		"the server's TLS certificate was rejected: it is not signed by a trusted "
		"authority*");
	/* the TLS server saw a handshake, never a request */
	g_assert_cmpuint(http_servers_get_requests(fx->servers), ==, 0);
}

static void
test_gzip(Fx *fx)
{
	g_autoptr(JsonNode) result =
	    fx_ok(fx, "{'method':'GET','url':'http://127.0.0.1:@P/gzip','requestId':'a'}");
	g_autofree gchar *body = result_body(result);
	g_autofree gchar *headers = result_headers(result);

	g_assert_cmpstr(body, ==, "decoded by the daemon");
	g_assert_null(strstr(headers, "content-encoding"));
	g_assert_null(strstr(headers, "content-length"));
}

static void
test_body_limit(Fx *fx)
{
	g_autoptr(JsonNode) fits =
	    fx_ok(fx, "{'method':'GET','url':'http://127.0.0.1:@P/bytes/1000','requestId':'a'}");
	g_autofree gchar *body = result_body(fits);

	g_assert_cmpuint(strlen(body), ==, 1000);
	fx_fail(fx,
		"{'method':'GET','url':'http://127.0.0.1:@P/bytes/1001','requestId':'a'}",
		-32603,
		"http/request failed: the response body is larger than the 1000 bytes a buffered "
		"response may have (--http-max-body-bytes); use streamResponse");
}

static void
test_stream(Fx *fx)
{
	g_autoptr(JsonNode) result = fx_ok(fx,
					   "{'method':'GET','url':'http://127.0.0.1:@R/hold',"
					   "'requestId':'s1','streamResponse':true}");
	g_autoptr(GString) body = g_string_new(NULL);
	guint64 seq = 0;

	g_assert_cmpint(esd_test_json_get_int(result, "status"), ==, 200);
	g_assert_cmpstr(esd_test_json_get_string(result, "bodyBase64"), ==, "");
	/* active until its final frame, whatever the other request would be */
	fx_fail(fx,
		"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'s1',"
		"'streamResponse':true}",
		-32602,
		"http/request streamResponse requestId `s1` is already active");
	/* a request that does not stream may use it */
	json_node_unref(
	    fx_ok(fx, "{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'s1'}"));
	http_servers_release_hold(fx->servers);
	for (;;) {
		g_autoptr(JsonNode) note = fx_delta(fx, "s1", ++seq);
		g_autoptr(GBytes) bytes = delta_bytes(note);

		g_assert_null(json_node_get_string(esd_test_json_get(note, "params.error")));
		if (delta_done(note)) {
			g_assert_cmpuint(g_bytes_get_size(bytes), ==, 0);
			break;
		}
		g_string_append_len(body, g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes));
	}
	g_assert_cmpstr(body->str, ==, "helloworld");
	/* reusable after the final frame */
	g_clear_pointer(&result, json_node_unref);
	result = fx_ok(fx,
		       "{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'s1',"
		       "'streamResponse':true}");
	for (seq = 1;; seq++) {
		g_autoptr(JsonNode) note = fx_delta(fx, "s1", seq);
		if (delta_done(note))
			break;
	}
}

static void
test_stream_short(Fx *fx)
{
	g_autoptr(JsonNode) result = fx_ok(fx,
					   "{'method':'GET','url':'http://127.0.0.1:@R/short',"
					   "'requestId':'s','streamResponse':true}");
	g_autoptr(JsonNode) first = fx_delta(fx, "s", 1);
	g_autoptr(GBytes) bytes = delta_bytes(first);
	g_autoptr(JsonNode) last = fx_delta(fx, "s", 2);
	g_autofree gchar *headers = result_headers(result);

	g_assert_nonnull(strstr(headers, "content-length: 100\n"));
	g_assert_cmpuint(g_bytes_get_size(bytes), ==, 10);
	g_assert_false(delta_done(first));
	/* the short body as it came, then the end with the reference's error */
	g_assert_true(delta_done(last));
	g_assert_cmpstr(esd_test_json_get_string(last, "params.deltaBase64"), ==, "");
	if (!g_str_has_prefix(esd_test_json_get_string(last, "params.error"),
			      "error decoding response body"))
		g_error("final frame: %s", esd_test_json_get_string(last, "params.error"));
	/* whole: a transport failure */
	fx_fail(
	    fx,
	    "{'method':'GET','url':'http://127.0.0.1:@R/short','requestId':'s'}",
	    -32603,
	    "http/request failed: error sending request for url (http://127.0.0.1:@R/short): *");
}

static void
test_stream_limit(Fx *fx)
{
	g_autoptr(JsonNode) result = fx_ok(fx,
					   "{'method':'GET','url':'http://127.0.0.1:@R/hold',"
					   "'requestId':'a','streamResponse':true}");

	fx_fail(fx,
		"{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'b',"
		"'streamResponse':true}",
		-32600,
		"http/request: too many active streamed responses on this connection (limit 1, "
		"--http-max-streams)");
	http_servers_release_hold(fx->servers);
	for (guint64 seq = 1;; seq++) {
		g_autoptr(JsonNode) note = fx_delta(fx, "a", seq);
		if (delta_done(note))
			break;
	}
}

/* one request in flight at most, two run at once on the connection */
static void
test_request_limit(Fx *fx)
{
	guint first = fx_send(fx,
			      "{'method':'GET','url':'http://127.0.0.1:@P/never','requestId':'a',"
			      "'timeoutMs':1500}");
	g_autoptr(JsonNode) refused = NULL;
	g_autoptr(JsonNode) timed_out = NULL;
	g_autofree gchar *id = NULL;

	/* the first is at the server before the second is sent */
	ESD_WAIT_UNTIL(http_servers_get_requests(fx->servers) == 1, WAIT_MS);
	fx_send(fx, "{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'b'}");
	refused = fx_wait(fx, fx->next_id);
	id = g_strdup_printf("%u", fx->next_id);
	esd_test_peer_assert_reply_error(refused,
					 id,
					 -32600,
					 "http/request: too many requests in flight (limit 1, "
					 "--http-max-requests)");
	timed_out = fx_wait(fx, first);
	g_assert_cmpint(esd_test_json_get_int(timed_out, "error.code"), ==, -32603);
	/* the slot is free again */
	json_node_unref(
	    fx_ok(fx, "{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'c'}"));
}

static void
test_proxy(Fx *fx)
{
	g_autoptr(JsonNode) result =
	    fx_ok(fx, "{'method':'GET','url':'http://proxied.invalid/x?y=1','requestId':'a'}");
	g_autofree gchar *body = result_body(result);

	/* the name does not resolve: only the proxy can have answered */
	g_assert_cmpstr(body, ==, "proxied GET http://proxied.invalid/x?y=1");
	g_assert_cmpuint(http_servers_get_proxied(fx->servers), ==, 1);
	g_assert_cmpuint(http_servers_get_requests(fx->servers), ==, 0);
}

/*
 * A WebSocket client that reads only when asked, on a plain socket: the
 * test's libsoup client may take in what the daemon sends while the test
 * does not look, and a client that does not read is what is tested here.
 */
typedef struct {
	GSocket *socket;
	GByteArray *in;
} RawWs;

static void
rawws_fill(RawWs *ws, gsize want)
{
	while (ws->in->len < want) {
		guint8 chunk[65536];
		g_autoptr(GError) error = NULL;
		gssize n =
		    g_socket_receive(ws->socket, (gchar *)chunk, sizeof(chunk), NULL, &error);

		g_assert_no_error(error);
		g_assert_cmpint(n, >, 0);
		g_byte_array_append(ws->in, chunk, (guint)n);
	}
}

static void
rawws_send(RawWs *ws, const gchar *text)
{
	gsize len = strlen(text);
	g_autoptr(GByteArray) frame = g_byte_array_new();
	guint8 head[14] = {0x81};
	gsize h = 2;
	g_autoptr(GError) error = NULL;

	g_assert_cmpuint(len, <, 65536);
	if (len < 126) {
		head[1] = 0x80 | (guint8)len;
	} else {
		head[1] = 0x80 | 126;
		head[2] = (guint8)(len >> 8);
		head[3] = (guint8)len;
		h = 4;
	}
	/* a zero mask: the payload goes as it is */
	memset(head + h, 0, 4);
	g_byte_array_append(frame, head, (guint)h + 4);
	g_byte_array_append(frame, (const guint8 *)text, (guint)len);
	g_assert_cmpint(
	    g_socket_send(ws->socket, (const gchar *)frame->data, frame->len, NULL, &error),
	    ==,
	    (gssize)frame->len);
}

/* the next text message, parsed */
static JsonNode *
rawws_receive(RawWs *ws)
{
	guint64 len;
	gsize off = 2;
	g_autofree gchar *text = NULL;

	rawws_fill(ws, 2);
	g_assert_cmpuint(ws->in->data[0], ==, 0x81);
	len = ws->in->data[1] & 0x7f;
	if (len == 126) {
		rawws_fill(ws, 4);
		len = (guint64)ws->in->data[2] << 8 | ws->in->data[3];
		off = 4;
	} else if (len == 127) {
		rawws_fill(ws, 10);
		len = 0;
		for (guint i = 0; i < 8; i++)
			len = len << 8 | ws->in->data[2 + i];
		off = 10;
	}
	rawws_fill(ws, off + len);
	text = g_strndup((const gchar *)ws->in->data + off, len);
	g_byte_array_remove_range(ws->in, 0, (guint)(off + len));
	return esd_test_json_parse(text);
}

static void
rawws_open(RawWs *ws, guint port)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, (guint16)port);
	g_autofree gchar *upgrade =
	    g_strdup_printf("GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
			    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
			    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
			    "Sec-WebSocket-Version: 13\r\n\r\n",
			    port);
	guint8 *end = NULL;
	g_autoptr(JsonNode) init = NULL;

	ws->in = g_byte_array_new();
	ws->socket =
	    g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
	g_assert_no_error(error);
	g_socket_set_timeout(ws->socket, WAIT_MS / 1000);
	g_assert_true(g_socket_connect(ws->socket, address, NULL, &error));
	g_assert_cmpint(g_socket_send(ws->socket, upgrade, strlen(upgrade), NULL, &error),
			==,
			(gssize)strlen(upgrade));
	while (end == NULL) {
		rawws_fill(ws, ws->in->len + 1);
		end = memmem(ws->in->data, ws->in->len, "\r\n\r\n", 4);
	}
	g_assert_true(memcmp(ws->in->data, "HTTP/1.1 101", 12) == 0);
	g_byte_array_remove_range(ws->in, 0, (guint)(end + 4 - ws->in->data));
	rawws_send(ws, "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"raw\"}}");
	init = rawws_receive(ws);
	g_assert_nonnull(esd_test_json_get(init, "result.sessionId"));
	rawws_send(ws, "{\"method\":\"initialized\",\"params\":{}}");
}

static void
rawws_close(RawWs *ws)
{
	g_socket_close(ws->socket, NULL);
	g_clear_object(&ws->socket);
	g_byte_array_unref(ws->in);
}

/* 100 MB to a client that stops reading for a while: the download stops too */
static void
test_stream_big(Fx *fx)
{
	g_autofree gchar *request =
	    expand(fx,
		   "{'id':2,'method':'http/request','params':{'method':'GET',"
		   "'url':'http://127.0.0.1:@R/big/104857600','requestId':'big',"
		   "'streamResponse':true}}");
	g_autoptr(JsonNode) result = NULL;
	guint64 rss_before = daemon_status_kb(fx, "VmRSS");
	RawWs ws = {0};
	guint64 written;
	guint64 total = 0;
	guint64 seq = 0;
	gboolean done = FALSE;

	if (fx->ws) {
		rawws_open(&ws, esd_test_daemon_get_port(fx->daemon));
		rawws_send(&ws, request);
		result = rawws_receive(&ws);
	} else {
		esd_test_peer_send_text(fx->peer, request);
		result = fx_receive(fx, WAIT_MS);
	}
	g_assert_cmpint(esd_test_json_get_int(result, "id"), ==, 2);
	g_assert_cmpint(esd_test_json_get_int(result, "result.status"), ==, 200);
	/* not reading: the server gets stuck once the queues are full */
	g_usleep(1500 * G_USEC_PER_SEC / 1000);
	written = http_servers_get_raw_written(fx->servers);
	g_usleep(500 * G_USEC_PER_SEC / 1000);
	g_assert_cmpuint(http_servers_get_raw_written(fx->servers), ==, written);
	g_assert_cmpuint(written, <, 80 * 1024 * 1024);
	while (!done) {
		g_autoptr(JsonNode) note = fx->ws ? rawws_receive(&ws) : fx_receive(fx, WAIT_MS);
		g_autoptr(GBytes) bytes = NULL;
		gsize len = 0;
		const guint8 *data;

		g_assert_cmpstr(esd_test_json_get_string(note, "method"),
				==,
				"http/request/bodyDelta");
		g_assert_cmpint(esd_test_json_get_int(note, "params.seq"), ==, (gint64)++seq);
		bytes = delta_bytes(note);
		data = g_bytes_get_data(bytes, &len);
		g_assert_null(json_node_get_string(esd_test_json_get(note, "params.error")));
		g_assert_cmpuint(len, <=, 1024 * 1024);
		for (gsize i = 0; i < len; i += 4093)
			g_assert_cmpuint(data[i], ==, (total + i) % 251);
		total += len;
		done = delta_done(note);
		/* a slow client: a pause now and then */
		if (seq % 20 == 0)
			g_usleep(50 * 1000);
	}
	g_assert_cmpuint(total, ==, BIG_SIZE);
#if !defined(__SANITIZE_ADDRESS__)
	g_assert_cmpuint(daemon_status_kb(fx, "VmHWM"), <, rss_before + BIG_RSS_MAX_KB);
#else
	/* a sanitizer build keeps freed memory in its quarantine */
	(void)rss_before;
#endif
	if (fx->ws)
		rawws_close(&ws);
}

/*
 * the client goes mid-stream: the download is cancelled. The test's client
 * reads every frame it is sent before it gets back to the test (libsoup
 * reads on while the socket has data), and on a busy machine an unpaced
 * 4 GiB went through before it could leave; the paced body (at most
 * 64 MB/s) cannot.
 */
static void
test_stream_vanish(Fx *fx)
{
	g_autoptr(JsonNode) result =
	    fx_ok(fx,
		  "{'method':'GET','url':'http://127.0.0.1:@R/paced/4294967296',"
		  "'requestId':'v','streamResponse':true}");
	g_autoptr(JsonNode) first = fx_delta(fx, "v", 1);
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	if (fx->ws) {
		esd_test_ws_client_abort(fx->client);
	} else {
		/* the stdio connection ends with stdin; the daemon exits with it */
		esd_test_daemon_close_stdin(fx->daemon);
		fx->stopped = TRUE;
	}
	while (!http_servers_get_raw_aborted(fx->servers)) {
		if (g_get_monotonic_time() > deadline)
			g_error("the download went on after the client left (%" G_GUINT64_FORMAT
				" bytes written)",
				http_servers_get_raw_written(fx->servers));
		esd_test_iterate(50);
	}
	g_assert_cmpuint(http_servers_get_raw_written(fx->servers),
			 <,
			 G_GUINT64_CONSTANT(4294967296));
	if (fx->ws) {
		/* the daemon goes on serving */
		g_autoptr(EsdTestWsClient) client =
		    esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		g_autofree gchar *session = esd_test_peer_handshake(ESD_TEST_PEER(client));
		g_clear_object(&fx->client);
		fx->client = g_object_ref(client);
		fx->peer = ESD_TEST_PEER(client);
		json_node_unref(
		    fx_ok(fx, "{'method':'GET','url':'http://127.0.0.1:@P/echo','requestId':'v'}"));
	} else {
		esd_test_daemon_assert_exit_code(fx->daemon, 0, WAIT_MS);
	}
}

/* the life of a case */

static const gchar *const env_default[] = {"ESD_TEST_TOKEN=s3cret",
					   "ESD_TEST_EMPTY=",
					   "OPENAI_API_KEY=must-not-be-sent",
					   NULL};

static void
fx_setup(Fx *fx, const Case *c)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_autoptr(GPtrArray) env = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *session = NULL;

	fx->ws = c->ws;
	g_queue_init(&fx->notes);
	fx->servers = http_servers_start();
	if (!c->ws) {
		g_ptr_array_add(args, (gpointer) "--listen");
		g_ptr_array_add(args, (gpointer) "stdio");
	}
	for (guint i = 0; c->def->args != NULL && c->def->args[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)c->def->args[i]);
	g_ptr_array_add(args, NULL);
	for (guint i = 0; env_default[i] != NULL; i++)
		g_ptr_array_add(env, g_strdup(env_default[i]));
	for (guint i = 0; c->def->env != NULL && c->def->env[i] != NULL; i++)
		g_ptr_array_add(env, expand(fx, c->def->env[i]));
	if (c->def->func == test_proxy)
		g_ptr_array_add(env,
				g_strdup_printf("http_proxy=http://127.0.0.1:%u",
						http_servers_get_proxy_port(fx->servers)));
	g_ptr_array_add(env, NULL);
	fx->daemon = esd_test_daemon_new_full((const gchar *const *)args->pdata,
					      (const gchar *const *)env->pdata,
					      NULL,
					      c->ws);
	if (c->ws) {
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	} else {
		fx->peer = ESD_TEST_PEER(fx->daemon);
	}
	session = esd_test_peer_handshake(fx->peer);
}

static void
fx_teardown(Fx *fx)
{
	if (!fx->stopped) {
		g_assert_true(g_queue_is_empty(&fx->notes));
		g_assert_true(esd_test_daemon_is_running(fx->daemon));
	}
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	if (!fx->stopped) {
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	}
	g_queue_clear_full(&fx->notes, (GDestroyNotify)json_node_unref);
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
	http_servers_stop(fx->servers);
}

static void
run_case(gconstpointer user_data)
{
	const Case *c = user_data;
	Fx fx = {0};

	if (!g_test_subprocess()) {
		g_test_trap_subprocess(NULL, 90 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
		g_test_trap_assert_passed();
		return;
	}
	fx_setup(&fx, c);
	c->def->func(&fx);
	fx_teardown(&fx);
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * the test's own TLS server (GnuTLS) makes LeakSanitizer's tracer crash
	 * at exit; the daemon, whose leaks matter, was checked at its exit
	 */
	if (c->def->func == test_tls)
		_exit(0);
#endif
}

static const gchar *const args_small_body[] = {"--http-max-body-bytes", "1000", NULL};
static const gchar *const args_one_stream[] = {"--http-max-streams", "1", NULL};
static const gchar *const args_one_request[] = {"--http-max-requests",
						"1",
						"--concurrent-requests",
						"2",
						NULL};

static const CaseDef cases[] = {
    {"echo", test_echo, NULL, NULL},
    {"status", test_status, NULL, NULL},
    {"refused-params", test_refused_params, NULL, NULL},
    {"redirects", test_redirects, NULL, NULL},
    {"transport-errors", test_transport_errors, NULL, NULL},
    {"tls", test_tls, NULL, NULL},
    {"gzip", test_gzip, NULL, NULL},
    {"body-limit", test_body_limit, args_small_body, NULL},
    {"stream", test_stream, NULL, NULL},
    {"stream-short", test_stream_short, NULL, NULL},
    {"stream-limit", test_stream_limit, args_one_stream, NULL},
    {"request-limit", test_request_limit, args_one_request, NULL},
    {"stream-big", test_stream_big, NULL, NULL},
    {"stream-vanish", test_stream_vanish, NULL, NULL},
    {"proxy", test_proxy, NULL, NULL},
};

int
main(int argc, char **argv)
{
	g_autoptr(GPtrArray) registered = g_ptr_array_new_with_free_func(g_free);

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a failed case is reported and the next one runs */
	if (!g_test_subprocess())
		g_test_set_nonfatal_assertions();
	/* the daemon gets the proxy a case gives it, and no other */
	g_unsetenv("http_proxy");
	g_unsetenv("https_proxy");
	g_unsetenv("HTTP_PROXY");
	g_unsetenv("HTTPS_PROXY");
	g_unsetenv("all_proxy");
	g_unsetenv("ALL_PROXY");
	g_unsetenv("no_proxy");
	g_unsetenv("NO_PROXY");
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		for (guint t = 0; t < 2; t++) {
			Case *c = g_new0(Case, 1);
			g_autofree gchar *path = NULL;

			c->def = &cases[i];
			c->ws = t == 0;
			g_ptr_array_add(registered, c);
			path = g_strdup_printf(HTTP_TEST "%s/%s",
					       c->ws ? "ws" : "stdio",
					       cases[i].name);
			g_test_add_data_func(path, c, run_case);
		}
	}
	return g_test_run();
}
