/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-http-connection.h"
#include "esd-http-context.h"
#include "esd-http-request.h"
#include "esd-http-soup.h"

/*
 * how long a stream waits before it looks again at a congested connection:
 * 1 ms at first, since a reading client drains the queue in a few, then
 * twice as long each time up to 32 ms, so that a client that does not read
 * costs few wake-ups
 */
#define ESD_HTTP_PAUSE_MIN_MS 1
#define ESD_HTTP_PAUSE_MAX_MS 32
/*
 * the most a stream reads before it sends a delta: well below the 1 MiB a
 * delta may have, since smaller messages keep a pipe (stdio) moving; the
 * reference's deltas are 8 to 512 KiB
 */
#define ESD_HTTP_STREAM_BLOCK (256 * 1024)
/* the first buffer of a body read whole, when its length is not known */
#define ESD_HTTP_BUFFER_MIN (64 * 1024)

/**
 * EsdHttpRequest:
 *
 * One http/request: the SoupMessage, its timeout, and the reading of the
 * response body, either whole into the result or as bodyDelta
 * notifications. A stream reads the next block only once the connection
 * has sent what it queued (erpc_transport_is_congested()), so a client that
 * does not read stops the download instead of filling the daemon; the end
 * of the connection cancels it (esd-http-connection.c).
 */
struct _EsdHttpRequest {
	GObject parent_instance;
	EsdHttpContext *context;  /* outlives every request */
	EsdHttpConnection *state; /* NULL once the connection has gone */
	ErpcConnection *connection;
	ErpcCall *call; /* until answered */
	EsdHttpParams *params;
	SoupMessage *msg;
	GInputStream *body;
	GCancellable *cancellable;
	GSource *timeout;
	GSource *pause;
	guint pause_ms; /* the next pause; 0 while not congested */
	GByteArray *buf;
	gsize max;   /* what buf may hold */
	guint64 seq; /* the last bodyDelta sent */
	gboolean timed_out;
	gboolean in_flight;  /* holds one of the plugin's request slots */
	gboolean streaming;  /* the result went; the body follows as notifications */
	gboolean has_length; /* the response announced a Content-Length */
};

G_DEFINE_TYPE(EsdHttpRequest, esd_http_request, G_TYPE_OBJECT)

static void
esd_http_request_read_more(EsdHttpRequest *self);

static void
esd_http_request_release(EsdHttpRequest *self)
{
	if (self->in_flight) {
		self->in_flight = FALSE;
		esd_http_context_release_request(self->context);
	}
}

/* the request is over: nothing of it stays with the connection */
static void
esd_http_request_done(EsdHttpRequest *self)
{
	if (self->timeout != NULL) {
		g_source_destroy(self->timeout);
		g_clear_pointer(&self->timeout, g_source_unref);
	}
	if (self->pause != NULL) {
		g_source_destroy(self->pause);
		g_clear_pointer(&self->pause, g_source_unref);
	}
	esd_http_request_release(self);
	g_clear_object(&self->body);
	g_clear_pointer(&self->buf, g_byte_array_unref);
	if (self->state != NULL) {
		EsdHttpConnection *state = g_steal_pointer(&self->state);
		if (self->params->stream)
			esd_http_connection_remove_stream(state, self->params->request_id);
		/* last: this may drop the last reference */
		esd_http_connection_remove_request(state, G_OBJECT(self));
	}
}

/**
 * esd_http_request_cancel:
 * @self: a request
 *
 * The connection has gone: stop, and send nothing more.
 */
void
esd_http_request_cancel(EsdHttpRequest *self)
{
	self->state = NULL;
	if (self->timeout != NULL) {
		g_source_destroy(self->timeout);
		g_clear_pointer(&self->timeout, g_source_unref);
	}
	/* a paused stream has nothing pending that would see the cancellation */
	if (self->pause != NULL) {
		g_source_destroy(self->pause);
		g_clear_pointer(&self->pause, g_source_unref);
	}
	g_cancellable_cancel(self->cancellable);
}

