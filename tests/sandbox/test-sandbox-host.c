/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "erpc-call-private.h"
#include "erpc-context-private.h"
#include "erpc-sandbox-private.h"
#include "esd-landlock.h"
#include "esd-mock-transport.h"
#include "esd-sandbox-host.h"

/*
 * The sandbox service as a plugin sees it: a context holding the daemon's
 * implementation (server/esd-sandbox-host.c), used through the public API
 * of erpc-sandbox.h only. Policies parse with the daemon's rules and
 * messages, errors become the protocol's wire errors, and commands run
 * in bwrap with the descriptors and files they are given. The spawning
 * cases skip when bwrap cannot make a user namespace here.
 */

#define RESTRICTED(entries, extra)                                                                 \
	"{'permissions':{'type':'managed','file_system':{'type':'restricted','entries':[" entries  \
	"]},'network':'restricted'},'windowsSandboxLevel':'disabled'" extra "}"
#define ROOT_READ "{'path':{'type':'special','value':{'kind':'root'}},'access':'read'}"

#include "policy-bad-cases.h"

typedef struct {
	ErpcContext *context;
	ErpcSandbox *sandbox; /* as a plugin reaches it: borrowed from the context */
	gchar *tmp;
} Fx;

static void
fx_setup(Fx *fx, gconstpointer data)
{
	g_autoptr(ErpcSandbox) host = esd_sandbox_host_new();
	g_autoptr(GError) error = NULL;

	fx->context = erpc_context_new();
	erpc_context_set_sandbox(fx->context, host);
	fx->sandbox = erpc_context_get_sandbox(fx->context);
	g_assert_true(fx->sandbox == host);
	fx->tmp = g_dir_make_tmp("test-sandbox-host-XXXXXX", &error);
	g_assert_no_error(error);
}

static void
fx_teardown(Fx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->tmp);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->tmp);
	g_object_unref(fx->context);
}

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

static ErpcSandboxPolicy *
fx_parse(Fx *fx, const gchar *single_quoted, GError **error)
{
	g_autoptr(JsonNode) node = NULL;
	JsonObject *obj = test_json(single_quoted, &node);
	return erpc_sandbox_parse_policy(fx->sandbox, obj, "/srv/cwd", error);
}

/* what each profile means to a plugin: isolation, file system, network, access */
static void
test_policy(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) disabled = NULL;
	g_autoptr(ErpcSandboxPolicy) restricted = NULL;
	g_autoptr(ErpcSandboxPolicy) network_only = NULL;

	disabled = fx_parse(fx,
			    "{'permissions':{'type':'disabled'},'windowsSandboxLevel':'disabled'}",
			    &error);
	g_assert_no_error(error);
	g_assert_false(erpc_sandbox_policy_is_isolated(disabled));
	g_assert_false(erpc_sandbox_policy_is_file_system_restricted(disabled));
	g_assert_cmpint(erpc_sandbox_policy_get_network(disabled),
			==,
			ERPC_SANDBOX_NETWORK_ENABLED);
	g_assert_cmpint(erpc_sandbox_policy_get_access(disabled, "/etc"),
			==,
			ERPC_SANDBOX_ACCESS_WRITE);

	restricted =
	    fx_parse(fx,
		     RESTRICTED(ROOT_READ ",{'path':{'type':'path','path':'file:///srv/cwd/w'},"
					  "'access':'write'},"
					  "{'path':{'type':'path','path':'file:///srv/cwd/w/"
					  "secret'},'access':'deny'}",
				""),
		     &error);
	g_assert_no_error(error);
	g_assert_true(erpc_sandbox_policy_is_isolated(restricted));
	g_assert_true(erpc_sandbox_policy_is_file_system_restricted(restricted));
	g_assert_cmpint(erpc_sandbox_policy_get_network(restricted),
			==,
			ERPC_SANDBOX_NETWORK_RESTRICTED);
	g_assert_cmpint(erpc_sandbox_policy_get_access(restricted, "/usr/bin"),
			==,
			ERPC_SANDBOX_ACCESS_READ);
	g_assert_cmpint(erpc_sandbox_policy_get_access(restricted, "/srv/cwd/w/x"),
			==,
			ERPC_SANDBOX_ACCESS_WRITE);
	g_assert_cmpint(erpc_sandbox_policy_get_access(restricted, "/srv/cwd/w/secret/k"),
			==,
			ERPC_SANDBOX_ACCESS_DENY);

	/* isolated for its network, while file system work runs directly */
	network_only = fx_parse(fx,
				"{'permissions':{'type':'managed','file_system':{'type':"
				"'unrestricted'},'network':'restricted'},"
				"'windowsSandboxLevel':'disabled'}",
				&error);
	g_assert_no_error(error);
	g_assert_true(erpc_sandbox_policy_is_isolated(network_only));
	g_assert_false(erpc_sandbox_policy_is_file_system_restricted(network_only));
}

