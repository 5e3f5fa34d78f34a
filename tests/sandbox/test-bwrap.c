/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "esd-bwrap.h"

/*
 * Real bwrap, real namespaces: each case builds a policy, launches
 * `/bin/sh -c SCRIPT` through the argv, envp and descriptors of an
 * EsdBwrapLaunch and looks at the result from inside and from the host.
 * Every case is skipped when bwrap cannot create a user namespace here.
 */

typedef struct {
	gchar *dir; /* scratch directory on the host */
	gchar *dir_uri;
} Fixture;

typedef struct {
	gint status;
	gchar *out;
	gchar *err;
} RunResult;

static void
run_result_clear(RunResult *result)
{
	g_free(result->out);
	g_free(result->err);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RunResult, run_result_clear)

static gboolean
test_skip_unless_available(void)
{
	g_autoptr(GError) error = NULL;

	if (esd_bwrap_available(&error))
		return FALSE;
	g_test_skip(error->message);
	return TRUE;
}

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	/* outside $TMPDIR-isolated dirs on purpose: a plain directory under /tmp */
	fx->dir = g_dir_make_tmp("esd-bwrap-XXXXXX", &error);
	g_assert_no_error(error);
	fx->dir_uri = g_filename_to_uri(fx->dir, NULL, &error);
	g_assert_no_error(error);
}

static gint
test_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	/* undo the modes the cases set up, then remove */
	if (flag == FTW_DP || flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	return remove(path);
}

static void
fixture_teardown(Fixture *fx, gconstpointer data)
{
	g_assert_cmpint(nftw(fx->dir, test_rm_entry, 16, FTW_DEPTH | FTW_PHYS), ==, 0);
	g_free(fx->dir);
	g_free(fx->dir_uri);
}

static gchar *
fx_path(Fixture *fx, const gchar *relative)
{
	return g_build_filename(fx->dir, relative, NULL);
}

static void
fx_write(Fixture *fx, const gchar *relative, const gchar *contents)
{
	g_autofree gchar *path = fx_path(fx, relative);
	g_autofree gchar *parent = g_path_get_dirname(path);

	g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
	g_assert_true(g_file_set_contents(path, contents, -1, NULL));
}

static void
fx_mkdir(Fixture *fx, const gchar *relative)
{
	g_autofree gchar *path = fx_path(fx, relative);
	g_assert_cmpint(g_mkdir_with_parents(path, 0755), ==, 0);
}

static gboolean
fx_exists(Fixture *fx, const gchar *relative)
{
	g_autofree gchar *path = fx_path(fx, relative);
	struct stat st;
	return lstat(path, &st) == 0;
}

/* `entries` may use @DIR@ for the scratch directory's URI */
static EsdSandboxPolicy *
fx_policy(Fixture *fx, const gchar *network, const gchar *entries)
{
	g_autoptr(GString) filled = g_string_new(entries);
	g_autofree gchar *json = NULL;
	g_autoptr(JsonNode) node = NULL;
	g_autoptr(GError) error = NULL;
	EsdSandboxDefaults defaults = {fx->dir, g_get_home_dir(), NULL};
	EsdSandboxPolicy *policy;

	g_string_replace(filled, "@DIR@", fx->dir_uri, 0);
	json = g_strdup_printf(
	    "{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':[%s]},"
	    "'network':'%s'},'windowsSandboxLevel':'disabled','cwd':'%s'}",
	    filled->str,
	    network,
	    fx->dir_uri);

	g_strdelimit(json, "'", '"');
	node = json_from_string(json, &error);
	g_assert_no_error(error);
	policy = esd_sandbox_policy_new_from_json(json_node_get_object(node), &defaults, &error);
	g_assert_no_error(error);
	return policy;
}

#define ROOT_READ	  "{'path':{'type':'special','value':{'kind':'root'}},'access':'read'}"
#define ROOT_WRITE	  "{'path':{'type':'special','value':{'kind':'root'}},'access':'write'}"
#define PATH(sub, access) "{'path':{'type':'path','path':'@DIR@" sub "'},'access':'" access "'}"

