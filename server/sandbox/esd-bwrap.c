/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "esd-bwrap.h"
#include "esd-sandbox-mounts.h"

/*
 * A sandboxed command is `bwrap --args FD -- COMMAND...`: every option, and
 * everything the client sent except the command itself (environment, paths),
 * travels in a sealed memfd of NUL-separated arguments. bwrap 0.8 takes only
 * options from `--args` (it drops whatever follows them in the file), so the
 * command has to stay on its command line, after `--`, where it cannot be
 * read as an option. bwrap itself runs with ESD_BWRAP_PATH_ENV only, so that
 * nothing from the client (LD_PRELOAD, ...) reaches it; `--clearenv` and one
 * `--setenv` per variable give the command its environment at the final
 * exec.
 *
 * Descriptors: the args memfd, the empty memfd of the mount plan and the
 * caller's seccomp fd are close-on-exec here. esd_bwrap_launch_get_fds()
 * lists them; the spawner must keep each at the same number in the child
 * and clear FD_CLOEXEC there (g_spawn_async_with_pipes_and_fds() does both
 * when a number is both source and target; a hand-written child must call
 * fcntl(F_SETFD, 0) after fork). bwrap reads them and passes none of them
 * on to the command.
 *
 * The namespaces: user (the caller's uid and gid stay mapped to themselves),
 * pid, ipc, uts, cgroup if possible, and net when the network is restricted;
 * all capabilities are dropped, and bwrap sets PR_SET_NO_NEW_PRIVS.
 */

struct _EsdBwrapLaunch {
	EsdSandboxMounts mounts;
	GPtrArray *args; /* what went into the memfd, for tests and debugging */
	gint args_fd;
	GArray *fds;
	gchar **argv;
	gchar **envp;
};

static GMutex esd_bwrap_probe_lock;
static gboolean esd_bwrap_probed = FALSE;
static GError *esd_bwrap_probe_error = NULL;

/**
 * esd_bwrap_find:
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the bwrap to run: $ESD_BWRAP (for tests), else
 *   /usr/bin/bwrap, else the first one in PATH; or %NULL with
 *   %ESD_SANDBOX_ERROR_UNAVAILABLE
 */
gchar *
esd_bwrap_find(GError **error)
{
	const gchar *override = g_getenv("ESD_BWRAP");
	gchar *found;

	if (override != NULL && override[0] != '\0')
		return g_strdup(override);
	if (g_file_test("/usr/bin/bwrap", G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup("/usr/bin/bwrap");
	found = g_find_program_in_path("bwrap");
	if (found != NULL)
		return found;
	g_set_error_literal(
	    error,
	    ESD_SANDBOX_ERROR,
	    ESD_SANDBOX_ERROR_UNAVAILABLE,
	    "the requested sandbox is unavailable on this executor: bwrap not found");
	return NULL;
}

/* runs bwrap once with every namespace a sandbox uses */
static gboolean
esd_bwrap_probe_once(const gchar *bwrap, gboolean fresh_proc, GError **error)
{
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GSubprocess) subprocess = NULL;
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autofree gchar *stderr_buf = NULL;
	g_autoptr(GError) error_local = NULL;
	const gchar *const envp[] = {ESD_BWRAP_PATH_ENV, NULL};
	const gchar *const fixed[] = {"--unshare-user",
				      "--unshare-pid",
				      "--unshare-ipc",
				      "--unshare-uts",
				      "--unshare-net",
				      "--unshare-cgroup-try",
				      "--die-with-parent",
				      "--cap-drop",
				      "ALL",
				      "--ro-bind",
				      "/",
				      "/",
				      "--dev",
				      "/dev",
				      NULL};

	g_ptr_array_add(argv, (gpointer)bwrap);
	for (guint i = 0; fixed[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)fixed[i]);
	if (fresh_proc) {
		g_ptr_array_add(argv, (gpointer) "--proc");
		g_ptr_array_add(argv, (gpointer) "/proc");
		g_ptr_array_add(argv, (gpointer) "--ro-bind");
		g_ptr_array_add(argv, (gpointer) "/proc/sys");
		g_ptr_array_add(argv, (gpointer) "/proc/sys");
	} else {
		g_ptr_array_add(argv, (gpointer) "--ro-bind");
		g_ptr_array_add(argv, (gpointer) "/proc");
		g_ptr_array_add(argv, (gpointer) "/proc");
	}
	g_ptr_array_add(argv, (gpointer) "--");
	g_ptr_array_add(argv, (gpointer)bwrap);
	g_ptr_array_add(argv, (gpointer) "--version");
	g_ptr_array_add(argv, NULL);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
					     G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_subprocess_launcher_set_environ(launcher, (gchar **)envp);
	subprocess =
	    g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error_local);
	if (subprocess == NULL || !g_subprocess_communicate_utf8(subprocess,
								 NULL,
								 NULL,
								 NULL,
								 &stderr_buf,
								 &error_local)) {
		g_set_error(error,
			    ESD_SANDBOX_ERROR,
			    ESD_SANDBOX_ERROR_UNAVAILABLE,
			    "the requested sandbox is unavailable on this executor: %s",
			    error_local->message);
		return FALSE;
	}
	if (!g_subprocess_get_if_exited(subprocess) ||
	    g_subprocess_get_exit_status(subprocess) != 0) {
		const gchar *detail = stderr_buf != NULL ? g_strstrip(stderr_buf) : "";
		g_set_error(error,
			    ESD_SANDBOX_ERROR,
			    ESD_SANDBOX_ERROR_UNAVAILABLE,
			    "the requested sandbox is unavailable on this executor: %s",
			    detail[0] != '\0' ? detail
					      : "bwrap cannot create the sandbox namespaces");
		return FALSE;
	}
	return TRUE;
}

