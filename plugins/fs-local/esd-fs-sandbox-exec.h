/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "esd-fs-sandbox-answer.h"
#include "esd-fs-util.h"
#include "esd-sandbox-policy.h"

G_BEGIN_DECLS

/* the sandbox could not be set up (seccomp, bwrap's mounts): `sandboxPreparation` */
#define ESD_FS_SANDBOX_PREPARATION_ERROR (esd_fs_sandbox_preparation_error_quark())

GQuark
esd_fs_sandbox_preparation_error_quark(void);
const gchar *
esd_fs_sandbox_helper_path(void);
gboolean
esd_fs_sandbox_exec(const EsdSandboxPolicy *policy,
		    GPtrArray *request,
		    gint handoff_fd,
		    EsdFsAnswer *answer,
		    GCancellable *cancellable,
		    GError **error);

G_END_DECLS
