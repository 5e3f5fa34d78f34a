/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-bwrap.h"
#include "fs-harness.h"

/*
 * capabilityRoots/discoverV1 and capabilities/discoverV2 against the real
 * daemon, over WebSocket and stdio (the fs harness: a daemon and a scratch
 * directory per case). Every member and error of both methods in the
 * reference's shape (plugins/capability-discovery/README.md), hostile trees,
 * roots read inside their sandbox (skipped without user namespaces), and
 * fresh discoverV2 answers. The daemon's CODEX_HOME is a directory made by
 * main(), emptied by each case that uses it; its HOME is the case's own.
 */

#define V1 "capabilityRoots/discoverV1"
#define V2 "capabilities/discoverV2"

#define ROOT_READ	   "{'path':{'type':'special','value':{'kind':'root'}},'access':'read'}"
#define ENTRY(rel, access) "{'path':{'type':'path','path':@{" rel "}},'access':'" access "'}"
#define SANDBOX(entries)                                                                           \
	"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':[" entries  \
	"]},'network':'restricted'},'windowsSandboxLevel':'disabled'}"
#define EACCES_TEXT "Permission denied (os error 13)"

static gchar *codex_home = NULL;

static gboolean
skip_without_sandbox(const CaseDef *def, gchar **reason)
{
	static gsize once = 0;
	static gchar *unavailable = NULL;

	if ((def->flags & CASE_SANDBOX) == 0)
		return FALSE;
	if (g_once_init_enter(&once)) {
		g_autoptr(GError) error = NULL;
		if (!esd_bwrap_available(&error))
			unavailable = g_strdup(error->message);
		g_once_init_leave(&once, 1);
	}
	if (unavailable == NULL)
		return FALSE;
	*reason = g_strdup(unavailable);
	return TRUE;
}

/* @data at @path, with its parent directories */
static void
put_path(const gchar *path, const gchar *data)
{
	g_autofree gchar *parent = g_path_get_dirname(path);
	g_autoptr(GError) error = NULL;

	if (g_mkdir_with_parents(parent, 0755) != 0)
		g_error("mkdir %s: %s", parent, g_strerror(errno));
	g_file_set_contents(path, data, -1, &error);
	g_assert_no_error(error);
}

static void
put(Fx *fx, const gchar *rel, const gchar *data)
{
	put_path(fx_path(fx, rel), data);
}

static void
fx_expect(Fx *fx, const gchar *method, const gchar *params, const gchar *expected)
{
	conn_expect(fx, fx->conn, method, params, expected);
}

static void
fx_fail(Fx *fx, const gchar *method, const gchar *params, gint64 code, const gchar *message)
{
	conn_fail(fx, fx->conn, method, params, code, message);
}

static void
test_capabilities(Fx *fx)
{
	JsonNode *caps = esd_test_json_get(fx->init_result, "environmentInfo.capabilities");

	esd_assert_json_node_eq(esd_test_json_get(caps, "capabilityDiscoverySandbox"), "true");
	esd_assert_json_node_eq(esd_test_json_get(caps, "capabilityDiscoveryV2"), "true");
}

#define SKILL_A "---\\nname: a\\ndescription: A\\n---\\nbody\\n"
#define MANIFEST_P_FILE                                                                            \
	"{\"name\":\"p\",\"mcpServers\":\"./cfg/mcp.json\",\"apps\":\"./apps.json\"}"
/* the same as a JSON string in a template */
#define MANIFEST_P                                                                                 \
	"'{\\'name\\':\\'p\\',\\'mcpServers\\':\\'./cfg/mcp.json\\',\\'apps\\':\\'./"              \
	"apps.json\\'}'"

/* a plugin root with every member, a missing root and a file, in request order */
static void
test_v1_plugin(Fx *fx)
{
	put(fx, "p/.codex-plugin/plugin.json", MANIFEST_P_FILE);
	put(fx, "p/.claude-plugin/plugin.json", "{}");
	put(fx, "p/cfg/mcp.json", "{\"m\":1}");
	put(fx, "p/.mcp.json", "{\"unused\":1}");
	put(fx, "p/apps.json", "{\"apps\":1}");
	put(fx, "p/skills/a/SKILL.md", "---\nname: a\ndescription: A\n---\nbody\n");
	put(fx, "p/skills/a/agents/openai.yaml", "interface: {}\n");
	put(fx, "p/skills/b/c/d/SKILL.md", "d");
	put(fx, "p/sub/.cursor-plugin/plugin.json", "{\"name\":\"sub\"}");
	put(fx, "p/sub/skills/x/SKILL.md", "x");
	put(fx, "file", "f");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'m','path':@{missing}},{'id':'p','path':@{p}},{'id':'f','path':@{file}"
	    "}]}",
	    "{'roots':["
	    "{'id':'m','path':@{missing},'plugin':null,'skills':[],'namespaceManifests':[],"
	    "'warnings':[],'error':'failed to inspect capability root file://%{missing}: No such "
	    "file or directory (os error 2)'},"
	    "{'id':'p','path':@{p},'plugin':{"
	    "'manifest':{'path':@{p/.codex-plugin/plugin.json},'contents':" MANIFEST_P "},"
	    "'mcpConfig':{'path':@{p/cfg/mcp.json},'contents':'{\\'m\\':1}'},"
	    "'appsConfig':{'path':@{p/apps.json},'contents':'{\\'apps\\':1}'}},"
	    "'skills':["
	    "{'instructions':{'path':@{p/skills/a/SKILL.md},'contents':'" SKILL_A "'},"
	    "'metadata':{'path':@{p/skills/a/agents/openai.yaml},'contents':'interface: {}\\n'}},"
	    "{'instructions':{'path':@{p/skills/b/c/d/SKILL.md},'contents':'d'},'metadata':null},"
	    "{'instructions':{'path':@{p/sub/skills/x/SKILL.md},'contents':'x'},'metadata':null}],"
	    "'namespaceManifests':["
	    "{'path':@{p/.codex-plugin/plugin.json},'contents':" MANIFEST_P "},"
	    "{'path':@{p/sub/.cursor-plugin/plugin.json},'contents':'{\\'name\\':\\'sub\\'}'}],"
	    "'warnings':[],'error':null},"
	    "{'id':'f','path':@{file},'plugin':null,'skills':[],'namespaceManifests':[],"
	    "'warnings':[],'error':'capability root file://%{file} is not a directory'}]}");
}

