/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>

#include "erpc-plugin-private.h"
#include "esd-config.h"

/*
 * What the daemon knows before its command line is parsed: the plugin
 * directories (the plugins' options must exist for the parse) and the config
 * file, whose `[PLUGIN-NAME]` sections go to the plugins before the command
 * line replaces what they set.
 */

/* larger than any config file; keeps a mistaken path from being read whole */
#define ESD_CONFIG_MAX_SIZE (1024 * 1024)

/**
 * esd_config_prescan:
 * @argc: the argument count
 * @argv: the arguments, the program name first
 * @option: a long option taking a value, e.g. `--plugins-dir`
 *
 * Finds the values of @option as g_option_context_parse() will, as
 * `--NAME=VALUE` or `--NAME VALUE`, in order, up to a `--`. The parse must
 * then find the same values: an argument taken as the value of another
 * option cannot be told apart here.
 *
 * Returns: (transfer full): the values, maybe none
 */
GStrv
esd_config_prescan(gint argc, gchar **argv, const gchar *option)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	gsize len = strlen(option);

	for (gint i = 1; i < argc; i++) {
		const gchar *arg = argv[i];

		if (g_str_equal(arg, "--"))
			break;
		if (strncmp(arg, option, len) != 0)
			continue;
		if (arg[len] == '=')
			g_strv_builder_add(builder, arg + len + 1);
		else if (arg[len] == '\0' && i + 1 < argc)
			g_strv_builder_add(builder, argv[++i]);
	}
	return g_strv_builder_end(builder);
}

/* the line GKeyFile refuses, found by parsing each line alone as it would */
static guint
esd_config_find_bad_line(const gchar *data)
{
	g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
	gboolean in_group = FALSE;

	for (guint i = 0; lines[i] != NULL; i++) {
		g_autoptr(GKeyFile) probe = g_key_file_new();
		const gchar *text = lines[i];
		g_autofree gchar *alone = NULL;

		while (*text == ' ' || *text == '\t')
			text++;
		if (*text == '[') {
			alone = g_strconcat(lines[i], "\n", NULL);
			if (!g_key_file_load_from_data(probe, alone, -1, G_KEY_FILE_NONE, NULL))
				return i + 1;
			in_group = TRUE;
			continue;
		}
		alone = g_strconcat("[probe]\n", lines[i], "\n", NULL);
		if (!g_key_file_load_from_data(probe, alone, -1, G_KEY_FILE_NONE, NULL))
			return i + 1;
		/* a key before the first group */
		if (!in_group) {
			g_auto(GStrv) keys = g_key_file_get_keys(probe, "probe", NULL, NULL);
			if (keys != NULL && keys[0] != NULL)
				return i + 1;
		}
	}
	return 0;
}

/**
 * esd_config_read:
 * @path: the config file
 * @required: whether a missing file is an error (it was named with `--config`)
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the file, or %NULL with @error set,
 *   or %NULL without @error when the default file does not exist
 */
GKeyFile *
esd_config_read(const gchar *path, gboolean required, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) error_local = NULL;
	g_autofree gchar *data = NULL;
	gsize len = 0;
	guint line;

	if (!g_file_get_contents(path, &data, &len, &error_local)) {
		/* a default file under a directory that is not one ($HOME=/dev/null) */
		if (!required && (g_error_matches(error_local, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
				  g_error_matches(error_local, G_FILE_ERROR, G_FILE_ERROR_NOTDIR)))
			return NULL;
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_FAILED,
			    "cannot read the config file %s: %s",
			    path,
			    error_local->message);
		return NULL;
	}
	if (len > ESD_CONFIG_MAX_SIZE) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "%s: larger than %u bytes",
			    path,
			    (guint)ESD_CONFIG_MAX_SIZE);
		return NULL;
	}
	if (memchr(data, '\0', len) != NULL) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "%s: not a text file (it contains a NUL byte)",
			    path);
		return NULL;
	}
	if (g_key_file_load_from_data(file, data, len, G_KEY_FILE_NONE, &error_local))
		return g_steal_pointer(&file);
	line = esd_config_find_bad_line(data);
	if (line > 0)
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "%s:%u: %s",
			    path,
			    line,
			    error_local->message);
	else
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_DATA,
			    "%s: %s",
			    path,
			    error_local->message);
	return NULL;
}

/**
 * esd_config_system_path:
 *
 * Returns: (transfer full): the system config file:
 *   `$ESD_SYSCONFDIR/execserverd/execserverd.conf` where the tests set
 *   that, else the one of `$sysconfdir`
 */
gchar *
esd_config_system_path(void)
{
	const gchar *sysconfdir = g_getenv("ESD_SYSCONFDIR");

	if (sysconfdir != NULL && sysconfdir[0] != '\0')
		return g_build_filename(sysconfdir, "execserverd", "execserverd.conf", NULL);
	return g_strdup(ESD_CONFIG_FILE);
}

