/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-context-private.h"

/*
 * The host services hang off this object, each added by the file that
 * implements its interface (erpc-sandbox.c, erpc-launch.c, …) as a field
 * here with a public getter and a private setter.
 */
struct _ErpcContext {
	GObject parent_instance;
	/* the sandbox service */
	ErpcSandbox *sandbox;

	/* launch hooks */
	gchar *owner;	    /* the plugin whose setup runs, NULL for the core */
	GPtrArray *hooks;   /* of ErpcLaunchHook, in the order they were added */
	GHashTable *owners; /* ErpcLaunchHook → owner name */
	GHashTable *claims; /* member → ErpcLaunchHook */
	/* adds the hooks of plugins not loaded yet, at the first look at them */
	GCallback hooks_loader;
	gpointer hooks_loader_data;
	/* listeners and what a sandbox must not show */
	GPtrArray *listen_uris;	 /* of gchar*, NULL-terminated */
	GPtrArray *hidden_paths; /* of gchar*, NULL-terminated */
	gboolean tcp_authenticated;
};

G_DEFINE_FINAL_TYPE(ErpcContext, erpc_context, G_TYPE_OBJECT)

static void
erpc_context_dispose(GObject *object)
{
	ErpcContext *self = ERPC_CONTEXT(object);

	g_clear_object(&self->sandbox);
	G_OBJECT_CLASS(erpc_context_parent_class)->dispose(object);
}

static void
erpc_context_finalize(GObject *object)
{
	ErpcContext *self = ERPC_CONTEXT(object);

	g_hash_table_unref(self->claims);
	g_hash_table_unref(self->owners);
	g_ptr_array_unref(self->hooks);
	g_free(self->owner);
	g_ptr_array_unref(self->listen_uris);
	g_ptr_array_unref(self->hidden_paths);
	G_OBJECT_CLASS(erpc_context_parent_class)->finalize(object);
}

static void
erpc_context_class_init(ErpcContextClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = erpc_context_dispose;
	G_OBJECT_CLASS(klass)->finalize = erpc_context_finalize;
}

static GPtrArray *
erpc_context_strv_new(void)
{
	GPtrArray *array = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(array, NULL);
	return array;
}

/* appends to a NULL-terminated array unless it holds @value already */
static void
erpc_context_strv_add(GPtrArray *array, const gchar *value)
{
	if (g_strv_contains((const gchar *const *)array->pdata, value))
		return;
	g_ptr_array_insert(array, (gint)array->len - 1, g_strdup(value));
}

static void
erpc_context_init(ErpcContext *self)
{
	self->hooks = g_ptr_array_new_with_free_func(g_object_unref);
	self->owners = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	self->claims = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->listen_uris = erpc_context_strv_new();
	self->hidden_paths = erpc_context_strv_new();
}

/**
 * erpc_context_new:
 *
 * Returns: (transfer full): a context without services, for the daemon to fill
 */
ErpcContext *
erpc_context_new(void)
{
	return g_object_new(ERPC_TYPE_CONTEXT, NULL);
}

/**
 * erpc_context_set_owner:
 * @self: a #ErpcContext
 * @owner: (nullable): the plugin whose registrations follow, %NULL for the core
 *
 * Set together with the registry's owner (erpc_registry_set_owner()).
 */
void
erpc_context_set_owner(ErpcContext *self, const gchar *owner)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	g_free(self->owner);
	self->owner = g_strdup(owner);
}

/**
 * erpc_context_add_launch_hook:
 * @self: a #ErpcContext
 * @hook: a plugin object implementing #ErpcLaunchHook
 * @error: return location for a #GError, or %NULL
 *
 * Makes @hook take part in `process/start`, from the plugin's setup. The
 * hook belongs to the plugin being set up and goes when it is removed. A
 * member another hook claims already makes it fail with
 * %ERPC_ERROR_EXISTS, and the plugin's setup should fail with it.
 *
 * Returns: %TRUE if @hook was added
 *
 * Since: 0.2
 */
