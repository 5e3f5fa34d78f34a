/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "esd-test-utils.h"

/*
 * Launch hooks and requests to the client, through the real daemon with the
 * test plugin tests/plugins/launch (member `esdTest`, methods test/ask,
 * test/notify, test/events), over WebSocket and stdio. Resuming needs a
 * second connection, so the detach tests run over WebSocket only.
 */

typedef struct {
	EsdTestDaemon *daemon;
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	gchar *session_id;
	GPtrArray *notes; /* notifications received while waiting for replies */
	guint next_id;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *dir = g_build_filename(g_getenv("ESD_TEST_PLUGINDIR"), "launch", NULL);
	const gchar *args[] = {"--plugins-dir", dir, NULL};

	fx->notes = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	fx->next_id = 100;
	if (g_strcmp0(user_data, "stdio") == 0) {
		fx->daemon = esd_test_daemon_new_stdio(args);
		fx->peer = ESD_TEST_PEER(fx->daemon);
	} else {
		fx->daemon = esd_test_daemon_new_ws(args);
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	}
	fx->session_id = esd_test_peer_handshake(fx->peer);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (fx->client != NULL)
		esd_test_ws_client_close(fx->client);
	g_clear_object(&fx->client);
	if (g_strcmp0(user_data, "stdio") == 0)
		esd_test_daemon_close_stdin(fx->daemon);
	else
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, ESD_TEST_TIMEOUT_MS);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	g_clear_object(&fx->daemon);
	g_ptr_array_unref(fx->notes);
	g_free(fx->session_id);
}

static JsonNode *
fixture_next(Fixture *fx)
{
	JsonNode *msg = esd_test_peer_receive_json(fx->peer);
	if (msg == NULL)
		g_error("the daemon closed the connection");
	return msg;
}

/* the next message with an id (reply or request); notifications are kept */
static JsonNode *
fixture_receive(Fixture *fx)
{
	while (TRUE) {
		JsonNode *msg = fixture_next(fx);
		if (esd_test_json_get(msg, "id") != NULL)
			return msg;
		g_ptr_array_add(fx->notes, msg);
	}
}

static guint
fixture_send_request(Fixture *fx, const gchar *method, const gchar *params)
{
	guint id = fx->next_id++;
	g_autofree gchar *text =
	    g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}", id, method, params);

	esd_test_peer_send_text(fx->peer, text);
	return id;
}

static JsonNode *
fixture_call(Fixture *fx, const gchar *method, const gchar *params)
{
	guint id = fixture_send_request(fx, method, params);
	JsonNode *reply = fixture_receive(fx);

	g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, id);
	return reply;
}

static void
fixture_assert_result(Fixture *fx, const gchar *method, const gchar *params, const gchar *result)
{
	g_autoptr(JsonNode) reply = fixture_call(fx, method, params);
	esd_assert_json_node_eq(esd_test_json_get(reply, "result"), result);
}

static void
fixture_assert_error(Fixture *fx,
		     const gchar *method,
		     const gchar *params,
		     gint64 code,
		     const gchar *pattern)
{
	g_autoptr(JsonNode) reply = fixture_call(fx, method, params);
	g_autofree gchar *id = g_strdup_printf("%u", fx->next_id - 1);
	esd_test_peer_assert_reply_error(reply, id, code, pattern);
}

static gboolean
note_matches(JsonNode *note, const gchar *method, const gchar *process_id)
{
	return g_strcmp0(esd_test_json_get_string(note, "method"), method) == 0 &&
	       (process_id == NULL ||
		g_strcmp0(esd_test_json_get_string(note, "params.processId"), process_id) == 0);
}

/* the notification @method (of @process_id, if given), kept or still to come */
static JsonNode *
fixture_wait_note(Fixture *fx, const gchar *method, const gchar *process_id)
{
	for (guint i = 0; i < fx->notes->len; i++) {
		if (note_matches(g_ptr_array_index(fx->notes, i), method, process_id))
			return g_ptr_array_index(fx->notes, i);
	}
	while (TRUE) {
		JsonNode *msg = fixture_next(fx);
		if (esd_test_json_get(msg, "id") != NULL) {
			g_autofree gchar *text = esd_test_json_to_string(msg);
			g_error("waiting for %s, got %s", method, text);
		}
		g_ptr_array_add(fx->notes, msg);
		if (note_matches(msg, method, process_id))
			return msg;
	}
}

