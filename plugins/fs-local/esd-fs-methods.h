/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-local-plugin.h"
#include "esd-fs-sandbox-run.h"

G_BEGIN_DECLS

/* up to this size reads and writes of blocks and files are done at once */
#define ESD_FS_SYNC_BYTES (64 * 1024)

gboolean
esd_fs_methods_register(ErpcRegistry *registry, EsdFsLocalPlugin *plugin, GError **error);

/* shared by the handlers of esd-fs-methods.c and esd-fs-handle-methods.c */
void
esd_fs_methods_finish(ErpcCall *call, GString *result, const GError *error);
void
esd_fs_methods_finish_empty(ErpcCall *call, gboolean ok, const GError *error);
gboolean
esd_fs_methods_check_sandbox(gpointer plugin,
			     ErpcCall *call,
			     JsonObject *params,
			     const EsdFsSandboxBlob *blob,
			     EsdFsSandboxAdoptFunc adopt);
gboolean
esd_fs_methods_parse_path(ErpcCall *call,
			  JsonObject *params,
			  gchar **path,
			  gboolean *follow,
			  GError **error);

G_END_DECLS
