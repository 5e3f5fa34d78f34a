/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "esd-fs-path.h"

G_BEGIN_DECLS

typedef struct _EsdFsReplace EsdFsReplace;

EsdFsReplace *
esd_fs_replace_new(EsdFsTarget *target, GError **error);
gint
esd_fs_replace_get_fd(EsdFsReplace *self);
gboolean
esd_fs_replace_set_mode(EsdFsReplace *self, mode_t mode, GError **error);
gboolean
esd_fs_replace_commit(EsdFsReplace *self, gboolean sync, GError **error);
void
esd_fs_replace_free(EsdFsReplace *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdFsReplace, esd_fs_replace_free)

G_END_DECLS
