/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-discovery-manifest.h"
#include "esd-discovery-read.h"
#include "esd-discovery-skill.h"
#include "esd-discovery-util.h"
#include "esd-discovery-walk.h"

/*
 * The capability-discovery plugin's parts in process: the walk (order,
 * links, limits), the bounded reads, Rust's UTF-8 error texts, manifest
 * declarations, SKILL.md front matter and agents/openai.yaml.
 */

typedef struct {
	gchar *dir;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	fx->dir = g_dir_make_tmp("esd-test-discovery-unit-XXXXXX", NULL);
	g_assert_nonnull(fx->dir);
}

static void
fixture_teardown(Fixture *fx, gconstpointer data)
{
	const gchar *chmod_argv[] = {"chmod", "-R", "u+rwx", fx->dir, NULL};
	const gchar *rm_argv[] = {"rm", "-rf", fx->dir, NULL};

	g_assert_true(g_spawn_sync(NULL,
				   (gchar **)chmod_argv,
				   NULL,
				   G_SPAWN_SEARCH_PATH,
				   NULL,
				   NULL,
				   NULL,
				   NULL,
				   NULL,
				   NULL));
	g_assert_true(g_spawn_sync(NULL,
				   (gchar **)rm_argv,
				   NULL,
				   G_SPAWN_SEARCH_PATH,
				   NULL,
				   NULL,
				   NULL,
				   NULL,
				   NULL,
				   NULL));
	g_free(fx->dir);
}

static gchar *
fx_put(Fixture *fx, const gchar *rel, const gchar *data)
{
	gchar *path = g_build_filename(fx->dir, rel, NULL);
	g_autofree gchar *parent = g_path_get_dirname(path);

	g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
	g_assert_true(g_file_set_contents(path, data, -1, NULL));
	return path;
}

static gchar *
fx_abs(Fixture *fx, const gchar *rel)
{
	return g_build_filename(fx->dir, rel, NULL);
}

static void
fx_symlink(Fixture *fx, const gchar *target, const gchar *rel)
{
	g_autofree gchar *path = fx_abs(fx, rel);
	g_assert_cmpint(symlink(target, path), ==, 0);
}

