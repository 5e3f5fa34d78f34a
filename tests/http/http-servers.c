/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "esd-test-tls.h"
#include "http-servers.h"

struct _HttpServers {
	GThread *thread;
	GMainContext *context;
	GMainLoop *loop;
	SoupServer *plain;
	SoupServer *tls;
	SoupServer *proxy;
	guint port;
	guint tls_port;
	guint proxy_port;
	gint requests;
	gint proxied;
	gchar *dir;
	/* the raw server */
	GThread *raw_thread;
	GSocket *raw_listener;
	guint raw_port;
	GMutex lock;
	GCond cond;
	GSocket *raw_client; /* the connection being served */
	gboolean stopping;
	gboolean released;
	guint64 raw_written;
	gboolean raw_aborted;
	GMutex ready_lock;
	GCond ready_cond;
	gboolean ready;
};

/* the body of /echo: the method, each header as received, an empty line, the body */
static void
http_servers_echo(SoupServerMessage *msg)
{
	SoupMessageHeaders *req = soup_server_message_get_request_headers(msg);
	SoupMessageHeaders *resp = soup_server_message_get_response_headers(msg);
	SoupMessageBody *body = soup_server_message_get_request_body(msg);
	g_autoptr(GBytes) data = soup_message_body_flatten(body);
	GString *out = g_string_new(soup_server_message_get_method(msg));
	const gchar *query = g_uri_get_query(soup_server_message_get_uri(msg));
	SoupMessageHeadersIter iter;
	const gchar *name;
	const gchar *value;
	gsize len = 0;
	const gchar *bytes = g_bytes_get_data(data, &len);

	g_string_append_c(out, '\n');
	soup_message_headers_iter_init(&iter, req);
	while (soup_message_headers_iter_next(&iter, &name, &value))
		g_string_append_printf(out, "%s: %s\n", name, value);
	g_string_append_c(out, '\n');
	g_string_append_len(out, bytes, (gssize)len);
	soup_message_headers_append(resp, "X-Multi", "a");
	soup_message_headers_append(resp, "X-Upper", "V");
	soup_message_headers_append(resp, "X-Multi", "b");
	soup_server_message_set_status(msg, g_strcmp0(query, "status=404") == 0 ? 404 : 200, NULL);
	soup_server_message_set_response(msg, "text/plain", SOUP_MEMORY_TAKE, out->str, out->len);
	g_string_free(out, FALSE);
}

static void
http_servers_gzip(SoupServerMessage *msg)
{
	g_autoptr(GZlibCompressor) compressor =
	    g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
	const gchar *text = "decoded by the daemon";
	guint8 out[256];
	gsize read = 0;
	gsize written = 0;
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_converter_convert(G_CONVERTER(compressor),
					    text,
					    strlen(text),
					    out,
					    sizeof(out),
					    G_CONVERTER_INPUT_AT_END,
					    &read,
					    &written,
					    &error),
			==,
			G_CONVERTER_FINISHED);
	soup_message_headers_append(soup_server_message_get_response_headers(msg),
				    "Content-Encoding",
				    "gzip");
	soup_server_message_set_status(msg, 200, NULL);
	soup_server_message_set_response(msg,
					 "text/plain",
					 SOUP_MEMORY_COPY,
					 (gchar *)out,
					 written);
}

static void
http_servers_handler(SoupServer *server,
		     SoupServerMessage *msg,
		     const char *path,
		     GHashTable *query,
		     gpointer user_data)
{
	HttpServers *self = user_data;
	SoupMessageHeaders *resp = soup_server_message_get_response_headers(msg);

	g_atomic_int_inc(&self->requests);
	if (g_strcmp0(path, "/echo") == 0) {
		http_servers_echo(msg);
	} else if (g_strcmp0(path, "/redirect") == 0) {
		soup_message_headers_append(resp, "Location", "/echo");
		soup_server_message_set_status(msg, 302, NULL);
		soup_server_message_set_response(msg, "text/plain", SOUP_MEMORY_STATIC, "moved", 5);
	} else if (g_strcmp0(path, "/loop") == 0) {
		soup_message_headers_append(resp, "Location", "/loop");
		soup_server_message_set_status(msg, 302, NULL);
	} else if (g_strcmp0(path, "/gzip") == 0) {
		http_servers_gzip(msg);
	} else if (g_strcmp0(path, "/never") == 0) {
		/* no answer until the server goes */
		soup_server_message_pause(msg);
	} else if (g_str_has_prefix(path, "/bytes/")) {
		gsize n = (gsize)g_ascii_strtoull(path + strlen("/bytes/"), NULL, 10);
		gchar *body = g_malloc(n);
		memset(body, 'b', n);
		soup_server_message_set_status(msg, 200, NULL);
		soup_server_message_set_response(msg, "text/plain", SOUP_MEMORY_TAKE, body, n);
	} else {
		soup_server_message_set_status(msg, 404, NULL);
	}
}