/* everything the process wrote, once it closed */
static gchar *
fixture_output(Fixture *fx, const gchar *process_id)
{
	g_autoptr(GString) out = g_string_new(NULL);

	fixture_wait_note(fx, "process/closed", process_id);
	for (guint i = 0; i < fx->notes->len; i++) {
		JsonNode *note = g_ptr_array_index(fx->notes, i);
		gsize len = 0;
		g_autofree guchar *data = NULL;

		if (!note_matches(note, "process/output", process_id))
			continue;
		data = g_base64_decode(esd_test_json_get_string(note, "params.chunk"), &len);
		g_string_append_len(out, (const gchar *)data, (gssize)len);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static gchar *
start_params(const gchar *id, const gchar *script, const gchar *extra)
{
	g_autoptr(JsonNode) quoted = json_node_init_string(json_node_alloc(), script);
	g_autofree gchar *text = json_to_string(quoted, FALSE);

	return g_strdup_printf("{\"processId\":\"%s\",\"argv\":[\"sh\",\"-c\",%s],"
			       "\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\","
			       "\"ESD_B\":\"b\"},\"tty\":false%s%s}",
			       id,
			       text,
			       extra != NULL ? "," : "",
			       extra != NULL ? extra : "");
}

static void
fixture_start(Fixture *fx, const gchar *id, const gchar *script, const gchar *extra)
{
	g_autofree gchar *params = start_params(id, script, extra);
	g_autofree gchar *result =
	    g_strdup_printf("{\"processId\":\"%s\",\"sandboxType\":\"none\"}", id);

	fixture_assert_result(fx, "process/start", params, result);
}

/* -32602 from the hook for a bad value, before anything starts */
static void
test_claim_invalid(Fixture *fx, gconstpointer user_data)
{
	const struct {
		const gchar *value;
		const gchar *message;
	} cases[] = {
	    {"5", "invalid esdTest: expected an object"},
	    {"{\"env\":{\"A\":1}}", "invalid esdTest: env"},
	    {"{\"unset\":\"A\"}", "invalid esdTest: unset"},
	    {"{\"netns\":\"yes\"}", "invalid esdTest: netns"},
	    {"{\"other\":1}", "invalid esdTest: unknown member"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *extra = g_strdup_printf("\"esdTest\":%s", cases[i].value);
		g_autofree gchar *params = start_params("p1", "true", extra);
		fixture_assert_error(fx, "process/start", params, -32602, cases[i].message);
	}
	/* nothing took part, nothing started */
	fixture_assert_result(fx, "test/events", "null", "{\"events\":[]}");
	fixture_start(fx, "p1", "true", NULL);
}

/* as on the reference, a member nobody claims is ignored; a member set to null is absent */
static void
test_unclaimed_member(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;

	fixture_start(fx, "p1", "echo ran", "\"esdOther\":{\"x\":[1]},\"esdTest\":null");
	out = fixture_output(fx, "p1");
	g_assert_cmpstr(out, ==, "ran\n");
	fixture_assert_result(fx, "test/events", "null", "{\"events\":[]}");
}

/* environment overlay, an inherited descriptor, then exiting, exited and closed */
static void
test_env_and_fd(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;
	gint exiting = -1;
	gint exited = -1;

	fixture_start(fx,
		      "p1",
		      "echo \"$ESD_A ${ESD_B-unset} $PATH\"; cat <&$ESD_TEST_FD; exit 3",
		      "\"esdTest\":{\"env\":{\"ESD_A\":\"a\",\"PATH\":\"/bin\"},"
		      "\"unset\":[\"ESD_B\"],\"fdText\":\"through the pipe\"}");
	out = fixture_output(fx, "p1");
	g_assert_cmpstr(out, ==, "a unset /bin\nthrough the pipe");
	/* what the hook sends at exiting comes before process/exited */
	for (guint i = 0; i < fx->notes->len; i++) {
		if (note_matches(g_ptr_array_index(fx->notes, i), "test/exiting", "p1"))
			exiting = (gint)i;
		if (note_matches(g_ptr_array_index(fx->notes, i), "process/exited", "p1"))
			exited = (gint)i;
	}
	g_assert_cmpint(exiting, >=, 0);
	g_assert_cmpint(exiting, <, exited);
	fixture_assert_result(fx,
			      "test/events",
			      "null",
			      "{\"events\":[{\"event\":\"exiting\",\"processId\":\"p1\"},"
			      "{\"event\":\"exited\",\"processId\":\"p1\","
			      "\"exitCode\":3},{\"event\":\"closed\",\"processId\":\"p1\"}]}");
}

/* argv prefixed with a wrapper, looked up as the program was */
static void
test_prefix(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;

	fixture_start(fx,
		      "p1",
		      "echo \"$ESD_P\"",
		      "\"esdTest\":{\"prefix\":[\"env\",\"ESD_P=wrapped\"]}");
	out = fixture_output(fx, "p1");
	g_assert_cmpstr(out, ==, "wrapped\n");
}

/* a failed preparation fails the request, is closed, and frees the id */
static void
test_prepare_fails(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *params =
	    start_params("p1", "echo never", "\"esdTest\":{\"fail\":\"no proxy for you\"}");
	g_autofree gchar *out = NULL;

	fixture_assert_error(fx, "process/start", params, -32603, "no proxy for you");
	fixture_assert_result(fx,
			      "test/events",
			      "null",
			      "{\"events\":[{\"event\":\"closed\",\"processId\":\"p1\"}]}");
	fixture_start(fx, "p1", "echo again", NULL);
	out = fixture_output(fx, "p1");
	g_assert_cmpstr(out, ==, "again\n");
}

/* the command runs in the network namespace the hook made */
static void
test_netns(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *own = g_file_read_link("/proc/self/ns/net", NULL);
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_auto(GStrv) lines = NULL;

	if (geteuid() != 0) {
		g_test_skip("a network namespace needs CAP_SYS_ADMIN");
		return;
	}
	fixture_start(fx,
		      "p1",
		      "readlink /proc/self/ns/net; echo \"$ESD_TEST_NETNS\"",
		      "\"esdTest\":{\"netns\":true}");
	out = fixture_output(fx, "p1");
	lines = g_strsplit(out, "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), ==, 3);
	g_assert_cmpstr(lines[0], ==, lines[1]);
	g_assert_cmpstr(lines[0], !=, own);
	expected = g_strdup_printf("%s\n%s\n", lines[0], lines[0]);
	g_assert_cmpstr(out, ==, expected);
}

#define SANDBOX_READ(path)                                                                         \
	"{\"path\":{\"type\":\"path\",\"path\":\"file://" path "\"},\"access\":\"read\"}"

/* in the sandbox: a file the policy hides is bound for the command; descriptors pass bwrap */
static void
test_sandbox_file(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("esd-launch-XXXXXX", &error);
	g_autofree gchar *file = NULL;
	g_autofree gchar *sandbox = NULL;
	g_autofree gchar *extra = NULL;
	g_autofree gchar *control_extra = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *control = NULL;
	g_autofree gchar *control_script = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *control_out = NULL;
	const gchar *probe[] = {"bwrap", "--ro-bind", "/", "/", "--unshare-all", "true", NULL};
	gint status = -1;

	g_assert_no_error(error);
	if (!g_spawn_sync(NULL,
			  (gchar **)probe,
			  NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
			      G_SPAWN_STDERR_TO_DEV_NULL,
			  NULL,
			  NULL,
			  NULL,
			  NULL,
			  &status,
			  NULL) ||
	    status != 0) {
		g_test_skip("bwrap cannot make a sandbox here");
		g_rmdir(dir);
		return;
	}
	file = g_build_filename(dir, "snapshot", NULL);
	g_assert_true(g_file_set_contents(file, "from the host\n", -1, NULL));
	/* what sh and cat need, nothing of the temporary directory */
	sandbox = g_strdup(
	    "{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
	    "\"entries\":[" SANDBOX_READ("/usr") "," SANDBOX_READ("/bin") "," SANDBOX_READ(
		"/lib") "," SANDBOX_READ("/lib64") "," SANDBOX_READ("/etc") "]},"
									    "\"network\":"
									    "\"restricted\"},"
									    "\"windowsSandboxLevel"
									    "\":\"disabled\"}");
	extra = g_strdup_printf(
	    "\"sandbox\":%s,\"esdTest\":{\"file\":\"%s\",\"fdText\":\"fd\",\"policy\":\"/usr\"}",
	    sandbox,
	    file);
	params = start_params("p1",
			      "cat \"$ESD_TEST_FILE\" && cat <&$ESD_TEST_FD && echo; "
			      "ls \"$(dirname \"$ESD_TEST_FILE\")\"; echo \"$ESD_TEST_POLICY\"",
			      extra);
	fixture_assert_result(fx,
			      "process/start",
			      params,
			      "{\"processId\":\"p1\",\"sandboxType\":\"linuxSeccomp\"}");
	out = fixture_output(fx, "p1");
	/* the file alone: nothing else of its directory; the hook saw the policy */
	g_assert_cmpstr(out, ==, "from the host\nfd\nsnapshot\nread isolated\n");

	/* without the hook's file, the policy hides it */
	control_extra = g_strdup_printf("\"sandbox\":%s", sandbox);
	control_script = g_strdup_printf("cat %s", file);
	control = start_params("p2", control_script, control_extra);
	fixture_assert_result(fx,
			      "process/start",
			      control,
			      "{\"processId\":\"p2\",\"sandboxType\":\"linuxSeccomp\"}");
	control_out = fixture_output(fx, "p2");
	g_assert_null(strstr(control_out, "from the host"));
	g_unlink(file);
	g_rmdir(dir);
}

/* a hook reads the request's policy: none without a sandbox object, open when it isolates nothing
 */
static void
test_policy(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *none = NULL;
	g_autofree gchar *open = NULL;
	g_autofree gchar *params = NULL;

	fixture_start(fx, "p1", "echo \"$ESD_TEST_POLICY\"", "\"esdTest\":{\"policy\":\"/usr\"}");
	none = fixture_output(fx, "p1");
	g_assert_cmpstr(none, ==, "none\n");
	params = start_params("p2",
			      "echo \"$ESD_TEST_POLICY\"",
			      "\"sandbox\":{\"permissions\":{\"type\":\"disabled\"},"
			      "\"windowsSandboxLevel\":\"disabled\"},"
			      "\"esdTest\":{\"policy\":\"/usr\"}");
	/* a sandbox object was sent: sandboxType says so, though nothing is isolated */
	fixture_assert_result(fx,
			      "process/start",
			      params,
			      "{\"processId\":\"p2\",\"sandboxType\":\"linuxSeccomp\"}");
	open = fixture_output(fx, "p2");
	g_assert_cmpstr(open, ==, "write open\n");
}

/* the client's request to the daemon with id 1 does not meet the daemon's request 1 */
static void
test_ask_answered(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(JsonNode) request = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autoptr(JsonNode) status = NULL;
	guint id = fixture_send_request(
	    fx,
	    "test/ask",
	    "{\"method\":\"test/question\",\"params\":{\"q\":1},\"timeoutMs\":5000}");

	request = fixture_receive(fx);
	esd_assert_json_node_eq(request,
				"{\"id\":1,\"method\":\"test/question\",\"params\":{\"q\":1}}");
	/* queued behind test/ask (one request at a time), while our answer is not */
	esd_test_peer_send_text(fx->peer, "{\"id\":1,\"method\":\"environment/status\"}");
	esd_test_peer_send_text(fx->peer, "{\"id\":1,\"result\":{\"answer\":\"yes\"}}");
	reply = fixture_receive(fx);
	g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, id);
	esd_assert_json_node_eq(esd_test_json_get(reply, "result"), "{\"answer\":\"yes\"}");
	status = fixture_receive(fx);
	esd_assert_json_node_eq(status, "{\"id\":1,\"result\":{\"status\":\"ready\"}}");

	/* the next request gets the next id */
	g_clear_pointer(&request, json_node_unref);
	g_clear_pointer(&reply, json_node_unref);
	id = fixture_send_request(fx, "test/ask", "{\"method\":\"test/q2\",\"timeoutMs\":5000}");
	request = fixture_receive(fx);
	esd_assert_json_node_eq(request, "{\"id\":2,\"method\":\"test/q2\"}");
	esd_test_peer_send_text(fx->peer, "{\"id\":2,\"result\":{\"answer\":\"no\"}}");
	reply = fixture_receive(fx);
	g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, id);
	esd_assert_json_node_eq(esd_test_json_get(reply, "result"), "{\"answer\":\"no\"}");
}

/* sends test/ask, answers the daemon's request with @answer_members, returns the reply */
static JsonNode *
fixture_ask_answer(Fixture *fx, const gchar *ask, const gchar *answer_members)
{
	g_autoptr(JsonNode) request = NULL;
	g_autofree gchar *answer = NULL;
	guint id = fixture_send_request(fx, "test/ask", ask);
	JsonNode *reply;

	request = fixture_receive(fx);
	g_assert_nonnull(esd_test_json_get_string(request, "method"));
	answer = g_strdup_printf("{\"id\":%d,%s",
				 (gint)esd_test_json_get_int(request, "id"),
				 answer_members);
	esd_test_peer_send_text(fx->peer, answer);
	reply = fixture_receive(fx);
	g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, id);
	return reply;
}

static void
assert_ask_failed(JsonNode *reply, const gchar *kind, const gchar *pattern)
{
	const gchar *message = esd_test_json_get_string(reply, "error.message");

	g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32603);
	if (message == NULL || !g_pattern_match_simple(pattern, message))
		g_error("error message %s does not match %s", message, pattern);
	g_assert_cmpstr(esd_test_json_get_string(reply, "error.data.kind"), ==, kind);
}

