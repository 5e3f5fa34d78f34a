/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "esd-test-utils.h"

/*
 * `execserverd --listen stdio`: newline-delimited JSON on stdin/stdout, one
 * connection per process. Every test starts its own daemon; the teardown
 * closes stdin and checks the daemon exits 0, wrote nothing unexpected and
 * logged no warning.
 */

typedef struct {
	EsdTestDaemon *daemon;
	EsdTestPeer *peer;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	const gchar *const *args = user_data;
	fx->daemon = esd_test_daemon_new_stdio(args);
	fx->peer = ESD_TEST_PEER(fx->daemon);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	gboolean known_bug = esd_test_take_known_bug();

	esd_test_daemon_close_stdin(fx->daemon);
	if (!esd_test_daemon_wait_stdout_eof(fx->daemon, ESD_TEST_TIMEOUT_MS) && !known_bug)
		g_error("unread output or no EOF after stdin closed");
	esd_test_daemon_assert_exit_code(fx->daemon, 0, ESD_TEST_TIMEOUT_MS);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	g_clear_object(&fx->daemon);
}

static const gchar *const small_args[] = {"--max-message-size", "4096", NULL};

/* table rows: each one gets a fresh daemon */
static void
test_exchange(gconstpointer user_data)
{
	Fixture fx = {0};

	fixture_setup(&fx, NULL);
	esd_test_peer_run_exchange(fx.peer, user_data);
	fixture_teardown(&fx, NULL);
}

