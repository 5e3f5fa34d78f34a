/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "esd-test-leftovers.h"
#include "esd-test-utils.h"

/*
 * Whole process trees die with their process: on process/terminate, when a
 * detached session expires, when the daemon gets SIGTERM, loses stdin, or
 * is killed outright. The command daemonizes every way a shell can
 * (setsid, a double fork) and ignores SIGTERM. By default the supervisor
 * of each command is a child subreaper and kills the tree itself; with
 * --pid-namespace (root only: CAP_SYS_ADMIN) it is init of a PID namespace
 * of its own and the kernel kills the tree. The tests run both ways.
 */

#define TREE_TEST "/execserverd/process-tree/"
#define MARK_VAR  "ESD_PTEST_MARK"
#define WAIT_MS	  5000

typedef struct {
	gboolean ws;
	const gchar *const *args;
} Variant;

typedef struct {
	const Variant *variant;
	EsdTestDaemon *daemon;
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	GPtrArray *notifications; /* JsonNode */
	guint next_id;
	gchar *token; /* makes this test's sleep arguments unique */
} Fixture;

static guint test_counter = 0;
/* "<test pid>-<n>", in the environment of the daemon and the commands of a test */
static gchar *test_mark = NULL;

/* messages */

static JsonNode *
receive(Fixture *fx, guint timeout_ms)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(fx->peer, timeout_ms);
	g_autofree gchar *text = NULL;
	gsize len = 0;
	const gchar *data;

	if (bytes == NULL)
		g_error("the daemon closed the connection");
	data = g_bytes_get_data(bytes, &len);
	text = g_strndup(data, len);
	return esd_test_json_parse(text);
}

/* sends a request and returns its reply; notifications meanwhile are kept */
static JsonNode *
call(Fixture *fx, const gchar *method, const gchar *params)
{
	guint id = ++fx->next_id;
	g_autofree gchar *text =
	    g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}", id, method, params);
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	esd_test_peer_send_text(fx->peer, text);
	for (;;) {
		JsonNode *msg = receive(fx, WAIT_MS);
		JsonNode *reply_id = esd_test_json_get(msg, "id");
		if (reply_id != NULL && JSON_NODE_HOLDS_VALUE(reply_id) &&
		    json_node_get_int(reply_id) == (gint64)id)
			return msg;
		g_assert_null(reply_id);
		g_ptr_array_add(fx->notifications, msg);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
	}
}

static void
assert_call(Fixture *fx, const gchar *method, const gchar *params, const gchar *expected_result)
{
	g_autoptr(JsonNode) reply = call(fx, method, params);
	g_autofree gchar *expected =
	    g_strdup_printf("{\"id\":%u,\"result\":%s}", fx->next_id, expected_result);
	esd_assert_json_node_eq(reply, expected);
}

static JsonNode *
find_notification(Fixture *fx, const gchar *method, const gchar *process_id)
{
	for (guint i = 0; i < fx->notifications->len; i++) {
		JsonNode *msg = g_ptr_array_index(fx->notifications, i);
		if (g_strcmp0(esd_test_json_get_string(msg, "method"), method) == 0 &&
		    g_strcmp0(esd_test_json_get_string(msg, "params.processId"), process_id) == 0)
			return msg;
	}
	return NULL;
}

static JsonNode *
wait_notification(Fixture *fx, const gchar *method, const gchar *process_id)
{
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;
	JsonNode *msg;

	while ((msg = find_notification(fx, method, process_id)) == NULL) {
		gint64 left = deadline - g_get_monotonic_time();
		if (left <= 0)
			g_error("no %s for %s", method, process_id);
		g_ptr_array_add(fx->notifications, receive(fx, (guint)(left / 1000) + 1));
	}
	return msg;
}

static gchar *
json_quote(const gchar *text)
{
	g_autoptr(JsonNode) node = json_node_init_string(json_node_alloc(), text);
	return json_to_string(node, FALSE);
}

static void
start(Fixture *fx, const gchar *process_id, const gchar *script)
{
	g_autofree gchar *quoted = json_quote(script);
	g_autofree gchar *params = g_strdup_printf(
	    "{\"processId\":\"%s\",\"argv\":[\"/bin/sh\",\"-c\",%s],\"cwd\":\"file:///tmp\","
	    "\"env\":{\"PATH\":\"/usr/bin:/bin\",\"%s\":\"%s\"},\"tty\":false}",
	    process_id,
	    quoted,
	    MARK_VAR,
	    test_mark);
	g_autofree gchar *expected =
	    g_strdup_printf("{\"processId\":\"%s\",\"sandboxType\":\"none\"}", process_id);

	assert_call(fx, "process/start", params, expected);
}

/* the output of a process that ran to its end */
static gchar *
run(Fixture *fx, const gchar *process_id, const gchar *script)
{
	GString *out = g_string_new(NULL);

	start(fx, process_id, script);
	wait_notification(fx, "process/closed", process_id);
	for (guint i = 0; i < fx->notifications->len; i++) {
		JsonNode *msg = g_ptr_array_index(fx->notifications, i);
		g_autofree guchar *data = NULL;
		gsize len = 0;
		if (g_strcmp0(esd_test_json_get_string(msg, "method"), "process/output") != 0 ||
		    g_strcmp0(esd_test_json_get_string(msg, "params.processId"), process_id) != 0)
			continue;
		data = g_base64_decode(esd_test_json_get_string(msg, "params.chunk"), &len);
		g_string_append_len(out, (const gchar *)data, (gssize)len);
	}
	return g_string_free(out, FALSE);
}

/* /proc */

/* the pid of the process whose argv is exactly @argv, or -1 */
static gint
find_argv(const gchar *const *argv)
{
	g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
	const gchar *name;

	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = g_strdup_printf("/proc/%s/cmdline", name);
		g_autofree gchar *cmdline = NULL;
		gsize len = 0;
		gsize pos = 0;
		guint i = 0;

		if (!g_ascii_isdigit(name[0]) || !g_file_get_contents(path, &cmdline, &len, NULL))
			continue;
		for (; argv[i] != NULL && pos < len; i++) {
			if (strcmp(cmdline + pos, argv[i]) != 0)
				break;
			pos += strlen(argv[i]) + 1;
		}
		if (argv[i] == NULL && pos == len)
			return atoi(name);
	}
	return -1;
}

