/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-shell-snapshot-capture.h"
#include "esd-shell-snapshot-request.h"

G_BEGIN_DECLS

#define ESD_TYPE_SHELL_SNAPSHOT_CACHE (esd_shell_snapshot_cache_get_type())
G_DECLARE_FINAL_TYPE(EsdShellSnapshotCache,
		     esd_shell_snapshot_cache,
		     ESD,
		     SHELL_SNAPSHOT_CACHE,
		     GObject)

EsdShellSnapshotCache *
esd_shell_snapshot_cache_new(ErpcSandbox *sandbox,
			     guint max_entries,
			     gsize max_bytes,
			     guint timeout_ms);
guint
esd_shell_snapshot_cache_get_size(EsdShellSnapshotCache *self);
void
esd_shell_snapshot_cache_lookup_async(EsdShellSnapshotCache *self,
				      EsdShellSnapshotRequest *request,
				      ErpcLaunch *launch,
				      GCancellable *cancellable,
				      GAsyncReadyCallback callback,
				      gpointer user_data);
EsdShellSnapshotImage *
esd_shell_snapshot_cache_lookup_finish(EsdShellSnapshotCache *self,
				       GAsyncResult *result,
				       GError **error);

G_END_DECLS
