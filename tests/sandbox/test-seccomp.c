/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-seccomp.h"

/*
 * The exported program is applied by a forked child (as bwrap does before exec), which
 * then makes one call and reports its errno, 0 for success, in its exit status; a child
 * killed by a signal reports -signal. Where the kernel's own answer is predictable, the
 * same call also runs without the filter and must give a different result, so a check
 * cannot pass because the kernel refuses the call by itself.
 */

#define SECCOMP_TEST "/execserverd/sandbox/seccomp/"

#define CHILD_SETUP_FAILED 250 /* prctl() refused the program */
#define CHECK_BROKEN	   251 /* the check could not prepare its call */
#define CHECK_WRONG	   252 /* a call gave an unexpected answer */

typedef gint (*CheckFunc)(void);
typedef struct sock_fprog SockFprog;

typedef struct {
	const gchar *name;
	EsdSeccompFlags flags;
	CheckFunc func;
	gint expected;	   /* under the filter */
	gboolean baseline; /* without the filter the result differs */
} SeccompCase;

static gchar *
describe(gint result)
{
	if (result < 0)
		return g_strdup_printf("killed by %s", g_strsignal(-result));
	if (result == 0)
		return g_strdup("success");
	if (result == CHILD_SETUP_FAILED)
		return g_strdup("prctl() refused the program");
	if (result == CHECK_BROKEN)
		return g_strdup("the check could not prepare its call");
	if (result == CHECK_WRONG)
		return g_strdup("an unexpected answer, see stderr");
	return g_strdup_printf("%s (%d)", g_strerror(result), result);
}

/* the exported program, read back from the memfd */
static struct sock_fprog *
load_program(EsdSeccompFlags flags)
{
	g_autoptr(GError) error = NULL;
	struct sock_fprog *prog = g_new0(struct sock_fprog, 1);
	struct stat st;
	gint fd = esd_seccomp_build_fd(flags, &error);

	g_assert_no_error(error);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(fstat(fd, &st), ==, 0);
	g_assert_cmpint(st.st_size % sizeof(struct sock_filter), ==, 0);
	prog->len = st.st_size / sizeof(struct sock_filter);
	prog->filter = g_malloc(st.st_size);
	g_assert_cmpint(read(fd, prog->filter, st.st_size), ==, st.st_size);
	close(fd);
	return prog;
}

static void
free_program(struct sock_fprog *prog)
{
	g_free(prog->filter);
	g_free(prog);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SockFprog, free_program)

/* runs @func in a child, under @prog unless it is NULL */
static gint
run_in_child(const struct sock_fprog *prog, CheckFunc func)
{
	gint status = 0;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		if (prog != NULL && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
				     prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) != 0))
			_exit(CHILD_SETUP_FAILED);
		_exit(func());
	}
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

static gint
errno_of(long ret)
{
	return ret < 0 ? errno : 0;
}

/* a check that makes one call and answers its errno */
#define ERRNO_CHECK(name, call)                                                                    \
	static gint name(void)                                                                     \
	{                                                                                          \
		return errno_of(call);                                                             \
	}

/* closes what a successful socket() returned, keeping its errno otherwise */
static long
closed(long fd)
{
	if (fd >= 0)
		close(fd);
	return fd;
}

/* a pty slave that is the child's controlling terminal, so that the kernel itself would
 * let TIOCSTI through (or answer EIO where legacy TIOCSTI is off) */
static gint
controlling_pty(void)
{
	const gchar *name;
	gint master;
	gint slave;

	if (setsid() < 0)
		_exit(CHECK_BROKEN);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
		_exit(CHECK_BROKEN);
	name = ptsname(master);
	slave = name != NULL ? open(name, O_RDWR) : -1;
	if (slave < 0)
		_exit(CHECK_BROKEN);
	return slave;
}

/* terminals; the kernel reads the request as 32 bits and drops bit 32; a pty answers
 * TIOCLINUX (subcode 6, TIOCL_GETSHIFTSTATE) with ENOTTY */
