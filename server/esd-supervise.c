/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * esd-supervise: the parent of every command execserverd runs. Internal to
 * the daemon, which starts it with vfork semantics, so that starting a
 * command never copies the daemon's address space.
 *
 *   esd-supervise FLAGS DAEMON_PID CWD PROGRAM ARGV0 [ARG...]
 *
 * FLAGS: 't' the command gets the terminal on fd 4 as its controlling tty,
 * 'n' we are init of a fresh PID namespace, ",N" (repeated): the command also
 * inherits descriptor N (bubblewrap's arguments and seccomp program, a launch
 * hook's descriptors), "NN": we join the network namespace of descriptor N
 * before the command is forked (a launch hook's), and close it.
 * Descriptors: 3 the report pipe, 4 the command's stdin, 5 its stdout, 6
 * its stderr. The environment is the command's. Signals arrive
 * blocked and stay blocked here.
 *
 * It forks the command, reports on fd 3 that it was executed (or why not)
 * and how it ended, reaps everything below it and forwards SIGINT, SIGQUIT
 * and SIGHUP to the command's process group. SIGTERM kills every process
 * below it. In a PID namespace, killing this process kills the namespace;
 * otherwise it is a child subreaper and kills its subtree itself, also
 * when the daemon dies (PR_SET_PDEATHSIG), then exits once all is reaped.
 *
 *   esd-supervise --server DAEMON_PID
 *
 * The spawn server: fd 3 is a SOCK_SEQPACKET socket to the daemon, each
 * message a request (EsdSpawnServerHeader) with the descriptors above;
 * for each it forks a supervisor as the daemon's child (CLONE_PARENT),
 * which reports its pid first and goes on as an exec-ed one would. On a
 * bare header with ESD_SPAWN_SERVER_SPARE it forks a spare supervisor the
 * same way, which waits for one such request on its own socket, and sends
 * the daemon its pid and the other end of that socket.
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

/* the signals supervise() handles; every other one is at its default */
static const int handled_signals[] = {SIGCHLD, SIGTERM, SIGINT, SIGQUIT, SIGHUP};
#define N_HANDLED_SIGNALS (sizeof(handled_signals) / sizeof(handled_signals[0]))

/* what the daemon ignored (SIGPIPE) is not ignored here, nor in the commands */
static void
reset_signals(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
}

static void __attribute__((noreturn))
run_command(int exec_w, int tty, const char *cwd, const char *program, char **argv, char **envp)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	struct rlimit files;
	sigset_t none;

	/* the rest were reset once, when this program started */
	for (unsigned i = 0; i < N_HANDLED_SIGNALS; i++)
		sigaction(handled_signals[i], &dfl, NULL);
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
start_command(int exec_pipe[2],
	      int tty,
	      const char *cwd,
	      const char *program,
	      char **argv,
	      char **envp)
{
	pid_t pid = vfork();
	if (pid == 0) {
		close(exec_pipe[0]);
		run_command(exec_pipe[1], tty, cwd, program, argv, envp);
	}
	return pid;
}

/*
 * Tree kill without a PID namespace. We are a child subreaper, so nothing
 * leaves our subtree: when a process dies its children come to us (or to a
 * subreaper below us). waitpid() failing with ECHILD is therefore the exact
 * end of the subtree, and killing it only has to make every process in it
 * die; a killed process that is not yet reaped is dead, not a survivor.
 *
 * The command called setsid(): one kill() of its process group takes the
 * command and everything that stayed in its group, at any depth, in one
 * step. What left the group (setsid, setpgid: a daemon) is found by a pass
 * over /proc that reads each process's parent once and closes the set of
 * our descendants in memory. Such a pass costs every process on the host,
 * so it runs only when something may have escaped: once the command is
 * reaped and its group is empty while children remain, or when the command
 * has not died within KILL_SCAN_STUCK_MS. Otherwise what remains is dying
 * and we only reap, blocking in sigtimedwait(); a tick, less and less
 * often, passes again for what was forked while a pass ran.
 */

#define KILL_TICK_MS	   100
#define KILL_TICK_MAX_MS   1000
#define KILL_SCAN_STUCK_MS 1000

typedef struct {
	pid_t pid;
	pid_t ppid;
	int state; /* SCAN_* */
} ProcEntry;

enum { SCAN_UNKNOWN, SCAN_VISITING, SCAN_INSIDE, SCAN_OUTSIDE };

static int
proc_entry_cmp(const void *a, const void *b)
{
	pid_t x = ((const ProcEntry *)a)->pid;
	pid_t y = ((const ProcEntry *)b)->pid;
	return (x > y) - (x < y);
}

static ProcEntry *
proc_entry_find(ProcEntry *procs, size_t n, pid_t pid)
{
	ProcEntry key = {.pid = pid};
	return bsearch(&key, procs, n, sizeof(ProcEntry), proc_entry_cmp);
}

/* the parent in /proc/PID/stat: "pid (comm) state ppid …", comm may hold ')' */
static pid_t
read_ppid(int proc_fd, pid_t pid)
{
	char path[32];
	char buf[256];
	char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%d/stat", (int)pid);
	fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
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

/* whether @e descends from @self; memoized, so a whole pass is O(n log n) */
static int
proc_entry_inside(ProcEntry *procs, size_t n, ProcEntry *e, pid_t self)
{
	int verdict = SCAN_OUTSIDE;
	ProcEntry *p;

	/* up to a process already judged, to us, or out of the snapshot */
	for (p = e; p != NULL && p->state == SCAN_UNKNOWN;) {
		p->state = SCAN_VISITING;
		if (p->ppid == self) {
			verdict = SCAN_INSIDE;
			p = NULL;
			break;
		}
		p = p->ppid > 1 ? proc_entry_find(procs, n, p->ppid) : NULL;
	}
	/* a visiting ancestor is a loop of a racy snapshot: outside */
	if (p != NULL && p->state != SCAN_VISITING)
		verdict = p->state;
	/* the same path again, judged */
	for (p = e; p != NULL && p->state == SCAN_VISITING;) {
		p->state = verdict;
		p = p->ppid > 1 && p->ppid != self ? proc_entry_find(procs, n, p->ppid) : NULL;
	}
	return verdict == SCAN_INSIDE;
}

/* one pass over /proc: SIGKILL every process below us */
static void
kill_scan(void)
{
	pid_t self = getpid();
	ProcEntry *procs = NULL;
	size_t n = 0;
	size_t allocated = 0;
	struct dirent *entry;
	DIR *dir = opendir("/proc");

	if (dir == NULL)
		return;
	while ((entry = readdir(dir)) != NULL) {
		char *end = NULL;
		long pid = strtol(entry->d_name, &end, 10);
		pid_t ppid;

		if (pid <= 1 || *end != '\0' || pid == self)
			continue;
		ppid = read_ppid(dirfd(dir), (pid_t)pid);
		if (ppid < 0)
			continue; /* gone meanwhile */
		/* our own children need no ancestry: kill them at once */
		if (ppid == self)
			kill((pid_t)pid, SIGKILL);
		if (n == allocated) {
			size_t more = allocated > 0 ? allocated * 2 : 1024;
			ProcEntry *grown = realloc(procs, more * sizeof(ProcEntry));
			if (grown == NULL)
				break;
			procs = grown;
			allocated = more;
		}
		procs[n++] = (ProcEntry){(pid_t)pid, ppid, SCAN_UNKNOWN};
	}
	closedir(dir);
	qsort(procs, n, sizeof(ProcEntry), proc_entry_cmp);
	for (size_t i = 0; i < n; i++) {
		/* zombies are not told apart: killing one is harmless */
		if (procs[i].ppid != self && proc_entry_inside(procs, n, &procs[i], self))
			kill(procs[i].pid, SIGKILL);
	}
	free(procs);
}

static long long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct {
	long long tick_at; /* 0: not killing */
	long long tick_delay;
	long long scan_from; /* from then on, every tick passes over /proc */
	unsigned scans;
} killing;

/* no member of the command's group is left, zombies included */
static int
group_gone(pid_t command)
{
	return kill(-command, 0) < 0 && errno == ESRCH;
}

static void
kill_pass(void)
{
	kill_scan();
	killing.scans++;
}

/* SIGTERM: kill the tree, then reap until nothing is left */
static void
kill_start(pid_t command, int command_done)
{
	long long now = now_ms();

	if (killing.tick_at != 0)
		return;
	killing.tick_delay = KILL_TICK_MS;
	killing.tick_at = now + KILL_TICK_MS;
	killing.scan_from = now + KILL_SCAN_STUCK_MS;
	/* unreaped, the command pins its pid as the group's id */
	if (!command_done)
		kill(-command, SIGKILL);
	else
		kill_pass(); /* it is gone: what is left is not in its group */
}

/*
 * After reaping (@tick FALSE) only the first pass, once something may have
 * escaped; on a tick, a pass whenever it may have, and the next tick later.
 */
static void
kill_check(pid_t command, int command_done, int tick)
{
	long long now = now_ms();
	int escaped = command_done && group_gone(command);

	if (tick ? (escaped || now >= killing.scan_from) : (escaped && killing.scans == 0))
		kill_pass();
	if (tick) {
		killing.tick_at = now + killing.tick_delay;
		killing.tick_delay = killing.tick_delay * 2 < KILL_TICK_MAX_MS
					 ? killing.tick_delay * 2
					 : KILL_TICK_MAX_MS;
	}
}

/*
 * One command, from the pdeathsig on: the same whether this process was
 * exec-ed by the daemon or forked by the spawn server.
 */
static void __attribute__((noreturn)) supervise(int tty,
						int pid_namespace,
						int netns_fd,
						pid_t daemon_pid,
						const char *cwd,
						const char *program,
						char **argv,
						char **envp)
{
	struct sigaction handler = {.sa_handler = noop_handler};
	sigset_t waitset;
	int exec_pipe[2];
	pid_t command;
	int command_done = 0;
	Record record;
	ssize_t n;

	prctl(PR_SET_PDEATHSIG, pid_namespace ? SIGKILL : SIGTERM);
	if (!pid_namespace) {
		if (getppid() != daemon_pid)
			_exit(127);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	}
	/* as init, a signal without a handler would be dropped; all stay blocked */
	sigemptyset(&waitset);
	for (unsigned i = 0; i < N_HANDLED_SIGNALS; i++) {
		sigaddset(&waitset, handled_signals[i]);
		sigaction(handled_signals[i], &handler, NULL);
	}
	sigprocmask(SIG_BLOCK, &waitset, NULL);

	if (netns_fd >= 0) {
		if (setns(netns_fd, CLONE_NEWNET) < 0)
			fail(REPORT_FD, ESD_SPAWN_REPORT_SETUP_FAILED);
		close(netns_fd);
	}
	if (pipe2(exec_pipe, O_CLOEXEC) < 0)
		fail(REPORT_FD, ESD_SPAWN_REPORT_SETUP_FAILED);
	command = start_command(exec_pipe, tty, cwd, program, argv, envp);
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
		int sig;

		if (killing.tick_at != 0) {
			long long wait = killing.tick_at - now_ms();
			struct timespec timeout = {0, 0};

			sig = -1;
			errno = EAGAIN;
			if (wait > 0) {
				timeout.tv_sec = (time_t)(wait / 1000);
				timeout.tv_nsec = (long)(wait % 1000) * 1000000;
				sig = sigtimedwait(&waitset, &info, &timeout);
			}
			if (sig < 0) {
				if (errno == EAGAIN)
					kill_check(command, command_done, 1);
				continue;
			}
		} else {
			sig = sigwaitinfo(&waitset, &info);
		}

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
			if (killing.tick_at != 0)
				kill_check(command, command_done, 0);
		} else if (sig == SIGTERM) {
			if (pid_namespace)
				kill(-1, SIGKILL);
			else
				kill_start(command, command_done);
		} else if (sig > 0 && !command_done) {
			kill(-command, sig);
		}
	}
}

/*
 * The spawn server: one per daemon, exec-ed once, it forks a supervisor per
 * request instead of the daemon exec-ing one. It forks with CLONE_PARENT:
 * the supervisor is the daemon's child as if exec-ed by it, so the daemon
 * waits for it, and its PR_SET_PDEATHSIG fires when the daemon dies, not
 * when this process does. Its only descriptor is its end of a socketpair
 * with the daemon, its environment is empty.
 */

#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

typedef struct {
	unsigned flags;
	int fds[ESD_SPAWN_SERVER_MAX_FDS];     /* as received */
	int targets[ESD_SPAWN_SERVER_MAX_FDS]; /* where each goes, or -1 to keep it above */
	int n_fds;
	int landlock_index; /* in fds, or -1 */
	int netns_index;
	int sync_fd; /* with a PID namespace: one byte once the pid was reported */
	pid_t daemon_pid;
	const char *cwd;
	const char *program;
	char **argv;
	char **envp;
} Job;

static unsigned char server_message[ESD_SPAWN_SERVER_MAX_MESSAGE];

/*
 * fork() with clone flags: the child goes on with a copy of this stack.
 * Only the flags argument is given, so the argument order of the
 * architectures does not matter, but on s390, where the stack comes first.
 */
static pid_t
raw_clone(unsigned long flags)
{
#if defined(__s390x__) || defined(__s390__)
	return (pid_t)syscall(SYS_clone, 0UL, flags, NULL, NULL, 0UL);
#else
	return (pid_t)syscall(SYS_clone, flags, 0UL, NULL, NULL, 0UL);
#endif
}

/* the server's descriptors beside its socket: the alive pipe's read and write ends */
#define SERVER_ALIVE_R_FD 4
#define SERVER_ALIVE_W_FD 5
/* a spare's: its socket to the daemon, the alive pipe's read end */
#define SPARE_SOCKET_FD 3
#define SPARE_ALIVE_FD	SERVER_ALIVE_R_FD

/* a request's descriptors into place, then as if exec-ed */
static void __attribute__((noreturn)) start_job(Job *job)
{
	int moved[ESD_SPAWN_SERVER_MAX_FDS];
	int above = STDERR_SRC + 1;

	prctl(PR_SET_NAME, "esd-supervise");
	for (int i = 0; i < job->n_fds; i++) {
		if (job->targets[i] >= above)
			above = job->targets[i] + 1;
	}
	/* above every target first, then into place */
	for (int i = 0; i < job->n_fds; i++) {
		moved[i] = fcntl(job->fds[i], F_DUPFD_CLOEXEC, above);
		if (moved[i] < 0)
			fail(job->fds[0], ESD_SPAWN_REPORT_SETUP_FAILED);
		close(job->fds[i]);
	}
	for (int i = 0; i < job->n_fds; i++) {
		if (job->targets[i] < 0)
			continue;
		if (dup2(moved[i], job->targets[i]) < 0)
			fail(i > 0 ? REPORT_FD : moved[0], ESD_SPAWN_REPORT_SETUP_FAILED);
		close(moved[i]);
	}
	for (int i = 0; i < n_extra_fds; i++)
		extra_fds[i] = job->targets[i + job->n_fds - n_extra_fds];
	if (job->landlock_index >= 0) {
		int fd = moved[job->landlock_index];
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(__NR_landlock_restrict_self, fd, 0) != 0)
			fail(REPORT_FD, ESD_SPAWN_REPORT_SETUP_FAILED);
		close(fd);
	}
	supervise(job->flags & ESD_SPAWN_SERVER_TTY,
		  job->flags & ESD_SPAWN_SERVER_PID_NAMESPACE,
		  job->netns_index >= 0 ? moved[job->netns_index] : -1,
		  job->daemon_pid,
		  job->cwd,
		  job->program,
		  job->argv,
		  job->envp);
}

