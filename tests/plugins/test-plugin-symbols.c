/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib.h>
#include <string.h>

/*
 * What the built plugin modules (and the programs plugins run, such as
 * esd-fs-helper) contain and import, read with nm: no plugin carries a copy
 * of the daemon's sandbox, which the daemon alone links (plugins reach it
 * as a host service, erpc_context_get_sandbox()), and none links against
 * what only the daemon may call (the *_PRIVATE version nodes of the
 * libraries). The modules are the arguments, from tests/plugins/meson.build.
 */

static const gchar *const sandbox_prefixes[] = {"esd_bwrap_",
						"esd_seccomp_",
						"esd_sandbox_",
						"esd_landlock_",
						NULL};

static GPtrArray *modules = NULL;

/* libesd-plugin-NAME.so → NAME */
static gchar *
plugin_name(const gchar *path)
{
	g_autofree gchar *base = g_path_get_basename(path);
	const gchar *name = base;

	if (g_str_has_prefix(name, "libesd-plugin-"))
		name += strlen("libesd-plugin-");
	return g_strndup(name, strcspn(name, "."));
}

/* the lines nm prints, or NULL when nm cannot be run (the test is skipped) */
static gchar **
run_nm(const gchar *const *args, const gchar *path)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	gint status = 0;

	g_ptr_array_add(argv, (gpointer) "nm");
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, (gpointer)path);
	g_ptr_array_add(argv, NULL);
	if (!g_spawn_sync(NULL,
			  (gchar **)argv->pdata,
			  NULL,
			  G_SPAWN_SEARCH_PATH,
			  NULL,
			  NULL,
			  &out,
			  &err,
			  &status,
			  &error)) {
		g_test_skip_printf("nm is not available: %s", error->message);
		return NULL;
	}
	if (!g_spawn_check_wait_status(status, &error))
		g_error("nm %s: %s: %s", path, error->message, err);
	return g_strsplit(out, "\n", -1);
}

/* "0000000000001234 t name" → name */
static const gchar *
symbol_of(const gchar *line)
{
	const gchar *space = strrchr(line, ' ');
	return space != NULL ? space + 1 : line;
}

static gboolean
is_sandbox_symbol(const gchar *symbol)
{
	for (guint i = 0; sandbox_prefixes[i] != NULL; i++) {
		if (g_str_has_prefix(symbol, sandbox_prefixes[i]))
			return TRUE;
	}
	return FALSE;
}

static void
test_plugin_symbols_no_sandbox(void)
{
	const gchar *const args[] = {"--defined-only", NULL};

	g_assert_cmpuint(modules->len, >, 0);
	for (guint i = 0; i < modules->len; i++) {
		const gchar *path = g_ptr_array_index(modules, i);
		g_autofree gchar *name = plugin_name(path);
		g_auto(GStrv) lines = run_nm(args, path);
		g_autoptr(GString) found = g_string_new(NULL);
		guint n_found = 0;
		guint n_local = 0;

		if (lines == NULL)
			return;
		for (guint j = 0; lines[j] != NULL; j++) {
			const gchar *symbol = symbol_of(lines[j]);
			if (strstr(lines[j], " t ") != NULL)
				n_local++;
			if (!is_sandbox_symbol(symbol))
				continue;
			if (n_found++ < 5)
				g_string_append_printf(found, " %s", symbol);
		}
		/* a module without its symbol table would pass for anything */
		if (n_local == 0) {
			g_test_fail_printf("%s has no local symbols: stripped?", path);
			continue;
		}
		g_test_message("%s: %u sandbox symbols", name, n_found);
		if (n_found > 0)
			g_test_fail_printf("plugin %s contains %u symbols of the sandbox:%s",
					   name,
					   n_found,
					   found->str);
	}
}

/* the other half of "once": the daemon has the sandbox, so nm does see it */
static void
test_plugin_symbols_daemon_has_sandbox(void)
{
	const gchar *const args[] = {"--defined-only", NULL};
	const gchar *daemon = g_getenv("ESD_TEST_DAEMON");
	g_auto(GStrv) lines = NULL;
	guint n_found = 0;

	if (daemon == NULL) {
		g_test_skip("ESD_TEST_DAEMON is not set");
		return;
	}
	lines = run_nm(args, daemon);
	if (lines == NULL)
		return;
	for (guint j = 0; lines[j] != NULL; j++) {
		if (is_sandbox_symbol(symbol_of(lines[j])))
			n_found++;
	}
	g_test_message("%s: %u sandbox symbols", daemon, n_found);
	if (n_found == 0)
		g_test_fail_printf("%s contains no sandbox symbols: nm sees nothing", daemon);
}

static void
test_plugin_symbols_no_private_imports(void)
{
	const gchar *const args[] = {"-D", "--undefined-only", NULL};
	guint n_versioned = 0;

	g_assert_cmpuint(modules->len, >, 0);
	for (guint i = 0; i < modules->len; i++) {
		const gchar *path = g_ptr_array_index(modules, i);
		g_auto(GStrv) lines = run_nm(args, path);

		if (lines == NULL)
			return;
		for (guint j = 0; lines[j] != NULL; j++) {
			/* "                 U erpc_call_return@LIBEXECRPC_PLUGIN_1" */
			const gchar *version = strchr(symbol_of(lines[j]), '@');
			if (version == NULL || !g_str_has_prefix(version, "@LIBEXECRPC"))
				continue;
			n_versioned++;
			if (g_str_has_suffix(version, "_PRIVATE"))
				g_test_fail_printf("%s imports %s, which only the daemon may call",
						   path,
						   symbol_of(lines[j]));
		}
	}
	/* an older nm prints no versions: nothing was checked */
	if (n_versioned == 0)
		g_test_skip("nm prints no symbol versions");
}

int
main(int argc, char **argv)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
	int ret;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	for (gint i = 1; i < argc; i++)
		g_ptr_array_add(paths, g_strdup(argv[i]));
	modules = paths;

	g_test_add_func("/execserverd/plugins/symbols/no-sandbox", test_plugin_symbols_no_sandbox);
	g_test_add_func("/execserverd/plugins/symbols/daemon-has-sandbox",
			test_plugin_symbols_daemon_has_sandbox);
	g_test_add_func("/execserverd/plugins/symbols/no-private-imports",
			test_plugin_symbols_no_private_imports);
	ret = g_test_run();
	modules = NULL;
	return ret;
}
