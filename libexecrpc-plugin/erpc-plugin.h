/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>
#include <gmodule.h>

#include "erpc-plugin-version.h"
#include "erpc-registry.h"

G_BEGIN_DECLS

/**
 * ErpcPlugin:
 *
 * The base class of a plugin: a plugin module subclasses it and names the
 * subclass in its #ErpcPluginInfo; see #ErpcPluginClass.
 *
 * Since: 0.1
 */
#define ERPC_TYPE_PLUGIN (erpc_plugin_get_type())
G_DECLARE_DERIVABLE_TYPE(ErpcPlugin, erpc_plugin, ERPC, PLUGIN, GObject)

/**
 * ErpcPluginClass:
 * @setup: register methods, capabilities and extensions; no I/O
 * @startup: everything is registered; start what the plugin runs
 * @connection_closed: a connection has gone; drop its state
 * @shutdown: the daemon is stopping; must not block
 * @get_option_group: the plugin's command-line options, or %NULL; called
 *   once, after @setup and before the command line is parsed. The group is
 *   shown by `--help-all` and `--help-NAME` (name it after the plugin). Since: 0.2
 * @load_config: read the section @group (`[NAME]`) of the daemon's config
 *   file; called after @get_option_group and before the command line is
 *   parsed, so that command-line values replace the file's. A value it
 *   refuses stops the daemon with the error. Since: 0.2
 *
 * A plugin is a shared object `libesd-plugin-NAME.so` that exports exactly
 * one symbol, %ERPC_PLUGIN_SYMBOL, defined with ERPC_PLUGIN_DEFINE(). The
 * daemon instantiates the plugin's type and calls @setup once with its
 * registry. Any registration that conflicts with another plugin fails
 * @setup; the plugin is then removed whole. The options of the command line
 * and the config file are known from @startup on; a plugin that refuses them
 * fails @startup, which stops the daemon.
 *
 * Since: 0.1
 */
struct _ErpcPluginClass {
	GObjectClass parent_class;
	gboolean (*setup)(ErpcPlugin *self, ErpcRegistry *registry, GError **error);
	gboolean (*startup)(ErpcPlugin *self, GError **error);
	void (*connection_closed)(ErpcPlugin *self, ErpcConnection *connection);
	void (*shutdown)(ErpcPlugin *self);
	GOptionGroup *(*get_option_group)(ErpcPlugin *self);
	gboolean (*load_config)(ErpcPlugin *self,
				GKeyFile *file,
				const gchar *group,
				GError **error);
	/*< private >*/
	gpointer padding[10];
};

/**
 * ErpcPluginInfo:
 * @abi_version: %ERPC_PLUGIN_ABI_VERSION
 * @build_id: %ERPC_BUILD_ID, which must equal the daemon's
 * @name: the plugin name, which must match the file name
 * @version: the plugin's own version
 * @description: one line for `--list-plugins`
 * @get_type: returns a subclass of #ErpcPlugin
 *
 * What the entry symbol returns. The loader checks every field before it
 * instantiates anything.
 *
 * Since: 0.1
 */
typedef struct {
	guint32 abi_version;
	const gchar *build_id;
	const gchar *name;
	const gchar *version;
	const gchar *description;
	GType (*get_type)(void);
	/*< private >*/
	gpointer reserved[4];
} ErpcPluginInfo;

/**
 * ERPC_PLUGIN_SYMBOL:
 *
 * The one symbol a plugin exports: `const ErpcPluginInfo *erpc_plugin_query(void)`.
 *
 * Since: 0.1
 */
#define ERPC_PLUGIN_SYMBOL "erpc_plugin_query"

/**
 * ERPC_PLUGIN_DEFINE:
 * @plugin_name: the plugin name, a string literal
 * @plugin_version: the plugin version, a string literal
 * @plugin_description: one line, a string literal
 * @get_type_func: the `_get_type` function of the plugin class
 *
 * Defines the entry symbol of a plugin. Use it once, in one source file.
 *
 * Since: 0.1
 */
#define ERPC_PLUGIN_DEFINE(plugin_name, plugin_version, plugin_description, get_type_func)         \
	G_MODULE_EXPORT const ErpcPluginInfo *erpc_plugin_query(void);                             \
	const ErpcPluginInfo *erpc_plugin_query(void)                                              \
	{                                                                                          \
		static const ErpcPluginInfo info = {ERPC_PLUGIN_ABI_VERSION,                       \
						    ERPC_BUILD_ID,                                 \
						    plugin_name,                                   \
						    plugin_version,                                \
						    plugin_description,                            \
						    get_type_func,                                 \
						    {NULL}};                                       \
		return &info;                                                                      \
	}

/**
 * ErpcPluginQueryFunc:
 *
 * The type of %ERPC_PLUGIN_SYMBOL.
 *
 * Returns: the plugin's description
 *
 * Since: 0.1
 */
typedef const ErpcPluginInfo *(*ErpcPluginQueryFunc)(void);

const gchar *
erpc_plugin_get_name(ErpcPlugin *self);
ErpcRegistry *
erpc_plugin_get_registry(ErpcPlugin *self);
ErpcContext *
erpc_plugin_get_context(ErpcPlugin *self);

void
erpc_plugin_check_config_keys(ErpcPlugin *self,
			      GKeyFile *file,
			      const gchar *group,
			      const gchar *const *known);

/**
 * ErpcConfigKeyType:
 * @ERPC_CONFIG_KEY_INT: an integer that fits a #gint; @value is a `gint *`
 * @ERPC_CONFIG_KEY_INT64: a 64-bit integer; @value is a `gint64 *`
 * @ERPC_CONFIG_KEY_STRING: a string; @value is a `gchar **`, whose old
 *   value is freed
 *
 * What erpc_plugin_read_config_keys() reads a key as.
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_CONFIG_KEY_INT,
	ERPC_CONFIG_KEY_INT64,
	ERPC_CONFIG_KEY_STRING,
} ErpcConfigKeyType;

/**
 * ErpcConfigKey:
 * @name: the key, as in the plugin's `[NAME]` group
 * @type: what it is read as
 * @value: where its value goes
 *
 * One key of a plugin's config section, for erpc_plugin_read_config_keys().
 *
 * Since: 0.2
 */
typedef struct {
	const gchar *name;
	ErpcConfigKeyType type;
	gpointer value;
} ErpcConfigKey;

gboolean
erpc_plugin_read_config_keys(ErpcPlugin *self,
			     GKeyFile *file,
			     const gchar *group,
			     const ErpcConfigKey *keys,
			     GError **error);

G_END_DECLS