/* the three sleeps of the tree, once all of them run */
static GArray *
wait_tree(Fixture *fx)
{
	GArray *pids = g_array_new(FALSE, FALSE, sizeof(gint));
	gint64 deadline = g_get_monotonic_time() + WAIT_MS * 1000;

	for (guint i = 1; i <= 3; i++) {
		g_autofree gchar *seconds = g_strdup_printf("10%u.%s", i, fx->token);
		const gchar *argv[] = {"sleep", seconds, NULL};
		gint pid;

		while ((pid = find_argv(argv)) < 0) {
			if (g_get_monotonic_time() > deadline)
				g_error("sleep %s never started", seconds);
			esd_test_iterate(20);
		}
		g_array_append_val(pids, pid);
	}
	return pids;
}

static gchar *
pid_state(gint pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", pid);
	g_autofree gchar *stat = NULL;
	const gchar *paren;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return NULL;
	paren = strrchr(stat, ')');
	return g_strdup(paren != NULL && paren[1] != '\0' ? paren + 2 : "?");
}

/* the command name and parent of @pid from /proc/PID/stat; FALSE once it is gone */
static gboolean
proc_stat(gint pid, gchar **comm, gint *ppid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", pid);
	g_autofree gchar *stat = NULL;
	const gchar *open_paren;
	const gchar *close_paren;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return FALSE;
	open_paren = strchr(stat, '(');
	close_paren = strrchr(stat, ')');
	g_assert_nonnull(open_paren);
	g_assert_nonnull(close_paren);
	if (comm != NULL)
		*comm = g_strndup(open_paren + 1, (gsize)(close_paren - open_paren - 1));
	if (ppid != NULL)
		*ppid = atoi(close_paren + 4);
	return TRUE;
}

/* the processes whose parent is @parent and whose command name is @name */
static GArray *
children_named(gint parent, const gchar *name)
{
	GArray *pids = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
	const gchar *entry;

	while ((entry = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *comm = NULL;
		gint pid = atoi(entry);
		gint ppid = 0;

		if (pid > 0 && proc_stat(pid, &comm, &ppid) && ppid == parent &&
		    g_strcmp0(comm, name) == 0)
			g_array_append_val(pids, pid);
	}
	return pids;
}

/* within @timeout_ms every one of @pids is gone: not running, not a zombie */
static void
assert_gone(GArray *pids, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	for (;;) {
		g_autoptr(GString) left = g_string_new(NULL);

		for (guint i = 0; i < pids->len; i++) {
			gint pid = g_array_index(pids, gint, i);
			g_autofree gchar *state = pid_state(pid);
			if (state != NULL)
				g_string_append_printf(left, " %d (state %.1s)", pid, state);
		}
		if (left->len == 0)
			return;
		if (g_get_monotonic_time() > deadline) {
			/* do not leave them behind */
			for (guint i = 0; i < pids->len; i++)
				kill(g_array_index(pids, gint, i), SIGKILL);
			g_error("still there after %u ms:%s", timeout_ms, left->str);
		}
		esd_test_iterate(20);
	}
}

/* fixture */

/* a variant with --pid-namespace needs CAP_SYS_ADMIN; the default runs unprivileged */
static gboolean
have_pid_namespaces(Fixture *fx)
{
	if (fx->variant->args == NULL ||
	    !g_strv_contains((const gchar *const *)fx->variant->args, "--pid-namespace") ||
	    geteuid() == 0)
		return TRUE;
	g_test_skip("a PID namespace per command needs root (CAP_SYS_ADMIN)");
	return FALSE;
}

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_autofree gchar *mark = NULL;
	const gchar *envp[] = {NULL, NULL};

	fx->variant = user_data;
	fx->notifications = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	fx->next_id = 100;
	fx->token = g_strdup_printf("%d%03u", getpid(), ++test_counter);
	g_free(test_mark);
	test_mark = g_strdup_printf("%d-%u", getpid(), test_counter);
	mark = g_strdup_printf("%s=%s", MARK_VAR, test_mark);
	envp[0] = mark;
	if (!fx->variant->ws) {
		g_ptr_array_add(args, (gpointer) "--listen");
		g_ptr_array_add(args, (gpointer) "stdio");
	}
	for (guint i = 0; fx->variant->args != NULL && fx->variant->args[i] != NULL; i++)
		g_ptr_array_add(args, (gpointer)fx->variant->args[i]);
	g_ptr_array_add(args, NULL);
	fx->daemon = esd_test_daemon_new_full((const gchar *const *)args->pdata,
					      envp,
					      NULL,
					      fx->variant->ws);
	if (fx->variant->ws) {
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	} else {
		fx->peer = ESD_TEST_PEER(fx->daemon);
	}
	g_free(esd_test_peer_handshake(fx->peer));
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (esd_test_daemon_is_running(fx->daemon)) {
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	}
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
	g_ptr_array_unref(fx->notifications);
	/* whatever happened, no sleep of this test survives */
	for (guint i = 1; i <= 3; i++) {
		g_autofree gchar *seconds = g_strdup_printf("10%u.%s", i, fx->token);
		const gchar *argv[] = {"sleep", seconds, NULL};
		gint pid = find_argv(argv);
		if (pid > 0) {
			kill(pid, SIGKILL);
			g_error("sleep %s (pid %d) was left behind", seconds, pid);
		}
	}
	g_free(fx->token);
	esd_test_assert_nothing_left(MARK_VAR, test_mark, 3000);
}

/* daemonizes every way a shell can, and ignores SIGTERM */
static void
start_tree(Fixture *fx, const gchar *process_id)
{
	g_autofree gchar *script =
	    g_strdup_printf("setsid sh -c \"sleep 101.%s\" & (sleep 102.%s &); "
			    "trap \"\" TERM; sleep 103.%s",
			    fx->token,
			    fx->token,
			    fx->token);
	start(fx, process_id, script);
}

/* tests */

static void
test_terminate(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;
	JsonNode *exited;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	assert_call(fx, "process/terminate", "{\"processId\":\"tree\"}", "{\"running\":true}");
	assert_gone(pids, 2000);
	exited = wait_notification(fx, "process/exited", "tree");
	g_assert_cmpint(esd_test_json_get_int(exited, "params.exitCode"), ==, 137);
	wait_notification(fx, "process/closed", "tree");
	assert_call(fx, "process/terminate", "{\"processId\":\"tree\"}", "{\"running\":false}");
}