/* a root inside a plugin gets the plugin's manifest as its namespace, and no plugin */
static void
test_v1_ancestor(Fx *fx)
{
	put(fx, "p/.claude-plugin/plugin.json", "{}");
	put(fx, "p/.cursor-plugin/plugin.json", "[]");
	put(fx, "p/skills/s/SKILL.md", "s");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'s','path':@{p/skills}}]}",
	    "{'roots':[{'id':'s','path':@{p/skills},'plugin':null,'skills':["
	    "{'instructions':{'path':@{p/skills/s/SKILL.md},'contents':'s'},'metadata':null}],"
	    "'namespaceManifests':[{'path':@{p/.claude-plugin/plugin.json},'contents':'{}'}],"
	    "'warnings':[],'error':null}]}");
}

/* what a manifest declares: inline servers, refused paths, the `.mcp.json` fallback */
static void
test_v1_declarations(Fx *fx)
{
	put(fx,
	    "inline/.codex-plugin/plugin.json",
	    "{\"mcpServers\":{\"a\":{}},\"apps\":\"apps.json\"}");
	put(fx, "inline/.mcp.json", "{}");
	put(fx, "bad/.codex-plugin/plugin.json", "{\"mcpServers\":\"./../x\",\"apps\":\"./\"}");
	put(fx, "bad/.mcp.json", "{}");
	put(fx, "text/.codex-plugin/plugin.json", "not json");
	put(fx, "text/.mcp.json", "{}");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'i','path':@{inline}},{'id':'b','path':@{bad}},{'id':'t','path':@{"
	    "text}}]}",
	    "{'roots':["
	    "{'id':'i','path':@{inline},'plugin':{'manifest':{'path':@{inline/.codex-plugin/"
	    "plugin.json},'contents':'{\\'mcpServers\\':{\\'a\\':{}},\\'apps\\':\\'apps.json\\'}'},"
	    "'mcpConfig':null,'appsConfig':null},'skills':[],"
	    "'namespaceManifests':[{'path':@{inline/.codex-plugin/plugin.json},'contents':"
	    "'{\\'mcpServers\\':{\\'a\\':{}},\\'apps\\':\\'apps.json\\'}'}],"
	    "'warnings':['ignoring apps in file://%{inline/.codex-plugin/plugin.json}: path must "
	    "start with `./`'],'error':null},"
	    "{'id':'b','path':@{bad},'plugin':{'manifest':{'path':@{bad/.codex-plugin/plugin.json},"
	    "'contents':'{\\'mcpServers\\':\\'./../x\\',\\'apps\\':\\'./\\'}'},"
	    "'mcpConfig':{'path':@{bad/.mcp.json},'contents':'{}'},'appsConfig':null},'skills':[],"
	    "'namespaceManifests':[{'path':@{bad/.codex-plugin/plugin.json},"
	    "'contents':'{\\'mcpServers\\':\\'./../x\\',\\'apps\\':\\'./\\'}'}],"
	    "'warnings':['ignoring mcpServers in file://%{bad/.codex-plugin/plugin.json}: path "
	    "must "
	    "remain below the capability root','ignoring apps in "
	    "file://%{bad/.codex-plugin/plugin.json}: path must remain below the capability root'],"
	    "'error':null},"
	    "{'id':'t','path':@{text},'plugin':{'manifest':{'path':@{text/.codex-plugin/"
	    "plugin.json},"
	    "'contents':'not json'},'mcpConfig':{'path':@{text/.mcp.json},'contents':'{}'},"
	    "'appsConfig':null},'skills':[],'namespaceManifests':[{'path':"
	    "@{text/.codex-plugin/plugin.json},'contents':'not "
	    "json'}],'warnings':[],'error':null}]}");
}