/* the refusals of the daemon's parser, with its codes and exact messages */
static void
test_bad_cases(Fx *fx, gconstpointer data)
{
	const BadCase *tables[] = {bad_uri_cases, malformed_cases};
	const gsize sizes[] = {G_N_ELEMENTS(bad_uri_cases), G_N_ELEMENTS(malformed_cases)};

	for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
		for (gsize i = 0; i < sizes[t]; i++) {
			const BadCase *bad = &tables[t][i];
			g_autoptr(GError) error = NULL;
			g_autoptr(ErpcSandboxPolicy) policy = fx_parse(fx, bad->json, &error);

			g_assert_null(policy);
			g_assert_error(error, ERPC_ERROR, bad->code);
			g_assert_cmpstr(error->message, ==, bad->message);
		}
	}
}

/* a well-formed sandbox this executor cannot provide */
static void
test_unavailable(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) mxc = NULL;

	mxc =
	    fx_parse(fx, "{'permissions':{'type':'disabled'},'windowsSandboxLevel':'mxc'}", &error);
	g_assert_null(mxc);
	g_assert_error(error, ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_UNAVAILABLE);
}

/* the one answer a call gets for an error, as the client reads it */
static JsonNode *
answer_error(const GError *error)
{
	g_autoptr(EsdMockTransport) transport = esd_mock_transport_new();
	g_autoptr(ErpcConnection) connection =
	    erpc_connection_new(ERPC_TRANSPORT(transport), 1 << 20, 64);
	g_autoptr(GBytes) frame =
	    g_bytes_new_static("{\"id\":7,\"method\":\"x/y\",\"params\":{}}",
			       strlen("{\"id\":7,\"method\":\"x/y\",\"params\":{}}"));
	g_autoptr(GError) parse_error = NULL;
	g_autoptr(ErpcMessage) message = erpc_message_parse_bytes(frame, 1 << 20, 64, &parse_error);
	g_autoptr(ErpcCall) call = NULL;
	JsonNode *answer;

	g_assert_no_error(parse_error);
	call = erpc_call_new(connection, message);
	erpc_call_return_sandbox_error(call, error);
	g_assert_true(erpc_call_is_finished(call));
	answer = json_from_string(esd_mock_transport_get_last(transport), &parse_error);
	g_assert_no_error(parse_error);
	return answer;
}

static void
assert_answer(JsonNode *answer, gint64 code, const gchar *message, const gchar *kind)
{
	JsonObject *error = json_object_get_object_member(json_node_get_object(answer), "error");
	JsonObject *data;

	g_assert_cmpint(json_object_get_int_member(error, "code"), ==, code);
	g_assert_cmpstr(json_object_get_string_member(error, "message"), ==, message);
	if (kind == NULL) {
		g_assert_false(json_object_has_member(error, "data"));
		return;
	}
	data = json_object_get_object_member(error, "data");
	g_assert_nonnull(data);
	g_assert_cmpuint(json_object_get_size(data), ==, 1);
	g_assert_cmpstr(json_object_get_string_member(data, "kind"), ==, kind);
}

