/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <execrpc.h>
#include <string.h>
#include <sys/stat.h>

#include "esd-discovery-cache.h"
#include "esd-discovery-manifest.h"
#include "esd-discovery-read.h"
#include "esd-discovery-skill.h"
#include "esd-discovery-util.h"
#include "esd-discovery-v2.h"
#include "esd-discovery-walk.h"

/*
 * capabilities/discoverV2: the executor's own skills and installed plugins
 * (README.md has what the reference was seen to return). Skill roots are
 * `$CODEX_HOME/skills` (`codex-home-skills`, the `.system` skills below it
 * included) and `~/.agents/skills` (`user-agent-skills`); plugins are the
 * versions installed under `$CODEX_HOME/plugins/cache/<marketplace>/<plugin>/`,
 * the highest version of each, in id order, with the skills of the
 * directory their manifest declares and of `skills/`. A skill is a `SKILL.md` whose YAML front
 * matter has a description; the name defaults to the skill's directory.
 * A skill that cannot be read or parsed is left out, and the answer then
 * carries the reference's one warning.
 */

#define ESD_DISCOVERY_INCOMPLETE                                                                   \
	"some capability metadata could not be loaded; discovery may be incomplete"

static const gchar *const esd_discovery_v2_manifest_dirs[] = {".codex-plugin",
							      ".claude-plugin",
							      ".cursor-plugin"};

typedef struct {
	const EsdDiscoveryLimits *limits;
	gboolean incomplete;
} EsdDiscoveryV2;

static gint
esd_discovery_str_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

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

/* one skill; FALSE when it is left out */
static gboolean
esd_discovery_v2_skill(EsdDiscoveryV2 *v2,
		       ErpcJsonWriter *writer,
		       const gchar *path,
		       const gchar *prefix,
		       const gchar *root_id,
		       const gchar *root_uri,
		       gsize *budget)
{
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(EsdDiscoveryText) text = NULL;
	g_autoptr(EsdDiscoveryText) metadata = NULL;
	g_auto(EsdDiscoverySkillMeta) meta = {0};
	g_autoptr(JsonNode) dependencies = NULL;
	g_autoptr(JsonNode) policy = NULL;
	g_autofree gchar *dir = g_path_get_dirname(path);
	g_autofree gchar *metadata_path = g_build_filename(dir, "agents", "openai.yaml", NULL);
	g_autofree gchar *name = NULL;

	text = esd_discovery_read_text(path, v2->limits, budget, warnings);
	if (text == NULL ||
	    !esd_discovery_front_matter_parse(text->contents, text->len, &meta, NULL)) {
		v2->incomplete = TRUE;
		return FALSE;
	}
	metadata = esd_discovery_read_text(metadata_path, v2->limits, budget, warnings);
	if (metadata == NULL || !esd_discovery_skill_metadata_parse(metadata->contents,
								    metadata->len,
								    &dependencies,
								    &policy,
								    NULL)) {
		g_clear_pointer(&dependencies, json_node_unref);
		g_clear_pointer(&policy, json_node_unref);
	}
	if (warnings->len > 0)
		v2->incomplete = TRUE;
	if (meta.name != NULL)
		name = g_strdup(meta.name);
	else
		name = g_path_get_basename(dir);
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member(writer, "name");
	if (prefix != NULL) {
		g_autofree gchar *full = g_strconcat(prefix, ":", name, NULL);
		erpc_json_writer_string(writer, full, -1);
	} else {
		erpc_json_writer_string(writer, name, -1);
	}
	erpc_json_writer_member_string(writer, "description", meta.description);
	erpc_json_writer_member(writer, "shortDescription");
	if (meta.short_description != NULL)
		erpc_json_writer_string(writer, meta.short_description, -1);
	else
		erpc_json_writer_null(writer);
	erpc_json_writer_member_string(writer, "path", text->uri);
	if (root_id != NULL) {
		erpc_json_writer_member(writer, "discoveryRoot");
		erpc_json_writer_begin_object(writer);
		erpc_json_writer_member_string(writer, "id", root_id);
		erpc_json_writer_member_string(writer, "path", root_uri);
		erpc_json_writer_end_object(writer);
	}
	erpc_json_writer_member(writer, "dependencies");
	if (dependencies != NULL)
		erpc_json_writer_node(writer, dependencies);
	else
		erpc_json_writer_null(writer);
	erpc_json_writer_member(writer, "policy");
	if (policy != NULL)
		erpc_json_writer_node(writer, policy);
	else
		erpc_json_writer_null(writer);
	erpc_json_writer_end_object(writer);
	return TRUE;
}

