/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_FS_INOTIFY (esd_fs_inotify_get_type())
G_DECLARE_FINAL_TYPE(EsdFsInotify, esd_fs_inotify, ESD, FS_INOTIFY, GObject)

/**
 * EsdFsInotifyFunc:
 * @user_data: what was given to esd_fs_inotify_subscribe()
 *
 * Something changed in the directory (or the directory itself went away).
 */
typedef void (*EsdFsInotifyFunc)(gpointer user_data);

EsdFsInotify *
esd_fs_inotify_new(void);
guint
esd_fs_inotify_subscribe(EsdFsInotify *self,
			 const gchar *dir,
			 EsdFsInotifyFunc func,
			 gpointer user_data,
			 GError **error);
void
esd_fs_inotify_unsubscribe(EsdFsInotify *self, guint id);

G_END_DECLS
