/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-context-private.h"
#include "erpc-error.h"
#include "erpc-registry-private.h"

/**
 * ErpcRegistry:
 *
 * What the loaded plugins provide: RPC methods, capabilities with versions,
 * and implementations of extension points. Every registration is attributed
 * to the current owner (a plugin name, set by the daemon around each
 * plugin's `setup`), so that a conflict names both sides and a failed plugin
 * can be removed whole.
 *
 * Since: 0.1
 */

typedef struct {
	ErpcMethodInfo info;
	gchar *owner;
	gpointer user_data;
	GDestroyNotify user_data_free;
} ErpcRegistryMethod;

typedef struct {
	gchar *name;
	gchar *owner;
	guint version;
} ErpcRegistryCapability;

typedef struct {
	gchar *point;
	gchar *name;
	gchar *owner;
	GType gtype;
	gint priority;
} ErpcRegistryExtension;

struct _ErpcRegistry {
	GObject parent_instance;
	GHashTable *methods;	  /* name → ErpcRegistryMethod */
	GHashTable *capabilities; /* name → ErpcRegistryCapability */
	GPtrArray *extensions;	  /* of ErpcRegistryExtension */
	gchar *owner;
	GHashTable *options;  /* name → GVariant: the daemon's settings for plugins */
	ErpcContext *context; /* the host services, set by the daemon */
};

G_DEFINE_TYPE(ErpcRegistry, erpc_registry, G_TYPE_OBJECT)

static void
erpc_registry_method_free(ErpcRegistryMethod *method)
{
	if (method->user_data_free != NULL)
		method->user_data_free(method->user_data);
	g_free((gchar *)method->info.name);
	g_free((gchar *)method->info.family);
	g_free((gchar *)method->info.params_type);
	g_free((gchar *)method->info.capability);
	g_free(method->owner);
	g_free(method);
}

static void
erpc_registry_capability_free(ErpcRegistryCapability *capability)
{
	g_free(capability->name);
	g_free(capability->owner);
	g_free(capability);
}

static void
erpc_registry_extension_free(ErpcRegistryExtension *extension)
{
	g_free(extension->point);
	g_free(extension->name);
	g_free(extension->owner);
	g_free(extension);
}

static const gchar *
erpc_registry_owner(ErpcRegistry *self)
{
	return self->owner != NULL ? self->owner : "core";
}

/**
 * erpc_registry_add_method:
 * @self: a #ErpcRegistry
 * @info: the method; copied
 * @user_data: passed to the handler
 * @user_data_free: (nullable): frees @user_data with the registration
 * @error: return location for a #GError, or %NULL
 *
 * Registers an RPC method. A name that is already registered is refused,
 * naming the owner of the first registration.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
erpc_registry_add_method(ErpcRegistry *self,
			 const ErpcMethodInfo *info,
			 gpointer user_data,
			 GDestroyNotify user_data_free,
			 GError **error)
{
	ErpcRegistryMethod *method;
	ErpcRegistryMethod *existing;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), FALSE);
	g_return_val_if_fail(info != NULL && info->name != NULL && info->func != NULL, FALSE);

	existing = g_hash_table_lookup(self->methods, info->name);
	if (existing != NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_EXISTS,
			    "method %s of %s is already registered by %s",
			    info->name,
			    erpc_registry_owner(self),
			    existing->owner);
		return FALSE;
	}
	method = g_new0(ErpcRegistryMethod, 1);
	method->info.name = g_strdup(info->name);
	method->info.family = g_strdup(info->family != NULL ? info->family : info->name);
	method->info.params_type = g_strdup(info->params_type);
	method->info.capability = g_strdup(info->capability);
	method->info.since_version = info->since_version;
	method->info.flags = info->flags;
	method->info.func = info->func;
	method->owner = g_strdup(erpc_registry_owner(self));
	method->user_data = user_data;
	method->user_data_free = user_data_free;
	g_hash_table_insert(self->methods, (gpointer)method->info.name, method);
	return TRUE;
}

/**
 * erpc_registry_add_capability:
 * @self: a #ErpcRegistry
 * @capability: a capability name, e.g. `fsWatchMissing`
 * @version: its version, at least 1
 * @error: return location for a #GError, or %NULL
 *
 * Registers a capability. Capabilities the protocol knows are advertised in
 * `environmentInfo.capabilities`, `true` when registered.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
erpc_registry_add_capability(ErpcRegistry *self,
			     const gchar *capability,
			     guint version,
			     GError **error)
{
	ErpcRegistryCapability *existing;
	ErpcRegistryCapability *cap;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), FALSE);
	g_return_val_if_fail(capability != NULL, FALSE);

	if (version == 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "capability %s of %s has version 0",
			    capability,
			    erpc_registry_owner(self));
		return FALSE;
	}
	existing = g_hash_table_lookup(self->capabilities, capability);
	if (existing != NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_EXISTS,
			    "capability %s of %s is already registered by %s",
			    capability,
			    erpc_registry_owner(self),
			    existing->owner);
		return FALSE;
	}
	cap = g_new0(ErpcRegistryCapability, 1);
	cap->name = g_strdup(capability);
	cap->owner = g_strdup(erpc_registry_owner(self));
	cap->version = version;
	g_hash_table_insert(self->capabilities, cap->name, cap);
	return TRUE;
}

/**
 * erpc_registry_add_extension:
 * @self: a #ErpcRegistry
 * @point: the extension point, e.g. %ERPC_EXTENSION_POINT_TRANSPORT
 * @name: the implementation's name, e.g. the URI scheme `ws`
 * @gtype: the implementing type
 * @priority: higher wins when the daemon picks a default
 * @error: return location for a #GError, or %NULL
 *
 * Registers an implementation of an extension point, such as a transport.
 *
 * Returns: %TRUE on success; a second implementation with the same @point
 *   and @name is refused
 *
 * Since: 0.1
 */
