/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-http-connection.h"
#include "esd-http-context.h"
#include "esd-http-params.h"
#include "esd-http-request.h"
#include "esd-http-soup.h"

/*
 * The implementation of http/request, loaded by the plugin on the first
 * request (esd-http-impl.h): one SoupSession for every connection of the
 * plugin, so that keep-alive connections to a server are shared, with the
 * proxy the machine is configured with (the default #GProxyResolver) and
 * GIO's TLS with the system CA store; libsoup itself is opened here, on
 * first use (esd-http-soup.c).
 */

/*
 * GIO's default proxy resolver. GNOME's (glib-networking) aborts the process
 * when its settings schema is missing ("No GSettings schemas are
 * installed"), and GIO makes the default one for every connection
 * (GProxyAddressEnumerator), whatever resolver the session has: without
 * the schema, GIO is told to take the next supported resolver (libproxy:
 * the environment variables, other desktops' settings) before it makes
 * its default. The environment is changed once, on the main thread,
 * before any request went out.
 */
static GProxyResolver *
esd_http_plugin_proxy_resolver(void)
{
	GSettingsSchemaSource *source = g_settings_schema_source_get_default();
	g_autoptr(GSettingsSchema) schema =
	    source != NULL ? g_settings_schema_source_lookup(source, "org.gnome.system.proxy", TRUE)
			   : NULL;
	GIOExtensionPoint *point;

	if (schema != NULL)
		return g_object_ref(g_proxy_resolver_get_default());
	/* loads GIO's modules, which register the resolvers */
	(void)g_tls_backend_get_default();
	point = g_io_extension_point_lookup(G_PROXY_RESOLVER_EXTENSION_POINT_NAME);
	for (GList *l = point != NULL ? g_io_extension_point_get_extensions(point) : NULL;
	     l != NULL;
	     l = l->next) {
		const gchar *name = g_io_extension_get_name(l->data);
		g_autoptr(GObject) resolver = NULL;

		if (g_strcmp0(name, "gnome") == 0)
			continue;
		resolver = g_object_new(g_io_extension_get_type(l->data), NULL);
		if (G_IS_INITABLE(resolver) && !g_initable_init(G_INITABLE(resolver), NULL, NULL))
			continue;
		if (g_proxy_resolver_is_supported(G_PROXY_RESOLVER(resolver))) {
			g_setenv("GIO_USE_PROXY_RESOLVER", name, FALSE);
			break;
		}
	}
	return g_object_ref(g_proxy_resolver_get_default());
}

/**
 * esd_http_context_get_session:
 * @self: the context
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer none): the session of every request, made on first use
 */
SoupSession *
esd_http_context_get_session(EsdHttpContext *self, GError **error)
{
	g_autoptr(GProxyResolver) resolver = NULL;

	if (self->session != NULL)
		return self->session;
	if (!esd_http_soup_load(error))
		return NULL;
	/*
	 * no I/O timeout: a request without timeoutMs waits as long as the
	 * reference's; many requests in flight may go to one host
	 */
	resolver = esd_http_plugin_proxy_resolver();
	self->session =
	    soup_session_new_with_options("proxy-resolver",
					  resolver,
					  "timeout",
					  0,
					  "max-conns",
					  self->limits->max_requests + self->limits->max_streams,
					  "max-conns-per-host",
					  self->limits->max_requests + self->limits->max_streams,
					  NULL);
	return self->session;
}

/**
 * esd_http_context_take_request:
 * @self: the context
 * @error: return location for a #GError, or %NULL
 *
 * Takes one of the --http-max-requests slots of requests waiting for their
 * response, daemon-wide; give it back with esd_http_context_release_request().
 *
 * Returns: %TRUE if a slot was free
 */
gboolean
esd_http_context_take_request(EsdHttpContext *self, GError **error)
{
	if (self->in_flight >= (guint)self->limits->max_requests) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_BUSY,
			    "http/request: too many requests in flight (limit %d, "
			    "--http-max-requests)",
			    self->limits->max_requests);
		return FALSE;
	}
	self->in_flight++;
	return TRUE;
}

void
esd_http_context_release_request(EsdHttpContext *self)
{
	g_return_if_fail(self->in_flight > 0);
	self->in_flight--;
}

static EsdHttpContext *
esd_http_impl_context_new(const EsdHttpLimits *limits)
{
	EsdHttpContext *self = g_new0(EsdHttpContext, 1);
	self->limits = limits;
	return self;
}

static void
esd_http_impl_context_free(EsdHttpContext *self)
{
	g_clear_object(&self->session);
	g_free(self);
}

static void
esd_http_impl_request(EsdHttpContext *context, ErpcCall *call, JsonObject *params)
{
	g_autoptr(GError) error = NULL;
	EsdHttpParams *parsed = esd_http_params_parse(params, g_getenv, &error);

	if (parsed == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	esd_http_request_start(context, call, parsed);
}

/* the connection has gone: cancel what runs for it */
static void
esd_http_impl_connection_closed(EsdHttpContext *context, ErpcConnection *connection)
{
	esd_http_connection_drop(connection, context);
}

G_MODULE_EXPORT const EsdHttpImpl *
esd_http_impl_get(void);

/**
 * esd_http_impl_get:
 *
 * The one symbol of libesd-http-request.so, %ESD_HTTP_IMPL_SYMBOL.
 *
 * Returns: the implementation of http/request
 */
const EsdHttpImpl *
esd_http_impl_get(void)
{
	static const EsdHttpImpl impl = {
	    ERPC_BUILD_ID,
	    esd_http_impl_context_new,
	    esd_http_impl_context_free,
	    esd_http_impl_request,
	    esd_http_impl_connection_closed,
	};
	return &impl;
}
