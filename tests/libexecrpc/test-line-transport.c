/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "erpc-error.h"
#include "erpc-line-transport.h"

#define TEST_MAX_MESSAGE_SIZE 1024
#define TEST_TIMEOUT_US	      (20 * G_USEC_PER_SEC)

typedef struct {
	gint peer_fd;
	GSocketConnection *connection;
	ErpcLineTransport *transport;
	GPtrArray *messages;	 /* of gchar* */
	GPtrArray *frame_errors; /* of gchar* */
	guint closed;
	guint messages_at_close;
	gboolean closed_with_error;
} Fixture;

static void
test_on_message(ErpcTransport *transport, gpointer data, guint64 len, gpointer user_data)
{
	Fixture *fixture = user_data;
	g_assert_null(memchr(data, '\n', len));
	g_ptr_array_add(fixture->messages, g_strndup(data, len));
}

static void
test_on_frame_error(ErpcTransport *transport, GError *error, gpointer user_data)
{
	Fixture *fixture = user_data;
	g_assert_error(error, ERPC_ERROR, ERPC_ERROR_PARSE);
	g_ptr_array_add(fixture->frame_errors, g_strdup(error->message));
}

static void
test_on_closed(ErpcTransport *transport, GError *error, gpointer user_data)
{
	Fixture *fixture = user_data;
	fixture->closed++;
	fixture->messages_at_close = fixture->messages->len;
	fixture->closed_with_error = error != NULL;
}

static void
fixture_setup(Fixture *fixture, gconstpointer user_data)
{
	gint fds[2] = {-1, -1};
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = NULL;

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
	socket = g_socket_new_from_fd(fds[0], &error);
	g_assert_no_error(error);
	fixture->peer_fd = fds[1];
	fixture->connection = g_socket_connection_factory_create_connection(socket);
	fixture->messages = g_ptr_array_new_with_free_func(g_free);
	fixture->frame_errors = g_ptr_array_new_with_free_func(g_free);
	fixture->closed = 0;
	fixture->messages_at_close = 0;
	fixture->closed_with_error = FALSE;
	fixture->transport =
	    erpc_line_transport_new(g_io_stream_get_input_stream(G_IO_STREAM(fixture->connection)),
				    g_io_stream_get_output_stream(G_IO_STREAM(fixture->connection)),
				    "test",
				    TEST_MAX_MESSAGE_SIZE);
	g_assert_nonnull(fixture->transport);
	g_signal_connect(fixture->transport, "message", G_CALLBACK(test_on_message), fixture);
	g_signal_connect(fixture->transport,
			 "frame-error",
			 G_CALLBACK(test_on_frame_error),
			 fixture);
	g_signal_connect(fixture->transport, "closed", G_CALLBACK(test_on_closed), fixture);
}

static void
fixture_teardown(Fixture *fixture, gconstpointer user_data)
{
	g_signal_handlers_disconnect_by_data(fixture->transport, fixture);
	g_clear_object(&fixture->transport);
	g_io_stream_close(G_IO_STREAM(fixture->connection), NULL, NULL);
	g_clear_object(&fixture->connection);
	if (fixture->peer_fd >= 0)
		close(fixture->peer_fd);
	g_ptr_array_unref(fixture->messages);
	g_ptr_array_unref(fixture->frame_errors);
	/* nothing may stay attached to the context */
	while (g_main_context_iteration(NULL, FALSE))
		;
}

