/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-bwrap.h"
#include "fs-harness.h"

/*
 * fs requests with a restricted file system (PROTOCOL.md §6.4, transcripts
 * B.8), against the real daemon over WebSocket and stdio: they run in the
 * sandboxed helper and see exactly what a sandboxed process would see.
 * Read-only roots, write roots, denied paths, `minimal`, protected names,
 * handles, large contents, a symbolic link swapped between an allowed and a
 * denied file while requests go through it, and failing closed when there
 * is no sandbox. Cases that need bwrap with user namespaces are skipped,
 * with the reason, when a probe in the parent finds none.
 */

#define ROOT_READ	   "{'path':{'type':'special','value':{'kind':'root'}},'access':'read'}"
#define ROOT_WRITE	   "{'path':{'type':'special','value':{'kind':'root'}},'access':'write'}"
#define MINIMAL		   "{'path':{'type':'special','value':{'kind':'minimal'}},'access':'read'}"
#define ENTRY(rel, access) "{'path':{'type':'path','path':@{" rel "}},'access':'" access "'}"
#define SANDBOX(entries)                                                                           \
	"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':[" entries  \
	"]},'network':'restricted'},'windowsSandboxLevel':'disabled'}"
/* the scratch directory read-only, `w` writable, `secret` and `lone` denied */
#define POLICY                                                                                     \
	SANDBOX(ROOT_READ                                                                          \
		"," ENTRY("w", "write") "," ENTRY("secret", "deny") "," ENTRY("lone", "deny"))
#define DISABLED "{'permissions':{'type':'disabled'},'windowsSandboxLevel':'disabled'}"

#define EROFS_TEXT  "Read-only file system (os error 30)"
#define EACCES_TEXT "Permission denied (os error 13)"

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

/* disk_write() with the parent directories made first */
static void
disk_put(Fx *fx, const gchar *rel, const gchar *data)
{
	g_autofree gchar *parent = g_path_get_dirname(rel);

	if (g_strcmp0(parent, ".") != 0)
		disk_mkdir(fx, parent);
	disk_write(fx, rel, data, -1);
}

static void
fx_fail(Fx *fx, const gchar *method, const gchar *params, gint64 code, const gchar *message)
{
	conn_fail(fx, fx->conn, method, params, code, message);
}

static void
fx_expect(Fx *fx, const gchar *method, const gchar *params, const gchar *expected)
{
	conn_expect(fx, fx->conn, method, params, expected);
}

/* the contents fs/readFile returned, or NULL for an error reply (whose code is in *code) */
static GBytes *
fx_read(Fx *fx, Conn *conn, const gchar *params, gint64 *code)
{
	JsonNode *reply = conn_call(fx, conn, "fs/readFile", params);
	const gchar *data;
	guchar *decoded;
	gsize len = 0;

	if (esd_test_json_get(reply, "error") != NULL) {
		*code = esd_test_json_get_int(reply, "error.code");
		return NULL;
	}
	data = esd_test_json_get_string(reply, "result.dataBase64");
	g_assert_nonnull(data);
	decoded = g_base64_decode(data, &len);
	return g_bytes_new_take(decoded, len);
}

/* an error with `data: {"kind":"sandboxUnavailable"}` */
static void
conn_fail_unavailable(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	JsonNode *reply = conn_call(fx, conn, method, params);
	JsonNode *message = esd_test_json_get(reply, "error.message");

	if (message == NULL || json_node_get_value_type(message) != G_TYPE_STRING ||
	    json_node_get_string(message)[0] == '\0')
		describe_reply_failure(reply, method, "a sandboxUnavailable error");
	esd_assert_json_node_eq(esd_test_json_get(reply, "error.code"), "-32602");
	esd_assert_json_node_eq(esd_test_json_get(reply, "error.data"),
				"{\"kind\":\"sandboxUnavailable\"}");
}

/* `root` read and a `write` entry: reads work, writes only below the write root */
static void
test_read_only_root(Fx *fx)
{
	gint64 start;

	disk_put(fx, "f", "old");
	disk_mkdir(fx, "w");
	disk_mkdir(fx, "d/sub");
	disk_put(fx, "d/file", "x");
	fx_expect(fx, "fs/readFile", "{'path':@{f},'sandbox':" POLICY "}", "{'dataBase64':'b2xk'}");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{f},'dataBase64':'bmV3','sandbox':" POLICY "}",
		-32603,
		EROFS_TEXT);
	disk_assert_content(fx, "f", "old", -1);
	fx_expect(fx,
		  "fs/writeFile",
		  "{'path':@{w/new},'dataBase64':'bmV3','sandbox':" POLICY "}",
		  "{}");
	disk_assert_content(fx, "w/new", "new", -1);
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{newdir},'sandbox':" POLICY "}",
		-32603,
		EROFS_TEXT);
	disk_assert_missing(fx, "newdir");
	fx_expect(fx, "fs/createDirectory", "{'path':@{w/a/b},'sandbox':" POLICY "}", "{}");
	g_assert_true(g_file_test(fx_path(fx, "w/a/b"), G_FILE_TEST_IS_DIR));
	fx_fail(fx, "fs/remove", "{'path':@{f},'sandbox':" POLICY "}", -32603, EROFS_TEXT);
	disk_assert_content(fx, "f", "old", -1);
	fx_expect(fx, "fs/remove", "{'path':@{w/a},'sandbox':" POLICY "}", "{}");
	disk_assert_missing(fx, "w/a");
	fx_expect(
	    fx,
	    "fs/copy",
	    "{'sourcePath':@{f},'destinationPath':@{w/copy},'recursive':false,'sandbox':" POLICY
	    "}",
	    "{}");
	disk_assert_content(fx, "w/copy", "old", -1);
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{f},'destinationPath':@{copy},'recursive':false,'sandbox':" POLICY
		"}",
		-32603,
		EROFS_TEXT);
	disk_assert_missing(fx, "copy");
	fx_expect(
	    fx,
	    "fs/walk",
	    "{'path':@{d},'options':{'maxDepth':1,'maxDirectories':10,'maxEntries':10,"
	    "'followDirectorySymlinks':false},'sandbox':" POLICY "}",
	    "{'entries':[{'path':@{d/file},'kind':'file'},{'path':@{d/sub},'kind':'directory'}],"
	    "'errors':[],'truncated':false}");
	/* the helper checks what the daemon leaves to the method, with the same answer */
	fx_fail(fx,
		"fs/walk",
		"{'path':@{d},'options':{'maxDepth':1,'maxDirectories':0,'maxEntries':10,"
		"'followDirectorySymlinks':false},'sandbox':" POLICY "}",
		-32600,
		"filesystem walk limits must be greater than zero");
	fx_expect(fx,
		  "fs/canonicalize",
		  "{'path':@{w/../f},'sandbox':" POLICY "}",
		  "{'path':@{f}}");
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{missing},'sandbox':" POLICY "}",
		-32004,
		ENOENT_TEXT);
	start = g_get_monotonic_time();
	for (guint i = 0; i < 10; i++) {
		JsonNode *result =
		    conn_ok(fx, fx->conn, "fs/getMetadata", "{'path':@{f},'sandbox':" POLICY "}");
		esd_assert_json_node_eq(esd_test_json_get(result, "size"), "3");
	}
	g_printerr("a sandboxed fs/getMetadata takes %.1f ms\n",
		   (g_get_monotonic_time() - start) / 10000.0);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
}