/* --session-grace 1: detached, expired, killed */
static void
test_session_expiry(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	esd_test_ws_client_close(fx->client);
	/* the grace, then at most 2 s */
	assert_gone(pids, 1000 + 2000);
	g_assert_true(esd_test_daemon_is_running(fx->daemon));
}

static void
test_daemon_sigterm(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	esd_test_daemon_send_signal(fx->daemon, SIGTERM);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	assert_gone(pids, 2000);
}

/* nothing of the daemon's runs: the kernel must do it all */
static void
test_daemon_sigkill(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	esd_test_daemon_assert_exit_code(fx->daemon, 128 + SIGKILL, 3000);
	assert_gone(pids, 2000);
}

/* stdio: end of input ends the daemon, and everything it started */
static void
test_stdin_eof(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	esd_test_daemon_close_stdin(fx->daemon);
	esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	assert_gone(pids, 2000);
}

/* two trees in one session, one terminated: the other lives on */
static void
test_terminate_one_of_two(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;
	g_autoptr(GArray) other = NULL;
	g_autofree gchar *first_token = NULL;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "one");
	pids = wait_tree(fx);
	first_token = g_steal_pointer(&fx->token);
	fx->token = g_strdup_printf("%d%03u", getpid(), ++test_counter);
	start_tree(fx, "two");
	other = wait_tree(fx);
	assert_call(fx, "process/terminate", "{\"processId\":\"one\"}", "{\"running\":true}");
	assert_gone(pids, 2000);
	wait_notification(fx, "process/closed", "one");
	for (guint i = 0; i < other->len; i++)
		g_assert_cmpint(kill(g_array_index(other, gint, i), 0), ==, 0);
	assert_call(fx, "process/terminate", "{\"processId\":\"two\"}", "{\"running\":true}");
	assert_gone(other, 2000);
	wait_notification(fx, "process/closed", "two");
}

/* by default the command sees host pids: its $$ is its own /proc entry */
static void
test_pid_namespace(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;

	/* /proc/$$ is this very shell: its command line holds the marker */
	out = run(fx, "pid", "tr '\\0' ' ' < /proc/$$/cmdline; : pid-view-marker");
	g_assert_nonnull(strstr(out, "pid-view-marker"));
}

/* with --pid-namespace the supervisor is init of the namespace, the command pid 2 */
static void
test_pid_namespace_used(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;

	if (!have_pid_namespaces(fx))
		return;
	out = run(fx, "pid", "echo $$");
	g_assert_cmpstr(out, ==, "2\n");
}

/*
 * What a command learns about processes from /proc must match the pids it
 * sees: `pgrep`, `ps -p $!`, `kill $(pgrep ...)` and /proc/$$ are everyday
 * agent tools. With a PID namespace but the host's /proc, they do not.
 */
static void
test_proc_matches_pids(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *script = NULL;
	g_autofree gchar *out = NULL;

	if (!have_pid_namespaces(fx))
		return;
	/* the child is sleep only once it has executed it: ask until then */
	script = g_strdup_printf("sleep 101.%s & p=$!; q=; i=0; "
				 "while [ -z \"$q\" ] && [ $i -lt 100 ]; do "
				 "q=$(pgrep -x -f \"sleep 101.%s\"); i=$((i+1)); "
				 "[ -n \"$q\" ] || sleep 0.05; done; "
				 "s=$(cut -d\" \" -f1 /proc/self/stat); "
				 "kill $p; echo \"bang=$p pgrep=$q self=$$/$s\"",
				 fx->token,
				 fx->token);
	out = run(fx, "view", script);
	g_test_message("%s", out);
	/* the pid of $! as /proc and pgrep report it */
	{
		g_auto(GStrv) fields = g_strsplit_set(g_strchomp(out), " =", -1);
		g_assert_cmpuint(g_strv_length(fields), ==, 6);
		if (g_strcmp0(fields[1], fields[3]) != 0)
			g_error("pgrep inside the command reports pid %s for the process it "
				"started as %s: "
				"the command sees the host's /proc, not its PID namespace (%s)",
				fields[3],
				fields[1],
				out);
	}
}

/*
 * Many processes at once: what a tree kill costs must grow with the tree,
 * not with every process on the host, and a process that was killed but
 * not yet reaped is not a survivor. The figures go to the test log.
 */

#define MANY	      2000
#define MANY_LIMIT_MS 30000
#define DEEP_LEVELS   50
#define DEEP_FAN_OUT  200
#define DEEP_OTHERS   100
#define DEEP_LIMIT_MS 3000
#define MANY_FIRST_ID 100000

/* enough processes and descriptors for @n commands and their supervisors */
static gboolean
have_room_for(guint n)
{
	struct rlimit procs;
	struct rlimit files;

	g_assert_cmpint(getrlimit(RLIMIT_NPROC, &procs), ==, 0);
	g_assert_cmpint(getrlimit(RLIMIT_NOFILE, &files), ==, 0);
	/* root is not held to RLIMIT_NPROC */
	if (geteuid() != 0 && procs.rlim_cur != RLIM_INFINITY && procs.rlim_cur < 3 * n) {
		g_test_skip_printf("ulimit -u is %lu: %u commands need twice as many processes",
				   (gulong)procs.rlim_cur,
				   n);
		return FALSE;
	}
	/* the daemon raises its soft limit to the hard one; three pipes a command */
	if (files.rlim_max != RLIM_INFINITY && files.rlim_max < 4 * n + 256) {
		g_test_skip_printf("the descriptor limit %lu is too low for %u commands",
				   (gulong)files.rlim_max,
				   n);
		return FALSE;
	}
	return TRUE;
}

/*
 * The processes of this test but the daemon: supervisors, commands and
 * zombies the daemon did not reap. The daemon is the marked process this
 * test started. A supervisor forked by the spawn server has the server's
 * empty environment: it is counted as a child of the daemon.
 */
