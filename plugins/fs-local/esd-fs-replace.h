/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <sys/types.h>

#include "esd-fs-path.h"

G_BEGIN_DECLS

typedef struct _EsdFsReplace EsdFsReplace;

/* a replacement as handed from one process to another */
typedef struct {
	gint fd;	      /* the staged content, read-write */
	gint dirfd;	      /* `O_PATH` directory of the target */
	gint target_fd;	      /* the existing target opened for writing, or -1 */
	const gchar *leaf;    /* the target's name in dirfd */
	const gchar *tmpname; /* a named staging file in dirfd, or NULL */
	gboolean in_place;
	gboolean target_existed;
} EsdFsReplaceParts;

EsdFsReplace *
esd_fs_replace_new(EsdFsTarget *target, GError **error);
EsdFsReplace *
esd_fs_replace_new_from_parts(EsdFsReplaceParts *parts);
void
esd_fs_replace_get_parts(EsdFsReplace *self, EsdFsReplaceParts *parts);
void
esd_fs_replace_disown(EsdFsReplace *self);
gint
esd_fs_replace_get_fd(EsdFsReplace *self);
gboolean
esd_fs_replace_set_mode(EsdFsReplace *self, mode_t mode, GError **error);
gboolean
esd_fs_replace_commit(EsdFsReplace *self, gboolean sync, GError **error);
void
esd_fs_replace_discard(EsdFsReplace *self);
void
esd_fs_replace_free(EsdFsReplace *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdFsReplace, esd_fs_replace_free)

G_END_DECLS