/* `deny` hides a directory's contents and a file: EACCES, -32600 */
static void
test_deny(Fx *fx)
{
	disk_mkdir(fx, "w");
	disk_put(fx, "secret/s.txt", "SECRET");
	disk_put(fx, "lone", "SECRET");
	fx_fail(fx,
		"fs/readFile",
		"{'path':@{secret/s.txt},'sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{secret/s.txt},'sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	fx_fail(fx,
		"fs/readDirectory",
		"{'path':@{secret},'sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	fx_fail(fx,
		"fs/open",
		"{'handleId':'h','path':@{secret/s.txt},'sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	fx_fail(fx, "fs/readFile", "{'path':@{lone},'sandbox':" POLICY "}", -32600, EACCES_TEXT);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{secret/s.txt},'dataBase64':'eA==','sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	fx_fail(fx,
		"fs/copy",
		"{'sourcePath':@{secret/s.txt},'destinationPath':@{w/stolen},'recursive':false,"
		"'sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	disk_assert_missing(fx, "w/stolen");
	disk_assert_content(fx, "secret/s.txt", "SECRET", -1);
	disk_assert_content(fx, "lone", "SECRET", -1);
}

/* only `minimal` (or nothing at all) leaves the scratch directory out of the view */
static void
test_minimal(Fx *fx)
{
	disk_put(fx, "f", "data");
	fx_fail(fx,
		"fs/readFile",
		"{'path':@{f},'sandbox':" SANDBOX(MINIMAL) "}",
		-32004,
		ENOENT_TEXT);
	fx_fail(fx,
		"fs/getMetadata",
		"{'path':@{},'sandbox':" SANDBOX(MINIMAL) "}",
		-32004,
		ENOENT_TEXT);
	fx_fail(fx, "fs/readFile", "{'path':@{f},'sandbox':" SANDBOX("") "}", -32004, ENOENT_TEXT);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{g},'dataBase64':'eA==','sandbox':" SANDBOX("") "}",
		-32004,
		ENOENT_TEXT);
	disk_assert_missing(fx, "g");
	/* the platform is readable */
	conn_ok(fx,
		fx->conn,
		"fs/getMetadata",
		"{'path':'file:///usr/bin','sandbox':" SANDBOX(MINIMAL) "}");
}

/* `.git` and the like stay read-only in a write root, and a missing one is not left behind */
static void
test_protected(Fx *fx)
{
	disk_mkdir(fx, "w");
	disk_put(fx, "v/.git/config", "orig");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{w/.git/config},'dataBase64':'eA==','sandbox':" POLICY "}",
		-32603,
		EROFS_TEXT);
	disk_assert_missing(fx, "w/.git");
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{v/.git/config},'dataBase64':'eA==','sandbox':" SANDBOX(
		    ROOT_READ "," ENTRY("v", "write")) "}",
		-32603,
		EROFS_TEXT);
	disk_assert_content(fx, "v/.git/config", "orig", -1);
	fx_fail(fx,
		"fs/createDirectory",
		"{'path':@{w/.codex/x},'sandbox':" POLICY "}",
		-32603,
		EROFS_TEXT);
	disk_assert_missing(fx, "w/.codex");
	g_assert_true(g_file_test(fx_path(fx, "w"), G_FILE_TEST_IS_DIR));
}

/* handles are opened inside the sandbox and used by the daemon afterwards */
static void
test_handles(Fx *fx)
{
	esd_assert_json_node_eq(
	    esd_test_json_get(fx->init_result,
			      "environmentInfo.capabilities.sandboxedFileStreaming"),
	    "true");
	disk_put(fx, "f", "read me");
	disk_put(fx, "w/old", "old content");
	disk_put(fx, "secret/s.txt", "SECRET");
	fx_expect(fx,
		  "fs/open",
		  "{'handleId':'r','path':@{f},'sandbox':" POLICY "}",
		  "{'handleId':'r'}");
	fx_expect(fx,
		  "fs/readBlock",
		  "{'handleId':'r','offset':5,'len':10}",
		  "{'chunk':'bWU=','eof':true}");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'r','path':@{f},'sandbox':" POLICY "}",
		-32600,
		"file handle `r` already exists");
	fx_fail(fx,
		"fs/open",
		"{'handleId':'s','path':@{secret/s.txt},'sandbox':" POLICY "}",
		-32600,
		EACCES_TEXT);
	fx_fail(fx,
		"fs/open",
		"{'handleId':'x','path':@{f},'mode':'replace','sandbox':" POLICY "}",
		-32603,
		EROFS_TEXT);
	fx_fail(fx,
		"fs/open",
		"{'handleId':'g','path':@{w/.git/x},'mode':'replace','sandbox':" POLICY "}",
		-32603,
		EROFS_TEXT);
	fx_expect(fx,
		  "fs/open",
		  "{'handleId':'w','path':@{w/new},'mode':'replace','sandbox':" POLICY "}",
		  "{'handleId':'w'}");
	fx_expect(fx,
		  "fs/open",
		  "{'handleId':'o','path':@{w/old},'mode':'replace','sandbox':" POLICY "}",
		  "{'handleId':'o'}");
	fx_expect(fx, "fs/writeBlock", "{'handleId':'w','offset':0,'chunk':'aGVsbG8='}", "{}");
	fx_expect(fx, "fs/writeBlock", "{'handleId':'o','offset':0,'chunk':'bmV3'}", "{}");
	disk_assert_missing(fx, "w/new");
	disk_assert_content(fx, "w/old", "old content", -1);
	fx_expect(fx, "fs/close", "{'handleId':'w'}", "{}");
	fx_expect(fx, "fs/close", "{'handleId':'o'}", "{}");
	fx_expect(fx, "fs/close", "{'handleId':'r'}", "{}");
	disk_assert_content(fx, "w/new", "hello", -1);
	disk_assert_content(fx, "w/old", "new", -1);
	/* nothing staged is left behind, and no masked `.git` either */
	{
		g_autoptr(GDir) dir = g_dir_open(fx_path(fx, "w"), 0, NULL);
		guint n = 0;
		while (g_dir_read_name(dir) != NULL)
			n++;
		g_assert_cmpuint(n, ==, 2);
	}
}

/* megabytes go through the helper both ways */
static void
test_big(Fx *fx)
{
	const gsize size = 3 * 1024 * 1024 + 7;
	g_autofree guint8 *data = g_malloc(size);
	g_autofree gchar *encoded = NULL;
	g_autofree gchar *params = NULL;
	g_autoptr(GBytes) got = NULL;
	g_autoptr(GBytes) want = NULL;
	gint64 code = 0;

	for (gsize i = 0; i < size; i++)
		data[i] = (guint8)(i * 7 + i / 251);
	encoded = g_base64_encode(data, size);
	disk_mkdir(fx, "w");
	params =
	    g_strdup_printf("{'path':@{w/big},'dataBase64':'%s','sandbox':" POLICY "}", encoded);
	fx_expect(fx, "fs/writeFile", params, "{}");
	disk_assert_content(fx, "w/big", (const gchar *)data, (gssize)size);
	got = fx_read(fx, fx->conn, "{'path':@{w/big},'sandbox':" POLICY "}", &code);
	g_assert_nonnull(got);
	want = g_bytes_new_static(data, size);
	g_assert_true(g_bytes_equal(got, want));
}