gboolean
erpc_context_add_launch_hook(ErpcContext *self, ErpcLaunchHook *hook, GError **error)
{
	const gchar *const *members;
	const gchar *owner;

	g_return_val_if_fail(ERPC_IS_CONTEXT(self), FALSE);
	g_return_val_if_fail(ERPC_IS_LAUNCH_HOOK(hook), FALSE);
	owner = self->owner != NULL ? self->owner : "core";
	if (g_hash_table_contains(self->owners, hook)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_EXISTS,
			    "%s: launch hook added twice",
			    owner);
		return FALSE;
	}
	members = ERPC_LAUNCH_HOOK_GET_IFACE(hook)->get_members != NULL
		      ? ERPC_LAUNCH_HOOK_GET_IFACE(hook)->get_members(hook)
		      : NULL;
	for (guint i = 0; members != NULL && members[i] != NULL; i++) {
		ErpcLaunchHook *other = g_hash_table_lookup(self->claims, members[i]);
		if (other != NULL) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_EXISTS,
				    "%s: process/start member %s is already claimed by %s",
				    owner,
				    members[i],
				    (const gchar *)g_hash_table_lookup(self->owners, other));
			return FALSE;
		}
	}
	for (guint i = 0; members != NULL && members[i] != NULL; i++)
		g_hash_table_insert(self->claims, g_strdup(members[i]), hook);
	g_ptr_array_add(self->hooks, g_object_ref(hook));
	g_hash_table_insert(self->owners, hook, g_strdup(owner));
	g_debug("%s: launch hook %s added", owner, G_OBJECT_TYPE_NAME(hook));
	return TRUE;
}

static gboolean
erpc_context_claim_of(gpointer key, gpointer value, gpointer hook)
{
	return value == hook;
}

/**
 * erpc_context_remove_owner:
 * @self: a #ErpcContext
 * @owner: a plugin name
 *
 * Drops the launch hooks @owner added; launches they take part in keep them
 * until they are over.
 */
void
erpc_context_remove_owner(ErpcContext *self, const gchar *owner)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	for (guint i = self->hooks->len; i > 0; i--) {
		ErpcLaunchHook *hook = g_ptr_array_index(self->hooks, i - 1);
		if (g_strcmp0(g_hash_table_lookup(self->owners, hook), owner) != 0)
			continue;
		g_hash_table_foreach_remove(self->claims, erpc_context_claim_of, hook);
		g_hash_table_remove(self->owners, hook);
		g_ptr_array_remove_index(self->hooks, i - 1);
	}
}

/**
 * erpc_context_set_hooks_loader:
 * @self: a #ErpcContext
 * @func: (nullable): called once, before the hooks are first looked at, to
 *   add those of plugins loaded only when needed; %NULL to drop it
 * @user_data: for @func
 *
 * For the daemon, whose loader defers plugins that add launch hooks.
 */
void
erpc_context_set_hooks_loader(ErpcContext *self,
			      void (*func)(gpointer user_data),
			      gpointer user_data)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	self->hooks_loader = (GCallback)func;
	self->hooks_loader_data = user_data;
}

static void
erpc_context_load_hooks(ErpcContext *self)
{
	void (*func)(gpointer) = (void (*)(gpointer))self->hooks_loader;

	if (func == NULL)
		return;
	/* once: the plugins it loads add their hooks through this context */
	self->hooks_loader = NULL;
	func(self->hooks_loader_data);
}

/**
 * erpc_context_get_launch_hooks:
 * @self: a #ErpcContext
 *
 * Returns: (transfer none) (element-type ErpcLaunchHook): the hooks, in order
 */
GPtrArray *
erpc_context_get_launch_hooks(ErpcContext *self)
{
	g_return_val_if_fail(ERPC_IS_CONTEXT(self), NULL);
	erpc_context_load_hooks(self);
	return self->hooks;
}

/**
 * erpc_context_claims_member:
 * @self: a #ErpcContext
 * @member: a `process/start` member
 *
 * Returns: %TRUE if a launch hook checks @member instead of the daemon
 */
gboolean
erpc_context_claims_member(ErpcContext *self, const gchar *member)
{
	g_return_val_if_fail(ERPC_IS_CONTEXT(self), FALSE);
	erpc_context_load_hooks(self);
	return g_hash_table_contains(self->claims, member);
}

/**
 * erpc_context_add_listen_uri:
 * @self: the context
 * @uri: a URI as `--listen` takes it, e.g. `systemd`
 *
 * Asks the daemon to listen on @uri as well, as if it had been given with
 * `--listen`: for a plugin that was handed a way to be reached, such as the
 * sockets of systemd socket activation. The daemon listens on
 * `ws://127.0.0.1:0` by default only when neither `--listen` nor a plugin
 * names a listener. Call it from `setup`.
 *
 * Since: 0.2
 */
void
erpc_context_add_listen_uri(ErpcContext *self, const gchar *uri)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	g_return_if_fail(uri != NULL && uri[0] != '\0');
	erpc_context_strv_add(self->listen_uris, uri);
}