static void
esd_http_request_fail(EsdHttpRequest *self, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

static void
esd_http_request_fail(EsdHttpRequest *self, const gchar *format, ...)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = NULL;
	va_list args;

	va_start(args, format);
	text = g_strdup_vprintf(format, args);
	va_end(args);
	error = g_error_new_literal(ERPC_ERROR, ERPC_ERROR_INTERNAL, text);
	if (self->call != NULL)
		erpc_call_return_error(self->call, error);
	g_clear_object(&self->call);
	esd_http_request_done(self);
}

/* what went wrong with a certificate, for the -32603 message */
static gchar *
esd_http_request_describe_tls(GTlsCertificateFlags flags)
{
	static const struct {
		GTlsCertificateFlags flag;
		const gchar *text;
	} reasons[] = {
	    {G_TLS_CERTIFICATE_UNKNOWN_CA, "it is not signed by a trusted authority"},
	    {G_TLS_CERTIFICATE_BAD_IDENTITY, "it does not match the host name"},
	    {G_TLS_CERTIFICATE_NOT_ACTIVATED, "it is not valid yet"},
	    {G_TLS_CERTIFICATE_EXPIRED, "it has expired"},
	    {G_TLS_CERTIFICATE_REVOKED, "it has been revoked"},
	    {G_TLS_CERTIFICATE_INSECURE, "its algorithm is insecure"},
	    {G_TLS_CERTIFICATE_GENERIC_ERROR, "it could not be checked"},
	};
	GString *out = g_string_new("the server's TLS certificate was rejected");

	for (guint i = 0; i < G_N_ELEMENTS(reasons); i++) {
		if ((flags & reasons[i].flag) == 0)
			continue;
		g_string_append(out, out->str[out->len - 1] == 'd' ? ": " : ", ");
		g_string_append(out, reasons[i].text);
	}
	return g_string_free(out, FALSE);
}

/* the -32603 answer to a request that got no response */
static void
esd_http_request_fail_send(EsdHttpRequest *self, const GError *error)
{
	g_autofree gchar *detail = NULL;

	if (self->timed_out)
		detail = g_strdup_printf("timed out after %" G_GINT64_FORMAT " ms",
					 self->params->timeout_ms);
	else if (error->domain == G_TLS_ERROR)
		detail = esd_http_request_describe_tls(
		    soup_message_get_tls_peer_certificate_errors(self->msg));
	if (error->domain == soup_session_error_quark() &&
	    error->code == SOUP_SESSION_ERROR_TOO_MANY_REDIRECTS) {
		esd_http_request_fail(self, "http/request failed: too many redirects");
		return;
	}
	esd_http_request_fail(self,
			      "http/request failed: error sending request for url (%s): %s",
			      self->params->url,
			      detail != NULL ? detail : error->message);
}

/*
 * whether libsoup's content decoder undid the Content-Encoding: the body is
 * then the decoded one, and its Content-Length and Content-Encoding go, as
 * with the reference
 */
static gboolean
esd_http_request_is_decoded(SoupMessageHeaders *headers)
{
	static const gchar *const decoded[] = {"gzip", "x-gzip", "deflate", NULL};
	const gchar *coding = soup_message_headers_get_one(headers, "Content-Encoding");
	g_autofree gchar *lower = coding != NULL ? g_ascii_strdown(coding, -1) : NULL;

	return lower != NULL && g_strv_contains(decoded, g_strstrip(lower));
}