/* iterates the default context until @cond holds */
#define WAIT_UNTIL(cond)                                                                           \
	G_STMT_START                                                                               \
	{                                                                                          \
		gint64 deadline_ = g_get_monotonic_time() + TEST_TIMEOUT_US;                       \
		while (!(cond)) {                                                                  \
			if (g_get_monotonic_time() > deadline_)                                    \
				g_error("timed out waiting for %s", #cond);                        \
			if (!g_main_context_iteration(NULL, FALSE))                                \
				g_usleep(1000);                                                    \
		}                                                                                  \
	}                                                                                          \
	G_STMT_END

/* lets whatever is pending be dispatched */
static void
test_drain(void)
{
	gint64 deadline = g_get_monotonic_time() + 50 * 1000;
	while (g_get_monotonic_time() < deadline) {
		if (!g_main_context_iteration(NULL, FALSE))
			g_usleep(1000);
	}
}

static void
test_peer_write(Fixture *fixture, const gchar *data, gsize len)
{
	while (len > 0) {
		/* no SIGPIPE when the transport side is gone */
		gssize n = send(fixture->peer_fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		g_assert_cmpint(n, >, 0);
		data += n;
		len -= (gsize)n;
	}
}

static void
test_peer_write_str(Fixture *fixture, const gchar *data)
{
	test_peer_write(fixture, data, strlen(data));
}

static void
test_assert_messages(Fixture *fixture, const gchar *const *expected)
{
	guint n = g_strv_length((gchar **)expected);
	g_assert_cmpuint(fixture->messages->len, ==, n);
	for (guint i = 0; i < n; i++)
		g_assert_cmpstr(g_ptr_array_index(fixture->messages, i), ==, expected[i]);
}

static void
test_line_split(Fixture *fixture, gconstpointer user_data)
{
	const gchar *expected[] = {"{\"a\":1}", "{\"b\":2}", NULL};

	test_peer_write_str(fixture, "{\"a\"");
	test_drain();
	g_assert_cmpuint(fixture->messages->len, ==, 0);
	test_peer_write_str(fixture, ":1");
	test_drain();
	g_assert_cmpuint(fixture->messages->len, ==, 0);
	test_peer_write_str(fixture, "}\n{\"b\":");
	WAIT_UNTIL(fixture->messages->len == 1);
	test_peer_write_str(fixture, "2}");
	test_drain();
	g_assert_cmpuint(fixture->messages->len, ==, 1);
	test_peer_write_str(fixture, "\n");
	WAIT_UNTIL(fixture->messages->len == 2);
	test_assert_messages(fixture, expected);
	g_assert_cmpuint(fixture->frame_errors->len, ==, 0);
	g_assert_cmpuint(fixture->closed, ==, 0);
}

static void
test_line_byte_by_byte(Fixture *fixture, gconstpointer user_data)
{
	const gchar *data = "{\"id\":1,\"method\":\"m\"}\r\n";
	const gchar *expected[] = {"{\"id\":1,\"method\":\"m\"}", NULL};

	for (const gchar *p = data; *p != '\0'; p++) {
		test_peer_write(fixture, p, 1);
		while (g_main_context_iteration(NULL, FALSE))
			;
	}
	WAIT_UNTIL(fixture->messages->len == 1);
	test_assert_messages(fixture, expected);
}

static void
test_line_crlf(Fixture *fixture, gconstpointer user_data)
{
	const gchar *expected[] = {"{\"a\":1}", "{\"b\":2}", "x\r", NULL};

	/* only the last \r of a line is dropped */
	test_peer_write_str(fixture, "{\"a\":1}\r\n{\"b\":2}\r\nx\r\r\n");
	WAIT_UNTIL(fixture->messages->len == 3);
	test_assert_messages(fixture, expected);
}

static void
test_line_blank(Fixture *fixture, gconstpointer user_data)
{
	const gchar *expected[] = {"{\"a\":1}", " {\"b\":2} ", NULL};

	test_peer_write_str(fixture, "\n\n  \n\t\r\n\r\n{\"a\":1}\n \t \n {\"b\":2} \n\n");
	WAIT_UNTIL(fixture->messages->len == 2);
	test_drain();
	test_assert_messages(fixture, expected);
	g_assert_cmpuint(fixture->frame_errors->len, ==, 0);
}

static void
test_line_many(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GString) data = g_string_new(NULL);
	const guint n = 500;

	for (guint i = 0; i < n; i++)
		g_string_append_printf(data, "{\"id\":%u,\"method\":\"m\"}\n", i);
	test_peer_write(fixture, data->str, data->len);
	WAIT_UNTIL(fixture->messages->len == n);
	for (guint i = 0; i < n; i++) {
		g_autofree gchar *expected = g_strdup_printf("{\"id\":%u,\"method\":\"m\"}", i);
		g_assert_cmpstr(g_ptr_array_index(fixture->messages, i), ==, expected);
	}
}

static void
test_line_at_limit(Fixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *line = g_strnfill(TEST_MAX_MESSAGE_SIZE, 'x');

	test_peer_write(fixture, line, TEST_MAX_MESSAGE_SIZE);
	test_peer_write_str(fixture, "\n");
	WAIT_UNTIL(fixture->messages->len == 1);
	g_assert_cmpstr(g_ptr_array_index(fixture->messages, 0), ==, line);
	g_assert_cmpuint(fixture->frame_errors->len, ==, 0);
}

/* the CR of a CRLF line end does not count against the limit; a last byte that is no CR does */
static void
test_line_at_limit_crlf(Fixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *line = g_strnfill(TEST_MAX_MESSAGE_SIZE, 'x');

	test_peer_write(fixture, line, TEST_MAX_MESSAGE_SIZE);
	test_peer_write_str(fixture, "\r\n");
	test_peer_write(fixture, line, TEST_MAX_MESSAGE_SIZE);
	test_peer_write_str(fixture, "x\n");
	WAIT_UNTIL(fixture->messages->len == 1 && fixture->frame_errors->len == 1);
	g_assert_cmpstr(g_ptr_array_index(fixture->messages, 0), ==, line);
	g_assert_cmpstr(g_ptr_array_index(fixture->frame_errors, 0),
			==,
			"message of more than 1025 bytes exceeds the limit of 1024 bytes");
}

static void
test_line_oversized(Fixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *line = g_strnfill(2000, 'x');
	const gchar *expected[] = {"{\"before\":1}", "{\"after\":1}", NULL};

	test_peer_write_str(fixture, "{\"before\":1}\n");
	test_peer_write(fixture, line, 2000);
	test_peer_write_str(fixture, "\n{\"after\":1}\n");
	WAIT_UNTIL(fixture->messages->len == 2);
	test_assert_messages(fixture, expected);
	g_assert_cmpuint(fixture->frame_errors->len, ==, 1);
	g_assert_cmpstr(g_ptr_array_index(fixture->frame_errors, 0),
			==,
			"message of more than 2000 bytes exceeds the limit of 1024 bytes");
	g_assert_cmpuint(fixture->closed, ==, 0);
}

static void
test_line_oversized_split(Fixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *chunk = g_strnfill(800, 'y');
	const gchar *expected[] = {"{\"after\":2}", NULL};
	const gchar *msg;

	/* the line crosses the limit in the second read, ends in the fourth */
	test_peer_write(fixture, chunk, 800);
	test_drain();
	test_peer_write(fixture, chunk, 800);
	test_drain();
	test_peer_write(fixture, chunk, 800);
	test_drain();
	g_assert_cmpuint(fixture->frame_errors->len, ==, 0);
	test_peer_write_str(fixture, "zz\n{\"after\":2}\n");
	WAIT_UNTIL(fixture->messages->len == 1);
	test_assert_messages(fixture, expected);
	g_assert_cmpuint(fixture->frame_errors->len, ==, 1);
	msg = g_ptr_array_index(fixture->frame_errors, 0);
	g_assert_true(g_str_has_prefix(msg, "message of more than "));
	g_assert_true(g_str_has_suffix(msg, " bytes exceeds the limit of 1024 bytes"));
}

static void
test_line_eof_final_line(Fixture *fixture, gconstpointer user_data)
{
	const gchar *expected[] = {"{\"a\":1}", "{\"b\":2}", NULL};

	test_peer_write_str(fixture, "{\"a\":1}\n{\"b\":2}");
	WAIT_UNTIL(fixture->messages->len == 1);
	g_assert_cmpint(shutdown(fixture->peer_fd, SHUT_WR), ==, 0);
	WAIT_UNTIL(fixture->closed > 0);
	test_drain();
	test_assert_messages(fixture, expected);
	/* the last line came before "closed", and "closed" came once */
	g_assert_cmpuint(fixture->messages_at_close, ==, 2);
	g_assert_cmpuint(fixture->closed, ==, 1);
	g_assert_false(fixture->closed_with_error);
	g_assert_true(erpc_transport_is_closed(ERPC_TRANSPORT(fixture->transport)));
}

static void
test_line_eof_blank(Fixture *fixture, gconstpointer user_data)
{
	test_peer_write_str(fixture, "{\"a\":1}\n  ");
	g_assert_cmpint(shutdown(fixture->peer_fd, SHUT_WR), ==, 0);
	WAIT_UNTIL(fixture->closed > 0);
	g_assert_cmpuint(fixture->messages->len, ==, 1);
	g_assert_cmpuint(fixture->messages_at_close, ==, 1);
}

static void
test_line_peer_closed(Fixture *fixture, gconstpointer user_data)
{
	close(fixture->peer_fd);
	fixture->peer_fd = -1;
	WAIT_UNTIL(fixture->closed > 0);
	test_drain();
	g_assert_cmpuint(fixture->closed, ==, 1);
	g_assert_cmpuint(fixture->messages->len, ==, 0);
}

/* reads from the peer until @len bytes arrived, iterating the context */
static GString *
test_peer_read(Fixture *fixture, gsize len, gsize chunk, gulong delay_us)
{
	GString *received = g_string_sized_new(len);
	g_autofree gchar *buf = g_malloc(chunk);
	gint64 deadline = g_get_monotonic_time() + TEST_TIMEOUT_US;
	gint flags = fcntl(fixture->peer_fd, F_GETFL);

	g_assert_cmpint(fcntl(fixture->peer_fd, F_SETFL, flags | O_NONBLOCK), ==, 0);
	while (received->len < len) {
		gssize n;

		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		while (g_main_context_iteration(NULL, FALSE))
			;
		n = read(fixture->peer_fd, buf, chunk);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			g_usleep(1000);
			continue;
		}
		g_assert_cmpint(n, >, 0);
		g_string_append_len(received, buf, n);
		if (delay_us > 0)
			g_usleep(delay_us);
	}
	g_assert_cmpint(fcntl(fixture->peer_fd, F_SETFL, flags), ==, 0);
	return received;
}

