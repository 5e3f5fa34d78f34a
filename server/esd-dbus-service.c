/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <gio/gunixfdlist.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "erpc-listener-private.h"
#include "esd-dbus-caller.h"
#include "esd-dbus-generated.h"
#include "esd-dbus-service.h"
#include "esd-environment.h"

/*
 * `--dbus`: the daemon on the session bus, started by D-Bus activation (or
 * by systemd for it). OpenConnection serves one end of a socketpair through
 * the accepted-socket transport and hands the caller the other end. Each such
 * connection belongs to the caller's unique bus name: it closes when the
 * caller leaves the bus, and its session ends with it, so the caller's
 * commands never outlive the caller. With no connection, no command and no
 * resumable session left for --idle-timeout seconds, the daemon exits and
 * the bus starts it again on the next call.
 */

#define PROTOCOL_LOG_DOMAIN "execserverd-protocol"

/* longest client-name kept for the logs */
#define ESD_DBUS_CLIENT_NAME_MAX 256
/* a shortage that starts within this long of the last warning is not warned of */
#define ESD_DBUS_WARN_INTERVAL_US (60 * G_USEC_PER_SEC)

struct _EsdDBusService {
	GObject parent_instance;
	EsdServer *server;
	EsdDBusExecServer1 *skeleton;
	GDBusConnection *bus;
	GHashTable *clients; /* ErpcConnection → EsdDBusClient */
	guint owner_id;
	gboolean name_acquired;
	guint idle_timeout; /* seconds; 0: stay */
	guint idle_id;
	guint pending; /* OpenConnection calls waiting for the caller's credentials */
	gboolean allow_sandboxed;

	/* the last OpenConnection failed for want of descriptors; when that was last warned of */
	gboolean short_of_fds;
	gint64 last_fds_warning;
};

G_DEFINE_TYPE(EsdDBusService, esd_dbus_service, G_TYPE_OBJECT)

enum { SIGNAL_QUIT, SIGNAL_LAST };
static guint esd_dbus_service_signals[SIGNAL_LAST] = {0};

/* one connection opened over D-Bus, tied to the caller that asked for it */
typedef struct {
	EsdDBusService *service;
	ErpcConnection *connection;
	gchar *caller; /* unique bus name */
	guint watch_id;
} EsdDBusClient;

/* one OpenConnection call in flight */
typedef struct {
	EsdDBusService *service;
	GDBusMethodInvocation *invocation;
	gchar *client_name;
	gint64 called_at; /* esd_dbus_caller_now() */
} EsdDBusRequest;

static void
esd_dbus_client_free(EsdDBusClient *client)
{
	if (client->watch_id != 0)
		g_bus_unwatch_name(client->watch_id);
	g_signal_handlers_disconnect_by_data(client->connection, client);
	g_object_unref(client->connection);
	g_free(client->caller);
	g_free(client);
}

