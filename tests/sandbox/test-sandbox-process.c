/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-test-socket.h"
#include "fs-harness.h"

/*
 * Sandboxed process/start against the real daemon, over WebSocket and
 * stdio: every guarantee is checked from inside the sandbox (what
 * /proc/self says, what a denied call does) or on the host afterwards.
 * Cases skip with the reason when bwrap cannot create a user namespace.
 */

typedef struct {
	gint exit_code;
	gboolean sandbox_denied;
	GString *output; /* stdout and stderr, in order */
} Run;

static void
run_clear(Run *run)
{
	if (run->output != NULL)
		g_string_free(run->output, TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Run, run_clear)

static const gchar *skip_reason = NULL;

/* whether bwrap can make the namespaces here; probed once per case process */
static gboolean
have_bwrap(void)
{
	const gchar *argv[] = {"bwrap",
			       "--unshare-user",
			       "--unshare-pid",
			       "--ro-bind",
			       "/",
			       "/",
			       "--proc",
			       "/proc",
			       "--dev",
			       "/dev",
			       "true",
			       NULL};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *err = NULL;
	gint status = 0;

	if (!g_spawn_sync(NULL,
			  (gchar **)argv,
			  NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
			  NULL,
			  NULL,
			  NULL,
			  &err,
			  &status,
			  &error)) {
		skip_reason = "bwrap is not installed";
		return FALSE;
	}
	if (!g_spawn_check_wait_status(status, NULL)) {
		skip_reason = "bwrap cannot create a user namespace here";
		g_printerr("bwrap: %s\n", err);
		return FALSE;
	}
	return TRUE;
}

#define REQUIRE_BWRAP()                                                                            \
	G_STMT_START                                                                               \
	{                                                                                          \
		if (!have_bwrap()) {                                                               \
			g_test_skip(skip_reason);                                                  \
			return;                                                                    \
		}                                                                                  \
	}                                                                                          \
	G_STMT_END

/* a managed profile: root read-only, @write writable, @deny hidden (either may be NULL) */
static gchar *
policy(Fx *fx, const gchar *write, const gchar *deny, const gchar *network)
{
	GString *out =
	    g_string_new("{\"permissions\":{\"type\":\"managed\",\"file_system\":{"
			 "\"type\":\"restricted\",\"entries\":[{\"path\":{\"type\":"
			 "\"special\",\"value\":{\"kind\":\"root\"}},\"access\":\"read\"}");
	if (write != NULL)
		g_string_append_printf(out,
				       ",{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"
				       "\"access\":\"write\"}",
				       fx_path(fx, write));
	if (deny != NULL)
		g_string_append_printf(out,
				       ",{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"
				       "\"access\":\"deny\"}",
				       fx_path(fx, deny));
	g_string_append_printf(out,
			       "]},\"network\":\"%s\"},\"windowsSandboxLevel\":\"disabled\"}",
			       network);
	return g_string_free(out, FALSE);
}

/* a request sent as is (no template expansion): its result */
static JsonNode *
call_raw(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	guint id = conn_request(fx, conn, method, params);
	JsonNode *reply = conn_wait_reply(fx, conn, id, WAIT_MS * 4);
	JsonNode *result = esd_test_json_get(reply, "result");

	if (result == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("%s failed: %s", method, text);
	}
	return result;
}

/* a request sent as is: its whole reply */
static JsonNode *
call_raw_reply(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	guint id = conn_request(fx, conn, method, params);
	return conn_wait_reply(fx, conn, id, WAIT_MS * 4);
}

/* takes the next notification of process @id, receiving if none is queued */
static JsonNode *
next_event(Fx *fx, Conn *conn, const gchar *id)
{
	gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;

	for (;;) {
		for (GList *l = conn->notifications.head; l != NULL; l = l->next) {
			JsonNode *msg = l->data;
			const gchar *pid = esd_test_json_get_string(msg, "params.processId");
			if (g_strcmp0(pid, id) == 0) {
				g_queue_delete_link(&conn->notifications, l);
				return msg;
			}
		}
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_queue_push_tail(&conn->notifications, conn_receive(fx, conn, 20000));
	}
}

/* starts @script under @sandbox and waits until it is closed */
static void
run_script(Fx *fx,
	   Conn *conn,
	   const gchar *id,
	   const gchar *script,
	   const gchar *sandbox,
	   const gchar *env,
	   Run *run)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) argv = NULL;
	g_autofree gchar *argv_text = NULL;
	g_autofree gchar *params = NULL;
	JsonNode *result;

	json_builder_begin_array(builder);
	json_builder_add_string_value(builder, "/bin/sh");
	json_builder_add_string_value(builder, "-c");
	json_builder_add_string_value(builder, script);
	json_builder_end_array(builder);
	argv = json_builder_get_root(builder);
	argv_text = json_to_string(argv, FALSE);
	params = g_strdup_printf("{\"processId\":\"%s\",\"argv\":%s,\"cwd\":\"file://%s\","
				 "\"env\":%s,\"tty\":false,\"sandbox\":%s}",
				 id,
				 argv_text,
				 fx->dir,
				 env != NULL ? env : "{\"PATH\":\"/usr/bin:/bin\"}",
				 sandbox);
	result = call_raw(fx, conn, "process/start", params);
	g_assert_cmpstr(esd_test_json_get_string(result, "sandboxType"), ==, "linuxSeccomp");
	run->output = g_string_new(NULL);
	for (;;) {
		JsonNode *event = next_event(fx, conn, id);
		const gchar *method = esd_test_json_get_string(event, "method");
		if (g_strcmp0(method, "process/output") == 0) {
			gsize len = 0;
			g_autofree guchar *chunk =
			    g_base64_decode(esd_test_json_get_string(event, "params.chunk"), &len);
			g_string_append_len(run->output, (const gchar *)chunk, (gssize)len);
		} else if (g_strcmp0(method, "process/exited") == 0) {
			JsonNode *denied = esd_test_json_get(event, "params.sandboxDenied");
			run->exit_code = (gint)esd_test_json_get_int(event, "params.exitCode");
			run->sandbox_denied = json_node_get_boolean(denied);
		} else if (g_strcmp0(method, "process/closed") == 0) {
			break;
		}
	}
	g_test_message("%s: exit %d%s, output:\n%s",
		       id,
		       run->exit_code,
		       run->sandbox_denied ? " (sandboxDenied)" : "",
		       run->output->str);
}

