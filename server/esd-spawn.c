/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <execrpc.h>

#include "esd-landlock.h"
#include "esd-spawn.h"

/*
 * Every command runs under a supervisor: a child of the daemon that forks
 * the command, reaps everything below it, forwards interrupts and reports
 * on a pipe when the command was executed and how it ended.
 *
 * The supervisor is a child subreaper: orphans of the command, however it
 * daemonized, come back to it, and on SIGTERM (terminate, session expiry,
 * or the daemon's death through PR_SET_PDEATHSIG) it kills every process
 * below it until none is left. With --pid-namespace (and CAP_SYS_ADMIN) it
 * is instead init of a new PID namespace, and killing it makes the kernel
 * kill every process in the namespace.
 *
 * The supervisor is a small separate program (esd-supervise), started with
 * clone(CLONE_VM | CLONE_VFORK): the daemon's memory is never copied, so a
 * spawn costs the daemon neither page-table copies nor copy-on-write faults.
 */

typedef struct {
	gint32 type;
	gint32 value;
} EsdSpawnRecord;

/* what the vfork child needs: prepared by the parent, read-only in the child */
typedef struct {
	const gchar *supervisor;
	gchar **argv;
	gchar *const *envp;
	/* report, stdin, stdout, stderr: become 3, 4, …; extra and netns: their own numbers */
	gint fds[4 + ESD_SPAWN_MAX_EXTRA_FDS + 1];
	guint n_fds;
	gint landlock_fd; /* a Landlock ruleset to enter before the exec, or -1 */
} EsdSpawnExec;

/* opt-in; cleared once the kernel refuses a PID namespace */
static gboolean esd_spawn_try_pid_namespace = FALSE;
static gchar *esd_spawn_supervisor_path = NULL;

/* the child of clone(CLONE_VM | CLONE_VFORK) shares this stack region with nothing */
#define ESD_SPAWN_STACK_SIZE (64 * 1024)
static guint8 esd_spawn_stack[ESD_SPAWN_STACK_SIZE] __attribute__((aligned(16)));

/*
 * A PID namespace per command makes the tree kill the kernel's job, but the
 * command then sees pids that do not match the host's /proc (pgrep, ps and
 * kill disagree with $!), so it is not the default.
 */
void
esd_spawn_set_pid_namespace(gboolean enabled)
{
	esd_spawn_try_pid_namespace = enabled;
}

void
esd_spawn_set_supervisor(const gchar *path)
{
	g_free(esd_spawn_supervisor_path);
	esd_spawn_supervisor_path = g_strdup(path);
}

static const gchar *
esd_spawn_get_supervisor(void)
{
	return esd_spawn_supervisor_path != NULL ? esd_spawn_supervisor_path : ESD_SUPERVISOR_PATH;
}

