/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-handle-table.h"
#include "esd-fs-inotify.h"
#include "esd-fs-sandbox-warm.h"

G_BEGIN_DECLS

#define ESD_TYPE_FS_CONNECTION_STATE (esd_fs_connection_state_get_type())
G_DECLARE_FINAL_TYPE(EsdFsConnectionState,
		     esd_fs_connection_state,
		     ESD,
		     FS_CONNECTION_STATE,
		     GObject)

EsdFsConnectionState *
esd_fs_connection_state_get(ErpcConnection *connection);
void
esd_fs_connection_state_drop(ErpcConnection *connection);
EsdFsHandleTable *
esd_fs_connection_state_get_handles(EsdFsConnectionState *self);
EsdFsWarmPool *
esd_fs_connection_state_get_warm(EsdFsConnectionState *self);
gboolean
esd_fs_connection_state_watch(EsdFsConnectionState *self,
			      EsdFsInotify *inotify,
			      guint64 watch_id,
			      GPtrArray *missing,
			      const gchar *present);

G_END_DECLS
