/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "esd-test-utils.h"

/*
 * Plugins' options: their groups in --help-all, --plugins-dir read before the
 * parse in both spellings, and the config file: its sections reach the
 * plugins, the command line wins over it, and a broken or missing one is
 * refused with its name. The echo test plugin fails its startup with the
 * message its option carries, which shows the value that reached it.
 */

#define CONFIG_TEST "/execserverd/integration/config/"

static gchar *scratch = NULL;

static gchar *
write_config(const gchar *name, const gchar *content)
{
	g_autofree gchar *path = g_build_filename(scratch, name, NULL);
	g_autoptr(GError) error = NULL;

	g_file_set_contents(path, content, -1, &error);
	g_assert_no_error(error);
	return g_steal_pointer(&path);
}

/* what *out and *err held from an earlier run is freed */
static gint
run(const gchar *const *args, gchar **out, gchar **err)
{
	gint status;

	g_clear_pointer(out, g_free);
	g_clear_pointer(err, g_free);
	status = esd_test_run_daemon(args, out, err);
	g_test_message("exit %d, stderr: %s", status, *err);
	return status;
}

static gsize
count(const gchar *haystack, const gchar *needle)
{
	gsize n = 0;
	for (const gchar *p = strstr(haystack, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* every plugin's group, under --help-all and its own --help-NAME */
static void
test_help_all(void)
{
	const gchar *args[] = {"--help-all", NULL};
	const gchar *fs_args[] = {"--help-fs-local", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	g_autofree gchar *fs_out = NULL;

	g_assert_cmpint(run(args, &out, &err), ==, 0);
	g_assert_nonnull(strstr(out, "WebSocket authentication and TLS (ws plugin):"));
	g_assert_nonnull(strstr(out, "--ws-auth=MODE"));
	g_assert_nonnull(strstr(out, "Local file system (fs-local plugin):"));
	g_assert_nonnull(strstr(out, "--max-file-handles=N"));
	g_assert_nonnull(strstr(out, "--help-ws"));
	g_assert_nonnull(strstr(out, "--listen"));
	g_assert_cmpint(run(fs_args, &fs_out, &err), ==, 0);
	g_assert_nonnull(strstr(fs_out, "--max-file-handles=N"));
	g_assert_null(strstr(fs_out, "--ws-auth"));
	/* --help names the groups but does not list them */
	g_clear_pointer(&out, g_free);
	g_assert_cmpint(run((const gchar *[]){"--help", NULL}, &out, &err), ==, 0);
	g_assert_null(strstr(out, "--ws-auth"));
	g_assert_nonnull(strstr(out, "--help-ws"));
}

/* --plugins-dir is found before the parse, so that the plugins' options exist */
static void
test_plugins_dir_preparsed(void)
{
	const gchar *plugindir = g_getenv("ESD_TEST_PLUGINDIR");
	g_autofree gchar *joined = g_strconcat("--plugins-dir=", plugindir, NULL);
	g_autofree gchar *empty = g_build_filename(scratch, "no-plugins", NULL);
	g_autofree gchar *empty_joined = g_strconcat("--plugins-dir=", empty, NULL);
	const gchar *spellings[][5] = {
	    {"--plugins-dir", plugindir, "--help-all", NULL},
	    {joined, "--help-all", NULL},
	    {"--plugins-dir", empty, joined, "--help-all", NULL},
	    {empty_joined, "--help-all", "--plugins-dir", plugindir, NULL},
	};

	g_assert_nonnull(plugindir);
	g_assert_cmpint(g_mkdir_with_parents(empty, 0700), ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(spellings); i++) {
		g_autofree gchar *out = NULL;
		g_autofree gchar *err = NULL;

		g_assert_cmpint(run(spellings[i], &out, &err), ==, 0);
		if (strstr(out, "--echo-fail-startup=MESSAGE") == NULL)
			g_error("spelling %u: no echo options in --help-all:\n%s", i, out);
	}
	/* the echo option given before --plugins-dir is still known */
	{
		const gchar *args[] = {"--echo-fail-startup", "early", joined, NULL};
		g_autofree gchar *out = NULL;
		g_autofree gchar *err = NULL;

		g_assert_cmpint(run(args, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err, "plugin echo: refused: early"));
		g_assert_cmpstr(out, ==, "");
	}
	/* without the directory the option is unknown: a usage error */
	{
		const gchar *args[] = {"--echo-fail-startup", "x", NULL};
		g_autofree gchar *out = NULL;
		g_autofree gchar *err = NULL;

		g_assert_cmpint(run(args, &out, &err), ==, 2);
		g_assert_nonnull(strstr(err, "--echo-fail-startup"));
	}
	/* an argument the parse takes as another option's value is refused */
	{
		const gchar *args[] = {"--listen", "--plugins-dir", plugindir, NULL};
		g_autofree gchar *out = NULL;
		g_autofree gchar *err = NULL;

		g_assert_cmpint(run(args, &out, &err), ==, 2);
		g_assert_nonnull(strstr(err, "--plugins-dir and --config must each be followed"));
	}
}

/* a --plugins-dir that cannot be read is named, not silently skipped */
static void
test_plugins_dir_unreadable(void)
{
	g_autofree gchar *missing = g_build_filename(scratch, "no-such-dir", NULL);
	g_autofree gchar *file = write_config("not-a-dir", "");
	const gchar *args[] = {"--plugins-dir", missing, "--plugins-dir", file, "--version", NULL};
	g_autofree gchar *expect_missing = g_strdup_printf("WARNING: --plugins-dir %s: ", missing);
	g_autofree gchar *expect_file = g_strdup_printf("WARNING: --plugins-dir %s: ", file);
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(run(args, &out, &err), ==, 0);
	g_assert_nonnull(strstr(err, expect_missing));
	g_assert_nonnull(strstr(err, expect_file));
	/* a directory that exists, even empty, is no mistake */
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	g_assert_cmpint(
	    run((const gchar *[]){"--plugins-dir", scratch, "--version", NULL}, &out, &err),
	    ==,
	    0);
	g_assert_null(strstr(err, "--plugins-dir"));
}

/* a section reaches its plugin; the command line wins over it */
static void
test_values_and_precedence(void)
{
	const gchar *plugindir = g_getenv("ESD_TEST_PLUGINDIR");
	g_autofree gchar *path = write_config("echo.conf",
					      "# comment\n[echo]\nfail-startup=from the file\n\n"
					      "[fs-local]\nmax-file-handles=0\n");
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	{
		const gchar *args[] = {"--plugins-dir", plugindir, "--config", path, NULL};
		g_assert_cmpint(run(args, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err, "refused: from the file"));
	}
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	{
		const gchar *args[] = {"--plugins-dir",
				       plugindir,
				       "--config",
				       path,
				       "--echo-fail-startup",
				       "from the command line",
				       NULL};
		g_assert_cmpint(run(args, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err, "refused: from the command line"));
		g_assert_null(strstr(err, "from the file"));
	}
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	/* fs-local: 0 from the file is refused, unless the command line replaces it */
	{
		g_autofree gchar *fs = write_config("fs.conf", "[fs-local]\nmax-file-handles=0\n");
		const gchar *args[] = {"--listen", "stdio", "--config", fs, NULL};
		const gchar *args_cli[] =
		    {"--listen", "stdio", "--config", fs, "--max-file-handles", "2", NULL};

		g_assert_cmpint(run(args, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err, "--max-file-handles must be at least 1"));
		g_clear_pointer(&out, g_free);
		g_clear_pointer(&err, g_free);
		g_assert_cmpint(run(args_cli, &out, &err), ==, 0);
		g_assert_cmpstr(out, ==, "");
	}
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	/* fs-local: the sandboxed helpers' limits come from the file too */
	{
		g_autofree gchar *fs =
		    write_config("fs-warm.conf", "[fs-local]\nfs-sandbox-helper-idle=0\n");
		g_autofree gchar *fs_bad =
		    write_config("fs-warm-bad.conf", "[fs-local]\nfs-sandbox-helpers=many\n");
		const gchar *args[] = {"--listen", "stdio", "--config", fs, NULL};
		const gchar *args_bad[] = {"--listen", "stdio", "--config", fs_bad, NULL};

		g_assert_cmpint(run(args, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err, "--fs-sandbox-helper-idle must be at least 1"));
		g_clear_pointer(&out, g_free);
		g_clear_pointer(&err, g_free);
		g_assert_cmpint(run(args_bad, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err, "fs-sandbox-helpers: "));
	}
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	/* ws: a value from the file is replaced, not "used multiple times" */
	{
		g_autofree gchar *ws = write_config("ws.conf", "[ws]\nws-auth=capability-token\n");
		const gchar *args[] = {"--config", ws, NULL};
		const gchar *args_cli[] = {"--config",
					   ws,
					   "--ws-auth",
					   "signed-bearer-token",
					   NULL};

		g_assert_cmpint(run(args, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err,
					"`--ws-token-file` or `--ws-token-sha256` is required when "
					"`--ws-auth capability-token` is set"));
		g_clear_pointer(&out, g_free);
		g_clear_pointer(&err, g_free);
		g_assert_cmpint(run(args_cli, &out, &err), ==, 1);
		g_assert_nonnull(strstr(err,
					"`--ws-shared-secret-file` is required when `--ws-auth "
					"signed-bearer-token` is set"));
		g_assert_null(strstr(err, "multiple times"));
	}
}

/* writes @content to DIR/execserverd/execserverd.conf, or removes it for %NULL */
static gchar *
write_default(const gchar *dir, const gchar *content)
{
	g_autofree gchar *subdir = g_build_filename(dir, "execserverd", NULL);
	g_autofree gchar *path = g_build_filename(subdir, "execserverd.conf", NULL);

	if (content == NULL) {
		g_remove(path);
		g_rmdir(subdir);
		g_rmdir(dir);
		return NULL;
	}
	g_assert_cmpint(g_mkdir_with_parents(subdir, 0700), ==, 0);
	g_assert_true(g_file_set_contents(path, content, -1, NULL));
	return g_steal_pointer(&path);
}

/*
 * without --config: the system file, then the user's over it, then the
 * command line over both; --config replaces the two; [execserverd] holds the
 * daemon's own options
 */
static void
test_default_files(void)
{
	const gchar *plugindir = g_getenv("ESD_TEST_PLUGINDIR");
	g_autofree gchar *sysconfdir = g_build_filename(scratch, "sysconf", NULL);
	g_autofree gchar *userconfdir = g_build_filename(scratch, "userconf", NULL);
	g_autofree gchar *system = NULL;
	g_autofree gchar *user = NULL;
	g_autofree gchar *other = write_config("other.conf", "[echo]\nfail-startup=other\n");
	const gchar *args[] = {"--plugins-dir", plugindir, NULL};
	const gchar *args_cli[] = {"--plugins-dir", plugindir, "--echo-fail-startup", "cli", NULL};
	const gchar *args_other[] = {"--plugins-dir", plugindir, "--config", other, NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_setenv("ESD_SYSCONFDIR", sysconfdir, TRUE);
	g_setenv("XDG_CONFIG_HOME", userconfdir, TRUE);
	system = write_default(sysconfdir, "[echo]\nfail-startup=system\n");
	g_assert_cmpint(run(args, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "refused: system"));
	user = write_default(userconfdir, "[echo]\nfail-startup=user\n");
	g_assert_cmpint(run(args, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "refused: user"));
	g_assert_cmpint(run(args_cli, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "refused: cli"));
	g_assert_cmpint(run(args_other, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "refused: other"));

	/* the daemon's options: numbers, booleans, the listen list, each replaced by its flag */
	g_free(write_default(sysconfdir,
			     "[execserverd]\nmax-json-depth=0\nlisten=bogus://x;\n"
			     "verbose=true\nplugins-dir=/nowhere\n"));
	g_free(write_default(userconfdir, "[execserverd]\nno-such-option=1\n"));
	g_assert_cmpint(run((const gchar *[]){"--listen", "stdio", NULL}, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "--max-json-depth is 1 to 1024"));
	g_assert_nonnull(strstr(err, "[execserverd] no-such-option is not a setting"));
	g_assert_nonnull(strstr(err, "[execserverd] plugins-dir is not a setting"));
	g_assert_cmpint(run((const gchar *[]){"--max-json-depth", "8", NULL}, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "unsupported --listen URL bogus://x"));
	g_assert_cmpint(
	    run((const gchar *[]){"--max-json-depth", "8", "--listen", "stdio", NULL}, &out, &err),
	    ==,
	    0);
	/* verbose=true from the file: the stdio connection is logged */
	g_assert_nonnull(strstr(err, "INFO"));
	g_assert_cmpstr(out, ==, "");
	g_free(write_default(userconfdir, "[execserverd]\nmax-json-depth=deep\n"));
	g_assert_cmpint(run((const gchar *[]){"--listen", "stdio", NULL}, &out, &err), ==, 1);
	g_assert_nonnull(strstr(err, "[execserverd] max-json-depth: "));

	write_default(userconfdir, NULL);
	write_default(sysconfdir, NULL);
	g_unsetenv("ESD_SYSCONFDIR");
}

typedef struct {
	const gchar *name;
	const gchar *content; /* NULL: the file does not exist */
	const gchar *message; /* @FILE@ is its path */
} ConfigError;

static const ConfigError config_errors[] = {
    {"missing", NULL, "cannot read the config file @FILE@: "},
    {"bad-line", "[ws]\nws-issuer=x\nthis is not a key\n", "@FILE@:3: "},
    {"key-before-group", "# first\nws-auth=capability-token\n[ws]\n", "@FILE@:2: "},
    {"bad-group", "[fs-local\nmax-file-handles=2\n", "@FILE@:1: "},
    {"bad-integer",
     "[fs-local]\nmax-file-handles=many\n",
     "@FILE@: plugin fs-local: max-file-handles: "},
    {"int-out-of-range",
     "[fs-local]\nmax-file-handles=99999999999\n",
     "@FILE@: plugin fs-local: max-file-handles: 99999999999 is out of range"},
    {"bad-int64",
     "[http]\nhttp-max-body-bytes=lots\n",
     "@FILE@: plugin http: http-max-body-bytes: "},
    {"int-out-of-range-shell",
     "[shell-snapshot]\nshell-snapshot-timeout=4294967296\n",
     "@FILE@: plugin shell-snapshot: shell-snapshot-timeout: 4294967296 is out of range"},
    {"bad-ws-value",
     "[ws]\nws-auth=bogus\n",
     "@FILE@: plugin ws: ws-auth: invalid value 'bogus' for '--ws-auth <MODE>'"},
    {NULL},
};

static void
test_config_error(gconstpointer user_data)
{
	const ConfigError *row = user_data;
	g_autofree gchar *path = g_build_filename(scratch, row->name, NULL);
	g_auto(GStrv) parts = g_strsplit(row->message, "@FILE@", -1);
	g_autofree gchar *message = g_strjoinv(path, parts);
	const gchar *args[] = {"--config", path, NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	if (row->content != NULL)
		g_free(write_config(row->name, row->content));
	g_assert_cmpint(run(args, &out, &err), ==, 1);
	if (strstr(err, message) == NULL)
		g_error("stderr does not say \"%s\": \"%s\"", message, err);
	g_assert_true(g_str_has_prefix(err, "execserverd: "));
	g_assert_cmpstr(out, ==, "");
}

/* --help still works with a broken file */
static void
test_help_with_broken_file(void)
{
	g_autofree gchar *path = write_config("broken.conf", "not a key file\n");
	const gchar *args[] = {"--config", path, "--help", NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(run(args, &out, &err), ==, 0);
	g_assert_nonnull(strstr(out, "--config=FILE"));
}

/* unknown sections and keys are reported once each, and ignored */
static void
test_unknown(void)
{
	g_autofree gchar *path =
	    write_config("unknown.conf",
			 "[nosuch]\na=1\nb=2\n[fs-local]\nmax-file-handle=3\nmax-file-handles=3\n");
	const gchar *args[] = {"--listen", "stdio", "--config", path, NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_cmpint(run(args, &out, &err), ==, 0);
	g_assert_cmpuint(count(err, "section [nosuch] ignored"), ==, 1);
	g_assert_cmpuint(count(err, "unknown key max-file-handle in [fs-local]"), ==, 1);
	g_assert_cmpuint(count(err, "unknown key max-file-handles "), ==, 0);
	g_assert_cmpstr(out, ==, "");
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	gint ret;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	scratch = g_dir_make_tmp("esd-config-XXXXXX", &error);
	g_assert_no_error(error);
	g_test_add_func(CONFIG_TEST "help-all", test_help_all);
	g_test_add_func(CONFIG_TEST "plugins-dir-preparsed", test_plugins_dir_preparsed);
	g_test_add_func(CONFIG_TEST "plugins-dir-unreadable", test_plugins_dir_unreadable);
	g_test_add_func(CONFIG_TEST "values-and-precedence", test_values_and_precedence);
	g_test_add_func(CONFIG_TEST "default-files", test_default_files);
	g_test_add_func(CONFIG_TEST "help-with-broken-file", test_help_with_broken_file);
	g_test_add_func(CONFIG_TEST "unknown", test_unknown);
	for (const ConfigError *row = config_errors; row->name != NULL; row++) {
		g_autofree gchar *path = g_strconcat(CONFIG_TEST "fails/", row->name, NULL);
		g_test_add_data_func(path, row, test_config_error);
	}
	ret = g_test_run();
	{
		g_autoptr(GDir) dir = g_dir_open(scratch, 0, NULL);
		const gchar *name;
		while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
			g_autofree gchar *path = g_build_filename(scratch, name, NULL);
			g_remove(path);
		}
		g_rmdir(scratch);
	}
	g_free(scratch);
	return ret;
}
