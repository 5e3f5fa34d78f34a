/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-util.h"

G_BEGIN_DECLS

/* the walk limits of the protocol */
#define ESD_FS_WALK_MAX_DEPTH	    64
#define ESD_FS_WALK_MAX_DIRECTORIES 10000
#define ESD_FS_WALK_MAX_ENTRIES	    50000

typedef struct {
	guint64 max_depth;
	guint64 max_directories;
	guint64 max_entries;
	gboolean follow_directory_symlinks;
	gboolean prune_hidden_directories;
} EsdFsWalkOptions;

GString *
esd_fs_tree_walk(const gchar *root,
		 const EsdFsWalkOptions *options,
		 GCancellable *cancellable,
		 GError **error);
gboolean
esd_fs_tree_remove(const gchar *path,
		   gboolean recursive,
		   gboolean force,
		   gboolean follow,
		   GCancellable *cancellable,
		   GError **error);
gboolean
esd_fs_tree_copy(const gchar *source,
		 const gchar *destination,
		 gboolean recursive,
		 GCancellable *cancellable,
		 GError **error);

G_END_DECLS