static void
test_line_send(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GBytes) first = g_bytes_new_static("{\"id\":1,\"result\":{}}", 20);
	g_autoptr(GBytes) second = g_bytes_new_static("{\"method\":\"n\"}", 14);
	g_autoptr(GBytes) empty = g_bytes_new_static("", 0);
	g_autoptr(GString) received = NULL;
	const gchar *expected = "{\"id\":1,\"result\":{}}\n{\"method\":\"n\"}\n\n";

	erpc_transport_send(ERPC_TRANSPORT(fixture->transport), first);
	erpc_transport_send(ERPC_TRANSPORT(fixture->transport), second);
	erpc_transport_send(ERPC_TRANSPORT(fixture->transport), empty);
	received = test_peer_read(fixture, strlen(expected), 4096, 0);
	g_assert_cmpstr(received->str, ==, expected);
	WAIT_UNTIL(erpc_transport_get_queued_bytes(ERPC_TRANSPORT(fixture->transport)) == 0);
}

static void
test_line_send_large(Fixture *fixture, gconstpointer user_data)
{
	const guint n_messages = 64;
	const gsize message_size = 64 * 1024;
	g_autoptr(GString) expected = g_string_new(NULL);
	g_autoptr(GString) received = NULL;
	gsize queued;

	for (guint i = 0; i < n_messages; i++) {
		g_autofree gchar *body = g_strnfill(message_size, (gchar)('a' + i % 26));
		g_autoptr(GBytes) bytes = NULL;

		/* number every message so that reordering shows */
		memcpy(body, &"0123456789"[i % 10], 1);
		bytes = g_bytes_new(body, message_size);
		erpc_transport_send(ERPC_TRANSPORT(fixture->transport), bytes);
		g_string_append_len(expected, body, (gssize)message_size);
		g_string_append_c(expected, '\n');
	}
	/* the socket buffer is far smaller than 4 MiB: most of it is queued */
	queued = erpc_transport_get_queued_bytes(ERPC_TRANSPORT(fixture->transport));
	g_assert_cmpuint(queued, >, 0);
	g_assert_cmpuint(queued, <=, expected->len);

	/* a slow reader: small reads with pauses */
	received = test_peer_read(fixture, expected->len, 32 * 1024, 200);
	g_assert_cmpuint(received->len, ==, expected->len);
	g_assert_true(memcmp(received->str, expected->str, expected->len) == 0);
	WAIT_UNTIL(erpc_transport_get_queued_bytes(ERPC_TRANSPORT(fixture->transport)) == 0);
	g_assert_cmpuint(fixture->closed, ==, 0);
}

