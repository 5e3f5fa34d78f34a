/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "erpc-context-private.h"
#include "erpc-plugin-private.h"
#include "erpc-registry-private.h"
#include "esd-plugin-loader.h"

/*
 * esd-plugin-manifest PLUGIN.so OUTPUT: writes the manifest that lets the
 * daemon defer loading a plugin (see esd-plugin-loader.c), from the plugin
 * itself: the transports, methods and capabilities it registers and the
 * options its group has, as --help shows them, and whether it adds launch
 * hooks. A plugin that provides another extension cannot be deferred.
 *
 * --load-with-env VAR (repeatable) names an environment variable whose
 * presence makes the daemon open the plugin at start-up all the same: for a
 * plugin whose setup acts on what the environment passes, as the sockets
 * of socket activation (LISTEN_FDS).
 */

/* the option names of the lines of --help-NAME: "  -x, --long=VALUE   text" */
static void
esd_manifest_scan_help(const gchar *help, GStrvBuilder *longs, GString *shorts)
{
	g_auto(GStrv) lines = g_strsplit(help, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		const gchar *p = lines[i];

		while (*p == ' ')
			p++;
		if (p[0] == '-' && p[1] != '-' && p[1] != '\0' && p[2] == ',') {
			g_string_append_c(shorts, p[1]);
			p += 3;
			while (*p == ' ')
				p++;
		}
		if (g_str_has_prefix(p, "--") && !g_str_has_prefix(p, "--help")) {
			gsize len = strcspn(p + 2, "= \t");
			g_autofree gchar *name = g_strndup(p + 2, len);
			g_strv_builder_add(longs, name);
		}
	}
}

int
main(int argc, char *argv[])
{
	g_autoptr(ErpcRegistry) registry = NULL;
	g_autoptr(ErpcContext) context = erpc_context_new();
	g_autoptr(EsdPluginLoader) loader = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GStrvBuilder) transports = g_strv_builder_new();
	g_autoptr(GStrvBuilder) longs = g_strv_builder_new();
	g_autoptr(GString) shorts = g_string_new(NULL);
	g_autoptr(GPtrArray) methods = NULL;
	g_autoptr(GPtrArray) caps = NULL;
	g_autoptr(GPtrArray) exts = NULL;
	g_auto(GStrv) transport_list = NULL;
	g_auto(GStrv) long_list = NULL;
	ErpcPlugin *plugin;
	GOptionGroup *group;
	const gchar *name;
	g_autoptr(GStrvBuilder) load_with = g_strv_builder_new();
	g_auto(GStrv) load_with_list = NULL;

	for (gint i = 3; i + 1 < argc && g_str_equal(argv[i], "--load-with-env"); i += 2)
		g_strv_builder_add(load_with, argv[i + 1]);
	load_with_list = g_strv_builder_end(load_with);
	if (argc < 3 || (guint)argc != 3 + 2 * g_strv_length(load_with_list)) {
		g_printerr("usage: %s PLUGIN.so OUTPUT [--load-with-env VAR]...\n", argv[0]);
		return EXIT_FAILURE;
	}
	registry = erpc_registry_new();
	erpc_registry_set_context(registry, context);
	loader = esd_plugin_loader_new(registry);
	plugin = esd_plugin_loader_load_file(loader, argv[1], &error);
	if (plugin == NULL) {
		g_printerr("%s: %s\n", argv[0], error->message);
		return EXIT_FAILURE;
	}
	g_object_unref(plugin);
	name = erpc_plugin_get_name(plugin);
	methods = erpc_registry_list_methods(registry, name);
	caps = erpc_registry_list_capabilities(registry, name);
	exts = erpc_registry_list_extensions(registry, NULL, name);
	/* [Plugin] first, for a reader */
	g_key_file_set_string(file, "Plugin", "Name", name);
	/* loaded before the first process/start looks at the hooks */
	if (erpc_context_get_launch_hooks(context)->len > 0)
		g_key_file_set_boolean(file, "Plugin", "LaunchHooks", TRUE);
	for (guint i = 0; i < methods->len; i++) {
		const ErpcMethodInfo *info =
		    erpc_registry_get_method(registry, g_ptr_array_index(methods, i));
		g_autofree gchar *group_name = g_strconcat("Method ", info->name, NULL);

		g_key_file_set_string(file, group_name, "Family", info->family);
		if (info->params_type != NULL)
			g_key_file_set_string(file, group_name, "ParamsType", info->params_type);
		if (info->capability != NULL)
			g_key_file_set_string(file, group_name, "Capability", info->capability);
		g_key_file_set_uint64(file, group_name, "Since", info->since_version);
		g_key_file_set_uint64(file, group_name, "Flags", info->flags);
	}
	for (guint i = 0; i < caps->len; i++) {
		const gchar *cap = g_ptr_array_index(caps, i);
		g_key_file_set_uint64(file,
				      "Capabilities",
				      cap,
				      erpc_registry_get_capability_version(registry, cap));
	}
	for (guint i = 0; i < exts->len; i++) {
		const gchar *ext = g_ptr_array_index(exts, i);
		const gchar *point = ERPC_EXTENSION_POINT_TRANSPORT ":";

		if (!g_str_has_prefix(ext, point)) {
			g_printerr("%s: %s provides %s, not a transport: it cannot be deferred\n",
				   argv[0],
				   name,
				   ext);
			return EXIT_FAILURE;
		}
		g_strv_builder_add(transports, ext + strlen(point));
	}
	group = erpc_plugin_runner_get_option_group(plugin);
	if (group != NULL) {
		g_autoptr(GOptionContext) option_context = g_option_context_new(NULL);
		g_autofree gchar *help = NULL;

		g_option_context_add_group(option_context, group);
		help = g_option_context_get_help(option_context, FALSE, group);
		esd_manifest_scan_help(help, longs, shorts);
	}
	transport_list = g_strv_builder_end(transports);
	long_list = g_strv_builder_end(longs);
	g_key_file_set_string(file, "Plugin", "Name", name);
	g_key_file_set_string(file, "Plugin", "BuildId", ERPC_BUILD_ID);
	g_key_file_set_string_list(file,
				   "Plugin",
				   "Transports",
				   (const gchar *const *)transport_list,
				   g_strv_length(transport_list));
	g_key_file_set_string_list(file,
				   "Plugin",
				   "Options",
				   (const gchar *const *)long_list,
				   g_strv_length(long_list));
	g_key_file_set_string(file, "Plugin", "ShortOptions", shorts->str);
	if (load_with_list[0] != NULL)
		g_key_file_set_string_list(file,
					   "Plugin",
					   "LoadWithEnvironment",
					   (const gchar *const *)load_with_list,
					   g_strv_length(load_with_list));
	if (!g_key_file_save_to_file(file, argv[2], &error)) {
		g_printerr("%s: %s\n", argv[0], error->message);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
