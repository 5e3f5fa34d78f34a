/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <execrpc.h>
#include <string.h>
#include <sys/stat.h>

#include "esd-discovery-cache.h"
#include "esd-discovery-manifest.h"
#include "esd-discovery-read.h"
#include "esd-discovery-util.h"
#include "esd-discovery-v1.h"
#include "esd-discovery-walk.h"

/*
 * One root of capabilityRoots/discoverV1, in the reference's steps and
 * words (WAVE2.md, README.md): the root must be a directory; the walk's
 * regular files give the skills (`SKILL.md`, with `agents/openai.yaml`
 * beside it as metadata) and the namespace manifests; the root's own
 * manifest (first of the three names), or else the nearest ancestor's,
 * comes first among those; a root with a manifest of its own is a plugin,
 * with the mcp and apps files its manifest declares (`.mcp.json` unless it
 * declares the servers inline). Every file counts against one budget.
 *
 * The result is the Discovery object less `id` and `path`, which the
 * caller puts in front: `{"plugin":…,"skills":…,…,"error":…}`.
 */

static const gchar *const esd_discovery_manifest_dirs[] = {".codex-plugin",
							   ".claude-plugin",
							   ".cursor-plugin"};

#define ESD_DISCOVERY_SKILL_FILE     "SKILL.md"
#define ESD_DISCOVERY_SKILL_METADATA "agents/openai.yaml"
#define ESD_DISCOVERY_MCP_DEFAULT    ".mcp.json"

typedef struct {
	const EsdDiscoveryLimits *limits;
	gsize budget;
	GPtrArray *warnings;
} EsdDiscoveryRoot;

static void
esd_discovery_write_text(ErpcJsonWriter *writer, const EsdDiscoveryText *text)
{
	if (text == NULL) {
		erpc_json_writer_null(writer);
		return;
	}
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member_string(writer, "path", text->uri);
	erpc_json_writer_member(writer, "contents");
	erpc_json_writer_string(writer, text->contents, (gssize)text->len);
	erpc_json_writer_end_object(writer);
}

static EsdDiscoveryText *
esd_discovery_root_read(EsdDiscoveryRoot *root, const gchar *path)
{
	return esd_discovery_read_text(path, root->limits, &root->budget, root->warnings);
}

static EsdDiscoveryText *
esd_discovery_first_manifest(EsdDiscoveryRoot *root, const gchar *dir)
{
	for (guint i = 0; i < G_N_ELEMENTS(esd_discovery_manifest_dirs); i++) {
		g_autofree gchar *path =
		    g_build_filename(dir, esd_discovery_manifest_dirs[i], "plugin.json", NULL);
		EsdDiscoveryText *text = esd_discovery_root_read(root, path);
		if (text != NULL)
			return text;
	}
	return NULL;
}

static EsdDiscoveryText *
esd_discovery_ancestor_manifest(EsdDiscoveryRoot *root, const gchar *path)
{
	g_autofree gchar *dir = g_path_get_dirname(path);

	while (strcmp(path, "/") != 0) {
		EsdDiscoveryText *text = esd_discovery_first_manifest(root, dir);
		g_autofree gchar *parent = NULL;

		if (text != NULL)
			return text;
		if (strcmp(dir, "/") == 0)
			break;
		parent = g_path_get_dirname(dir);
		g_free(dir);
		dir = g_steal_pointer(&parent);
	}
	return NULL;
}

/* the index of the manifest directory @path is in, or -1 when it is no plugin manifest */
static gint
esd_discovery_manifest_priority(const gchar *path)
{
	g_autofree gchar *dir = NULL;
	g_autofree gchar *dir_name = NULL;
	const gchar *base = strrchr(path, '/');

	if (base == NULL || strcmp(base + 1, "plugin.json") != 0)
		return -1;
	dir = g_path_get_dirname(path);
	dir_name = g_path_get_basename(dir);
	for (guint i = 0; i < G_N_ELEMENTS(esd_discovery_manifest_dirs); i++) {
		if (strcmp(dir_name, esd_discovery_manifest_dirs[i]) == 0)
			return (gint)i;
	}
	return -1;
}

typedef struct {
	gchar *path;
	gchar *uri;
	gchar *plugin_root; /* the URI of the plugin root, for manifests */
	gint priority;
} EsdDiscoveryEntry;

static void
esd_discovery_entry_free(gpointer data)
{
	EsdDiscoveryEntry *entry = data;
	g_free(entry->path);
	g_free(entry->uri);
	g_free(entry->plugin_root);
	g_free(entry);
}

static gint
esd_discovery_skill_cmp(gconstpointer a, gconstpointer b)
{
	const EsdDiscoveryEntry *x = *(EsdDiscoveryEntry *const *)a;
	const EsdDiscoveryEntry *y = *(EsdDiscoveryEntry *const *)b;
	return strcmp(x->uri, y->uri);
}

static gint
esd_discovery_namespace_cmp(gconstpointer a, gconstpointer b)
{
	const EsdDiscoveryEntry *x = *(EsdDiscoveryEntry *const *)a;
	const EsdDiscoveryEntry *y = *(EsdDiscoveryEntry *const *)b;
	gint c = strcmp(x->plugin_root, y->plugin_root);
	return c != 0 ? c : x->priority - y->priority;
}

