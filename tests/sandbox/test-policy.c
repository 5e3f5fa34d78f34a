/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "esd-sandbox-glob.h"
#include "esd-sandbox-policy.h"

/*
 * Parsing of `sandbox` objects into resolved rules. JSON is written with
 * single quotes in this file and turned into double quotes before parsing.
 */

#define DEFAULT_CWD  "/srv/daemon-cwd"
#define DEFAULT_HOME "/home/daemon"
#define DEFAULT_TMP  "/var/tmp/daemon"

/* a restricted managed profile around the entries; extra members follow the level */
#define RESTRICTED(entries, extra)                                                                 \
	"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':[" entries  \
	"]},'network':'restricted'},'windowsSandboxLevel':'disabled'" extra "}"
#define ROOT_READ "{'path':{'type':'special','value':{'kind':'root'}},'access':'read'}"

static JsonObject *
test_json(const gchar *single_quoted, JsonNode **keep)
{
	g_autofree gchar *text = g_strdelimit(g_strdup(single_quoted), "'", '"');
	g_autoptr(GError) error = NULL;

	*keep = json_from_string(text, &error);
	g_assert_no_error(error);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(*keep));
	return json_node_get_object(*keep);
}

static EsdSandboxPolicy *
test_parse(const gchar *single_quoted, GError **error)
{
	const gchar *const tmpdirs[] = {DEFAULT_TMP, NULL};
	EsdSandboxDefaults defaults = {DEFAULT_CWD, DEFAULT_HOME, tmpdirs};
	g_autoptr(JsonNode) node = NULL;
	JsonObject *obj = test_json(single_quoted, &node);

	return esd_sandbox_policy_new_from_json(obj, &defaults, error);
}

static EsdSandboxPolicy *
test_parse_ok(const gchar *single_quoted)
{
	g_autoptr(GError) error = NULL;
	EsdSandboxPolicy *policy = test_parse(single_quoted, &error);
	g_assert_no_error(error);
	g_assert_nonnull(policy);
	return policy;
}

