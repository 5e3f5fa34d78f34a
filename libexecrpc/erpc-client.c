/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-client-private.h"
#include "erpc-client-state.h"
#include "erpc-connection.h"
#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-line-transport.h"

/**
 * ErpcClient:
 *
 * A client of the exec-server protocol. It connects over `ws://` or
 * `wss://`, to a spawned `execserverd --listen stdio`, or over a socket,
 * runs the `initialize`/`initialized` handshake and then sends requests and
 * matches their answers by id. Everything happens in the thread-default
 * main context of the thread that created the client.
 *
 * When a WebSocket connection is lost the client recovers: it reconnects,
 * resumes its session with `resumeSessionId`, sends again what it had in
 * flight and may repeat (#ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT, including
 * `process/write`, whose `writeId` makes it safe), and catches up the output
 * of its processes with `process/read` `afterSeq`. Until the recovery
 * deadline passes the state is %ERPC_CLIENT_STATE_RECOVERING, never
 * %ERPC_CLIENT_STATE_DISCONNECTED.
 *
 * Since: 0.1
 */

/**
 * erpc_client_error_quark:
 *
 * The error domain of what fails in the client rather than on the server.
 *
 * Returns: the #GQuark of %ERPC_CLIENT_ERROR
 *
 * Since: 0.1
 */
GQuark
erpc_client_error_quark(void)
{
	/* written out: clang-format would space the dashes of G_DEFINE_QUARK() */
	return g_quark_from_static_string("erpc-client-error-quark");
}

G_DEFINE_ENUM_TYPE(ErpcClientState,
		   erpc_client_state,
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_STATE_DISCONNECTED, "disconnected"),
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_STATE_CONNECTING, "connecting"),
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_STATE_READY, "ready"),
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_STATE_RECOVERING, "recovering"))

G_DEFINE_FLAGS_TYPE(ErpcClientCallFlags,
		    erpc_client_call_flags,
		    G_DEFINE_ENUM_VALUE(ERPC_CLIENT_CALL_FLAGS_NONE, "none"),
		    G_DEFINE_ENUM_VALUE(ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT, "idempotent"))

G_DEFINE_ENUM_TYPE(ErpcClientAttemptOutcome,
		   erpc_client_attempt_outcome,
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_ATTEMPT_SUCCEEDED, "succeeded"),
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_ATTEMPT_FAILED, "failed"),
		   G_DEFINE_ENUM_VALUE(ERPC_CLIENT_ATTEMPT_CANCELLED, "cancelled"))

G_DEFINE_TYPE(ErpcClient, erpc_client, G_TYPE_OBJECT)

enum {
	PROP_0,
	PROP_URL,
	PROP_STATE,
	PROP_SESSION_ID,
	PROP_CLIENT_NAME,
	PROP_CONNECT_TIMEOUT,
	PROP_RECOVERY_TIMEOUT,
	PROP_PROXY_RESOLVER,
	PROP_TLS_DATABASE,
	PROP_LAST
};
enum {
	SIGNAL_STATE_CHANGED,
	SIGNAL_NOTIFICATION,
	SIGNAL_MISSING_CHANGED,
	SIGNAL_CONNECTION_ATTEMPT,
	SIGNAL_READY,
	SIGNAL_DISCONNECTED,
	SIGNAL_LAST
};

static GParamSpec *erpc_client_props[PROP_LAST] = {NULL};
static guint erpc_client_signals[SIGNAL_LAST] = {0};

/**
 * erpc_client_new:
 * @url: a `ws://HOST:PORT[/PATH]` or `wss://…` URL
 *
 * Creates a client for a WebSocket server. Nothing happens until
 * erpc_client_connect_async().
 *
 * Returns: (transfer full): a new client
 *
 * Since: 0.1
 */
ErpcClient *
erpc_client_new(const gchar *url)
{
	ErpcClient *self = g_object_new(ERPC_TYPE_CLIENT, "url", url, NULL);
	self->kind = ERPC_CLIENT_KIND_URL;
	return self;
}

/**
 * erpc_client_new_for_command:
 * @argv: (array zero-terminated=1): a server speaking newline-delimited JSON
 *   on its stdio, usually `execserverd --listen stdio`
 *
 * Creates a client that spawns @argv when it connects. The server's stderr
 * is inherited. Such a connection cannot be recovered: the session ends
 * with the process.
 *
 * Returns: (transfer full): a new client
 *
 * Since: 0.1
 */
