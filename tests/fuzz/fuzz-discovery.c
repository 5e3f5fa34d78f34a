/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes what the capability-discovery plugin parses out of files it finds
 * in a capability root: the first byte picks the parser, the rest is a
 * file's contents. `F` a SKILL.md front matter (libyaml), `Y` an
 * agents/openai.yaml, `M` a plugin manifest's declarations, anything else
 * the UTF-8 check with Rust's error text. Besides memory errors it aborts
 * when a warning is logged, when a parsed skill has no description or a
 * string that is not UTF-8, when a declared path could leave the root, when
 * the reshaped metadata is not the documented shape, and when the UTF-8
 * check disagrees with GLib's.
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esd-discovery-manifest.h"
#include "esd-discovery-skill.h"
#include "esd-discovery-util.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_log_cb(const gchar *log_domain, GLogLevelFlags level, const gchar *message, gpointer user)
{
	if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0) {
		fprintf(stderr, "fuzz-discovery: logged: %s\n", message);
		abort();
	}
}

static void
fuzz_check(gboolean ok, const gchar *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-discovery: %s\n", what);
		abort();
	}
}

/* a path a manifest declares: relative, no `.`, `..` or empty component */
static void
fuzz_check_declared(const gchar *path)
{
	g_auto(GStrv) parts = NULL;

	if (path == NULL)
		return;
	fuzz_check(path[0] != '\0' && path[0] != '/', "a declared path is empty or absolute");
	parts = g_strsplit_set(path, "/\\", -1);
	for (guint i = 0; parts[i] != NULL; i++)
		fuzz_check(parts[i][0] != '\0' && strcmp(parts[i], ".") != 0 &&
			       strcmp(parts[i], "..") != 0,
			   "a declared path has a dot, dot-dot or empty component");
}

static void
fuzz_front_matter(const gchar *text, gsize len)
{
	g_auto(EsdDiscoverySkillMeta) meta = {0};
	g_autoptr(GError) error = NULL;

	if (!esd_discovery_front_matter_parse(text, len, &meta, &error)) {
		fuzz_check(error != NULL && g_utf8_validate(error->message, -1, NULL),
			   "a refused front matter has no UTF-8 error");
		return;
	}
	fuzz_check(meta.description != NULL, "a skill without a description");
	fuzz_check(g_utf8_validate(meta.description, -1, NULL), "a description that is not UTF-8");
	fuzz_check(meta.name == NULL || g_utf8_validate(meta.name, -1, NULL),
		   "a name that is not UTF-8");
}

static void
fuzz_metadata(const gchar *text, gsize len)
{
	g_autoptr(JsonNode) dependencies = NULL;
	g_autoptr(JsonNode) policy = NULL;
	g_autofree gchar *dump = NULL;

	esd_discovery_skill_metadata_parse(text, len, &dependencies, &policy, NULL);
	fuzz_check(dependencies != NULL && policy != NULL, "no dependencies or policy node");
	if (JSON_NODE_HOLDS_OBJECT(dependencies)) {
		JsonNode *tools =
		    json_object_get_member(json_node_get_object(dependencies), "tools");
		fuzz_check(tools != NULL && JSON_NODE_HOLDS_ARRAY(tools),
			   "dependencies without tools");
		for (guint i = 0; i < json_array_get_length(json_node_get_array(tools)); i++) {
			JsonNode *tool = json_array_get_element(json_node_get_array(tools), i);
			fuzz_check(JSON_NODE_HOLDS_OBJECT(tool) &&
				       json_object_get_size(json_node_get_object(tool)) == 7,
				   "a tool that is not seven members");
		}
	} else {
		fuzz_check(JSON_NODE_HOLDS_NULL(dependencies),
			   "dependencies neither object nor null");
	}
	fuzz_check(JSON_NODE_HOLDS_OBJECT(policy) || JSON_NODE_HOLDS_NULL(policy),
		   "policy neither object nor null");
	dump = json_to_string(dependencies, FALSE);
	fuzz_check(dump != NULL, "dependencies do not serialise");
}

static void
fuzz_manifest(const gchar *text, gsize len)
{
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	g_auto(EsdDiscoveryManifest) manifest = {0};

	esd_discovery_manifest_parse(text, len, "file:///fuzz/plugin.json", &manifest, warnings);
	fuzz_check_declared(manifest.mcp_config);
	fuzz_check_declared(manifest.apps_config);
	fuzz_check_declared(manifest.skills);
	fuzz_check(!(manifest.mcp_inline && manifest.mcp_config != NULL),
		   "inline servers and an mcp file at once");
	fuzz_check(warnings->len <= 2, "more than one warning per declared path");
}

static void
fuzz_utf8(const gchar *text, gsize len)
{
	g_autofree gchar *error = esd_discovery_utf8_error(text, len);
	g_autofree gchar *copy = g_memdup2(text, len + 1);

	/* g_utf8_validate_len() refuses NUL, which UTF-8 allows */
	for (gsize i = 0; i < len; i++) {
		if (copy[i] == '\0')
			copy[i] = 'x';
	}
	fuzz_check((error == NULL) == g_utf8_validate_len(copy, len, NULL),
		   "the UTF-8 check disagrees with GLib");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gboolean initialized = FALSE;
	g_autofree gchar *text = NULL;
	gsize len;

	if (!initialized) {
		g_log_set_default_handler(fuzz_log_cb, NULL);
		initialized = TRUE;
	}
	if (size == 0)
		return 0;
	/* NUL-terminated for the parsers that stop at it, with the length given as well */
	len = size - 1;
	text = g_malloc(len + 1);
	memcpy(text, data + 1, len);
	text[len] = '\0';
	switch (data[0]) {
	case 'F':
		fuzz_front_matter(text, len);
		break;
	case 'Y':
		fuzz_metadata(text, len);
		break;
	case 'M':
		fuzz_manifest(text, len);
		break;
	default:
		fuzz_utf8(text, len);
		break;
	}
	return 0;
}