static void
esd_dbus_request_free(EsdDBusRequest *request)
{
	g_object_unref(request->service);
	g_object_unref(request->invocation);
	g_free(request->client_name);
	g_free(request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdDBusRequest, esd_dbus_request_free)

static void
esd_dbus_service_quit(EsdDBusService *self, gint exit_code)
{
	g_signal_emit(self, esd_dbus_service_signals[SIGNAL_QUIT], 0, exit_code);
}

/* --- idle exit --------------------------------------------------------- */

static gboolean
esd_dbus_service_is_busy(EsdDBusService *self)
{
	return self->pending > 0 || !esd_server_is_idle(self->server);
}

static gboolean
esd_dbus_service_idle_cb(gpointer user_data)
{
	EsdDBusService *self = ESD_DBUS_SERVICE(user_data);

	self->idle_id = 0;
	if (!esd_dbus_service_is_busy(self)) {
		g_info("idle for %u s, exiting", self->idle_timeout);
		esd_dbus_service_quit(self, EXIT_SUCCESS);
		return G_SOURCE_REMOVE;
	}
	/* only commands of ended sessions are left, being killed: no signal tells when */
	self->idle_id = g_timeout_add_seconds(1, esd_dbus_service_idle_cb, self);
	return G_SOURCE_REMOVE;
}

static void
esd_dbus_service_update_idle(EsdDBusService *self)
{
	if (self->idle_timeout == 0 || !self->name_acquired)
		return;
	if (esd_dbus_service_is_busy(self)) {
		g_clear_handle_id(&self->idle_id, g_source_remove);
		return;
	}
	if (self->idle_id == 0)
		self->idle_id =
		    g_timeout_add_seconds(self->idle_timeout, esd_dbus_service_idle_cb, self);
}

static void
esd_dbus_service_server_changed_cb(EsdServer *server, EsdDBusService *self)
{
	esd_dbus_service_update_idle(self);
}

/* --- connections and their callers ------------------------------------- */

static void
esd_dbus_service_connection_closed_cb(ErpcConnection *connection, EsdDBusClient *client)
{
	g_hash_table_remove(client->service->clients, connection);
}

static void
esd_dbus_service_caller_vanished_cb(GDBusConnection *bus, const gchar *name, gpointer user_data)
{
	EsdDBusClient *client = user_data;

	g_info("D-Bus caller %s left the bus: closing connection %" G_GUINT64_FORMAT,
	       name,
	       erpc_connection_get_id(client->connection));
	/* frees @client through the closed handler */
	erpc_connection_close(client->connection, TRUE);
}

static void
esd_dbus_service_track(EsdDBusService *self, ErpcConnection *connection, const gchar *caller)
{
	EsdDBusClient *client = g_new0(EsdDBusClient, 1);

	client->service = self;
	client->connection = g_object_ref(connection);
	client->caller = g_strdup(caller);
	g_signal_connect(connection,
			 "closed",
			 G_CALLBACK(esd_dbus_service_connection_closed_cb),
			 client);
	g_hash_table_insert(self->clients, connection, client);
	/* a caller that already left is reported at once */
	client->watch_id = g_bus_watch_name_on_connection(self->bus,
							  caller,
							  G_BUS_NAME_WATCHER_FLAGS_NONE,
							  NULL,
							  esd_dbus_service_caller_vanished_cb,
							  client,
							  NULL);
}

static void
esd_dbus_service_take_transport_cb(ErpcListener *listener,
				   ErpcTransport *transport,
				   gpointer user_data)
{
	ErpcTransport **result = user_data;
	if (*result == NULL)
		*result = g_object_ref(transport);
	else
		erpc_transport_close(transport, TRUE);
}

/*
 * serves @fd, taken in all cases, through the `fd` transport of the
 * accepted-socket plugin, as `--listen fd:N` would, but not as a listener:
 * its end is no reason for the daemon to exit, and its session ends with it
 */
static ErpcConnection *
esd_dbus_service_serve_fd(EsdDBusService *self, gint fd, GError **error)
{
	g_autofree gchar *uri = g_strdup_printf("fd:%d", fd);
	g_autoptr(ErpcListener) listener = NULL;
	g_autoptr(ErpcTransport) transport = NULL;
	ErpcConnection *connection;
	guint64 max_message_size = 0;
	GType gtype;

	/* the plugin of fd: is opened on the first peer (it has a manifest) */
	esd_server_load_transports(self->server, (const gchar *const[]){uri, NULL});
	gtype = erpc_registry_lookup_extension(esd_server_get_registry(self->server),
					       ERPC_EXTENSION_POINT_TRANSPORT,
					       "fd");
	if (gtype == G_TYPE_INVALID) {
		close(fd);
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_NOT_SUPPORTED,
		    "no transport plugin provides fd (accepted-socket is not loaded)");
		return NULL;
	}
	g_object_get(self->server, "max-message-size", &max_message_size, NULL);
	listener = g_object_new(gtype, "max-message-size", max_message_size, NULL);
	g_signal_connect(listener,
			 "new-transport",
			 G_CALLBACK(esd_dbus_service_take_transport_cb),
			 &transport);
	/* the listener leaves @fd alone when it fails */
	if (!erpc_listener_listen(listener, uri, error)) {
		close(fd);
		return NULL;
	}
	g_signal_handlers_disconnect_by_data(listener, &transport);
	erpc_listener_stop(listener);
	if (transport == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "fd %d is not a connected socket",
			    fd);
		return NULL;
	}
	connection = esd_server_add_transport_full(self->server,
						   transport,
						   ESD_SERVER_CONNECTION_FLAG_END_SESSION);
	if (connection == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_BUSY,
				    "refused: too many connections, or the daemon is stopping");
		return NULL;
	}
	return connection;
}