/* the rules as "R /a;W /b;D /c;GD /pat*": access letter, G for a glob */
static gchar *
test_rules(const EsdSandboxPolicy *policy)
{
	const gchar letters[] = {'R', 'W', 'D'};
	g_autoptr(GString) out = g_string_new(NULL);

	for (guint i = 0; i < policy->rules->len; i++) {
		const EsdSandboxRule *rule = g_ptr_array_index(policy->rules, i);
		if (out->len > 0)
			g_string_append_c(out, ';');
		if (rule->is_glob)
			g_string_append_c(out, 'G');
		g_string_append_printf(out,
				       "%c %s",
				       letters[rule->access],
				       rule->is_glob ? rule->pattern : rule->path);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static void
test_assert_rules(const gchar *single_quoted, const gchar *expected)
{
	g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(single_quoted);
	g_autofree gchar *rules = test_rules(policy);
	g_assert_cmpstr(rules, ==, expected);
}

static void
test_policy_profiles(void)
{
	struct {
		const gchar *json;
		EsdSandboxProfile profile;
		EsdSandboxNetwork network;
		EsdSandboxFs fs;
		gboolean isolated;
	} cases[] = {
	    {"{'permissions':{'type':'disabled'},'windowsSandboxLevel':'disabled'}",
	     ESD_SANDBOX_PROFILE_DISABLED,
	     ESD_SANDBOX_NETWORK_ENABLED,
	     ESD_SANDBOX_FS_UNRESTRICTED,
	     FALSE},
	    {"{'permissions':{'type':'external','network':'restricted'},'windowsSandboxLevel':'"
	     "restricted-token'}",
	     ESD_SANDBOX_PROFILE_EXTERNAL,
	     ESD_SANDBOX_NETWORK_RESTRICTED,
	     ESD_SANDBOX_FS_UNRESTRICTED,
	     FALSE},
	    {"{'permissions':{'type':'managed','file_system':{'type':'unrestricted'},'network':'"
	     "enabled'},'windowsSandboxLevel':'elevated'}",
	     ESD_SANDBOX_PROFILE_MANAGED,
	     ESD_SANDBOX_NETWORK_ENABLED,
	     ESD_SANDBOX_FS_UNRESTRICTED,
	     FALSE},
	    {"{'permissions':{'type':'managed','file_system':{'type':'unrestricted'},'network':'"
	     "restricted'},'windowsSandboxLevel':'disabled'}",
	     ESD_SANDBOX_PROFILE_MANAGED,
	     ESD_SANDBOX_NETWORK_RESTRICTED,
	     ESD_SANDBOX_FS_UNRESTRICTED,
	     TRUE},
	    {RESTRICTED(ROOT_READ, ""),
	     ESD_SANDBOX_PROFILE_MANAGED,
	     ESD_SANDBOX_NETWORK_RESTRICTED,
	     ESD_SANDBOX_FS_RESTRICTED,
	     TRUE},
	    {"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':[]},"
	     "'network':'enabled'},'windowsSandboxLevel':'disabled'}",
	     ESD_SANDBOX_PROFILE_MANAGED,
	     ESD_SANDBOX_NETWORK_ENABLED,
	     ESD_SANDBOX_FS_RESTRICTED,
	     TRUE},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(cases[i].json);
		g_assert_cmpint(policy->profile, ==, cases[i].profile);
		g_assert_cmpint(policy->network, ==, cases[i].network);
		g_assert_cmpint(policy->fs, ==, cases[i].fs);
		g_assert_cmpint(esd_sandbox_policy_is_isolated(policy), ==, cases[i].isolated);
		g_assert_cmpstr(policy->cwd, ==, DEFAULT_CWD);
		g_assert_cmpstr(policy->home, ==, DEFAULT_HOME);
		g_assert_cmpuint(policy->glob_scan_max_depth,
				 ==,
				 ESD_SANDBOX_GLOB_SCAN_DEFAULT_DEPTH);
		if (cases[i].fs == ESD_SANDBOX_FS_UNRESTRICTED)
			g_assert_cmpint(esd_sandbox_policy_access_for(policy, "/etc/passwd"),
					==,
					ESD_SANDBOX_ACCESS_WRITE);
	}
}

static void
test_policy_entries_path(void)
{
	test_assert_rules(
	    RESTRICTED("{'path':{'type':'path','path':'file:///a'},'access':'read'},"
		       "{'path':{'type':'path','path':'file:///b/c/'},'access':'write'},"
		       "{'path':{'type':'path','path':'file:///d/./e/../f'},'access':'deny'},"
		       "{'path':{'type':'path','path':'file:///g%20h'},'access':'none',"
		       "'missing_path_behavior':'skip'}",
		       ""),
	    "R /a;W /b/c;D /d/f;D /g h");
	/* an empty list is valid and exposes nothing */
	test_assert_rules(RESTRICTED("", ""), "");
}

static void
test_policy_entries_special(void)
{
	test_assert_rules(RESTRICTED(ROOT_READ, ""), "R /");
	test_assert_rules(RESTRICTED("{'path':{'type':'special','value':{'kind':'root'}},"
				     "'access':'write'}",
				     ""),
			  "W /");
	test_assert_rules(RESTRICTED("{'path':{'type':'special','value':{'kind':'slash_tmp'}},"
				     "'access':'write'}",
				     ""),
			  "W /tmp");
	/* minimal is read-only even in a write entry, and a deny of it does nothing */
	test_assert_rules(RESTRICTED("{'path':{'type':'special','value':{'kind':'minimal'}},"
				     "'access':'write'}",
				     ""),
			  "R /bin;R /sbin;R /usr;R /etc;R /lib;R /lib32;R /lib64;R /nix/store;"
			  "R /run/current-system/sw");
	test_assert_rules(RESTRICTED("{'path':{'type':'special','value':{'kind':'minimal'}},"
				     "'access':'deny'}",
				     ""),
			  "");
	test_assert_rules(RESTRICTED("{'path':{'type':'special','value':{'kind':'unknown','path':"
				     "':future','subpath':'x'}},'access':'write'}," ROOT_READ,
				     ""),
			  "R /");
}

static void
test_policy_entries_project_roots(void)
{
	const gchar *pr_write =
	    "{'path':{'type':'special','value':{'kind':'project_roots'}},'access':'write'}";
	const gchar *pr_sub = "{'path':{'type':'special','value':{'kind':'project_roots',"
			      "'subpath':'sub/dir'}},'access':'deny'}";
	const gchar *cwd_read =
	    "{'path':{'type':'special','value':{'kind':'current_working_directory'}},"
	    "'access':'read'}";
	g_autofree gchar *legacy = NULL;
	g_autofree gchar *nested = NULL;
	g_autofree gchar *both = NULL;
	g_autofree gchar *none = NULL;
	g_autofree gchar *alias = NULL;

	legacy = g_strdup_printf(RESTRICTED("%s,%s",
					    ",'cwd':'file:///c','workspaceRoots':['file:///w1',"
					    "'file:///w2']"),
				 pr_write,
				 pr_sub);
	test_assert_rules(legacy, "W /w1;W /w2;D /w1/sub/dir;D /w2/sub/dir");
	/* policyContext wins over the flat members */
	both = g_strdup_printf(RESTRICTED("%s",
					  ",'cwd':'file:///c','workspaceRoots':['file:///w1'],"
					  "'policyContext':{'cwd':'file:///pc','workspaceRoots':["
					  "'file:///p1']}"),
			       pr_write);
	test_assert_rules(both, "W /p1");
	{
		g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(both);
		g_assert_cmpstr(policy->cwd, ==, "/pc");
	}
	/* policyContext without roots falls back to the flat roots */
	nested = g_strdup_printf(RESTRICTED("%s",
					    ",'workspaceRoots':['file:///w1'],'policyContext':{"
					    "'cwd':'file:///pc'}"),
				 pr_write);
	test_assert_rules(nested, "W /w1");
	/* project roots are the workspace roots, never the cwd */
	none = g_strdup_printf(RESTRICTED("%s", ",'cwd':'file:///c'"), pr_write);
	test_assert_rules(none, "");
	alias =
	    g_strdup_printf(RESTRICTED("%s", ",'cwd':'file:///c','workspaceRoots':['file:///w']"),
			    cwd_read);
	test_assert_rules(alias, "R /w");
}

static void
test_policy_entries_tmpdir(void)
{
	const gchar *tmpdir =
	    "{'path':{'type':'special','value':{'kind':'tmpdir'}},'access':'write'}";
	g_autofree gchar *given = NULL;
	g_autofree gchar *empty = NULL;
	g_autofree gchar *absent = NULL;

	given =
	    g_strdup_printf(RESTRICTED("%s", ",'temporaryDirectories':['file:///t1','file:///t2']"),
			    tmpdir);
	test_assert_rules(given, "W /t1;W /t2");
	empty = g_strdup_printf(RESTRICTED("%s", ",'temporaryDirectories':[]"), tmpdir);
	test_assert_rules(empty, "W " DEFAULT_TMP);
	absent = g_strdup_printf(RESTRICTED("%s", ""), tmpdir);
	test_assert_rules(absent, "W " DEFAULT_TMP);
}

static void
test_policy_entries_glob(void)
{
	test_assert_rules(RESTRICTED("{'path':{'type':'glob_pattern','pattern':'/abs/**/*.pem'},"
				     "'access':'deny'},"
				     "{'path':{'type':'glob_pattern','pattern':'*.env'},"
				     "'access':'deny'},"
				     "{'path':{'type':'glob_pattern','pattern':'~/.ssh/id_*'},"
				     "'access':'read'}",
				     ",'cwd':'file:///proj','userHomeDir':'file:///home/u'"),
			  "GD /abs/**/*.pem;GD /proj/*.env;GR /home/u/.ssh/id_*");
	/* without userHomeDir the caller's home resolves `~` */
	test_assert_rules(RESTRICTED("{'path':{'type':'glob_pattern','pattern':'~/x'},"
				     "'access':'deny'}",
				     ",'cwd':'file:///proj'"),
			  "GD " DEFAULT_HOME "/x");
}

static void
test_policy_precedence(void)
{
	/* equally specific entries: deny > write > read, whatever their order */
	const gchar *orders[] = {
	    RESTRICTED("{'path':{'type':'path','path':'file:///p'},'access':'read'},"
		       "{'path':{'type':'path','path':'file:///p'},'access':'write'},"
		       "{'path':{'type':'path','path':'file:///p'},'access':'deny'}",
		       ""),
	    RESTRICTED("{'path':{'type':'path','path':'file:///p'},'access':'deny'},"
		       "{'path':{'type':'path','path':'file:///p'},'access':'read'},"
		       "{'path':{'type':'path','path':'file:///p'},'access':'write'}",
		       ""),
	};
	const gchar *rw[] = {
	    RESTRICTED("{'path':{'type':'path','path':'file:///p'},'access':'write'},"
		       "{'path':{'type':'path','path':'file:///p'},'access':'read'}",
		       ""),
	    RESTRICTED("{'path':{'type':'path','path':'file:///p'},'access':'read'},"
		       "{'path':{'type':'path','path':'file:///p/'},'access':'write'}",
		       ""),
	};

	for (guint i = 0; i < G_N_ELEMENTS(orders); i++) {
		g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(orders[i]);
		g_assert_cmpint(esd_sandbox_policy_access_for(policy, "/p"),
				==,
				ESD_SANDBOX_ACCESS_DENY);
		g_assert_cmpint(esd_sandbox_policy_access_for(policy, "/p/x"),
				==,
				ESD_SANDBOX_ACCESS_DENY);
	}
	for (guint i = 0; i < G_N_ELEMENTS(rw); i++) {
		g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(rw[i]);
		g_assert_cmpint(esd_sandbox_policy_access_for(policy, "/p/x"),
				==,
				ESD_SANDBOX_ACCESS_WRITE);
	}
	/* `root` and `path:/` tie as well */
	{
		g_autoptr(EsdSandboxPolicy) policy =
		    test_parse_ok(RESTRICTED(ROOT_READ ",{'path':{'type':'path','path':'file:///'},"
						       "'access':'deny'}",
					     ""));
		g_assert_cmpint(esd_sandbox_policy_access_for(policy, "/etc"),
				==,
				ESD_SANDBOX_ACCESS_DENY);
	}
}

static void
test_policy_access_for(void)
{
	g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(RESTRICTED(
	    ROOT_READ ","
		      "{'path':{'type':'path','path':'file:///w'},'access':'write'},"
		      "{'path':{'type':'path','path':'file:///w/secret'},'access':'deny'},"
		      "{'path':{'type':'path','path':'file:///w/secret/pub'},'access':'read'},"
		      "{'path':{'type':'path','path':'file:///w/sub/.codex'},'access':'write'},"
		      "{'path':{'type':'path','path':'file:///w/sub'},'access':'write'},"
		      "{'path':{'type':'glob_pattern','pattern':'/w/**/*.env'},'access':'deny'},"
		      "{'path':{'type':'glob_pattern','pattern':'/w/*.txt'},'access':'write'}",
	    ""));
	struct {
		const gchar *path;
		EsdSandboxAccess access;
	} cases[] = {
	    {"/", ESD_SANDBOX_ACCESS_READ},
	    {"/etc/passwd", ESD_SANDBOX_ACCESS_READ},
	    {"/w", ESD_SANDBOX_ACCESS_WRITE},
	    {"/w/file", ESD_SANDBOX_ACCESS_WRITE},
	    {"/wx", ESD_SANDBOX_ACCESS_READ},
	    {"/w/secret", ESD_SANDBOX_ACCESS_DENY},
	    {"/w/secret/x", ESD_SANDBOX_ACCESS_DENY},
	    {"/w/secret/pub", ESD_SANDBOX_ACCESS_READ},
	    {"/w/secret/pub/deeper", ESD_SANDBOX_ACCESS_READ},
	    /* protected names in a writable rule, unless a more specific rule says otherwise */
	    {"/w/.git", ESD_SANDBOX_ACCESS_READ},
	    {"/w/.git/config", ESD_SANDBOX_ACCESS_READ},
	    {"/w/.agents/skills", ESD_SANDBOX_ACCESS_READ},
	    {"/w/.aws/credentials", ESD_SANDBOX_ACCESS_READ},
	    {"/w/src/.git", ESD_SANDBOX_ACCESS_WRITE},
	    {"/w/sub/.git/hooks", ESD_SANDBOX_ACCESS_READ},
	    {"/w/sub/.codex/config.toml", ESD_SANDBOX_ACCESS_WRITE},
	    /* deny globs count at the depth of what they match */
	    {"/w/a.env", ESD_SANDBOX_ACCESS_DENY},
	    {"/w/deep/er/b.env", ESD_SANDBOX_ACCESS_DENY},
	    {"/w/c.env.bak", ESD_SANDBOX_ACCESS_WRITE},
	    /* a write glob grants nothing */
	    {"/w/notes.txt", ESD_SANDBOX_ACCESS_WRITE},
	    {"/w/../etc", ESD_SANDBOX_ACCESS_READ},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].path);
		g_assert_cmpint(esd_sandbox_policy_access_for(policy, cases[i].path),
				==,
				cases[i].access);
	}
}