/* spawns the launch the way a daemon would: only its descriptors, at their numbers */
static void
test_spawn(EsdBwrapLaunch *launch, RunResult *result)
{
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
	    G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_autoptr(GSubprocess) subprocess = NULL;
	g_autoptr(GError) error = NULL;
	const gint *fds;
	guint n_fds = 0;

	fds = esd_bwrap_launch_get_fds(launch, &n_fds);
	for (guint i = 0; i < n_fds; i++) {
		/* the launcher closes the source; GLib's dup2 clears close-on-exec */
		gint copy = fcntl(fds[i], F_DUPFD_CLOEXEC, 100);
		g_assert_cmpint(copy, >=, 0);
		g_subprocess_launcher_take_fd(launcher, copy, fds[i]);
	}
	g_subprocess_launcher_set_environ(launcher, (gchar **)esd_bwrap_launch_get_envp(launch));
	subprocess =
	    g_subprocess_launcher_spawnv(launcher, esd_bwrap_launch_get_argv(launch), &error);
	g_assert_no_error(error);
	g_subprocess_communicate_utf8(subprocess, NULL, NULL, &result->out, &result->err, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(subprocess));
	result->status = g_subprocess_get_exit_status(subprocess);
	g_test_message("status %d\nstdout: %s\nstderr: %s",
		       result->status,
		       result->out,
		       result->err);
}

static EsdBwrapLaunch *
test_launch_full(const EsdSandboxPolicy *policy,
		 gint seccomp_fd,
		 const gchar *cwd,
		 const gchar *script,
		 gchar **envp,
		 RunResult *result)
{
	gchar *argv[] = {(gchar *)"/bin/sh", (gchar *)"-c", (gchar *)script, NULL};
	gchar *default_envp[] = {(gchar *)"PATH=/usr/bin:/bin", NULL};
	g_autoptr(GError) error = NULL;
	EsdBwrapLaunch *launch = esd_bwrap_launch_new(policy,
						      seccomp_fd,
						      cwd,
						      argv,
						      envp != NULL ? envp : default_envp,
						      &error);

	g_assert_no_error(error);
	g_assert_nonnull(launch);
	test_spawn(launch, result);
	return launch;
}

static void
test_run(Fixture *fx, const EsdSandboxPolicy *policy, const gchar *script, RunResult *result)
{
	g_autoptr(EsdBwrapLaunch) launch =
	    test_launch_full(policy, -1, fx->dir, script, NULL, result);
	esd_bwrap_launch_cleanup(launch);
}

static void
test_assert_contains(const gchar *haystack, const gchar *needle)
{
	if (strstr(haystack, needle) == NULL)
		g_error("expected \"%s\" in \"%s\"", needle, haystack);
}

static void
test_bwrap_read_only_root(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};
	g_autofree gchar *host = NULL;

	if (test_skip_unless_available())
		return;
	fx_mkdir(fx, "w");
	policy = fx_policy(fx, "restricted", ROOT_READ "," PATH("/w", "write"));
	test_run(fx,
		 policy,
		 "touch /esd-bwrap-should-not-exist 2>&1; touch ro-here 2>&1; "
		 "echo hi > w/file && echo wrote",
		 &result);
	g_assert_cmpint(result.status, ==, 0);
	test_assert_contains(result.out, "/esd-bwrap-should-not-exist': Read-only file system");
	test_assert_contains(result.out, "ro-here': Read-only file system");
	test_assert_contains(result.out, "wrote");
	g_assert_false(g_file_test("/esd-bwrap-should-not-exist", G_FILE_TEST_EXISTS));
	g_assert_false(fx_exists(fx, "ro-here"));
	host = fx_path(fx, "w/file");
	{
		g_autofree gchar *contents = NULL;
		g_assert_true(g_file_get_contents(host, &contents, NULL, NULL));
		g_assert_cmpstr(contents, ==, "hi\n");
	}
}

