/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "erpc-sandbox-private.h"

/*
 * The sandbox as a host service. This file holds what a plugin sees: the
 * policy, command and child boxes, the abstract service and the one mapping
 * of its errors to the wire. The daemon subclasses ErpcSandbox
 * (server/esd-sandbox-host.c) and is the only one to link the sandbox
 * itself; a policy carries the daemon's parsed form as opaque data.
 */

/**
 * erpc_sandbox_error_quark:
 *
 * The domain of the sandbox service's errors, %ERPC_SANDBOX_ERROR.
 *
 * Returns: the quark of `erpc-sandbox-error-quark`
 *
 * Since: 0.2
 */
GQuark
erpc_sandbox_error_quark(void)
{
	/* written out: clang-format would space the dashes of G_DEFINE_QUARK() */
	return g_quark_from_static_string("erpc-sandbox-error-quark");
}

struct _ErpcSandboxPolicy {
	gatomicrefcount ref;
	ErpcSandbox *owner;
	gpointer data;
	GDestroyNotify destroy;
	gboolean isolated;
	gboolean fs_restricted;
	ErpcSandboxNetwork network;
};

G_DEFINE_BOXED_TYPE(ErpcSandboxPolicy,
		    erpc_sandbox_policy,
		    erpc_sandbox_policy_ref,
		    erpc_sandbox_policy_unref)

/**
 * erpc_sandbox_policy_new:
 * @owner: the sandbox that parsed it
 * @data: (transfer full): the daemon's form of the policy
 * @destroy: frees @data
 * @isolated: whether a command under it runs in a sandbox
 * @fs_restricted: whether it restricts the file system
 * @network: its network mode
 *
 * Returns: (transfer full): a new policy
 */
ErpcSandboxPolicy *
erpc_sandbox_policy_new(ErpcSandbox *owner,
			gpointer data,
			GDestroyNotify destroy,
			gboolean isolated,
			gboolean fs_restricted,
			ErpcSandboxNetwork network)
{
	ErpcSandboxPolicy *self = g_new0(ErpcSandboxPolicy, 1);

	g_return_val_if_fail(ERPC_IS_SANDBOX(owner), NULL);
	g_atomic_ref_count_init(&self->ref);
	self->owner = g_object_ref(owner);
	self->data = data;
	self->destroy = destroy;
	self->isolated = isolated;
	self->fs_restricted = fs_restricted;
	self->network = network;
	return self;
}

/**
 * erpc_sandbox_policy_get_data:
 * @self: a policy
 * @owner: the sandbox asking
 *
 * Returns: (transfer none) (nullable): the daemon's form of the policy, or
 *   %NULL if @owner did not make it
 */
gpointer
erpc_sandbox_policy_get_data(ErpcSandboxPolicy *self, ErpcSandbox *owner)
{
	g_return_val_if_fail(self != NULL, NULL);
	return self->owner == owner ? self->data : NULL;
}

/**
 * erpc_sandbox_policy_ref:
 * @self: a policy
 *
 * Takes a reference on the policy.
 *
 * Returns: (transfer full): @self
 *
 * Since: 0.2
 */
ErpcSandboxPolicy *
erpc_sandbox_policy_ref(ErpcSandboxPolicy *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	g_atomic_ref_count_inc(&self->ref);
	return self;
}

/**
 * erpc_sandbox_policy_unref:
 * @self: (transfer full): a policy
 *
 * Drops a reference on the policy.
 *
 * Since: 0.2
 */
void
erpc_sandbox_policy_unref(ErpcSandboxPolicy *self)
{
	g_return_if_fail(self != NULL);
	if (!g_atomic_ref_count_dec(&self->ref))
		return;
	if (self->destroy != NULL)
		self->destroy(self->data);
	g_object_unref(self->owner);
	g_free(self);
}

