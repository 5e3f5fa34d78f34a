/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "erpc-test-client.h"

/*
 * The execrpc tool, run as a subprocess against the real daemon: run's exit
 * codes and output streams, Ctrl-C, --tty, fs put/cat round trip and the
 * other fs commands, bearer tokens, and errors: non-zero exit codes with a
 * message on stderr.
 */

typedef struct {
	gint status;
	gchar *out;
	gchar *err;
} Result;

static void
result_clear(Result *result)
{
	g_free(result->out);
	g_free(result->err);
	memset(result, 0, sizeof(*result));
}

/* the build tree's, or $ESD_TEST_EXECRPC for the installed tests */
static gchar *
tool_path(void)
{
	if (g_getenv("ESD_TEST_EXECRPC") != NULL)
		return g_strdup(g_getenv("ESD_TEST_EXECRPC"));
	return g_test_build_filename(G_TEST_BUILT, "..", "tools", "execrpc", NULL);
}

static GSubprocess *
spawn_tool(const gchar *const *args, const gchar *stdin_path)
{
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	GSubprocess *subprocess;

	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE |
					     G_SUBPROCESS_FLAGS_STDERR_PIPE);
	if (stdin_path != NULL)
		g_subprocess_launcher_set_stdin_file_path(launcher, stdin_path);
	g_ptr_array_add(argv, tool_path());
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, g_strdup(args[i]));
	g_ptr_array_add(argv, NULL);
	subprocess =
	    g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	return subprocess;
}

static void
communicate_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	Result *result = user_data;
	g_autoptr(GError) error = NULL;

	g_assert_true(g_subprocess_communicate_utf8_finish(G_SUBPROCESS(source),
							   res,
							   &result->out,
							   &result->err,
							   &error));
	g_assert_no_error(error);
	result->status = g_subprocess_get_exit_status(G_SUBPROCESS(source));
}

/* runs execrpc with @args and waits, iterating the loop for the test daemon */
static void
run_tool(const gchar *const *args, const gchar *stdin_path, Result *result)
{
	g_autoptr(GSubprocess) subprocess = spawn_tool(args, stdin_path);

	g_assert_null(result->out);
	result->status = -1;
	g_subprocess_communicate_utf8_async(subprocess, NULL, NULL, communicate_cb, result);
	ESD_WAIT_UNTIL(result->out != NULL, ERPC_TEST_TIMEOUT_MS);
	if (g_test_verbose())
		g_printerr("rc %d\nstdout: %s\nstderr: %s\n",
			   result->status,
			   result->out,
			   result->err);
}

typedef struct {
	EsdTestDaemon *daemon;
	gchar *tmpdir;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	fx->daemon = esd_test_daemon_new_ws(NULL);
	fx->tmpdir = g_dir_make_tmp("execrpc-cli-XXXXXX", &error);
	g_assert_no_error(error);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->tmpdir);
	g_clear_object(&fx->daemon);
	g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, NULL, NULL));
	g_free(fx->tmpdir);
}

static const gchar *
url(Fixture *fx)
{
	return esd_test_daemon_get_url(fx->daemon);
}

static void
test_run(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] =
	    {"--url", url(fx), "run", "--", "sh", "-c", "echo out; echo err >&2; exit 7", NULL};
	const gchar *daemon = g_getenv("ESD_TEST_DAEMON");
	const gchar *stdio_args[] =
	    {"--stdio", "--server", daemon, "run", "-e", "X=42", "--", "sh", "-c", "echo $X", NULL};
	Result result = {0};

	run_tool(args, NULL, &result);
	g_assert_cmpint(result.status, ==, 7);
	g_assert_cmpstr(result.out, ==, "out\n");
	g_assert_cmpstr(result.err, ==, "err\n");
	result_clear(&result);

	run_tool(stdio_args, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_cmpstr(result.out, ==, "42\n");
	g_assert_cmpstr(result.err, ==, "");
	result_clear(&result);
}

static void
test_run_errors(Fixture *fx, gconstpointer user_data)
{
	const gchar *missing[] = {"--url", url(fx), "run", "--", "/nonexistent/cmd", NULL};
	const gchar *no_command[] = {"--url", url(fx), "run", NULL};
	const gchar *refused[] = {"--url", "ws://127.0.0.1:1", "run", "--", "true", NULL};
	Result result = {0};

	run_tool(missing, NULL, &result);
	g_assert_cmpint(result.status, ==, 127);
	g_assert_nonnull(strstr(result.err, "execrpc: /nonexistent/cmd: No such file"));
	result_clear(&result);

	run_tool(no_command, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	g_assert_nonnull(strstr(result.err, "no command given"));
	result_clear(&result);

	run_tool(refused, NULL, &result);
	g_assert_cmpint(result.status, ==, 255);
	g_assert_nonnull(strstr(result.err, "cannot connect to ws://127.0.0.1:1"));
	result_clear(&result);
}

static void
test_run_tty(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--url",
			       url(fx),
			       "run",
			       "--tty",
			       "--",
			       "sh",
			       "-c",
			       "test -t 0 && read line && echo got $line",
			       NULL};
	g_autofree gchar *input = g_build_filename(fx->tmpdir, "input", NULL);
	Result result = {0};

	/* stdin is a file here: forwarded as typed input, no raw mode */
	g_assert_true(g_file_set_contents(input, "hello\n", -1, NULL));
	run_tool(args, input, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_nonnull(strstr(result.out, "got hello"));
	result_clear(&result);
}

static void
waited_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	gboolean *exited = user_data;
	g_assert_true(g_subprocess_wait_finish(G_SUBPROCESS(source), res, NULL));
	*exited = TRUE;
}