/* the forked supervisor: reported, then as if exec-ed */
static void __attribute__((noreturn)) server_child(Job *job)
{
	char byte;

	close(ESD_SPAWN_SERVER_FD);
	close(SERVER_ALIVE_W_FD);
	close(SERVER_ALIVE_R_FD);
	if (job->sync_fd >= 0) {
		/* the server died before it reported us: the daemon does not know us */
		if (read(job->sync_fd, &byte, 1) != 1)
			_exit(127);
		close(job->sync_fd);
	} else {
		report(job->fds[0], ESD_SPAWN_REPORT_PID, (int)getpid());
	}
	start_job(job);
}

/* the strings of a request: @n of them from *@pos, within @end */
static int
take_strings(char **into, unsigned n, char **pos, char *end)
{
	for (unsigned i = 0; i < n; i++) {
		char *nul = memchr(*pos, '\0', (size_t)(end - *pos));
		if (nul == NULL)
			return -1;
		into[i] = *pos;
		*pos = nul + 1;
	}
	into[n] = NULL;
	return 0;
}

/* 0 with @job filled from a message of @len bytes and its @n_fds descriptors */
static int
server_parse(Job *job, size_t len, int n_fds)
{
	EsdSpawnServerHeader header;
	char *pos;
	char *end;
	char *first[3];
	size_t fixed;
	int want;

	if (len < sizeof(header))
		return -1;
	memcpy(&header, server_message, sizeof(header));
	if (header.magic != ESD_SPAWN_SERVER_MAGIC || header.n_extra_fds > MAX_EXTRA_FDS ||
	    header.argc == 0 || header.argc > len || header.envc > len)
		return -1;
	fixed = sizeof(header) + header.n_extra_fds * sizeof(gint32);
	if (fixed > len || len - fixed != header.strings_len)
		return -1;
	want = 4 + ((header.flags & ESD_SPAWN_SERVER_LANDLOCK) != 0) +
	       ((header.flags & ESD_SPAWN_SERVER_NETNS) != 0) + (int)header.n_extra_fds;
	if (want != n_fds)
		return -1;
	job->flags = header.flags;
	job->landlock_index = job->netns_index = -1;
	for (int i = 0; i < 4; i++)
		job->targets[i] = REPORT_FD + i;
	want = 4;
	if (header.flags & ESD_SPAWN_SERVER_LANDLOCK) {
		job->landlock_index = want;
		job->targets[want++] = -1;
	}
	if (header.flags & ESD_SPAWN_SERVER_NETNS) {
		job->netns_index = want;
		job->targets[want++] = -1;
	}
	for (unsigned i = 0; i < header.n_extra_fds; i++) {
		gint32 target;
		memcpy(&target,
		       server_message + sizeof(header) + i * sizeof(gint32),
		       sizeof(target));
		if (target <= STDERR_SRC)
			return -1;
		job->targets[want++] = target;
	}
	n_extra_fds = (int)header.n_extra_fds;
	pos = (char *)server_message + fixed;
	end = (char *)server_message + len;
	job->argv = calloc((size_t)header.argc + 1, sizeof(char *));
	job->envp = calloc((size_t)header.envc + 1, sizeof(char *));
	if (job->argv == NULL || job->envp == NULL)
		return -1;
	if (take_strings(first, 2, &pos, end) < 0 ||
	    take_strings(job->argv, header.argc, &pos, end) < 0 ||
	    take_strings(job->envp, header.envc, &pos, end) < 0)
		return -1;
	job->cwd = first[0];
	job->program = first[1];
	return 0;
}

