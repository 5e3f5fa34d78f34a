/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <sys/socket.h>

#include "erpc-listener-private.h"

/*
 * Accepting from listening sockets, for every subclass (ws, fd:N, systemd).
 * An accept() that fails for want of descriptors or memory leaves the
 * connection waiting in the backlog, so the socket stays readable: the loop
 * backs off instead of spinning, and tries again until a descriptor frees
 * up. Such a run of failures is logged once, as a warning, however many
 * accepts fail; errors that concern only the connection being accepted (it
 * was reset, say) are skipped as accept(2) advises.
 */

/* connections taken per wakeup, so that one busy socket does not starve the rest */
#define ERPC_LISTENER_ACCEPT_BURST 32
/* the pause after a failed accept, doubled after each failure up to the maximum */
#define ERPC_LISTENER_RETRY_MIN_MS 100
#define ERPC_LISTENER_RETRY_MAX_MS 1000
/* a run of failures that starts within this long of the last warning is not warned of */
#define ERPC_LISTENER_WARN_INTERVAL_US (60 * G_USEC_PER_SEC)

typedef struct {
	gchar *bound_uri;
	gsize max_message_size;
	GVariant *options;
	gboolean announce;
	gboolean finished;
	GPtrArray *acceptors; /* of ErpcListenerAcceptor */
	guint64 failures;     /* accepts that failed since the last one that worked */
	gboolean warned;      /* of this run of failures */
	gint64 last_warning;  /* monotonic time, 0 for never */
} ErpcListenerPrivate;

/* one listening socket; shared by its source while that dispatches */
typedef struct {
	ErpcListener *listener; /* not a reference: it stops us before it goes */
	GSocket *socket;
	GSource *source; /* the socket's readable source, or the retry timeout */
	guint retry_ms;	 /* 0 while waiting for the socket to be readable */
	gboolean stopped;
} ErpcListenerAcceptor;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(ErpcListener, erpc_listener, G_TYPE_OBJECT)

#define GET_PRIVATE(o) ((ErpcListenerPrivate *)erpc_listener_get_instance_private(o))

static void
erpc_listener_acceptor_clear(ErpcListenerAcceptor *acceptor)
{
	g_clear_object(&acceptor->socket);
}

static ErpcListenerAcceptor *
erpc_listener_acceptor_ref(ErpcListenerAcceptor *acceptor)
{
	return g_rc_box_acquire(acceptor);
}

static void
erpc_listener_acceptor_unref(ErpcListenerAcceptor *acceptor)
{
	g_rc_box_release_full(acceptor, (GDestroyNotify)erpc_listener_acceptor_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcListenerAcceptor, erpc_listener_acceptor_unref)

static void
erpc_listener_acceptor_wait(ErpcListenerAcceptor *acceptor, guint retry_ms);

/* the connection went away while it waited: accept(2) says to go on as after EAGAIN */
static gboolean
erpc_listener_accept_error_is_transient(gint errsv)
{
	switch (errsv) {
	case EINTR:
	case ECONNABORTED:
	case EPROTO:
	case EPERM:
	case ENETDOWN:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case EOPNOTSUPP:
	case ENETUNREACH:
		return TRUE;
	default:
		return FALSE;
	}
}

static void
erpc_listener_accept_failed(ErpcListener *self, gint errsv)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);
	gint64 now = g_get_monotonic_time();
	const gchar *where = priv->bound_uri != NULL ? priv->bound_uri : "a listening socket";

	priv->failures++;
	if (priv->failures > 1)
		return;
	if (priv->last_warning != 0 && now - priv->last_warning < ERPC_LISTENER_WARN_INTERVAL_US) {
		g_debug("%s: cannot accept connections: %s", where, g_strerror(errsv));
		return;
	}
	/* EMFILE, ENFILE, ENOBUFS, ENOMEM: the connections wait in the backlog meanwhile */
	g_warning("%s: cannot accept connections: %s; trying again until resources free up",
		  where,
		  g_strerror(errsv));
	priv->warned = TRUE;
	priv->last_warning = now;
}

static void
erpc_listener_accept_worked(ErpcListener *self)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);

	if (priv->failures == 0)
		return;
	if (priv->warned)
		g_message("%s: accepting connections again, after %" G_GUINT64_FORMAT
			  " failed attempts",
			  priv->bound_uri != NULL ? priv->bound_uri : "a listening socket",
			  priv->failures);
	priv->failures = 0;
	priv->warned = FALSE;
}

/*
 * accepts what is waiting; returns how long to pause before the next try,
 * 0 to wait for the socket to be readable again
 */
