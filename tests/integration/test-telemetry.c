/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "esd-test-utils.h"

/*
 * The lifecycle records of processes: start, spawn failure, sandbox denial
 * and exit, attributed to the session and to process/start's `metadata`.
 * On stderr as text (-v), and under systemd as journal records with their
 * fields: the journal socket is a datagram socket of this test, bound over
 * /run/systemd/journal inside `bwrap`, and the daemon's stderr is its
 * JOURNAL_STREAM. No record carries an argument, an environment value or
 * the output of a command.
 */

#define THREAD_ID "0b7e5a52-1c3d-4e8f-9a6b-2d4c6e8f0a1b"
#define SECRET	  "SECRET-7f3a9c"

#define ID_STARTED	"c5a5ba5318ba4d4395351ce8abefc6fd"
#define ID_SPAWN_FAILED "b6fa7b41db1842bcbd66dc7c3f866b31"
#define ID_EXITED	"7de0aa6eb2dc469bb8529ad0cb775139"

/* the messages until process/closed of @process_id */
static void
wait_closed(EsdTestPeer *peer, const gchar *process_id)
{
	while (TRUE) {
		g_autoptr(JsonNode) message = esd_test_peer_receive_json(peer);
		const gchar *method;

		g_assert_nonnull(message);
		if (esd_test_json_get(message, "method") == NULL)
			continue;
		method = esd_test_json_get_string(message, "method");
		if (g_str_equal(method, "process/closed") &&
		    g_strcmp0(esd_test_json_get_string(message, "params.processId"), process_id) ==
			0)
			return;
	}
}

/* p1: killed by a signal after printing the secret; p2: not found; bad metadata */
static void
run_commands(EsdTestPeer *peer)
{
	g_autoptr(JsonNode) reply = NULL;

	reply = esd_test_peer_call(
	    peer,
	    "{\"id\":10,\"method\":\"process/start\",\"params\":{\"processId\":\"p1\","
	    "\"argv\":[\"sh\",\"-c\",\"echo $TOKEN $0; kill -9 $$\",\"" SECRET "-arg\"],"
	    "\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\",\"TOKEN\":\"" SECRET
	    "-env\"},\"tty\":false,\"metadata\":{\"threadId\":\"" THREAD_ID "\","
	    "\"toolCallId\":\"call_\\u0001\\nMESSAGE_ID=forged\"}}}");
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	wait_closed(peer, "p1");
	g_clear_pointer(&reply, json_node_unref);
	reply = esd_test_peer_call(peer,
				   "{\"id\":11,\"method\":\"process/start\",\"params\":{"
				   "\"processId\":\"p2\",\"argv\":[\"/nonexistent/" SECRET "\"],"
				   "\"cwd\":\"file:///\",\"env\":{},\"tty\":false,"
				   "\"metadata\":{\"toolCallId\":\"call-2\"}}}");
	g_assert_cmpstr(esd_test_json_get_string(reply, "error.data.kind"), ==, "spawnNotFound");
	esd_test_peer_assert_error(
	    peer,
	    "{\"id\":12,\"method\":\"process/start\",\"params\":{"
	    "\"processId\":\"p3\",\"argv\":[\"true\"],\"cwd\":\"file:///\","
	    "\"env\":{},\"tty\":false,\"metadata\":{\"threadId\":\"nope\"}}}",
	    "12",
	    -32602,
	    "invalid character: expected an optional prefix of `urn:uuid:` "
	    "followed by [0-9a-fA-F-], found `n` at 1");
	esd_test_peer_assert_error(peer,
				   "{\"id\":13,\"method\":\"process/start\",\"params\":{"
				   "\"processId\":\"p4\",\"argv\":[\"true\"],\"cwd\":\"file:///\","
				   "\"env\":{},\"tty\":false,\"metadata\":{\"toolCallId\":5}}}",
				   "13",
				   -32602,
				   "invalid type: number, expected a string");
}