static void
esd_spawn_close(gint *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

void
esd_spawn_result_clear(EsdSpawnResult *result)
{
	esd_spawn_close(&result->stdin_fd);
	esd_spawn_close(&result->stdout_fd);
	esd_spawn_close(&result->stderr_fd);
	esd_spawn_close(&result->report_fd);
}

/*
 * Runs in the child of clone(CLONE_VM | CLONE_VFORK): the daemon is
 * suspended and its memory shared, so only async-signal-safe calls on
 * prepared data, then execve() of the supervisor.
 */
static int
esd_spawn_exec_supervisor(void *data)
{
	const EsdSpawnExec *exec = data;
	gint moved[4 + ESD_SPAWN_MAX_EXTRA_FDS + 1];
	EsdSpawnRecord record = {ESD_SPAWN_REPORT_SETUP_FAILED, 0};

	/* out of the way of 3, 4, … first, then into place without close-on-exec */
	for (guint i = 0; i < exec->n_fds; i++) {
		moved[i] = fcntl(exec->fds[i], F_DUPFD_CLOEXEC, 16);
		if (moved[i] < 0)
			goto fail;
	}
	for (guint i = 0; i < exec->n_fds; i++) {
		if (dup2(moved[i], i < 4 ? 3 + (gint)i : exec->fds[i]) < 0)
			goto fail;
	}
	if (exec->landlock_fd >= 0) {
		gint r = esd_landlock_restrict_self(exec->landlock_fd);
		if (r != 0) {
			errno = r;
			goto fail;
		}
	}
	execve(exec->supervisor, exec->argv, exec->envp);
fail:
	record.value = errno;
	if (write(moved[0] >= 0 ? moved[0] : exec->fds[0], &record, sizeof(record)) < 0)
		_exit(126);
	_exit(127);
}

static gboolean
esd_spawn_open_pty(const EsdSpawnRequest *request, gint *master, gint *slave, GError **error)
{
	struct winsize size = {.ws_row = request->rows, .ws_col = request->cols};
	gchar name[128];

	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0)
		goto fail;
	if (grantpt(*master) < 0 || unlockpt(*master) < 0 ||
	    ptsname_r(*master, name, sizeof(name)) != 0)
		goto fail;
	*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0)
		goto fail;
	if (ioctl(*master, TIOCSWINSZ, &size) < 0)
		goto fail;
	return TRUE;
fail:
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "cannot open a pseudo-terminal: %s",
		    g_strerror(errno));
	return FALSE;
}

static gboolean
esd_spawn_pipe(gint fds[2], GError **error)
{
	if (pipe2(fds, O_CLOEXEC) == 0)
		return TRUE;
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "cannot create a pipe: %s",
		    g_strerror(errno));
	return FALSE;
}

/*
 * Starts the supervisor and returns its pid and the daemon's ends of the
 * command's stdio; the first record on report_fd tells whether the command
 * was executed.
 */
