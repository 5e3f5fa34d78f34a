/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "esd-http-connection.h"
#include "esd-http-params.h"
#include "esd-http-plugin.h"
#include "esd-http-request.h"
#include "esd-http-soup.h"

/**
 * EsdHttpPlugin:
 *
 * `http/request` (PROTOCOL.md §12): HTTP made by the executor, through
 * libsoup's #SoupSession, with the proxy the machine is configured with
 * (the default #GProxyResolver) and GIO's TLS with the system CA store.
 * libsoup is opened on the first request, so that a daemon that makes
 * none starts without it. One session serves every connection, so
 * keep-alive connections to a server are shared.
 */

struct _EsdHttpPlugin {
	ErpcPlugin parent_instance;
	SoupSession *session;
	gint64 max_body;   /* --http-max-body-bytes */
	gint max_streams;  /* --http-max-streams */
	gint max_requests; /* --http-max-requests */
	guint in_flight;
};

G_DEFINE_TYPE(EsdHttpPlugin, esd_http_plugin, ERPC_TYPE_PLUGIN)

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
 * esd_http_plugin_get_session:
 * @self: the plugin
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer none): the session of every request, made on first use
 */
SoupSession *
esd_http_plugin_get_session(EsdHttpPlugin *self, GError **error)
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
					  MAX(self->max_requests, 1) + MAX(self->max_streams, 1),
					  "max-conns-per-host",
					  MAX(self->max_requests, 1) + MAX(self->max_streams, 1),
					  NULL);
	return self->session;
}

gint64
esd_http_plugin_get_max_body(EsdHttpPlugin *self)
{
	return self->max_body;
}

guint
esd_http_plugin_get_max_streams(EsdHttpPlugin *self)
{
	return (guint)self->max_streams;
}

/**
 * esd_http_plugin_take_request:
 * @self: the plugin
 * @error: return location for a #GError, or %NULL
 *
 * Takes one of the --http-max-requests slots of requests waiting for their
 * response, daemon-wide; give it back with esd_http_plugin_release_request().
 *
 * Returns: %TRUE if a slot was free
 */
gboolean
esd_http_plugin_take_request(EsdHttpPlugin *self, GError **error)
{
	if (self->in_flight >= (guint)self->max_requests) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_BUSY,
			    "http/request: too many requests in flight (limit %d, "
			    "--http-max-requests)",
			    self->max_requests);
		return FALSE;
	}
	self->in_flight++;
	return TRUE;
}

void
esd_http_plugin_release_request(EsdHttpPlugin *self)
{
	g_return_if_fail(self->in_flight > 0);
	self->in_flight--;
}

static void
esd_http_plugin_request(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	EsdHttpParams *parsed = esd_http_params_parse(params, g_getenv, &error);

	if (parsed == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	esd_http_request_start(ESD_HTTP_PLUGIN(user_data), call, parsed);
}

static gboolean
esd_http_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo method = {.name = "http/request",
				       .family = "http",
				       .params_type = "HttpRequestParams",
				       .func = esd_http_plugin_request};

	/* httpHeaderEnvVars: headers may take valueEnvVar */
	if (!erpc_registry_add_capability(registry, "httpHeaderEnvVars", 1, error))
		return FALSE;
	return erpc_registry_add_method(registry, &method, plugin, NULL, error);
}

static GOptionGroup *
esd_http_plugin_get_option_group(ErpcPlugin *plugin)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(plugin);
	const GOptionEntry entries[] = {
	    {"http-max-body-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &self->max_body,
	     N_("Largest response body http/request returns whole (default 64 MiB)"),
	     "BYTES"},
	    {"http-max-streams",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_streams,
	     N_("Streamed http/request responses active per connection (default 64)"),
	     "N"},
	    {"http-max-requests",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_requests,
	     N_("http/requests waiting for their response, all connections (default 256)"),
	     "N"},
	    {NULL}};
	GOptionGroup *group =
	    g_option_group_new("http",
			       /* TRANSLATORS: the heading of the http plugin's options */
			       _("HTTP requests (http plugin):"),
			       _("Show the HTTP request options"),
			       self,
			       NULL);

	g_option_group_add_entries(group, entries);
	g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);
	return group;
}

static gboolean
esd_http_plugin_load_config(ErpcPlugin *plugin, GKeyFile *file, const gchar *group, GError **error)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(plugin);
	const gchar *const keys[] = {"http-max-body-bytes",
				     "http-max-streams",
				     "http-max-requests",
				     NULL};

	erpc_plugin_check_config_keys(plugin, file, group, keys);
	for (guint i = 0; keys[i] != NULL; i++) {
		g_autoptr(GError) error_local = NULL;
		gint64 value;

		if (!g_key_file_has_key(file, group, keys[i], NULL))
			continue;
		value = g_key_file_get_int64(file, group, keys[i], &error_local);
		if (error_local == NULL && i > 0 && (value < G_MININT || value > G_MAXINT))
			g_set_error_literal(&error_local,
					    G_KEY_FILE_ERROR,
					    G_KEY_FILE_ERROR_INVALID_VALUE,
					    "out of range");
		if (error_local != NULL) {
			g_propagate_prefixed_error(error,
						   g_steal_pointer(&error_local),
						   "%s: ",
						   keys[i]);
			return FALSE;
		}
		if (i == 0)
			self->max_body = value;
		else if (i == 1)
			self->max_streams = (gint)value;
		else
			self->max_requests = (gint)value;
	}
	return TRUE;
}

static gboolean
esd_http_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(plugin);

	/* a buffered body goes out as one base64 string */
	if (self->max_body < 0 || self->max_body > G_MAXINT32) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--http-max-body-bytes must be between 0 and 2147483647");
		return FALSE;
	}
	if (self->max_streams < 1 || self->max_requests < 1) {
		g_set_error_literal(
		    error,
		    G_OPTION_ERROR,
		    G_OPTION_ERROR_BAD_VALUE,
		    "--http-max-streams and --http-max-requests must be at least 1");
		return FALSE;
	}
	return TRUE;
}

static void
esd_http_plugin_connection_closed(ErpcPlugin *plugin, ErpcConnection *connection)
{
	esd_http_connection_drop(connection, plugin);
}

static void
esd_http_plugin_finalize(GObject *object)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(object);
	g_clear_object(&self->session);
	G_OBJECT_CLASS(esd_http_plugin_parent_class)->finalize(object);
}

static void
esd_http_plugin_init(EsdHttpPlugin *self)
{
	self->max_body = ESD_HTTP_MAX_BODY_DEFAULT;
	self->max_streams = ESD_HTTP_MAX_STREAMS_DEFAULT;
	self->max_requests = ESD_HTTP_MAX_REQUESTS_DEFAULT;
}

static void
esd_http_plugin_class_init(EsdHttpPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_http_plugin_finalize;
	plugin_class->setup = esd_http_plugin_setup;
	plugin_class->get_option_group = esd_http_plugin_get_option_group;
	plugin_class->load_config = esd_http_plugin_load_config;
	plugin_class->startup = esd_http_plugin_startup;
	plugin_class->connection_closed = esd_http_plugin_connection_closed;
}

ERPC_PLUGIN_DEFINE("http",
		   PACKAGE_VERSION,
		   "http/request: HTTP from the executor through libsoup, streamed bodies",
		   esd_http_plugin_get_type)
