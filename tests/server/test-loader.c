/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "erpc-registry-private.h"
#include "esd-plugin-loader.h"
#include "esd-test-paths.h"

typedef struct {
	ErpcRegistry *registry;
	EsdPluginLoader *loader;
} LoaderFixture;

static gchar *
test_plugin_path(const gchar *name)
{
	g_autofree gchar *file = g_strdup_printf("libesd-plugin-%s.so", name);
	return g_build_filename(g_getenv("ESD_TEST_PLUGINDIR"), file, NULL);
}

static void
loader_setup(LoaderFixture *fixture, gconstpointer user_data)
{
	fixture->registry = erpc_registry_new();
	fixture->loader = esd_plugin_loader_new(fixture->registry);
}

static void
loader_teardown(LoaderFixture *fixture, gconstpointer user_data)
{
	g_clear_object(&fixture->loader);
	g_clear_object(&fixture->registry);
}

static void
test_loader_good(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *path = test_plugin_path("echo");
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcPlugin) plugin = NULL;
	const ErpcPluginInfo *info;
	gpointer data = NULL;

	plugin = esd_plugin_loader_load_file(fixture->loader, path, &error);
	g_assert_no_error(error);
	g_assert_nonnull(plugin);
	g_assert_cmpstr(erpc_plugin_get_name(plugin), ==, "echo");
	info = esd_plugin_loader_get_info(fixture->loader, plugin);
	g_assert_cmpstr(info->version, ==, "1.2.3");
	g_assert_cmpstr(esd_plugin_loader_get_path(fixture->loader, plugin), ==, path);
	g_assert_cmpuint(erpc_registry_get_capability_version(fixture->registry, "testEcho"),
			 ==,
			 1);
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "test/echo", &data));
	g_assert_true(data == plugin);
	/* gated on testEcho version 2: invisible */
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "test/future", NULL));
	g_assert_cmpuint(esd_plugin_loader_get_plugins(fixture->loader)->len, ==, 1);
	g_assert_true(esd_plugin_loader_startup(fixture->loader, NULL));
}

typedef struct {
	const gchar *name;
	const gchar *expected[3];
} RefusedCase;

static const RefusedCase refused_cases[] = {
    {"badabi", {"plugin ABI 999", "the daemon has ABI 1", NULL}},
    {"badbuild", {"was built for some-other-build", "the daemon is build " ERPC_BUILD_ID, NULL}},
    {"misnamed", {"calls itself somebody-else", "expected misnamed", NULL}},
};

static void
test_loader_refused(gconstpointer user_data)
{
	const RefusedCase *tc = user_data;
	g_autoptr(ErpcRegistry) registry = erpc_registry_new();
	g_autoptr(EsdPluginLoader) loader = esd_plugin_loader_new(registry);
	g_autofree gchar *path = test_plugin_path(tc->name);
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcPlugin) plugin = NULL;

	plugin = esd_plugin_loader_load_file(loader, path, &error);
	g_assert_null(plugin);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST);
	for (guint i = 0; tc->expected[i] != NULL; i++) {
		if (strstr(error->message, tc->expected[i]) == NULL)
			g_error("'%s' does not contain '%s'", error->message, tc->expected[i]);
	}
	g_assert_cmpuint(esd_plugin_loader_get_plugins(loader)->len, ==, 0);
}

static void
test_loader_duplicate_method(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *echo = test_plugin_path("echo");
	g_autofree gchar *overlap = test_plugin_path("overlap");
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcPlugin) first = NULL;
	g_autoptr(ErpcPlugin) second = NULL;

	first = esd_plugin_loader_load_file(fixture->loader, echo, &error);
	g_assert_no_error(error);
	second = esd_plugin_loader_load_file(fixture->loader, overlap, &error);
	g_assert_null(second);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_EXISTS);
	g_assert_cmpstr(
	    error->message,
	    ==,
	    "plugin overlap: method test/echo of overlap is already registered by echo");
	/* the refused plugin is removed whole, its other method too */
	g_assert_null(erpc_registry_lookup_method(fixture->registry, "test/overlap-only", NULL));
	g_assert_nonnull(erpc_registry_lookup_method(fixture->registry, "test/echo", NULL));
	g_assert_cmpuint(esd_plugin_loader_get_plugins(fixture->loader)->len, ==, 1);
}