/* `project_roots` resolves against the workspace roots of the context */
static void
test_project_roots(Fx *fx)
{
	disk_mkdir(fx, "w");
	fx_expect(
	    fx,
	    "fs/writeFile",
	    "{'path':@{w/x},'dataBase64':'eA==','sandbox':{'permissions':{'type':'managed',"
	    "'file_system':{'type':'restricted','entries':[" ROOT_READ
	    ",{'path':{'type':'special','value':{'kind':'project_roots'}},'access':'write'}]},"
	    "'network':'enabled'},'windowsSandboxLevel':'disabled',"
	    "'policyContext':{'cwd':@{},'workspaceRoots':[@{w}]}}}",
	    "{}");
	disk_assert_content(fx, "w/x", "x", -1);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{y},'dataBase64':'eA==','sandbox':{'permissions':{'type':'managed',"
		"'file_system':{'type':'restricted','entries':[" ROOT_READ
		",{'path':{'type':'special','value':{'kind':'project_roots'}},'access':'write'}]},"
		"'network':'enabled'},'windowsSandboxLevel':'disabled','cwd':@{},"
		"'workspaceRoots':[@{w}]}}",
		-32603,
		EROFS_TEXT);
	fx_fail(fx,
		"fs/writeFile",
		"{'path':@{y},'dataBase64':'eA==','sandbox':{'permissions':{'type':'managed',"
		"'file_system':{'type':'restricted','entries':["
		"{'path':{'type':'special','value':{'kind':'project_roots'}},'access':'write'}]},"
		"'network':'enabled'},'windowsSandboxLevel':'disabled'}}",
		-32602,
		"file system sandbox context with dynamic permissions requires cwd");
	disk_assert_missing(fx, "y");
}

/* with everything visible, a sandboxed request answers exactly as a direct one */
static void
test_same_answers(Fx *fx)
{
	/* params without their closing brace: once as they are, once with `sandbox` */
	const gchar *const rows[][2] = {
	    {"fs/readFile", "{'path':@{f}"},
	    {"fs/readFile", "{'path':@{missing}"},
	    {"fs/readFile", "{'path':@{d}"},
	    {"fs/readFile", "{'path':@{link},'followSymlinks':false"},
	    {"fs/getMetadata", "{'path':@{link}"},
	    {"fs/getMetadata", "{'path':@{d/link},'followSymlinks':false"},
	    {"fs/canonicalize", "{'path':@{d/../link}"},
	    {"fs/readDirectory", "{'path':@{d}"},
	    {"fs/readDirectory", "{'path':@{f}"},
	    {"fs/walk",
	     "{'path':@{},'options':{'maxDepth':2,'maxDirectories':2,'maxEntries':50,"
	     "'followDirectorySymlinks':true}"},
	    {"fs/writeFile", "{'path':@{f},'dataBase64':'YQ\\n=='"},
	    {"fs/writeFile", "{'path':@{d},'dataBase64':'YQ=='"},
	    {"fs/createDirectory", "{'path':@{f}"},
	    {"fs/createDirectory", "{'path':@{d},'recursive':false"},
	    {"fs/remove", "{'path':@{d},'recursive':false"},
	    {"fs/copy", "{'sourcePath':@{d},'destinationPath':@{e},'recursive':false"},
	    {"fs/copy", "{'sourcePath':@{d},'destinationPath':@{d/sub},'recursive':true"},
	};

	disk_put(fx, "f", "data");
	disk_put(fx, "d/a", "a");
	disk_put(fx, "d/sub/b", "b");
	disk_symlink(fx, "f", "link");
	disk_symlink(fx, "../f", "d/link");
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree gchar *direct = g_strconcat(rows[i][1], "}", NULL);
		g_autofree gchar *sandboxed =
		    g_strconcat(rows[i][1], ",'sandbox':" SANDBOX(ROOT_WRITE) "}", NULL);
		JsonNode *want = conn_call(fx, fx->conn, rows[i][0], direct);
		JsonNode *got = conn_call(fx, fx->conn, rows[i][0], sandboxed);
		JsonNode *want_answer = esd_test_json_get(want, "result");
		JsonNode *got_answer = esd_test_json_get(got, "result");

		if (want_answer == NULL) {
			want_answer = esd_test_json_get(want, "error");
			got_answer = esd_test_json_get(got, "error");
		}
		if (got_answer == NULL || !esd_test_json_equal(want_answer, got_answer)) {
			g_autofree gchar *want_text = esd_test_json_to_string(want);
			g_autofree gchar *got_text = esd_test_json_to_string(got);
			g_error("%s %s:\n  direct:    %s\n  sandboxed: %s",
				rows[i][0],
				direct,
				want_text,
				got_text);
		}
	}
	disk_assert_content(fx, "f", "data", -1);
	disk_assert_missing(fx, "e");
}

/* a sandbox that cannot be set up: sandboxPreparation, nothing happens */
static void
test_preparation(Fx *fx)
{
	JsonNode *reply;

	disk_mkdir(fx, "w");
	disk_mkdir(fx, "elsewhere");
	/* a protected name that is a link cannot be kept read-only */
	disk_symlink(fx, fx_path(fx, "elsewhere"), "w/.git");
	reply = conn_call(fx,
			  fx->conn,
			  "fs/writeFile",
			  "{'path':@{w/x},'dataBase64':'eA==','sandbox':" POLICY "}");
	esd_assert_json_node_eq(esd_test_json_get(reply, "error.code"), "-32603");
	esd_assert_json_node_eq(esd_test_json_get(reply, "error.data"),
				"{\"kind\":\"sandboxPreparation\"}");
	disk_assert_missing(fx, "w/x");
}

/* a second daemon of the case's transport, with @env added; @verbose logs its debug messages */
static Conn *
start_daemon_full(Fx *fx, const gchar *const *env, gboolean verbose, EsdTestDaemon **daemon)
{
	const gchar *const stdio_args[] = {"--listen", "stdio", verbose ? "--verbose" : NULL, NULL};
	const gchar *const ws_args[] = {"--verbose", NULL};
	g_autoptr(EsdTestWsClient) client = NULL;
	Conn *conn;

	*daemon = esd_test_daemon_new_full(fx->ws ? (verbose ? ws_args : NULL) : stdio_args,
					   env,
					   NULL,
					   fx->ws);
	if (fx->ws) {
		client = esd_test_ws_client_new(esd_test_daemon_get_url(*daemon));
		conn = conn_new(ESD_TEST_PEER(client), client);
	} else {
		conn = conn_new(ESD_TEST_PEER(*daemon), NULL);
	}
	conn_initialize(fx, conn, NULL);
	return conn;
}

static Conn *
start_daemon(Fx *fx, const gchar *const *env, EsdTestDaemon **daemon)
{
	return start_daemon_full(fx, env, FALSE, daemon);
}

static void
stop_daemon(Fx *fx, Conn *conn, EsdTestDaemon *daemon)
{
	conn_sync(fx, conn);
	conn_free(conn);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 3000);
	g_object_unref(daemon);
}

/* no bwrap, or no helper: refused with sandboxUnavailable, never run unsandboxed */
static void
test_fail_closed(Fx *fx)
{
	const gchar *const no_bwrap[] = {"ESD_BWRAP=/nonexistent", NULL};
	const gchar *const no_helper[] = {"ESD_FS_HELPER=/nonexistent", NULL};
	const gchar *const *envs[] = {no_bwrap, no_helper};

	disk_put(fx, "f", "data");
	disk_mkdir(fx, "w");
	for (guint i = 0; i < G_N_ELEMENTS(envs); i++) {
		EsdTestDaemon *daemon = NULL;
		Conn *conn = start_daemon(fx, envs[i], &daemon);

		conn_fail_unavailable(fx,
				      conn,
				      "fs/readFile",
				      "{'path':@{f},'sandbox':" POLICY "}");
		conn_fail_unavailable(fx,
				      conn,
				      "fs/writeFile",
				      "{'path':@{w/new},'dataBase64':'eA==','sandbox':" POLICY "}");
		conn_fail_unavailable(fx,
				      conn,
				      "fs/open",
				      "{'handleId':'h','path':@{f},'sandbox':" POLICY "}");
		conn_fail(fx,
			  conn,
			  "fs/readBlock",
			  "{'handleId':'h','offset':0,'len':1}",
			  -32004,
			  "unknown file handle `h`");
		disk_assert_missing(fx, "w/new");
		/* what needs no sandbox still works */
		conn_expect(fx,
			    conn,
			    "fs/readFile",
			    "{'path':@{f},'sandbox':" DISABLED "}",
			    "{'dataBase64':'ZGF0YQ=='}");
		/* and malformed contexts are still invalid params */
		conn_fail(fx,
			  conn,
			  "fs/readFile",
			  "{'path':@{f},'sandbox':{'permissions':{'type':'managed'},"
			  "'windowsSandboxLevel':'disabled'}}",
			  -32602,
			  "missing field `file_system`");
		stop_daemon(fx, conn, daemon);
	}
}