/* an answer of the wrong shape, and an error answer */
static void
test_ask_malformed(Fixture *fx, gconstpointer user_data)
{
	const gchar *ask = "{\"method\":\"test/question\",\"timeoutMs\":5000}";
	g_autoptr(JsonNode) a = fixture_ask_answer(fx, ask, "\"result\":5}");
	g_autoptr(JsonNode) b = fixture_ask_answer(fx, ask, "\"result\":{\"answer\":7}}");
	g_autoptr(JsonNode) c =
	    fixture_ask_answer(fx, ask, "\"error\":{\"code\":-32601,\"message\":\"not here\"}}");

	assert_ask_failed(a, "malformed", "malformed answer*");
	assert_ask_failed(b, "malformed", "malformed answer*");
	assert_ask_failed(c, "remote", "*-32601 not here");
	fixture_assert_result(fx, "environment/status", "null", "{\"status\":\"ready\"}");
}

/* no answer: the timeout; a late answer is dropped and the connection stays */
static void
test_ask_timeout(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(JsonNode) request = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *late = NULL;
	gint64 started = g_get_monotonic_time();
	guint id = fixture_send_request(fx,
					"test/ask",
					"{\"method\":\"test/question\",\"timeoutMs\":300}");

	request = fixture_receive(fx);
	reply = fixture_receive(fx);
	g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, id);
	assert_ask_failed(reply, "timedOut", "*did not answer test/question in time");
	g_assert_cmpint(g_get_monotonic_time() - started, >=, 300 * 1000);
	late = g_strdup_printf("{\"id\":%d,\"result\":{\"answer\":\"late\"}}",
			       (gint)esd_test_json_get_int(request, "id"));
	esd_test_peer_send_text(fx->peer, late);
	esd_test_peer_send_text(fx->peer, late);
	fixture_assert_result(fx, "environment/status", "null", "{\"status\":\"ready\"}");
}