static guint
erpc_listener_acceptor_run(ErpcListenerAcceptor *acceptor)
{
	ErpcListener *self = acceptor->listener;

	for (guint i = 0; i < ERPC_LISTENER_ACCEPT_BURST && !acceptor->stopped; i++) {
		gint fd = accept4(g_socket_get_fd(acceptor->socket),
				  NULL,
				  NULL,
				  SOCK_CLOEXEC | SOCK_NONBLOCK);
		g_autoptr(GSocket) connection = NULL;
		g_autoptr(GError) error = NULL;

		if (fd < 0) {
			gint errsv = errno;
			if (errsv == EAGAIN || errsv == EWOULDBLOCK)
				return 0;
			if (erpc_listener_accept_error_is_transient(errsv)) {
				g_debug("accept: %s", g_strerror(errsv));
				continue;
			}
			erpc_listener_accept_failed(self, errsv);
			return CLAMP(acceptor->retry_ms * 2,
				     ERPC_LISTENER_RETRY_MIN_MS,
				     ERPC_LISTENER_RETRY_MAX_MS);
		}
		erpc_listener_accept_worked(self);
		/* a GSocket that fails closes its descriptor itself */
		connection = g_socket_new_from_fd(fd, &error);
		if (connection == NULL) {
			g_debug("cannot use an accepted connection: %s", error->message);
			continue;
		}
		ERPC_LISTENER_GET_CLASS(self)->accepted(self, connection);
	}
	/* more may be waiting: the readable source fires again at once */
	return 0;
}

/* the socket's readable source, and the retry timeout */
static gboolean
erpc_listener_acceptor_dispatch(ErpcListenerAcceptor *acceptor)
{
	g_autoptr(ErpcListenerAcceptor) hold = erpc_listener_acceptor_ref(acceptor);
	gboolean was_readable = acceptor->retry_ms == 0;
	guint retry_ms = erpc_listener_acceptor_run(acceptor);

	if (acceptor->stopped)
		return G_SOURCE_REMOVE;
	if (was_readable && retry_ms == 0)
		return G_SOURCE_CONTINUE;
	erpc_listener_acceptor_wait(acceptor, retry_ms);
	return G_SOURCE_REMOVE;
}

static gboolean
erpc_listener_acceptor_readable_cb(GSocket *socket, GIOCondition condition, gpointer user_data)
{
	return erpc_listener_acceptor_dispatch(user_data);
}

static gboolean
erpc_listener_acceptor_retry_cb(gpointer user_data)
{
	return erpc_listener_acceptor_dispatch(user_data);
}

static void
erpc_listener_acceptor_wait(ErpcListenerAcceptor *acceptor, guint retry_ms)
{
	if (acceptor->source != NULL) {
		g_source_destroy(acceptor->source);
		g_clear_pointer(&acceptor->source, g_source_unref);
	}
	acceptor->retry_ms = retry_ms;
	if (retry_ms == 0) {
		acceptor->source = g_socket_create_source(acceptor->socket, G_IO_IN, NULL);
		g_source_set_callback(acceptor->source,
				      G_SOURCE_FUNC(erpc_listener_acceptor_readable_cb),
				      erpc_listener_acceptor_ref(acceptor),
				      (GDestroyNotify)erpc_listener_acceptor_unref);
	} else {
		acceptor->source = g_timeout_source_new(retry_ms);
		g_source_set_callback(acceptor->source,
				      erpc_listener_acceptor_retry_cb,
				      erpc_listener_acceptor_ref(acceptor),
				      (GDestroyNotify)erpc_listener_acceptor_unref);
	}
	g_source_attach(acceptor->source, NULL);
}

/* the listener's end of an acceptor: nothing is accepted after it */
static void
erpc_listener_acceptor_stop(ErpcListenerAcceptor *acceptor)
{
	acceptor->stopped = TRUE;
	if (acceptor->source != NULL) {
		g_source_destroy(acceptor->source);
		g_clear_pointer(&acceptor->source, g_source_unref);
	}
	g_socket_close(acceptor->socket, NULL);
	erpc_listener_acceptor_unref(acceptor);
}

/**
 * erpc_listener_accept_from:
 * @self: a #ErpcListener
 * @socket: a listening socket
 *
 * For subclasses: accepts connections from @socket in the default main
 * context, handing each to the class's @accepted, until the listener stops;
 * then @socket is closed. When accept() fails for want of descriptors or
 * memory the listener logs it once, waits (100 ms, doubling up to 1 s) and
 * tries again, so that it serves again once resources free up.
 *
 * Since: 0.1
 */
void
erpc_listener_accept_from(ErpcListener *self, GSocket *socket)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);
	ErpcListenerAcceptor *acceptor;

	g_return_if_fail(ERPC_IS_LISTENER(self));
	g_return_if_fail(G_IS_SOCKET(socket));
	g_return_if_fail(ERPC_LISTENER_GET_CLASS(self)->accepted != NULL);
	acceptor = g_rc_box_new0(ErpcListenerAcceptor);
	acceptor->listener = self;
	acceptor->socket = g_object_ref(socket);
	g_ptr_array_add(priv->acceptors, acceptor);
	erpc_listener_acceptor_wait(acceptor, 0);
}

