/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc.h>
#include <string.h>

#include "esd-discovery-manifest.h"

/*
 * The members of a plugin manifest (`.codex-plugin/plugin.json`) that name
 * other files. As in the reference, a manifest that is not a JSON object
 * declares nothing (the defaults apply, without a warning), and a declared
 * path must be `./`-relative and stay below the root, or it is ignored with
 * a warning naming the manifest.
 */

#define ESD_DISCOVERY_MANIFEST_MAX_DEPTH 64

void
esd_discovery_manifest_clear(EsdDiscoveryManifest *manifest)
{
	g_clear_pointer(&manifest->mcp_config, g_free);
	g_clear_pointer(&manifest->apps_config, g_free);
	g_clear_pointer(&manifest->name, g_free);
	g_clear_pointer(&manifest->display_name, g_free);
	g_clear_pointer(&manifest->skills, g_free);
	manifest->mcp_inline = FALSE;
}

/* @rel without `.` and empty components; NULL when it climbs or is empty */
static gchar *
esd_discovery_manifest_clean(const gchar *rel)
{
	g_auto(GStrv) parts = NULL;
	g_autoptr(GPtrArray) kept = g_ptr_array_new();

	if (rel[0] == '\0' || rel[0] == '/')
		return NULL;
	parts = g_strsplit_set(rel, "/\\", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (strcmp(parts[i], "..") == 0)
			return NULL;
		if (parts[i][0] == '\0' || strcmp(parts[i], ".") == 0)
			continue;
		g_ptr_array_add(kept, parts[i]);
	}
	if (kept->len == 0)
		return NULL;
	g_ptr_array_add(kept, NULL);
	return g_strjoinv("/", (gchar **)kept->pdata);
}

static gchar *
esd_discovery_manifest_path(JsonNode *node,
			    const gchar *field,
			    const gchar *manifest_uri,
			    GPtrArray *warnings)
{
	const gchar *value;
	gchar *clean;

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	value = json_node_get_string(node);
	if (!g_str_has_prefix(value, "./")) {
		g_ptr_array_add(warnings,
				g_strdup_printf("ignoring %s in %s: path must start with `./`",
						field,
						manifest_uri));
		return NULL;
	}
	clean = esd_discovery_manifest_clean(value + 2);
	if (clean == NULL) {
		g_ptr_array_add(warnings,
				g_strdup_printf("ignoring %s in %s: path must remain below the "
						"capability root",
						field,
						manifest_uri));
		return NULL;
	}
	return clean;
}

static gchar *
esd_discovery_manifest_string(JsonObject *obj, const gchar *member)
{
	JsonNode *node = json_object_get_member(obj, member);

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return g_strdup(json_node_get_string(node));
}

/**
 * esd_discovery_manifest_parse:
 * @contents: the manifest's text
 * @len: its length
 * @manifest_uri: its URI, for the warnings
 * @manifest: (out caller-allocates): what it declares
 * @warnings: (element-type utf8): where the warnings go
 */
void
esd_discovery_manifest_parse(const gchar *contents,
			     gsize len,
			     const gchar *manifest_uri,
			     EsdDiscoveryManifest *manifest,
			     GPtrArray *warnings)
{
	g_autoptr(JsonNode) root = NULL;
	JsonObject *obj;
	JsonNode *mcp;
	JsonNode *interface;

	memset(manifest, 0, sizeof(*manifest));
	root = erpc_json_parse(contents, len, len + 1, ESD_DISCOVERY_MANIFEST_MAX_DEPTH, NULL);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
		return;
	obj = json_node_get_object(root);
	mcp = json_object_get_member(obj, "mcpServers");
	manifest->mcp_inline = mcp != NULL && JSON_NODE_HOLDS_OBJECT(mcp);
	manifest->mcp_config =
	    esd_discovery_manifest_path(mcp, "mcpServers", manifest_uri, warnings);
	manifest->apps_config = esd_discovery_manifest_path(json_object_get_member(obj, "apps"),
							    "apps",
							    manifest_uri,
							    warnings);
	manifest->name = esd_discovery_manifest_string(obj, "name");
	interface = json_object_get_member(obj, "interface");
	if (interface != NULL && JSON_NODE_HOLDS_OBJECT(interface))
		manifest->display_name =
		    esd_discovery_manifest_string(json_node_get_object(interface), "displayName");
	{
		JsonNode *skills = json_object_get_member(obj, "skills");
		if (skills != NULL && JSON_NODE_HOLDS_VALUE(skills) &&
		    json_node_get_value_type(skills) == G_TYPE_STRING &&
		    g_str_has_prefix(json_node_get_string(skills), "./"))
			manifest->skills =
			    esd_discovery_manifest_clean(json_node_get_string(skills) + 2);
	}
}
