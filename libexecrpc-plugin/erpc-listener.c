/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "erpc-listener-private.h"

typedef struct {
	gchar *bound_uri;
	gsize max_message_size;
	GVariant *options;
	gboolean announce;
	gboolean finished;
} ErpcListenerPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(ErpcListener, erpc_listener, G_TYPE_OBJECT)

#define GET_PRIVATE(o) ((ErpcListenerPrivate *)erpc_listener_get_instance_private(o))

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
}

/**
 * erpc_listener_get_bound_uri:
 * @self: a #ErpcListener
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
erpc_listener_finalize(GObject *object)
{
	ErpcListenerPrivate *priv = GET_PRIVATE(ERPC_LISTENER(object));
	g_free(priv->bound_uri);
	g_clear_pointer(&priv->options, g_variant_unref);
	G_OBJECT_CLASS(erpc_listener_parent_class)->finalize(object);
}

static void
erpc_listener_init(ErpcListener *self)
{
	GET_PRIVATE(self)->announce = TRUE;
}

static void
erpc_listener_class_init(ErpcListenerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->get_property = erpc_listener_get_property;
	object_class->set_property = erpc_listener_set_property;
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