/*
 * One message from @fd into server_message and @job->fds: its length, 0 at
 * end of file, -1 with errno; @bad set when it was truncated.
 */
static ssize_t
receive(int fd, Job *job, int *bad)
{
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(sizeof(int) * ESD_SPAWN_SERVER_MAX_FDS)];
	} control;
	struct iovec iov = {server_message, sizeof(server_message)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.space,
			     .msg_controllen = sizeof(control.space)};
	ssize_t n;

	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int received;
			memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (job->n_fds < ESD_SPAWN_SERVER_MAX_FDS)
				job->fds[job->n_fds++] = received;
			else
				close(received);
		}
	}
	*bad = (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
	return n;
}

/*
 * A spare supervisor: forked ahead, it waits for one request on its own
 * socket, then goes on as a forked supervisor would, without reporting its
 * pid (the daemon knows it from the announcement). Until then it holds
 * /dev/null as 0, 1, 2, its socket and the alive pipe, nothing else, and
 * dies with the daemon (PR_SET_PDEATHSIG, end of file on the socket) and
 * with the server (end of file on the pipe). A request already queued wins
 * over the server's death: the daemon counts on it.
 */
static void __attribute__((noreturn)) spare(pid_t daemon_pid)
{
	Job job = {.daemon_pid = daemon_pid, .sync_fd = -1};
	int bad = 0;
	ssize_t n;

	for (;;) {
		struct pollfd pfd[2] = {{.fd = SPARE_SOCKET_FD, .events = POLLIN},
					{.fd = SPARE_ALIVE_FD, .events = POLLIN}};

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(127);
		}
		if (pfd[0].revents != 0)
			break;
		if (pfd[1].revents != 0)
			_exit(0);
	}
	n = receive(SPARE_SOCKET_FD, &job, &bad);
	if (n <= 0)
		_exit(0);
	close(SPARE_SOCKET_FD);
	close(SPARE_ALIVE_FD);
	if (bad || server_parse(&job, (size_t)n, job.n_fds) < 0 ||
	    (job.flags & ESD_SPAWN_SERVER_PID_NAMESPACE) != 0) {
		if (job.n_fds > 0)
			report(job.fds[0], ESD_SPAWN_REPORT_SETUP_FAILED, EINVAL);
		_exit(127);
	}
	start_job(&job);
}