/* metadata is checked as the reference checks it, with its words */
static void
test_metadata(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(NULL);
	EsdTestPeer *peer = ESD_TEST_PEER(daemon);
	struct {
		const gchar *metadata;
		const gchar *message; /* NULL: accepted */
	} rows[] = {
	    {"{\"threadId\":\"\"}",
	     "invalid length: expected length 32 for simple format, found 0"},
	    {"{\"threadId\":\"0b7e5a52-1c3d-4e8f-9a6b-2d4c6e8f0a1\"}",
	     "invalid group length in group 4: expected 12, found 11"},
	    {"{\"threadId\":\"0b7e5a52-1c3d4e8f-9a6b-2d4c6e8f0a1b-\"}",
	     "invalid group length in group 1: expected 4, found 8"},
	    {"{\"threadId\":\"0b7e5a52-1c3d-4e8f-9a6b2d4c6e8f0a1b\"}",
	     "invalid group count: expected 5, found 4"},
	    {"{\"threadId\":\"0b7e5a52-1c3d-4e8f-9a6b-2d4c6e8f0a1\u00fc\"}",
	     "invalid character: expected an optional prefix of `urn:uuid:` followed by "
	     "[0-9a-fA-F-], found `\u00fc` at 36"},
	    {"{\"threadId\":\"{0b7e5a52-1c3d-4e8f-9a6b-2d4c6e8f0a1bb}\"}",
	     "invalid group length in group 4: expected 12, found 15"},
	    {"{\"threadId\":5}", "invalid type: number, expected a string"},
	    {"{\"toolCallId\":true}", "invalid type: boolean `true`, expected a string"},
	    {"\"x\"", "invalid type: string \"x\", expected struct ExecMetadata"},
	    {"[1,2,3]", "invalid length 3, expected fewer elements in array"},
	    {"{\"threadId\":\"0b7e5a521c3d4e8f9a6b2d4c6e8f0a1b\"}", NULL},
	    {"{\"threadId\":\"{0b7e5a52-1c3d-4e8f-9a6b-2d4c6e8f0a1b}\"}", NULL},
	    {"{\"threadId\":\"urn:uuid:0B7E5A52-1C3D-4E8F-9A6B-2D4C6E8F0A1B\"}", NULL},
	    {"[null,\"call\"]", NULL},
	    {"[]", NULL},
	    {"null", NULL},
	    {"{\"toolCallId\":\"x\",\"other\":1}", NULL},
	};

	g_free(esd_test_peer_handshake(peer));
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree gchar *request = g_strdup_printf(
		    "{\"id\":%u,\"method\":\"process/start\",\"params\":{\"processId\":\"m%u\","
		    "\"argv\":[\"true\"],\"cwd\":\"file:///\",\"env\":{},\"tty\":false,"
		    "\"metadata\":%s}}",
		    100 + i,
		    i,
		    rows[i].metadata);
		g_autofree gchar *id = g_strdup_printf("%u", 100 + i);
		if (rows[i].message != NULL) {
			esd_test_peer_assert_error(peer, request, id, -32602, rows[i].message);
		} else {
			/* the answer, after the events of the commands before */
			esd_test_peer_send_text(peer, request);
			while (TRUE) {
				g_autoptr(JsonNode) reply = esd_test_peer_receive_json(peer);
				g_assert_nonnull(reply);
				if (esd_test_json_get(reply, "id") == NULL)
					continue;
				if (esd_test_json_get(reply, "result") == NULL)
					g_error("metadata %s refused", rows[i].metadata);
				break;
			}
		}
	}
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

/* stderr until it holds @needle */
static void
wait_stderr(EsdTestDaemon *daemon, const gchar *needle)
{
	gint64 deadline = g_get_monotonic_time() + ESD_TEST_TIMEOUT_MS * 1000;

	while (strstr(esd_test_daemon_get_stderr(daemon), needle) == NULL) {
		if (g_get_monotonic_time() > deadline)
			g_error("no \"%s\" in the daemon's log:\n%s",
				needle,
				esd_test_daemon_get_stderr(daemon));
		esd_test_iterate(20);
	}
}

