/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "erpc-test-client.h"

/*
 * g_test_init() with isolated directories; the isolated XDG_DATA_DIRS hides
 * the GSettings schemas that GIO's default proxy resolver (the GNOME one)
 * needs, so this process and its children use the dummy resolver (no proxy)
 */
void
erpc_test_init(gint *argc, gchar ***argv)
{
	g_test_init(argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_setenv("GIO_USE_PROXY_RESOLVER", "dummy", TRUE);
}

/* async results */

void
erpc_test_result_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	GAsyncResult **slot = user_data;
	g_assert_null(*slot);
	*slot = g_object_ref(res);
}

/* iterates until the callback stored a result; returns it (transfer full) */
GAsyncResult *
erpc_test_wait(GAsyncResult **slot)
{
	ESD_WAIT_UNTIL(*slot != NULL, ERPC_TEST_TIMEOUT_MS);
	return g_steal_pointer(slot);
}

void
erpc_test_connect(ErpcClient *client)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;

	erpc_client_connect_async(client, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_connect_finish(client, res, &error));
	g_assert_no_error(error);
	g_assert_cmpint(erpc_client_get_state(client), ==, ERPC_CLIENT_STATE_READY);
}

ErpcClient *
erpc_test_client_new_stdio(void)
{
	const gchar *daemon = g_getenv("ESD_TEST_DAEMON");
	const gchar *argv[] = {daemon, "--listen", "stdio", NULL};

	g_assert_nonnull(daemon);
	return erpc_client_new_for_command(argv);
}

void
erpc_test_fixture_setup(ErpcTestFixture *fx, gconstpointer user_data)
{
	gboolean ws = GPOINTER_TO_INT(user_data);
	g_autoptr(GError) error = NULL;

	if (ws) {
		fx->daemon = esd_test_daemon_new_ws(NULL);
		fx->client = erpc_client_new(esd_test_daemon_get_url(fx->daemon));
	} else {
		fx->client = erpc_test_client_new_stdio();
	}
	erpc_test_connect(fx->client);
	fx->tmpdir = g_dir_make_tmp("erpc-client-XXXXXX", &error);
	g_assert_no_error(error);
}

void
erpc_test_fixture_teardown(ErpcTestFixture *fx, gconstpointer user_data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->tmpdir);

	erpc_client_close(fx->client);
	g_assert_cmpint(erpc_client_get_state(fx->client), ==, ERPC_CLIENT_STATE_DISCONNECTED);
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
	g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, NULL, NULL));
	g_free(fx->tmpdir);
}

/* process events */

static void
erpc_test_run_check_seq(ErpcTestRun *run, ErpcClientProcess *process)
{
	guint64 seq = erpc_client_process_get_last_seq(process);
	guint64 *last = g_object_get_data(G_OBJECT(process), "erpc-test-last-seq");
	if (last == NULL) {
		last = g_new0(guint64, 1);
		g_object_set_data_full(G_OBJECT(process), "erpc-test-last-seq", last, g_free);
	}
	if (seq != *last + 1)
		run->seq_errors++;
	*last = seq;
}

static void
erpc_test_run_output_cb(ErpcClientProcess *process,
			const gchar *stream,
			GBytes *data,
			ErpcTestRun *run)
{
	gsize len = 0;
	const gchar *text = g_bytes_get_data(data, &len);

	erpc_test_run_check_seq(run, process);
	g_string_append_len(g_strcmp0(stream, "stderr") == 0 ? run->err : run->out, text, len);
	g_string_append_c(run->events, 'o');
}

static void
erpc_test_run_exited_cb(ErpcClientProcess *process, gint exit_code, ErpcTestRun *run)
{
	erpc_test_run_check_seq(run, process);
	g_assert_false(run->exited);
	run->exited = TRUE;
	run->exit_code = exit_code;
	g_string_append_printf(run->events, "x%d", exit_code);
}