/* the skills below @dir, sorted by URI */
static GPtrArray *
esd_discovery_v2_skill_files(EsdDiscoveryV2 *v2, const gchar *dir)
{
	g_autoptr(EsdDiscoveryWalk) walk = NULL;
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	struct stat st;

	esd_discovery_cache_note_path(dir);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return files;
	walk = esd_discovery_walk(dir, v2->limits);
	if (walk->errors->len > 0 || walk->truncated)
		v2->incomplete = TRUE;
	for (guint i = 0; i < walk->files->len; i++) {
		const gchar *file = g_ptr_array_index(walk->files, i);
		if (g_str_has_suffix(file, "/SKILL.md"))
			g_ptr_array_add(files, esd_discovery_path_uri(file));
	}
	g_ptr_array_sort(files, esd_discovery_str_cmp);
	/* back to paths, now in URI order */
	for (guint i = 0; i < files->len; i++) {
		gchar *path = g_filename_from_uri(g_ptr_array_index(files, i), NULL, NULL);
		g_free(files->pdata[i]);
		files->pdata[i] = path != NULL ? path : g_strdup("/");
	}
	return files;
}

static void
esd_discovery_v2_skills(EsdDiscoveryV2 *v2,
			ErpcJsonWriter *writer,
			const gchar *root_id,
			const gchar *dir)
{
	g_autoptr(GPtrArray) files = esd_discovery_v2_skill_files(v2, dir);
	g_autofree gchar *root_uri = esd_discovery_path_uri(dir);
	gsize budget = 0;

	for (guint i = 0; i < files->len; i++)
		esd_discovery_v2_skill(v2,
				       writer,
				       g_ptr_array_index(files, i),
				       NULL,
				       root_id,
				       root_uri,
				       &budget);
}

/* the sorted names of the directories in @dir */
static GPtrArray *
esd_discovery_v2_subdirs(const gchar *dir)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GDir) handle = NULL;

	esd_discovery_cache_note_path(dir);
	handle = g_dir_open(dir, 0, NULL);
	const gchar *name;

	if (handle == NULL)
		return names;
	esd_discovery_cache_note_dir(dir);
	while ((name = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);
		if (name[0] != '.' && g_file_test(path, G_FILE_TEST_IS_DIR))
			g_ptr_array_add(names, g_strdup(name));
	}
	g_ptr_array_sort(names, esd_discovery_str_cmp);
	return names;
}

/* version order: numeric runs compared as numbers, the rest byte by byte */
static gint
esd_discovery_version_cmp(const gchar *a, const gchar *b)
{
	while (*a != '\0' && *b != '\0') {
		if (g_ascii_isdigit(*a) && g_ascii_isdigit(*b)) {
			gchar *end_a, *end_b;
			guint64 x = g_ascii_strtoull(a, &end_a, 10);
			guint64 y = g_ascii_strtoull(b, &end_b, 10);
			if (x != y)
				return x < y ? -1 : 1;
			a = end_a;
			b = end_b;
			continue;
		}
		if (*a != *b)
			return (guchar)*a < (guchar)*b ? -1 : 1;
		a++;
		b++;
	}
	return (guchar)*a - (guchar)*b;
}