/* a forward proxy that answers itself: the target need not exist */
static void
http_servers_proxy_handler(SoupServer *server,
			   SoupServerMessage *msg,
			   const char *path,
			   GHashTable *query,
			   gpointer user_data)
{
	HttpServers *self = user_data;
	g_autofree gchar *uri = g_uri_to_string(soup_server_message_get_uri(msg));
	gchar *body = g_strdup_printf("proxied %s %s", soup_server_message_get_method(msg), uri);

	g_atomic_int_inc(&self->proxied);
	soup_server_message_set_status(msg, 200, NULL);
	soup_server_message_set_response(msg, "text/plain", SOUP_MEMORY_TAKE, body, strlen(body));
}

static guint
http_servers_listen(SoupServer *server, SoupServerListenOptions options)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	GSList *listeners;
	guint port;

	g_assert_true(soup_server_listen(server, address, options, &error));
	g_assert_no_error(error);
	listeners = soup_server_get_uris(server);
	port = (guint)g_uri_get_port(listeners->data);
	g_slist_free_full(listeners, (GDestroyNotify)g_uri_unref);
	return port;
}

static gpointer
http_servers_thread(gpointer data)
{
	HttpServers *self = data;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *cert_path = g_build_filename(self->dir, "cert.pem", NULL);
	g_autofree gchar *key_path = g_build_filename(self->dir, "key.pem", NULL);
	g_autoptr(GTlsCertificate) cert = NULL;

	g_main_context_push_thread_default(self->context);
	esd_test_make_certificate(cert_path, key_path);
	cert = g_tls_certificate_new_from_files(cert_path, key_path, &error);
	g_assert_no_error(error);
	self->plain = soup_server_new(NULL, NULL);
	soup_server_add_handler(self->plain, NULL, http_servers_handler, self, NULL);
	self->port = http_servers_listen(self->plain, 0);
	self->tls = soup_server_new("tls-certificate", cert, NULL);
	soup_server_add_handler(self->tls, NULL, http_servers_handler, self, NULL);
	self->tls_port = http_servers_listen(self->tls, SOUP_SERVER_LISTEN_HTTPS);
	self->proxy = soup_server_new(NULL, NULL);
	soup_server_add_handler(self->proxy, NULL, http_servers_proxy_handler, self, NULL);
	self->proxy_port = http_servers_listen(self->proxy, 0);

	g_mutex_lock(&self->ready_lock);
	self->ready = TRUE;
	g_cond_signal(&self->ready_cond);
	g_mutex_unlock(&self->ready_lock);

	g_main_loop_run(self->loop);
	soup_server_disconnect(self->plain);
	soup_server_disconnect(self->tls);
	soup_server_disconnect(self->proxy);
	g_clear_object(&self->plain);
	g_clear_object(&self->tls);
	g_clear_object(&self->proxy);
	/* what the servers left to finish */
	while (g_main_context_iteration(self->context, FALSE))
		;
	g_main_context_pop_thread_default(self->context);
	return NULL;
}

/* the raw server */

static gboolean
http_servers_raw_send(HttpServers *self, GSocket *client, const gchar *data, gsize len)
{
	while (len > 0) {
		gssize n = g_socket_send(client, data, len, NULL, NULL);
		if (n <= 0)
			return FALSE;
		data += n;
		len -= (gsize)n;
	}
	return TRUE;
}

