/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib.h>
#include <string.h>

#include "esd-env-toml.h"

/*
 * The projection and the TOML layout of environmentConfig/read, on the
 * C++ half directly. The expected texts are what the reference (Codex
 * 0.171.0) answered for the same file and key paths.
 */

#define TEST_PREFIX "/execserverd/env-config/toml/"

static const EsdEnvTomlFuncs *toml = NULL;

static const gchar user_config[] = "model = \"gpt-user\"\n"
				   "approval_policy = \"never\"\n"
				   "top_int = 5\n"
				   "arr = [1, 2, 3]\n"
				   "mixed = [{a = 1}, {b = \"x\"}]\n"
				   "dt = 1979-05-27T07:32:00Z\n"
				   "[sandbox_workspace_write]\n"
				   "writable_roots = [\"~/w\", \"rel/dir\"]\n"
				   "network_access = true\n"
				   "[mcp_servers.foo]\n"
				   "command = \"foo\"\n"
				   "args = [\"-x\", \"y z\"]\n"
				   "env = { A = \"1\", \"B C\" = \"2\" }\n"
				   "[mcp_servers.foo.nested]\n"
				   "deep = 'lit'\n"
				   "[mcp_servers.bar]\n"
				   "command = \"bar\"\n"
				   "url = \"http://x\"\n"
				   "[[profiles_arr]]\n"
				   "name = \"p1\"\n"
				   "[[profiles_arr]]\n"
				   "name = \"p2\"\n"
				   "[projects.\"/tmp/envcfg/proj\"]\n"
				   "trust_level = \"trusted\"\n";

static EsdEnvToml *
parse_ok(const gchar *text)
{
	g_autofree gchar *error = NULL;
	EsdEnvToml *doc = toml->parse(text, strlen(text), &error);

	if (doc == NULL)
		g_error("refused: %s", error);
	return doc;
}

/* "a|b;c" → [["a", "b"], ["c"]]; an empty piece is the empty key */
static GPtrArray *
paths_new(const gchar *spec)
{
	GPtrArray *paths = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_auto(GStrv) each = g_strsplit(spec, ";", -1);

	for (guint i = 0; each[i] != NULL; i++) {
		const gchar *empty_key[] = {"", NULL};
		g_ptr_array_add(paths,
				each[i][0] == '\0' ? g_strdupv((gchar **)empty_key)
						   : g_strsplit(each[i], "|", -1));
	}
	return paths;
}

static gchar *
project(const gchar *text, const gchar *spec)
{
	EsdEnvToml *doc = parse_ok(text);
	g_autoptr(GPtrArray) paths = paths_new(spec);
	gchar *out = toml->project(doc, paths);

	toml->free(doc);
	return out;
}

typedef struct {
	const gchar *name;
	const gchar *input;
	const gchar *paths;    /* ';' between paths, '|' between keys */
	const gchar *expected; /* NULL: the layer is dropped */
} ProjectCase;

static const gchar scalars[] = "s1 = \"plain\"\n"
			       "s2 = 'has \"quotes\"'\n"
			       "s4 = \"tab\\there\"\n"
			       "s5 = \"uni é ✓ \\u0001\"\n"
			       "s6 = 'back\\slash'\n"
			       "i1 = 0xff\n"
			       "i2 = -17\n"
			       "i3 = 1_000\n"
			       "f1 = 1.0\n"
			       "f2 = 1e10\n"
			       "f3 = inf\n"
			       "f4 = nan\n"
			       "f5 = -0.0\n"
			       "f6 = 3.14159\n"
			       "f7 = -inf\n"
			       "b = false\n"
			       "ld = 1979-05-27\n"
			       "lt = 07:32:00.999\n"
			       "ldt = 1979-05-27T07:32:00\n"
			       "odt = 1979-05-27T00:32:00.5-07:00\n";