typedef struct {
	gchar *link;
	gchar *tmp;
	gchar *allowed;
	gchar *denied;
	gint stop;
	guint flips;
} Flipper;

/* points `link` at the allowed and the denied file in turn, atomically, as fast as it can */
static gpointer
flipper_thread(gpointer data)
{
	Flipper *flipper = data;

	while (!g_atomic_int_get(&flipper->stop)) {
		const gchar *target =
		    (flipper->flips % 2) == 0 ? flipper->denied : flipper->allowed;
		if (symlink(target, flipper->tmp) != 0 || rename(flipper->tmp, flipper->link) != 0)
			g_error("flipping the link: %s", g_strerror(errno));
		flipper->flips++;
	}
	return NULL;
}

/* a link swapped between an allowed and a denied file never reaches the denied one */
static void
test_symlink_race(Fx *fx)
{
	Flipper flipper = {0};
	GThread *thread;
	GStatBuf before;
	GStatBuf after;
	guint read_ok = 0;
	guint denied = 0;
	guint written = 0;

	disk_put(fx, "w/allowed", "allowed");
	disk_put(fx, "secret/s.txt", "SECRET");
	g_assert_cmpint(g_stat(fx_path(fx, "secret/s.txt"), &before), ==, 0);
	flipper.link = g_strdup(fx_path(fx, "w/link"));
	flipper.tmp = g_strdup(fx_path(fx, "w/link.tmp"));
	flipper.allowed = g_strdup(fx_path(fx, "w/allowed"));
	flipper.denied = g_strdup(fx_path(fx, "secret/s.txt"));
	disk_symlink(fx, flipper.allowed, "w/link");
	thread = g_thread_new("flipper", flipper_thread, &flipper);
	for (guint i = 0; i < 200; i++) {
		g_autoptr(GBytes) got = NULL;
		gint64 code = 0;

		got = fx_read(fx, fx->conn, "{'path':@{w/link},'sandbox':" POLICY "}", &code);
		if (got != NULL) {
			g_assert_null(g_strstr_len(g_bytes_get_data(got, NULL),
						   (gssize)g_bytes_get_size(got),
						   "SECRET"));
			read_ok++;
		} else {
			g_assert_cmpint(code, ==, -32600);
			denied++;
		}
		if (i % 2 == 0) {
			JsonNode *reply = conn_call(fx,
						    fx->conn,
						    "fs/writeFile",
						    "{'path':@{w/link},'dataBase64':'YWxsb3dlZA==',"
						    "'sandbox':" POLICY "}");
			if (esd_test_json_get(reply, "result") != NULL)
				written++;
			else
				esd_assert_json_node_eq(esd_test_json_get(reply, "error.code"),
							"-32600");
		}
	}
	g_atomic_int_set(&flipper.stop, 1);
	g_thread_join(thread);
	g_printerr("%u flips; %u reads allowed, %u denied; %u writes went through\n",
		   flipper.flips,
		   read_ok,
		   denied,
		   written);
	g_assert_cmpuint(flipper.flips, >, 0);
	disk_assert_content(fx, "secret/s.txt", "SECRET", -1);
	g_assert_cmpint(g_stat(fx_path(fx, "secret/s.txt"), &after), ==, 0);
	g_assert_cmpint(after.st_ino, ==, before.st_ino);
	g_assert_cmpint(after.st_mtim.tv_sec, ==, before.st_mtim.tv_sec);
	g_assert_cmpint(after.st_mtim.tv_nsec, ==, before.st_mtim.tv_nsec);
	g_free(flipper.link);
	g_free(flipper.tmp);
	g_free(flipper.allowed);
	g_free(flipper.denied);
}

