/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-test-leftovers.h"
#include "esd-test-utils.h"

/*
 * The check every process test ends with must see what a test leaves
 * behind: a detached process carrying the marker, the unreaped zombie of
 * one, and it must fail the test when they stay. This process is a child
 * subreaper, so that what the scripts below detach comes back to it and is
 * reaped here, whatever init does.
 */

#define LEFTOVERS_TEST "/execserverd/process-leftovers/"
#define MARK_VAR       "ESD_LTEST_MARK"

static guint test_counter = 0;

static gchar *
new_mark(void)
{
	return g_strdup_printf("%d-%u", getpid(), ++test_counter);
}

/* runs @script with the marker and returns its output, once it has exited */
static gchar *
run_marked(const gchar *mark, const gchar *script)
{
	g_autofree gchar *entry = g_strdup_printf("%s=%s", MARK_VAR, mark);
	const gchar *argv[] = {"/bin/sh", "-c", script, NULL};
	const gchar *envp[] = {"PATH=/usr/bin:/bin", entry, NULL};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out = NULL;
	gint status = 0;

	g_spawn_sync(NULL,
		     (gchar **)argv,
		     (gchar **)envp,
		     G_SPAWN_DEFAULT,
		     NULL,
		     NULL,
		     &out,
		     NULL,
		     &status,
		     &error);
	g_assert_no_error(error);
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	return g_strchomp(g_steal_pointer(&out));
}

/* a `sleep 300` with the marker in a session of its own, whose parent has exited */
static gint
start_detached(const gchar *mark)
{
	g_autofree gchar *out =
	    run_marked(mark, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!");
	gint pid = atoi(out);
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

	g_assert_cmpint(pid, >, 0);
	/* until setsid has made its session and become the sleep */
	for (;;) {
		g_autofree gchar *path = g_strdup_printf("/proc/%d/cmdline", pid);
		g_autofree gchar *cmdline = NULL;
		gsize len = 0;

		if (getsid(pid) == pid && g_file_get_contents(path, &cmdline, &len, NULL) &&
		    len == sizeof("sleep\000300") && memcmp(cmdline, "sleep\000300", len) == 0)
			return pid;
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(5 * 1000);
	}
}

static gchar
pid_state(gint pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", pid);
	g_autofree gchar *stat = NULL;
	const gchar *paren;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return '\0';
	paren = strrchr(stat, ')');
	g_assert_nonnull(paren);
	return paren[2];
}

static void
reap(gint pid, gint expected_signal)
{
	gint status = 0;

	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	g_assert_true(WIFSIGNALED(status));
	g_assert_cmpint(WTERMSIG(status), ==, expected_signal);
}

static EsdTestLeftover *
find_pid(GPtrArray *leftovers, gint pid)
{
	for (guint i = 0; i < leftovers->len; i++) {
		EsdTestLeftover *leftover = g_ptr_array_index(leftovers, i);
		if (leftover->pid == pid)
			return leftover;
	}
	return NULL;
}

/* a detached process is found, reported, killed; then nothing is */
static void
test_detached(void)
{
	g_autofree gchar *mark = new_mark();
	g_autoptr(GPtrArray) before = esd_test_leftovers_find(MARK_VAR, mark);
	g_autoptr(GPtrArray) found = NULL;
	g_autoptr(GPtrArray) after = NULL;
	g_autofree gchar *report = NULL;
	g_autofree gchar *expected = NULL;
	EsdTestLeftover *leftover;
	gint pid;

	g_assert_cmpuint(before->len, ==, 0);
	g_assert_true(esd_test_leftovers_wait_none(MARK_VAR, mark, 0, NULL));
	pid = start_detached(mark);
	found = esd_test_leftovers_find(MARK_VAR, mark);
	g_assert_cmpuint(found->len, ==, 1);
	leftover = find_pid(found, pid);
	g_assert_nonnull(leftover);
	g_assert_true(leftover->marked);
	g_assert_cmpint(leftover->ppid, ==, getpid());
	g_assert_cmpstr(leftover->name, ==, "sleep 300");
	/* another marker does not see it */
	{
		g_autofree gchar *other = new_mark();
		g_autoptr(GPtrArray) none = esd_test_leftovers_find(MARK_VAR, other);
		g_assert_cmpuint(none->len, ==, 0);
	}

	/* it stays, so the wait reports it and kills it */
	g_assert_false(esd_test_leftovers_wait_none(MARK_VAR, mark, 200, &report));
	expected = g_strdup_printf("pid %d (parent %d, state ", pid, getpid());
	g_assert_nonnull(strstr(report, expected));
	g_assert_nonnull(strstr(report, "sleep 300"));
	reap(pid, SIGKILL);
	after = esd_test_leftovers_find(MARK_VAR, mark);
	g_assert_cmpuint(after->len, ==, 0);
	g_assert_true(esd_test_leftovers_wait_none(MARK_VAR, mark, 0, NULL));
}

/* a process that goes within the timeout is no leftover */
static void
test_goes_in_time(void)
{
	g_autofree gchar *mark = new_mark();
	g_autofree gchar *out = run_marked(mark, "sleep 0.3 </dev/null >/dev/null 2>&1 & echo $!");
	gint pid = atoi(out);
	gint64 start = g_get_monotonic_time();
	gint status = 0;

	/*
	 * reaped as soon as it exits: the wait only sees it alive, then gone; a
	 * scan that raced its exit (a zombie has no environment) is told by the
	 * waitpid() that follows it
	 */
	for (;;) {
		g_autoptr(GPtrArray) found = esd_test_leftovers_find(MARK_VAR, mark);
		if (waitpid(pid, &status, WNOHANG) != 0)
			break;
		g_assert_cmpuint(found->len, ==, 1);
		g_assert_cmpint(g_get_monotonic_time() - start, <, 5 * G_USEC_PER_SEC);
		g_usleep(20 * 1000);
	}
	g_assert_true(WIFEXITED(status));
	g_assert_true(esd_test_leftovers_wait_none(MARK_VAR, mark, 0, NULL));
}

/*
 * A marked process that does not reap its child leaves a zombie, which has
 * no environment any more: it is found through its parent. The child
 * outlives the shell's exec of `sleep 300`, so that no shell reaps it
 * first. The zombie of an unmarked parent (here: this test's own) is not.
 */
static void
test_zombie(void)
{
	g_autofree gchar *mark = new_mark();
	g_autofree gchar *script =
	    g_strdup_printf("sh -c 'env -u %s sleep 0.3 </dev/null >/dev/null 2>&1 & echo $$ $!; "
			    "exec sleep 300 </dev/null >/dev/null 2>&1' &",
			    MARK_VAR);
	g_autofree gchar *out = run_marked(mark, script);
	g_auto(GStrv) pids = g_strsplit(out, " ", -1);
	g_autoptr(GPtrArray) found = NULL;
	g_autoptr(GPtrArray) after = NULL;
	EsdTestLeftover *parent;
	EsdTestLeftover *zombie;
	gint parent_pid;
	gint zombie_pid;
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

	g_assert_cmpuint(g_strv_length(pids), ==, 2);
	parent_pid = atoi(pids[0]);
	zombie_pid = atoi(pids[1]);
	while (pid_state(zombie_pid) != 'Z' || pid_state(parent_pid) == '\0') {
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(10 * 1000);
	}
	found = esd_test_leftovers_find(MARK_VAR, mark);
	g_assert_cmpuint(found->len, ==, 2);
	parent = find_pid(found, parent_pid);
	zombie = find_pid(found, zombie_pid);
	g_assert_nonnull(parent);
	g_assert_true(parent->marked);
	g_assert_cmpstr(parent->name, ==, "sleep 300");
	g_assert_nonnull(zombie);
	g_assert_false(zombie->marked);
	g_assert_cmpint(zombie->state, ==, 'Z');
	g_assert_cmpint(zombie->ppid, ==, parent_pid);
	g_assert_cmpstr(zombie->name, ==, "[sleep]");

	/* the parent is killed; its zombie comes to us and is reaped */
	g_assert_false(esd_test_leftovers_wait_none(MARK_VAR, mark, 100, NULL));
	reap(parent_pid, SIGKILL);
	g_assert_cmpint(waitpid(zombie_pid, NULL, 0), ==, zombie_pid);
	after = esd_test_leftovers_find(MARK_VAR, mark);
	g_assert_cmpuint(after->len, ==, 0);

	/* our own zombie, marked while it lived: its parent carries no marker */
	{
		g_autofree gchar *entry = g_strdup_printf("%s=%s", MARK_VAR, mark);
		const gchar *argv[] = {"/bin/true", NULL};
		const gchar *envp[] = {entry, NULL};
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) none = NULL;
		GPid child = 0;

		g_spawn_async(NULL,
			      (gchar **)argv,
			      (gchar **)envp,
			      G_SPAWN_DO_NOT_REAP_CHILD,
			      NULL,
			      NULL,
			      &child,
			      &error);
		g_assert_no_error(error);
		while (pid_state(child) != 'Z') {
			g_assert_cmpint(g_get_monotonic_time(), <, deadline);
			g_usleep(10 * 1000);
		}
		none = esd_test_leftovers_find(MARK_VAR, mark);
		g_assert_cmpuint(none->len, ==, 0);
		g_assert_cmpint(waitpid(child, NULL, 0), ==, child);
	}
}

