/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-test-utils.h"

/*
 * environmentConfig/read through the real daemon, every case over
 * WebSocket and over stdio. The tree is made afresh for each case:
 *
 *   $T/home      CODEX_HOME, config.toml with mcp_servers and projects
 *   $T/etc       --env-config-system-dir (empty unless a case fills it)
 *   $T/userhome  HOME
 *   $T/proj      a git checkout (.git/HEAD), trusted, with .codex/ in it
 *                and in proj/sub
 *   $T/untrusted a checkout with .codex/ and no projects entry
 *   $T/emptygit  an empty .git directory, trusted: no project root
 *
 * The expected layers are what the reference (Codex 0.171.0) returned for
 * the same tree (plugins/env-config/README.md).
 */

#define TEST_PREFIX "/execserverd/env-config/"

typedef struct {
	gchar *tmp;
	gchar *home;
	gchar *etc;
	EsdTestDaemon *daemon;
	EsdTestWsClient *client;
	EsdTestPeer *peer;
	guint next_id;
} Fixture;

typedef struct {
	const gchar *name;
	void (*func)(Fixture *fx, gboolean ws);
} Case;

static void
write_file(const gchar *dir, const gchar *name, const gchar *contents)
{
	g_autofree gchar *path = g_build_filename(dir, name, NULL);
	g_autofree gchar *parent = g_path_get_dirname(path);
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(parent, 0700), ==, 0);
	g_file_set_contents(path, contents, -1, &error);
	g_assert_no_error(error);
}

static const gchar user_config[] = "model = \"gpt-user\"\n"
				   "[mcp_servers.foo]\n"
				   "command = \"foo\"\n"
				   "env = { A = \"1\" }\n"
				   "[mcp_servers.web]\n"
				   "url = \"http://127.0.0.1:9/mcp\"\n"
				   "[projects.\"@T@/proj\"]\n"
				   "trust_level = \"trusted\"\n"
				   "[projects.\"@T@/emptygit\"]\n"
				   "trust_level = \"trusted\"\n";

/* @text with @T@ replaced by the test's directory */
static gchar *
expand(Fixture *fx, const gchar *text)
{
	g_auto(GStrv) parts = g_strsplit(text, "@T@", -1);
	return g_strjoinv(fx->tmp, parts);
}

static void
fixture_start(Fixture *fx, gboolean ws, const gchar *const *extra_args, const gchar *codex_home)
{
	g_autofree gchar *home_env = g_strconcat("CODEX_HOME=", codex_home, NULL);
	g_autofree gchar *user_home = g_build_filename(fx->tmp, "userhome", NULL);
	g_autofree gchar *user_home_env = g_strconcat("HOME=", user_home, NULL);
	const gchar *env[] = {home_env, user_home_env, NULL};
	g_autoptr(GPtrArray) args = g_ptr_array_new();

	g_ptr_array_add(args, (gpointer) "--listen");
	g_ptr_array_add(args, (gpointer)(ws ? "ws://127.0.0.1:0" : "stdio"));
	g_ptr_array_add(args, (gpointer) "--env-config-system-dir");
	g_ptr_array_add(args, fx->etc);
	for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)extra_args[i]);
	g_ptr_array_add(args, NULL);
	fx->daemon = esd_test_daemon_new_full((const gchar *const *)args->pdata, env, NULL, ws);
	if (ws) {
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	} else {
		fx->peer = ESD_TEST_PEER(fx->daemon);
	}
	g_free(esd_test_peer_handshake(fx->peer));
}

static void
fixture_stop(Fixture *fx)
{
	if (fx->client != NULL)
		esd_test_ws_client_close(fx->client);
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
	fx->peer = NULL;
}

