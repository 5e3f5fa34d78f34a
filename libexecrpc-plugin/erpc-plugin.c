/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-error.h"
#include "erpc-plugin-private.h"
#include "erpc-registry-private.h"

typedef struct {
	gchar *name;
	ErpcRegistry *registry;
} ErpcPluginPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(ErpcPlugin, erpc_plugin, G_TYPE_OBJECT)

/* vfuncs are added from the padding: plugins built before them still fit */
G_STATIC_ASSERT(sizeof(ErpcPluginClass) == sizeof(GObjectClass) + 16 * sizeof(gpointer));

#define GET_PRIVATE(o) ((ErpcPluginPrivate *)erpc_plugin_get_instance_private(o))

enum { PROP_0, PROP_NAME, PROP_LAST };
static GParamSpec *erpc_plugin_props[PROP_LAST] = {NULL};

/**
 * erpc_plugin_get_name:
 * @self: a #ErpcPlugin
 *
 * Gets the name of the plugin, from its #ErpcPluginInfo.
 *
 * Returns: the plugin name
 *
 * Since: 0.1
 */
const gchar *
erpc_plugin_get_name(ErpcPlugin *self)
{
	g_return_val_if_fail(ERPC_IS_PLUGIN(self), NULL);
	return GET_PRIVATE(self)->name;
}

/**
 * erpc_plugin_get_registry:
 * @self: a #ErpcPlugin
 *
 * Gets the registry the plugin registers with.
 *
 * Returns: (transfer none) (nullable): the registry given to `setup`
 *
 * Since: 0.1
 */
ErpcRegistry *
erpc_plugin_get_registry(ErpcPlugin *self)
{
	g_return_val_if_fail(ERPC_IS_PLUGIN(self), NULL);
	return GET_PRIVATE(self)->registry;
}

/* a vfunc that fails must say why */
static gboolean
erpc_plugin_check_result(ErpcPlugin *self,
			 const gchar *vfunc,
			 gboolean ret,
			 GError *error_local,
			 GError **error)
{
	if (ret)
		return TRUE;
	if (error_local == NULL) {
		g_critical("plugin %s: %s failed without an error",
			   erpc_plugin_get_name(self),
			   vfunc);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "plugin %s: %s failed without an error",
			    erpc_plugin_get_name(self),
			    vfunc);
		return FALSE;
	}
	g_propagate_prefixed_error(error, error_local, "plugin %s: ", erpc_plugin_get_name(self));
	return FALSE;
}

/**
 * erpc_plugin_runner_setup:
 * @self: a #ErpcPlugin
 * @registry: the daemon's registry
 * @error: return location for a #GError, or %NULL
 *
 * For the daemon: runs the plugin's `setup` with its registrations
 * attributed to the plugin. On failure, everything it registered is removed.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
erpc_plugin_runner_setup(ErpcPlugin *self, ErpcRegistry *registry, GError **error)
{
	ErpcPluginPrivate *priv = GET_PRIVATE(self);
	ErpcPluginClass *klass = ERPC_PLUGIN_GET_CLASS(self);
	g_autoptr(GError) error_local = NULL;
	gboolean ret = TRUE;

	g_return_val_if_fail(ERPC_IS_PLUGIN(self), FALSE);
	g_set_object(&priv->registry, registry);
	if (klass->setup == NULL)
		return TRUE;
	erpc_registry_set_owner(registry, priv->name);
	ret = klass->setup(self, registry, &error_local);
	erpc_registry_set_owner(registry, NULL);
	if (!erpc_plugin_check_result(self, "setup", ret, g_steal_pointer(&error_local), error)) {
		erpc_registry_remove_owner(registry, priv->name);
		return FALSE;
	}
	return TRUE;
}

/**
 * erpc_plugin_runner_startup:
 * @self: a #ErpcPlugin
 * @error: return location for a #GError, or %NULL
 *
 * For the daemon.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
erpc_plugin_runner_startup(ErpcPlugin *self, GError **error)
{
	ErpcPluginClass *klass = ERPC_PLUGIN_GET_CLASS(self);
	g_autoptr(GError) error_local = NULL;
	gboolean ret;

	g_return_val_if_fail(ERPC_IS_PLUGIN(self), FALSE);
	if (klass->startup == NULL)
		return TRUE;
	ret = klass->startup(self, &error_local);
	return erpc_plugin_check_result(self, "startup", ret, g_steal_pointer(&error_local), error);
}

/**
 * erpc_plugin_runner_connection_closed:
 * @self: a #ErpcPlugin
 * @connection: the connection that closed
 *
 * For the daemon.
 *
 * Since: 0.1
 */