/*
 * out of descriptors (or memory): each caller gets its error, the log one
 * warning per run of such failures, as the listeners do for accept()
 */
static void
esd_dbus_service_short_of_fds(EsdDBusService *self, const gchar *reason)
{
	gint64 now = g_get_monotonic_time();

	if (self->short_of_fds)
		return;
	self->short_of_fds = TRUE;
	if (self->last_fds_warning != 0 &&
	    now - self->last_fds_warning < ESD_DBUS_WARN_INTERVAL_US) {
		g_debug("cannot open connections for D-Bus callers: %s", reason);
		return;
	}
	self->last_fds_warning = now;
	g_warning("cannot open connections for D-Bus callers: %s; refusing them until "
		  "descriptors free up",
		  reason);
}

static void
esd_dbus_service_open(EsdDBusService *self, EsdDBusRequest *request)
{
	GDBusMethodInvocation *invocation = request->invocation;
	const gchar *caller = g_dbus_method_invocation_get_sender(invocation);
	g_autoptr(GError) error = NULL;
	g_autoptr(GUnixFDList) fd_list = NULL;
	ErpcConnection *connection;
	gint fds[2] = {-1, -1};

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
		gint errsv = errno;
		g_autofree gchar *reason =
		    g_strdup_printf("cannot create a socket pair: %s", g_strerror(errsv));
		if (errsv == EMFILE || errsv == ENFILE || errsv == ENOBUFS || errsv == ENOMEM)
			esd_dbus_service_short_of_fds(self, reason);
		else
			g_log(PROTOCOL_LOG_DOMAIN,
			      G_LOG_LEVEL_MESSAGE,
			      "D-Bus caller %s: %s",
			      caller,
			      reason);
		g_dbus_method_invocation_return_error(invocation,
						      G_DBUS_ERROR,
						      G_DBUS_ERROR_LIMITS_EXCEEDED,
						      "%s",
						      reason);
		return;
	}
	fd_list = g_unix_fd_list_new_from_array(&fds[1], 1);
	connection = esd_dbus_service_serve_fd(self, fds[0], &error);
	if (connection == NULL) {
		/* the fd transport serves a copy of the descriptor, which can fail the same way */
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES))
			esd_dbus_service_short_of_fds(self, error->message);
		else
			g_log(PROTOCOL_LOG_DOMAIN,
			      G_LOG_LEVEL_MESSAGE,
			      "D-Bus caller %s: cannot open a connection: %s",
			      caller,
			      error->message);
		g_dbus_method_invocation_return_error(invocation,
						      G_DBUS_ERROR,
						      G_DBUS_ERROR_LIMITS_EXCEEDED,
						      "cannot open a connection: %s",
						      error->message);
		return;
	}
	if (self->short_of_fds) {
		self->short_of_fds = FALSE;
		g_message("opening connections for D-Bus callers again");
	}
	g_info("D-Bus caller %s (client-name \"%s\"): connection %" G_GUINT64_FORMAT,
	       caller,
	       request->client_name != NULL ? request->client_name : "",
	       erpc_connection_get_id(connection));
	esd_dbus_service_track(self, connection, caller);
	esd_dbus_exec_server1_complete_open_connection(self->skeleton,
						       invocation,
						       fd_list,
						       g_variant_new_handle(0));
}

/*
 * The session bus admits only its user; checked anyway, a bus may be
 * configured otherwise. A sandboxed caller (a Flatpak app, a snap) would get
 * its commands run outside its sandbox, on the host: refused unless
 * --dbus-allow-sandboxed, and so is a caller that cannot be placed.
 */
