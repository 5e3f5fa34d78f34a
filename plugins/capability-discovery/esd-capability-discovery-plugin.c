/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "esd-capability-discovery-plugin.h"
#include "esd-discovery-cache.h"
#include "esd-discovery-limits.h"
#include "esd-discovery-methods.h"

/**
 * EsdCapabilityDiscoveryPlugin:
 *
 * Capability discovery: capabilityRoots/discoverV1 (plugins and skills
 * under the roots a client names, each read inside its `sandbox`) and
 * capabilities/discoverV2 (the executor's own skills and installed
 * plugins). Registers `capabilityDiscoverySandbox` and
 * `capabilityDiscoveryV2`. The limits are options and `[capability-discovery]`
 * keys. Answers of unsandboxed discoveries are kept until inotify reports a
 * change in what they were read from, so every call sees the file system as
 * it is.
 */

struct _EsdCapabilityDiscoveryPlugin {
	ErpcPlugin parent_instance;
	EsdDiscoveryLimits limits; /* read by the methods' worker threads once set up */
	EsdDiscoveryCache *cache;  /* made at startup */
	gint max_roots;
	gint max_depth;
	gint max_directories;
	gint max_entries;
	gint64 max_file_bytes;
	gint64 max_root_bytes;
	gint64 max_answer_bytes;
	gint cache_entries;
};

G_DEFINE_TYPE(EsdCapabilityDiscoveryPlugin, esd_capability_discovery_plugin, ERPC_TYPE_PLUGIN)

static gboolean
esd_capability_discovery_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	EsdCapabilityDiscoveryPlugin *self = ESD_CAPABILITY_DISCOVERY_PLUGIN(plugin);

	/* capabilityDiscoverySandbox: discoverV1 honours a root's `sandbox` */
	if (!erpc_registry_add_capability(registry, "capabilityDiscoverySandbox", 1, error) ||
	    !erpc_registry_add_capability(registry, "capabilityDiscoveryV2", 1, error))
		return FALSE;
	return esd_discovery_methods_register(registry, plugin, &self->limits, self->cache, error);
}

static GOptionGroup *
esd_capability_discovery_plugin_get_option_group(ErpcPlugin *plugin)
{
	EsdCapabilityDiscoveryPlugin *self = ESD_CAPABILITY_DISCOVERY_PLUGIN(plugin);
	const GOptionEntry entries[] = {
	    {"discovery-max-roots",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_roots,
	     N_("Roots per capabilityRoots/discoverV1 request (default 128, as the reference)"),
	     "N"},
	    {"discovery-max-depth",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_depth,
	     N_("Directory levels listed below a capability root (default 6)"),
	     "N"},
	    {"discovery-max-directories",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_directories,
	     N_("Directories listed per capability root (default 2000)"),
	     "N"},
	    {"discovery-max-entries",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->max_entries,
	     N_("Directory entries seen per capability root (default 20000)"),
	     "N"},
	    {"discovery-max-file-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &self->max_file_bytes,
	     N_("Largest capability file read (default 1048576)"),
	     "BYTES"},
	    {"discovery-max-root-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &self->max_root_bytes,
	     N_("Bytes of files read per capability root (default 16777216)"),
	     "BYTES"},
	    {"discovery-max-answer-bytes",
	     0,
	     0,
	     G_OPTION_ARG_INT64,
	     &self->max_answer_bytes,
	     N_("Largest discovery answer; roots beyond it get an error (default 268435456)"),
	     "BYTES"},
	    {"discovery-cache-entries",
	     0,
	     0,
	     G_OPTION_ARG_INT,
	     &self->cache_entries,
	     N_("Answers kept until inotify reports a change in their files (default 1024, 0 "
		"none)"),
	     "N"},
	    {NULL}};
	GOptionGroup *group = g_option_group_new(
	    "capability-discovery",
	    /* TRANSLATORS: the heading of the capability-discovery plugin's options */
	    _("Capability discovery (capability-discovery plugin):"),
	    _("Show the capability discovery options"),
	    self,
	    NULL);

	g_option_group_add_entries(group, entries);
	g_option_group_set_translation_domain(group, GETTEXT_PACKAGE);
	return group;
}