static guint
count_below_daemon(Fixture *fx, const gchar *name)
{
	g_autoptr(GPtrArray) found = esd_test_leftovers_find(MARK_VAR, test_mark);
	g_autoptr(GArray) supervisors = NULL;
	guint n = 0;

	for (guint i = 0; i < found->len; i++) {
		EsdTestLeftover *leftover = g_ptr_array_index(found, i);
		if (leftover->marked && leftover->ppid == getpid())
			continue;
		if (name == NULL || g_strcmp0(leftover->name, name) == 0)
			n++;
	}
	if (name != NULL || !esd_test_daemon_is_running(fx->daemon))
		return n;
	supervisors = children_named(esd_test_daemon_get_pid(fx->daemon), "esd-supervise");
	for (guint i = 0; i < supervisors->len; i++) {
		gint pid = g_array_index(supervisors, gint, i);
		gboolean marked = FALSE;
		for (guint j = 0; j < found->len && !marked; j++)
			marked = ((EsdTestLeftover *)g_ptr_array_index(found, j))->pid == pid;
		if (!marked)
			n++;
	}
	return n;
}

static void
wait_count_below_daemon(Fixture *fx, const gchar *name, guint count, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	guint n;

	while ((n = count_below_daemon(fx, name)) != count) {
		if (g_get_monotonic_time() > deadline)
			g_error("%u processes named '%s' below the daemon after %u ms, not %u",
				n,
				name != NULL ? name : "*",
				timeout_ms,
				count);
		esd_test_iterate(50);
	}
}

/*
 * Terminates @n processes "m0"… at once: every one exits with 137 before
 * it closes, all within MANY_LIMIT_MS; returns the time it took in ms.
 */
static gdouble
terminate_all(Fixture *fx, guint n, const gchar *id_prefix)
{
	g_autoptr(GHashTable) exited = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	gint64 start = g_get_monotonic_time();
	gint64 deadline = start + MANY_LIMIT_MS * 1000;
	guint replies = 0;
	guint closed = 0;

	for (guint i = 0; i < n; i++) {
		g_autofree gchar *text =
		    g_strdup_printf("{\"id\":%u,\"method\":\"process/terminate\","
				    "\"params\":{\"processId\":\"%s%u\"}}",
				    MANY_FIRST_ID + i,
				    id_prefix,
				    i);
		esd_test_peer_send_text(fx->peer, text);
	}
	while (replies < n || closed < n) {
		gint64 left = deadline - g_get_monotonic_time();
		g_autoptr(JsonNode) msg = NULL;
		const gchar *method;
		const gchar *process_id;

		if (left <= 0)
			g_error("after %u ms: %u of %u terminated processes closed",
				MANY_LIMIT_MS,
				closed,
				n);
		msg = receive(fx, (guint)(left / 1000) + 1);
		if (esd_test_json_get(msg, "method") == NULL) {
			g_assert_cmpint(esd_test_json_get_int(msg, "id"), >=, MANY_FIRST_ID);
			esd_assert_json_node_eq(esd_test_json_get(msg, "result"),
						"{\"running\":true}");
			replies++;
			continue;
		}
		method = esd_test_json_get_string(msg, "method");
		process_id = esd_test_json_get_string(msg, "params.processId");
		if (g_strcmp0(method, "process/exited") == 0) {
			g_assert_cmpint(esd_test_json_get_int(msg, "params.exitCode"), ==, 137);
			g_assert_true(g_hash_table_add(exited, g_strdup(process_id)));
		} else if (g_strcmp0(method, "process/closed") == 0) {
			/* in order: the exit first */
			g_assert_true(g_hash_table_contains(exited, process_id));
			closed++;
		} else {
			g_error("unexpected %s for %s", method, process_id);
		}
	}
	g_assert_cmpuint(g_hash_table_size(exited), ==, n);
	return (gdouble)(g_get_monotonic_time() - start) / 1000;
}

/* MANY `sleep`s, each a process of its own, terminated at once */
static void
test_terminate_many(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *sleep_name = g_strdup_printf("sleep 600.%s", fx->token);
	g_autofree gchar *script = g_strdup_printf("exec sleep 600.%s", fx->token);
	gint64 began = g_get_monotonic_time();
	gdouble took;

	if (!have_room_for(MANY))
		return;
	for (guint i = 0; i < MANY; i++) {
		g_autofree gchar *process_id = g_strdup_printf("m%u", i);
		start(fx, process_id, script);
	}
	wait_count_below_daemon(fx, sleep_name, MANY, 30000);
	g_test_message("%u processes started in %.0f ms",
		       MANY,
		       (gdouble)(g_get_monotonic_time() - began) / 1000);
	took = terminate_all(fx, MANY, "m");
	g_test_message("%u processes terminated at once: all closed after %.0f ms", MANY, took);
	/* supervisors gone and reaped too */
	wait_count_below_daemon(fx, NULL, 0, 5000);
}

/* one command with MANY children, terminated */
static void
test_terminate_fan_out(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *sleep_name = g_strdup_printf("sleep 600.%s", fx->token);
	g_autofree gchar *script =
	    g_strdup_printf("i=0; while [ $i -lt %u ]; do sleep 600.%s & i=$((i + 1)); done; wait",
			    MANY,
			    fx->token);
	gdouble took;

	if (!have_room_for(MANY))
		return;
	start(fx, "m0", script);
	wait_count_below_daemon(fx, sleep_name, MANY, 60000);
	took = terminate_all(fx, 1, "m");
	g_test_message("one command with %u children terminated: closed after %.0f ms", MANY, took);
	wait_count_below_daemon(fx, NULL, 0, 5000);
}

/*
 * A chain of DEEP_LEVELS nested shells, every other one in a session of its
 * own, DEEP_FAN_OUT sleeps at the bottom, and DEEP_OTHERS processes beside
 * it; the daemon is SIGKILLed: every supervisor has only the kernel's word
 * (PR_SET_PDEATHSIG) to go on, all of them at once.
 */
