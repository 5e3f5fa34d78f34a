/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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
 * The supervisor is a small separate program (esd-supervise). By default
 * one instance of it, the spawn server, is exec-ed at the first spawn and
 * forks a supervisor for every command: a request on a socketpair costs
 * less than an exec. It forks with CLONE_PARENT, so every supervisor is
 * still the daemon's child (the daemon reaps it, its PR_SET_PDEATHSIG is
 * tied to the daemon), and it reports its pid first on the report pipe.
 * Ahead of the next request the server forks a spare supervisor the same
 * way (asked for once the command before was executed, so that this fork
 * does not delay its start) and announces its pid and its own socket:
 * without a PID namespace a request goes to the spare, which forks the
 * command at once, and the daemon neither waits for the server's fork nor
 * for a pid. A spare never used dies with the daemon or the server, and
 * the daemon, which has no child watch on it, kills and reaps it when it
 * drops it. A server that
 * died is started again at the next spawn. Requests too large
 * for one message, and every request when the server is disabled, exec
 * esd-supervise per command instead. Either way the exec happens in a
 * child of clone(CLONE_VM | CLONE_VFORK): the daemon's memory is never
 * copied, so a spawn costs the daemon neither page-table copies nor
 * copy-on-write faults.
 *
 * The server is per daemon, not per session: it holds no state of any
 * session (what a request needs comes with it), and a session's first
 * command should not pay an exec either.
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

/* the spawn server: its pid and the daemon's end of its socket; under the lock */
static GMutex esd_spawn_server_lock;
static gboolean esd_spawn_server_enabled = TRUE;
static GPid esd_spawn_server_pid = 0;
static gint esd_spawn_server_fd = -1;
/* a spare supervisor, ready for one request on its socket; or one asked for */
static GPid esd_spawn_spare_pid = 0;
static gint esd_spawn_spare_fd = -1;
static gboolean esd_spawn_spare_asked = FALSE;

/* how long the server may take to fork before it counts as dead */
#define ESD_SPAWN_SERVER_TIMEOUT_MS 10000

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

/* FALSE: exec esd-supervise per command, as without a spawn server */
void
esd_spawn_set_use_server(gboolean enabled)
{
	esd_spawn_server_enabled = enabled;
}

/* the supervisor's path: also the managed network's first step inside a sandbox */
const gchar *
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

/*
 * clone(CLONE_VM | CLONE_VFORK) of the supervisor program with @exec; all
 * signals blocked in the child. Returns the pid, or -1 with errno.
 */