/**
 * erpc_sandbox_policy_is_isolated:
 * @self: a policy
 *
 * Whether work under the policy must run inside the sandbox.
 *
 * Returns: %TRUE if a command under @self runs in a sandbox (a managed
 *   profile that restricts the file system or the network), as
 *   process/start runs it
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_policy_is_isolated(ErpcSandboxPolicy *self)
{
	g_return_val_if_fail(self != NULL, FALSE);
	return self->isolated;
}

/**
 * erpc_sandbox_policy_is_file_system_restricted:
 * @self: a policy
 *
 * Whether the policy restricts the file system.
 *
 * Returns: %TRUE if @self is a managed profile with a restricted file
 *   system: file system work under it must run in the sandbox
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_policy_is_file_system_restricted(ErpcSandboxPolicy *self)
{
	g_return_val_if_fail(self != NULL, FALSE);
	return self->fs_restricted;
}

/**
 * erpc_sandbox_policy_get_network:
 * @self: a policy
 *
 * The network a command under the policy gets.
 *
 * Returns: the network a command under @self has
 *
 * Since: 0.2
 */
ErpcSandboxNetwork
erpc_sandbox_policy_get_network(ErpcSandboxPolicy *self)
{
	g_return_val_if_fail(self != NULL, ERPC_SANDBOX_NETWORK_RESTRICTED);
	return self->network;
}

/**
 * erpc_sandbox_policy_get_access:
 * @self: a policy
 * @path: an absolute path
 *
 * The access the rules of @self give @path (the most specific rule wins;
 * glob rules are not applied here). An unrestricted file system gives
 * %ERPC_SANDBOX_ACCESS_WRITE everywhere.
 *
 * Returns: the access of @path
 *
 * Since: 0.2
 */
ErpcSandboxAccess
erpc_sandbox_policy_get_access(ErpcSandboxPolicy *self, const gchar *path)
{
	g_return_val_if_fail(self != NULL, ERPC_SANDBOX_ACCESS_DENY);
	g_return_val_if_fail(path != NULL && g_path_is_absolute(path), ERPC_SANDBOX_ACCESS_DENY);
	if (!self->fs_restricted)
		return ERPC_SANDBOX_ACCESS_WRITE;
	return ERPC_SANDBOX_GET_CLASS(self->owner)->get_access(self->owner, self, path);
}

struct _ErpcSandboxCommand {
	gatomicrefcount ref;
	GStrv argv;
	GStrv envp;
	gchar *cwd;
	GArray *fds;	    /* of gint, owned until spawned */
	GArray *target_fds; /* of gint */
	GPtrArray *ro_files;
};

G_DEFINE_BOXED_TYPE(ErpcSandboxCommand,
		    erpc_sandbox_command,
		    erpc_sandbox_command_ref,
		    erpc_sandbox_command_unref)

/**
 * erpc_sandbox_command_new:
 * @argv: the command and its arguments; argv[0] is an absolute path inside
 *   the sandbox
 *
 * A command with an empty environment, `/` as its working directory, and
 * `/dev/null` as its standard descriptors unless given others with
 * erpc_sandbox_command_take_fd().
 *
 * Returns: (transfer full): a new command
 *
 * Since: 0.2
 */
ErpcSandboxCommand *
erpc_sandbox_command_new(const gchar *const *argv)
{
	ErpcSandboxCommand *self;
	const gchar *const empty[] = {NULL};

	g_return_val_if_fail(argv != NULL && argv[0] != NULL, NULL);
	self = g_new0(ErpcSandboxCommand, 1);
	g_atomic_ref_count_init(&self->ref);
	self->argv = g_strdupv((gchar **)argv);
	self->envp = g_strdupv((gchar **)empty);
	self->cwd = g_strdup("/");
	self->fds = g_array_new(FALSE, FALSE, sizeof(gint));
	self->target_fds = g_array_new(FALSE, FALSE, sizeof(gint));
	self->ro_files = g_ptr_array_new_null_terminated(0, g_free, TRUE);
	return self;
}

/**
 * erpc_sandbox_command_ref:
 * @self: a command
 *
 * Takes a reference on the command.
 *
 * Returns: (transfer full): @self
 *
 * Since: 0.2
 */
ErpcSandboxCommand *
erpc_sandbox_command_ref(ErpcSandboxCommand *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	g_atomic_ref_count_inc(&self->ref);
	return self;
}

static void
erpc_sandbox_command_close_fds(ErpcSandboxCommand *self)
{
	for (guint i = 0; i < self->fds->len; i++)
		close(g_array_index(self->fds, gint, i));
	g_array_set_size(self->fds, 0);
	g_array_set_size(self->target_fds, 0);
}