ERRNO_CHECK(check_tiocsti, ioctl(controlling_pty(), TIOCSTI, " "))
ERRNO_CHECK(check_tiocsti_high_bits,
	    syscall(SYS_ioctl, controlling_pty(), (unsigned long)TIOCSTI | (1UL << 32), " "))
ERRNO_CHECK(check_tioclinux, ioctl(controlling_pty(), TIOCLINUX, "\x06"))

/* processes and namespaces; without the filter mount() looks the target up before it
 * checks permissions, clone3() finds the size below CLONE_ARGS_SIZE_VER0 */
ERRNO_CHECK(check_ptrace, ptrace(PTRACE_TRACEME, 0, NULL, NULL))
ERRNO_CHECK(check_mount, mount("none", "/nonexistent/esd-seccomp", "tmpfs", 0, NULL))
ERRNO_CHECK(check_fsopen, syscall(SYS_fsopen, "tmpfs", 0x7fffffff))
ERRNO_CHECK(check_clone3, syscall(SYS_clone3, NULL, (size_t)0))
ERRNO_CHECK(check_unshare_newuser, unshare(CLONE_NEWUSER))
ERRNO_CHECK(check_unshare_allowed, unshare(0) != 0 ? -1 : unshare(CLONE_FS | CLONE_FILES))
ERRNO_CHECK(check_setns, setns(-1, CLONE_NEWUSER))

static gint
check_clone_newuser(void)
{
	long pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	waitpid(pid, NULL, 0);
	return 0;
}

/* kernel attack surface; without the filter keyctl() answers EOPNOTSUPP, add_key() EFAULT */
ERRNO_CHECK(check_bpf, syscall(SYS_bpf, -1, NULL, 0))
ERRNO_CHECK(check_perf_event_open, syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0))
ERRNO_CHECK(check_keyctl, syscall(SYS_keyctl, 0x7fff, 0, 0, 0, 0))
ERRNO_CHECK(check_add_key, syscall(SYS_add_key, NULL, NULL, NULL, 0, 0))
ERRNO_CHECK(check_io_uring_setup, syscall(SYS_io_uring_setup, 0, NULL))

/* personality */
ERRNO_CHECK(check_personality_aslr, syscall(SYS_personality, PER_LINUX | ADDR_NO_RANDOMIZE))
ERRNO_CHECK(check_personality_query, personality(0xffffffff))

static gboolean
personality_denied(guint64 persona)
{
	if (syscall(SYS_personality, persona) < 0 && errno == EPERM)
		return TRUE;
	fprintf(stderr, "personality(0x%" G_GINT64_MODIFIER "x) was not refused\n", persona);
	return FALSE;
}

static gint
check_personality_values(void)
{
	const guint64 high = G_GUINT64_CONSTANT(1) << 32;
	const guint64 allowed[] = {PER_LINUX32, PER_LINUX, 0xffffffff};
	const guint64 denied[] = {PER_BSD, high, high | 8, high | G_MAXUINT32, G_MAXUINT64};

	for (guint i = 0; i < G_N_ELEMENTS(allowed); i++) {
		if (syscall(SYS_personality, allowed[i]) < 0)
			return errno;
	}
	for (guint i = 0; i < G_N_ELEMENTS(denied); i++) {
		if (!personality_denied(denied[i]))
			return CHECK_WRONG;
	}
	/* every single bit but 3, each with bit 3, and every value with one bit clear */
	for (guint bit = 0; bit < 32; bit++) {
		guint32 mask = 1u << bit;
		if ((bit != 3 && !personality_denied(mask)) ||
		    (bit != 3 && !personality_denied(mask | PER_LINUX32)) ||
		    !personality_denied(G_MAXUINT32 ^ mask))
			return CHECK_WRONG;
	}
	return 0;
}

