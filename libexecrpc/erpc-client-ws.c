/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dlfcn.h>
#include <libsoup/soup.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "erpc-client-private.h"

/*
 * The client's WebSocket connection. GSocketClient makes the TCP connection,
 * through the proxy its GProxyResolver names (an HTTP proxy is crossed with
 * CONNECT, GIO's GHttpProxy, for ws:// as for wss://) and with TLS for
 * wss://. The upgrade request is written here so that every header it
 * carries is ours to check; libsoup's SoupWebsocketConnection then does the
 * framing on the upgraded stream.
 */

/*
 * libsoup is opened on the first WebSocket connection, not linked: a daemon
 * that links this library for its codec and never connects as a client
 * would map libsoup and its dozen libraries (HTTP/2, Kerberos, SQLite…) at
 * every start for nothing.
 */
#define ERPC_CLIENT_WS_SOUP_LIBRARY "libsoup-3.0.so.0"

static struct {
	typeof(soup_websocket_connection_new) *websocket_connection_new;
	typeof(soup_websocket_connection_set_max_incoming_payload_size)
	    *websocket_connection_set_max_incoming_payload_size;
	typeof(soup_websocket_connection_set_keepalive_interval)
	    *websocket_connection_set_keepalive_interval;
	typeof(soup_websocket_connection_get_state) *websocket_connection_get_state;
	typeof(soup_websocket_connection_send_message) *websocket_connection_send_message;
	typeof(soup_websocket_connection_get_io_stream) *websocket_connection_get_io_stream;
	typeof(soup_websocket_connection_close) *websocket_connection_close;
	typeof(soup_message_headers_new) *message_headers_new;
	typeof(soup_message_headers_unref) *message_headers_unref;
	typeof(soup_message_headers_get_content_length) *message_headers_get_content_length;
	typeof(soup_message_headers_get_one) *message_headers_get_one;
	typeof(soup_message_headers_header_equals) *message_headers_header_equals;
	typeof(soup_message_headers_header_contains) *message_headers_header_contains;
	typeof(soup_headers_parse_response) *headers_parse_response;
	typeof(soup_uri_copy) *uri_copy;
} erpc_soup;

/* each entry of erpc_soup, in order, by the name of its function */
static const gchar *const erpc_client_ws_soup_symbols[] = {
    "soup_websocket_connection_new",
    "soup_websocket_connection_set_max_incoming_payload_size",
    "soup_websocket_connection_set_keepalive_interval",
    "soup_websocket_connection_get_state",
    "soup_websocket_connection_send_message",
    "soup_websocket_connection_get_io_stream",
    "soup_websocket_connection_close",
    "soup_message_headers_new",
    "soup_message_headers_unref",
    "soup_message_headers_get_content_length",
    "soup_message_headers_get_one",
    "soup_message_headers_header_equals",
    "soup_message_headers_header_contains",
    "soup_headers_parse_response",
    "soup_uri_copy",
};
G_STATIC_ASSERT(sizeof(erpc_soup) == G_N_ELEMENTS(erpc_client_ws_soup_symbols) * sizeof(void *));

#define soup_websocket_connection_new (*erpc_soup.websocket_connection_new)
#define soup_websocket_connection_set_max_incoming_payload_size                                    \
	(*erpc_soup.websocket_connection_set_max_incoming_payload_size)
#define soup_websocket_connection_set_keepalive_interval                                           \
	(*erpc_soup.websocket_connection_set_keepalive_interval)
#define soup_websocket_connection_get_state	(*erpc_soup.websocket_connection_get_state)
#define soup_websocket_connection_send_message	(*erpc_soup.websocket_connection_send_message)
#define soup_websocket_connection_get_io_stream (*erpc_soup.websocket_connection_get_io_stream)
#define soup_websocket_connection_close		(*erpc_soup.websocket_connection_close)
#define soup_message_headers_new		(*erpc_soup.message_headers_new)
#define soup_message_headers_unref		(*erpc_soup.message_headers_unref)
#define soup_message_headers_get_content_length (*erpc_soup.message_headers_get_content_length)
#define soup_message_headers_get_one		(*erpc_soup.message_headers_get_one)
#define soup_message_headers_header_equals	(*erpc_soup.message_headers_header_equals)
#define soup_message_headers_header_contains	(*erpc_soup.message_headers_header_contains)
#define soup_headers_parse_response		(*erpc_soup.headers_parse_response)
#define soup_uri_copy				(*erpc_soup.uri_copy)

