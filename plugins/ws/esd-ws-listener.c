/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <libsoup/soup.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "esd-ws-auth.h"
#include "esd-ws-listener.h"
#include "esd-ws-peer-address.h"
#include "esd-ws-plugin.h"
#include "esd-ws-soup.h"
#include "esd-ws-transport.h"

/*
 * The WebSocket listener: a SoupServer on one IP address and port, over TLS
 * for `wss://`. `/` is the WebSocket endpoint, `/readyz` answers 200 without
 * authentication, and every other path is 404. With `ws-auth` in the
 * listener's options, an upgrade needs a bearer token (esd-ws-auth.c); it is
 * checked once the request is known to be a valid upgrade, as the reference
 * does. Accepted sockets get TCP_NODELAY, because the protocol often sends
 * two small messages back to back.
 *
 * The listening socket is not SoupServer's: libsoup 3.2 stops accepting for
 * good after one failed accept (out of descriptors, say). ErpcListener
 * accepts instead, and survives that; each connection goes to SoupServer as
 * a stream, wrapped in TLS here for wss://, with its socket carried by the
 * remote address (esd-ws-peer-address.c). The SoupServer is made for the
 * first connection: libsoup is opened meanwhile (esd-ws-soup.h), after the
 * URL is announced.
 */

/* without a --handshake-timeout in the options */
#define ESD_WS_REQUEST_TIMEOUT 10
#define ESD_WS_LISTEN_BACKLOG  1024

struct _EsdWsListener {
	ErpcListener parent_instance;
	SoupServer *server; /* from the first connection on */
	gboolean listening;
	EsdWsAuth *auth;
	GTlsCertificate *certificate; /* wss:// */
	guint request_timeout; /* seconds for a request's headers to arrive, 0 for no limit */
};

G_DEFINE_TYPE(EsdWsListener, esd_ws_listener, ERPC_TYPE_LISTENER)

static void
esd_ws_listener_respond(SoupServerMessage *msg, guint status, const gchar *body)
{
	soup_server_message_set_status(msg, status, NULL);
	if (body != NULL)
		soup_server_message_set_response(msg,
						 "text/plain; charset=utf-8",
						 SOUP_MEMORY_STATIC,
						 body,
						 strlen(body));
}