static void
test_text(void)
{
	const gchar *args[] = {"-v", NULL};
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(args);
	EsdTestPeer *peer = ESD_TEST_PEER(daemon);
	g_autofree gchar *session = esd_test_peer_handshake(peer);
	g_autofree gchar *started = NULL;
	g_autofree gchar *killed = NULL;
	g_autofree gchar *failed = NULL;
	const gchar *log;

	run_commands(peer);
	started = g_strdup_printf("execserverd-telemetry-INFO: process p1 started in session %s "
				  "(thread " THREAD_ID ", tool call call_??MESSAGE_ID=forged)\n",
				  session);
	killed = g_strdup_printf("execserverd-telemetry-INFO: process p1 was killed by signal 9 "
				 "after ");
	failed = g_strdup_printf("execserverd-telemetry-INFO: process p2 failed to start: "
				 "spawnNotFound in session %s (tool call call-2)\n",
				 session);
	wait_stderr(daemon, failed);
	log = esd_test_daemon_get_stderr(daemon);
	g_assert_nonnull(strstr(log, started));
	g_assert_nonnull(strstr(log, killed));
	g_assert_null(strstr(log, SECRET));
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
}

/* without -v the records are info: not on stderr */
static void
test_text_quiet(void)
{
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_stdio(NULL);
	EsdTestPeer *peer = ESD_TEST_PEER(daemon);
	g_autofree gchar *session = esd_test_peer_handshake(peer);

	run_commands(peer);
	esd_test_daemon_close_stdin(daemon);
	esd_test_daemon_assert_exit_code(daemon, 0, ESD_TEST_TIMEOUT_MS);
	g_assert_null(strstr(esd_test_daemon_get_stderr(daemon), "telemetry"));
}

/* a process that outlives its connection keeps its attribution */
static void
test_detached(void)
{
	const gchar *args[] = {"-v", NULL};
	g_autoptr(EsdTestDaemon) daemon = esd_test_daemon_new_ws(args);
	g_autoptr(EsdTestWsClient) client = esd_test_ws_client_new(esd_test_daemon_get_url(daemon));
	g_autofree gchar *session = esd_test_peer_handshake(ESD_TEST_PEER(client));
	g_autoptr(JsonNode) reply = NULL;
	g_autofree gchar *exited = NULL;
	g_autofree gchar *attribution = NULL;

	reply = esd_test_peer_call(
	    ESD_TEST_PEER(client),
	    "{\"id\":2,\"method\":\"process/start\",\"params\":{\"processId\":\"long\","
	    "\"argv\":[\"sleep\",\"0.5\"],\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/"
	    "bin\"},"
	    "\"tty\":false,\"metadata\":{\"threadId\":\"" THREAD_ID
	    "\",\"toolCallId\":\"c-long\"}}}");
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	esd_test_ws_client_close(client);
	exited = g_strdup_printf("process long exited with code 0 after ");
	wait_stderr(daemon, exited);
	attribution =
	    g_strdup_printf("in session %s (thread " THREAD_ID ", tool call c-long)", session);
	g_assert_nonnull(strstr(esd_test_daemon_get_stderr(daemon), attribution));
}

/* one journal record: field → value */
static GHashTable *
parse_record(const guint8 *data, gsize len)
{
	GHashTable *fields = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	gsize i = 0;

	while (i < len) {
		const guint8 *nl = memchr(data + i, '\n', len - i);
		const guint8 *eq;
		gsize line = (nl != NULL ? (gsize)(nl - data) : len) - i;

		eq = memchr(data + i, '=', line);
		if (eq != NULL) {
			g_hash_table_insert(
			    fields,
			    g_strndup((const gchar *)data + i, eq - (data + i)),
			    g_strndup((const gchar *)eq + 1, line - (eq + 1 - (data + i))));
			i += line + 1;
		} else {
			/* KEY\n, a little-endian 64-bit size, the value, \n */
			guint64 size = 0;
			gchar *key = g_strndup((const gchar *)data + i, line);
			i += line + 1;
			g_assert_cmpuint(i + 8, <=, len);
			for (guint b = 0; b < 8; b++)
				size |= (guint64)data[i + b] << (8 * b);
			i += 8;
			g_assert_cmpuint(i + size + 1, <=, len);
			g_hash_table_insert(fields, key, g_strndup((const gchar *)data + i, size));
			i += size + 1;
		}
	}
	return fields;
}