/* the URI of the plugin root of the manifest at @path: two levels up */
static gchar *
esd_discovery_plugin_root_uri(const gchar *path)
{
	g_autofree gchar *dir = g_path_get_dirname(path);
	g_autofree gchar *root = g_path_get_dirname(dir);
	return esd_discovery_path_uri(root);
}

static EsdDiscoveryEntry *
esd_discovery_entry_new(const gchar *path, gint priority)
{
	EsdDiscoveryEntry *entry = g_new0(EsdDiscoveryEntry, 1);
	entry->path = g_strdup(path);
	entry->uri = esd_discovery_path_uri(path);
	entry->priority = priority;
	if (priority >= 0)
		entry->plugin_root = esd_discovery_plugin_root_uri(path);
	return entry;
}

static void
esd_discovery_write_strings(ErpcJsonWriter *writer, const gchar *member, GPtrArray *strings)
{
	erpc_json_writer_member(writer, member);
	erpc_json_writer_begin_array(writer);
	for (guint i = 0; i < strings->len; i++)
		erpc_json_writer_string(writer, g_ptr_array_index(strings, i), -1);
	erpc_json_writer_end_array(writer);
}

/* the root's plugin member, read now: its mcp and apps files come before the skills */
static void
esd_discovery_write_plugin(ErpcJsonWriter *writer,
			   EsdDiscoveryRoot *root,
			   const gchar *path,
			   const EsdDiscoveryText *manifest)
{
	g_auto(EsdDiscoveryManifest) declared = {0};
	g_autoptr(EsdDiscoveryText) mcp = NULL;
	g_autoptr(EsdDiscoveryText) apps = NULL;

	esd_discovery_manifest_parse(manifest->contents,
				     manifest->len,
				     manifest->uri,
				     &declared,
				     root->warnings);
	if (declared.mcp_config != NULL) {
		g_autofree gchar *mcp_path = g_build_filename(path, declared.mcp_config, NULL);
		mcp = esd_discovery_root_read(root, mcp_path);
	} else if (!declared.mcp_inline) {
		g_autofree gchar *mcp_path =
		    g_build_filename(path, ESD_DISCOVERY_MCP_DEFAULT, NULL);
		mcp = esd_discovery_root_read(root, mcp_path);
	}
	if (declared.apps_config != NULL) {
		g_autofree gchar *apps_path = g_build_filename(path, declared.apps_config, NULL);
		apps = esd_discovery_root_read(root, apps_path);
	}
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member(writer, "manifest");
	esd_discovery_write_text(writer, manifest);
	erpc_json_writer_member(writer, "mcpConfig");
	esd_discovery_write_text(writer, mcp);
	erpc_json_writer_member(writer, "appsConfig");
	esd_discovery_write_text(writer, apps);
	erpc_json_writer_end_object(writer);
}