/* fills erpc_soup once; an error every time if libsoup cannot be opened */
static gboolean
erpc_client_ws_load_soup(GError **error)
{
	static gsize loaded = 0;
	static gchar *failure = NULL;

	if (g_once_init_enter(&loaded)) {
		void *handle = dlopen(ERPC_CLIENT_WS_SOUP_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
		void **slots = (void **)&erpc_soup;

		if (handle == NULL)
			failure = g_strdup(dlerror());
		for (guint i = 0; handle != NULL && i < G_N_ELEMENTS(erpc_client_ws_soup_symbols);
		     i++) {
			slots[i] = dlsym(handle, erpc_client_ws_soup_symbols[i]);
			if (slots[i] == NULL) {
				failure = g_strdup_printf("%s has no %s",
							  ERPC_CLIENT_WS_SOUP_LIBRARY,
							  erpc_client_ws_soup_symbols[i]);
				break;
			}
		}
		/* the library stays open: its types and signal handlers stay in use */
		g_once_init_leave(&loaded, 1);
	}
	if (failure != NULL) {
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    ERPC_CLIENT_ERROR_HANDSHAKE,
			    "WebSocket connections need libsoup: %s",
			    failure);
		return FALSE;
	}
	return TRUE;
}

#define ERPC_CLIENT_WS_GUID	      "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#define ERPC_CLIENT_WS_MAX_RESPONSE   (16 * 1024)
#define ERPC_CLIENT_WS_MAX_ERROR_BODY 512

#define ERPC_TYPE_CLIENT_WS_TRANSPORT (erpc_client_ws_transport_get_type())
G_DECLARE_FINAL_TYPE(ErpcClientWsTransport,
		     erpc_client_ws_transport,
		     ERPC,
		     CLIENT_WS_TRANSPORT,
		     ErpcTransport)

struct _ErpcClientWsTransport {
	ErpcTransport parent_instance;
	SoupWebsocketConnection *ws;
	GError *error;
	guint keepalive_ms; /* 0: no pings */
	gint64 last_heard;  /* monotonic time of the last frame from the server */
	GSource *watchdog;
};

G_DEFINE_TYPE(ErpcClientWsTransport, erpc_client_ws_transport, ERPC_TYPE_TRANSPORT)

static void
erpc_client_ws_transport_stop_watchdog(ErpcClientWsTransport *self)
{
	if (self->watchdog != NULL) {
		g_source_destroy(self->watchdog);
		g_clear_pointer(&self->watchdog, g_source_unref);
	}
}

static void
erpc_client_ws_transport_message_cb(SoupWebsocketConnection *ws,
				    gint type,
				    GBytes *message,
				    ErpcClientWsTransport *self)
{
	self->last_heard = g_get_monotonic_time();
	erpc_transport_emit_message_bytes(ERPC_TRANSPORT(self), message);
}

static void
erpc_client_ws_transport_pong_cb(SoupWebsocketConnection *ws,
				 GBytes *message,
				 ErpcClientWsTransport *self)
{
	self->last_heard = g_get_monotonic_time();
}

/* a TCP connection that died silently (a host gone, a NAT that forgot it)
 * answers no ping: give it up, as lost, so that the client recovers */
static gboolean
erpc_client_ws_transport_watchdog_cb(gpointer user_data)
{
	ErpcClientWsTransport *self = ERPC_CLIENT_WS_TRANSPORT(user_data);
	gint64 silent_ms = (g_get_monotonic_time() - self->last_heard) / 1000;
	g_autoptr(GError) error = NULL;

	if (silent_ms < 2 * (gint64)self->keepalive_ms)
		return G_SOURCE_CONTINUE;
	g_debug("WebSocket to %s: no answer to pings for %" G_GINT64_FORMAT " ms",
		erpc_transport_get_peer(ERPC_TRANSPORT(self)),
		silent_ms);
	g_clear_pointer(&self->watchdog, g_source_unref);
	error = g_error_new(G_IO_ERROR,
			    G_IO_ERROR_TIMED_OUT,
			    "the server answered no keep-alive ping for %" G_GINT64_FORMAT " ms",
			    silent_ms);
	g_object_ref(self);
	g_signal_handlers_disconnect_by_data(self->ws, self);
	g_io_stream_close(soup_websocket_connection_get_io_stream(self->ws), NULL, NULL);
	erpc_transport_emit_closed(ERPC_TRANSPORT(self), error);
	g_object_unref(self);
	return G_SOURCE_REMOVE;
}