static gboolean
esd_dbus_service_check_caller(EsdDBusService *self,
			      EsdDBusRequest *request,
			      GVariant *credentials,
			      GUnixFDList *fd_list,
			      GError **error)
{
	const gchar *sender = g_dbus_method_invocation_get_sender(request->invocation);
	g_autoptr(EsdDBusCaller) caller = NULL;
	g_autoptr(GError) error_local = NULL;
	g_autofree gchar *who = NULL;
	guint32 uid = 0;

	if (!g_variant_lookup(credentials, "UnixUserID", "u", &uid) || uid != (guint32)getuid()) {
		g_set_error_literal(error,
				    G_DBUS_ERROR,
				    G_DBUS_ERROR_ACCESS_DENIED,
				    "only the daemon's own user may connect");
		return FALSE;
	}
	caller = esd_dbus_caller_identify(credentials, fd_list, request->called_at, &error_local);
	if (caller == NULL && self->allow_sandboxed) {
		g_info("D-Bus caller %s not identified (%s): served, sandboxed callers are allowed",
		       sender,
		       error_local->message);
		return TRUE;
	}
	/* out of descriptors: refused as the socket pair would be, and served again later */
	if (caller == NULL && g_error_matches(error_local, ERPC_ERROR, ERPC_ERROR_BUSY)) {
		g_autofree gchar *reason =
		    g_strdup_printf("cannot identify the caller: %s", error_local->message);
		esd_dbus_service_short_of_fds(self, reason);
		g_set_error_literal(error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED, reason);
		return FALSE;
	}
	if (caller == NULL) {
		g_set_error(error,
			    G_DBUS_ERROR,
			    G_DBUS_ERROR_ACCESS_DENIED,
			    "cannot tell whether the caller is sandboxed, so it is refused: %s",
			    error_local->message);
		return FALSE;
	}
	if (caller->kind == ESD_DBUS_CALLER_HOST)
		return TRUE;
	who = esd_dbus_caller_describe(caller);
	if (self->allow_sandboxed) {
		g_info("D-Bus caller %s is sandboxed (%s): served, --dbus-allow-sandboxed is set",
		       sender,
		       who);
		return TRUE;
	}
	g_set_error(error,
		    G_DBUS_ERROR,
		    G_DBUS_ERROR_ACCESS_DENIED,
		    "the caller is sandboxed (%s) and its commands would run outside the "
		    "sandbox; execserverd serves sandboxed callers only when started with "
		    "--dbus-allow-sandboxed",
		    who);
	return FALSE;
}

static void
esd_dbus_service_caller_credentials_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(EsdDBusRequest) request = user_data;
	EsdDBusService *self = request->service;
	g_autoptr(GError) error = NULL;
	g_autoptr(GUnixFDList) fd_list = NULL;
	g_autoptr(GVariant) credentials = NULL;
	g_autoptr(GVariant) reply =
	    g_dbus_connection_call_with_unix_fd_list_finish(G_DBUS_CONNECTION(source),
							    &fd_list,
							    res,
							    &error);

	self->pending--;
	if (reply == NULL) {
		g_autoptr(GError) bus_error = g_steal_pointer(&error);
		g_set_error(&error,
			    G_DBUS_ERROR,
			    G_DBUS_ERROR_ACCESS_DENIED,
			    "cannot get the caller's credentials: %s",
			    bus_error->message);
	} else
		g_variant_get(reply, "(@a{sv})", &credentials);
	if (credentials == NULL ||
	    !esd_dbus_service_check_caller(self, request, credentials, fd_list, &error)) {
		/* running out of descriptors is logged once, not per call */
		if (!g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED))
			g_log(PROTOCOL_LOG_DOMAIN,
			      G_LOG_LEVEL_MESSAGE,
			      "D-Bus caller %s refused: %s",
			      g_dbus_method_invocation_get_sender(request->invocation),
			      error->message);
		g_dbus_method_invocation_return_gerror(request->invocation, error);
	} else
		esd_dbus_service_open(self, request);
	esd_dbus_service_update_idle(self);
}

/* client-name s: known keys must have their type, unknown ones are ignored */
static gboolean
esd_dbus_service_parse_options(GVariant *options, gchar **client_name, GError **error)
{
	g_autoptr(GVariant) value = g_variant_lookup_value(options, "client-name", NULL);
	const gchar *name;
	gsize len = 0;

	if (value == NULL)
		return TRUE;
	if (!g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
		g_set_error(error,
			    G_DBUS_ERROR,
			    G_DBUS_ERROR_INVALID_ARGS,
			    "option client-name must be a string (s), not %s",
			    g_variant_get_type_string(value));
		return FALSE;
	}
	name = g_variant_get_string(value, &len);
	if (len > ESD_DBUS_CLIENT_NAME_MAX) {
		g_set_error(error,
			    G_DBUS_ERROR,
			    G_DBUS_ERROR_INVALID_ARGS,
			    "option client-name is longer than %u bytes",
			    (guint)ESD_DBUS_CLIENT_NAME_MAX);
		return FALSE;
	}
	/* for logs only: never a control character */
	*client_name = g_strescape(name, NULL);
	return TRUE;
}

