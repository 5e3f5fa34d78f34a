/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-sandbox-policy.h"

G_BEGIN_DECLS

/* the only environment bwrap itself runs with */
#define ESD_BWRAP_PATH_ENV "PATH=/usr/sbin:/usr/bin:/sbin:/bin"

typedef struct _EsdBwrapLaunch EsdBwrapLaunch; /* owns args, fds and cleanup list */

EsdBwrapLaunch *
esd_bwrap_launch_new(const EsdSandboxPolicy *policy,
		     gint seccomp_fd,
		     const gchar *cwd,
		     gchar *const *command_argv,
		     gchar *const *command_envp,
		     GError **error) G_GNUC_WARN_UNUSED_RESULT;
EsdBwrapLaunch *
esd_bwrap_launch_new_full(const EsdSandboxPolicy *policy,
			  gint seccomp_fd,
			  const gchar *cwd,
			  gchar *const *command_argv,
			  gchar *const *command_envp,
			  const gchar *const *extra_ro_files,
			  GError **error) G_GNUC_WARN_UNUSED_RESULT;
gint
esd_bwrap_launch_get_args_fd(EsdBwrapLaunch *launch);
const gint *
esd_bwrap_launch_get_fds(EsdBwrapLaunch *launch, guint *n_fds);
const gchar *const *
esd_bwrap_launch_get_argv(EsdBwrapLaunch *launch);
const gchar *const *
esd_bwrap_launch_get_envp(EsdBwrapLaunch *launch);
GPtrArray *
esd_bwrap_launch_dup_args(EsdBwrapLaunch *launch);
void
esd_bwrap_launch_cleanup(EsdBwrapLaunch *launch);
void
esd_bwrap_launch_free(EsdBwrapLaunch *launch);
guint
esd_bwrap_launch_get_n_synthetic(EsdBwrapLaunch *launch);

gchar *
esd_bwrap_find(GError **error);
gboolean
esd_bwrap_available(GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdBwrapLaunch, esd_bwrap_launch_free)

G_END_DECLS