gboolean
erpc_registry_add_extension(ErpcRegistry *self,
			    const gchar *point,
			    const gchar *name,
			    GType gtype,
			    gint priority,
			    GError **error)
{
	ErpcRegistryExtension *extension;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), FALSE);
	g_return_val_if_fail(point != NULL && name != NULL, FALSE);

	for (guint i = 0; i < self->extensions->len; i++) {
		ErpcRegistryExtension *existing = g_ptr_array_index(self->extensions, i);
		if (g_strcmp0(existing->point, point) == 0 &&
		    g_strcmp0(existing->name, name) == 0) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_EXISTS,
				    "%s extension %s of %s is already registered by %s",
				    point,
				    name,
				    erpc_registry_owner(self),
				    existing->owner);
			return FALSE;
		}
	}
	extension = g_new0(ErpcRegistryExtension, 1);
	extension->point = g_strdup(point);
	extension->name = g_strdup(name);
	extension->owner = g_strdup(erpc_registry_owner(self));
	extension->gtype = gtype;
	extension->priority = priority;
	g_ptr_array_add(self->extensions, extension);
	return TRUE;
}

/**
 * erpc_registry_get_capability_version:
 * @self: a #ErpcRegistry
 * @capability: a capability name
 *
 * Gets the version a capability is registered with.
 *
 * Returns: its version, or 0 when nothing provides it
 *
 * Since: 0.1
 */
guint
erpc_registry_get_capability_version(ErpcRegistry *self, const gchar *capability)
{
	ErpcRegistryCapability *cap;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), 0);
	cap = g_hash_table_lookup(self->capabilities, capability);
	return cap != NULL ? cap->version : 0;
}

/**
 * erpc_registry_lookup_method:
 * @self: a #ErpcRegistry
 * @name: a method name
 * @user_data: (out) (optional): the handler's user data
 *
 * Returns: (nullable): the method, or %NULL if it is unknown or its
 *   capability version is too low
 *
 * Since: 0.1
 */
const ErpcMethodInfo *
erpc_registry_lookup_method(ErpcRegistry *self, const gchar *name, gpointer *user_data)
{
	ErpcRegistryMethod *method;

	method = g_hash_table_lookup(self->methods, name);
	if (method == NULL)
		return NULL;
	if (method->info.capability != NULL &&
	    erpc_registry_get_capability_version(self, method->info.capability) <
		MAX(method->info.since_version, 1))
		return NULL;
	if (user_data != NULL)
		*user_data = method->user_data;
	return &method->info;
}

/* the method as registered, whatever its capability's version: for manifests */
const ErpcMethodInfo *
erpc_registry_get_method(ErpcRegistry *self, const gchar *name)
{
	ErpcRegistryMethod *method;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), NULL);
	method = g_hash_table_lookup(self->methods, name);
	return method != NULL ? &method->info : NULL;
}

/**
 * erpc_registry_lookup_extension:
 * @self: a #ErpcRegistry
 * @point: the extension point
 * @name: (nullable): the implementation, or %NULL for the highest priority
 *
 * Finds an implementation of an extension point, e.g. the listener type of
 * a URI scheme.
 *
 * Returns: the implementing type, or %G_TYPE_INVALID
 *
 * Since: 0.1
 */
