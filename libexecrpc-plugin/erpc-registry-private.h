/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-registry.h"

G_BEGIN_DECLS

/* for the daemon only: it owns the registry, says whose registrations
 * follow, removes a failed plugin, sets the options plugins read and
 * dispatches; a plugin only adds its own and reads */

ErpcRegistry *
erpc_registry_new(void);
void
erpc_registry_set_owner(ErpcRegistry *self, const gchar *owner);
void
erpc_registry_remove_owner(ErpcRegistry *self, const gchar *owner);
void
erpc_registry_set_option(ErpcRegistry *self, const gchar *name, GVariant *value);
const ErpcMethodInfo *
erpc_registry_lookup_method(ErpcRegistry *self, const gchar *name, gpointer *user_data);
const ErpcMethodInfo *
erpc_registry_get_method(ErpcRegistry *self, const gchar *name);

void
erpc_registry_set_context(ErpcRegistry *self, ErpcContext *context);

G_END_DECLS
