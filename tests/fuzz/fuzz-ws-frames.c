/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the WebSocket framing of EsdWsTransport (RFC 6455, server side):
 * every byte a client sends after the upgrade. The first three bytes of an
 * input set the run up, the rest is what the client sends:
 *
 *   byte 0, bits 0-1: the message size limit: 125, 1000, 70000 or 128 MiB
 *           bits 2-3: the read sizes: the daemon's (a 256 KiB read block,
 *                     frames of 64 KiB and more read straight into their
 *                     message 4 MiB at a time), or small ones that take the
 *                     same paths with small inputs (esd_ws_transport_set_block_sizes())
 *           bit 4:    the stream is wrapped, as TLS is: watched by its
 *                     pollable source instead of the descriptor
 *           bit 5:    the client reads what comes back only at the end,
 *                     through a small send buffer, so that replies queue up
 *           bits 6-7: 1 the upper layer closes, 2 it aborts, after the Nth message
 *   byte 1, bits 0-3: N
 *           bits 4-7: how the input is cut into writes: 0 not at all, else
 *                     pieces of up to 1, 2, 3, 5, ... 256 KiB bytes
 *   byte 2: the seed of the cut positions
 *
 * The bytes go through a socket pair into a real transport, one piece at a
 * time with the main loop run dry in between, so that frames arrive cut at
 * every place. Like a connection, the harness answers every message with a
 * text frame holding it (one over the limit with "E") and drops its
 * reference when the transport has closed. Besides memory errors it aborts
 * when the messages delivered, the frames sent back or the way the
 * connection ended differ from what fuzz_model() makes of the whole input
 * at once, by a plain reading of RFC 6455; when the transport logs a
 * warning; and when it neither ends nor waits for input after the client
 * has stopped sending.
 *
 * Text messages are not checked for UTF-8 here: the transport hands them
 * over like binary ones and the JSON parser answers what is not UTF-8.
 */

#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "esd-ws-transport-private.h"

#define FUZZ_MAX_INPUT	    (1024 * 1024)
#define FUZZ_MAX_ITERATIONS 100000
/* what fits in the socket before the transport reads */
#define FUZZ_MAX_FIRST_PIECE  (32 * 1024)
#define FUZZ_DELIVERY_ERROR   0xff /* a frame error in the list of deliveries */
#define FUZZ_CLOSE_GOING_AWAY 1001

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef enum {
	FUZZ_END_EOF,	     /* the client stopped sending: the connection just ends */
	FUZZ_END_PROTOCOL,   /* dropped for a protocol violation */
	FUZZ_END_CLOSE_PEER, /* the client's Close, answered */
	FUZZ_END_CLOSE_US,   /* the upper layer closed */
	FUZZ_END_ABORT,	     /* the upper layer aborted */
} FuzzEnd;

static const gchar *const fuzz_end_names[] = {"end of input",
					      "protocol error",
					      "the client's Close",
					      "closed",
					      "aborted"};

typedef struct {
	guint8 opcode; /* or FUZZ_DELIVERY_ERROR */
	GBytes *payload;
} FuzzFrame;

typedef struct {
	GPtrArray *deliveries; /* of FuzzFrame: messages and frame errors */
	GByteArray *sent;      /* the frames the server sends, as they go on the wire */
	FuzzEnd end;
} FuzzTrace;

typedef struct {
	EsdWsTransport *transport; /* NULL once it has closed */
	FuzzTrace real;
	guint close_after;
	gboolean close_abort;
	gboolean closed;
	GError *closed_error;
} FuzzRun;

static void
fuzz_frame_free(FuzzFrame *frame)
{
	g_bytes_unref(frame->payload);
	g_free(frame);
}

static void
fuzz_trace_init(FuzzTrace *trace)
{
	trace->deliveries = g_ptr_array_new_with_free_func((GDestroyNotify)fuzz_frame_free);
	trace->sent = g_byte_array_new();
	trace->end = FUZZ_END_EOF;
}

static void
fuzz_trace_clear(FuzzTrace *trace)
{
	g_ptr_array_unref(trace->deliveries);
	g_byte_array_unref(trace->sent);
}

static void
fuzz_log_cb(const gchar *log_domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
	if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0) {
		fprintf(stderr, "fuzz-ws-frames: logged: %s\n", message);
		abort();
	}
}

G_GNUC_NORETURN G_GNUC_PRINTF(1, 2) static void fuzz_fail(const gchar *format, ...)
{
	va_list args;
	va_start(args, format);
	fprintf(stderr, "fuzz-ws-frames: ");
	vfprintf(stderr, format, args);
	fprintf(stderr, "\n");
	va_end(args);
	abort();
}