static void
test_v1_errors(Fx *fx)
{
	JsonNode *reply;
	GString *many = g_string_new("{'roots':[");

	fx_fail(fx, V1, "{}", -32602, "missing field `roots`");
	fx_fail(fx, V1, "{'roots':[{'path':'file:///'}]}", -32602, "missing field `id`");
	fx_fail(fx, V1, "{'roots':[{'id':'x'}]}", -32602, "missing field `path`");
	fx_fail(fx,
		V1,
		"{'roots':[{'id':1,'path':'file:///'}]}",
		-32602,
		"invalid type: number, expected a string");
	fx_fail(fx,
		V1,
		"{'roots':[1]}",
		-32602,
		"invalid type: number, expected struct WireCapabilityRootDiscoverRequest");
	fx_fail(fx,
		V1,
		"{'roots':[{'id':'x','path':'/tmp'}]}",
		-32602,
		"invalid URI: relative URL without a base");
	fx_fail(fx,
		V1,
		"{'roots':[{'id':'x','path':'file:///','sandbox':{'permissions':{'type':'bogus'},"
		"'windowsSandboxLevel':'disabled'}}]}",
		-32602,
		"unknown variant `bogus`, expected one of `managed`, `disabled`, `external`");
	for (guint i = 0; i < 129; i++)
		g_string_append_printf(many, "%s{'id':'r','path':@{}}", i > 0 ? "," : "");
	g_string_append(many, "]}");
	fx_fail(fx,
		V1,
		fx_keep(fx, g_string_free(many, FALSE)),
		-32600,
		"capability root discovery accepts at most 128 roots");
	/* no roots; a URI with a host is that root's error; the path comes back as sent */
	fx_expect(fx, V1, "{'roots':[]}", "{'roots':[]}");
	reply = conn_call(
	    fx,
	    fx->conn,
	    V1,
	    fx_json(
		fx,
		"{'roots':[{'id':'h','path':'file://host'},{'id':'s','path':'file://%{gone}/'}]}"));
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.roots.0.path"),
				"\"file://host/\"");
	g_assert_cmpstr(
	    esd_test_json_get_string(reply, "result.roots.0.error"),
	    ==,
	    "failed to inspect capability root file://host/: 'file://host/' is invalid on 'linux'");
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.roots.0.skills"), "[]");
	esd_assert_json_node_eq(
	    esd_test_json_get(reply, "result.roots.1"),
	    fx_json(fx,
		    "{'id':'s','path':'file://%{gone}/','plugin':null,'skills':[],"
		    "'namespaceManifests':[],'warnings':[],'error':'failed to inspect "
		    "capability root file://%{gone}/: No such file or directory (os error 2)'}"));
}

/*
 * links: a directory link out of the root is followed (as by the
 * reference), a second link to a directory and a loop are dropped, a link
 * named SKILL.md is no skill
 */
static void
test_v1_links(Fx *fx)
{
	put(fx, "outside/o/SKILL.md", "out");
	put(fx, "root/in/SKILL.md", "in");
	disk_symlink(fx, fx_path(fx, "outside"), "root/out");
	disk_symlink(fx, "in", "root/second");
	disk_symlink(fx, ".", "root/loop");
	disk_symlink(fx, "nowhere", "root/dangling");
	disk_mkdir(fx, "root/file-link");
	disk_symlink(fx, fx_path(fx, "outside/o/SKILL.md"), "root/file-link/SKILL.md");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'r','path':@{root}}]}",
	    "{'roots':[{'id':'r','path':@{root},'plugin':null,'skills':["
	    "{'instructions':{'path':@{root/in/SKILL.md},'contents':'in'},'metadata':null},"
	    "{'instructions':{'path':@{root/out/o/SKILL.md},'contents':'out'},'metadata':null}],"
	    "'namespaceManifests':[],'warnings':[],'error':null}]}");
}

/* the walk stops at 6 levels below the root */
static void
test_v1_depth(Fx *fx)
{
	g_autoptr(GString) rel = g_string_new("deep");

	for (guint i = 1; i <= 1000; i++) {
		g_string_append_printf(rel, "/%u", i % 10);
		if (i == 6 || i == 7) {
			g_autofree gchar *skill = g_strconcat(rel->str, "/SKILL.md", NULL);
			put(fx, skill, "s");
		}
	}
	disk_mkdir(fx, rel->str);
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'d','path':@{deep}}]}",
	    "{'roots':[{'id':'d','path':@{deep},'plugin':null,'skills':[{'instructions':{'path':"
	    "@{deep/1/2/3/4/5/6/SKILL.md},'contents':'s'},'metadata':null}],"
	    "'namespaceManifests':[],'warnings':[],'error':null}]}");
}

/* a FIFO is never opened, a 100 MB file never read, bytes that are not UTF-8 are a warning */
static void
test_v1_hostile_files(Fx *fx)
{
	gint fd;

	disk_mkdir(fx, "h/fifo");
	disk_fifo(fx, "h/fifo/SKILL.md");
	disk_mkdir(fx, "h/dir-fifo/agents");
	put(fx, "h/dir-fifo/SKILL.md", "ok");
	disk_fifo(fx, "h/dir-fifo/agents/openai.yaml");
	disk_mkdir(fx, "h/fifo-plugin/.codex-plugin");
	disk_fifo(fx, "h/fifo-plugin/.codex-plugin/plugin.json");
	disk_mkdir(fx, "h/big");
	fd = g_open(fx_path(fx, "h/big/SKILL.md"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, 100 * 1024 * 1024), ==, 0);
	close(fd);
	put(fx, "h/bin/SKILL.md", "ok\xe2\x82");
	put(fx, "h/bad/SKILL.md", "\xf0\x90\x80\x41");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'h','path':@{h}},{'id':'fp','path':@{h/fifo-plugin}}]}",
	    "{'roots':[{'id':'h','path':@{h},'plugin':null,'skills':[{'instructions':{'path':"
	    "@{h/dir-fifo/SKILL.md},'contents':'ok'},'metadata':null}],"
	    "'namespaceManifests':[],'warnings':["
	    "'capability file file://%{h/bad/SKILL.md} is not UTF-8: invalid utf-8 sequence of 3 "
	    "bytes from index 0',"
	    "'capability file file://%{h/big/SKILL.md} exceeds the 1048576-byte limit',"
	    "'capability file file://%{h/bin/SKILL.md} is not UTF-8: incomplete utf-8 byte "
	    "sequence from index 2'],'error':null},"
	    "{'id':'fp','path':@{h/fifo-plugin},'plugin':null,'skills':[],"
	    "'namespaceManifests':[],'warnings':[],'error':null}]}");
}