static void
assert_output_has(Run *run, const gchar *text)
{
	if (strstr(run->output->str, text) == NULL)
		g_error("expected \"%s\" in the output:\n%s", text, run->output->str);
}

static void
assert_output_lacks(Run *run, const gchar *text)
{
	if (strstr(run->output->str, text) != NULL)
		g_error("did not expect \"%s\" in the output:\n%s", text, run->output->str);
}

/* namespaces, credentials, capabilities, no_new_privs, seccomp */
static void
test_isolation(Fx *fx)
{
	const gchar *kinds[] = {"user", "mnt", "pid", "ipc", "uts", "net"};
	g_autofree gchar *sandbox = policy(fx, NULL, NULL, "restricted");
	g_auto(Run) run = {0};
	g_autofree gchar *ids = g_strdup_printf("uid=%u gid=%u", getuid(), getgid());

	REQUIRE_BWRAP();
	run_script(fx,
		   fx->conn,
		   "iso",
		   "echo uid=$(id -u) gid=$(id -g); grep -E '^(Cap|NoNewPrivs|Seccomp:)' "
		   "/proc/self/status; for n in user mnt pid ipc uts net; do echo ns $n "
		   "$(readlink /proc/self/ns/$n); done; echo procs $(ls /proc | grep -c '^[0-9]')",
		   sandbox,
		   NULL,
		   &run);
	g_assert_cmpint(run.exit_code, ==, 0);
	assert_output_has(&run, ids);
	assert_output_has(&run, "NoNewPrivs:\t1\n");
	assert_output_has(&run, "Seccomp:\t2\n");
	for (guint i = 0; i < 5; i++) {
		const gchar *cap[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
		g_autofree gchar *line = g_strdup_printf("%s:\t0000000000000000\n", cap[i]);
		assert_output_has(&run, line);
	}
	for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_autofree gchar *self_path = g_strdup_printf("/proc/self/ns/%s", kinds[i]);
		g_autofree gchar *ours = g_file_read_link(self_path, NULL);
		g_autofree gchar *line = g_strdup_printf("ns %s %s\n", kinds[i], ours);
		g_assert_nonnull(ours);
		/* every namespace is the sandbox's own */
		assert_output_lacks(&run, line);
	}
	/* its own /proc: only the few processes of the sandbox */
	{
		const gchar *line = strstr(run.output->str, "procs ");
		guint n = 0;
		g_assert_nonnull(line);
		g_assert_cmpint(sscanf(line, "procs %u", &n), ==, 1);
		g_assert_cmpuint(n, >, 0);
		g_assert_cmpuint(n, <, 10);
	}
}

