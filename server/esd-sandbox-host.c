/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "erpc-sandbox-private.h"
#include "esd-bwrap.h"
#include "esd-landlock.h"
#include "esd-sandbox-host.h"
#include "esd-sandbox-launch.h"
#include "esd-sandbox-mounts.h"

/*
 * The sandbox service plugins reach through their context: the policy
 * parser of process/start and the launch it prepares
 * (esd_sandbox_launch_prepare()), linked into the daemon once. A plugin's
 * command runs as bwrap's, spawned directly (not through esd-supervise):
 * it is a helper of one request, not a process of a session.
 */

struct _EsdSandboxHost {
	ErpcSandbox parent_instance;
};

G_DEFINE_FINAL_TYPE(EsdSandboxHost, esd_sandbox_host, ERPC_TYPE_SANDBOX)

static ErpcSandboxPolicy *
esd_sandbox_host_parse_policy(ErpcSandbox *sandbox,
			      JsonObject *object,
			      const gchar *cwd,
			      GError **error)
{
	g_autofree gchar *own_cwd = cwd == NULL ? g_get_current_dir() : NULL;
	const gchar *tmpdirs[] = {g_get_tmp_dir(), NULL};
	EsdSandboxDefaults defaults = {.cwd = cwd != NULL ? cwd : own_cwd,
				       .home = g_get_home_dir(),
				       .tmpdirs = tmpdirs};
	EsdSandboxPolicy *policy;

	policy = esd_sandbox_policy_new_from_json(object, &defaults, error);
	if (policy == NULL) {
		if (error != NULL &&
		    g_error_matches(*error, ESD_SANDBOX_ERROR, ESD_SANDBOX_ERROR_UNAVAILABLE)) {
			(*error)->domain = ERPC_SANDBOX_ERROR;
			(*error)->code = ERPC_SANDBOX_ERROR_UNAVAILABLE;
		}
		return NULL;
	}
	return erpc_sandbox_policy_new(sandbox,
				       policy,
				       (GDestroyNotify)esd_sandbox_policy_free,
				       esd_sandbox_policy_is_isolated(policy),
				       policy->profile == ESD_SANDBOX_PROFILE_MANAGED &&
					   policy->fs == ESD_SANDBOX_FS_RESTRICTED,
				       policy->network == ESD_SANDBOX_NETWORK_RESTRICTED
					   ? ERPC_SANDBOX_NETWORK_RESTRICTED
					   : ERPC_SANDBOX_NETWORK_ENABLED);
}

static ErpcSandboxAccess
esd_sandbox_host_get_access(ErpcSandbox *sandbox, ErpcSandboxPolicy *policy, const gchar *path)
{
	const EsdSandboxPolicy *own =
	    esd_sandbox_host_get_policy(ESD_SANDBOX_HOST(sandbox), policy);

	switch (esd_sandbox_policy_access_for(own, path)) {
	case ESD_SANDBOX_ACCESS_READ:
		return ERPC_SANDBOX_ACCESS_READ;
	case ESD_SANDBOX_ACCESS_WRITE:
		return ERPC_SANDBOX_ACCESS_WRITE;
	case ESD_SANDBOX_ACCESS_DENY:
	default:
		return ERPC_SANDBOX_ACCESS_DENY;
	}
}

/*
 * Decided on the mount plan a launch would build now: the same code, so
 * that the answer cannot drift from what bwrap is asked to mount. Without
 * a usable bwrap the sandbox's answer is sandboxUnavailable, which no
 * direct run may replace.
 */
static gboolean
esd_sandbox_host_check_direct(ErpcSandbox *sandbox,
			      ErpcSandboxPolicy *policy,
			      const gchar *path,
			      ErpcSandboxAccess access,
			      ErpcSandboxDirectFlags flags,
			      const gchar *const *ro_files)
{
	const EsdSandboxPolicy *own =
	    esd_sandbox_host_get_policy(ESD_SANDBOX_HOST(sandbox), policy);

	if (own == NULL || !esd_sandbox_policy_is_isolated(own) || !esd_bwrap_available(NULL))
		return FALSE;
	return esd_sandbox_mounts_check_direct(own,
					       path,
					       access == ERPC_SANDBOX_ACCESS_WRITE
						   ? ESD_SANDBOX_ACCESS_WRITE
						   : ESD_SANDBOX_ACCESS_READ,
					       (flags & ERPC_SANDBOX_DIRECT_TREE) != 0,
					       ro_files);
}

/* in the child, before bwrap's exec: the ruleset the launch asks for */
static void
esd_sandbox_host_child_setup(gpointer data)
{
	if (esd_landlock_restrict_self(GPOINTER_TO_INT(data)) != 0)
		_exit(127);
}

