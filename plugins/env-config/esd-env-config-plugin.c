/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "esd-env-config-methods.h"
#include "esd-env-config-plugin.h"

/**
 * EsdEnvConfigPlugin:
 *
 * environmentConfig/read: the executor's own Codex config layers (system,
 * user, trusted project, legacy managed) and requirements, projected to the
 * key paths the client asks for.
 */

#define ESD_ENV_CONFIG_MAX_BYTES_DEFAULT  (16 * 1024 * 1024)
#define ESD_ENV_CONFIG_SYSTEM_DIR_DEFAULT "/etc/codex"

struct _EsdEnvConfigPlugin {
	ErpcPlugin parent_instance;
	EsdEnvConfigSettings settings;
	gint max_bytes; /* --env-config-max-bytes */
};

G_DEFINE_TYPE(EsdEnvConfigPlugin, esd_env_config_plugin, ERPC_TYPE_PLUGIN)

static gboolean
esd_env_config_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	EsdEnvConfigPlugin *self = ESD_ENV_CONFIG_PLUGIN(plugin);

	if (!erpc_registry_add_capability(registry, "environmentConfigRead", 1, error))
		return FALSE;
	return esd_env_config_methods_register(registry, &self->settings, error);
}

static GOptionGroup *
esd_env_config_plugin_get_option_group(ErpcPlugin *plugin)
{
	EsdEnvConfigPlugin *self = ESD_ENV_CONFIG_PLUGIN(plugin);
	const GOptionEntry entries[] = {
	    {"env-config-max-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_bytes,
	     N_("Largest config file environmentConfig/read reads (default 16 MiB)"),
	     "BYTES"},
	    {"env-config-system-dir",
	     0,
	     0,
	     G_OPTION_ARG_FILENAME,
	     &self->settings.system_dir,
	     N_("Directory of the system config.toml, requirements.toml and "
		"managed_config.toml (default /etc/codex)"),
	     "DIR"},
	    {NULL}};
	GOptionGroup *group =
	    g_option_group_new("env-config",
			       /* TRANSLATORS: the heading of the env-config plugin's options */
			       _("Executor config (env-config plugin):"),
			       _("Show the executor config options"),
			       self,
			       NULL);

	g_option_group_add_entries(group, entries);
	g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);
	return group;
}

static gboolean
esd_env_config_plugin_load_config(ErpcPlugin *plugin,
				  GKeyFile *file,
				  const gchar *group,
				  GError **error)
{
	EsdEnvConfigPlugin *self = ESD_ENV_CONFIG_PLUGIN(plugin);
	const ErpcConfigKey keys[] = {
	    {"env-config-max-bytes", ERPC_CONFIG_KEY_INT, &self->max_bytes},
	    {"env-config-system-dir", ERPC_CONFIG_KEY_STRING, &self->settings.system_dir},
	    {NULL}};

	return erpc_plugin_read_config_keys(plugin, file, group, keys, error);
}

static gboolean
esd_env_config_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdEnvConfigPlugin *self = ESD_ENV_CONFIG_PLUGIN(plugin);

	if (self->max_bytes < 1) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--env-config-max-bytes must be at least 1");
		return FALSE;
	}
	if (self->settings.system_dir == NULL || !g_path_is_absolute(self->settings.system_dir)) {
		g_set_error_literal(error,
				    G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--env-config-system-dir must be an absolute path");
		return FALSE;
	}
	self->settings.max_bytes = self->max_bytes;
	return TRUE;
}

static void
esd_env_config_plugin_finalize(GObject *object)
{
	EsdEnvConfigPlugin *self = ESD_ENV_CONFIG_PLUGIN(object);
	g_free(self->settings.system_dir);
	G_OBJECT_CLASS(esd_env_config_plugin_parent_class)->finalize(object);
}

static void
esd_env_config_plugin_init(EsdEnvConfigPlugin *self)
{
	self->max_bytes = ESD_ENV_CONFIG_MAX_BYTES_DEFAULT;
	self->settings.max_bytes = ESD_ENV_CONFIG_MAX_BYTES_DEFAULT;
	self->settings.system_dir = g_strdup(ESD_ENV_CONFIG_SYSTEM_DIR_DEFAULT);
}

static void
esd_env_config_plugin_class_init(EsdEnvConfigPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_env_config_plugin_finalize;
	plugin_class->setup = esd_env_config_plugin_setup;
	plugin_class->get_option_group = esd_env_config_plugin_get_option_group;
	plugin_class->load_config = esd_env_config_plugin_load_config;
	plugin_class->startup = esd_env_config_plugin_startup;
}

ERPC_PLUGIN_DEFINE("env-config",
		   PACKAGE_VERSION,
		   "environmentConfig/read: the executor's Codex config layers, projected",
		   esd_env_config_plugin_get_type)