static void
test_daemon_sigkill_deep(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *sleep_name = g_strdup_printf("sleep 600.%s", fx->token);
	g_autofree gchar *level = g_strdup_printf(
	    "d=$1; if [ $d -gt 0 ]; then "
	    "if [ $((d %% 2)) = 0 ]; then setsid sh -c \"$CHAIN\" sh $((d - 1)) & "
	    "else sh -c \"$CHAIN\" sh $((d - 1)) & fi; "
	    "else i=0; while [ $i -lt %u ]; do sleep 600.%s & i=$((i + 1)); done; fi; wait",
	    DEEP_FAN_OUT,
	    fx->token);
	g_autofree gchar *script = g_strdup_printf("exec sleep 600.%s", fx->token);
	g_autofree gchar *quoted = json_quote(level);
	g_autofree gchar *params = g_strdup_printf(
	    "{\"processId\":\"deep\",\"argv\":[\"/bin/sh\",\"-c\",%s,\"sh\",\"%u\"],"
	    "\"cwd\":\"file:///tmp\",\"env\":{\"PATH\":\"/usr/bin:/bin\",\"CHAIN\":%s,"
	    "\"%s\":\"%s\"},\"tty\":false}",
	    quoted,
	    DEEP_LEVELS,
	    quoted,
	    MARK_VAR,
	    test_mark);
	g_autofree gchar *report = NULL;
	gint64 began;
	gdouble took;

	assert_call(fx,
		    "process/start",
		    params,
		    "{\"processId\":\"deep\",\"sandboxType\":\"none\"}");
	for (guint i = 0; i < DEEP_OTHERS; i++) {
		g_autofree gchar *process_id = g_strdup_printf("other%u", i);
		start(fx, process_id, script);
	}
	wait_count_below_daemon(fx, sleep_name, DEEP_FAN_OUT + DEEP_OTHERS, 30000);
	/* the supervisors, every level, the sleeps */
	wait_count_below_daemon(fx,
				NULL,
				1 + (DEEP_LEVELS + 1) + DEEP_FAN_OUT + 2 * DEEP_OTHERS,
				5000);
	began = g_get_monotonic_time();
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	esd_test_daemon_assert_exit_code(fx->daemon, 128 + SIGKILL, 3000);
	if (!esd_test_leftovers_wait_none(MARK_VAR, test_mark, 10000, &report))
		g_error("left behind by a daemon killed 10 s ago (now killed):%s", report);
	took = (gdouble)(g_get_monotonic_time() - began) / 1000;
	g_test_message("daemon SIGKILLed: %u nested shells, %u sleeps below them and %u "
		       "processes beside them gone after %.0f ms",
		       DEEP_LEVELS + 1,
		       DEEP_FAN_OUT,
		       DEEP_OTHERS,
		       took);
	g_assert_cmpfloat(took, <, DEEP_LIMIT_MS);
}

/*
 * The spawn server: one child of the daemon that forks every supervisor
 * with CLONE_PARENT. The chain is daemon → supervisor → command, the server
 * beside the supervisors; nothing of it outlives the daemon.
 */

#define SERVER_NAME	"esd-spawn-srv"
#define SUPERVISOR_NAME "esd-supervise"

/* the daemon's spawn server, once it runs (after the first spawn) */
static gint
find_server(Fixture *fx)
{
	gint64 deadline = g_get_monotonic_time() + 2 * G_USEC_PER_SEC;
	g_autoptr(GArray) servers = NULL;

	/* a spare is named after the server until it renames itself */
	for (;;) {
		g_clear_pointer(&servers, g_array_unref);
		servers = children_named(esd_test_daemon_get_pid(fx->daemon), SERVER_NAME);
		if (servers->len == 1 || g_get_monotonic_time() > deadline)
			break;
		g_usleep(10000);
	}
	g_assert_cmpuint(servers->len, ==, 1);
	return g_array_index(servers, gint, 0);
}

static GArray *
find_supervisors(Fixture *fx)
{
	return children_named(esd_test_daemon_get_pid(fx->daemon), SUPERVISOR_NAME);
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* the names in /proc/@pid/@what, sorted, joined by spaces */
static gchar *
proc_dir_names(gint pid, const gchar *what)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/%s", pid, what);
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const gchar *name;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, compare_names);
	g_ptr_array_add(names, NULL);
	return g_strjoinv(" ", (gchar **)names->pdata);
}

static gchar *
proc_fd_target(gint pid, gint fd)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/fd/%d", pid, fd);
	gchar *target = g_file_read_link(path, NULL);

	g_assert_nonnull(target);
	return target;
}

/* the daemon SIGKILLed: the tree, its supervisor and the server are gone */
static void
test_server_daemon_sigkill(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;
	g_autoptr(GArray) supervisors = NULL;
	gint server;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	server = find_server(fx);
	supervisors = find_supervisors(fx);
	g_assert_cmpuint(supervisors->len, ==, 1);
	g_array_append_vals(pids, supervisors->data, supervisors->len);
	g_array_append_val(pids, server);
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	esd_test_daemon_assert_exit_code(fx->daemon, 128 + SIGKILL, 3000);
	assert_gone(pids, 2000);
}

/*
 * The server killed: running commands go on, the daemon reaps it; the
 * daemon then SIGKILLed: the commands still die with it.
 */
static void
test_server_killed_daemon_sigkill(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) pids = NULL;
	g_autoptr(GArray) supervisors = NULL;
	g_autoptr(GArray) server = g_array_new(FALSE, FALSE, sizeof(gint));
	gint pid;

	if (!have_pid_namespaces(fx))
		return;
	start_tree(fx, "tree");
	pids = wait_tree(fx);
	pid = find_server(fx);
	g_array_append_val(server, pid);
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	/* gone means reaped too: a zombie still has its /proc entry */
	assert_gone(server, 2000);
	for (guint i = 0; i < pids->len; i++)
		g_assert_cmpint(kill(g_array_index(pids, gint, i), 0), ==, 0);
	supervisors = find_supervisors(fx);
	g_assert_cmpuint(supervisors->len, ==, 1);
	g_array_append_vals(pids, supervisors->data, supervisors->len);
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	esd_test_daemon_assert_exit_code(fx->daemon, 128 + SIGKILL, 3000);
	assert_gone(pids, 2000);
}

/* a killed server is reaped and replaced: the next spawn works */
static void
test_server_restart(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) old = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autofree gchar *first = NULL;
	g_autofree gchar *second = NULL;
	gint pid;

	first = run(fx, "one", "echo one");
	g_assert_cmpstr(first, ==, "one\n");
	pid = find_server(fx);
	g_array_append_val(old, pid);
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	assert_gone(old, 2000);
	second = run(fx, "two", "echo two");
	g_assert_cmpstr(second, ==, "two\n");
	g_assert_cmpint(find_server(fx), !=, pid);
}