static GHashTable *
find_record(GPtrArray *records, const gchar *message_id, const gchar *process_id)
{
	for (guint i = 0; i < records->len; i++) {
		GHashTable *r = g_ptr_array_index(records, i);
		if (g_strcmp0(g_hash_table_lookup(r, "MESSAGE_ID"), message_id) == 0 &&
		    g_strcmp0(g_hash_table_lookup(r, "ESD_PROCESS"), process_id) == 0)
			return r;
	}
	g_error("no record %s of %s among %u", message_id, process_id, records->len);
	return NULL;
}

static void
assert_field(GHashTable *record, const gchar *key, const gchar *value)
{
	g_assert_cmpstr(g_hash_table_lookup(record, key), ==, value);
}

static gboolean
have_bwrap(void)
{
	const gchar *argv[] = {"bwrap", "--dev-bind", "/", "/", "--tmpfs", "/run", "true", NULL};
	gint status = -1;
	return g_spawn_sync(NULL,
			    (gchar **)argv,
			    NULL,
			    G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
				G_SPAWN_STDERR_TO_DEV_NULL,
			    NULL,
			    NULL,
			    NULL,
			    NULL,
			    &status,
			    NULL) &&
	       g_spawn_check_wait_status(status, NULL);
}

/*
 * A daemon under a journal of this test: a datagram socket bound over
 * /run/systemd/journal inside bwrap, and JOURNAL_STREAM naming its stderr.
 */
typedef struct {
	gchar *dir;
	gchar *path;
	GSocket *socket;
	GSubprocess *daemon;
	GDataInputStream *out;
	GBytes *err;
	gboolean terminate; /* stdin closing does not stop it */
	GPtrArray *records; /* what arrived so far, under lock */
	GMutex lock;
	GThread *reader;
	gint stop;
	gboolean exited;
} Journal;

/*
 * The daemon's writes block once a few datagrams wait unread (the socket's
 * queue is short), so a thread reads them as they come, whatever the test
 * waits for meanwhile.
 */
static gpointer
journal_reader_thread(gpointer user_data)
{
	Journal *j = user_data;

	while (!g_atomic_int_get(&j->stop)) {
		guint8 buf[65536];
		gssize n = g_socket_receive(j->socket, (gchar *)buf, sizeof(buf), NULL, NULL);
		if (n <= 0)
			continue; /* the timeout: look at stop again */
		g_mutex_lock(&j->lock);
		g_ptr_array_add(j->records, parse_record(buf, (gsize)n));
		g_mutex_unlock(&j->lock);
	}
	return NULL;
}
static void
journal_exited_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	Journal *j = user_data;
	g_assert_true(g_subprocess_wait_finish(G_SUBPROCESS(source), result, NULL));
	j->exited = TRUE;
}

