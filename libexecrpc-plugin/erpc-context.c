/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "erpc-context-private.h"

/*
 * The host services hang off this object, each added by the file that
 * implements its interface (erpc-sandbox.c, erpc-launch.c, …) as a field
 * here with a public getter and a private setter.
 */
struct _ErpcContext {
	GObject parent_instance;
	/* listeners and what a sandbox must not show */
	GPtrArray *listen_uris;	 /* of gchar*, NULL-terminated */
	GPtrArray *hidden_paths; /* of gchar*, NULL-terminated */
	gboolean tcp_authenticated;
};

G_DEFINE_FINAL_TYPE(ErpcContext, erpc_context, G_TYPE_OBJECT)

static void
erpc_context_finalize(GObject *object)
{
	ErpcContext *self = ERPC_CONTEXT(object);
	g_ptr_array_unref(self->listen_uris);
	g_ptr_array_unref(self->hidden_paths);
	G_OBJECT_CLASS(erpc_context_parent_class)->finalize(object);
}

static void
erpc_context_class_init(ErpcContextClass *klass)
{
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