static void
test_policy_access_for_nothing(void)
{
	g_autoptr(EsdSandboxPolicy) empty = test_parse_ok(RESTRICTED("", ""));
	g_autoptr(EsdSandboxPolicy) minimal = test_parse_ok(
	    RESTRICTED("{'path':{'type':'special','value':{'kind':'minimal'}},'access':'read'},"
		       "{'path':{'type':'glob_pattern','pattern':'/tmp/*.txt'},'access':'write'}",
		       ""));

	g_assert_cmpint(esd_sandbox_policy_access_for(empty, "/"), ==, ESD_SANDBOX_ACCESS_DENY);
	g_assert_cmpint(esd_sandbox_policy_access_for(empty, "/usr"), ==, ESD_SANDBOX_ACCESS_DENY);
	g_assert_cmpint(esd_sandbox_policy_access_for(minimal, "/usr/bin/sh"),
			==,
			ESD_SANDBOX_ACCESS_READ);
	g_assert_cmpint(esd_sandbox_policy_access_for(minimal, "/home"),
			==,
			ESD_SANDBOX_ACCESS_DENY);
	g_assert_cmpint(esd_sandbox_policy_access_for(minimal, "/tmp/a.txt"),
			==,
			ESD_SANDBOX_ACCESS_DENY);
}