/* sockets; the kernel reads the family as an int and drops bit 32 */
ERRNO_CHECK(check_socket_inet, closed(socket(AF_INET, SOCK_STREAM, 0)))
ERRNO_CHECK(check_socket_inet6, closed(socket(AF_INET6, SOCK_STREAM, 0)))
ERRNO_CHECK(check_socket_netlink, closed(socket(AF_NETLINK, SOCK_RAW, 0)))
ERRNO_CHECK(check_socket_packet, closed(socket(AF_PACKET, SOCK_RAW, 0)))
ERRNO_CHECK(check_socket_unix, closed(socket(AF_UNIX, SOCK_STREAM, 0)))
ERRNO_CHECK(check_socket_inet_high_bits,
	    closed(syscall(SYS_socket, (1UL << 32) | AF_INET, SOCK_STREAM, 0)))

static long
socketpair_unix(void)
{
	gint fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
		return -1;
	close(fds[1]);
	return closed(fds[0]);
}
ERRNO_CHECK(check_socketpair_unix, socketpair_unix())

ERRNO_CHECK(check_socket_inet_dgram, closed(socket(AF_INET, SOCK_DGRAM, 0)))
ERRNO_CHECK(check_socket_inet6_raw, closed(socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6)))
ERRNO_CHECK(check_socket_family_between, closed(socket(AF_AX25, SOCK_SEQPACKET, 0)))

/*
 * a socket of @type bound to 127.0.0.1 at a port of the kernel's, at @addr,
 * and an unbound one of the same type in @peer; FALSE (errno the filter's) if
 * either cannot be made
 */
static gboolean
loopback_pair(gint type, struct sockaddr_in *addr, gint *bound, gint *peer)
{
	socklen_t len = sizeof(*addr);

	*addr =
	    (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	*bound = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	*peer = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (*bound < 0 || *peer < 0)
		return FALSE;
	if (bind(*bound, (struct sockaddr *)addr, sizeof(*addr)) != 0 ||
	    (type == SOCK_STREAM && listen(*bound, 1) != 0) ||
	    getsockname(*bound, (struct sockaddr *)addr, &len) != 0)
		_exit(CHECK_BROKEN);
	return TRUE;
}

/* a loopback listener of the child's own and a client of it, as under the managed network */
static long
connect_inet_loopback(void)
{
	struct sockaddr_in addr;
	gint listener;
	gint fd;

	if (!loopback_pair(SOCK_STREAM, &addr, &listener, &fd))
		return -1;
	return connect(fd, (struct sockaddr *)&addr, sizeof(addr));
}
ERRNO_CHECK(check_connect_inet_loopback, connect_inet_loopback())

/* a path-named listener of the child's own, as a host service would have one */
static gint
path_listener(struct sockaddr_un *addr)
{
	gint fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	g_snprintf(addr->sun_path, sizeof(addr->sun_path), "/tmp/esd-seccomp-%d.sock", getpid());
	unlink(addr->sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) != 0 || listen(fd, 1) != 0)
		return -1;
	return fd;
}

static long
connect_path(void)
{
	struct sockaddr_un addr;
	gint listener = path_listener(&addr);
	gint fd;
	long r;

	if (listener < 0)
		_exit(CHECK_BROKEN);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		_exit(CHECK_BROKEN);
	r = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	unlink(addr.sun_path);
	return r;
}
ERRNO_CHECK(check_connect_unix_path, connect_path())

static long
connect_abstract(void)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	gint fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	gint listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len;

	len = offsetof(struct sockaddr_un, sun_path) + 1 +
	      g_snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "esd-seccomp-%d", getpid());
	if (fd < 0 || listener < 0 || bind(listener, (struct sockaddr *)&addr, len) != 0 ||
	    listen(listener, 1) != 0)
		_exit(CHECK_BROKEN);
	return connect(fd, (struct sockaddr *)&addr, len);
}
ERRNO_CHECK(check_connect_unix_abstract, connect_abstract())
ERRNO_CHECK(check_socket_unix_dgram, closed(socket(AF_UNIX, SOCK_DGRAM, 0)))
ERRNO_CHECK(check_socket_unix_dgram_flags,
	    closed(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)))