/* a frame as the server writes it: FIN, unmasked, the shortest length */
static void
fuzz_append_server_frame(GByteArray *out, guint8 opcode, const guint8 *payload, gsize len)
{
	guint8 header[10];
	gsize header_len = 2;

	header[0] = 0x80 | opcode;
	if (len < 126) {
		header[1] = (guint8)len;
	} else if (len <= G_MAXUINT16) {
		header[1] = 126;
		header[2] = (guint8)(len >> 8);
		header[3] = (guint8)len;
		header_len = 4;
	} else {
		header[1] = 127;
		for (guint i = 0; i < 8; i++)
			header[2 + i] = (guint8)((guint64)len >> (56 - 8 * i));
		header_len = 10;
	}
	g_byte_array_append(out, header, (guint)header_len);
	g_byte_array_append(out, payload, (guint)len);
}

static void
fuzz_append_delivery(FuzzTrace *trace, guint8 kind, const guint8 *data, gsize len)
{
	FuzzFrame *frame = g_new0(FuzzFrame, 1);
	frame->opcode = kind;
	frame->payload = g_bytes_new(data, len);
	g_ptr_array_add(trace->deliveries, frame);
}

/* what a Close frame from the client is answered with */
static GBytes *
fuzz_close_reply(const guint8 *payload, gsize len)
{
	static const guint8 protocol_error[2] = {0x03, 0xea};  /* 1002 */
	static const guint8 invalid_payload[2] = {0x03, 0xef}; /* 1007 */
	guint code;

	if (len == 0)
		return g_bytes_new(NULL, 0);
	if (len == 1)
		return g_bytes_new_static(protocol_error, 2);
	code = (guint)payload[0] << 8 | payload[1];
	/* RFC 6455 7.4.1 and the IANA registry: what a Close frame may carry */
	if (!((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
	      (code >= 3000 && code <= 4999)))
		return g_bytes_new_static(protocol_error, 2);
	if (!g_utf8_validate_len((const gchar *)payload + 2, len - 2, NULL))
		return g_bytes_new_static(invalid_payload, 2);
	return g_bytes_new(payload, 2);
}

/*
 * RFC 6455 applied to the whole input at once: the messages a server
 * delivers, what it sends back and how the connection ends. A message of
 * more than @max_message bytes is delivered as a frame error and the
 * connection goes on; the upper layer answers each delivery with a text
 * frame and, when @close_after is not 0, closes after that many.
 */
static void
fuzz_model(const guint8 *data,
	   gsize len,
	   gsize max_message,
	   guint close_after,
	   gboolean close_abort,
	   FuzzTrace *trace)
{
	g_autoptr(GByteArray) message = g_byte_array_new();
	gboolean in_message = FALSE;
	gboolean discarding = FALSE;
	guint delivered = 0;
	gsize pos = 0;

	trace->end = FUZZ_END_EOF;
	for (;;) {
		const guint8 *p = data + pos;
		gsize avail = len - pos;
		gsize header_len = 2;
		guint64 payload_len;
		guint8 opcode;
		gboolean fin;
		gboolean control;
		gboolean done = FALSE;

		if (avail < 2)
			return;
		fin = (p[0] & 0x80) != 0;
		opcode = p[0] & 0x0f;
		control = (opcode & 0x08) != 0;
		/* no extension was negotiated; clients mask (5.2, 5.3) */
		if ((p[0] & 0x70) != 0 || (p[1] & 0x80) == 0) {
			trace->end = FUZZ_END_PROTOCOL;
			return;
		}
		payload_len = p[1] & 0x7f;
		if (payload_len == 126) {
			if (avail < 4)
				return;
			payload_len = (guint64)p[2] << 8 | p[3];
			header_len = 4;
		} else if (payload_len == 127) {
			if (avail < 10)
				return;
			payload_len = 0;
			for (guint i = 0; i < 8; i++)
				payload_len = payload_len << 8 | p[2 + i];
			header_len = 10;
			if ((payload_len >> 63) != 0) {
				trace->end = FUZZ_END_PROTOCOL;
				return;
			}
		}
		header_len += 4;
		/* reserved opcodes (5.2), control frames (5.5), fragmentation (5.4) */
		if ((opcode > 0x2 && opcode < 0x8) || opcode > 0xa ||
		    (control && (!fin || payload_len > 125)) ||
		    (!control && (opcode == 0x0) != in_message)) {
			trace->end = FUZZ_END_PROTOCOL;
			return;
		}
		if (!control && !discarding &&
		    payload_len > max_message - MIN(message->len, max_message)) {
			discarding = TRUE;
			g_byte_array_set_size(message, 0);
		}
		if (avail < header_len)
			return;
		in_message = in_message || !control;
		if (avail - header_len < payload_len)
			return;
		if (!control && discarding) {
			pos += header_len + (gsize)payload_len;
			if (!fin)
				continue;
			fuzz_append_delivery(trace, FUZZ_DELIVERY_ERROR, NULL, 0);
			fuzz_append_server_frame(trace->sent, 0x1, (const guint8 *)"E", 1);
			in_message = FALSE;
			discarding = FALSE;
			done = TRUE;
		} else {
			g_autofree guint8 *payload = g_memdup2(p + header_len, (gsize)payload_len);
			for (gsize i = 0; i < payload_len; i++)
				payload[i] ^= p[header_len - 4 + (i & 3)];
			pos += header_len + (gsize)payload_len;
			if (opcode == 0x9) {
				fuzz_append_server_frame(trace->sent,
							 0xa,
							 payload,
							 (gsize)payload_len);
				continue;
			}
			if (opcode == 0x8) {
				g_autoptr(GBytes) reply =
				    fuzz_close_reply(payload, (gsize)payload_len);
				gsize reply_len = 0;
				const guint8 *reply_data = g_bytes_get_data(reply, &reply_len);
				fuzz_append_server_frame(trace->sent, 0x8, reply_data, reply_len);
				trace->end = FUZZ_END_CLOSE_PEER;
				return;
			}
			if (control)
				continue;
			g_byte_array_append(message, payload, (guint)payload_len);
			if (!fin)
				continue;
			fuzz_append_delivery(trace, 0x1, message->data, message->len);
			fuzz_append_server_frame(trace->sent, 0x1, message->data, message->len);
			g_byte_array_set_size(message, 0);
			in_message = FALSE;
			done = TRUE;
		}
		if (done && ++delivered == close_after) {
			if (close_abort) {
				trace->end = FUZZ_END_ABORT;
			} else {
				const guint8 going_away[2] = {FUZZ_CLOSE_GOING_AWAY >> 8,
							      FUZZ_CLOSE_GOING_AWAY & 0xff};
				fuzz_append_server_frame(trace->sent, 0x8, going_away, 2);
				trace->end = FUZZ_END_CLOSE_US;
			}
			return;
		}
	}
}

static void
fuzz_delivered(FuzzRun *run)
{
	if (run->close_after == 0 || run->real.deliveries->len != run->close_after)
		return;
	erpc_transport_close(ERPC_TRANSPORT(run->transport), run->close_abort);
}

static void
fuzz_message_cb(ErpcTransport *transport, gpointer data, guint64 len, FuzzRun *run)
{
	g_autoptr(GBytes) echo = g_bytes_new(data, (gsize)len);

	if (run->closed)
		fuzz_fail("a message after the transport closed");
	fuzz_append_delivery(&run->real, 0x1, data, (gsize)len);
	erpc_transport_send(transport, echo);
	fuzz_delivered(run);
}

static void
fuzz_frame_error_cb(ErpcTransport *transport, const GError *error, FuzzRun *run)
{
	g_autoptr(GBytes) echo = g_bytes_new_static("E", 1);

	if (run->closed)
		fuzz_fail("a frame error after the transport closed");
	if (!g_error_matches(error, ERPC_ERROR, ERPC_ERROR_PARSE) ||
	    !g_utf8_validate(error->message, -1, NULL) ||
	    strstr(error->message, "exceeds the limit") == NULL)
		fuzz_fail("unexpected frame error: %s", error->message);
	fuzz_append_delivery(&run->real, FUZZ_DELIVERY_ERROR, NULL, 0);
	erpc_transport_send(transport, echo);
	fuzz_delivered(run);
}

static void
fuzz_closed_cb(ErpcTransport *transport, const GError *error, FuzzRun *run)
{
	if (run->closed)
		fuzz_fail("closed twice");
	run->closed = TRUE;
	run->closed_error = error != NULL ? g_error_copy(error) : NULL;
	/* as a connection does: the transport may go now */
	g_signal_handlers_disconnect_by_data(transport, run);
	g_clear_object(&run->transport);
}

static guint32
fuzz_random(guint32 *state)
{
	guint32 x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* reads what the server sent, without waiting; FALSE at its end */
static gboolean
fuzz_read_client(gint fd, GByteArray *out)
{
	for (;;) {
		guint8 buf[65536];
		gssize n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			g_byte_array_append(out, buf, (guint)n);
			continue;
		}
		if (n == 0)
			return FALSE;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return TRUE;
		return FALSE;
	}
}

/* with reads of one byte, one dispatch per byte of input */
static gsize fuzz_max_iterations = FUZZ_MAX_ITERATIONS;

/* dispatches until nothing is ready; returns whether anything was */
static gboolean
fuzz_run_dry(void)
{
	gsize i = 0;
	while (g_main_context_iteration(NULL, FALSE)) {
		if (++i > fuzz_max_iterations)
			fuzz_fail("the main loop never runs dry");
	}
	return i > 0;
}

/* sends @len bytes unless the server stops reading; FALSE then */
static gboolean
fuzz_write(gint fd, const guint8 *data, gsize len, gboolean lazy, GByteArray *received)
{
	guint stalls = 0;

	while (len > 0) {
		gssize n = send(fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			data += n;
			len -= (gsize)n;
			stalls = 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return FALSE;
		/* the socket is full: the transport reads, or no longer does */
		if (!fuzz_run_dry() && !lazy && !fuzz_read_client(fd, received))
			return FALSE;
		if (++stalls > 100)
			return FALSE;
	}
	return TRUE;
}

static GIOStream *
fuzz_server_stream(gint fd, gboolean wrapped, GSocket **socket_out)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = g_socket_new_from_fd(fd, &error);
	g_autoptr(GSocketConnection) connection = NULL;

	if (socket == NULL)
		fuzz_fail("socket: %s", error->message);
	connection = g_socket_connection_factory_create_connection(socket);
	*socket_out = g_steal_pointer(&socket);
	if (!wrapped)
		return G_IO_STREAM(g_steal_pointer(&connection));
	/* not a GSocketConnection: the transport watches the pollable stream */
	return g_simple_io_stream_new(g_io_stream_get_input_stream(G_IO_STREAM(connection)),
				      g_io_stream_get_output_stream(G_IO_STREAM(connection)));
}

static void
fuzz_check(FuzzRun *run, FuzzTrace *expected, gsize max_message)
{
	gboolean whole;

	if (run->real.deliveries->len != expected->deliveries->len)
		fuzz_fail("%u messages delivered, %u expected (limit %" G_GSIZE_FORMAT ")",
			  run->real.deliveries->len,
			  expected->deliveries->len,
			  max_message);
	for (guint i = 0; i < expected->deliveries->len; i++) {
		FuzzFrame *a = g_ptr_array_index(run->real.deliveries, i);
		FuzzFrame *b = g_ptr_array_index(expected->deliveries, i);
		if (a->opcode != b->opcode || !g_bytes_equal(a->payload, b->payload))
			fuzz_fail("delivery %u: %s of %" G_GSIZE_FORMAT
				  " bytes, %s of %" G_GSIZE_FORMAT " bytes expected",
				  i,
				  a->opcode == FUZZ_DELIVERY_ERROR ? "frame error" : "message",
				  g_bytes_get_size(a->payload),
				  b->opcode == FUZZ_DELIVERY_ERROR ? "frame error" : "message",
				  g_bytes_get_size(b->payload));
	}
	if (!run->closed)
		fuzz_fail("the transport never closed (expected: %s)",
			  fuzz_end_names[expected->end]);
	if ((expected->end == FUZZ_END_PROTOCOL) !=
	    g_error_matches(run->closed_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
		fuzz_fail("closed with \"%s\", expected: %s",
			  run->closed_error != NULL ? run->closed_error->message : "no error",
			  fuzz_end_names[expected->end]);
	if (expected->end != FUZZ_END_PROTOCOL && run->closed_error != NULL)
		fuzz_fail("closed with \"%s\", expected: %s",
			  run->closed_error->message,
			  fuzz_end_names[expected->end]);
	/* a connection that is dropped may not have sent all; one that is closed must have */
	whole = expected->end == FUZZ_END_CLOSE_PEER;
	if (run->real.sent->len > expected->sent->len ||
	    (whole && run->real.sent->len != expected->sent->len) ||
	    (run->real.sent->len > 0 &&
	     memcmp(run->real.sent->data, expected->sent->data, run->real.sent->len) != 0)) {
		gsize at = 0;
		while (at < MIN(run->real.sent->len, expected->sent->len) &&
		       run->real.sent->data[at] == expected->sent->data[at])
			at++;
		fuzz_fail("sent %u bytes, %u expected (%s), first difference at %" G_GSIZE_FORMAT,
			  run->real.sent->len,
			  expected->sent->len,
			  fuzz_end_names[expected->end],
			  at);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const gsize max_messages[] = {125, 1000, 70000, 128 * 1024 * 1024};
	static const gsize blocks[][3] = {
	    {256 * 1024, 64 * 1024, 4 * 1024 * 1024}, /* the daemon's */
	    {1, 1, 1},
	    {7, 126, 5},
	    {512, 200, 300},
	};
	static const gsize pieces[] =
	    {1, 2, 3, 5, 8, 13, 21, 64, 128, 512, 1024, 4096, 16384, 65536, 262144};
	static gboolean initialized = FALSE;
	FuzzRun run = {NULL};
	FuzzTrace expected;
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GIOStream) stream = NULL;
	const guint8 *wire = data + 3;
	gsize wire_len;
	gsize max_message;
	gsize max_piece;
	gboolean lazy;
	guint32 seed;
	gsize pos;
	gint fds[2];

	if (!initialized) {
		g_log_set_default_handler(fuzz_log_cb, NULL);
		initialized = TRUE;
	}
	if (size < 3 || size > FUZZ_MAX_INPUT)
		return 0;
	wire_len = size - 3;
	fuzz_max_iterations = FUZZ_MAX_ITERATIONS + 2 * wire_len;
	max_message = max_messages[data[0] & 0x3];
	lazy = (data[0] & 0x20) != 0;
	run.close_after = (data[0] >> 6) == 1 || (data[0] >> 6) == 2 ? data[1] & 0xf : 0;
	run.close_abort = (data[0] >> 6) == 2;
	max_piece = (data[1] >> 4) == 0 ? G_MAXSIZE : pieces[(data[1] >> 4) - 1];
	seed = (guint32)data[2] * 2654435761u + 1;

	fuzz_trace_init(&expected);
	fuzz_model(wire, wire_len, max_message, run.close_after, run.close_abort, &expected);
	fuzz_trace_init(&run.real);

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
		fuzz_fail("socketpair: %s", g_strerror(errno));
	if (lazy) {
		gint small = 4096;
		setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	}
	stream = fuzz_server_stream(fds[0], (data[0] & 0x10) != 0, &socket);

	/* the first piece is there before the transport: what libsoup had read */
	pos = max_piece == G_MAXSIZE ? wire_len : 1 + fuzz_random(&seed) % max_piece;
	pos = MIN(MIN(pos, wire_len), FUZZ_MAX_FIRST_PIECE);
	if (!fuzz_write(fds[1], wire, pos, TRUE, run.real.sent))
		fuzz_fail("the first write failed");
	run.transport = esd_ws_transport_new(stream, socket, "fuzz", max_message);
	esd_ws_transport_set_block_sizes(run.transport,
					 blocks[(data[0] >> 2) & 0x3][0],
					 blocks[(data[0] >> 2) & 0x3][1],
					 blocks[(data[0] >> 2) & 0x3][2]);
	g_signal_connect(run.transport, "message", G_CALLBACK(fuzz_message_cb), &run);
	g_signal_connect(run.transport, "frame-error", G_CALLBACK(fuzz_frame_error_cb), &run);
	g_signal_connect(run.transport, "closed", G_CALLBACK(fuzz_closed_cb), &run);
	fuzz_run_dry();
	while (pos < wire_len && !run.closed) {
		gsize piece =
		    max_piece == G_MAXSIZE ? wire_len - pos : 1 + fuzz_random(&seed) % max_piece;
		piece = MIN(piece, wire_len - pos);
		if (!fuzz_write(fds[1], wire + pos, piece, lazy, run.real.sent))
			break;
		pos += piece;
		fuzz_run_dry();
		if (!lazy)
			fuzz_read_client(fds[1], run.real.sent);
	}

	/* the client is done sending; the transport ends or waits for more */
	shutdown(fds[1], SHUT_WR);
	for (guint idle = 0; idle < 100;) {
		gboolean more = fuzz_read_client(fds[1], run.real.sent);
		if (fuzz_run_dry())
			idle = 0;
		else if (run.closed && !more)
			break;
		else
			idle++;
	}
	fuzz_check(&run, &expected, max_message);

	if (run.transport != NULL)
		g_clear_object(&run.transport);
	g_clear_object(&stream);
	g_clear_object(&socket);
	close(fds[1]);
	fuzz_run_dry();
	g_clear_error(&run.closed_error);
	fuzz_trace_clear(&run.real);
	fuzz_trace_clear(&expected);
	return 0;
}
