/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "esd-bwrap.h"
#include "esd-landlock.h"
#include "esd-sandbox-launch.h"
#include "esd-sandbox-mounts.h"
#include "esd-seccomp.h"

/*
 * The one way a command enters the sandbox, for process/start and for the
 * helpers plugins run through the host service alike: bwrap with the
 * policy's mounts, the seccomp filter and, where the policy shares the
 * host's network, the Landlock ruleset. Whoever spawns it only maps the
 * descriptors and enters the ruleset; it fails closed before that.
 */

struct _EsdSandboxLaunch {
	EsdBwrapLaunch *bwrap;
	gint seccomp_fd;  /* open until the spawn has its copy */
	gint landlock_fd; /* owned by esd-landlock, or -1 */
};

static void
esd_sandbox_launch_fail(GError **error, ErpcSandboxError code, GError *error_local)
{
	g_set_error_literal(error, ERPC_SANDBOX_ERROR, code, error_local->message);
}

/* the command's stdio is its own; its other descriptors must not replace bwrap's */
static gboolean
esd_sandbox_launch_check_fds(EsdSandboxLaunch *self, ErpcSandboxCommand *command, GError **error)
{
	const gint *targets = NULL;
	const gint *launch_fds;
	guint n_launch_fds = 0;
	guint n_fds = 0;

	launch_fds = esd_bwrap_launch_get_fds(self->bwrap, &n_launch_fds);
	erpc_sandbox_command_get_fds(command, &targets, &n_fds);
	for (guint i = 0; i < n_fds; i++) {
		if (targets[i] <= 2)
			continue;
		for (guint j = 0; j < n_launch_fds; j++) {
			if (launch_fds[j] == targets[i]) {
				g_set_error(error,
					    ERPC_SANDBOX_ERROR,
					    ERPC_SANDBOX_ERROR_PREPARATION,
					    "descriptor %d is taken by the sandbox",
					    targets[i]);
				return FALSE;
			}
		}
	}
	return TRUE;
}

/**
 * esd_sandbox_launch_prepare:
 * @policy: an isolated policy
 * @command: what runs inside: argv, environment, working directory, extra
 *   read-only files and descriptors
 * @error: return location for a #GError, or %NULL
 *
 * Builds the bwrap command line, its seccomp program and the Landlock
 * ruleset the spawned process must enter. Errors are %ERPC_SANDBOX_ERROR:
 * %ERPC_SANDBOX_ERROR_UNAVAILABLE without a usable bwrap,
 * %ERPC_SANDBOX_ERROR_PREPARATION for anything else.
 *
 * Returns: (transfer full): the launch, or %NULL with @error set
 */
EsdSandboxLaunch *
esd_sandbox_launch_prepare(const EsdSandboxPolicy *policy,
			   ErpcSandboxCommand *command,
			   GError **error)
{
	return esd_sandbox_launch_prepare_managed(policy, command, FALSE, FALSE, error);
}

/**
 * esd_sandbox_launch_prepare_managed:
 * @policy: an isolated policy
 * @command: as for esd_sandbox_launch_prepare()
 * @managed_network: with a restricted network, the managed one: the
 *   command's first step makes the proxy's listeners on the namespace's
 *   loopback, and the seccomp filter allows IPv4/IPv6 stream sockets and
 *   connect(2) instead of new Unix sockets (ESD_SECCOMP_NETWORK_MANAGED)
 * @managed_datagrams: with @managed_network, the proxy's UDP relays are on
 *   that loopback too: IPv4/IPv6 datagram sockets and sendto(2) with an
 *   address (ESD_SECCOMP_NETWORK_DATAGRAMS)
 * @error: return location for a #GError, or %NULL
 *
 * As esd_sandbox_launch_prepare().
 *
 * Returns: (transfer full): the launch, or %NULL with @error set
 */