/* the response headers: names lower-case, grouped by name as the reference has them */
static void
esd_http_request_write_headers(EsdHttpRequest *self, ErpcJsonWriter *writer)
{
	SoupMessageHeaders *headers = soup_message_get_response_headers(self->msg);
	gboolean decoded = esd_http_request_is_decoded(headers);
	g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash,
							     g_str_equal,
							     g_free,
							     (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	SoupMessageHeadersIter iter;
	const gchar *name;
	const gchar *value;

	soup_message_headers_iter_init(&iter, headers);
	while (soup_message_headers_iter_next(&iter, &name, &value)) {
		g_autofree gchar *lower = g_ascii_strdown(name, -1);
		GPtrArray *group = g_hash_table_lookup(groups, lower);

		if (decoded && (g_strcmp0(lower, "content-encoding") == 0 ||
				g_strcmp0(lower, "content-length") == 0))
			continue;
		if (group == NULL) {
			group = g_ptr_array_new();
			g_ptr_array_add(order, lower);
			g_hash_table_insert(groups, g_steal_pointer(&lower), group);
		}
		g_ptr_array_add(group, (gpointer)value);
	}
	erpc_json_writer_member(writer, "headers");
	erpc_json_writer_begin_array(writer);
	for (guint i = 0; i < order->len; i++) {
		GPtrArray *group = g_hash_table_lookup(groups, order->pdata[i]);
		for (guint j = 0; j < group->len; j++) {
			erpc_json_writer_begin_object(writer);
			erpc_json_writer_member_string(writer, "name", order->pdata[i]);
			erpc_json_writer_member_string(writer, "value", group->pdata[j]);
			erpc_json_writer_end_object(writer);
		}
	}
	erpc_json_writer_end_array(writer);
}

static void
esd_http_request_answer(EsdHttpRequest *self, const guint8 *body, gsize len)
{
	GString *out = erpc_call_result_begin(self->call, 512 + len / 3 * 4 + 4);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_uint(&writer, "status", soup_message_get_status(self->msg));
	esd_http_request_write_headers(self, &writer);
	erpc_json_writer_member(&writer, "bodyBase64");
	erpc_json_writer_base64(&writer, body, len);
	erpc_json_writer_end_object(&writer);
	erpc_call_result_end(self->call, out);
	g_clear_object(&self->call);
}

/* one http/request/bodyDelta; @error ends the stream with it */
static void
esd_http_request_send_delta(EsdHttpRequest *self,
			    const guint8 *data,
			    gsize len,
			    gboolean done,
			    const gchar *error)
{
	GString *out = g_string_sized_new(160 + strlen(self->params->request_id) + len / 3 * 4 + 4);
	g_autoptr(GBytes) message = NULL;
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "method", "http/request/bodyDelta");
	erpc_json_writer_member(&writer, "params");
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "requestId", self->params->request_id);
	erpc_json_writer_member_uint(&writer, "seq", ++self->seq);
	erpc_json_writer_member(&writer, "deltaBase64");
	erpc_json_writer_base64(&writer, data, len);
	erpc_json_writer_member_boolean(&writer, "done", done);
	erpc_json_writer_member(&writer, "error");
	if (error != NULL)
		erpc_json_writer_string(&writer, error, -1);
	else
		erpc_json_writer_null(&writer);
	erpc_json_writer_end_object(&writer);
	erpc_json_writer_end_object(&writer);
	message = g_string_free_to_bytes(out);
	erpc_connection_send(self->connection, message);
}

/* what the body read has, sent as a delta */
static void
esd_http_request_flush(EsdHttpRequest *self)
{
	if (self->buf->len == 0)
		return;
	esd_http_request_send_delta(self, self->buf->data, self->buf->len, FALSE, NULL);
	g_byte_array_set_size(self->buf, 0);
}