static void
fixture_setup(Fixture *fx)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *config = NULL;
	g_autofree gchar *user_home = NULL;
	g_autofree gchar *empty_git = NULL;

	fx->tmp = g_dir_make_tmp("esd-env-config-XXXXXX", &error);
	g_assert_no_error(error);
	fx->home = g_build_filename(fx->tmp, "home", NULL);
	fx->etc = g_build_filename(fx->tmp, "etc", NULL);
	user_home = g_build_filename(fx->tmp, "userhome", NULL);
	g_assert_cmpint(g_mkdir_with_parents(fx->etc, 0700), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(user_home, 0700), ==, 0);
	config = expand(fx, user_config);
	write_file(fx->home, "config.toml", config);
	write_file(fx->tmp, "proj/.git/HEAD", "ref: refs/heads/main\n");
	write_file(fx->tmp,
		   "proj/.codex/config.toml",
		   "model = \"gpt-project\"\n"
		   "model_provider = \"dropped\"\n"
		   "[mcp_servers.bar]\ncommand = \"bar\"\n");
	write_file(fx->tmp, "proj/sub/.codex/config.toml", "model = \"gpt-sub\"\n");
	write_file(fx->tmp, "untrusted/.git/HEAD", "ref: refs/heads/main\n");
	write_file(fx->tmp, "untrusted/.codex/config.toml", "model = \"untrusted\"\n");
	write_file(fx->tmp, "emptygit/sub/.codex/config.toml", "model = \"emptygit-sub\"\n");
	write_file(fx->tmp, "emptygit/.codex/config.toml", "model = \"emptygit\"\n");
	empty_git = g_build_filename(fx->tmp, "emptygit", ".git", NULL);
	g_assert_cmpint(mkdir(empty_git, 0700), ==, 0);
}

static void
remove_tree(const gchar *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const gchar *name;
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && dir != NULL) {
		while ((name = g_dir_read_name(dir)) != NULL) {
			g_autofree gchar *child = g_build_filename(path, name, NULL);
			remove_tree(child);
		}
		rmdir(path);
		return;
	}
	unlink(path);
}

static void
fixture_teardown(Fixture *fx)
{
	fixture_stop(fx);
	remove_tree(fx->tmp);
	g_free(fx->tmp);
	g_free(fx->home);
	g_free(fx->etc);
}

/* environmentConfig/read with @params (@T@ expanded), the reply */
static JsonNode *
read_config(Fixture *fx, const gchar *params)
{
	g_autofree gchar *expanded = expand(fx, params);
	g_autofree gchar *request =
	    g_strdup_printf("{\"id\":%u,\"method\":\"environmentConfig/read\",\"params\":%s}",
			    ++fx->next_id,
			    expanded);
	return esd_test_peer_call(fx->peer, request);
}

static JsonNode *
read_paths(Fixture *fx, const gchar *cwd, const gchar *config_paths, const gchar *req_paths)
{
	g_autofree gchar *params =
	    g_strdup_printf("{\"cwd\":\"file://%s\",\"configPaths\":%s,\"requirementsPaths\":%s}",
			    cwd,
			    config_paths,
			    req_paths);
	return read_config(fx, params);
}

/* "SOURCE @ BASEDIR\nTOML" per layer, then "cloud N", with $T for the tree */
static gchar *
stack_summary(Fixture *fx, JsonNode *reply, const gchar *stack)
{
	g_autofree gchar *layers_path = g_strconcat("result.", stack, ".layers", NULL);
	g_autofree gchar *cloud_path = g_strconcat("result.", stack, ".cloudInsertionIndex", NULL);
	JsonNode *layers = esd_test_json_get(reply, layers_path);
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree gchar *tmp_uri = g_strconcat("file://", fx->tmp, NULL);
	g_auto(GStrv) parts = NULL;

	if (layers == NULL || !JSON_NODE_HOLDS_ARRAY(layers)) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("no %s in %s", layers_path, text);
	}
	for (guint i = 0; i < json_array_get_length(json_node_get_array(layers)); i++) {
		JsonNode *layer = json_array_get_element(json_node_get_array(layers), i);
		g_assert_cmpuint(json_object_get_size(json_node_get_object(layer)), ==, 3);
		g_string_append_printf(out,
				       "%s @ %s\n%s",
				       esd_test_json_get_string(layer, "source"),
				       esd_test_json_get_string(layer, "baseDir"),
				       esd_test_json_get_string(layer, "toml"));
	}
	g_string_append_printf(out,
			       "cloud %" G_GINT64_FORMAT,
			       esd_test_json_get_int(reply, cloud_path));
	parts = g_strsplit(out->str, tmp_uri, -1);
	g_string_assign(out, "");
	for (guint i = 0; parts[i] != NULL; i++) {
		g_auto(GStrv) again = g_strsplit(parts[i], fx->tmp, -1);
		g_autofree gchar *joined = g_strjoinv("$T", again);
		if (i > 0)
			g_string_append(out, "URI:$T");
		g_string_append(out, joined);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static void
assert_stack(Fixture *fx, JsonNode *reply, const gchar *stack, const gchar *expected)
{
	g_autofree gchar *summary = stack_summary(fx, reply, stack);
	g_assert_cmpstr(summary, ==, expected);
}

static void
assert_error(JsonNode *reply, gint64 code, const gchar *message)
{
	if (esd_test_json_get(reply, "error") == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("expected error %" G_GINT64_FORMAT " %s, got %s", code, message, text);
	}
	g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, code);
	g_assert_cmpstr(esd_test_json_get_string(reply, "error.message"), ==, message);
}

