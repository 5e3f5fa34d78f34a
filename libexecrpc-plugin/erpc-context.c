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
	/* the sandbox service */
	ErpcSandbox *sandbox;
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
erpc_context_class_init(ErpcContextClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = erpc_context_dispose;
}

static void
erpc_context_init(ErpcContext *self)
{
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
