/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

void
esd_fs_methods_open(ErpcCall *call, JsonObject *params, gpointer user_data);
void
esd_fs_methods_read_block(ErpcCall *call, JsonObject *params, gpointer user_data);
void
esd_fs_methods_write_block(ErpcCall *call, JsonObject *params, gpointer user_data);
void
esd_fs_methods_close(ErpcCall *call, JsonObject *params, gpointer user_data);
void
esd_fs_methods_watch_missing(ErpcCall *call, JsonObject *params, gpointer user_data);

G_END_DECLS