static void
erpc_test_run_closed_cb(ErpcClientProcess *process, ErpcTestRun *run)
{
	erpc_test_run_check_seq(run, process);
	g_assert_false(run->closed);
	run->closed = TRUE;
	g_string_append_c(run->events, 'c');
}

void
erpc_test_run_watch(ErpcTestRun *run, ErpcClientProcess *process)
{
	run->out = g_string_new(NULL);
	run->err = g_string_new(NULL);
	run->events = g_string_new(NULL);
	run->exit_code = -1;
	g_signal_connect(process, "output", G_CALLBACK(erpc_test_run_output_cb), run);
	g_signal_connect(process, "exited", G_CALLBACK(erpc_test_run_exited_cb), run);
	g_signal_connect(process, "closed", G_CALLBACK(erpc_test_run_closed_cb), run);
}

void
erpc_test_run_clear(ErpcTestRun *run)
{
	if (run->out != NULL)
		g_string_free(run->out, TRUE);
	if (run->err != NULL)
		g_string_free(run->err, TRUE);
	if (run->events != NULL)
		g_string_free(run->events, TRUE);
	memset(run, 0, sizeof(*run));
}

ErpcClientProcess *
erpc_test_start(ErpcClient *client,
		const gchar *process_id,
		const gchar *const *argv,
		gboolean pipe_stdin,
		ErpcTestRun *run)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GAsyncResult) res = NULL;
	GAsyncResult *slot = NULL;
	const gchar *envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	ErpcClientProcess *process = erpc_client_process_new(client, process_id, argv);

	erpc_client_process_set_env(process, envp);
	erpc_client_process_set_pipe_stdin(process, pipe_stdin);
	if (run != NULL)
		erpc_test_run_watch(run, process);
	erpc_client_process_start_async(process, NULL, erpc_test_result_cb, &slot);
	res = erpc_test_wait(&slot);
	g_assert_true(erpc_client_process_start_finish(process, res, &error));
	g_assert_no_error(error);
	return process;
}

void
erpc_test_wait_closed(ErpcTestRun *run)
{
	ESD_WAIT_UNTIL(run->closed, ERPC_TEST_TIMEOUT_MS);
}

/* the proxy */

typedef struct {
	gint refcount;
	ErpcTestProxy *proxy;
	GSocketConnection *down; /* the client's side */
	GSocketConnection *up;	 /* the server's side */
	gsize down_bytes;	 /* server → client bytes forwarded */
	gsize cut_at;		 /* 0: never */
	gboolean closed;
	GString *head; /* the CONNECT request, while it is read */
} ErpcTestPair;

struct _ErpcTestProxy {
	GObject parent_instance;
	GSocketService *service;
	guint16 port;
	guint16 upstream_port;
	gboolean http_connect;
	GPtrArray *pairs;
	gsize cut_bytes;
	guint cut_connections;
	gboolean frozen;
	gboolean refuse;
	guint connections;
	guint in_flight;
	gchar *connect_target;
	GString *upstream_head; /* the first client → server bytes of the newest connection */
};

G_DEFINE_TYPE(ErpcTestProxy, erpc_test_proxy, G_TYPE_OBJECT)

typedef struct {
	ErpcTestPair *pair;
	gboolean downstream;
	GBytes *bytes;
	gboolean cut;
} ErpcTestOp;

static ErpcTestPair *
erpc_test_pair_ref(ErpcTestPair *pair)
{
	pair->refcount++;
	pair->proxy->in_flight++;
	return pair;
}

static void
erpc_test_pair_unref(ErpcTestPair *pair)
{
	pair->proxy->in_flight--;
	if (--pair->refcount > 0)
		return;
	g_clear_object(&pair->down);
	g_clear_object(&pair->up);
	if (pair->head != NULL)
		g_string_free(pair->head, TRUE);
	g_free(pair);
}