/* 100,000 files: the walk stops at its entry limit, with the reference's warning */
static void
test_v1_many_files(Fx *fx)
{
	gint dir_fd;
	JsonNode *reply;

	disk_mkdir(fx, "many/d");
	put(fx, "many/SKILL.md", "top");
	dir_fd = open(fx_path(fx, "many/d"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	g_assert_cmpint(dir_fd, >=, 0);
	for (guint i = 0; i < 100000; i++) {
		gchar name[16];
		gint fd;
		g_snprintf(name, sizeof(name), "f%06u", i);
		fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		g_assert_cmpint(fd, >=, 0);
		close(fd);
	}
	close(dir_fd);
	reply = conn_call(fx, fx->conn, V1, fx_json(fx, "{'roots':[{'id':'m','path':@{many}}]}"));
	esd_assert_json_node_eq(
	    esd_test_json_get(reply, "result.roots.0.warnings"),
	    fx_json(fx, "['capability scan reached its traversal limit (root: file://%{many})']"));
	esd_assert_json_node_eq(
	    esd_test_json_get(reply, "result.roots.0.skills"),
	    fx_json(
		fx,
		"[{'instructions':{'path':@{many/SKILL.md},'contents':'top'},'metadata':null}]"));
}

/* a directory the daemon cannot list is a warning (root would list it) */
static void
test_v1_unreadable(Fx *fx)
{
	put(fx, "u/locked/SKILL.md", "l");
	put(fx, "u/open/SKILL.md", "o");
	g_assert_cmpint(g_chmod(fx_path(fx, "u/locked"), 0), ==, 0);
	fx_expect(fx,
		  V1,
		  "{'roots':[{'id':'u','path':@{u}}]}",
		  "{'roots':[{'id':'u','path':@{u},'plugin':null,'skills':[{'instructions':{'path':"
		  "@{u/open/SKILL.md},'contents':'o'},'metadata':null}],'namespaceManifests':[],"
		  "'warnings':['failed to scan capability path file://%{u/locked}: " EACCES_TEXT
		  "'],"
		  "'error':null}]}");
	g_chmod(fx_path(fx, "u/locked"), 0755);
}

/*
 * a sandboxed root is read inside its sandbox: a denied subtree and a
 * denied file are invisible (the reference's warnings), a directory link
 * into a denied directory leads nowhere, and the same root without a
 * sandbox in the same call sees everything
 */
static void
test_v1_sandbox(Fx *fx)
{
	put(fx, "p/.codex-plugin/plugin.json", "{}");
	put(fx, "p/skills/open/SKILL.md", "open");
	put(fx, "p/skills/secret/SKILL.md", "secret");
	put(fx, "p/skills/file/SKILL.md", "file");
	put(fx, "hidden/h/SKILL.md", "hidden");
	disk_symlink(fx, fx_path(fx, "hidden"), "p/skills/link");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'s','path':@{p},'sandbox':" SANDBOX(
		ROOT_READ "," ENTRY("p/skills/secret", "deny") "," ENTRY(
		    "p/skills/file/SKILL.md",
		    "deny") "," ENTRY("hidden", "deny")) "},"
							 "{'id':'n','path':@{p}}]}",
	    "{'roots':["
	    "{'id':'s','path':@{p},'plugin':{'manifest':{'path':@{p/.codex-plugin/plugin.json},"
	    "'contents':'{}'},'mcpConfig':null,'appsConfig':null},'skills':["
	    "{'instructions':{'path':@{p/skills/open/"
	    "SKILL.md},'contents':'open'},'metadata':null}],"
	    "'namespaceManifests':[{'path':@{p/.codex-plugin/plugin.json},'contents':'{}'}],"
	    "'warnings':['failed to scan capability path file://%{p/skills/link}: " EACCES_TEXT "',"
	    "'failed to scan capability path file://%{p/skills/secret}: " EACCES_TEXT "',"
	    "'failed to read capability file file://%{p/skills/file/SKILL.md}: " EACCES_TEXT "'],"
	    "'error':null},"
	    "{'id':'n','path':@{p},'plugin':{'manifest':{'path':@{p/.codex-plugin/plugin.json},"
	    "'contents':'{}'},'mcpConfig':null,'appsConfig':null},'skills':["
	    "{'instructions':{'path':@{p/skills/file/SKILL.md},'contents':'file'},'metadata':null},"
	    "{'instructions':{'path':@{p/skills/link/h/"
	    "SKILL.md},'contents':'hidden'},'metadata':null},"
	    "{'instructions':{'path':@{p/skills/open/SKILL.md},'contents':'open'},'metadata':null},"
	    "{'instructions':{'path':@{p/skills/secret/SKILL.md},'contents':'secret'},"
	    "'metadata':null}],"
	    "'namespaceManifests':[{'path':@{p/.codex-plugin/plugin.json},'contents':'{}'}],"
	    "'warnings':[],'error':null}]}");
}

/* a root whose sandbox shows nothing: a root the sandbox hides does not exist */
static void
test_v1_sandbox_empty(Fx *fx)
{
	put(fx, "p/skills/s/SKILL.md", "s");
	fx_expect(
	    fx,
	    V1,
	    "{'roots':[{'id':'e','path':@{p},'sandbox':" SANDBOX("") "}]}",
	    "{'roots':[{'id':'e','path':@{p},'plugin':null,'skills':[],'namespaceManifests':[],"
	    "'warnings':[],'error':'failed to inspect capability root file://%{p}: No such file "
	    "or directory (os error 2)'}]}");
}

