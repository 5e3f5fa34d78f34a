/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-context.h"

G_BEGIN_DECLS

/* for the daemon only: it makes the one context and sets its services */
ErpcContext *
erpc_context_new(void);

/* the sandbox service */
void
erpc_context_set_sandbox(ErpcContext *self, ErpcSandbox *sandbox);

/* launch hooks: whose registrations follow (set with the registry's owner),
 * dropping a plugin's hooks, and what erpc-launch.c reads */
void
erpc_context_set_owner(ErpcContext *self, const gchar *owner);
void
erpc_context_remove_owner(ErpcContext *self, const gchar *owner);
GPtrArray *
erpc_context_get_launch_hooks(ErpcContext *self);
gboolean
erpc_context_claims_member(ErpcContext *self, const gchar *member);
void
erpc_context_set_hooks_loader(ErpcContext *self,
			      void (*func)(gpointer user_data),
			      gpointer user_data);

/* listeners and what a sandbox must not show */
void
erpc_context_set_listen_uris(ErpcContext *self, const gchar *const *uris);
const gchar *const *
erpc_context_get_hidden_paths(ErpcContext *self);
gboolean
erpc_context_get_tcp_authenticated(ErpcContext *self);

G_END_DECLS