ErpcClient *
erpc_client_new_for_command(const gchar *const *argv)
{
	ErpcClient *self;

	g_return_val_if_fail(argv[0] != NULL, NULL);
	self = g_object_new(ERPC_TYPE_CLIENT, "url", "stdio", NULL);
	self->kind = ERPC_CLIENT_KIND_COMMAND;
	self->argv = g_strdupv((gchar **)argv);
	return self;
}

/**
 * erpc_client_new_for_stream:
 * @stream: a connected stream whose input and output are pollable, such as
 *   a #GSocketConnection
 *
 * Creates a client that speaks newline-delimited JSON on @stream, as the
 * accepted-socket transport of execserverd does.
 *
 * Returns: (transfer full): a new client
 *
 * Since: 0.1
 */
ErpcClient *
erpc_client_new_for_stream(GIOStream *stream)
{
	ErpcClient *self;

	g_return_val_if_fail(G_IS_IO_STREAM(stream), NULL);
	self = g_object_new(ERPC_TYPE_CLIENT, "url", "stream", NULL);
	self->kind = ERPC_CLIENT_KIND_STREAM;
	self->stream = g_object_ref(stream);
	return self;
}

/**
 * erpc_client_new_for_fd:
 * @fd: a connected stream socket; the client takes it over
 * @error: return location for a #GError, or %NULL
 *
 * Like erpc_client_new_for_stream() for a socket descriptor, for example one
 * returned by execserverd's D-Bus `OpenConnection`.
 *
 * Returns: (transfer full): a new client, or %NULL if @fd is not a socket
 *
 * Since: 0.1
 */
ErpcClient *
erpc_client_new_for_fd(gint fd, GError **error)
{
	g_autoptr(GSocket) socket = g_socket_new_from_fd(fd, error);
	g_autoptr(GSocketConnection) connection = NULL;

	if (socket == NULL)
		return NULL;
	connection = g_socket_connection_factory_create_connection(socket);
	return erpc_client_new_for_stream(G_IO_STREAM(connection));
}

/**
 * erpc_client_set_client_name:
 * @self: a #ErpcClient
 * @client_name: the `clientName` sent with `initialize`
 *
 * Sets the name the client gives the server; call it before connecting.
 *
 * Since: 0.1
 */
void
erpc_client_set_client_name(ErpcClient *self, const gchar *client_name)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_object_set(self, "client-name", client_name, NULL);
}

/**
 * erpc_client_add_header:
 * @self: a #ErpcClient
 * @name: an HTTP header name
 * @value: its value
 * @error: return location for a #GError, or %NULL
 *
 * Adds a header to the WebSocket upgrade request, for example one a reverse
 * proxy in front of the server requires. Invalid names and values, names
 * already added, and names the WebSocket handshake itself controls (`Host`,
 * `Upgrade`, `Connection`, `Sec-WebSocket-*`, `Authorization`…) are refused
 * with %ERPC_CLIENT_ERROR_INVALID_HEADER. Values never appear in debug
 * output. A client with extra headers or a bearer token connects to a
 * non-loopback host only over `wss://`.
 *
 * Returns: %TRUE if the header was added
 *
 * Since: 0.1
 */
gboolean
erpc_client_add_header(ErpcClient *self, const gchar *name, const gchar *value, GError **error)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), FALSE);
	g_return_val_if_fail(name != NULL && value != NULL, FALSE);
	if (!_erpc_client_header_validate(name, value, error))
		return FALSE;
	for (guint i = 0; i < self->headers->len; i += 2) {
		if (g_ascii_strcasecmp(g_ptr_array_index(self->headers, i), name) == 0) {
			g_set_error(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_INVALID_HEADER,
				    "header %s is already set",
				    name);
			return FALSE;
		}
	}
	g_ptr_array_add(self->headers, g_strdup(name));
	g_ptr_array_add(self->headers, g_strdup(value));
	return TRUE;
}

/**
 * erpc_client_set_bearer_token:
 * @self: a #ErpcClient
 * @token: (nullable): a token for servers started with `--ws-auth`
 *
 * Sends `Authorization: Bearer @token` with the WebSocket upgrade.
 *
 * Since: 0.1
 */
