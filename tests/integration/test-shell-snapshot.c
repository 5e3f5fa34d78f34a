/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "esd-test-utils.h"

/*
 * process/start.shellSnapshot (plugins/shell-snapshot) through the real
 * daemon, over WebSocket and stdio. Each test gets a HOME whose .profile
 * prints on stdout and stderr, exports, defines a function and an alias,
 * sets noclobber and extglob, and counts its runs in $HOME/runs; its
 * .bashrc exports and defines a function too. A command that ran its
 * login files shows "profile-out"; one that ran with the snapshot does not,
 * and the count says how often the login files ran.
 */

typedef struct {
	EsdTestDaemon *daemon;
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	gchar *session_id;
	GPtrArray *notes;
	guint next_id;
	gchar *home;
	gchar *work;
	const gchar *transport;
} Fixture;

#define PROFILE                                                                                    \
	"echo profile-out\n"                                                                       \
	"echo profile-err >&2\n"                                                                   \
	"echo run >> \"$HOME/runs\" 2>/dev/null\n"                                                 \
	"export PROF_VAR='from profile' OVER=profile\n"                                            \
	"export MULTI='two\nlines'\n"                                                              \
	"prof_fn() { echo \"fn:$1\"; }\n"                                                          \
	"alias pal='echo alias-ran'\n"                                                             \
	"set -o noclobber\n"                                                                       \
	"shopt -s extglob\n"                                                                       \
	"if touch \"$HOME/probe\" 2>/dev/null; then export HOME_WRITABLE=yes; "                    \
	"else export HOME_WRITABLE=no; fi\n"                                                       \
	"if [ -n \"$SNAP_BREAK\" ]; then command exec 3>&-; fi\n"                                  \
	"if [ -n \"$SNAP_BIG\" ]; then export BIG=$(head -c 10000 /dev/zero | tr '\\0' x); fi\n"   \
	"if [ -n \"$SNAP_SLOW\" ]; then touch \"$HOME/slow-started\"; sleep 2; "                   \
	"touch \"$HOME/slow-done\"; fi\n"                                                          \
	"exec() { echo exec-fn; }\n"

#define BASHRC                                                                                     \
	"echo bashrc-out\n"                                                                        \
	"export RC_VAR=rc\n"                                                                       \
	"rc_fn() { echo rcfn; }\n"

/* what the state looks like from a script */
#define SHOW_STATE                                                                                 \
	"echo \"P=$PROF_VAR R=$RC_VAR O=$OVER\"; prof_fn a; rc_fn; alias -p; "                     \
	"[[ -o noclobber ]] && echo noclobber; shopt -q extglob && echo extglob; "                 \
	"printf '%s|' \"$MULTI\"; echo; echo to-stderr >&2; exit 7"

static void
fixture_setup_args(Fixture *fx, const gchar *transport, const gchar *const *extra)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *profile = NULL;
	g_autofree gchar *bashrc = NULL;

	fx->transport = transport;
	fx->notes = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	fx->next_id = 100;
	fx->home = g_dir_make_tmp("esd-snap-home-XXXXXX", &error);
	g_assert_no_error(error);
	fx->work = g_dir_make_tmp("esd-snap-work-XXXXXX", &error);
	g_assert_no_error(error);
	/* readable by an unprivileged daemon's sandbox as by anyone */
	g_assert_cmpint(g_chmod(fx->home, 0755), ==, 0);
	g_assert_cmpint(g_chmod(fx->work, 0755), ==, 0);
	profile = g_build_filename(fx->home, ".profile", NULL);
	bashrc = g_build_filename(fx->home, ".bashrc", NULL);
	g_assert_true(g_file_set_contents(profile, PROFILE, -1, NULL));
	g_assert_true(g_file_set_contents(bashrc, BASHRC, -1, NULL));
	for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)extra[i]);
	g_ptr_array_add(args, NULL);
	if (g_strcmp0(transport, "stdio") == 0) {
		fx->daemon = esd_test_daemon_new_stdio((const gchar *const *)args->pdata);
		fx->peer = ESD_TEST_PEER(fx->daemon);
	} else {
		fx->daemon = esd_test_daemon_new_ws((const gchar *const *)args->pdata);
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	}
	fx->session_id = esd_test_peer_handshake(fx->peer);
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	fixture_setup_args(fx, user_data, NULL);
}

static void
remove_tree(const gchar *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const gchar *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *child = g_build_filename(path, name, NULL);
		if (g_file_test(child, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(child, G_FILE_TEST_IS_SYMLINK))
			remove_tree(child);
		else
			g_unlink(child);
	}
	g_rmdir(path);
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (fx->client != NULL)
		esd_test_ws_client_close(fx->client);
	g_clear_object(&fx->client);
	if (g_strcmp0(fx->transport, "stdio") == 0)
		esd_test_daemon_close_stdin(fx->daemon);
	else
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, ESD_TEST_TIMEOUT_MS);
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	g_clear_object(&fx->daemon);
	g_ptr_array_unref(fx->notes);
	g_free(fx->session_id);
	remove_tree(fx->home);
	remove_tree(fx->work);
	g_free(fx->home);
	g_free(fx->work);
}