static void
erpc_client_ws_transport_error_cb(SoupWebsocketConnection *ws,
				  GError *error,
				  ErpcClientWsTransport *self)
{
	if (self->error == NULL)
		self->error = g_error_copy(error);
}

static void
erpc_client_ws_transport_closed_cb(SoupWebsocketConnection *ws, ErpcClientWsTransport *self)
{
	erpc_client_ws_transport_stop_watchdog(self);
	erpc_transport_emit_closed(ERPC_TRANSPORT(self), self->error);
}

static void
erpc_client_ws_transport_send(ErpcTransport *transport, GBytes *message)
{
	ErpcClientWsTransport *self = ERPC_CLIENT_WS_TRANSPORT(transport);
	if (soup_websocket_connection_get_state(self->ws) != SOUP_WEBSOCKET_STATE_OPEN)
		return;
	soup_websocket_connection_send_message(self->ws, SOUP_WEBSOCKET_DATA_TEXT, message);
}

static void
erpc_client_ws_transport_close(ErpcTransport *transport, gboolean abort)
{
	ErpcClientWsTransport *self = ERPC_CLIENT_WS_TRANSPORT(transport);

	erpc_client_ws_transport_stop_watchdog(self);
	g_signal_handlers_disconnect_by_data(self->ws, self);
	if (abort) {
		/* no closing handshake: drop the TCP connection */
		g_io_stream_close(soup_websocket_connection_get_io_stream(self->ws), NULL, NULL);
		return;
	}
	if (soup_websocket_connection_get_state(self->ws) == SOUP_WEBSOCKET_STATE_OPEN)
		soup_websocket_connection_close(self->ws, SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
}

static void
erpc_client_ws_transport_finalize(GObject *object)
{
	ErpcClientWsTransport *self = ERPC_CLIENT_WS_TRANSPORT(object);
	erpc_client_ws_transport_stop_watchdog(self);
	g_signal_handlers_disconnect_by_data(self->ws, self);
	g_clear_object(&self->ws);
	g_clear_error(&self->error);
	G_OBJECT_CLASS(erpc_client_ws_transport_parent_class)->finalize(object);
}

static void
erpc_client_ws_transport_init(ErpcClientWsTransport *self)
{
}

static void
erpc_client_ws_transport_class_init(ErpcClientWsTransportClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	ErpcTransportClass *transport_class = ERPC_TRANSPORT_CLASS(klass);

	object_class->finalize = erpc_client_ws_transport_finalize;
	transport_class->send = erpc_client_ws_transport_send;
	transport_class->close = erpc_client_ws_transport_close;
	transport_class->frame_kind = "websocket";
}

static ErpcTransport *
erpc_client_ws_transport_new(GIOStream *stream,
			     GUri *uri,
			     gsize max_message_size,
			     guint keepalive_ms)
{
	g_autofree gchar *peer = g_strdup_printf("%s:%d", g_uri_get_host(uri), g_uri_get_port(uri));
	ErpcClientWsTransport *self =
	    g_object_new(ERPC_TYPE_CLIENT_WS_TRANSPORT, "peer", peer, NULL);

	self->ws = soup_websocket_connection_new(stream,
						 uri,
						 SOUP_WEBSOCKET_CONNECTION_CLIENT,
						 NULL,
						 NULL,
						 NULL);
	soup_websocket_connection_set_max_incoming_payload_size(self->ws, max_message_size);
	/* libsoup pings every whole second at best; the watchdog checks for answers */
	soup_websocket_connection_set_keepalive_interval(
	    self->ws,
	    keepalive_ms > 0 ? MAX(1, keepalive_ms / 1000) : 0);
	self->keepalive_ms = keepalive_ms > 0 ? MAX(1000, keepalive_ms) : 0;
	self->last_heard = g_get_monotonic_time();
	if (self->keepalive_ms > 0) {
		self->watchdog = g_timeout_source_new(self->keepalive_ms / 2);
		g_source_set_callback(self->watchdog,
				      erpc_client_ws_transport_watchdog_cb,
				      self,
				      NULL);
		g_source_attach(self->watchdog, g_main_context_get_thread_default());
		g_signal_connect(self->ws,
				 "pong",
				 G_CALLBACK(erpc_client_ws_transport_pong_cb),
				 self);
	}
	g_signal_connect(self->ws,
			 "message",
			 G_CALLBACK(erpc_client_ws_transport_message_cb),
			 self);
	g_signal_connect(self->ws, "error", G_CALLBACK(erpc_client_ws_transport_error_cb), self);
	g_signal_connect(self->ws, "closed", G_CALLBACK(erpc_client_ws_transport_closed_cb), self);
	return ERPC_TRANSPORT(self);
}

void
_erpc_client_ws_options_free(ErpcClientWsOptions *options)
{
	g_free(options->url);
	g_ptr_array_unref(options->headers);
	if (options->bearer_token != NULL)
		memset(options->bearer_token, 0, strlen(options->bearer_token));
	g_free(options->bearer_token);
	g_clear_object(&options->proxy_resolver);
	g_clear_object(&options->tls_database);
	g_free(options);
}

static void
erpc_client_ws_event_cb(GSocketClient *client,
			GSocketClientEvent event,
			GSocketConnectable *connectable,
			GIOStream *connection,
			gpointer user_data)
{
	if (event == G_SOCKET_CLIENT_TLS_HANDSHAKING && G_IS_TLS_CONNECTION(connection))
		g_tls_connection_set_database(G_TLS_CONNECTION(connection),
					      G_TLS_DATABASE(user_data));
}

static gchar *
erpc_client_ws_accept_key(const gchar *key)
{
	g_autoptr(GChecksum) checksum = g_checksum_new(G_CHECKSUM_SHA1);
	guint8 digest[20];
	gsize len = sizeof(digest);

	g_checksum_update(checksum, (const guchar *)key, -1);
	g_checksum_update(checksum, (const guchar *)ERPC_CLIENT_WS_GUID, -1);
	g_checksum_get_digest(checksum, digest, &len);
	return g_base64_encode(digest, len);
}

static gchar *
erpc_client_ws_request(ErpcClientWsOptions *options, GUri *uri, gint port, const gchar *key)
{
	GString *request = g_string_new(NULL);
	const gchar *path = g_uri_get_path(uri);
	const gchar *query = g_uri_get_query(uri);
	g_autofree gchar *described = _erpc_client_headers_describe(options->headers);

	g_string_append_printf(request,
			       "GET %s%s%s HTTP/1.1\r\n",
			       path != NULL && path[0] != '\0' ? path : "/",
			       query != NULL ? "?" : "",
			       query != NULL ? query : "");
	if (strchr(g_uri_get_host(uri), ':') != NULL)
		g_string_append_printf(request, "Host: [%s]", g_uri_get_host(uri));
	else
		g_string_append_printf(request, "Host: %s", g_uri_get_host(uri));
	g_string_append_printf(request, ":%d\r\n", port);
	g_string_append(request,
			"Upgrade: websocket\r\n"
			"Connection: Upgrade\r\n"
			"Sec-WebSocket-Version: 13\r\n");
	g_string_append_printf(request, "Sec-WebSocket-Key: %s\r\n", key);
	if (options->bearer_token != NULL)
		g_string_append_printf(request,
				       "Authorization: Bearer %s\r\n",
				       options->bearer_token);
	for (guint i = 0; i + 1 < options->headers->len; i += 2)
		g_string_append_printf(request,
				       "%s: %s\r\n",
				       (const gchar *)options->headers->pdata[i],
				       (const gchar *)options->headers->pdata[i + 1]);
	g_string_append(request, "\r\n");
	g_debug("websocket %s: upgrading%s; extra headers: %s",
		options->url,
		options->bearer_token != NULL ? " with a bearer token" : "",
		described[0] != '\0' ? described : "none");
	return g_string_free(request, FALSE);
}

/* reads up to the blank line, and not a byte further: frames follow it */
static GString *
erpc_client_ws_read_head(GInputStream *input, GCancellable *cancellable, GError **error)
{
	g_autoptr(GString) head = g_string_new(NULL);

	while (!g_str_has_suffix(head->str, "\r\n\r\n")) {
		gchar c;
		gssize n = g_input_stream_read(input, &c, 1, cancellable, error);
		if (n < 0)
			return NULL;
		if (n == 0 || c == '\0' || head->len >= ERPC_CLIENT_WS_MAX_RESPONSE) {
			g_set_error_literal(error,
					    ERPC_CLIENT_ERROR,
					    ERPC_CLIENT_ERROR_HANDSHAKE,
					    n == 0 ? "the server closed the connection during the "
						     "WebSocket handshake"
						   : "invalid WebSocket handshake response");
			return NULL;
		}
		g_string_append_c(head, c);
	}
	return g_steal_pointer(&head);
}

/* the body of a refusal, as printable text */
static gchar *
erpc_client_ws_read_body(GInputStream *input,
			 SoupMessageHeaders *headers,
			 GCancellable *cancellable)
{
	goffset length = soup_message_headers_get_content_length(headers);
	gchar body[ERPC_CLIENT_WS_MAX_ERROR_BODY + 1] = {0};
	gsize got = 0;

	if (length <= 0)
		return g_strdup("");
	length = MIN(length, ERPC_CLIENT_WS_MAX_ERROR_BODY);
	if (!g_input_stream_read_all(input, body, (gsize)length, &got, cancellable, NULL))
		return g_strdup("");
	for (gsize i = 0; i < got; i++) {
		if (body[i] == '\n' || body[i] == '\r')
			body[i] = ' ';
		else if (!g_ascii_isprint(body[i]))
			body[i] = '?';
	}
	return g_strstrip(g_strndup(body, got));
}

static gboolean
erpc_client_ws_check_headers(GInputStream *input,
			     const gchar *key,
			     SoupMessageHeaders *headers,
			     GCancellable *cancellable,
			     GError **error)
{
	g_autoptr(GString) head = erpc_client_ws_read_head(input, cancellable, error);
	g_autofree gchar *reason = NULL;
	g_autofree gchar *expected = NULL;
	const gchar *accept;
	guint status = 0;

	if (head == NULL)
		return FALSE;
	if (!soup_headers_parse_response(head->str,
					 (gint)head->len,
					 headers,
					 NULL,
					 &status,
					 &reason)) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_HANDSHAKE,
				    "invalid WebSocket handshake response");
		return FALSE;
	}
	if (status != SOUP_STATUS_SWITCHING_PROTOCOLS) {
		g_autofree gchar *body = erpc_client_ws_read_body(input, headers, cancellable);
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    status == SOUP_STATUS_UNAUTHORIZED ? ERPC_CLIENT_ERROR_UNAUTHORIZED
							       : ERPC_CLIENT_ERROR_HANDSHAKE,
			    "the server refused the WebSocket upgrade: HTTP %u%s%s",
			    status,
			    body[0] != '\0' ? ": " : "",
			    body);
		return FALSE;
	}
	accept = soup_message_headers_get_one(headers, "Sec-WebSocket-Accept");
	expected = erpc_client_ws_accept_key(key);
	if (!soup_message_headers_header_equals(headers, "Upgrade", "websocket") ||
	    !soup_message_headers_header_contains(headers, "Connection", "upgrade") ||
	    g_strcmp0(accept, expected) != 0) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_HANDSHAKE,
				    "invalid WebSocket handshake response");
		return FALSE;
	}
	return TRUE;
}