void
erpc_client_set_bearer_token(ErpcClient *self, const gchar *token)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	if (self->bearer_token != NULL)
		memset(self->bearer_token, 0, strlen(self->bearer_token));
	g_free(self->bearer_token);
	self->bearer_token = g_strdup(token);
}

/**
 * erpc_client_set_proxy_resolver:
 * @self: a #ErpcClient
 * @resolver: (nullable): the resolver, %NULL for the system default
 *
 * Sets how WebSocket connections find their proxy. An HTTP proxy is
 * traversed with `CONNECT`, for `ws://` as for `wss://`.
 *
 * Since: 0.1
 */
void
erpc_client_set_proxy_resolver(ErpcClient *self, GProxyResolver *resolver)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_object_set(self, "proxy-resolver", resolver, NULL);
}

/**
 * erpc_client_set_tls_database:
 * @self: a #ErpcClient
 * @database: (nullable): the trust anchors for `wss://`, %NULL for the system's
 *
 * Sets the certificates a `wss://` server is checked against; call it
 * before connecting.
 *
 * Since: 0.1
 */
void
erpc_client_set_tls_database(ErpcClient *self, GTlsDatabase *database)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_object_set(self, "tls-database", database, NULL);
}

/**
 * erpc_client_set_connect_timeout:
 * @self: a #ErpcClient
 * @timeout_ms: the longest one connection attempt and its handshake may take
 *
 * Sets how long a connection attempt may take, in milliseconds; call it
 * before connecting.
 *
 * Since: 0.1
 */
void
erpc_client_set_connect_timeout(ErpcClient *self, guint timeout_ms)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_object_set(self, "connect-timeout", timeout_ms, NULL);
}

/**
 * erpc_client_set_recovery_timeout:
 * @self: a #ErpcClient
 * @timeout_ms: how long a lost connection may take to recover, 0 to never try
 *
 * When the deadline passes the client becomes
 * %ERPC_CLIENT_STATE_DISCONNECTED and every waiting request fails with
 * %ERPC_ERROR_TIMED_OUT.
 *
 * Since: 0.1
 */
void
erpc_client_set_recovery_timeout(ErpcClient *self, guint timeout_ms)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_object_set(self, "recovery-timeout", timeout_ms, NULL);
}

/**
 * erpc_client_set_initialize_timeout:
 * @self: a #ErpcClient
 * @timeout_ms: how long the server may take to answer `initialize`, 0 for
 *   no limit
 *
 * Sets how long the handshake's `initialize` may wait for its answer once
 * the transport is up (10 s by default, as Codex's
 * `initialize_timeout_sec`). Past it the attempt fails with
 * %ERPC_ERROR_TIMED_OUT.
 *
 * Since: 0.2
 */
void
erpc_client_set_initialize_timeout(ErpcClient *self, guint timeout_ms)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	self->initialize_timeout_ms = timeout_ms;
}

/**
 * erpc_client_get_initialize_timeout:
 * @self: a #ErpcClient
 *
 * Gets how long `initialize` may take.
 *
 * Returns: the deadline in milliseconds, 0 for none
 *
 * Since: 0.2
 */
guint
erpc_client_get_initialize_timeout(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), 0);
	return self->initialize_timeout_ms;
}

/**
 * erpc_client_set_keepalive_interval:
 * @self: a #ErpcClient
 * @interval_ms: how often to ping the server, in milliseconds (whole
 *   seconds, at least 1000), 0 for never
 *
 * A WebSocket client pings its server (every 10 s by default) and gives the
 * connection up as lost when nothing, pong or message, came back for two
 * intervals: a TCP connection that died without a word (a host that went
 * away, a NAT that forgot it) is noticed, and recovered like any other.
 * Applies to the next connection.
 *
 * Since: 0.2
 */
void
erpc_client_set_keepalive_interval(ErpcClient *self, guint interval_ms)
{
	g_return_if_fail(ERPC_IS_CLIENT(self));
	self->keepalive_ms = interval_ms;
}