static JsonNode *
fixture_next(Fixture *fx)
{
	JsonNode *msg = esd_test_peer_receive_json(fx->peer);
	if (msg == NULL)
		g_error("the daemon closed the connection");
	return msg;
}

static JsonNode *
fixture_call(Fixture *fx, const gchar *method, const gchar *params)
{
	guint id = fx->next_id++;
	g_autofree gchar *text =
	    g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}", id, method, params);

	esd_test_peer_send_text(fx->peer, text);
	while (TRUE) {
		JsonNode *msg = fixture_next(fx);
		if (esd_test_json_get(msg, "id") != NULL) {
			g_assert_cmpint(esd_test_json_get_int(msg, "id"), ==, id);
			return msg;
		}
		g_ptr_array_add(fx->notes, msg);
	}
}

static gboolean
note_matches(JsonNode *note, const gchar *method, const gchar *process_id)
{
	return g_strcmp0(esd_test_json_get_string(note, "method"), method) == 0 &&
	       g_strcmp0(esd_test_json_get_string(note, "params.processId"), process_id) == 0;
}

static JsonNode *
fixture_wait_note(Fixture *fx, const gchar *method, const gchar *process_id)
{
	for (guint i = 0; i < fx->notes->len; i++) {
		if (note_matches(g_ptr_array_index(fx->notes, i), method, process_id))
			return g_ptr_array_index(fx->notes, i);
	}
	while (TRUE) {
		JsonNode *msg = fixture_next(fx);
		g_assert_null(esd_test_json_get(msg, "id"));
		g_ptr_array_add(fx->notes, msg);
		if (note_matches(msg, method, process_id))
			return msg;
	}
}

