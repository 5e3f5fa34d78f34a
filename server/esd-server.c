/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-context-private.h"
#include "erpc-listener-private.h"
#include "erpc-registry-private.h"
#include "erpc-sandbox-private.h"
#include "esd-dispatcher.h"
#include "esd-environment.h"
#include "esd-expiry-queue.h"
#include "esd-log.h"
#include "esd-process-methods.h"
#include "esd-process.h"
#include "esd-sandbox-host.h"
#include "esd-server.h"
#include "esd-session.h"

/*
 * The transport-neutral core: it owns the registry and the plugins, turns
 * every transport a listener accepts into a dispatcher, keeps the sessions,
 * and implements the handshake methods. Everything else comes from plugins.
 */
struct _EsdServer {
	GObject parent_instance;
	ErpcRegistry *registry;
	EsdPluginLoader *loader;
	GPtrArray *listeners;	    /* of ErpcListener */
	GHashTable *dispatchers;    /* EsdDispatcher → EsdServerConnectionInfo */
	GHashTable *peer_counts;    /* capped address → connections from it */
	GHashTable *sessions;	    /* id → EsdSession */
	EsdExpiryQueue *expiries;   /* detached sessions */
	gchar *environment_info;    /* serialized EnvironmentInfo */
	GVariant *listener_options; /* a{sv} handed to every listener; may hold secrets */
	guint concurrent_requests;
	guint64 max_message_size;
	guint session_grace;
	guint process_retention;
	guint64 max_retained_output;
	guint listeners_active;
	gboolean shutting_down;
	gboolean plugins_loaded;
	EsdLimits limits;
};

G_DEFINE_TYPE(EsdServer, esd_server, G_TYPE_OBJECT)

/* what the server keeps of each connection it serves */
typedef struct {
	EsdServerConnectionFlags flags;
	gchar *capped_host; /* counted against --max-connections-per-peer, or NULL */
} EsdServerConnectionInfo;

static void
esd_server_connection_info_free(EsdServerConnectionInfo *info)
{
	g_free(info->capped_host);
	g_free(info);
}

enum {
	PROP_0,
	PROP_CONCURRENT_REQUESTS,
	PROP_MAX_MESSAGE_SIZE,
	PROP_SESSION_GRACE,
	PROP_PROCESS_RETENTION,
	PROP_MAX_RETAINED_OUTPUT,
	PROP_LAST
};
enum { SIGNAL_FINISHED, SIGNAL_CHANGED, SIGNAL_LAST };

static GParamSpec *esd_server_props[PROP_LAST] = {NULL};
static guint esd_server_signals[SIGNAL_LAST] = {0};

ErpcRegistry *
esd_server_get_registry(EsdServer *self)
{
	return self->registry;
}

EsdPluginLoader *
esd_server_get_loader(EsdServer *self)
{
	return self->loader;
}

static EsdDispatcher *
esd_server_call_dispatcher(ErpcCall *call)
{
	return ESD_DISPATCHER(erpc_call_get_context(call));
}

static void
esd_server_expire_cb(gpointer item, gpointer user_data)
{
	EsdServer *self = ESD_SERVER(user_data);
	EsdSession *session = ESD_SESSION(item);
	g_autofree gchar *id = g_strdup(esd_session_get_id(session));

	esd_log(G_LOG_LEVEL_INFO,
		&(EsdLogSubject){.session = id},
		"session %s expired; its processes are terminated",
		id);
	esd_session_terminate_all(session);
	g_hash_table_remove(self->sessions, id);
	g_signal_emit(self, esd_server_signals[SIGNAL_CHANGED], 0);
}

/* a connection that may not leave its session behind: the processes end now */
static void
esd_server_session_ended(EsdServer *self, EsdSession *session)
{
	g_autofree gchar *id = g_strdup(esd_session_get_id(session));

	esd_log(G_LOG_LEVEL_INFO,
		&(EsdLogSubject){.session = id},
		"session %s ended with its connection; its processes are terminated",
		id);
	esd_session_detach(session);
	esd_session_terminate_all(session);
	g_hash_table_remove(self->sessions, id);
}