static void
test_bwrap_deny(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};
	g_autofree gchar *secret = NULL;
	g_autofree gchar *contents = NULL;

	if (test_skip_unless_available())
		return;
	fx_write(fx, "hidden/inner.txt", "inner");
	fx_write(fx, "hidden2/inner.txt", "inner");
	fx_write(fx, "hidden/pub/open.txt", "open");
	fx_write(fx, "w/s.txt", "secret");
	fx_write(fx, "w/a.env", "A");
	fx_write(fx, "w/sub/b.env", "B");
	fx_write(fx, "w/c.txt", "C");
	policy = fx_policy(
	    fx,
	    "restricted",
	    ROOT_READ "," PATH("/hidden", "deny") "," PATH("/hidden2", "deny") "," PATH(
		"/hidden/pub",
		"read") "," PATH("/w", "write") "," PATH("/w/s.txt",
							 "deny") ",{'path':{'type':'glob_pattern','"
								 "pattern':'"
								 "w/**/*.env'},'access':'deny'}");
	test_run(fx,
		 policy,
		 "ls hidden 2>&1; cat hidden/inner.txt 2>&1; cat hidden/pub/open.txt; echo; "
		 "ls hidden2 2>&1; cat hidden2/inner.txt 2>&1; "
		 "cat w/s.txt 2>&1; echo x > w/s.txt 2>&1; cat w/a.env 2>&1; cat w/sub/b.env 2>&1; "
		 "cat w/c.txt; echo",
		 &result);
	test_assert_contains(result.out, "ls: cannot open directory 'hidden': Permission denied");
	/* traversable (0111) for the readable child below it, but still empty */
	test_assert_contains(result.out, "hidden/inner.txt: No such file or directory");
	test_assert_contains(result.out, "ls: cannot open directory 'hidden2': Permission denied");
	test_assert_contains(result.out, "hidden2/inner.txt: Permission denied");
	test_assert_contains(result.out, "open\n");
	test_assert_contains(result.out, "w/s.txt: Permission denied");
	test_assert_contains(result.out, "w/a.env: Permission denied");
	test_assert_contains(result.out, "w/sub/b.env: Permission denied");
	test_assert_contains(result.out, "C\n");
	/* the host file is untouched */
	secret = fx_path(fx, "w/s.txt");
	g_assert_true(g_file_get_contents(secret, &contents, NULL, NULL));
	g_assert_cmpstr(contents, ==, "secret");
}

static void
test_bwrap_deny_missing(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};

	if (test_skip_unless_available())
		return;
	fx_mkdir(fx, "w");
	policy = fx_policy(fx,
			   "restricted",
			   ROOT_READ "," PATH("/w", "write") "," PATH("/w/later/secret", "deny"));
	test_run(fx,
		 policy,
		 "exec 2>&1; mkdir -p w/later/secret; echo x > w/later; echo ok > w/other; "
		 "cat w/other",
		 &result);
	g_assert_cmpint(result.status, ==, 0);
	test_assert_contains(result.out, "ok");
	g_assert_false(fx_exists(fx, "w/later/secret"));
	/* the empty file that blocked it is gone after the cleanup */
	g_assert_false(fx_exists(fx, "w/later"));
}

