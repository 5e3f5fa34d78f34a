/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "erpc-registry-private.h"
#include "esd-plugin-loader.h"

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
	g_assert_true(esd_plugin_loader_startup(fixture->loader));
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
	g_test_add_func("/execserverd/server/loader/exports", test_loader_exports);
	return g_test_run();
}