static void
test_policy_cwd_rule(void)
{
	const gchar *need_cwd[] = {
	    RESTRICTED("{'path':{'type':'special','value':{'kind':'project_roots'}},"
		       "'access':'write'}",
		       ",'workspaceRoots':['file:///w']"),
	    RESTRICTED("{'path':{'type':'special','value':{'kind':'current_working_directory'}},"
		       "'access':'read'}",
		       ",'policyContext':{'workspaceRoots':['file:///w']}"),
	    RESTRICTED("{'path':{'type':'glob_pattern','pattern':'*.env'},'access':'deny'}", ""),
	};
	const gchar *fine[] = {
	    RESTRICTED("{'path':{'type':'glob_pattern','pattern':'/a/*.env'},'access':'deny'}", ""),
	    RESTRICTED("{'path':{'type':'special','value':{'kind':'project_roots'}},"
		       "'access':'write'}",
		       ",'policyContext':{'cwd':'file:///c'}"),
	    RESTRICTED("{'path':{'type':'special','value':{'kind':'project_roots'}},"
		       "'access':'write'}",
		       ",'cwd':'file:///c'"),
	    /* entries of an unrestricted profile are never looked at */
	    "{'permissions':{'type':'managed','file_system':{'type':'unrestricted','entries':[{"
	    "'path':{'type':'special','value':{'kind':'project_roots'}},'access':'write'}]},"
	    "'network':'enabled'},'windowsSandboxLevel':'disabled'}",
	};

	for (guint i = 0; i < G_N_ELEMENTS(need_cwd); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(EsdSandboxPolicy) policy = test_parse(need_cwd[i], &error);
		g_assert_null(policy);
		g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
		g_assert_cmpstr(
		    error->message,
		    ==,
		    "file system sandbox context with dynamic permissions requires cwd");
	}
	for (guint i = 0; i < G_N_ELEMENTS(fine); i++) {
		g_autoptr(EsdSandboxPolicy) policy = test_parse_ok(fine[i]);
		g_assert_nonnull(policy);
	}
}