static void
journal_start(Journal *j, const gchar *listen, const gchar *const *extra_args, gboolean debug)
{
	g_autoptr(GSocketAddress) address = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	const gchar *script =
	    "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec \"$0\" \"$@\"";

	j->dir = g_dir_make_tmp("esd-journal-XXXXXX", NULL);
	j->path = g_build_filename(j->dir, "socket", NULL);
	j->socket = g_socket_new(G_SOCKET_FAMILY_UNIX,
				 G_SOCKET_TYPE_DATAGRAM,
				 G_SOCKET_PROTOCOL_DEFAULT,
				 &error);
	g_assert_no_error(error);
	address = g_unix_socket_address_new(j->path);
	g_assert_true(g_socket_bind(j->socket, address, FALSE, &error));
	g_assert_no_error(error);
	/* as a socket's permissions: the daemon may run as another user in a namespace */
	g_assert_cmpint(g_chmod(j->dir, 0755), ==, 0);
	g_assert_cmpint(g_chmod(j->path, 0666), ==, 0);
	g_socket_set_timeout(j->socket, 1);
	j->records = g_ptr_array_new_with_free_func((GDestroyNotify)g_hash_table_unref);
	g_mutex_init(&j->lock);
	j->reader = g_thread_new("journal", journal_reader_thread, j);

	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
					     G_SUBPROCESS_FLAGS_STDOUT_PIPE |
					     G_SUBPROCESS_FLAGS_STDERR_PIPE);
	if (debug)
		g_subprocess_launcher_setenv(launcher, "G_MESSAGES_DEBUG", "all", TRUE);
	else
		g_subprocess_launcher_unsetenv(launcher, "G_MESSAGES_DEBUG");
	for (const gchar *const *a = (const gchar *const[]){"bwrap",
							    "--dev-bind",
							    "/",
							    "/",
							    "--tmpfs",
							    "/run",
							    "--bind",
							    j->dir,
							    "/run/systemd/journal",
							    "sh",
							    "-c",
							    script,
							    g_getenv("ESD_TEST_DAEMON"),
							    "--listen",
							    listen,
							    NULL};
	     *a != NULL;
	     a++)
		g_ptr_array_add(argv, (gpointer)*a);
	for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)extra_args[i]);
	g_ptr_array_add(argv, NULL);
	j->daemon =
	    g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	j->out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(j->daemon));
	j->terminate = !g_str_equal(listen, "stdio");
}

static void
journal_write(Journal *j, const gchar *line)
{
	g_autoptr(GError) error = NULL;
	g_output_stream_write_all(g_subprocess_get_stdin_pipe(j->daemon),
				  line,
				  strlen(line),
				  NULL,
				  NULL,
				  &error);
	g_assert_no_error(error);
}

static gchar *
journal_read_line(Journal *j)
{
	g_autoptr(GError) error = NULL;
	gchar *line = g_data_input_stream_read_line(j->out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(line);
	return line;
}

/* stops the daemon; every record it sent, none holding @secret */
static GPtrArray *
journal_finish(Journal *j, const gchar *secret)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GOutputStream) sink = g_memory_output_stream_new_resizable();
	GPtrArray *records;

	g_output_stream_close(g_subprocess_get_stdin_pipe(j->daemon), NULL, NULL);
	/* a WebSocket daemon stops on SIGTERM: the child of bwrap, not bwrap */
	if (j->terminate) {
		g_autofree gchar *path = g_strdup_printf("/proc/%s/task/%s/children",
							 g_subprocess_get_identifier(j->daemon),
							 g_subprocess_get_identifier(j->daemon));
		g_autofree gchar *children = NULL;
		g_assert_true(g_file_get_contents(path, &children, NULL, NULL));
		g_assert_cmpint(kill((pid_t)g_ascii_strtoll(children, NULL, 10), SIGTERM), ==, 0);
	}
	g_subprocess_wait_async(j->daemon, NULL, journal_exited_cb, j);
	while (!j->exited)
		g_main_context_iteration(NULL, TRUE);
	g_atomic_int_set(&j->stop, 1);
	g_thread_join(g_steal_pointer(&j->reader));
	g_mutex_clear(&j->lock);
	g_output_stream_splice(sink,
			       g_subprocess_get_stderr_pipe(j->daemon),
			       G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
			       NULL,
			       &error);
	g_assert_no_error(error);
	j->err = g_memory_output_stream_steal_as_bytes(G_MEMORY_OUTPUT_STREAM(sink));
	g_subprocess_wait(j->daemon, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(j->daemon));
	g_assert_cmpint(g_subprocess_get_exit_status(j->daemon), ==, 0);
	/* under the journal nothing goes to stderr as text */
	g_assert_cmpuint(g_bytes_get_size(j->err), ==, 0);

	records = g_steal_pointer(&j->records);
	for (guint i = 0; secret != NULL && i < records->len; i++) {
		GHashTableIter iter;
		gpointer key;
		gpointer value;
		g_hash_table_iter_init(&iter, g_ptr_array_index(records, i));
		while (g_hash_table_iter_next(&iter, &key, &value)) {
			if (strstr(value, secret) != NULL)
				g_error("the journal field %s holds a secret: %s",
					(const gchar *)key,
					(const gchar *)value);
		}
	}
	g_unlink(j->path);
	g_rmdir(j->dir);
	g_free(j->path);
	g_free(j->dir);
	g_clear_object(&j->socket);
	g_clear_object(&j->out);
	g_clear_object(&j->daemon);
	g_clear_pointer(&j->err, g_bytes_unref);
	return records;
}