static void
case_capability(Fixture *fx, gboolean ws)
{
	g_autoptr(JsonNode) info =
	    esd_test_peer_call(fx->peer, "{\"id\":1,\"method\":\"environment/info\"}");
	JsonNode *flag = esd_test_json_get(info, "result.capabilities.environmentConfigRead");

	g_assert_nonnull(flag);
	g_assert_true(json_node_get_boolean(flag));
}

/* the whole reply of what the real client asks at start-up */
static void
case_user_layer(Fixture *fx, gboolean ws)
{
	g_autoptr(JsonNode) reply =
	    read_paths(fx, "/nonexistent/cwd", "[[\"mcp_servers\"]]", "[[\"mcp_servers\"]]");
	g_autofree gchar *home_uri = g_strconcat("file://", fx->home, NULL);
	g_autofree gchar *user_home_uri = g_strconcat("file://", fx->tmp, "/userhome", NULL);
	gchar hostname[256] = {0};

	g_assert_cmpint(gethostname(hostname, sizeof(hostname) - 1), ==, 0);
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.userHomeDir"), ==, user_home_uri);
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.codexHomeDir"), ==, home_uri);
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.hostname"), ==, hostname);
	g_assert_cmpuint(
	    json_object_get_size(json_node_get_object(esd_test_json_get(reply, "result"))),
	    ==,
	    5);
	assert_stack(fx,
		     reply,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\n"
		     "[mcp_servers.foo]\ncommand = \"foo\"\n\n[mcp_servers.foo.env]\nA = \"1\"\n\n"
		     "[mcp_servers.web]\nurl = \"http://127.0.0.1:9/mcp\"\n"
		     "cloud 0");
	assert_stack(fx, reply, "requirements", "cloud 0");
}