static gboolean
esd_dbus_service_handle_open_connection(EsdDBusExecServer1 *skeleton,
					GDBusMethodInvocation *invocation,
					GUnixFDList *fd_list,
					GVariant *options,
					EsdDBusService *self)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *client_name = NULL;
	EsdDBusRequest *request;

	if (!esd_dbus_service_parse_options(options, &client_name, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return G_DBUS_METHOD_INVOCATION_HANDLED;
	}
	request = g_new0(EsdDBusRequest, 1);
	request->service = g_object_ref(self);
	request->invocation = g_object_ref(invocation);
	request->client_name = g_steal_pointer(&client_name);
	request->called_at = esd_dbus_caller_now();
	self->pending++;
	esd_dbus_service_update_idle(self);
	/* uid, pid, security label and, where the bus has it, a pidfd of the caller */
	g_dbus_connection_call_with_unix_fd_list(
	    self->bus,
	    "org.freedesktop.DBus",
	    "/org/freedesktop/DBus",
	    "org.freedesktop.DBus",
	    "GetConnectionCredentials",
	    g_variant_new("(s)", g_dbus_method_invocation_get_sender(invocation)),
	    G_VARIANT_TYPE("(a{sv})"),
	    G_DBUS_CALL_FLAGS_NONE,
	    -1,
	    NULL,
	    NULL,
	    esd_dbus_service_caller_credentials_cb,
	    request);
	return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* --- the bus name ------------------------------------------------------ */

/* exported before the name is ours, so that the activating call finds the object */
static void
esd_dbus_service_bus_acquired_cb(GDBusConnection *bus, const gchar *name, gpointer user_data)
{
	EsdDBusService *self = ESD_DBUS_SERVICE(user_data);
	g_autoptr(GError) error = NULL;

	g_set_object(&self->bus, bus);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(self->skeleton),
					      bus,
					      ESD_DBUS_SERVICE_PATH,
					      &error)) {
		g_warning("cannot export %s: %s", ESD_DBUS_SERVICE_PATH, error->message);
		esd_dbus_service_quit(self, EXIT_FAILURE);
	}
}

static void
esd_dbus_service_name_acquired_cb(GDBusConnection *bus, const gchar *name, gpointer user_data)
{
	EsdDBusService *self = ESD_DBUS_SERVICE(user_data);

	g_info("owning %s on the session bus", name);
	self->name_acquired = TRUE;
	esd_dbus_service_update_idle(self);
}

static void
esd_dbus_service_name_lost_cb(GDBusConnection *bus, const gchar *name, gpointer user_data)
{
	EsdDBusService *self = ESD_DBUS_SERVICE(user_data);

	if (self->name_acquired) {
		g_message("lost %s on the session bus, exiting", name);
		esd_dbus_service_quit(self, EXIT_SUCCESS);
		return;
	}
	if (bus == NULL)
		g_warning("cannot connect to the session bus to own %s", name);
	else
		g_warning("cannot own %s on the session bus: another process has it", name);
	esd_dbus_service_quit(self, EXIT_FAILURE);
}

/**
 * esd_dbus_service_set_allow_sandboxed:
 * @allow: serve callers inside a Flatpak or snap sandbox too
 *
 * Off by default: such a caller would get commands run on the host, outside
 * its sandbox.
 */
void
esd_dbus_service_set_allow_sandboxed(EsdDBusService *self, gboolean allow)
{
	g_return_if_fail(ESD_IS_DBUS_SERVICE(self));
	self->allow_sandboxed = allow;
}

/**
 * esd_dbus_service_start:
 *
 * Connects to the session bus and asks for the name; #EsdDBusService::quit
 * is emitted with the exit code when the daemon should stop.
 */