/* UNAVAILABLE is -32602 sandboxUnavailable, PREPARATION -32603 sandboxPreparation */
static void
test_wire_errors(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) unavailable =
	    g_error_new_literal(ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_UNAVAILABLE, "no bwrap");
	g_autoptr(GError) preparation =
	    g_error_new_literal(ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_PREPARATION, "no filter");
	g_autoptr(GError) invalid =
	    g_error_new_literal(ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "bad sandbox");
	g_autoptr(GError) mxc = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	g_autoptr(JsonNode) a = answer_error(unavailable);
	g_autoptr(JsonNode) b = answer_error(preparation);
	g_autoptr(JsonNode) c = answer_error(invalid);
	g_autoptr(JsonNode) d = NULL;

	assert_answer(a, -32602, "no bwrap", "sandboxUnavailable");
	assert_answer(b, -32603, "no filter", "sandboxPreparation");
	assert_answer(c, -32602, "bad sandbox", NULL);

	/* what the parser refuses goes through the same mapping */
	policy =
	    fx_parse(fx, "{'permissions':{'type':'disabled'},'windowsSandboxLevel':'mxc'}", &mxc);
	g_assert_null(policy);
	d = answer_error(mxc);
	assert_answer(d, -32602, mxc->message, "sandboxUnavailable");
}

/* whether bwrap can make the namespaces here */
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

static gchar *
read_all(gint fd)
{
	g_autoptr(GString) out = g_string_new(NULL);
	gchar buf[4096];
	gssize n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		g_assert_cmpint(n, >, 0);
		g_string_append_len(out, buf, n);
	}
	close(fd);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/*
 * A command under a policy that gives fx->tmp for writing but hides
 * fx->tmp/d: it gets its stdin, stdout, an extra descriptor at 5, its
 * environment and cwd; the file it was given read-only cannot be changed
 * though its directory is writable, and the hidden one cannot be read.
 */