/**
 * erpc_sandbox_command_unref:
 * @self: (transfer full): a command
 *
 * Drops a reference on the command.
 *
 * Since: 0.2
 */
void
erpc_sandbox_command_unref(ErpcSandboxCommand *self)
{
	g_return_if_fail(self != NULL);
	if (!g_atomic_ref_count_dec(&self->ref))
		return;
	erpc_sandbox_command_close_fds(self);
	g_strfreev(self->argv);
	g_strfreev(self->envp);
	g_free(self->cwd);
	g_array_unref(self->fds);
	g_array_unref(self->target_fds);
	g_ptr_array_unref(self->ro_files);
	g_free(self);
}

/**
 * erpc_sandbox_command_set_envp:
 * @self: a command
 * @envp: (nullable): the whole environment of the command, `NAME=value`;
 *   %NULL for none
 *
 * Sets the environment the command gets.
 *
 * Since: 0.2
 */
void
erpc_sandbox_command_set_envp(ErpcSandboxCommand *self, const gchar *const *envp)
{
	const gchar *const empty[] = {NULL};

	g_return_if_fail(self != NULL);
	g_strfreev(self->envp);
	self->envp = g_strdupv((gchar **)(envp != NULL ? envp : empty));
}

/**
 * erpc_sandbox_command_set_cwd:
 * @self: a command
 * @cwd: the absolute working directory inside the sandbox
 *
 * Sets the directory the command starts in.
 *
 * Since: 0.2
 */
void
erpc_sandbox_command_set_cwd(ErpcSandboxCommand *self, const gchar *cwd)
{
	g_return_if_fail(self != NULL);
	g_return_if_fail(cwd != NULL && g_path_is_absolute(cwd));
	g_free(self->cwd);
	self->cwd = g_strdup(cwd);
}

/**
 * erpc_sandbox_command_take_fd:
 * @self: a command
 * @fd: a descriptor, taken over by the command
 * @target_fd: the number the command gets it as: 0, 1 and 2 for its
 *   standard descriptors, or any number above
 *
 * The command gets @fd as @target_fd. The command owns @fd from now on and
 * closes it when it is spawned (so that the caller's end of a pipe sees
 * the end of the child's) or freed.
 *
 * Since: 0.2
 */
void
erpc_sandbox_command_take_fd(ErpcSandboxCommand *self, gint fd, gint target_fd)
{
	g_return_if_fail(self != NULL);
	g_return_if_fail(fd >= 0 && target_fd >= 0);
	for (guint i = 0; i < self->target_fds->len; i++) {
		if (g_array_index(self->target_fds, gint, i) == target_fd) {
			close(g_array_index(self->fds, gint, i));
			g_array_index(self->fds, gint, i) = fd;
			return;
		}
	}
	g_array_append_val(self->fds, fd);
	g_array_append_val(self->target_fds, target_fd);
}

/**
 * erpc_sandbox_command_add_ro_file:
 * @self: a command
 * @path: an absolute path on the host
 *
 * Binds @path read-only at the same path inside the sandbox, whatever the
 * policy shows there: for what the command needs to start (its binary,
 * its shared objects) when the policy hides it. Symbolic links leading to
 * it are made where the policy hides them too.
 *
 * Since: 0.2
 */
void
erpc_sandbox_command_add_ro_file(ErpcSandboxCommand *self, const gchar *path)
{
	g_return_if_fail(self != NULL);
	g_return_if_fail(path != NULL && g_path_is_absolute(path));
	g_ptr_array_add(self->ro_files, g_strdup(path));
}

/**
 * erpc_sandbox_command_get_argv:
 * @self: a command
 *
 * The command line the command runs.
 *
 * Returns: (transfer none): the argv
 *
 * Since: 0.2
 */
const gchar *const *
erpc_sandbox_command_get_argv(ErpcSandboxCommand *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return (const gchar *const *)self->argv;
}

/**
 * erpc_sandbox_command_get_envp:
 * @self: a command
 *
 * The environment the command gets.
 *
 * Returns: (transfer none): the environment
 *
 * Since: 0.2
 */