/*
 * The command has 0, 1 and 2 only, no signal blocked or ignored; the server has /dev/null as 0, 1,
 * 2, its socket as 3, the two ends of its alive pipe as 4 and 5 and an empty environment: nothing
 * of the daemon's; a supervisor has 0, 1, 2 and the report pipe as 3.
 */
static void
test_server_descriptors(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;
	g_autofree gchar *fds = NULL;
	g_autofree gchar *environ_text = NULL;
	g_autofree gchar *environ_path = NULL;
	g_autofree gchar *socket_target = NULL;
	g_autofree gchar *report_target = NULL;
	g_autofree gchar *sleep_arg = g_strdup_printf("104.%s", fx->token);
	g_autofree gchar *script = g_strdup_printf("exec sleep %s", sleep_arg);
	const gchar *argv[] = {"sleep", sleep_arg, NULL};
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(gint));
	gint command;
	gint supervisor;
	gint server;
	gsize len = 0;

	/* ls is a child of the shell (not its last command, which it might exec) */
	out = run(fx, "fds", "ls /proc/$$/fd; true");
	g_assert_cmpstr(out, ==, "0\n1\n2\n");
	/* nor a signal the daemon ignores (SIGPIPE) or the supervisor blocks */
	g_clear_pointer(&out, g_free);
	out = run(fx, "signals", "exec grep -E '^Sig(Blk|Ign)' /proc/self/status");
	g_assert_cmpstr(out, ==, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");

	server = find_server(fx);
	fds = proc_dir_names(server, "fd");
	g_assert_cmpstr(fds, ==, "0 1 2 3 4 5");
	for (gint fd = 0; fd <= 2; fd++) {
		g_autofree gchar *target = proc_fd_target(server, fd);
		g_assert_cmpstr(target, ==, "/dev/null");
	}
	socket_target = proc_fd_target(server, 3);
	g_assert_true(g_str_has_prefix(socket_target, "socket:"));
	/* both ends of the pipe that tells spares the server is alive */
	for (gint fd = 4; fd <= 5; fd++) {
		g_autofree gchar *target = proc_fd_target(server, fd);
		g_assert_true(g_str_has_prefix(target, "pipe:"));
	}
	environ_path = g_strdup_printf("/proc/%d/environ", server);
	g_assert_true(g_file_get_contents(environ_path, &environ_text, &len, NULL));
	g_assert_cmpuint(len, ==, 0);

	start(fx, "sleeper", script);
	while ((command = find_argv(argv)) < 0)
		esd_test_iterate(20);
	g_assert_true(proc_stat(command, NULL, &supervisor));
	g_clear_pointer(&fds, g_free);
	fds = proc_dir_names(supervisor, "fd");
	g_assert_cmpstr(fds, ==, "0 1 2 3");
	report_target = proc_fd_target(supervisor, 3);
	g_assert_true(g_str_has_prefix(report_target, "pipe:"));
	assert_call(fx, "process/terminate", "{\"processId\":\"sleeper\"}", "{\"running\":true}");
	g_array_append_val(gone, command);
	assert_gone(gone, 2000);
}

/* a request too large for one message to the server is exec-ed per command */
static void
test_server_large_request(Fixture *fx, gconstpointer user_data)
{
	/* one string may not exceed 128 KiB (MAX_ARG_STRLEN) */
	g_autofree gchar *big = g_strnfill(100000, 'x');
	g_autofree gchar *params = g_strdup_printf(
	    "{\"processId\":\"big\",\"argv\":[\"/bin/sh\",\"-c\","
	    "\"printf %%s \\\"$BIG1$BIG2$BIG3\\\" | wc -c\"],\"cwd\":\"file:///tmp\","
	    "\"env\":{\"PATH\":\"/usr/bin:/bin\",\"BIG1\":\"%s\",\"BIG2\":\"%s\","
	    "\"BIG3\":\"%s\",\"%s\":\"%s\"},\"tty\":false}",
	    big,
	    big,
	    big,
	    MARK_VAR,
	    test_mark);
	g_autofree gchar *small = NULL;
	GString *out = g_string_new(NULL);
	g_autofree gchar *text = NULL;

	assert_call(fx,
		    "process/start",
		    params,
		    "{\"processId\":\"big\",\"sandboxType\":\"none\"}");
	wait_notification(fx, "process/closed", "big");
	for (guint i = 0; i < fx->notifications->len; i++) {
		JsonNode *msg = g_ptr_array_index(fx->notifications, i);
		g_autofree guchar *data = NULL;
		gsize len = 0;
		if (g_strcmp0(esd_test_json_get_string(msg, "method"), "process/output") != 0)
			continue;
		data = g_base64_decode(esd_test_json_get_string(msg, "params.chunk"), &len);
		g_string_append_len(out, (const gchar *)data, (gssize)len);
	}
	text = g_string_free(out, FALSE);
	g_assert_cmpstr(g_strstrip(text), ==, "300000");
	/* and the server still serves the next one */
	small = run(fx, "small", "echo small");
	g_assert_cmpstr(small, ==, "small\n");
	g_assert_cmpint(find_server(fx), >, 0);
}

/* the documented chain: daemon → supervisor → command; the server is the daemon's child */
static void
test_server_parent_chain(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *sleep_arg = g_strdup_printf("104.%s", fx->token);
	g_autofree gchar *script = g_strdup_printf("exec sleep %s", sleep_arg);
	const gchar *argv[] = {"sleep", sleep_arg, NULL};
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autofree gchar *comm = NULL;
	gint daemon = esd_test_daemon_get_pid(fx->daemon);
	gint command;
	gint supervisor = 0;
	gint parent = 0;
	gint server;

	if (!have_pid_namespaces(fx))
		return;
	start(fx, "sleeper", script);
	while ((command = find_argv(argv)) < 0)
		esd_test_iterate(20);
	g_assert_true(proc_stat(command, NULL, &supervisor));
	g_assert_true(proc_stat(supervisor, &comm, &parent));
	g_assert_cmpstr(comm, ==, SUPERVISOR_NAME);
	g_assert_cmpint(parent, ==, daemon);
	server = find_server(fx);
	g_assert_cmpint(server, !=, supervisor);
	g_assert_true(proc_stat(server, NULL, &parent));
	g_assert_cmpint(parent, ==, daemon);
	assert_call(fx, "process/terminate", "{\"processId\":\"sleeper\"}", "{\"running\":true}");
	g_array_append_val(gone, command);
	g_array_append_val(gone, supervisor);
	assert_gone(gone, 2000);
}