/*
 * Inside another sandbox (bwrap, a container) the kernel refuses a fresh
 * proc mount while the outer /proc has parts mounted over. Sandboxes then
 * get the /proc they are in, read-only: still the outer sandbox's PID
 * namespace, never the host's if the outer one had its own.
 */
static gboolean
esd_bwrap_probe(GError **error)
{
	g_autofree gchar *bwrap = esd_bwrap_find(error);
	g_autoptr(GError) error_fresh = NULL;

	if (bwrap == NULL)
		return FALSE;
	if (esd_bwrap_probe_once(bwrap, TRUE, &error_fresh))
		return TRUE;
	if (strstr(error_fresh->message, "Can't mount proc") == NULL ||
	    !esd_bwrap_probe_once(bwrap, FALSE, NULL)) {
		g_propagate_error(error, g_steal_pointer(&error_fresh));
		return FALSE;
	}
	g_message("cannot mount a fresh /proc here (%s); sandboxed commands see this one read-only",
		  error_fresh->message);
	esd_sandbox_mounts_set_fresh_proc(FALSE);
	return TRUE;
}

/**
 * esd_bwrap_available:
 * @error: return location for a #GError, or %NULL
 *
 * Whether bwrap exists and can create the namespaces of a sandbox. The probe
 * runs once per process; later calls return its result.
 *
 * Returns: %TRUE if sandboxes can be launched; otherwise %FALSE with
 *   %ESD_SANDBOX_ERROR_UNAVAILABLE
 */
gboolean
esd_bwrap_available(GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&esd_bwrap_probe_lock);

	if (!esd_bwrap_probed) {
		esd_bwrap_probed = TRUE;
		if (!esd_bwrap_probe(&esd_bwrap_probe_error))
			g_message("sandboxed commands are unavailable: %s",
				  esd_bwrap_probe_error->message);
	}
	if (esd_bwrap_probe_error != NULL) {
		if (error != NULL)
			*error = g_error_copy(esd_bwrap_probe_error);
		return FALSE;
	}
	return TRUE;
}

static gboolean
esd_bwrap_write_all(gint fd, const gchar *data, gsize len, GError **error)
{
	while (len > 0) {
		gssize n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			gint errsv = n < 0 ? errno : EIO;
			g_set_error(error,
				    G_IO_ERROR,
				    g_io_error_from_errno(errsv),
				    "cannot write the bwrap arguments: %s",
				    g_strerror(errsv));
			return FALSE;
		}
		data += n;
		len -= (gsize)n;
	}
	return TRUE;
}

