/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-fs-inotify.h"

G_BEGIN_DECLS

#define ESD_TYPE_FS_LOCAL_PLUGIN (esd_fs_local_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdFsLocalPlugin, esd_fs_local_plugin, ESD, FS_LOCAL_PLUGIN, ErpcPlugin)

EsdFsInotify *
esd_fs_local_plugin_get_inotify(EsdFsLocalPlugin *self);

G_END_DECLS