/* the assertion itself fails the test, and kills what it reports */
static void
test_assert_fails(void)
{
	g_autofree gchar *mark = g_strdup_printf("%d-trap", getpid());
	g_autoptr(GPtrArray) after = NULL;
	gint status = 0;
	pid_t pid;

	if (g_test_subprocess()) {
		g_autofree gchar *child_mark = g_strdup_printf("%d-trap", getppid());
		start_detached(child_mark);
		esd_test_assert_nothing_left(MARK_VAR, child_mark, 200);
		return;
	}
	g_test_trap_subprocess(NULL, 10 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*processes left behind after 200 ms (now killed):*sleep 300*");
	/* the subprocess's orphan came to us, killed */
	pid = waitpid(-1, &status, 0);
	g_assert_cmpint(pid, >, 0);
	g_assert_true(WIFSIGNALED(status));
	g_assert_cmpint(WTERMSIG(status), ==, SIGKILL);
	after = esd_test_leftovers_find(MARK_VAR, mark);
	g_assert_cmpuint(after->len, ==, 0);
}

static void
test_assert_passes(void)
{
	if (g_test_subprocess()) {
		g_autofree gchar *child_mark = g_strdup_printf("%d-none", getppid());
		esd_test_assert_nothing_left(MARK_VAR, child_mark, 200);
		return;
	}
	g_test_trap_subprocess(NULL, 10 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_assert_cmpint(prctl(PR_SET_CHILD_SUBREAPER, 1), ==, 0);

	g_test_add_func(LEFTOVERS_TEST "detached", test_detached);
	g_test_add_func(LEFTOVERS_TEST "goes-in-time", test_goes_in_time);
	g_test_add_func(LEFTOVERS_TEST "zombie", test_zombie);
	g_test_add_func(LEFTOVERS_TEST "assert-fails", test_assert_fails);
	g_test_add_func(LEFTOVERS_TEST "assert-passes", test_assert_passes);
	return g_test_run();
}
