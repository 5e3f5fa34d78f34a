/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-test-paths.h"
#include "esd-test-utils.h"

/*
 * The daemon as an unprivileged user inside an outer bubblewrap with a user
 * namespace of its own (bwrap --unshare-user --uid U --gid U, as Codex's
 * nested-sandbox test runs it): the plugins of the build tree, root's, are
 * seen as owned by the overflow uid and must load all the same, while
 * plugins someone else could rewrite are still refused. As root, the test
 * becomes NESTED_UID before it starts bwrap, or bwrap would map root.
 */

#define NESTED_TEST "/execserverd/integration/nested/"
#define NESTED_UID  4242
#define OTHER_UID   1500

static uid_t
nested_uid(void)
{
	return geteuid() == 0 ? NESTED_UID : geteuid();
}

static void
nested_child_setup(gpointer user_data)
{
	uid_t uid = NESTED_UID;

	if (geteuid() != 0)
		return;
	if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
	    setresuid(uid, uid, uid) != 0)
		_exit(125);
}

/*
 * runs the daemon with @args inside bwrap; FALSE with the test skipped
 * where bwrap cannot make a user namespace
 */
static gboolean
run_nested(const gchar *const *args, gchar **out, gchar **err)
{
	g_autofree gchar *bwrap = g_find_program_in_path("bwrap");
	g_autofree gchar *uid = g_strdup_printf("%u", (guint)nested_uid());
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GSubprocess) daemon = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *prefix[] = {"--unshare-user",
				 "--uid",
				 uid,
				 "--gid",
				 uid,
				 "--dev-bind",
				 "/",
				 "/",
				 "--die-with-parent",
				 "--",
				 g_getenv("ESD_TEST_DAEMON")};

	if (bwrap == NULL) {
		g_test_skip("bwrap is not installed (Debian: bubblewrap)");
		return FALSE;
	}
	g_ptr_array_add(argv, bwrap);
	for (guint i = 0; i < G_N_ELEMENTS(prefix); i++)
		g_ptr_array_add(argv, (gpointer)prefix[i]);
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
					     G_SUBPROCESS_FLAGS_STDOUT_PIPE |
					     G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_subprocess_launcher_set_child_setup(launcher, nested_child_setup, NULL, NULL);
	daemon = g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_communicate_utf8(daemon, "", NULL, out, err, &error));
	g_assert_no_error(error);
	if (g_subprocess_get_if_exited(daemon) && g_subprocess_get_exit_status(daemon) != 0 &&
	    g_str_has_prefix(*err, "bwrap:")) {
		g_autofree gchar *why = g_strdup_printf("bwrap cannot run here: %s", *err);
		g_test_skip(g_strstrip(why));
		return FALSE;
	}
	g_assert_true(g_subprocess_get_if_exited(daemon));
	g_assert_cmpint(g_subprocess_get_exit_status(daemon), ==, 0);
	return TRUE;
}

/* "NAME VERSION" heads each plugin's block; its "  path: …" follows */
static gchar *
plugin_path(const gchar *listing, const gchar *name)
{
	g_auto(GStrv) lines = g_strsplit(listing, "\n", -1);
	g_autofree gchar *header = g_strdup_printf("%s ", name);
	gboolean in_block = FALSE;

	for (guint i = 0; lines[i] != NULL; i++) {
		if (lines[i][0] != ' ' && lines[i][0] != '\0')
			in_block = g_str_has_prefix(lines[i], header);
		else if (in_block && g_str_has_prefix(lines[i], "  path: "))
			return g_strdup(lines[i] + strlen("  path: "));
	}
	return NULL;
}

static void
assert_installed_plugins(const gchar *out)
{
	const gchar *names[] = {"accepted-socket", "fs-local", "stdio", "ws"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree gchar *path = plugin_path(out, names[i]);
		g_autofree gchar *expected = g_strdup_printf("%s/%s/libesd-plugin-%s.so",
							     g_getenv("ESD_BUILD_PLUGINDIR"),
							     names[i],
							     names[i]);
		if (g_strcmp0(path, expected) != 0)
			g_error("plugin %s not loaded from %s:\n%s", names[i], expected, out);
	}
}

/*
 * why the build tree's plugins cannot load in the namespace, or NULL: below
 * a directory others may write to, an owner seen as the overflow uid could
 * be anyone (a tree below /tmp)
 */
static gchar *
untrusted_build_tree(void)
{
	g_autofree gchar *shared = esd_test_find_shared_ancestor(g_getenv("ESD_BUILD_PLUGINDIR"));
	struct stat st;

	g_assert_cmpint(stat(g_getenv("ESD_TEST_DAEMON"), &st), ==, 0);
	if (st.st_uid == nested_uid() || shared == NULL)
		return NULL;
	return g_strdup_printf("the build tree is below %s, which others may write to: an "
			       "unmapped owner there is refused, as it should be",
			       shared);
}