void
esd_dbus_service_start(EsdDBusService *self)
{
	g_return_if_fail(ESD_IS_DBUS_SERVICE(self));
	g_return_if_fail(self->owner_id == 0);
	/* a second instance fails at once instead of waiting in the queue */
	self->owner_id = g_bus_own_name(G_BUS_TYPE_SESSION,
					ESD_DBUS_SERVICE_NAME,
					G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
					esd_dbus_service_bus_acquired_cb,
					esd_dbus_service_name_acquired_cb,
					esd_dbus_service_name_lost_cb,
					self,
					NULL);
}

static void
esd_dbus_service_add_capability_cb(const gchar *name, gboolean enabled, gpointer user_data)
{
	g_variant_builder_add(user_data, "{sb}", name, enabled);
}

static GVariant *
esd_dbus_service_build_capabilities(EsdServer *server)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a{sb}"));
	esd_environment_foreach_capability(esd_server_get_registry(server),
					   esd_dbus_service_add_capability_cb,
					   &builder);
	return g_variant_builder_end(&builder);
}

static void
esd_dbus_service_dispose(GObject *object)
{
	EsdDBusService *self = ESD_DBUS_SERVICE(object);

	g_clear_handle_id(&self->idle_id, g_source_remove);
	g_clear_handle_id(&self->owner_id, g_bus_unown_name);
	if (self->clients != NULL)
		g_hash_table_remove_all(self->clients);
	if (self->skeleton != NULL) {
		g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(self->skeleton));
		g_signal_handlers_disconnect_by_data(self->skeleton, self);
		g_clear_object(&self->skeleton);
	}
	if (self->server != NULL) {
		g_signal_handlers_disconnect_by_data(self->server, self);
		g_clear_object(&self->server);
	}
	g_clear_object(&self->bus);
	G_OBJECT_CLASS(esd_dbus_service_parent_class)->dispose(object);
}

static void
esd_dbus_service_finalize(GObject *object)
{
	EsdDBusService *self = ESD_DBUS_SERVICE(object);
	g_hash_table_unref(self->clients);
	G_OBJECT_CLASS(esd_dbus_service_parent_class)->finalize(object);
}

static void
esd_dbus_service_init(EsdDBusService *self)
{
	self->clients = g_hash_table_new_full(g_direct_hash,
					      g_direct_equal,
					      NULL,
					      (GDestroyNotify)esd_dbus_client_free);
}

static void
esd_dbus_service_class_init(EsdDBusServiceClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = esd_dbus_service_dispose;
	object_class->finalize = esd_dbus_service_finalize;

	/**
	 * EsdDBusService::quit:
	 * @exit_code: what the daemon should exit with
	 *
	 * The name could not be owned or was lost, or the daemon was idle long enough.
	 */
	esd_dbus_service_signals[SIGNAL_QUIT] = g_signal_new("quit",
							     G_TYPE_FROM_CLASS(klass),
							     G_SIGNAL_RUN_LAST,
							     0,
							     NULL,
							     NULL,
							     NULL,
							     G_TYPE_NONE,
							     1,
							     G_TYPE_INT);
}

/**
 * esd_dbus_service_new:
 * @server: the server whose connections OpenConnection adds
 * @idle_timeout: seconds of idleness before #EsdDBusService::quit, 0 for never
 *
 * Returns: (transfer full): a service, not yet on the bus
 */
EsdDBusService *
esd_dbus_service_new(EsdServer *server, guint idle_timeout)
{
	EsdDBusService *self = g_object_new(ESD_TYPE_DBUS_SERVICE, NULL);

	self->server = g_object_ref(server);
	self->idle_timeout = idle_timeout;
	self->skeleton = esd_dbus_exec_server1_skeleton_new();
	esd_dbus_exec_server1_set_version(self->skeleton, PACKAGE_VERSION);
	esd_dbus_exec_server1_set_capabilities(self->skeleton,
					       esd_dbus_service_build_capabilities(server));
	g_signal_connect(self->skeleton,
			 "handle-open-connection",
			 G_CALLBACK(esd_dbus_service_handle_open_connection),
			 self);
	g_signal_connect(server, "changed", G_CALLBACK(esd_dbus_service_server_changed_cb), self);
	return self;
}