static void
test_bwrap_protected(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_autoptr(EsdBwrapLaunch) launch = NULL;
	g_auto(RunResult) result = {0};
	g_autofree gchar *config = NULL;
	g_autofree gchar *contents = NULL;
	const gchar *script =
	    "exec 2>&1; echo x >> ws/.git/config; mkdir ws/.git/hooks2 2>&1; echo x > ws/.codex/c "
	    "2>&1; "
	    "echo ok > ws/file; mkdir ws2/.git/x 2>&1; touch ws2/.git/config 2>&1; "
	    "mkdir ws2/.agents/skills 2>&1; ls -a ws2/.git; echo y > gitdirs/wt/config 2>&1; "
	    "echo y > gitdirs/other; test -d ws2/.aws && echo masked";

	if (test_skip_unless_available())
		return;
	fx_write(fx, "ws/.git/config", "[core]\n");
	fx_mkdir(fx, "ws/.codex");
	fx_mkdir(fx, "ws2");
	fx_write(fx, "ws3/.git", "gitdir: ../gitdirs/wt\n");
	fx_write(fx, "gitdirs/wt/config", "wt");
	policy = fx_policy(fx,
			   "restricted",
			   ROOT_READ "," PATH("/ws", "write") "," PATH("/ws2", "write") "," PATH(
			       "/ws3",
			       "write") "," PATH("/gitdirs", "write"));
	launch = test_launch_full(policy, -1, fx->dir, script, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	test_assert_contains(result.out, "ws/.git/config: Read-only file system");
	test_assert_contains(result.out, "ws/.git/hooks2': Read-only file system");
	test_assert_contains(result.out, "ws/.codex/c: Read-only file system");
	test_assert_contains(result.out, "ws2/.git/x': Read-only file system");
	test_assert_contains(result.out, "ws2/.git/config': Read-only file system");
	test_assert_contains(result.out, "ws2/.agents/skills': Read-only file system");
	test_assert_contains(result.out, "gitdirs/wt/config: Read-only file system");
	test_assert_contains(result.out, "masked");
	g_assert_true(fx_exists(fx, "ws/file"));
	g_assert_true(fx_exists(fx, "gitdirs/other"));
	config = fx_path(fx, "ws/.git/config");
	g_assert_true(g_file_get_contents(config, &contents, NULL, NULL));
	g_assert_cmpstr(contents, ==, "[core]\n");

	/* the mount points bwrap had to create stay until the cleanup, then go */
	g_assert_true(fx_exists(fx, "ws2/.git"));
	esd_bwrap_launch_cleanup(launch);
	g_assert_false(fx_exists(fx, "ws2/.git"));
	g_assert_false(fx_exists(fx, "ws2/.codex"));
	g_assert_false(fx_exists(fx, "ws2/.agents"));
	g_assert_false(fx_exists(fx, "ws2/.aws"));
	g_assert_true(fx_exists(fx, "ws/.git/config"));
	g_assert_true(fx_exists(fx, "ws/.codex"));
	/* again: nothing left to do */
	esd_bwrap_launch_cleanup(launch);
}

static void
test_bwrap_protected_shared(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_autoptr(EsdBwrapLaunch) first = NULL;
	g_autoptr(EsdBwrapLaunch) second = NULL;
	g_auto(RunResult) result1 = {0};
	g_auto(RunResult) result2 = {0};

	if (test_skip_unless_available())
		return;
	fx_mkdir(fx, "ws");
	policy = fx_policy(fx, "restricted", ROOT_READ "," PATH("/ws", "write"));
	first = test_launch_full(policy, -1, fx->dir, "true", NULL, &result1);
	/* the second launch finds the first one's mount point and must not take it as real */
	second = test_launch_full(policy, -1, fx->dir, "mkdir ws/.git/x 2>&1", NULL, &result2);
	test_assert_contains(result2.out, "Read-only file system");
	esd_bwrap_launch_cleanup(first);
	g_assert_true(fx_exists(fx, "ws/.git"));
	esd_bwrap_launch_cleanup(second);
	g_assert_false(fx_exists(fx, "ws/.git"));
}

static void
test_bwrap_protected_symlink(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_autoptr(EsdBwrapLaunch) launch = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *link = NULL;
	gchar *argv[] = {(gchar *)"/bin/true", NULL};

	if (test_skip_unless_available())
		return;
	fx_mkdir(fx, "ws/decoy");
	link = fx_path(fx, "ws/.codex");
	g_assert_cmpint(symlink("decoy", link), ==, 0);
	policy = fx_policy(fx, "restricted", ROOT_READ "," PATH("/ws", "write"));
	launch = esd_bwrap_launch_new(policy, -1, fx->dir, argv, NULL, &error);
	g_assert_null(launch);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
}

static void
test_bwrap_minimal(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};

	if (test_skip_unless_available())
		return;
	fx_mkdir(fx, "w");
	policy = fx_policy(fx,
			   "restricted",
			   "{'path':{'type':'special','value':{'kind':'minimal'}},'access':'read'},"
			   "{'path':{'type':'special','value':{'kind':'project_roots'}},'access':'"
			   "read'}," PATH("/w", "write"));
	test_run(fx,
		 policy,
		 "ls /home 2>&1; touch /new 2>&1; touch /usr/new 2>&1; echo ok > w/f && cat w/f; "
		 "cat /dev/null && echo devnull",
		 &result);
	test_assert_contains(result.out, "/home': No such file or directory");
	test_assert_contains(result.out, "/new': Read-only file system");
	test_assert_contains(result.out, "/usr/new': Read-only file system");
	test_assert_contains(result.out, "ok\n");
	test_assert_contains(result.out, "devnull");
}

