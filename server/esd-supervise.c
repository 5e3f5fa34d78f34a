/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * esd-supervise: the parent of every command execserverd runs. Internal to
 * the daemon, which starts it with vfork semantics, so that starting a
 * command never copies the daemon's address space.
 *
 *   esd-supervise FLAGS DAEMON_PID CWD PROGRAM ARGV0 [ARG...]
 *
 * FLAGS: 't' the command gets the terminal on fd 4 as its controlling tty,
 * 'n' we are init of a fresh PID namespace, ",N" (repeated): the command also
 * inherits descriptor N (bubblewrap's arguments and seccomp program).
 * Descriptors: 3 the report pipe, 4 the command's stdin, 5 its stdout, 6
 * its stderr. The environment is the command's. Signals arrive
 * blocked and stay blocked here.
 *
 * It forks the command, reports on fd 3 that it was executed (or why not)
 * and how it ended, reaps everything below it and forwards SIGINT, SIGQUIT
 * and SIGHUP to the command's process group. SIGTERM kills every process
 * below it. In a PID namespace, killing this process kills the namespace;
 * otherwise it is a child subreaper and sweeps its subtree itself, also
 * when the daemon dies (PR_SET_PDEATHSIG).
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-spawn.h"

#define REPORT_FD  3
#define STDIN_SRC  4
#define STDOUT_SRC 5
#define STDERR_SRC 6

typedef struct {
	int type;
	int value;
} Record;

static void
report(int fd, int type, int value)
{
	Record record = {type, value};
	ssize_t n;
	do
		n = write(fd, &record, sizeof(record));
	while (n < 0 && errno == EINTR);
}

static void
noop_handler(int signum)
{
	(void)signum;
}

static void __attribute__((noreturn)) fail(int fd, int type)
{
	report(fd, type, errno);
	_exit(127);
}

static void
move_fd(int from, int to, int exec_w)
{
	if (dup2(from, to) < 0)
		fail(exec_w, ESD_SPAWN_REPORT_SETUP_FAILED);
}

#define MAX_EXTRA_FDS 1024
/* the soft descriptor limit commands start with (systemd's default too) */
#define CHILD_NOFILE 1024
static int extra_fds[MAX_EXTRA_FDS];
static int n_extra_fds = 0;

static void __attribute__((noreturn))
run_command(int exec_w, int tty, const char *cwd, const char *program, char **argv, char **envp)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	struct rlimit files;
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setsid() < 0)
		fail(exec_w, ESD_SPAWN_REPORT_SETUP_FAILED);
	if (tty && ioctl(STDIN_SRC, TIOCSCTTY, 0) < 0)
		fail(exec_w, ESD_SPAWN_REPORT_SETUP_FAILED);
	move_fd(STDIN_SRC, STDIN_FILENO, exec_w);
	move_fd(STDOUT_SRC, STDOUT_FILENO, exec_w);
	move_fd(STDERR_SRC, STDERR_FILENO, exec_w);
	/* the command keeps 0, 1 and 2 and the extra descriptors, nothing else */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		for (int fd = 3; fd < 65536; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	for (int i = 0; i < n_extra_fds; i++) {
		if (fcntl(extra_fds[i], F_SETFD, 0) < 0)
			fail(exec_w, ESD_SPAWN_REPORT_SETUP_FAILED);
	}
	/* the daemon raised its own descriptor limit; commands get the usual soft one */
	if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur > CHILD_NOFILE) {
		files.rlim_cur = CHILD_NOFILE;
		setrlimit(RLIMIT_NOFILE, &files);
	}
	if (chdir(cwd) < 0)
		fail(exec_w, ESD_SPAWN_REPORT_CHDIR_FAILED);
	execve(program, argv, envp);
	fail(exec_w, ESD_SPAWN_REPORT_EXEC_FAILED);
}

/* we wait for the exec anyway: share the memory until then */
static pid_t
start_command(int exec_pipe[2], int tty, char **argv, char **envp)
{
	pid_t pid = vfork();
	if (pid == 0) {
		close(exec_pipe[0]);
		run_command(exec_pipe[1], tty, argv[3], argv[4], argv + 5, envp);
	}
	return pid;
}