static void
test_loader_name_clash(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *echo = test_plugin_path("echo");
	g_autofree gchar *tmpdir = g_dir_make_tmp("esd-loader-XXXXXX", NULL);
	g_autofree gchar *copy = g_build_filename(tmpdir, "libesd-plugin-echo.so", NULL);
	g_autofree gchar *contents = NULL;
	gsize len = 0;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcPlugin) first = NULL;
	g_autoptr(ErpcPlugin) second = NULL;

	g_assert_true(g_file_get_contents(echo, &contents, &len, NULL));
	g_assert_true(g_file_set_contents_full(copy, contents, (gssize)len, 0, 0755, NULL));
	first = esd_plugin_loader_load_file(fixture->loader, echo, &error);
	g_assert_no_error(error);
	second = esd_plugin_loader_load_file(fixture->loader, copy, &error);
	g_assert_null(second);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_EXISTS);
	g_assert_nonnull(strstr(error->message, copy));
	g_assert_nonnull(strstr(error->message, echo));
	g_unlink(copy);
	g_rmdir(tmpdir);
}

static void
test_loader_unsafe_mode(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *echo = test_plugin_path("echo");
	g_autofree gchar *tmpdir = g_dir_make_tmp("esd-loader-XXXXXX", NULL);
	g_autofree gchar *copy = g_build_filename(tmpdir, "libesd-plugin-echo.so", NULL);
	g_autofree gchar *badname = g_build_filename(tmpdir, "echo.so", NULL);
	g_autofree gchar *contents = NULL;
	gsize len = 0;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcPlugin) plugin = NULL;

	g_assert_true(g_file_get_contents(echo, &contents, &len, NULL));
	g_assert_true(g_file_set_contents_full(copy, contents, (gssize)len, 0, 0755, NULL));
	g_assert_cmpint(chmod(copy, 0777), ==, 0);
	plugin = esd_plugin_loader_load_file(fixture->loader, copy, &error);
	g_assert_null(plugin);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_PERMISSION_DENIED);
	g_assert_nonnull(strstr(error->message, "unsafe mode 0777"));
	g_clear_error(&error);

	g_assert_true(g_file_set_contents_full(badname, contents, (gssize)len, 0, 0755, NULL));
	plugin = esd_plugin_loader_load_file(fixture->loader, badname, &error);
	g_assert_null(plugin);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST);
	g_unlink(copy);
	g_unlink(badname);
	g_rmdir(tmpdir);
}

static void
test_loader_load_all(LoaderFixture *fixture, gconstpointer user_data)
{
	esd_plugin_loader_add_dir(fixture->loader, g_getenv("ESD_TEST_PLUGINDIR"), FALSE);
	/* sorted: badabi, badbuild, echo, misnamed, overlap */
	g_test_expect_message("execserverd",
			      G_LOG_LEVEL_WARNING,
			      "refusing plugin: *badabi*ABI 999*");
	g_test_expect_message("execserverd",
			      G_LOG_LEVEL_WARNING,
			      "refusing plugin: *some-other-build*");
	g_test_expect_message("execserverd",
			      G_LOG_LEVEL_WARNING,
			      "refusing plugin: *somebody-else*");
	g_test_expect_message("execserverd",
			      G_LOG_LEVEL_WARNING,
			      "refusing plugin: plugin overlap: method test/echo of overlap is "
			      "already registered by echo");
	g_assert_cmpuint(esd_plugin_loader_load_all(fixture->loader), ==, 1);
	g_test_assert_expected_messages();
}

/* --- the path of a plugin ---------------------------------------------- */

/* uids of the tests below when they run as root */
#define NESTED_UID 4242 /* the daemon's user inside the user namespace */
#define OTHER_UID  1500 /* someone else on the host */

/* a copy of the echo plugin as DIR/libesd-plugin-echo.so with @mode */
static gchar *
copy_echo(const gchar *dir, guint mode)
{
	g_autofree gchar *echo = test_plugin_path("echo");
	gchar *copy = g_build_filename(dir, "libesd-plugin-echo.so", NULL);
	g_autofree gchar *contents = NULL;
	gsize len = 0;

	g_assert_true(g_file_get_contents(echo, &contents, &len, NULL));
	g_assert_true(g_file_set_contents_full(copy, contents, (gssize)len, 0, 0700, NULL));
	g_assert_cmpint(chmod(copy, mode), ==, 0);
	return copy;
}