static void
esd_server_session_detached(EsdServer *self, EsdSession *session)
{
	esd_session_detach(session);
	if (self->shutting_down)
		return;
	esd_expiry_queue_add(self->expiries, session);
	g_debug("session %s detached; expires in %u s",
		esd_session_get_id(session),
		self->session_grace);
}

static EsdSession *
esd_server_resume_session(EsdServer *self, const gchar *id, GError **error)
{
	EsdSession *session = g_hash_table_lookup(self->sessions, id);

	if (session == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "unknown session id %s",
			    id);
		return NULL;
	}
	if (esd_session_is_attached(session)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_SESSION_ATTACHED,
			    "session %s is already attached to another connection",
			    id);
		return NULL;
	}
	esd_expiry_queue_remove(self->expiries, session);
	return g_object_ref(session);
}

static void
esd_server_initialize(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdServer *self = ESD_SERVER(user_data);
	EsdDispatcher *dispatcher = esd_server_call_dispatcher(call);
	const gchar *client_name = NULL;
	const gchar *resume_id = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdSession) session = NULL;
	g_autoptr(GString) result = NULL;
	ErpcJsonWriter writer;

	if (!erpc_json_require_string(params, "clientName", &client_name, &error) ||
	    !erpc_json_get_string(params, "resumeSessionId", NULL, &resume_id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (esd_dispatcher_get_state(dispatcher) != ESD_DISPATCHER_STATE_NEW) {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "initialize may only be sent once per connection");
		erpc_call_return_error(call, error);
		return;
	}
	if (resume_id != NULL) {
		session = esd_server_resume_session(self, resume_id, &error);
		if (session == NULL) {
			erpc_call_return_error(call, error);
			return;
		}
	} else {
		session = esd_session_new(self->process_retention, self->max_retained_output);
		esd_session_set_max_processes(session, self->limits.max_processes);
		g_hash_table_insert(self->sessions,
				    g_strdup(esd_session_get_id(session)),
				    g_object_ref(session));
	}
	esd_session_attach(session, erpc_call_get_connection(call));
	esd_dispatcher_set_session(dispatcher, session);
	esd_log(G_LOG_LEVEL_INFO,
		&(EsdLogSubject){
		    .connection = erpc_connection_get_id(erpc_call_get_connection(call)),
		    .peer = erpc_connection_get_peer(erpc_call_get_connection(call)),
		    .session = esd_session_get_id(session),
		},
		"connection %" G_GUINT64_FORMAT ": %s session %s",
		erpc_connection_get_id(erpc_call_get_connection(call)),
		resume_id != NULL ? "resumed" : "started",
		esd_session_get_id(session));

	result = g_string_new(NULL);
	erpc_json_writer_init(&writer, result);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "sessionId", esd_session_get_id(session));
	erpc_json_writer_member(&writer, "environmentInfo");
	erpc_json_writer_raw(&writer, self->environment_info, -1);
	erpc_json_writer_end_object(&writer);
	erpc_call_return_raw(call, result->str);
}

static void
esd_server_environment_info(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdServer *self = ESD_SERVER(user_data);
	erpc_call_return_raw(call, self->environment_info);
}

static void
esd_server_environment_status(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	erpc_call_return_raw(call, "{\"status\":\"ready\"}");
}

static gboolean
esd_server_register_core(EsdServer *self, GError **error)
{
	const ErpcMethodInfo methods[] = {
	    {.name = "initialize",
	     .family = "initialize",
	     .params_type = "InitializeParams",
	     .flags = ERPC_METHOD_FLAG_PRE_INIT,
	     .func = esd_server_initialize},
	    {.name = "environment/info",
	     .family = "environment info",
	     .func = esd_server_environment_info},
	    {.name = "environment/status",
	     .family = "environment status",
	     .func = esd_server_environment_status},
	};

	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (!erpc_registry_add_method(self->registry, &methods[i], self, NULL, error))
			return FALSE;
	}
	return esd_process_methods_register(self->registry, error);
}

