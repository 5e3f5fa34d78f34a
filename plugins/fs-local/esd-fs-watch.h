/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-inotify.h"

G_BEGIN_DECLS

#define ESD_TYPE_FS_WATCH (esd_fs_watch_get_type())
G_DECLARE_FINAL_TYPE(EsdFsWatch, esd_fs_watch, ESD, FS_WATCH, GObject)

EsdFsWatch *
esd_fs_watch_new(EsdFsInotify *inotify, guint64 id);
guint64
esd_fs_watch_get_id(EsdFsWatch *self);
void
esd_fs_watch_add_missing(EsdFsWatch *self, const gchar *path);
void
esd_fs_watch_set_present(EsdFsWatch *self, const gchar *path);
gboolean
esd_fs_watch_start(EsdFsWatch *self);

G_END_DECLS