/* allowed writes land; denied reads and writes fail and change nothing */
static void
test_files(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, "ws", "secret", "restricted");
	g_auto(Run) run = {0};
	g_autofree gchar *script = NULL;

	REQUIRE_BWRAP();
	disk_mkdir(fx, "ws");
	disk_mkdir(fx, "secret");
	disk_write(fx, "secret/key", "SECRET", -1);
	disk_write(fx, "outside", "old", -1);
	script = g_strdup_printf("echo new > '%s'; echo rc=$?; echo x > '%s'; echo rc=$?; "
				 "cat '%s'; echo rc=$?; ls '%s'; echo rc=$?; exit 3",
				 fx_path(fx, "ws/made"),
				 fx_path(fx, "outside"),
				 fx_path(fx, "secret/key"),
				 fx_path(fx, "secret"));
	run_script(fx, fx->conn, "files", script, sandbox, NULL, &run);
	g_assert_cmpint(run.exit_code, ==, 3);
	/* failed, and the output names the refusals */
	g_assert_true(run.sandbox_denied);
	assert_output_lacks(&run, "SECRET");
	assert_output_has(&run, "Read-only file system");
	assert_output_has(&run, "Permission denied");
	disk_assert_content(fx, "ws/made", "new\n", -1);
	disk_assert_content(fx, "outside", "old", -1);
	disk_assert_content(fx, "secret/key", "SECRET", -1);
}

/* /proc/sys and friends stay read-only even for root */
static void
test_proc_readonly(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, NULL, NULL, "enabled");
	g_auto(Run) run = {0};

	REQUIRE_BWRAP();
	run_script(fx,
		   fx->conn,
		   "proc",
		   "for p in /proc/sys/kernel/ns_last_pid /proc/sysrq-trigger /proc/irq /proc/bus "
		   "/proc/sys; do if [ -e $p ] && [ -w $p ]; then echo writable $p; fi; done; "
		   "echo 1 > /proc/sys/kernel/ns_last_pid && echo wrote",
		   sandbox,
		   NULL,
		   &run);
	assert_output_lacks(&run, "writable");
	assert_output_lacks(&run, "wrote");
}

/* the client's environment reaches only the command, never bwrap */
static void
test_environment(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, NULL, NULL, "restricted");
	g_auto(Run) run = {0};
	const gchar *needle = "cannot be preloaded";
	const gchar *first;

	REQUIRE_BWRAP();
	run_script(
	    fx,
	    fx->conn,
	    "env",
	    "echo FOO=$FOO",
	    sandbox,
	    "{\"PATH\":\"/usr/bin:/bin\",\"FOO\":\"bar\",\"LD_PRELOAD\":\"/esd-nonexistent.so\"}",
	    &run);
	g_assert_cmpint(run.exit_code, ==, 0);
	assert_output_has(&run, "FOO=bar\n");
	/* /bin/sh complains once; bwrap (or a helper) would complain too */
	first = strstr(run.output->str, needle);
	g_assert_nonnull(first);
	g_assert_null(strstr(first + strlen(needle), needle));
}