ERRNO_CHECK(check_socket_unix_raw, closed(socket(AF_UNIX, SOCK_RAW, 0)))
ERRNO_CHECK(check_socket_unix_seqpacket,
	    closed(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)))

static long
socketpair_dgram(void)
{
	gint fds[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) != 0)
		return -1;
	close(fds[1]);
	return closed(fds[0]);
}
ERRNO_CHECK(check_socketpair_unix_dgram, socketpair_dgram())

/* a stream pair still carries data and descriptors, as pipelines and job servers need */
static gint
check_socketpair_traffic(void)
{
	gchar control[CMSG_SPACE(sizeof(gint))] = {0};
	gchar byte = 'x';
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof(control)};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	gint fds[2];
	gint passed = STDERR_FILENO;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
		return errno;
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(gint));
	memcpy(CMSG_DATA(cmsg), &passed, sizeof(gint));
	if (sendmsg(fds[0], &msg, 0) != 1 || send(fds[0], "y", 1, 0) != 1 ||
	    sendto(fds[0], "z", 1, 0, NULL, 0) != 1)
		return errno;
	memset(control, 0, sizeof(control));
	msg.msg_controllen = sizeof(control);
	if (recvmsg(fds[1], &msg, 0) != 1 || byte != 'x' || CMSG_FIRSTHDR(&msg) == NULL)
		return CHECK_WRONG;
	memcpy(&passed, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(gint));
	close(passed);
	return 0;
}

/* a destination address is refused before the kernel looks at the socket */
static long
sendto_address(void)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/systemd/notify"};
	gint fds[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
		_exit(CHECK_BROKEN);
	return sendto(fds[0], "x", 1, 0, (struct sockaddr *)&addr, sizeof(addr));
}
ERRNO_CHECK(check_sendto_address, sendto_address())

/* a datagram to a UDP socket of the child's own on the loopback, as to a SOCKS5 relay */
static long
sendto_inet_loopback(void)
{
	struct sockaddr_in addr;
	gint relay;
	gint fd;
	gchar byte = 0;

	if (!loopback_pair(SOCK_DGRAM, &addr, &relay, &fd))
		return -1;
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&addr, sizeof(addr)) != 1)
		return -1;
	if (recv(relay, &byte, 1, 0) != 1 || byte != 'x')
		_exit(CHECK_WRONG);
	return 0;
}
ERRNO_CHECK(check_sendto_inet_loopback, sendto_inet_loopback())
/* ordinary work keeps going: files, fork, exec and threads (glibc's clone3 falls back) */
static gpointer
thread_func(gpointer data)
{
	return data;
}

static gint
check_ordinary(void)
{
	gchar buf[64];
	gint status = 0;
	pthread_t thread;
	gpointer ret = NULL;
	gint fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	pid_t pid;

	if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
		return errno;
	close(fd);
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return CHECK_WRONG;
	if (pthread_create(&thread, NULL, thread_func, buf) != 0 ||
	    pthread_join(thread, &ret) != 0 || ret != buf)
		return CHECK_WRONG;
	return 0;
}

#ifdef __x86_64__
/* a syscall of the x32 ABI: AUDIT_ARCH_X86_64 with bit 30 set in the number */
ERRNO_CHECK(check_x32, syscall(0x40000000 | SYS_getpid))

/* getpid through the i386 entry point: AUDIT_ARCH_I386 */
static gint
check_int80(void)
{
	long ret = 20;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory", "cc", "r8", "r9", "r10", "r11");
	return ret == getpid() ? 0 : CHECK_WRONG;
}
#endif