/* trusted .codex layers from the project root down to cwd, nothing else */
static void
case_project_layers(Fixture *fx, gboolean ws)
{
	g_autoptr(JsonNode) sub =
	    read_paths(fx, "@T@/proj/sub", "[[\"model\"],[\"model_provider\"]]", "[]");
	g_autoptr(JsonNode) root = read_paths(fx, "@T@/proj", "[[\"mcp_servers\",\"bar\"]]", "[]");
	g_autoptr(JsonNode) untrusted = read_paths(fx, "@T@/untrusted", "[[\"model\"]]", "[]");
	g_autoptr(JsonNode) empty_git = read_paths(fx, "@T@/emptygit/sub", "[[\"model\"]]", "[]");
	g_autoptr(JsonNode) empty_git_root = read_paths(fx, "@T@/emptygit", "[[\"model\"]]", "[]");

	/* model_provider is not taken from a project */
	assert_stack(
	    fx,
	    sub,
	    "config",
	    "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\n"
	    "project ($T/proj/.codex/config.toml) @ URI:$T/proj/.codex\nmodel = \"gpt-project\"\n"
	    "project ($T/proj/sub/.codex/config.toml) @ URI:$T/proj/sub/.codex\nmodel = "
	    "\"gpt-sub\"\n"
	    "cloud 0");
	assert_stack(fx,
		     root,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\n[mcp_servers]\n"
		     "project ($T/proj/.codex/config.toml) @ URI:$T/proj/.codex\n"
		     "[mcp_servers.bar]\ncommand = \"bar\"\n"
		     "cloud 0");
	assert_stack(fx,
		     untrusted,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\ncloud 0");
	/* an empty .git is no marker: the root is cwd, which is not trusted */
	assert_stack(fx,
		     empty_git,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\ncloud 0");
	assert_stack(fx,
		     empty_git_root,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\n"
		     "project ($T/emptygit/.codex/config.toml) @ URI:$T/emptygit/.codex\n"
		     "model = \"emptygit\"\ncloud 0");
}

/* system config and requirements, legacy managed config, the cloud index */
static void
case_system_layers(Fixture *fx, gboolean ws)
{
	g_autoptr(JsonNode) all = NULL;
	g_autoptr(JsonNode) without_system = NULL;

	write_file(fx->etc,
		   "config.toml",
		   "model = \"sys\"\n[mcp_servers.sysmcp]\ncommand = \"s\"\n");
	write_file(fx->etc,
		   "requirements.toml",
		   "allowed_sandbox_modes = [\"read-only\"]\n"
		   "[mcp_servers.foo.identity]\ncommand = \"foo\"\n");
	write_file(fx->etc,
		   "managed_config.toml",
		   "model = \"managed\"\napproval_policy = \"never\"\n"
		   "sandbox_mode = \"workspace-write\"\n");
	all = read_paths(
	    fx,
	    "@T@/proj",
	    "[[\"model\"]]",
	    "[[\"mcp_servers\"],[\"allowed_sandbox_modes\"],[\"allowed_approval_policies\"]]");
	assert_stack(
	    fx,
	    all,
	    "config",
	    "system ($T/etc/config.toml) @ URI:$T/etc\nmodel = \"sys\"\n"
	    "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\n"
	    "project ($T/proj/.codex/config.toml) @ URI:$T/proj/.codex\nmodel = \"gpt-project\"\n"
	    "legacy managed_config.toml ($T/etc/managed_config.toml) @ URI:$T/etc\n"
	    "model = \"managed\"\n"
	    "cloud 1");
	assert_stack(fx,
		     all,
		     "requirements",
		     "$T/etc/requirements.toml @ URI:$T/etc\n"
		     "allowed_sandbox_modes = [\"read-only\"]\n\n"
		     "[mcp_servers.foo.identity]\ncommand = \"foo\"\n"
		     "$T/etc/managed_config.toml @ URI:$T/etc\n"
		     "allowed_approval_policies = [\"never\"]\n"
		     "allowed_sandbox_modes = [\"read-only\", \"workspace-write\"]\n"
		     "cloud 1");
	/* the index counts only the layers below it that are kept */
	without_system = read_paths(fx,
				    "@T@/proj",
				    "[[\"mcp_servers\",\"foo\"]]",
				    "[[\"allowed_approval_policies\"]]");
	assert_stack(fx,
		     without_system,
		     "config",
		     "system ($T/etc/config.toml) @ URI:$T/etc\n[mcp_servers]\n"
		     "user ($T/home/config.toml) @ URI:$T/home\n"
		     "[mcp_servers.foo]\ncommand = \"foo\"\n\n[mcp_servers.foo.env]\nA = \"1\"\n"
		     "project ($T/proj/.codex/config.toml) @ URI:$T/proj/.codex\n[mcp_servers]\n"
		     "cloud 1");
	assert_stack(fx,
		     without_system,
		     "requirements",
		     "$T/etc/managed_config.toml @ URI:$T/etc\n"
		     "allowed_approval_policies = [\"never\"]\n"
		     "cloud 0");
	g_clear_pointer(&without_system, json_node_unref);
	without_system = read_paths(fx, "@T@/proj", "[[\"approval_policy\"]]", "[[\"nothing\"]]");
	assert_stack(fx,
		     without_system,
		     "config",
		     "legacy managed_config.toml ($T/etc/managed_config.toml) @ URI:$T/etc\n"
		     "approval_policy = \"never\"\n"
		     "cloud 0");
}

static void
case_params(Fixture *fx, gboolean ws)
{
	const struct {
		const gchar *params;
		const gchar *message;
	} rows[] = {
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":[],\"requirementsPaths\":[]}",
	     "at least one config or requirements path is required"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":[[]],\"requirementsPaths\":[]}",
	     "TOML paths must contain at least one key segment"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":[],\"requirementsPaths\":[[\"a\"],[]]}",
	     "TOML paths must contain at least one key segment"},
	    {"{\"configPaths\":[[\"model\"]],\"requirementsPaths\":[]}", "missing field `cwd`"},
	    {"{\"cwd\":\"file:///tmp\",\"requirementsPaths\":[]}", "missing field `configPaths`"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":[[\"model\"]]}",
	     "missing field `requirementsPaths`"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":\"x\",\"requirementsPaths\":[]}",
	     "invalid type: string \"x\", expected a sequence"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":[[\"a\",1]],\"requirementsPaths\":[]}",
	     "invalid type: number, expected a string"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":[\"a\"],\"requirementsPaths\":[]}",
	     "invalid type: string \"a\", expected a sequence"},
	    {"{\"cwd\":\"file:///tmp\",\"configPaths\":null,\"requirementsPaths\":[]}",
	     "invalid type: null, expected a sequence"},
	    {"null", "invalid type: null, expected struct EnvironmentConfigReadParams"},
	};
	g_autoptr(JsonNode) missing_cwd = NULL;
	g_autoptr(JsonNode) extra = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autoptr(JsonNode) reply = read_config(fx, rows[i].params);
		assert_error(reply, -32602, rows[i].message);
	}
	/* a cwd that does not exist is no error, nor an unknown member */
	missing_cwd = read_paths(fx, "/nonexistent", "[[\"model\"]]", "[]");
	assert_stack(fx,
		     missing_cwd,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\ncloud 0");
	extra = read_config(fx,
			    "{\"cwd\":\"file:///tmp\",\"configPaths\":[[\"nope\"]],"
			    "\"requirementsPaths\":[],\"extra\":1}");
	assert_stack(fx, extra, "config", "cloud 0");
}

/* the file is read again on every call */
static void
case_fresh(Fixture *fx, gboolean ws)
{
	g_autoptr(JsonNode) before = read_paths(fx, "/", "[[\"model\"]]", "[]");
	g_autoptr(JsonNode) after = NULL;
	g_autoptr(JsonNode) gone = NULL;
	g_autofree gchar *user_file = g_build_filename(fx->home, "config.toml", NULL);

	assert_stack(fx,
		     before,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\ncloud 0");
	write_file(fx->home, "config.toml", "model = \"changed\"\n");
	after = read_paths(fx, "/", "[[\"model\"]]", "[]");
	assert_stack(fx,
		     after,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"changed\"\ncloud 0");
	g_assert_cmpint(unlink(user_file), ==, 0);
	gone = read_paths(fx, "/", "[[\"model\"]]", "[]");
	assert_stack(fx, gone, "config", "cloud 0");
}

/* a broken config.toml is answered with an error at once, and the daemon
 * goes on serving */
static void
case_hostile(Fixture *fx, gboolean ws)
{
	g_autofree gchar *user_file = g_build_filename(fx->home, "config.toml", NULL);
	g_autofree gchar *deep = NULL;
	g_autofree gchar *big = NULL;
	const struct {
		const gchar *what;
		const gchar *contents; /* NULL: made below */
		const gchar *message;  /* after "failed to load executor-local config: " */
	} rows[] = {
	    {"invalid", "model = \"x\"\nfoo = \n", "@F@:2:7: "},
	    {"utf8-2",
	     "model = \"\xe2\x82x\"\n",
	     "Failed to read config file @F@: invalid utf-8 sequence of 2 bytes from index 9"},
	    {"utf8-3",
	     "model = \"\xf0\x9f\x98\"\n",
	     "Failed to read config file @F@: invalid utf-8 sequence of 3 bytes from index 9"},
	    {"utf8-end",
	     "model = \"x\"\n\xe2\x82",
	     "Failed to read config file @F@: incomplete utf-8 byte sequence from index 12"},
	    {"utf8",
	     "model = \"\xff\"\n",
	     "Failed to read config file @F@: invalid utf-8 sequence of 1 bytes from index 9"},
	    {"deep", NULL, "@F@:1:"},
	    {"big",
	     NULL,
	     "Failed to read config file @F@: file is larger than the limit of 4096 bytes"},
	    {"fifo", NULL, "Failed to read config file @F@: path `@F@` is not a file"},
	    {"directory", NULL, "Failed to read config file @F@: path `@F@` is not a file"},
	    {"loop", NULL, "Failed to read config file @F@: Symbolic link loop (os error 40)"},
	};
	const gchar *const args[] = {"--env-config-max-bytes", "4096", NULL};

	fixture_stop(fx);
	fixture_start(fx, ws, args, fx->home);
	{
		/* a key of 100 dotted parts */
		g_autoptr(GString) key = g_string_new("a");
		for (guint i = 1; i < 100; i++)
			g_string_append(key, ".a");
		g_string_append(key, " = 1\n");
		deep = g_string_free(g_steal_pointer(&key), FALSE);
	}
	big = g_strnfill(5000, '#');
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autoptr(JsonNode) reply = NULL;
		g_autofree gchar *expected_tail = NULL;
		g_autofree gchar *expected = NULL;
		g_auto(GStrv) parts = NULL;
		const gchar *message;
		gint64 start;

		remove_tree(user_file);
		if (rows[i].contents != NULL)
			write_file(fx->home, "config.toml", rows[i].contents);
		else if (g_str_equal(rows[i].what, "deep"))
			write_file(fx->home, "config.toml", deep);
		else if (g_str_equal(rows[i].what, "big"))
			write_file(fx->home, "config.toml", big);
		else if (g_str_equal(rows[i].what, "fifo"))
			g_assert_cmpint(mkfifo(user_file, 0600), ==, 0);
		else if (g_str_equal(rows[i].what, "directory"))
			g_assert_cmpint(mkdir(user_file, 0700), ==, 0);
		else if (g_str_equal(rows[i].what, "loop"))
			g_assert_cmpint(symlink("config.toml", user_file), ==, 0);
		start = g_get_monotonic_time();
		reply = read_paths(fx, "/", "[[\"model\"]]", "[]");
		/* a FIFO nobody writes to must not hold the answer */
		g_assert_cmpint(g_get_monotonic_time() - start, <, 3 * G_USEC_PER_SEC);
		parts = g_strsplit(rows[i].message, "@F@", -1);
		expected_tail = g_strjoinv(user_file, parts);
		expected =
		    g_strconcat("failed to load executor-local config: ", expected_tail, NULL);
		g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32603);
		message = esd_test_json_get_string(reply, "error.message");
		if (!g_str_has_prefix(message, expected))
			g_error("%s: expected \"%s...\", got \"%s\"",
				rows[i].what,
				expected,
				message);
		esd_test_peer_assert_alive(fx->peer);
	}
}