/* restricted network: no connection to a listener on the host's loopback */
static void
test_network(Fx *fx)
{
	g_autoptr(GSocketListener) listener = g_socket_listener_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *restricted = policy(fx, NULL, NULL, "restricted");
	g_autofree gchar *enabled = policy(fx, NULL, NULL, "enabled");
	g_auto(Run) boxed = {0};
	g_auto(Run) open = {0};
	guint16 port;

	REQUIRE_BWRAP();
	if (!g_file_test("/bin/bash", G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("needs bash for /dev/tcp");
		return;
	}
	port = g_socket_listener_add_any_inet_port(listener, NULL, &error);
	g_assert_no_error(error);
	script = g_strdup_printf(
	    "/bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/%u' && echo connected; echo done",
	    port);
	run_script(fx, fx->conn, "net-restricted", script, restricted, NULL, &boxed);
	assert_output_has(&boxed, "done");
	assert_output_lacks(&boxed, "connected");
	run_script(fx, fx->conn, "net-enabled", script, enabled, NULL, &open);
	assert_output_has(&open, "connected");
}

/*
 * Another execserverd on a Unix socket of the host, as socket activation
 * sets one up: a command under a restricted network cannot drive it to
 * start an unsandboxed process, which would write outside every writable
 * root.
 */
static void
test_host_socket(Fx *fx)
{
	g_autofree gchar *sock = g_strdup(fx_path(fx, "target.sock"));
	g_autofree gchar *log = g_strdup(fx_path(fx, "target.log"));
	g_autofree gchar *probe =
	    g_test_build_filename(G_TEST_DIST, "sandbox", "door-probe.py", NULL);
	g_autofree gchar *sandbox = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *baseline = NULL;
	g_autoptr(GSocket) listener = NULL;
	g_autoptr(GSocketAddress) address = NULL;
	g_autoptr(GSubprocess) target = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(Run) run = {0};
	const gchar *args[] = {"--listen", "fd:3", NULL};
	gchar *out = NULL;

	REQUIRE_BWRAP();
	if (!g_file_test("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("needs /usr/bin/python3 for the probe");
		return;
	}
	disk_mkdir(fx, "ws");
	disk_mkdir(fx, "outside");
	listener = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, 0, &error);
	g_assert_no_error(error);
	address = g_unix_socket_address_new(sock);
	g_assert_true(g_socket_bind(listener, address, FALSE, &error));
	g_assert_true(g_socket_listen(listener, &error));
	target = esd_test_spawn_daemon_with_fd(args,
					       g_socket_get_fd(listener),
					       ESD_TEST_FD_PLAIN,
					       NULL,
					       log);
	/* unsandboxed, the probe does start the command: the check below can fail */
	script = g_strdup_printf("/usr/bin/python3 %s drive=%s:%s",
				 probe,
				 sock,
				 fx_path(fx, "outside/baseline"));
	g_assert_true(g_spawn_command_line_sync(script, &out, NULL, NULL, &error));
	g_assert_no_error(error);
	g_test_message("unsandboxed: %s", out);
	g_free(out);
	g_assert_true(disk_exists(fx, "outside/baseline"));
	g_free(script);
	script = g_strdup_printf("/usr/bin/python3 %s drive=%s:%s",
				 probe,
				 sock,
				 fx_path(fx, "outside/pwned"));
	sandbox = policy(fx, "ws", NULL, "restricted");
	run_script(fx, fx->conn, "host-socket", script, sandbox, NULL, &run);
	baseline = g_strdup_printf("drive %s:%s: EPERM", sock, fx_path(fx, "outside/pwned"));
	assert_output_has(&run, baseline);
	disk_assert_missing(fx, "outside/pwned");
	g_subprocess_send_signal(target, SIGTERM);
	g_assert_cmpint(esd_test_subprocess_wait(target, 5000), ==, 0);
}

/* the seccomp filter: no new user namespaces, no mounts */
static void
test_seccomp(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, NULL, NULL, "enabled");
	g_auto(Run) run = {0};

	REQUIRE_BWRAP();
	if (!g_file_test("/usr/bin/unshare", G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("needs util-linux unshare");
		return;
	}
	run_script(
	    fx,
	    fx->conn,
	    "seccomp",
	    "unshare -U true && echo userns-allowed; unshare -m true && echo mountns-allowed; "
	    "echo done",
	    sandbox,
	    NULL,
	    &run);
	assert_output_has(&run, "done");
	assert_output_lacks(&run, "userns-allowed");
}

/* a writable root: .git stays read-only, a missing one cannot be planted, and leaves no trace */
static void
test_protected_names(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, "repo", NULL, "restricted");
	g_auto(Run) run = {0};
	g_autofree gchar *script = NULL;
	g_autofree gchar *mounts_before = NULL;
	g_autofree gchar *mounts_after = NULL;

	REQUIRE_BWRAP();
	disk_mkdir(fx, "repo");
	disk_mkdir(fx, "repo/.codex");
	disk_write(fx, "repo/.codex/config.toml", "old", -1);
	g_assert_true(g_file_get_contents("/proc/self/mountinfo", &mounts_before, NULL, NULL));
	script = g_strdup_printf("cd '%s'; mkdir -p .git/hooks && echo planted; echo x > "
				 ".git/config && echo planted; echo x > .codex/config.toml && echo "
				 "planted; echo ok > file; cat file",
				 fx_path(fx, "repo"));
	run_script(fx, fx->conn, "git", script, sandbox, NULL, &run);
	assert_output_lacks(&run, "planted");
	assert_output_has(&run, "ok\n");
	disk_assert_content(fx, "repo/.codex/config.toml", "old", -1);
	/* the mask's mount point was removed once the sandbox exited */
	g_assert_false(g_file_test(fx_path(fx, "repo/.git"), G_FILE_TEST_EXISTS));
	/* nothing was ever mounted here */
	g_assert_true(g_file_get_contents("/proc/self/mountinfo", &mounts_after, NULL, NULL));
	g_assert_cmpstr(mounts_before, ==, mounts_after);
}