/* cwd, HOME and TMPDIR come from the daemon's own environment; paths are percent-encoded */
static void
test_environment_info_paths(void)
{
	g_autofree gchar *cwd = g_build_filename(g_get_user_cache_dir(), "a dir", NULL);
	g_autofree gchar *tmpdir = g_build_filename(g_get_user_cache_dir(), "tmp ü", NULL);
	g_autofree gchar *home = g_build_filename(g_get_user_cache_dir(), "home", NULL);
	g_autofree gchar *env_tmpdir = g_strdup_printf("TMPDIR=%s", tmpdir);
	g_autofree gchar *env_home = g_strdup_printf("HOME=%s", home);
	g_autofree gchar *home_uri = NULL;
	g_autofree gchar *cwd_uri = NULL;
	g_autofree gchar *tmp_uri = NULL;
	g_autofree gchar *tmp_list = NULL;
	const gchar *args[] = {"--listen", "stdio", NULL};
	const gchar *envp[] = {env_tmpdir, env_home, NULL};
	g_autoptr(EsdTestDaemon) daemon = NULL;
	g_autoptr(JsonNode) reply = NULL;
	JsonNode *info;

	g_assert_cmpint(g_mkdir_with_parents(cwd, 0700), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(tmpdir, 0700), ==, 0);
	cwd_uri = g_filename_to_uri(cwd, NULL, NULL);
	home_uri = g_filename_to_uri(home, NULL, NULL);
	tmp_uri = g_filename_to_uri(tmpdir, NULL, NULL);
	tmp_list = g_strdup_printf("[\"%s\"]", tmp_uri);
	daemon = esd_test_daemon_new_full(args, envp, cwd, FALSE);
	reply = esd_test_peer_call(
	    ESD_TEST_PEER(daemon),
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}");
	info = esd_test_json_get(reply, "result.environmentInfo");
	esd_test_assert_environment_info(info);
	g_assert_cmpstr(esd_test_json_get_string(info, "cwd"), ==, cwd_uri);
	g_assert_cmpstr(esd_test_json_get_string(info, "userHomeDir"), ==, home_uri);
	g_assert_cmpstr(esd_test_json_get_string(info, "tempDir"), ==, tmp_uri);
	esd_assert_json_node_eq(esd_test_json_get(info, "temporaryDirectories"), tmp_list);
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

static void
test_initialize_jsonrpc_member(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_jsonrpc_member(fx->peer);
}

static void
test_initialize_unknown_members(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_unknown_members(fx->peer);
}

static void
test_initialize_retry(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_retry(fx->peer);
}

static void
test_initialized_twice(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialized_twice(fx->peer);
}

static void
test_initialized_params_ignored(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialized_params_ignored(fx->peer);
}

static void
test_initialize_result(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_initialize_result(fx->peer);
}

static void
test_environment_info(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_environment_info(fx->peer);
}

static void
test_id_escaped_nul(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_id_escaped_nul(fx->peer);
}

static void
test_lone_surrogate(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_lone_surrogate(fx->peer);
}

static void
test_deep_nesting(Fixture *fx, gconstpointer user_data)
{
	esd_test_scenario_deep_nesting(fx->peer);
}

/* raw bytes that are not UTF-8 or contain NUL, in a line */
static void
test_bad_bytes(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	const gchar invalid[] =
	    "{\"id\":2,\"method\":\"environment/status\",\"params\":{\"a\":\"\xff\xfe\"}}";
	const gchar overlong[] = "{\"id\":2,\"method\":\"environment/status\",\"x\":\"\xc0\xaf\"}";
	const gchar nul_inside[] = "{\"id\":3,\"method\":\"environment/\0status\"}";
	const gchar nul_after[] = "{\"id\":3,\"method\":\"environment/status\"}\0";
	const gchar latin1[] = "{\"id\":\"\xe9\",\"method\":\"environment/status\"}";

	/* inside a string, the request is refused with its id; outside or in the id, -1 */
	esd_test_peer_assert_refused(fx->peer, invalid, sizeof(invalid) - 1, "2", "*");
	esd_test_peer_assert_refused(fx->peer, overlong, sizeof(overlong) - 1, "2", "*");
	esd_test_peer_assert_refused(fx->peer, nul_inside, sizeof(nul_inside) - 1, "3", "*");
	esd_test_peer_assert_malformed(fx->peer, nul_after, sizeof(nul_after) - 1, "*");
	esd_test_peer_assert_malformed(fx->peer, latin1, sizeof(latin1) - 1, "*");
	esd_test_peer_assert_alive(fx->peer);
}

/* serde reads one value per line: anything after it is an error */
static void
test_two_objects_in_a_line(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *text = NULL;

	esd_test_peer_send_text(fx->peer,
				"{\"id\":13,\"method\":\"environment/status\"} "
				"{\"id\":14,\"method\":\"environment/status\"}");
	reply = esd_test_peer_receive_json(fx->peer);
	if (esd_test_json_get(reply, "result") != NULL) {
		text = esd_test_json_to_string(reply);
		esd_test_known_bug(
		    "a line with two JSON objects is not malformed: the first one is "
		    "answered (%s) and the rest is ignored",
		    text);
		return;
	}
	esd_test_peer_assert_malformed_reply(fx->peer, reply, "trailing characters*");
	esd_test_peer_assert_alive(fx->peer);
}

/* PROTOCOL.md §1.3: \r\n accepted, blank and whitespace-only lines ignored */
static void
test_line_endings(Fixture *fx, gconstpointer user_data)
{
	const gchar lines[] =
	    "\n   \n\t\n"
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}\r\n"
	    "\r\n"
	    "{\"method\":\"initialized\"}\r\n"
	    "  {\"id\":2,\"method\":\"environment/status\"}  \n";
	g_autoptr(JsonNode) init = NULL;
	g_autofree gchar *status = NULL;

	esd_test_daemon_write(fx->daemon, lines, sizeof(lines) - 1);
	init = esd_test_peer_receive_json(fx->peer);
	esd_test_assert_uuid_v4(esd_test_json_get_string(init, "result.sessionId"));
	/* output lines end with a bare \n */
	status = esd_test_daemon_read_line(fx->daemon, ESD_TEST_TIMEOUT_MS);
	g_assert_nonnull(status);
	g_assert_null(strchr(status, '\r'));
	esd_assert_json_eq(status, "{\"id\":2,\"result\":{\"status\":\"ready\"}}");
	esd_test_peer_assert_alive(fx->peer);
}

/* 200 requests in one write are all answered, in order */
static void
test_pipelining(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(GString) batch = g_string_new(NULL);

	for (guint i = 1; i <= 200; i++)
		g_string_append_printf(batch, "{\"id\":%u,\"method\":\"environment/status\"}\n", i);
	esd_test_daemon_write(fx->daemon, batch->str, batch->len);
	for (guint i = 1; i <= 200; i++) {
		g_autoptr(JsonNode) reply = esd_test_peer_receive_json(fx->peer);
		g_autofree gchar *expected =
		    g_strdup_printf("{\"id\":%u,\"result\":{\"status\":\"ready\"}}", i);
		esd_assert_json_node_eq(reply, expected);
	}
}