/* the build tree's plugins, seen as the overflow uid's, all load */
static void
test_nested_installed(void)
{
	const gchar *args[] = {"--list-plugins", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	g_autofree gchar *why = untrusted_build_tree();
	struct stat st;

	if (why != NULL) {
		g_test_skip(why);
		return;
	}
	if (!run_nested(args, &out, &err))
		return;
	g_assert_cmpint(stat(g_getenv("ESD_TEST_DAEMON"), &st), ==, 0);
	if (st.st_uid == nested_uid())
		g_test_message("the build tree is ours: nothing in it is seen as the overflow uid");
	if (strstr(err, "refusing plugin") != NULL)
		g_error("plugins refused inside the user namespace:\n%s", err);
	assert_installed_plugins(out);
}

static gchar *
plant(const gchar *dir, const gchar *name, guint mode, uid_t owner)
{
	g_autofree gchar *file = g_strdup_printf("libesd-plugin-%s.so", name);
	g_autofree gchar *source =
	    g_build_filename(g_getenv("ESD_BUILD_PLUGINDIR"), name, file, NULL);
	gchar *copy = g_build_filename(dir, file, NULL);
	g_autofree gchar *contents = NULL;
	gsize len = 0;

	g_assert_true(g_file_get_contents(source, &contents, &len, NULL));
	g_assert_true(g_file_set_contents_full(copy, contents, (gssize)len, 0, 0700, NULL));
	g_assert_cmpint(chmod(copy, mode), ==, 0);
	if (geteuid() == 0)
		g_assert_cmpint(chown(copy, owner, owner), ==, 0);
	return copy;
}

static void
assert_refused(const gchar *err, const gchar *path, const gchar *reason)
{
	g_autofree gchar *line = g_strdup_printf("refusing plugin: %s%s\n", path, reason);

	if (strstr(err, line) == NULL)
		g_error("no '%s' in:\n%s", line, err);
}

static void
remove_tree(const gchar *dir)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *name;

	while (handle != NULL && (name = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			remove_tree(path);
		else
			g_unlink(path);
	}
	g_rmdir(dir);
}

/*
 * plugins planted in --plugins-dir directories are refused, with a line
 * each, and do not shadow the installed ones
 */
static void
test_nested_planted(void)
{
	g_autofree gchar *tmpdir = g_dir_make_tmp("esd-nested-XXXXXX", NULL);
	g_autofree gchar *dir = g_build_filename(tmpdir, "plugins", NULL);
	g_autofree gchar *shared = g_build_filename(tmpdir, "shared", NULL);
	g_autofree gchar *writable = NULL;
	g_autofree gchar *foreign = NULL;
	g_autofree gchar *in_shared = NULL;
	g_autofree gchar *reason = NULL;
	g_autofree gchar *untrusted = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	const gchar *args[] =
	    {"--plugins-dir", dir, "--plugins-dir", shared, "--list-plugins", NULL};
	gboolean ran;

	g_assert_cmpint(chmod(tmpdir, 0755), ==, 0);
	g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
	g_assert_cmpint(g_mkdir(shared, 0755), ==, 0);
	writable = plant(dir, "ws", 0666, nested_uid());
	if (geteuid() == 0)
		foreign = plant(dir, "stdio", 0755, OTHER_UID);
	in_shared = plant(shared, "fs-local", 0755, nested_uid());
	g_assert_cmpint(chmod(shared, 0777), ==, 0);
	if (geteuid() == 0) {
		g_assert_cmpint(chown(tmpdir, NESTED_UID, NESTED_UID), ==, 0);
		g_assert_cmpint(chown(dir, NESTED_UID, NESTED_UID), ==, 0);
		g_assert_cmpint(chown(shared, NESTED_UID, NESTED_UID), ==, 0);
	}
	ran = run_nested(args, &out, &err);
	remove_tree(tmpdir);
	if (!ran)
		return;
	assert_refused(err, writable, " has unsafe mode 0666");
	if (foreign != NULL)
		assert_refused(
		    err,
		    foreign,
		    " is owned by uid 65534, a user not mapped into this user namespace, "
		    "which only the installed plugin directory may hold");
	else
		g_test_message("not root: no plugin of another user planted");
	reason =
	    g_strdup_printf(": directory %s is writable by group or others (mode 0777)", shared);
	assert_refused(err, in_shared, reason);
	untrusted = untrusted_build_tree();
	if (untrusted == NULL)
		assert_installed_plugins(out);
	else
		g_test_message("installed plugins not checked: %s", untrusted);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func(NESTED_TEST "installed", test_nested_installed);
	g_test_add_func(NESTED_TEST "planted", test_nested_planted);
	return g_test_run();
}
