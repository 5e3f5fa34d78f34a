/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <sys/stat.h>

#include "esd-fs-util.h"

G_BEGIN_DECLS

/**
 * EsdFsTarget:
 * @dirfd: an `O_PATH` descriptor of the directory holding @leaf
 * @leaf: the name within @dirfd
 * @exists: whether @leaf existed when it was resolved
 * @st: its `lstat` when @exists
 *
 * Where a file is to be created or replaced, resolved through descriptors.
 */
typedef struct {
	gint dirfd;
	gchar *leaf;
	gboolean exists;
	struct stat st;
} EsdFsTarget;

void
esd_fs_target_clear(EsdFsTarget *target);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdFsTarget, esd_fs_target_clear)

gint
esd_fs_open_parent_nofollow(const gchar *path, const gchar **leaf, GError **error);
gint
esd_fs_open_nofollow(const gchar *path, gint flags, GError **error);
gboolean
esd_fs_target_resolve(const gchar *path, gboolean follow, EsdFsTarget *target, GError **error);
gboolean
esd_fs_symlink_in_path(GError **error);
gboolean
esd_fs_error_is_symlink(const GError *error);
gchar *
esd_fs_readlinkat(gint dirfd, const gchar *name, GError **error);

G_END_DECLS