static void
test_seccomp_case(gconstpointer user_data)
{
	const SeccompCase *test_case = user_data;
	g_autoptr(SockFprog) prog = load_program(test_case->flags);
	g_autofree gchar *expected = describe(test_case->expected);
	g_autofree gchar *result = describe(run_in_child(prog, test_case->func));

	g_assert_cmpstr(result, ==, expected);
	if (test_case->baseline) {
		g_autofree gchar *unfiltered = describe(run_in_child(NULL, test_case->func));
		g_test_message("without the filter: %s", unfiltered);
		g_assert_cmpstr(unfiltered, !=, expected);
	}
}

#ifdef __x86_64__
static void
test_seccomp_i386(void)
{
	g_autoptr(SockFprog) prog = load_program(ESD_SECCOMP_FLAG_NONE);
	gint unfiltered = run_in_child(NULL, check_int80);
	g_autofree gchar *expected = describe(-SIGSYS);
	g_autofree gchar *result = NULL;

	if (unfiltered != 0) {
		g_autofree gchar *why = describe(unfiltered);
		g_autofree gchar *msg = g_strdup_printf("int 0x80 does not work here: %s", why);
		g_test_skip(msg);
		return;
	}
	result = describe(run_in_child(prog, check_int80));
	g_assert_cmpstr(result, ==, expected);
}
#endif

/* the table and the memfd */
static void
test_seccomp_rows(void)
{
	g_auto(GStrv) required = g_strsplit(
	    "ioctl ptrace personality mount clone3 clone unshare setns bpf io_uring_setup socket",
	    " ",
	    -1);
	gsize n_rows = 0;
	const EsdSeccompRow *rows = esd_seccomp_rows(&n_rows);

	g_assert_cmpuint(n_rows, >, g_strv_length(required));
	g_assert_true(esd_seccomp_rows(NULL) == rows);
	for (gsize i = 0; i < n_rows; i++) {
		const gchar *name = rows[i].syscall;
		g_assert_nonnull(name);
		g_assert_nonnull(rows[i].reason);
		g_assert_cmpstr(rows[i].reason, !=, "");
		/* unknown names are skipped when the filter is built, so catch typos here */
		if (seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name) < 0 &&
		    seccomp_syscall_resolve_name_arch(SCMP_ARCH_AARCH64, name) < 0)
			g_test_fail_printf("%s is not a system call on x86_64 or aarch64", name);
	}
	for (guint i = 0; required[i] != NULL; i++) {
		gboolean found = FALSE;
		for (gsize j = 0; j < n_rows && !found; j++)
			found = g_strcmp0(rows[j].syscall, required[i]) == 0;
		if (!found)
			g_test_fail_printf("no row for %s", required[i]);
	}
}

