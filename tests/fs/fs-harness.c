/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-harness.h"

gchar current_request[512];

void
error_log_cb(const gchar *log_domain,
	     GLogLevelFlags log_level,
	     const gchar *message,
	     gpointer user_data)
{
	if (current_request[0] != '\0')
		g_printerr("while waiting for the reply to: %s\n", current_request);
	g_log_default_handler(log_domain, log_level, message, user_data);
}

const gchar *
fx_keep(Fx *fx, gchar *text)
{
	g_ptr_array_add(fx->strings, text);
	return text;
}

/* the native path of the scratch path @rel; "" is the scratch directory */
const gchar *
fx_path(Fx *fx, const gchar *rel)
{
	if (rel[0] == '\0')
		return fx->dir;
	return fx_keep(fx, g_strconcat(fx->dir, "/", rel, NULL));
}

gchar *
expand(Fx *fx, const gchar *tmpl, gboolean json)
{
	GString *out = g_string_sized_new(strlen(tmpl) + 64);

	for (const gchar *p = tmpl; *p != '\0'; p++) {
		if ((p[0] == '@' || p[0] == '%') && p[1] == '{') {
			const gchar *end = strchr(p + 2, '}');
			g_autofree gchar *rel = NULL;
			const gchar *path;

			g_assert_nonnull(end);
			rel = g_strndup(p + 2, (gsize)(end - p - 2));
			path = fx_path(fx, rel);
			if (p[0] == '@')
				g_string_append_printf(out,
						       json ? "\"file://%s\"" : "file://%s",
						       path);
			else
				g_string_append(out, path);
			p = end;
		} else if (json && *p == '\'') {
			g_string_append_c(out, '"');
		} else {
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

/* a JSON template, expanded */
const gchar *
fx_json(Fx *fx, const gchar *tmpl)
{
	return fx_keep(fx, expand(fx, tmpl, TRUE));
}

/* a text template (error messages), expanded; `'` stays */
const gchar *
fx_text(Fx *fx, const gchar *tmpl)
{
	return fx_keep(fx, expand(fx, tmpl, FALSE));
}

Conn *
conn_new(EsdTestPeer *peer, EsdTestWsClient *client)
{
	Conn *conn = g_new0(Conn, 1);

	conn->peer = g_object_ref(peer);
	conn->client = client != NULL ? g_object_ref(client) : NULL;
	g_queue_init(&conn->notifications);
	return conn;
}

void
conn_free(Conn *conn)
{
	g_queue_clear(&conn->notifications);
	g_clear_object(&conn->client);
	g_clear_object(&conn->peer);
	g_free(conn);
}

gboolean
conn_is_open(Conn *conn)
{
	return conn->client == NULL || esd_test_ws_client_is_open(conn->client);
}

JsonNode *
conn_receive(Fx *fx, Conn *conn, guint timeout_ms)
{
	g_autoptr(GBytes) bytes = esd_test_peer_receive(conn->peer, timeout_ms);
	g_autofree gchar *text = NULL;
	JsonNode *msg;
	gsize len = 0;
	const gchar *data;

	if (bytes == NULL)
		g_error("the daemon closed the connection (waiting for: %s)", current_request);
	data = g_bytes_get_data(bytes, &len);
	g_assert_true(g_utf8_validate_len(data, len, NULL));
	text = g_strndup(data, len);
	msg = esd_test_json_parse(text);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(msg));
	g_assert_false(json_object_has_member(json_node_get_object(msg), "jsonrpc"));
	g_ptr_array_add(fx->nodes, msg);
	return msg;
}

/* receives until the reply to @id; notifications are queued */
JsonNode *
conn_wait_reply(Fx *fx, Conn *conn, guint id, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	for (;;) {
		gint64 left = deadline - g_get_monotonic_time();
		JsonNode *msg;
		JsonNode *msg_id;

		if (left <= 0)
			g_error("no reply to request %u within %u ms: %s",
				id,
				timeout_ms,
				current_request);
		msg = conn_receive(fx, conn, (guint)(left / 1000) + 1);
		msg_id = esd_test_json_get(msg, "id");
		if (msg_id == NULL) {
			g_queue_push_tail(&conn->notifications, msg);
			continue;
		}
		if (!JSON_NODE_HOLDS_VALUE(msg_id) ||
		    json_node_get_value_type(msg_id) != G_TYPE_INT64 ||
		    json_node_get_int(msg_id) != (gint64)id) {
			g_autofree gchar *text = esd_test_json_to_string(msg);
			g_error("expected the reply to request %u, got %s", id, text);
		}
		current_request[0] = '\0';
		return msg;
	}
}

/* sends @method with the expanded @params (NULL: no params member) */
guint
conn_request(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	guint id = ++conn->next_id;
	g_autofree gchar *text = NULL;

	if (params != NULL)
		text = g_strdup_printf("{\"id\":%u,\"method\":\"%s\",\"params\":%s}",
				       id,
				       method,
				       params);
	else
		text = g_strdup_printf("{\"id\":%u,\"method\":\"%s\"}", id, method);
	g_snprintf(current_request, sizeof(current_request), "%s", text);
	esd_test_peer_send_text(conn->peer, text);
	return id;
}

/* one request, its reply; @params is a template or NULL */
JsonNode *
conn_call(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	const gchar *expanded = params != NULL ? fx_json(fx, params) : NULL;
	guint id = conn_request(fx, conn, method, expanded);
	return conn_wait_reply(fx, conn, id, WAIT_MS);
}

void
describe_reply_failure(JsonNode *reply, const gchar *method, const gchar *what)
{
	g_autofree gchar *text = esd_test_json_to_string(reply);
	g_error("%s: expected %s, got %s", method, what, text);
}

JsonNode *
conn_ok(Fx *fx, Conn *conn, const gchar *method, const gchar *params)
{
	JsonNode *reply = conn_call(fx, conn, method, params);
	JsonNode *result = esd_test_json_get(reply, "result");

	if (result == NULL)
		describe_reply_failure(reply, method, "a result");
	return result;
}

void
conn_expect(Fx *fx, Conn *conn, const gchar *method, const gchar *params, const gchar *expected)
{
	JsonNode *reply = conn_call(fx, conn, method, params);
	g_autofree gchar *want = NULL;
	g_autoptr(JsonNode) want_node = NULL;

	want = g_strdup_printf("{\"id\":%" G_GINT64_FORMAT ",\"result\":%s}",
			       esd_test_json_get_int(reply, "id"),
			       fx_json(fx, expected));
	want_node = esd_test_json_parse(want);
	if (!esd_test_json_equal(reply, want_node)) {
		g_autofree gchar *got = esd_test_json_to_string(reply);
		g_error("%s %s:\n  got:      %s\n  expected: %s",
			method,
			params != NULL ? fx_json(fx, params) : "",
			got,
			want);
	}
}

void
conn_fail(Fx *fx,
	  Conn *conn,
	  const gchar *method,
	  const gchar *params,
	  gint64 code,
	  const gchar *message)
{
	JsonNode *reply = conn_call(fx, conn, method, params);
	g_autofree gchar *id =
	    g_strdup_printf("%" G_GINT64_FORMAT, esd_test_json_get_int(reply, "id"));
	const gchar *pattern = fx_text(fx, message);
	JsonNode *error_node = esd_test_json_get(reply, "error");
	JsonNode *code_node = esd_test_json_get(reply, "error.code");
	JsonNode *message_node = esd_test_json_get(reply, "error.message");
	g_autofree gchar *text = esd_test_json_to_string(reply);

	if (error_node == NULL || code_node == NULL || message_node == NULL ||
	    !JSON_NODE_HOLDS_VALUE(code_node) || !JSON_NODE_HOLDS_VALUE(message_node) ||
	    json_node_get_value_type(message_node) != G_TYPE_STRING ||
	    json_node_get_value_type(code_node) != G_TYPE_INT64 ||
	    json_node_get_int(code_node) != code ||
	    !g_pattern_match_simple(pattern, json_node_get_string(message_node)))
		g_error("%s %s:\n  got:      %s\n  expected: error %" G_GINT64_FORMAT " \"%s\"",
			method,
			params != NULL ? fx_json(fx, params) : "",
			text,
			code,
			pattern);
	/* exactly {id, error{code, message}}: no data on these */
	esd_test_peer_assert_reply_error(reply, id, code, pattern);
}

void
conn_sync(Fx *fx, Conn *conn)
{
	conn_expect(fx, conn, "environment/status", NULL, "{'status':'ready'}");
}

JsonNode *
conn_initialize(Fx *fx, Conn *conn, const gchar *resume_session_id)
{
	g_autofree gchar *params =
	    resume_session_id != NULL
		? g_strdup_printf("{'clientName':'esd-test-fs','resumeSessionId':'%s'}",
				  resume_session_id)
		: g_strdup("{'clientName':'esd-test-fs'}");
	JsonNode *result = conn_ok(fx, conn, "initialize", params);

	esd_test_peer_send_text(conn->peer, "{\"method\":\"initialized\"}");
	return result;
}

/* disk */

gboolean
safe_path(const gchar *path)
{
	for (const gchar *p = path; *p != '\0'; p++) {
		if (!g_ascii_isalnum(*p) && strchr("/._-", *p) == NULL)
			return FALSE;
	}
	return TRUE;
}

/* removes @path and everything below it, without following symlinks */
void
rm_rf(const gchar *path)
{
	GStatBuf st;

	if (g_lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
		g_autoptr(GDir) dir = NULL;
		const gchar *name;

		g_chmod(path, 0700);
		dir = g_dir_open(path, 0, NULL);
		while (dir != NULL && (name = g_dir_read_name(dir)) != NULL)
			g_ptr_array_add(names, g_build_filename(path, name, NULL));
		for (guint i = 0; i < names->len; i++)
			rm_rf(g_ptr_array_index(names, i));
		g_rmdir(path);
	} else {
		g_unlink(path);
	}
}

void
disk_write(Fx *fx, const gchar *rel, const gchar *data, gssize len)
{
	g_autoptr(GError) error = NULL;
	const gchar *path = fx_path(fx, rel);
	int fd;
	gsize size = len < 0 ? strlen(data) : (gsize)len;

	fd = g_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		g_error("open %s: %s", path, g_strerror(errno));
	for (gsize done = 0; done < size;) {
		gssize n = write(fd, data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			g_error("write %s: %s", path, g_strerror(errno));
		done += (gsize)n;
	}
	g_close(fd, &error);
	g_assert_no_error(error);
}

void
disk_mkdir(Fx *fx, const gchar *rel)
{
	const gchar *path = fx_path(fx, rel);
	if (g_mkdir_with_parents(path, 0755) != 0)
		g_error("mkdir %s: %s", path, g_strerror(errno));
}

void
disk_symlink(Fx *fx, const gchar *target, const gchar *rel)
{
	const gchar *path = fx_path(fx, rel);
	if (symlink(target, path) != 0)
		g_error("symlink %s: %s", path, g_strerror(errno));
}

void
disk_fifo(Fx *fx, const gchar *rel)
{
	const gchar *path = fx_path(fx, rel);
	if (mkfifo(path, 0644) != 0)
		g_error("mkfifo %s: %s", path, g_strerror(errno));
}

GBytes *
disk_read(Fx *fx, const gchar *rel)
{
	g_autoptr(GError) error = NULL;
	gchar *data = NULL;
	gsize len = 0;

	if (!g_file_get_contents(fx_path(fx, rel), &data, &len, &error))
		g_error("%s", error->message);
	return g_bytes_new_take(data, len);
}

void
disk_assert_content(Fx *fx, const gchar *rel, const gchar *data, gssize len)
{
	g_autoptr(GBytes) bytes = disk_read(fx, rel);
	gsize size = len < 0 ? strlen(data) : (gsize)len;
	gsize got_len = 0;
	const gchar *got = g_bytes_get_data(bytes, &got_len);

	if (got_len != size || (size > 0 && memcmp(got, data, size) != 0)) {
		g_autofree gchar *got_text = g_strndup(got, MIN(got_len, 200));
		g_autofree gchar *want_text = g_strndup(data, MIN(size, 200));
		g_autofree gchar *got_escaped = g_strescape(got_text, NULL);
		g_autofree gchar *want_escaped = g_strescape(want_text, NULL);
		g_error("content of %s: %" G_GSIZE_FORMAT " bytes \"%s\", expected %" G_GSIZE_FORMAT
			" bytes \"%s\"",
			rel,
			got_len,
			got_escaped,
			size,
			want_escaped);
	}
}

gboolean
disk_exists(Fx *fx, const gchar *rel)
{
	GStatBuf st;
	return g_lstat(fx_path(fx, rel), &st) == 0;
}

void
disk_assert_missing(Fx *fx, const gchar *rel)
{
	if (disk_exists(fx, rel))
		g_error("%s exists, it should not", rel);
}

/* the life of a case */

static void
fx_setup(Fx *fx, gboolean ws, guint flags)
{
	const gchar *concurrent[] = {"--concurrent-requests", "8", NULL};
	const gchar *const *args = (flags & CASE_CONCURRENT) != 0 ? concurrent : NULL;
	const gchar *root = g_getenv(ROOT_VAR);
	g_autofree gchar *tmpl = NULL;

	g_assert_nonnull(root);
	fx->ws = ws;
	fx->strings = g_ptr_array_new_with_free_func(g_free);
	fx->nodes = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	fx->extra_conns = g_ptr_array_new_with_free_func((GDestroyNotify)conn_free);
	tmpl = g_build_filename(root, "case-XXXXXX", NULL);
	if (g_mkdtemp(tmpl) == NULL)
		g_error("mkdtemp %s: %s", tmpl, g_strerror(errno));
	fx->dir = g_steal_pointer(&tmpl);
	if (!safe_path(fx->dir))
		g_error("scratch path %s has characters the templates do not escape", fx->dir);
	if (ws) {
		g_autoptr(EsdTestWsClient) client = NULL;
		fx->daemon = esd_test_daemon_new_ws(args);
		client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->conn = conn_new(ESD_TEST_PEER(client), client);
	} else {
		fx->daemon = esd_test_daemon_new_stdio(args);
		fx->conn = conn_new(ESD_TEST_PEER(fx->daemon), NULL);
	}
	fx->init_result = conn_initialize(fx, fx->conn, NULL);
	fx->session_id = g_strdup(esd_test_json_get_string(fx->init_result, "sessionId"));
}

static void
conn_assert_drained(Fx *fx, Conn *conn)
{
	if (!conn_is_open(conn) || !esd_test_daemon_is_running(fx->daemon))
		return;
	conn_sync(fx, conn);
	if (!g_queue_is_empty(&conn->notifications)) {
		g_autofree gchar *text =
		    esd_test_json_to_string(g_queue_peek_head(&conn->notifications));
		g_error("unexpected notification: %s", text);
	}
}

static void
fx_teardown(Fx *fx)
{
	if (!fx->stopped) {
		conn_assert_drained(fx, fx->conn);
		for (guint i = 0; i < fx->extra_conns->len; i++)
			conn_assert_drained(fx, g_ptr_array_index(fx->extra_conns, i));
		g_assert_true(esd_test_daemon_is_running(fx->daemon));
	}
	/* a peer must not be able to make the daemon log warnings (STYLE.md §6) */
	g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
	if (!fx->stopped) {
		esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, 3000);
	}
	g_clear_pointer(&fx->extra_conns, g_ptr_array_unref);
	g_clear_pointer(&fx->conn, conn_free);
	g_clear_object(&fx->daemon);
	rm_rf(fx->dir);
	g_free(fx->dir);
	g_free(fx->session_id);
	g_ptr_array_unref(fx->nodes);
	g_ptr_array_unref(fx->strings);
}

/* the parent's g_dir_make_tmp() directory, made on first use; cases get one each below it */
static gchar *scratch_root = NULL;
static const gchar *scratch_prefix = "esd-test-fs";

static void
ensure_scratch_root(void)
{
	g_autofree gchar *made = NULL;
	g_autoptr(GError) error = NULL;
	char real[PATH_MAX];

	if (scratch_root != NULL)
		return;
	{
		g_autofree gchar *tmpl = g_strdup_printf("%s-XXXXXX", scratch_prefix);
		made = g_dir_make_tmp(tmpl, &error);
	}
	g_assert_no_error(error);
	g_assert_nonnull(realpath(made, real));
	scratch_root = g_strdup(real);
	/* the children inherit it */
	g_setenv(ROOT_VAR, scratch_root, TRUE);
}

static FsSkipFunc skip_func = NULL;

void
fs_harness_set_skip_func(FsSkipFunc func)
{
	skip_func = func;
}

static void
run_case(gconstpointer user_data)
{
	const Case *c = user_data;
	Fx fx = {0};

	if (!g_test_subprocess()) {
		guint timeout_s = (c->def->flags & CASE_BIG) != 0 ? BIG_TIMEOUT_S : CASE_TIMEOUT_S;
		g_autofree gchar *reason = NULL;

		if (skip_func != NULL && skip_func(c->def, &reason)) {
			g_test_skip(reason);
			return;
		}
		if ((c->def->flags & CASE_NON_ROOT) != 0 && geteuid() == 0) {
			g_test_skip("root bypasses file permissions");
			return;
		}
		if ((c->def->flags & CASE_ROOT) != 0 && geteuid() != 0) {
			g_test_skip("only root can give a file away");
			return;
		}
		ensure_scratch_root();
		g_test_trap_subprocess(NULL,
				       (guint64)timeout_s * G_USEC_PER_SEC,
				       G_TEST_SUBPROCESS_INHERIT_STDERR);
		g_test_trap_assert_passed();
		return;
	}
	fx_setup(&fx, c->ws, c->def->flags);
	c->def->func(&fx);
	fx_teardown(&fx);
}

/**
 * fs_harness_main:
 * @cases: the cases, each registered over WebSocket and (unless
 *   %CASE_WS_ONLY) stdio, and run in a child process of its own
 * @prefix: of the scratch directory's name
 *
 * Returns: the exit status of the test program
 */
int
fs_harness_main(int argc, char **argv, const CaseDef *cases, guint n_cases, const gchar *prefix)
{
	g_autoptr(GPtrArray) registered = g_ptr_array_new_with_free_func(g_free);
	gint rc;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	scratch_prefix = prefix;
	g_log_set_handler(G_LOG_DOMAIN, G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL, error_log_cb, NULL);
	/* a failed case is reported and the next one runs */
	if (!g_test_subprocess())
		g_test_set_nonfatal_assertions();
	for (guint i = 0; i < n_cases; i++) {
		for (guint t = 0; t < 2; t++) {
			Case *c;
			g_autofree gchar *path = NULL;

			if (t == 1 && (cases[i].flags & CASE_WS_ONLY) != 0)
				continue;
			c = g_new0(Case, 1);
			c->def = &cases[i];
			c->ws = t == 0;
			g_ptr_array_add(registered, c);
			path =
			    g_strdup_printf(FS_TEST "%s/%s", c->ws ? "ws" : "stdio", cases[i].name);
			g_test_add_data_func(path, c, run_case);
		}
	}
	rc = g_test_run();
	if (scratch_root != NULL)
		rm_rf(scratch_root);
	g_free(scratch_root);
	return rc;
}