static void
test_policy_subpath_escape(void)
{
	const gchar *subpaths[] = {"/etc", "../x", "a/../../x", "a/.."};

	for (guint i = 0; i < G_N_ELEMENTS(subpaths); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(EsdSandboxPolicy) policy = NULL;
		g_autofree gchar *json = g_strdup_printf(
		    RESTRICTED("{'path':{'type':'special','value':{'kind':'project_roots',"
			       "'subpath':'%s'}},'access':'read'}",
			       ",'cwd':'file:///c','workspaceRoots':['file:///w']"),
		    subpaths[i]);
		policy = test_parse(json, &error);
		g_assert_null(policy);
		g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
		g_assert_nonnull(strstr(error->message, "project_roots subpath"));
		g_assert_cmpint(erpc_error_to_wire_code(error), ==, ERPC_WIRE_INVALID_PARAMS);
	}
	/* `..` inside a name is fine */
	test_assert_rules(RESTRICTED("{'path':{'type':'special','value':{'kind':'project_roots',"
				     "'subpath':'a..b/./c'}},'access':'read'}",
				     ",'cwd':'file:///c','workspaceRoots':['file:///w']"),
			  "R /w/a..b/c");
}

static void
test_policy_mxc(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdSandboxPolicy) policy =
	    test_parse("{'permissions':{'type':'disabled'},'windowsSandboxLevel':'mxc'}", &error);

	g_assert_null(policy);
	g_assert_error(error, ESD_SANDBOX_ERROR, ESD_SANDBOX_ERROR_UNAVAILABLE);
	g_assert_cmpstr(error->message, ==, "native MXC is unavailable on this executor");
	g_assert_true(esd_sandbox_error_convert(&error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
	g_assert_cmpint(erpc_error_to_wire_code(error), ==, ERPC_WIRE_INVALID_PARAMS);
	/* other errors are left alone */
	g_assert_false(esd_sandbox_error_convert(&error));
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
}

#include "policy-bad-cases.h"

static void
test_policy_bad(gconstpointer data)
{
	const BadCase *bad = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdSandboxPolicy) policy = test_parse(bad->json, &error);

	g_assert_null(policy);
	g_assert_error(error, ERPC_ERROR, bad->code);
	g_assert_cmpstr(error->message, ==, bad->message);
}