/* what a process wrote on one stream (stdout, stderr or pty), once it closed */
static gchar *
fixture_stream(Fixture *fx, const gchar *process_id, const gchar *stream)
{
	g_autoptr(GString) out = g_string_new(NULL);

	fixture_wait_note(fx, "process/closed", process_id);
	for (guint i = 0; i < fx->notes->len; i++) {
		JsonNode *note = g_ptr_array_index(fx->notes, i);
		gsize len = 0;
		g_autofree guchar *data = NULL;

		if (!note_matches(note, "process/output", process_id) ||
		    g_strcmp0(esd_test_json_get_string(note, "params.stream"), stream) != 0)
			continue;
		data = g_base64_decode(esd_test_json_get_string(note, "params.chunk"), &len);
		g_string_append_len(out, (const gchar *)data, (gssize)len);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static gint64
fixture_exit_code(Fixture *fx, const gchar *process_id)
{
	JsonNode *note = fixture_wait_note(fx, "process/exited", process_id);
	return esd_test_json_get_int(note, "params.exitCode");
}

static gchar *
json_quote(const gchar *text)
{
	g_autoptr(JsonNode) node = json_node_init_string(json_node_alloc(), text);
	return json_to_string(node, FALSE);
}

/* process/start params: @argv a JSON array, @extra more members or NULL */
static gchar *
start_params(Fixture *fx, const gchar *id, const gchar *argv, const gchar *extra)
{
	g_autofree gchar *home = json_quote(fx->home);
	g_autofree gchar *cwd = g_filename_to_uri(fx->work, NULL, NULL);

	return g_strdup_printf(
	    "{\"processId\":\"%s\",\"argv\":%s,\"cwd\":\"%s\","
	    "\"env\":{\"HOME\":%s,\"PATH\":\"/usr/bin:/bin\",\"OVER\":\"request\"},"
	    "\"tty\":false%s%s}",
	    id,
	    argv,
	    cwd,
	    home,
	    extra != NULL ? "," : "",
	    extra != NULL ? extra : "");
}

/* `/bin/bash -lc SCRIPT` with a snapshot of scope @scope (or none) */
static gchar *
login_params(Fixture *fx,
	     const gchar *id,
	     const gchar *script,
	     const gchar *scope,
	     const gchar *more)
{
	g_autofree gchar *quoted = json_quote(script);
	g_autofree gchar *argv = g_strdup_printf("[\"/bin/bash\",\"-lc\",%s]", quoted);
	g_autofree gchar *extra = NULL;

	if (scope != NULL)
		extra = g_strdup_printf("\"shellSnapshot\":{\"scopeId\":\"%s\",\"shell\":{\"name\":"
					"\"bash\",\"path\":\"/bin/bash\"}}%s%s",
					scope,
					more != NULL ? "," : "",
					more != NULL ? more : "");
	else if (more != NULL)
		extra = g_strdup(more);
	return start_params(fx, id, argv, extra);
}

static void
fixture_start(Fixture *fx, const gchar *id, const gchar *params)
{
	g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);
	if (esd_test_json_get(reply, "result") == NULL) {
		g_autofree gchar *text = esd_test_json_to_string(reply);
		g_error("process/start %s failed: %s", id, text);
	}
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.processId"), ==, id);
}

/* how many times the login files ran */
static guint
fixture_runs(Fixture *fx)
{
	g_autofree gchar *path = g_build_filename(fx->home, "runs", NULL);
	g_autofree gchar *text = NULL;
	guint n = 0;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	for (const gchar *p = text; (p = strstr(p, "run\n")) != NULL; p += 4)
		n++;
	return n;
}

/* runs @script as a login shell with the snapshot of @scope; returns stdout */
static gchar *
fixture_run(Fixture *fx,
	    const gchar *id,
	    const gchar *script,
	    const gchar *scope,
	    const gchar *more)
{
	g_autofree gchar *params = login_params(fx, id, script, scope, more);

	fixture_start(fx, id, params);
	return fixture_stream(fx, id, "stdout");
}

/* the state after the login files and .bashrc, without their output; env wins */
static void
test_state(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *plain = NULL;
	g_autofree gchar *plain_err = NULL;
	const gchar *expected = "P=from profile R=rc O=request\nfn:a\nrcfn\n"
				"alias pal='echo alias-ran'\nnoclobber\nextglob\ntwo\nlines|\n";

	/* the same script without snapshot: the login files run and print */
	plain = fixture_run(fx, "plain", SHOW_STATE, NULL, NULL);
	plain_err = fixture_stream(fx, "plain", "stderr");
	g_assert_nonnull(strstr(plain, "profile-out\n"));
	g_assert_nonnull(strstr(plain_err, "profile-err\n"));
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
	for (guint i = 0; i < 3; i++) {
		g_autofree gchar *id = g_strdup_printf("snap%u", i);
		g_autofree gchar *out = fixture_run(fx, id, SHOW_STATE, "t:remote", NULL);
		g_autofree gchar *err = fixture_stream(fx, id, "stderr");

		g_assert_cmpstr(out, ==, expected);
		g_assert_cmpstr(err, ==, "to-stderr\n");
		g_assert_cmpint(fixture_exit_code(fx, id), ==, 7);
	}
	/* captured once: one more run of the login files for three commands */
	g_assert_cmpuint(fixture_runs(fx), ==, 2);
}

/* the key is (session, scopeId, cwd): not the env, not HOME, not edits */
static void
test_key(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *bashrc = g_build_filename(fx->home, ".bashrc", NULL);
	g_autofree gchar *out = NULL;
	g_autofree gchar *params = NULL;

	g_free(fixture_run(fx, "a", "true", "k1", NULL));
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
	g_assert_true(g_file_set_contents(bashrc, BASHRC "export EDIT=1\n", -1, NULL));
	out = fixture_run(fx, "b", "echo E=$EDIT", "k1", NULL);
	g_assert_cmpstr(out, ==, "E=\n");
	g_clear_pointer(&out, g_free);
	/* another env, same key: the snapshot, with the new value on top */
	{
		g_autoptr(GString) text = NULL;
		params = login_params(fx, "c", "echo $OVER $PROF_VAR", "k1", NULL);
		text = g_string_new(params);
		g_string_replace(text, "\"OVER\":\"request\"", "\"OVER\":\"changed\"", 1);
		fixture_start(fx, "c", text->str);
	}
	out = fixture_stream(fx, "c", "stdout");
	g_assert_cmpstr(out, ==, "changed from profile\n");
	g_clear_pointer(&out, g_free);
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
	/* another scope, then another cwd: captured again, edits seen */
	out = fixture_run(fx, "d", "echo E=$EDIT", "k2", NULL);
	g_assert_cmpstr(out, ==, "E=1\n");
	g_clear_pointer(&out, g_free);
	g_assert_cmpuint(fixture_runs(fx), ==, 2);
	g_free(params);
	params = login_params(fx, "e", "echo E=$EDIT $PWD", "k1", NULL);
	{
		g_autofree gchar *work_uri = g_filename_to_uri(fx->work, NULL, NULL);
		g_autofree gchar *home_uri = g_filename_to_uri(fx->home, NULL, NULL);
		g_autofree gchar *from = g_strdup_printf("\"cwd\":\"%s\"", work_uri);
		g_autofree gchar *to = g_strdup_printf("\"cwd\":\"%s\"", home_uri);
		g_autoptr(GString) text = g_string_new(params);
		g_string_replace(text, from, to, 1);
		g_free(params);
		params = g_string_free(g_steal_pointer(&text), FALSE);
	}
	fixture_start(fx, "e", params);
	out = fixture_stream(fx, "e", "stdout");
	{
		g_autofree gchar *expected = g_strdup_printf("E=1 %s\n", fx->home);
		g_assert_cmpstr(out, ==, expected);
	}
	g_assert_cmpuint(fixture_runs(fx), ==, 3);
}

/* a terminal: the snapshot applies, output on the pty, exit code kept */
static void
test_tty(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *quoted = json_quote("[ -t 0 ] && echo tty; echo \"P=$PROF_VAR\"; "
					      "prof_fn b; exit 4");
	g_autofree gchar *argv = g_strdup_printf("[\"/bin/bash\",\"-lc\",%s]", quoted);
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;

	params = start_params(fx,
			      "t",
			      argv,
			      "\"shellSnapshot\":{\"scopeId\":\"tty\",\"shell\":{\"name\":\"bash\","
			      "\"path\":\"/bin/bash\"}}");
	/* start_params says tty false: this one wants a terminal */
	{
		g_autoptr(GString) text = g_string_new(params);
		g_string_replace(text, "\"tty\":false", "\"tty\":true", 1);
		g_free(params);
		params = g_string_free(g_steal_pointer(&text), FALSE);
	}
	fixture_start(fx, "t", params);
	out = fixture_stream(fx, "t", "pty");
	g_assert_cmpstr(out, ==, "tty\r\nP=from profile\r\nfn:b\r\n");
	g_assert_cmpint(fixture_exit_code(fx, "t"), ==, 4);
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
}

/* only `[shell.path, "-lc", script, args...]` with argv[0] literally shell.path */
static void
test_argv_forms(Fixture *fx, gconstpointer user_data)
{
	const gchar *snap = "\"shellSnapshot\":{\"scopeId\":\"f\",\"shell\":{\"name\":\"bash\","
			    "\"path\":\"/bin/bash\"}}";
	const struct {
		const gchar *argv;
		const gchar *expected;
		guint runs; /* of the login files */
	} cases[] = {
	    /* the capture runs them once, the command not */
	    {"[\"/bin/bash\",\"-lc\",\"echo $0 $1 $2 $PROF_VAR\",\"zero\",\"one\",\"two\"]",
	     "zero one two from profile\n",
	     1},
	    {"[\"/bin/bash\",\"-c\",\"echo $PROF_VAR\"]", "\n", 0},
	    {"[\"/bin/bash\",\"-l\",\"-c\",\"echo $PROF_VAR\"]", "profile-out\nfrom profile\n", 1},
	    {"[\"bash\",\"-lc\",\"echo $PROF_VAR\"]", "profile-out\nfrom profile\n", 1},
	    {"[\"/bin/bash\",\"-lc\"]", "", 0},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *id = g_strdup_printf("f%u", i);
		g_autofree gchar *params = start_params(fx, id, cases[i].argv, snap);
		g_autofree gchar *out = NULL;
		guint before = fixture_runs(fx);

		fixture_start(fx, id, params);
		out = fixture_stream(fx, id, "stdout");
		g_assert_cmpstr(out, ==, cases[i].expected);
		g_assert_cmpuint(fixture_runs(fx), ==, before + cases[i].runs);
	}
}

/* the checks and their wording, as the live reference gives them */
static void
test_invalid(Fixture *fx, gconstpointer user_data)
{
	const struct {
		const gchar *value;
		const gchar *message;
	} cases[] = {
	    {"\"x\"", "invalid type: string \"x\", expected struct ShellSnapshotRequest"},
	    {"1", "invalid type: number, expected struct ShellSnapshotRequest"},
	    {"true", "invalid type: boolean `true`, expected struct ShellSnapshotRequest"},
	    {"[]", "invalid length 0, expected struct ShellSnapshotRequest with 2 elements"},
	    {"[\"s\",{\"name\":\"bash\",\"path\":\"/bin/bash\"},1]",
	     "invalid length 3, expected fewer elements in array"},
	    {"{}", "missing field `scopeId`"},
	    {"{\"scopeId\":\"x\"}", "missing field `shell`"},
	    {"{\"scopeId\":\"x\",\"shell\":null}", "invalid type: null, expected struct ShellInfo"},
	    {"{\"scopeId\":\"x\",\"shell\":\"bash\"}",
	     "invalid type: string \"bash\", expected struct ShellInfo"},
	    {"{\"scopeId\":\"x\",\"shell\":[\"bash\"]}",
	     "invalid length 1, expected struct ShellInfo with 2 elements"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"path\":\"/bin/bash\"}}", "missing field `name`"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"name\":\"bash\"}}", "missing field `path`"},
	    {"{\"scopeId\":1,\"shell\":{\"name\":\"bash\",\"path\":\"/bin/bash\"}}",
	     "invalid type: number, expected a string"},
	    {"{\"scopeId\":[],\"shell\":{\"name\":\"bash\",\"path\":\"/bin/bash\"}}",
	     "invalid type: sequence, expected a string"},
	    {"{\"shell\":\"x\",\"scopeId\":1}",
	     "invalid type: string \"x\", expected struct ShellInfo"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"name\":1,\"path\":\"/bin/bash\"}}",
	     "invalid type: number, expected a string"},
	    {"{\"scopeId\":\"\",\"shell\":{\"name\":\"bash\",\"path\":\"/bin/bash\"}}",
	     "shell snapshot scope must be non-empty and at most 256 bytes"},
	    {"{\"scopeId\":\"\",\"shell\":{\"name\":\"nosuchshell\",\"path\":\"/bin/bash\"}}",
	     "shell snapshot scope must be non-empty and at most 256 bytes"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"name\":\"nosuchshell\",\"path\":\"/bin/bash\"}}",
	     "shell snapshots are unsupported for shell `nosuchshell`"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"name\":\"fish\",\"path\":\"/bin/bash\"}}",
	     "shell snapshots are unsupported for shell `fish`"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"name\":\"powershell\",\"path\":\"/bin/bash\"}}",
	     "shell snapshots are unsupported for shell `powershell`"},
	    {"{\"scopeId\":\"x\",\"shell\":{\"name\":\"Bash\",\"path\":\"/bin/bash\"}}",
	     "shell snapshots are unsupported for shell `Bash`"},
	};
	g_autofree gchar *long_scope = g_strnfill(257, 's');
	g_autofree gchar *max_scope = g_strnfill(256, 's');
	g_autofree gchar *out = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *extra = g_strdup_printf("\"shellSnapshot\":%s", cases[i].value);
		g_autofree gchar *params = login_params(fx, "bad", "true", NULL, extra);
		g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);
		g_autofree gchar *id = g_strdup_printf("%u", fx->next_id - 1);

		esd_test_peer_assert_reply_error(reply, id, -32602, cases[i].message);
	}
	{
		g_autofree gchar *extra = g_strdup_printf(
		    "\"shellSnapshot\":{\"scopeId\":\"%s\",\"shell\":{\"name\":\"bash\","
		    "\"path\":\"/bin/bash\"}}",
		    long_scope);
		g_autofree gchar *params = login_params(fx, "bad", "true", NULL, extra);
		g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);
		g_autofree gchar *id = g_strdup_printf("%u", fx->next_id - 1);
		esd_test_peer_assert_reply_error(
		    reply,
		    id,
		    -32602,
		    "shell snapshot scope must be non-empty and at most 256 bytes");
	}
	/* nothing ran for any of them */
	g_assert_cmpuint(fixture_runs(fx), ==, 0);
	/* 256 bytes, a 2-element sequence, unknown members: fine */
	out = fixture_run(fx, "max", "echo $PROF_VAR", max_scope, NULL);
	g_assert_cmpstr(out, ==, "from profile\n");
	g_clear_pointer(&out, g_free);
	{
		g_autofree gchar *params = login_params(
		    fx,
		    "seq",
		    "echo $PROF_VAR",
		    NULL,
		    "\"shellSnapshot\":[\"seq\",[\"bash\",\"/bin/bash\"]],\"other\":1");
		fixture_start(fx, "seq", params);
		out = fixture_stream(fx, "seq", "stdout");
		g_assert_cmpstr(out, ==, "from profile\n");
		g_clear_pointer(&out, g_free);
	}
	/* an unknown shell name for a command the snapshot does not apply to */
	{
		g_autofree gchar *params = start_params(
		    fx,
		    "other",
		    "[\"/bin/echo\",\"ran\"]",
		    "\"shellSnapshot\":{\"scopeId\":\"x\",\"shell\":{\"name\":\"nosuchshell\","
		    "\"path\":\"/bin/bash\"}}");
		fixture_start(fx, "other", params);
		out = fixture_stream(fx, "other", "stdout");
		g_assert_cmpstr(out, ==, "ran\n");
		g_clear_pointer(&out, g_free);
	}
	/* null is absent */
	{
		g_autofree gchar *params =
		    login_params(fx, "null", "echo $PROF_VAR", NULL, "\"shellSnapshot\":null");
		fixture_start(fx, "null", params);
		out = fixture_stream(fx, "null", "stdout");
		g_assert_cmpstr(out, ==, "profile-out\nfrom profile\n");
	}
	g_assert_cmpuint(fixture_runs(fx), ==, 3);
}