/* the walk's files as paths relative to @root, joined with spaces */
static gchar *
walk_files(Fixture *fx, const gchar *root, const EsdDiscoveryLimits *limits, gboolean *truncated)
{
	g_autofree gchar *top = fx_abs(fx, root);
	g_autoptr(EsdDiscoveryWalk) walk = esd_discovery_walk(top, limits);
	g_autoptr(GString) out = g_string_new(NULL);

	for (guint i = 0; i < walk->files->len; i++) {
		const gchar *file = g_ptr_array_index(walk->files, i);
		g_assert_true(g_str_has_prefix(file, top));
		g_string_append_printf(out, "%s%s", i > 0 ? " " : "", file + strlen(top) + 1);
	}
	if (truncated != NULL)
		*truncated = walk->truncated;
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* breadth first, names in byte order, links to directories once, links to files never */
static void
test_walk_order(Fixture *fx, gconstpointer data)
{
	EsdDiscoveryLimits limits;
	g_autofree gchar *files = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *fifo = NULL;

	esd_discovery_limits_init(&limits);
	g_free(fx_put(fx, "r/b/x", "1"));
	g_free(fx_put(fx, "r/a/y/z", "2"));
	g_free(fx_put(fx, "r/c", "3"));
	g_free(fx_put(fx, "r/B", "4"));
	g_free(fx_put(fx, "out/o", "5"));
	out = fx_abs(fx, "out");
	fx_symlink(fx, out, "r/link");
	fx_symlink(fx, "a", "r/again");
	fx_symlink(fx, ".", "r/loop");
	fx_symlink(fx, "c", "r/file-link");
	fifo = fx_abs(fx, "r/fifo");
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
	files = walk_files(fx, "r", &limits, NULL);
	/* `again` is `a` seen a second time, so `a` keeps its files and `again` has none */
	g_assert_cmpstr(files, ==, "B c b/x link/o a/y/z");
}

static void
test_walk_limits(Fixture *fx, gconstpointer data)
{
	EsdDiscoveryLimits limits;
	gboolean truncated = FALSE;
	g_autofree gchar *files = NULL;

	esd_discovery_limits_init(&limits);
	g_free(fx_put(fx, "r/1/2/3/f", "deep"));
	g_free(fx_put(fx, "r/a", "a"));
	g_free(fx_put(fx, "r/b", "b"));
	limits.max_depth = 2;
	files = walk_files(fx, "r", &limits, &truncated);
	g_assert_cmpstr(files, ==, "a b");
	g_assert_false(truncated);
	g_free(files);
	limits.max_depth = 3;
	files = walk_files(fx, "r", &limits, &truncated);
	g_assert_cmpstr(files, ==, "a b 1/2/3/f");
	g_free(files);
	/* `1`, `a`: the second entry is the last */
	limits.max_entries = 2;
	files = walk_files(fx, "r", &limits, &truncated);
	g_assert_cmpstr(files, ==, "a");
	g_assert_true(truncated);
	g_free(files);
	esd_discovery_limits_init(&limits);
	limits.max_directories = 2;
	files = walk_files(fx, "r", &limits, &truncated);
	g_assert_cmpstr(files, ==, "a b");
	g_assert_true(truncated);
	g_free(files);
	/* past the directory limit no more are queued, and those queued are still listed */
	g_free(fx_put(fx, "w/x/f1", "1"));
	g_free(fx_put(fx, "w/y/f2", "2"));
	g_free(fx_put(fx, "w/z/f3", "3"));
	limits.max_directories = 3;
	files = walk_files(fx, "w", &limits, &truncated);
	g_assert_cmpstr(files, ==, "x/f1 y/f2");
	g_assert_true(truncated);
}

static void
test_walk_unreadable(Fixture *fx, gconstpointer data)
{
	EsdDiscoveryLimits limits;
	g_autofree gchar *locked = fx_abs(fx, "r/locked");
	g_autofree gchar *root = fx_abs(fx, "r");
	g_autoptr(EsdDiscoveryWalk) walk = NULL;
	EsdDiscoveryWalkError *error;

	if (geteuid() == 0) {
		g_test_skip("root bypasses file permissions");
		return;
	}
	esd_discovery_limits_init(&limits);
	g_free(fx_put(fx, "r/locked/f", "x"));
	g_assert_cmpint(g_chmod(locked, 0), ==, 0);
	walk = esd_discovery_walk(root, &limits);
	g_assert_cmpuint(walk->files->len, ==, 0);
	g_assert_cmpuint(walk->errors->len, ==, 1);
	error = g_ptr_array_index(walk->errors, 0);
	g_assert_cmpstr(error->path, ==, locked);
	g_assert_cmpstr(error->message, ==, "Permission denied (os error 13)");
}

static void
test_utf8_errors(void)
{
	const struct {
		const gchar *data;
		gsize len;
		const gchar *error;
	} rows[] = {
	    {"plain \xc3\xa9", 8, NULL},
	    {"\xff", 1, "invalid utf-8 sequence of 1 bytes from index 0"},
	    {"ab\xc3", 3, "incomplete utf-8 byte sequence from index 2"},
	    {"\xe2\x28\xa1", 3, "invalid utf-8 sequence of 1 bytes from index 0"},
	    {"\xe2\x82\x28", 3, "invalid utf-8 sequence of 2 bytes from index 0"},
	    {"\xf0\x90\x80\x41", 4, "invalid utf-8 sequence of 3 bytes from index 0"},
	    {"x\xed\xa0\x80", 4, "invalid utf-8 sequence of 1 bytes from index 1"},
	    {"\xc0\x80", 2, "invalid utf-8 sequence of 1 bytes from index 0"},
	    {"a\0b", 3, NULL},
	};

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree gchar *error = esd_discovery_utf8_error(rows[i].data, rows[i].len);
		g_assert_cmpstr(error, ==, rows[i].error);
	}
}

/* missing is silent, a FIFO is not opened, the limits and UTF-8 are warnings */
static void
test_read_text(Fixture *fx, gconstpointer data)
{
	EsdDiscoveryLimits limits;
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *missing = fx_abs(fx, "missing");
	g_autofree gchar *fifo = fx_abs(fx, "fifo");
	g_autofree gchar *ok = fx_put(fx, "ok", "hello");
	g_autofree gchar *big = fx_put(fx, "big", "0123456789");
	g_autofree gchar *bad = fx_put(fx, "bad", "\xff");
	g_autofree gchar *uri = NULL;
	g_autofree gchar *expected = NULL;
	EsdDiscoveryText *text;
	gsize budget = 0;

	esd_discovery_limits_init(&limits);
	limits.max_file_bytes = 8;
	limits.max_root_bytes = 7;
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
	g_assert_null(esd_discovery_read_text(missing, &limits, &budget, warnings));
	g_assert_null(esd_discovery_read_text(fifo, &limits, &budget, warnings));
	g_assert_cmpuint(warnings->len, ==, 0);
	text = esd_discovery_read_text(ok, &limits, &budget, warnings);
	g_assert_nonnull(text);
	g_assert_cmpstr(text->contents, ==, "hello");
	uri = g_filename_to_uri(ok, NULL, NULL);
	g_assert_cmpstr(text->uri, ==, uri);
	esd_discovery_text_free(text);
	g_assert_cmpuint(budget, ==, 5);
	/* 5 read of 7: another 5 is over the budget */
	g_assert_null(esd_discovery_read_text(ok, &limits, &budget, warnings));
	g_assert_cmpstr(g_ptr_array_index(warnings, 0),
			==,
			"capability root bundle exceeds the 7-byte limit");
	g_assert_null(esd_discovery_read_text(big, &limits, &budget, warnings));
	g_free(uri);
	uri = g_filename_to_uri(big, NULL, NULL);
	expected = g_strdup_printf("capability file %s exceeds the 8-byte limit", uri);
	g_assert_cmpstr(g_ptr_array_index(warnings, 1), ==, expected);
	g_assert_null(esd_discovery_read_text(bad, &limits, &budget, warnings));
	g_free(uri);
	g_free(expected);
	uri = g_filename_to_uri(bad, NULL, NULL);
	expected = g_strdup_printf(
	    "capability file %s is not UTF-8: invalid utf-8 sequence of 1 bytes from index 0",
	    uri);
	g_assert_cmpstr(g_ptr_array_index(warnings, 2), ==, expected);
}

