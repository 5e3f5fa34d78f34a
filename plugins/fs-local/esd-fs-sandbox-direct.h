/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <sys/stat.h>

#include "esd-fs-sandbox-run.h"

G_BEGIN_DECLS

/* a sandboxed request the sandbox service lets run outside the sandbox */
typedef struct {
	ErpcSandbox *service;	   /* borrowed from the plugin's context */
	ErpcSandboxPolicy *policy; /* owned; NULL for an unsandboxed request */
} EsdFsDirect;

void
esd_fs_direct_clear(EsdFsDirect *direct);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdFsDirect, esd_fs_direct_clear)

gboolean
esd_fs_direct_check(ErpcSandbox *service,
		    ErpcSandboxPolicy *policy,
		    const gchar *path,
		    ErpcSandboxAccess access,
		    ErpcSandboxDirectFlags flags);
void
esd_fs_direct_fallback(ErpcCall *call,
		       EsdFsDirect *direct,
		       JsonObject *params,
		       const EsdFsSandboxBlob *blob);
gint
esd_fs_direct_open_regular(const gchar *path, struct stat *st, gboolean *fallback, GError **error);
gboolean
esd_fs_direct_get_metadata(const gchar *path, GString *out, gboolean *fallback, GError **error);
gboolean
esd_fs_direct_create_directory(const gchar *path,
			       gboolean recursive,
			       gboolean *fallback,
			       GError **error);
gboolean
esd_fs_direct_remove(const gchar *path,
		     gboolean recursive,
		     gboolean force,
		     gboolean follow,
		     gboolean *fallback,
		     GError **error);
void
esd_fs_direct_write_file(ErpcCall *call,
			 EsdFsDirect *direct,
			 const EsdFsSandboxBlob *blob,
			 const gchar *path);
void
esd_fs_direct_read_directory(ErpcCall *call, EsdFsDirect *direct, const gchar *path);

G_END_DECLS