static gboolean
erpc_client_ws_check_response(GInputStream *input,
			      const gchar *key,
			      GCancellable *cancellable,
			      GError **error)
{
	SoupMessageHeaders *headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE);
	gboolean ok = erpc_client_ws_check_headers(input, key, headers, cancellable, error);

	soup_message_headers_unref(headers);
	return ok;
}

static GIOStream *
erpc_client_ws_handshake(ErpcClientWsOptions *options,
			 GUri *uri,
			 GCancellable *cancellable,
			 GError **error)
{
	gboolean secure = g_strcmp0(g_uri_get_scheme(uri), "wss") == 0;
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) connection = NULL;
	g_autofree gchar *key = NULL;
	g_autofree gchar *request = NULL;
	guint8 nonce[16];
	GSocket *socket;

	g_socket_client_set_timeout(client, (options->timeout_ms + 999) / 1000);
	if (options->proxy_resolver != NULL)
		g_socket_client_set_proxy_resolver(client, options->proxy_resolver);
	g_socket_client_set_tls(client, secure);
	if (secure && options->tls_database != NULL)
		g_signal_connect(client,
				 "event",
				 G_CALLBACK(erpc_client_ws_event_cb),
				 options->tls_database);
	connection = g_socket_client_connect_to_uri(client,
						    options->url,
						    secure ? 443 : 80,
						    cancellable,
						    error);
	if (connection == NULL) {
		g_prefix_error(error, "failed to connect to %s: ", options->url);
		return NULL;
	}
	socket = g_socket_connection_get_socket(connection);
	if (g_socket_get_family(socket) != G_SOCKET_FAMILY_UNIX)
		g_socket_set_option(socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(nonce); i++)
		nonce[i] = (guint8)g_random_int_range(0, 256);
	key = g_base64_encode(nonce, sizeof(nonce));
	request = erpc_client_ws_request(options,
					 uri,
					 g_uri_get_port(uri) > 0 ? g_uri_get_port(uri)
								 : (secure ? 443 : 80),
					 key);
	if (!g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(connection)),
				       request,
				       strlen(request),
				       NULL,
				       cancellable,
				       error) ||
	    !erpc_client_ws_check_response(g_io_stream_get_input_stream(G_IO_STREAM(connection)),
					   key,
					   cancellable,
					   error)) {
		memset(request, 0, strlen(request));
		g_prefix_error(error, "%s: ", options->url);
		return NULL;
	}
	memset(request, 0, strlen(request));
	/* the timeout was for connecting: it would also end an idle connection */
	g_socket_set_timeout(socket, 0);
	return G_IO_STREAM(g_steal_pointer(&connection));
}

