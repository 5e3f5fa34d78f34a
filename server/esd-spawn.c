/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <pthread.h>
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

#include "esd-spawn.h"

/*
 * Every command runs under a supervisor: a child of the daemon that forks
 * the command, reaps everything below it, forwards interrupts and reports
 * on a pipe when the command was executed and how it ended.
 *
 * Where the kernel allows it (root, or CAP_SYS_ADMIN), the supervisor is
 * init of a new PID namespace. No descendant can then escape, however it
 * daemonizes: killing the supervisor, which the kernel also does when the
 * daemon dies (PR_SET_PDEATHSIG), kills every process in the namespace.
 * Otherwise the supervisor is a child subreaper: orphans of the command
 * come back to it, and on SIGTERM (terminate, or the daemon's death) it
 * kills every process below it until none is left.
 *
 * Between clone() and execve() only async-signal-safe calls are made, and
 * the clones are raw syscalls: the daemon has threads, so glibc's fork
 * handlers must not run in a child that was copied mid-way.
 */

typedef struct {
	gint32 type;
	gint32 value;
} EsdSpawnRecord;

typedef struct {
	const EsdSpawnRequest *request;
	pid_t daemon_pid;
	gboolean pid_namespace;
	gint report_w;
	gint stdin_r;
	gint stdout_w;
	gint stderr_w;
	gint pty_slave;
	gint devnull;
} EsdSpawnChild;

/* cleared once the kernel refuses a PID namespace; then never tried again */
static gboolean esd_spawn_try_pid_namespace = TRUE;

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

static void
esd_spawn_write_record(gint fd, gint32 type, gint32 value)
{
	EsdSpawnRecord record = {type, value};
	ssize_t n;
	do
		n = write(fd, &record, sizeof(record));
	while (n < 0 && errno == EINTR);
}

static void
esd_spawn_noop_handler(int signum)
{
}

static pid_t
esd_spawn_raw_fork(gulong flags)
{
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

static void
esd_spawn_dup_to(gint from, gint to, gint exec_w)
{
	if (from == to) {
		/* clear close-on-exec: it is the descriptor the command keeps */
		if (fcntl(to, F_SETFD, 0) < 0)
			goto fail;
		return;
	}
	if (dup2(from, to) < 0)
		goto fail;
	return;
fail:
	esd_spawn_write_record(exec_w, ESD_SPAWN_REPORT_SETUP_FAILED, errno);
	_exit(127);
}

/* the command: runs in the grandchild until execve() */
static void G_GNUC_NORETURN
esd_spawn_command(const EsdSpawnChild *child, gint exec_w)
{
	const EsdSpawnRequest *request = child->request;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	/* the daemon ignores SIGPIPE; the command starts with defaults */
	for (gint sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setsid() < 0)
		goto setup_failed;
	if (request->tty) {
		if (ioctl(child->pty_slave, TIOCSCTTY, 0) < 0)
			goto setup_failed;
		esd_spawn_dup_to(child->pty_slave, STDIN_FILENO, exec_w);
		esd_spawn_dup_to(child->pty_slave, STDOUT_FILENO, exec_w);
		esd_spawn_dup_to(child->pty_slave, STDERR_FILENO, exec_w);
	} else {
		esd_spawn_dup_to(request->pipe_stdin ? child->stdin_r : child->devnull,
				 STDIN_FILENO,
				 exec_w);
		esd_spawn_dup_to(child->stdout_w, STDOUT_FILENO, exec_w);
		esd_spawn_dup_to(child->stderr_w, STDERR_FILENO, exec_w);
	}
	/* nothing of the daemon's survives the exec */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		for (gint fd = 3; fd < 65536; fd++) {
			if (fd != exec_w)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
		}
	}
	if (chdir(request->cwd) < 0) {
		esd_spawn_write_record(exec_w, ESD_SPAWN_REPORT_CHDIR_FAILED, errno);
		_exit(127);
	}
	execve(request->path, request->argv, request->envp);
	esd_spawn_write_record(exec_w, ESD_SPAWN_REPORT_EXEC_FAILED, errno);
	_exit(127);
setup_failed:
	esd_spawn_write_record(exec_w, ESD_SPAWN_REPORT_SETUP_FAILED, errno);
	_exit(127);
}