static void
test_seccomp_fd(void)
{
	const EsdSeccompFlags flags[] = {
	    ESD_SECCOMP_FLAG_NONE,
	    ESD_SECCOMP_NETWORK_RESTRICTED,
	    ESD_SECCOMP_NETWORK_RESTRICTED | ESD_SECCOMP_NETWORK_MANAGED,
	    ESD_SECCOMP_NETWORK_RESTRICTED | ESD_SECCOMP_NETWORK_MANAGED |
		ESD_SECCOMP_NETWORK_DATAGRAMS};
	goffset sizes[G_N_ELEMENTS(flags)];

	for (guint i = 0; i < G_N_ELEMENTS(flags); i++) {
		g_autoptr(GError) error = NULL;
		gint fd = esd_seccomp_build_fd(flags[i], &error);
		struct stat st;

		g_assert_no_error(error);
		g_assert_cmpint(fd, >=, 0);
		g_assert_cmpint(fcntl(fd, F_GET_SEALS),
				==,
				F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
		g_assert_cmpint(fcntl(fd, F_GETFD) & FD_CLOEXEC, ==, FD_CLOEXEC);
		g_assert_cmpint(lseek(fd, 0, SEEK_CUR), ==, 0);
		g_assert_cmpint(fstat(fd, &st), ==, 0);
		g_assert_cmpint(st.st_size, >, 0);
		g_assert_cmpint(st.st_size % sizeof(struct sock_filter), ==, 0);
		g_assert_cmpint(st.st_size / sizeof(struct sock_filter), <=, BPF_MAXINSNS);
		g_assert_cmpint(write(fd, "x", 1), ==, -1);
		g_assert_true(errno == EPERM || errno == EBADF);
		sizes[i] = st.st_size;
		close(fd);
	}
	/* the network rules add to the program, the managed ones replace some */
	g_assert_cmpint(sizes[1], >, sizes[0]);
	g_assert_cmpint(sizes[2], !=, sizes[1]);
	g_assert_cmpint(sizes[3], !=, sizes[2]);
}

static void
test_seccomp_invalid_flags(void)
{
	g_test_expect_message("esd-sandbox", G_LOG_LEVEL_CRITICAL, "*flags*");
	g_assert_cmpint(esd_seccomp_build_fd((EsdSeccompFlags)(1 << 7), NULL), ==, -1);
	g_test_assert_expected_messages();
}

/* end to end: bwrap loads the program before it executes the command */
static gchar *
run_bwrap(const gchar *bwrap, gint seccomp_fd, GError **error)
{
	const gchar *script = "grep Seccomp: /proc/self/status; "
			      "if unshare --user true 2>/dev/null; then echo unshare: allowed; "
			      "else echo unshare: refused; fi";
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
	    G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_autoptr(GSubprocess) proc = NULL;
	g_auto(GStrv) argv = NULL;
	g_autofree gchar *bwrap_quoted = g_shell_quote(bwrap);
	g_autofree gchar *script_quoted = g_shell_quote(script);
	g_autofree gchar *command = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	/* the child gets the program as fd 10, without close-on-exec */
	if (seccomp_fd >= 0)
		g_subprocess_launcher_take_fd(launcher, seccomp_fd, 10);
	command = g_strdup_printf("%s --unshare-user --unshare-pid --ro-bind / / --proc /proc "
				  "--dev /dev %s -- /bin/sh -c %s",
				  bwrap_quoted,
				  seccomp_fd >= 0 ? "--seccomp 10" : "",
				  script_quoted);
	if (!g_shell_parse_argv(command, NULL, &argv, error))
		return NULL;
	proc = g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv, error);
	if (proc == NULL)
		return NULL;
	if (!g_subprocess_communicate_utf8(proc, NULL, NULL, &out, &err, error))
		return NULL;
	if (!g_subprocess_get_if_exited(proc) || g_subprocess_get_exit_status(proc) != 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", err);
		return NULL;
	}
	return g_steal_pointer(&out);
}

