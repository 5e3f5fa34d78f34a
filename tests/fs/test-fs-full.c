/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esd-bwrap.h"
#include "fs-harness.h"

/*
 * fs/open replace handles on a file system that fills up: a 4 MiB tmpfs
 * holding a 2 MiB file, written over in 1 MiB blocks until one fails with
 * ENOSPC. A handle one of whose writes failed must never replace its target:
 * fs/close reports the failure, the target keeps its old content byte for
 * byte, and the staged content is gone (its space is free again).
 *
 * Each case mounts the tmpfs in a mount namespace of its own and starts a
 * daemon there, so that nothing is left mounted whatever happens; it is
 * skipped, with the reason, where it cannot mount (not root, no
 * CAP_SYS_ADMIN).
 */

#define SMALL_FS    "small"
#define TARGET	    SMALL_FS "/t"
#define BLOCK	    (1024 * 1024)
#define ENOSPC_TEXT "No space left on device (os error 28)"
#define SANDBOX                                                                                    \
	"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':["          \
	"{'path':{'type':'special','value':{'kind':'root'}},'access':'read'},"                     \
	"{'path':{'type':'path','path':@{" SMALL_FS "}},'access':'write'}]},"                      \
	"'network':'restricted'},'windowsSandboxLevel':'disabled'}"

/* whether a tmpfs can be mounted in a new mount namespace, tried in a child */
static gchar *
probe_mount(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("esd-test-fs-full-XXXXXX", NULL);
	gint status = 0;
	pid_t pid;

	if (dir == NULL)
		return g_strdup("no temporary directory");
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) != 0)
			_exit(1);
		if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
			_exit(2);
		if (mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0)
			_exit(3);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	g_rmdir(dir);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	return g_strdup_printf("cannot mount a tmpfs in a new mount namespace (%s)",
			       geteuid() != 0 ? "not root" : "no CAP_SYS_ADMIN?");
}

static gboolean
skip_func(const CaseDef *def, gchar **reason)
{
	static gsize once = 0;
	static gchar *no_mount = NULL;
	static gchar *no_sandbox = NULL;

	if (g_once_init_enter(&once)) {
		g_autoptr(GError) error = NULL;
		no_mount = probe_mount();
		if (!esd_bwrap_available(&error))
			no_sandbox = g_strdup(error->message);
		g_once_init_leave(&once, 1);
	}
	if (no_mount != NULL) {
		*reason = g_strdup(no_mount);
		return TRUE;
	}
	if ((def->flags & CASE_SANDBOX) != 0 && no_sandbox != NULL) {
		*reason = g_strdup(no_sandbox);
		return TRUE;
	}
	return FALSE;
}

static GBytes *
pattern_bytes(gsize size, guint seed)
{
	guint8 *data = g_malloc(size);
	guint32 x = 2463534242u + seed;

	for (gsize i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (guint8)x;
	}
	return g_bytes_new_take(data, size);
}

