/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-shell-snapshot-request.h"

G_BEGIN_DECLS

/* the last line of a complete capture */
#define ESD_SHELL_SNAPSHOT_TRAILER "# end of shell snapshot\n"

/* a captured snapshot: its descriptor, and for sh the variables it exports */
typedef struct {
	gint fd;
	gchar **names;
} EsdShellSnapshotImage;

void
esd_shell_snapshot_image_free(EsdShellSnapshotImage *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdShellSnapshotImage, esd_shell_snapshot_image_free)

const gchar *
esd_shell_snapshot_capture_script(EsdShellSnapshotShell shell);
gchar **
esd_shell_snapshot_restore_argv(EsdShellSnapshotShell shell,
				const gchar *const *argv,
				gint snapshot_fd,
				const gchar *const *keep);

void
esd_shell_snapshot_capture_async(EsdShellSnapshotShell shell,
				 const gchar *program,
				 const gchar *const *envp,
				 const gchar *cwd,
				 ErpcSandbox *sandbox,
				 ErpcSandboxPolicy *policy,
				 gsize max_bytes,
				 guint timeout_ms,
				 GCancellable *cancellable,
				 GAsyncReadyCallback callback,
				 gpointer user_data);
EsdShellSnapshotImage *
esd_shell_snapshot_capture_finish(GAsyncResult *result, GError **error);

G_END_DECLS