/* the plugin cancels its request */
static void
test_ask_cancelled(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(JsonNode) request = NULL;
	g_autoptr(JsonNode) reply = NULL;
	guint id = fixture_send_request(
	    fx,
	    "test/ask",
	    "{\"method\":\"test/question\",\"timeoutMs\":5000,\"cancelAfterMs\":100}");

	request = fixture_receive(fx);
	reply = fixture_receive(fx);
	g_assert_cmpint(esd_test_json_get_int(reply, "id"), ==, id);
	assert_ask_failed(reply, "cancelled", "*cancelled*");
}

/* an answer to an id the daemon never issued is fatal, as on the reference */
static void
test_unsolicited_answer(Fixture *fx, gconstpointer user_data)
{
	esd_test_peer_send_text(fx->peer, "{\"id\":4242,\"result\":{}}");
	esd_test_peer_assert_dropped(fx->peer);
	g_clear_object(&fx->client);
}

/* the daemon learns that a connection ended a little after the client: retry */
static void
fixture_resume(Fixture *fx)
{
	g_autofree gchar *request =
	    g_strdup_printf("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\","
			    "\"resumeSessionId\":\"%s\"}}",
			    fx->session_id);
	gint64 deadline = g_get_monotonic_time() + ESD_TEST_TIMEOUT_MS * 1000;

	g_clear_object(&fx->client);
	while (TRUE) {
		g_autoptr(JsonNode) reply = NULL;

		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
		reply = esd_test_peer_call(fx->peer, request);
		if (esd_test_json_get(reply, "result") != NULL)
			break;
		esd_test_peer_assert_reply_error(reply, "1", -32010, "*");
		esd_test_ws_client_close(fx->client);
		g_clear_object(&fx->client);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		esd_test_iterate(20);
	}
	esd_test_peer_send_text(fx->peer, "{\"method\":\"initialized\"}");
}