/* the body could not be read to its end */
static void
esd_http_request_fail_body(EsdHttpRequest *self, const GError *error)
{
	g_autofree gchar *detail = NULL;

	if (self->state == NULL)
		return esd_http_request_done(self);
	if (self->timed_out)
		detail = g_strdup_printf("timed out after %" G_GINT64_FORMAT " ms",
					 self->params->timeout_ms);
	else
		detail = g_strdup(error->message);
	if (self->streaming) {
		g_autofree gchar *text =
		    g_strdup_printf("error decoding response body: %s", detail);
		esd_http_request_flush(self);
		esd_http_request_send_delta(self, NULL, 0, TRUE, text);
		esd_http_request_done(self);
	} else if (self->has_length && !self->timed_out) {
		/* the reference's wording for a body shorter than its Content-Length */
		esd_http_request_fail(self,
				      "http/request failed: error sending request for url (%s): %s",
				      self->params->url,
				      detail);
	} else {
		esd_http_request_fail(self,
				      "failed to read http/request response body: error decoding "
				      "response body: %s",
				      detail);
	}
}

static void
esd_http_request_eof(EsdHttpRequest *self)
{

	if (self->streaming) {
		esd_http_request_flush(self);
		esd_http_request_send_delta(self, NULL, 0, TRUE, NULL);
	} else {
		esd_http_request_answer(self, self->buf->data, self->buf->len);
	}
	esd_http_request_done(self);
}

/* takes what the stream has without waiting; FALSE at its end */
static gboolean
esd_http_request_read_ready(EsdHttpRequest *self, GError **error)
{
	GPollableInputStream *pollable;

	if (!G_IS_POLLABLE_INPUT_STREAM(self->body) ||
	    !g_pollable_input_stream_can_poll(G_POLLABLE_INPUT_STREAM(self->body)))
		return TRUE;
	pollable = G_POLLABLE_INPUT_STREAM(self->body);
	while (self->buf->len < self->max) {
		gsize fill = self->buf->len;
		gssize n;

		g_byte_array_set_size(self->buf, self->max);
		n = g_pollable_input_stream_read_nonblocking(pollable,
							     self->buf->data + fill,
							     self->max - fill,
							     self->cancellable,
							     error);
		g_byte_array_set_size(self->buf, fill + MAX(n, 0));
		if (n > 0)
			continue;
		if (n == 0)
			return FALSE;
		if (g_error_matches(*error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
			g_clear_error(error);
			return TRUE;
		}
		return TRUE;
	}
	return TRUE;
}

static gboolean
esd_http_request_too_big(EsdHttpRequest *self)
{
	gint64 max_body = self->context->limits->max_body;

	if (self->streaming || (gint64)self->buf->len <= max_body)
		return FALSE;
	esd_http_request_fail(
	    self,
	    "http/request failed: the response body is larger than the %" G_GINT64_FORMAT
	    " bytes a buffered response may have (--http-max-body-bytes); use "
	    "streamResponse",
	    max_body);
	return TRUE;
}

static void
esd_http_request_read_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(EsdHttpRequest) self = user_data;
	g_autoptr(GError) error = NULL;
	gsize fill = self->buf->len;
	gssize n = g_input_stream_read_finish(G_INPUT_STREAM(source), result, &error);
	gboolean more;

	g_byte_array_set_size(self->buf, fill + MAX(n, 0));
	if (n < 0)
		return esd_http_request_fail_body(self, error);
	if (self->state == NULL)
		return esd_http_request_done(self);
	if (n == 0)
		return esd_http_request_eof(self);
	more = esd_http_request_read_ready(self, &error);
	if (esd_http_request_too_big(self))
		return;
	if (self->streaming)
		esd_http_request_flush(self);
	if (error != NULL)
		return esd_http_request_fail_body(self, error);
	if (!more)
		return esd_http_request_eof(self);
	esd_http_request_read_more(self);
}

static gboolean
esd_http_request_resume_cb(gpointer user_data)
{
	EsdHttpRequest *self = user_data;

	g_clear_pointer(&self->pause, g_source_unref);
	esd_http_request_read_more(self);
	return G_SOURCE_REMOVE;
}