/* no helper to run: the sandboxed root gets an error and none of its files */
static void
test_v1_sandbox_fail_closed(Fx *fx)
{
	g_autoptr(EsdTestDaemon) daemon = NULL;
	Conn *conn;
	JsonNode *reply;
	const gchar *error;

	put(fx, "p/skills/s/SKILL.md", "s");
	g_setenv("ESD_DISCOVERY_HELPER", "/nonexistent/esd-discovery-helper", TRUE);
	daemon = esd_test_daemon_new_stdio(NULL);
	g_unsetenv("ESD_DISCOVERY_HELPER");
	conn = conn_new(ESD_TEST_PEER(daemon), NULL);
	conn_initialize(fx, conn, NULL);
	reply = conn_call(
	    fx,
	    conn,
	    V1,
	    fx_json(fx, "{'roots':[{'id':'s','path':@{p},'sandbox':" SANDBOX(ROOT_READ) "}]}"));
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.roots.0.skills"), "[]");
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.roots.0.plugin"), "null");
	error = esd_test_json_get_string(reply, "result.roots.0.error");
	g_assert_true(
	    g_str_has_prefix(error,
			     fx_text(fx, "failed to inspect capability root file://%{p}: ")));
	g_assert_nonnull(strstr(error, "helper is missing"));
	conn_free(conn);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 3000);
}

/*
 * an answer is bounded: a root that would make it larger gets an error
 * instead, and what fits after it is still answered, whichever thread
 * read what first
 */
static void
test_v1_answer_limit(Fx *fx)
{
	const gchar *args[] = {"--discovery-max-answer-bytes=1000", NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autofree gchar *big = g_strnfill(2000, 'x');
	Conn *conn;
	JsonNode *reply;

	put(fx, "big/SKILL.md", big);
	put(fx, "small/SKILL.md", "s");
	put(fx, "small2/SKILL.md", "t");
	daemon = esd_test_daemon_new_stdio(args);
	conn = conn_new(ESD_TEST_PEER(daemon), NULL);
	conn_initialize(fx, conn, NULL);
	reply = conn_call(fx,
			  conn,
			  V1,
			  fx_json(fx,
				  "{'roots':[{'id':'b','path':@{big}},{'id':'s','path':@{small}},"
				  "{'id':'t','path':@{small2}}]}"));
	esd_assert_json_node_eq(
	    esd_test_json_get(reply, "result.roots.0"),
	    fx_json(fx,
		    "{'id':'b','path':@{big},'plugin':null,'skills':[],"
		    "'namespaceManifests':[],'warnings':[],'error':'failed to inspect "
		    "capability root file://%{big}: the discovery answer exceeds the "
		    "1000-byte limit'}"));
	esd_assert_json_node_eq(
	    esd_test_json_get(reply, "result.roots.1.skills.0.instructions.contents"),
	    "\"s\"");
	esd_assert_json_node_eq(
	    esd_test_json_get(reply, "result.roots.2.skills.0.instructions.contents"),
	    "\"t\"");
	conn_free(conn);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 3000);
}

/* an empty CODEX_HOME, for a case to fill */
static const gchar *
fresh_codex_home(Fx *fx)
{
	rm_rf(codex_home);
	g_assert_cmpint(g_mkdir_with_parents(codex_home, 0755), ==, 0);
	return codex_home;
}

static void
put_home(Fx *fx, const gchar *base, const gchar *rel, const gchar *data)
{
	g_autofree gchar *path = g_build_filename(base, rel, NULL);
	put_path(path, data);
}

#define GAMMA                                                                                      \
	"---\nname: gamma\ndescription: home skill gamma\nmetadata:\n  short-description: "        \
	"g\n---\nbody\n"
#define OPENAI_YAML                                                                                \
	"policy:\n  allow_implicit_invocation: false\ndependencies:\n  tools:\n    - type: mcp\n"  \
	"      value: x\n      url: http://h\n"

