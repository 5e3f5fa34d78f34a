/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
/*
 * The supervision floor of a spawn: what starting /bin/true costs when a
 * supervisor that keeps today's guarantees stands between the daemon and
 * the command, with no JSON, no transport and no main loop in the way.
 *
 *   cc -O2 -o bench-spawn-floor scripts/bench-spawn-floor.c
 *   ./bench-spawn-floor [N]
 *
 * Alternating, N times each (default 300), it times:
 *   posix_spawn  posix_spawn() of /bin/true and waitpid(), as
 *                ../shared/bench's floor_posix_spawn does;
 *   supervised   a spare supervisor forked ahead of time (a child subreaper
 *                with PR_SET_PDEATHSIG) gets the request and the command's
 *                report pipe, stdout and stderr over a SOCK_SEQPACKET
 *                socket (SCM_RIGHTS), vforks /bin/true into its own
 *                session with those as stdio, reports the exec, reaps
 *                everything below it and reports the exit; the "daemon"
 *                here stops the clock once it has the exit record and the
 *                end of both output pipes, as execserverd sends
 *                `process/closed` then. The next spare is forked after
 *                the clock stops, as execserverd forks it off the path.
 * Prints the median and 90th percentile of each in microseconds and their
 * ratio. Not a test: nothing here passes or fails.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static char *const ARGV[] = {"/bin/true", NULL};

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double
time_posix_spawn(void)
{
	double t0 = now_us();
	pid_t pid;
	int status;

	if (posix_spawn(&pid, ARGV[0], NULL, NULL, ARGV, environ) != 0) {
		perror("posix_spawn");
		exit(1);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return now_us() - t0;
}

/* the spare: one request on @sock, then supervise that command and exit */
static void __attribute__((noreturn)) spare(int sock, pid_t daemon_pid)
{
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(3 * sizeof(int))];
	} control;
	char request[64];
	struct iovec iov = {request, sizeof request};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.space,
			     .msg_controllen = sizeof control.space};
	int fds[3], status, code = 0;
	pid_t pid;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != daemon_pid)
		_exit(127);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) <= 0 || CMSG_FIRSTHDR(&msg) == NULL)
		_exit(127);
	memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof fds);
	close(sock);
	pid = vfork();
	if (pid == 0) {
		setsid();
		if (dup2(fds[1], 1) < 0 || dup2(fds[2], 2) < 0)
			_exit(127);
		syscall(SYS_close_range, 3, ~0U, 0);
		execve(ARGV[0], ARGV, environ);
		_exit(127);
	}
	close(fds[1]);
	close(fds[2]);
	/* the exec record, then everything below reaped, then the exit record */
	if (write(fds[0], &pid, sizeof pid) < 0)
		_exit(127);
	for (;;) {
		pid_t got = waitpid(-1, &status, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		if (got == pid)
			code = status;
	}
	if (write(fds[0], &code, sizeof code) < 0)
		_exit(127);
	_exit(0);
}

typedef struct {
	pid_t pid;
	int sock;
} Spare;

static Spare
fork_spare(void)
{
	int sv[2];
	Spare s;
	pid_t daemon_pid = getpid();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		exit(1);
	}
	s.pid = fork();
	if (s.pid == 0) {
		close(sv[0]);
		spare(sv[1], daemon_pid);
	}
	close(sv[1]);
	s.sock = sv[0];
	return s;
}

static double
time_supervised(Spare *s)
{
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(3 * sizeof(int))];
	} control;
	char request[] = "/bin/true";
	struct iovec iov = {request, sizeof request};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.space,
			     .msg_controllen = sizeof control.space};
	int report[2], out[2], err[2], theirs[3];
	struct pollfd pfd[3];
	int open_fds = 3, got = 0, status;
	char buf[256];
	double t0 = now_us(), dt;

	if (pipe2(report, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(err, O_CLOEXEC) < 0) {
		perror("pipe2");
		exit(1);
	}
	theirs[0] = report[1];
	theirs[1] = out[1];
	theirs[2] = err[1];
	memset(&control, 0, sizeof control);
	CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof theirs);
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), theirs, sizeof theirs);
	if (sendmsg(s->sock, &msg, MSG_NOSIGNAL) < 0) {
		perror("sendmsg");
		exit(1);
	}
	for (int i = 0; i < 3; i++)
		close(theirs[i]);
	pfd[0] = (struct pollfd){.fd = report[0], .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = out[0], .events = POLLIN};
	pfd[2] = (struct pollfd){.fd = err[0], .events = POLLIN};
	/* both records read and both output pipes at their end */
	while (open_fds > 0) {
		if (poll(pfd, 3, -1) < 0 && errno != EINTR) {
			perror("poll");
			exit(1);
		}
		for (int i = 0; i < 3; i++) {
			ssize_t n;
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			n = read(pfd[i].fd, buf, sizeof buf);
			if (n > 0 && i == 0)
				got += (int)n;
			if (n <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
	}
	dt = now_us() - t0;
	if (got != 2 * (int)sizeof(int)) {
		fprintf(stderr, "bench-spawn-floor: short report (%d bytes)\n", got);
		exit(1);
	}
	/* off the clock: the supervisor's own exit, and the next spare */
	close(s->sock);
	while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
		;
	*s = fork_spare();
	return dt;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double
pct(double *v, int n, int p)
{
	int i = (int)((double)p / 100 * (n - 1) + 0.5);
	return v[i];
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	double *a, *b;
	Spare s;

	if (n < 1)
		n = 300;
	a = calloc((size_t)n, sizeof *a);
	b = calloc((size_t)n, sizeof *b);
	if (a == NULL || b == NULL)
		return 1;
	s = fork_spare();
	for (int i = 0; i < 20; i++) {
		time_posix_spawn();
		time_supervised(&s);
	}
	for (int i = 0; i < n; i++) {
		if (i % 2 == 0) {
			a[i] = time_posix_spawn();
			b[i] = time_supervised(&s);
		} else {
			b[i] = time_supervised(&s);
			a[i] = time_posix_spawn();
		}
	}
	qsort(a, (size_t)n, sizeof *a, cmp);
	qsort(b, (size_t)n, sizeof *b, cmp);
	printf("posix_spawn  p50 %7.1f us  p90 %7.1f us\n", pct(a, n, 50), pct(a, n, 90));
	printf("supervised   p50 %7.1f us  p90 %7.1f us\n", pct(b, n, 50), pct(b, n, 90));
	printf("ratio        %.2f\n", pct(b, n, 50) / pct(a, n, 50));
	close(s.sock);
	waitpid(s.pid, NULL, 0);
	free(a);
	free(b);
	return 0;
}