/* a spare forked and announced to the daemon (or why not) */
static void
make_spare(pid_t daemon_pid)
{
	EsdSpawnSpareAnnounce announce = {.magic = ESD_SPAWN_SPARE_MAGIC};
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = {&announce, sizeof(announce)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	int sv[2];
	pid_t pid = -1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0) {
		pid = raw_clone(CLONE_PARENT | SIGCHLD);
		if (pid == 0) {
			prctl(PR_SET_NAME, "esd-spare");
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != daemon_pid)
				_exit(127);
			if (dup2(sv[1], SPARE_SOCKET_FD) < 0)
				_exit(127);
			close(sv[0]);
			close(sv[1]);
			close(SERVER_ALIVE_W_FD);
			spare(daemon_pid);
		}
		announce.pid = pid > 0 ? (gint32)pid : -errno;
		close(sv[1]);
	} else {
		announce.pid = -errno;
	}
	if (pid > 0) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.space;
		msg.msg_controllen = sizeof(control.space);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &sv[0], sizeof(int));
	}
	/* unannounced, the spare would be unknown to the daemon */
	if (sendmsg(ESD_SPAWN_SERVER_FD, &msg, MSG_NOSIGNAL) < 0 && pid > 0)
		kill(pid, SIGKILL);
	if (pid > 0)
		close(sv[0]);
}