static void
test_manifest(void)
{
	const struct {
		const gchar *json;
		const gchar *mcp;
		gboolean inline_mcp;
		const gchar *apps;
		const gchar *warning;
	} rows[] = {
	    {"{\"mcpServers\":\"./a/./b.json\",\"apps\":\"./apps.json\"}",
	     "a/b.json",
	     FALSE,
	     "apps.json",
	     NULL},
	    {"{\"mcpServers\":{\"x\":{}}}", NULL, TRUE, NULL, NULL},
	    {"{\"mcpServers\":\"a.json\"}",
	     NULL,
	     FALSE,
	     NULL,
	     "ignoring mcpServers in file:///m: path must start with `./`"},
	    {"{\"apps\":\"./x/../../y\"}",
	     NULL,
	     FALSE,
	     NULL,
	     "ignoring apps in file:///m: path must remain below the capability root"},
	    {"{\"apps\":\"./\"}",
	     NULL,
	     FALSE,
	     NULL,
	     "ignoring apps in file:///m: path must remain below the capability root"},
	    {"{\"apps\":\".//etc/passwd\"}",
	     NULL,
	     FALSE,
	     NULL,
	     "ignoring apps in file:///m: path must remain below the capability root"},
	    {"[1,2]", NULL, FALSE, NULL, NULL},
	    {"{\"mcpServers\":", NULL, FALSE, NULL, NULL},
	    {"{\"mcpServers\":7}", NULL, FALSE, NULL, NULL},
	};

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
		g_auto(EsdDiscoveryManifest) manifest = {0};

		esd_discovery_manifest_parse(rows[i].json,
					     strlen(rows[i].json),
					     "file:///m",
					     &manifest,
					     warnings);
		g_assert_cmpstr(manifest.mcp_config, ==, rows[i].mcp);
		g_assert_cmpint(manifest.mcp_inline, ==, rows[i].inline_mcp);
		g_assert_cmpstr(manifest.apps_config, ==, rows[i].apps);
		g_assert_cmpuint(warnings->len, ==, rows[i].warning != NULL ? 1 : 0);
		if (rows[i].warning != NULL)
			g_assert_cmpstr(g_ptr_array_index(warnings, 0), ==, rows[i].warning);
	}
}

static void
test_front_matter(void)
{
	const struct {
		const gchar *text;
		gboolean ok;
		const gchar *name;
		const gchar *description;
		const gchar *short_description;
	} rows[] = {
	    {"---\nname: a\ndescription: A\nmetadata:\n  short-description: s\n---\nbody",
	     TRUE,
	     "a",
	     "A",
	     "s"},
	    {"---\r\ndescription: \"quoted: yes\"\r\n---\r\n", TRUE, NULL, "quoted: yes", NULL},
	    {"---\ndescription: d\n---", TRUE, NULL, "d", NULL},
	    {"---\ndescription: |\n  two\n  lines\n---\n", TRUE, NULL, "two\nlines", NULL},
	    {"---\nname: [unclosed\n---\n", FALSE},
	    {"---\nname: n\n---\n", FALSE},
	    /* the reference's rules: scalars as text, trimmed, no empty description, 64 characters
	     */
	    {"---\ndescription: 12\n---\n", TRUE, NULL, "12", NULL},
	    {"---\nname: 3\ndescription: true\n---\n", TRUE, "3", "true", NULL},
	    {"  ---  \nname: '  padded  '\ndescription: ' d '\nmetadata:\n  short-description: "
	     "5\n---\n",
	     TRUE,
	     "padded",
	     "d",
	     "5"},
	    {"---\nname: ~\ndescription: d\n---\n", TRUE, NULL, "d", NULL},
	    {"---\ndescription: ''\n---\n", FALSE},
	    {"---\ndescription: ~\n---\n", FALSE},
	    {"---\ndescription: [a]\n---\n", FALSE},
	    {"---\ndescription: d\nmetadata: [1]\n---\n", FALSE},
	    {"---\nname: "
	     "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\ndescription: "
	     "d\n---\n",
	     FALSE},
	    {"---\nname: "
	     "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\ndescription: "
	     "d\n---\n",
	     TRUE,
	     "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
	     "d",
	     NULL},
	    {"\n---\ndescription: d\n---\n", FALSE},
	    {"---\n- a\n---\n", FALSE},
	    {"no front matter\n", FALSE},
	    {"---\ndescription: never closed\n", FALSE},
	    {"", FALSE},
	};

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_auto(EsdDiscoverySkillMeta) meta = {0};
		g_autoptr(GError) error = NULL;
		gboolean ok = esd_discovery_front_matter_parse(rows[i].text,
							       strlen(rows[i].text),
							       &meta,
							       &error);

		g_assert_cmpint(ok, ==, rows[i].ok);
		if (!ok) {
			g_assert_nonnull(error);
			continue;
		}
		g_assert_cmpstr(meta.name, ==, rows[i].name);
		g_assert_cmpstr(meta.description, ==, rows[i].description);
		g_assert_cmpstr(meta.short_description, ==, rows[i].short_description);
	}
}