static void
test_line_close(Fixture *fixture, gconstpointer user_data)
{
	g_autoptr(GBytes) last = g_bytes_new_static("{\"id\":9,\"result\":null}", 22);
	g_autoptr(GBytes) dropped = g_bytes_new_static("{\"dropped\":true}", 16);
	g_autoptr(GString) received = NULL;
	gchar buf[64];

	erpc_transport_send(ERPC_TRANSPORT(fixture->transport), last);
	erpc_transport_close(ERPC_TRANSPORT(fixture->transport), FALSE);
	g_assert_cmpuint(fixture->closed, ==, 1);
	g_assert_false(fixture->closed_with_error);
	g_assert_true(erpc_transport_is_closed(ERPC_TRANSPORT(fixture->transport)));

	/* sends after close are dropped; a second close does nothing */
	erpc_transport_send(ERPC_TRANSPORT(fixture->transport), dropped);
	erpc_transport_close(ERPC_TRANSPORT(fixture->transport), TRUE);
	g_assert_cmpuint(fixture->closed, ==, 1);
	g_assert_cmpuint(erpc_transport_get_queued_bytes(ERPC_TRANSPORT(fixture->transport)),
			 ==,
			 0);

	/* what was queued before the close still arrives */
	received = test_peer_read(fixture, 23, sizeof(buf), 0);
	g_assert_cmpstr(received->str, ==, "{\"id\":9,\"result\":null}\n");

	/* nothing is delivered after the close */
	(void)send(fixture->peer_fd, "{\"late\":1}\n", 11, MSG_NOSIGNAL);
	test_drain();
	g_assert_cmpuint(fixture->messages->len, ==, 0);
}