/**
 * erpc_context_get_listen_uris:
 * @self: the context
 *
 * The listeners the daemon is about to open: the `--listen` arguments, the
 * ones plugins added and the default. Complete from `startup` on, so that
 * a plugin can check its options against them.
 *
 * Returns: (transfer none) (array zero-terminated=1): the URIs
 *
 * Since: 0.2
 */
const gchar *const *
erpc_context_get_listen_uris(ErpcContext *self)
{
	g_return_val_if_fail(ERPC_IS_CONTEXT(self), NULL);
	return (const gchar *const *)self->listen_uris->pdata;
}

/**
 * erpc_context_set_listen_uris:
 * @self: the context
 * @uris: the listeners the daemon opens
 *
 * For the daemon, once the command line is parsed.
 */
void
erpc_context_set_listen_uris(ErpcContext *self, const gchar *const *uris)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	g_ptr_array_unref(self->listen_uris);
	self->listen_uris = erpc_context_strv_new();
	for (guint i = 0; uris != NULL && uris[i] != NULL; i++)
		erpc_context_strv_add(self->listen_uris, uris[i]);
}

/**
 * erpc_context_hide_path:
 * @self: the context
 * @path: a file on the host, relative to the current directory or absolute
 *
 * Keeps @path out of every sandbox's file system, whatever its policy
 * grants, unless a rule names @path itself: for the secrets that
 * authenticate to this daemon, such as a token file, or a socket that
 * starts processes on request. Call it from `setup` or `startup`: the daemon
 * hands the paths to the sandbox once its listeners are up.
 *
 * Since: 0.2
 */
void
erpc_context_hide_path(ErpcContext *self, const gchar *path)
{
	g_autofree gchar *abs = NULL;

	g_return_if_fail(ERPC_IS_CONTEXT(self));
	g_return_if_fail(path != NULL && path[0] != '\0');
	abs = g_canonicalize_filename(path, NULL);
	erpc_context_strv_add(self->hidden_paths, abs);
}

/**
 * erpc_context_get_hidden_paths:
 * @self: the context
 *
 * For the daemon.
 *
 * Returns: (transfer none): the absolute paths given to erpc_context_hide_path()
 */
const gchar *const *
erpc_context_get_hidden_paths(ErpcContext *self)
{
	g_return_val_if_fail(ERPC_IS_CONTEXT(self), NULL);
	return (const gchar *const *)self->hidden_paths->pdata;
}

/**
 * erpc_context_set_tcp_authenticated:
 * @self: the context
 * @authenticated: whether every TCP connection must authenticate
 *
 * Says that the plugin serving TCP requires every client to authenticate
 * with a secret that erpc_context_hide_path() hides. Sandboxes that share the
 * host's network may then reach the daemon's TCP ports, which otherwise are
 * kept from them. Call it from `setup` or `startup`.
 *
 * Since: 0.2
 */
void
erpc_context_set_tcp_authenticated(ErpcContext *self, gboolean authenticated)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	self->tcp_authenticated = authenticated;
}

/**
 * erpc_context_get_tcp_authenticated:
 * @self: the context
 *
 * For the daemon.
 *
 * Returns: what erpc_context_set_tcp_authenticated() was told
 */
gboolean
erpc_context_get_tcp_authenticated(ErpcContext *self)
{
	g_return_val_if_fail(ERPC_IS_CONTEXT(self), FALSE);
	return self->tcp_authenticated;
}

/* the sandbox service */

/**
 * erpc_context_set_sandbox:
 * @self: the context
 * @sandbox: (nullable): the daemon's sandbox
 */
void
erpc_context_set_sandbox(ErpcContext *self, ErpcSandbox *sandbox)
{
	g_return_if_fail(ERPC_IS_CONTEXT(self));
	g_return_if_fail(sandbox == NULL || ERPC_IS_SANDBOX(sandbox));
	g_set_object(&self->sandbox, sandbox);
}

/**
 * erpc_context_get_sandbox:
 * @self: the context
 *
 * The host's sandbox: it reads `sandbox` objects as process/start does and
 * runs commands and helpers in the sandbox of a policy.
 *
 * Returns: (transfer none) (nullable): the sandbox, or %NULL if the host
 *   provides none (then every isolated request must be refused)
 *
 * Since: 0.2
 */
ErpcSandbox *
erpc_context_get_sandbox(ErpcContext *self)
{
	g_return_val_if_fail(ERPC_IS_CONTEXT(self), NULL);
	return self->sandbox;
}