/* aliases are expanded into a bounded number of nodes */
static void
test_yaml_bomb(void)
{
	g_autoptr(GString) yaml = g_string_new("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = NULL;
	gchar prev = 'a';

	for (gchar c = 'b'; c <= 'j'; c++) {
		g_string_append_printf(yaml, "%c: &%c [", c, c);
		for (guint i = 0; i < 10; i++)
			g_string_append_printf(yaml, "%s*%c", i > 0 ? ", " : "", prev);
		g_string_append(yaml, "]\n");
		prev = c;
	}
	node = esd_discovery_yaml_parse(yaml->str, yaml->len, &error);
	g_assert_null(node);
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
}

static void
test_skill_metadata(void)
{
	const gchar *yaml =
	    "policy:\n  allow_implicit_invocation: true\n  products: [codex, 3]\n"
	    "dependencies:\n  tools:\n    - {type: mcp, value: x, oauth_callback_port: 8080}\n"
	    "    - {type: env}\n";
	g_autoptr(JsonNode) dependencies = NULL;
	g_autoptr(JsonNode) policy = NULL;
	g_autofree gchar *deps_text = NULL;
	g_autofree gchar *policy_text = NULL;

	g_assert_true(
	    esd_discovery_skill_metadata_parse(yaml, strlen(yaml), &dependencies, &policy, NULL));
	deps_text = json_to_string(dependencies, FALSE);
	policy_text = json_to_string(policy, FALSE);
	g_assert_cmpstr(
	    deps_text,
	    ==,
	    "{\"tools\":[{\"type\":\"mcp\",\"value\":\"x\",\"description\":null,"
	    "\"transport\":null,\"command\":null,\"url\":null,\"oauthCallbackPort\":8080}]}");
	g_assert_cmpstr(policy_text,
			==,
			"{\"allowImplicitInvocation\":true,\"products\":[\"codex\"]}");
	g_clear_pointer(&dependencies, json_node_unref);
	g_clear_pointer(&policy, json_node_unref);
	g_assert_true(esd_discovery_skill_metadata_parse("interface: {}\n",
							 14,
							 &dependencies,
							 &policy,
							 NULL));
	g_assert_true(JSON_NODE_HOLDS_NULL(dependencies));
	g_assert_true(JSON_NODE_HOLDS_NULL(policy));
	g_clear_pointer(&dependencies, json_node_unref);
	g_clear_pointer(&policy, json_node_unref);
	g_assert_false(esd_discovery_skill_metadata_parse("a: [", 4, &dependencies, &policy, NULL));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add("/execserverd/discovery/walk/order",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_walk_order,
		   fixture_teardown);
	g_test_add("/execserverd/discovery/walk/limits",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_walk_limits,
		   fixture_teardown);
	g_test_add("/execserverd/discovery/walk/unreadable",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_walk_unreadable,
		   fixture_teardown);
	g_test_add("/execserverd/discovery/read/text",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_read_text,
		   fixture_teardown);
	g_test_add_func("/execserverd/discovery/utf8-errors", test_utf8_errors);
	g_test_add_func("/execserverd/discovery/manifest", test_manifest);
	g_test_add_func("/execserverd/discovery/front-matter", test_front_matter);
	g_test_add_func("/execserverd/discovery/yaml-bomb", test_yaml_bomb);
	g_test_add_func("/execserverd/discovery/skill-metadata", test_skill_metadata);
	return g_test_run();
}