static void
esd_ws_listener_readyz_cb(SoupServer *server,
			  SoupServerMessage *msg,
			  const gchar *path,
			  GHashTable *query,
			  gpointer user_data)
{
	const gchar *method = soup_server_message_get_method(msg);

	if (g_strcmp0(path, "/readyz") != 0) {
		esd_ws_listener_respond(msg, SOUP_STATUS_NOT_FOUND, NULL);
		return;
	}
	if (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD) {
		esd_ws_listener_respond(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
		return;
	}
	soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
}

static void
esd_ws_listener_upgraded_cb(SoupServerMessage *msg, gpointer user_data);

/* the socket of the connection @msg came on */
static GSocket *
esd_ws_listener_message_socket(SoupServerMessage *msg)
{
	GSocketAddress *remote = soup_server_message_get_remote_address(msg);

	if (!ESD_IS_WS_PEER_ADDRESS(remote))
		return NULL;
	return esd_ws_peer_address_get_socket(ESD_WS_PEER_ADDRESS(remote));
}

static gchar *
esd_ws_listener_describe_address(GSocketAddress *address)
{
	GInetSocketAddress *inet;
	g_autofree gchar *ip = NULL;

	if (!G_IS_INET_SOCKET_ADDRESS(address))
		return g_strdup("unknown");
	inet = G_INET_SOCKET_ADDRESS(address);
	ip = g_inet_address_to_string(g_inet_socket_address_get_address(inet));
	if (g_inet_address_get_family(g_inet_socket_address_get_address(inet)) ==
	    G_SOCKET_FAMILY_IPV6)
		return g_strdup_printf("[%s]:%u", ip, g_inet_socket_address_get_port(inet));
	return g_strdup_printf("%s:%u", ip, g_inet_socket_address_get_port(inet));
}

/* FALSE when the upgrade got its 401; the log shows the peer and why, never the token */
static gboolean
esd_ws_listener_authorize(EsdWsListener *self, SoupServerMessage *msg)
{
	SoupMessageHeaders *headers = soup_server_message_get_request_headers(msg);
	EsdWsAuthResult result;
	g_autofree gchar *peer = NULL;

	result = esd_ws_auth_check(self->auth, headers, g_get_real_time() / G_USEC_PER_SEC);
	if (result == ESD_WS_AUTH_OK)
		return TRUE;
	peer = esd_ws_listener_describe_address(soup_server_message_get_remote_address(msg));
	g_info("websocket %s: refusing the upgrade: %s",
	       peer,
	       esd_ws_auth_result_to_string(result));
	esd_ws_listener_respond(msg,
				SOUP_STATUS_UNAUTHORIZED,
				esd_ws_auth_result_to_string(result));
	return FALSE;
}

/* answers every request on "/": refused, or upgraded to a WebSocket */
static void
esd_ws_listener_root_cb(SoupServer *server,
			SoupServerMessage *msg,
			const gchar *path,
			GHashTable *query,
			gpointer user_data)
{
	EsdWsListener *self = ESD_WS_LISTENER(user_data);
	SoupMessageHeaders *headers = soup_server_message_get_request_headers(msg);

	if (g_strcmp0(path, "/") != 0) {
		esd_ws_listener_respond(msg, SOUP_STATUS_NOT_FOUND, NULL);
		return;
	}
	if (soup_server_message_get_method(msg) != SOUP_METHOD_GET) {
		esd_ws_listener_respond(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
		return;
	}
	if (!soup_message_headers_header_contains(headers, "Connection", "upgrade")) {
		esd_ws_listener_respond(msg,
					SOUP_STATUS_BAD_REQUEST,
					"Connection header did not include 'upgrade'");
		return;
	}
	/* a browser page must never reach the daemon */
	if (soup_message_headers_get_one(headers, "Origin") != NULL) {
		g_info("refusing a WebSocket upgrade that carries an Origin header");
		esd_ws_listener_respond(msg,
					SOUP_STATUS_FORBIDDEN,
					"websocket origin is not allowed");
		return;
	}
	/* no extensions: compression costs CPU and allows bombs; a bad handshake gets its 400 */
	if (!soup_websocket_server_check_handshake(msg, NULL, NULL, NULL, NULL)) {
		soup_websocket_server_process_handshake(msg, NULL, NULL, NULL, NULL);
		return;
	}
	if (!esd_ws_listener_authorize(self, msg))
		return;
	if (!soup_websocket_server_process_handshake(msg, NULL, NULL, NULL, NULL))
		return;
	g_signal_connect_object(msg,
				"wrote-informational",
				G_CALLBACK(esd_ws_listener_upgraded_cb),
				user_data,
				0);
}

/* the 101 is out: the connection is ours, framed by EsdWsTransport */
static void
esd_ws_listener_upgraded_cb(SoupServerMessage *msg, gpointer user_data)
{
	ErpcListener *listener = ERPC_LISTENER(user_data);
	g_autoptr(GIOStream) stream = NULL;
	g_autoptr(EsdWsTransport) transport = NULL;
	g_autofree gchar *address = NULL;
	g_autofree gchar *peer = NULL;
	g_autoptr(GSocket) socket = NULL;

	g_object_ref(msg);
	address = esd_ws_listener_describe_address(soup_server_message_get_remote_address(msg));
	peer = g_strdup_printf("websocket %s", address);
	/* the address goes with the connection libsoup lets go of */
	if (esd_ws_listener_message_socket(msg) != NULL)
		socket = g_object_ref(esd_ws_listener_message_socket(msg));
	stream = soup_server_message_steal_connection(msg);
	transport = esd_ws_transport_new(stream,
					 socket,
					 peer,
					 erpc_listener_get_max_message_size(listener));
	g_object_unref(msg);
	erpc_listener_emit_transport(listener, ERPC_TRANSPORT(transport));
}

static gboolean
esd_ws_listener_request_timeout_cb(gpointer user_data)
{
	GSocket *socket = G_SOCKET(user_data);

	g_message("dropping a connection that did not send its request in time");
	g_socket_shutdown(socket, TRUE, TRUE, NULL);
	return G_SOURCE_REMOVE;
}

static void
esd_ws_listener_destroy_source(gpointer data)
{
	g_source_destroy(data);
	g_source_unref(data);
}

static void
esd_ws_listener_request_started_cb(SoupServer *server, SoupServerMessage *msg, gpointer user_data)
{
	EsdWsListener *self = ESD_WS_LISTENER(user_data);
	GSocket *socket = esd_ws_listener_message_socket(msg);
	GSource *timeout;

	if (socket == NULL)
		return;
	/* slowloris: a request that never completes must not hold a connection forever */
	if (self->request_timeout == 0)
		return;
	timeout = g_timeout_source_new(MIN(self->request_timeout, G_MAXUINT / 1000) * 1000);
	g_source_set_callback(timeout,
			      esd_ws_listener_request_timeout_cb,
			      g_object_ref(socket),
			      g_object_unref);
	g_source_attach(timeout, NULL);
	g_object_set_data_full(G_OBJECT(msg),
			       "esd-request-timeout",
			       timeout,
			       esd_ws_listener_destroy_source);
}

/* the request is in: what follows is an answer or the upgrade */
static void
esd_ws_listener_request_read_cb(SoupServer *server, SoupServerMessage *msg, gpointer user_data)
{
	g_object_set_data(G_OBJECT(msg), "esd-request-timeout", NULL);
}

/* the SoupServer, made once libsoup is open */
static SoupServer *
esd_ws_listener_get_server(EsdWsListener *self, GError **error)
{
	if (self->server != NULL)
		return self->server;
	if (!esd_ws_soup_load(error))
		return NULL;
	self->server = soup_server_new("server-header", "execserverd/" PACKAGE_VERSION, NULL);
	soup_server_add_handler(self->server, "/readyz", esd_ws_listener_readyz_cb, self, NULL);
	soup_server_add_handler(self->server, "/", esd_ws_listener_root_cb, self, NULL);
	g_signal_connect(self->server,
			 "request-started",
			 G_CALLBACK(esd_ws_listener_request_started_cb),
			 self);
	g_signal_connect(self->server,
			 "request-read",
			 G_CALLBACK(esd_ws_listener_request_read_cb),
			 self);
	return self->server;
}

/* a connection ErpcListener accepted: SoupServer reads its request */
static void
esd_ws_listener_accepted(ErpcListener *listener, GSocket *socket)
{
	EsdWsListener *self = ESD_WS_LISTENER(listener);
	g_autoptr(GSocketConnection) connection = NULL;
	g_autoptr(GSocketAddress) local = NULL;
	g_autoptr(EsdWsPeerAddress) remote = NULL;
	g_autoptr(GIOStream) stream = NULL;
	g_autoptr(GError) error = NULL;

	if (!self->listening)
		return;
	if (esd_ws_listener_get_server(self, &error) == NULL) {
		g_message("cannot serve an accepted connection: %s", error->message);
		return;
	}
	g_socket_set_option(socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
	/* a peer that is already gone has no address */
	local = g_socket_get_local_address(socket, &error);
	if (local != NULL)
		remote = esd_ws_peer_address_new(socket, &error);
	if (remote == NULL) {
		g_debug("dropping an accepted connection: %s", error->message);
		return;
	}
	connection = g_socket_connection_factory_create_connection(socket);
	if (self->certificate == NULL) {
		stream = G_IO_STREAM(g_steal_pointer(&connection));
	} else {
		/* the handshake happens as libsoup reads the request, under its timeout */
		stream =
		    g_tls_server_connection_new(G_IO_STREAM(connection), self->certificate, &error);
		if (stream == NULL) {
			g_message("cannot start TLS on a connection: %s", error->message);
			g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
			return;
		}
		g_object_set(stream, "require-close-notify", FALSE, NULL);
	}
	if (!soup_server_accept_iostream(self->server,
					 stream,
					 local,
					 G_SOCKET_ADDRESS(remote),
					 &error)) {
		g_message("cannot serve an accepted connection: %s", error->message);
		g_io_stream_close(stream, NULL, NULL);
	}
}

/* ws://IP:PORT or wss://IP:PORT; *tls tells which */
static GInetSocketAddress *
esd_ws_listener_parse_uri(const gchar *uri, gboolean *tls, GError **error)
{
	g_autoptr(GUri) guri = NULL;
	g_autoptr(GInetAddress) address = NULL;
	const gchar *host = NULL;
	const gchar *path = NULL;
	gint port = -1;
	gboolean valid;

	guri = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
	if (guri != NULL) {
		*tls = g_strcmp0(g_uri_get_scheme(guri), "wss") == 0;
		host = g_uri_get_host(guri);
		port = g_uri_get_port(guri);
		path = g_uri_get_path(guri);
	}
	valid = guri != NULL && (*tls || g_strcmp0(g_uri_get_scheme(guri), "ws") == 0) &&
		host != NULL && port >= 0 && port <= 65535 && g_uri_get_userinfo(guri) == NULL &&
		g_uri_get_query(guri) == NULL && g_uri_get_fragment(guri) == NULL &&
		(path == NULL || path[0] == '\0' || g_strcmp0(path, "/") == 0);
	/* an IP literal: the reference rejects host names such as localhost */
	if (valid)
		address = g_inet_address_new_from_string(host);
	if (address == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unsupported --listen URL %s; expected ws://IP:PORT or stdio",
			    uri);
		return NULL;
	}
	return G_INET_SOCKET_ADDRESS(g_inet_socket_address_new(address, (guint16)port));
}

/* the plugin's options, or for a listener made without the plugin its own */
static GVariant *
esd_ws_listener_get_auth_options(ErpcListener *listener)
{
	GVariant *options = esd_ws_plugin_get_listener_options();
	return options != NULL ? options : erpc_listener_get_options(listener);
}

/* the certificate of a wss:// listener, from the files the options name */
static GTlsCertificate *
esd_ws_listener_load_certificate(ErpcListener *listener, GError **error)
{
	GVariant *options = esd_ws_listener_get_auth_options(listener);
	const gchar *cert_path = NULL;
	const gchar *key_path = NULL;
	GTlsCertificate *certificate;

	if (options == NULL || !g_variant_lookup(options, "tls-certificate", "&s", &cert_path) ||
	    !g_variant_lookup(options, "tls-key", "&s", &key_path)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "wss:// needs a TLS certificate and key");
		return NULL;
	}
	if (!g_tls_backend_supports_tls(g_tls_backend_get_default())) {
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_NOT_SUPPORTED,
		    "TLS is not available: GIO has no TLS backend (glib-networking)");
		return NULL;
	}
	certificate = g_tls_certificate_new_from_files(cert_path, key_path, error);
	if (certificate == NULL) {
		g_prefix_error(error,
			       "cannot load the TLS certificate %s with the key %s: ",
			       cert_path,
			       key_path);
		return NULL;
	}
	return certificate;
}