static void
remove_tree(const gchar *dir)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *name;

	while (handle != NULL && (name = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			remove_tree(path);
		else
			g_unlink(path);
	}
	g_rmdir(dir);
}

/* --- deferred plugins ---------------------------------------------------- */

/*
 * echo, hard-linked into a new directory next to the test plugins (one
 * module for the dynamic loader, whose GType is registered once), with a
 * manifest of @build_id and @mode
 */
static gchar *
deferred_dir(const gchar *build_id, guint mode)
{
	g_autofree gchar *echo = test_plugin_path("echo");
	g_autofree gchar *parent = g_path_get_dirname(g_getenv("ESD_TEST_PLUGINDIR"));
	g_autofree gchar *template = g_build_filename(parent, "deferred-XXXXXX", NULL);
	gchar *dir = g_mkdtemp_full(g_steal_pointer(&template), 0755);
	g_autofree gchar *plugin = g_build_filename(dir, "libesd-plugin-echo.so", NULL);
	g_autofree gchar *manifest = g_build_filename(dir, "libesd-plugin-echo.manifest", NULL);
	g_autofree gchar *text =
	    g_strdup_printf("[Plugin]\nName=echo\nBuildId=%s\nTransports=echo-a;echo-b;\n"
			    "Options=echo-flag;\nShortOptions=E\n",
			    build_id);

	g_assert_nonnull(dir);
	g_assert_cmpint(link(echo, plugin), ==, 0);
	g_assert_true(g_file_set_contents(manifest, text, -1, NULL));
	g_assert_cmpint(chmod(manifest, mode), ==, 0);
	return dir;
}

static guint
loaded_count(LoaderFixture *fixture)
{
	return esd_plugin_loader_get_plugins(fixture->loader)->len;
}

/* with a manifest, a plugin waits for a scheme it provides */
static void
test_loader_deferred_scheme(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *dir = deferred_dir(ERPC_BUILD_ID, 0644);

	esd_plugin_loader_set_defer(fixture->loader, TRUE);
	esd_plugin_loader_add_dir(fixture->loader, dir, FALSE);
	g_assert_cmpuint(esd_plugin_loader_load_all(fixture->loader), ==, 0);
	g_assert_cmpuint(loaded_count(fixture), ==, 0);
	g_assert_null(esd_plugin_loader_load_deferred_for_scheme(fixture->loader, "ws"));
	g_assert_cmpuint(loaded_count(fixture), ==, 0);
	g_assert_nonnull(esd_plugin_loader_load_deferred_for_scheme(fixture->loader, "echo-b"));
	g_assert_cmpuint(loaded_count(fixture), ==, 1);
	/* loaded once */
	g_assert_null(esd_plugin_loader_load_deferred_for_scheme(fixture->loader, "echo-a"));
	g_assert_cmpuint(loaded_count(fixture), ==, 1);
	remove_tree(dir);
}

typedef struct {
	const gchar *args[4];
	gboolean loads;
} DeferredArgsCase;

static const DeferredArgsCase deferred_args_cases[] = {
    {{"--listen", "stdio", NULL}, FALSE},
    {{"--echo-flag", NULL}, TRUE},
    {{"--echo-flag=1", NULL}, TRUE},
    {{"--echo-flagged", NULL}, FALSE},
    {{"-vE", NULL}, TRUE},
    {{"--help-echo", NULL}, TRUE},
    {{"--help-all", NULL}, TRUE},
    {{"-h", NULL}, TRUE},
    {{"--", "--echo-flag", NULL}, FALSE},
};