static void
erpc_listener_stop_accepting(ErpcListener *self)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);
	g_ptr_array_set_size(priv->acceptors, 0);
}

enum { PROP_0, PROP_MAX_MESSAGE_SIZE, PROP_OPTIONS, PROP_LAST };
enum { SIGNAL_NEW_TRANSPORT, SIGNAL_FINISHED, SIGNAL_LAST };

static GParamSpec *erpc_listener_props[PROP_LAST] = {NULL};
static guint erpc_listener_signals[SIGNAL_LAST] = {0};

/**
 * erpc_listener_listen:
 * @self: a #ErpcListener
 * @uri: what to listen on, e.g. `ws://127.0.0.1:0` or `stdio`
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if the listener is accepting connections
 *
 * Since: 0.1
 */
gboolean
erpc_listener_listen(ErpcListener *self, const gchar *uri, GError **error)
{
	g_return_val_if_fail(ERPC_IS_LISTENER(self), FALSE);
	g_return_val_if_fail(uri != NULL, FALSE);
	return ERPC_LISTENER_GET_CLASS(self)->listen(self, uri, error);
}

/**
 * erpc_listener_stop:
 * @self: a #ErpcListener
 *
 * Stops accepting new connections.
 *
 * Since: 0.1
 */
void
erpc_listener_stop(ErpcListener *self)
{
	g_return_if_fail(ERPC_IS_LISTENER(self));
	if (ERPC_LISTENER_GET_CLASS(self)->stop != NULL)
		ERPC_LISTENER_GET_CLASS(self)->stop(self);
	erpc_listener_stop_accepting(self);
}

/**
 * erpc_listener_get_bound_uri:
 * @self: a #ErpcListener
 *
 * Gets the address the listener serves.
 *
 * Returns: (nullable): the address actually bound, e.g. with the ephemeral
 *   port filled in
 *
 * Since: 0.1
 */
const gchar *
erpc_listener_get_bound_uri(ErpcListener *self)
{
	g_return_val_if_fail(ERPC_IS_LISTENER(self), NULL);
	return GET_PRIVATE(self)->bound_uri;
}

/**
 * erpc_listener_set_bound_uri:
 * @self: a #ErpcListener
 * @uri: the bound address
 *
 * For subclasses.
 *
 * Since: 0.1
 */
void
erpc_listener_set_bound_uri(ErpcListener *self, const gchar *uri)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);
	g_return_if_fail(ERPC_IS_LISTENER(self));
	g_free(priv->bound_uri);
	priv->bound_uri = g_strdup(uri);
}

/**
 * erpc_listener_get_announce:
 * @self: a #ErpcListener
 *
 * Tells whether the listener's bound address is to be announced.
 *
 * Returns: %TRUE if the daemon should print the bound URI on stdout
 *
 * Since: 0.1
 */
gboolean
erpc_listener_get_announce(ErpcListener *self)
{
	g_return_val_if_fail(ERPC_IS_LISTENER(self), FALSE);
	return GET_PRIVATE(self)->announce;
}

/**
 * erpc_listener_set_announce:
 * @self: a #ErpcListener
 * @announce: whether stdout is free for the bound URI
 *
 * For subclasses: a listener that owns stdout (stdio) must not have anything
 * else printed there.
 *
 * Since: 0.1
 */
void
erpc_listener_set_announce(ErpcListener *self, gboolean announce)
{
	g_return_if_fail(ERPC_IS_LISTENER(self));
	GET_PRIVATE(self)->announce = announce;
}

/**
 * erpc_listener_get_max_message_size:
 * @self: a #ErpcListener
 *
 * Gets the message size limit the listener's transports apply.
 *
 * Returns: the largest message its transports accept, in bytes
 *
 * Since: 0.1
 */
gsize
erpc_listener_get_max_message_size(ErpcListener *self)
{
	g_return_val_if_fail(ERPC_IS_LISTENER(self), 0);
	return GET_PRIVATE(self)->max_message_size;
}

/**
 * erpc_listener_get_options:
 * @self: a #ErpcListener
 *
 * The daemon's settings for its listeners, as given at construction, e.g.
 * `ws-auth` for a WebSocket listener. Each listener reads the keys it knows
 * and ignores the others. Values may be secrets: never log them.
 *
 * Returns: (transfer none) (nullable): a `a{sv}` dictionary, or %NULL
 *
 * Since: 0.1
 */