/* the whole handshake and a mix of good and bad messages in one write */
static void
test_pipelining_mixed(Fixture *fx, gconstpointer user_data)
{
	const gchar lines[] =
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"t\"}}\n"
	    "{\"id\":2,\"method\":\"environment/status\"}\n"
	    "{\"method\":\"initialized\"}\n"
	    "not json\n"
	    "{\"id\":\"x\",\"method\":\"environment/status\"}\n"
	    "[1]\n"
	    "{\"id\":4,\"method\":\"nope\"}\n"
	    "{\"id\":5,\"method\":\"environment/status\"}\n";
	g_autoptr(JsonNode) init = NULL;
	g_autoptr(JsonNode) gated = NULL;
	g_autoptr(JsonNode) bad1 = NULL;
	g_autoptr(JsonNode) bad2 = NULL;
	g_autoptr(JsonNode) unknown = NULL;
	g_autoptr(JsonNode) x = NULL;
	g_autoptr(JsonNode) last = NULL;

	esd_test_daemon_write(fx->daemon, lines, sizeof(lines) - 1);
	init = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(esd_test_json_get(init, "id"), "1");
	gated = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_reply_error(
	    gated,
	    "2",
	    -32600,
	    "client must send initialized before using environment status methods");
	bad1 = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_malformed_reply(fx->peer, bad1, "*");
	x = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(x, "{\"id\":\"x\",\"result\":{\"status\":\"ready\"}}");
	bad2 = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_malformed_reply(fx->peer, bad2, "expected a JSON-RPC object");
	unknown = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_reply_error(unknown,
					 "4",
					 -32601,
					 "exec-server stub does not implement `nope` yet");
	last = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(last, "{\"id\":5,\"result\":{\"status\":\"ready\"}}");
}

/*
 * The answers to the lines of one read go out in one write at its end: a
 * notification that ends the connection later in the same read must not lose them
 */
static void
test_answers_before_fatal(Fixture *fx, gconstpointer user_data)
{
	const gchar lines[] = "{\"id\":7,\"method\":\"environment/status\"}\n"
			      "{\"id\":8,\"method\":\"environment/status\"}\n"
			      "{\"method\":\"bogus\"}\n";
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autoptr(JsonNode) first = NULL;
	g_autoptr(JsonNode) second = NULL;

	esd_test_daemon_write(fx->daemon, lines, sizeof(lines) - 1);
	first = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(first, "{\"id\":7,\"result\":{\"status\":\"ready\"}}");
	second = esd_test_peer_receive_json(fx->peer);
	esd_assert_json_node_eq(second, "{\"id\":8,\"result\":{\"status\":\"ready\"}}");
	g_assert_true(esd_test_daemon_wait_stdout_eof(fx->daemon, 2000));
}

/* --max-message-size 4096: longer lines are refused, the connection goes on */
static void
test_max_message_size(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);
	g_autofree gchar *pad_small = g_strnfill(3900, 'a');
	g_autofree gchar *pad_over = g_strnfill(5000, 'a');
	g_autofree gchar *pad_huge = g_strnfill(200000, 'a');
	g_autofree gchar *small = g_strdup_printf(
	    "{\"id\":1,\"method\":\"environment/status\",\"params\":{\"pad\":\"%s\"}}",
	    pad_small);
	g_autofree gchar *over = g_strdup_printf(
	    "{\"id\":2,\"method\":\"environment/status\",\"params\":{\"pad\":\"%s\"}}",
	    pad_over);
	g_autofree gchar *huge = g_strdup_printf(
	    "{\"id\":3,\"method\":\"environment/status\",\"params\":{\"pad\":\"%s\"}}",
	    pad_huge);

	/* under the limit: parsed, then refused as params */
	esd_test_peer_assert_error(fx->peer,
				   small,
				   "1",
				   -32602,
				   "invalid type: map, expected unit");
	esd_test_peer_assert_malformed(fx->peer, over, strlen(over), "*");
	esd_test_peer_assert_alive(fx->peer);
	esd_test_peer_assert_malformed(fx->peer, huge, strlen(huge), "*");
	esd_test_peer_assert_alive(fx->peer);
	/* a long line without any newline yet, then the rest */
	esd_test_daemon_write(fx->daemon, pad_huge, strlen(pad_huge));
	esd_test_daemon_write(fx->daemon, "\n", 1);
	reply = esd_test_peer_receive_json(fx->peer);
	esd_test_peer_assert_malformed_reply(fx->peer, reply, "*");
	esd_test_peer_assert_alive(fx->peer);
}