static gboolean
esd_capability_discovery_plugin_load_config(ErpcPlugin *plugin,
					    GKeyFile *file,
					    const gchar *group,
					    GError **error)
{
	EsdCapabilityDiscoveryPlugin *self = ESD_CAPABILITY_DISCOVERY_PLUGIN(plugin);
	const ErpcConfigKey keys[] = {
	    {"discovery-max-roots", ERPC_CONFIG_KEY_INT, &self->max_roots},
	    {"discovery-max-depth", ERPC_CONFIG_KEY_INT, &self->max_depth},
	    {"discovery-max-directories", ERPC_CONFIG_KEY_INT, &self->max_directories},
	    {"discovery-max-entries", ERPC_CONFIG_KEY_INT, &self->max_entries},
	    {"discovery-max-file-bytes", ERPC_CONFIG_KEY_INT64, &self->max_file_bytes},
	    {"discovery-max-root-bytes", ERPC_CONFIG_KEY_INT64, &self->max_root_bytes},
	    {"discovery-cache-entries", ERPC_CONFIG_KEY_INT, &self->cache_entries},
	    {"discovery-max-answer-bytes", ERPC_CONFIG_KEY_INT64, &self->max_answer_bytes},
	    {NULL}};

	return erpc_plugin_read_config_keys(plugin, file, group, keys, error);
}

static gboolean
esd_capability_discovery_plugin_startup(ErpcPlugin *plugin, GError **error)
{
	EsdCapabilityDiscoveryPlugin *self = ESD_CAPABILITY_DISCOVERY_PLUGIN(plugin);

	if (self->max_roots < 0 || self->max_depth < 0 || self->max_directories < 1 ||
	    self->max_entries < 1 || self->max_file_bytes < 0 || self->max_root_bytes < 0 ||
	    self->max_answer_bytes < 0 || self->cache_entries < 0) {
		g_set_error_literal(
		    error,
		    G_OPTION_ERROR,
		    G_OPTION_ERROR_BAD_VALUE,
		    "--discovery-max-directories and --discovery-max-entries must be at "
		    "least 1, the other discovery limits at least 0");
		return FALSE;
	}
	self->limits.max_roots = (guint)self->max_roots;
	self->limits.max_depth = (guint)self->max_depth;
	self->limits.max_directories = (guint)self->max_directories;
	self->limits.max_entries = (guint)self->max_entries;
	self->limits.max_file_bytes = (gsize)self->max_file_bytes;
	self->limits.max_root_bytes = (gsize)self->max_root_bytes;
	self->limits.max_answer_bytes = (gsize)self->max_answer_bytes;
	esd_discovery_cache_set_max_entries(self->cache, (guint)self->cache_entries);
	return TRUE;
}

static void
esd_capability_discovery_plugin_init(EsdCapabilityDiscoveryPlugin *self)
{
	esd_discovery_limits_init(&self->limits);
	self->max_roots = (gint)self->limits.max_roots;
	self->max_depth = (gint)self->limits.max_depth;
	self->max_directories = (gint)self->limits.max_directories;
	self->max_entries = (gint)self->limits.max_entries;
	self->max_file_bytes = (gint64)self->limits.max_file_bytes;
	self->max_root_bytes = (gint64)self->limits.max_root_bytes;
	self->max_answer_bytes = (gint64)self->limits.max_answer_bytes;
	self->cache_entries = ESD_DISCOVERY_CACHE_ENTRIES_DEFAULT;
	/* made here, as the methods registered at setup take it */
	self->cache = esd_discovery_cache_new(self->cache_entries);
}

static void
esd_capability_discovery_plugin_finalize(GObject *object)
{
	EsdCapabilityDiscoveryPlugin *self = ESD_CAPABILITY_DISCOVERY_PLUGIN(object);
	g_clear_pointer(&self->cache, esd_discovery_cache_free);
	G_OBJECT_CLASS(esd_capability_discovery_plugin_parent_class)->finalize(object);
}

static void
esd_capability_discovery_plugin_class_init(EsdCapabilityDiscoveryPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_capability_discovery_plugin_finalize;
	plugin_class->setup = esd_capability_discovery_plugin_setup;
	plugin_class->get_option_group = esd_capability_discovery_plugin_get_option_group;
	plugin_class->load_config = esd_capability_discovery_plugin_load_config;
	plugin_class->startup = esd_capability_discovery_plugin_startup;
}

ERPC_PLUGIN_DEFINE("capability-discovery",
		   PACKAGE_VERSION,
		   "capability discovery: capabilityRoots/discoverV1, capabilities/discoverV2",
		   esd_capability_discovery_plugin_get_type)