GType
erpc_registry_lookup_extension(ErpcRegistry *self, const gchar *point, const gchar *name)
{
	ErpcRegistryExtension *best = NULL;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), G_TYPE_INVALID);
	for (guint i = 0; i < self->extensions->len; i++) {
		ErpcRegistryExtension *extension = g_ptr_array_index(self->extensions, i);
		if (g_strcmp0(extension->point, point) != 0)
			continue;
		if (name != NULL && g_strcmp0(extension->name, name) != 0)
			continue;
		if (best == NULL || extension->priority > best->priority)
			best = extension;
	}
	return best != NULL ? best->gtype : G_TYPE_INVALID;
}

static gint
erpc_registry_sort_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar **)a, *(const gchar **)b);
}

/**
 * erpc_registry_list_methods:
 * @self: a #ErpcRegistry
 * @owner: (nullable): only those of this owner
 *
 * Lists the registered methods.
 *
 * Returns: (transfer container) (element-type utf8): sorted method names
 *
 * Since: 0.1
 */
GPtrArray *
erpc_registry_list_methods(ErpcRegistry *self, const gchar *owner)
{
	GPtrArray *names = g_ptr_array_new();
	GHashTableIter iter;
	ErpcRegistryMethod *method;

	g_hash_table_iter_init(&iter, self->methods);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&method)) {
		if (owner == NULL || g_strcmp0(owner, method->owner) == 0)
			g_ptr_array_add(names, (gpointer)method->info.name);
	}
	g_ptr_array_sort(names, erpc_registry_sort_strings);
	return names;
}

/**
 * erpc_registry_list_capabilities:
 * @self: a #ErpcRegistry
 * @owner: (nullable): only those of this owner
 *
 * Lists the registered capabilities.
 *
 * Returns: (transfer container) (element-type utf8): sorted capability names
 *
 * Since: 0.1
 */
GPtrArray *
erpc_registry_list_capabilities(ErpcRegistry *self, const gchar *owner)
{
	GPtrArray *names = g_ptr_array_new();
	GHashTableIter iter;
	ErpcRegistryCapability *cap;

	g_hash_table_iter_init(&iter, self->capabilities);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&cap)) {
		if (owner == NULL || g_strcmp0(owner, cap->owner) == 0)
			g_ptr_array_add(names, cap->name);
	}
	g_ptr_array_sort(names, erpc_registry_sort_strings);
	return names;
}

/**
 * erpc_registry_list_extensions:
 * @self: a #ErpcRegistry
 * @point: (nullable): only this extension point
 * @owner: (nullable): only those of this owner
 *
 * Lists the registered extensions.
 *
 * Returns: (transfer full) (element-type utf8): `point:name` strings
 *
 * Since: 0.1
 */
GPtrArray *
erpc_registry_list_extensions(ErpcRegistry *self, const gchar *point, const gchar *owner)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < self->extensions->len; i++) {
		ErpcRegistryExtension *extension = g_ptr_array_index(self->extensions, i);
		if (point != NULL && g_strcmp0(point, extension->point) != 0)
			continue;
		if (owner != NULL && g_strcmp0(owner, extension->owner) != 0)
			continue;
		g_ptr_array_add(names, g_strdup_printf("%s:%s", extension->point, extension->name));
	}
	return names;
}

/**
 * erpc_registry_set_owner:
 * @self: a #ErpcRegistry
 * @owner: (nullable): who the next registrations belong to; %NULL for the core
 *
 * For the daemon, around each plugin's `setup`. The context's launch hooks
 * follow the same owner.
 *
 * Since: 0.1
 */
void
erpc_registry_set_owner(ErpcRegistry *self, const gchar *owner)
{
	g_return_if_fail(ERPC_IS_REGISTRY(self));
	g_free(self->owner);
	self->owner = g_strdup(owner);
	if (self->context != NULL)
		erpc_context_set_owner(self->context, owner);
}

static gboolean
erpc_registry_method_owned_by(gpointer key, gpointer value, gpointer owner)
{
	return g_strcmp0(((ErpcRegistryMethod *)value)->owner, owner) == 0;
}

static gboolean
erpc_registry_capability_owned_by(gpointer key, gpointer value, gpointer owner)
{
	return g_strcmp0(((ErpcRegistryCapability *)value)->owner, owner) == 0;
}

/**
 * erpc_registry_remove_owner:
 * @self: a #ErpcRegistry
 * @owner: a plugin name
 *
 * Drops everything @owner registered, e.g. after its `setup` failed.
 *
 * Since: 0.1
 */