/* `"plugin":…,"skills":…,"namespaceManifests":…` of a root that is a directory */
static void
esd_discovery_write_members(ErpcJsonWriter *writer,
			    EsdDiscoveryRoot *root,
			    const gchar *path,
			    const gchar *root_uri)
{
	g_autoptr(EsdDiscoveryWalk) walk = esd_discovery_walk(path, root->limits);
	g_autoptr(GPtrArray) skills = g_ptr_array_new_with_free_func(esd_discovery_entry_free);
	g_autoptr(GPtrArray) manifests = g_ptr_array_new_with_free_func(esd_discovery_entry_free);
	g_autoptr(GHashTable) seen_roots =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(EsdDiscoveryText) own = NULL;
	g_autoptr(EsdDiscoveryText) inherited = NULL;
	g_autoptr(GPtrArray) namespaces =
	    g_ptr_array_new_with_free_func((GDestroyNotify)esd_discovery_text_free);

	for (guint i = 0; i < walk->errors->len; i++) {
		EsdDiscoveryWalkError *error = g_ptr_array_index(walk->errors, i);
		g_autofree gchar *uri = strcmp(error->path, path) == 0
					    ? g_strdup(root_uri)
					    : esd_discovery_path_uri(error->path);
		g_ptr_array_add(
		    root->warnings,
		    g_strdup_printf("failed to scan capability path %s: %s", uri, error->message));
	}
	if (walk->truncated)
		g_ptr_array_add(
		    root->warnings,
		    g_strdup_printf("capability scan reached its traversal limit (root: %s)",
				    root_uri));
	for (guint i = 0; i < walk->files->len; i++) {
		const gchar *file = g_ptr_array_index(walk->files, i);
		const gchar *base = strrchr(file, '/') + 1;
		gint priority = esd_discovery_manifest_priority(file);

		if (strcmp(base, ESD_DISCOVERY_SKILL_FILE) == 0)
			g_ptr_array_add(skills, esd_discovery_entry_new(file, -1));
		if (priority >= 0)
			g_ptr_array_add(manifests, esd_discovery_entry_new(file, priority));
	}
	g_ptr_array_sort(skills, esd_discovery_skill_cmp);
	/* g_ptr_array_sort() is stable since GLib 2.76 only: ties are told apart by priority */
	g_ptr_array_sort(manifests, esd_discovery_namespace_cmp);

	own = esd_discovery_first_manifest(root, path);
	inherited = own != NULL ? esd_discovery_text_copy(own)
				: esd_discovery_ancestor_manifest(root, path);
	if (inherited != NULL) {
		g_autofree gchar *inherited_path = g_filename_from_uri(inherited->uri, NULL, NULL);
		if (inherited_path != NULL)
			g_hash_table_add(seen_roots, esd_discovery_plugin_root_uri(inherited_path));
		g_ptr_array_add(namespaces, g_steal_pointer(&inherited));
	}
	for (guint i = 0; i < manifests->len; i++) {
		EsdDiscoveryEntry *entry = g_ptr_array_index(manifests, i);
		EsdDiscoveryText *text;

		if (g_hash_table_contains(seen_roots, entry->plugin_root))
			continue;
		g_hash_table_add(seen_roots, g_strdup(entry->plugin_root));
		text = esd_discovery_root_read(root, entry->path);
		if (text != NULL)
			g_ptr_array_add(namespaces, text);
	}

	erpc_json_writer_member(writer, "plugin");
	if (own != NULL)
		esd_discovery_write_plugin(writer, root, path, own);
	else
		erpc_json_writer_null(writer);

	erpc_json_writer_member(writer, "skills");
	erpc_json_writer_begin_array(writer);
	for (guint i = 0; i < skills->len; i++) {
		EsdDiscoveryEntry *entry = g_ptr_array_index(skills, i);
		g_autoptr(EsdDiscoveryText) instructions =
		    esd_discovery_root_read(root, entry->path);
		g_autoptr(EsdDiscoveryText) metadata = NULL;
		g_autofree gchar *dir = NULL;
		g_autofree gchar *metadata_path = NULL;

		if (instructions == NULL)
			continue;
		dir = g_path_get_dirname(entry->path);
		metadata_path = g_build_filename(dir, ESD_DISCOVERY_SKILL_METADATA, NULL);
		metadata = esd_discovery_root_read(root, metadata_path);
		erpc_json_writer_begin_object(writer);
		erpc_json_writer_member(writer, "instructions");
		esd_discovery_write_text(writer, instructions);
		erpc_json_writer_member(writer, "metadata");
		esd_discovery_write_text(writer, metadata);
		erpc_json_writer_end_object(writer);
	}
	erpc_json_writer_end_array(writer);

	erpc_json_writer_member(writer, "namespaceManifests");
	erpc_json_writer_begin_array(writer);
	for (guint i = 0; i < namespaces->len; i++)
		esd_discovery_write_text(writer, g_ptr_array_index(namespaces, i));
	erpc_json_writer_end_array(writer);
}

static void
esd_discovery_write_empty(ErpcJsonWriter *writer)
{
	erpc_json_writer_member(writer, "plugin");
	erpc_json_writer_null(writer);
	erpc_json_writer_member(writer, "skills");
	erpc_json_writer_begin_array(writer);
	erpc_json_writer_end_array(writer);
	erpc_json_writer_member(writer, "namespaceManifests");
	erpc_json_writer_begin_array(writer);
	erpc_json_writer_end_array(writer);
}

/**
 * esd_discovery_v1_error:
 * @error: the root's error
 * @out: where the object goes
 *
 * Appends the object of a root that could not be inspected at all.
 */
void
esd_discovery_v1_error(const gchar *error, GString *out)
{
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	esd_discovery_write_empty(&writer);
	erpc_json_writer_member(&writer, "warnings");
	erpc_json_writer_begin_array(&writer);
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_member_string(&writer, "error", error);
	erpc_json_writer_end_object(&writer);
}

/**
 * esd_discovery_v1_root:
 * @path: the root, absolute and normalised
 * @uri: the root as the request named it, for the messages
 * @limits: the bounds
 * @out: where the object goes
 *
 * Appends the Discovery of @path less `id` and `path`.
 */
void
esd_discovery_v1_root(const gchar *path,
		      const gchar *uri,
		      const EsdDiscoveryLimits *limits,
		      GString *out)
{
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	EsdDiscoveryRoot root = {limits, 0, warnings};
	g_autofree gchar *error = NULL;
	ErpcJsonWriter writer;
	struct stat st;

	esd_discovery_cache_note_path(path);
	if (stat(path, &st) != 0) {
		g_autofree gchar *message = esd_discovery_os_error(errno);
		error = g_strdup_printf("failed to inspect capability root %s: %s", uri, message);
	} else if (!S_ISDIR(st.st_mode)) {
		error = g_strdup_printf("capability root %s is not a directory", uri);
	}
	if (error != NULL) {
		esd_discovery_v1_error(error, out);
		return;
	}
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	esd_discovery_write_members(&writer, &root, path, uri);
	esd_discovery_write_strings(&writer, "warnings", warnings);
	erpc_json_writer_member(&writer, "error");
	erpc_json_writer_null(&writer);
	erpc_json_writer_end_object(&writer);
}
