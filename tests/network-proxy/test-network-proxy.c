/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <openssl/ssl.h>

#include "esd-test-tls.h"
#include "esd-test-utils.h"

/*
 * The managed network proxy (plugins/network-proxy) through the real daemon,
 * over WebSocket and stdio: `process/start.networkProxy` runs curl against a
 * local HTTP target of the test through the process's proxy, while the
 * test plays the client, answering `network/policyRequest` as each case
 * says and collecting `network/policyDecision`.
 */

#define WAIT_MS 20000

typedef struct {
	GSocketService *service;
	GMainContext *context; /* the target accepts in a thread of its own */
	GMainLoop *loop;
	GThread *thread;
	guint16 port;
	GMutex lock;
	GPtrArray *heads; /* request heads the target received */
	/* the same over TLS, as `localhost`, with a certificate only the daemon trusts */
	GSocketService *tls_service;
	guint16 tls_port;
	guint tls_connections; /* accepted, under the lock */
	SSL_CTX *tls;
	gchar *dir;
	gchar *cert_path;
} Target;

typedef struct {
	EsdTestDaemon *daemon;
	EsdTestWsClient *client; /* NULL over stdio */
	EsdTestPeer *peer;
	GPtrArray *notes;
	GPtrArray *asks; /* network/policyRequest messages */
	guint next_id;
	Target target;
	/* the answer to a policy request: a `result` member, or NULL to stay silent */
	const gchar *answer;
	gchar *ca_bundle; /* credential masking's, gone once the daemon stopped */
} Fixture;

/* the HTTP target ------------------------------------------------------ */

/* a target connection: GIO streams, or OpenSSL over the socket for HTTPS */
typedef struct {
	GInputStream *in;
	GOutputStream *out;
	SSL *ssl;
} Io;

static gssize
io_read(Io *io, gpointer buffer, gsize len)
{
	gsize got = 0;

	if (io->ssl == NULL)
		return g_input_stream_read(io->in, buffer, len, NULL, NULL);
	return SSL_read_ex(io->ssl, buffer, len, &got) == 1 ? (gssize)got : 0;
}

static gboolean
io_write(Io *io, gconstpointer buffer, gsize len)
{
	gsize done = 0;

	if (io->ssl == NULL)
		return g_output_stream_write_all(io->out, buffer, len, NULL, NULL, NULL);
	return len == 0 || (SSL_write_ex(io->ssl, buffer, len, &done) == 1 && done == len);
}

/* the bytes of /bulk/N: not a repeating block, so that a moved or lost piece shows */
static void
bulk_fill(guint8 *block, gsize len, guint64 offset)
{
	for (gsize i = 0; i < len; i++) {
		guint64 at = offset + i;
		block[i] = (guint8)((at * 131) ^ (at >> 12));
	}
}

/* the SHA-256 of the first @size bytes of /bulk/N */
static gchar *
bulk_sha256(guint64 size)
{
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	guint8 block[65536];

	for (guint64 offset = 0; offset < size; offset += sizeof(block)) {
		gsize len = (gsize)MIN(sizeof(block), size - offset);
		bulk_fill(block, len, offset);
		g_checksum_update(sum, block, len);
	}
	return g_strdup(g_checksum_get_string(sum));
}

/* a request body, read after the @early bytes that came with its head: Content-Length
 * or chunked; the digest of what it held into @sum; FALSE if the connection ended */
static gboolean
target_read_body(Io *io, const gchar *head, const gchar *early, gsize early_len, GChecksum *sum)
{
	g_autofree gchar *lower = g_ascii_strdown(head, -1);
	const gchar *length = strstr(lower, "\r\ncontent-length:");
	g_autoptr(GByteArray) raw = g_byte_array_new();
	guint8 block[65536];
	guint64 left;
	gsize at = 0;

	if (strstr(lower, "\r\ntransfer-encoding: chunked") == NULL) {
		left = length != NULL ? g_ascii_strtoull(length + 17, NULL, 10) : 0;
		g_checksum_update(sum, (const guchar *)early, MIN(early_len, left));
		left -= MIN(left, early_len);
		while (left > 0) {
			gssize n = io_read(io, block, MIN(sizeof(block), left));
			if (n <= 0)
				return FALSE;
			g_checksum_update(sum, block, n);
			left -= (guint64)n;
		}
		return TRUE;
	}
	/* chunked (the test's own clients: well formed), through the empty trailer line */
	g_byte_array_append(raw, (const guint8 *)early, (guint)early_len);
	while (TRUE) {
		const gchar *eol;
		guint64 size;

		while (raw->len <= at ||
		       (eol = g_strstr_len((const gchar *)raw->data + at, raw->len - at, "\r\n")) ==
			   NULL) {
			gssize n = io_read(io, block, sizeof(block));
			if (n <= 0)
				return FALSE;
			g_byte_array_append(raw, block, (guint)n);
		}
		size = g_ascii_strtoull((const gchar *)raw->data + at, NULL, 16);
		at = (gsize)(eol - (const gchar *)raw->data) + 2;
		while (raw->len < at + size + 2) {
			gssize n = io_read(io, block, sizeof(block));
			if (n <= 0)
				return FALSE;
			g_byte_array_append(raw, block, (guint)n);
		}
		g_checksum_update(sum, raw->data + at, size);
		at += size + 2;
		if (size == 0)
			return TRUE;
	}
}

/* GET /bulk/N: N bytes of bulk_fill(); a POST: the SHA-256 of its body */
static void
target_bulk(Io *io, const gchar *head, gsize head_len)
{
	const gchar *end = strstr(head, "\r\n\r\n") + 4;
	g_autofree gchar *reply = NULL;
	guint8 block[65536];

	if (g_str_has_prefix(head, "GET ")) {
		guint64 size = g_ascii_strtoull(strstr(head, "/bulk/") + 6, NULL, 10);

		reply = g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Length: %" G_GUINT64_FORMAT
					"\r\n\r\n",
					size);
		if (!io_write(io, reply, strlen(reply)))
			return;
		for (guint64 offset = 0; offset < size; offset += sizeof(block)) {
			gsize len = (gsize)MIN(sizeof(block), size - offset);
			bulk_fill(block, len, offset);
			if (!io_write(io, block, len))
				return;
		}
	} else {
		g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
		g_autofree gchar *only = g_strndup(head, end - head);
		const gchar *digest;

		if (!target_read_body(io, only, end, head_len - (gsize)(end - head), sum))
			return;
		digest = g_checksum_get_string(sum);
		reply = g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s",
					strlen(digest),
					digest);
		io_write(io, reply, strlen(reply));
	}
}

/*
 * Serves a connection: one request, or over TLS every request until the
 * client ends it or asks to (persistent connections, as an intercepted
 * tunnel now passes them on). A request body is read (and, but for
 * /bulk/, dropped) before the next head. A plain request for /persist/
 * keeps the connection for the next one whatever its `Connection` says, as
 * a server that does not honour `close` would.
 */
static void
target_handle(Target *target, Io *io)
{
	g_autoptr(GString) head = g_string_new(NULL);

	while (TRUE) {
		g_autofree gchar *body = NULL;
		g_autofree gchar *reply = NULL;
		g_autofree gchar *lower = NULL;
		g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
		g_auto(GStrv) words = NULL;
		const gchar *end;
		gsize head_len;
		gboolean persist;

		while ((end = strstr(head->str, "\r\n\r\n")) == NULL && head->len < 65536) {
			gchar buf[4096];
			gssize n = io_read(io, buf, sizeof(buf));
			if (n <= 0)
				return;
			g_string_append_len(head, buf, n);
		}
		if (end == NULL)
			return;
		head_len = (gsize)(end - head->str) + 4;
		g_mutex_lock(&target->lock);
		g_ptr_array_add(target->heads, g_strndup(head->str, head_len));
		g_mutex_unlock(&target->lock);
		words = g_strsplit(head->str, " ", 3);
		lower = g_ascii_strdown(head->str, (gssize)head_len);
		persist =
		    io->ssl == NULL && words[1] != NULL && strstr(words[1], "/persist/") != NULL;
		if (words[1] != NULL && strstr(words[1], "/bulk/") != NULL) {
			target_bulk(io, head->str, head->len);
			g_string_truncate(head, 0);
		} else {
			if ((io->ssl != NULL || persist) && !target_read_body(io,
									      lower,
									      head->str + head_len,
									      head->len - head_len,
									      sum))
				return;
			body = g_strdup_printf("target %s %s",
					       words[0],
					       words[1] != NULL ? words[1] : "");
			reply = g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s",
						strlen(body),
						g_str_equal(words[0], "HEAD") ? "" : body);
			io_write(io, reply, strlen(reply));
			/* what came after the head was its body: the test's clients do not pipeline
			 */
			g_string_truncate(head, 0);
		}
		if (persist)
			continue;
		if (io->ssl == NULL || strstr(lower, "\r\nconnection: close") != NULL ||
		    g_str_equal(words[0], "CONNECT"))
			return;
	}
}

static gboolean
target_run_cb(GThreadedSocketService *service,
	      GSocketConnection *conn,
	      GObject *source,
	      gpointer user_data)
{
	Io io = {g_io_stream_get_input_stream(G_IO_STREAM(conn)),
		 g_io_stream_get_output_stream(G_IO_STREAM(conn)),
		 NULL};

	target_handle(user_data, &io);
	return TRUE;
}

/* OpenSSL, not GIO's TLS: with GnuTLS loaded, LeakSanitizer's tracer crashed at exit */
static gboolean
target_tls_run_cb(GThreadedSocketService *service,
		  GSocketConnection *conn,
		  GObject *source,
		  gpointer user_data)
{
	Target *target = user_data;
	gint fd = g_socket_get_fd(g_socket_connection_get_socket(conn));
	Io io = {NULL, NULL, SSL_new(target->tls)};

	g_assert_nonnull(io.ssl);
	/* GSocket's descriptors do not block: this thread does */
	g_assert_no_errno(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
	g_assert_true(SSL_set_fd(io.ssl, fd) == 1);
	g_mutex_lock(&target->lock);
	target->tls_connections++;
	g_mutex_unlock(&target->lock);
	if (SSL_accept(io.ssl) == 1) {
		target_handle(target, &io);
		SSL_shutdown(io.ssl);
	}
	SSL_free(io.ssl);
	return TRUE;
}

static GSocketService *
target_listen(Target *target, guint16 *port, GCallback run)
{
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;
	GSocketService *service = g_threaded_socket_service_new(8);

	g_socket_listener_add_address(G_SOCKET_LISTENER(service),
				      address,
				      G_SOCKET_TYPE_STREAM,
				      G_SOCKET_PROTOCOL_TCP,
				      NULL,
				      &bound,
				      &error);
	g_assert_no_error(error);
	*port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	g_signal_connect(service, "run", run, target);
	g_socket_service_start(service);
	return service;
}

static gpointer
target_thread(gpointer data)
{
	Target *target = data;

	g_main_context_push_thread_default(target->context);
	g_main_loop_run(target->loop);
	g_main_context_pop_thread_default(target->context);
	return NULL;
}

static void
target_start(Target *target)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *key_path = NULL;

	g_mutex_init(&target->lock);
	target->heads = g_ptr_array_new_with_free_func(g_free);
	target->dir = g_dir_make_tmp("esd-test-np-XXXXXX", &error);
	g_assert_no_error(error);
	target->cert_path = g_build_filename(target->dir, "target.pem", NULL);
	key_path = g_build_filename(target->dir, "target.key", NULL);
	esd_test_make_certificate(target->cert_path, key_path);
	target->tls = SSL_CTX_new(TLS_server_method());
	g_assert_nonnull(target->tls);
	g_assert_cmpint(
	    SSL_CTX_use_certificate_file(target->tls, target->cert_path, SSL_FILETYPE_PEM),
	    ==,
	    1);
	g_assert_cmpint(SSL_CTX_use_PrivateKey_file(target->tls, key_path, SSL_FILETYPE_PEM),
			==,
			1);
	g_assert_no_errno(g_unlink(key_path));
	target->context = g_main_context_new();
	target->loop = g_main_loop_new(target->context, FALSE);
	/* the services accept in the thread-default context of their creation */
	g_main_context_push_thread_default(target->context);
	target->service = target_listen(target, &target->port, G_CALLBACK(target_run_cb));
	target->tls_service =
	    target_listen(target, &target->tls_port, G_CALLBACK(target_tls_run_cb));
	g_main_context_pop_thread_default(target->context);
	target->thread = g_thread_new("target", target_thread, target);
}

/* in the target's thread: the service belongs to its context */
static gboolean
target_stop_cb(gpointer data)
{
	Target *target = data;

	/* stopped here, released once their cancelled accepts have finished */
	g_socket_service_stop(target->service);
	g_socket_listener_close(G_SOCKET_LISTENER(target->service));
	g_socket_service_stop(target->tls_service);
	g_socket_listener_close(G_SOCKET_LISTENER(target->tls_service));
	g_main_loop_quit(target->loop);
	return G_SOURCE_REMOVE;
}

static void
target_stop(Target *target)
{
	g_main_context_invoke(target->context, target_stop_cb, target);
	g_thread_join(target->thread);
	/* the cancelled accept still has to finish in the target's context */
	g_main_context_push_thread_default(target->context);
	while (g_main_context_iteration(target->context, FALSE))
		;
	g_clear_object(&target->service);
	g_clear_object(&target->tls_service);
	while (g_main_context_iteration(target->context, FALSE))
		;
	g_main_context_pop_thread_default(target->context);
	g_main_loop_unref(target->loop);
	g_main_context_unref(target->context);
	g_ptr_array_unref(target->heads);
	g_mutex_clear(&target->lock);
	g_clear_pointer(&target->tls, SSL_CTX_free);
	g_assert_no_errno(g_unlink(target->cert_path));
	g_assert_no_errno(g_rmdir(target->dir));
	g_free(target->cert_path);
	g_free(target->dir);
}

static guint
target_count(Target *target)
{
	guint n;

	g_mutex_lock(&target->lock);
	n = target->heads->len;
	g_mutex_unlock(&target->lock);
	return n;
}

static gchar *
target_last_head(Target *target)
{
	gchar *head;

	g_mutex_lock(&target->lock);
	g_assert_cmpuint(target->heads->len, >, 0);
	head = g_strdup(g_ptr_array_index(target->heads, target->heads->len - 1));
	g_mutex_unlock(&target->lock);
	return head;
}

/* the daemon ----------------------------------------------------------- */

static void
fixture_setup(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *curl = g_find_program_in_path("curl");
	g_autofree gchar *cert_file = NULL;
	const gchar *trust[2] = {NULL, NULL};

	fx->notes = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	fx->asks = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);
	fx->next_id = 100;
	target_start(&fx->target);
	if (curl == NULL)
		return;
	/* the daemon's trust store: the TLS target's certificate alone */
	cert_file = g_strdup_printf("SSL_CERT_FILE=%s", fx->target.cert_path);
	trust[0] = cert_file;
	if (g_str_has_prefix(user_data, "upstream")) {
		/* the daemon's own HTTP proxy is the target, which records what reaches it; for
		 * `upstream-http` that one only, which tunnels fall back to */
		g_autofree gchar *url =
		    g_strdup_printf("http://user:pw@127.0.0.1:%u", fx->target.port);
		g_autofree gchar *http = g_strdup_printf("HTTP_PROXY=%s", url);
		g_autofree gchar *https = g_strdup_printf("HTTPS_PROXY=%s", url);
		g_autofree gchar *all = g_strdup("ALL_PROXY=http://127.0.0.1:9");
		const gchar *envp[] = {http,
				       g_str_equal(user_data, "upstream") ? https : all,
				       NULL};
		const gchar *args[] = {"--listen", "stdio", NULL};

		fx->daemon = esd_test_daemon_new_full(args, envp, NULL, FALSE);
		fx->peer = ESD_TEST_PEER(fx->daemon);
	} else if (g_strcmp0(user_data, "stdio") == 0) {
		const gchar *args[] = {"--listen", "stdio", NULL};
		fx->daemon = esd_test_daemon_new_full(args, trust, NULL, FALSE);
		fx->peer = ESD_TEST_PEER(fx->daemon);
	} else {
		/* a vanished client's session expires after a second */
		const gchar *grace[] = {"--session-grace", "1", NULL};
		/* ws-runtime: credential masking's directories under the target's */
		g_autofree gchar *runtime = g_strdup_printf("XDG_RUNTIME_DIR=%s", fx->target.dir);
		const gchar *with_runtime[] = {cert_file, runtime, NULL};
		fx->daemon = esd_test_daemon_new_full(
		    g_strcmp0(user_data, "ws-grace") == 0 ? grace : NULL,
		    g_strcmp0(user_data, "ws-runtime") == 0 ? with_runtime : trust,
		    NULL,
		    TRUE);
		fx->client = esd_test_ws_client_new(esd_test_daemon_get_url(fx->daemon));
		fx->peer = ESD_TEST_PEER(fx->client);
	}
	g_free(esd_test_peer_handshake(fx->peer));
}

static void
fixture_teardown(Fixture *fx, gconstpointer user_data)
{
	if (fx->daemon != NULL) {
		if (fx->client != NULL)
			esd_test_ws_client_close(fx->client);
		g_clear_object(&fx->client);
		if (g_strcmp0(user_data, "stdio") == 0 || g_str_has_prefix(user_data, "upstream"))
			esd_test_daemon_close_stdin(fx->daemon);
		else
			esd_test_daemon_send_signal(fx->daemon, SIGTERM);
		esd_test_daemon_assert_exit_code(fx->daemon, 0, ESD_TEST_TIMEOUT_MS);
		g_assert_cmpuint(esd_test_daemon_get_warning_count(fx->daemon), ==, 0);
		g_clear_object(&fx->daemon);
	}
	if (fx->ca_bundle != NULL) {
		g_autofree gchar *dir = g_path_get_dirname(fx->ca_bundle);
		g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
		g_free(fx->ca_bundle);
	}
	target_stop(&fx->target);
	g_ptr_array_unref(fx->notes);
	g_ptr_array_unref(fx->asks);
}

static gboolean
fixture_skip(Fixture *fx)
{
	if (fx->daemon != NULL)
		return FALSE;
	g_test_skip("curl is not installed");
	return TRUE;
}

static gboolean
is_method(JsonNode *msg, const gchar *method)
{
	JsonNode *node = esd_test_json_get(msg, "method");
	return node != NULL && g_strcmp0(json_node_get_string(node), method) == 0;
}

/* the next reply; notifications are kept, policy requests answered as fx->answer says */
static JsonNode *
fixture_next(Fixture *fx)
{
	while (TRUE) {
		g_autoptr(GBytes) bytes = esd_test_peer_receive(fx->peer, WAIT_MS);
		g_autofree gchar *text = NULL;
		JsonNode *msg;

		if (bytes == NULL)
			g_error("no message from the daemon");
		text = g_strndup(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes));
		msg = esd_test_json_parse(text);
		if (is_method(msg, "network/policyRequest")) {
			g_ptr_array_add(fx->asks, json_node_ref(msg));
			if (fx->answer != NULL) {
				g_autofree gchar *answer =
				    g_strdup_printf("{\"id\":%" G_GINT64_FORMAT ",\"result\":%s}",
						    esd_test_json_get_int(msg, "id"),
						    fx->answer);
				esd_test_peer_send_text(fx->peer, answer);
			}
			json_node_unref(msg);
			continue;
		}
		return msg;
	}
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
	return is_method(note, method) &&
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
		g_ptr_array_add(fx->notes, msg);
		if (note_matches(msg, method, process_id))
			return msg;
	}
}

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

/* the policy decisions of @process_id, in order; each came before its process/exited */
static GPtrArray *
fixture_decisions(Fixture *fx, const gchar *process_id)
{
	GPtrArray *out = g_ptr_array_new();
	gboolean exited = FALSE;

	for (guint i = 0; i < fx->notes->len; i++) {
		JsonNode *note = g_ptr_array_index(fx->notes, i);
		if (note_matches(note, "process/exited", process_id))
			exited = TRUE;
		if (!note_matches(note, "network/policyDecision", process_id))
			continue;
		if (exited)
			g_error("%s: a network/policyDecision after process/exited", process_id);
		g_ptr_array_add(out, esd_test_json_get(note, "params"));
	}
	return out;
}

#define PROXY_FLAGS                                                                                \
	"\"enabled\":true,\"enableSocks5\":false,\"enableSocks5Udp\":false,"                       \
	"\"allowUpstreamProxy\":false,\"dangerouslyAllowAllUnixSockets\":false"

/* `{"proxy": {...flags, allowLocalBinding, mode, domains?}, extra}` */
static gchar *
proxy_member(gboolean allow_local, const gchar *mode, const gchar *domains, const gchar *extra)
{
	return g_strdup_printf("\"networkProxy\":{\"proxy\":{" PROXY_FLAGS
			       ",\"allowLocalBinding\":%s,\"mode\":\"%s\"%s%s}%s%s}",
			       allow_local ? "true" : "false",
			       mode,
			       domains != NULL ? ",\"domains\":" : "",
			       domains != NULL ? domains : "",
			       extra != NULL ? "," : "",
			       extra != NULL ? extra : "");
}