/* how many lines of @daemon's log hold @needle */
static guint
log_count(EsdTestDaemon *daemon, const gchar *needle)
{
	const gchar *text = esd_test_daemon_get_stderr(daemon);
	guint n = 0;

	for (const gchar *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

#define LOG_DIRECT ": direct\n"
#define LOG_HELPER "-DEBUG: sandboxed fs/"

/* runs the main context until @daemon logged one more direct or helper run than @seen */
static gboolean
wait_for_run(EsdTestDaemon *daemon, guint seen)
{
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

	while (log_count(daemon, LOG_DIRECT) + log_count(daemon, LOG_HELPER) <= seen) {
		if (g_get_monotonic_time() > end)
			g_error("the daemon logged no direct or sandboxed run");
		g_main_context_iteration(NULL, FALSE);
		g_usleep(1000);
	}
	return log_count(daemon, LOG_DIRECT) > 0;
}

typedef struct {
	const gchar *method;
	const gchar *params; /* without its closing brace: `sandbox` is added */
	gboolean direct;     /* whether the daemon may answer it itself */
	const gchar *made;   /* a path the request creates, compared and removed afterwards */
	const gchar *prep;   /* a file made before each run */
} DirectRow;

/* one row on @conn: the answer, and what it left at @row->made (removed) */
static gchar *
direct_row_run_with(Fx *fx, Conn *conn, const DirectRow *row, const gchar *policy, gchar **made)
{
	g_autofree gchar *params = g_strconcat(row->params, ",'sandbox':", policy, "}", NULL);
	JsonNode *reply;
	JsonNode *answer;

	if (row->prep != NULL)
		disk_put(fx, row->prep, "prepared");
	reply = conn_call(fx, conn, row->method, params);
	answer = esd_test_json_get(reply, "result");

	if (answer == NULL)
		answer = esd_test_json_get(reply, "error");
	*made = NULL;
	if (row->made != NULL) {
		const gchar *path = fx_path(fx, row->made);
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			*made = g_strdup("a directory");
		else if (!g_file_get_contents(path, made, NULL, NULL))
			*made = g_strdup("nothing");
		rm_rf(path);
	}
	return esd_test_json_to_string(answer);
}

static gchar *
direct_row_run(Fx *fx, Conn *conn, const DirectRow *row, gchar **made)
{
	return direct_row_run_with(fx, conn, row, POLICY, made);
}

/*
 * The policy corpus, answered by a daemon that runs what it may itself
 * and by one that sends every request to the sandboxed helper
 * (ESD_FS_DIRECT=0): the same answers and the same files, and the first
 * one ran exactly the rows marked direct without a helper. Symbolic links
 * on the way are followed by the helper only; a hidden host path (the
 * user bus under XDG_RUNTIME_DIR), a protected name, a denied path, the
 * read-only root and /dev go to the helper, and so do listings of
 * directories with mounts of the sandbox below (a write root with its
 * protected names) or with links among the entries; a file without permissions
 * is refused alike, also to root (the helper has no capabilities).
 */
static void
test_direct_same_answers(Fx *fx)
{
	const DirectRow rows[] = {
	    {"fs/readFile", "{'path':@{f}", TRUE},
	    {"fs/readFile", "{'path':@{w/a}", TRUE},
	    {"fs/readFile", "{'path':@{missing}", TRUE},
	    {"fs/readFile", "{'path':@{d}", TRUE},
	    {"fs/readFile", "{'path':@{w/noread}", TRUE},
	    {"fs/readFile", "{'path':@{w/.git/config}", TRUE},
	    {"fs/readFile", "{'path':@{secret/s.txt}", FALSE},
	    {"fs/readFile", "{'path':@{w/link}", FALSE},
	    {"fs/readFile", "{'path':@{w/link},'followSymlinks':false", FALSE},
	    {"fs/readFile", "{'path':@{dlink/a}", FALSE},
	    {"fs/readFile", "{'path':@{w/slink}", FALSE},
	    {"fs/readFile", "{'path':@{run/bus}", FALSE},
	    {"fs/readFile", "{'path':'file:///dev/null'", FALSE},
	    {"fs/getMetadata", "{'path':@{f}", TRUE},
	    {"fs/getMetadata", "{'path':@{w/sub}", TRUE},
	    {"fs/getMetadata", "{'path':@{missing}", TRUE},
	    {"fs/getMetadata", "{'path':@{w/link}", FALSE},
	    {"fs/getMetadata", "{'path':@{secret/s.txt}", FALSE},
	    {"fs/readDirectory", "{'path':@{d}", TRUE},
	    {"fs/readDirectory", "{'path':@{w/sub}", TRUE},
	    {"fs/readDirectory", "{'path':@{f}", TRUE},
	    {"fs/readDirectory", "{'path':@{missing}", TRUE},
	    {"fs/readDirectory", "{'path':@{w}", FALSE},
	    {"fs/readDirectory", "{'path':@{}", FALSE},
	    {"fs/readDirectory", "{'path':@{secret}", FALSE},
	    {"fs/readDirectory", "{'path':@{dlink}", FALSE},
	    {"fs/readDirectory", "{'path':@{e}", FALSE},
	    {"fs/writeFile", "{'path':@{w/new},'dataBase64':'bmV3'", TRUE, "w/new"},
	    {"fs/writeFile", "{'path':@{w/new},'dataBase64':'bm!3'", TRUE, "w/new"},
	    {"fs/writeFile", "{'path':@{w/sub/b},'dataBase64':'bmV3'", TRUE, "w/sub/b"},
	    {"fs/writeFile", "{'path':@{w/sub},'dataBase64':'bmV3'", TRUE},
	    {"fs/writeFile", "{'path':@{w/none/x},'dataBase64':'bmV3'", TRUE},
	    {"fs/writeFile", "{'path':@{w/rodir/x},'dataBase64':'bmV3'", FALSE, "w/rodir/x"},
	    {"fs/writeFile", "{'path':@{f},'dataBase64':'bmV3'", FALSE},
	    {"fs/writeFile", "{'path':@{w},'dataBase64':'bmV3'", FALSE},
	    {"fs/writeFile", "{'path':@{w/.git/config},'dataBase64':'bmV3'", FALSE},
	    {"fs/writeFile", "{'path':@{w/.codex/x},'dataBase64':'bmV3'", FALSE},
	    {"fs/writeFile", "{'path':@{w/link},'dataBase64':'bmV3'", FALSE},
	    {"fs/writeFile", "{'path':@{lone},'dataBase64':'bmV3'", FALSE},
	    {"fs/createDirectory", "{'path':@{w/newdir}", TRUE, "w/newdir"},
	    {"fs/createDirectory", "{'path':@{w/sub}", TRUE},
	    {"fs/createDirectory", "{'path':@{w/sub},'recursive':false", TRUE},
	    {"fs/createDirectory", "{'path':@{w/a}", TRUE},
	    {"fs/createDirectory", "{'path':@{w/none/x},'recursive':false", TRUE},
	    {"fs/createDirectory", "{'path':@{w/deep/er}", FALSE, "w/deep"},
	    {"fs/createDirectory", "{'path':@{w/dirlink/x}", FALSE, "w/sub/x"},
	    {"fs/createDirectory", "{'path':@{d/x}", FALSE},
	    {"fs/remove", "{'path':@{w/rm}", TRUE, "w/rm", "w/rm"},
	    {"fs/remove", "{'path':@{w/rm},'recursive':false,'force':false", TRUE, "w/rm", "w/rm"},
	    {"fs/remove",
	     "{'path':@{w/rm},'followSymlinks':false,'recursive':false",
	     TRUE,
	     "w/rm",
	     "w/rm"},
	    {"fs/remove", "{'path':@{w/rm},'followSymlinks':false", FALSE, "w/rm", "w/rm"},
	    {"fs/remove", "{'path':@{w/none}", TRUE},
	    {"fs/remove", "{'path':@{w/none},'force':false", TRUE},
	    {"fs/remove", "{'path':@{w/none/x},'force':false", TRUE},
	    {"fs/remove", "{'path':@{w/rmdir}", FALSE, "w/rmdir", "w/rmdir/x"},
	    {"fs/remove", "{'path':@{dlink/a}", FALSE},
	    {"fs/remove", "{'path':@{f}", FALSE},
	    {"fs/remove", "{'path':@{w/.git/config}", FALSE},
	    {"fs/remove", "{'path':@{secret/s.txt}", FALSE},
	};
	g_autofree gchar *runtime = NULL;
	const gchar *direct_env[] = {"G_MESSAGES_DEBUG=esd-plugin-fs-local", NULL, NULL};
	const gchar *helper_env[] = {"G_MESSAGES_DEBUG=esd-plugin-fs-local",
				     "ESD_FS_DIRECT=0",
				     NULL,
				     NULL};
	EsdTestDaemon *direct_daemon = NULL;
	EsdTestDaemon *helper_daemon = NULL;
	Conn *direct_conn;
	Conn *helper_conn;

	disk_put(fx, "f", "data");
	disk_put(fx, "d/a", "a");
	disk_put(fx, "w/a", "wa");
	disk_put(fx, "w/sub/b", "b");
	disk_put(fx, "w/noread", "unreadable");
	disk_put(fx, "w/.git/config", "[core]");
	disk_put(fx, "w/rodir/keep", "k");
	disk_put(fx, "secret/s.txt", "SECRET");
	disk_put(fx, "run/bus", "BUS");
	disk_symlink(fx, fx_path(fx, "w/a"), "w/link");
	disk_symlink(fx, fx_path(fx, "secret/s.txt"), "w/slink");
	disk_symlink(fx, fx_path(fx, "d"), "dlink");
	disk_symlink(fx, fx_path(fx, "w/sub"), "w/dirlink");
	disk_mkdir(fx, "e");
	disk_symlink(fx, "../f", "e/l");
	g_assert_cmpint(g_chmod(fx_path(fx, "w/noread"), 0), ==, 0);
	g_assert_cmpint(g_chmod(fx_path(fx, "w/rodir"), 0555), ==, 0);
	runtime = g_strconcat("XDG_RUNTIME_DIR=", fx_path(fx, "run"), NULL);
	direct_env[1] = runtime;
	helper_env[2] = runtime;
	direct_conn = start_daemon_full(fx, direct_env, TRUE, &direct_daemon);
	helper_conn = start_daemon_full(fx, helper_env, TRUE, &helper_daemon);

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree gchar *want_made = NULL;
		g_autofree gchar *got_made = NULL;
		g_autofree gchar *want = direct_row_run(fx, helper_conn, &rows[i], &want_made);
		guint seen =
		    log_count(direct_daemon, LOG_DIRECT) + log_count(direct_daemon, LOG_HELPER);
		guint direct_before = log_count(direct_daemon, LOG_DIRECT);
		g_autofree gchar *got = direct_row_run(fx, direct_conn, &rows[i], &got_made);
		gboolean was_direct;

		wait_for_run(direct_daemon, seen);
		was_direct = log_count(direct_daemon, LOG_DIRECT) > direct_before;
		if (g_strcmp0(want, got) != 0 || g_strcmp0(want_made, got_made) != 0 ||
		    was_direct != rows[i].direct)
			g_error("%s %s:\n  helper: %s, left %s\n  daemon: %s, left %s, %s",
				rows[i].method,
				rows[i].params,
				want,
				want_made,
				got,
				got_made,
				was_direct ? "direct" : "through the helper");
		/* the helper daemon never ran a request itself */
		g_assert_cmpuint(log_count(helper_daemon, LOG_DIRECT), ==, 0);
	}
	disk_assert_content(fx, "secret/s.txt", "SECRET", -1);
	disk_assert_content(fx, "f", "data", -1);
	g_assert_cmpint(g_chmod(fx_path(fx, "w/rodir"), 0755), ==, 0);
	stop_daemon(fx, direct_conn, direct_daemon);
	stop_daemon(fx, helper_conn, helper_daemon);
}

/*
 * The helper's own files are bound read-only in its sandbox, also inside a
 * write root (a copy of the helper there, with its libraries) (without a deny entry, so that no
 * other read-only remount follows the plan's binds): a write over the helper there is refused as
 * the helper sees it, never done by the daemon.
 */
static void
test_direct_helper_files(Fx *fx)
{
	const DirectRow rows[] = {
	    {"fs/writeFile", "{'path':@{w/a/b/esd-fs-helper},'dataBase64':'bmV3'", FALSE},
	    {"fs/getMetadata", "{'path':@{w/a/b/esd-fs-helper}", TRUE},
	    {"fs/writeFile", "{'path':@{w/a/b/other},'dataBase64':'bmV3'", TRUE, "w/a/b/other"},
	};
	const gchar *policy = SANDBOX(ROOT_READ "," ENTRY("w", "write"));
	g_autofree gchar *daemon_dir = g_path_get_dirname(g_getenv("ESD_TEST_DAEMON"));
	g_autofree gchar *build_dir = g_path_get_dirname(daemon_dir);
	g_autofree gchar *built =
	    g_build_filename(build_dir, "plugins", "fs-local", "esd-fs-helper", NULL);
	g_autofree gchar *contents = NULL;
	g_autofree gchar *helper_env = NULL;
	gsize len = 0;
	const gchar *direct_env[] = {"G_MESSAGES_DEBUG=esd-plugin-fs-local", NULL, NULL};
	const gchar *helper_env_list[] = {"G_MESSAGES_DEBUG=esd-plugin-fs-local",
					  "ESD_FS_DIRECT=0",
					  NULL,
					  NULL};
	EsdTestDaemon *direct_daemon = NULL;
	EsdTestDaemon *helper_daemon = NULL;
	Conn *direct_conn;
	Conn *helper_conn;

	/* with the libraries its runpath names, $ORIGIN/../../libexecrpc{,-plugin} */
	for (guint i = 0; i < 2; i++) {
		const gchar *lib = i == 0 ? "libexecrpc" : "libexecrpc-plugin";
		g_autofree gchar *name = g_strdup_printf("%s-1.so.0", lib);
		g_autofree gchar *from = g_build_filename(build_dir, lib, name, NULL);
		g_autofree gchar *to = g_build_filename(lib, name, NULL);
		g_autofree gchar *to_rel = g_build_filename("w", to, NULL);
		g_autofree gchar *lib_contents = NULL;
		gsize lib_len = 0;

		g_assert_true(g_file_get_contents(from, &lib_contents, &lib_len, NULL));
		disk_put(fx, to_rel, "");
		disk_write(fx, to_rel, lib_contents, (gssize)lib_len);
	}
	/* protected names that exist are bound, not masked: no read-only remount ends the plan */
	disk_mkdir(fx, "w/.git");
	disk_mkdir(fx, "w/.codex");
	disk_mkdir(fx, "w/.agents");
	disk_mkdir(fx, "w/.aws");
	g_assert_true(g_file_get_contents(built, &contents, &len, NULL));
	disk_mkdir(fx, "w/a/b");
	disk_write(fx, "w/a/b/esd-fs-helper", contents, (gssize)len);
	g_assert_cmpint(g_chmod(fx_path(fx, "w/a/b/esd-fs-helper"), 0755), ==, 0);
	helper_env = g_strdup_printf("ESD_FS_HELPER=%s", fx_path(fx, "w/a/b/esd-fs-helper"));
	direct_env[1] = helper_env;
	helper_env_list[2] = helper_env;
	direct_conn = start_daemon_full(fx, direct_env, TRUE, &direct_daemon);
	helper_conn = start_daemon_full(fx, helper_env_list, TRUE, &helper_daemon);
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree gchar *want_made = NULL;
		g_autofree gchar *got_made = NULL;
		g_autofree gchar *want =
		    direct_row_run_with(fx, helper_conn, &rows[i], policy, &want_made);
		guint seen =
		    log_count(direct_daemon, LOG_DIRECT) + log_count(direct_daemon, LOG_HELPER);
		guint direct_before = log_count(direct_daemon, LOG_DIRECT);
		g_autofree gchar *got =
		    direct_row_run_with(fx, direct_conn, &rows[i], policy, &got_made);
		gboolean was_direct;

		wait_for_run(direct_daemon, seen);
		was_direct = log_count(direct_daemon, LOG_DIRECT) > direct_before;
		if (g_strcmp0(want, got) != 0 || g_strcmp0(want_made, got_made) != 0 ||
		    was_direct != rows[i].direct)
			g_error("%s %s:\n  helper: %s\n  daemon: %s, %s",
				rows[i].method,
				rows[i].params,
				want,
				got,
				was_direct ? "direct" : "through the helper");
	}
	disk_assert_content(fx, "w/a/b/esd-fs-helper", contents, (gssize)len);
	stop_daemon(fx, direct_conn, direct_daemon);
	stop_daemon(fx, helper_conn, helper_daemon);
}