/* parses "pid (comm) S ppid ..." from /proc/PID/stat without allocating */
static pid_t
esd_spawn_read_ppid(pid_t pid)
{
	gchar path[64] = "/proc/";
	gchar digits[16];
	gchar buf[512];
	gchar *p;
	gsize len = strlen(path);
	gint n_digits = 0;
	ssize_t n;
	gint fd;

	/* no snprintf here: this runs between fork and exit */
	do {
		digits[n_digits++] = (gchar)('0' + pid % 10);
		pid /= 10;
	} while (pid > 0 && n_digits < (gint)sizeof(digits));
	while (n_digits > 0)
		path[len++] = digits[--n_digits];
	memcpy(path + len, "/stat", sizeof("/stat"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || p[1] == '\0' || p[2] == '\0' || p[3] == '\0')
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10);
}

static gboolean
esd_spawn_is_descendant(pid_t pid, pid_t ancestor)
{
	for (gint depth = 0; depth < 256 && pid > 1; depth++) {
		pid_t ppid = esd_spawn_read_ppid(pid);
		if (ppid == ancestor)
			return TRUE;
		pid = ppid;
	}
	return FALSE;
}

/* without a PID namespace: SIGKILL everything below us, until nothing is */
static void
esd_spawn_sweep(void)
{
	pid_t self = getpid();

	for (gint round = 0; round < 64; round++) {
		gchar buf[4096];
		gboolean found = FALSE;
		gint dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		glong n;

		if (dir < 0)
			return;
		while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
			for (glong off = 0; off < n;) {
				struct dirent64 *entry = (struct dirent64 *)(buf + off);
				pid_t pid = (pid_t)strtol(entry->d_name, NULL, 10);
				off += entry->d_reclen;
				if (pid <= 1 || pid == self || !esd_spawn_is_descendant(pid, self))
					continue;
				kill(pid, SIGKILL);
				found = TRUE;
			}
		}
		close(dir);
		if (!found)
			return;
	}
}

/* the supervisor: reaps, forwards, reports; never returns */
static void G_GNUC_NORETURN
esd_spawn_supervisor(const EsdSpawnChild *child)
{
	struct sigaction handler = {.sa_handler = esd_spawn_noop_handler};
	const gint forwarded[] = {SIGINT, SIGQUIT, SIGHUP};
	sigset_t waitset;
	gint exec_pipe[2];
	pid_t command;
	gboolean command_done = FALSE;
	EsdSpawnRecord record;
	ssize_t n;

	prctl(PR_SET_PDEATHSIG, child->pid_namespace ? SIGKILL : SIGTERM);
	if (!child->pid_namespace) {
		if (getppid() != child->daemon_pid)
			_exit(127);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	}
	/* as init, signals without a handler would be dropped; they stay blocked */
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGCHLD);
	sigaddset(&waitset, SIGTERM);
	for (guint i = 0; i < G_N_ELEMENTS(forwarded); i++)
		sigaddset(&waitset, forwarded[i]);
	for (gint sig = 1; sig < NSIG; sig++) {
		if (sigismember(&waitset, sig) == 1)
			sigaction(sig, &handler, NULL);
	}

	if (pipe2(exec_pipe, O_CLOEXEC) < 0) {
		esd_spawn_write_record(child->report_w, ESD_SPAWN_REPORT_SETUP_FAILED, errno);
		_exit(127);
	}
	command = esd_spawn_raw_fork(0);
	if (command == 0) {
		close(exec_pipe[0]);
		esd_spawn_command(child, exec_pipe[1]);
	}
	if (command < 0) {
		esd_spawn_write_record(child->report_w, ESD_SPAWN_REPORT_SETUP_FAILED, errno);
		_exit(127);
	}
	close(exec_pipe[1]);
	/* the command owns these now */
	if (child->stdin_r >= 0)
		close(child->stdin_r);
	if (child->stdout_w >= 0)
		close(child->stdout_w);
	if (child->stderr_w >= 0)
		close(child->stderr_w);
	if (child->pty_slave >= 0)
		close(child->pty_slave);

	/* end of file means the exec happened */
	do
		n = read(exec_pipe[0], &record, sizeof(record));
	while (n < 0 && errno == EINTR);
	close(exec_pipe[0]);
	if (n == (ssize_t)sizeof(record))
		esd_spawn_write_record(child->report_w, record.type, record.value);
	else
		esd_spawn_write_record(child->report_w, ESD_SPAWN_REPORT_STARTED, 0);

	for (;;) {
		siginfo_t info;
		gint sig = sigwaitinfo(&waitset, &info);

		if (sig == SIGCHLD) {
			gint status = 0;
			pid_t pid;
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
				if (pid == command) {
					command_done = TRUE;
					esd_spawn_write_record(child->report_w,
							       ESD_SPAWN_REPORT_EXITED,
							       status);
				}
			}
			if (pid < 0 && errno == ECHILD && command_done)
				_exit(0);
		} else if (sig == SIGTERM) {
			if (child->pid_namespace)
				kill(-1, SIGKILL);
			else
				esd_spawn_sweep();
		} else if (sig > 0 && !command_done) {
			kill(-command, sig);
		}
	}
}