/*
 * registers the core methods and loads the plugins, whose options the
 * daemon parses before esd_server_setup()
 */
gboolean
esd_server_load_plugins(EsdServer *self, GError **error)
{
	if (self->plugins_loaded)
		return TRUE;
	if (!esd_server_register_core(self, error))
		return FALSE;
	esd_plugin_loader_load_all(self->loader);
	self->plugins_loaded = TRUE;
	return TRUE;
}

/* loads the plugins unless that is done, and starts them: a plugin that cannot start fails */
gboolean
esd_server_setup(EsdServer *self, GError **error)
{
	if (!esd_server_load_plugins(self, error))
		return FALSE;
	self->expiries =
	    esd_expiry_queue_new(self->session_grace * 1000, esd_server_expire_cb, self);
	if (!esd_plugin_loader_startup(self->loader, error))
		return FALSE;
	self->environment_info = esd_environment_build_info(self->registry);
	return TRUE;
}

static void
esd_server_dispatcher_closed_cb(EsdDispatcher *dispatcher, EsdServer *self)
{
	ErpcConnection *connection = esd_dispatcher_get_connection(dispatcher);
	EsdSession *session = esd_dispatcher_get_session(dispatcher);
	EsdServerConnectionInfo *info = g_hash_table_lookup(self->dispatchers, dispatcher);

	esd_log(G_LOG_LEVEL_INFO,
		&(EsdLogSubject){
		    .connection = erpc_connection_get_id(connection),
		    .peer = erpc_connection_get_peer(connection),
		    .session = session != NULL ? esd_session_get_id(session) : NULL,
		},
		"connection %" G_GUINT64_FORMAT " (%s) closed",
		erpc_connection_get_id(connection),
		erpc_connection_get_peer(connection));
	if (session != NULL && esd_session_get_connection(session) == connection) {
		if (info->flags & ESD_SERVER_CONNECTION_FLAG_END_SESSION)
			esd_server_session_ended(self, session);
		else
			esd_server_session_detached(self, session);
	}
	if (info->capped_host != NULL) {
		guint same =
		    GPOINTER_TO_UINT(g_hash_table_lookup(self->peer_counts, info->capped_host));
		if (same > 1)
			g_hash_table_insert(self->peer_counts,
					    g_strdup(info->capped_host),
					    GUINT_TO_POINTER(same - 1));
		else
			g_hash_table_remove(self->peer_counts, info->capped_host);
	}
	esd_plugin_loader_connection_closed(self->loader, connection);
	g_hash_table_remove(self->dispatchers, dispatcher);
	g_signal_emit(self, esd_server_signals[SIGNAL_CHANGED], 0);
}

/* the address part of a network peer ("websocket 10.0.0.1:5000" → "10.0.0.1"), or NULL */
static gchar *
esd_server_peer_host(ErpcTransport *transport)
{
	const gchar *peer = erpc_transport_get_peer(transport);
	const gchar *space = peer != NULL ? strchr(peer, ' ') : NULL;
	const gchar *colon;

	if (space == NULL)
		return NULL;
	colon = strrchr(space + 1, ':');
	if (colon == NULL || colon == space + 1)
		return NULL;
	if (space[1] == '[' && colon[-1] == ']')
		return g_strndup(space + 2, (gsize)(colon - space - 3));
	return g_strndup(space + 1, (gsize)(colon - space - 1));
}

/*
 * A loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z) is shared by every
 * client on the host, and by every client behind a local proxy: a cap per
 * address would limit the host as a whole, which --max-connections does.
 */
static gboolean
esd_server_host_is_loopback(const gchar *host)
{
	static const guint8 v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	g_autoptr(GInetAddress) address = g_inet_address_new_from_string(host);
	const guint8 *bytes;

	if (address == NULL)
		return FALSE;
	if (g_inet_address_get_is_loopback(address))
		return TRUE;
	if (g_inet_address_get_family(address) != G_SOCKET_FAMILY_IPV6)
		return FALSE;
	bytes = g_inet_address_to_bytes(address);
	return memcmp(bytes, v4_mapped, sizeof(v4_mapped)) == 0 && bytes[12] == 127;
}