void
erpc_plugin_runner_connection_closed(ErpcPlugin *self, ErpcConnection *connection)
{
	ErpcPluginClass *klass = ERPC_PLUGIN_GET_CLASS(self);
	g_return_if_fail(ERPC_IS_PLUGIN(self));
	if (klass->connection_closed != NULL)
		klass->connection_closed(self, connection);
}

/**
 * erpc_plugin_runner_shutdown:
 * @self: a #ErpcPlugin
 *
 * For the daemon.
 *
 * Since: 0.1
 */
void
erpc_plugin_runner_shutdown(ErpcPlugin *self)
{
	ErpcPluginClass *klass = ERPC_PLUGIN_GET_CLASS(self);
	g_return_if_fail(ERPC_IS_PLUGIN(self));
	if (klass->shutdown != NULL)
		klass->shutdown(self);
}

/**
 * erpc_plugin_runner_get_option_group:
 * @self: a #ErpcPlugin
 *
 * For the daemon.
 *
 * Returns: (transfer full) (nullable): the plugin's options, for the daemon's
 *   #GOptionContext
 *
 * Since: 0.2
 */
GOptionGroup *
erpc_plugin_runner_get_option_group(ErpcPlugin *self)
{
	ErpcPluginClass *klass = ERPC_PLUGIN_GET_CLASS(self);
	g_return_val_if_fail(ERPC_IS_PLUGIN(self), NULL);
	if (klass->get_option_group == NULL)
		return NULL;
	return klass->get_option_group(self);
}

/**
 * erpc_plugin_runner_load_config:
 * @self: a #ErpcPlugin
 * @file: the daemon's config file
 * @group: the plugin's section of it
 * @error: return location for a #GError, or %NULL
 *
 * For the daemon. A plugin without `load_config` accepts no section: its
 * keys are reported as unknown.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.2
 */
gboolean
erpc_plugin_runner_load_config(ErpcPlugin *self, GKeyFile *file, const gchar *group, GError **error)
{
	ErpcPluginClass *klass = ERPC_PLUGIN_GET_CLASS(self);
	g_autoptr(GError) error_local = NULL;
	gboolean ret;

	g_return_val_if_fail(ERPC_IS_PLUGIN(self), FALSE);
	if (klass->load_config == NULL) {
		erpc_plugin_check_config_keys(self, file, group, NULL);
		return TRUE;
	}
	ret = klass->load_config(self, file, group, &error_local);
	return erpc_plugin_check_result(self,
					"load_config",
					ret,
					g_steal_pointer(&error_local),
					error);
}

/**
 * erpc_plugin_check_config_keys:
 * @self: a #ErpcPlugin
 * @file: the file given to `load_config`
 * @group: the group given to `load_config`
 * @known: (nullable) (array zero-terminated=1): the keys the plugin reads
 *
 * Warns once about each key of @group that is not in @known, so that a
 * misspelt setting does not go unnoticed; for `load_config`.
 *
 * Since: 0.2
 */
void
erpc_plugin_check_config_keys(ErpcPlugin *self,
			      GKeyFile *file,
			      const gchar *group,
			      const gchar *const *known)
{
	g_auto(GStrv) keys = NULL;

	g_return_if_fail(ERPC_IS_PLUGIN(self));
	g_return_if_fail(file != NULL && group != NULL);
	keys = g_key_file_get_keys(file, group, NULL, NULL);
	for (guint i = 0; keys != NULL && keys[i] != NULL; i++) {
		if (known == NULL || !g_strv_contains(known, keys[i]))
			g_warning("config file: unknown key %s in [%s], ignored", keys[i], group);
	}
}

/**
 * erpc_plugin_read_config_keys:
 * @self: a #ErpcPlugin
 * @file: the file given to `load_config`
 * @group: the group given to `load_config`
 * @keys: (array zero-terminated=1): the keys the plugin reads, ended by one
 *   whose @name is %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The whole of a typical `load_config`: warns about the keys of @group not
 * in @keys (as erpc_plugin_check_config_keys()), and stores the value of
 * each key of @keys that @group has; a key it lacks keeps its value. An
 * integer that does not parse or does not fit fails with the key's name in
 * front of the message.
 *
 * Returns: %TRUE if every key present was read
 *
 * Since: 0.2
 */