/* terminate kills the sandbox with everything in it */
static void
test_terminate(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, NULL, NULL, "restricted");
	g_autofree gchar *marker = g_strdup_printf("esd-sbx-sleep-%d", (gint)getpid());
	g_autofree gchar *script = g_strdup_printf("sleep 1000 & exec -a %s sleep 1001", marker);
	g_autofree gchar *argv = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *pgrep = NULL;
	gint status = 0;
	gint exit_code = -1;

	REQUIRE_BWRAP();
	params = g_strdup_printf("{\"processId\":\"t\",\"argv\":[\"/bin/bash\",\"-c\",\"%s\"],"
				 "\"cwd\":\"file://%s\",\"env\":{\"PATH\":\"/usr/bin:/bin\"},"
				 "\"tty\":false,\"sandbox\":%s}",
				 script,
				 fx->dir,
				 sandbox);
	call_raw(fx, fx->conn, "process/start", params);
	g_usleep(300 * 1000);
	pgrep = g_strdup_printf("pgrep -f %s", marker);
	g_assert_true(g_spawn_command_line_sync(pgrep, NULL, NULL, &status, NULL));
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	conn_ok(fx, fx->conn, "process/terminate", "{'processId':'t'}");
	for (;;) {
		JsonNode *event = next_event(fx, fx->conn, "t");
		const gchar *method = esd_test_json_get_string(event, "method");
		if (g_strcmp0(method, "process/exited") == 0)
			exit_code = (gint)esd_test_json_get_int(event, "params.exitCode");
		if (g_strcmp0(method, "process/closed") == 0)
			break;
	}
	g_assert_cmpint(exit_code, ==, 137);
	g_usleep(200 * 1000);
	g_assert_true(g_spawn_command_line_sync(pgrep, NULL, NULL, &status, NULL));
	g_assert_false(g_spawn_check_wait_status(status, NULL));
}

/* fails closed: without bwrap nothing runs, a plain request still does */
static void
test_fail_closed(Fx *fx)
{
	const gchar *env[] = {"ESD_BWRAP=/nonexistent/bwrap", NULL};
	const gchar *args[] = {"--listen", "stdio", NULL};
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_full(args, env, NULL, FALSE);
	Conn *conn = conn_new(ESD_TEST_PEER(daemon), NULL);
	g_autofree gchar *sandbox = policy(fx, NULL, NULL, "restricted");
	g_autofree gchar *params = NULL;
	JsonNode *reply;

	g_ptr_array_add(fx->extra_conns, conn);
	conn_initialize(fx, conn, NULL);
	params =
	    g_strdup_printf("{\"processId\":\"x\",\"argv\":[\"/bin/sh\",\"-c\",\"touch '%s'\"],"
			    "\"cwd\":\"file://%s\",\"env\":{},\"tty\":false,\"sandbox\":%s}",
			    fx_path(fx, "ran"),
			    fx->dir,
			    sandbox);
	reply = call_raw_reply(fx, conn, "process/start", params);
	g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32602);
	g_assert_cmpstr(esd_test_json_get_string(reply, "error.data.kind"),
			==,
			"sandboxUnavailable");
	g_usleep(200 * 1000);
	g_assert_false(g_file_test(fx_path(fx, "ran"), G_FILE_TEST_EXISTS));
	g_ptr_array_remove(fx->extra_conns, conn);
	esd_test_daemon_send_signal(daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(daemon, 0, 3000);
}