static void
test_bwrap_root_write(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};

	if (test_skip_unless_available())
		return;
	policy = fx_policy(fx, "enabled", ROOT_WRITE);
	test_run(fx,
		 policy,
		 "echo x > /dev/null && echo null-ok; head -c 4 /dev/urandom | wc -c; "
		 "echo y > written && cat written; "
		 /* the host's network namespace: its sysctls must stay out of reach */
		 "v=$(cat /proc/sys/net/ipv4/tcp_keepalive_time); "
		 "(echo $v > /proc/sys/net/ipv4/tcp_keepalive_time) 2>/dev/null && echo "
		 "netsys-writable || "
		 "echo netsys-refused",
		 &result);
	test_assert_contains(result.out, "null-ok\n4\ny\n");
	test_assert_contains(result.out, "netsys-refused");
	g_assert_true(fx_exists(fx, "written"));
}

static void
test_bwrap_proc(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};

	if (test_skip_unless_available())
		return;
	policy = fx_policy(fx, "restricted", ROOT_READ);
	test_run(
	    fx,
	    policy,
	    "echo 1 > /proc/sys/kernel/ns_last_pid 2>/dev/null || echo ns-last-pid-refused; "
	    "echo h > /proc/sys/kernel/hostname 2>/dev/null || echo hostname-refused; "
	    "awk '$5 == \"/proc/sys\" { print \"sys\", substr($6, 1, 2) }' /proc/self/mountinfo; "
	    "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status",
	    &result);
	g_assert_cmpint(result.status, ==, 0);
	test_assert_contains(result.out, "ns-last-pid-refused");
	test_assert_contains(result.out, "hostname-refused");
	test_assert_contains(result.out, "sys ro");
	g_assert_null(strstr(result.out, "sys rw"));
	test_assert_contains(result.out, "CapPrm:\t0000000000000000");
	test_assert_contains(result.out, "CapEff:\t0000000000000000");
	test_assert_contains(result.out, "CapBnd:\t0000000000000000");
	test_assert_contains(result.out, "NoNewPrivs:\t1");
}

static void
test_bwrap_namespaces_for(Fixture *fx, const gchar *network, gboolean net_differs)
{
	const gchar *names[] = {"user", "mnt", "pid", "ipc", "uts", "net"};
	g_autoptr(EsdSandboxPolicy) policy = fx_policy(fx, network, ROOT_READ);
	g_auto(RunResult) result = {0};
	g_autofree gchar *expected_ids = g_strdup_printf("ids %u %u\n", getuid(), getgid());

	test_run(fx,
		 policy,
		 "for n in user mnt pid ipc uts net; do echo \"$n $(readlink /proc/self/ns/$n)\"; "
		 "done; echo \"ids $(id -u) $(id -g)\"",
		 &result);
	g_assert_cmpint(result.status, ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree gchar *path = g_strdup_printf("/proc/self/ns/%s", names[i]);
		g_autofree gchar *own = g_file_read_link(path, NULL);
		g_autofree gchar *line = g_strdup_printf("%s %s\n", names[i], own);
		gboolean same = strstr(result.out, line) != NULL;
		gboolean differs = g_strcmp0(names[i], "net") != 0 || net_differs;

		g_assert_nonnull(own);
		g_test_message("%s: own %s", names[i], own);
		g_assert_cmpint(same, ==, !differs);
	}
	test_assert_contains(result.out, expected_ids);
}

static void
test_bwrap_namespaces(Fixture *fx, gconstpointer data)
{
	if (test_skip_unless_available())
		return;
	test_bwrap_namespaces_for(fx, "restricted", TRUE);
	test_bwrap_namespaces_for(fx, "enabled", FALSE);
}