static void
erpc_test_pair_close(ErpcTestPair *pair)
{
	if (pair->closed)
		return;
	pair->closed = TRUE;
	if (pair->down != NULL)
		g_io_stream_close(G_IO_STREAM(pair->down), NULL, NULL);
	if (pair->up != NULL)
		g_io_stream_close(G_IO_STREAM(pair->up), NULL, NULL);
}

static void
erpc_test_pair_pump(ErpcTestPair *pair, gboolean downstream);

static void
erpc_test_op_free(ErpcTestOp *op)
{
	g_clear_pointer(&op->bytes, g_bytes_unref);
	erpc_test_pair_unref(op->pair);
	g_free(op);
}

static void
erpc_test_pair_write_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcTestOp *op = user_data;
	ErpcTestPair *pair = op->pair;
	gsize written = 0;

	if (!g_output_stream_write_all_finish(G_OUTPUT_STREAM(source), res, &written, NULL) ||
	    pair->closed) {
		erpc_test_pair_close(pair);
	} else {
		if (op->downstream)
			pair->down_bytes += written;
		if (op->cut)
			erpc_test_pair_close(pair);
		else
			erpc_test_pair_pump(pair, op->downstream);
	}
	erpc_test_op_free(op);
}

static void
erpc_test_pair_read_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcTestOp *op = user_data;
	ErpcTestPair *pair = op->pair;
	GOutputStream *out;
	gsize len;

	op->bytes = g_input_stream_read_bytes_finish(G_INPUT_STREAM(source), res, NULL);
	if (op->bytes == NULL || g_bytes_get_size(op->bytes) == 0 || pair->closed) {
		erpc_test_pair_close(pair);
		erpc_test_op_free(op);
		return;
	}
	len = g_bytes_get_size(op->bytes);
	if (!op->downstream &&
	    pair == g_ptr_array_index(pair->proxy->pairs, pair->proxy->pairs->len - 1) &&
	    pair->proxy->upstream_head->len < 16384)
		g_string_append_len(pair->proxy->upstream_head,
				    g_bytes_get_data(op->bytes, NULL),
				    len);
	if (op->downstream && pair->proxy->frozen) {
		erpc_test_pair_pump(pair, TRUE);
		erpc_test_op_free(op);
		return;
	}
	if (op->downstream && pair->cut_at > 0 && pair->down_bytes + len >= pair->cut_at) {
		GBytes *head =
		    g_bytes_new_from_bytes(op->bytes, 0, pair->cut_at - pair->down_bytes);
		g_bytes_unref(op->bytes);
		op->bytes = head;
		op->cut = TRUE;
	}
	out = g_io_stream_get_output_stream(G_IO_STREAM(op->downstream ? pair->down : pair->up));
	g_output_stream_write_all_async(out,
					g_bytes_get_data(op->bytes, NULL),
					g_bytes_get_size(op->bytes),
					G_PRIORITY_DEFAULT,
					NULL,
					erpc_test_pair_write_cb,
					op);
}

static void
erpc_test_pair_pump(ErpcTestPair *pair, gboolean downstream)
{
	ErpcTestOp *op = g_new0(ErpcTestOp, 1);
	GInputStream *in =
	    g_io_stream_get_input_stream(G_IO_STREAM(downstream ? pair->up : pair->down));

	op->pair = erpc_test_pair_ref(pair);
	op->downstream = downstream;
	g_input_stream_read_bytes_async(in,
					64 * 1024,
					G_PRIORITY_DEFAULT,
					NULL,
					erpc_test_pair_read_cb,
					op);
}

static void
erpc_test_pair_start(ErpcTestPair *pair, const gchar *host, guint16 port)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GError) error = NULL;

	pair->up = g_socket_client_connect_to_host(client, host, port, NULL, &error);
	if (pair->up == NULL) {
		g_debug("proxy: %s", error->message);
		erpc_test_pair_close(pair);
		return;
	}
	erpc_test_pair_pump(pair, TRUE);
	erpc_test_pair_pump(pair, FALSE);
}