static void
test_policy_glob_match(void)
{
	struct {
		const gchar *pattern;
		const gchar *path;
		gboolean match;
	} cases[] = {
	    {"/a/*.env", "/a/x.env", TRUE},
	    {"/a/*.env", "/a/.env", TRUE},
	    {"/a/*.env", "/a/b/x.env", FALSE},
	    {"/a/**/*.env", "/a/x.env", TRUE},
	    {"/a/**/*.env", "/a/b/c/x.env", TRUE},
	    {"/a/**", "/a/b/c", TRUE},
	    {"/a/**", "/a", FALSE},
	    {"/a/?.txt", "/a/b.txt", TRUE},
	    {"/a/?.txt", "/a/bb.txt", FALSE},
	    {"/a/[a-c]x", "/a/bx", TRUE},
	    {"/a/[!a-c]x", "/a/bx", FALSE},
	    {"/a/[^a-c]x", "/a/dx", TRUE},
	    {"/a/[]]x", "/a/]x", TRUE},
	    {"/a/[x", "/a/[x", TRUE},
	    {"/a/\\*", "/a/*", TRUE},
	    {"/a/\\*", "/a/b", FALSE},
	    {"/a/*b*c*d", "/a/xbycd", TRUE},
	    {"/a/*b*c*d", "/a/xbydc", FALSE},
	    {"/**/secret", "/x/y/secret", TRUE},
	};
	g_autoptr(GString) long_name = g_string_new("/");

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s ~ %s", cases[i].pattern, cases[i].path);
		g_assert_cmpint(esd_sandbox_glob_match(cases[i].pattern, cases[i].path),
				==,
				cases[i].match);
	}
	/* a hostile pattern is still fast */
	for (guint i = 0; i < 200; i++)
		g_string_append(long_name, "a");
	g_assert_false(
	    esd_sandbox_glob_match("/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", long_name->str));
	g_assert_false(
	    esd_sandbox_glob_match("/**/**/**/**/**/**/**/**/x", "/a/b/c/d/e/f/g/h/i/j/k/y"));
}