static void __attribute__((noreturn)) serve(pid_t daemon_pid)
{
	int alive[2];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != daemon_pid)
		_exit(127);
	prctl(PR_SET_NAME, "esd-spawn-srv");
	/* once for every supervisor it forks */
	reset_signals();
	/* nothing of the daemon's but the socket: not even its stdio */
	if (syscall(SYS_close_range, ESD_SPAWN_SERVER_FD + 1, ~0U, 0) < 0) {
		for (int fd = ESD_SPAWN_SERVER_FD + 1; fd < 65536; fd++)
			close(fd);
	}
	{
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0)
			_exit(127);
		for (int fd = 0; fd <= 2; fd++) {
			if (dup2(null, fd) < 0)
				_exit(127);
		}
		if (null > 2)
			close(null);
	}
	/* held open by this process only: its end of file tells spares the server died */
	if (pipe2(alive, O_CLOEXEC) < 0 || alive[0] != SERVER_ALIVE_R_FD ||
	    alive[1] != SERVER_ALIVE_W_FD)
		_exit(127);
	for (;;) {
		Job job = {.daemon_pid = daemon_pid, .sync_fd = -1};
		EsdSpawnServerHeader header;
		int sync[2] = {-1, -1};
		unsigned flags = 0;
		int bad = 0;
		pid_t pid;
		ssize_t n;

		n = receive(ESD_SPAWN_SERVER_FD, &job, &bad);
		/* the daemon closed its end, or is gone */
		if (n <= 0)
			_exit(0);
		if ((size_t)n == sizeof(header) && job.n_fds == 0) {
			memcpy(&header, server_message, sizeof(header));
			if (header.magic == ESD_SPAWN_SERVER_MAGIC &&
			    header.flags == ESD_SPAWN_SERVER_SPARE)
				make_spare(daemon_pid);
			continue;
		}
		if (bad || server_parse(&job, (size_t)n, job.n_fds) < 0) {
			errno = EINVAL;
			pid = -1;
			goto done;
		}
		if (job.flags & ESD_SPAWN_SERVER_PID_NAMESPACE) {
			/* as init of its namespace the child does not know its pid here */
			if (pipe2(sync, O_CLOEXEC) < 0) {
				pid = -1;
				goto done;
			}
			job.sync_fd = sync[0];
			flags |= CLONE_NEWPID;
		}
		pid = raw_clone(CLONE_PARENT | SIGCHLD | flags);
		if (pid == 0)
			server_child(&job);
	done:
		/* without a PID namespace the child reports its pid itself, at once */
		if (job.n_fds > 0 && pid < 0)
			report(job.fds[0], ESD_SPAWN_REPORT_FORK_FAILED, errno);
		else if (job.n_fds > 0 && sync[1] >= 0)
			report(job.fds[0], ESD_SPAWN_REPORT_PID, (int)pid);
		if (sync[1] >= 0) {
			if (pid > 0 && write(sync[1], "", 1) < 0)
				kill(pid, SIGKILL);
			close(sync[0]);
			close(sync[1]);
		}
		for (int i = 0; i < job.n_fds; i++)
			close(job.fds[i]);
		free(job.argv);
		free(job.envp);
		/* the next spare is forked from here: it gets no command's strings */
		memset(server_message, 0, (size_t)n);
	}
}