/*
 * The spare supervisor: forked ahead by the server, a child of the daemon,
 * it takes the next command. The names below are its comm before and
 * after it took one.
 */

#define SPARE_NAME "esd-spare"

/* the daemon's spare, once there (after the first spawn) */
static gint
wait_spare(Fixture *fx, gint old)
{
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

	for (;;) {
		g_autoptr(GArray) spares =
		    children_named(esd_test_daemon_get_pid(fx->daemon), SPARE_NAME);
		gint pid = spares->len == 1 ? g_array_index(spares, gint, 0) : 0;

		g_assert_cmpuint(spares->len, <=, 1);
		if (pid > 0 && pid != old)
			return pid;
		if (g_get_monotonic_time() > deadline)
			g_error("no new spare below the daemon after 5 s (%u there)", spares->len);
		esd_test_iterate(20);
	}
}

/* a sleep started with @process_id: its pid and its supervisor's */
static gint
start_sleeper(Fixture *fx, const gchar *process_id, gint *supervisor)
{
	g_autofree gchar *sleep_arg = g_strdup_printf("105.%s", fx->token);
	g_autofree gchar *script = g_strdup_printf("exec sleep %s", sleep_arg);
	const gchar *argv[] = {"sleep", sleep_arg, NULL};
	gint command;

	start(fx, process_id, script);
	while ((command = find_argv(argv)) < 0)
		esd_test_iterate(20);
	g_assert_true(proc_stat(command, NULL, supervisor));
	return command;
}

/*
 * The spare is the daemon's child with /dev/null as 0, 1, 2, its socket as
 * 3, the server's alive pipe as 4 and an empty environment; the next command
 * runs under it, and a new spare replaces it.
 */
static void
test_spare_used(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *out = NULL;
	g_autofree gchar *fds = NULL;
	g_autofree gchar *socket_target = NULL;
	g_autofree gchar *pipe_target = NULL;
	g_autofree gchar *server_pipe = NULL;
	g_autofree gchar *environ_path = NULL;
	g_autofree gchar *environ_text = NULL;
	g_autofree gchar *comm = NULL;
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(gint));
	gint daemon = esd_test_daemon_get_pid(fx->daemon);
	gint spare;
	gint next;
	gint parent = 0;
	gint command;
	gint supervisor = 0;
	gsize len = 0;

	out = run(fx, "first", "echo first");
	g_assert_cmpstr(out, ==, "first\n");
	spare = wait_spare(fx, 0);
	g_assert_true(proc_stat(spare, NULL, &parent));
	g_assert_cmpint(parent, ==, daemon);
	fds = proc_dir_names(spare, "fd");
	g_assert_cmpstr(fds, ==, "0 1 2 3 4");
	for (gint fd = 0; fd <= 2; fd++) {
		g_autofree gchar *target = proc_fd_target(spare, fd);
		g_assert_cmpstr(target, ==, "/dev/null");
	}
	socket_target = proc_fd_target(spare, 3);
	g_assert_true(g_str_has_prefix(socket_target, "socket:"));
	pipe_target = proc_fd_target(spare, 4);
	server_pipe = proc_fd_target(find_server(fx), 4);
	g_assert_cmpstr(pipe_target, ==, server_pipe);
	environ_path = g_strdup_printf("/proc/%d/environ", spare);
	g_assert_true(g_file_get_contents(environ_path, &environ_text, &len, NULL));
	g_assert_cmpuint(len, ==, 0);

	command = start_sleeper(fx, "sleeper", &supervisor);
	g_assert_cmpint(supervisor, ==, spare);
	g_assert_true(proc_stat(supervisor, &comm, &parent));
	g_assert_cmpstr(comm, ==, SUPERVISOR_NAME);
	g_assert_cmpint(parent, ==, daemon);
	/* nothing of the spare's is left to it: the report pipe as 3 only */
	g_clear_pointer(&fds, g_free);
	fds = proc_dir_names(supervisor, "fd");
	g_assert_cmpstr(fds, ==, "0 1 2 3");
	next = wait_spare(fx, spare);
	g_assert_cmpint(next, !=, spare);
	assert_call(fx, "process/terminate", "{\"processId\":\"sleeper\"}", "{\"running\":true}");
	g_array_append_val(gone, command);
	g_array_append_val(gone, supervisor);
	assert_gone(gone, 2000);
}

/* the daemon SIGKILLed: the spare goes with it */
static void
test_spare_daemon_sigkill(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autofree gchar *out = run(fx, "first", "echo first");
	gint spare = wait_spare(fx, 0);

	g_array_append_val(gone, spare);
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	esd_test_daemon_assert_exit_code(fx->daemon, 128 + SIGKILL, 3000);
	assert_gone(gone, 2000);
}

/*
 * The server killed: its spare dies by itself (the daemon, stopped, does
 * not kill it) and is reaped; the next spawn gets a new one.
 */
static void
test_spare_server_killed(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autofree gchar *out = run(fx, "first", "echo first");
	g_autofree gchar *second = NULL;
	gint spare = wait_spare(fx, 0);
	gint server = find_server(fx);
	gint64 deadline;

	g_array_append_val(gone, spare);
	g_array_append_val(gone, server);
	esd_test_daemon_send_signal(fx->daemon, SIGSTOP);
	g_assert_cmpint(kill(server, SIGKILL), ==, 0);
	deadline = g_get_monotonic_time() + 2 * G_USEC_PER_SEC;
	for (;;) {
		g_autofree gchar *state = pid_state(spare);
		if (state == NULL || state[0] == 'Z')
			break;
		if (g_get_monotonic_time() > deadline) {
			esd_test_daemon_send_signal(fx->daemon, SIGCONT);
			g_error("the spare outlived its server by 2 s (state %.1s)", state);
		}
		g_usleep(10000);
	}
	esd_test_daemon_send_signal(fx->daemon, SIGCONT);
	/* gone means reaped too: a zombie still has its /proc entry */
	assert_gone(gone, 2000);
	second = run(fx, "second", "echo second");
	g_assert_cmpstr(second, ==, "second\n");
	g_assert_cmpint(wait_spare(fx, spare), !=, spare);
}