static const gchar containers[] = "empty_arr = []\n"
				  "nested_arr = [[1, 2], [\"a\"]]\n"
				  "arr_tbl_nested = [[{x = 1}]]\n"
				  "mixed_arr = [1, {a = 2}]\n"
				  "empty_inline = {}\n"
				  "\"quoted key\" = 1\n"
				  "\"\" = 2\n"
				  "\"ké\" = 3\n"
				  "dotted.a.b = 4\n"
				  "[zz]\n"
				  "first = 1\n"
				  "[[aot]]\n"
				  "k = 1\n"
				  "[[aot]]\n"
				  "[aa.sub]\n"
				  "x = 1\n"
				  "[aa]\n"
				  "y = 2\n";

static const ProjectCase project_cases[] = {
    {"mcp-servers",
     user_config,
     "mcp_servers",
     "[mcp_servers.foo]\ncommand = \"foo\"\nargs = [\"-x\", \"y z\"]\n\n"
     "[mcp_servers.foo.env]\nA = \"1\"\n\"B C\" = \"2\"\n\n"
     "[mcp_servers.foo.nested]\ndeep = \"lit\"\n\n"
     "[mcp_servers.bar]\ncommand = \"bar\"\nurl = \"http://x\"\n"},
    /* several selectors make one layer, in the order of the file */
    {"merged-selectors",
     user_config,
     "model;mcp_servers;sandbox_workspace_write|writable_roots",
     "model = \"gpt-user\"\n\n"
     "[sandbox_workspace_write]\nwritable_roots = [\"~/w\", \"rel/dir\"]\n\n"
     "[mcp_servers.foo]\ncommand = \"foo\"\nargs = [\"-x\", \"y z\"]\n\n"
     "[mcp_servers.foo.env]\nA = \"1\"\n\"B C\" = \"2\"\n\n"
     "[mcp_servers.foo.nested]\ndeep = \"lit\"\n\n"
     "[mcp_servers.bar]\ncommand = \"bar\"\nurl = \"http://x\"\n"},
    {"values-then-sections",
     user_config,
     "arr;mixed;dt;profiles_arr;top_int;projects",
     "top_int = 5\narr = [1, 2, 3]\ndt = 1979-05-27T07:32:00Z\n\n"
     "[[mixed]]\na = 1\n\n[[mixed]]\nb = \"x\"\n\n"
     "[[profiles_arr]]\nname = \"p1\"\n\n[[profiles_arr]]\nname = \"p2\"\n\n"
     "[projects.\"/tmp/envcfg/proj\"]\ntrust_level = \"trusted\"\n"},
    /* a missing sub-key keeps the parent, empty */
    {"missing-sub-key", user_config, "mcp_servers|nope", "[mcp_servers]\n"},
    /* a missing top-level key drops the layer */
    {"missing-top-level", user_config, "nope", NULL},
    {"missing-all", user_config, "nope;other|key", NULL},
    /* a selector below a scalar keeps the scalar */
    {"below-scalar", user_config, "model|x|y", "model = \"gpt-user\"\n"},
    {"inline-table-as-section",
     user_config,
     "mcp_servers|foo|env",
     "[mcp_servers.foo.env]\nA = \"1\"\n\"B C\" = \"2\"\n"},
    {"partial-merge",
     user_config,
     "mcp_servers|foo;mcp_servers|bar|url",
     "[mcp_servers.foo]\ncommand = \"foo\"\nargs = [\"-x\", \"y z\"]\n\n"
     "[mcp_servers.foo.env]\nA = \"1\"\n\"B C\" = \"2\"\n\n"
     "[mcp_servers.foo.nested]\ndeep = \"lit\"\n\n"
     "[mcp_servers.bar]\nurl = \"http://x\"\n"},
    /* a shorter path takes the whole table, in either order */
    {"shorter-path-wins",
     user_config,
     "mcp_servers|bar|url;mcp_servers|bar",
     "[mcp_servers.bar]\ncommand = \"bar\"\nurl = \"http://x\"\n"},
    {"shorter-path-first",
     user_config,
     "mcp_servers|bar;mcp_servers|bar|url",
     "[mcp_servers.bar]\ncommand = \"bar\"\nurl = \"http://x\"\n"},
    {"scalars",
     scalars,
     "s1;s2;s4;s5;s6;i1;i2;i3;f1;f2;f3;f4;f5;f6;f7;b;ld;lt;ldt;odt",
     "s1 = \"plain\"\ns2 = 'has \"quotes\"'\ns4 = \"tab\\there\"\n"
     "s5 = \"uni é ✓ \\u0001\"\ns6 = 'back\\slash'\n"
     "i1 = 255\ni2 = -17\ni3 = 1000\n"
     "f1 = 1.0\nf2 = 10000000000.0\nf3 = inf\nf4 = nan\nf5 = -0.0\nf6 = 3.14159\nf7 = -inf\n"
     "b = false\nld = 1979-05-27\nlt = 07:32:00.999\nldt = 1979-05-27T07:32:00\n"
     "odt = 1979-05-27T00:32:00.5-07:00\n"},
    {"containers",
     containers,
     "empty_arr;nested_arr;arr_tbl_nested;mixed_arr;empty_inline;quoted key;;ké;dotted",
     "empty_arr = []\nnested_arr = [[1, 2], [\"a\"]]\narr_tbl_nested = [[{ x = 1 }]]\n"
     "mixed_arr = [1, { a = 2 }]\n\"quoted key\" = 1\n\"\" = 2\n\"ké\" = 3\n\n"
     "[empty_inline]\n\n[dotted.a]\nb = 4\n"},
    {"file-order",
     containers,
     "aa;aot;zz",
     "[zz]\nfirst = 1\n\n[[aot]]\nk = 1\n\n[[aot]]\n\n[aa]\ny = 2\n\n[aa.sub]\nx = 1\n"},
    {"sections-in-file-order",
     containers,
     "zz;dotted|a|b",
     "[dotted.a]\nb = 4\n\n[zz]\nfirst = 1\n"},
    /* a selector into an array keeps the whole array */
    {"below-array", containers, "aot|k", "[[aot]]\nk = 1\n\n[[aot]]\n"},
    {"below-scalar-merge", containers, "aa|sub|x|q;aa|y", "[aa]\ny = 2\n\n[aa.sub]\nx = 1\n"},
    {"dotted-merge", containers, "dotted|a;dotted", "[dotted.a]\nb = 4\n"},
};