gboolean
erpc_plugin_read_config_keys(ErpcPlugin *self,
			     GKeyFile *file,
			     const gchar *group,
			     const ErpcConfigKey *keys,
			     GError **error)
{
	g_autoptr(GPtrArray) known = g_ptr_array_new();

	g_return_val_if_fail(ERPC_IS_PLUGIN(self), FALSE);
	g_return_val_if_fail(file != NULL && group != NULL && keys != NULL, FALSE);
	for (guint i = 0; keys[i].name != NULL; i++)
		g_ptr_array_add(known, (gpointer)keys[i].name);
	g_ptr_array_add(known, NULL);
	erpc_plugin_check_config_keys(self, file, group, (const gchar *const *)known->pdata);
	for (guint i = 0; keys[i].name != NULL; i++) {
		const ErpcConfigKey *key = &keys[i];
		g_autoptr(GError) error_local = NULL;

		if (!g_key_file_has_key(file, group, key->name, NULL))
			continue;
		if (key->type == ERPC_CONFIG_KEY_STRING) {
			gchar *value = g_key_file_get_string(file, group, key->name, &error_local);
			if (value != NULL) {
				g_free(*(gchar **)key->value);
				*(gchar **)key->value = value;
			}
		} else {
			gint64 value = g_key_file_get_int64(file, group, key->name, &error_local);
			if (error_local == NULL && key->type == ERPC_CONFIG_KEY_INT &&
			    (value < G_MININT || value > G_MAXINT))
				g_set_error(&error_local,
					    G_KEY_FILE_ERROR,
					    G_KEY_FILE_ERROR_INVALID_VALUE,
					    "%" G_GINT64_FORMAT " is out of range",
					    value);
			else if (error_local == NULL && key->type == ERPC_CONFIG_KEY_INT)
				*(gint *)key->value = (gint)value;
			else if (error_local == NULL)
				*(gint64 *)key->value = value;
		}
		if (error_local != NULL) {
			g_propagate_prefixed_error(error,
						   g_steal_pointer(&error_local),
						   "%s: ",
						   key->name);
			return FALSE;
		}
	}
	return TRUE;
}

static void
erpc_plugin_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	ErpcPluginPrivate *priv = GET_PRIVATE(ERPC_PLUGIN(object));
	switch (prop_id) {
	case PROP_NAME:
		g_value_set_string(value, priv->name);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_plugin_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	ErpcPluginPrivate *priv = GET_PRIVATE(ERPC_PLUGIN(object));
	switch (prop_id) {
	case PROP_NAME:
		g_free(priv->name);
		priv->name = g_value_dup_string(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
}

static void
erpc_plugin_finalize(GObject *object)
{
	ErpcPluginPrivate *priv = GET_PRIVATE(ERPC_PLUGIN(object));
	g_free(priv->name);
	g_clear_object(&priv->registry);
	G_OBJECT_CLASS(erpc_plugin_parent_class)->finalize(object);
}

static void
erpc_plugin_init(ErpcPlugin *self)
{
}

static void
erpc_plugin_class_init(ErpcPluginClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->get_property = erpc_plugin_get_property;
	object_class->set_property = erpc_plugin_set_property;
	object_class->finalize = erpc_plugin_finalize;

	/**
	 * ErpcPlugin:name:
	 *
	 * The plugin name, as in its #ErpcPluginInfo.
	 *
	 * Since: 0.1
	 */
	erpc_plugin_props[PROP_NAME] = g_param_spec_string(
	    "name",
	    NULL,
	    NULL,
	    NULL,
	    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, PROP_LAST, erpc_plugin_props);
}

/**
 * erpc_plugin_get_context:
 * @self: a plugin
 *
 * The daemon's host services, available from `setup` on.
 *
 * Returns: (transfer none) (nullable): the context of the registry given to `setup`
 *
 * Since: 0.2
 */
ErpcContext *
erpc_plugin_get_context(ErpcPlugin *self)
{
	ErpcRegistry *registry = erpc_plugin_get_registry(self);
	return registry != NULL ? erpc_registry_get_context(registry) : NULL;
}