/*
 * whether one more connection from @transport's peer fits the limits; *capped_host
 * is the address it counts against --max-connections-per-peer, NULL for a local
 * socket (no address) or a loopback one
 */
static gboolean
esd_server_admit(EsdServer *self, ErpcTransport *transport, gchar **capped_host)
{
	g_autofree gchar *host = esd_server_peer_host(transport);
	guint same;

	if (self->limits.max_connections > 0 &&
	    g_hash_table_size(self->dispatchers) >= self->limits.max_connections) {
		esd_log(G_LOG_LEVEL_MESSAGE,
			&(EsdLogSubject){.peer = erpc_transport_get_peer(transport)},
			"refusing a connection from %s: %u connections is the limit",
			erpc_transport_get_peer(transport),
			self->limits.max_connections);
		return FALSE;
	}
	if (host == NULL || esd_server_host_is_loopback(host))
		return TRUE;
	same = GPOINTER_TO_UINT(g_hash_table_lookup(self->peer_counts, host));
	if (self->limits.max_connections_per_peer > 0 &&
	    same >= self->limits.max_connections_per_peer) {
		esd_log(G_LOG_LEVEL_MESSAGE,
			&(EsdLogSubject){.peer = erpc_transport_get_peer(transport)},
			"refusing a connection from %s: %u connections from %s is the limit",
			erpc_transport_get_peer(transport),
			self->limits.max_connections_per_peer,
			host);
		return FALSE;
	}
	*capped_host = g_steal_pointer(&host);
	return TRUE;
}

/**
 * esd_server_add_transport_full:
 * @flags: how the connection ends
 *
 * Serves one connected transport, from a listener or handed over directly.
 *
 * Returns: (transfer none) (nullable): the connection, owned by the server
 *   until it closes, or %NULL when it was refused and closed
 */
ErpcConnection *
esd_server_add_transport_full(EsdServer *self,
			      ErpcTransport *transport,
			      EsdServerConnectionFlags flags)
{
	g_autoptr(ErpcConnection) connection = NULL;
	g_autofree gchar *host = NULL;
	g_autofree gchar *capped_host = NULL;
	EsdServerConnectionInfo *info;
	EsdDispatcher *dispatcher;

	if (self->shutting_down || !esd_server_admit(self, transport, &capped_host)) {
		erpc_transport_close(transport, TRUE);
		return NULL;
	}
	connection =
	    erpc_connection_new(transport, self->max_message_size, self->limits.max_json_depth);
	erpc_connection_set_max_queued_bytes(connection, self->limits.max_queued_bytes);
	dispatcher = esd_dispatcher_new(connection, self->registry, self->concurrent_requests);
	/* a peer that connected over the network must not hold a slot without a handshake */
	host = esd_server_peer_host(transport);
	esd_dispatcher_set_limits(dispatcher,
				  host != NULL ? self->limits.handshake_timeout : 0,
				  self->limits.max_pending_requests);
	g_signal_connect(dispatcher, "closed", G_CALLBACK(esd_server_dispatcher_closed_cb), self);
	info = g_new0(EsdServerConnectionInfo, 1);
	info->flags = flags;
	if (capped_host != NULL) {
		guint same = GPOINTER_TO_UINT(g_hash_table_lookup(self->peer_counts, capped_host));
		g_hash_table_insert(self->peer_counts,
				    g_strdup(capped_host),
				    GUINT_TO_POINTER(same + 1));
		info->capped_host = g_steal_pointer(&capped_host);
	}
	g_hash_table_insert(self->dispatchers, dispatcher, info);
	esd_log(G_LOG_LEVEL_INFO,
		&(EsdLogSubject){
		    .connection = erpc_connection_get_id(connection),
		    .peer = erpc_transport_get_peer(transport),
		},
		"connection %" G_GUINT64_FORMAT " from %s",
		erpc_connection_get_id(connection),
		erpc_transport_get_peer(transport));
	g_signal_emit(self, esd_server_signals[SIGNAL_CHANGED], 0);
	return connection;
}

