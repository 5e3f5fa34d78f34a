/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>

#include "esd-test-utils.h"

/*
 * A plugin built against the SDK only (esd-sandboxjob-plugin.c), loaded
 * by the daemon with --plugins-dir, runs commands in the host's sandbox:
 * the sandbox process/start gives (the file system the policy shows), its
 * exit status and output, and the daemon's own refusals. Cases that run
 * something skip when bwrap cannot make a user namespace here.
 */

#define POLICY_FMT                                                                                 \
	"{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","         \
	"\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},"             \
	"\"access\":\"read\"},{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"               \
	"\"access\":\"write\"}]},\"network\":\"restricted\"},\"windowsSandboxLevel\":"             \
	"\"disabled\"}"

static gchar *module_path = NULL; /* the built module, the last argument */

typedef struct {
	gchar *plugins_dir;
	gchar *work; /* writable in the policy */
	gchar *policy;
} Fx;

static void
fx_setup(Fx *fx, gconstpointer data)
{
	const gchar *module = module_path;
	g_autofree gchar *copy = NULL;
	g_autofree gchar *contents = NULL;
	g_autoptr(GError) error = NULL;
	gsize len = 0;

	/* a directory of its own: the daemon loads every module it finds there */
	fx->plugins_dir = g_dir_make_tmp("test-sandbox-job-XXXXXX", &error);
	g_assert_no_error(error);
	copy = g_build_filename(fx->plugins_dir, "libesd-plugin-sandboxjob.so", NULL);
	g_assert_true(g_file_get_contents(module, &contents, &len, &error));
	g_assert_true(g_file_set_contents_full(copy, contents, len, 0, 0644, &error));
	g_assert_no_error(error);
	fx->work = g_dir_make_tmp("test-sandbox-job-work-XXXXXX", &error);
	g_assert_no_error(error);
	fx->policy = g_strdup_printf(POLICY_FMT, fx->work);
}

static void
fx_teardown(Fx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s' '%s'", fx->plugins_dir, fx->work);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->plugins_dir);
	g_free(fx->work);
	g_free(fx->policy);
}

static EsdTestDaemon *
fx_daemon(Fx *fx, const gchar *const *env)
{
	const gchar *args[] = {"--listen", "stdio", "--plugins-dir", fx->plugins_dir, NULL};
	EsdTestDaemon *daemon = esd_test_daemon_new_full(args, env, NULL, FALSE);

	g_free(esd_test_peer_handshake(ESD_TEST_PEER(daemon)));
	return daemon;
}

static void
fx_stop(EsdTestDaemon *daemon)
{
	g_assert_cmpuint(esd_test_daemon_get_warning_count(daemon), ==, 0);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 5000);
	g_object_unref(daemon);
}

static JsonNode *
fx_run(EsdTestDaemon *daemon, const gchar *argv_json, const gchar *policy)
{
	g_autofree gchar *request = g_strdup_printf(
	    "{\"id\":5,\"method\":\"test/sandboxRun\",\"params\":{\"argv\":%s,\"sandbox\":%s}}",
	    argv_json,
	    policy);
	return esd_test_peer_call(ESD_TEST_PEER(daemon), request);
}

static gboolean
have_bwrap(void)
{
	const gchar *argv[] =
	    {"bwrap", "--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "true", NULL};
	gint status = 0;

	if (!g_spawn_sync(NULL,
			  (gchar **)argv,
			  NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
			      G_SPAWN_STDERR_TO_DEV_NULL,
			  NULL,
			  NULL,
			  NULL,
			  NULL,
			  &status,
			  NULL) ||
	    !g_spawn_check_wait_status(status, NULL)) {
		g_test_skip("bwrap cannot make a user namespace here");
		return FALSE;
	}
	return TRUE;
}

/* the command sees the policy's file system: the root read-only, the work directory writable */
static void
test_run(Fx *fx, gconstpointer data)
{
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *argv = NULL;
	g_autofree gchar *outside = g_build_filename(g_get_tmp_dir(), "test-sandbox-job-x", NULL);
	g_autofree gchar *written = NULL;
	g_autofree gchar *inside = g_build_filename(fx->work, "made", NULL);

	if (!have_bwrap())
		return;
	daemon = fx_daemon(fx, NULL);
	g_unlink(outside);
	argv = g_strdup_printf("[\"/bin/sh\",\"-c\",\"echo hi; echo in > %s; "
			       "echo out > %s 2>/dev/null || echo refused; exit 4\"]",
			       inside,
			       outside);
	reply = fx_run(daemon, argv, fx->policy);
	esd_assert_json_node_eq(reply,
				"{\"id\":5,\"result\":{\"exitStatus\":4,"
				"\"stdout\":\"hi\\nrefused\\n\"}}");
	g_assert_true(g_file_get_contents(inside, &written, NULL, NULL));
	g_assert_cmpstr(written, ==, "in\n");
	g_assert_false(g_file_test(outside, G_FILE_TEST_EXISTS));
	g_clear_pointer(&daemon, fx_stop);
}

/* a malformed sandbox: the parser's own -32602; no bwrap: sandboxUnavailable */
static void
test_refusals(Fx *fx, gconstpointer data)
{
	const gchar *const no_bwrap[] = {"ESD_BWRAP=/nonexistent", NULL};
	EsdTestDaemon *daemon = fx_daemon(fx, no_bwrap);
	g_autoptr(JsonNode) bad = NULL;
	g_autoptr(JsonNode) unavailable = NULL;

	bad = fx_run(daemon, "[\"/bin/true\"]", "{\"permissions\":{\"type\":\"disabled\"}}");
	esd_assert_json_node_eq(esd_test_json_get(bad, "error"),
				"{\"code\":-32602,"
				"\"message\":\"missing field `windowsSandboxLevel`\"}");
	unavailable = fx_run(daemon, "[\"/bin/true\"]", fx->policy);
	esd_assert_json_node_eq(esd_test_json_get(unavailable, "error.code"), "-32602");
	esd_assert_json_node_eq(esd_test_json_get(unavailable, "error.data"),
				"{\"kind\":\"sandboxUnavailable\"}");
	fx_stop(daemon);
}

int
main(int argc, char **argv)
{
	int ret;

	g_assert_cmpint(argc, >=, 2);
	module_path = g_strdup(argv[argc - 1]);
	g_test_init(&argc, &argv, NULL);
	g_test_add("/sandbox-job/run", Fx, NULL, fx_setup, test_run, fx_teardown);
	g_test_add("/sandbox-job/refusals", Fx, NULL, fx_setup, test_refusals, fx_teardown);
	ret = g_test_run();
	g_free(module_path);
	return ret;
}