/* the arguments as a sealed memfd, positioned at its start */
static gint
esd_bwrap_args_memfd(GPtrArray *args, GError **error)
{
	g_autoptr(GString) data = g_string_new(NULL);
	gint fd;

	for (guint i = 0; i < args->len; i++)
		g_string_append_len(data,
				    g_ptr_array_index(args, i),
				    strlen(g_ptr_array_index(args, i)) + 1);
	fd = esd_sandbox_fd_above_std(
	    memfd_create("esd-bwrap-args", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (fd < 0) {
		gint errsv = errno;
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(errsv),
			    "memfd_create: %s",
			    g_strerror(errsv));
		return -1;
	}
	if (!esd_bwrap_write_all(fd, data->str, data->len, error) || lseek(fd, 0, SEEK_SET) != 0) {
		if (error != NULL && *error == NULL)
			g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_FAILED, "lseek failed");
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		g_debug("cannot seal the bwrap arguments: %s", g_strerror(errno));
	return fd;
}

static void
esd_bwrap_push(GPtrArray *args, const gchar *arg)
{
	g_ptr_array_add(args, g_strdup(arg));
}

/* --clearenv, then one --setenv per NAME=VALUE */
static gboolean
esd_bwrap_push_env(GPtrArray *args, gchar *const *envp, GError **error)
{
	esd_bwrap_push(args, "--clearenv");
	for (guint i = 0; envp != NULL && envp[i] != NULL; i++) {
		const gchar *eq = strchr(envp[i], '=');
		if (eq == NULL || eq == envp[i]) {
			g_set_error_literal(error,
					    G_IO_ERROR,
					    G_IO_ERROR_INVALID_ARGUMENT,
					    "an environment entry is not NAME=VALUE");
			return FALSE;
		}
		esd_bwrap_push(args, "--setenv");
		g_ptr_array_add(args, g_strndup(envp[i], (gsize)(eq - envp[i])));
		esd_bwrap_push(args, eq + 1);
	}
	return TRUE;
}

static void
esd_bwrap_push_namespaces(GPtrArray *args, const EsdSandboxPolicy *policy)
{
	const gchar *const fixed[] = {"--unshare-user",
				      "--unshare-pid",
				      "--unshare-ipc",
				      "--unshare-uts",
				      "--unshare-cgroup-try",
				      "--die-with-parent",
				      "--cap-drop",
				      "ALL",
				      NULL};

	for (guint i = 0; fixed[i] != NULL; i++)
		esd_bwrap_push(args, fixed[i]);
	if (policy->network == ESD_SANDBOX_NETWORK_RESTRICTED)
		esd_bwrap_push(args, "--unshare-net");
}

static void
esd_bwrap_add_fd(EsdBwrapLaunch *launch, gint fd)
{
	if (fd >= 0)
		g_array_append_val(launch->fds, fd);
}

/**
 * esd_bwrap_launch_get_n_synthetic:
 * @launch: a launch
 *
 * Returns: how many mount points bwrap makes on the host for @launch
 *   (removed when the launch is cleaned up after the sandbox ended)
 */
guint
esd_bwrap_launch_get_n_synthetic(EsdBwrapLaunch *launch)
{
	return launch->mounts.synthetic != NULL ? launch->mounts.synthetic->len : 0;
}

/* where the trailing run of `--remount-ro PATH` pairs of the mount plan begins */
static guint
esd_bwrap_mounts_tail(GPtrArray *mount_args)
{
	guint tail = mount_args->len;

	while (tail >= 2 && g_strcmp0(g_ptr_array_index(mount_args, tail - 2), "--remount-ro") == 0)
		tail -= 2;
	return tail;
}

/*
 * For each absolute file outside bwrap's own /dev and /proc: its real path
 * (no symbolic links on the way, so that bwrap can always make the mount
 * point) bound read-only at itself, and, when the name reaches it through
 * symbolic links and the policy's view does not show that name, a symbolic
 * link from the name to the real path.
 */
static void
esd_bwrap_push_extra_files(GPtrArray *args,
			   const EsdSandboxPolicy *policy,
			   const gchar *const *extra_ro_files)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GPtrArray) links = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; extra_ro_files != NULL && extra_ro_files[i] != NULL; i++) {
		g_autofree gchar *name = NULL;
		g_autofree gchar *real = NULL;

		if (!g_path_is_absolute(extra_ro_files[i]))
			continue;
		name = g_canonicalize_filename(extra_ro_files[i], "/");
		real = realpath(name, NULL);
		if (real == NULL || esd_sandbox_path_has_prefix(real, "/dev") ||
		    esd_sandbox_path_has_prefix(real, "/proc") ||
		    esd_sandbox_path_has_prefix(name, "/dev") ||
		    esd_sandbox_path_has_prefix(name, "/proc"))
			continue;
		if (!g_hash_table_contains(seen, real)) {
			esd_bwrap_push(args, "--ro-bind-try");
			esd_bwrap_push(args, real);
			esd_bwrap_push(args, real);
			g_hash_table_add(seen, g_strdup(real));
		}
		if (g_strcmp0(name, real) == 0 || g_hash_table_contains(seen, name) ||
		    esd_sandbox_policy_access_for(policy, name) != ESD_SANDBOX_ACCESS_DENY)
			continue;
		g_ptr_array_add(links, g_strdup(real));
		g_ptr_array_add(links, g_strdup(name));
		g_hash_table_add(seen, g_steal_pointer(&name));
	}
	/* after the binds: a link's parent may be a directory bwrap made for one */
	for (guint i = 0; i + 1 < links->len; i += 2) {
		esd_bwrap_push(args, "--symlink");
		esd_bwrap_push(args, g_ptr_array_index(links, i));
		esd_bwrap_push(args, g_ptr_array_index(links, i + 1));
	}
}