static gchar *
start_params(const gchar *id, const gchar *script, const gchar *member)
{
	g_autoptr(JsonNode) quoted = json_node_init_string(json_node_alloc(), script);
	g_autofree gchar *text = json_to_string(quoted, FALSE);

	return g_strdup_printf("{\"processId\":\"%s\",\"argv\":[\"sh\",\"-c\",%s],"
			       "\"cwd\":\"file:///\",\"env\":{\"PATH\":\"/usr/bin:/bin\","
			       "\"ESD_KEEP\":\"kept\"},\"tty\":false,%s}",
			       id,
			       text,
			       member);
}

static void
fixture_start(Fixture *fx, const gchar *id, const gchar *script, const gchar *member)
{
	g_autofree gchar *params = start_params(id, script, member);
	g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);
	g_autofree gchar *result =
	    g_strdup_printf("{\"processId\":\"%s\",\"sandboxType\":\"none\"}", id);

	esd_assert_json_node_eq(esd_test_json_get(reply, "result"), result);
}

/* curl through the proxy of the environment; prints the body, then the status and exit code */
static gchar *
curl(const gchar *args)
{
	return g_strdup_printf(
	    "curl -s --max-time 15 -w '\\ncode=%%{http_code}' %s; echo \" exit=$?\"",
	    args);
}

/* runs @url with curl in process @id and returns its output */
static gchar *
fixture_curl(Fixture *fx, const gchar *id, const gchar *member, const gchar *args)
{
	g_autofree gchar *script = curl(args);

	fixture_start(fx, id, script, member);
	return fixture_output(fx, id);
}

static void
assert_decision(JsonNode *note,
		const gchar *process_id,
		const gchar *decision,
		const gchar *source,
		const gchar *reason,
		const gchar *protocol,
		const gchar *host,
		gint64 port,
		const gchar *method)
{
	const gchar *members[] = {"processId",
				  "timestamp",
				  "scope",
				  "decision",
				  "source",
				  "reason",
				  "protocol",
				  "host",
				  "port",
				  "method",
				  "client",
				  "policyOverride",
				  NULL};
	g_autoptr(GList) names = json_object_get_members(json_node_get_object(note));
	guint i = 0;

	/* the reference's members, in its order */
	for (GList *l = names; l != NULL; l = l->next, i++)
		g_assert_cmpstr(l->data, ==, members[i]);
	g_assert_cmpstr(members[i], ==, NULL);
	g_assert_cmpstr(esd_test_json_get_string(note, "processId"), ==, process_id);
	g_assert_true(g_regex_match_simple("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$",
					   esd_test_json_get_string(note, "timestamp"),
					   0,
					   0));
	g_assert_cmpstr(esd_test_json_get_string(note, "scope"),
			==,
			g_str_equal(source, "mode_guard") || g_str_equal(source, "proxy_state")
			    ? "non_domain"
			    : "domain");
	g_assert_cmpstr(esd_test_json_get_string(note, "decision"), ==, decision);
	g_assert_cmpstr(esd_test_json_get_string(note, "source"), ==, source);
	g_assert_cmpstr(esd_test_json_get_string(note, "reason"), ==, reason);
	g_assert_cmpstr(esd_test_json_get_string(note, "protocol"), ==, protocol);
	g_assert_cmpstr(esd_test_json_get_string(note, "host"), ==, host);
	g_assert_cmpint(esd_test_json_get_int(note, "port"), ==, port);
	g_assert_cmpstr(esd_test_json_get_string(note, "method"), ==, method);
	g_assert_true(g_str_has_prefix(esd_test_json_get_string(note, "client"), "127.0.0.1:"));
	/* the decider's allow overrides the list's `not_allowed`, and says so */
	g_assert_cmpint(json_node_get_boolean(esd_test_json_get(note, "policyOverride")),
			==,
			g_str_equal(decision, "allow") && g_str_equal(source, "decider"));
}

/* the tests ------------------------------------------------------------ */

static void
test_capability(Fixture *fx, gconstpointer user_data)
{
	g_autoptr(JsonNode) reply = NULL;
	JsonNode *caps;

	if (fixture_skip(fx))
		return;
	reply = fixture_call(fx, "environment/info", "{}");
	caps = esd_test_json_get(reply, "result.capabilities");
	g_assert_nonnull(caps);
	g_assert_true(json_node_get_boolean(esd_test_json_get(caps, "networkProxyLaunch")));
	g_assert_true(json_node_get_boolean(esd_test_json_get(caps, "networkProxyReviewDomains")));
	g_assert_true(json_node_get_boolean(esd_test_json_get(caps, "credentialMasking")));
	g_assert_true(
	    json_node_get_boolean(esd_test_json_get(caps, "credentialMaskingCustomProviders")));
	/* what the proxy does not do is not advertised */
	g_assert_false(
	    json_node_get_boolean(esd_test_json_get(caps, "networkProxyTransparentTcp")));
}

static void
test_invalid(Fixture *fx, gconstpointer user_data)
{
	const struct {
		const gchar *member;
		const gchar *message;
	} cases[] = {
	    {"\"networkProxy\":{}", "missing field `proxy`"},
	    {"\"networkProxy\":{\"proxy\":{\"enabled\":true}}", "missing field `enableSocks5`"},
	    {"\"networkProxy\":{\"proxy\":{\"enabled\":false,\"enableSocks5\":false,"
	     "\"enableSocks5Udp\":false,\"allowUpstreamProxy\":false,"
	     "\"dangerouslyAllowAllUnixSockets\":false,\"allowLocalBinding\":false,"
	     "\"mode\":\"full\"}}",
	     "invalid network proxy config: executor-local network proxy launch requires an "
	     "enabled proxy"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"open\"}}",
	     "unknown variant `open`, expected `limited` or `full`"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\"},\"policyDecisionTimeoutMs\":0}",
	     "network policy decision callback timeout must be nonzero"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"\":\"allow\"}}}",
	     "invalid network proxy config: domain pattern is empty"},
	    /* the wording of the live reference, which reads `proxy` as a generic value */
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":1,"
	     "\"mode\":\"full\"}}",
	     "invalid type: number, expected a boolean"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":{\"full\":1}}}",
	     "invalid type: number, expected unit"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"a.test\":{\"allow\":null,\"deny\":null}}}}",
	     "invalid value: map, expected map with a single key"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"a.test\":true}}}",
	     "invalid type: boolean `true`, expected string or map"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"reviewDomains\":\"a.test\"}}",
	     "invalid type: string \"a.test\", expected a sequence"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"reviewDomains\":[1]}}",
	     "invalid type: number, expected a string"},
	    /* the types of every list before any pattern; then deny, allow, review */
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"a b\":\"allow\"},\"reviewDomains\":[null]}}",
	     "invalid type: null, expected a string"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"a a\":\"allow\",\"z z\":\"deny\","
	     "\"y y\":\"deny\"},\"reviewDomains\":[\"c c\"]}}",
	     "invalid network proxy config: unsupported domain pattern syntax: y y"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"a.test\":\"allow\"},"
	     "\"reviewDomains\":[\"c c\"]}}",
	     "invalid network proxy config: unsupported domain pattern syntax: c c"},
	    /* credential providers, with the reference's words where it checks them */
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":[]}}",
	     "invalid type: sequence, expected a map"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":1}}}",
	     "invalid type: integer `1`, expected struct CredentialProviderConfig"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"x\":1}}}}",
	     "unknown field `x`, expected one of `env`, `patterns`, `url_prefixes`, "
	     "`url_prefix_from_env`, `auth`, `header`, `prefix`"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"auth\":[\"nope\"]}}}}",
	     "unknown variant `nope`, expected one of `bearer`, `token`, `basic`, `header`"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"env\":\"X\"}}}}",
	     "invalid type: string \"X\", expected a sequence"},
	    /* beyond the reference, which takes these and cannot use them */
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"patterns\":[\"([\"]}}}}",
	     NULL},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"url_prefixes\":"
	     "[\"ftp://a.test\"]}}}}",
	     "invalid network proxy config: credential provider `v`: invalid URL prefix "
	     "`ftp://a.test`"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"auth\":[\"header\"]}}}}",
	     "invalid network proxy config: credential provider `v`: auth `header` requires "
	     "`header`"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"credentialProviders\":{\"v\":{\"auth\":[\"header\"],"
	     "\"header\":\"a b\"}}}}",
	     "invalid network proxy config: credential provider `v`: invalid header name `a b`"},
	    {"\"networkProxy\":{\"proxy\":{" PROXY_FLAGS ",\"allowLocalBinding\":false,"
	     "\"mode\":\"full\",\"domains\":{\"*\":\"deny\"}}}",
	     "invalid network proxy config: invalid value for network.denied_domains: * "
	     "(allowed exact hosts or scoped wildcards like *.example.com or **.example.com)"},
	};

	if (fixture_skip(fx))
		return;
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *params = start_params("bad", "true", cases[i].member);
		g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);
		g_autofree gchar *id = g_strdup_printf("%u", fx->next_id - 1);
		/* NULL: GRegex's own words, after the provider's name */
		if (cases[i].message == NULL) {
			g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32602);
			g_assert_true(
			    g_str_has_prefix(esd_test_json_get_string(reply, "error.message"),
					     "invalid network proxy config: credential provider "
					     "`v`: invalid pattern: "));
			continue;
		}
		esd_test_peer_assert_reply_error(reply, id, -32602, cases[i].message);
	}
	/* nothing was left behind: the id is free */
	fixture_start(fx, "bad", "true", "\"networkProxy\":null");
}

static void
assert_env(const gchar *out, gboolean allow_local)
{
	const gchar *proxies[] = {"HTTP_PROXY",
				  "HTTPS_PROXY",
				  "ALL_PROXY",
				  "FTP_PROXY",
				  "WS_PROXY",
				  "WSS_PROXY",
				  "http_proxy",
				  "https_proxy",
				  "all_proxy",
				  "ftp_proxy",
				  "ws_proxy",
				  "wss_proxy",
				  "NPM_CONFIG_PROXY",
				  "NPM_CONFIG_HTTP_PROXY",
				  "NPM_CONFIG_HTTPS_PROXY",
				  "npm_config_proxy",
				  "npm_config_http_proxy",
				  "npm_config_https_proxy",
				  "YARN_HTTP_PROXY",
				  "YARN_HTTPS_PROXY",
				  "PIP_PROXY",
				  "DOCKER_HTTP_PROXY",
				  "DOCKER_HTTPS_PROXY",
				  "BUNDLE_HTTP_PROXY",
				  "BUNDLE_HTTPS_PROXY",
				  NULL};
	const gchar *no_proxies[] = {"NO_PROXY",
				     "no_proxy",
				     "NPM_CONFIG_NOPROXY",
				     "npm_config_noproxy",
				     "BUNDLE_NO_PROXY",
				     NULL};
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	g_autoptr(GHashTable) env = g_hash_table_new(g_str_hash, g_str_equal);
	const gchar *url;

	for (guint i = 0; lines[i] != NULL; i++) {
		gchar *eq = strchr(lines[i], '=');
		if (eq == NULL)
			continue;
		*eq = '\0';
		g_hash_table_insert(env, lines[i], eq + 1);
	}
	url = g_hash_table_lookup(env, "HTTP_PROXY");
	g_assert_nonnull(url);
	g_assert_true(g_regex_match_simple("^http://127\\.0\\.0\\.1:\\d+$", url, 0, 0));
	for (guint i = 0; proxies[i] != NULL; i++)
		g_assert_cmpstr(g_hash_table_lookup(env, proxies[i]), ==, url);
	for (guint i = 0; no_proxies[i] != NULL; i++)
		g_assert_cmpstr(g_hash_table_lookup(env, no_proxies[i]),
				==,
				allow_local ? "localhost,127.0.0.1,::1,10.0.0.0/8,172.16.0.0/12,"
					      "192.168.0.0/16"
					    : "");
	g_assert_cmpstr(g_hash_table_lookup(env, "CODEX_NETWORK_PROXY_ACTIVE"), ==, "1");
	g_assert_cmpstr(g_hash_table_lookup(env, "CODEX_NETWORK_ALLOW_LOCAL_BINDING"),
			==,
			allow_local ? "1" : "0");
	g_assert_cmpstr(g_hash_table_lookup(env, "NODE_USE_ENV_PROXY"), ==, "1");
	g_assert_cmpstr(g_hash_table_lookup(env, "ELECTRON_GET_USE_PROXY"), ==, "true");
	/* the request's own variables stay */
	g_assert_cmpstr(g_hash_table_lookup(env, "ESD_KEEP"), ==, "kept");
	g_assert_cmpstr(g_hash_table_lookup(env, "PATH"), ==, "/usr/bin:/bin");
	/* PATH, ESD_KEEP, the shell's PWD and what the proxy injects: nothing else */
	g_assert_cmpuint(g_hash_table_size(env), ==, 3 + 25 + 5 + 4);
}

static void
test_env(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	g_autofree gchar *local = proxy_member(TRUE, "full", NULL, NULL);
	g_autofree gchar *out = NULL;
	g_autofree gchar *out_local = NULL;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "env", "env", member);
	out = fixture_output(fx, "env");
	assert_env(out, FALSE);
	fixture_start(fx, "env-local", "env", local);
	out_local = fixture_output(fx, "env-local");
	assert_env(out_local, TRUE);
}

/* an explicitly allowed local literal is forwarded, as origin form, without hop headers */
static void
test_allowed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *args = g_strdup_printf("http://127.0.0.1:%u/path?q=1", fx->target.port);
	g_autofree gchar *out = NULL;
	g_autofree gchar *other = NULL;
	g_autofree gchar *out_other = NULL;
	g_autofree gchar *out_refused = NULL;
	g_autofree gchar *head = NULL;
	g_autoptr(GPtrArray) decisions = NULL;

	if (fixture_skip(fx))
		return;
	out = fixture_curl(fx, "p1", member, args);
	g_assert_cmpstr(out, ==, "target GET /path?q=1\ncode=200 exit=0\n");
	head = target_last_head(&fx->target);
	g_assert_true(g_str_has_prefix(head, "GET /path?q=1 HTTP/1.1\r\n"));
	g_assert_null(strstr(head, "Proxy-Connection"));
	g_assert_nonnull(strstr(head, "\r\nConnection: close\r\n"));
	decisions = fixture_decisions(fx, "p1");
	g_assert_cmpuint(decisions->len, ==, 1);
	assert_decision(decisions->pdata[0],
			"p1",
			"allow",
			"baseline_policy",
			"allow",
			"http",
			"127.0.0.1",
			fx->target.port,
			"GET");
	/* a Host header that names another host (a virtual host's) is refused, as on the reference
	 */
	other = g_strdup_printf("-H 'Host: other.test' %s", args);
	out_other = fixture_curl(fx, "p2", member, other);
	g_assert_cmpstr(out_other,
			==,
			"Host header does not match request target\ncode=400 exit=0\n");
	g_assert_cmpuint(target_count(&fx->target), ==, 1);
	/* an allowed destination that refuses the connection: 502, as on the reference */
	out_refused = fixture_curl(fx, "p3", member, "http://127.0.0.1:1/");
	g_assert_cmpstr(out_refused, ==, "upstream failure\ncode=502 exit=0\n");
}

/*
 * what a command leaves running is still served after it exited, and its
 * decision reaches the client before the process closes (it holds the
 * output pipe, so the close waits for it)
 */
static void
test_after_exit(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *args = g_strdup_printf("http://127.0.0.1:%u/late", fx->target.port);
	g_autofree gchar *request = curl(args);
	g_autofree gchar *script = g_strdup_printf("(sleep 0.3; %s) & exit 0", request);
	g_autofree gchar *out = NULL;
	gint exited = -1;
	gint decision = -1;
	gint closed = -1;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "late", script, member);
	out = fixture_output(fx, "late");
	g_assert_cmpstr(out, ==, "target GET /late\ncode=200 exit=0\n");
	for (guint i = 0; i < fx->notes->len; i++) {
		JsonNode *note = g_ptr_array_index(fx->notes, i);
		if (note_matches(note, "process/exited", "late"))
			exited = (gint)i;
		else if (note_matches(note, "network/policyDecision", "late"))
			decision = (gint)i;
		else if (note_matches(note, "process/closed", "late"))
			closed = (gint)i;
	}
	g_assert_cmpint(exited, >=, 0);
	g_assert_cmpint(decision, >, exited);
	g_assert_cmpint(decision, <, closed);
}

/* a local destination nobody allowed: 403 with the reference's body */
static void
test_blocked_local(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	g_autofree gchar *args = g_strdup_printf("http://127.0.0.1:%u/x", fx->target.port);
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_autoptr(GPtrArray) decisions = NULL;

	if (fixture_skip(fx))
		return;
	out = fixture_curl(fx, "p1", member, args);
	expected = g_strdup_printf(
	    "{\"status\":\"blocked\",\"host\":\"127.0.0.1\",\"reason\":\"not_allowed_local\","
	    "\"decision\":\"deny\",\"source\":\"baseline_policy\",\"protocol\":\"http\","
	    "\"port\":%u,\"message\":\"Sandbox policy blocks local/private network "
	    "addresses.\"}\ncode=403 exit=0\n",
	    fx->target.port);
	g_assert_cmpstr(out, ==, expected);
	g_assert_cmpuint(target_count(&fx->target), ==, 0);
	decisions = fixture_decisions(fx, "p1");
	g_assert_cmpuint(decisions->len, ==, 1);
	assert_decision(decisions->pdata[0],
			"p1",
			"deny",
			"baseline_policy",
			"not_allowed_local",
			"http",
			"127.0.0.1",
			fx->target.port,
			"GET");
}

/*
 * Codex's wildcards: `**.` covers the apex, `*.` only subdomains; deny
 * wins; unlisted names. A local destination passes only when a pattern
 * without a wildcard names it: a wildcard that covers it is not enough
 * (as on the live reference)
 */
static void
test_patterns(Fixture *fx, gconstpointer user_data)
{
	const struct {
		const gchar *domains;
		const gchar *host;
		const gchar *reason;
	} cases[] = {
	    {"{\"**.localhost\":\"allow\"}", "localhost", "not_allowed_local"},
	    {"{\"*.localhost\":\"allow\"}", "localhost", "not_allowed_local"},
	    {"{\"*\":\"allow\"}", "LocalHost.", "not_allowed_local"},
	    {"{\"localhos?\":\"allow\"}", "localhost", "not_allowed_local"},
	    {"{\" LocalHost. \":\"allow\"}", "localhost", "allow"},
	    {"{\"localhost\":\"allow\"}", "LocalHost.", "allow"},
	    {"{\"**.localhost\":\"allow\",\"localhost\":\"deny\"}", "localhost", "denied"},
	    {"{\"localhost\":\"none\"}", "localhost", "not_allowed_local"},
	    {"{\"localhost\":\"allow\"}", "unlisted.test", "not_allowed"},
	};

	if (fixture_skip(fx))
		return;
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *id = g_strdup_printf("p%u", i);
		g_autofree gchar *member = proxy_member(FALSE, "full", cases[i].domains, NULL);
		g_autofree gchar *args =
		    g_strdup_printf("http://%s:%u/w", cases[i].host, fx->target.port);
		g_autofree gchar *out = fixture_curl(fx, id, member, args);
		g_autoptr(GPtrArray) decisions = fixture_decisions(fx, id);

		g_test_message("%s %s: %s", cases[i].domains, cases[i].host, out);
		g_assert_cmpuint(decisions->len, ==, 1);
		g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[0], "reason"),
				==,
				cases[i].reason);
		g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[0], "host"),
				==,
				g_str_equal(cases[i].host, "LocalHost.") ? "localhost"
									 : cases[i].host);
		if (g_str_equal(cases[i].reason, "allow")) {
			g_assert_cmpstr(out, ==, "target GET /w\ncode=200 exit=0\n");
		} else {
			g_assert_true(g_str_has_suffix(out, "\ncode=403 exit=0\n"));
			g_assert_nonnull(strstr(out, cases[i].reason));
		}
	}
	g_assert_cmpuint(target_count(&fx->target), ==, 2);
}

/* a name that resolves only to local addresses, that is no local literal; NULL if none */
static gchar *
local_name(void)
{
	const gchar *candidates[] = {g_get_host_name(),
				     "localhost.localdomain",
				     "ip6-localhost",
				     NULL};
	g_autoptr(GResolver) resolver = g_resolver_get_default();

	for (guint i = 0; candidates[i] != NULL; i++) {
		g_autoptr(GInetAddress) literal = g_inet_address_new_from_string(candidates[i]);
		GList *addresses;
		gboolean local = TRUE;

		if (literal != NULL || g_str_has_suffix(candidates[i], "localhost") ||
		    strchr(candidates[i], '.') != NULL)
			continue;
		addresses = g_resolver_lookup_by_name(resolver, candidates[i], NULL, NULL);
		if (addresses == NULL)
			continue;
		for (GList *l = addresses; l != NULL; l = l->next)
			local = local && (g_inet_address_get_is_loopback(l->data) ||
					  g_inet_address_get_is_site_local(l->data) ||
					  g_inet_address_get_is_link_local(l->data));
		g_resolver_free_addresses(addresses);
		if (local)
			return g_strdup(candidates[i]);
	}
	return NULL;
}