/* every source and member of discoverV2 */
static void
test_v2_members(Fx *fx)
{
	const gchar *cx = fresh_codex_home(fx);
	const gchar *home = g_getenv("HOME");
	g_autofree gchar *expected = NULL;
	g_autofree gchar *cx_uri = g_filename_to_uri(cx, NULL, NULL);
	g_autofree gchar *home_uri = g_filename_to_uri(home, NULL, NULL);

	put_home(fx, cx, "skills/gamma/SKILL.md", GAMMA);
	put_home(fx, cx, "skills/gamma/agents/openai.yaml", OPENAI_YAML);
	put_home(fx, cx, "skills/.system/sys/SKILL.md", "---\ndescription: system one\n---\n");
	put_home(fx, cx, "skills/bad/SKILL.md", "---\nname: [unclosed\n---\n");
	put_home(fx, cx, "skills/nodesc/SKILL.md", "---\nname: nodesc\n---\n");
	put_home(fx,
		 home,
		 ".agents/skills/ua/SKILL.md",
		 "---\nname: ua\ndescription: user agent\n---\n");
	put_home(fx,
		 home,
		 ".codex/skills/legacy/SKILL.md",
		 "---\nname: legacy\ndescription: l\n---\n");
	put_home(fx,
		 cx,
		 "plugins/cache/mkt/plug/1.0.0/.codex-plugin/plugin.json",
		 "{\"name\":\"plug\"}");
	put_home(fx,
		 cx,
		 "plugins/cache/mkt/plug/1.0.0/skills/ps/SKILL.md",
		 "---\nname: ps\ndescription: plugin skill\n---\n");
	put_home(fx,
		 cx,
		 "plugins/cache/mkt/plug/0.9.0/.codex-plugin/plugin.json",
		 "{\"name\":\"plug\"}");
	expected = g_strdup_printf(
	    "{'plugins':[{'id':'plug@mkt','displayName':'plug','remotePluginId':null,"
	    "'version':'1.0.0','root':'%1$s/plugins/cache/mkt/plug/1.0.0','files':{"
	    "'manifest':{'path':'%1$s/plugins/cache/mkt/plug/1.0.0/.codex-plugin/plugin.json',"
	    "'contents':'{\\'name\\':\\'plug\\'}'},'mcpConfig':null,'appsConfig':null},"
	    "'skills':[{'name':'plug:ps','description':'plugin skill','shortDescription':null,"
	    "'path':'%1$s/plugins/cache/mkt/plug/1.0.0/skills/ps/SKILL.md','dependencies':null,"
	    "'policy':null}]}],"
	    "'skills':["
	    "{'name':'sys','description':'system one','shortDescription':null,"
	    "'path':'%1$s/skills/.system/sys/SKILL.md','discoveryRoot':{'id':'codex-home-skills',"
	    "'path':'%1$s/skills'},'dependencies':null,'policy':null},"
	    "{'name':'gamma','description':'home skill gamma','shortDescription':'g',"
	    "'path':'%1$s/skills/gamma/SKILL.md','discoveryRoot':{'id':'codex-home-skills',"
	    "'path':'%1$s/skills'},'dependencies':{'tools':[{'type':'mcp','value':'x',"
	    "'description':null,'transport':null,'command':null,'url':'http://h',"
	    "'oauthCallbackPort':null}]},'policy':{'allowImplicitInvocation':false,'products':[]}},"
	    "{'name':'ua','description':'user agent','shortDescription':null,"
	    "'path':'%2$s/.agents/skills/ua/SKILL.md','discoveryRoot':{'id':'user-agent-skills',"
	    "'path':'%2$s/.agents/skills'},'dependencies':null,'policy':null}],"
	    "'warnings':['some capability metadata could not be loaded; discovery may be "
	    "incomplete']}",
	    cx_uri,
	    home_uri);
	fx_expect(fx, V2, "{'cwd':@{}}", expected);
}

/* an installed plugin's members: its highest version, display name, declared files and skills */
static void
test_v2_plugins(Fx *fx)
{
	const gchar *cx = fresh_codex_home(fx);
	g_autofree gchar *cx_uri = g_filename_to_uri(cx, NULL, NULL);
	g_autofree gchar *expected = NULL;

	put_home(
	    fx,
	    cx,
	    "plugins/cache/m2/pl/10.0.0/.codex-plugin/plugin.json",
	    "{\"name\":\"plname\",\"version\":\"9.9\",\"interface\":{\"displayName\":\"Nice\"},"
	    "\"mcpServers\":\"./m.json\",\"apps\":\"./a.json\",\"skills\":\"./custom\"}");
	put_home(fx, cx, "plugins/cache/m2/pl/10.0.0/m.json", "{}");
	put_home(fx, cx, "plugins/cache/m2/pl/10.0.0/a.json", "[]");
	put_home(fx,
		 cx,
		 "plugins/cache/m2/pl/10.0.0/custom/k/SKILL.md",
		 "---\ndescription: custom\n---\n");
	put_home(fx,
		 cx,
		 "plugins/cache/m2/pl/10.0.0/skills/d/SKILL.md",
		 "---\ndescription: default\n---\n");
	put_home(fx, cx, "plugins/cache/m2/pl/2.1.0/.codex-plugin/plugin.json", "{}");
	put_home(fx, cx, "plugins/cache/m1/zz/1/.claude-plugin/plugin.json", "{\"name\":\"zz\"}");
	expected = g_strdup_printf(
	    "{'plugins':["
	    "{'id':'pl@m2','displayName':'Nice','remotePluginId':null,'version':'10.0.0',"
	    "'root':'%1$s/plugins/cache/m2/pl/10.0.0','files':{'manifest':{'path':"
	    "'%1$s/plugins/cache/m2/pl/10.0.0/.codex-plugin/plugin.json','contents':"
	    "'{\\'name\\':\\'plname\\',\\'version\\':\\'9.9\\',\\'interface\\':{\\'displayName\\':"
	    "\\'Nice\\'},\\'mcpServers\\':\\'./m.json\\',\\'apps\\':\\'./a.json\\',\\'skills\\':"
	    "\\'./custom\\'}'},"
	    "'mcpConfig':{'path':'%1$s/plugins/cache/m2/pl/10.0.0/m.json','contents':'{}'},"
	    "'appsConfig':{'path':'%1$s/plugins/cache/m2/pl/10.0.0/a.json','contents':'[]'}},"
	    "'skills':[{'name':'plname:k','description':'custom','shortDescription':null,"
	    "'path':'%1$s/plugins/cache/m2/pl/10.0.0/custom/k/SKILL.md','dependencies':null,"
	    "'policy':null},{'name':'plname:d','description':'default','shortDescription':null,"
	    "'path':'%1$s/plugins/cache/m2/pl/10.0.0/skills/d/SKILL.md','dependencies':null,"
	    "'policy':null}]},"
	    "{'id':'zz@m1','displayName':'zz','remotePluginId':null,'version':'1',"
	    "'root':'%1$s/plugins/cache/m1/zz/1','files':{'manifest':{'path':"
	    "'%1$s/plugins/cache/m1/zz/1/.claude-plugin/plugin.json','contents':"
	    "'{\\'name\\':\\'zz\\'}'},'mcpConfig':null,'appsConfig':null},'skills':[]}],"
	    "'skills':[],'warnings':[]}",
	    cx_uri);
	fx_expect(fx, V2, "{'cwd':@{}}", expected);
}