static void
test_project(gconstpointer data)
{
	const ProjectCase *c = data;
	g_autofree gchar *out = project(c->input, c->paths);

	g_assert_cmpstr(out, ==, c->expected);
}

/* what toml++ cannot write as the reference does is still the same value */
static void
test_multi_line_strings(void)
{
	const gchar *input = "s3 = \"line1\\nline2\"\n"
			     "s7 = \"\"\"multi\nline \"q\" '''\"\"\"\n"
			     "s8 = \"both ' and \\\"\"\n";
	g_autofree gchar *out = project(input, "s3;s7;s8");
	EsdEnvToml *doc = parse_ok(out);
	const gchar *s3[] = {"s3", NULL};
	const gchar *s7[] = {"s7", NULL};
	const gchar *s8[] = {"s8", NULL};
	g_autofree gchar *v3 = toml->get_string(doc, s3);
	g_autofree gchar *v7 = toml->get_string(doc, s7);
	g_autofree gchar *v8 = toml->get_string(doc, s8);

	g_assert_cmpstr(v3, ==, "line1\nline2");
	g_assert_cmpstr(v7, ==, "multi\nline \"q\" '''");
	g_assert_cmpstr(v8, ==, "both ' and \"");
	toml->free(doc);
}

static void
assert_parse_error(const gchar *text, const gchar *expected_prefix, const gchar *expected_part)
{
	g_autofree gchar *error = NULL;
	EsdEnvToml *doc = toml->parse(text, strlen(text), &error);

	g_assert_null(doc);
	g_assert_nonnull(error);
	if (!g_str_has_prefix(error, expected_prefix) || strstr(error, expected_part) == NULL)
		g_error("expected \"%s...%s...\", got \"%s\"",
			expected_prefix,
			expected_part,
			error);
}