void
erpc_registry_remove_owner(ErpcRegistry *self, const gchar *owner)
{
	g_return_if_fail(ERPC_IS_REGISTRY(self));
	g_hash_table_foreach_remove(self->methods, erpc_registry_method_owned_by, (gpointer)owner);
	g_hash_table_foreach_remove(self->capabilities,
				    erpc_registry_capability_owned_by,
				    (gpointer)owner);
	for (guint i = self->extensions->len; i > 0; i--) {
		ErpcRegistryExtension *extension = g_ptr_array_index(self->extensions, i - 1);
		if (g_strcmp0(extension->owner, owner) == 0)
			g_ptr_array_remove_index(self->extensions, i - 1);
	}
	if (self->context != NULL)
		erpc_context_remove_owner(self->context, owner);
}

static void
erpc_registry_finalize(GObject *object)
{
	ErpcRegistry *self = ERPC_REGISTRY(object);
	g_hash_table_unref(self->methods);
	g_hash_table_unref(self->capabilities);
	g_ptr_array_unref(self->extensions);
	g_hash_table_unref(self->options);
	g_free(self->owner);
	g_clear_object(&self->context);
	G_OBJECT_CLASS(erpc_registry_parent_class)->finalize(object);
}

static void
erpc_registry_init(ErpcRegistry *self)
{
	self->options =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_variant_unref);
	self->methods = g_hash_table_new_full(g_str_hash,
					      g_str_equal,
					      NULL,
					      (GDestroyNotify)erpc_registry_method_free);
	self->capabilities = g_hash_table_new_full(g_str_hash,
						   g_str_equal,
						   NULL,
						   (GDestroyNotify)erpc_registry_capability_free);
	self->extensions =
	    g_ptr_array_new_with_free_func((GDestroyNotify)erpc_registry_extension_free);
}

static void
erpc_registry_class_init(ErpcRegistryClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = erpc_registry_finalize;
}

/**
 * erpc_registry_new:
 *
 * Returns: (transfer full): an empty registry
 *
 * Since: 0.1
 */
ErpcRegistry *
erpc_registry_new(void)
{
	return g_object_new(ERPC_TYPE_REGISTRY, NULL);
}

/**
 * erpc_registry_set_option:
 * @self: a #ErpcRegistry
 * @name: the option, e.g. `max-file-handles`
 * @value: (nullable): its value (a floating reference is sunk), %NULL to unset
 *
 * Keeps a setting of the daemon (usually from its command line) for the
 * plugins to read in their `setup`.
 *
 * Since: 0.1
 */
void
erpc_registry_set_option(ErpcRegistry *self, const gchar *name, GVariant *value)
{
	g_return_if_fail(ERPC_IS_REGISTRY(self));
	g_return_if_fail(name != NULL);
	if (value == NULL)
		g_hash_table_remove(self->options, name);
	else
		g_hash_table_insert(self->options, g_strdup(name), g_variant_ref_sink(value));
}

/**
 * erpc_registry_get_option:
 * @self: a #ErpcRegistry
 * @name: the option
 * @type: the type the caller expects
 *
 * Reads an option the daemon set for its plugins.
 *
 * Returns: (transfer none) (nullable): the value, or %NULL when it is unset
 *   or of another type
 *
 * Since: 0.1
 */
GVariant *
erpc_registry_get_option(ErpcRegistry *self, const gchar *name, const GVariantType *type)
{
	GVariant *value;

	g_return_val_if_fail(ERPC_IS_REGISTRY(self), NULL);
	g_return_val_if_fail(name != NULL && type != NULL, NULL);
	value = g_hash_table_lookup(self->options, name);
	if (value == NULL || !g_variant_is_of_type(value, type))
		return NULL;
	return value;
}

/**
 * erpc_registry_set_context:
 * @self: a registry
 * @context: the daemon's context
 *
 * Hands @context to every plugin that gets this registry.
 */
void
erpc_registry_set_context(ErpcRegistry *self, ErpcContext *context)
{
	g_return_if_fail(ERPC_IS_REGISTRY(self));
	g_return_if_fail(context == NULL || ERPC_IS_CONTEXT(context));
	g_set_object(&self->context, context);
	if (context != NULL)
		erpc_context_set_owner(context, self->owner);
}

/**
 * erpc_registry_get_context:
 * @self: a registry
 *
 * Gets the host services of the daemon.
 *
 * Returns: (transfer none) (nullable): the host services of the daemon this
 *   registry belongs to; %NULL only outside a daemon (unit tests)
 *
 * Since: 0.2
 */
ErpcContext *
erpc_registry_get_context(ErpcRegistry *self)
{
	g_return_val_if_fail(ERPC_IS_REGISTRY(self), NULL);
	return self->context;
}