EsdSandboxLaunch *
esd_sandbox_launch_prepare_managed(const EsdSandboxPolicy *policy,
				   ErpcSandboxCommand *command,
				   gboolean managed_network,
				   gboolean managed_datagrams,
				   GError **error)
{
	g_autoptr(EsdSandboxLaunch) self = NULL;
	g_autoptr(GError) error_local = NULL;
	EsdSeccompFlags flags = policy->network == ESD_SANDBOX_NETWORK_RESTRICTED
				    ? ESD_SECCOMP_NETWORK_RESTRICTED
				    : ESD_SECCOMP_FLAG_NONE;

	if (managed_network && policy->network == ESD_SANDBOX_NETWORK_RESTRICTED)
		flags |= ESD_SECCOMP_NETWORK_MANAGED;
	if (managed_datagrams && (flags & ESD_SECCOMP_NETWORK_MANAGED) != 0)
		flags |= ESD_SECCOMP_NETWORK_DATAGRAMS;

	if (!esd_bwrap_available(&error_local)) {
		esd_sandbox_launch_fail(error, ERPC_SANDBOX_ERROR_UNAVAILABLE, error_local);
		return NULL;
	}
	self = g_new0(EsdSandboxLaunch, 1);
	self->landlock_fd = -1;
	self->seccomp_fd = esd_seccomp_build_fd(flags, &error_local);
	/* its number is one of bwrap's arguments */
	if (self->seccomp_fd >= 0 &&
	    (self->seccomp_fd = esd_sandbox_fd_above_std(self->seccomp_fd)) < 0)
		g_set_error(&error_local,
			    G_IO_ERROR,
			    g_io_error_from_errno(errno),
			    "cannot move the seccomp program: %s",
			    g_strerror(errno));
	if (self->seccomp_fd < 0) {
		esd_sandbox_launch_fail(error, ERPC_SANDBOX_ERROR_PREPARATION, error_local);
		return NULL;
	}
	self->bwrap =
	    esd_bwrap_launch_new_full(policy,
				      self->seccomp_fd,
				      erpc_sandbox_command_get_cwd(command),
				      (gchar *const *)erpc_sandbox_command_get_argv(command),
				      (gchar *const *)erpc_sandbox_command_get_envp(command),
				      erpc_sandbox_command_get_ro_files(command),
				      &error_local);
	if (self->bwrap == NULL) {
		esd_sandbox_launch_fail(
		    error,
		    g_error_matches(error_local, ESD_SANDBOX_ERROR, ESD_SANDBOX_ERROR_UNAVAILABLE)
			? ERPC_SANDBOX_ERROR_UNAVAILABLE
			: ERPC_SANDBOX_ERROR_PREPARATION,
		    error_local);
		return NULL;
	}
	if (!esd_sandbox_launch_check_fds(self, command, error))
		return NULL;
	/* sharing the host's network: keep its abstract sockets and our TCP listeners out */
	if (policy->network == ESD_SANDBOX_NETWORK_ENABLED &&
	    policy->fs == ESD_SANDBOX_FS_RESTRICTED &&
	    policy->profile == ESD_SANDBOX_PROFILE_MANAGED) {
		self->landlock_fd = esd_landlock_get_ruleset(&error_local);
		if (error_local != NULL) {
			esd_sandbox_launch_fail(error, ERPC_SANDBOX_ERROR_PREPARATION, error_local);
			return NULL;
		}
	}
	return g_steal_pointer(&self);
}

/**
 * esd_sandbox_launch_get_argv:
 * @self: a launch
 *
 * Returns: (transfer none): bwrap's argv; argv[0] is its path
 */
const gchar *const *
esd_sandbox_launch_get_argv(EsdSandboxLaunch *self)
{
	return esd_bwrap_launch_get_argv(self->bwrap);
}

/**
 * esd_sandbox_launch_get_envp:
 * @self: a launch
 *
 * Returns: (transfer none): bwrap's own environment
 */
const gchar *const *
esd_sandbox_launch_get_envp(EsdSandboxLaunch *self)
{
	return esd_bwrap_launch_get_envp(self->bwrap);
}

/**
 * esd_sandbox_launch_leaves_mount_points:
 * @self: a launch
 *
 * Returns: whether the sandbox makes mount points on the host while it
 *   runs (masks of missing protected names, missing denied paths)
 */
gboolean
esd_sandbox_launch_leaves_mount_points(EsdSandboxLaunch *self)
{
	return esd_bwrap_launch_get_n_synthetic(self->bwrap) > 0;
}

/**
 * esd_sandbox_launch_get_fds:
 * @self: a launch
 * @n_fds: (out): the number of descriptors
 *
 * Returns: (transfer none): the descriptors bwrap inherits, each at its own number
 */
const gint *
esd_sandbox_launch_get_fds(EsdSandboxLaunch *self, guint *n_fds)
{
	return esd_bwrap_launch_get_fds(self->bwrap, n_fds);
}

/**
 * esd_sandbox_launch_get_landlock_fd:
 * @self: a launch
 *
 * Returns: the Landlock ruleset the spawned process enters before its exec
 *   (esd_landlock_restrict_self()), or -1 for none
 */
gint
esd_sandbox_launch_get_landlock_fd(EsdSandboxLaunch *self)
{
	return self->landlock_fd;
}

/**
 * esd_sandbox_launch_spawned:
 * @self: a launch
 *
 * Closes what only the spawn needed, once the child has its copies.
 */
void
esd_sandbox_launch_spawned(EsdSandboxLaunch *self)
{
	if (self->seccomp_fd >= 0) {
		close(self->seccomp_fd);
		self->seccomp_fd = -1;
	}
}

/**
 * esd_sandbox_launch_free:
 * @self: (nullable): a launch
 *
 * Frees @self once the sandbox has exited, or was never started: its
 * synthetic mount points go.
 */
void
esd_sandbox_launch_free(EsdSandboxLaunch *self)
{
	if (self == NULL)
		return;
	esd_sandbox_launch_spawned(self);
	if (self->bwrap != NULL) {
		esd_bwrap_launch_cleanup(self->bwrap);
		esd_bwrap_launch_free(self->bwrap);
	}
	g_free(self);
}
