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
};

G_DEFINE_FINAL_TYPE(ErpcContext, erpc_context, G_TYPE_OBJECT)

static void
erpc_context_class_init(ErpcContextClass *klass)
{
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