GVariant *
erpc_listener_get_options(ErpcListener *self)
{
	g_return_val_if_fail(ERPC_IS_LISTENER(self), NULL);
	return GET_PRIVATE(self)->options;
}

/**
 * erpc_listener_emit_transport:
 * @self: a #ErpcListener
 * @transport: a newly accepted connection
 *
 * For subclasses.
 *
 * Since: 0.1
 */
void
erpc_listener_emit_transport(ErpcListener *self, ErpcTransport *transport)
{
	g_signal_emit(self, erpc_listener_signals[SIGNAL_NEW_TRANSPORT], 0, transport);
}

/**
 * erpc_listener_emit_finished:
 * @self: a #ErpcListener
 *
 * For subclasses: no more connections will come, e.g. stdin was closed.
 *
 * Since: 0.1
 */
void
erpc_listener_emit_finished(ErpcListener *self)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);
	if (priv->finished)
		return;
	priv->finished = TRUE;
	g_signal_emit(self, erpc_listener_signals[SIGNAL_FINISHED], 0);
}

static void
erpc_listener_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(ERPC_LISTENER(object));
	switch (prop_id) {
	case PROP_MAX_MESSAGE_SIZE:
		g_value_set_uint64(value, priv->max_message_size);
		break;
	case PROP_OPTIONS:
		g_value_set_variant(value, priv->options);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_listener_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(ERPC_LISTENER(object));
	switch (prop_id) {
	case PROP_MAX_MESSAGE_SIZE:
		priv->max_message_size = g_value_get_uint64(value);
		break;
	case PROP_OPTIONS:
		/* floating references are sunk: the caller may pass a new variant */
		priv->options = g_value_dup_variant(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_listener_dispose(GObject *object)
{
	erpc_listener_stop_accepting(ERPC_LISTENER(object));
	G_OBJECT_CLASS(erpc_listener_parent_class)->dispose(object);
}

static void
erpc_listener_finalize(GObject *object)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(ERPC_LISTENER(object));
	g_ptr_array_unref(priv->acceptors);
	g_free(priv->bound_uri);
	g_clear_pointer(&priv->options, g_variant_unref);
	G_OBJECT_CLASS(erpc_listener_parent_class)->finalize(object);
}

static void
erpc_listener_init(ErpcListener *self)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(self);

	priv->announce = TRUE;
	priv->acceptors =
	    g_ptr_array_new_with_free_func((GDestroyNotify)erpc_listener_acceptor_stop);
}

static void
erpc_listener_class_init(ErpcListenerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->get_property = erpc_listener_get_property;
	object_class->set_property = erpc_listener_set_property;
	object_class->dispose = erpc_listener_dispose;
	object_class->finalize = erpc_listener_finalize;

	/**
	 * ErpcListener:max-message-size:
	 *
	 * The largest message the listener's transports accept, in bytes.
	 *
	 * Since: 0.1
	 */
	erpc_listener_props[PROP_MAX_MESSAGE_SIZE] =
	    g_param_spec_uint64("max-message-size",
				NULL,
				NULL,
				1,
				G_MAXSIZE,
				64 * 1024 * 1024,
				G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
	/**
	 * ErpcListener:options:
	 *
	 * Settings of the daemon for its listeners, a `a{sv}` dictionary or
	 * %NULL; see erpc_listener_get_options().
	 *
	 * Since: 0.1
	 */
	erpc_listener_props[PROP_OPTIONS] = g_param_spec_variant(
	    "options",
	    NULL,
	    NULL,
	    G_VARIANT_TYPE_VARDICT,
	    NULL,
	    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, PROP_LAST, erpc_listener_props);

	/**
	 * ErpcListener::new-transport:
	 * @self: the listener
	 * @transport: the accepted connection
	 *
	 * Emitted by erpc_listener_emit_transport() for each connection the
	 * listener accepted; the daemon serves it.
	 *
	 * Since: 0.1
	 */
	erpc_listener_signals[SIGNAL_NEW_TRANSPORT] = g_signal_new("new-transport",
								   G_TYPE_FROM_CLASS(klass),
								   G_SIGNAL_RUN_LAST,
								   0,
								   NULL,
								   NULL,
								   NULL,
								   G_TYPE_NONE,
								   1,
								   ERPC_TYPE_TRANSPORT);
	/**
	 * ErpcListener::finished:
	 * @self: the listener
	 *
	 * Emitted when the listener will not produce any more connections.
	 *
	 * Since: 0.1
	 */
	erpc_listener_signals[SIGNAL_FINISHED] = g_signal_new("finished",
							      G_TYPE_FROM_CLASS(klass),
							      G_SIGNAL_RUN_LAST,
							      0,
							      NULL,
							      NULL,
							      NULL,
							      G_TYPE_NONE,
							      0);
}
