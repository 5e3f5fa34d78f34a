/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-handle.h"

G_BEGIN_DECLS

/* the protocol's limits for the handles of one connection */
#define ESD_FS_HANDLES_MAX	 128 /* the protocol's default; --max-file-handles changes it */
#define ESD_FS_HANDLE_ID_MAX_LEN 32

#define ESD_TYPE_FS_HANDLE_TABLE (esd_fs_handle_table_get_type())
G_DECLARE_FINAL_TYPE(EsdFsHandleTable, esd_fs_handle_table, ESD, FS_HANDLE_TABLE, GObject)

EsdFsHandleTable *
esd_fs_handle_table_new(void);
gboolean
esd_fs_handle_table_check_id(const gchar *id, GError **error);
gboolean
esd_fs_handle_table_reserve(EsdFsHandleTable *self, const gchar *id, GError **error);
void
esd_fs_handle_table_insert(EsdFsHandleTable *self, const gchar *id, EsdFsHandle *handle);
EsdFsHandle *
esd_fs_handle_table_lookup(EsdFsHandleTable *self, const gchar *id, GError **error);
EsdFsHandle *
esd_fs_handle_table_steal(EsdFsHandleTable *self, const gchar *id);

void
esd_fs_handle_table_set_limit(guint max_handles);

G_END_DECLS