/* the daemon itself inside bwrap (fresh namespaces but the network) still sandboxes */
static void
test_nested(Fx *fx)
{
	const gchar *daemon_path = g_getenv("ESD_TEST_DAEMON");
	g_autofree gchar *wrapper = g_build_filename(fx->dir, "nested-daemon", NULL);
	g_autofree gchar *text = NULL;
	g_autofree gchar *sandbox = policy(fx, "ws", NULL, "restricted");
	g_autofree gchar *params = NULL;
	g_autoptr(EsdTestDaemon) daemon = NULL;
	const gchar *args[] = {"--listen", "stdio", NULL};
	Conn *conn;
	g_auto(Run) run = {0};

	REQUIRE_BWRAP();
	disk_mkdir(fx, "ws");
	text = g_strdup_printf("#!/bin/sh\nexec bwrap --unshare-user --unshare-pid --unshare-ipc "
			       "--unshare-uts --bind / / --dev /dev --proc /proc --die-with-parent "
			       "'%s' \"$@\"\n",
			       daemon_path);
	g_assert_true(g_file_set_contents(wrapper, text, -1, NULL));
	g_assert_cmpint(g_chmod(wrapper, 0755), ==, 0);
	g_setenv("ESD_TEST_DAEMON", wrapper, TRUE);
	daemon = esd_test_daemon_new_full(args, NULL, NULL, FALSE);
	g_setenv("ESD_TEST_DAEMON", daemon_path, TRUE);
	conn = conn_new(ESD_TEST_PEER(daemon), NULL);
	g_ptr_array_add(fx->extra_conns, conn);
	conn_initialize(fx, conn, NULL);
	params = g_strdup_printf("grep Seccomp: /proc/self/status; echo in > '%s'; exit 5",
				 fx_path(fx, "ws/nested"));
	run_script(fx, conn, "nested", params, sandbox, NULL, &run);
	g_assert_cmpint(run.exit_code, ==, 5);
	assert_output_has(&run, "Seccomp:\t2\n");
	disk_assert_content(fx, "ws/nested", "in\n", -1);
	g_ptr_array_remove(fx->extra_conns, conn);
}

/* an fs sandbox ending on the same root leaves a running process's masks alone */
static void
test_shared_masks(Fx *fx)
{
	g_autofree gchar *sandbox = policy(fx, "repo", NULL, "restricted");
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *write = NULL;
	g_autoptr(GString) output = g_string_new(NULL);

	REQUIRE_BWRAP();
	disk_mkdir(fx, "repo");
	script =
	    g_strdup_printf("cd '%s'; sleep 1.5; mkdir -p .git/hooks && echo planted; echo done",
			    fx_path(fx, "repo"));
	{
		g_autoptr(JsonBuilder) builder = json_builder_new();
		g_autoptr(JsonNode) argv = NULL;
		g_autofree gchar *argv_text = NULL;
		json_builder_begin_array(builder);
		json_builder_add_string_value(builder, "/bin/sh");
		json_builder_add_string_value(builder, "-c");
		json_builder_add_string_value(builder, script);
		json_builder_end_array(builder);
		argv = json_builder_get_root(builder);
		argv_text = json_to_string(argv, FALSE);
		params =
		    g_strdup_printf("{\"processId\":\"masks\",\"argv\":%s,\"cwd\":\"file://%s\","
				    "\"env\":{\"PATH\":\"/usr/bin:/bin\"},\"tty\":false,"
				    "\"sandbox\":%s}",
				    argv_text,
				    fx->dir,
				    sandbox);
	}
	call_raw(fx, fx->conn, "process/start", params);
	g_usleep(300 * 1000);
	/* the fs sandbox masks repo/.git too, and ends first */
	write = g_strdup_printf("{\"path\":\"file://%s\",\"dataBase64\":\"QQ==\",\"sandbox\":%s}",
				fx_path(fx, "repo/file"),
				sandbox);
	call_raw(fx, fx->conn, "fs/writeFile", write);
	disk_assert_content(fx, "repo/file", "A", -1);
	for (;;) {
		JsonNode *event = next_event(fx, fx->conn, "masks");
		const gchar *method = esd_test_json_get_string(event, "method");
		if (g_strcmp0(method, "process/output") == 0) {
			gsize len = 0;
			g_autofree guchar *chunk =
			    g_base64_decode(esd_test_json_get_string(event, "params.chunk"), &len);
			g_string_append_len(output, (const gchar *)chunk, (gssize)len);
		} else if (g_strcmp0(method, "process/closed") == 0) {
			break;
		}
	}
	g_assert_nonnull(strstr(output->str, "done"));
	g_assert_null(strstr(output->str, "planted"));
	g_assert_false(g_file_test(fx_path(fx, "repo/.git"), G_FILE_TEST_EXISTS));
}