/* an allowed name that resolves to a local address is still refused: the address counts */
static void
test_resolves_local(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *name = local_name();
	g_autofree gchar *domains = NULL;
	g_autofree gchar *member = NULL;
	g_autofree gchar *member_local = NULL;
	g_autofree gchar *args = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *out_local = NULL;
	g_autoptr(GPtrArray) decisions = NULL;

	if (fixture_skip(fx))
		return;
	if (name == NULL) {
		g_test_skip("no host name resolves to a local address here");
		return;
	}
	domains = g_strdup_printf("{\"%s\":\"allow\"}", name);
	member = proxy_member(FALSE, "full", domains, NULL);
	args = g_strdup_printf("--noproxy '' -x \"$HTTP_PROXY\" http://%s:%u/r",
			       name,
			       fx->target.port);
	out = fixture_curl(fx, "p1", member, args);
	g_assert_true(g_str_has_suffix(out, "\ncode=403 exit=0\n"));
	decisions = fixture_decisions(fx, "p1");
	g_assert_cmpuint(decisions->len, ==, 1);
	assert_decision(decisions->pdata[0],
			"p1",
			"deny",
			"baseline_policy",
			"not_allowed_local",
			"http",
			name,
			fx->target.port,
			"GET");
	g_assert_cmpuint(target_count(&fx->target), ==, 0);
	/* allowLocalBinding lets it through */
	member_local = proxy_member(TRUE, "full", domains, NULL);
	out_local = fixture_curl(fx, "p2", member_local, args);
	g_assert_cmpstr(out_local, ==, "target GET /r\ncode=200 exit=0\n");
}

/* limited mode: GET, HEAD and OPTIONS only; no tunnels */
static void
test_limited(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member =
	    proxy_member(FALSE, "limited", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *get = g_strdup_printf("http://127.0.0.1:%u/g", fx->target.port);
	g_autofree gchar *post = g_strdup_printf("-d x http://127.0.0.1:%u/p", fx->target.port);
	g_autofree gchar *tunnel = g_strdup_printf("-p http://127.0.0.1:%u/t", fx->target.port);
	g_autofree gchar *out_get = NULL;
	g_autofree gchar *out_post = NULL;
	g_autofree gchar *out_tunnel = NULL;
	g_autoptr(GPtrArray) post_decisions = NULL;
	g_autoptr(GPtrArray) tunnel_decisions = NULL;

	if (fixture_skip(fx))
		return;
	out_get = fixture_curl(fx, "get", member, get);
	g_assert_cmpstr(out_get, ==, "target GET /g\ncode=200 exit=0\n");
	out_post = fixture_curl(fx, "post", member, post);
	g_assert_nonnull(strstr(out_post, "\"reason\":\"method_not_allowed\""));
	g_assert_nonnull(strstr(out_post, "\"message\":\"Method not allowed in limited mode.\""));
	g_assert_true(g_str_has_suffix(out_post, "\ncode=403 exit=0\n"));
	post_decisions = fixture_decisions(fx, "post");
	g_assert_cmpuint(post_decisions->len, ==, 2);
	assert_decision(post_decisions->pdata[0],
			"post",
			"allow",
			"baseline_policy",
			"allow",
			"http",
			"127.0.0.1",
			fx->target.port,
			"POST");
	assert_decision(post_decisions->pdata[1],
			"post",
			"deny",
			"mode_guard",
			"method_not_allowed",
			"http",
			"127.0.0.1",
			fx->target.port,
			"POST");
	out_tunnel = fixture_curl(fx, "tunnel", member, tunnel);
	g_assert_cmpstr(out_tunnel, ==, "\ncode=000 exit=56\n");
	tunnel_decisions = fixture_decisions(fx, "tunnel");
	g_assert_cmpuint(tunnel_decisions->len, ==, 2);
	assert_decision(tunnel_decisions->pdata[1],
			"tunnel",
			"deny",
			"mode_guard",
			"mitm_required",
			"https_connect",
			"127.0.0.1",
			fx->target.port,
			"CONNECT");
	g_assert_cmpuint(target_count(&fx->target), ==, 1);
}

/*
 * `x-unix-socket` asks the proxy for a Unix socket of its host, which the
 * reference serves on macOS only: here, as there on Linux, 501 whatever the
 * target (absolute, of another scheme, denied, or the origin form of a
 * request to the proxy itself), 403 in limited mode for a method it does
 * not allow, 400 for a value that is not visible ASCII, each but the last
 * with its decision (host `unix-socket`, port 0). Nothing reaches the
 * target; a CONNECT ignores the header.
 */
static void
test_unix_socket(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *full =
	    proxy_member(FALSE,
			 "full",
			 "{\"127.0.0.1\":\"allow\",\"denied.invalid\":\"deny\"}",
			 NULL);
	g_autofree gchar *limited =
	    proxy_member(FALSE, "limited", "{\"127.0.0.1\":\"allow\"}", NULL);
	const gchar *header = "-H 'x-unix-socket: /run/docker.sock'";
	struct {
		const gchar *id;
		gboolean limited;
		gchar *args;
		const gchar *out;
		const gchar *method;
	} cases[] = {
	    {"plain",
	     FALSE,
	     g_strdup_printf("%s http://127.0.0.1:%u/u", header, fx->target.port),
	     "unix sockets unsupported\ncode=501 exit=0\n",
	     "GET"},
	    {"denied",
	     FALSE,
	     g_strdup_printf("-H 'X-Unix-Socket: relative' http://denied.invalid/u"),
	     "unix sockets unsupported\ncode=501 exit=0\n",
	     "GET"},
	    {"empty",
	     FALSE,
	     g_strdup_printf("-H 'x-unix-socket;' ftp://127.0.0.1:%u/u", fx->target.port),
	     "unix sockets unsupported\ncode=501 exit=0\n",
	     "GET"},
	    {"origin",
	     FALSE,
	     g_strdup_printf("%s --noproxy '*' \"$HTTP_PROXY/u\"", header),
	     "unix sockets unsupported\ncode=501 exit=0\n",
	     "GET"},
	    {"invalid",
	     FALSE,
	     g_strdup_printf("-H \"$(printf 'x-unix-socket: /run/\\377')\" http://127.0.0.1:%u/u",
			     fx->target.port),
	     "invalid x-unix-socket header\ncode=400 exit=0\n",
	     NULL},
	    {"limited-post",
	     TRUE,
	     g_strdup_printf("%s -d x http://127.0.0.1:%u/u", header, fx->target.port),
	     "{\"status\":\"blocked\",\"host\":\"unix-socket\",\"reason\":\"method_not_"
	     "allowed\"}\ncode=403 exit=0\n",
	     "POST"},
	    {"limited-get",
	     TRUE,
	     g_strdup_printf("%s -X OPTIONS http://127.0.0.1:%u/u", header, fx->target.port),
	     "unix sockets unsupported\ncode=501 exit=0\n",
	     "OPTIONS"},
	};
	g_autofree gchar *tunnel = NULL;
	g_autofree gchar *tunnel_out = NULL;

	if (fixture_skip(fx)) {
		for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
			g_free(cases[i].args);
		return;
	}
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *out =
		    fixture_curl(fx, cases[i].id, cases[i].limited ? limited : full, cases[i].args);
		g_autoptr(GPtrArray) decisions = fixture_decisions(fx, cases[i].id);

		g_test_message("%s: %s", cases[i].id, out);
		g_assert_cmpstr(out, ==, cases[i].out);
		g_assert_cmpuint(decisions->len, ==, cases[i].method != NULL ? 1 : 0);
		if (cases[i].method != NULL)
			assert_decision(decisions->pdata[0],
					cases[i].id,
					"deny",
					cases[i].limited && !g_str_equal(cases[i].method, "OPTIONS")
					    ? "mode_guard"
					    : "proxy_state",
					cases[i].limited && !g_str_equal(cases[i].method, "OPTIONS")
					    ? "method_not_allowed"
					    : "unix_socket_unsupported",
					"http",
					"unix-socket",
					0,
					cases[i].method);
		g_free(cases[i].args);
	}
	g_assert_cmpuint(target_count(&fx->target), ==, 0);
	/* CONNECT is a tunnel to its target, header or not, as on the reference */
	tunnel = g_strdup_printf("-p --proxy-header 'x-unix-socket: /run/docker.sock' "
				 "http://127.0.0.1:%u/t",
				 fx->target.port);
	tunnel_out = fixture_curl(fx, "tunnel", full, tunnel);
	g_assert_cmpstr(tunnel_out, ==, "target GET /t\ncode=200 exit=0\n");
}

/*
 * A plain HTTP connection to the proxy carries the one request the policy
 * checked, even to a server that keeps its connection open: the response
 * says `Connection: close`, so a client makes its next request on a new
 * connection, checked there (in limited mode a POST after a GET is refused,
 * as on the reference); a request pipelined after the first never reaches
 * the server; a chunked request body is passed on whole, its response too.
 */
static void
test_plain_one_request(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *limited =
	    proxy_member(FALSE, "limited", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *full = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *next = g_strdup_printf(
	    "-i http://127.0.0.1:%u/persist/a --next -s -d x http://127.0.0.1:%u/persist/b",
	    fx->target.port,
	    fx->target.port);
	g_autofree gchar *chunked =
	    g_strdup_printf("-H 'Transfer-Encoding: chunked' --data-binary @/etc/services "
			    "http://127.0.0.1:%u/persist/c",
			    fx->target.port);
	g_autofree gchar *pipelined = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	g_autofree gchar *head = NULL;

	if (fixture_skip(fx))
		return;
	out = fixture_curl(fx, "next", limited, next);
	g_test_message("%s", out);
	g_assert_nonnull(strstr(out, "\r\nConnection: close\r\n\r\ntarget GET /persist/a"));
	/* the second transfer's options (--next) have no -w: its body ends the output */
	g_assert_true(
	    g_str_has_suffix(out, "\"message\":\"Method not allowed in limited mode.\"} exit=0\n"));
	decisions = fixture_decisions(fx, "next");
	g_assert_cmpuint(decisions->len, ==, 3);
	assert_decision(decisions->pdata[2],
			"next",
			"deny",
			"mode_guard",
			"method_not_allowed",
			"http",
			"127.0.0.1",
			fx->target.port,
			"POST");
	g_assert_cmpuint(target_count(&fx->target), ==, 1);
	g_clear_pointer(&out, g_free);

	/* two requests in one write: the second is not passed on */
	pipelined = g_strdup_printf(
	    "python3 -c 'import os, socket, sys; p = int(os.environ[\"HTTP_PROXY\"].rsplit(\":\", "
	    "1)[1]);"
	    " s = socket.create_connection((\"127.0.0.1\", p)); t = \"127.0.0.1:%u\";"
	    " s.sendall((\"GET http://%%s/persist/one HTTP/1.1\\r\\nHost: %%s\\r\\n\\r\\n\""
	    " \"GET http://%%s/persist/smuggled HTTP/1.1\\r\\nHost: %%s\\r\\n\\r\\n\""
	    " %% (t, t, t, t)).encode()); d = b\"\"\n"
	    "while True:\n c = s.recv(65536)\n if not c: break\n d += c\n"
	    "sys.stdout.write(d.decode())'",
	    fx->target.port);
	fixture_start(fx, "pipelined", pipelined, full);
	out = fixture_output(fx, "pipelined");
	expected = g_strdup("HTTP/1.1 200 OK\r\nContent-Length: 23\r\nConnection: close\r\n\r\n"
			    "target GET /persist/one");
	g_assert_cmpstr(out, ==, expected);
	g_assert_cmpuint(target_count(&fx->target), ==, 2);
	g_clear_pointer(&out, g_free);

	out = fixture_curl(fx, "chunked", full, chunked);
	g_assert_cmpstr(out, ==, "target POST /persist/c\ncode=200 exit=0\n");
	head = target_last_head(&fx->target);
	g_assert_nonnull(strstr(head, "\r\nTransfer-Encoding: chunked\r\n"));
	g_assert_cmpuint(target_count(&fx->target), ==, 3);
}

/* CONNECT: an allowed tunnel carries the bytes; a blocked one fails at the proxy */
static void
test_connect(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *allowed = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *blocked = proxy_member(FALSE, "full", NULL, NULL);
	g_autofree gchar *args = g_strdup_printf("-p http://127.0.0.1:%u/t", fx->target.port);
	g_autofree gchar *verbose =
	    g_strdup_printf("-v -p http://127.0.0.1:%u/t 2>&1 | grep -E '^< |^code='",
			    fx->target.port);
	g_autofree gchar *out = NULL;
	g_autofree gchar *out_blocked = NULL;
	g_autofree gchar *head = NULL;
	g_autoptr(GPtrArray) decisions = NULL;

	if (fixture_skip(fx))
		return;
	out = fixture_curl(fx, "p1", allowed, args);
	g_assert_cmpstr(out, ==, "target GET /t\ncode=200 exit=0\n");
	/* the origin-form request went through the tunnel untouched */
	head = target_last_head(&fx->target);
	g_assert_true(g_str_has_prefix(head, "GET /t HTTP/1.1\r\n"));
	decisions = fixture_decisions(fx, "p1");
	assert_decision(decisions->pdata[0],
			"p1",
			"allow",
			"baseline_policy",
			"allow",
			"https_connect",
			"127.0.0.1",
			fx->target.port,
			"CONNECT");
	out_blocked = fixture_curl(fx, "p2", blocked, verbose);
	g_test_message("%s", out_blocked);
	g_assert_true(g_str_has_prefix(out_blocked, "< HTTP/1.1 403 Forbidden\r\n"));
	g_assert_nonnull(strstr(out_blocked, "< content-type: text/plain\r\n"));
	g_assert_nonnull(strstr(out_blocked, "< x-proxy-error: blocked-by-allowlist\r\n"));
	g_assert_nonnull(strstr(out_blocked, "\ncode=000"));
	g_assert_cmpuint(target_count(&fx->target), ==, 1);
}

#define BULK_SIZE	  (8 * 1024 * 1024)
#define BULK_UPLOAD_LINES 1200000 /* 8.3 MB */

/*
 * Megabytes both ways through a tunnel and as plain HTTP: every byte
 * arrives, in order, also after the relay has grown its pipes mid-transfer
 */
static void
test_bulk(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *allowed = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *expected = bulk_sha256(BULK_SIZE);
	/* the upload is seq's output: no file to leave behind, and every line differs */
	g_autofree gchar *script = g_strdup_printf(
	    "set -e; u=http://127.0.0.1:%u/bulk/%u; up='seq 1 %u'; "
	    "curl -sS --max-time 60 -p \"$u\" | sha256sum; "
	    "curl -sS --max-time 60 \"$u\" | sha256sum; "
	    "$up | sha256sum; "
	    "$up | curl -sS --max-time 60 -H 'Expect:' -p --data-binary @- \"$u\"; echo; "
	    "$up | curl -sS --max-time 60 -H 'Expect:' --data-binary @- \"$u\"; echo",
	    fx->target.port,
	    BULK_SIZE,
	    BULK_UPLOAD_LINES);
	g_autofree gchar *out = NULL;
	g_autofree gchar *downloaded = NULL;
	g_auto(GStrv) lines = NULL;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "bulk", script, allowed);
	out = fixture_output(fx, "bulk");
	lines = g_strsplit(out, "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), ==, 6);
	downloaded = g_strdup_printf("%s  -", expected);
	/* through the tunnel, then forwarded */
	g_assert_cmpstr(lines[0], ==, downloaded);
	g_assert_cmpstr(lines[1], ==, downloaded);
	/* what the target hashed of each upload is what the command sent */
	g_assert_true(g_str_has_suffix(lines[2], "  -"));
	lines[2][strlen(lines[2]) - 3] = '\0';
	g_assert_cmpuint(strlen(lines[2]), ==, 64);
	g_assert_cmpstr(lines[3], ==, lines[2]);
	g_assert_cmpstr(lines[4], ==, lines[2]);
	g_assert_cmpstr(lines[5], ==, "");
	g_assert_cmpuint(target_count(&fx->target), ==, 4);
}

/* the decider: asked only for non-local unlisted hosts; its answers; the baseline after it */
static void
test_decider(Fixture *fx, gconstpointer user_data)
{
	const struct {
		const gchar *answer;
		const gchar *decision;
		const gchar *source;
		const gchar *reason;
		const gchar *message;
	} cases[] = {
	    {"{\"decision\":{\"type\":\"deny\",\"reason\":\"nope\"}}",
	     "deny",
	     "decider",
	     "nope",
	     "Request blocked by network policy."},
	    {"{\"decision\":{\"type\":\"ask\",\"reason\":\"hmm\"}}",
	     "ask",
	     "decider",
	     "hmm",
	     "Request blocked by network policy."},
	    {"{\"decision\":{\"type\":\"bogus\"}}",
	     "deny",
	     "decider",
	     "not_allowed",
	     "Domain not in allowlist."},
	    {"{\"decision\":{\"type\":\"deny\"}}",
	     "deny",
	     "decider",
	     "not_allowed",
	     "Domain not in allowlist."},
	    {"[]", "deny", "decider", "not_allowed", "Domain not in allowlist."},
	    /* allowed, then the name does not resolve: the baseline still applies */
	    {"{\"decision\":{\"type\":\"allow\"}}",
	     "deny",
	     "baseline_policy",
	     "not_allowed_local",
	     "Sandbox policy blocks local/private network addresses."},
	};
	g_autofree gchar *member = proxy_member(FALSE,
						"full",
						"{\"denied.test\":\"deny\"}",
						"\"policyDecisionTimeoutMs\":3000");
	g_autofree gchar *local_member =
	    proxy_member(TRUE, "full", NULL, "\"policyDecisionTimeoutMs\":3000");
	g_autofree gchar *out_local = NULL;
	g_autofree gchar *local_args = NULL;
	g_autoptr(GPtrArray) decisions = NULL;

	if (fixture_skip(fx))
		return;
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *id = g_strdup_printf("d%u", i);
		g_autofree gchar *out = NULL;
		g_autofree gchar *expected = NULL;
		g_autofree gchar *request = NULL;
		g_autoptr(GPtrArray) d = NULL;
		JsonNode *ask;

		fx->answer = cases[i].answer;
		out = fixture_curl(fx, id, member, "http://decide.invalid/x");
		expected = g_strdup_printf(
		    "{\"status\":\"blocked\",\"host\":\"decide.invalid\",\"reason\":\"%s\","
		    "\"decision\":\"%s\",\"source\":\"%s\",\"protocol\":\"http\",\"port\":80,"
		    "\"message\":\"%s\"}\ncode=403 exit=0\n",
		    cases[i].reason,
		    cases[i].decision,
		    cases[i].source,
		    cases[i].message);
		g_assert_cmpstr(out, ==, expected);
		g_assert_cmpuint(fx->asks->len, ==, i + 1);
		ask = g_ptr_array_index(fx->asks, i);
		g_assert_cmpint(esd_test_json_get_int(ask, "id"), >, 0);
		request =
		    g_strdup_printf("{\"processId\":\"%s\",\"request\":{\"protocol\":\"http\","
				    "\"host\":\"decide.invalid\",\"port\":80}}",
				    id);
		esd_assert_json_node_eq(esd_test_json_get(ask, "params"), request);
		d = fixture_decisions(fx, id);
		g_assert_cmpuint(d->len, ==, 1);
		assert_decision(d->pdata[0],
				id,
				cases[i].decision,
				cases[i].source,
				cases[i].reason,
				"http",
				"decide.invalid",
				80,
				"GET");
	}
	/* neither a listed deny nor a local literal is asked about */
	fx->answer = "{\"decision\":{\"type\":\"allow\"}}";
	g_free(fixture_curl(fx, "listed", member, "http://denied.test/"));
	g_free(fixture_curl(fx, "literal", member, "http://127.0.0.1:9/"));
	g_assert_cmpuint(fx->asks->len, ==, G_N_ELEMENTS(cases));
	/* with local binding allowed, the decider's allow reaches the target */
	local_args = g_strdup_printf("--noproxy '' -x \"$HTTP_PROXY\" http://localhost:%u/ok",
				     fx->target.port);
	out_local = fixture_curl(fx, "allowed", local_member, local_args);
	g_assert_cmpstr(out_local, ==, "target GET /ok\ncode=200 exit=0\n");
	g_assert_cmpuint(fx->asks->len, ==, G_N_ELEMENTS(cases) + 1);
	decisions = fixture_decisions(fx, "allowed");
	g_assert_cmpuint(decisions->len, ==, 1);
	assert_decision(decisions->pdata[0],
			"allowed",
			"allow",
			"decider",
			"not_allowed",
			"http",
			"localhost",
			fx->target.port,
			"GET");
}

/*
 * reviewDomains: an allowed host that is also a review domain is the
 * decider's to allow, and not allowed without one; a deny still wins, and
 * an unlisted host is asked about as before. A local destination passes
 * only when an allow pattern without a wildcard names it.
 */