/* a trusted project file that does not parse fails the call, framed as the
 * reference frames it; an untrusted one is not read */
static void
case_project_invalid(Fixture *fx, gboolean ws)
{
	g_autoptr(JsonNode) trusted = NULL;
	g_autoptr(JsonNode) untrusted = NULL;
	g_autofree gchar *file = g_build_filename(fx->tmp, "proj", ".codex", "config.toml", NULL);
	g_autofree gchar *expected = g_strdup_printf(
	    "failed to load executor-local config: Error parsing project config file %s: "
	    "TOML parse error at line 2, column 7\n  |\n2 | foo = \n  |       ^\n",
	    file);
	const gchar *message;

	write_file(fx->tmp, "proj/.codex/config.toml", "model = \"x\"\nfoo = \n");
	write_file(fx->tmp, "untrusted/.codex/config.toml", "model = \"x\"\nfoo = \n");
	trusted = read_paths(fx, "@T@/proj", "[[\"model\"]]", "[]");
	g_assert_cmpint(esd_test_json_get_int(trusted, "error.code"), ==, -32603);
	message = esd_test_json_get_string(trusted, "error.message");
	if (!g_str_has_prefix(message, expected) || !g_str_has_suffix(message, "\n"))
		g_error("expected \"%s...\\n\", got \"%s\"", expected, message);
	untrusted = read_paths(fx, "@T@/untrusted", "[[\"model\"]]", "[]");
	assert_stack(fx,
		     untrusted,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\ncloud 0");
}

static void
case_codex_home_missing(Fixture *fx, gboolean ws)
{
	g_autofree gchar *missing = g_build_filename(fx->tmp, "nohome", NULL);
	g_autofree gchar *message = g_strdup_printf(
	    "failed to find Codex home: CODEX_HOME points to \"%s\", but that path does not exist",
	    missing);
	g_autoptr(JsonNode) reply = NULL;

	fixture_stop(fx);
	fixture_start(fx, ws, NULL, missing);
	reply = read_paths(fx, "/", "[[\"model\"]]", "[]");
	assert_error(reply, -32603, message);
}

static gchar *
read_maps(Fixture *fx)
{
	g_autofree gchar *path =
	    g_strdup_printf("/proc/%d/maps", (gint)esd_test_daemon_get_pid(fx->daemon));
	gchar *maps = NULL;

	g_assert_true(g_file_get_contents(path, &maps, NULL, NULL));
	return maps;
}

/* libstdc++ is mapped on the first request, not at start-up */
static void
case_lazy_cpp(Fixture *fx, gboolean ws)
{
	g_autofree gchar *before = read_maps(fx);
	g_autofree gchar *after = NULL;
	g_autoptr(JsonNode) reply = read_paths(fx, "/", "[[\"model\"]]", "[]");

	/* ASan needs libstdc++ from the start to catch C++ throws: a sanitizer
	 * run preloads it (plugins/env-config/README.md) */
	if (g_strrstr(g_getenv("LD_PRELOAD") != NULL ? g_getenv("LD_PRELOAD") : "", "libstdc++")) {
		g_test_skip("libstdc++ is preloaded");
		return;
	}

	g_assert_nonnull(strstr(before, "libesd-plugin-env-config.so"));
	if (strstr(before, "libesd-env-config-toml") != NULL)
		g_error("the daemon mapped the C++ half at start-up:\n%s", before);
#ifndef __SANITIZE_ADDRESS__
	/* a sanitizer build has libstdc++ from libubsan */
	if (strstr(before, "libstdc++") != NULL)
		g_error("the daemon mapped libstdc++ at start-up:\n%s", before);
#endif
	assert_stack(fx,
		     reply,
		     "config",
		     "user ($T/home/config.toml) @ URI:$T/home\nmodel = \"gpt-user\"\ncloud 0");
	after = read_maps(fx);
	g_assert_nonnull(strstr(after, "libesd-env-config-toml.so"));
}

static void
run_case(gconstpointer data, gboolean ws)
{
	const Case *c = data;
	Fixture fx = {0};

	fixture_setup(&fx);
	fixture_start(&fx, ws, NULL, fx.home);
	c->func(&fx, ws);
	if (fx.peer != NULL)
		esd_test_peer_assert_alive(fx.peer);
	fixture_teardown(&fx);
}

static void
test_ws(gconstpointer data)
{
	run_case(data, TRUE);
}

static void
test_stdio(gconstpointer data)
{
	run_case(data, FALSE);
}

static const Case cases[] = {
    {"capability", case_capability},
    {"user-layer", case_user_layer},
    {"project-layers", case_project_layers},
    {"system-layers", case_system_layers},
    {"params", case_params},
    {"fresh", case_fresh},
    {"hostile", case_hostile},
    {"project-invalid", case_project_invalid},
    {"codex-home-missing", case_codex_home_missing},
    {"lazy-cpp", case_lazy_cpp},
};

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *ws = g_strconcat(TEST_PREFIX "ws/", cases[i].name, NULL);
		g_autofree gchar *stdio = g_strconcat(TEST_PREFIX "stdio/", cases[i].name, NULL);
		g_test_add_data_func(ws, &cases[i], test_ws);
		g_test_add_data_func(stdio, &cases[i], test_stdio);
	}
	return g_test_run();
}