typedef struct {
	gchar *dir;
	gchar *other;
	gint stop;
	guint swaps;
} Swapper;

/* exchanges a directory of the write root with a link to the denied directory, in a loop */
static gpointer
swapper_thread(gpointer data)
{
	Swapper *swapper = data;

	while (!g_atomic_int_get(&swapper->stop)) {
		if (renameat2(AT_FDCWD, swapper->dir, AT_FDCWD, swapper->other, RENAME_EXCHANGE) !=
		    0)
			g_error("exchanging: %s", g_strerror(errno));
		swapper->swaps++;
	}
	return NULL;
}

/*
 * A directory on the way swapped for a link to the denied directory while
 * requests that the daemon runs itself go through it: the link is met at
 * the time of the operation, and the request goes to the helper, which
 * follows it into the sandbox's view of the denied directory. The denied
 * file is never read nor written.
 */
static void
test_direct_swapped(Fx *fx)
{
	const gchar *const env[] = {"G_MESSAGES_DEBUG=esd-plugin-fs-local", NULL};
	Swapper swapper = {0};
	EsdTestDaemon *daemon = NULL;
	GThread *thread;
	Conn *conn;
	guint read_ok = 0;
	guint refused = 0;
	guint written = 0;

	disk_put(fx, "w/dir/s.txt", "allowed");
	disk_put(fx, "secret/s.txt", "SECRET");
	disk_symlink(fx, fx_path(fx, "secret"), "w/other");
	swapper.dir = g_strdup(fx_path(fx, "w/dir"));
	swapper.other = g_strdup(fx_path(fx, "w/other"));
	conn = start_daemon_full(fx, env, TRUE, &daemon);
	thread = g_thread_new("swapper", swapper_thread, &swapper);
	for (guint i = 0; i < 300; i++) {
		g_autoptr(GBytes) got = NULL;
		gint64 code = 0;

		got = fx_read(fx, conn, "{'path':@{w/dir/s.txt},'sandbox':" POLICY "}", &code);
		if (got != NULL) {
			g_assert_cmpmem(g_bytes_get_data(got, NULL),
					g_bytes_get_size(got),
					"allowed",
					7);
			read_ok++;
		} else {
			refused++;
		}
		if (i % 3 == 0) {
			JsonNode *reply =
			    conn_call(fx,
				      conn,
				      "fs/writeFile",
				      "{'path':@{w/dir/s.txt},'dataBase64':'YWxsb3dlZA==',"
				      "'sandbox':" POLICY "}");
			if (esd_test_json_get(reply, "result") != NULL)
				written++;
		}
	}
	g_atomic_int_set(&swapper.stop, 1);
	g_thread_join(thread);
	conn_sync(fx, conn);
	g_printerr("%u swaps; %u reads, %u refused, %u writes; %u direct, %u through the helper\n",
		   swapper.swaps,
		   read_ok,
		   refused,
		   written,
		   log_count(daemon, LOG_DIRECT),
		   log_count(daemon, LOG_HELPER));
	g_assert_cmpuint(swapper.swaps, >, 0);
	g_assert_cmpuint(log_count(daemon, LOG_DIRECT), >, 0);
	disk_assert_content(fx, "secret/s.txt", "SECRET", -1);
	stop_daemon(fx, conn, daemon);
	g_free(swapper.dir);
	g_free(swapper.other);
}