static void
test_spawn(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	g_autoptr(ErpcSandboxCommand) command = NULL;
	g_autoptr(ErpcSandboxChild) child = NULL;
	g_autofree gchar *given = g_build_filename(fx->tmp, "given", NULL);
	g_autofree gchar *dir = g_build_filename(fx->tmp, "d", NULL);
	g_autofree gchar *hidden = g_build_filename(fx->tmp, "d", "hidden", NULL);
	g_autofree gchar *other = g_build_filename(fx->tmp, "other", NULL);
	g_autofree gchar *script = NULL;
	g_autofree gchar *policy_json = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *extra = NULL;
	g_autofree gchar *written = NULL;
	g_autofree gchar *kept = NULL;
	const gchar *envp[] = {"GREETING=hello", NULL};
	gint in[2], outp[2], extrap[2];
	gint status = -1;

	if (!have_bwrap())
		return;
	g_assert_true(g_file_set_contents(given, "given-data", -1, NULL));
	g_assert_cmpint(g_mkdir(dir, 0700), ==, 0);
	g_assert_true(g_file_set_contents(hidden, "hidden-data", -1, NULL));
	policy_json = g_strdup_printf(
	    RESTRICTED(ROOT_READ ",{'path':{'type':'path','path':'file://%s'},'access':'write'},"
				 "{'path':{'type':'path','path':'file://%s'},'access':'deny'}",
		       ""),
	    fx->tmp,
	    dir);
	policy = fx_parse(fx, policy_json, &error);
	g_assert_no_error(error);
	g_assert_cmpint(erpc_sandbox_policy_get_access(policy, hidden),
			==,
			ERPC_SANDBOX_ACCESS_DENY);

	script = g_strdup_printf("read line; echo \"$line $GREETING $(pwd)\"; cat '%s'; echo; "
				 "echo changed > '%s' 2>/dev/null || echo read-only; "
				 "echo written > '%s'; "
				 "cat '%s' 2>/dev/null || echo hidden; echo extra >&5; exit 3",
				 given,
				 given,
				 other,
				 hidden);
	command = erpc_sandbox_command_new((const gchar *[]){"/bin/sh", "-c", script, NULL});
	erpc_sandbox_command_set_envp(command, envp);
	erpc_sandbox_command_set_cwd(command, "/usr");
	erpc_sandbox_command_add_ro_file(command, given);
	g_assert_true(g_unix_open_pipe(in, FD_CLOEXEC, NULL));
	g_assert_true(g_unix_open_pipe(outp, FD_CLOEXEC, NULL));
	g_assert_true(g_unix_open_pipe(extrap, FD_CLOEXEC, NULL));
	erpc_sandbox_command_take_fd(command, in[0], 0);
	erpc_sandbox_command_take_fd(command, outp[1], 1);
	erpc_sandbox_command_take_fd(command, extrap[1], 5);
	child = erpc_sandbox_spawn(fx->sandbox, policy, command, &error);
	g_assert_no_error(error);
	g_assert_nonnull(child);
	g_assert_cmpint(erpc_sandbox_child_get_pid(child), >, 0);
	/* the command's ends are closed here: the reads below see its end */
	g_assert_cmpint(write(in[1], "line-in\n", 8), ==, 8);
	close(in[1]);
	out = read_all(outp[0]);
	extra = read_all(extrap[0]);
	g_assert_true(erpc_sandbox_child_wait(child, NULL, &status, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(out, ==, "line-in hello /usr\ngiven-data\nread-only\nhidden\n");
	g_assert_true(g_file_get_contents(given, &kept, NULL, NULL));
	g_assert_cmpstr(kept, ==, "given-data");
	g_assert_true(g_file_get_contents(other, &written, NULL, NULL));
	g_assert_cmpstr(written, ==, "written\n");
	g_assert_cmpstr(extra, ==, "extra\n");
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 3);
}

static void
run_done_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	GAsyncResult **out = user_data;
	*out = g_object_ref(res);
}