/* the options it owns, or a request for help, load a deferred plugin */
static void
test_loader_deferred_args(LoaderFixture *fixture, gconstpointer user_data)
{
	const DeferredArgsCase *tc = user_data;
	g_autofree gchar *dir = deferred_dir(ERPC_BUILD_ID, 0644);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();

	g_ptr_array_add(argv, (gpointer) "execserverd");
	for (guint i = 0; tc->args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)tc->args[i]);
	esd_plugin_loader_set_defer(fixture->loader, TRUE);
	esd_plugin_loader_add_dir(fixture->loader, dir, FALSE);
	esd_plugin_loader_load_all(fixture->loader);
	esd_plugin_loader_load_deferred_for_args(fixture->loader,
						 (gint)argv->len,
						 (gchar **)argv->pdata);
	g_assert_cmpuint(loaded_count(fixture), ==, tc->loads ? 1 : 0);
	remove_tree(dir);
}

/* a manifest of another build, one others may write, or no deferring: loaded at once */
static void
test_loader_deferred_ignored(LoaderFixture *fixture, gconstpointer user_data)
{
	const gchar *kind = user_data;
	gboolean other_build = g_str_equal(kind, "other-build");
	gboolean writable = g_str_equal(kind, "writable");
	g_autofree gchar *dir =
	    deferred_dir(other_build ? "some-other-build" : ERPC_BUILD_ID, writable ? 0666 : 0644);

	esd_plugin_loader_set_defer(fixture->loader, !g_str_equal(kind, "off"));
	esd_plugin_loader_add_dir(fixture->loader, dir, FALSE);
	g_assert_cmpuint(esd_plugin_loader_load_all(fixture->loader), ==, 1);
	remove_tree(dir);
}

/*
 * at start-up a directory is checked once for all its files: each file is
 * still checked itself, so a writable one after a good one is refused
 */
static void
test_loader_checked_dir(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *echo = test_plugin_path("echo");
	g_autofree gchar *overlap = test_plugin_path("overlap");
	g_autofree gchar *parent = g_path_get_dirname(g_getenv("ESD_TEST_PLUGINDIR"));
	g_autofree gchar *template = g_build_filename(parent, "checked-XXXXXX", NULL);
	g_autofree gchar *dir = g_mkdtemp_full(g_steal_pointer(&template), 0755);
	g_autofree gchar *good = g_build_filename(dir, "libesd-plugin-echo.so", NULL);
	g_autofree gchar *bad = g_build_filename(dir, "libesd-plugin-overlap.so", NULL);
	g_autofree gchar *contents = NULL;
	gsize len = 0;

	g_assert_nonnull(dir);
	/* a hard link: one module for the dynamic loader, as in deferred_dir() */
	g_assert_cmpint(link(echo, good), ==, 0);
	g_assert_true(g_file_get_contents(overlap, &contents, &len, NULL));
	g_assert_true(g_file_set_contents_full(bad, contents, (gssize)len, 0, 0755, NULL));
	g_assert_cmpint(chmod(bad, 0666), ==, 0);
	esd_plugin_loader_add_dir(fixture->loader, dir, FALSE);
	g_test_expect_message("execserverd",
			      G_LOG_LEVEL_WARNING,
			      "refusing plugin: *libesd-plugin-overlap.so has unsafe mode 0666*");
	g_assert_cmpuint(esd_plugin_loader_load_all(fixture->loader), ==, 1);
	g_test_assert_expected_messages();
	esd_plugin_loader_end_startup(fixture->loader);
	remove_tree(dir);
}

/* a directory writable by others lets them swap the file after the check */
static void
test_loader_shared_dir(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *tmpdir = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *copy = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcPlugin) plugin = NULL;
	const guint modes[] = {0777, 0775, 0757};

	/* a fresh process: the echo type is registered once per process */
	if (g_test_subprocess()) {
		plugin = esd_plugin_loader_load_file(fixture->loader,
						     g_getenv("ESD_TEST_STICKY_COPY"),
						     &error);
		g_assert_no_error(error);
		g_assert_nonnull(plugin);
		return;
	}
	tmpdir = g_dir_make_tmp("esd-loader-XXXXXX", NULL);
	dir = g_build_filename(tmpdir, "plugins", NULL);
	g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
	copy = copy_echo(dir, 0755);
	for (guint i = 0; i < G_N_ELEMENTS(modes); i++) {
		g_autofree gchar *expected =
		    g_strdup_printf("%s: directory %s is writable by group or others (mode %04o)",
				    copy,
				    dir,
				    modes[i]);
		g_assert_cmpint(chmod(dir, modes[i]), ==, 0);
		plugin = esd_plugin_loader_load_file(fixture->loader, copy, &error);
		g_assert_null(plugin);
		g_assert_error(error, ERPC_ERROR, ERPC_ERROR_PERMISSION_DENIED);
		g_assert_cmpstr(error->message, ==, expected);
		g_clear_error(&error);
	}
	/* sticky, as /tmp: others cannot replace what we own in it */
	g_assert_cmpint(chmod(dir, 01777), ==, 0);
	g_setenv("ESD_TEST_STICKY_COPY", copy, TRUE);
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
	g_unsetenv("ESD_TEST_STICKY_COPY");
	remove_tree(tmpdir);
	g_test_trap_assert_passed();
}