static pid_t
read_ppid(pid_t pid)
{
	char path[64];
	char buf[512];
	char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || strlen(p) < 4)
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10);
}

static int
is_descendant(pid_t pid, pid_t ancestor)
{
	for (int depth = 0; depth < 256 && pid > 1; depth++) {
		pid_t ppid = read_ppid(pid);
		if (ppid == ancestor)
			return 1;
		pid = ppid;
	}
	return 0;
}

/* without a PID namespace: SIGKILL everything below us until nothing is */
static void
sweep(void)
{
	pid_t self = getpid();

	for (int round = 0; round < 64; round++) {
		DIR *dir = opendir("/proc");
		struct dirent *entry;
		int found = 0;

		if (dir == NULL)
			return;
		while ((entry = readdir(dir)) != NULL) {
			pid_t pid = (pid_t)strtol(entry->d_name, NULL, 10);
			if (pid <= 1 || pid == self || !is_descendant(pid, self))
				continue;
			kill(pid, SIGKILL);
			found = 1;
		}
		closedir(dir);
		if (!found)
			return;
	}
}

int
main(int argc, char **argv, char **envp)
{
	struct sigaction handler = {.sa_handler = noop_handler};
	const int handled[] = {SIGCHLD, SIGTERM, SIGINT, SIGQUIT, SIGHUP};
	sigset_t waitset;
	int exec_pipe[2];
	int tty;
	int pid_namespace;
	pid_t daemon_pid;
	pid_t command;
	int command_done = 0;
	Record record;
	ssize_t n;

	if (argc < 6) {
		fprintf(stderr,
			"esd-supervise: internal helper of execserverd, not to be run by hand\n");
		return 127;
	}
	tty = strchr(argv[1], 't') != NULL;
	pid_namespace = strchr(argv[1], 'n') != NULL;
	for (const char *f = strchr(argv[1], ','); f != NULL && n_extra_fds < MAX_EXTRA_FDS;
	     f = strchr(f + 1, ','))
		extra_fds[n_extra_fds++] = (int)strtol(f + 1, NULL, 10);
	daemon_pid = (pid_t)strtol(argv[2], NULL, 10);

	prctl(PR_SET_PDEATHSIG, pid_namespace ? SIGKILL : SIGTERM);
	if (!pid_namespace) {
		if (getppid() != daemon_pid)
			_exit(127);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	}
	/* as init, a signal without a handler would be dropped; all stay blocked */
	sigemptyset(&waitset);
	for (unsigned i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
		sigaddset(&waitset, handled[i]);
		sigaction(handled[i], &handler, NULL);
	}
	sigprocmask(SIG_BLOCK, &waitset, NULL);

	if (pipe2(exec_pipe, O_CLOEXEC) < 0)
		fail(REPORT_FD, ESD_SPAWN_REPORT_SETUP_FAILED);
	command = start_command(exec_pipe, tty, argv, envp);
	if (command < 0)
		fail(REPORT_FD, ESD_SPAWN_REPORT_SETUP_FAILED);
	close(exec_pipe[1]);
	/* the command owns these now */
	close(STDIN_SRC);
	close(STDOUT_SRC);
	close(STDERR_SRC);

	/* end of file means the exec happened */
	do
		n = read(exec_pipe[0], &record, sizeof(record));
	while (n < 0 && errno == EINTR);
	close(exec_pipe[0]);
	if (n == (ssize_t)sizeof(record))
		report(REPORT_FD, record.type, record.value);
	else
		report(REPORT_FD, ESD_SPAWN_REPORT_STARTED, 0);

	for (;;) {
		siginfo_t info;
		int sig = sigwaitinfo(&waitset, &info);

		if (sig == SIGCHLD) {
			int status = 0;
			pid_t pid;
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
				if (pid == command) {
					command_done = 1;
					report(REPORT_FD, ESD_SPAWN_REPORT_EXITED, status);
				}
			}
			if (pid < 0 && errno == ECHILD && command_done)
				_exit(0);
		} else if (sig == SIGTERM) {
			if (pid_namespace)
				kill(-1, SIGKILL);
			else
				sweep();
		} else if (sig > 0 && !command_done) {
			kill(-command, sig);
		}
	}
}