/* serves one connected transport, from a listener or handed over directly */
void
esd_server_add_transport(EsdServer *self, ErpcTransport *transport)
{
	esd_server_add_transport_full(self, transport, ESD_SERVER_CONNECTION_FLAG_NONE);
}

/**
 * esd_server_is_idle:
 *
 * Returns: %TRUE with no connection, no session (attached or resumable) and
 *   no command still running; #EsdServer::changed tells when to ask again
 */
gboolean
esd_server_is_idle(EsdServer *self)
{
	g_return_val_if_fail(ESD_IS_SERVER(self), FALSE);
	return g_hash_table_size(self->dispatchers) == 0 &&
	       g_hash_table_size(self->sessions) == 0 && esd_process_get_n_running() == 0;
}

static void
esd_server_new_transport_cb(ErpcListener *listener, ErpcTransport *transport, EsdServer *self)
{
	esd_server_add_transport(self, transport);
}

static void
esd_server_listener_finished_cb(ErpcListener *listener, EsdServer *self)
{
	if (self->listeners_active > 0)
		self->listeners_active--;
	if (self->listeners_active == 0)
		g_signal_emit(self, esd_server_signals[SIGNAL_FINISHED], 0);
}

/* `ws://…` → ws, `fd:3` → fd, a bare word (`stdio`, `systemd`) is its own scheme */
static gchar *
esd_server_scheme_for_uri(const gchar *uri)
{
	const gchar *colon = strchr(uri, ':');
	gsize len = colon != NULL ? (gsize)(colon - uri) : strlen(uri);

	if (len == 0 || !g_ascii_isalpha(uri[0]))
		return NULL;
	for (gsize i = 1; i < len; i++) {
		if (!g_ascii_isalnum(uri[i]) && uri[i] != '+' && uri[i] != '-' && uri[i] != '.')
			return NULL;
	}
	return g_ascii_strdown(uri, (gssize)len);
}

/**
 * esd_server_load_transports:
 * @uris: the `--listen` URLs
 *
 * Loads the deferred plugins that provide the transports of @uris, before
 * esd_server_setup() starts the plugins; an unknown scheme is left for
 * esd_server_listen() to report.
 */
void
esd_server_load_transports(EsdServer *self, const gchar *const *uris)
{
	for (guint i = 0; uris != NULL && uris[i] != NULL; i++) {
		g_autofree gchar *scheme = esd_server_scheme_for_uri(uris[i]);

		if (scheme != NULL && erpc_registry_lookup_extension(self->registry,
								     ERPC_EXTENSION_POINT_TRANSPORT,
								     scheme) == G_TYPE_INVALID)
			esd_plugin_loader_load_deferred_for_scheme(self->loader, scheme);
	}
}

/**
 * esd_server_set_listener_options:
 * @self: a #EsdServer
 * @options: (nullable): a `a{sv}` dictionary, e.g. the WebSocket auth settings
 *
 * Sets what every listener created afterwards gets as its
 * #ErpcListener:options.
 */
void
esd_server_set_listener_options(EsdServer *self, GVariant *options)
{
	g_return_if_fail(ESD_IS_SERVER(self));
	g_clear_pointer(&self->listener_options, g_variant_unref);
	if (options != NULL)
		self->listener_options = g_variant_ref_sink(options);
}