static void
test_policy_glob_expand(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("esd-glob-XXXXXX", &error);
	g_autofree gchar *pattern = NULL;
	g_autofree gchar *shallow = NULL;
	g_autofree gchar *literal = NULL;
	g_autoptr(GPtrArray) matches = NULL;
	const gchar *files[] = {"a.env", "b.txt", "sub/c.env", "sub/deeper/d.env", NULL};

	g_assert_no_error(error);
	for (guint i = 0; files[i] != NULL; i++) {
		g_autofree gchar *path = g_build_filename(dir, files[i], NULL);
		g_autofree gchar *parent = g_path_get_dirname(path);
		g_assert_cmpint(g_mkdir_with_parents(parent, 0700), ==, 0);
		g_assert_true(g_file_set_contents(path, "x", -1, NULL));
	}
	pattern = g_strdup_printf("%s/**/*.env", dir);
	matches = esd_sandbox_glob_expand(pattern, 8, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(matches->len, ==, 3);
	g_clear_pointer(&matches, g_ptr_array_unref);
	/* depth 2 reaches sub/c.env but not sub/deeper/d.env */
	matches = esd_sandbox_glob_expand(pattern, 2, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(matches->len, ==, 2);
	g_clear_pointer(&matches, g_ptr_array_unref);
	shallow = g_strdup_printf("%s/*.txt", dir);
	matches = esd_sandbox_glob_expand(shallow, 8, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(matches->len, ==, 1);
	g_clear_pointer(&matches, g_ptr_array_unref);
	literal = g_strdup_printf("%s/sub", dir);
	matches = esd_sandbox_glob_expand(literal, 8, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(matches->len, ==, 1);
	g_clear_pointer(&matches, g_ptr_array_unref);
	/* a pattern without a literal prefix is not scanned */
	matches = esd_sandbox_glob_expand("/*/nothing-here-*", 8, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(matches->len, ==, 0);

	for (guint i = G_N_ELEMENTS(files) - 1; i > 0; i--) {
		g_autofree gchar *path = g_build_filename(dir, files[i - 1], NULL);
		g_assert_cmpint(g_unlink(path), ==, 0);
	}
	{
		g_autofree gchar *deeper = g_build_filename(dir, "sub", "deeper", NULL);
		g_autofree gchar *sub = g_build_filename(dir, "sub", NULL);
		g_assert_cmpint(g_rmdir(deeper), ==, 0);
		g_assert_cmpint(g_rmdir(sub), ==, 0);
		g_assert_cmpint(g_rmdir(dir), ==, 0);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add_func("/execserverd/sandbox/policy/profiles", test_policy_profiles);
	g_test_add_func("/execserverd/sandbox/policy/entries/path", test_policy_entries_path);
	g_test_add_func("/execserverd/sandbox/policy/entries/special", test_policy_entries_special);
	g_test_add_func("/execserverd/sandbox/policy/entries/project-roots",
			test_policy_entries_project_roots);
	g_test_add_func("/execserverd/sandbox/policy/entries/tmpdir", test_policy_entries_tmpdir);
	g_test_add_func("/execserverd/sandbox/policy/entries/glob", test_policy_entries_glob);
	g_test_add_func("/execserverd/sandbox/policy/precedence", test_policy_precedence);
	g_test_add_func("/execserverd/sandbox/policy/access-for", test_policy_access_for);
	g_test_add_func("/execserverd/sandbox/policy/access-for-nothing",
			test_policy_access_for_nothing);
	g_test_add_func("/execserverd/sandbox/policy/cwd-rule", test_policy_cwd_rule);
	g_test_add_func("/execserverd/sandbox/policy/subpath-escape", test_policy_subpath_escape);
	g_test_add_func("/execserverd/sandbox/policy/mxc", test_policy_mxc);
	g_test_add_func("/execserverd/sandbox/policy/glob-match", test_policy_glob_match);
	g_test_add_func("/execserverd/sandbox/policy/glob-expand", test_policy_glob_expand);
	for (guint i = 0; i < G_N_ELEMENTS(bad_uri_cases); i++) {
		g_autofree gchar *path = g_strdup_printf("/execserverd/sandbox/policy/bad-uri/%s",
							 bad_uri_cases[i].name);
		g_test_add_data_func(path, &bad_uri_cases[i], test_policy_bad);
	}
	for (guint i = 0; i < G_N_ELEMENTS(malformed_cases); i++) {
		g_autofree gchar *path = g_strdup_printf("/execserverd/sandbox/policy/malformed/%s",
							 malformed_cases[i].name);
		g_test_add_data_func(path, &malformed_cases[i], test_policy_bad);
	}
	return g_test_run();
}