/* PROTOCOL.md §1.3: stdin EOF ends the connection and the daemon, with 0 */
static void
test_eof_exits(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);

	esd_test_peer_assert_alive(fx->peer);
	esd_test_daemon_close_stdin(fx->daemon);
	g_assert_true(esd_test_daemon_wait_stdout_eof(fx->daemon, 2000));
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 2000);
}

static void
test_eof_before_anything(Fixture *fx, gconstpointer user_data)
{
	esd_test_daemon_close_stdin(fx->daemon);
	g_assert_true(esd_test_daemon_wait_stdout_eof(fx->daemon, 2000));
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 2000);
}

static void
test_sigterm(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *session_id = esd_test_peer_handshake(fx->peer);

	esd_test_peer_assert_alive(fx->peer);
	esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 2000);
	g_assert_true(esd_test_daemon_wait_stdout_eof(fx->daemon, 2000));
}

static void
add_exchanges(const gchar *group, const EsdTestExchange *table)
{
	for (guint i = 0; table[i].name != NULL; i++) {
		g_autofree gchar *path =
		    g_strdup_printf("/execserverd/integration/stdio/%s/%s", group, table[i].name);
		g_test_add_data_func(path, &table[i], test_exchange);
	}
}

#define ADD(path, func, data)                                                                      \
	g_test_add("/execserverd/integration/stdio/" path,                                         \
		   Fixture,                                                                        \
		   data,                                                                           \
		   fixture_setup,                                                                  \
		   func,                                                                           \
		   fixture_teardown)

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	/* a write to a daemon that just exited must fail, not kill the test */
	signal(SIGPIPE, SIG_IGN);

	ADD("handshake/initialize-result", test_initialize_result, NULL);
	ADD("handshake/initialize-jsonrpc-member", test_initialize_jsonrpc_member, NULL);
	ADD("handshake/initialize-unknown-members", test_initialize_unknown_members, NULL);
	ADD("handshake/initialize-retry", test_initialize_retry, NULL);
	ADD("handshake/initialized-twice", test_initialized_twice, NULL);
	ADD("handshake/initialized-params-ignored", test_initialized_params_ignored, NULL);
	ADD("environment/info", test_environment_info, NULL);
	g_test_add_func("/execserverd/integration/stdio/environment/info-paths",
			test_environment_info_paths);
	add_exchanges("handshake", esd_test_exchanges_handshake);
	add_exchanges("envelope", esd_test_exchanges_envelope);
	ADD("envelope/id-escaped-nul", test_id_escaped_nul, NULL);
	add_exchanges("malformed", esd_test_exchanges_malformed);
	ADD("malformed/lone-surrogate", test_lone_surrogate, NULL);
	ADD("malformed/deep-nesting", test_deep_nesting, NULL);
	ADD("malformed/bad-bytes", test_bad_bytes, NULL);
	ADD("malformed/two-objects-in-a-line", test_two_objects_in_a_line, NULL);
	ADD("malformed/max-message-size", test_max_message_size, small_args);
	add_exchanges("fatal", esd_test_exchanges_fatal);
	ADD("framing/line-endings", test_line_endings, NULL);
	ADD("framing/pipelining", test_pipelining, NULL);
	ADD("framing/pipelining-mixed", test_pipelining_mixed, NULL);
	ADD("framing/answers-before-fatal", test_answers_before_fatal, NULL);
	ADD("lifecycle/eof-exits", test_eof_exits, NULL);
	ADD("lifecycle/eof-before-anything", test_eof_before_anything, NULL);
	ADD("lifecycle/sigterm", test_sigterm, NULL);
	return g_test_run();
}