static void
test_invalid(void)
{
	assert_parse_error("model = \"x\"\nfoo = \n", "2:7: ", "");
	assert_parse_error("a = 1\na = 2\n", "2:", "");
	assert_parse_error("[a\n", "1:", "");
	/* toml++ 3.3 asserts when a table header does not start with a key */
	assert_parse_error("a = 1\n[\033r]\n", "2:1: ", "a table header must start with a key");
	assert_parse_error("[[ @]]\n", "1:1: ", "a table header must start with a key");
	/* any other check of toml++ that fails is an error, not an abort */
	assert_parse_error("dt = 1979-05-27TP7:32:00Z\n", "1:1: ", "a check of the parser failed");
	/* and on a `}` closing an array */
	assert_parse_error("a = [1, }]\n", "1:9: ", "unexpected `}` in an array");
	assert_parse_error("a = { b = ] }\n", "1:11: ", "unexpected `]` in an inline table");
	{
		EsdEnvToml *doc =
		    parse_ok("a = [\n  [1, 2],\n  [ { b = [3] } ],\n]\n[[t]]\n[ \"q\" ]\n");
		toml->free(doc);
	}
	/* toml++ asserts on a NUL after '[': refused before it parses */
	{
		const gchar nul[] = "a = 1\n[\0\0]\n";
		g_autofree gchar *error = NULL;
		g_assert_null(toml->parse(nul, sizeof(nul) - 1, &error));
		g_assert_cmpstr(error, ==, "2:2: NUL characters are not allowed");
	}
}

static gchar *
repeat(const gchar *piece, guint n, const gchar *between)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < n; i++) {
		if (i > 0)
			g_string_append(out, between);
		g_string_append(out, piece);
	}
	return g_string_free(out, FALSE);
}

/* deep nesting fails bounded, before toml++ recurses through it */
static void
test_deep(void)
{
	const gchar *deep_message = "cannot recurse further; max recursion depth met";
	const guint max = ESD_ENV_TOML_MAX_DEPTH;
	g_autofree gchar *keys_ok = repeat("a", max, ".");
	g_autofree gchar *keys_deep = repeat("a", max + 1, ".");
	g_autofree gchar *huge = repeat("a", 1000000, ".");
	g_autofree gchar *line_ok = g_strconcat(keys_ok, " = 1\n", NULL);
	g_autofree gchar *line_deep = g_strconcat(keys_deep, " = 1\n", NULL);
	g_autofree gchar *line_huge = g_strconcat(huge, " = 1\n", NULL);
	g_autofree gchar *header_huge = g_strconcat("[", huge, "]\n", NULL);
	g_autofree gchar *open = repeat("[", max + 1, "");
	g_autofree gchar *close = repeat("]", max + 1, "");
	g_autofree gchar *arrays_deep = g_strconcat("a = ", open, close, "\n", NULL);
	g_autofree gchar *inline_open = repeat("{ a = ", 60, "");
	g_autofree gchar *inline_close = repeat("}", 60, "");
	/* 60 inline tables under a key of 30 levels: 90 deep */
	g_autofree gchar *key30 = repeat("k", 30, ".");
	g_autofree gchar *mixed =
	    g_strconcat(key30, " = ", inline_open, "1", inline_close, "\n", NULL);
	g_autofree gchar *dots_in_strings =
	    g_strconcat("a = \"", huge, "\"\nb = '", huge, "'\n# ", huge, "\n", NULL);
	EsdEnvToml *doc;

	doc = parse_ok(line_ok);
	toml->free(doc);
	/* floats, times and dots inside strings and comments are not keys */
	doc = parse_ok(dots_in_strings);
	toml->free(doc);
	doc = parse_ok("a = [1.5, 2.5, 3.5, 4.5]\nt = 07:32:00.999\n");
	toml->free(doc);
	assert_parse_error(line_deep, "1:", deep_message);
	assert_parse_error(line_huge, "1:", deep_message);
	assert_parse_error(header_huge, "1:", deep_message);
	assert_parse_error(arrays_deep, "1:", "");
	assert_parse_error(mixed, "1:", deep_message);
}

