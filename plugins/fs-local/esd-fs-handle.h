/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-replace.h"

G_BEGIN_DECLS

/* the protocol's bounds for one block */
#define ESD_FS_BLOCK_MAX 1048576

#define ESD_TYPE_FS_HANDLE (esd_fs_handle_get_type())
G_DECLARE_FINAL_TYPE(EsdFsHandle, esd_fs_handle, ESD, FS_HANDLE, GObject)

EsdFsHandle *
esd_fs_handle_new_read(gint fd);
EsdFsHandle *
esd_fs_handle_new_replace(EsdFsReplace *replace);
gint
esd_fs_handle_get_fd(EsdFsHandle *self);
EsdFsReplace *
esd_fs_handle_get_replace(EsdFsHandle *self);
gboolean
esd_fs_handle_is_writable(EsdFsHandle *self);
GString *
esd_fs_handle_read_block(EsdFsHandle *self, guint64 offset, gsize len, GError **error);
gboolean
esd_fs_handle_write_block(EsdFsHandle *self, guint64 offset, GBytes *data, GError **error);
gboolean
esd_fs_handle_commit(EsdFsHandle *self, GError **error);

G_END_DECLS