const gchar *const *
erpc_sandbox_command_get_envp(ErpcSandboxCommand *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return (const gchar *const *)self->envp;
}

/**
 * erpc_sandbox_command_get_cwd:
 * @self: a command
 *
 * The directory the command starts in.
 *
 * Returns: the working directory
 *
 * Since: 0.2
 */
const gchar *
erpc_sandbox_command_get_cwd(ErpcSandboxCommand *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return self->cwd;
}

/**
 * erpc_sandbox_command_get_fds:
 * @self: a command
 * @target_fds: (out) (array length=n_fds): the numbers the command gets them as
 * @n_fds: (out): the number of descriptors
 *
 * The descriptors the command gets, and at which numbers.
 *
 * Returns: (array length=n_fds) (transfer none): the descriptors taken, in
 *   the order given
 *
 * Since: 0.2
 */
const gint *
erpc_sandbox_command_get_fds(ErpcSandboxCommand *self, const gint **target_fds, guint *n_fds)
{
	g_return_val_if_fail(self != NULL, NULL);
	*target_fds = (const gint *)(gpointer)self->target_fds->data;
	*n_fds = self->fds->len;
	return (const gint *)(gpointer)self->fds->data;
}

/**
 * erpc_sandbox_command_get_ro_files:
 * @self: a command
 *
 * The host files bound read-only into the sandbox.
 *
 * Returns: (transfer none): the files added with erpc_sandbox_command_add_ro_file()
 *
 * Since: 0.2
 */
const gchar *const *
erpc_sandbox_command_get_ro_files(ErpcSandboxCommand *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return (const gchar *const *)self->ro_files->pdata;
}

struct _ErpcSandboxChild {
	gatomicrefcount ref;
	GMutex lock;
	GPid pid;
	gboolean reaped;
	gint status;
	gpointer data;
	GDestroyNotify cleanup;
	gboolean host_mount_points;
};

G_DEFINE_BOXED_TYPE(ErpcSandboxChild,
		    erpc_sandbox_child,
		    erpc_sandbox_child_ref,
		    erpc_sandbox_child_unref)

/**
 * erpc_sandbox_child_new:
 * @pid: a child of this process, not reaped by anyone else
 * @data: (transfer full): what the sandbox keeps while the child runs
 * @cleanup: frees @data once the child is reaped
 *
 * Returns: (transfer full): a new child
 */
ErpcSandboxChild *
erpc_sandbox_child_new(GPid pid, gpointer data, GDestroyNotify cleanup)
{
	ErpcSandboxChild *self = g_new0(ErpcSandboxChild, 1);

	g_atomic_ref_count_init(&self->ref);
	g_mutex_init(&self->lock);
	self->pid = pid;
	self->data = data;
	self->cleanup = cleanup;
	return self;
}

/**
 * erpc_sandbox_child_ref:
 * @self: a child
 *
 * Takes a reference on the child.
 *
 * Returns: (transfer full): @self
 *
 * Since: 0.2
 */
ErpcSandboxChild *
erpc_sandbox_child_ref(ErpcSandboxChild *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	g_atomic_ref_count_inc(&self->ref);
	return self;
}