/*
 * The managed network, run by bwrap inside the sandbox as the command's
 * first step: `--managed-network CHANNEL PORTS DATAGRAMS -- PROGRAM ARGS`.
 * In the sandbox's network namespace it listens on 127.0.0.1 at each of
 * PORTS (comma-separated), binds DATAGRAMS UDP sockets to 127.0.0.1 at
 * ports of the kernel's choice, sends them all over CHANNEL to the daemon's
 * proxy (one byte, SCM_RIGHTS, the listeners first), closes its copies and
 * executes the program. CHANNEL `-` means no proxy to route to. Any
 * failure exits 101 before the program runs, with a message that names
 * the sandbox.
 */
#define MANAGED_MAX_PORTS     8
#define MANAGED_MAX_DATAGRAMS 16
#define MANAGED_DENIED	      101

static void __attribute__((noreturn)) managed_fail(const char *what, int errnum)
{
	if (errnum != 0)
		fprintf(stderr,
			"esd-supervise: managed network of the sandbox: %s: %s\n",
			what,
			strerror(errnum));
	else
		fprintf(stderr, "esd-supervise: managed network of the sandbox: %s\n", what);
	_exit(MANAGED_DENIED);
}

static void __attribute__((noreturn)) managed_network(const char *channel_arg,
						      const char *ports_arg,
						      const char *datagrams_arg,
						      char **argv)
{
	int listeners[MANAGED_MAX_PORTS + MANAGED_MAX_DATAGRAMS];
	long n_datagrams;
	char control[CMSG_SPACE(sizeof(listeners))];
	char byte = 0;
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control};
	struct cmsghdr *cmsg;
	int n = 0;
	int channel;
	char *end;

	if (strcmp(channel_arg, "-") == 0)
		managed_fail("enforceManagedNetwork without a network proxy to route to", 0);
	channel = (int)strtol(channel_arg, &end, 10);
	if (*end != '\0' || channel < 3)
		managed_fail("bad channel", EINVAL);
	for (const char *p = ports_arg; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		struct sockaddr_in addr = {.sin_family = AF_INET,
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		long port = strtol(p, &end, 10);
		int one = 1;
		int fd;

		if (end == p || port <= 0 || port > 65535 || n == MANAGED_MAX_PORTS)
			managed_fail("bad port list", EINVAL);
		addr.sin_port = htons((unsigned short)port);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			managed_fail("socket", errno);
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		    bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, 128) != 0)
			managed_fail("cannot listen on the loopback", errno);
		listeners[n++] = fd;
	}
	if (n == 0)
		managed_fail("no port", EINVAL);
	n_datagrams = strtol(datagrams_arg, &end, 10);
	if (end == datagrams_arg || *end != '\0' || n_datagrams < 0 ||
	    n_datagrams > MANAGED_MAX_DATAGRAMS)
		managed_fail("bad datagram count", EINVAL);
	for (long i = 0; i < n_datagrams; i++) {
		struct sockaddr_in addr = {.sin_family = AF_INET,
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			managed_fail("socket", errno);
		if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
			managed_fail("cannot bind a UDP relay on the loopback", errno);
		listeners[n++] = fd;
	}
	memset(control, 0, sizeof(control));
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(cmsg), listeners, sizeof(int) * (size_t)n);
	while (sendmsg(channel, &msg, MSG_NOSIGNAL) != 1) {
		if (errno != EINTR)
			managed_fail("cannot hand the listeners to the proxy", errno);
	}
	for (int i = 0; i < n; i++)
		close(listeners[i]);
	close(channel);
	execvp(argv[0], argv);
	fprintf(stderr, "esd-supervise: %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int
main(int argc, char **argv, char **envp)
{
	int netns_fd = -1;

	if (argc == 3 && strcmp(argv[1], "--server") == 0)
		serve((pid_t)strtol(argv[2], NULL, 10));
	if (argc >= 7 && strcmp(argv[1], "--managed-network") == 0 && strcmp(argv[5], "--") == 0)
		managed_network(argv[2], argv[3], argv[4], argv + 6);
	if (argc < 6) {
		fprintf(stderr,
			"esd-supervise: internal helper of execserverd, not to be run by hand\n");
		return 127;
	}
	reset_signals();
	for (const char *f = strchr(argv[1], ','); f != NULL && n_extra_fds < MAX_EXTRA_FDS;
	     f = strchr(f + 1, ','))
		extra_fds[n_extra_fds++] = (int)strtol(f + 1, NULL, 10);
	if (strchr(argv[1], 'N') != NULL)
		netns_fd = (int)strtol(strchr(argv[1], 'N') + 1, NULL, 10);
	supervise(strchr(argv[1], 't') != NULL,
		  strchr(argv[1], 'n') != NULL,
		  netns_fd,
		  (pid_t)strtol(argv[2], NULL, 10),
		  argv[3],
		  argv[4],
		  argv + 5,
		  envp);
}