/* returns the listener, which owns the bound address */
ErpcListener *
esd_server_listen(EsdServer *self, const gchar *uri, GError **error)
{
	g_autofree gchar *scheme = esd_server_scheme_for_uri(uri);
	g_autoptr(ErpcListener) listener = NULL;
	GType gtype;

	if (scheme == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unsupported --listen URL %s; expected ws://IP:PORT, stdio, fd:N or "
			    "systemd",
			    uri);
		return NULL;
	}
	gtype =
	    erpc_registry_lookup_extension(self->registry, ERPC_EXTENSION_POINT_TRANSPORT, scheme);
	if (gtype == G_TYPE_INVALID) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_SUPPORTED,
			    "unsupported --listen URL %s: no transport plugin provides %s",
			    uri,
			    scheme);
		return NULL;
	}
	listener = g_object_new(gtype,
				"max-message-size",
				self->max_message_size,
				"options",
				self->listener_options,
				NULL);
	g_signal_connect(listener, "new-transport", G_CALLBACK(esd_server_new_transport_cb), self);
	g_signal_connect(listener, "finished", G_CALLBACK(esd_server_listener_finished_cb), self);
	if (!erpc_listener_listen(listener, uri, error))
		return NULL;
	self->listeners_active++;
	g_ptr_array_add(self->listeners, listener);
	return g_steal_pointer(&listener);
}

/* stops listening, closes every connection and tells the plugins */
void
esd_server_shutdown(EsdServer *self)
{
	g_autoptr(GList) dispatchers = NULL;

	if (self->shutting_down)
		return;
	self->shutting_down = TRUE;
	for (guint i = 0; i < self->listeners->len; i++) {
		ErpcListener *listener = g_ptr_array_index(self->listeners, i);
		g_signal_handlers_disconnect_by_data(listener, self);
		erpc_listener_stop(listener);
	}
	dispatchers = g_hash_table_get_keys(self->dispatchers);
	for (GList *l = dispatchers; l != NULL; l = l->next)
		erpc_connection_close(esd_dispatcher_get_connection(l->data), FALSE);
	if (self->expiries != NULL)
		esd_expiry_queue_clear(self->expiries);
	/* connections may still hold their sessions: end the processes now */
	{
		GHashTableIter iter;
		gpointer session;
		g_hash_table_iter_init(&iter, self->sessions);
		while (g_hash_table_iter_next(&iter, NULL, &session))
			esd_session_terminate_all(session);
	}
	g_hash_table_remove_all(self->sessions);
	esd_plugin_loader_shutdown(self->loader);
}

