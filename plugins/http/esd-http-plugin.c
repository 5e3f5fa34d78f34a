/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <dlfcn.h>

#include "esd-http-impl.h"
#include "esd-http-plugin.h"

/**
 * EsdHttpPlugin:
 *
 * `http/request` (PROTOCOL.md §12): HTTP made by the executor, through
 * libsoup's #SoupSession. This module only registers the method, the
 * capability and the options; the requests are in libesd-http-request.so
 * (esd-http-impl.h), opened on the first request, so that a daemon that
 * makes none maps neither it nor libsoup.
 */

struct _EsdHttpPlugin {
	ErpcPlugin parent_instance;
	EsdHttpLimits limits;
	const EsdHttpImpl *impl; /* once loaded */
	EsdHttpContext *context;
	gchar *impl_failure;
};

G_DEFINE_TYPE(EsdHttpPlugin, esd_http_plugin, ERPC_TYPE_PLUGIN)

/* libesd-http-request.so, next to this module; FALSE with the reason kept */
static gboolean
esd_http_plugin_load_impl(EsdHttpPlugin *self)
{
	g_autofree gchar *dir = NULL;
	g_autofree gchar *path = NULL;
	EsdHttpImplGetFunc get = NULL;
	void *module;
	Dl_info info;

	if (self->impl != NULL || self->impl_failure != NULL)
		return self->impl != NULL;
	if (dladdr((gconstpointer)esd_http_plugin_load_impl, &info) == 0 ||
	    info.dli_fname == NULL) {
		self->impl_failure = g_strdup("cannot find the http plugin's directory");
		return FALSE;
	}
	dir = g_path_get_dirname(info.dli_fname);
	path = g_build_filename(dir, ESD_HTTP_IMPL_MODULE, NULL);
	/* dlopen(): see esd-plugin-loader.c; never closed, its types and the session stay */
	module = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	if (module == NULL) {
		const gchar *reason = dlerror();
		self->impl_failure = g_strdup(reason != NULL ? reason : path);
		return FALSE;
	}
	get = (const EsdHttpImpl *(*)(void))dlsym(module, ESD_HTTP_IMPL_SYMBOL);
	if (get == NULL || g_strcmp0(get()->build_id, ERPC_BUILD_ID) != 0) {
		self->impl_failure = g_strdup_printf("%s is not of this build", path);
		return FALSE;
	}
	self->impl = get();
	self->context = self->impl->context_new(&self->limits);
	return TRUE;
}

static void
esd_http_plugin_request(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(user_data);

	if (!esd_http_plugin_load_impl(self)) {
		g_autoptr(GError) error = g_error_new(ERPC_ERROR,
						      ERPC_ERROR_INTERNAL,
						      "http/request failed: %s",
						      self->impl_failure);
		erpc_call_return_error(call, error);
		return;
	}
	self->impl->request(self->context, call, params);
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
	     &self->limits.max_body,
	     N_("Largest response body http/request returns whole (default 64 MiB)"),
	     "BYTES"},
	    {"http-max-streams",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->limits.max_streams,
	     N_("Streamed http/request responses active per connection (default 64)"),
	     "N"},
	    {"http-max-requests",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->limits.max_requests,
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
	const ErpcConfigKey keys[] = {
	    {"http-max-body-bytes", ERPC_CONFIG_KEY_INT64, &self->limits.max_body},
	    {"http-max-streams", ERPC_CONFIG_KEY_INT, &self->limits.max_streams},
	    {"http-max-requests", ERPC_CONFIG_KEY_INT, &self->limits.max_requests},
	    {NULL}};

	return erpc_plugin_read_config_keys(plugin, file, group, keys, error);
}

static gboolean
esd_http_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(plugin);

	/* a buffered body goes out as one base64 string */
	if (self->limits.max_body < 0 || self->limits.max_body > G_MAXINT32) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--http-max-body-bytes must be between 0 and 2147483647");
		return FALSE;
	}
	/* their sum bounds the session's connections */
	if (self->limits.max_streams < 1 || self->limits.max_requests < 1 ||
	    self->limits.max_streams > G_MAXINT / 2 || self->limits.max_requests > G_MAXINT / 2) {
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
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(plugin);

	/* before the first request, no connection has anything of ours */
	if (self->impl != NULL)
		self->impl->connection_closed(self->context, connection);
}

static void
esd_http_plugin_finalize(GObject *object)
{
	EsdHttpPlugin *self = ESD_HTTP_PLUGIN(object);
	if (self->context != NULL)
		self->impl->context_free(self->context);
	g_free(self->impl_failure);
	G_OBJECT_CLASS(esd_http_plugin_parent_class)->finalize(object);
}

static void
esd_http_plugin_init(EsdHttpPlugin *self)
{
	self->limits.max_body = ESD_HTTP_MAX_BODY_DEFAULT;
	self->limits.max_streams = ESD_HTTP_MAX_STREAMS_DEFAULT;
	self->limits.max_requests = ESD_HTTP_MAX_REQUESTS_DEFAULT;
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