static void
test_review_domains(Fixture *fx, gconstpointer user_data)
{
	const gchar *allow = "{\"decision\":{\"type\":\"allow\"}}";
	const gchar *deny = "{\"decision\":{\"type\":\"deny\",\"reason\":\"no\"}}";
	const gchar *decider = "\"policyDecisionTimeoutMs\":3000";
	const gchar *reviewed = "{\"127.0.0.1\":\"allow\"},\"reviewDomains\":[\"127.0.0.?\"]";
	const gchar *wildcard = "{\"*.localhost\":\"allow\"},\"reviewDomains\":[\"a?.localhost\"]";
	const gchar *denied = "{\"127.0.0.1\":\"deny\"},\"reviewDomains\":[\"127.0.0.1\"]";
	g_autofree gchar *asked = proxy_member(FALSE, "full", reviewed, decider);
	g_autofree gchar *alone = proxy_member(FALSE, "full", reviewed, NULL);
	g_autofree gchar *loose = proxy_member(FALSE, "full", wildcard, decider);
	g_autofree gchar *deny_wins = proxy_member(FALSE, "full", denied, decider);
	g_autofree gchar *direct =
	    g_strdup_printf("--noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:%u/ok",
			    fx->target.port);
	g_autofree gchar *ab = NULL;
	g_autofree gchar *abc = NULL;
	struct {
		const gchar *id;
		const gchar *member;
		const gchar *answer;
		const gchar *args;
		guint asks;
		const gchar *decision;
		const gchar *source;
		const gchar *reason;
		const gchar *host;
		const gchar *code;
	} cases[] = {
	    {"r-allow",
	     asked,
	     allow,
	     direct,
	     1,
	     "allow",
	     "decider",
	     "not_allowed",
	     "127.0.0.1",
	     "200"},
	    {"r-deny", asked, deny, direct, 1, "deny", "decider", "no", "127.0.0.1", "403"},
	    {"r-alone",
	     alone,
	     allow,
	     direct,
	     0,
	     "deny",
	     "baseline_policy",
	     "not_allowed",
	     "127.0.0.1",
	     "403"},
	    {"r-denied",
	     deny_wins,
	     allow,
	     direct,
	     0,
	     "deny",
	     "baseline_policy",
	     "denied",
	     "127.0.0.1",
	     "403"},
	    /* asked, then refused: *.localhost does not name ab.localhost */
	    {"r-wild",
	     loose,
	     allow,
	     NULL,
	     1,
	     "deny",
	     "baseline_policy",
	     "not_allowed_local",
	     "ab.localhost",
	     "403"},
	    /* not a review domain: allowed by the wildcard, but not named: local */
	    {"r-local",
	     loose,
	     allow,
	     NULL,
	     0,
	     "deny",
	     "baseline_policy",
	     "not_allowed_local",
	     "abc.localhost",
	     "403"},
	};

	if (fixture_skip(fx))
		return;
	ab = g_strdup_printf("--noproxy '' -x \"$HTTP_PROXY\" http://ab.localhost:%u/ok",
			     fx->target.port);
	abc = g_strdup_printf("--noproxy '' -x \"$HTTP_PROXY\" http://abc.localhost:%u/ok",
			      fx->target.port);
	cases[4].args = ab;
	cases[5].args = abc;
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		guint before = fx->asks->len;
		guint targets = target_count(&fx->target);
		g_autofree gchar *out = NULL;
		g_autofree gchar *code = g_strdup_printf("code=%s exit=0\n", cases[i].code);
		g_autoptr(GPtrArray) decisions = NULL;

		g_test_message("%s", cases[i].id);
		fx->answer = cases[i].answer;
		out = fixture_curl(fx, cases[i].id, cases[i].member, cases[i].args);
		g_assert_true(g_str_has_suffix(out, code));
		g_assert_cmpuint(fx->asks->len - before, ==, cases[i].asks);
		g_assert_cmpuint(target_count(&fx->target) - targets,
				 ==,
				 g_str_equal(cases[i].code, "200") ? 1 : 0);
		decisions = fixture_decisions(fx, cases[i].id);
		g_assert_cmpuint(decisions->len, ==, 1);
		assert_decision(decisions->pdata[0],
				cases[i].id,
				cases[i].decision,
				cases[i].source,
				cases[i].reason,
				"http",
				cases[i].host,
				fx->target.port,
				"GET");
	}
}

/* no answer: deny, once the timeout and the reference's five seconds have passed */
static void
test_decider_silent(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member =
	    proxy_member(FALSE, "full", NULL, "\"policyDecisionTimeoutMs\":200");
	g_autofree gchar *out = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	gint64 start = g_get_monotonic_time();

	if (fixture_skip(fx))
		return;
	fx->answer = NULL;
	out = fixture_curl(fx, "p1", member, "http://silent.invalid/");
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 5200 * 1000);
	g_assert_nonnull(strstr(out,
				"\"reason\":\"not_allowed\",\"decision\":\"deny\","
				"\"source\":\"decider\""));
	g_assert_cmpuint(fx->asks->len, ==, 1);
	decisions = fixture_decisions(fx, "p1");
	g_assert_cmpuint(decisions->len, ==, 1);
}

static gchar *
raw_request(guint16 port, const gchar *request);
static guint16
fixture_proxy_port(Fixture *fx, const gchar *id);

/* `{"proxy": {... enableSocks5: true ...}}` */
static gchar *
socks_member(const gchar *mode, const gchar *domains, const gchar *extra)
{
	g_autofree gchar *member = proxy_member(FALSE, mode, domains, extra);
	GString *out = g_string_new(member);

	g_string_replace(out, "\"enableSocks5\":false", "\"enableSocks5\":true", 1);
	return g_string_free(out, FALSE);
}

/* SOCKS5 TCP: its own port in ALL_PROXY, the same policy, no method, limited mode refuses it */
static void
test_socks(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *allowed = socks_member("full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *blocked = socks_member("full", NULL, "\"policyDecisionTimeoutMs\":3000");
	g_autofree gchar *limited = socks_member("limited", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *url = g_strdup_printf("http://127.0.0.1:%u/s", fx->target.port);
	g_autofree gchar *args = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *env = NULL;
	g_autofree gchar *out_local = NULL;
	g_autofree gchar *out_decided = NULL;
	g_autofree gchar *out_limited = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	g_autoptr(GPtrArray) local = NULL;
	g_autoptr(GPtrArray) limited_decisions = NULL;
	g_autofree gchar *stranger = NULL;
	JsonNode *decision;
	guint16 port;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "env", "echo \"$ALL_PROXY $all_proxy $FTP_PROXY $HTTP_PROXY\"", allowed);
	env = fixture_output(fx, "env");
	g_assert_true(g_regex_match_simple("^(socks5h://127\\.0\\.0\\.1:\\d+) \\1 \\1 "
					   "http://127\\.0\\.0\\.1:\\d+\n$",
					   env,
					   0,
					   0));
	/* a local process outside the tree gets no answer to its greeting */
	fixture_start(fx, "held", "echo \"$ALL_PROXY\"; exec sleep 60", allowed);
	port = fixture_proxy_port(fx, "held");
	stranger = raw_request(port, "\x05\x01");
	g_assert_cmpstr(stranger, ==, "");
	json_node_unref(fixture_call(fx, "process/terminate", "{\"processId\":\"held\"}"));
	args =
	    g_strdup_printf("--socks5-hostname \"${ALL_PROXY#socks5h://}\" --noproxy '' %s", url);
	out = fixture_curl(fx, "p1", allowed, args);
	g_assert_cmpstr(out, ==, "target GET /s\ncode=200 exit=0\n");
	decisions = fixture_decisions(fx, "p1");
	g_assert_cmpuint(decisions->len, ==, 1);
	decision = decisions->pdata[0];
	/* as the reference: no method member for SOCKS */
	g_assert_null(esd_test_json_get(decision, "method"));
	g_assert_cmpstr(esd_test_json_get_string(decision, "protocol"), ==, "socks5_tcp");
	g_assert_cmpstr(esd_test_json_get_string(decision, "decision"), ==, "allow");

	/* a local literal: refused (curl: 97, "connection not allowed by ruleset") */
	out_local = fixture_curl(fx, "p2", blocked, args);
	g_assert_cmpstr(out_local, ==, "\ncode=000 exit=97\n");
	local = fixture_decisions(fx, "p2");
	g_assert_cmpuint(local->len, ==, 1);
	g_assert_cmpstr(esd_test_json_get_string(local->pdata[0], "reason"),
			==,
			"not_allowed_local");

	/* the decider is asked with protocol socks5_tcp */
	fx->answer = "{\"decision\":{\"type\":\"deny\",\"reason\":\"no socks\"}}";
	g_free(args);
	args = g_strdup_printf("--socks5-hostname \"${ALL_PROXY#socks5h://}\" --noproxy '' "
			       "http://decide.invalid/");
	out_decided = fixture_curl(fx, "p3", blocked, args);
	g_assert_cmpstr(out_decided, ==, "\ncode=000 exit=97\n");
	g_assert_cmpuint(fx->asks->len, ==, 1);
	esd_assert_json_node_eq(esd_test_json_get(g_ptr_array_index(fx->asks, 0), "params"),
				"{\"processId\":\"p3\",\"request\":{\"protocol\":\"socks5_tcp\","
				"\"host\":\"decide.invalid\",\"port\":80}}");

	/* limited mode: refused before the domain is looked at */
	g_free(args);
	args =
	    g_strdup_printf("--socks5-hostname \"${ALL_PROXY#socks5h://}\" --noproxy '' %s", url);
	out_limited = fixture_curl(fx, "p4", limited, args);
	g_assert_cmpstr(out_limited, ==, "\ncode=000 exit=97\n");
	limited_decisions = fixture_decisions(fx, "p4");
	g_assert_cmpuint(limited_decisions->len, ==, 1);
	g_assert_cmpstr(esd_test_json_get_string(limited_decisions->pdata[0], "source"),
			==,
			"mode_guard");
	g_assert_cmpstr(esd_test_json_get_string(limited_decisions->pdata[0], "reason"),
			==,
			"method_not_allowed");
	g_assert_cmpuint(target_count(&fx->target), ==, 1);
}

/* SOCKS5 UDP ASSOCIATE ------------------------------------------------- */

/*
 * A UDP echo target: answers "echo:" and the payload, and keeps what it
 * got; to "stray" it first answers from another socket, a source the
 * client never sent to.
 */
typedef struct {
	GSocket *socket;
	GSocket *stray;
	GThread *thread;
	guint16 port;
	gint stop; /* atomic */
	GMutex lock;
	GString *got; /* the payloads, one a line */
} Echo;

static gpointer
echo_thread(gpointer data)
{
	Echo *echo = data;

	while (!g_atomic_int_get(&echo->stop)) {
		g_autoptr(GSocketAddress) from = NULL;
		gchar buf[2048];
		gchar reply[2100];
		gssize n = g_socket_receive_from(echo->socket, &from, buf, sizeof(buf), NULL, NULL);

		if (n < 0)
			continue; /* the timeout, to look at stop */
		g_mutex_lock(&echo->lock);
		g_string_append_len(echo->got, buf, n);
		g_string_append_c(echo->got, '\n');
		g_mutex_unlock(&echo->lock);
		if (n == 5 && memcmp(buf, "stray", 5) == 0) {
			g_socket_send_to(echo->stray, from, "from-stray", 10, NULL, NULL);
			g_usleep(50000);
		}
		memcpy(reply, "echo:", 5);
		memcpy(reply + 5, buf, (gsize)n);
		g_socket_send_to(echo->socket, from, reply, 5 + (gsize)n, NULL, NULL);
	}
	return NULL;
}

static void
echo_start(Echo *echo)
{
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;

	echo->socket = g_socket_new(G_SOCKET_FAMILY_IPV4,
				    G_SOCKET_TYPE_DATAGRAM,
				    G_SOCKET_PROTOCOL_UDP,
				    &error);
	g_assert_no_error(error);
	g_assert_true(g_socket_bind(echo->socket, address, FALSE, &error));
	bound = g_socket_get_local_address(echo->socket, &error);
	g_assert_no_error(error);
	echo->port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	g_socket_set_timeout(echo->socket, 1);
	echo->stray = g_socket_new(G_SOCKET_FAMILY_IPV4,
				   G_SOCKET_TYPE_DATAGRAM,
				   G_SOCKET_PROTOCOL_UDP,
				   &error);
	g_assert_no_error(error);
	g_mutex_init(&echo->lock);
	echo->got = g_string_new(NULL);
	echo->thread = g_thread_new("echo", echo_thread, echo);
}

static gchar *
echo_got(Echo *echo)
{
	gchar *got;

	g_mutex_lock(&echo->lock);
	got = g_strdup(echo->got->str);
	g_mutex_unlock(&echo->lock);
	return got;
}

static void
echo_stop(Echo *echo)
{
	g_atomic_int_set(&echo->stop, 1);
	g_thread_join(echo->thread);
	g_clear_object(&echo->socket);
	g_clear_object(&echo->stray);
	g_string_free(echo->got, TRUE);
	g_mutex_clear(&echo->lock);
}

/* a datagram for the relay: the RFC 1928 header for @host:@port, then @data */
static gsize
udp_datagram(guint8 *out, gsize size, const gchar *host, guint16 port, const gchar *data)
{
	struct in_addr ip;
	gsize n = 4;

	memset(out, 0, 4);
	if (inet_pton(AF_INET, host, &ip) == 1) {
		out[3] = 1;
		memcpy(out + 4, &ip, 4);
		n += 4;
	} else {
		out[3] = 3;
		out[4] = (guint8)strlen(host);
		memcpy(out + 5, host, strlen(host));
		n += 1 + strlen(host);
	}
	out[n++] = (guint8)(port >> 8);
	out[n++] = (guint8)port;
	g_assert_cmpuint(n + strlen(data), <=, size);
	memcpy(out + n, data, strlen(data));
	return n + strlen(data);
}

/* what comes back to @fd within @ms: "HOST:PORT PAYLOAD", or "none" */
static gchar *
udp_reply(gint fd, gint ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	guint8 buf[65536];
	gssize n;
	gchar host[INET_ADDRSTRLEN];

	if (poll(&pfd, 1, ms) != 1 || (n = recv(fd, buf, sizeof(buf), 0)) < 10 || buf[3] != 1)
		return g_strdup("none");
	inet_ntop(AF_INET, buf + 4, host, sizeof(host));
	return g_strdup_printf("%s:%u %.*s",
			       host,
			       (guint)((buf[8] << 8) | buf[9]),
			       (gint)(n - 10),
			       (const gchar *)buf + 10);
}