gboolean
esd_spawn(const EsdSpawnRequest *request, EsdSpawnResult *result, GError **error)
{
	EsdSpawnExec exec = {.supervisor = esd_spawn_get_supervisor(),
			     .envp = request->envp,
			     .landlock_fd = request->landlock ? request->landlock_fd : -1};
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) keep = g_string_new(NULL); /* ",N" per extra descriptor */
	gint report[2] = {-1, -1};
	gint in[2] = {-1, -1};
	gint out[2] = {-1, -1};
	gint err[2] = {-1, -1};
	gint master = -1;
	gint slave = -1;
	gint devnull = -1;
	gboolean pid_namespace = FALSE;
	sigset_t all;
	sigset_t saved;
	pid_t pid = -1;
	gint saved_errno = 0;

	result->pid = 0;
	result->stdin_fd = result->stdout_fd = result->stderr_fd = result->report_fd = -1;

	if (!esd_spawn_pipe(report, error))
		goto out;
	if (request->tty) {
		if (!esd_spawn_open_pty(request, &master, &slave, error))
			goto out;
		exec.fds[1] = exec.fds[2] = exec.fds[3] = slave;
	} else {
		if (request->pipe_stdin && !esd_spawn_pipe(in, error))
			goto out;
		if (!esd_spawn_pipe(out, error) || !esd_spawn_pipe(err, error))
			goto out;
		if (!request->pipe_stdin) {
			devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (devnull < 0) {
				g_set_error(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INTERNAL,
					    "cannot open /dev/null: %s",
					    g_strerror(errno));
				goto out;
			}
		}
		exec.fds[1] = request->pipe_stdin ? in[0] : devnull;
		exec.fds[2] = out[1];
		exec.fds[3] = err[1];
	}
	exec.fds[0] = report[1];
	g_return_val_if_fail(request->n_extra_fds <= ESD_SPAWN_MAX_EXTRA_FDS, FALSE);
	for (guint i = 0; i < request->n_extra_fds; i++) {
		g_return_val_if_fail(request->extra_fds[i] > 6, FALSE);
		exec.fds[4 + i] = request->extra_fds[i];
		g_string_append_printf(keep, ",%d", request->extra_fds[i]);
	}
	exec.n_fds = 4 + request->n_extra_fds;
	/* handed to the supervisor, but not kept for the command */
	if (request->netns) {
		g_return_val_if_fail(request->netns_fd > 6, FALSE);
		exec.fds[exec.n_fds++] = request->netns_fd;
		g_string_append_printf(keep, "N%d", request->netns_fd);
	}

	pid_namespace = esd_spawn_try_pid_namespace;
	g_ptr_array_add(argv, g_strdup("esd-supervise"));
	g_ptr_array_add(argv, NULL); /* flags, set below */
	g_ptr_array_add(argv, g_strdup_printf("%d", (gint)getpid()));
	g_ptr_array_add(argv, g_strdup(request->cwd));
	g_ptr_array_add(argv, g_strdup(request->path));
	for (guint i = 0; request->argv[i] != NULL; i++)
		g_ptr_array_add(argv, g_strdup(request->argv[i]));
	g_ptr_array_add(argv, NULL);

	/* no handler of the daemon may run in the child; the supervisor keeps them blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	for (guint attempt = 0; attempt < 2 && pid < 0; attempt++) {
		g_free(g_ptr_array_index(argv, 1));
		g_ptr_array_index(argv, 1) = g_strdup_printf("-%s%s%s",
							     request->tty ? "t" : "",
							     pid_namespace ? "n" : "",
							     keep->str);
		exec.argv = (gchar **)argv->pdata;
		pid = clone(esd_spawn_exec_supervisor,
			    esd_spawn_stack + ESD_SPAWN_STACK_SIZE,
			    CLONE_VM | CLONE_VFORK | SIGCHLD | (pid_namespace ? CLONE_NEWPID : 0),
			    &exec);
		saved_errno = errno;
		if (pid < 0 && pid_namespace &&
		    (saved_errno == EPERM || saved_errno == EINVAL || saved_errno == ENOSPC ||
		     saved_errno == EUSERS)) {
			g_info("PID namespaces are unavailable (%s); supervising without one",
			       g_strerror(saved_errno));
			esd_spawn_try_pid_namespace = FALSE;
			pid_namespace = FALSE;
		}
	}
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (pid < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot start a process: %s",
			    g_strerror(saved_errno));
		goto out;
	}

	result->pid = pid;
	result->pid_namespace = pid_namespace;
	result->report_fd = report[0];
	report[0] = -1;
	if (request->tty) {
		result->stdout_fd = master;
		result->stdin_fd = fcntl(master, F_DUPFD_CLOEXEC, 3);
		master = -1;
	} else {
		result->stdout_fd = out[0];
		result->stderr_fd = err[0];
		result->stdin_fd = in[1];
		out[0] = err[0] = in[1] = -1;
	}
out:
	esd_spawn_close(&report[0]);
	esd_spawn_close(&report[1]);
	esd_spawn_close(&in[0]);
	esd_spawn_close(&in[1]);
	esd_spawn_close(&out[0]);
	esd_spawn_close(&out[1]);
	esd_spawn_close(&err[0]);
	esd_spawn_close(&err[1]);
	esd_spawn_close(&master);
	esd_spawn_close(&slave);
	esd_spawn_close(&devnull);
	return pid > 0;
}

/* terminate: the whole tree dies at once, SIGTERM traps do not run */
void
esd_spawn_kill_tree(GPid supervisor, gboolean pid_namespace)
{
	if (supervisor <= 0)
		return;
	kill(supervisor, pid_namespace ? SIGKILL : SIGTERM);
}

/* non-tty interrupt: the supervisor forwards SIGINT to the command's group */
void
esd_spawn_interrupt(GPid supervisor)
{
	if (supervisor > 0)
		kill(supervisor, SIGINT);
}