/* libsoup's own listening socket has a backlog of 10: bursts of clients would wait for SYN retries
 */
static GSocket *
esd_ws_listener_open_socket(GInetSocketAddress *address, GError **error)
{
	g_autoptr(GSocket) socket = NULL;

	socket = g_socket_new(g_socket_address_get_family(G_SOCKET_ADDRESS(address)),
			      G_SOCKET_TYPE_STREAM,
			      G_SOCKET_PROTOCOL_TCP,
			      error);
	if (socket == NULL)
		return NULL;
	g_socket_set_listen_backlog(socket, ESD_WS_LISTEN_BACKLOG);
	if (!g_socket_bind(socket, G_SOCKET_ADDRESS(address), TRUE, error))
		return NULL;
	if (!g_socket_listen(socket, error))
		return NULL;
	return g_steal_pointer(&socket);
}

static gboolean
esd_ws_listener_listen(ErpcListener *listener, const gchar *uri, GError **error)
{
	EsdWsListener *self = ESD_WS_LISTENER(listener);
	g_autoptr(GInetSocketAddress) address = NULL;
	g_autoptr(GTlsCertificate) certificate = NULL;
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GSocketAddress) bound = NULL;
	g_autofree gchar *bound_text = NULL;
	g_autofree gchar *bound_uri = NULL;
	gboolean tls = FALSE;

	address = esd_ws_listener_parse_uri(uri, &tls, error);
	if (address == NULL)
		return FALSE;
	if (self->listening) {
		g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_EXISTS, "already listening");
		return FALSE;
	}
	if (erpc_listener_get_options(listener) == NULL ||
	    !g_variant_lookup(erpc_listener_get_options(listener),
			      "handshake-timeout",
			      "u",
			      &self->request_timeout))
		self->request_timeout = ESD_WS_REQUEST_TIMEOUT;
	g_clear_object(&self->auth);
	self->auth = esd_ws_auth_new(esd_ws_listener_get_auth_options(listener), error);
	if (self->auth == NULL)
		return FALSE;
	if (tls && (certificate = esd_ws_listener_load_certificate(listener, error)) == NULL)
		return FALSE;
	socket = esd_ws_listener_open_socket(address, error);
	if (socket == NULL || (bound = g_socket_get_local_address(socket, error)) == NULL) {
		g_prefix_error(error, "cannot listen on %s: ", uri);
		return FALSE;
	}
	self->listening = TRUE;
	g_set_object(&self->certificate, certificate);
	esd_ws_soup_preload();
	bound_text = esd_ws_listener_describe_address(bound);
	bound_uri = g_strdup_printf("%s://%s", tls ? "wss" : "ws", bound_text);
	erpc_listener_set_bound_uri(listener, bound_uri);
	erpc_listener_accept_from(listener, socket);
	g_info("listening on %s%s",
	       bound_uri,
	       esd_ws_auth_is_enabled(self->auth) ? " with authentication" : "");
	return TRUE;
}

/* ErpcListener closes the listening socket; requests still being read are dropped */
static void
esd_ws_listener_stop(ErpcListener *listener)
{
	EsdWsListener *self = ESD_WS_LISTENER(listener);
	if (self->server != NULL)
		soup_server_disconnect(self->server);
}

static void
esd_ws_listener_dispose(GObject *object)
{
	EsdWsListener *self = ESD_WS_LISTENER(object);
	if (self->server != NULL) {
		g_signal_handlers_disconnect_by_data(self->server, self);
		soup_server_disconnect(self->server);
		g_clear_object(&self->server);
	}
	g_clear_object(&self->auth);
	g_clear_object(&self->certificate);
	G_OBJECT_CLASS(esd_ws_listener_parent_class)->dispose(object);
}

static void
esd_ws_listener_init(EsdWsListener *self)
{
}

static void
esd_ws_listener_class_init(EsdWsListenerClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = esd_ws_listener_dispose;
	ERPC_LISTENER_CLASS(klass)->listen = esd_ws_listener_listen;
	ERPC_LISTENER_CLASS(klass)->stop = esd_ws_listener_stop;
	ERPC_LISTENER_CLASS(klass)->accepted = esd_ws_listener_accepted;
}