static GHashTable *
find_message(GPtrArray *records, const gchar *text)
{
	for (guint i = 0; i < records->len; i++) {
		GHashTable *r = g_ptr_array_index(records, i);
		const gchar *message = g_hash_table_lookup(r, "MESSAGE");
		if (message != NULL && strstr(message, text) != NULL)
			return r;
	}
	for (guint i = 0; i < records->len; i++)
		g_printerr(
		    "record: %s\n",
		    (const gchar *)g_hash_table_lookup(g_ptr_array_index(records, i), "MESSAGE"));
	g_error("no record with \"%s\" among %u", text, records->len);
	return NULL;
}

static void
test_journal(void)
{
	Journal j = {0};
	g_autoptr(GPtrArray) records = NULL;
	g_autofree gchar *session = NULL;
	g_autofree gchar *started = NULL;
	GHashTable *r;
	const gchar *requests[] = {
	    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientName\":\"journal\"}}\n",
	    "{\"method\":\"initialized\"}\n",
	    "{\"id\":2,\"method\":\"process/start\",\"params\":{\"processId\":\"p1\","
	    "\"argv\":[\"sh\",\"-c\",\"echo $TOKEN $0; kill -9 $$\",\"" SECRET "-arg\"],"
	    "\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\",\"TOKEN\":\"" SECRET
	    "-env\"},\"tty\":false,\"metadata\":{\"threadId\":\"" THREAD_ID
	    "\",\"toolCallId\":\"call-1\"}}}\n",
	    NULL};

	if (!have_bwrap()) {
		g_test_skip("bwrap cannot mount a tmpfs on /run here");
		return;
	}
	journal_start(&j, "stdio", NULL, FALSE);
	for (guint i = 0; requests[i] != NULL; i++)
		journal_write(&j, requests[i]);
	/* the answers and events up to p1's close, then p2, which cannot start */
	while (TRUE) {
		g_autofree gchar *line = journal_read_line(&j);
		if (session == NULL && strstr(line, "\"sessionId\":\"") != NULL)
			session = g_strndup(strstr(line, "\"sessionId\":\"") + 13, 36);
		if (strstr(line, "\"process/closed\"") != NULL)
			break;
	}
	journal_write(&j,
		      "{\"id\":3,\"method\":\"process/start\",\"params\":{"
		      "\"processId\":\"p2\",\"argv\":[\"/nonexistent/" SECRET "\"],"
		      "\"cwd\":\"file:///\",\"env\":{},\"tty\":false}}\n");
	{
		g_autofree gchar *line = journal_read_line(&j);
		g_assert_nonnull(strstr(line, "\"id\":3"));
	}
	records = journal_finish(&j, SECRET);
	g_assert_nonnull(session);

	r = find_record(records, ID_STARTED, "p1");
	assert_field(r, "ESD_EVENT", "process-started");
	assert_field(r, "PRIORITY", "6");
	assert_field(r, "GLIB_DOMAIN", "execserverd-telemetry");
	assert_field(r, "ESD_SESSION", session);
	assert_field(r, "ESD_THREAD_ID", THREAD_ID);
	assert_field(r, "ESD_TOOL_CALL_ID", "call-1");
	assert_field(r, "ESD_EXECUTOR_VERSION", PACKAGE_VERSION);
	assert_field(r, "ESD_SANDBOXED", "0");
	g_assert_true(g_str_has_prefix(g_hash_table_lookup(r, "ESD_EXECUTOR_ID"), "sha256:"));

	r = find_record(records, ID_EXITED, "p1");
	assert_field(r, "ESD_EVENT", "process-exited");
	assert_field(r, "ESD_EXIT_CODE", "137");
	assert_field(r, "ESD_EXIT_SIGNAL", "9");
	assert_field(r, "ESD_SANDBOX_DENIED", "0");
	assert_field(r, "ESD_THREAD_ID", THREAD_ID);
	g_assert_nonnull(g_hash_table_lookup(r, "ESD_DURATION_MS"));

	r = find_record(records, ID_SPAWN_FAILED, "p2");
	assert_field(r, "PRIORITY", "5");
	assert_field(r, "ESD_FAILURE_KIND", "spawnNotFound");
	assert_field(r, "ESD_ERRNO", "2");
	g_assert_null(g_hash_table_lookup(r, "ESD_THREAD_ID"));

	/* the daemon's own records carry their subject as fields */
	r = find_message(records, "connection 1 from stdio");
	assert_field(r, "ESD_CONNECTION", "1");
	assert_field(r, "ESD_PEER", "stdio");
	assert_field(r, "PRIORITY", "6");
	assert_field(r, "GLIB_DOMAIN", "execserverd");
	started = g_strdup_printf("connection 1: started session %s", session);
	r = find_message(records, started);
	assert_field(r, "ESD_CONNECTION", "1");
	assert_field(r, "ESD_SESSION", session);
}