/* the connection goes mid-request: the plugin learns it; nothing is resent */
static void
test_ask_disconnect(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(JsonNode) request = NULL;

	fixture_send_request(fx, "test/ask", "{\"method\":\"test/question\",\"timeoutMs\":5000}");
	request = fixture_receive(fx);
	esd_test_ws_client_close(fx->client);
	fixture_resume(fx);
	fixture_assert_result(fx,
			      "test/events",
			      "null",
			      "{\"events\":[{\"event\":\"ask\",\"outcome\":\"closed\"}]}");
	/* the old request is not asked again, and its answer now is late */
	esd_test_peer_send_text(fx->peer, "{\"id\":1,\"result\":{\"answer\":\"late\"}}");
	fixture_assert_result(fx, "environment/status", "null", "{\"status\":\"ready\"}");
	g_assert_cmpuint(fx->notes->len, ==, 0);
}

/* a request while detached fails at once */
static void
test_notify_detached(Fixture *fx, gconstpointer user_data)
{
	JsonNode *note;

	fixture_assert_result(fx,
			      "test/notify",
			      "{\"method\":\"test/note\",\"delayMs\":200}",
			      "{}");
	esd_test_ws_client_close(fx->client);
	esd_test_iterate(600);
	fixture_resume(fx);
	/* dropped while detached, not delivered on resume */
	fixture_assert_result(fx,
			      "test/events",
			      "null",
			      "{\"events\":[{\"event\":\"notify\",\"sent\":false}]}");
	g_assert_cmpuint(fx->notes->len, ==, 0);
	fixture_assert_result(fx, "test/notify", "{\"method\":\"test/note\",\"delayMs\":0}", "{}");
	note = fixture_wait_note(fx, "test/note", NULL);
	esd_assert_json_node_eq(note,
				"{\"method\":\"test/note\",\"params\":{\"from\":\"esd-test\"}}");
	fixture_assert_result(fx,
			      "test/events",
			      "null",
			      "{\"events\":[{\"event\":\"notify\",\"sent\":true}]}");
}