/* a UDP socket on 127.0.0.1, or -1 with errno (the sandbox's filter refuses one) */
static gint
udp_socket_try(struct sockaddr_in *bound)
{
	gint fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(*bound);

	memset(bound, 0, sizeof(*bound));
	bound->sin_family = AF_INET;
	bound->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && (bind(fd, (struct sockaddr *)bound, sizeof(*bound)) != 0 ||
			getsockname(fd, (struct sockaddr *)bound, &len) != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

static gint
udp_socket(struct sockaddr_in *bound)
{
	gint fd = udp_socket_try(bound);

	if (fd < 0)
		g_error("a UDP socket: %s", g_strerror(errno));
	return fd;
}

static gint
udp_compare_times(gconstpointer a, gconstpointer b)
{
	gint64 x = *(const gint64 *)a;
	gint64 y = *(const gint64 *)b;
	return x < y ? -1 : x > y;
}

/*
 * The scripted SOCKS5 UDP client, run as the command (this executable
 * with --udp-client): UDP ASSOCIATE on $ALL_PROXY's port naming its own
 * socket ("named") or 0.0.0.0:0 ("any", the socket made after the
 * request: "socket: ERROR" if it cannot be), then each step, printing what it
 * got: send=HOST,PORT,DATA (from the associated socket), other=… (from a
 * second socket of the same process), frag=… (FRAG 1), big=… (20000 bytes
 * more), direct=… (DATA alone to HOST:PORT itself, not through the relay),
 * flood=N (N one-byte datagrams to the relay, not waiting for any), wait=PATH (until PATH
 * exists), close (the control connection), more=N (N more associations, their reply codes, then
 * closed), sleep=MS, rtt=HOST,PORT,N (N round trips: how many came back and the median µs, for
 * scripts/bench-network-proxy-udp.py).
 */
static gint
udp_client(gint argc, gchar **argv)
{
	const gchar *proxy = g_getenv("ALL_PROXY");
	const gchar *colon = proxy != NULL ? strrchr(proxy, ':') : NULL;
	struct sockaddr_in own;
	struct sockaddr_in relay = {.sin_family = AF_INET};
	struct sockaddr_in control_address = {.sin_family = AF_INET};
	guint8 request[10] = {5, 3, 0, 1};
	guint8 reply[10];
	gint fd = -1;
	gint control = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (colon == NULL || argc < 3)
		return 2;
	control_address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	control_address.sin_port = htons((guint16)g_ascii_strtoull(colon + 1, NULL, 10));
	if (connect(control, (struct sockaddr *)&control_address, sizeof(control_address)) != 0 ||
	    write(control, "\x05\x01\x00", 3) != 3 || read(control, reply, 2) != 2 || reply[1] != 0)
		return 3;
	if (g_str_equal(argv[2], "named")) {
		fd = udp_socket(&own);
		memcpy(request + 4, &own.sin_addr, 4);
		memcpy(request + 8, &own.sin_port, 2);
	}
	if (write(control, request, sizeof(request)) != sizeof(request) ||
	    read(control, reply, sizeof(reply)) != sizeof(reply))
		return 4;
	memcpy(&relay.sin_addr, reply + 4, 4);
	memcpy(&relay.sin_port, reply + 8, 2);
	g_print("assoc %u %u\n", reply[1], ntohs(relay.sin_port));
	if (fd < 0 && (fd = udp_socket_try(&own)) < 0) {
		g_print("socket: %s\n", g_strerror(errno));
		return 0;
	}
	for (gint i = 3; i < argc; i++) {
		g_auto(GStrv) op = g_strsplit(argv[i], "=", 2);
		g_auto(GStrv) args = op[1] != NULL ? g_strsplit(op[1], ",", 3) : NULL;
		guint8 datagram[32768];
		gsize n;
		gint from = fd;
		g_autofree gchar *got = NULL;

		if (g_str_equal(op[0], "wait")) {
			while (!g_file_test(op[1], G_FILE_TEST_EXISTS))
				g_usleep(20000);
			continue;
		}
		if (g_str_equal(op[0], "close")) {
			close(control);
			g_print("closed\n");
			continue;
		}
		if (g_str_equal(op[0], "sleep")) {
			g_usleep(g_ascii_strtoull(op[1], NULL, 10) * 1000);
			continue;
		}
		if (g_str_equal(op[0], "flood")) {
			guint count = (guint)g_ascii_strtoull(op[1], NULL, 10);

			for (guint j = 0; j < count; j++)
				sendto(fd, "x", 1, 0, (struct sockaddr *)&relay, sizeof(relay));
			g_print("flood %u\n", count);
			continue;
		}
		if (g_str_equal(op[0], "more")) {
			guint count = (guint)g_ascii_strtoull(op[1], NULL, 10);
			g_autofree gint *more = g_new(gint, count);
			const guint8 any[10] = {5, 3, 0, 1};

			g_print("more");
			for (guint j = 0; j < count; j++) {
				more[j] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
				if (connect(more[j],
					    (struct sockaddr *)&control_address,
					    sizeof(control_address)) != 0 ||
				    write(more[j], "\x05\x01\x00", 3) != 3 ||
				    read(more[j], reply, 2) != 2 ||
				    write(more[j], any, sizeof(any)) != sizeof(any) ||
				    read(more[j], reply, sizeof(reply)) != sizeof(reply))
					return 5;
				g_print(" %u", reply[1]);
			}
			g_print("\n");
			for (guint j = 0; j < count; j++)
				close(more[j]);
			continue;
		}
		if (g_str_equal(op[0], "rtt")) {
			/* round trips one after the other: the median, in µs */
			guint count = (guint)g_ascii_strtoull(args[2], NULL, 10);
			g_autofree gint64 *times = g_new(gint64, MAX(count, 1));
			guint ok = 0;

			n = udp_datagram(datagram,
					 sizeof(datagram),
					 args[0],
					 (guint16)g_ascii_strtoull(args[1], NULL, 10),
					 "rtt");
			for (guint j = 0; j < count; j++) {
				gint64 start = g_get_monotonic_time();
				g_autofree gchar *back = NULL;

				sendto(fd,
				       datagram,
				       n,
				       0,
				       (struct sockaddr *)&relay,
				       sizeof(relay));
				back = udp_reply(fd, 1000);
				if (!g_str_equal(back, "none"))
					times[ok++] = g_get_monotonic_time() - start;
			}
			qsort(times, ok, sizeof(gint64), udp_compare_times);
			g_print("rtt %u %" G_GINT64_FORMAT "\n", ok, ok > 0 ? times[ok / 2] : 0);
			continue;
		}
		n = udp_datagram(datagram,
				 sizeof(datagram),
				 args[0],
				 (guint16)g_ascii_strtoull(args[1], NULL, 10),
				 args[2]);
		if (g_str_equal(op[0], "other")) {
			struct sockaddr_in unused;
			from = udp_socket(&unused);
		} else if (g_str_equal(op[0], "frag")) {
			datagram[2] = 1;
		} else if (g_str_equal(op[0], "big")) {
			memset(datagram + n, 'x', 20000);
			n += 20000;
		} else if (g_str_equal(op[0], "direct")) {
			struct sockaddr_in to = {.sin_family = AF_INET};

			to.sin_port = htons((guint16)g_ascii_strtoull(args[1], NULL, 10));
			if (inet_pton(AF_INET, args[0], &to.sin_addr) != 1)
				return 6;
			sendto(fd, args[2], strlen(args[2]), 0, (struct sockaddr *)&to, sizeof(to));
			got = udp_reply(fd, 700);
			g_print("direct %s %s\n", args[2], got);
			continue;
		}
		sendto(from, datagram, n, 0, (struct sockaddr *)&relay, sizeof(relay));
		got = udp_reply(from, 700);
		g_print("%s %s %s\n", op[0], args[2], got);
		if (from != fd)
			close(from);
	}
	return 0;
}

/* `{"proxy": {... enableSocks5: true, enableSocks5Udp: true ...}}` */
static gchar *
udp_member(gboolean allow_local, const gchar *mode, const gchar *domains, const gchar *extra)
{
	g_autofree gchar *member = proxy_member(allow_local, mode, domains, extra);
	GString *out = g_string_new(member);

	g_string_replace(out, "\"enableSocks5\":false", "\"enableSocks5\":true", 1);
	g_string_replace(out, "\"enableSocks5Udp\":false", "\"enableSocks5Udp\":true", 1);
	return g_string_free(out, FALSE);
}

static gchar *self_exe;

/* runs the UDP client as process @id with @steps (a NULL-terminated list of arguments) */
static void
fixture_start_udp(Fixture *fx,
		  const gchar *id,
		  const gchar *member,
		  const gchar *mode,
		  const gchar *const *steps)
{
	g_autoptr(GString) script = g_string_new("exec ");
	g_autofree gchar *exe = g_shell_quote(self_exe);

	g_string_append_printf(script, "%s --udp-client %s", exe, mode);
	for (guint i = 0; steps[i] != NULL; i++) {
		g_autofree gchar *quoted = g_shell_quote(steps[i]);
		g_string_append_printf(script, " %s", quoted);
	}
	fixture_start(fx, id, script->str, member);
}

static gchar *
fixture_udp(Fixture *fx,
	    const gchar *id,
	    const gchar *member,
	    const gchar *mode,
	    const gchar *const *steps)
{
	fixture_start_udp(fx, id, member, mode, steps);
	return fixture_output(fx, id);
}

/* whether 127.0.0.1:@port is free for a UDP socket (the relay there is gone) */
static gboolean
udp_port_free(guint16 port)
{
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
	gint fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	gboolean free_ = FALSE;

	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	free_ = bind(fd, (struct sockaddr *)&address, sizeof(address)) == 0;
	close(fd);
	return free_;
}

/* the relay port in the client's "assoc 0 PORT" line */
static guint16
udp_relay_port(const gchar *out)
{
	const gchar *line = strstr(out, "assoc 0 ");
	g_assert_nonnull(line);
	return (guint16)g_ascii_strtoull(line + 8, NULL, 10);
}

/*
 * UDP associate: an allowed datagram makes the round trip; a denied name
 * or address, a local one without allowLocalBinding, a fragment, an
 * oversized datagram and one from another socket are dropped, each
 * blocked one with its decision; a reply from a source the client did not
 * send to is dropped; the association ends with its control connection and
 * its socket is gone.
 */
/* a SOCKS5 UDP decision: the reference's members, without method */
static void
assert_udp_decision(JsonNode *note,
		    const gchar *process_id,
		    const gchar *decision,
		    const gchar *source,
		    const gchar *reason,
		    const gchar *host,
		    gint64 port)
{
	const gchar *members[] = {"processId",
				  "timestamp",
				  "scope",
				  "decision",
				  "source",
				  "reason",
				  "protocol",
				  "host",
				  "port",
				  "client",
				  "policyOverride",
				  NULL};
	g_autoptr(GList) names = json_object_get_members(json_node_get_object(note));
	guint i = 0;

	for (GList *l = names; l != NULL; l = l->next, i++)
		g_assert_cmpstr(l->data, ==, members[i]);
	g_assert_cmpstr(members[i], ==, NULL);
	g_assert_cmpstr(esd_test_json_get_string(note, "processId"), ==, process_id);
	g_assert_cmpstr(esd_test_json_get_string(note, "scope"),
			==,
			g_str_equal(source, "mode_guard") ? "non_domain" : "domain");
	g_assert_cmpstr(esd_test_json_get_string(note, "decision"), ==, decision);
	g_assert_cmpstr(esd_test_json_get_string(note, "source"), ==, source);
	g_assert_cmpstr(esd_test_json_get_string(note, "reason"), ==, reason);
	g_assert_cmpstr(esd_test_json_get_string(note, "protocol"), ==, "socks5_udp");
	g_assert_cmpstr(esd_test_json_get_string(note, "host"), ==, host);
	g_assert_cmpint(esd_test_json_get_int(note, "port"), ==, port);
	/* the control connection's peer, as on the reference */
	g_assert_true(g_str_has_prefix(esd_test_json_get_string(note, "client"), "127.0.0.1:"));
	g_assert_cmpint(json_node_get_boolean(esd_test_json_get(note, "policyOverride")),
			==,
			g_str_equal(decision, "allow") && g_str_equal(source, "decider"));
}

static void
test_socks_udp(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = udp_member(FALSE,
					      "full",
					      "{\"127.0.0.1\":\"allow\",\"127.0.0.2\":\"deny\","
					      "\"denied.invalid\":\"deny\"}",
					      NULL);
	g_autofree gchar *env_member = udp_member(FALSE, "full", NULL, NULL);
	g_autofree gchar *port = NULL;
	g_autofree gchar *stray = NULL;
	g_autofree gchar *one = NULL, *denied_ip = NULL, *denied_name = NULL, *private_ip = NULL,
			 *local_name = NULL, *other = NULL, *frag = NULL, *big = NULL, *two = NULL,
			 *after = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *got = NULL;
	g_autofree gchar *env = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	GString *no_socks;
	Echo echo = {0};
	guint16 relay;

	if (fixture_skip(fx))
		return;
	echo_start(&echo);
	/* the environment is SOCKS5's; enableSocks5Udp alone opens nothing, as on the reference */
	fixture_start(fx, "env", "echo \"$ALL_PROXY\"", env_member);
	env = fixture_output(fx, "env");
	g_assert_true(g_regex_match_simple("^socks5h://127\\.0\\.0\\.1:\\d+\n$", env, 0, 0));
	g_clear_pointer(&env, g_free);
	no_socks = g_string_new(env_member);
	g_string_replace(no_socks, "\"enableSocks5\":true", "\"enableSocks5\":false", 1);
	fixture_start(fx, "env2", "echo \"$ALL_PROXY\"", no_socks->str);
	g_string_free(no_socks, TRUE);
	env = fixture_output(fx, "env2");
	g_assert_true(g_regex_match_simple("^http://127\\.0\\.0\\.1:\\d+\n$", env, 0, 0));

	port = g_strdup_printf("%u", echo.port);
#define STEP(var, op, host, data) var = g_strdup_printf("%s=%s,%s,%s", op, host, port, data)
	STEP(one, "send", "127.0.0.1", "one");
	STEP(denied_ip, "send", "127.0.0.2", "denied-ip");
	STEP(denied_name, "send", "denied.invalid", "denied-name");
	STEP(private_ip, "send", "10.1.2.3", "private");
	STEP(local_name, "send", "localhost", "local-name");
	STEP(other, "other", "127.0.0.1", "other");
	STEP(frag, "frag", "127.0.0.1", "frag");
	STEP(big, "big", "127.0.0.1", "big");
	STEP(two, "send", "127.0.0.1", "two");
	STEP(stray, "send", "127.0.0.1", "stray");
	STEP(after, "send", "127.0.0.1", "after");
#undef STEP
	{
		const gchar *steps[] = {one,
					denied_ip,
					denied_name,
					private_ip,
					local_name,
					other,
					frag,
					big,
					two,
					stray,
					"close",
					after,
					NULL};
		out = fixture_udp(fx, "u1", member, "named", steps);
	}
	relay = udp_relay_port(out);
	expected = g_strdup_printf("assoc 0 %u\n"
				   "send one 127.0.0.1:%u echo:one\n"
				   "send denied-ip none\n"
				   "send denied-name none\n"
				   "send private none\n"
				   "send local-name none\n"
				   "other other none\n"
				   "frag frag none\n"
				   "big big none\n"
				   "send two 127.0.0.1:%u echo:two\n"
				   "send stray 127.0.0.1:%u echo:stray\n"
				   "closed\n"
				   "send after none\n",
				   relay,
				   echo.port,
				   echo.port,
				   echo.port);
	g_assert_cmpstr(out, ==, expected);
	got = echo_got(&echo);
	g_assert_cmpstr(got, ==, "one\ntwo\nstray\n");
	/* the relay's socket closed with the association */
	g_assert_true(udp_port_free(relay));
	decisions = fixture_decisions(fx, "u1");
	g_assert_cmpuint(decisions->len, ==, 7);
	assert_udp_decision(decisions->pdata[0],
			    "u1",
			    "allow",
			    "baseline_policy",
			    "allow",
			    "127.0.0.1",
			    echo.port);
	assert_udp_decision(decisions->pdata[1],
			    "u1",
			    "deny",
			    "baseline_policy",
			    "denied",
			    "127.0.0.2",
			    echo.port);
	assert_udp_decision(decisions->pdata[2],
			    "u1",
			    "deny",
			    "baseline_policy",
			    "denied",
			    "denied.invalid",
			    echo.port);
	assert_udp_decision(decisions->pdata[3],
			    "u1",
			    "deny",
			    "baseline_policy",
			    "not_allowed_local",
			    "10.1.2.3",
			    echo.port);
	assert_udp_decision(decisions->pdata[4],
			    "u1",
			    "deny",
			    "baseline_policy",
			    "not_allowed_local",
			    "localhost",
			    echo.port);
	assert_udp_decision(decisions->pdata[5],
			    "u1",
			    "allow",
			    "baseline_policy",
			    "allow",
			    "127.0.0.1",
			    echo.port);
	assert_udp_decision(decisions->pdata[6],
			    "u1",
			    "allow",
			    "baseline_policy",
			    "allow",
			    "127.0.0.1",
			    echo.port);
	echo_stop(&echo);
}

/* at most 16 associations at once per process; a closed one frees its place */
static void
test_socks_udp_limit(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = udp_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *out = NULL;
	const gchar *steps[] = {"more=16", "sleep=300", "more=15", NULL};

	if (fixture_skip(fx))
		return;
	out = fixture_udp(fx, "u1", member, "any", steps);
	g_assert_true(g_str_has_suffix(out,
				       "\nmore 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1\n"
				       "more 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"));
}

/* the decider is asked for each datagram (protocol socks5_udp); limited mode refuses UDP */
static void
test_socks_udp_decider(Fixture *fx, gconstpointer user_data)
{
	/* with allowLocalBinding, an unlisted 127.0.0.1 goes to the decider */
	g_autofree gchar *member =
	    udp_member(TRUE, "full", NULL, "\"policyDecisionTimeoutMs\":3000");
	g_autofree gchar *limited = udp_member(FALSE, "limited", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *step = NULL;
	g_autofree gchar *allowed = NULL;
	g_autofree gchar *denied = NULL;
	g_autofree gchar *refused = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *ask = NULL;
	g_autofree gchar *got = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	Echo echo = {0};

	if (fixture_skip(fx))
		return;
	echo_start(&echo);
	step = g_strdup_printf("send=127.0.0.1,%u,decided", echo.port);
	{
		const gchar *steps[] = {step, NULL};

		fx->answer = "{\"decision\":{\"type\":\"allow\"}}";
		allowed = fixture_udp(fx, "u1", member, "named", steps);
		expected = g_strdup_printf("assoc 0 %u\nsend decided 127.0.0.1:%u echo:decided\n",
					   udp_relay_port(allowed),
					   echo.port);
		g_assert_cmpstr(allowed, ==, expected);
		g_assert_cmpuint(fx->asks->len, ==, 1);
		ask = g_strdup_printf(
		    "{\"processId\":\"u1\",\"request\":{\"protocol\":\"socks5_udp\","
		    "\"host\":\"127.0.0.1\",\"port\":%u}}",
		    echo.port);
		esd_assert_json_node_eq(esd_test_json_get(fx->asks->pdata[0], "params"), ask);
		decisions = fixture_decisions(fx, "u1");
		g_assert_cmpuint(decisions->len, ==, 1);
		assert_udp_decision(decisions->pdata[0],
				    "u1",
				    "allow",
				    "decider",
				    "not_allowed",
				    "127.0.0.1",
				    echo.port);
		g_clear_pointer(&decisions, g_ptr_array_unref);

		fx->answer = "{\"decision\":{\"type\":\"deny\",\"reason\":\"no udp\"}}";
		denied = fixture_udp(fx, "u2", member, "named", steps);
		g_assert_true(g_str_has_suffix(denied, "\nsend decided none\n"));
		g_assert_cmpuint(fx->asks->len, ==, 2);
		decisions = fixture_decisions(fx, "u2");
		g_assert_cmpuint(decisions->len, ==, 1);
		assert_udp_decision(decisions->pdata[0],
				    "u2",
				    "deny",
				    "decider",
				    "no udp",
				    "127.0.0.1",
				    echo.port);
		g_clear_pointer(&decisions, g_ptr_array_unref);

		/* limited mode: refused before the domain, as SOCKS5 TCP */
		refused = fixture_udp(fx, "u3", limited, "named", steps);
		g_assert_true(g_str_has_suffix(refused, "\nsend decided none\n"));
		decisions = fixture_decisions(fx, "u3");
		g_assert_cmpuint(decisions->len, ==, 1);
		assert_udp_decision(decisions->pdata[0],
				    "u3",
				    "deny",
				    "mode_guard",
				    "method_not_allowed",
				    "127.0.0.1",
				    echo.port);
	}
	got = echo_got(&echo);
	g_assert_cmpstr(got, ==, "decided\n");
	echo_stop(&echo);
}

/*
 * Beyond the reference: the relay is not a reflector for other local
 * processes. The client names no address (0.0.0.0:0): a datagram another
 * process sends to the relay first is dropped, the client's own is
 * relayed and only the client gets the reply.
 */
static void
test_socks_udp_other_process(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = udp_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *dir = g_dir_make_tmp("esd-np-udp-XXXXXX", NULL);
	g_autofree gchar *go = g_build_filename(dir, "go", NULL);
	g_autofree gchar *wait = g_strdup_printf("wait=%s", go);
	g_autofree gchar *step = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *got = NULL;
	g_autofree gchar *stranger_reply = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	struct sockaddr_in own;
	struct sockaddr_in relay = {.sin_family = AF_INET};
	guint8 datagram[256];
	gsize n;
	gint stranger;
	JsonNode *note;
	Echo echo = {0};

	if (fixture_skip(fx))
		return;
	echo_start(&echo);
	step = g_strdup_printf("send=127.0.0.1,%u,mine", echo.port);
	{
		const gchar *steps[] = {wait, step, NULL};
		fixture_start_udp(fx, "u1", member, "any", steps);
	}
	note = fixture_wait_note(fx, "process/output", "u1");
	{
		gsize len = 0;
		g_autofree guchar *data =
		    g_base64_decode(esd_test_json_get_string(note, "params.chunk"), &len);
		g_autofree gchar *text = g_strndup((const gchar *)data, len);
		relay.sin_port = htons(udp_relay_port(text));
	}
	relay.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	stranger = udp_socket(&own);
	n = udp_datagram(datagram, sizeof(datagram), "127.0.0.1", echo.port, "stranger");
	g_assert_cmpint(sendto(stranger, datagram, n, 0, (struct sockaddr *)&relay, sizeof(relay)),
			==,
			(gssize)n);
	stranger_reply = udp_reply(stranger, 500);
	g_assert_cmpstr(stranger_reply, ==, "none");
	g_assert_true(g_file_set_contents(go, "", 0, NULL));
	out = fixture_output(fx, "u1");
	expected = g_strdup_printf("assoc 0 %u\nsend mine 127.0.0.1:%u echo:mine\n",
				   ntohs(relay.sin_port),
				   echo.port);
	g_assert_cmpstr(out, ==, expected);
	g_clear_pointer(&stranger_reply, g_free);
	stranger_reply = udp_reply(stranger, 200);
	g_assert_cmpstr(stranger_reply, ==, "none");
	close(stranger);
	got = echo_got(&echo);
	g_assert_cmpstr(got, ==, "mine\n");
	/* the stranger's datagram never reached the policy */
	decisions = fixture_decisions(fx, "u1");
	g_assert_cmpuint(decisions->len, ==, 1);
	g_unlink(go);
	g_rmdir(dir);
	echo_stop(&echo);
}

/* a `sandbox` member: the root readable, nothing writable, @network */
static gchar *
sandbox_member(const gchar *network)
{
	return g_strdup_printf(
	    "\"sandbox\":{\"permissions\":{\"type\":\"managed\",\"file_system\":{\"type\":"
	    "\"restricted\",\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{\"kind\":"
	    "\"root\"}},\"access\":\"read\"}]},\"network\":\"%s\"},\"windowsSandboxLevel\":"
	    "\"disabled\"}",
	    network);
}

static gchar *
fixture_curl_sandboxed(Fixture *fx,
		       const gchar *id,
		       const gchar *proxy,
		       const gchar *network,
		       const gchar *script)
{
	g_autofree gchar *sandbox = sandbox_member(network);
	g_autofree gchar *member = g_strdup_printf("%s,%s", proxy, sandbox);
	g_autofree gchar *params = start_params(id, script, member);
	g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);

	g_assert_cmpstr(esd_test_json_get_string(reply, "result.sandboxType"), ==, "linuxSeccomp");
	return fixture_output(fx, id);
}

/*
 * Sandboxed: with the network enabled the command's requests go through its
 * proxy (the tree check sees through bwrap); under a restricted network the
 * proxy is the only way out (the managed network), a direct dial fails.
 */
static void
test_sandboxed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *bwrap = g_find_program_in_path("bwrap");
	g_autofree gchar *member = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *url = g_strdup_printf("http://127.0.0.1:%u/sb", fx->target.port);
	g_autofree gchar *script = curl(url);
	g_autofree gchar *direct = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *out_restricted = NULL;
	g_autoptr(GPtrArray) decisions = NULL;

	if (fixture_skip(fx))
		return;
	if (bwrap == NULL) {
		g_test_skip("bwrap is not installed");
		return;
	}
	out = fixture_curl_sandboxed(fx, "open", member, "enabled", script);
	g_assert_cmpstr(out, ==, "target GET /sb\ncode=200 exit=0\n");
	decisions = fixture_decisions(fx, "open");
	g_assert_cmpuint(decisions->len, ==, 1);
	/* through the proxy, and a command that ignores the proxy variables: both stopped */
	direct = g_strdup_printf("%s; curl -s --max-time 5 --noproxy '*' %s; echo \" direct=$?\"",
				 script,
				 url);
	out_restricted = fixture_curl_sandboxed(fx, "closed", member, "restricted", direct);
	g_assert_cmpstr(out_restricted, ==, "target GET /sb\ncode=200 exit=0\n direct=7\n");
	g_assert_cmpuint(target_count(&fx->target), ==, 2);
}

/* the port of the proxy of a running process, from its output */
static guint16
fixture_proxy_port(Fixture *fx, const gchar *id)
{
	JsonNode *note = fixture_wait_note(fx, "process/output", id);
	gsize len = 0;
	g_autofree guchar *data =
	    g_base64_decode(esd_test_json_get_string(note, "params.chunk"), &len);
	g_autofree gchar *text = g_strndup((const gchar *)data, len);
	const gchar *colon = strrchr(text, ':');

	g_assert_nonnull(colon);
	return (guint16)g_ascii_strtoull(colon + 1, NULL, 10);
}

static gboolean
port_is_open(guint16 port)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) conn =
	    g_socket_client_connect_to_host(client, "127.0.0.1", port, NULL, NULL);
	return conn != NULL;
}

static void
assert_port_closes(guint16 port)
{
	for (guint i = 0; i < 400 && port_is_open(port); i++)
		g_usleep(25000);
	g_assert_false(port_is_open(port));
}

/* the listener goes with the process: when it closes, and when it is terminated */
static void
test_lifecycle(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	g_autoptr(JsonNode) reply = NULL;
	guint16 port;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "short", "echo \"$HTTP_PROXY\"; sleep 0.3", member);
	port = fixture_proxy_port(fx, "short");
	g_assert_true(port_is_open(port));
	g_free(fixture_output(fx, "short"));
	assert_port_closes(port);

	fixture_start(fx, "long", "echo \"$HTTP_PROXY\"; exec sleep 60", member);
	port = fixture_proxy_port(fx, "long");
	g_assert_true(port_is_open(port));
	reply = fixture_call(fx, "process/terminate", "{\"processId\":\"long\"}");
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	g_free(fixture_output(fx, "long"));
	assert_port_closes(port);
}

/* what a local process outside the tree gets from a raw request to the port */
static gchar *
raw_request(guint16 port, const gchar *request)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) conn =
	    g_socket_client_connect_to_host(client, "127.0.0.1", port, NULL, NULL);
	g_autoptr(GString) reply = g_string_new(NULL);
	GInputStream *in;

	g_assert_nonnull(conn);
	g_assert_true(g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(conn)),
						request,
						strlen(request),
						NULL,
						NULL,
						NULL));
	in = g_io_stream_get_input_stream(G_IO_STREAM(conn));
	while (TRUE) {
		gchar buf[4096];
		gssize n = g_input_stream_read(in, buf, sizeof(buf), NULL, NULL);
		if (n <= 0)
			break;
		g_string_append_len(reply, buf, n);
	}
	return g_string_free(g_steal_pointer(&reply), FALSE);
}