/* a PID namespace per command is the server's work: no spare waits for one */
static void
test_spare_pid_namespace(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(GArray) spares = NULL;
	g_autofree gchar *out = NULL;
	gint supervisor = 0;
	gint command;

	if (!have_pid_namespaces(fx))
		return;
	out = run(fx, "first", "echo first");
	command = start_sleeper(fx, "sleeper", &supervisor);
	esd_test_iterate(200);
	spares = children_named(esd_test_daemon_get_pid(fx->daemon), SPARE_NAME);
	g_assert_cmpuint(spares->len, ==, 0);
	assert_call(fx, "process/terminate", "{\"processId\":\"sleeper\"}", "{\"running\":true}");
	g_array_append_val(gone, command);
	assert_gone(gone, 2000);
}

static const gchar *const no_args[] = {NULL};
static const gchar *const grace_args[] = {"--session-grace", "1", NULL};
static const gchar *const many_args[] = {"--max-processes", "2100", NULL};
static const gchar *const ns_args[] = {"--pid-namespace", NULL};
static const gchar *const ns_grace_args[] = {"--pid-namespace", "--session-grace", "1", NULL};
static const gchar *const exec_args[] = {"--no-spawn-server", NULL};
static const gchar *const exec_grace_args[] = {"--no-spawn-server", "--session-grace", "1", NULL};

static GPtrArray *variants = NULL;

typedef void (*FixtureFunc)(Fixture *fx, gconstpointer user_data);

static void
add(const gchar *name, gboolean ws, gboolean stdio, const gchar *const *args, FixtureFunc func)
{
	for (guint i = 0; i < 2; i++) {
		Variant *variant;
		g_autofree gchar *path = NULL;

		if ((i == 0 && !ws) || (i == 1 && !stdio))
			continue;
		variant = g_new0(Variant, 1);
		variant->ws = i == 0;
		variant->args = args;
		g_ptr_array_add(variants, variant);
		path = g_strdup_printf(TREE_TEST "%s/%s", variant->ws ? "ws" : "stdio", name);
		g_test_add(path, Fixture, variant, fixture_setup, func, fixture_teardown);
	}
}

int
main(int argc, char **argv)
{
	gint rc;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	variants = g_ptr_array_new_with_free_func(g_free);

	add("terminate", TRUE, TRUE, no_args, test_terminate);
	add("terminate-one-of-two", TRUE, FALSE, no_args, test_terminate_one_of_two);
	add("session-expiry", TRUE, FALSE, grace_args, test_session_expiry);
	add("daemon-sigterm", TRUE, TRUE, no_args, test_daemon_sigterm);
	add("daemon-sigkill", TRUE, TRUE, no_args, test_daemon_sigkill);
	add("stdin-eof", FALSE, TRUE, no_args, test_stdin_eof);
	add("pid-namespace", TRUE, TRUE, no_args, test_pid_namespace);
	add("terminate-many", TRUE, FALSE, many_args, test_terminate_many);
	add("terminate-fan-out", TRUE, FALSE, no_args, test_terminate_fan_out);
	add("daemon-sigkill-deep", TRUE, FALSE, no_args, test_daemon_sigkill_deep);
	/* the kernel kills the tree with its PID namespace */
	add("pid-ns/in-use", TRUE, TRUE, ns_args, test_pid_namespace_used);
	add("pid-ns/terminate", TRUE, TRUE, ns_args, test_terminate);
	add("pid-ns/terminate-one-of-two", TRUE, FALSE, ns_args, test_terminate_one_of_two);
	add("pid-ns/session-expiry", TRUE, FALSE, ns_grace_args, test_session_expiry);
	add("pid-ns/daemon-sigterm", TRUE, TRUE, ns_args, test_daemon_sigterm);
	add("pid-ns/daemon-sigkill", TRUE, TRUE, ns_args, test_daemon_sigkill);
	add("pid-ns/stdin-eof", FALSE, TRUE, ns_args, test_stdin_eof);
	/* the spawn server's own guarantees */
	add("spawn-server/daemon-sigkill", TRUE, TRUE, no_args, test_server_daemon_sigkill);
	add("spawn-server/killed-then-daemon-sigkill",
	    TRUE,
	    FALSE,
	    no_args,
	    test_server_killed_daemon_sigkill);
	add("spawn-server/restart", TRUE, FALSE, no_args, test_server_restart);
	add("spawn-server/descriptors", TRUE, TRUE, no_args, test_server_descriptors);
	add("spawn-server/parent-chain", TRUE, FALSE, no_args, test_server_parent_chain);
	add("spawn-server/large-request", TRUE, FALSE, no_args, test_server_large_request);
	add("spawn-server/pid-ns/parent-chain", TRUE, FALSE, ns_args, test_server_parent_chain);
	add("spawn-server/pid-ns/daemon-sigkill", TRUE, FALSE, ns_args, test_server_daemon_sigkill);
	add("spawn-server/spare/used", TRUE, FALSE, no_args, test_spare_used);
	add("spawn-server/spare/daemon-sigkill", TRUE, FALSE, no_args, test_spare_daemon_sigkill);
	add("spawn-server/spare/server-killed", TRUE, FALSE, no_args, test_spare_server_killed);
	add("spawn-server/pid-ns/no-spare", TRUE, FALSE, ns_args, test_spare_pid_namespace);
	/* a supervisor exec-ed per command, as without the server */
	add("exec/terminate", TRUE, TRUE, exec_args, test_terminate);
	add("exec/session-expiry", TRUE, FALSE, exec_grace_args, test_session_expiry);
	add("exec/daemon-sigkill", TRUE, TRUE, exec_args, test_daemon_sigkill);
	add("exec/daemon-sigkill-deep", TRUE, FALSE, exec_args, test_daemon_sigkill_deep);
	/* without a PID namespace, what /proc shows matches the pids a command sees */
	{
		Variant *variant = g_new0(Variant, 1);
		variant->ws = TRUE;
		variant->args = no_args;
		g_ptr_array_add(variants, variant);
		g_test_add(TREE_TEST "pid-view/ws/proc-matches-pids",
			   Fixture,
			   variant,
			   fixture_setup,
			   test_proc_matches_pids,
			   fixture_teardown);
	}

	rc = g_test_run();
	g_ptr_array_unref(variants);
	g_free(test_mark);
	return rc;
}
