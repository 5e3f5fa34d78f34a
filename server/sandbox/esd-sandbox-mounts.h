/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-sandbox-policy.h"

G_BEGIN_DECLS

/* descriptors a launch may hand to bwrap for binds and masks (see esd-spawn.h) */
#define ESD_SANDBOX_MAX_FDS 1000
/* bwrap inherits its descriptors at their numbers, above the supervisor's 0 to 6 */
#define ESD_SANDBOX_FIRST_FD 7

/* the file-system part of a bwrap command line, and what it leaves on the host */
typedef struct {
	GPtrArray *args;      /* of gchar*: bwrap options, in order */
	gint empty_fd;	      /* sealed empty memfd for --ro-bind-data, or -1 */
	GArray *pinned;	      /* of gint: O_PATH descriptors of bind sources (--bind-fd) */
	GPtrArray *synthetic; /* of gchar*: mount targets bwrap creates on the host */
	gboolean released;
} EsdSandboxMounts;

gboolean
esd_sandbox_mounts_build(const EsdSandboxPolicy *policy, EsdSandboxMounts *mounts, GError **error);
void
esd_sandbox_mounts_release(EsdSandboxMounts *mounts, gboolean remove_targets);
void
esd_sandbox_mounts_clear(EsdSandboxMounts *mounts);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdSandboxMounts, esd_sandbox_mounts_clear)

gboolean
esd_sandbox_mounts_check_direct(const EsdSandboxPolicy *policy,
				const gchar *path,
				EsdSandboxAccess access,
				gboolean tree,
				const gchar *const *ro_files);

void
esd_sandbox_mounts_set_fresh_proc(gboolean fresh);

void
esd_sandbox_hide_path(const gchar *path);

gint
esd_sandbox_fd_above_std(gint fd);
gchar **
esd_sandbox_dup_hidden_paths(void);

G_END_DECLS