/* zsh is accepted and runs as sent; a shell that is not there too */
static void
test_fallback_shells(Fixture *fx, gconstpointer user_data)
{
	const gchar *shells[] = {"zsh"};

	for (guint i = 0; i < G_N_ELEMENTS(shells); i++) {
		g_autofree gchar *id = g_strdup_printf("s%u", i);
		g_autofree gchar *extra = g_strdup_printf(
		    "\"shellSnapshot\":{\"scopeId\":\"x\",\"shell\":{\"name\":\"%s\",\"path\":"
		    "\"/bin/bash\"}}",
		    shells[i]);
		g_autofree gchar *params = login_params(fx, id, "echo $PROF_VAR", NULL, extra);
		g_autofree gchar *out = NULL;

		fixture_start(fx, id, params);
		out = fixture_stream(fx, id, "stdout");
		g_assert_cmpstr(out, ==, "profile-out\nfrom profile\n");
	}
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
	/* shell.path is not there: spawning argv[0] fails as without snapshot */
	{
		g_autofree gchar *params = start_params(
		    fx,
		    "gone",
		    "[\"/nonexistent/bash\",\"-lc\",\"true\"]",
		    "\"shellSnapshot\":{\"scopeId\":\"x\",\"shell\":{\"name\":\"bash\","
		    "\"path\":\"/nonexistent/bash\"}}");
		g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);
		g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32603);
		g_assert_cmpstr(esd_test_json_get_string(reply, "error.data.kind"),
				==,
				"spawnNotFound");
	}
}