/* read-only with a deny glob: never run in the daemon, and no mount point on the host */
#define GLOB_POLICY                                                                                \
	SANDBOX(ROOT_READ                                                                          \
		",{'path':{'type':'glob_pattern','pattern':'%{**/*.env}'},'access':'deny'}")

/* warm helpers of @daemon still running: processes below it running `esd-fs-helper --serve` */
static guint
count_warm_helpers(GPid daemon_pid)
{
	g_autoptr(GDir) proc = g_dir_open("/proc", 0, NULL);
	const gchar *name;
	guint n = 0;

	while ((name = g_dir_read_name(proc)) != NULL) {
		g_autofree gchar *cmdline_path = g_strdup_printf("/proc/%s/cmdline", name);
		g_autofree gchar *cmdline = NULL;
		gsize len = 0;
		gint pid = atoi(name);

		if (pid <= 0 || !g_file_get_contents(cmdline_path, &cmdline, &len, NULL) ||
		    memmem(cmdline, len, "esd-fs-helper", strlen("esd-fs-helper")) == NULL)
			continue;
		/* the helper (or the script standing for it), not the bwrap processes above it */
		{
			g_autofree gchar *arg0 = g_path_get_basename(cmdline);
			if (g_strcmp0(arg0, "bwrap") == 0)
				continue;
		}
		/* argv is NUL-separated: look for the word */
		for (gsize i = 0; i + strlen("--serve") <= len; i++) {
			if (memcmp(cmdline + i, "--serve", strlen("--serve")) != 0)
				continue;
			/* below the daemon? */
			for (gint up = pid; up > 1;) {
				g_autofree gchar *stat_path = g_strdup_printf("/proc/%d/stat", up);
				g_autofree gchar *stat = NULL;
				const gchar *paren;
				if (!g_file_get_contents(stat_path, &stat, NULL, NULL) ||
				    (paren = strrchr(stat, ')')) == NULL)
					break;
				up = atoi(paren + 4);
				if (up == daemon_pid) {
					n++;
					break;
				}
			}
			break;
		}
	}
	return n;
}

/* runs the main context until @daemon logged @n lines with @needle, or fails after 5 s */
static void
wait_log(EsdTestDaemon *daemon, const gchar *needle, guint n)
{
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

	while (log_count(daemon, needle) < n) {
		if (g_get_monotonic_time() > end)
			g_error("the daemon logged %u lines with \"%s\", not %u",
				log_count(daemon, needle),
				needle,
				n);
		g_main_context_iteration(NULL, FALSE);
		g_usleep(1000);
	}
	g_assert_cmpuint(log_count(daemon, needle), ==, n);
}

/* runs the main context until @daemon has no warm helper left, or fails after 10 s */
static void
wait_no_warm_helpers(EsdTestDaemon *daemon)
{
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	GPid pid = esd_test_daemon_get_pid(daemon);

	while (count_warm_helpers(pid) > 0) {
		if (g_get_monotonic_time() > end)
			g_error("a warm helper is still running");
		g_main_context_iteration(NULL, FALSE);
		g_usleep(10000);
	}
}

/*
 * Requests the daemon cannot run itself go to one warm helper per policy
 * and connection: one start for many requests, handles included; an idle
 * helper ends after --fs-sandbox-helper-idle, and every helper ends with
 * its connection. A policy whose sandbox makes mount points on the host
 * gets a helper per request instead: nothing is left there between
 * requests.
 */
