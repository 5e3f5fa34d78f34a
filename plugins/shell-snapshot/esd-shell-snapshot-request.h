/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* the shells whose state a snapshot can hold */
typedef enum {
	ESD_SHELL_SNAPSHOT_SHELL_BASH,
	ESD_SHELL_SNAPSHOT_SHELL_ZSH,
	ESD_SHELL_SNAPSHOT_SHELL_SH,
} EsdShellSnapshotShell;

/* `process/start.shellSnapshot` as checked, and whether the command is the
 * form a snapshot applies to: `[shell.path, "-lc", script, args...]` */
typedef struct {
	gchar *scope_id;
	gchar *shell_name;
	gchar *shell_path;
	EsdShellSnapshotShell shell;
	gboolean applies;
} EsdShellSnapshotRequest;

EsdShellSnapshotRequest *
esd_shell_snapshot_request_parse(JsonNode *value, JsonObject *params, GError **error);
void
esd_shell_snapshot_request_free(EsdShellSnapshotRequest *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdShellSnapshotRequest, esd_shell_snapshot_request_free)

G_END_DECLS