#define SH_PROFILE                                                                                 \
	"echo profile-out\n"                                                                       \
	"echo profile-err >&2\n"                                                                   \
	"echo run >> \"$HOME/runs\"\n"                                                             \
	"export PROF_VAR='from profile' OVER=profile\n"                                            \
	"alias pal='echo alias-ran'\n"                                                             \
	"set -o noclobber\n"                                                                       \
	"prof_fn() { echo \"fn:$1\"; }\n"

#define SH_STATE                                                                                   \
	"echo \"P=$PROF_VAR O=$OVER\"; alias pal; case $- in *C*) echo noclobber;; esac; "         \
	"if command -v prof_fn >/dev/null; then prof_fn x; else echo no-fn; fi; exit 5"

/* `sh`: the aliases, exports and options a POSIX shell lists (functions
 * too where typeset lists them, as bash named sh does), the request's env
 * kept over the snapshot's, in dash and in bash */
static void
test_sh(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *profile = g_build_filename(fx->home, ".profile", NULL);
	g_autofree gchar *sh = g_file_read_link("/bin/sh", NULL);
	const struct {
		const gchar *path;
		const gchar *expected;
	} cases[] = {
	    {"/bin/sh", "P=from profile O=request\npal='echo alias-ran'\nnoclobber\nno-fn\n"},
	    {"/bin/bash",
	     "P=from profile O=request\nalias pal='echo alias-ran'\nnoclobber\nfn:x\n"},
	};
	guint runs = 0;

	g_assert_true(g_file_set_contents(profile, SH_PROFILE, -1, NULL));
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *quoted = json_quote(SH_STATE);
		g_autofree gchar *argv =
		    g_strdup_printf("[\"%s\",\"-lc\",%s]", cases[i].path, quoted);
		g_autofree gchar *extra = g_strdup_printf(
		    "\"shellSnapshot\":{\"scopeId\":\"sh%u\",\"shell\":{\"name\":\"sh\",\"path\":"
		    "\"%s\"}}",
		    i,
		    cases[i].path);

		/* the dash case needs /bin/sh to be dash */
		if (i == 0 && (sh == NULL || !g_str_has_suffix(sh, "dash"))) {
			g_test_message("/bin/sh is not dash here");
			continue;
		}
		for (guint j = 0; j < 2; j++) {
			g_autofree gchar *id = g_strdup_printf("sh%u-%u", i, j);
			g_autofree gchar *params = start_params(fx, id, argv, extra);
			g_autofree gchar *out = NULL;
			g_autofree gchar *err = NULL;

			fixture_start(fx, id, params);
			out = fixture_stream(fx, id, "stdout");
			err = fixture_stream(fx, id, "stderr");
			g_assert_cmpstr(out, ==, cases[i].expected);
			g_assert_cmpstr(err, ==, "");
			g_assert_cmpint(fixture_exit_code(fx, id), ==, 5);
		}
		/* captured once for the two commands */
		g_assert_cmpuint(fixture_runs(fx), ==, ++runs);
	}
}