static void
esd_server_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	EsdServer *self = ESD_SERVER(object);
	switch (prop_id) {
	case PROP_CONCURRENT_REQUESTS:
		g_value_set_uint(value, self->concurrent_requests);
		break;
	case PROP_MAX_MESSAGE_SIZE:
		g_value_set_uint64(value, self->max_message_size);
		break;
	case PROP_SESSION_GRACE:
		g_value_set_uint(value, self->session_grace);
		break;
	case PROP_PROCESS_RETENTION:
		g_value_set_uint(value, self->process_retention);
		break;
	case PROP_MAX_RETAINED_OUTPUT:
		g_value_set_uint64(value, self->max_retained_output);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
esd_server_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	EsdServer *self = ESD_SERVER(object);
	switch (prop_id) {
	case PROP_CONCURRENT_REQUESTS:
		self->concurrent_requests = g_value_get_uint(value);
		break;
	case PROP_MAX_MESSAGE_SIZE:
		self->max_message_size = g_value_get_uint64(value);
		break;
	case PROP_SESSION_GRACE:
		self->session_grace = g_value_get_uint(value);
		break;
	case PROP_PROCESS_RETENTION:
		self->process_retention = g_value_get_uint(value);
		break;
	case PROP_MAX_RETAINED_OUTPUT:
		self->max_retained_output = g_value_get_uint64(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
esd_server_dispose(GObject *object)
{
	EsdServer *self = ESD_SERVER(object);

	esd_server_shutdown(self);
	g_clear_pointer(&self->dispatchers, g_hash_table_unref);
	g_clear_pointer(&self->peer_counts, g_hash_table_unref);
	g_clear_pointer(&self->listeners, g_ptr_array_unref);
	g_clear_object(&self->expiries);
	g_clear_pointer(&self->sessions, g_hash_table_unref);
	g_clear_object(&self->loader);
	g_clear_object(&self->registry);
	G_OBJECT_CLASS(esd_server_parent_class)->dispose(object);
}

static void
esd_server_finalize(GObject *object)
{
	EsdServer *self = ESD_SERVER(object);
	g_free(self->environment_info);
	g_clear_pointer(&self->listener_options, g_variant_unref);
	G_OBJECT_CLASS(esd_server_parent_class)->finalize(object);
}

static void
esd_server_init(EsdServer *self)
{
	g_autoptr(ErpcContext) context = erpc_context_new();
	g_autoptr(ErpcSandbox) sandbox = esd_sandbox_host_new();

	self->registry = erpc_registry_new();
	/* the host services every plugin reaches through its registry */
	erpc_context_set_sandbox(context, sandbox);
	erpc_registry_set_context(self->registry, context);
	self->loader = esd_plugin_loader_new(self->registry);
	self->listeners = g_ptr_array_new_with_free_func(g_object_unref);
	self->dispatchers = g_hash_table_new_full(g_direct_hash,
						  g_direct_equal,
						  g_object_unref,
						  (GDestroyNotify)esd_server_connection_info_free);
	self->peer_counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->sessions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
	self->limits = (EsdLimits)ESD_LIMITS_DEFAULT;
}

/**
 * esd_server_set_limits:
 * @limits: what one client may take; applies to connections made from now on
 */
void
esd_server_set_limits(EsdServer *self, const EsdLimits *limits)
{
	g_return_if_fail(ESD_IS_SERVER(self));
	self->limits = *limits;
}

static void
esd_server_class_init(EsdServerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->get_property = esd_server_get_property;
	object_class->set_property = esd_server_set_property;
	object_class->dispose = esd_server_dispose;
	object_class->finalize = esd_server_finalize;

	esd_server_props[PROP_CONCURRENT_REQUESTS] =
	    g_param_spec_uint("concurrent-requests",
			      NULL,
			      NULL,
			      1,
			      G_MAXUINT,
			      1,
			      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
	/* large enough for a 50 MB file written in one fs/writeFile */
	esd_server_props[PROP_MAX_MESSAGE_SIZE] =
	    g_param_spec_uint64("max-message-size",
				NULL,
				NULL,
				1024,
				G_MAXSIZE,
				128 * 1024 * 1024,
				G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
	/* the reference keeps detached sessions for about 80 s */
	esd_server_props[PROP_SESSION_GRACE] =
	    g_param_spec_uint("session-grace",
			      NULL,
			      NULL,
			      1,
			      G_MAXUINT,
			      80,
			      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
	/* the reference keeps closed processes readable for about 80 s */
	esd_server_props[PROP_PROCESS_RETENTION] =
	    g_param_spec_uint("process-retention",
			      NULL,
			      NULL,
			      1,
			      G_MAXUINT,
			      80,
			      G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
	/* newest output kept per process for process/read, as the reference */
	esd_server_props[PROP_MAX_RETAINED_OUTPUT] =
	    g_param_spec_uint64("max-retained-output",
				NULL,
				NULL,
				1,
				G_MAXSIZE,
				1024 * 1024,
				G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, PROP_LAST, esd_server_props);

	esd_server_signals[SIGNAL_FINISHED] = g_signal_new("finished",
							   G_TYPE_FROM_CLASS(klass),
							   G_SIGNAL_RUN_LAST,
							   0,
							   NULL,
							   NULL,
							   NULL,
							   G_TYPE_NONE,
							   0);
	/* a connection came or went, or a session ended: esd_server_is_idle() may have changed */
	esd_server_signals[SIGNAL_CHANGED] = g_signal_new("changed",
							  G_TYPE_FROM_CLASS(klass),
							  G_SIGNAL_RUN_LAST,
							  0,
							  NULL,
							  NULL,
							  NULL,
							  G_TYPE_NONE,
							  0);
}

EsdServer *
esd_server_new(void)
{
	return g_object_new(ESD_TYPE_SERVER, NULL);
}