static void
erpc_test_pair_head_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcTestOp *op = user_data;
	ErpcTestPair *pair = op->pair;
	g_auto(GStrv) words = NULL;
	g_autofree gchar *host = NULL;
	const gchar *reply = "HTTP/1.1 200 Connection established\r\n\r\n";
	const gchar *colon;

	op->bytes = g_input_stream_read_bytes_finish(G_INPUT_STREAM(source), res, NULL);
	if (op->bytes == NULL || g_bytes_get_size(op->bytes) == 0) {
		erpc_test_pair_close(pair);
		erpc_test_op_free(op);
		return;
	}
	g_string_append_len(pair->head,
			    g_bytes_get_data(op->bytes, NULL),
			    g_bytes_get_size(op->bytes));
	if (strstr(pair->head->str, "\r\n\r\n") == NULL) {
		/* the same op, and its reference, read on */
		g_clear_pointer(&op->bytes, g_bytes_unref);
		g_input_stream_read_bytes_async(G_INPUT_STREAM(source),
						1,
						G_PRIORITY_DEFAULT,
						NULL,
						erpc_test_pair_head_cb,
						op);
		return;
	}
	words = g_strsplit(pair->head->str, " ", 3);
	g_assert_cmpstr(words[0], ==, "CONNECT");
	g_free(pair->proxy->connect_target);
	pair->proxy->connect_target = g_strdup(words[1]);
	colon = strrchr(words[1], ':');
	g_assert_nonnull(colon);
	host = g_strndup(words[1], colon - words[1]);
	g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(pair->down)),
				  reply,
				  strlen(reply),
				  NULL,
				  NULL,
				  NULL);
	erpc_test_pair_start(pair, host, (guint16)g_ascii_strtoull(colon + 1, NULL, 10));
	erpc_test_op_free(op);
}

static gboolean
erpc_test_proxy_incoming_cb(GSocketService *service,
			    GSocketConnection *connection,
			    GObject *source,
			    ErpcTestProxy *self)
{
	ErpcTestPair *pair;

	if (self->refuse) {
		g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
		return TRUE;
	}
	self->connections++;
	pair = g_new0(ErpcTestPair, 1);
	pair->refcount = 1;
	pair->proxy = self;
	self->in_flight++;
	pair->down = g_object_ref(connection);
	if (self->cut_connections > 0) {
		pair->cut_at = self->cut_bytes;
		self->cut_connections--;
	}
	g_ptr_array_add(self->pairs, pair);
	g_string_truncate(self->upstream_head, 0);
	if (self->http_connect) {
		ErpcTestOp *op = g_new0(ErpcTestOp, 1);
		op->pair = erpc_test_pair_ref(pair);
		pair->head = g_string_new(NULL);
		g_input_stream_read_bytes_async(
		    g_io_stream_get_input_stream(G_IO_STREAM(connection)),
		    1,
		    G_PRIORITY_DEFAULT,
		    NULL,
		    erpc_test_pair_head_cb,
		    op);
		return TRUE;
	}
	erpc_test_pair_start(pair, "127.0.0.1", self->upstream_port);
	return TRUE;
}

/**
 * erpc_test_proxy_new:
 * @upstream_port: where plain connections are forwarded, on 127.0.0.1
 * @http_connect: act as an HTTP proxy: read `CONNECT host:port` first
 *
 * Returns: (transfer full): a proxy listening on an ephemeral port
 */
ErpcTestProxy *
erpc_test_proxy_new(guint16 upstream_port, gboolean http_connect)
{
	ErpcTestProxy *self = g_object_new(ERPC_TYPE_TEST_PROXY, NULL);
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;

	self->upstream_port = upstream_port;
	self->http_connect = http_connect;
	self->service = g_socket_service_new();
	g_assert_true(g_socket_listener_add_address(G_SOCKET_LISTENER(self->service),
						    address,
						    G_SOCKET_TYPE_STREAM,
						    G_SOCKET_PROTOCOL_TCP,
						    NULL,
						    &bound,
						    &error));
	g_assert_no_error(error);
	self->port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	g_signal_connect(self->service, "incoming", G_CALLBACK(erpc_test_proxy_incoming_cb), self);
	g_socket_service_start(self->service);
	return self;
}

