/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib-object.h>

#include "erpc-launch.h"
#include "erpc-sandbox.h"

G_BEGIN_DECLS

/**
 * ErpcContext:
 *
 * What a plugin reaches of the daemon that loaded it, besides the registry:
 * the host services (the sandbox, launch hooks, sessions). The daemon makes
 * one context and hands it to every plugin with the registry; each service
 * is set by the daemon and read by plugins through a getter of its own
 * header. A plugin never makes one.
 *
 * Since: 0.2
 */
#define ERPC_TYPE_CONTEXT (erpc_context_get_type())
G_DECLARE_FINAL_TYPE(ErpcContext, erpc_context, ERPC, CONTEXT, GObject)

/* the sandbox service */
ErpcSandbox *
erpc_context_get_sandbox(ErpcContext *self);

/* launch hooks (erpc-launch.h) */
gboolean
erpc_context_add_launch_hook(ErpcContext *self, ErpcLaunchHook *hook, GError **error);

/* listeners and what a sandbox must not show (erpc-context.c, "options") */
void
erpc_context_add_listen_uri(ErpcContext *self, const gchar *uri);
const gchar *const *
erpc_context_get_listen_uris(ErpcContext *self);
void
erpc_context_hide_path(ErpcContext *self, const gchar *path);
void
erpc_context_set_tcp_authenticated(ErpcContext *self, gboolean authenticated);

G_END_DECLS