/* no stale listing: a skill added or removed shows at the next call */
static void
test_v2_fresh(Fx *fx)
{
	const gchar *cx = fresh_codex_home(fx);
	g_autofree gchar *skill = g_build_filename(cx, "skills", "new", "SKILL.md", NULL);
	JsonNode *reply;

	fx_expect(fx, V2, "{'cwd':@{}}", "{'plugins':[],'skills':[],'warnings':[]}");
	put_path(skill, "---\ndescription: new\n---\n");
	reply = conn_call(fx, fx->conn, V2, fx_json(fx, "{'cwd':@{}}"));
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.skills.0.name"), "\"new\"");
	put_path(skill, "---\ndescription: changed\n---\n");
	reply = conn_call(fx, fx->conn, V2, fx_json(fx, "{'cwd':@{}}"));
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.skills.0.description"),
				"\"changed\"");
	g_assert_cmpint(g_unlink(skill), ==, 0);
	fx_expect(fx, V2, "{'cwd':@{}}", "{'plugins':[],'skills':[],'warnings':[]}");
}

static void
test_v2_errors(Fx *fx)
{
	fresh_codex_home(fx);
	fx_fail(fx, V2, "{}", -32602, "missing field `cwd`");
	fx_fail(fx, V2, "{'cwd':'/tmp'}", -32602, "invalid URI: relative URL without a base");
	fx_fail(fx,
		V2,
		"{'cwd':@{},'sandbox':{'permissions':{'type':'disabled'},'windowsSandboxLevel':'"
		"disabled'}}",
		-32602,
		"missing field `cwd`");
	/* a cwd that does not exist is no error, and skills under it are not returned */
	put(fx, "proj/.agents/skills/r/SKILL.md", "---\ndescription: repo\n---\n");
	fx_expect(fx, V2, "{'cwd':@{proj}}", "{'plugins':[],'skills':[],'warnings':[]}");
	fx_expect(fx, V2, "{'cwd':@{missing}}", "{'plugins':[],'skills':[],'warnings':[]}");
}

/* discoverV2 in its sandbox: a denied skill directory is not listed */
static void
test_v2_sandbox(Fx *fx)
{
	const gchar *cx = fresh_codex_home(fx);
	g_autofree gchar *params = NULL;
	JsonNode *reply;

	put_home(fx, cx, "skills/open/SKILL.md", "---\ndescription: open\n---\n");
	put_home(fx, cx, "skills/secret/SKILL.md", "---\ndescription: secret\n---\n");
	params = g_strdup_printf("{'cwd':@{},'sandbox':{'permissions':{'type':'managed','file_"
				 "system':{'type':'restricted',"
				 "'entries':[" ROOT_READ
				 ",{'path':{'type':'path','path':'file://%s/skills/secret'},"
				 "'access':'deny'}]},'network':'restricted'},'windowsSandboxLevel':"
				 "'disabled','cwd':@{}}}",
				 cx);
	reply = conn_call(fx, fx->conn, V2, fx_json(fx, params));
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.skills.0.name"), "\"open\"");
	g_assert_null(esd_test_json_get(reply, "result.skills.1"));
	/* without the sandbox both are there */
	reply = conn_call(fx, fx->conn, V2, fx_json(fx, "{'cwd':@{}}"));
	esd_assert_json_node_eq(esd_test_json_get(reply, "result.skills.1.name"), "\"secret\"");
}

/* the skills of @reply's first root as `path=contents` lines, and its namespace manifests */
static const gchar *
v1_summary(Fx *fx, JsonNode *reply)
{
	JsonNode *root = esd_test_json_get(reply, "result.roots.0");
	JsonArray *skills = json_node_get_array(esd_test_json_get(root, "skills"));
	JsonArray *manifests = json_node_get_array(esd_test_json_get(root, "namespaceManifests"));
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(skills); i++) {
		JsonNode *skill = json_array_get_element(skills, i);
		const gchar *path = esd_test_json_get_string(skill, "instructions.path");
		JsonNode *metadata = esd_test_json_get(skill, "metadata");
		g_string_append_printf(out,
				       "%s=%s%s\n",
				       path + strlen("file://") + strlen(fx->dir) + 1,
				       esd_test_json_get_string(skill, "instructions.contents"),
				       JSON_NODE_HOLDS_NULL(metadata) ? "" : "+metadata");
	}
	for (guint i = 0; i < json_array_get_length(manifests); i++)
		g_string_append_printf(
		    out,
		    "ns %s\n",
		    esd_test_json_get_string(json_array_get_element(manifests, i), "path") +
			strlen("file://") + strlen(fx->dir) + 1);
	return fx_keep(fx, g_string_free(out, FALSE));
}

static const gchar *
v1_call(Fx *fx)
{
	JsonNode *reply =
	    conn_call(fx, fx->conn, V1, fx_json(fx, "{'roots':[{'id':'r','path':@{p/root}}]}"));
	return v1_summary(fx, reply);
}