static void
erpc_client_ws_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
	ErpcClientWsOptions *options = task_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GUri) uri = g_uri_parse(options->url, G_URI_FLAGS_NONE, &error);
	GIOStream *stream;

	if (uri == NULL) {
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	stream = erpc_client_ws_handshake(options, uri, cancellable, &error);
	if (stream == NULL) {
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	g_task_return_pointer(task, stream, g_object_unref);
}

void
_erpc_client_ws_connect_async(ErpcClientWsOptions *options,
			      GCancellable *cancellable,
			      GAsyncReadyCallback callback,
			      gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(NULL, cancellable, callback, user_data);
	GError *error = NULL;

	g_task_set_source_tag(task, _erpc_client_ws_connect_async);
	if (!erpc_client_ws_load_soup(&error)) {
		_erpc_client_ws_options_free(options);
		g_task_return_error(task, error);
		return;
	}
	g_task_set_task_data(task, options, (GDestroyNotify)_erpc_client_ws_options_free);
	g_task_run_in_thread(task, erpc_client_ws_thread);
}

ErpcTransport *
_erpc_client_ws_connect_finish(GAsyncResult *result, GError **error)
{
	ErpcClientWsOptions *options = g_task_get_task_data(G_TASK(result));
	g_autoptr(GIOStream) stream = g_task_propagate_pointer(G_TASK(result), error);
	g_autoptr(GUri) uri = NULL;
	g_autoptr(GUri) effective = NULL;
	gboolean secure;

	if (stream == NULL)
		return NULL;
	uri = g_uri_parse(options->url, G_URI_FLAGS_NONE, error);
	if (uri == NULL)
		return NULL;
	secure = g_strcmp0(g_uri_get_scheme(uri), "wss") == 0;
	effective =
	    soup_uri_copy(uri,
			  SOUP_URI_PORT,
			  g_uri_get_port(uri) > 0 ? g_uri_get_port(uri) : (secure ? 443 : 80),
			  SOUP_URI_NONE);
	return erpc_client_ws_transport_new(stream,
					    effective,
					    options->max_message_size,
					    options->keepalive_ms);
}