/* run_async: the exit status, and cancellation kills the command */
static void
test_run_async(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	g_autoptr(ErpcSandboxCommand) quick = NULL;
	g_autoptr(ErpcSandboxCommand) slow = NULL;
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GAsyncResult) res = NULL;
	gint status = -1;
	gint64 started;

	if (!have_bwrap())
		return;
	policy = fx_parse(fx, RESTRICTED(ROOT_READ, ""), &error);
	g_assert_no_error(error);
	quick = erpc_sandbox_command_new((const gchar *[]){"/bin/sh", "-c", "exit 7", NULL});
	erpc_sandbox_run_async(fx->sandbox, policy, quick, NULL, run_done_cb, &res);
	while (res == NULL)
		g_main_context_iteration(NULL, TRUE);
	g_assert_true(erpc_sandbox_run_finish(fx->sandbox, res, &status, &error));
	g_assert_no_error(error);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 7);
	g_clear_object(&res);

	slow = erpc_sandbox_command_new((const gchar *[]){"/bin/sleep", "30", NULL});
	started = g_get_monotonic_time();
	erpc_sandbox_run_async(fx->sandbox, policy, slow, cancellable, run_done_cb, &res);
	g_usleep(200 * 1000);
	g_cancellable_cancel(cancellable);
	while (res == NULL)
		g_main_context_iteration(NULL, TRUE);
	g_assert_false(erpc_sandbox_run_finish(fx->sandbox, res, &status, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_cmpint(g_get_monotonic_time() - started, <, 10 * G_USEC_PER_SEC);
}

/* a policy without isolation has no sandbox to run in: refused, nothing runs */
static void
test_spawn_unisolated(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy =
	    fx_parse(fx,
		     "{'permissions':{'type':'disabled'},'windowsSandboxLevel':'disabled'}",
		     &error);
	g_autoptr(ErpcSandboxCommand) command =
	    erpc_sandbox_command_new((const gchar *[]){"/bin/true", NULL});
	g_autoptr(ErpcSandboxChild) child = NULL;

	g_assert_no_error(error);
	child = erpc_sandbox_spawn(fx->sandbox, policy, command, &error);
	g_assert_null(child);
	g_assert_error(error, ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_PREPARATION);
}

/*
 * A command sharing the host's network under a restricted file system is
 * confined as process/start's are: it enters the daemon's Landlock ruleset,
 * so an abstract socket of the host refuses it.
 */
static void
test_spawn_landlock(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	g_autoptr(ErpcSandboxCommand) command = NULL;
	g_autoptr(ErpcSandboxChild) child = NULL;
	g_autofree gchar *name = g_strdup_printf("esd-test-host-%d", (gint)getpid());
	g_autofree gchar *out = NULL;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	const gchar *script = "import socket, sys\n"
			      "s = socket.socket(socket.AF_UNIX)\n"
			      "try:\n"
			      "    s.connect('\\0' + sys.argv[1])\n"
			      "    print('connected')\n"
			      "except PermissionError:\n"
			      "    print('EPERM')\n";
	gint outp[2];
	gint status = -1;
	gint listener;

	if (!have_bwrap())
		return;
	esd_landlock_hide_abstract_sockets();
	if (esd_landlock_get_ruleset(&error) < 0) {
		g_test_skip(error != NULL ? error->message : "no Landlock ruleset");
		esd_landlock_reset();
		return;
	}
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	g_assert_cmpint(listener, >=, 0);
	memcpy(addr.sun_path + 1, name, strlen(name));
	g_assert_cmpint(bind(listener,
			     (struct sockaddr *)&addr,
			     offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name)),
			==,
			0);
	g_assert_cmpint(listen(listener, 4), ==, 0);

	policy = fx_parse(fx,
			  "{'permissions':{'type':'managed','file_system':{'type':'restricted',"
			  "'entries':[" ROOT_READ "]},'network':'enabled'},"
			  "'windowsSandboxLevel':'disabled'}",
			  &error);
	g_assert_no_error(error);
	command = erpc_sandbox_command_new(
	    (const gchar *[]){"/usr/bin/python3", "-c", script, name, NULL});
	g_assert_true(g_unix_open_pipe(outp, FD_CLOEXEC, NULL));
	erpc_sandbox_command_take_fd(command, outp[1], 1);
	child = erpc_sandbox_spawn(fx->sandbox, policy, command, &error);
	g_assert_no_error(error);
	out = read_all(outp[0]);
	g_assert_true(erpc_sandbox_child_wait(child, NULL, &status, &error));
	g_assert_no_error(error);
	close(listener);
	esd_landlock_reset();
	g_assert_cmpstr(out, ==, "EPERM\n");
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/sandbox-host/policy", Fx, NULL, fx_setup, test_policy, fx_teardown);
	g_test_add("/sandbox-host/bad-cases", Fx, NULL, fx_setup, test_bad_cases, fx_teardown);
	g_test_add("/sandbox-host/unavailable", Fx, NULL, fx_setup, test_unavailable, fx_teardown);
	g_test_add("/sandbox-host/wire-errors", Fx, NULL, fx_setup, test_wire_errors, fx_teardown);
	g_test_add("/sandbox-host/spawn", Fx, NULL, fx_setup, test_spawn, fx_teardown);
	g_test_add("/sandbox-host/run-async", Fx, NULL, fx_setup, test_run_async, fx_teardown);
	g_test_add("/sandbox-host/spawn-unisolated",
		   Fx,
		   NULL,
		   fx_setup,
		   test_spawn_unisolated,
		   fx_teardown);
	g_test_add("/sandbox-host/spawn-landlock",
		   Fx,
		   NULL,
		   fx_setup,
		   test_spawn_landlock,
		   fx_teardown);
	return g_test_run();
}