static void
test_lookup(void)
{
	EsdEnvToml *doc = parse_ok(user_config);
	const gchar *trust[] = {"projects", "/tmp/envcfg/proj", "trust_level", NULL};
	const gchar *roots[] = {"sandbox_workspace_write", "writable_roots", NULL};
	const gchar *not_strings[] = {"arr", NULL};
	const gchar *model[] = {"model", NULL};
	const gchar *below[] = {"model", "x", NULL};
	g_autofree gchar *level = toml->get_string(doc, trust);
	g_auto(GStrv) strv = toml->get_strv(doc, roots);
	g_autofree gchar *after = NULL;
	g_autoptr(GPtrArray) paths = paths_new("model;approval_policy");

	g_assert_cmpstr(level, ==, "trusted");
	g_assert_nonnull(strv);
	g_assert_cmpstr(strv[0], ==, "~/w");
	g_assert_cmpstr(strv[1], ==, "rel/dir");
	g_assert_null(strv[2]);
	g_assert_null(toml->get_strv(doc, not_strings));
	g_assert_null(toml->get_string(doc, below));
	toml->remove(doc, model);
	toml->remove(doc, below);
	after = toml->project(doc, paths);
	g_assert_cmpstr(after, ==, "approval_policy = \"never\"\n");
	toml->free(doc);
}

static void
test_legacy_requirements(void)
{
	EsdEnvToml *managed = parse_ok("model = \"managed\"\napproval_policy = \"never\"\n"
				       "sandbox_mode = \"workspace-write\"\n"
				       "approvals_reviewer = \"auto_review\"\n");
	EsdEnvToml *read_only = parse_ok("sandbox_mode = \"read-only\"\n");
	EsdEnvToml *req = toml->legacy_requirements(managed);
	EsdEnvToml *req_ro = toml->legacy_requirements(read_only);
	g_autoptr(GPtrArray) paths = paths_new(
	    "allowed_approval_policies;allowed_sandbox_modes;allowed_approvals_reviewers");
	g_autoptr(GPtrArray) model = paths_new("model");
	g_autofree gchar *out = toml->project(req, paths);
	g_autofree gchar *out_ro = toml->project(req_ro, paths);

	/* the reference's text for the same managed_config.toml */
	g_assert_cmpstr(out,
			==,
			"allowed_approval_policies = [\"never\"]\n"
			"allowed_approvals_reviewers = [\"auto_review\", \"user\"]\n"
			"allowed_sandbox_modes = [\"read-only\", \"workspace-write\"]\n");
	g_assert_cmpstr(out_ro, ==, "allowed_sandbox_modes = [\"read-only\"]\n");
	g_assert_null(toml->project(req, model));
	toml->free(req);
	toml->free(req_ro);
	toml->free(managed);
	toml->free(read_only);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	toml = esd_env_toml_get_funcs();
	for (guint i = 0; i < G_N_ELEMENTS(project_cases); i++) {
		g_autofree gchar *name =
		    g_strconcat(TEST_PREFIX "project/", project_cases[i].name, NULL);
		g_test_add_data_func(name, &project_cases[i], test_project);
	}
	g_test_add_func(TEST_PREFIX "multi-line-strings", test_multi_line_strings);
	g_test_add_func(TEST_PREFIX "invalid", test_invalid);
	g_test_add_func(TEST_PREFIX "deep", test_deep);
	g_test_add_func(TEST_PREFIX "lookup", test_lookup);
	g_test_add_func(TEST_PREFIX "legacy-requirements", test_legacy_requirements);
	return g_test_run();
}
