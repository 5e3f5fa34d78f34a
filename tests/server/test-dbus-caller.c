/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <execrpc.h>

#include "esd-dbus-caller.h"

/*
 * Identification of D-Bus callers from GetConnectionCredentials: what the
 * bus can hand over (pid, pidfd, uid, label) and how a caller that left, or
 * a pid that now belongs to another process, is refused. Sandboxed callers
 * themselves are tested with a real bus and bubblewrap in tests/dbus.
 */

#define CALLER_TEST "/execserverd/server/dbus-caller/"

static GVariant *
credentials_new(guint32 uid, guint32 pid, gint32 process_fd, const gchar *label)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&builder, "{sv}", "UnixUserID", g_variant_new_uint32(uid));
	if (pid != 0)
		g_variant_builder_add(&builder, "{sv}", "ProcessID", g_variant_new_uint32(pid));
	if (process_fd >= 0)
		g_variant_builder_add(&builder,
				      "{sv}",
				      "ProcessFD",
				      g_variant_new_handle(process_fd));
	if (label != NULL)
		g_variant_builder_add(&builder,
				      "{sv}",
				      "LinuxSecurityLabel",
				      g_variant_new_bytestring(label));
	return g_variant_ref_sink(g_variant_builder_end(&builder));
}

/* a child that has exited and been reaped: its pid is free */
static pid_t
spawn_and_reap(void)
{
	pid_t pid = fork();
	gint status = 0;

	g_assert_cmpint(pid, >=, 0);
	if (pid == 0)
		_exit(0);
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	return pid;
}

/* a child that sleeps until killed */
static pid_t
spawn_sleeper(void)
{
	pid_t pid = fork();

	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		/* not left behind by a failing test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	return pid;
}

static void
kill_and_reap(pid_t pid)
{
	gint status = 0;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static void
test_host(void)
{
	g_autoptr(GVariant) credentials = credentials_new(geteuid(), getpid(), -1, "unconfined");
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdDBusCaller) caller =
	    esd_dbus_caller_identify(credentials, NULL, esd_dbus_caller_now(), &error);
	g_autofree gchar *expected = g_strdup_printf("pid %u", (guint)getpid());
	g_autofree gchar *who = NULL;

	g_assert_no_error(error);
	g_assert_nonnull(caller);
	g_assert_cmpint(caller->kind, ==, ESD_DBUS_CALLER_HOST);
	g_assert_cmpuint(caller->pid, ==, getpid());
	g_assert_null(caller->app_id);
	who = esd_dbus_caller_describe(caller);
	g_assert_cmpstr(who, ==, expected);
}

/* a ProcessFD names the process; the ProcessID beside it is not used */
static void
test_process_fd(void)
{
	gint pidfd = pidfd_open(getpid(), 0);
	g_autoptr(GUnixFDList) fds = g_unix_fd_list_new();
	g_autoptr(GVariant) credentials = NULL;
	g_autoptr(GVariant) bad_index = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdDBusCaller) caller = NULL;
	gint index;

	if (pidfd < 0 && errno == ENOSYS) {
		g_test_skip("no pidfd_open() here (kernel before 5.3, or valgrind)");
		return;
	}
	g_assert_cmpint(pidfd, >=, 0);
	index = g_unix_fd_list_append(fds, pidfd, &error);
	close(pidfd);
	g_assert_no_error(error);
	/* the pid comes from the pidfd, not from ProcessID */
	credentials = credentials_new(geteuid(), 1, index, NULL);
	caller = esd_dbus_caller_identify(credentials, fds, esd_dbus_caller_now(), &error);
	g_assert_no_error(error);
	g_assert_nonnull(caller);
	g_assert_cmpuint(caller->pid, ==, getpid());
	g_assert_cmpint(caller->kind, ==, ESD_DBUS_CALLER_HOST);

	bad_index = credentials_new(geteuid(), getpid(), index + 1, NULL);
	g_assert_null(esd_dbus_caller_identify(bad_index, fds, esd_dbus_caller_now(), &error));
	g_assert_nonnull(strstr(error->message, "not among the descriptors"));
}

/* the pidfd of a caller that exited: refused even though its pid was given */
static void
test_process_fd_exited(void)
{
	pid_t pid = spawn_sleeper();
	gint pidfd = pidfd_open(pid, 0);
	g_autoptr(GUnixFDList) fds = g_unix_fd_list_new();
	g_autoptr(GVariant) credentials = NULL;
	g_autoptr(GError) error = NULL;
	gint index;

	if (pidfd < 0 && errno == ENOSYS) {
		kill_and_reap(pid);
		g_test_skip("no pidfd_open() here (kernel before 5.3, or valgrind)");
		return;
	}
	g_assert_cmpint(pidfd, >=, 0);
	index = g_unix_fd_list_append(fds, pidfd, &error);
	close(pidfd);
	kill_and_reap(pid);
	credentials = credentials_new(geteuid(), getpid(), index, NULL);
	g_assert_null(esd_dbus_caller_identify(credentials, fds, esd_dbus_caller_now(), &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, "has exited"));
}