static void
test_line_peer_name(Fixture *fixture, gconstpointer user_data)
{
	g_autofree gchar *peer = NULL;

	g_assert_cmpstr(erpc_transport_get_peer(ERPC_TRANSPORT(fixture->transport)), ==, "test");
	g_object_get(fixture->transport, "peer", &peer, NULL);
	g_assert_cmpstr(peer, ==, "test");
	g_assert_false(erpc_transport_is_closed(ERPC_TRANSPORT(fixture->transport)));
}

static void
test_add(const gchar *name, void (*func)(Fixture *, gconstpointer))
{
	g_autofree gchar *path = g_strdup_printf("/execserverd/libexecrpc/line-transport/%s", name);
	g_test_add(path, Fixture, NULL, fixture_setup, func, fixture_teardown);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	test_add("split", test_line_split);
	test_add("byte-by-byte", test_line_byte_by_byte);
	test_add("crlf", test_line_crlf);
	test_add("blank", test_line_blank);
	test_add("many", test_line_many);
	test_add("at-limit", test_line_at_limit);
	test_add("at-limit-crlf", test_line_at_limit_crlf);
	test_add("oversized", test_line_oversized);
	test_add("oversized-split", test_line_oversized_split);
	test_add("eof-final-line", test_line_eof_final_line);
	test_add("eof-blank", test_line_eof_blank);
	test_add("peer-closed", test_line_peer_closed);
	test_add("send", test_line_send);
	test_add("send-large", test_line_send_large);
	test_add("close", test_line_close);
	test_add("peer-name", test_line_peer_name);

	return g_test_run();
}