/* WebSocket credentials, right or wrong, never reach a journal field, also with debug on */
static void
test_journal_no_secrets(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("esd-token-XXXXXX", NULL);
	g_autofree gchar *token_file = g_build_filename(dir, "token", NULL);
	const gchar *args[] = {"--ws-auth",
			       "capability-token",
			       "--ws-token-file",
			       token_file,
			       NULL};
	const gchar *token = "tok-" SECRET;
	Journal j = {0};
	g_autoptr(GPtrArray) records = NULL;
	g_autofree gchar *url = NULL;
	GHashTable *r;

	if (!have_bwrap()) {
		g_test_skip("bwrap cannot mount a tmpfs on /run here");
		return;
	}
	g_assert_true(g_file_set_contents(token_file, token, -1, NULL));
	g_assert_cmpint(g_chmod(dir, 0755), ==, 0);
	g_assert_cmpint(g_chmod(token_file, 0644), ==, 0);
	journal_start(&j, "ws://127.0.0.1:0", args, TRUE);
	url = journal_read_line(&j);
	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *header =
		    g_strdup_printf("Bearer %s", i == 0 ? "wrong-" SECRET : token);
		const gchar *headers[] = {"Authorization", header, NULL};
		guint status = 0;
		g_autoptr(GError) error = NULL;
		g_autoptr(EsdTestWsClient) client =
		    esd_test_ws_client_connect_full(url, NULL, headers, NULL, &status, &error);
		g_assert_cmpuint(status, ==, (i == 0 ? 401 : 101));
		if (client != NULL) {
			g_free(esd_test_peer_handshake(ESD_TEST_PEER(client)));
			esd_test_ws_client_close(client);
		}
	}
	/* let the close be logged */
	for (guint i = 0; i < 10; i++)
		esd_test_iterate(20);
	records = journal_finish(&j, SECRET);
	r = find_message(records, "refusing the upgrade: invalid websocket bearer token");
	g_assert_nonnull(g_hash_table_lookup(r, "PRIORITY"));
	r = find_message(records, "connection 1: started session");
	assert_field(r, "ESD_CONNECTION", "1");
	g_assert_true(g_str_has_prefix(g_hash_table_lookup(r, "ESD_PEER"), "websocket 127.0.0.1:"));
	g_unlink(token_file);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/execserverd/telemetry/metadata", test_metadata);
	g_test_add_func("/execserverd/telemetry/text", test_text);
	g_test_add_func("/execserverd/telemetry/text-quiet", test_text_quiet);
	g_test_add_func("/execserverd/telemetry/detached", test_detached);
	g_test_add_func("/execserverd/telemetry/journal", test_journal);
	g_test_add_func("/execserverd/telemetry/journal-no-secrets", test_journal_no_secrets);
	return g_test_run();
}