static void
esd_http_request_read_more(EsdHttpRequest *self)
{
	gsize fill = self->buf->len;
	gsize room;

	if (self->streaming &&
	    erpc_transport_is_congested(erpc_connection_get_transport(self->connection))) {
		/* the client is behind: wait, reading nothing meanwhile */
		self->pause_ms =
		    CLAMP(self->pause_ms * 2, ESD_HTTP_PAUSE_MIN_MS, ESD_HTTP_PAUSE_MAX_MS);
		self->pause = g_timeout_source_new(self->pause_ms);
		g_source_set_callback(self->pause,
				      esd_http_request_resume_cb,
				      g_object_ref(self),
				      g_object_unref);
		g_source_attach(self->pause, NULL);
		return;
	}
	if (!self->streaming && fill + ESD_HTTP_BUFFER_MIN / 2 > self->max) {
		/* grow a whole body's buffer, up to one byte beyond the limit */
		self->max = MIN(MAX(self->max * 2, fill + ESD_HTTP_BUFFER_MIN),
				(gsize)self->context->limits->max_body + 1);
	}
	self->pause_ms = 0;
	room = self->max - fill;
	g_byte_array_set_size(self->buf, self->max);
	g_byte_array_set_size(self->buf, fill);
	g_input_stream_read_async(self->body,
				  self->buf->data + fill,
				  room,
				  G_PRIORITY_DEFAULT,
				  self->cancellable,
				  esd_http_request_read_cb,
				  g_object_ref(self));
}

static void
esd_http_request_sent_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(EsdHttpRequest) self = user_data;
	g_autoptr(GError) error = NULL;
	SoupMessageHeaders *headers;
	goffset length = -1;

	self->body = soup_session_send_finish((SoupSession *)source, result, &error);
	if (self->state == NULL)
		return esd_http_request_done(self);
	if (self->body == NULL)
		return esd_http_request_fail_send(self, error);
	headers = soup_message_get_response_headers(self->msg);
	if (soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH &&
	    !esd_http_request_is_decoded(headers)) {
		length = soup_message_headers_get_content_length(headers);
		self->has_length = TRUE;
	}
	if (self->params->stream) {
		self->streaming = TRUE;
		self->max = ESD_HTTP_STREAM_BLOCK;
		self->buf = g_byte_array_sized_new(self->max);
		esd_http_request_answer(self, NULL, 0);
		/* a stream is bounded by --http-max-streams, not by the requests in flight */
		esd_http_request_release(self);
	} else {
		gint64 max_body = self->context->limits->max_body;
		self->max =
		    length >= 0 ? (gsize)MIN(length + 1, max_body + 1) : ESD_HTTP_BUFFER_MIN;
		self->buf = g_byte_array_sized_new(self->max);
	}
	esd_http_request_read_more(self);
}

static gboolean
esd_http_request_timeout_cb(gpointer user_data)
{
	EsdHttpRequest *self = user_data;

	g_clear_pointer(&self->timeout, g_source_unref);
	self->timed_out = TRUE;
	g_cancellable_cancel(self->cancellable);
	return G_SOURCE_REMOVE;
}

/* the message as the params ask for it, with the reference's default headers */
static SoupMessage *
esd_http_request_build(EsdHttpParams *params)
{
	GUri *uri = params->uri;
	g_autoptr(GUri) bare = g_uri_build(g_uri_get_flags(uri),
					   g_uri_get_scheme(uri),
					   NULL,
					   g_uri_get_host(uri),
					   g_uri_get_port(uri),
					   g_uri_get_path(uri),
					   g_uri_get_query(uri),
					   NULL);
	SoupMessage *msg = soup_message_new_from_uri(params->method, bare);
	SoupMessageHeaders *headers = soup_message_get_request_headers(msg);
	gboolean accept = FALSE;
	gboolean authorization = FALSE;

	for (guint i = 0; i < params->names->len; i++) {
		const gchar *name = params->names->pdata[i];
		accept |= g_strcmp0(name, "accept") == 0;
		authorization |= g_strcmp0(name, "authorization") == 0;
		soup_message_headers_append(headers, name, params->values->pdata[i]);
	}
	if (!accept)
		soup_message_headers_append(headers, "accept", "*/*");
	/* credentials in the URL are sent at once, as by the reference */
	if (g_uri_get_user(uri) != NULL && !authorization) {
		g_autofree gchar *pair =
		    g_strdup_printf("%s:%s",
				    g_uri_get_user(uri),
				    g_uri_get_password(uri) != NULL ? g_uri_get_password(uri) : "");
		g_autofree gchar *encoded = g_base64_encode((const guchar *)pair, strlen(pair));
		g_autofree gchar *value = g_strconcat("Basic ", encoded, NULL);
		soup_message_headers_append(headers, "authorization", value);
	}
	if (!params->follow)
		soup_message_add_flags(msg, SOUP_MESSAGE_NO_REDIRECT);
	if (params->body != NULL)
		soup_message_set_request_body_from_bytes(msg, NULL, params->body);
	return msg;
}