static gchar *
http_servers_raw_read_path(GSocket *client)
{
	GString *request = g_string_new(NULL);
	g_auto(GStrv) words = NULL;
	g_autofree gchar *text = NULL;

	while (strstr(request->str, "\r\n\r\n") == NULL && request->len < 65536) {
		gchar buf[4096];
		gssize n = g_socket_receive(client, buf, sizeof(buf), NULL, NULL);
		if (n <= 0)
			break;
		g_string_append_len(request, buf, n);
	}
	text = g_string_free(request, FALSE);
	words = g_strsplit(text, " ", 3);
	return g_strv_length(words) >= 2 ? g_strdup(words[1]) : NULL;
}

/*
 * @size bytes, byte i being i % 251; FALSE when the peer went first. A @paced
 * body waits a millisecond after each block, at most 64 MB/s, so that a
 * test's own client, which reads what it is sent, never gets to its end
 */
static gboolean
http_servers_raw_big_send(HttpServers *self, GSocket *client, guint64 size, gboolean paced)
{
	g_autofree gchar *head =
	    g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Length: %" G_GUINT64_FORMAT "\r\n\r\n",
			    size);
	guint8 block[65536];
	guint64 offset = 0;

	if (!http_servers_raw_send(self, client, head, strlen(head)))
		return FALSE;
	while (offset < size) {
		gsize n = (gsize)MIN(sizeof(block), size - offset);
		for (gsize i = 0; i < n; i++)
			block[i] = (guint8)((offset + i) % 251);
		if (!http_servers_raw_send(self, client, (const gchar *)block, n))
			return FALSE;
		offset += n;
		g_mutex_lock(&self->lock);
		self->raw_written = offset;
		g_mutex_unlock(&self->lock);
		if (paced)
			g_usleep(1000);
	}
	return TRUE;
}

static void
http_servers_raw_big(HttpServers *self, GSocket *client, guint64 size, gboolean paced)
{
	if (http_servers_raw_big_send(self, client, size, paced))
		return;
	g_mutex_lock(&self->lock);
	self->raw_aborted = TRUE;
	g_mutex_unlock(&self->lock);
}

static void
http_servers_raw_serve(HttpServers *self, GSocket *client)
{
	g_autofree gchar *path = http_servers_raw_read_path(client);

	if (g_strcmp0(path, "/short") == 0) {
		const gchar *text = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nxxxxxxxxxx";
		http_servers_raw_send(self, client, text, strlen(text));
	} else if (g_strcmp0(path, "/hold") == 0) {
		const gchar *text = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello";
		http_servers_raw_send(self, client, text, strlen(text));
		g_mutex_lock(&self->lock);
		while (!self->released && !self->stopping)
			g_cond_wait(&self->cond, &self->lock);
		self->released = FALSE;
		g_mutex_unlock(&self->lock);
		http_servers_raw_send(self, client, "world", 5);
	} else if (path != NULL && g_str_has_prefix(path, "/big/")) {
		http_servers_raw_big(self, client, g_ascii_strtoull(path + 5, NULL, 10), FALSE);
	} else if (path != NULL && g_str_has_prefix(path, "/paced/")) {
		http_servers_raw_big(self, client, g_ascii_strtoull(path + 7, NULL, 10), TRUE);
	}
}

static gpointer
http_servers_raw_thread(gpointer data)
{
	HttpServers *self = data;

	for (;;) {
		g_autoptr(GSocket) client = g_socket_accept(self->raw_listener, NULL, NULL);
		gboolean stopping;

		g_mutex_lock(&self->lock);
		stopping = self->stopping;
		if (!stopping && client != NULL)
			self->raw_client = g_object_ref(client);
		g_mutex_unlock(&self->lock);
		if (stopping || client == NULL)
			break;
		http_servers_raw_serve(self, client);
		g_socket_close(client, NULL);
		g_mutex_lock(&self->lock);
		g_clear_object(&self->raw_client);
		g_mutex_unlock(&self->lock);
	}
	return NULL;
}

static void
http_servers_raw_start(HttpServers *self)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;

	self->raw_listener =
	    g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
	g_assert_no_error(error);
	g_assert_true(g_socket_bind(self->raw_listener, address, TRUE, &error));
	g_assert_true(g_socket_listen(self->raw_listener, &error));
	bound = g_socket_get_local_address(self->raw_listener, &error);
	g_assert_no_error(error);
	self->raw_port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	self->raw_thread = g_thread_new("http-raw", http_servers_raw_thread, self);
}

