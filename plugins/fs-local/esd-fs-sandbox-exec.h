/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-sandbox-answer.h"
#include "esd-fs-util.h"

G_BEGIN_DECLS

const gchar *
esd_fs_sandbox_helper_path(void);
gchar **
esd_fs_sandbox_helper_ro_files(void);
gboolean
esd_fs_sandbox_exec(ErpcSandbox *service,
		    ErpcSandboxPolicy *policy,
		    GPtrArray *request,
		    gint handoff_fd,
		    EsdFsAnswer *answer,
		    GCancellable *cancellable,
		    GError **error);

ErpcSandboxChild *
esd_fs_sandbox_spawn_server(ErpcSandbox *service,
			    ErpcSandboxPolicy *policy,
			    gint handoff_fd,
			    gint *in_fd,
			    gint *out_fd,
			    gint *err_fd,
			    GError **error);
void
esd_fs_sandbox_describe_failure(gint status, GString *stderr_text, GError **error);

G_END_DECLS