/* a request of this test process, which is no process of the tree: refused, nothing reaches the
 * target */
static void
assert_outsider_refused(Fixture *fx, guint16 port)
{
	guint before = target_count(&fx->target);
	g_autofree gchar *request =
	    g_strdup_printf("GET http://127.0.0.1:%u/other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			    fx->target.port);
	g_autofree gchar *reply = raw_request(port, request);

	g_assert_true(g_str_has_prefix(reply, "HTTP/1.1 403 Forbidden\r\n"));
	g_assert_true(g_str_has_suffix(reply, "\r\n\r\nthis proxy serves another process"));
	g_assert_cmpuint(target_count(&fx->target), ==, before);
}

/* waits until the target has seen @n requests */
static void
wait_target_count(Fixture *fx, guint n)
{
	for (guint i = 0; i < 400 && target_count(&fx->target) < n; i++)
		g_usleep(25000);
	g_assert_cmpuint(target_count(&fx->target), ==, n);
}

/*
 * Beyond the reference: a proxy serves its own process tree only, orphans
 * of the tree included; any other local process is refused, even for a
 * destination the policy allows.
 */
static void
test_other_process(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *url = NULL;
	g_autofree gchar *orphan = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *script = NULL;
	g_autoptr(JsonNode) done = NULL;
	guint16 port;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "long", "echo \"$HTTP_PROXY\"; exec sleep 60", member);
	port = fixture_proxy_port(fx, "long");
	g_assert_cmpuint(target_count(&fx->target), ==, 0);
	assert_outsider_refused(fx, port);
	done = fixture_call(fx, "process/terminate", "{\"processId\":\"long\"}");
	g_free(fixture_output(fx, "long"));

	/* a background child outlives the shell that started it, and is still served */
	url = g_strdup_printf("http://127.0.0.1:%u/orphan", fx->target.port);
	orphan = curl(url);
	script = g_strdup_printf("(sleep 0.3; %s) &", orphan);
	fixture_start(fx, "orphan", script, member);
	out = fixture_output(fx, "orphan");
	g_assert_cmpstr(out, ==, "target GET /orphan\ncode=200 exit=0\n");
}

/*
 * The process that held the last client socket is looked at first: once a
 * process of the tree was served, another local process is still refused,
 * and a second process of the tree is still served.
 */
static void
test_other_process_after_member(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *first_url = NULL;
	g_autofree gchar *second_url = NULL;
	g_autofree gchar *second = NULL;
	g_autofree gchar *script = NULL;
	g_autoptr(JsonNode) done = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *go = NULL;
	g_autofree gchar *second_head = NULL;
	guint16 port;

	if (fixture_skip(fx))
		return;
	dir = g_dir_make_tmp("esd-np-member-XXXXXX", NULL);
	go = g_build_filename(dir, "go", NULL);
	first_url = g_strdup_printf("http://127.0.0.1:%u/first", fx->target.port);
	second_url = g_strdup_printf("http://127.0.0.1:%u/second", fx->target.port);
	second = curl(second_url);
	/*
	 * bash holds its connection open (the process looked at first afterwards)
	 * while the test's own request comes; the second curl waits for a file
	 * the test makes after that
	 */
	script = g_strdup_printf(
	    "echo \"$HTTP_PROXY\"; bash -c 'exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}; "
	    "printf \"GET %s HTTP/1.1\\r\\nHost: 127.0.0.1:%u\\r\\n\\r\\n\" >&3; "
	    "while [ ! -e %s ]; do sleep 0.05; done'; %s; exec sleep 60",
	    first_url,
	    fx->target.port,
	    go,
	    second);
	fixture_start(fx, "long", script, member);
	port = fixture_proxy_port(fx, "long");
	wait_target_count(fx, 1);
	assert_outsider_refused(fx, port);
	g_assert_true(g_file_set_contents(go, "", 0, NULL));
	wait_target_count(fx, 2);
	second_head = target_last_head(&fx->target);
	g_assert_true(g_str_has_prefix(second_head, "GET /second "));
	done = fixture_call(fx, "process/terminate", "{\"processId\":\"long\"}");
	g_free(fixture_output(fx, "long"));
	g_unlink(go);
	g_rmdir(dir);
}

/* the client vanishes: once its session expires, its processes and their proxies go */
static void
test_client_vanishes(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	guint16 port;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "long", "echo \"$HTTP_PROXY\"; exec sleep 60", member);
	port = fixture_proxy_port(fx, "long");
	g_assert_true(port_is_open(port));
	esd_test_ws_client_abort(fx->client);
	g_clear_object(&fx->client);
	assert_port_closes(port);
}

/*
 * allowUpstreamProxy: requests leave through the daemon's own HTTP proxy
 * (its HTTP_PROXY, HTTPS_PROXY), with its credentials, after the policy;
 * without the flag the daemon's proxy is ignored.
 */
static void
test_upstream(Fixture *fx, gconstpointer user_data)
{
	/* a public address: the upstream proxy carries it, the target standing in for both */
	g_autofree gchar *member =
	    proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\",\"192.0.2.1\":\"allow\"}", NULL);
	g_autofree gchar *direct = NULL;
	g_autofree gchar *via = NULL;
	g_autofree gchar *local = NULL;
	g_autofree gchar *tunnel = NULL;
	g_autofree gchar *blocked = NULL;
	g_autofree gchar *head = NULL;
	g_autofree gchar *args = g_strdup_printf("http://127.0.0.1:%u/up", fx->target.port);
	g_autofree gchar *public_args = g_strdup_printf("http://93.184.215.14/up");
	g_autofree gchar *tunnel_args = g_strdup_printf("-p http://93.184.215.14:8443/t");
	GString *upstream;

	if (fixture_skip(fx))
		return;
	direct = fixture_curl(fx, "direct", member, args);
	g_assert_cmpstr(direct, ==, "target GET /up\ncode=200 exit=0\n");
	upstream = g_string_new(member);
	g_string_replace(upstream,
			 "\"allowUpstreamProxy\":false",
			 "\"allowUpstreamProxy\":true",
			 1);
	g_string_replace(upstream, "192.0.2.1", "93.184.215.14", 1);
	via = fixture_curl(fx, "via", upstream->str, public_args);
	/* absolute form, the default port left out: the upstream proxy got the request */
	g_assert_cmpstr(via, ==, "target GET http://93.184.215.14/up\ncode=200 exit=0\n");
	head = target_last_head(&fx->target);
	g_assert_nonnull(strstr(head, "\r\nProxy-Authorization: Basic dXNlcjpwdw==\r\n"));
	g_clear_pointer(&head, g_free);
	/* a local destination the policy let through is dialled directly, as on the reference */
	local = fixture_curl(fx, "local", upstream->str, args);
	g_assert_cmpstr(local, ==, "target GET /up\ncode=200 exit=0\n");
	head = target_last_head(&fx->target);
	g_assert_null(strstr(head, "Proxy-Authorization"));
	g_clear_pointer(&head, g_free);
	/*
	 * a tunnel is asked of the upstream with CONNECT (the target then answers it as HTTP);
	 * with `upstream-http` the daemon has HTTP_PROXY and ALL_PROXY only: tunnels take the
	 * first, before ALL_PROXY, as on the reference
	 */
	tunnel = fixture_curl(fx, "tunnel", upstream->str, tunnel_args);
	head = target_last_head(&fx->target);
	g_assert_true(g_str_has_prefix(head, "CONNECT 93.184.215.14:8443 HTTP/1.1\r\n"));
	g_assert_nonnull(strstr(head, "\r\nProxy-Authorization: Basic dXNlcjpwdw==\r\n"));
	/* the policy still comes first */
	blocked = fixture_curl(fx, "blocked", upstream->str, "http://10.1.2.3/");
	g_assert_true(g_str_has_suffix(blocked, "\ncode=403 exit=0\n"));
	g_assert_cmpuint(target_count(&fx->target), ==, 4);
	g_string_free(upstream, TRUE);
}

/* the proxy lives in the daemon: killed, it leaves no listener behind */
static void
test_daemon_killed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	guint16 port;

	if (fixture_skip(fx))
		return;
	fixture_start(fx, "long", "echo \"$HTTP_PROXY\"; exec sleep 60", member);
	port = fixture_proxy_port(fx, "long");
	g_assert_true(port_is_open(port));
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	g_assert_true(esd_test_daemon_wait_exit(fx->daemon, ESD_TEST_TIMEOUT_MS));
	assert_port_closes(port);
	/* nothing left to shut down */
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
}

/* the managed network ------------------------------------------------- */

/* a non-loopback IPv4 address of this host, or NULL */
static gchar *
host_address(void)
{
	struct ifaddrs *list = NULL;
	gchar *found = NULL;

	if (getifaddrs(&list) != 0)
		return NULL;
	for (struct ifaddrs *i = list; i != NULL && found == NULL; i = i->ifa_next) {
		struct sockaddr_in *in = (struct sockaddr_in *)i->ifa_addr;
		gchar text[INET_ADDRSTRLEN];

		if (in == NULL || in->sin_family != AF_INET || (i->ifa_flags & IFF_UP) == 0 ||
		    (i->ifa_flags & IFF_LOOPBACK) != 0)
			continue;
		if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != NULL)
			found = g_strdup(text);
	}
	freeifaddrs(list);
	return found;
}

/* a listener on every address of the host; the port through @port */
static gint
any_listener(guint16 *port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	socklen_t len = sizeof(addr);
	gint fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(listen(fd, 8), ==, 0);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&addr, &len), ==, 0);
	*port = ntohs(addr.sin_port);
	return fd;
}

/* how many connections wait on @fd */
static guint
pending_connections(gint fd)
{
	guint n = 0;
	gint conn;

	while ((conn = accept(fd, NULL, NULL)) >= 0) {
		close(conn);
		n++;
	}
	return n;
}

static gboolean
ns_inode_matches(gint fd, guint64 inode)
{
	struct stat st;
	return fstat(fd, &st) == 0 && (guint64)st.st_ino == inode;
}

/*
 * Whether the network namespace @inode still exists from the host's view:
 * a process in it, or a socket of the daemon's in it (the proxy's
 * listeners there), found with pidfd_getfd() and SIOCGSKNS.
 */
static gboolean
netns_alive(GPid daemon, guint64 inode)
{
	g_autoptr(GDir) proc = g_dir_open("/proc", 0, NULL);
	g_autofree gchar *fd_dir = NULL;
	g_autoptr(GDir) fds = NULL;
	const gchar *name;
	gint pidfd;
	gboolean alive = FALSE;

	g_assert_nonnull(proc);
	while ((name = g_dir_read_name(proc)) != NULL && !alive) {
		g_autofree gchar *path = g_strdup_printf("/proc/%s/ns/net", name);
		gint fd;

		if (!g_ascii_isdigit(name[0]))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		alive = ns_inode_matches(fd, inode);
		close(fd);
	}
	if (alive || daemon <= 0)
		return alive;
	pidfd = (gint)syscall(SYS_pidfd_open, daemon, 0);
	if (pidfd < 0)
		return FALSE; /* the daemon is gone, and its sockets with it */
	fd_dir = g_strdup_printf("/proc/%d/fd", (gint)daemon);
	fds = g_dir_open(fd_dir, 0, NULL);
	while (fds != NULL && (name = g_dir_read_name(fds)) != NULL && !alive) {
		gint fd = (gint)syscall(SYS_pidfd_getfd, pidfd, atoi(name), 0);
		gint ns;

		if (fd < 0)
			continue;
		ns = ioctl(fd, SIOCGSKNS);
		if (ns >= 0) {
			alive = ns_inode_matches(ns, inode);
			close(ns);
		}
		close(fd);
	}
	close(pidfd);
	return alive;
}

/* the namespace a sandboxed command printed first: `net:[INODE]` */
static guint64
fixture_netns(Fixture *fx, const gchar *id)
{
	JsonNode *note = fixture_wait_note(fx, "process/output", id);
	gsize len = 0;
	g_autofree guchar *data =
	    g_base64_decode(esd_test_json_get_string(note, "params.chunk"), &len);
	g_autofree gchar *text = g_strndup((const gchar *)data, len);
	const gchar *open_bracket = strchr(text, '[');

	g_assert_true(g_str_has_prefix(text, "net:["));
	return g_ascii_strtoull(open_bracket + 1, NULL, 10);
}

static void
assert_netns_goes(GPid daemon, guint64 inode)
{
	for (guint i = 0; i < 400 && netns_alive(daemon, inode); i++)
		g_usleep(25000);
	g_assert_false(netns_alive(daemon, inode));
}

static gboolean
fixture_skip_sandbox(Fixture *fx)
{
	g_autofree gchar *bwrap = g_find_program_in_path("bwrap");

	if (fixture_skip(fx))
		return TRUE;
	if (bwrap == NULL) {
		g_test_skip("bwrap is not installed");
		return TRUE;
	}
	return FALSE;
}

/* @network, or `disabled`: a sandbox whose profile isolates nothing */
static gchar *
fixture_start_sandboxed(Fixture *fx,
			const gchar *id,
			const gchar *member,
			const gchar *network,
			const gchar *script)
{
	g_autofree gchar *sandbox =
	    g_strcmp0(network, "disabled") == 0
		? g_strdup("\"sandbox\":{\"permissions\":{\"type\":\"disabled\"},"
			   "\"windowsSandboxLevel\":\"disabled\"}")
		: sandbox_member(network);
	g_autofree gchar *both = g_strdup_printf("%s,%s", member, sandbox);
	g_autofree gchar *params = start_params(id, script, both);
	g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);

	return g_strdup(esd_test_json_get_string(reply, "result.sandboxType"));
}

/*
 * Under a restricted network the command's proxy variables lead to its
 * proxy, in the sandbox's own namespace: HTTP, CONNECT and SOCKS5 reach an
 * allowed target, the policy and the decider still apply. A command that
 * ignores the variables reaches nothing: not the target on the host's
 * loopback, not a listener on the host's own address, not another
 * process's proxy, not the daemon's port; it can make no Unix socket (to
 * dial a path of the host) and no datagram socket.
 */
static void
test_managed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member =
	    socks_member("full",
			 "{\"127.0.0.1\":\"allow\",\"denied.test\":\"deny\"}",
			 "\"policyDecisionTimeoutMs\":3000");
	g_autofree gchar *plain = proxy_member(FALSE, "full", NULL, NULL);
	g_autofree gchar *address = host_address();
	/* the sandbox's PATH is /usr/bin:/bin */
	gboolean python = g_file_test("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE);
	g_autoptr(GString) script = g_string_new(NULL);
	g_autoptr(GString) expected = g_string_new(NULL);
	g_autofree gchar *type = NULL;
	g_autofree gchar *out = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	g_autoptr(JsonNode) reply = NULL;
	const gchar *w = "-s --max-time 10 -o /dev/null -w";
	guint16 any_port = 0;
	guint16 other;
	gint any;

	if (fixture_skip_sandbox(fx))
		return;
	/* another process's proxy on the host's loopback */
	fixture_start(fx, "other", "echo \"$HTTP_PROXY\"; exec sleep 60", plain);
	other = fixture_proxy_port(fx, "other");
	any = any_listener(&any_port);
	fx->answer = "{\"decision\":{\"type\":\"deny\",\"reason\":\"asked\"}}";
#define STEP(label, args, result)                                                                  \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_string_append_printf(script,                                                     \
				       "curl %s '" label " %%{http_code}' %s; echo \" $?\"; ",     \
				       w,                                                          \
				       args);                                                      \
		g_string_append(expected, label " " result "\n");                                  \
	}                                                                                          \
	G_STMT_END
	{
		g_autofree gchar *target = g_strdup_printf("http://127.0.0.1:%u", fx->target.port);
		g_autofree gchar *via = g_strdup_printf("%s/via", target);
		g_autofree gchar *tunnel = g_strdup_printf("-p %s/tunnel", target);
		g_autofree gchar *socks = g_strdup_printf("-x \"$ALL_PROXY\" %s/socks", target);
		g_autofree gchar *direct = g_strdup_printf("--noproxy '*' %s/direct", target);
		g_autofree gchar *to_other =
		    g_strdup_printf("--noproxy '*' -x http://127.0.0.1:%u %s/other", other, target);

		STEP("via", via, "200 0");
		STEP("tunnel", tunnel, "200 0");
		STEP("socks", socks, "200 0");
		STEP("denied", "http://denied.test/", "403 0");
		STEP("decider", "http://decide.invalid/", "403 0");
		STEP("direct", direct, "000 7");
		STEP("other-proxy", to_other, "000 7");
	}
	if (address != NULL) {
		g_autofree gchar *host =
		    g_strdup_printf("--noproxy '*' http://%s:%u/", address, any_port);
		STEP("host-address", host, "000 7");
	}
	if (fx->client != NULL) {
		const gchar *url = esd_test_daemon_get_url(fx->daemon);
		g_autofree gchar *daemon =
		    g_strdup_printf("--noproxy '*' http://127.0.0.1:%s/", strrchr(url, ':') + 1);
		STEP("daemon", daemon, "000 7");
	}
#undef STEP
	if (python) {
		g_string_append(
		    script,
		    "/usr/bin/python3 -c 'import socket, errno\n"
		    "for name, family, kind in ((\"unix\", socket.AF_UNIX, socket.SOCK_STREAM),"
		    " (\"udp\", socket.AF_INET, socket.SOCK_DGRAM)):\n"
		    "    try:\n"
		    "        socket.socket(family, kind)\n"
		    "        print(name, \"made\")\n"
		    "    except OSError as e:\n"
		    "        print(name, errno.errorcode[e.errno])'");
		g_string_append(expected, "unix EAFNOSUPPORT\nudp EPERM\n");
	}
	type = fixture_start_sandboxed(fx, "m", member, "restricted", script->str);
	g_assert_cmpstr(type, ==, "linuxSeccomp");
	out = fixture_output(fx, "m");
	g_assert_cmpstr(out, ==, expected->str);
	/* via, tunnel and socks reached the target, nothing else did */
	g_assert_cmpuint(target_count(&fx->target), ==, 3);
	g_assert_cmpuint(pending_connections(any), ==, 0);
	/* the host's address is reachable from outside the sandbox */
	if (address != NULL) {
		g_autoptr(GSocketClient) client = g_socket_client_new();
		g_autoptr(GSocketConnection) conn =
		    g_socket_client_connect_to_host(client, address, any_port, NULL, NULL);
		g_assert_nonnull(conn);
		g_usleep(100000);
		g_assert_cmpuint(pending_connections(any), ==, 1);
	}
	close(any);
	decisions = fixture_decisions(fx, "m");
	g_assert_cmpuint(decisions->len, ==, 5);
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[0], "protocol"), ==, "http");
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[1], "protocol"),
			==,
			"https_connect");
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[2], "protocol"),
			==,
			"socks5_tcp");
	for (guint i = 0; i < 3; i++)
		g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[i], "decision"),
				==,
				"allow");
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[3], "source"),
			==,
			"baseline_policy");
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[3], "decision"), ==, "deny");
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[4], "source"), ==, "decider");
	g_assert_cmpstr(esd_test_json_get_string(decisions->pdata[4], "reason"), ==, "asked");
	for (guint i = 0; i < decisions->len; i++)
		g_assert_true(
		    g_str_has_prefix(esd_test_json_get_string(decisions->pdata[i], "client"),
				     "127.0.0.1:"));
	g_assert_cmpuint(fx->asks->len, ==, 1);
	reply = fixture_call(fx, "process/terminate", "{\"processId\":\"other\"}");
	g_free(fixture_output(fx, "other"));
}

/*
 * enforceManagedNetwork fails closed: a sandboxed command without a proxy
 * does not run (exit 101, sandboxDenied), with a restricted network, with
 * the host's, and under a profile that isolates nothing else alike; with a
 * proxy it runs behind it. Without a sandbox
 * it changes nothing, as on the reference. managedNetwork is checked.
 */