guint16
erpc_test_proxy_get_port(ErpcTestProxy *self)
{
	return self->port;
}

/* ws://127.0.0.1:PORT of the proxy */
gchar *
erpc_test_proxy_get_url(ErpcTestProxy *self)
{
	return g_strdup_printf("ws://127.0.0.1:%u", self->port);
}

/* where new plain connections go */
void
erpc_test_proxy_set_upstream(ErpcTestProxy *self, guint16 upstream_port)
{
	self->upstream_port = upstream_port;
}

/* the open connections, and the next @connections new ones, are cut once
 * @downstream_bytes more bytes went from the server to the client */
void
erpc_test_proxy_cut_after(ErpcTestProxy *self, gsize downstream_bytes, guint connections)
{
	for (guint i = 0; i < self->pairs->len; i++) {
		ErpcTestPair *pair = g_ptr_array_index(self->pairs, i);
		if (!pair->closed)
			pair->cut_at = pair->down_bytes + downstream_bytes;
	}
	self->cut_bytes = downstream_bytes;
	self->cut_connections = connections;
}

/* from now on nothing reaches the client; the server still gets everything */
void
erpc_test_proxy_freeze(ErpcTestProxy *self)
{
	self->frozen = TRUE;
}

/* drops every open connection, both sides, and unfreezes */
void
erpc_test_proxy_cut(ErpcTestProxy *self)
{
	for (guint i = 0; i < self->pairs->len; i++)
		erpc_test_pair_close(g_ptr_array_index(self->pairs, i));
	self->frozen = FALSE;
}

/* new connections are closed as soon as they are accepted */
void
erpc_test_proxy_refuse(ErpcTestProxy *self, gboolean refuse)
{
	self->refuse = refuse;
}

guint
erpc_test_proxy_get_connections(ErpcTestProxy *self)
{
	return self->connections;
}

const gchar *
erpc_test_proxy_get_connect_target(ErpcTestProxy *self)
{
	return self->connect_target;
}

/* what the client sent through the newest connection (after CONNECT), up to 16 KiB */
const gchar *
erpc_test_proxy_get_upstream_head(ErpcTestProxy *self)
{
	return self->upstream_head->str;
}

static void
erpc_test_proxy_dispose(GObject *object)
{
	ErpcTestProxy *self = ERPC_TEST_PROXY(object);

	if (self->service != NULL) {
		g_socket_service_stop(self->service);
		g_socket_listener_close(G_SOCKET_LISTENER(self->service));
		g_clear_object(&self->service);
	}
	erpc_test_proxy_cut(self);
	/* let the reads and writes in flight see the closed streams */
	ESD_WAIT_UNTIL(self->in_flight == self->pairs->len, ERPC_TEST_TIMEOUT_MS);
	for (guint i = 0; i < self->pairs->len; i++)
		erpc_test_pair_unref(g_ptr_array_index(self->pairs, i));
	g_ptr_array_set_size(self->pairs, 0);
	G_OBJECT_CLASS(erpc_test_proxy_parent_class)->dispose(object);
}

static void
erpc_test_proxy_finalize(GObject *object)
{
	ErpcTestProxy *self = ERPC_TEST_PROXY(object);
	g_ptr_array_unref(self->pairs);
	g_free(self->connect_target);
	g_string_free(self->upstream_head, TRUE);
	G_OBJECT_CLASS(erpc_test_proxy_parent_class)->finalize(object);
}

static void
erpc_test_proxy_init(ErpcTestProxy *self)
{
	self->pairs = g_ptr_array_new();
	self->upstream_head = g_string_new(NULL);
}

static void
erpc_test_proxy_class_init(ErpcTestProxyClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	object_class->dispose = erpc_test_proxy_dispose;
	object_class->finalize = erpc_test_proxy_finalize;
}