/**
 * esd_http_request_start:
 * @context: the plugin's requests
 * @call: the http/request call
 * @params: (transfer full): its params, checked
 *
 * Sends the request; @call is answered when the response (or its whole
 * body) is there, or with the error that stopped it.
 */
void
esd_http_request_start(EsdHttpContext *context, ErpcCall *call, EsdHttpParams *params)
{
	g_autoptr(EsdHttpRequest) self = g_object_new(ESD_TYPE_HTTP_REQUEST, NULL);
	g_autoptr(GError) error = NULL;
	SoupSession *session;

	self->context = context;
	self->params = params;
	self->connection = g_object_ref(erpc_call_get_connection(call));
	if (params->timeout_ms == 0) {
		/* no time at all: the reference's answer, without a connection attempt */
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "http/request failed: route-aware request timed out");
		erpc_call_return_error(call, error);
		return;
	}
	self->state = esd_http_connection_get(self->connection, context);
	if (params->stream && !esd_http_connection_add_stream(self->state,
							      params->request_id,
							      (guint)context->limits->max_streams,
							      &error)) {
		self->state = NULL;
		erpc_call_return_error(call, error);
		return;
	}
	self->call = g_object_ref(call);
	esd_http_connection_add_request(self->state, G_OBJECT(self));
	if (!esd_http_context_take_request(context, &error)) {
		/* -32600, as every limit */
		erpc_call_return_error(self->call, error);
		g_clear_object(&self->call);
		esd_http_request_done(self);
		return;
	}
	self->in_flight = TRUE;
	session = esd_http_context_get_session(context, &error);
	if (session == NULL)
		return esd_http_request_fail(self, "http/request failed: %s", error->message);
	self->msg = esd_http_request_build(params);
	if (params->timeout_ms > 0) {
		self->timeout = g_timeout_source_new((guint)MIN(params->timeout_ms, G_MAXUINT));
		g_source_set_callback(self->timeout, esd_http_request_timeout_cb, self, NULL);
		g_source_attach(self->timeout, NULL);
	}
	soup_session_send_async(session,
				self->msg,
				G_PRIORITY_DEFAULT,
				self->cancellable,
				esd_http_request_sent_cb,
				g_object_ref(self));
}

static void
esd_http_request_finalize(GObject *object)
{
	EsdHttpRequest *self = ESD_HTTP_REQUEST(object);

	g_assert(self->timeout == NULL && self->pause == NULL);
	esd_http_request_release(self);
	g_clear_object(&self->call);
	g_clear_object(&self->body);
	g_clear_object(&self->msg);
	g_clear_object(&self->cancellable);
	g_clear_object(&self->connection);
	g_clear_pointer(&self->buf, g_byte_array_unref);
	g_clear_pointer(&self->params, esd_http_params_free);
	G_OBJECT_CLASS(esd_http_request_parent_class)->finalize(object);
}

static void
esd_http_request_init(EsdHttpRequest *self)
{
	self->cancellable = g_cancellable_new();
}

static void
esd_http_request_class_init(EsdHttpRequestClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_http_request_finalize;
}
