/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "esd-environment.h"

/*
 * The capability flags of the protocol, in the order the reference sends
 * them. Every one is sent; it is true only when a plugin registered it.
 */
static const gchar *const esd_environment_known_capabilities[] = {
    "networkProxyLaunch",
    "networkProxyReviewDomains",
    "networkProxyTransparentTcp",
    "credentialMasking",
    "credentialMaskingCustomProviders",
    "capabilityDiscoverySandbox",
    "fsWatchMissing",
    "capabilityDiscoveryV2",
    "environmentConfigRead",
    "httpHeaderEnvVars",
    "sandboxedFileStreaming",
    "fileWriteStreaming",
    "shellSnapshotV2",
    "windowsMxc",
    "linuxRootWritePreservesDevices",
    "linuxApprovedRootWritePreservesRestrictions",
    NULL,
};

gchar *
esd_environment_path_to_uri(const gchar *path)
{
	g_autofree gchar *uri = g_filename_to_uri(path, NULL, NULL);
	if (uri == NULL)
		return NULL;
	/* the protocol writes directories without a trailing slash */
	if (g_str_has_suffix(uri, "/") && !g_str_equal(uri, "file:///"))
		uri[strlen(uri) - 1] = '\0';
	return g_steal_pointer(&uri);
}

static void
esd_environment_add_uri(JsonBuilder *builder, const gchar *member, const gchar *path)
{
	g_autofree gchar *uri = NULL;

	if (path == NULL)
		return;
	uri = esd_environment_path_to_uri(path);
	if (uri == NULL)
		return;
	json_builder_set_member_name(builder, member);
	json_builder_add_string_value(builder, uri);
}

static void
esd_environment_add_shell(JsonBuilder *builder)
{
	struct passwd *pw = getpwuid(getuid());
	const gchar *shell = NULL;
	g_autofree gchar *name = NULL;

	if (pw != NULL && pw->pw_shell != NULL && pw->pw_shell[0] == '/')
		shell = pw->pw_shell;
	if (shell == NULL)
		shell = g_getenv("SHELL");
	if (shell == NULL || shell[0] != '/')
		shell = "/bin/sh";
	name = g_path_get_basename(shell);
	json_builder_set_member_name(builder, "shell");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, name);
	json_builder_set_member_name(builder, "path");
	json_builder_add_string_value(builder, shell);
	json_builder_end_object(builder);
}

/**
 * esd_environment_foreach_capability:
 * @func: called with each capability flag and whether it is on
 *
 * Walks the capability flags of environmentInfo: every flag of the protocol,
 * in the order the reference sends them, true only when a plugin registered
 * it; then the capabilities of third-party plugins, sorted, all true.
 */
void
esd_environment_foreach_capability(ErpcRegistry *registry,
				   EsdEnvironmentCapabilityFunc func,
				   gpointer user_data)
{
	g_autoptr(GPtrArray) registered = erpc_registry_list_capabilities(registry, NULL);

	for (guint i = 0; esd_environment_known_capabilities[i] != NULL; i++) {
		const gchar *name = esd_environment_known_capabilities[i];
		func(name, erpc_registry_get_capability_version(registry, name) > 0, user_data);
	}
	for (guint i = 0; i < registered->len; i++) {
		const gchar *name = g_ptr_array_index(registered, i);
		if (!g_strv_contains(esd_environment_known_capabilities, name))
			func(name, TRUE, user_data);
	}
}

static void
esd_environment_add_capability_cb(const gchar *name, gboolean enabled, gpointer user_data)
{
	JsonBuilder *builder = user_data;
	json_builder_set_member_name(builder, name);
	json_builder_add_boolean_value(builder, enabled);
}

static void
esd_environment_add_capabilities(JsonBuilder *builder, ErpcRegistry *registry)
{
	json_builder_set_member_name(builder, "capabilities");
	json_builder_begin_object(builder);
	esd_environment_foreach_capability(registry, esd_environment_add_capability_cb, builder);
	json_builder_end_object(builder);
}

gchar *
esd_environment_provider_id(void)
{
	g_autofree gchar *digest = NULL;
	g_autofree gchar *stamp =
	    g_strdup_printf("execserverd %s %s", PACKAGE_VERSION, ERPC_BUILD_ID);

	digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, stamp, -1);
	return g_strdup_printf("sha256:%s", digest);
}

/* the EnvironmentInfo object, serialized once at startup */
gchar *
esd_environment_build_info(ErpcRegistry *registry)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree gchar *cwd = g_get_current_dir();
	g_autofree gchar *provider_id = esd_environment_provider_id();
	const gchar *tmpdir = g_getenv("TMPDIR");

	json_builder_begin_object(builder);
	esd_environment_add_shell(builder);
	json_builder_set_member_name(builder, "executorVersion");
	json_builder_add_string_value(builder, ESD_PROTOCOL_VERSION);
	json_builder_set_member_name(builder, "providerId");
	json_builder_add_string_value(builder, provider_id);
	esd_environment_add_uri(builder, "cwd", cwd);
	esd_environment_add_uri(builder, "userHomeDir", g_get_home_dir());
	json_builder_set_member_name(builder, "platformOs");
	json_builder_add_string_value(builder, "linux");
	json_builder_set_member_name(builder, "temporaryDirectories");
	json_builder_begin_array(builder);
	if (tmpdir != NULL && tmpdir[0] == '/') {
		g_autofree gchar *uri = esd_environment_path_to_uri(tmpdir);
		if (uri != NULL)
			json_builder_add_string_value(builder, uri);
	}
	json_builder_end_array(builder);
	esd_environment_add_uri(builder, "tempDir", g_get_tmp_dir());
	esd_environment_add_capabilities(builder, registry);
	json_builder_end_object(builder);

	root = json_builder_get_root(builder);
	return erpc_json_to_string(root);
}