static void
test_seccomp_bwrap(void)
{
	g_autofree gchar *bwrap = g_find_program_in_path("bwrap");
	g_autoptr(GError) error = NULL;
	g_autofree gchar *probe = NULL;
	g_autofree gchar *out = NULL;
	gint fd;

	if (bwrap == NULL) {
		g_test_skip("bwrap is not installed");
		return;
	}
	/* the same sandbox without the filter tells whether bwrap works here at all */
	probe = run_bwrap(bwrap, -1, &error);
	if (probe == NULL) {
		g_autofree gchar *msg = g_strdup_printf("bwrap cannot run: %s", error->message);
		g_test_skip(msg);
		return;
	}
	g_test_message("without the filter: %s", g_strdelimit(probe, "\n", ' '));

	fd = esd_seccomp_build_fd(ESD_SECCOMP_FLAG_NONE, &error);
	g_assert_no_error(error);
	out = run_bwrap(bwrap, fd, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(out, ==, "Seccomp:\t2\nunshare: refused\n");
}

#define NET	ESD_SECCOMP_NETWORK_RESTRICTED
#define MANAGED ESD_SECCOMP_NETWORK_MANAGED
#define DGRAM	ESD_SECCOMP_NETWORK_DATAGRAMS
static const SeccompCase seccomp_cases[] = {
    {"tiocsti", 0, check_tiocsti, EPERM, TRUE},
    {"tiocsti-high-bits", 0, check_tiocsti_high_bits, EPERM, TRUE},
    {"tioclinux", 0, check_tioclinux, EPERM, TRUE},
    {"ptrace", 0, check_ptrace, EPERM, FALSE},
    {"mount", 0, check_mount, EPERM, TRUE},
    {"fsopen", 0, check_fsopen, ENOSYS, TRUE},
    {"clone3", 0, check_clone3, ENOSYS, TRUE},
    {"clone-newuser", 0, check_clone_newuser, EPERM, FALSE},
    {"unshare-newuser", 0, check_unshare_newuser, EPERM, FALSE},
    {"unshare-allowed", 0, check_unshare_allowed, 0, FALSE},
    {"setns", 0, check_setns, EPERM, TRUE},
    {"bpf", 0, check_bpf, EPERM, FALSE},
    {"perf-event-open", 0, check_perf_event_open, EPERM, FALSE},
    {"keyctl", 0, check_keyctl, EPERM, TRUE},
    {"add-key", 0, check_add_key, EPERM, TRUE},
    {"io-uring-setup", 0, check_io_uring_setup, EPERM, FALSE},
    {"personality-aslr", 0, check_personality_aslr, EPERM, TRUE},
    {"personality-query", 0, check_personality_query, 0, FALSE},
    {"personality-values", 0, check_personality_values, 0, FALSE},
    {"ordinary-calls", 0, check_ordinary, 0, FALSE},
#ifdef __x86_64__
    {"x32", 0, check_x32, -SIGSYS, TRUE},
#endif
    {"network/open/inet", 0, check_socket_inet, 0, FALSE},
    {"network/open/netlink", 0, check_socket_netlink, 0, FALSE},
    {"network/restricted/inet", NET, check_socket_inet, EAFNOSUPPORT, TRUE},
    {"network/restricted/inet6", NET, check_socket_inet6, EAFNOSUPPORT, FALSE},
    {"network/restricted/netlink", NET, check_socket_netlink, EAFNOSUPPORT, TRUE},
    {"network/restricted/packet", NET, check_socket_packet, EAFNOSUPPORT, FALSE},
    {"network/restricted/inet-high-bits", NET, check_socket_inet_high_bits, EAFNOSUPPORT, TRUE},
    {"network/restricted/unix", NET, check_socket_unix, 0, FALSE},
    {"network/restricted/socketpair-unix", NET, check_socketpair_unix, 0, FALSE},
    {"network/restricted/ordinary-calls", NET, check_ordinary, 0, FALSE},
    {"network/restricted/connect-unix-path", NET, check_connect_unix_path, EPERM, TRUE},
    {"network/restricted/connect-unix-abstract", NET, check_connect_unix_abstract, EPERM, TRUE},
    {"network/restricted/unix-dgram", NET, check_socket_unix_dgram, EPERM, TRUE},
    {"network/restricted/unix-dgram-flags", NET, check_socket_unix_dgram_flags, EPERM, TRUE},
    {"network/restricted/unix-raw", NET, check_socket_unix_raw, EPERM, FALSE},
    {"network/restricted/unix-seqpacket", NET, check_socket_unix_seqpacket, 0, FALSE},
    {"network/restricted/socketpair-dgram", NET, check_socketpair_unix_dgram, EPERM, TRUE},
    {"network/restricted/socketpair-traffic", NET, check_socketpair_traffic, 0, FALSE},
    {"network/restricted/sendto-address", NET, check_sendto_address, EPERM, TRUE},
    {"network/managed/inet", NET | MANAGED, check_socket_inet, 0, FALSE},
    {"network/managed/inet6", NET | MANAGED, check_socket_inet6, 0, FALSE},
    {"network/managed/connect-inet", NET | MANAGED, check_connect_inet_loopback, 0, FALSE},
    {"network/managed/inet-dgram", NET | MANAGED, check_socket_inet_dgram, EPERM, TRUE},
    {"network/managed/inet6-raw", NET | MANAGED, check_socket_inet6_raw, EPERM, FALSE},
    {"network/managed/unix", NET | MANAGED, check_socket_unix, EAFNOSUPPORT, TRUE},
    {"network/managed/unix-dgram", NET | MANAGED, check_socket_unix_dgram, EAFNOSUPPORT, TRUE},
    {"network/managed/netlink", NET | MANAGED, check_socket_netlink, EAFNOSUPPORT, TRUE},
    {"network/managed/packet", NET | MANAGED, check_socket_packet, EAFNOSUPPORT, FALSE},
    {"network/managed/between", NET | MANAGED, check_socket_family_between, EAFNOSUPPORT, FALSE},
    {"network/managed/inet-high-bits",
     NET | MANAGED,
     check_socket_inet_high_bits,
     EAFNOSUPPORT,
     TRUE},
    {"network/managed/socketpair-unix", NET | MANAGED, check_socketpair_unix, 0, FALSE},
    {"network/managed/socketpair-dgram", NET | MANAGED, check_socketpair_unix_dgram, EPERM, TRUE},
    {"network/managed/socketpair-traffic", NET | MANAGED, check_socketpair_traffic, 0, FALSE},
    {"network/managed/sendto-address", NET | MANAGED, check_sendto_address, EPERM, TRUE},
    {"network/managed/setns", NET | MANAGED, check_setns, EPERM, TRUE},
    {"network/managed/ordinary-calls", NET | MANAGED, check_ordinary, 0, FALSE},
    {"network/managed-udp/inet", NET | MANAGED | DGRAM, check_socket_inet, 0, FALSE},
    {"network/managed-udp/inet-dgram", NET | MANAGED | DGRAM, check_socket_inet_dgram, 0, FALSE},
    {"network/managed-udp/sendto-inet",
     NET | MANAGED | DGRAM,
     check_sendto_inet_loopback,
     0,
     FALSE},
    {"network/managed-udp/inet6-raw", NET | MANAGED | DGRAM, check_socket_inet6_raw, EPERM, FALSE},
    {"network/managed-udp/unix", NET | MANAGED | DGRAM, check_socket_unix, EAFNOSUPPORT, TRUE},
    {"network/managed-udp/unix-dgram",
     NET | MANAGED | DGRAM,
     check_socket_unix_dgram,
     EAFNOSUPPORT,
     TRUE},
    {"network/managed-udp/socketpair-dgram",
     NET | MANAGED | DGRAM,
     check_socketpair_unix_dgram,
     EPERM,
     TRUE},
    {"network/managed-udp/setns", NET | MANAGED | DGRAM, check_setns, EPERM, TRUE},
    {"network/managed/sendto-inet", NET | MANAGED, check_sendto_inet_loopback, EPERM, TRUE},
    {"network/open/connect-unix-path", 0, check_connect_unix_path, 0, FALSE},
    {"network/open/unix-dgram", 0, check_socket_unix_dgram, 0, FALSE},
};

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add_func(SECCOMP_TEST "rows", test_seccomp_rows);
	g_test_add_func(SECCOMP_TEST "fd", test_seccomp_fd);
	g_test_add_func(SECCOMP_TEST "invalid-flags", test_seccomp_invalid_flags);
	for (guint i = 0; i < G_N_ELEMENTS(seccomp_cases); i++) {
		g_autofree gchar *path = g_strconcat(SECCOMP_TEST, seccomp_cases[i].name, NULL);
		g_test_add_data_func(path, &seccomp_cases[i], test_seccomp_case);
	}
#ifdef __x86_64__
	g_test_add_func(SECCOMP_TEST "i386", test_seccomp_i386);
#endif
	g_test_add_func(SECCOMP_TEST "bwrap", test_seccomp_bwrap);
	return g_test_run();
}
