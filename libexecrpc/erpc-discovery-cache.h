/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-environment-manager.h"

G_BEGIN_DECLS

#define ERPC_TYPE_DISCOVERY_CACHE (erpc_discovery_cache_get_type())
G_DECLARE_FINAL_TYPE(ErpcDiscoveryCache, erpc_discovery_cache, ERPC, DISCOVERY_CACHE, GObject)

ErpcDiscoveryCache *
erpc_discovery_cache_new(ErpcEnvironmentManager *manager);
void
erpc_discovery_cache_snapshot_async(ErpcDiscoveryCache *self,
				    JsonArray *roots,
				    JsonObject *sandboxes,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data);
JsonArray *
erpc_discovery_cache_snapshot_finish(ErpcDiscoveryCache *self,
				     GAsyncResult *result,
				     GError **error);
gboolean
erpc_discovery_cache_take_recovered(ErpcDiscoveryCache *self);

G_END_DECLS
