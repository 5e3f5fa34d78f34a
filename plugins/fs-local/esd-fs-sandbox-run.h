/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-handle.h"

G_BEGIN_DECLS

/* a large string member of the params, read where the transport received it */
typedef struct {
	const gchar *member;
	const gchar *text;
	gsize len;
} EsdFsSandboxBlob;

/**
 * EsdFsSandboxAdoptFunc:
 * @call: a sandboxed fs/open
 * @handle: the handle the helper opened
 * @error: return location for a #GError
 *
 * Keeps @handle for the call's connection; on the main thread.
 *
 * Returns: %TRUE if the call may be answered with the helper's result
 */
typedef gboolean (*EsdFsSandboxAdoptFunc)(ErpcCall *call, EsdFsHandle *handle, GError **error);

void
esd_fs_sandbox_run(ErpcCall *call,
		   ErpcSandbox *service,
		   ErpcSandboxPolicy *policy,
		   JsonObject *params,
		   const EsdFsSandboxBlob *blob,
		   EsdFsSandboxAdoptFunc adopt);

G_END_DECLS
