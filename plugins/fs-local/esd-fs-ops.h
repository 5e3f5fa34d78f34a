/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <sys/stat.h>

#include "esd-fs-util.h"

G_BEGIN_DECLS

/*
 * The single-path file system operations. Each is thread-safe and blocking;
 * results are appended to a GString as the JSON the protocol answers with.
 */

gint
esd_fs_ops_open_regular(const gchar *path, gboolean follow, struct stat *st, GError **error);
GString *
esd_fs_ops_read_file_result(gint fd, const struct stat *st, GError **error);
gboolean
esd_fs_ops_write_file_direct(const gchar *path,
			     const gchar *text,
			     gsize len,
			     gboolean *fallback,
			     GError **error);
gboolean
esd_fs_ops_write_file(const gchar *path,
		      gboolean follow,
		      const gchar *text,
		      gsize len,
		      GError **error);
gboolean
esd_fs_ops_create_directory(const gchar *path, gboolean recursive, gboolean follow, GError **error);
gboolean
esd_fs_ops_get_metadata(const gchar *path, gboolean follow, GString *out, GError **error);
gboolean
esd_fs_ops_canonicalize(const gchar *path, GString *out, GError **error);
GString *
esd_fs_ops_read_directory(const gchar *path, GCancellable *cancellable, GError **error);
GString *
esd_fs_ops_read_directory_direct(const gchar *path,
				 gboolean *fallback,
				 GCancellable *cancellable,
				 GError **error);

G_END_DECLS
