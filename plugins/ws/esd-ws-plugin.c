/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-ws-listener.h"
#include "esd-ws-options.h"
#include "esd-ws-plugin.h"

struct _EsdWsPlugin {
	ErpcPlugin parent_instance;
	EsdWsOptions options;
};

G_DEFINE_TYPE(EsdWsPlugin, esd_ws_plugin, ERPC_TYPE_PLUGIN)

/*
 * The daemon makes listeners from their GType alone, and loads a plugin once
 * per process: the checked options are kept here for them.
 */
static GVariant *esd_ws_plugin_listener_options = NULL;

/**
 * esd_ws_plugin_get_listener_options:
 *
 * Returns: (transfer none) (nullable): the authentication and TLS settings
 *   of every listener, once the plugin has started
 */
GVariant *
esd_ws_plugin_get_listener_options(void)
{
	return esd_ws_plugin_listener_options;
}

static gboolean
esd_ws_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	if (!erpc_registry_add_extension(registry,
					 ERPC_EXTENSION_POINT_TRANSPORT,
					 "ws",
					 ESD_TYPE_WS_LISTENER,
					 0,
					 error))
		return FALSE;
	/* the same listener, over TLS */
	return erpc_registry_add_extension(registry,
					   ERPC_EXTENSION_POINT_TRANSPORT,
					   "wss",
					   ESD_TYPE_WS_LISTENER,
					   0,
					   error);
}

static GOptionGroup *
esd_ws_plugin_get_option_group(ErpcPlugin *plugin)
{
	return esd_ws_options_new_group(&ESD_WS_PLUGIN(plugin)->options);
}

static gboolean
esd_ws_plugin_load_config(ErpcPlugin *plugin, GKeyFile *file, const gchar *group, GError **error)
{
	erpc_plugin_check_config_keys(plugin, file, group, esd_ws_options_get_config_keys());
	return esd_ws_options_load_config(&ESD_WS_PLUGIN(plugin)->options, file, group, error);
}

/* secrets are read now, once; errors name the file, never its content */
static gboolean
esd_ws_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdWsPlugin *self = ESD_WS_PLUGIN(plugin);
	ErpcContext *context = erpc_plugin_get_context(plugin);
	const gchar *secrets[] = {self->options.ws_token_file,
				  self->options.ws_shared_secret_file,
				  self->options.tls_key};
	GVariant *options;

	options =
	    esd_ws_options_to_variant(&self->options, erpc_context_get_listen_uris(context), error);
	if (options == NULL)
		return FALSE;
	g_clear_pointer(&esd_ws_plugin_listener_options, g_variant_unref);
	esd_ws_plugin_listener_options = options;
	/* what authenticates to the daemon stays out of every sandbox */
	for (guint i = 0; i < G_N_ELEMENTS(secrets); i++) {
		if (secrets[i] != NULL)
			erpc_context_hide_path(context, secrets[i]);
	}
	erpc_context_set_tcp_authenticated(context, self->options.ws_auth != NULL);
	return TRUE;
}

static void
esd_ws_plugin_finalize(GObject *object)
{
	EsdWsPlugin *self = ESD_WS_PLUGIN(object);
	esd_ws_options_clear(&self->options);
	g_clear_pointer(&esd_ws_plugin_listener_options, g_variant_unref);
	G_OBJECT_CLASS(esd_ws_plugin_parent_class)->finalize(object);
}

static void
esd_ws_plugin_init(EsdWsPlugin *self)
{
}

static void
esd_ws_plugin_class_init(EsdWsPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_ws_plugin_finalize;
	plugin_class->setup = esd_ws_plugin_setup;
	plugin_class->get_option_group = esd_ws_plugin_get_option_group;
	plugin_class->load_config = esd_ws_plugin_load_config;
	plugin_class->startup = esd_ws_plugin_startup;
}

ERPC_PLUGIN_DEFINE("ws",
		   PACKAGE_VERSION,
		   "JSON-RPC over WebSocket (libsoup), one message per WebSocket message",
		   esd_ws_plugin_get_type)