/* wakes the raw thread's accept() with a connection of our own */
static void
http_servers_raw_stop(HttpServers *self)
{
	g_autoptr(GSocketClient) connector = g_socket_client_new();
	g_autoptr(GSocketConnection) poke = NULL;
	g_autofree gchar *host = g_strdup_printf("127.0.0.1:%u", self->raw_port);

	/* GIO's default proxy resolver aborts without GSettings schemas (isolated dirs) */
	g_socket_client_set_enable_proxy(connector, FALSE);
	g_mutex_lock(&self->lock);
	self->stopping = TRUE;
	g_cond_broadcast(&self->cond);
	if (self->raw_client != NULL)
		g_socket_shutdown(self->raw_client, TRUE, TRUE, NULL);
	g_mutex_unlock(&self->lock);
	poke = g_socket_client_connect_to_host(connector, host, 0, NULL, NULL);
	g_thread_join(self->raw_thread);
	g_socket_close(self->raw_listener, NULL);
	g_clear_object(&self->raw_listener);
}

HttpServers *
http_servers_start(void)
{
	HttpServers *self = g_new0(HttpServers, 1);
	g_autoptr(GError) error = NULL;

	g_mutex_init(&self->lock);
	g_cond_init(&self->cond);
	g_mutex_init(&self->ready_lock);
	g_cond_init(&self->ready_cond);
	self->dir = g_dir_make_tmp("esd-test-http-XXXXXX", &error);
	g_assert_no_error(error);
	self->context = g_main_context_new();
	self->loop = g_main_loop_new(self->context, FALSE);
	self->thread = g_thread_new("http-servers", http_servers_thread, self);
	g_mutex_lock(&self->ready_lock);
	while (!self->ready)
		g_cond_wait(&self->ready_cond, &self->ready_lock);
	g_mutex_unlock(&self->ready_lock);
	http_servers_raw_start(self);
	return self;
}

static gboolean
http_servers_quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

void
http_servers_stop(HttpServers *self)
{
	g_autofree gchar *cert = g_build_filename(self->dir, "cert.pem", NULL);
	g_autofree gchar *key = g_build_filename(self->dir, "key.pem", NULL);

	http_servers_raw_stop(self);
	g_main_context_invoke(self->context, http_servers_quit_cb, self->loop);
	g_thread_join(self->thread);
	g_main_loop_unref(self->loop);
	g_main_context_unref(self->context);
	g_unlink(cert);
	g_unlink(key);
	g_rmdir(self->dir);
	g_free(self->dir);
	g_mutex_clear(&self->lock);
	g_cond_clear(&self->cond);
	g_mutex_clear(&self->ready_lock);
	g_cond_clear(&self->ready_cond);
	g_free(self);
}

guint
http_servers_get_port(HttpServers *self)
{
	return self->port;
}

guint
http_servers_get_tls_port(HttpServers *self)
{
	return self->tls_port;
}

guint
http_servers_get_proxy_port(HttpServers *self)
{
	return self->proxy_port;
}

guint
http_servers_get_raw_port(HttpServers *self)
{
	return self->raw_port;
}

guint
http_servers_get_requests(HttpServers *self)
{
	return (guint)g_atomic_int_get(&self->requests);
}

guint
http_servers_get_proxied(HttpServers *self)
{
	return (guint)g_atomic_int_get(&self->proxied);
}

guint64
http_servers_get_raw_written(HttpServers *self)
{
	guint64 written;

	g_mutex_lock(&self->lock);
	written = self->raw_written;
	g_mutex_unlock(&self->lock);
	return written;
}

gboolean
http_servers_get_raw_aborted(HttpServers *self)
{
	gboolean aborted;

	g_mutex_lock(&self->lock);
	aborted = self->raw_aborted;
	g_mutex_unlock(&self->lock);
	return aborted;
}

void
http_servers_release_hold(HttpServers *self)
{
	g_mutex_lock(&self->lock);
	self->released = TRUE;
	g_cond_broadcast(&self->cond);
	g_mutex_unlock(&self->lock);
}