/**
 * esd_config_user_path:
 *
 * Returns: (transfer full): `$XDG_CONFIG_HOME/execserverd/execserverd.conf`
 */
gchar *
esd_config_user_path(void)
{
	return g_build_filename(g_get_user_config_dir(), "execserverd", "execserverd.conf", NULL);
}

static const GOptionEntry *
esd_config_find_entry(const GOptionEntry *entries, const gchar *name)
{
	for (const GOptionEntry *entry = entries; entry->long_name != NULL; entry++) {
		if (g_str_equal(entry->long_name, name))
			return entry;
	}
	return NULL;
}

/**
 * esd_config_apply_entries:
 * @file: the config file
 * @path: its name, for messages
 * @group: the daemon's section, `[execserverd]`
 * @entries: the daemon's options; the keys are their long names
 * @not_keys: long names that are no keys: read before any file, or actions
 * @error: return location for a #GError
 *
 * Sets the booleans and numbers of @entries from @group, before the command
 * line replaces them. String lists are left to the caller: the parse
 * replaces what their slots hold without freeing it. A key that names no
 * option, a hidden one or one of @not_keys is reported, as a warning, and
 * ignored.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_config_apply_entries(GKeyFile *file,
			 const gchar *path,
			 const gchar *group,
			 const GOptionEntry *entries,
			 const gchar *const *not_keys,
			 GError **error)
{
	g_auto(GStrv) keys = g_key_file_get_keys(file, group, NULL, NULL);

	for (guint i = 0; keys != NULL && keys[i] != NULL; i++) {
		const GOptionEntry *entry = esd_config_find_entry(entries, keys[i]);
		g_autoptr(GError) error_local = NULL;

		if (entry == NULL || (entry->flags & G_OPTION_FLAG_HIDDEN) != 0 ||
		    g_strv_contains(not_keys, keys[i])) {
			g_warning("%s: [%s] %s is not a setting of the config file: ignored",
				  path,
				  group,
				  keys[i]);
			continue;
		}
		switch (entry->arg) {
		case G_OPTION_ARG_NONE: {
			gboolean value = g_key_file_get_boolean(file, group, keys[i], &error_local);
			if (error_local == NULL)
				*(gboolean *)entry->arg_data = value;
			break;
		}
		case G_OPTION_ARG_INT: {
			gint value = g_key_file_get_integer(file, group, keys[i], &error_local);
			if (error_local == NULL)
				*(gint *)entry->arg_data = value;
			break;
		}
		case G_OPTION_ARG_INT64: {
			gint64 value = g_key_file_get_int64(file, group, keys[i], &error_local);
			if (error_local == NULL)
				*(gint64 *)entry->arg_data = value;
			break;
		}
		default:
			/* the caller's */
			break;
		}
		if (error_local != NULL) {
			g_set_error(error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_DATA,
				    "%s: [%s] %s: %s",
				    path,
				    group,
				    keys[i],
				    error_local->message);
			return FALSE;
		}
	}
	return TRUE;
}

/**
 * esd_config_apply:
 * @file: the config file
 * @path: its name, for messages
 * @loader: the loader, with its plugins loaded
 * @error: return location for a #GError
 *
 * Gives each plugin its `[NAME]` section, loading a deferred plugin of that
 * name; a section no plugin of that name takes is reported once and ignored.
 * The daemon's own section, `[execserverd]`, is esd_config_apply_entries()'s.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_config_apply(GKeyFile *file, const gchar *path, EsdPluginLoader *loader, GError **error)
{
	GPtrArray *plugins = esd_plugin_loader_get_plugins(loader);
	g_auto(GStrv) groups = g_key_file_get_groups(file, NULL);

	for (guint i = 0; groups[i] != NULL; i++) {
		ErpcPlugin *plugin = NULL;

		if (g_str_equal(groups[i], ESD_CONFIG_GROUP))
			continue;
		esd_plugin_loader_load_deferred(loader, groups[i]);
		for (guint j = 0; j < plugins->len && plugin == NULL; j++) {
			ErpcPlugin *candidate = g_ptr_array_index(plugins, j);
			if (g_str_equal(erpc_plugin_get_name(candidate), groups[i]))
				plugin = candidate;
		}
		if (plugin == NULL) {
			g_warning("%s: no plugin %s is loaded: section [%s] ignored",
				  path,
				  groups[i],
				  groups[i]);
			continue;
		}
		if (!erpc_plugin_runner_load_config(plugin, file, groups[i], error)) {
			g_prefix_error(error, "%s: ", path);
			return FALSE;
		}
	}
	return TRUE;
}