static void
test_enforce(Fixture *fx, gconstpointer user_data)
{
	const struct {
		const gchar *value;
		const gchar *message;
	} invalid[] = {
	    {"5", "invalid type: number, expected struct ManagedNetworkSandboxContext"},
	    {"{\"loopbackPorts\":\"x\"}", "invalid type: string \"x\", expected a sequence"},
	    {"{\"loopbackPorts\":[70000]}", "invalid number"},
	    {"{\"allowLocalBinding\":\"x\"}", "invalid type: string \"x\", expected a boolean"},
	    {"{\"allowUnixSockets\":[1]}", "invalid type: number, expected a string"},
	    {"{\"transparentTcp\":true}",
	     "transparent TCP requires an executor-local managed proxy"},
	};
	const gchar *networks[] = {"restricted", "enabled", "disabled"};
	g_autofree gchar *proxy = proxy_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *with_proxy = g_strdup_printf("\"enforceManagedNetwork\":true,%s", proxy);
	g_autofree gchar *url = g_strdup_printf("http://127.0.0.1:%u/e", fx->target.port);
	g_autofree gchar *script = g_strdup_printf(
	    "curl -s -o /dev/null -w 'via %%{http_code}\\n' %s; "
	    "curl -s --noproxy '*' -o /dev/null -w 'direct %%{http_code}' %s; echo \" $?\"",
	    url,
	    url);
	g_autofree gchar *out = NULL;
	g_autofree gchar *type = NULL;
	JsonNode *exited;

	if (fixture_skip_sandbox(fx))
		return;
	for (guint i = 0; i < G_N_ELEMENTS(networks); i++) {
		g_autofree gchar *id = g_strdup_printf("e-%s", networks[i]);
		g_autofree gchar *proxied = g_strdup_printf("p-%s", networks[i]);
		g_autofree gchar *out_proxied = NULL;
		g_autofree gchar *type_proxied = NULL;

		type = fixture_start_sandboxed(fx,
					       id,
					       "\"enforceManagedNetwork\":true",
					       networks[i],
					       "echo ran");
		g_assert_cmpstr(type, ==, "linuxSeccomp");
		g_clear_pointer(&type, g_free);
		out = fixture_output(fx, id);
		g_assert_nonnull(strstr(out, "enforceManagedNetwork"));
		g_assert_null(strstr(out, "ran"));
		g_clear_pointer(&out, g_free);
		exited = fixture_wait_note(fx, "process/exited", id);
		g_assert_cmpint(esd_test_json_get_int(exited, "params.exitCode"), ==, 101);
		g_assert_true(
		    json_node_get_boolean(esd_test_json_get(exited, "params.sandboxDenied")));

		type_proxied =
		    fixture_start_sandboxed(fx, proxied, with_proxy, networks[i], script);
		g_assert_cmpstr(type_proxied, ==, "linuxSeccomp");
		out_proxied = fixture_output(fx, proxied);
		g_assert_cmpstr(out_proxied, ==, "via 200\ndirect 000 7\n");
		exited = fixture_wait_note(fx, "process/exited", proxied);
		g_assert_cmpint(esd_test_json_get_int(exited, "params.exitCode"), ==, 0);
		g_assert_false(
		    json_node_get_boolean(esd_test_json_get(exited, "params.sandboxDenied")));
	}
	/* no sandbox: the flag is ignored */
	fixture_start(fx, "plain", "echo ran", "\"enforceManagedNetwork\":true");
	out = fixture_output(fx, "plain");
	g_assert_cmpstr(out, ==, "ran\n");
	exited = fixture_wait_note(fx, "process/exited", "plain");
	g_assert_cmpint(esd_test_json_get_int(exited, "params.exitCode"), ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(invalid); i++) {
		g_autofree gchar *id = g_strdup_printf("bad%u", i);
		g_autofree gchar *member =
		    g_strdup_printf("\"managedNetwork\":%s", invalid[i].value);
		g_autofree gchar *params = start_params(id, "true", member);
		g_autoptr(JsonNode) reply = fixture_call(fx, "process/start", params);

		g_assert_cmpint(esd_test_json_get_int(reply, "error.code"), ==, -32602);
		g_assert_cmpstr(esd_test_json_get_string(reply, "error.message"),
				==,
				invalid[i].message);
	}
	/* members of the client's own proxy are accepted */
	fixture_start(fx,
		      "accepted",
		      "true",
		      "\"managedNetwork\":{\"loopbackPorts\":[8080],\"allowLocalBinding\":true,"
		      "\"allowUnixSockets\":[\"/run/x\"],\"bogus\":1}");
	g_free(fixture_output(fx, "accepted"));
}

/*
 * SOCKS5 UDP under the managed network: the sandbox makes the relays on
 * its own loopback and hands them to the proxy, one an association. From
 * the namespace a datagram goes through the relay, with the same policy
 * and decisions as outside (a denied one dropped), whether the request
 * named the client's socket or none; one sent straight to the target
 * reaches nothing; there are 16 relays, the 17th association gets reply 1;
 * and the relays, idle or not, do not keep the namespace once the command
 * is gone.
 */
static void
test_managed_udp(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member =
	    udp_member(FALSE, "full", "{\"127.0.0.1\":\"allow\",\"127.0.0.2\":\"deny\"}", NULL);
	g_autofree gchar *exe = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *type = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *got = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	const gchar *line;
	Echo echo = {0};
	guint64 ns;

	if (fixture_skip_sandbox(fx))
		return;
	echo_start(&echo);
	exe = g_shell_quote(self_exe);
	script = g_strdup_printf("readlink /proc/self/ns/net; exec %s --udp-client named "
				 "send=127.0.0.1,%u,one send=127.0.0.2,%u,denied "
				 "direct=127.0.0.1,%u,direct more=16 send=127.0.0.1,%u,two",
				 exe,
				 echo.port,
				 echo.port,
				 echo.port,
				 echo.port);
	type = fixture_start_sandboxed(fx, "mu", member, "restricted", script);
	g_assert_cmpstr(type, ==, "linuxSeccomp");
	ns = fixture_netns(fx, "mu");
	out = fixture_output(fx, "mu");
	line = strchr(out, '\n');
	g_assert_nonnull(line);
	expected = g_strdup_printf("assoc 0 %u\n"
				   "send one 127.0.0.1:%u echo:one\n"
				   "send denied none\n"
				   "direct direct none\n"
				   "more 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1\n"
				   "send two 127.0.0.1:%u echo:two\n",
				   udp_relay_port(out),
				   echo.port,
				   echo.port);
	g_assert_cmpstr(line + 1, ==, expected);
	got = echo_got(&echo);
	g_assert_cmpstr(got, ==, "one\ntwo\n");
	decisions = fixture_decisions(fx, "mu");
	g_assert_cmpuint(decisions->len, ==, 3);
	assert_udp_decision(decisions->pdata[0],
			    "mu",
			    "allow",
			    "baseline_policy",
			    "allow",
			    "127.0.0.1",
			    echo.port);
	assert_udp_decision(decisions->pdata[1],
			    "mu",
			    "deny",
			    "baseline_policy",
			    "denied",
			    "127.0.0.2",
			    echo.port);
	assert_udp_decision(decisions->pdata[2],
			    "mu",
			    "allow",
			    "baseline_policy",
			    "allow",
			    "127.0.0.1",
			    echo.port);
	assert_netns_goes(esd_test_daemon_get_pid(fx->daemon), ns);

	/* a request naming no socket: the first datagram's sender is the client */
	g_clear_pointer(&script, g_free);
	g_clear_pointer(&type, g_free);
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&expected, g_free);
	script = g_strdup_printf("exec %s --udp-client any send=127.0.0.1,%u,any", exe, echo.port);
	type = fixture_start_sandboxed(fx, "mu2", member, "restricted", script);
	out = fixture_output(fx, "mu2");
	expected = g_strdup_printf("assoc 0 %u\nsend any 127.0.0.1:%u echo:any\n",
				   udp_relay_port(out),
				   echo.port);
	g_assert_cmpstr(out, ==, expected);

	/*
	 * a relay still sent to once its association ended is not used again (it
	 * would keep its thread emptying it): 15 are left for the next 16
	 */
	g_clear_pointer(&script, g_free);
	g_clear_pointer(&type, g_free);
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&expected, g_free);
	script =
	    g_strdup_printf("exec %s --udp-client named close flood=1000 sleep=300 more=16", exe);
	type = fixture_start_sandboxed(fx, "mu3", member, "restricted", script);
	out = fixture_output(fx, "mu3");
	expected = g_strdup_printf("assoc 0 %u\nclosed\nflood 1000\n"
				   "more 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1\n",
				   udp_relay_port(out));
	g_assert_cmpstr(out, ==, expected);
	echo_stop(&echo);
}

/*
 * Without enableSocks5Udp the sandbox makes no relay: UDP ASSOCIATE gets
 * reply 7 (command not supported) and the filter refuses a datagram
 * socket, as before; SOCKS5 TCP still works there.
 */
static void
test_managed_no_udp(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = udp_member(FALSE, "full", "{\"127.0.0.1\":\"allow\"}", NULL);
	g_autofree gchar *exe = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *type = NULL;
	g_autofree gchar *out = NULL;
	GString *tcp_only = g_string_new(member);

	if (fixture_skip_sandbox(fx)) {
		g_string_free(tcp_only, TRUE);
		return;
	}
	g_string_replace(tcp_only, "\"enableSocks5Udp\":true", "\"enableSocks5Udp\":false", 1);
	exe = g_shell_quote(self_exe);
	script = g_strdup_printf("%s --udp-client any send=127.0.0.1,9,x", exe);
	type = fixture_start_sandboxed(fx, "mn", tcp_only->str, "restricted", script);
	g_string_free(tcp_only, TRUE);
	g_assert_cmpstr(type, ==, "linuxSeccomp");
	out = fixture_output(fx, "mn");
	g_assert_cmpstr(out, ==, "assoc 7 0\nsocket: Operation not permitted\n");
}

/*
 * starts @script (which prints its network namespace first) sandboxed under
 * the managed network as process @id; returns the namespace, alive
 */
static guint64
fixture_start_in_netns(Fixture *fx, const gchar *id, const gchar *member, const gchar *script)
{
	guint64 ns;

	g_free(fixture_start_sandboxed(fx, id, member, "restricted", script));
	ns = fixture_netns(fx, id);

	g_assert_true(netns_alive(esd_test_daemon_get_pid(fx->daemon), ns));
	return ns;
}

#define ESD_TEST_NETNS_SLEEPER "readlink /proc/self/ns/net; exec sleep 60"

/* the sandbox's namespace, and the proxy's listeners in it, end with the command */
static void
test_managed_lifecycle(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	GPid daemon;
	guint64 ns;
	g_autoptr(JsonNode) reply = NULL;

	if (fixture_skip_sandbox(fx))
		return;
	daemon = esd_test_daemon_get_pid(fx->daemon);
	/* the command ends by itself */
	ns = fixture_start_in_netns(fx, "short", member, "readlink /proc/self/ns/net; sleep 0.5");
	g_free(fixture_output(fx, "short"));
	assert_netns_goes(daemon, ns);

	/* terminated */
	ns = fixture_start_in_netns(fx, "long", member, ESD_TEST_NETNS_SLEEPER);
	reply = fixture_call(fx, "process/terminate", "{\"processId\":\"long\"}");
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	g_free(fixture_output(fx, "long"));
	assert_netns_goes(daemon, ns);
}

/* the client goes: its session expires and takes the namespace with it */
static void
test_managed_client_vanishes(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	GPid daemon;
	guint64 ns;

	if (fixture_skip_sandbox(fx))
		return;
	daemon = esd_test_daemon_get_pid(fx->daemon);
	ns = fixture_start_in_netns(fx, "long", member, ESD_TEST_NETNS_SLEEPER);
	esd_test_ws_client_close(fx->client);
	g_clear_object(&fx->client);
	assert_netns_goes(daemon, ns);
}

/* the daemon killed: nothing of the sandbox's network is left */
static void
test_managed_daemon_killed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = proxy_member(FALSE, "full", NULL, NULL);
	guint64 ns;

	if (fixture_skip_sandbox(fx))
		return;
	ns = fixture_start_in_netns(fx, "long", member, ESD_TEST_NETNS_SLEEPER);
	esd_test_daemon_send_signal(fx->daemon, SIGKILL);
	g_assert_true(esd_test_daemon_wait_exit(fx->daemon, ESD_TEST_TIMEOUT_MS));
	assert_netns_goes(0, ns);
	g_clear_object(&fx->client);
	g_clear_object(&fx->daemon);
}

/* credential masking ------------------------------------------------------ */

#define VENDOR_TOKEN "vendor_abcdefghijklmnopqrstuvwx"
#define PLAIN_TOKEN  "plain-0123456789abcdefXYZ"
#define BASIC_TOKEN  "basicsecret0123456789"
#define GH_TOKEN     "ghp_0123456789abcdefghijABCDEFGHIJ012345"
#define IP_TOKEN     "iptoken-0123456789abcdef"
#define UUID_TOKEN   "1b4e28ba-2fa1-11d2-883f-0016d3cca427"

/* the head the target got for @path, or NULL */
static gchar *
target_head_for(Target *target, const gchar *path)
{
	g_autofree gchar *needle = g_strdup_printf(" %s ", path);
	gchar *head = NULL;

	g_mutex_lock(&target->lock);
	for (guint i = 0; i < target->heads->len && head == NULL; i++) {
		const gchar *h = g_ptr_array_index(target->heads, i);
		const gchar *eol = strstr(h, "\r\n");
		if (eol != NULL && g_strstr_len(h, eol - h, needle) != NULL)
			head = g_strdup(h);
	}
	g_mutex_unlock(&target->lock);
	return head;
}

/* the value of @name in @head, as the target got it */
static gchar *
head_value(const gchar *head, const gchar *name)
{
	g_autofree gchar *lower = g_ascii_strdown(head, -1);
	g_autofree gchar *want = g_strdup_printf("\r\n%s:", name);
	g_autofree gchar *want_lower = g_ascii_strdown(want, -1);
	const gchar *at = strstr(lower, want_lower);
	const gchar *value;

	if (at == NULL)
		return NULL;
	value = head + (at - lower) + strlen(want);
	return g_strstrip(g_strndup(value, strcspn(value, "\r")));
}

/* `NAME=value` of the command's output */
static gchar *
output_value(const gchar *out, const gchar *name)
{
	g_autofree gchar *want = g_strdup_printf("%s=", name);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		if (g_str_has_prefix(lines[i], want))
			return g_strdup(lines[i] + strlen(want));
	}
	g_error("no %s in: %s", name, out);
}

static gchar *
masking_member(Fixture *fx, gboolean masking)
{
	g_autofree gchar *extra = g_strdup_printf(
	    "\"credentialMasking\":%s,\"credentialProviders\":{"
	    "\"vendor\":{\"env\":[\"VENDOR_TOKEN\"],\"patterns\":[\"^vendor_[a-z]{24}$\"],"
	    "\"url_prefixes\":[\"https://localhost:%u/api\"],\"auth\":[\"bearer\"]},"
	    "\"plain\":{\"env\":[\"PLAIN_TOKEN\"],\"url_prefixes\":[\"http://127.0.0.1:%u/plain\"],"
	    "\"auth\":[\"header\"],\"header\":\"X-Api-Key\",\"prefix\":\"key=\"},"
	    "\"basic\":{\"env\":[\"BASIC_TOKEN\"],\"url_prefix_from_env\":\"BASIC_URL\","
	    "\"auth\":[\"basic\"]},"
	    "\"nomatch\":{\"env\":[\"NOMATCH_TOKEN\"],\"patterns\":[\"^nothing$\"],"
	    "\"url_prefixes\":[\"localhost:%u\"]},"
	    "\"ip\":{\"env\":[\"IP_TOKEN\"],\"url_prefixes\":[\"https://127.0.0.1:%u\"]},"
	    "\"uuid\":{\"env\":[\"UUID_TOKEN\"],\"url_prefixes\":[\"https://localhost:%u/u\"]}}",
	    masking ? "true" : "false",
	    fx->target.tls_port,
	    fx->target.port,
	    fx->target.tls_port,
	    fx->target.tls_port,
	    fx->target.tls_port);
	g_autofree gchar *proxy =
	    proxy_member(FALSE, "full", "{\"localhost\":\"allow\",\"127.0.0.1\":\"allow\"}", NULL);

	/* the flags and providers go into `proxy`, before its closing brace */
	g_autofree gchar *head = g_strndup(proxy, g_strrstr(proxy, "}}") - proxy);
	return g_strdup_printf("%s,%s}}", head, extra);
}

static gchar *
masking_params(Fixture *fx, const gchar *id, const gchar *script, const gchar *member)
{
	g_autoptr(JsonNode) quoted = json_node_init_string(json_node_alloc(), script);
	g_autofree gchar *text = json_to_string(quoted, FALSE);

	return g_strdup_printf(
	    "{\"processId\":\"%s\",\"argv\":[\"sh\",\"-c\",%s],\"cwd\":\"file:///\","
	    "\"env\":{\"PATH\":\"/usr/bin:/bin\",\"VENDOR_TOKEN\":\"" VENDOR_TOKEN "\","
	    "\"PLAIN_TOKEN\":\"" PLAIN_TOKEN "\",\"BASIC_TOKEN\":\"" BASIC_TOKEN "\","
	    "\"BASIC_URL\":\"https://localhost:%u/basic\",\"NOMATCH_TOKEN\":\"kept-as-is\","
	    "\"GH_TOKEN\":\"" GH_TOKEN "\",\"IP_TOKEN\":\"" IP_TOKEN "\","
	    "\"UUID_TOKEN\":\"" UUID_TOKEN "\"},\"tty\":false,%s}",
	    id,
	    text,
	    fx->target.tls_port,
	    member);
}

/* one curl per line: `LABEL CODE` */
static gchar *
masking_script(Fixture *fx)
{
	guint16 tls = fx->target.tls_port;
	guint16 plain = fx->target.port;

	return g_strdup_printf(
	    "for v in VENDOR_TOKEN PLAIN_TOKEN BASIC_TOKEN NOMATCH_TOKEN GH_TOKEN UUID_TOKEN; do "
	    "eval echo \"$v=\\$$v\"; done; echo \"CA=$SSL_CERT_FILE\"; "
	    "echo \"CAS=$(grep -c 'BEGIN CERTIFICATE' \"$CURL_CA_BUNDLE\")\"; "
	    "r() { l=$1; shift; curl -s --max-time 15 -o /dev/null -w \"$l %%{http_code}\\n\" "
	    "\"$@\"; }; "
	    "r a -H \"Authorization: Bearer $VENDOR_TOKEN\" https://localhost:%u/api/a; "
	    "r b -H \"Authorization: Bearer $VENDOR_TOKEN\" https://localhost:%u/apix/b; "
	    "r c -H \"X-Other: $VENDOR_TOKEN\" https://localhost:%u/api/c; "
	    "r d -H \"Authorization: Bearer $VENDOR_TOKEN\" http://127.0.0.1:%u/api/d; "
	    "r e -H \"X-Api-Key: key=$PLAIN_TOKEN\" http://127.0.0.1:%u/plain/e; "
	    "r f -H \"X-Api-Key: key=$PLAIN_TOKEN\" https://localhost:%u/plain/f; "
	    "r g -u \"git:$BASIC_TOKEN\" https://localhost:%u/basic/g; "
	    "r h -H \"Authorization: Bearer $VENDOR_TOKEN\" -H 'Host: other.test' "
	    "https://localhost:%u/api/h; "
	    "r i -H \"Authorization: Bearer $IP_TOKEN\" https://127.0.0.1:%u/i; "
	    "r j -H \"Authorization: Bearer $GH_TOKEN\" https://localhost:%u/j",
	    tls,
	    tls,
	    tls,
	    plain,
	    plain,
	    tls,
	    tls,
	    tls,
	    tls,
	    tls);
}

static void
assert_header(Target *target, const gchar *path, const gchar *name, const gchar *value)
{
	g_autofree gchar *head = target_head_for(target, path);
	g_autofree gchar *got = NULL;

	if (head == NULL)
		g_error("the target got no request for %s", path);
	got = head_value(head, name);
	g_assert_cmpstr(got, ==, value);
}