/* a capture that does not finish its snapshot: the command runs as sent,
 * and so do the later ones of the key, without capturing again */
static void
test_capture_fails(Fixture *fx, gconstpointer user_data)
{
	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *id = g_strdup_printf("b%u", i);
		g_autofree gchar *params = login_params(fx, id, "echo $PROF_VAR", "broken", NULL);
		g_autofree gchar *out = NULL;
		g_autofree gchar *err = NULL;
		g_autoptr(GString) text = g_string_new(params);

		g_string_replace(text, "\"OVER\":", "\"SNAP_BREAK\":\"1\",\"OVER\":", 1);
		fixture_start(fx, id, text->str);
		out = fixture_stream(fx, id, "stdout");
		err = fixture_stream(fx, id, "stderr");
		g_assert_cmpstr(out, ==, "profile-out\nfrom profile\n");
		g_assert_cmpstr(err, ==, "profile-err\n");
	}
	/* the capture, then two commands that ran their login files */
	g_assert_cmpuint(fixture_runs(fx), ==, 3);
}

static void
fixture_setup_small(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--shell-snapshots",
			       "1",
			       "--shell-snapshot-max-bytes",
			       "8192",
			       NULL};
	fixture_setup_args(fx, user_data, args);
}

/* --shell-snapshots and --shell-snapshot-max-bytes bound a session */
static void
test_bounds(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;

	out = fixture_run(fx, "a", "echo $PROF_VAR", "one", NULL);
	g_assert_cmpstr(out, ==, "from profile\n");
	g_clear_pointer(&out, g_free);
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
	/* a second key is one too many: as sent, every time */
	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *id = g_strdup_printf("b%u", i);
		out = fixture_run(fx, id, "echo $PROF_VAR", "two", NULL);
		g_assert_cmpstr(out, ==, "profile-out\nfrom profile\n");
		g_clear_pointer(&out, g_free);
	}
	g_assert_cmpuint(fixture_runs(fx), ==, 3);
	/* the first key still has its snapshot */
	out = fixture_run(fx, "c", "echo $PROF_VAR", "one", NULL);
	g_assert_cmpstr(out, ==, "from profile\n");
	g_clear_pointer(&out, g_free);
	g_assert_cmpuint(fixture_runs(fx), ==, 3);
}