/* a `program` environment's env and cwd, before connecting */
void
_erpc_client_set_command_environment(ErpcClient *self, const gchar *const *envp, const gchar *cwd)
{
	g_strfreev(self->envp);
	self->envp = g_strdupv((gchar **)envp);
	g_free(self->cwd);
	self->cwd = g_strdup(cwd);
}

/**
 * erpc_client_get_recovery_timeout:
 * @self: a #ErpcClient
 *
 * Gets how long the client tries to get a lost connection back
 * (#ErpcClient:recovery-timeout).
 *
 * Returns: the recovery deadline in milliseconds
 *
 * Since: 0.1
 */
guint
erpc_client_get_recovery_timeout(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), 0);
	return self->recovery_timeout_ms;
}

/**
 * erpc_client_get_state:
 * @self: a #ErpcClient
 *
 * Gets the state of the connection (#ErpcClient:state).
 *
 * Returns: the current state
 *
 * Since: 0.1
 */
ErpcClientState
erpc_client_get_state(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), ERPC_CLIENT_STATE_DISCONNECTED);
	return self->state;
}

/**
 * erpc_client_get_url:
 * @self: a #ErpcClient
 *
 * Gets where the client connects to.
 *
 * Returns: the server URL, or `stdio` or `stream`
 *
 * Since: 0.1
 */
const gchar *
erpc_client_get_url(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), NULL);
	return self->url;
}

/**
 * erpc_client_get_session_id:
 * @self: a #ErpcClient
 *
 * Gets the session of the connection, which a reconnection resumes.
 *
 * Returns: (nullable): the session id the server assigned
 *
 * Since: 0.1
 */
const gchar *
erpc_client_get_session_id(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), NULL);
	return self->session_id;
}

/**
 * erpc_client_get_environment_info:
 * @self: a #ErpcClient
 *
 * Gets what the server said about itself in the handshake.
 *
 * Returns: (transfer none) (nullable): the `environmentInfo` of the last
 *   `initialize` result
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_get_environment_info(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), NULL);
	return self->environment_info;
}

void
_erpc_client_set_state(ErpcClient *self, ErpcClientState state)
{
	ErpcClientState old = self->state;

	if (old == state)
		return;
	g_debug(
	    "client %s: %s -> %s",
	    self->url,
	    g_enum_get_value(g_type_class_peek(ERPC_TYPE_CLIENT_STATE), (gint)old)->value_nick,
	    g_enum_get_value(g_type_class_peek(ERPC_TYPE_CLIENT_STATE), (gint)state)->value_nick);
	self->state = state;
	g_object_notify_by_pspec(G_OBJECT(self), erpc_client_props[PROP_STATE]);
	g_signal_emit(self, erpc_client_signals[SIGNAL_STATE_CHANGED], 0, old, state);
}

void
_erpc_client_emit_attempt(ErpcClient *self, ErpcClientAttemptOutcome outcome, const GError *error)
{
	guint64 elapsed_us = (guint64)(g_get_monotonic_time() - self->connect_started);

	if (!self->connect_observed)
		return;
	self->connect_observed = FALSE;
	g_signal_emit(self,
		      erpc_client_signals[SIGNAL_CONNECTION_ATTEMPT],
		      0,
		      elapsed_us,
		      outcome,
		      error);
}

void
_erpc_client_emit_ready(ErpcClient *self)
{
	self->established = TRUE;
	self->last_ready_time = g_get_monotonic_time();
	g_signal_emit(self, erpc_client_signals[SIGNAL_READY], 0, self->environment_info);
}

void
_erpc_client_emit_disconnected(ErpcClient *self, const GError *error)
{
	if (!self->established)
		return;
	self->established = FALSE;
	if (!self->quiet_disconnect)
		g_signal_emit(self, erpc_client_signals[SIGNAL_DISCONNECTED], 0, error);
}

/**
 * erpc_client_get_last_ready_time:
 * @self: a #ErpcClient
 *
 * Tells when the client last became ready: the last handshake the server
 * accepted, first connection or recovery (#ErpcClient::ready).
 *
 * Returns: its g_get_monotonic_time(), 0 if it never was ready
 *
 * Since: 0.2
 */
gint64
erpc_client_get_last_ready_time(ErpcClient *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT(self), 0);
	return self->last_ready_time;
}