static void
test_warm(Fx *fx)
{
	const gchar *const env[] = {"G_MESSAGES_DEBUG=esd-plugin-fs-local", NULL};
	const gchar *const stdio_args[] =
	    {"--listen", "stdio", "--verbose", "--fs-sandbox-helper-idle", "2", NULL};
	const gchar *const ws_args[] = {"--verbose", "--fs-sandbox-helper-idle", "2", NULL};
	g_autoptr(EsdTestWsClient) client = NULL;
	EsdTestDaemon *daemon;
	Conn *conn;
	GPid pid;

	disk_put(fx, "f", "data");
	disk_put(fx, "a.env", "SECRET");
	disk_put(fx, "w/x", "x");
	daemon = esd_test_daemon_new_full(fx->ws ? ws_args : stdio_args, env, NULL, fx->ws);
	if (fx->ws) {
		client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
		conn = conn_new(ESD_TEST_PEER(client), client);
	} else {
		conn = conn_new(ESD_TEST_PEER(daemon), NULL);
	}
	conn_initialize(fx, conn, NULL);
	pid = esd_test_daemon_get_pid(daemon);

	for (guint i = 0; i < 5; i++) {
		conn_expect(fx,
			    conn,
			    "fs/readFile",
			    "{'path':@{f},'sandbox':" GLOB_POLICY "}",
			    "{'dataBase64':'ZGF0YQ=='}");
		conn_fail(fx,
			  conn,
			  "fs/readFile",
			  "{'path':@{a.env},'sandbox':" GLOB_POLICY "}",
			  -32600,
			  EACCES_TEXT);
	}
	conn_expect(fx,
		    conn,
		    "fs/open",
		    "{'handleId':'r','path':@{f},'sandbox':" GLOB_POLICY "}",
		    "{'handleId':'r'}");
	conn_expect(fx,
		    conn,
		    "fs/open",
		    "{'handleId':'q','path':@{f},'sandbox':" GLOB_POLICY "}",
		    "{'handleId':'q'}");
	conn_expect(fx,
		    conn,
		    "fs/readBlock",
		    "{'handleId':'r','offset':1,'len':10}",
		    "{'chunk':'YXRh','eof':true}");
	conn_expect(fx,
		    conn,
		    "fs/readBlock",
		    "{'handleId':'q','offset':0,'len':2}",
		    "{'chunk':'ZGE=','eof':false}");
	conn_expect(fx, conn, "fs/close", "{'handleId':'r'}", "{}");
	conn_expect(fx, conn, "fs/close", "{'handleId':'q'}", "{}");
	conn_sync(fx, conn);
	wait_log(daemon, " (warm)\n", 12);
	g_assert_cmpuint(log_count(daemon, "started a warm fs helper\n"), ==, 1);
	g_assert_cmpuint(count_warm_helpers(pid), ==, 1);

	/* idle: ended after 2 s; the next request starts another one */
	wait_no_warm_helpers(daemon);
	wait_log(daemon, "ending a warm fs helper\n", 1);
	conn_expect(fx,
		    conn,
		    "fs/readFile",
		    "{'path':@{f},'sandbox':" GLOB_POLICY "}",
		    "{'dataBase64':'ZGF0YQ=='}");
	wait_log(daemon, "started a warm fs helper\n", 2);

	/* a sandbox with masks on the host (w/.git and the others): one request each */
	for (guint i = 0; i < 2; i++) {
		conn_expect(fx,
			    conn,
			    "fs/readFile",
			    "{'path':@{w/x},'sandbox':" SANDBOX(
				ROOT_READ "," ENTRY("w", "write") ",{'path':{'type':'glob_pattern',"
								  "'pattern':'%{**/*.env}'},"
								  "'access':'deny'}") "}",
			    "{'dataBase64':'eA=='}");
		disk_assert_missing(fx, "w/.git");
		disk_assert_missing(fx, "w/.codex");
	}
	wait_log(daemon, "started a warm fs helper for one request\n", 2);

	/* with the connection */
	g_assert_cmpuint(count_warm_helpers(pid), ==, 1);
	if (fx->ws) {
		conn_free(conn);
		wait_no_warm_helpers(daemon);
		esd_test_daemon_send_signal(daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(daemon, 0, 3000);
	} else {
		esd_test_daemon_close_stdin(daemon);
		esd_test_daemon_assert_exit_code(daemon, 0, 3000);
		conn_free(conn);
	}
	g_assert_cmpuint(count_warm_helpers(pid), ==, 0);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	g_object_unref(daemon);
}

/*
 * A helper that misbehaves (its answers are not trusted): one that writes
 * a second line after its answer, one that dies. Each request gets a
 * clear error and the next one a new helper; nothing hangs.
 */
static void
test_warm_hostile(Fx *fx)
{
	const gchar *const scripts[][2] = {
	    {"#!/bin/sh\nwhile read line; do\n"
	     "printf '{\"id\":1,\"result\":{\"dataBase64\":\"\"}}\\n{\"id\":2}\\n'\ndone\n",
	     "the sandboxed file system helper wrote more than one answer"},
	    {"#!/bin/sh\nread line\nexit 3\n",
	     "the sandboxed file system helper failed with exit status 3"},
	};

	disk_put(fx, "f", "data");
	for (guint i = 0; i < G_N_ELEMENTS(scripts); i++) {
		g_autofree gchar *helper = g_strdup_printf("helper%u", i);
		g_autofree gchar *helper_env =
		    g_strdup_printf("ESD_FS_HELPER=%s", fx_path(fx, helper));
		const gchar *const env[] = {helper_env,
					    "G_MESSAGES_DEBUG=esd-plugin-fs-local",
					    NULL};
		EsdTestDaemon *daemon = NULL;
		Conn *conn;

		disk_write(fx, helper, scripts[i][0], -1);
		g_assert_cmpint(g_chmod(fx_path(fx, helper), 0755), ==, 0);
		conn = start_daemon_full(fx, env, TRUE, &daemon);
		for (guint j = 0; j < 2; j++) {
			JsonNode *reply = conn_call(fx,
						    conn,
						    "fs/readFile",
						    "{'path':@{f},'sandbox':" GLOB_POLICY "}");
			esd_assert_json_node_eq(esd_test_json_get(reply, "error.code"), "-32603");
			esd_assert_json_node_eq(
			    esd_test_json_get(reply, "error.message"),
			    fx_keep(fx, g_strdup_printf("\"%s\"", scripts[i][1])));
		}
		conn_sync(fx, conn);
		wait_log(daemon, "started a warm fs helper\n", 2);
		g_assert_cmpuint(count_warm_helpers(esd_test_daemon_get_pid(daemon)), ==, 0);
		conn_free(conn);
		esd_test_daemon_send_signal(daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(daemon, 0, 3000);
		g_object_unref(daemon);
	}
}

/* runs the main context until @pid has @n warm helpers, or fails after 10 s */
static void
wait_warm_helpers(GPid pid, guint n)
{
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

	while (count_warm_helpers(pid) != n) {
		if (g_get_monotonic_time() > end)
			g_error("%u warm helpers, not %u", count_warm_helpers(pid), n);
		g_main_context_iteration(NULL, FALSE);
		g_usleep(10000);
	}
}

/*
 * A helper that never answers holds its request, not the daemon: closing
 * the connection cancels the request and kills the helper.
 */
static void
test_warm_cancel(Fx *fx)
{
	g_autofree gchar *helper_env = NULL;
	const gchar *env[] = {NULL, NULL};
	EsdTestDaemon *daemon = NULL;
	Conn *conn;
	GPid pid;

	disk_put(fx, "f", "data");
	disk_put(fx, "hang/esd-fs-helper", "#!/bin/sh\nread line\nwhile :; do sleep 1; done\n");
	g_assert_cmpint(g_chmod(fx_path(fx, "hang/esd-fs-helper"), 0755), ==, 0);
	helper_env = g_strdup_printf("ESD_FS_HELPER=%s", fx_path(fx, "hang/esd-fs-helper"));
	env[0] = helper_env;
	conn = start_daemon(fx, env, &daemon);
	pid = esd_test_daemon_get_pid(daemon);
	conn_request(fx,
		     conn,
		     "fs/readFile",
		     fx_json(fx, "{'path':@{f},'sandbox':" GLOB_POLICY "}"));
	wait_warm_helpers(pid, 1);
	if (fx->ws) {
		conn_free(conn);
		wait_warm_helpers(pid, 0);
		esd_test_daemon_send_signal(daemon, SIGTERM);
	} else {
		esd_test_daemon_close_stdin(daemon);
		conn_free(conn);
	}
	esd_test_daemon_assert_exit_code(daemon, 0, 5000);
	g_assert_cmpuint(count_warm_helpers(pid), ==, 0);
	g_object_unref(daemon);
}

static const CaseDef cases[] = {
    {"sandbox/read-only-root", test_read_only_root, CASE_SANDBOX},
    {"sandbox/deny", test_deny, CASE_SANDBOX},
    {"sandbox/minimal", test_minimal, CASE_SANDBOX},
    {"sandbox/protected", test_protected, CASE_SANDBOX},
    {"sandbox/handles", test_handles, CASE_SANDBOX},
    {"sandbox/big", test_big, CASE_SANDBOX | CASE_BIG},
    {"sandbox/project-roots", test_project_roots, CASE_SANDBOX},
    {"sandbox/same-answers", test_same_answers, CASE_SANDBOX},
    {"sandbox/preparation", test_preparation, CASE_SANDBOX},
    {"sandbox/fail-closed", test_fail_closed, CASE_NONE},
    /* the races are in the file system, not the transport: over WebSocket alone */
    {"sandbox/symlink-race", test_symlink_race, CASE_SANDBOX | CASE_BIG | CASE_WS_ONLY},
    {"sandbox/direct-same-answers", test_direct_same_answers, CASE_SANDBOX},
    {"sandbox/direct-swapped", test_direct_swapped, CASE_SANDBOX | CASE_BIG | CASE_WS_ONLY},
    {"sandbox/direct-helper-files", test_direct_helper_files, CASE_SANDBOX},
    {"sandbox/warm", test_warm, CASE_SANDBOX},
    {"sandbox/warm-hostile", test_warm_hostile, CASE_SANDBOX},
    {"sandbox/warm-cancel", test_warm_cancel, CASE_SANDBOX},
};

int
main(int argc, char **argv)
{
	fs_harness_set_skip_func(skip_without_sandbox);
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-fs-sandbox");
}