static void
test_too_big(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *params = login_params(fx, "big", "echo ${#BIG}", "one", NULL);
	g_autofree gchar *out = NULL;
	g_autoptr(GString) text = g_string_new(params);

	g_string_replace(text, "\"OVER\":", "\"SNAP_BIG\":\"1\",\"OVER\":", 1);
	fixture_start(fx, "big", text->str);
	out = fixture_stream(fx, "big", "stdout");
	g_assert_cmpstr(out, ==, "profile-out\n10000\n");
	g_assert_cmpuint(fixture_runs(fx), ==, 2);
}

static gboolean
fixture_exists(Fixture *fx, const gchar *name)
{
	g_autofree gchar *path = g_build_filename(fx->home, name, NULL);
	return g_file_test(path, G_FILE_TEST_EXISTS);
}

/* login params with SNAP_SLOW set: the login files take 2 s */
static gchar *
slow_params(Fixture *fx, const gchar *id, const gchar *scope)
{
	g_autofree gchar *params = login_params(fx, id, "echo $PROF_VAR", scope, NULL);
	g_autoptr(GString) text = g_string_new(params);

	g_string_replace(text, "\"OVER\":", "\"SNAP_SLOW\":\"1\",\"OVER\":", 1);
	return g_string_free(g_steal_pointer(&text), FALSE);
}

/* the capture runs beside the main loop: another connection is served
 * while the login files still sleep */
static void
test_slow_capture(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *params = slow_params(fx, "slow", "slow");
	g_autofree gchar *request = NULL;
	g_autoptr(EsdTestWsClient) other = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autoptr(JsonNode) info = NULL;
	g_autofree gchar *other_session = NULL;
	g_autofree gchar *out = NULL;

	request = g_strdup_printf("{\"id\":1,\"method\":\"process/start\",\"params\":%s}", params);
	esd_test_peer_send_text(fx->peer, request);
	for (guint i = 0; i < 100 && !fixture_exists(fx, "slow-started"); i++)
		esd_test_iterate(50);
	g_assert_true(fixture_exists(fx, "slow-started"));
	other = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	other_session = esd_test_peer_handshake(ESD_TEST_PEER(other));
	info = esd_test_peer_call(ESD_TEST_PEER(other),
				  "{\"id\":7,\"method\":\"environment/status\"}");
	esd_assert_json_node_eq(info, "{\"id\":7,\"result\":{\"status\":\"ready\"}}");
	/* answered before the login files woke up */
	g_assert_false(fixture_exists(fx, "slow-done"));
	esd_test_ws_client_close(other);
	reply = fixture_next(fx);
	while (esd_test_json_get(reply, "id") == NULL) {
		g_ptr_array_add(fx->notes, g_steal_pointer(&reply));
		reply = fixture_next(fx);
	}
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.processId"), ==, "slow");
	out = fixture_stream(fx, "slow", "stdout");
	g_assert_cmpstr(out, ==, "from profile\n");
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
}

static void
fixture_setup_timeout(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--shell-snapshot-timeout", "1", NULL};
	fixture_setup_args(fx, user_data, args);
}

/* a capture that takes longer than --shell-snapshot-timeout is killed; the
 * command runs as sent */
static void
test_capture_timeout(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *params = slow_params(fx, "slow", "slow");
	g_autofree gchar *out = NULL;

	fixture_start(fx, "slow", params);
	out = fixture_stream(fx, "slow", "stdout");
	g_assert_cmpstr(out, ==, "profile-out\nfrom profile\n");
	/* the capture and the command both ran the login files */
	g_assert_cmpuint(fixture_runs(fx), ==, 2);
}

/* memfds named esd-shell-snapshot the daemon holds */
static guint
count_snapshot_fds(GPid pid)
{
	g_autofree gchar *dir_path = g_strdup_printf("/proc/%d/fd", pid);
	g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
	const gchar *name;
	guint n = 0;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *link = g_build_filename(dir_path, name, NULL);
		g_autofree gchar *target = g_file_read_link(link, NULL);
		if (target != NULL && g_str_has_prefix(target, "/memfd:esd-shell-snapshot"))
			n++;
	}
	return n;
}

static void
fixture_setup_grace(Fixture *fx, gconstpointer user_data)
{
	const gchar *args[] = {"--session-grace", "1", NULL};
	fixture_setup_args(fx, user_data, args);
}

/* the snapshots go with their session; the command never sees the
 * descriptor (listed by a subshell, which leaves the shell's own alone) */