static pid_t
esd_spawn_clone_exec(EsdSpawnExec *exec, gboolean pid_namespace)
{
	sigset_t all;
	sigset_t saved;
	pid_t pid;
	gint saved_errno;

	/* no handler of the daemon may run in the child; the supervisor keeps them blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	pid = clone(esd_spawn_exec_supervisor,
		    esd_spawn_stack + ESD_SPAWN_STACK_SIZE,
		    CLONE_VM | CLONE_VFORK | SIGCHLD | (pid_namespace ? CLONE_NEWPID : 0),
		    exec);
	saved_errno = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = saved_errno;
	return pid;
}

/*
 * With the lock held: a spare supervisor announced by the server, if any
 * (without waiting unless @wait). FALSE once nothing more is to come.
 */
static gboolean
esd_spawn_spare_receive(gboolean wait)
{
	EsdSpawnSpareAnnounce announce;
	union {
		struct cmsghdr header;
		gchar space[CMSG_SPACE(sizeof(gint))];
	} control;
	struct iovec iov = {&announce, sizeof(announce)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.space,
			     .msg_controllen = sizeof(control.space)};
	struct cmsghdr *cmsg;
	gint fd = -1;
	ssize_t n;

	if (!esd_spawn_spare_asked || esd_spawn_server_fd < 0)
		return FALSE;
	do
		n = recvmsg(esd_spawn_server_fd,
			    &msg,
			    MSG_CMSG_CLOEXEC | (wait ? 0 : MSG_DONTWAIT));
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return TRUE;
	esd_spawn_spare_asked = FALSE;
	cmsg = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (cmsg != NULL && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS &&
	    cmsg->cmsg_len == CMSG_LEN(sizeof(gint)))
		memcpy(&fd, CMSG_DATA(cmsg), sizeof(gint));
	if (n != (ssize_t)sizeof(announce) || announce.magic != ESD_SPAWN_SPARE_MAGIC ||
	    announce.pid <= 0 || fd < 0) {
		if (n > 0 && announce.pid < 0)
			g_debug("the spawn server has no spare: %s", g_strerror(-announce.pid));
		esd_spawn_close(&fd);
		return FALSE;
	}
	esd_spawn_spare_pid = announce.pid;
	esd_spawn_spare_fd = fd;
	return FALSE;
}

/* with the lock held: the spare, or what the server still owes, killed and reaped */
static void
esd_spawn_spare_drop(void)
{
	/* a spare announced but not yet received is one too */
	if (esd_spawn_spare_pid <= 0)
		esd_spawn_spare_receive(FALSE);
	if (esd_spawn_spare_pid > 0) {
		/* no child watch knows it: we reap it, and it dies at once */
		kill(esd_spawn_spare_pid, SIGKILL);
		while (waitpid(esd_spawn_spare_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	esd_spawn_spare_pid = 0;
	esd_spawn_spare_asked = FALSE;
	esd_spawn_close(&esd_spawn_spare_fd);
}

/* with the lock held: ask the server for a spare, unless one is there or on its way */
static void
esd_spawn_spare_ask(void)
{
	EsdSpawnServerHeader header = {.magic = ESD_SPAWN_SERVER_MAGIC,
				       .flags = ESD_SPAWN_SERVER_SPARE};

	if (esd_spawn_spare_pid > 0 || esd_spawn_spare_asked || esd_spawn_server_fd < 0)
		return;
	if (send(esd_spawn_server_fd, &header, sizeof(header), MSG_NOSIGNAL | MSG_DONTWAIT) ==
	    (ssize_t)sizeof(header))
		esd_spawn_spare_asked = TRUE;
}

/*
 * With the lock held: @msg to the spare, whose pid goes to @pid. FALSE
 * when there is none or it cannot take it; the server is asked for the
 * next one either way.
 */
static gboolean
esd_spawn_spare_use(struct msghdr *msg, pid_t *pid)
{
	ssize_t n;

	if (esd_spawn_spare_pid <= 0)
		esd_spawn_spare_receive(FALSE);
	if (esd_spawn_spare_pid <= 0) {
		esd_spawn_spare_ask();
		return FALSE;
	}
	do
		n = sendmsg(esd_spawn_spare_fd, msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		/* too large for it, as for the server: it stays for the next request */
		if (errno == EMSGSIZE || errno == ENOBUFS)
			return FALSE;
		esd_spawn_spare_drop();
		esd_spawn_spare_ask();
		return FALSE;
	}
	/* a supervisor from now on, reaped through the caller's child watch */
	*pid = esd_spawn_spare_pid;
	esd_spawn_spare_pid = 0;
	esd_spawn_close(&esd_spawn_spare_fd);
	return TRUE;
}

/*
 * The next spare, once a command taken by one was executed: forked while
 * the request waited, it would take the CPU the command's start needs.
 */
void
esd_spawn_refill_spare(void)
{
	g_mutex_lock(&esd_spawn_server_lock);
	if (esd_spawn_server_enabled && !esd_spawn_try_pid_namespace)
		esd_spawn_spare_ask();
	g_mutex_unlock(&esd_spawn_server_lock);
}

static void
esd_spawn_server_exited_cb(GPid pid, gint status, gpointer user_data)
{
	g_mutex_lock(&esd_spawn_server_lock);
	if (pid == esd_spawn_server_pid) {
		g_debug("the spawn server (pid %d) exited with status %d", (gint)pid, status);
		esd_spawn_spare_drop();
		esd_spawn_server_pid = 0;
		esd_spawn_close(&esd_spawn_server_fd);
	}
	g_mutex_unlock(&esd_spawn_server_lock);
	g_spawn_close_pid(pid);
}

/* with the lock held: forget a server that failed a request; it is reaped by its watch */
static void
esd_spawn_server_drop(void)
{
	if (esd_spawn_server_pid > 0)
		kill(esd_spawn_server_pid, SIGKILL);
	esd_spawn_spare_drop();
	esd_spawn_server_pid = 0;
	esd_spawn_close(&esd_spawn_server_fd);
}

/* with the lock held: the server running, started if need be */
static gboolean
esd_spawn_server_ensure(GError **error)
{
	g_autofree gchar *daemon_pid = NULL;
	gchar *argv[4];
	gchar *envp[] = {NULL};
	EsdSpawnExec exec = {.supervisor = esd_spawn_get_supervisor(), .landlock_fd = -1};
	gint sv[2];
	pid_t pid;

	if (esd_spawn_server_pid > 0)
		return TRUE;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot create a socket: %s",
			    g_strerror(errno));
		return FALSE;
	}
	daemon_pid = g_strdup_printf("%d", (gint)getpid());
	argv[0] = (gchar *)"esd-supervise";
	argv[1] = (gchar *)"--server";
	argv[2] = daemon_pid;
	argv[3] = NULL;
	exec.argv = argv;
	exec.envp = envp;
	/* fd 3 in the server; nothing else of ours, and an empty environment */
	exec.fds[0] = sv[1];
	exec.n_fds = 1;
	pid = esd_spawn_clone_exec(&exec, FALSE);
	close(sv[1]);
	if (pid < 0) {
		gint saved_errno = errno;
		close(sv[0]);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot start the spawn server: %s",
			    g_strerror(saved_errno));
		return FALSE;
	}
	esd_spawn_server_pid = pid;
	esd_spawn_server_fd = sv[0];
	esd_spawn_spare_asked = FALSE;
	g_child_watch_add(pid, esd_spawn_server_exited_cb, NULL);
	return TRUE;
}

typedef enum {
	ESD_SPAWN_SERVER_OK,
	ESD_SPAWN_SERVER_UNSUITABLE, /* too large for a message: exec directly */
	ESD_SPAWN_SERVER_DEAD,	     /* the server went away before it forked */
	ESD_SPAWN_SERVER_FAILED,     /* @error is set */
} EsdSpawnServerResult;

static gsize
esd_spawn_strv_size(gchar *const *strv, guint32 *count)
{
	gsize size = 0;

	*count = 0;
	for (guint i = 0; strv[i] != NULL; i++, (*count)++)
		size += strlen(strv[i]) + 1;
	return size;
}

static gchar *
esd_spawn_append(gchar *pos, const gchar *text)
{
	gsize len = strlen(text) + 1;
	memcpy(pos, text, len);
	return pos + len;
}

/*
 * One request to the server: @fds are the report pipe's write end, stdin,
 * stdout, stderr; @report the read end, where the supervisor's pid comes
 * first.
 */
static EsdSpawnServerResult
esd_spawn_via_server(const EsdSpawnRequest *request,
		     const gint fds[4],
		     gint *report_w,
		     gint report,
		     gboolean pid_namespace,
		     pid_t *pid,
		     gint *fork_errno,
		     GError **error)
{
	EsdSpawnServerHeader header = {.magic = ESD_SPAWN_SERVER_MAGIC};
	gint send_fds[ESD_SPAWN_SERVER_MAX_FDS];
	guint n_fds = 0;
	gsize size;
	g_autofree gchar *message = NULL;
	gchar *pos;
	guint32 argc;
	guint32 envc;
	gsize strings;
	struct pollfd pfd = {.fd = report, .events = POLLIN};
	EsdSpawnRecord record;
	ssize_t n;
	gint r;

	*fork_errno = 0;
	if (request->n_extra_fds + 6 > ESD_SPAWN_SERVER_MAX_FDS)
		return ESD_SPAWN_SERVER_UNSUITABLE;
	strings = strlen(request->cwd) + 1 + strlen(request->path) + 1;
	strings += esd_spawn_strv_size(request->argv, &argc);
	strings += esd_spawn_strv_size(request->envp, &envc);
	size = sizeof(header) + request->n_extra_fds * sizeof(gint32) + strings;
	if (size > ESD_SPAWN_SERVER_MAX_MESSAGE || argc == 0)
		return ESD_SPAWN_SERVER_UNSUITABLE;

	header.flags = (request->tty ? ESD_SPAWN_SERVER_TTY : 0) |
		       (pid_namespace ? ESD_SPAWN_SERVER_PID_NAMESPACE : 0);
	header.n_extra_fds = request->n_extra_fds;
	header.argc = argc;
	header.envc = envc;
	header.strings_len = (guint32)strings;
	for (guint i = 0; i < 4; i++)
		send_fds[n_fds++] = fds[i];
	if (request->landlock) {
		header.flags |= ESD_SPAWN_SERVER_LANDLOCK;
		send_fds[n_fds++] = request->landlock_fd;
	}
	if (request->netns) {
		header.flags |= ESD_SPAWN_SERVER_NETNS;
		send_fds[n_fds++] = request->netns_fd;
	}
	message = g_malloc(size);
	memcpy(message, &header, sizeof(header));
	pos = message + sizeof(header);
	for (guint i = 0; i < request->n_extra_fds; i++) {
		gint32 target = request->extra_fds[i];
		memcpy(pos, &target, sizeof(target));
		pos += sizeof(target);
		send_fds[n_fds++] = request->extra_fds[i];
	}
	pos = esd_spawn_append(pos, request->cwd);
	pos = esd_spawn_append(pos, request->path);
	for (guint i = 0; i < argc; i++)
		pos = esd_spawn_append(pos, request->argv[i]);
	for (guint i = 0; i < envc; i++)
		pos = esd_spawn_append(pos, request->envp[i]);
	g_assert(pos == message + size);

	{
		union {
			struct cmsghdr header;
			gchar space[CMSG_SPACE(sizeof(gint) * ESD_SPAWN_SERVER_MAX_FDS)];
		} control;
		struct iovec iov = {message, size};
		struct msghdr msg = {.msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = control.space,
				     .msg_controllen = CMSG_SPACE(sizeof(gint) * n_fds)};
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

		memset(&control, 0, sizeof(control));
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(gint) * n_fds);
		memcpy(CMSG_DATA(cmsg), send_fds, sizeof(gint) * n_fds);

		g_mutex_lock(&esd_spawn_server_lock);
		if (!esd_spawn_server_ensure(error)) {
			g_mutex_unlock(&esd_spawn_server_lock);
			return ESD_SPAWN_SERVER_FAILED;
		}
		/*
		 * a spare knows neither a PID namespace nor needs its pid reported;
		 * the next one is asked for by esd_spawn_refill_spare()
		 */
		if (!pid_namespace && esd_spawn_spare_use(&msg, pid)) {
			g_mutex_unlock(&esd_spawn_server_lock);
			esd_spawn_close(report_w);
			return ESD_SPAWN_SERVER_OK;
		}
		do
			n = sendmsg(esd_spawn_server_fd, &msg, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			gint saved_errno = errno;
			g_mutex_unlock(&esd_spawn_server_lock);
			if (saved_errno == EMSGSIZE || saved_errno == ENOBUFS)
				return ESD_SPAWN_SERVER_UNSUITABLE;
			g_mutex_lock(&esd_spawn_server_lock);
			esd_spawn_server_drop();
			g_mutex_unlock(&esd_spawn_server_lock);
			return ESD_SPAWN_SERVER_DEAD;
		}
		/* after the request: the server forks its supervisor first */
		if (!pid_namespace)
			esd_spawn_spare_ask();
		g_mutex_unlock(&esd_spawn_server_lock);
	}

	/* our copies go: end of file on the pipe then means nobody holds its write end */
	esd_spawn_close(report_w);
	do
		r = poll(&pfd, 1, ESD_SPAWN_SERVER_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		g_mutex_lock(&esd_spawn_server_lock);
		esd_spawn_server_drop();
		g_mutex_unlock(&esd_spawn_server_lock);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "the spawn server did not answer");
		return ESD_SPAWN_SERVER_FAILED;
	}
	do
		n = read(report, &record, sizeof(record));
	while (n < 0 && errno == EINTR);
	if (n == 0) {
		g_mutex_lock(&esd_spawn_server_lock);
		esd_spawn_server_drop();
		g_mutex_unlock(&esd_spawn_server_lock);
		return ESD_SPAWN_SERVER_DEAD;
	}
	if (n == (ssize_t)sizeof(record) && record.type == ESD_SPAWN_REPORT_PID &&
	    record.value > 0) {
		*pid = record.value;
		return ESD_SPAWN_SERVER_OK;
	}
	if (n == (ssize_t)sizeof(record) && record.type == ESD_SPAWN_REPORT_FORK_FAILED) {
		*fork_errno = record.value;
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot start a process: %s",
			    g_strerror(record.value));
		return ESD_SPAWN_SERVER_FAILED;
	}
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "the spawn server answered %zd bytes of type %d",
		    n,
		    n == (ssize_t)sizeof(record) ? record.type : 0);
	return ESD_SPAWN_SERVER_FAILED;
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
	g_autoptr(GPtrArray) argv = NULL;
	g_autoptr(GString) keep = NULL; /* ",N" per extra descriptor */
	gint report[2] = {-1, -1};
	gint in[2] = {-1, -1};
	gint out[2] = {-1, -1};
	gint err[2] = {-1, -1};
	gint master = -1;
	gint slave = -1;
	gint devnull = -1;
	gboolean pid_namespace = FALSE;
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
	for (guint i = 0; i < request->n_extra_fds; i++)
		g_return_val_if_fail(request->extra_fds[i] > 6, FALSE);
	g_return_val_if_fail(!request->netns || request->netns_fd > 6, FALSE);

	pid_namespace = esd_spawn_try_pid_namespace;
	/* a server that died is replaced once; a refused PID namespace is given up once */
	for (guint attempt = 0; esd_spawn_server_enabled && attempt < 3 && pid < 0; attempt++) {
		EsdSpawnServerResult r;
		gint fork_errno = 0;
		g_autoptr(GError) local_error = NULL;

		r = esd_spawn_via_server(request,
					 exec.fds,
					 &report[1],
					 report[0],
					 pid_namespace,
					 &pid,
					 &fork_errno,
					 &local_error);
		if (r == ESD_SPAWN_SERVER_OK)
			break;
		pid = -1;
		if (r == ESD_SPAWN_SERVER_UNSUITABLE)
			break;
		if (r == ESD_SPAWN_SERVER_FAILED && pid_namespace &&
		    (fork_errno == EPERM || fork_errno == EINVAL || fork_errno == ENOSPC ||
		     fork_errno == EUSERS)) {
			g_info("PID namespaces are unavailable (%s); supervising without one",
			       g_strerror(fork_errno));
			esd_spawn_try_pid_namespace = FALSE;
			pid_namespace = FALSE;
		} else if (r == ESD_SPAWN_SERVER_FAILED) {
			g_propagate_error(error, g_steal_pointer(&local_error));
			goto out;
		}
		/* the write end went with the request: a fresh pipe for the next one */
		if (report[1] < 0) {
			esd_spawn_close(&report[0]);
			if (!esd_spawn_pipe(report, error))
				goto out;
			exec.fds[0] = report[1];
		}
	}
	if (pid > 0)
		goto started;

	/* exec-ed per command */
	argv = g_ptr_array_new_with_free_func(g_free);
	keep = g_string_new(NULL);
	for (guint i = 0; i < request->n_extra_fds; i++) {
		exec.fds[4 + i] = request->extra_fds[i];
		g_string_append_printf(keep, ",%d", request->extra_fds[i]);
	}
	exec.n_fds = 4 + request->n_extra_fds;
	/* handed to the supervisor, but not kept for the command */
	if (request->netns) {
		exec.fds[exec.n_fds++] = request->netns_fd;
		g_string_append_printf(keep, "N%d", request->netns_fd);
	}
	g_ptr_array_add(argv, g_strdup("esd-supervise"));
	g_ptr_array_add(argv, NULL); /* flags, set below */
	g_ptr_array_add(argv, g_strdup_printf("%d", (gint)getpid()));
	g_ptr_array_add(argv, g_strdup(request->cwd));
	g_ptr_array_add(argv, g_strdup(request->path));
	for (guint i = 0; request->argv[i] != NULL; i++)
		g_ptr_array_add(argv, g_strdup(request->argv[i]));
	g_ptr_array_add(argv, NULL);

	for (guint attempt = 0; attempt < 2 && pid < 0; attempt++) {
		g_free(g_ptr_array_index(argv, 1));
		g_ptr_array_index(argv, 1) = g_strdup_printf("-%s%s%s",
							     request->tty ? "t" : "",
							     pid_namespace ? "n" : "",
							     keep->str);
		exec.argv = (gchar **)argv->pdata;
		pid = esd_spawn_clone_exec(&exec, pid_namespace);
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
	if (pid < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "cannot start a process: %s",
			    g_strerror(saved_errno));
		goto out;
	}

started:
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