int
main(int argc, char **argv)
{
	const gchar *const transports[] = {"ws", "stdio"};

	g_test_init(&argc, &argv, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(transports); i++) {
#define ADD(name, func)                                                                            \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_autofree gchar *path_ =                                                          \
		    g_strdup_printf("/execserverd/integration/launch/%s/%s", transports[i], name); \
		g_test_add(path_, Fixture, transports[i], fixture_setup, func, fixture_teardown);  \
	}                                                                                          \
	G_STMT_END
		ADD("hook/claim-invalid", test_claim_invalid);
		ADD("hook/unclaimed-member", test_unclaimed_member);
		ADD("hook/env-and-fd", test_env_and_fd);
		ADD("hook/prefix", test_prefix);
		ADD("hook/prepare-fails", test_prepare_fails);
		ADD("hook/policy", test_policy);
		ADD("session/ask-answered", test_ask_answered);
		ADD("session/ask-malformed", test_ask_malformed);
		ADD("session/ask-timeout", test_ask_timeout);
		ADD("session/ask-cancelled", test_ask_cancelled);
		if (i == 0) {
			ADD("hook/netns", test_netns);
			ADD("hook/sandbox-file", test_sandbox_file);
			ADD("session/unsolicited-answer", test_unsolicited_answer);
			ADD("session/ask-disconnect", test_ask_disconnect);
			ADD("session/notify-detached", test_notify_detached);
		}
#undef ADD
	}
	return g_test_run();
}
