/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>

#include "esd-config.h"

/* what the daemon reads of its command line and config file before the parse */

static void
assert_prescan(const gchar *const *args, const gchar *const *expected)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_auto(GStrv) values = NULL;

	g_ptr_array_add(argv, (gpointer) "execserverd");
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	values = esd_config_prescan((gint)argv->len, (gchar **)argv->pdata, "--plugins-dir");
	if (!g_strv_equal((const gchar *const *)values, expected)) {
		g_autofree gchar *got = g_strjoinv(",", values);
		g_error("prescan gave [%s]", got);
	}
}

static void
test_prescan(void)
{
	assert_prescan((const gchar *[]){NULL}, (const gchar *[]){NULL});
	assert_prescan((const gchar *[]){"--plugins-dir", "a", "--plugins-dir=b", "-v", NULL},
		       (const gchar *[]){"a", "b", NULL});
	/* an empty value is a value */
	assert_prescan((const gchar *[]){"--plugins-dir=", NULL}, (const gchar *[]){"", NULL});
	/* another option, a missing value, and what follows `--` */
	assert_prescan((const gchar *[]){"--plugins-dirs=x", "--plugins-dir", NULL},
		       (const gchar *[]){NULL});
	assert_prescan((const gchar *[]){"--", "--plugins-dir", "c", NULL},
		       (const gchar *[]){NULL});
	/* a value that looks like an option is still the value */
	assert_prescan((const gchar *[]){"--plugins-dir", "--plugins-dir", "--listen", NULL},
		       (const gchar *[]){"--plugins-dir", NULL});
}

static gchar *
write_file(const gchar *content)
{
	g_autoptr(GError) error = NULL;
	gchar *path = NULL;
	gint fd = g_file_open_tmp("esd-config-XXXXXX.conf", &path, &error);

	g_assert_no_error(error);
	g_close(fd, NULL);
	g_assert_true(g_file_set_contents(path, content, -1, NULL));
	return path;
}

static void
assert_read_fails(const gchar *content, const gchar *suffix)
{
	g_autofree gchar *path = write_file(content);
	g_autofree gchar *prefix = g_strconcat(path, suffix, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GKeyFile) file = esd_config_read(path, FALSE, &error);

	g_test_message("%s", content);
	g_assert_null(file);
	g_assert_nonnull(error);
	if (!g_str_has_prefix(error->message, prefix))
		g_error("\"%s\" does not start with \"%s\"", error->message, prefix);
	g_unlink(path);
}

static void
test_read(void)
{
	g_autofree gchar *path = write_file("# c\n\n[ws]\nws-issuer = me\n[fs-local]\n");
	g_autofree gchar *missing = g_strconcat(path, ".missing", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GKeyFile) file = esd_config_read(path, TRUE, &error);
	g_autofree gchar *issuer = NULL;

	g_assert_no_error(error);
	issuer = g_key_file_get_string(file, "ws", "ws-issuer", NULL);
	g_assert_cmpstr(issuer, ==, "me");
	g_assert_true(g_key_file_has_group(file, "fs-local"));
	g_unlink(path);
	/* the default file may be missing, a named one not */
	g_assert_null(esd_config_read(missing, FALSE, &error));
	g_assert_no_error(error);
	g_assert_null(esd_config_read(missing, TRUE, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_FAILED);

	assert_read_fails("[a]\nk=v\n\n  junk\n", ":4: ");
	assert_read_fails("k=v\n[a]\n", ":1: ");
	assert_read_fails("# only comments\n\n  # more\nk=v\n", ":4: ");
	assert_read_fails("[a]\n[b\n", ":2: ");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/execserverd/config/prescan", test_prescan);
	g_test_add_func("/execserverd/config/read", test_read);
	return g_test_run();
}