static void
test_run_interrupt(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {
	    "--url",
	    url(fx),
	    "run",
	    "--",
	    "sh",
	    "-c",
	    "trap 'echo INT; exit 9' INT; echo ready; while :; do sleep 0.05; done",
	    NULL};
	g_autoptr(GSubprocess) subprocess = spawn_tool(args, NULL);
	g_autoptr(GDataInputStream) out =
	    g_data_input_stream_new(g_subprocess_get_stdout_pipe(subprocess));
	g_autoptr(GError) error = NULL;
	g_autofree gchar *line = NULL;
	gboolean exited = FALSE;

	/* the daemon runs in another process: a blocking read is fine */
	line = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(line, ==, "ready");
	g_subprocess_send_signal(subprocess, SIGINT);
	g_clear_pointer(&line, g_free);
	line = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_cmpstr(line, ==, "INT");
	g_subprocess_wait_async(subprocess, NULL, waited_cb, &exited);
	ESD_WAIT_UNTIL(exited, ERPC_TEST_TIMEOUT_MS);
	g_assert_cmpint(g_subprocess_get_exit_status(subprocess), ==, 9);
}

static void
test_fs_round_trip(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *local = g_build_filename(fx->tmpdir, "local.bin", NULL);
	g_autofree gchar *remote = g_build_filename(fx->tmpdir, "remote.bin", NULL);
	g_autofree gchar *copy = g_build_filename(fx->tmpdir, "copy.bin", NULL);
	g_autofree gchar *content = g_malloc(3 * 1024 * 1024 + 17);
	const gchar *put[] = {"--url", url(fx), "fs", "put", local, remote, NULL};
	const gchar *cat[] = {"--url", url(fx), "fs", "cat", remote, NULL};
	const gchar *stat[] = {"--url", url(fx), "fs", "stat", remote, NULL};
	const gchar *cp[] = {"--url", url(fx), "fs", "cp", remote, copy, NULL};
	const gchar *ls[] = {"--url", url(fx), "fs", "ls", fx->tmpdir, NULL};
	g_autoptr(GSubprocess) subprocess = NULL;
	g_autoptr(GBytes) out = NULL;
	g_autoptr(GError) error = NULL;
	Result result = {0};

	/* text-safe content so that communicate_utf8 can check it too */
	for (gsize i = 0; i < 3 * 1024 * 1024 + 17; i++)
		content[i] = 'a' + (gchar)(g_random_int() % 26);
	g_assert_true(g_file_set_contents(local, content, 3 * 1024 * 1024 + 17, NULL));
	run_tool(put, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_cmpstr(result.out, ==, "");
	result_clear(&result);

	subprocess = spawn_tool(cat, NULL);
	g_subprocess_communicate(subprocess, NULL, NULL, &out, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_subprocess_get_exit_status(subprocess), ==, 0);
	g_assert_cmpmem(g_bytes_get_data(out, NULL),
			g_bytes_get_size(out),
			content,
			3 * 1024 * 1024 + 17);

	run_tool(stat, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_nonnull(strstr(result.out, "Size: 3145745\n"));
	g_assert_nonnull(strstr(result.out, "Type: file\n"));
	result_clear(&result);

	run_tool(cp, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	result_clear(&result);
	run_tool(ls, NULL, &result);
	g_assert_cmpstr(result.out, ==, "copy.bin\nlocal.bin\nremote.bin\n");
	result_clear(&result);
}

static void
test_fs_commands(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *dir = g_build_filename(fx->tmpdir, "a", "b", NULL);
	g_autofree gchar *top = g_build_filename(fx->tmpdir, "a", NULL);
	g_autofree gchar *missing = g_build_filename(fx->tmpdir, "missing", NULL);
	const gchar *mkdir_p[] = {"--url", url(fx), "fs", "mkdir", "-p", dir, NULL};
	const gchar *rm[] = {"--url", url(fx), "fs", "rm", top, NULL};
	const gchar *rm_r[] = {"--url", url(fx), "fs", "rm", "-r", top, NULL};
	const gchar *cat_missing[] = {"--url", url(fx), "fs", "cat", missing, NULL};
	const gchar *rm_f[] = {"--url", url(fx), "fs", "rm", "-f", missing, NULL};
	const gchar *bad[] = {"--url", url(fx), "fs", "frobnicate", "x", NULL};
	const gchar *extra[] = {"--url", url(fx), "fs", "cat", "a", "b", NULL};
	g_autofree gchar *expected = g_strdup_printf("execrpc: %s: No such file", missing);
	Result result = {0};

	run_tool(mkdir_p, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_true(g_file_test(dir, G_FILE_TEST_IS_DIR));
	result_clear(&result);

	/* a non-empty directory without -r: the server's error, exit 1 */
	run_tool(rm, NULL, &result);
	g_assert_cmpint(result.status, ==, 1);
	g_assert_true(g_str_has_prefix(result.err, "execrpc: "));
	result_clear(&result);
	run_tool(rm_r, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_false(g_file_test(top, G_FILE_TEST_EXISTS));
	result_clear(&result);

	run_tool(cat_missing, NULL, &result);
	g_assert_cmpint(result.status, ==, 1);
	g_assert_true(g_str_has_prefix(result.err, expected));
	result_clear(&result);
	run_tool(rm_f, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	result_clear(&result);

	run_tool(bad, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	g_assert_nonnull(strstr(result.err, "unknown or missing fs command"));
	result_clear(&result);
	run_tool(extra, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	result_clear(&result);
}

static void
test_info_status(Fixture *fx, gconstpointer user_data)
{
	const gchar *info[] = {"--url", url(fx), "info", NULL};
	const gchar *json[] = {"--url", url(fx), "--json", "info", NULL};
	const gchar *status[] = {"--url", url(fx), "status", NULL};
	const gchar *down[] = {"--url", "ws://127.0.0.1:1", "status", NULL};
	const gchar *none[] = {"info", NULL};
	const gchar *unknown[] = {"--url", url(fx), "frobnicate", NULL};
	g_autoptr(JsonNode) node = NULL;
	Result result = {0};

	run_tool(info, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_nonnull(strstr(result.out, "Executor version: 0.171.0\n"));
	result_clear(&result);
	run_tool(json, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	node = esd_test_json_parse(result.out);
	g_assert_cmpstr(esd_test_json_get_string(node, "executorVersion"), ==, "0.171.0");
	result_clear(&result);
	run_tool(status, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_true(g_str_has_suffix(result.out, ": ready\n"));
	result_clear(&result);
	run_tool(down, NULL, &result);
	g_assert_cmpint(result.status, ==, 1);
	g_assert_nonnull(strstr(result.err, "cannot connect"));
	result_clear(&result);
	/* without a config, the default is the local environment: a private daemon */
	run_tool(none, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_nonnull(strstr(result.out, "Environment: stdio\n"));
	result_clear(&result);
	run_tool(unknown, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	g_assert_nonnull(strstr(result.err, "unknown command frobnicate"));
	result_clear(&result);
}

static void
test_config(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *path = g_build_filename(fx->tmpdir, "other.toml", NULL);
	g_autofree gchar *config =
	    g_strdup_printf("default = \"d\"\n[[environments]]\nid = \"d\"\nurl = \"%s\"\n",
			    url(fx));
	g_autofree gchar *listing = g_strdup_printf("d*\t%s\tidle\n", url(fx));
	const gchar *status[] = {"--config", path, "status", NULL};
	const gchar *named[] = {"--config", path, "--env", "d", "run", "--", "true", NULL};
	const gchar *unknown[] = {"--config", path, "--env", "nope", "status", NULL};
	const gchar *envs[] = {"--config", path, "envs", NULL};
	const gchar *both[] = {"--url", url(fx), "--env", "d", "status", NULL};
	const gchar *missing[] = {"--config", "/nonexistent.toml", "status", NULL};
	Result result = {0};

	g_assert_true(g_file_set_contents(path, config, -1, NULL));
	run_tool(status, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_true(g_str_has_prefix(result.out, url(fx)));
	result_clear(&result);
	run_tool(named, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	result_clear(&result);
	run_tool(unknown, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	g_assert_nonnull(strstr(result.err, "unknown environment nope"));
	result_clear(&result);
	run_tool(envs, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_true(g_str_has_prefix(result.out, listing));
	g_assert_nonnull(strstr(result.out, "\nlocal\tstdio\tidle\n"));
	result_clear(&result);
	run_tool(both, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	result_clear(&result);
	run_tool(missing, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	g_assert_nonnull(strstr(result.err, "/nonexistent.toml"));
	result_clear(&result);
}

/* a Codex-style $CODEX_HOME/environments.toml, without --config */
static void
test_codex_home(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *path = g_build_filename(fx->tmpdir, "environments.toml", NULL);
	g_autofree gchar *config = g_strdup_printf("default = \"devbox\"\ninclude_local = false\n"
						   "[[environments]]\nid = \"devbox\"\n"
						   "url = \"%s\"\nconnect_timeout_sec = 12.0\n"
						   "initialize_timeout_sec = 34.0\n",
						   url(fx));
	g_autofree gchar *listing = g_strdup_printf("devbox*\t%s\tidle\n", url(fx));
	g_autofree gchar *saved = g_strdup(g_getenv("CODEX_HOME"));
	const gchar *status[] = {"status", NULL};
	const gchar *envs[] = {"envs", NULL};
	Result result = {0};

	g_assert_true(g_file_set_contents(path, config, -1, NULL));
	g_setenv("CODEX_HOME", fx->tmpdir, TRUE);
	run_tool(status, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_true(g_str_has_prefix(result.out, url(fx)));
	result_clear(&result);
	run_tool(envs, NULL, &result);
	g_assert_cmpint(result.status, ==, 0);
	g_assert_cmpstr(result.out, ==, listing);
	result_clear(&result);
	/* a config Codex would refuse is refused */
	g_assert_true(g_file_set_contents(path, "surprise = 1\n", -1, NULL));
	run_tool(status, NULL, &result);
	g_assert_cmpint(result.status, ==, 2);
	g_assert_nonnull(strstr(result.err, "unknown field `surprise`"));
	result_clear(&result);
	g_setenv("CODEX_HOME", saved, TRUE);
}

static void
test_token(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("execrpc-token-XXXXXX", &error);
	g_autofree gchar *token = g_build_filename(dir, "token", NULL);
	g_autofree gchar *wrong = g_build_filename(dir, "wrong", NULL);
	const gchar *daemon_args[] = {"--ws-auth",
				      "capability-token",
				      "--ws-token-file",
				      token,
				      NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	Result result = {0};

	g_assert_true(g_file_set_contents(token, "s3cret-token-value\n", -1, NULL));
	g_assert_true(g_file_set_contents(wrong, "other", -1, NULL));
	daemon = esd_test_daemon_new_ws(daemon_args);
	{
		const gchar *without[] = {"--url", esd_test_daemon_get_url(daemon), "status", NULL};
		const gchar *with[] = {"--url",
				       esd_test_daemon_get_url(daemon),
				       "--token-file",
				       token,
				       "status",
				       NULL};
		const gchar *bad[] = {"--url",
				      esd_test_daemon_get_url(daemon),
				      "--token-file",
				      wrong,
				      "status",
				      NULL};

		run_tool(without, NULL, &result);
		g_assert_cmpint(result.status, ==, 1);
		g_assert_nonnull(strstr(result.err, "HTTP 401: missing websocket bearer token"));
		result_clear(&result);
		run_tool(with, NULL, &result);
		g_assert_cmpint(result.status, ==, 0);
		result_clear(&result);
		run_tool(bad, NULL, &result);
		g_assert_cmpint(result.status, ==, 1);
		g_assert_nonnull(strstr(result.err, "invalid websocket bearer token"));
		g_assert_null(strstr(result.err, "other"));
		result_clear(&result);
	}
	g_unlink(token);
	g_unlink(wrong);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_autofree gchar *empty_home = g_dir_make_tmp("execrpc-codex-home-XXXXXX", NULL);
	gint rc;

	erpc_test_init(&argc, &argv);
	g_test_add("/execserverd/cli/run",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_run,
		   fixture_teardown);
	g_test_add("/execserverd/cli/run-errors",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_run_errors,
		   fixture_teardown);
	g_test_add("/execserverd/cli/run-tty",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_run_tty,
		   fixture_teardown);
	g_test_add("/execserverd/cli/run-interrupt",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_run_interrupt,
		   fixture_teardown);
	g_test_add("/execserverd/cli/fs-round-trip",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_fs_round_trip,
		   fixture_teardown);
	g_test_add("/execserverd/cli/fs-commands",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_fs_commands,
		   fixture_teardown);
	g_test_add("/execserverd/cli/info-status",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_info_status,
		   fixture_teardown);
	g_test_add("/execserverd/cli/config",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_config,
		   fixture_teardown);
	g_test_add("/execserverd/cli/codex-home",
		   Fixture,
		   NULL,
		   fixture_setup,
		   test_codex_home,
		   fixture_teardown);
	g_test_add_func("/execserverd/cli/token", test_token);
	/* not the user's own ~/.codex */
	g_setenv("CODEX_HOME", empty_home, TRUE);
	g_unsetenv("CODEX_EXEC_SERVER_URL");
	rc = g_test_run();
	g_rmdir(empty_home);
	return rc;
}