/* bwrap with the launch's descriptors at their own numbers and the command's at theirs */
static gboolean
esd_sandbox_host_start(EsdSandboxLaunch *launch,
		       ErpcSandboxCommand *command,
		       GPid *pid,
		       GError **error)
{
	g_autoptr(GArray) fds = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(GArray) targets = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(GError) error_local = NULL;
	GSpawnFlags flags = G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_CLOEXEC_PIPES;
	gint landlock_fd = esd_sandbox_launch_get_landlock_fd(launch);
	gint stdio[3] = {-1, -1, -1};
	const gint *launch_fds;
	const gint *command_fds;
	const gint *command_targets = NULL;
	guint n_launch_fds = 0;
	guint n_command_fds = 0;

	launch_fds = esd_sandbox_launch_get_fds(launch, &n_launch_fds);
	g_array_append_vals(fds, launch_fds, n_launch_fds);
	g_array_append_vals(targets, launch_fds, n_launch_fds);
	command_fds = erpc_sandbox_command_get_fds(command, &command_targets, &n_command_fds);
	for (guint i = 0; i < n_command_fds; i++) {
		if (command_targets[i] <= 2) {
			stdio[command_targets[i]] = command_fds[i];
			continue;
		}
		g_array_append_val(fds, command_fds[i]);
		g_array_append_val(targets, command_targets[i]);
	}
	/* what the command was not given is /dev/null, never the daemon's */
	if (stdio[0] < 0)
		flags |= G_SPAWN_STDIN_FROM_DEV_NULL;
	if (stdio[1] < 0)
		flags |= G_SPAWN_STDOUT_TO_DEV_NULL;
	if (stdio[2] < 0)
		flags |= G_SPAWN_STDERR_TO_DEV_NULL;
	/*
	 * GLib marks the unmapped descriptors close-on-exec (bwrap's are always
	 * mapped), so the ruleset is still open in the child setup and not
	 * inherited by bwrap.
	 */
	if (!g_spawn_async_with_pipes_and_fds(NULL,
					      esd_sandbox_launch_get_argv(launch),
					      esd_sandbox_launch_get_envp(launch),
					      flags,
					      landlock_fd >= 0 ? esd_sandbox_host_child_setup
							       : NULL,
					      GINT_TO_POINTER(landlock_fd),
					      stdio[0],
					      stdio[1],
					      stdio[2],
					      (const gint *)(gpointer)fds->data,
					      (const gint *)(gpointer)targets->data,
					      fds->len,
					      pid,
					      NULL,
					      NULL,
					      NULL,
					      &error_local)) {
		g_set_error(error,
			    ERPC_SANDBOX_ERROR,
			    ERPC_SANDBOX_ERROR_PREPARATION,
			    "cannot start bwrap: %s",
			    error_local->message);
		return FALSE;
	}
	return TRUE;
}

/* fails closed: without bwrap, a filter or the mounts nothing runs */
static ErpcSandboxChild *
esd_sandbox_host_spawn(ErpcSandbox *sandbox,
		       ErpcSandboxPolicy *policy,
		       ErpcSandboxCommand *command,
		       GError **error)
{
	const EsdSandboxPolicy *own =
	    esd_sandbox_host_get_policy(ESD_SANDBOX_HOST(sandbox), policy);
	g_autoptr(EsdSandboxLaunch) launch = NULL;
	ErpcSandboxChild *child;
	gboolean mount_points;
	GPid pid = 0;

	if (own == NULL || !esd_sandbox_policy_is_isolated(own)) {
		g_set_error_literal(error,
				    ERPC_SANDBOX_ERROR,
				    ERPC_SANDBOX_ERROR_PREPARATION,
				    "not a policy of an isolated sandbox of this daemon");
		return NULL;
	}
	launch = esd_sandbox_launch_prepare(own, command, error);
	if (launch == NULL)
		return NULL;
	if (!esd_sandbox_host_start(launch, command, &pid, error))
		return NULL;
	esd_sandbox_launch_spawned(launch);
	mount_points = esd_sandbox_launch_leaves_mount_points(launch);
	child = erpc_sandbox_child_new(pid,
				       g_steal_pointer(&launch),
				       (GDestroyNotify)esd_sandbox_launch_free);
	erpc_sandbox_child_set_host_mount_points(child, mount_points);
	return child;
}

static void
esd_sandbox_host_init(EsdSandboxHost *self)
{
}

static void
esd_sandbox_host_class_init(EsdSandboxHostClass *klass)
{
	ErpcSandboxClass *sandbox_class = ERPC_SANDBOX_CLASS(klass);

	sandbox_class->parse_policy = esd_sandbox_host_parse_policy;
	sandbox_class->get_access = esd_sandbox_host_get_access;
	sandbox_class->spawn = esd_sandbox_host_spawn;
	sandbox_class->check_direct = esd_sandbox_host_check_direct;
}

/**
 * esd_sandbox_host_new:
 *
 * Returns: (transfer full): the daemon's sandbox service
 */
ErpcSandbox *
esd_sandbox_host_new(void)
{
	return g_object_new(ESD_TYPE_SANDBOX_HOST, NULL);
}

/**
 * esd_sandbox_host_get_policy:
 * @self: the sandbox service
 * @policy: a policy
 *
 * Returns: (transfer none) (nullable): the parsed form of @policy, or
 *   %NULL if @self did not make it
 */
const EsdSandboxPolicy *
esd_sandbox_host_get_policy(EsdSandboxHost *self, ErpcSandboxPolicy *policy)
{
	g_return_val_if_fail(ESD_IS_SANDBOX_HOST(self), NULL);
	return erpc_sandbox_policy_get_data(policy, ERPC_SANDBOX(self));
}