/* as root: a directory of another user, or a file of the overflow uid outside a user namespace */
static void
test_loader_foreign_owner(LoaderFixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *tmpdir = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *copy = NULL;
	g_autofree gchar *expected = NULL;
	g_autoptr(GError) error = NULL;

	if (geteuid() != 0) {
		g_test_skip("needs root to give files to other users");
		return;
	}
	tmpdir = g_dir_make_tmp("esd-loader-XXXXXX", NULL);
	dir = g_build_filename(tmpdir, "plugins", NULL);
	g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
	copy = copy_echo(dir, 0755);
	g_assert_cmpint(chown(dir, OTHER_UID, OTHER_UID), ==, 0);
	expected = g_strdup_printf("%s: %s is owned by uid %u, neither root nor uid 0",
				   copy,
				   dir,
				   (guint)OTHER_UID);
	g_assert_null(esd_plugin_loader_load_file(fixture->loader, copy, &error));
	g_assert_cmpstr(error->message, ==, expected);
	g_clear_error(&error);

	/* where every uid is mapped, 65534 is a user like any other */
	g_assert_cmpint(chown(dir, 0, 0), ==, 0);
	g_assert_cmpint(chown(copy, 65534, 65534), ==, 0);
	g_free(expected);
	expected = g_strdup_printf("%s is owned by uid 65534, neither root nor uid 0", copy);
	g_assert_null(esd_plugin_loader_load_file(fixture->loader, copy, &error));
	g_assert_cmpstr(error->message, ==, expected);
	remove_tree(tmpdir);
}

/* --- nested: inside a user namespace that maps only the daemon's user -- */

/* the daemon's uid in the namespace: our own, or NESTED_UID when we are root */
static uid_t
nested_uid(void)
{
	return geteuid() == 0 ? NESTED_UID : geteuid();
}

static gboolean
write_proc(const gchar *path, const gchar *text)
{
	gint fd = open(path, O_WRONLY | O_CLOEXEC);
	gboolean ok = fd >= 0 && write(fd, text, strlen(text)) == (gssize)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * what bwrap --unshare-user --uid U does for an unprivileged user U: a new
 * user namespace mapping U to itself; as root, become NESTED_UID first
 */
static gboolean
nested_enter(void)
{
	uid_t uid = nested_uid();
	g_autofree gchar *map = g_strdup_printf("%u %u 1\n", (guint)uid, (guint)uid);

	if (geteuid() == 0) {
		if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
		    setresuid(uid, uid, uid) != 0)
			return FALSE;
		/* else /proc/self belongs to root and the maps cannot be written */
		prctl(PR_SET_DUMPABLE, 1);
	}
	return unshare(CLONE_NEWUSER) == 0 && write_proc("/proc/self/setgroups", "deny") &&
	       write_proc("/proc/self/uid_map", map) && write_proc("/proc/self/gid_map", map);
}