void
_erpc_client_set_session(ErpcClient *self, const gchar *session_id, JsonObject *info)
{
	if (g_strcmp0(self->session_id, session_id) != 0) {
		g_free(self->session_id);
		self->session_id = g_strdup(session_id);
		g_object_notify_by_pspec(G_OBJECT(self), erpc_client_props[PROP_SESSION_ID]);
	}
	if (info != NULL) {
		g_clear_pointer(&self->environment_info, json_object_unref);
		self->environment_info = json_object_ref(info);
	}
}

void
_erpc_client_emit_notification(ErpcClient *self, const gchar *method, JsonNode *params)
{
	JsonObject *obj =
	    params != NULL && JSON_NODE_HOLDS_OBJECT(params) ? json_node_get_object(params) : NULL;

	if (obj != NULL && g_str_has_prefix(method, "process/")) {
		const gchar *process_id = NULL;
		if (erpc_json_require_string(obj, "processId", &process_id, NULL)) {
			ErpcClientProcess *process =
			    g_hash_table_lookup(self->processes, process_id);
			if (process != NULL)
				_erpc_client_process_notify(process, method, obj);
		}
	} else if (obj != NULL && g_strcmp0(method, "fs/missingChanged") == 0) {
		guint64 watch_id = 0;
		if (erpc_json_require_uint64(obj, "watchId", &watch_id, NULL))
			g_signal_emit(self,
				      erpc_client_signals[SIGNAL_MISSING_CHANGED],
				      0,
				      watch_id);
	}
	g_signal_emit(self,
		      erpc_client_signals[SIGNAL_NOTIFICATION],
		      g_quark_from_string(method),
		      method,
		      params);
}