static void
esd_discovery_v2_plugin(EsdDiscoveryV2 *v2,
			ErpcJsonWriter *writer,
			const gchar *marketplace,
			const gchar *plugin,
			const gchar *version,
			const gchar *root)
{
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(EsdDiscoveryText) manifest = NULL;
	g_autoptr(EsdDiscoveryText) mcp = NULL;
	g_autoptr(EsdDiscoveryText) apps = NULL;
	g_auto(EsdDiscoveryManifest) declared = {0};
	g_autofree gchar *id = g_strconcat(plugin, "@", marketplace, NULL);
	g_autofree gchar *root_uri = esd_discovery_path_uri(root);
	const gchar *name;
	gsize budget = 0;

	for (guint i = 0; manifest == NULL && i < G_N_ELEMENTS(esd_discovery_v2_manifest_dirs);
	     i++) {
		g_autofree gchar *path =
		    g_build_filename(root, esd_discovery_v2_manifest_dirs[i], "plugin.json", NULL);
		manifest = esd_discovery_read_text(path, v2->limits, &budget, warnings);
	}
	if (manifest == NULL) {
		v2->incomplete = TRUE;
		return;
	}
	esd_discovery_manifest_parse(manifest->contents,
				     manifest->len,
				     manifest->uri,
				     &declared,
				     warnings);
	if (declared.mcp_config != NULL || !declared.mcp_inline) {
		g_autofree gchar *path = g_build_filename(
		    root,
		    declared.mcp_config != NULL ? declared.mcp_config : ".mcp.json",
		    NULL);
		mcp = esd_discovery_read_text(path, v2->limits, &budget, warnings);
	}
	if (declared.apps_config != NULL) {
		g_autofree gchar *path = g_build_filename(root, declared.apps_config, NULL);
		apps = esd_discovery_read_text(path, v2->limits, &budget, warnings);
	}
	name = declared.name != NULL ? declared.name : plugin;
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member_string(writer, "id", id);
	erpc_json_writer_member_string(writer,
				       "displayName",
				       declared.display_name != NULL ? declared.display_name
								     : name);
	erpc_json_writer_member(writer, "remotePluginId");
	erpc_json_writer_null(writer);
	erpc_json_writer_member_string(writer, "version", version);
	erpc_json_writer_member_string(writer, "root", root_uri);
	erpc_json_writer_member(writer, "files");
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member(writer, "manifest");
	esd_discovery_write_text(writer, manifest);
	erpc_json_writer_member(writer, "mcpConfig");
	esd_discovery_write_text(writer, mcp);
	erpc_json_writer_member(writer, "appsConfig");
	esd_discovery_write_text(writer, apps);
	erpc_json_writer_end_object(writer);
	erpc_json_writer_member(writer, "skills");
	erpc_json_writer_begin_array(writer);
	/* the directory the manifest declares, then the default one */
	for (guint d = 0; d < 2; d++) {
		const gchar *rel = d == 0 ? declared.skills : "skills";
		g_autoptr(GPtrArray) files = NULL;
		g_autofree gchar *dir = NULL;

		if (rel == NULL || (d == 1 && g_strcmp0(declared.skills, "skills") == 0))
			continue;
		dir = g_build_filename(root, rel, NULL);
		files = esd_discovery_v2_skill_files(v2, dir);
		for (guint i = 0; i < files->len; i++)
			esd_discovery_v2_skill(v2,
					       writer,
					       g_ptr_array_index(files, i),
					       name,
					       NULL,
					       NULL,
					       &budget);
	}
	erpc_json_writer_end_array(writer);
	erpc_json_writer_end_object(writer);
	if (warnings->len > 0)
		v2->incomplete = TRUE;
}

typedef struct {
	gchar *id; /* `<plugin>@<marketplace>`, the order of the answer */
	gchar *marketplace;
	gchar *plugin;
	gchar *version;
	gchar *root;
} EsdDiscoveryInstalled;

static void
esd_discovery_installed_free(gpointer data)
{
	EsdDiscoveryInstalled *installed = data;
	g_free(installed->id);
	g_free(installed->marketplace);
	g_free(installed->plugin);
	g_free(installed->version);
	g_free(installed->root);
	g_free(installed);
}

static gint
esd_discovery_installed_cmp(gconstpointer a, gconstpointer b)
{
	const EsdDiscoveryInstalled *x = *(EsdDiscoveryInstalled *const *)a;
	const EsdDiscoveryInstalled *y = *(EsdDiscoveryInstalled *const *)b;
	return strcmp(x->id, y->id);
}