/* whether nested_enter() works here, tried in a child */
static gboolean
nested_supported(void)
{
	pid_t pid = fork();
	gint status = 0;

	g_assert_cmpint(pid, >=, 0);
	if (pid == 0)
		_exit(nested_enter() ? 0 : 1);
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

typedef enum { OWNER_NESTED, OWNER_ROOT, OWNER_OTHER } NestedOwner;

typedef struct {
	const gchar *name;
	NestedOwner dir_owner;
	guint dir_mode;
	NestedOwner file_owner;
	guint file_mode;
	EsdPluginDirFlags flags;
	guint loaded;
	const gchar *refusal; /* pattern of the warning, after "refusing plugin: PATH" */
} NestedCase;

static const NestedCase nested_cases[] = {
    /* the daemon's own plugins in its --plugins-dir */
    {"own", OWNER_NESTED, 0755, OWNER_NESTED, 0755, ESD_PLUGIN_DIR_FLAG_NONE, 1, NULL},
    {"own-in-sticky-dir",
     OWNER_NESTED,
     01777,
     OWNER_NESTED,
     0755,
     ESD_PLUGIN_DIR_FLAG_NONE,
     1,
     NULL},
    /* installed-style: root's, seen as the overflow uid */
    {"root-installed", OWNER_ROOT, 0755, OWNER_ROOT, 0755, ESD_PLUGIN_DIR_FLAG_INSTALLED, 1, NULL},
    /* planted */
    {"world-writable",
     OWNER_NESTED,
     0755,
     OWNER_NESTED,
     0666,
     ESD_PLUGIN_DIR_FLAG_NONE,
     0,
     " has unsafe mode 0666"},
    {"group-writable-installed",
     OWNER_ROOT,
     0755,
     OWNER_ROOT,
     0664,
     ESD_PLUGIN_DIR_FLAG_INSTALLED,
     0,
     " has unsafe mode 0664"},
    {"world-writable-dir",
     OWNER_NESTED,
     0777,
     OWNER_NESTED,
     0755,
     ESD_PLUGIN_DIR_FLAG_NONE,
     0,
     ": directory * is writable by group or others (mode 0777)"},
    {"other-user",
     OWNER_NESTED,
     0755,
     OWNER_OTHER,
     0755,
     ESD_PLUGIN_DIR_FLAG_NONE,
     0,
     " is owned by uid 65534, a user not mapped into this user namespace, which only the "
     "installed plugin directory may hold"},
    {"root-in-plugins-dir",
     OWNER_ROOT,
     0755,
     OWNER_ROOT,
     0755,
     ESD_PLUGIN_DIR_FLAG_NONE,
     0,
     ": * is owned by uid 65534, a user not mapped into this user namespace, which only the "
     "installed plugin directory may hold"},
    {"unmapped-in-sticky-dir",
     OWNER_ROOT,
     01777,
     OWNER_OTHER,
     0755,
     ESD_PLUGIN_DIR_FLAG_INSTALLED,
     0,
     " is owned by uid 65534, a user not mapped into this user namespace, in a directory "
     "others can write to"},
};

static gboolean
nested_case_needs_root(const NestedCase *tc)
{
	return tc->dir_owner != OWNER_NESTED || tc->file_owner != OWNER_NESTED;
}

static uid_t
nested_owner_uid(NestedOwner owner)
{
	switch (owner) {
	case OWNER_ROOT:
		return 0;
	case OWNER_OTHER:
		return OTHER_UID;
	case OWNER_NESTED:
	default:
		return nested_uid();
	}
}

/* in the namespace: load DIR as the case says */
static void
nested_case_child(const NestedCase *tc, const gchar *dir)
{
	g_autoptr(ErpcRegistry) registry = erpc_registry_new();
	g_autoptr(EsdPluginLoader) loader = esd_plugin_loader_new(registry);
	g_autofree gchar *pattern = NULL;

	g_assert_true(nested_enter());
	esd_plugin_loader_add_dir_full(loader, dir, tc->flags);
	if (tc->refusal != NULL) {
		pattern = g_strdup_printf("refusing plugin: %s/libesd-plugin-echo.so%s",
					  dir,
					  tc->refusal);
		g_test_expect_message("execserverd", G_LOG_LEVEL_WARNING, pattern);
	}
	g_assert_cmpuint(esd_plugin_loader_load_all(loader), ==, tc->loaded);
	g_test_assert_expected_messages();
}

static void
test_loader_nested(gconstpointer user_data)
{
	const NestedCase *tc = user_data;
	g_autofree gchar *tmpdir = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *copy = NULL;

	if (g_test_subprocess()) {
		nested_case_child(tc, g_getenv("ESD_TEST_NESTED_DIR"));
		return;
	}
	if (nested_case_needs_root(tc) && geteuid() != 0) {
		g_test_skip("needs root to give files to root or another user");
		return;
	}
	if (!nested_supported()) {
		g_test_skip("cannot create a user namespace as an unprivileged user here");
		return;
	}
	/* ours in the namespace, in /tmp, which is sticky */
	tmpdir = g_dir_make_tmp("esd-loader-nested-XXXXXX", NULL);
	g_assert_cmpint(chmod(tmpdir, 0755), ==, 0);
	dir = g_build_filename(tmpdir, "plugins", NULL);
	g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
	copy = copy_echo(dir, tc->file_mode);
	g_assert_cmpint(chmod(dir, tc->dir_mode), ==, 0);
	if (geteuid() == 0) {
		g_assert_cmpint(chown(tmpdir, NESTED_UID, NESTED_UID), ==, 0);
		g_assert_cmpint(
		    chown(dir, nested_owner_uid(tc->dir_owner), nested_owner_uid(tc->dir_owner)),
		    ==,
		    0);
		g_assert_cmpint(
		    chown(copy, nested_owner_uid(tc->file_owner), nested_owner_uid(tc->file_owner)),
		    ==,
		    0);
	}
	g_setenv("ESD_TEST_NESTED_DIR", dir, TRUE);
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
	g_unsetenv("ESD_TEST_NESTED_DIR");
	remove_tree(tmpdir);
	g_test_trap_assert_passed();
}

/*
 * the build tree's test plugins, built by root and seen as the overflow
 * uid: loaded as an installed directory, refused as a --plugins-dir
 */
static void
test_loader_nested_build_tree(gconstpointer user_data)
{
	gboolean installed = GPOINTER_TO_INT(user_data);
	g_autofree gchar *echo = test_plugin_path("echo");
	const gchar *dir = g_getenv("ESD_TEST_PLUGINDIR");
	g_autofree gchar *shared = NULL;
	struct stat st;

	if (g_test_subprocess()) {
		g_autoptr(ErpcRegistry) registry = erpc_registry_new();
		g_autoptr(EsdPluginLoader) loader = esd_plugin_loader_new(registry);
		const gchar *names[] = {"badabi", "badbuild", "echo", "misnamed", "overlap"};

		g_assert_true(nested_enter());
		esd_plugin_loader_add_dir_full(loader,
					       dir,
					       installed ? ESD_PLUGIN_DIR_FLAG_INSTALLED
							 : ESD_PLUGIN_DIR_FLAG_NONE);
		if (installed) {
			/* past the owner check, the plugin checks refuse what they always did */
			g_test_expect_message("execserverd",
					      G_LOG_LEVEL_WARNING,
					      "refusing plugin: *badabi*ABI 999*");
			g_test_expect_message("execserverd",
					      G_LOG_LEVEL_WARNING,
					      "refusing plugin: *some-other-build*");
			g_test_expect_message("execserverd",
					      G_LOG_LEVEL_WARNING,
					      "refusing plugin: *somebody-else*");
			g_test_expect_message("execserverd",
					      G_LOG_LEVEL_WARNING,
					      "refusing plugin: plugin overlap: *");
		} else {
			for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
				g_autofree gchar *pattern = g_strdup_printf(
				    "refusing plugin: %s/libesd-plugin-%s.so: * is owned by uid "
				    "65534, a user not mapped into this user namespace, which only "
				    "the installed plugin directory may hold",
				    dir,
				    names[i]);
				g_test_expect_message("execserverd", G_LOG_LEVEL_WARNING, pattern);
			}
		}
		g_assert_cmpuint(esd_plugin_loader_load_all(loader), ==, installed ? 1 : 0);
		g_test_assert_expected_messages();
		return;
	}
	g_assert_cmpint(stat(echo, &st), ==, 0);
	if (st.st_uid != 0 || nested_uid() == 0) {
		g_test_skip(
		    "the build tree is not root's: nothing in it is seen as the overflow uid");
		return;
	}
	if (!nested_supported()) {
		g_test_skip("cannot create a user namespace as an unprivileged user here");
		return;
	}
	shared = esd_test_find_shared_ancestor(echo);
	if (shared != NULL) {
		g_autofree gchar *why = g_strdup_printf(
		    "the build tree is below %s, which others may write to: an unmapped owner "
		    "there is refused, as it should be",
		    shared);
		g_test_skip(why);
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
	g_test_trap_assert_passed();
}

/* plugins export the entry symbol and nothing else */
static void
test_loader_exports(void)
{
	const gchar *names[] = {"accepted-socket", "fs-local", "stdio", "ws"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree gchar *file = g_strdup_printf("libesd-plugin-%s.so", names[i]);
		g_autofree gchar *path =
		    g_build_filename(g_getenv("ESD_BUILD_PLUGINDIR"), names[i], file, NULL);
		const gchar *argv[] = {"nm", "-D", "--defined-only", path, NULL};
		g_autofree gchar *out = NULL;
		g_auto(GStrv) lines = NULL;
		gint status = 0;
		guint n = 0;

		if (!g_spawn_sync(NULL,
				  (gchar **)argv,
				  NULL,
				  G_SPAWN_SEARCH_PATH,
				  NULL,
				  NULL,
				  &out,
				  NULL,
				  &status,
				  NULL)) {
			g_test_skip("nm is not available");
			return;
		}
		g_assert_cmpint(status, ==, 0);
		lines = g_strsplit(out, "\n", -1);
		for (guint j = 0; lines[j] != NULL; j++) {
			if (lines[j][0] == '\0')
				continue;
			/* "0000000000001234 T erpc_plugin_query" */
			g_assert_true(g_str_has_suffix(lines[j], " T erpc_plugin_query"));
			n++;
		}
		g_assert_cmpuint(n, ==, 1);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add("/execserverd/server/loader/good",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_good,
		   loader_teardown);
	for (guint i = 0; i < G_N_ELEMENTS(refused_cases); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/loader/refused/%s", refused_cases[i].name);
		g_test_add_data_func(path, &refused_cases[i], test_loader_refused);
	}
	g_test_add("/execserverd/server/loader/duplicate-method",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_duplicate_method,
		   loader_teardown);
	g_test_add("/execserverd/server/loader/name-clash",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_name_clash,
		   loader_teardown);
	g_test_add("/execserverd/server/loader/unsafe-mode",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_unsafe_mode,
		   loader_teardown);
	g_test_add("/execserverd/server/loader/load-all",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_load_all,
		   loader_teardown);
	g_test_add("/execserverd/server/loader/deferred/scheme",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_deferred_scheme,
		   loader_teardown);
	for (guint i = 0; i < G_N_ELEMENTS(deferred_args_cases); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/loader/deferred/args/%u", i);
		g_test_add(path,
			   LoaderFixture,
			   &deferred_args_cases[i],
			   loader_setup,
			   test_loader_deferred_args,
			   loader_teardown);
	}
	for (guint i = 0; i < 3; i++) {
		static const gchar *const kinds[] = {"other-build", "writable", "off"};
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/loader/deferred/ignored/%s", kinds[i]);
		g_test_add(path,
			   LoaderFixture,
			   kinds[i],
			   loader_setup,
			   test_loader_deferred_ignored,
			   loader_teardown);
	}
	g_test_add("/execserverd/server/loader/checked-dir",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_checked_dir,
		   loader_teardown);
	g_test_add("/execserverd/server/loader/shared-dir",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_shared_dir,
		   loader_teardown);
	g_test_add("/execserverd/server/loader/foreign-owner",
		   LoaderFixture,
		   NULL,
		   loader_setup,
		   test_loader_foreign_owner,
		   loader_teardown);
	for (guint i = 0; i < G_N_ELEMENTS(nested_cases); i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/server/loader/nested/%s", nested_cases[i].name);
		g_test_add_data_func(path, &nested_cases[i], test_loader_nested);
	}
	g_test_add_data_func("/execserverd/server/loader/nested/build-tree-installed",
			     GINT_TO_POINTER(TRUE),
			     test_loader_nested_build_tree);
	g_test_add_data_func("/execserverd/server/loader/nested/build-tree-plugins-dir",
			     GINT_TO_POINTER(FALSE),
			     test_loader_nested_build_tree);
	g_test_add_func("/execserverd/server/loader/exports", test_loader_exports);
	return g_test_run();
}