/**
 * esd_bwrap_launch_new:
 * @policy: the policy of the command
 * @seccomp_fd: a seccomp program for `--seccomp`, or -1; borrowed, and it
 *   must stay open until the command has been spawned
 * @cwd: the absolute working directory of the command
 * @command_argv: the command
 * @command_envp: the complete environment of the command
 * @error: return location for a #GError, or %NULL
 *
 * Builds a bwrap command line for @policy. Missing protected names are
 * registered as synthetic mount targets here, so the launch must be cleaned
 * up with esd_bwrap_launch_cleanup() once the sandbox has exited.
 *
 * Returns: (transfer full): the launch, or %NULL with @error set
 */
EsdBwrapLaunch *
esd_bwrap_launch_new(const EsdSandboxPolicy *policy,
		     gint seccomp_fd,
		     const gchar *cwd,
		     gchar *const *command_argv,
		     gchar *const *command_envp,
		     GError **error)
{
	return esd_bwrap_launch_new_full(policy,
					 seccomp_fd,
					 cwd,
					 command_argv,
					 command_envp,
					 NULL,
					 error);
}

/**
 * esd_bwrap_launch_new_full:
 * @policy: the policy of the command
 * @seccomp_fd: a seccomp program for `--seccomp`, or -1; borrowed, and it
 *   must stay open until the command has been spawned
 * @cwd: the absolute working directory of the command
 * @command_argv: the command
 * @command_envp: the complete environment of the command
 * @extra_ro_files: (nullable): absolute paths of files the command needs
 *   whatever the policy says, e.g. a helper program and its shared objects
 * @error: return location for a #GError, or %NULL
 *
 * As esd_bwrap_launch_new(), and each of @extra_ro_files is bound read-only
 * at its real path (`--ro-bind-try R R`) after the policy's mounts, but
 * before the plan's final `--remount-ro`s, so that bwrap may still create
 * the mount points in its own read-only tmpfs (of `/` or a denied
 * directory). A name given through symbolic links (`/lib64/ld-linux...`)
 * that the policy does not show becomes a symbolic link to the real path;
 * one it shows already resolves as on the host. The command's view then
 * differs from the policy's only by these files (and the directories and
 * links leading to them), which are readable and read-only even where the
 * policy denies or allows writing them. Paths in bwrap's own `/dev` and
 * `/proc` are left out. A file below a denied directory stays unreachable,
 * as the directory keeps mode 0000.
 *
 * Returns: (transfer full): the launch, or %NULL with @error set
 */
EsdBwrapLaunch *
esd_bwrap_launch_new_full(const EsdSandboxPolicy *policy,
			  gint seccomp_fd,
			  const gchar *cwd,
			  gchar *const *command_argv,
			  gchar *const *command_envp,
			  const gchar *const *extra_ro_files,
			  GError **error)
{
	g_autoptr(EsdBwrapLaunch) launch = g_new0(EsdBwrapLaunch, 1);
	g_autofree gchar *bwrap = NULL;
	g_autofree gchar *fd_str = NULL;
	GPtrArray *args;
	guint tail;

	g_return_val_if_fail(policy != NULL, NULL);
	g_return_val_if_fail(cwd != NULL && g_path_is_absolute(cwd), NULL);
	g_return_val_if_fail(command_argv != NULL && command_argv[0] != NULL, NULL);

	launch->args_fd = -1;
	launch->mounts.empty_fd = -1;
	launch->fds = g_array_new(FALSE, FALSE, sizeof(gint));
	launch->args = g_ptr_array_new_with_free_func(g_free);
	args = launch->args;
	bwrap = esd_bwrap_find(error);
	if (bwrap == NULL)
		return NULL;
	if (!esd_sandbox_mounts_build(policy, &launch->mounts, error))
		return NULL;

	esd_bwrap_push_namespaces(args, policy);
	tail = extra_ro_files != NULL ? esd_bwrap_mounts_tail(launch->mounts.args)
				      : launch->mounts.args->len;
	for (guint i = 0; i < tail; i++)
		esd_bwrap_push(args, g_ptr_array_index(launch->mounts.args, i));
	esd_bwrap_push_extra_files(args, policy, extra_ro_files);
	for (guint i = tail; i < launch->mounts.args->len; i++)
		esd_bwrap_push(args, g_ptr_array_index(launch->mounts.args, i));
	esd_bwrap_push(args, "--chdir");
	esd_bwrap_push(args, cwd);
	if (seccomp_fd >= 0) {
		esd_bwrap_push(args, "--seccomp");
		g_ptr_array_add(args, g_strdup_printf("%d", seccomp_fd));
	}
	if (!esd_bwrap_push_env(args, command_envp, error))
		return NULL;

	launch->args_fd = esd_bwrap_args_memfd(args, error);
	if (launch->args_fd < 0)
		return NULL;
	esd_bwrap_add_fd(launch, launch->args_fd);
	for (guint i = 0; i < launch->mounts.pinned->len; i++)
		esd_bwrap_add_fd(launch, g_array_index(launch->mounts.pinned, gint, i));
	esd_bwrap_add_fd(launch, seccomp_fd);
	fd_str = g_strdup_printf("%d", launch->args_fd);
	launch->argv = g_new0(gchar *, g_strv_length((gchar **)command_argv) + 5);
	launch->argv[0] = g_steal_pointer(&bwrap);
	launch->argv[1] = g_strdup("--args");
	launch->argv[2] = g_steal_pointer(&fd_str);
	launch->argv[3] = g_strdup("--");
	for (guint i = 0; command_argv[i] != NULL; i++)
		launch->argv[4 + i] = g_strdup(command_argv[i]);
	launch->envp = g_new0(gchar *, 2);
	launch->envp[0] = g_strdup(ESD_BWRAP_PATH_ENV);
	g_debug("bwrap launch with %u arguments, %u synthetic mount targets",
		args->len,
		launch->mounts.synthetic->len);
	return g_steal_pointer(&launch);
}