static guint64
free_bytes(Fx *fx)
{
	struct statvfs st;

	g_assert_cmpint(statvfs(fx_path(fx, SMALL_FS), &st), ==, 0);
	return (guint64)st.f_bfree * st.f_frsize;
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* the names in the small file system, sorted, comma-separated */
static gchar *
list_small(Fx *fx)
{
	g_autoptr(GDir) dir = g_dir_open(fx_path(fx, SMALL_FS), 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const gchar *name;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, compare_names);
	g_ptr_array_add(names, NULL);
	return g_strjoinv(",", (gchar **)names->pdata);
}

/* a daemon of the case's own, in a mount namespace with the small file system */
static EsdTestDaemon *
start_daemon(Fx *fx, Conn **conn)
{
	EsdTestDaemon *daemon;

	g_assert_cmpint(unshare(CLONE_NEWNS), ==, 0);
	g_assert_cmpint(mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
	disk_mkdir(fx, SMALL_FS);
	g_assert_cmpint(mount("tmpfs", fx_path(fx, SMALL_FS), "tmpfs", 0, "size=4m,mode=0755"),
			==,
			0);
	if (fx->ws) {
		g_autoptr(EsdTestWsClient) client = NULL;
		daemon = esd_test_daemon_new_ws(NULL);
		client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
		*conn = conn_new(ESD_TEST_PEER(client), client);
	} else {
		daemon = esd_test_daemon_new_stdio(NULL);
		*conn = conn_new(ESD_TEST_PEER(daemon), NULL);
	}
	conn_initialize(fx, *conn, NULL);
	return daemon;
}

static void
stop_daemon(Fx *fx, EsdTestDaemon *daemon, Conn *conn)
{
	conn_sync(fx, conn);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 3000);
	conn_free(conn);
	g_object_unref(daemon);
	g_assert_cmpint(umount2(fx_path(fx, SMALL_FS), MNT_DETACH), ==, 0);
}

static const gchar *
open_params(Fx *fx, const gchar *id, gboolean sandboxed)
{
	g_autofree gchar *tmpl =
	    g_strdup_printf("{'handleId':'%s','path':@{" TARGET "},'mode':'replace'%s}",
			    id,
			    sandboxed ? ",'sandbox':" SANDBOX : "");
	return fx_json(fx, tmpl);
}

static const gchar *
write_params(Fx *fx, const gchar *id, guint64 offset, GBytes *block)
{
	g_autofree gchar *chunk =
	    g_base64_encode(g_bytes_get_data(block, NULL), g_bytes_get_size(block));
	return fx_keep(fx,
		       g_strdup_printf("{\"handleId\":\"%s\",\"offset\":%" G_GUINT64_FORMAT
				       ",\"chunk\":\"%s\"}",
				       id,
				       offset,
				       chunk));
}

static void
run_full(Fx *fx, gboolean sandboxed, gboolean hardlink)
{
	g_autoptr(GBytes) old = pattern_bytes(2 * BLOCK, 1);
	g_autoptr(GBytes) block = pattern_bytes(BLOCK, 2);
	g_autoptr(GBytes) fits = pattern_bytes(BLOCK / 2, 3);
	g_autofree gchar *listed = NULL;
	g_autofree gchar *listed_again = NULL;
	Conn *conn = NULL;
	EsdTestDaemon *daemon = start_daemon(fx, &conn);
	guint64 free_before;
	guint written = 0;

	disk_write(fx, TARGET, g_bytes_get_data(old, NULL), (gssize)g_bytes_get_size(old));
	if (hardlink)
		g_assert_cmpint(link(fx_path(fx, TARGET), fx_path(fx, SMALL_FS "/link")), ==, 0);
	listed = list_small(fx);
	free_before = free_bytes(fx);
	conn_expect(fx, conn, "fs/open", open_params(fx, "h", sandboxed), "{'handleId':'h'}");
	/* 2 MiB are free: the third block at the latest finds the disk full */
	for (;; written++) {
		JsonNode *reply = conn_call(fx,
					    conn,
					    "fs/writeBlock",
					    write_params(fx, "h", (guint64)written * BLOCK, block));
		if (esd_test_json_get(reply, "error") != NULL) {
			g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32603);
			g_assert_cmpstr(esd_test_json_get_string(reply, "error.message"),
					==,
					ENOSPC_TEXT);
			break;
		}
		esd_assert_json_node_eq(esd_test_json_get(reply, "result"), "{}");
		g_assert_cmpuint(written, <, 4);
	}
	g_assert_cmpuint(written, >=, 1);
	/* the failure is fs/close's, and the target stays as it was */
	conn_fail(fx, conn, "fs/close", "{'handleId':'h'}", -32603, ENOSPC_TEXT);
	disk_assert_content(fx, TARGET, g_bytes_get_data(old, NULL), (gssize)g_bytes_get_size(old));
	if (hardlink)
		disk_assert_content(fx,
				    SMALL_FS "/link",
				    g_bytes_get_data(old, NULL),
				    (gssize)g_bytes_get_size(old));
	listed_again = list_small(fx);
	g_assert_cmpstr(listed_again, ==, listed);
	/* the staged blocks were dropped, not left to the handle's last reference */
	g_assert_cmpuint(free_bytes(fx), ==, free_before);
	/* the handle is gone: closing again is the idempotent answer */
	conn_expect(fx, conn, "fs/close", "{'handleId':'h'}", "{}");

	/* and a replacement that fits goes through */
	conn_expect(fx, conn, "fs/open", open_params(fx, "h2", sandboxed), "{'handleId':'h2'}");
	conn_expect(fx, conn, "fs/writeBlock", write_params(fx, "h2", 0, fits), "{}");
	conn_expect(fx, conn, "fs/close", "{'handleId':'h2'}", "{}");
	disk_assert_content(fx,
			    TARGET,
			    g_bytes_get_data(fits, NULL),
			    (gssize)g_bytes_get_size(fits));
	stop_daemon(fx, daemon, conn);
}

static void
test_replace_full(Fx *fx)
{
	run_full(fx, FALSE, FALSE);
}

static void
test_replace_full_hardlink(Fx *fx)
{
	run_full(fx, FALSE, TRUE);
}

static void
test_replace_full_sandboxed(Fx *fx)
{
	run_full(fx, TRUE, FALSE);
}

static const CaseDef cases[] = {
    {"replace/disk-full", test_replace_full, CASE_NONE},
    {"replace/disk-full-hardlink", test_replace_full_hardlink, CASE_NONE},
    {"replace/disk-full-sandboxed", test_replace_full_sandboxed, CASE_SANDBOX},
};

int
main(int argc, char **argv)
{
	fs_harness_set_skip_func(skip_func);
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-fs-full");
}