static void
erpc_client_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	ErpcClient *self = ERPC_CLIENT(object);
	switch (prop_id) {
	case PROP_URL:
		g_value_set_string(value, self->url);
		break;
	case PROP_STATE:
		g_value_set_enum(value, self->state);
		break;
	case PROP_SESSION_ID:
		g_value_set_string(value, self->session_id);
		break;
	case PROP_CLIENT_NAME:
		g_value_set_string(value, self->client_name);
		break;
	case PROP_CONNECT_TIMEOUT:
		g_value_set_uint(value, self->connect_timeout_ms);
		break;
	case PROP_RECOVERY_TIMEOUT:
		g_value_set_uint(value, self->recovery_timeout_ms);
		break;
	case PROP_PROXY_RESOLVER:
		g_value_set_object(value, self->proxy_resolver);
		break;
	case PROP_TLS_DATABASE:
		g_value_set_object(value, self->tls_database);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_client_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	ErpcClient *self = ERPC_CLIENT(object);
	switch (prop_id) {
	case PROP_URL:
		g_free(self->url);
		self->url = g_value_dup_string(value);
		break;
	case PROP_CLIENT_NAME:
		g_free(self->client_name);
		self->client_name = g_value_dup_string(value);
		break;
	case PROP_CONNECT_TIMEOUT:
		self->connect_timeout_ms = g_value_get_uint(value);
		break;
	case PROP_RECOVERY_TIMEOUT:
		self->recovery_timeout_ms = g_value_get_uint(value);
		break;
	case PROP_PROXY_RESOLVER:
		g_set_object(&self->proxy_resolver, g_value_get_object(value));
		break;
	case PROP_TLS_DATABASE:
		g_set_object(&self->tls_database, g_value_get_object(value));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_client_dispose(GObject *object)
{
	ErpcClient *self = ERPC_CLIENT(object);
	erpc_client_close(self);
	G_OBJECT_CLASS(erpc_client_parent_class)->dispose(object);
}

static void
erpc_client_finalize(GObject *object)
{
	ErpcClient *self = ERPC_CLIENT(object);

	erpc_client_set_bearer_token(self, NULL);
	g_hash_table_unref(self->pending);
	g_hash_table_unref(self->processes);
	g_ptr_array_unref(self->live);
	g_ptr_array_unref(self->headers);
	g_strfreev(self->argv);
	g_strfreev(self->envp);
	g_free(self->cwd);
	g_clear_object(&self->stream);
	g_clear_object(&self->proxy_resolver);
	g_clear_object(&self->tls_database);
	g_clear_pointer(&self->environment_info, json_object_unref);
	g_free(self->session_id);
	g_free(self->client_name);
	g_free(self->url);
	g_main_context_unref(self->context);
	G_OBJECT_CLASS(erpc_client_parent_class)->finalize(object);
}

static void
erpc_client_init(ErpcClient *self)
{
	self->context = g_main_context_ref_thread_default();
	self->client_name = g_strdup("execrpc");
	self->headers = g_ptr_array_new_with_free_func(g_free);
	self->pending = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_queue_init(&self->order);
	self->processes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->live = g_ptr_array_new_with_free_func(g_object_unref);
	self->next_id = 1;
	self->connect_timeout_ms = ERPC_CLIENT_DEFAULT_CONNECT_TIMEOUT_MS;
	self->recovery_timeout_ms = ERPC_CLIENT_DEFAULT_RECOVERY_TIMEOUT_MS;
	self->initialize_timeout_ms = ERPC_CLIENT_DEFAULT_INITIALIZE_TIMEOUT_MS;
	self->keepalive_ms = ERPC_CLIENT_DEFAULT_KEEPALIVE_MS;
	self->observe_next_connect = TRUE;
	self->max_message_size = ERPC_CLIENT_MAX_MESSAGE_SIZE;
}

static void
erpc_client_class_init(ErpcClientClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

	object_class->get_property = erpc_client_get_property;
	object_class->set_property = erpc_client_set_property;
	object_class->dispose = erpc_client_dispose;
	object_class->finalize = erpc_client_finalize;

	/**
	 * ErpcClient:url:
	 *
	 * The server: a `ws://` or `wss://` URL, or `stdio` or `stream`.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_URL] = g_param_spec_string(
	    "url",
	    NULL,
	    NULL,
	    NULL,
	    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
	/**
	 * ErpcClient:state:
	 *
	 * The #ErpcClientState; every change is also #ErpcClient::state-changed.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_STATE] =
	    g_param_spec_enum("state",
			      NULL,
			      NULL,
			      ERPC_TYPE_CLIENT_STATE,
			      ERPC_CLIENT_STATE_DISCONNECTED,
			      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	/**
	 * ErpcClient:session-id:
	 *
	 * The session the server assigned, kept across recoveries.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_SESSION_ID] =
	    g_param_spec_string("session-id",
				NULL,
				NULL,
				NULL,
				G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	/**
	 * ErpcClient:client-name:
	 *
	 * The `clientName` of `initialize`.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_CLIENT_NAME] =
	    g_param_spec_string("client-name", NULL, NULL, "execrpc", rw);
	/**
	 * ErpcClient:connect-timeout:
	 *
	 * Milliseconds one connection attempt, handshake included, may take.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_CONNECT_TIMEOUT] =
	    g_param_spec_uint("connect-timeout",
			      NULL,
			      NULL,
			      1,
			      G_MAXUINT,
			      ERPC_CLIENT_DEFAULT_CONNECT_TIMEOUT_MS,
			      rw);
	/**
	 * ErpcClient:recovery-timeout:
	 *
	 * Milliseconds a lost connection may take to recover; 0 disables recovery.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_RECOVERY_TIMEOUT] =
	    g_param_spec_uint("recovery-timeout",
			      NULL,
			      NULL,
			      0,
			      G_MAXUINT,
			      ERPC_CLIENT_DEFAULT_RECOVERY_TIMEOUT_MS,
			      rw);
	/**
	 * ErpcClient:proxy-resolver:
	 *
	 * The #GProxyResolver of WebSocket connections, %NULL for the default.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_PROXY_RESOLVER] =
	    g_param_spec_object("proxy-resolver", NULL, NULL, G_TYPE_PROXY_RESOLVER, rw);
	/**
	 * ErpcClient:tls-database:
	 *
	 * The trust anchors of `wss://` connections, %NULL for the system's.
	 *
	 * Since: 0.1
	 */
	erpc_client_props[PROP_TLS_DATABASE] =
	    g_param_spec_object("tls-database", NULL, NULL, G_TYPE_TLS_DATABASE, rw);
	g_object_class_install_properties(object_class, PROP_LAST, erpc_client_props);

	/**
	 * ErpcClient::state-changed:
	 * @self: the client
	 * @old_state: the #ErpcClientState left
	 * @new_state: the #ErpcClientState entered
	 *
	 * Emitted on every state transition.
	 *
	 * Since: 0.1
	 */
	erpc_client_signals[SIGNAL_STATE_CHANGED] = g_signal_new("state-changed",
								 G_TYPE_FROM_CLASS(klass),
								 G_SIGNAL_RUN_LAST,
								 0,
								 NULL,
								 NULL,
								 NULL,
								 G_TYPE_NONE,
								 2,
								 ERPC_TYPE_CLIENT_STATE,
								 ERPC_TYPE_CLIENT_STATE);
	/**
	 * ErpcClient::notification:
	 * @self: the client
	 * @method: the notification, e.g. `process/output`; also the signal detail
	 * @params: (nullable): its params
	 *
	 * Emitted for every notification of the server, after process events
	 * went to their #ErpcClientProcess.
	 *
	 * Since: 0.1
	 */
	erpc_client_signals[SIGNAL_NOTIFICATION] =
	    g_signal_new("notification",
			 G_TYPE_FROM_CLASS(klass),
			 G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
			 0,
			 NULL,
			 NULL,
			 NULL,
			 G_TYPE_NONE,
			 2,
			 G_TYPE_STRING,
			 JSON_TYPE_NODE);
	/**
	 * ErpcClient::missing-changed:
	 * @self: the client
	 * @watch_id: the `watchId` of fs/watchMissing that fired
	 *
	 * Emitted for `fs/missingChanged`.
	 *
	 * Since: 0.1
	 */
	/**
	 * ErpcClient::connection-attempt:
	 * @self: the client
	 * @elapsed_us: how long the attempt took, in microseconds
	 * @outcome: the #ErpcClientAttemptOutcome
	 * @error: (nullable): why it failed
	 *
	 * Emitted when an attempt started by erpc_client_connect_async() ends:
	 * once per attempt, not for the recoveries that follow nor for a
	 * refresh, as Codex observes a client's initial connection.
	 *
	 * Since: 0.2
	 */
	erpc_client_signals[SIGNAL_CONNECTION_ATTEMPT] =
	    g_signal_new("connection-attempt",
			 G_TYPE_FROM_CLASS(klass),
			 G_SIGNAL_RUN_LAST,
			 0,
			 NULL,
			 NULL,
			 NULL,
			 G_TYPE_NONE,
			 3,
			 G_TYPE_UINT64,
			 ERPC_TYPE_CLIENT_ATTEMPT_OUTCOME,
			 G_TYPE_ERROR);
	/**
	 * ErpcClient::ready:
	 * @self: the client
	 * @environment_info: the EnvironmentInfo of the accepted `initialize`
	 *
	 * Emitted each time a handshake is accepted and the client becomes
	 * %ERPC_CLIENT_STATE_READY: after connecting, after each recovery and
	 * after a refresh. A handshake of a superseded attempt is never
	 * reported.
	 *
	 * Since: 0.2
	 */
	erpc_client_signals[SIGNAL_READY] = g_signal_new("ready",
							 G_TYPE_FROM_CLASS(klass),
							 G_SIGNAL_RUN_LAST,
							 0,
							 NULL,
							 NULL,
							 NULL,
							 G_TYPE_NONE,
							 1,
							 JSON_TYPE_OBJECT);
	/**
	 * ErpcClient::disconnected:
	 * @self: the client
	 * @error: why the session is over
	 *
	 * Emitted when a client that was ready loses its session for good:
	 * the connection cannot be recovered, or recovery gave up. Never
	 * during a recovery that succeeds, nor for erpc_client_close() or a
	 * refresh.
	 *
	 * Since: 0.2
	 */
	erpc_client_signals[SIGNAL_DISCONNECTED] = g_signal_new("disconnected",
								G_TYPE_FROM_CLASS(klass),
								G_SIGNAL_RUN_LAST,
								0,
								NULL,
								NULL,
								NULL,
								G_TYPE_NONE,
								1,
								G_TYPE_ERROR);
	erpc_client_signals[SIGNAL_MISSING_CHANGED] = g_signal_new("missing-changed",
								   G_TYPE_FROM_CLASS(klass),
								   G_SIGNAL_RUN_LAST,
								   0,
								   NULL,
								   NULL,
								   NULL,
								   G_TYPE_NONE,
								   1,
								   G_TYPE_UINT64);
}