static gboolean
esd_spawn_open_pty(const EsdSpawnRequest *request, gint *master, gint *slave, GError **error)
{
	struct winsize size = {.ws_row = request->rows, .ws_col = request->cols};
	gchar name[128];

	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0)
		goto fail;
	if (grantpt(*master) < 0 || unlockpt(*master) < 0 || ptsname_r(*master, name, sizeof(name)) != 0)
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
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "cannot create a pipe: %s", g_strerror(errno));
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
	EsdSpawnChild child = {
	    .request = request,
	    .daemon_pid = getpid(),
	    .stdin_r = -1,
	    .stdout_w = -1,
	    .stderr_w = -1,
	    .pty_slave = -1,
	    .devnull = -1,
	};
	gint report[2] = {-1, -1};
	gint in[2] = {-1, -1};
	gint out[2] = {-1, -1};
	gint err[2] = {-1, -1};
	gint master = -1;
	sigset_t all;
	sigset_t saved;
	pid_t pid = -1;
	gint saved_errno = 0;

	result->pid = 0;
	result->stdin_fd = result->stdout_fd = result->stderr_fd = result->report_fd = -1;

	if (!esd_spawn_pipe(report, error))
		goto out;
	if (request->tty) {
		if (!esd_spawn_open_pty(request, &master, &child.pty_slave, error))
			goto out;
	} else {
		if (request->pipe_stdin && !esd_spawn_pipe(in, error))
			goto out;
		if (!esd_spawn_pipe(out, error) || !esd_spawn_pipe(err, error))
			goto out;
		child.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (child.devnull < 0) {
			g_set_error(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "cannot open /dev/null: %s", g_strerror(errno));
			goto out;
		}
		child.stdin_r = in[0];
		child.stdout_w = out[1];
		child.stderr_w = err[1];
	}
	child.report_w = report[1];

	/* no handler of the daemon may run in the child before it sets its own */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	if (esd_spawn_try_pid_namespace) {
		child.pid_namespace = TRUE;
		pid = esd_spawn_raw_fork(CLONE_NEWPID);
		if (pid < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS)) {
			g_info("PID namespaces are unavailable (%s); supervising without one",
			       g_strerror(errno));
			esd_spawn_try_pid_namespace = FALSE;
		}
	}
	if (pid < 0 && !esd_spawn_try_pid_namespace) {
		child.pid_namespace = FALSE;
		pid = esd_spawn_raw_fork(0);
	}
	if (pid == 0)
		esd_spawn_supervisor(&child);
	saved_errno = errno;
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
	result->pid_namespace = child.pid_namespace;
	result->report_fd = report[0];
	report[0] = -1;
	if (request->tty) {
		result->stdout_fd = master;
		result->stdin_fd = dup(master);
		fcntl(result->stdin_fd, F_SETFD, FD_CLOEXEC);
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
	esd_spawn_close(&child.pty_slave);
	esd_spawn_close(&child.devnull);
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
