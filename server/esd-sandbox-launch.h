/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-sandbox-policy.h"

G_BEGIN_DECLS

typedef struct _EsdSandboxLaunch EsdSandboxLaunch;

EsdSandboxLaunch *
esd_sandbox_launch_prepare(const EsdSandboxPolicy *policy,
			   ErpcSandboxCommand *command,
			   GError **error);
EsdSandboxLaunch *
esd_sandbox_launch_prepare_managed(const EsdSandboxPolicy *policy,
				   ErpcSandboxCommand *command,
				   gboolean managed_network,
				   gboolean managed_datagrams,
				   GError **error);
const gchar *const *
esd_sandbox_launch_get_argv(EsdSandboxLaunch *self);
const gchar *const *
esd_sandbox_launch_get_envp(EsdSandboxLaunch *self);
const gint *
esd_sandbox_launch_get_fds(EsdSandboxLaunch *self, guint *n_fds);
gboolean
esd_sandbox_launch_leaves_mount_points(EsdSandboxLaunch *self);
gint
esd_sandbox_launch_get_landlock_fd(EsdSandboxLaunch *self);
void
esd_sandbox_launch_spawned(EsdSandboxLaunch *self);
void
esd_sandbox_launch_free(EsdSandboxLaunch *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdSandboxLaunch, esd_sandbox_launch_free)

G_END_DECLS