static void
test_dropped_with_session(Fixture *fx, gconstpointer user_data)
{
	GPid pid = esd_test_daemon_get_pid(fx->daemon);
	g_autofree gchar *out = NULL;

	out = fixture_run(fx, "a", "(cd /proc/$$/fd && echo *)", "one", NULL);
	g_assert_cmpstr(out, ==, "0 1 2\n");
	g_clear_pointer(&out, g_free);
	out = fixture_run(fx, "b", "true", "two", NULL);
	g_assert_cmpuint(count_snapshot_fds(pid), ==, 2);
	/* a new session of another connection captures afresh */
	esd_test_ws_client_close(fx->client);
	g_clear_object(&fx->client);
	for (guint i = 0; i < 50 && count_snapshot_fds(pid) > 0; i++)
		esd_test_iterate(100);
	g_assert_cmpuint(count_snapshot_fds(pid), ==, 0);
	fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
	fx->peer = ESD_TEST_PEER(fx->client);
	g_free(fx->session_id);
	fx->session_id = esd_test_peer_handshake(fx->peer);
	g_ptr_array_set_size(fx->notes, 0);
	g_clear_pointer(&out, g_free);
	out = fixture_run(fx, "c", "echo $PROF_VAR", "one", NULL);
	g_assert_cmpstr(out, ==, "from profile\n");
	g_assert_cmpuint(fixture_runs(fx), ==, 3);
}

static gboolean
bwrap_works(void)
{
	const gchar *probe[] = {"bwrap", "--ro-bind", "/", "/", "--unshare-all", "true", NULL};
	gint status = -1;

	return g_spawn_sync(NULL,
			    (gchar **)probe,
			    NULL,
			    G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
				G_SPAWN_STDERR_TO_DEV_NULL,
			    NULL,
			    NULL,
			    NULL,
			    NULL,
			    &status,
			    NULL) &&
	       status == 0;
}

/* the capture runs in the command's sandbox (HOME read-only there), and
 * the sandboxed shell reads the snapshot through its descriptor */
static void
test_sandbox(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *work_uri = NULL;
	g_autofree gchar *sandbox = NULL;
	g_autofree gchar *more = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *params = NULL;
	g_autoptr(JsonNode) reply = NULL;

	if (!bwrap_works()) {
		g_test_skip("bwrap cannot make a sandbox here");
		return;
	}
	work_uri = g_filename_to_uri(fx->work, NULL, NULL);
	sandbox = g_strdup_printf(
	    "{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
	    "\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},"
	    "\"access\":\"read\"},{\"path\":{\"type\":\"path\",\"path\":\"%s\"},"
	    "\"access\":\"write\"}]},\"network\":\"restricted\"},\"windowsSandboxLevel\":"
	    "\"disabled\"}",
	    work_uri);
	more = g_strdup_printf("\"sandbox\":%s", sandbox);
	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *id = g_strdup_printf("sb%u", i);
		g_clear_pointer(&params, g_free);
		params = login_params(fx,
				      id,
				      "echo \"$PROF_VAR $HOME_WRITABLE\"; prof_fn s; "
				      "(cd /proc/$$/fd && echo *)",
				      "sandboxed",
				      more);
		g_clear_pointer(&reply, json_node_unref);
		reply = fixture_call(fx, "process/start", params);
		g_assert_cmpstr(esd_test_json_get_string(reply, "result.sandboxType"),
				==,
				"linuxSeccomp");
		g_clear_pointer(&out, g_free);
		out = fixture_stream(fx, id, "stdout");
		g_assert_cmpstr(out, ==, "from profile no\nfn:s\n0 1 2\n");
	}
	/* the login files could not count their run in the sandbox */
	g_assert_cmpuint(fixture_runs(fx), ==, 0);
	/* the same login files on the host */
	g_clear_pointer(&out, g_free);
	out = fixture_run(fx, "host", "echo \"$PROF_VAR $HOME_WRITABLE\"", "host", NULL);
	g_assert_cmpstr(out, ==, "from profile yes\n");
	g_assert_cmpuint(fixture_runs(fx), ==, 1);
}

int
main(int argc, char **argv)
{
	const gchar *const transports[] = {"ws", "stdio"};

	g_test_init(&argc, &argv, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(transports); i++) {
#define ADD_FULL(name, setup, func)                                                                \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_autofree gchar *path_ =                                                          \
		    g_strdup_printf("/execserverd/integration/shell-snapshot/%s/%s",               \
				    transports[i],                                                 \
				    name);                                                         \
		g_test_add(path_, Fixture, transports[i], setup, func, fixture_teardown);          \
	}                                                                                          \
	G_STMT_END
#define ADD(name, func) ADD_FULL(name, fixture_setup, func)
		ADD("state", test_state);
		ADD("key", test_key);
		ADD("tty", test_tty);
		ADD("argv-forms", test_argv_forms);
		ADD("invalid", test_invalid);
		ADD("fallback-shells", test_fallback_shells);
		ADD("sh", test_sh);
		ADD("capture-fails", test_capture_fails);
		ADD_FULL("bounds", fixture_setup_small, test_bounds);
		ADD_FULL("too-big", fixture_setup_small, test_too_big);
		ADD("sandbox", test_sandbox);
		ADD_FULL("capture-timeout", fixture_setup_timeout, test_capture_timeout);
		if (i == 0) {
			ADD_FULL("dropped-with-session",
				 fixture_setup_grace,
				 test_dropped_with_session);
			ADD("slow-capture", test_slow_capture);
		}
#undef ADD
#undef ADD_FULL
	}
	return g_test_run();
}