/* the highest version of each plugin under `plugins/cache/<marketplace>/<plugin>/`, by id */
static GPtrArray *
esd_discovery_v2_installed(const gchar *codex_home)
{
	g_autofree gchar *cache = g_build_filename(codex_home, "plugins", "cache", NULL);
	g_autoptr(GPtrArray) marketplaces = esd_discovery_v2_subdirs(cache);
	GPtrArray *installed = g_ptr_array_new_with_free_func(esd_discovery_installed_free);

	for (guint i = 0; i < marketplaces->len; i++) {
		const gchar *marketplace = g_ptr_array_index(marketplaces, i);
		g_autofree gchar *market_dir = g_build_filename(cache, marketplace, NULL);
		g_autoptr(GPtrArray) plugins = esd_discovery_v2_subdirs(market_dir);

		for (guint j = 0; j < plugins->len; j++) {
			const gchar *plugin = g_ptr_array_index(plugins, j);
			g_autofree gchar *plugin_dir = g_build_filename(market_dir, plugin, NULL);
			g_autoptr(GPtrArray) versions = esd_discovery_v2_subdirs(plugin_dir);
			const gchar *best = NULL;
			EsdDiscoveryInstalled *entry;

			for (guint k = 0; k < versions->len; k++) {
				const gchar *version = g_ptr_array_index(versions, k);
				if (best == NULL || esd_discovery_version_cmp(version, best) > 0)
					best = version;
			}
			if (best == NULL)
				continue;
			entry = g_new0(EsdDiscoveryInstalled, 1);
			entry->id = g_strconcat(plugin, "@", marketplace, NULL);
			entry->marketplace = g_strdup(marketplace);
			entry->plugin = g_strdup(plugin);
			entry->version = g_strdup(best);
			entry->root = g_build_filename(plugin_dir, best, NULL);
			g_ptr_array_add(installed, entry);
		}
	}
	g_ptr_array_sort(installed, esd_discovery_installed_cmp);
	return installed;
}

static void
esd_discovery_v2_plugins(EsdDiscoveryV2 *v2, ErpcJsonWriter *writer, const gchar *codex_home)
{
	g_autoptr(GPtrArray) installed = esd_discovery_v2_installed(codex_home);

	for (guint i = 0; i < installed->len; i++) {
		EsdDiscoveryInstalled *entry = g_ptr_array_index(installed, i);
		esd_discovery_v2_plugin(v2,
					writer,
					entry->marketplace,
					entry->plugin,
					entry->version,
					entry->root);
	}
}

/**
 * esd_discovery_v2:
 * @codex_home: the executor's Codex home
 * @home: (nullable): the user's home directory
 * @limits: the bounds of each walk and read
 * @out: where the result goes
 *
 * Appends the result of capabilities/discoverV2.
 */
void
esd_discovery_v2(const gchar *codex_home,
		 const gchar *home,
		 const EsdDiscoveryLimits *limits,
		 GString *out)
{
	EsdDiscoveryV2 v2 = {limits, FALSE};
	g_autofree gchar *home_skills = g_build_filename(codex_home, "skills", NULL);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "plugins");
	erpc_json_writer_begin_array(&writer);
	esd_discovery_v2_plugins(&v2, &writer, codex_home);
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_member(&writer, "skills");
	erpc_json_writer_begin_array(&writer);
	esd_discovery_v2_skills(&v2, &writer, "codex-home-skills", home_skills);
	if (home != NULL) {
		g_autofree gchar *agent_skills = g_build_filename(home, ".agents", "skills", NULL);
		esd_discovery_v2_skills(&v2, &writer, "user-agent-skills", agent_skills);
	}
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_member(&writer, "warnings");
	erpc_json_writer_begin_array(&writer);
	if (v2.incomplete)
		erpc_json_writer_string(&writer, ESD_DISCOVERY_INCOMPLETE, -1);
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_end_object(&writer);
}