/* each change shows at the next call: contents, a new skill, metadata, an ancestor manifest, a link
 */
static void
test_v1_fresh(Fx *fx)
{
	g_autofree gchar *link = NULL;

	put(fx, "p/root/a/SKILL.md", "one");
	put(fx, "other/o/SKILL.md", "other");
	disk_mkdir(fx, "empty");
	disk_symlink(fx, fx_path(fx, "empty"), "p/root/link");
	g_assert_cmpstr(v1_call(fx), ==, "p/root/a/SKILL.md=one\n");
	g_assert_cmpstr(v1_call(fx), ==, "p/root/a/SKILL.md=one\n");
	put(fx, "p/root/a/SKILL.md", "two");
	g_assert_cmpstr(v1_call(fx), ==, "p/root/a/SKILL.md=two\n");
	put(fx, "p/root/b/c/SKILL.md", "new");
	g_assert_cmpstr(v1_call(fx), ==, "p/root/a/SKILL.md=two\np/root/b/c/SKILL.md=new\n");
	put(fx, "p/root/a/agents/openai.yaml", "{}");
	g_assert_cmpstr(v1_call(fx),
			==,
			"p/root/a/SKILL.md=two+metadata\np/root/b/c/SKILL.md=new\n");
	put(fx, "p/.codex-plugin/plugin.json", "{}");
	g_assert_cmpstr(v1_call(fx),
			==,
			"p/root/a/SKILL.md=two+metadata\np/root/b/c/SKILL.md=new\nns "
			"p/.codex-plugin/plugin.json\n");
	link = g_strdup(fx_path(fx, "p/root/link"));
	g_assert_cmpint(g_unlink(link), ==, 0);
	disk_symlink(fx, fx_path(fx, "other"), "p/root/link");
	g_assert_cmpstr(v1_call(fx),
			==,
			"p/root/a/SKILL.md=two+metadata\np/root/b/c/SKILL.md=new\np/root/link/o/"
			"SKILL.md=other\n"
			"ns p/.codex-plugin/plugin.json\n");
	put(fx, "other/o/SKILL.md", "changed behind the link");
	g_assert_cmpstr(v1_call(fx),
			==,
			"p/root/a/SKILL.md=two+metadata\np/root/b/c/SKILL.md=new\np/root/link/o/"
			"SKILL.md=changed behind the "
			"link\nns p/.codex-plugin/plugin.json\n");
	rm_rf(fx_path(fx, "p/root/b"));
	g_assert_cmpstr(
	    v1_call(fx),
	    ==,
	    "p/root/a/SKILL.md=two+metadata\np/root/link/o/SKILL.md=changed behind the link\n"
	    "ns p/.codex-plugin/plugin.json\n");
}

static const CaseDef cases[] = {
    {"capabilities", test_capabilities, CASE_NONE},
    {"v1-plugin", test_v1_plugin, CASE_NONE},
    {"v1-ancestor", test_v1_ancestor, CASE_NONE},
    {"v1-declarations", test_v1_declarations, CASE_NONE},
    {"v1-errors", test_v1_errors, CASE_NONE},
    {"v1-links", test_v1_links, CASE_NONE},
    {"v1-depth", test_v1_depth, CASE_NONE},
    {"v1-hostile-files", test_v1_hostile_files, CASE_NONE},
    {"v1-many-files", test_v1_many_files, CASE_BIG},
    {"v1-unreadable", test_v1_unreadable, CASE_NON_ROOT},
    {"v1-fresh", test_v1_fresh, CASE_NONE},
    {"v1-sandbox", test_v1_sandbox, CASE_SANDBOX},
    {"v1-sandbox-empty", test_v1_sandbox_empty, CASE_SANDBOX},
    {"v1-sandbox-fail-closed", test_v1_sandbox_fail_closed, CASE_WS_ONLY},
    {"v1-answer-limit", test_v1_answer_limit, CASE_WS_ONLY},
    {"v2-members", test_v2_members, CASE_NONE},
    {"v2-plugins", test_v2_plugins, CASE_NONE},
    {"v2-fresh", test_v2_fresh, CASE_NONE},
    {"v2-errors", test_v2_errors, CASE_NONE},
    {"v2-sandbox", test_v2_sandbox, CASE_SANDBOX},
};

int
main(int argc, char **argv)
{
	const gchar *inherited = g_getenv("ESD_TEST_DISCOVERY_ROOT");
	g_autofree gchar *root = NULL;
	g_autofree gchar *home = NULL;
	gint rc;

	/* the parent makes the directory and removes it; each case's child inherits it */
	if (inherited == NULL) {
		root = g_dir_make_tmp("esd-test-discovery-XXXXXX", NULL);
		g_assert_nonnull(root);
		g_setenv("ESD_TEST_DISCOVERY_ROOT", root, TRUE);
	} else {
		root = g_strdup(inherited);
	}
	/* the daemons inherit it; each case that reads it empties it first */
	codex_home = g_build_filename(root, "codex-home", NULL);
	g_setenv("CODEX_HOME", codex_home, TRUE);
	/* a home of the case's own, for the daemon and the case alike */
	home = g_strdup_printf("%s/home-%d", root, (gint)getpid());
	g_assert_cmpint(g_mkdir_with_parents(home, 0755), ==, 0);
	g_setenv("HOME", home, TRUE);
	fs_harness_set_skip_func(skip_without_sandbox);
	rc = fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-discovery");
	if (inherited == NULL)
		rm_rf(root);
	g_free(codex_home);
	return rc;
}