static void
test_bwrap_env(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_autoptr(EsdBwrapLaunch) launch = NULL;
	g_autoptr(GPtrArray) args = NULL;
	g_auto(RunResult) result = {0};
	gchar *envp[] = {(gchar *)"PATH=/usr/bin:/bin",
			 (gchar *)"LD_PRELOAD=/nonexistent.so",
			 (gchar *)"FOO=bar=baz",
			 NULL};
	const gchar *const *bwrap_envp;
	const gchar *const *argv;
	const gchar *loader_error = "/nonexistent.so";
	const gchar *first;

	if (test_skip_unless_available())
		return;
	policy = fx_policy(fx, "restricted", ROOT_READ);
	launch = test_launch_full(policy,
				  -1,
				  fx->dir,
				  "echo \"preload=$LD_PRELOAD foo=$FOO home=${HOME-unset}\"",
				  envp,
				  &result);
	g_assert_cmpint(result.status, ==, 0);
	test_assert_contains(result.out, "preload=/nonexistent.so foo=bar=baz home=unset");

	/* bwrap's own environment and argv carry nothing of the client's */
	bwrap_envp = esd_bwrap_launch_get_envp(launch);
	g_assert_cmpstr(bwrap_envp[0], ==, ESD_BWRAP_PATH_ENV);
	g_assert_null(bwrap_envp[1]);
	argv = esd_bwrap_launch_get_argv(launch);
	g_assert_cmpuint(g_strv_length((gchar **)argv), ==, 7);
	g_assert_cmpstr(argv[1], ==, "--args");
	g_assert_cmpint(atoi(argv[2]), ==, esd_bwrap_launch_get_args_fd(launch));
	g_assert_cmpstr(argv[3], ==, "--");
	g_assert_cmpstr(argv[4], ==, "/bin/sh");
	/* the loader complains once, for the command: bwrap itself never saw LD_PRELOAD */
	first = strstr(result.err, loader_error);
	g_assert_nonnull(first);
	g_assert_null(strstr(first + strlen(loader_error), loader_error));

	args = esd_bwrap_launch_dup_args(launch);
	for (guint i = 0; i < args->len; i++) {
		if (g_strcmp0(g_ptr_array_index(args, i), "--clearenv") == 0) {
			g_assert_cmpstr(g_ptr_array_index(args, i + 1), ==, "--setenv");
			g_assert_cmpstr(g_ptr_array_index(args, i + 2), ==, "PATH");
			break;
		}
		g_assert_cmpstr(g_ptr_array_index(args, i), !=, "--setenv");
	}
}

static void
test_bwrap_exit_code(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_auto(RunResult) result = {0};

	if (test_skip_unless_available())
		return;
	policy = fx_policy(fx, "restricted", ROOT_READ);
	test_run(fx, policy, "exit 7", &result);
	g_assert_cmpint(result.status, ==, 7);
}

/* a TCP listener on 127.0.0.1; returns its port */
static gint
test_listen(guint16 *port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	gint fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(listen(fd, 8), ==, 0);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&addr, &len), ==, 0);
	*port = ntohs(addr.sin_port);
	return fd;
}