static void
assert_masked(Fixture *fx, const gchar *out)
{
	g_autofree gchar *vendor = output_value(out, "VENDOR_TOKEN");
	g_autofree gchar *plain = output_value(out, "PLAIN_TOKEN");
	g_autofree gchar *basic = output_value(out, "BASIC_TOKEN");
	g_autofree gchar *nomatch = output_value(out, "NOMATCH_TOKEN");
	g_autofree gchar *gh = output_value(out, "GH_TOKEN");
	g_autofree gchar *uuid = output_value(out, "UUID_TOKEN");
	g_autofree gchar *ca = output_value(out, "CA");
	g_autofree gchar *cas = output_value(out, "CAS");
	g_autofree gchar *bearer = g_strdup_printf("Bearer %s", vendor);
	g_autofree gchar *key = g_strdup_printf("key=%s", plain);
	g_autofree gchar *real_basic =
	    g_base64_encode((const guchar *)"git:" BASIC_TOKEN, strlen("git:" BASIC_TOKEN));
	g_autofree gchar *basic_header = g_strdup_printf("Basic %s", real_basic);
	g_autofree gchar *gh_bearer = g_strdup_printf("Bearer %s", gh);
	const gchar *codes[] = {"a 200",
				"b 200",
				"c 200",
				"d 200",
				"e 200",
				"f 200",
				"g 200",
				"h 400",
				"i 502",
				"j 200"};

	/* placeholders of the same shape, the unmatched one left */
	g_assert_cmpstr(vendor, !=, VENDOR_TOKEN);
	g_assert_true(g_regex_match_simple("^vendor_[a-z]{24}$", vendor, 0, 0));
	/* a provider without patterns: the shape, nothing of the secret */
	g_assert_cmpstr(plain, !=, PLAIN_TOKEN);
	g_assert_true(g_regex_match_simple("^[a-z]{5}-[0-9]{10}[a-z]{6}[A-Z]{3}$", plain, 0, 0));
	g_assert_false(g_str_has_prefix(plain, "plain"));
	/* nor of one with separators early on */
	g_assert_true(g_regex_match_simple("^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-"
					   "[0-9a-z]{12}$",
					   uuid,
					   0,
					   0));
	g_assert_false(g_str_has_prefix(uuid, "1b4e"));
	g_assert_cmpstr(basic, !=, BASIC_TOKEN);
	g_assert_cmpstr(nomatch, ==, "kept-as-is");
	/* the built-in GitHub provider, for github.com only */
	g_assert_cmpstr(gh, !=, GH_TOKEN);
	g_assert_true(g_str_has_prefix(gh, "ghp_"));
	g_assert_cmpuint(strlen(gh), ==, strlen(GH_TOKEN));
	g_assert_true(g_str_has_suffix(ca, ".pem"));
	/* the daemon's roots (the target's certificate) and the proxy's authority */
	g_assert_cmpstr(cas, ==, "2");
	for (guint i = 0; i < G_N_ELEMENTS(codes); i++) {
		g_autofree gchar *line = g_strdup_printf("\n%s\n", codes[i]);
		g_autofree gchar *padded = g_strdup_printf("\n%s\n", out);
		if (strstr(padded, line) == NULL)
			g_error("no \"%s\" in: %s", codes[i], out);
	}
	/* the real secret where the placeholder was, to its destination only */
	assert_header(&fx->target, "/api/a", "Authorization", "Bearer " VENDOR_TOKEN);
	assert_header(&fx->target, "/apix/b", "Authorization", bearer);
	assert_header(&fx->target, "/api/c", "X-Other", vendor);
	assert_header(&fx->target, "/api/d", "Authorization", bearer);
	assert_header(&fx->target, "/plain/e", "X-Api-Key", "key=" PLAIN_TOKEN);
	assert_header(&fx->target, "/plain/f", "X-Api-Key", key);
	assert_header(&fx->target, "/basic/g", "Authorization", basic_header);
	assert_header(&fx->target, "/j", "Authorization", gh_bearer);
	/* a Host of another destination, and a destination whose certificate fails */
	g_assert_null(target_head_for(&fx->target, "/api/h"));
	g_assert_null(target_head_for(&fx->target, "/i"));
	/* the command never saw a real secret */
	g_assert_null(strstr(out, VENDOR_TOKEN));
	g_assert_null(strstr(out, PLAIN_TOKEN));
	g_assert_null(strstr(out, BASIC_TOKEN));
	g_assert_null(strstr(out, GH_TOKEN));
	g_assert_null(strstr(out, UUID_TOKEN));
}

/*
 * credentialMasking: the command's secrets are placeholders; the proxy puts
 * the real one where the placeholder is, in the headers its provider names,
 * to the destinations it is bound to (HTTPS through an intercepted tunnel,
 * plain HTTP where a prefix says http://), and nowhere else. A destination
 * whose certificate the daemon does not trust gets nothing. Without
 * credentialMasking the providers change nothing.
 */
static void
test_masking(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *ca = NULL;
	g_autoptr(JsonNode) reply = NULL;

	if (fixture_skip(fx))
		return;
	member = masking_member(fx, TRUE);
	script = masking_script(fx);
	params = masking_params(fx, "m", script, member);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "m");
	assert_masked(fx, out);
	/* the bundle stays for the next masked process, and goes with the daemon */
	ca = output_value(out, "CA");
	g_assert_true(g_file_test(ca, G_FILE_TEST_IS_REGULAR));
	fx->ca_bundle = g_strdup(ca);

	/* off: the variables are the request's */
	g_clear_pointer(&member, g_free);
	g_clear_pointer(&params, g_free);
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&reply, json_node_unref);
	member = masking_member(fx, FALSE);
	params = masking_params(fx,
				"n",
				"echo VENDOR_TOKEN=$VENDOR_TOKEN; echo GH_TOKEN=$GH_TOKEN; "
				"echo CA=${SSL_CERT_FILE-unset}",
				member);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "n");
	g_assert_nonnull(strstr(out, "VENDOR_TOKEN=" VENDOR_TOKEN "\n"));
	g_assert_nonnull(strstr(out, "GH_TOKEN=" GH_TOKEN "\n"));
	g_assert_nonnull(strstr(out, "CA=unset\n"));
}

/* an intercepted tunnel carries a large body each way, byte for byte */
static void
test_masking_bulk(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = bulk_sha256(BULK_SIZE);
	g_autofree gchar *downloaded = NULL;
	g_autofree gchar *path = g_strdup_printf("/api/bulk/%u", BULK_SIZE);
	g_auto(GStrv) lines = NULL;
	g_autoptr(JsonNode) reply = NULL;

	if (fixture_skip(fx))
		return;
	member = masking_member(fx, TRUE);
	script = g_strdup_printf(
	    "set -e; u=https://localhost:%u%s; up='seq 1 %u'; a=\"Authorization: Bearer "
	    "$VENDOR_TOKEN\"; curl -sS --max-time 60 -H \"$a\" \"$u\" | sha256sum; "
	    "$up | sha256sum; "
	    "$up | curl -sS --max-time 60 -H 'Expect:' -H \"$a\" --data-binary @- \"$u\"; echo",
	    fx->target.tls_port,
	    path,
	    BULK_UPLOAD_LINES);
	params = masking_params(fx, "mb", script, member);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "mb");
	lines = g_strsplit(out, "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), ==, 4);
	downloaded = g_strdup_printf("%s  -", expected);
	g_assert_cmpstr(lines[0], ==, downloaded);
	g_assert_true(g_str_has_suffix(lines[1], "  -"));
	lines[1][strlen(lines[1]) - 3] = '\0';
	g_assert_cmpstr(lines[2], ==, lines[1]);
	g_assert_cmpstr(lines[3], ==, "");
	/* both requests had the secret put in */
	g_mutex_lock(&fx->target.lock);
	g_assert_cmpuint(fx->target.heads->len, ==, 2);
	for (guint i = 0; i < fx->target.heads->len; i++) {
		g_autofree gchar *value =
		    head_value(g_ptr_array_index(fx->target.heads, i), "Authorization");
		g_assert_cmpstr(value, ==, "Bearer " VENDOR_TOKEN);
	}
	g_mutex_unlock(&fx->target.lock);
}

/* a SOCKS5 tunnel to where a secret may go is intercepted as a CONNECT one */
static void
test_masking_socks(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *vendor = NULL;
	g_autofree gchar *bearer = NULL;
	g_autoptr(JsonNode) reply = NULL;
	GString *socks = NULL;

	if (fixture_skip(fx))
		return;
	member = masking_member(fx, TRUE);
	socks = g_string_new(member);
	g_string_replace(socks, "\"enableSocks5\":false", "\"enableSocks5\":true", 1);
	script = g_strdup_printf(
	    "echo VENDOR_TOKEN=$VENDOR_TOKEN; "
	    "r() { l=$1; shift; curl -s --max-time 15 -o /dev/null -w \"$l %%{http_code}\\n\" "
	    "-x \"$ALL_PROXY\" \"$@\"; }; "
	    "r s -H \"Authorization: Bearer $VENDOR_TOKEN\" https://localhost:%u/api/s; "
	    "r t -H \"Authorization: Bearer $VENDOR_TOKEN\" https://localhost:%u/apix/t",
	    fx->target.tls_port,
	    fx->target.tls_port);
	params = masking_params(fx, "ms", script, socks->str);
	g_string_free(socks, TRUE);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "ms");
	g_assert_nonnull(strstr(out, "\ns 200\nt 200\n"));
	vendor = output_value(out, "VENDOR_TOKEN");
	bearer = g_strdup_printf("Bearer %s", vendor);
	g_assert_cmpstr(vendor, !=, VENDOR_TOKEN);
	assert_header(&fx->target, "/api/s", "Authorization", "Bearer " VENDOR_TOKEN);
	assert_header(&fx->target, "/apix/t", "Authorization", bearer);
}

/*
 * Limited mode with credentialMasking, as on the reference: a tunnel is not
 * refused (`mitm_required`) but intercepted, to a destination no secret is
 * bound to as well, and each request's method checked: read-only ones go
 * on, others get the reference's 403; the tunnel's decision is its only one.
 */
static void
test_masking_limited(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member =
	    proxy_member(FALSE, "limited", "{\"localhost\":\"allow\"}", NULL);
	g_autofree gchar *masking = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autoptr(JsonNode) reply = NULL;
	g_autoptr(GPtrArray) decisions = NULL;
	g_autofree gchar *get = NULL;
	GString *text = g_string_new(member);

	if (fixture_skip(fx))
		return;
	g_string_replace(text,
			 "\"mode\":\"limited\"",
			 "\"mode\":\"limited\",\"credentialMasking\":true",
			 1);
	masking = g_string_free(text, FALSE);
	script = g_strdup_printf(
	    "u=https://localhost:%u; "
	    "curl -s --max-time 15 -o /dev/null -w 'get %%{http_code}\\n' $u/l/get; "
	    "curl -s --max-time 15 -o /dev/null -w 'head %%{http_code}\\n' -I $u/l/head; "
	    "curl -s --max-time 15 -i -X POST -d x $u/l/post | tr -d '\\r'; echo; "
	    "curl -s --max-time 15 -sv -o /dev/null $u/l/issuer 2>&1 | grep -c 'issuer: "
	    "CN=execserverd'",
	    fx->target.tls_port);
	params = masking_params(fx, "ml", script, masking);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "ml");
	/* curl -i shows the proxy's answer to its CONNECT first */
	g_assert_true(
	    g_str_has_prefix(out,
			     "get 200\nhead 200\nHTTP/1.1 200 OK\n\nHTTP/1.1 403 Forbidden\n"));
	g_assert_nonnull(strstr(out, "\nx-proxy-error: blocked-by-method-policy\n"));
	g_assert_nonnull(strstr(out, "\n\nMethod not allowed in limited mode.\n"));
	/* the command's TLS ended at the proxy */
	g_assert_true(g_str_has_suffix(out, "\n1\n"));
	get = target_head_for(&fx->target, "/l/get");
	g_assert_nonnull(get);
	g_assert_null(target_head_for(&fx->target, "/l/post"));
	decisions = fixture_decisions(fx, "ml");
	g_assert_cmpuint(decisions->len, ==, 4);
	for (guint i = 0; i < decisions->len; i++)
		assert_decision(decisions->pdata[i],
				"ml",
				"allow",
				"baseline_policy",
				"allow",
				"https_connect",
				"localhost",
				fx->target.tls_port,
				"CONNECT");
}

/*
 * An intercepted tunnel carries many requests: each head is read and gets
 * the secret (a GET, a chunked POST, a POST with a length, a HEAD, whose
 * response has no body, a GET), on one connection to the destination; in
 * limited mode a later POST on the connection gets its 403 once the answer
 * before it went, and never reaches the destination.
 */
static void
test_masking_keepalive(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = masking_member(fx, TRUE);
	g_autofree gchar *limited = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *vendor = NULL;
	g_autofree gchar *sum = NULL;
	g_autofree gchar *l3 = NULL;
	g_autoptr(JsonNode) reply = NULL;
	const gchar *paths[] = {"/api/k1", "/api/bulk/0", "/api/k3", "/api/k4", "/api/k5"};
	const gchar *w = "-w '%{http_code} %{num_connects}\\n'";
	GString *text;
	guint connections;

	if (fixture_skip(fx))
		return;
	script = g_strdup_printf(
	    "a=\"Authorization: Bearer $VENDOR_TOKEN\"; u=https://localhost:%u; "
	    "echo \"VENDOR_TOKEN=$VENDOR_TOKEN\"; seq 1 20000 | sha256sum | cut -d' ' -f1; "
	    "seq 1 20000 | curl -sS --max-time 30 -o /dev/null %s -H \"$a\" $u/api/k1 "
	    "--next -sS %s -H \"$a\" -H 'Transfer-Encoding: chunked' --data-binary @- "
	    "$u/api/bulk/0 --next -sS -o /dev/null %s -H \"$a\" -d x=1 $u/api/k3 "
	    "--next -sS -o /dev/null %s -H \"$a\" -I $u/api/k4 "
	    "--next -sS %s -H \"$a\" $u/api/k5",
	    fx->target.tls_port,
	    w,
	    w,
	    w,
	    w,
	    w);
	params = masking_params(fx, "mk", script, member);
	g_mutex_lock(&fx->target.lock);
	connections = fx->target.tls_connections;
	g_mutex_unlock(&fx->target.lock);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "mk");
	vendor = output_value(out, "VENDOR_TOKEN");
	g_assert_cmpstr(vendor, !=, VENDOR_TOKEN);
	sum = g_strndup(strchr(out, '\n') + 1, 64);
	/* one connection to the proxy, each answer whole (the digest of the chunked body) */
	expected = g_strdup_printf("%s\n200 1\n%s200 0\n200 0\n200 0\ntarget GET /api/k5200 0\n",
				   sum,
				   sum);
	g_assert_true(g_str_has_suffix(out, expected));
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		g_autofree gchar *head = target_head_for(&fx->target, paths[i]);
		g_autofree gchar *auth = NULL;

		g_assert_nonnull(head);
		auth = head_value(head, "authorization");
		g_assert_cmpstr(auth, ==, "Bearer " VENDOR_TOKEN);
	}
	/* and one to the destination */
	g_mutex_lock(&fx->target.lock);
	g_assert_cmpuint(fx->target.tls_connections, ==, connections + 1);
	g_mutex_unlock(&fx->target.lock);

	/* limited mode: the POST after a GET */
	text = g_string_new(member);
	g_string_replace(text, "\"mode\":\"full\"", "\"mode\":\"limited\"", 1);
	limited = g_string_free(text, FALSE);
	g_clear_pointer(&script, g_free);
	g_clear_pointer(&params, g_free);
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&reply, json_node_unref);
	script = g_strdup_printf(
	    "u=https://localhost:%u; curl -s --max-time 30 -o /dev/null %s $u/api/l1 "
	    "--next -s %s -d x=1 $u/api/l2 --next -s -o /dev/null %s $u/api/l3",
	    fx->target.tls_port,
	    w,
	    w,
	    w);
	params = masking_params(fx, "ml", script, limited);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "ml");
	/* the refusal ends the connection: the next request makes a new one */
	g_assert_cmpstr(out, ==, "200 1\nMethod not allowed in limited mode.403 0\n200 1\n");
	g_assert_null(target_head_for(&fx->target, "/api/l2"));
	l3 = target_head_for(&fx->target, "/api/l3");
	g_assert_nonnull(l3);
}

/*
 * A killed daemon's bundle directory (its lock held by nobody) is removed
 * when the next authority is made; a live one's, and a directory without a
 * lock, are left.
 */
static void
test_masking_stale(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *member = masking_member(fx, TRUE);
	g_autofree gchar *stale = g_build_filename(fx->target.dir, "execserverd-ca-stale1", NULL);
	g_autofree gchar *held = g_build_filename(fx->target.dir, "execserverd-ca-held1", NULL);
	g_autofree gchar *nolock = g_build_filename(fx->target.dir, "execserverd-ca-nolock", NULL);
	g_autofree gchar *stale_lock = g_build_filename(stale, "lock", NULL);
	g_autofree gchar *stale_pem = g_build_filename(stale, "ca-bundle-0.pem", NULL);
	g_autofree gchar *held_lock = g_build_filename(held, "lock", NULL);
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *ca = NULL;
	g_autoptr(JsonNode) reply = NULL;
	gint fd;

	if (fixture_skip(fx))
		return;
	g_assert_no_errno(g_mkdir(stale, 0755));
	g_assert_true(g_file_set_contents(stale_lock, "", 0, NULL));
	g_assert_true(g_file_set_contents(stale_pem, "x", 1, NULL));
	g_assert_no_errno(g_mkdir(held, 0755));
	fd = open(held_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	g_assert_cmpint(fd, >=, 0);
	g_assert_no_errno(flock(fd, LOCK_EX));
	g_assert_no_errno(g_mkdir(nolock, 0755));
	params = masking_params(fx, "st", "echo CA=$SSL_CERT_FILE", member);
	reply = fixture_call(fx, "process/start", params);
	g_assert_nonnull(esd_test_json_get(reply, "result"));
	out = fixture_output(fx, "st");
	ca = output_value(out, "CA");
	g_assert_true(g_str_has_prefix(ca, fx->target.dir));
	fx->ca_bundle = g_strdup(ca);
	g_assert_false(g_file_test(stale, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(held_lock, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(nolock, G_FILE_TEST_IS_DIR));
	close(fd);
	g_assert_no_errno(g_unlink(held_lock));
	g_assert_no_errno(g_rmdir(held));
	g_assert_no_errno(g_rmdir(nolock));
}

/* the same inside a sandbox whose only way out is its proxy */
static void
test_masking_managed(Fixture *fx, gconstpointer user_data)
{
	g_autofree gchar *proxy = NULL;
	g_autofree gchar *member = NULL;
	g_autofree gchar *script = NULL;
	g_autofree gchar *params = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *sandbox = sandbox_member("restricted");
	g_autoptr(JsonNode) reply = NULL;

	if (fixture_skip_sandbox(fx))
		return;
	proxy = masking_member(fx, TRUE);
	member = g_strdup_printf("%s,%s", proxy, sandbox);
	script = masking_script(fx);
	params = masking_params(fx, "s", script, member);
	reply = fixture_call(fx, "process/start", params);
	g_assert_cmpstr(esd_test_json_get_string(reply, "result.sandboxType"), ==, "linuxSeccomp");
	out = fixture_output(fx, "s");
	assert_masked(fx, out);
}

int
main(int argc, char **argv)
{
	const gchar *const transports[] = {"ws", "stdio"};

	/* the scripted SOCKS5 UDP client, run by the daemon as a command */
	if (argc > 1 && g_str_equal(argv[1], "--udp-client")) {
		gint status = udp_client(argc, argv);
		/* no exit handlers: a sanitizer's leak check cannot run in the sandbox */
		fflush(stdout);
		_exit(status);
	}
	self_exe = g_file_read_link("/proc/self/exe", NULL);
	g_test_init(&argc, &argv, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(transports); i++) {
#define ADD(name, func)                                                                            \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_autofree gchar *path_ =                                                          \
		    g_strdup_printf("/execserverd/network-proxy/%s/%s", transports[i], name);      \
		g_test_add(path_, Fixture, transports[i], fixture_setup, func, fixture_teardown);  \
	}                                                                                          \
	G_STMT_END
		ADD("capability", test_capability);
		ADD("invalid", test_invalid);
		ADD("env", test_env);
		ADD("allowed", test_allowed);
		ADD("after-exit", test_after_exit);
		ADD("blocked-local", test_blocked_local);
		ADD("patterns", test_patterns);
		ADD("resolves-local", test_resolves_local);
		ADD("limited", test_limited);
		ADD("connect", test_connect);
		ADD("bulk", test_bulk);
		ADD("socks", test_socks);
		ADD("socks-udp", test_socks_udp);
		ADD("socks-udp-decider", test_socks_udp_decider);
		ADD("socks-udp-limit", test_socks_udp_limit);
		ADD("socks-udp-other-process", test_socks_udp_other_process);
		ADD("sandboxed", test_sandboxed);
		ADD("decider", test_decider);
		ADD("review-domains", test_review_domains);
		ADD("decider-silent", test_decider_silent);
		ADD("lifecycle", test_lifecycle);
		ADD("other-process", test_other_process);
		ADD("other-process-after-member", test_other_process_after_member);
		ADD("managed", test_managed);
		ADD("enforce", test_enforce);
		ADD("managed-lifecycle", test_managed_lifecycle);
		ADD("managed-udp", test_managed_udp);
		ADD("unix-socket", test_unix_socket);
		ADD("plain-one-request", test_plain_one_request);
		ADD("managed-no-udp", test_managed_no_udp);
		ADD("masking", test_masking);
		ADD("masking-managed", test_masking_managed);
		ADD("masking-bulk", test_masking_bulk);
		ADD("masking-socks", test_masking_socks);
		ADD("masking-limited", test_masking_limited);
		ADD("masking-keepalive", test_masking_keepalive);
#undef ADD
	}
	g_test_add("/execserverd/network-proxy/stdio/upstream",
		   Fixture,
		   "upstream",
		   fixture_setup,
		   test_upstream,
		   fixture_teardown);
	g_test_add("/execserverd/network-proxy/stdio/upstream-http",
		   Fixture,
		   "upstream-http",
		   fixture_setup,
		   test_upstream,
		   fixture_teardown);
	g_test_add("/execserverd/network-proxy/ws/managed-client-vanishes",
		   Fixture,
		   "ws-grace",
		   fixture_setup,
		   test_managed_client_vanishes,
		   fixture_teardown);
	g_test_add("/execserverd/network-proxy/ws/masking-stale",
		   Fixture,
		   "ws-runtime",
		   fixture_setup,
		   test_masking_stale,
		   fixture_teardown);
	g_test_add("/execserverd/network-proxy/ws/managed-daemon-killed",
		   Fixture,
		   "ws",
		   fixture_setup,
		   test_managed_daemon_killed,
		   fixture_teardown);
	g_test_add("/execserverd/network-proxy/ws/daemon-killed",
		   Fixture,
		   "ws",
		   fixture_setup,
		   test_daemon_killed,
		   fixture_teardown);
	g_test_add("/execserverd/network-proxy/ws/client-vanishes",
		   Fixture,
		   "ws-grace",
		   fixture_setup,
		   test_client_vanishes,
		   fixture_teardown);
	return g_test_run();
}