/* reaps a child known to have exited; under the lock, so kill() never hits a reused pid */
static void
erpc_sandbox_child_reap(ErpcSandboxChild *self)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	gint status = 0;

	if (self->reaped)
		return;
	while (waitpid(self->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	self->status = status;
	self->reaped = TRUE;
	if (self->cleanup != NULL)
		self->cleanup(g_steal_pointer(&self->data));
}

/**
 * erpc_sandbox_child_unref:
 * @self: (transfer full): a child
 *
 * Drops a reference on the child.
 *
 * Since: 0.2
 */
void
erpc_sandbox_child_unref(ErpcSandboxChild *self)
{
	g_return_if_fail(self != NULL);
	if (!g_atomic_ref_count_dec(&self->ref))
		return;
	/* never a zombie nor a leftover mount point */
	erpc_sandbox_child_kill(self);
	erpc_sandbox_child_reap(self);
	g_mutex_clear(&self->lock);
	g_free(self);
}

/* for the daemon: whether the sandbox made mount points on the host */
void
erpc_sandbox_child_set_host_mount_points(ErpcSandboxChild *self, gboolean host_mount_points)
{
	g_return_if_fail(self != NULL);
	self->host_mount_points = host_mount_points;
}

/**
 * erpc_sandbox_child_has_host_mount_points:
 * @self: a child
 *
 * Whether the sandbox made mount points on the host for its masks (a
 * missing protected name in a writable directory, a missing denied path):
 * empty files or directories that other programs see until the child has
 * been reaped, when they are removed. A plugin keeping a sandboxed helper
 * running past one request should not keep such a child.
 *
 * Returns: %TRUE if @self left mount points on the host
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_child_has_host_mount_points(ErpcSandboxChild *self)
{
	g_return_val_if_fail(self != NULL, TRUE);
	return self->host_mount_points;
}

/**
 * erpc_sandbox_child_get_pid:
 * @self: a child
 *
 * The process id of the child, for signals and logs.
 *
 * Returns: the pid of the sandbox's outermost process (bwrap)
 *
 * Since: 0.2
 */
GPid
erpc_sandbox_child_get_pid(ErpcSandboxChild *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return self->pid;
}

/**
 * erpc_sandbox_child_kill:
 * @self: a child
 *
 * Kills the sandbox with SIGKILL, unless it has been reaped already; its
 * processes die with it.
 *
 * Since: 0.2
 */
void
erpc_sandbox_child_kill(ErpcSandboxChild *self)
{
	g_autoptr(GMutexLocker) locker = NULL;

	g_return_if_fail(self != NULL);
	locker = g_mutex_locker_new(&self->lock);
	if (!self->reaped)
		kill(self->pid, SIGKILL);
}

/* waits for the exit without reaping it; FALSE when @cancellable fired first */
static gboolean
erpc_sandbox_child_wait_exit(ErpcSandboxChild *self, GCancellable *cancellable)
{
	GPollFD cancel_fd = {-1, 0, 0};
	gint pidfd = -1;
	gboolean exited = FALSE;

	if (cancellable == NULL || !g_cancellable_make_pollfd(cancellable, &cancel_fd)) {
		siginfo_t info;
		while (waitid(P_PID, (id_t)self->pid, &info, WEXITED | WNOWAIT) < 0 &&
		       errno == EINTR)
			;
		return TRUE;
	}
#ifdef SYS_pidfd_open
	pidfd = (gint)syscall(SYS_pidfd_open, self->pid, 0);
#endif
	while (!exited && !g_cancellable_is_cancelled(cancellable)) {
		struct pollfd fds[2] = {{cancel_fd.fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
		siginfo_t info = {0};

		/* without pidfds (Linux < 5.3) the exit is polled for */
		if (poll(fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 20) < 0 && errno != EINTR)
			break;
		gint r = waitid(P_PID, (id_t)self->pid, &info, WEXITED | WNOWAIT | WNOHANG);

		if ((r == 0 && info.si_pid == self->pid) || (r < 0 && errno == ECHILD))
			exited = TRUE;
	}
	if (pidfd >= 0)
		close(pidfd);
	g_cancellable_release_fd(cancellable);
	return exited;
}

/**
 * erpc_sandbox_child_wait:
 * @self: a child
 * @cancellable: (nullable): kills the child when cancelled
 * @wait_status: (out) (optional): the wait status, for
 *   g_spawn_check_wait_status()
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the child has exited and reaps it; for worker threads.
 * Only one wait at a time per child.
 *
 * Returns: %TRUE once the child exited; %FALSE with %G_IO_ERROR_CANCELLED
 *   if @cancellable fired first (the child is killed and reaped all the same)
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_child_wait(ErpcSandboxChild *self,
			GCancellable *cancellable,
			gint *wait_status,
			GError **error)
{
	gboolean exited;

	g_return_val_if_fail(self != NULL, FALSE);
	exited = self->reaped || erpc_sandbox_child_wait_exit(self, cancellable);
	if (!exited)
		erpc_sandbox_child_kill(self);
	erpc_sandbox_child_reap(self);
	if (wait_status != NULL)
		*wait_status = self->status;
	if (!exited) {
		g_set_error_literal(error,
				    G_IO_ERROR,
				    G_IO_ERROR_CANCELLED,
				    "the sandboxed command was cancelled");
		return FALSE;
	}
	return TRUE;
}

static void
erpc_sandbox_child_wait_thread(GTask *task,
			       gpointer source_object,
			       gpointer task_data,
			       GCancellable *cancellable)
{
	GError *error = NULL;
	gint status = 0;

	if (!erpc_sandbox_child_wait(task_data, cancellable, &status, &error)) {
		g_task_return_error(task, error);
		return;
	}
	g_task_return_int(task, status);
}

/**
 * erpc_sandbox_child_wait_async:
 * @self: a child
 * @cancellable: (nullable): kills the child when cancelled
 * @callback: called when the child has exited
 * @user_data: for @callback
 *
 * Waits for the child in a worker thread; @callback runs in the thread-default
 * main context of the caller.
 *
 * Since: 0.2
 */
void
erpc_sandbox_child_wait_async(ErpcSandboxChild *self,
			      GCancellable *cancellable,
			      GAsyncReadyCallback callback,
			      gpointer user_data)
{
	g_autoptr(GTask) task = NULL;

	g_return_if_fail(self != NULL);
	task = g_task_new(NULL, cancellable, callback, user_data);
	g_task_set_source_tag(task, erpc_sandbox_child_wait_async);
	g_task_set_task_data(task,
			     erpc_sandbox_child_ref(self),
			     (GDestroyNotify)erpc_sandbox_child_unref);
	/* the child is killed by the wait itself, which then reports the cancellation */
	g_task_set_return_on_cancel(task, FALSE);
	g_task_run_in_thread(task, erpc_sandbox_child_wait_thread);
}

/**
 * erpc_sandbox_child_wait_finish:
 * @self: a child
 * @result: the result given to the callback
 * @wait_status: (out) (optional): the wait status
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_sandbox_child_wait_async().
 *
 * Returns: as erpc_sandbox_child_wait()
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_child_wait_finish(ErpcSandboxChild *self,
			       GAsyncResult *result,
			       gint *wait_status,
			       GError **error)
{
	gssize status;

	g_return_val_if_fail(g_task_is_valid(result, NULL), FALSE);
	status = g_task_propagate_int(G_TASK(result), error);
	if (status == -1 && g_task_had_error(G_TASK(result)))
		return FALSE;
	if (wait_status != NULL)
		*wait_status = (gint)status;
	return TRUE;
}

G_DEFINE_ABSTRACT_TYPE(ErpcSandbox, erpc_sandbox, G_TYPE_OBJECT)

static void
erpc_sandbox_class_init(ErpcSandboxClass *klass)
{
}

static void
erpc_sandbox_init(ErpcSandbox *self)
{
}

/**
 * erpc_sandbox_parse_policy:
 * @self: the host's sandbox
 * @sandbox: a wire `sandbox` object
 * @cwd: (nullable): the absolute cwd relative paths and `:cwd` refer to
 *   when the object names none (process/start gives the process's cwd);
 *   %NULL for the daemon's
 * @error: return location for a #GError, or %NULL
 *
 * Reads @sandbox exactly as process/start does: the same checks, messages,
 * defaults (the daemon user's home, its temporary directory).
 *
 * Returns: (transfer full): the policy, or %NULL with %ERPC_ERROR_INVALID_PARAMS
 *   for a malformed object or %ERPC_SANDBOX_ERROR_UNAVAILABLE for one this
 *   executor cannot provide; both are answered with
 *   erpc_call_return_sandbox_error()
 *
 * Since: 0.2
 */
ErpcSandboxPolicy *
erpc_sandbox_parse_policy(ErpcSandbox *self, JsonObject *sandbox, const gchar *cwd, GError **error)
{
	g_return_val_if_fail(ERPC_IS_SANDBOX(self), NULL);
	g_return_val_if_fail(sandbox != NULL, NULL);
	g_return_val_if_fail(cwd == NULL || g_path_is_absolute(cwd), NULL);
	return ERPC_SANDBOX_GET_CLASS(self)->parse_policy(self, sandbox, cwd, error);
}

/**
 * erpc_sandbox_check_direct:
 * @self: the host's sandbox
 * @policy: a policy made by @self
 * @path: an absolute, normalised path
 * @access: the access the request needs on @path: %ERPC_SANDBOX_ACCESS_READ
 *   to read it, %ERPC_SANDBOX_ACCESS_WRITE to create, change or remove it
 * @flags: whether the request also reaches what is below @path
 * @ro_files: (nullable) (array zero-terminated=1): the host files the
 *   command would be given with erpc_sandbox_command_add_ro_file()
 *
 * Tells whether a command started with erpc_sandbox_spawn() under @policy
 * would see @path (and, with %ERPC_SANDBOX_DIRECT_TREE, everything below
 * it) as the same files of the host, with @access granted: no deny entry,
 * protected name, hidden path or mount of the sandbox's own (`/dev`,
 * `/proc`, masks) on the way. A plugin may then do the request itself,
 * as the sandbox would, provided it resolves @path without following
 * symbolic links (which the answer does not cover) and with no more
 * privileges than the sandbox has (no capabilities).
 *
 * The answer is about the host as it is now; it fails closed: whatever
 * the sandbox could show differently, or cannot be decided, gives %FALSE,
 * as does a sandbox that cannot be had at all.
 *
 * Returns: %TRUE if the request may run outside the sandbox
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_check_direct(ErpcSandbox *self,
			  ErpcSandboxPolicy *policy,
			  const gchar *path,
			  ErpcSandboxAccess access,
			  ErpcSandboxDirectFlags flags,
			  const gchar *const *ro_files)
{
	ErpcSandboxClass *klass;

	g_return_val_if_fail(ERPC_IS_SANDBOX(self), FALSE);
	g_return_val_if_fail(policy != NULL, FALSE);
	g_return_val_if_fail(path != NULL && g_path_is_absolute(path), FALSE);
	g_return_val_if_fail(access != ERPC_SANDBOX_ACCESS_DENY, FALSE);

	klass = ERPC_SANDBOX_GET_CLASS(self);
	if (klass->check_direct == NULL || policy->owner != self)
		return FALSE;
	return klass->check_direct(self, policy, path, access, flags, ro_files);
}

/**
 * erpc_sandbox_spawn:
 * @self: the host's sandbox
 * @policy: an isolated policy made by @self
 * @command: what to run; its descriptors are closed by this call, whatever
 *   its outcome, so a command is spawned once
 * @error: return location for a #GError, or %NULL
 *
 * Starts @command in the sandbox a process/start process under @policy
 * gets: bwrap with the policy's mounts and namespaces, the seccomp filter
 * of the policy's network mode. Thread-safe; does not wait for the
 * command. Never runs anything unsandboxed.
 *
 * Returns: (transfer full): the running child, or %NULL with
 *   %ERPC_SANDBOX_ERROR_UNAVAILABLE (no bwrap, no user namespaces, a
 *   command binary that does not exist) or %ERPC_SANDBOX_ERROR_PREPARATION
 *   (the filter or the mounts cannot be set up)
 *
 * Since: 0.2
 */
ErpcSandboxChild *
erpc_sandbox_spawn(ErpcSandbox *self,
		   ErpcSandboxPolicy *policy,
		   ErpcSandboxCommand *command,
		   GError **error)
{
	ErpcSandboxChild *child;

	g_return_val_if_fail(ERPC_IS_SANDBOX(self), NULL);
	g_return_val_if_fail(policy != NULL && policy->owner == self, NULL);
	g_return_val_if_fail(command != NULL, NULL);
	child = ERPC_SANDBOX_GET_CLASS(self)->spawn(self, policy, command, error);
	erpc_sandbox_command_close_fds(command);
	return child;
}

typedef struct {
	ErpcSandboxPolicy *policy;
	ErpcSandboxCommand *command;
} ErpcSandboxRun;

static void
erpc_sandbox_run_free(gpointer data)
{
	ErpcSandboxRun *run = data;
	erpc_sandbox_policy_unref(run->policy);
	erpc_sandbox_command_unref(run->command);
	g_free(run);
}

static void
erpc_sandbox_run_thread(GTask *task,
			gpointer source_object,
			gpointer task_data,
			GCancellable *cancellable)
{
	ErpcSandboxRun *run = task_data;
	g_autoptr(ErpcSandboxChild) child = NULL;
	GError *error = NULL;
	gint status = 0;

	child = erpc_sandbox_spawn(source_object, run->policy, run->command, &error);
	if (child == NULL || !erpc_sandbox_child_wait(child, cancellable, &status, &error)) {
		g_task_return_error(task, error);
		return;
	}
	g_task_return_int(task, status);
}

/**
 * erpc_sandbox_run_async:
 * @self: the host's sandbox
 * @policy: an isolated policy made by @self
 * @command: what to run, as erpc_sandbox_spawn() takes it
 * @cancellable: (nullable): kills the command when cancelled
 * @callback: called when the command has exited
 * @user_data: for @callback
 *
 * Spawns @command and waits for it, in a worker thread: for a helper
 * whose descriptors the caller serves in its main context.
 *
 * Since: 0.2
 */
void
erpc_sandbox_run_async(ErpcSandbox *self,
		       ErpcSandboxPolicy *policy,
		       ErpcSandboxCommand *command,
		       GCancellable *cancellable,
		       GAsyncReadyCallback callback,
		       gpointer user_data)
{
	g_autoptr(GTask) task = NULL;
	ErpcSandboxRun *run;

	g_return_if_fail(ERPC_IS_SANDBOX(self));
	g_return_if_fail(policy != NULL && command != NULL);
	run = g_new0(ErpcSandboxRun, 1);
	run->policy = erpc_sandbox_policy_ref(policy);
	run->command = erpc_sandbox_command_ref(command);
	task = g_task_new(self, cancellable, callback, user_data);
	g_task_set_source_tag(task, erpc_sandbox_run_async);
	g_task_set_task_data(task, run, erpc_sandbox_run_free);
	g_task_run_in_thread(task, erpc_sandbox_run_thread);
}

/**
 * erpc_sandbox_run_finish:
 * @self: the host's sandbox
 * @result: the result given to the callback
 * @wait_status: (out) (optional): the command's wait status
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_sandbox_run_async().
 *
 * Returns: %TRUE if the command ran and exited (whatever its status);
 *   otherwise %FALSE with an %ERPC_SANDBOX_ERROR or %G_IO_ERROR_CANCELLED
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_run_finish(ErpcSandbox *self, GAsyncResult *result, gint *wait_status, GError **error)
{
	gssize status;

	g_return_val_if_fail(g_task_is_valid(result, self), FALSE);
	status = g_task_propagate_int(G_TASK(result), error);
	if (status == -1 && g_task_had_error(G_TASK(result)))
		return FALSE;
	if (wait_status != NULL)
		*wait_status = (gint)status;
	return TRUE;
}

/**
 * erpc_call_return_sandbox_error:
 * @call: a call
 * @error: what went wrong
 *
 * Answers @call with the wire form of @error:
 * %ERPC_SANDBOX_ERROR_UNAVAILABLE is -32602 with `data`
 * `{"kind":"sandboxUnavailable"}`, %ERPC_SANDBOX_ERROR_PREPARATION is
 * -32603 with `{"kind":"sandboxPreparation"}`, both with the message of
 * @error; any other error is answered as erpc_call_return_error() does.
 *
 * Since: 0.2
 */
void
erpc_call_return_sandbox_error(ErpcCall *call, const GError *error)
{
	g_autoptr(GError) wire = NULL;
	g_autoptr(JsonNode) data = NULL;
	const gchar *kind;
	JsonObject *obj;

	g_return_if_fail(ERPC_IS_CALL(call));
	g_return_if_fail(error != NULL);
	if (error->domain != ERPC_SANDBOX_ERROR) {
		erpc_call_return_error(call, error);
		return;
	}
	if (error->code == ERPC_SANDBOX_ERROR_UNAVAILABLE) {
		wire = g_error_new_literal(ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, error->message);
		kind = "sandboxUnavailable";
	} else {
		wire = g_error_new_literal(ERPC_ERROR, ERPC_ERROR_INTERNAL, error->message);
		kind = "sandboxPreparation";
	}
	obj = json_object_new();
	json_object_set_string_member(obj, "kind", kind);
	data = json_node_new(JSON_NODE_OBJECT);
	json_node_take_object(data, obj);
	erpc_call_return_error_full(call, wire, g_steal_pointer(&data));
}