static void
test_bwrap_network(Fixture *fx, gconstpointer data)
{
	const gchar *networks[] = {"restricted", "enabled"};
	guint16 port = 0;
	gint listener;

	if (test_skip_unless_available())
		return;
	if (!g_file_test("/bin/bash", G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("needs /bin/bash for /dev/tcp");
		return;
	}
	listener = test_listen(&port);
	for (guint i = 0; i < G_N_ELEMENTS(networks); i++) {
		g_autoptr(EsdSandboxPolicy) policy = fx_policy(fx, networks[i], ROOT_READ);
		g_autofree gchar *script = g_strdup_printf(
		    "/bin/bash -c 'echo > /dev/tcp/127.0.0.1/%u' 2>/dev/null && echo connected "
		    "|| echo refused",
		    port);
		g_auto(RunResult) result = {0};

		test_run(fx, policy, script, &result);
		test_assert_contains(result.out, i == 0 ? "refused" : "connected");
	}
	close(listener);
}

/* a seccomp program that allows everything: enough to see that --seccomp got its fd */
static gint
test_seccomp_allow_fd(void)
{
	struct sock_filter filter[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	gint fd = memfd_create("test-seccomp", MFD_CLOEXEC);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(write(fd, filter, sizeof(filter)), ==, (gssize)sizeof(filter));
	g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
	return fd;
}

static void
test_bwrap_seccomp(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_autoptr(EsdBwrapLaunch) launch = NULL;
	g_auto(RunResult) result = {0};
	gint seccomp_fd;
	const gint *fds;
	guint n_fds = 0;
	gboolean listed = FALSE;

	if (test_skip_unless_available())
		return;
	seccomp_fd = test_seccomp_allow_fd();
	fx_write(fx, "denied", "x");
	/* a denied file, so that the empty memfd is passed as well */
	policy = fx_policy(fx, "restricted", ROOT_READ "," PATH("/denied", "deny"));
	launch = test_launch_full(policy,
				  seccomp_fd,
				  fx->dir,
				  "grep '^Seccomp:' /proc/self/status; "
				  "ls -l /proc/$$/fd/ /proc/self/fd/",
				  NULL,
				  &result);
	g_assert_cmpint(result.status, ==, 0);
	test_assert_contains(result.out, "Seccomp:\t2");
	fds = esd_bwrap_launch_get_fds(launch, &n_fds);
	g_assert_cmpuint(n_fds, ==, 3);
	for (guint i = 0; i < n_fds; i++)
		listed |= fds[i] == seccomp_fd;
	g_assert_true(listed);
	/* bwrap passes none of its descriptors on to the command */
	test_assert_contains(result.out, "1 -> pipe:");
	g_assert_null(strstr(result.out, "memfd:"));
	close(seccomp_fd);
}

/* bwrap's descriptors keep their numbers in a child whose 0 to 6 are the
 * supervisor's: they land above even when a lower number is free, as in a
 * daemon that just closed a pipe */
static void
test_bwrap_fds_above_std(Fixture *fx, gconstpointer data)
{
	g_autoptr(EsdSandboxPolicy) policy = NULL;
	g_autoptr(EsdBwrapLaunch) launch = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(RunResult) result = {0};
	gchar *argv[] = {(gchar *)"/bin/true", NULL};
	gchar *envp[] = {(gchar *)"PATH=/usr/bin:/bin", NULL};
	gint holes[8];
	guint n_holes = 0;
	const gint *fds;
	guint n_fds = 0;
	gint fd;

	if (test_skip_unless_available())
		return;
	fx_write(fx, "ws/.git/config", "[core]\n");
	policy = fx_policy(fx, "restricted", ROOT_READ "," PATH("/ws", "write"));
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0 && fd < 7)
		holes[n_holes++] = fd;
	if (fd >= 0)
		close(fd);
	for (guint i = 0; i < n_holes; i++)
		close(holes[i]);
	if (n_holes == 0) {
		g_test_skip("no descriptor below 7 is free here");
		return;
	}
	launch = esd_bwrap_launch_new(policy, -1, fx->dir, argv, envp, &error);
	g_assert_no_error(error);
	fds = esd_bwrap_launch_get_fds(launch, &n_fds);
	/* the args memfd, the bind source and the empty memfd of the mask */
	g_assert_cmpuint(n_fds, >=, 3);
	for (guint i = 0; i < n_fds; i++)
		g_assert_cmpint(fds[i], >=, 7);
	test_spawn(launch, &result);
	g_assert_cmpint(result.status, ==, 0);
	esd_bwrap_launch_cleanup(launch);
}

static const struct {
	const gchar *path;
	void (*func)(Fixture *fx, gconstpointer data);
} bwrap_tests[] = {
    {"read-only-root", test_bwrap_read_only_root},
    {"deny", test_bwrap_deny},
    {"deny-missing", test_bwrap_deny_missing},
    {"protected", test_bwrap_protected},
    {"protected-shared", test_bwrap_protected_shared},
    {"protected-symlink", test_bwrap_protected_symlink},
    {"minimal", test_bwrap_minimal},
    {"root-write", test_bwrap_root_write},
    {"proc", test_bwrap_proc},
    {"namespaces", test_bwrap_namespaces},
    {"env", test_bwrap_env},
    {"exit-code", test_bwrap_exit_code},
    {"network", test_bwrap_network},
    {"seccomp", test_bwrap_seccomp},
    {"fds-above-std", test_bwrap_fds_above_std},
};

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(bwrap_tests); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/sandbox/bwrap/%s", bwrap_tests[i].path);
		g_test_add(path,
			   Fixture,
			   NULL,
			   fixture_setup,
			   bwrap_tests[i].func,
			   fixture_teardown);
	}
	return g_test_run();
}