/* a pid with no process behind it any more: fail closed */
static void
test_pid_gone(void)
{
	pid_t pid = spawn_and_reap();
	g_autoptr(GVariant) credentials = credentials_new(geteuid(), (guint32)pid, -1, NULL);
	g_autoptr(GError) error = NULL;

	g_assert_null(esd_dbus_caller_identify(credentials, NULL, esd_dbus_caller_now(), &error));
	g_assert_nonnull(error);
	g_assert_nonnull(strstr(error->message, "has exited"));
}

/* a process started after the call is not the caller, whose pid it reuses */
static void
test_pid_reused(void)
{
	gint64 called_at = esd_dbus_caller_now();
	g_autoptr(GVariant) credentials = NULL;
	g_autoptr(GError) error = NULL;
	pid_t pid;

	/* start times count in ticks of 10 ms */
	g_usleep(50 * 1000);
	pid = spawn_sleeper();
	credentials = credentials_new(geteuid(), (guint32)pid, -1, NULL);
	g_assert_null(esd_dbus_caller_identify(credentials, NULL, called_at, &error));
	kill_and_reap(pid);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, "belongs to a later process"));
}

/* the bus says another uid: the process at that pid is not the one that connected */
static void
test_pid_other_user(void)
{
	g_autoptr(GVariant) credentials = credentials_new(geteuid() + 1, getpid(), -1, NULL);
	g_autoptr(GError) error = NULL;

	g_assert_null(esd_dbus_caller_identify(credentials, NULL, esd_dbus_caller_now(), &error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, "another user's process"));
}

/* the label the bus recorded at connection time marks a snap */
static void
test_snap_label(void)
{
	g_autoptr(GVariant) credentials =
	    credentials_new(geteuid(), getpid(), -1, "snap.firefox.firefox (enforce)");
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdDBusCaller) caller =
	    esd_dbus_caller_identify(credentials, NULL, esd_dbus_caller_now(), &error);
	g_autofree gchar *who = NULL;

	g_assert_no_error(error);
	g_assert_cmpint(caller->kind, ==, ESD_DBUS_CALLER_SNAP);
	g_assert_cmpstr(caller->app_id, ==, "firefox");
	who = esd_dbus_caller_describe(caller);
	g_assert_true(g_str_has_prefix(who, "snap firefox (pid "));
}

static void
test_no_credentials(void)
{
	g_autoptr(GVariant) empty = g_variant_ref_sink(g_variant_new("a{sv}", NULL));
	g_autoptr(GVariant) no_pid = credentials_new(geteuid(), 0, -1, NULL);
	g_autoptr(GError) error = NULL;

	g_assert_null(esd_dbus_caller_identify(empty, NULL, esd_dbus_caller_now(), &error));
	g_assert_nonnull(strstr(error->message, "uid"));
	g_clear_error(&error);
	g_assert_null(esd_dbus_caller_identify(no_pid, NULL, esd_dbus_caller_now(), &error));
	g_assert_nonnull(strstr(error->message, "does not know the caller's process"));
}

typedef struct {
	const gchar *text;
	const gchar *snap; /* NULL: not a snap */
} SnapCase;

static const SnapCase cgroup_cases[] = {
    {"0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
     "snap.firefox.firefox-1234.scope\n",
     "firefox"},
    {"12:freezer:/snap.hello-world\n1:name=systemd:/user.slice\n", "hello-world"},
    {"1:name=systemd:/user.slice/user-1000.slice/snap.code.code.abcd.scope\n0::/\n", "code"},
    /* another controller's path does not count */
    {"4:memory:/snap.fake.app\n0::/user.slice\n", NULL},
    {"0::/user.slice/user-1000.slice/session-2.scope\n", NULL},
    {"0::/user.slice/notsnap.foo.scope\n", NULL},
    {"", NULL},
    {"garbage", NULL},
};

static const SnapCase label_cases[] = {
    {"snap.firefox.firefox (enforce)", "firefox"},
    {"snap.x", "x"},
    {"unconfined", NULL},
    {"/usr/bin/evince (enforce)", NULL},
    {"system_u:system_r:unconfined_t:s0", NULL},
};

static void
test_snap_parsers(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(cgroup_cases); i++) {
		g_autofree gchar *name = esd_dbus_caller_snap_from_cgroup(cgroup_cases[i].text);
		g_assert_cmpstr(name, ==, cgroup_cases[i].snap);
	}
	for (guint i = 0; i < G_N_ELEMENTS(label_cases); i++) {
		g_autofree gchar *name = esd_dbus_caller_snap_from_label(label_cases[i].text);
		g_assert_cmpstr(name, ==, label_cases[i].snap);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func(CALLER_TEST "host", test_host);
	g_test_add_func(CALLER_TEST "process-fd", test_process_fd);
	g_test_add_func(CALLER_TEST "process-fd-exited", test_process_fd_exited);
	g_test_add_func(CALLER_TEST "pid-gone", test_pid_gone);
	g_test_add_func(CALLER_TEST "pid-reused", test_pid_reused);
	g_test_add_func(CALLER_TEST "pid-other-user", test_pid_other_user);
	g_test_add_func(CALLER_TEST "snap-label", test_snap_label);
	g_test_add_func(CALLER_TEST "no-credentials", test_no_credentials);
	g_test_add_func(CALLER_TEST "snap-parsers", test_snap_parsers);
	return g_test_run();
}
