/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
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

/* a second daemon of the case's transport, with @env added */
static Conn *
start_daemon(Fx *fx, const gchar *const *env, EsdTestDaemon **daemon)
{
	const gchar *const stdio_args[] = {"--listen", "stdio", NULL};
	g_autoptr(EsdTestWsClient) client = NULL;
	Conn *conn;

	*daemon = esd_test_daemon_new_full(fx->ws ? NULL : stdio_args, env, NULL, fx->ws);
	if (fx->ws) {
		client = esd_test_ws_client_new(esd_test_daemon_get_url(*daemon));
		conn = conn_new(ESD_TEST_PEER(client), client);
	} else {
		conn = conn_new(ESD_TEST_PEER(*daemon), NULL);
	}
	conn_initialize(fx, conn, NULL);
	return conn;
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
    {"sandbox/symlink-race", test_symlink_race, CASE_SANDBOX | CASE_BIG},
};

int
main(int argc, char **argv)
{
	fs_harness_set_skip_func(skip_without_sandbox);
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-fs-sandbox");
}