typedef struct {
	gchar *a;
	gchar *b;
	gint stop;
	guint swaps;
} Flipper;

/* swaps a directory and a symlink to a denied one, as fast as it can */
static gpointer
flipper_thread(gpointer data)
{
	Flipper *flipper = data;

	while (!g_atomic_int_get(&flipper->stop)) {
		if (renameat2(AT_FDCWD, flipper->a, AT_FDCWD, flipper->b, RENAME_EXCHANGE) == 0)
			flipper->swaps++;
	}
	return NULL;
}

/* a writable root that is swapped for a symlink to a denied directory never exposes it */
static void
test_symlink_swap(Fx *fx)
{
	g_autofree gchar *sandbox = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *entries = NULL;
	Flipper flipper = {0};
	GThread *thread;
	guint ran = 0;

	REQUIRE_BWRAP();
	disk_mkdir(fx, "ws");
	disk_mkdir(fx, "ws/flip");
	disk_write(fx, "ws/flip/key", "public", -1);
	disk_mkdir(fx, "secret");
	disk_write(fx, "secret/key", "SECRET", -1);
	g_assert_cmpint(symlink(fx_path(fx, "secret"), fx_path(fx, "ws/alt")), ==, 0);
	entries = g_strdup_printf(
	    "{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
	    "\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},"
	    "\"access\":\"read\"},{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"
	    "\"access\":\"deny\"},{\"path\":{\"type\":\"path\",\"path\":\"file://%s\"},"
	    "\"access\":\"write\"}]},\"network\":\"restricted\"},\"windowsSandboxLevel\":"
	    "\"disabled\"}",
	    fx_path(fx, "secret"),
	    fx_path(fx, "ws/flip"));
	sandbox = g_steal_pointer(&entries);
	script = g_strdup_printf("cat '%s' '%s'; echo x >> '%s'",
				 fx_path(fx, "ws/flip/key"),
				 fx_path(fx, "secret/key"),
				 fx_path(fx, "ws/flip/key"));
	flipper.a = (gchar *)fx_path(fx, "ws/flip");
	flipper.b = (gchar *)fx_path(fx, "ws/alt");
	thread = g_thread_new("flipper", flipper_thread, &flipper);
	for (guint i = 0; i < 40; i++) {
		g_autofree gchar *id = g_strdup_printf("swap%u", i);
		g_auto(Run) run = {0};
		run_script(fx, fx->conn, id, script, sandbox, NULL, &run);
		assert_output_lacks(&run, "SECRET");
		if (strstr(run.output->str, "public") != NULL)
			ran++;
	}
	g_atomic_int_set(&flipper.stop, 1);
	g_thread_join(thread);
	g_test_message("%u swaps, %u of 40 runs saw the public directory", flipper.swaps, ran);
	g_assert_cmpuint(flipper.swaps, >, 0);
	disk_assert_content(fx, "secret/key", "SECRET", -1);
}

static const CaseDef cases[] = {
    {"process/isolation", test_isolation, CASE_NONE},
    {"process/files", test_files, CASE_NONE},
    {"process/proc-readonly", test_proc_readonly, CASE_NONE},
    {"process/environment", test_environment, CASE_NONE},
    {"process/network", test_network, CASE_WS_ONLY},
    {"process/seccomp", test_seccomp, CASE_WS_ONLY},
    {"process/host-socket", test_host_socket, CASE_NONE},
    {"process/protected-names", test_protected_names, CASE_NONE},
    {"process/terminate", test_terminate, CASE_WS_ONLY},
    {"process/fail-closed", test_fail_closed, CASE_WS_ONLY},
    {"process/nested", test_nested, CASE_WS_ONLY},
    {"process/symlink-swap", test_symlink_swap, CASE_WS_ONLY},
    {"process/shared-masks", test_shared_masks, CASE_WS_ONLY},
};

int
main(int argc, char **argv)
{
	return fs_harness_main(argc, argv, cases, G_N_ELEMENTS(cases), "esd-test-sandbox");
}