/* the memfd that `--args` names; close-on-exec until the spawner maps it */
gint
esd_bwrap_launch_get_args_fd(EsdBwrapLaunch *launch)
{
	g_return_val_if_fail(launch != NULL, -1);
	return launch->args_fd;
}

/**
 * esd_bwrap_launch_get_fds:
 * @launch: a launch
 * @n_fds: (out): the number of descriptors
 *
 * Returns: (array length=n_fds): the descriptors bwrap must inherit at the
 *   same numbers: the args memfd, the empty memfd of masked files, the
 *   seccomp program
 */
const gint *
esd_bwrap_launch_get_fds(EsdBwrapLaunch *launch, guint *n_fds)
{
	g_return_val_if_fail(launch != NULL, NULL);
	*n_fds = launch->fds->len;
	return (const gint *)(gpointer)launch->fds->data;
}

/* {bwrap, "--args", "<fd>", "--", command..., NULL} */
const gchar *const *
esd_bwrap_launch_get_argv(EsdBwrapLaunch *launch)
{
	g_return_val_if_fail(launch != NULL, NULL);
	return (const gchar *const *)launch->argv;
}

/* the environment of bwrap itself: ESD_BWRAP_PATH_ENV and nothing else */
const gchar *const *
esd_bwrap_launch_get_envp(EsdBwrapLaunch *launch)
{
	g_return_val_if_fail(launch != NULL, NULL);
	return (const gchar *const *)launch->envp;
}

/* a copy of what the args memfd holds */
GPtrArray *
esd_bwrap_launch_dup_args(EsdBwrapLaunch *launch)
{
	GPtrArray *copy = g_ptr_array_new_with_free_func(g_free);

	g_return_val_if_fail(launch != NULL, copy);
	for (guint i = 0; i < launch->args->len; i++)
		g_ptr_array_add(copy, g_strdup(g_ptr_array_index(launch->args, i)));
	return copy;
}

/**
 * esd_bwrap_launch_cleanup:
 * @launch: a launch whose sandbox has exited
 *
 * Removes the mount points bwrap created on the host for missing protected
 * names, when no other sandbox of this process still uses them and they
 * are still empty. Calling it again does nothing.
 */
void
esd_bwrap_launch_cleanup(EsdBwrapLaunch *launch)
{
	g_return_if_fail(launch != NULL);
	esd_sandbox_mounts_release(&launch->mounts, TRUE);
}

/*
 * frees the launch; without esd_bwrap_launch_cleanup() first, synthetic
 * targets are left on the host, since the sandbox may still be running
 */
void
esd_bwrap_launch_free(EsdBwrapLaunch *launch)
{
	if (launch == NULL)
		return;
	esd_sandbox_mounts_clear(&launch->mounts);
	if (launch->args_fd >= 0)
		close(launch->args_fd);
	g_clear_pointer(&launch->args, g_ptr_array_unref);
	g_clear_pointer(&launch->fds, g_array_unref);
	g_strfreev(launch->argv);
	g_strfreev(launch->envp);
	g_free(launch);
}
