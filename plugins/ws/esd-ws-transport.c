/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib-unix.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "esd-ws-buffer.h"
#include "esd-ws-transport-private.h"

/*
 * The WebSocket framing (RFC 6455, server side) on a connection that
 * libsoup's SoupServer has upgraded and handed over. One JSON-RPC message
 * per WebSocket message: text and binary messages are accepted, everything
 * is sent as text. Frames are read in large blocks and unmasked a word at
 * a time, and messages are written with one gather write of header and
 * payload, without copying the payload: libsoup 3.2 reads 1 KiB per call,
 * unmasks byte by byte and copies every outgoing message, which made large
 * file transfers slower than the network.
 *
 * A message over the size limit is skipped and answered as a malformed
 * frame; the connection goes on. A protocol violation drops the TCP
 * connection without a Close frame, as the reference does.
 *
 * Reads go to one buffer shared by all connections (esd-ws-buffer.c): a
 * connection keeps only the start of a frame that has not arrived whole,
 * and nothing between frames. A buffer of the read block per connection
 * made every busy connection hold its quarter of a megabyte for as long as
 * it lived, and scattered over the heap, where it stayed after they closed.
 */

#define ESD_WS_READ_BLOCK	 (256 * 1024)
#define ESD_WS_KEEPALIVE_SECONDS 30
#define ESD_WS_MAX_IOV		 256
/* replies made while a block of frames is parsed go out together, up to this much */
#define ESD_WS_BATCH_BYTES	(256 * 1024)
#define ESD_WS_CONGESTION_BYTES (4 * 1024 * 1024)
/* data frames at least this large are read straight into the message */
#define ESD_WS_DIRECT_MIN   (64 * 1024)
#define ESD_WS_DIRECT_BLOCK (1024 * 1024)
/* messages starting with a data frame this large get a map of their plain blocks */
#define ESD_WS_PLAIN_MIN (256 * 1024)
/* the most a connection keeps between reads: a frame under ESD_WS_DIRECT_MIN and its header */
#define ESD_WS_PENDING_MAX (ESD_WS_DIRECT_MIN + 14)

enum {
	ESD_WS_OP_CONTINUATION = 0x0,
	ESD_WS_OP_TEXT = 0x1,
	ESD_WS_OP_BINARY = 0x2,
	ESD_WS_OP_CLOSE = 0x8,
	ESD_WS_OP_PING = 0x9,
	ESD_WS_OP_PONG = 0xa,
};

typedef struct {
	GList link;	 /* in outq */
	GBytes *payload; /* nullable */
	guint8 header[10];
	guint8 header_len;
} EsdWsFrame;

struct _EsdWsTransport {
	ErpcTransport parent_instance;
	GIOStream *stream;
	GSocket *socket;
	GPollableInputStream *input;
	GPollableOutputStream *output;
	GSource *in_source;
	GSource *out_source;
	GSource *keepalive;
	gsize max_message_size;
	gsize read_block;
	gsize direct_min;
	gsize direct_block;

	guint8 *pending; /* the start of a frame that has not arrived whole; nullable */
	gsize pending_len;
	gboolean parsing;	 /* reads wait while frames are delivered */
	GByteArray *message;	 /* data frames of the current message; NULL between messages */
	ErpcJsonPlainMap *plain; /* of a large message, noted while its bytes are in the cache */
	gboolean in_message;
	gboolean discarding; /* the current message is over the limit */
	gsize discarded;
	guint64 skip_remaining;
	gboolean skip_fin;
	guint64 direct_remaining; /* payload of the current data frame still to read into message */
	guint8 direct_key[4];
	guint direct_phase; /* where in the key the next payload byte is */
	gboolean direct_fin;
	gboolean initial_read; /* the first dispatch, forced: drains libsoup's buffer */
	gboolean close_received;

	GQueue outq; /* of EsdWsFrame */
	gsize out_offset;
	gsize queued;
	gboolean close_sent;
	gboolean finished;
};

G_DEFINE_TYPE(EsdWsTransport, esd_ws_transport, ERPC_TYPE_TRANSPORT)

static void
esd_ws_transport_flush(EsdWsTransport *self);

static void
esd_ws_frame_free(EsdWsFrame *frame)
{
	if (frame->payload != NULL)
		g_bytes_unref(frame->payload);
	g_free(frame);
}

static gsize
esd_ws_frame_size(EsdWsFrame *frame)
{
	return frame->header_len + (frame->payload != NULL ? g_bytes_get_size(frame->payload) : 0);
}

static void
esd_ws_transport_clear_queue(EsdWsTransport *self)
{
	GList *link;

	/* the links are inside the frames */
	while ((link = g_queue_pop_head_link(&self->outq)) != NULL)
		esd_ws_frame_free(link->data);
	self->out_offset = 0;
}

static void
esd_ws_transport_stop(EsdWsTransport *self)
{
	if (self->in_source != NULL) {
		g_source_destroy(self->in_source);
		g_clear_pointer(&self->in_source, g_source_unref);
	}
	if (self->out_source != NULL) {
		g_source_destroy(self->out_source);
		g_clear_pointer(&self->out_source, g_source_unref);
	}
	if (self->keepalive != NULL) {
		g_source_destroy(self->keepalive);
		g_clear_pointer(&self->keepalive, g_source_unref);
	}
}

/* the end: no Close handshake is waited for */
static void
esd_ws_transport_finish(EsdWsTransport *self, const GError *error)
{
	if (self->finished)
		return;
	/* the answers held back for one write go out as they would have before */
	if (self->parsing && self->out_source == NULL && !g_queue_is_empty(&self->outq)) {
		/* once: a failing write ends here again */
		self->parsing = FALSE;
		esd_ws_transport_flush(self);
		if (self->finished)
			return;
	}
	self->finished = TRUE;
	esd_ws_transport_stop(self);
	esd_ws_transport_clear_queue(self);
	self->queued = 0;
	if (self->socket != NULL)
		g_socket_shutdown(self->socket, TRUE, TRUE, NULL);
	g_io_stream_close(self->stream, NULL, NULL);
	erpc_transport_emit_closed(ERPC_TRANSPORT(self), error);
}

static void
esd_ws_transport_queue(EsdWsTransport *self, guint8 opcode, GBytes *payload)
{
	gsize len = payload != NULL ? g_bytes_get_size(payload) : 0;
	EsdWsFrame *frame;
	guint8 *header;

	if (self->finished || self->close_sent)
		return;
	frame = g_new(EsdWsFrame, 1);
	header = frame->header;
	header[0] = 0x80 | opcode;
	if (len < 126) {
		header[1] = (guint8)len;
		frame->header_len = 2;
	} else if (len <= G_MAXUINT16) {
		header[1] = 126;
		header[2] = (guint8)(len >> 8);
		header[3] = (guint8)len;
		frame->header_len = 4;
	} else {
		header[1] = 127;
		for (gint i = 0; i < 8; i++)
			header[2 + i] = (guint8)((guint64)len >> (56 - 8 * i));
		frame->header_len = 10;
	}
	frame->payload = payload != NULL && len > 0 ? g_bytes_ref(payload) : NULL;
	frame->link.data = frame;
	frame->link.prev = frame->link.next = NULL;
	g_queue_push_tail_link(&self->outq, &frame->link);
	self->queued += esd_ws_frame_size(frame);
	if (opcode == ESD_WS_OP_CLOSE)
		self->close_sent = TRUE;
	/* while frames are parsed, the replies to them wait for one write at the end */
	if (self->parsing && self->queued < ESD_WS_BATCH_BYTES)
		return;
	if (self->out_source == NULL)
		esd_ws_transport_flush(self);
}

static gboolean
esd_ws_transport_writable_cb(GObject *stream, gpointer user_data)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(user_data);
	g_clear_pointer(&self->out_source, g_source_unref);
	g_object_ref(self);
	esd_ws_transport_flush(self);
	g_object_unref(self);
	return G_SOURCE_REMOVE;
}

static void
esd_ws_transport_dequeue(EsdWsTransport *self, gsize n)
{
	self->queued -= n;
	while (n > 0) {
		EsdWsFrame *frame = g_queue_peek_head(&self->outq);
		gsize left = esd_ws_frame_size(frame) - self->out_offset;
		if (n < left) {
			self->out_offset += n;
			return;
		}
		n -= left;
		self->out_offset = 0;
		esd_ws_frame_free(g_queue_pop_head_link(&self->outq)->data);
	}
}

/* one gather write of as many queued frames as fit, without copying them */
static void
esd_ws_transport_flush(EsdWsTransport *self)
{
	while (!g_queue_is_empty(&self->outq) && !self->finished) {
		GOutputVector iov[ESD_WS_MAX_IOV];
		gsize n_iov = 0;
		gsize skip = self->out_offset;
		gsize written = 0;
		g_autoptr(GError) error = NULL;
		GPollableReturn ret;

		for (GList *l = self->outq.head; l != NULL && n_iov + 2 <= ESD_WS_MAX_IOV;
		     l = l->next) {
			EsdWsFrame *frame = l->data;
			for (guint p = 0; p < 2; p++) {
				gsize size = 0;
				const guint8 *data;
				if (p == 0) {
					data = frame->header;
					size = frame->header_len;
				} else if (frame->payload != NULL) {
					data = g_bytes_get_data(frame->payload, &size);
				} else {
					continue;
				}
				if (skip >= size) {
					skip -= size;
					continue;
				}
				iov[n_iov].buffer = data + skip;
				iov[n_iov].size = size - skip;
				n_iov++;
				skip = 0;
			}
		}
		ret = g_pollable_output_stream_writev_nonblocking(self->output,
								  iov,
								  n_iov,
								  &written,
								  NULL,
								  &error);
		if (ret == G_POLLABLE_RETURN_WOULD_BLOCK) {
			self->out_source =
			    g_pollable_output_stream_create_source(self->output, NULL);
			g_source_set_callback(self->out_source,
					      G_SOURCE_FUNC(esd_ws_transport_writable_cb),
					      self,
					      NULL);
			g_source_attach(self->out_source, NULL);
			return;
		}
		if (ret == G_POLLABLE_RETURN_FAILED) {
			g_debug("%s: %s",
				erpc_transport_get_peer(ERPC_TRANSPORT(self)),
				error->message);
			esd_ws_transport_finish(self, error);
			return;
		}
		esd_ws_transport_dequeue(self, written);
	}
	/* our Close went out: the connection is done */
	if (g_queue_is_empty(&self->outq) && self->close_sent)
		esd_ws_transport_finish(self, NULL);
}

/* XOR with the 4-byte key starting at byte @phase of it, 32 or eight bytes at a time */
static void
esd_ws_unmask(guint8 *data, gsize len, const guint8 key_in[4], guint phase)
{
	guint8 key[4];
	guint64 key8;
	gsize i = 0;

	for (guint k = 0; k < 4; k++)
		key[k] = key_in[(phase + k) & 3];
	memcpy(&key8, key, 4);
	memcpy((guint8 *)&key8 + 4, key, 4);
	/* clients may mask with zeros */
	if (key8 == 0)
		return;
#ifdef __SSE2__
	{
		/* SSE2 is part of x86-64: no CPU check (and no cpuid) needed */
		const __m128i key16 = _mm_set1_epi64x((long long)key8);
		for (; i + 32 <= len; i += 32) {
			__m128i a = _mm_loadu_si128((const __m128i *)(data + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(data + i + 16));
			_mm_storeu_si128((__m128i *)(data + i), _mm_xor_si128(a, key16));
			_mm_storeu_si128((__m128i *)(data + i + 16), _mm_xor_si128(b, key16));
		}
	}
#endif
	for (; i + 8 <= len; i += 8) {
		guint64 w;
		memcpy(&w, data + i, 8);
		w ^= key8;
		memcpy(data + i, &w, 8);
	}
	for (; i < len; i++)
		data[i] ^= key[i & 3];
}

static void
esd_ws_transport_protocol_error(EsdWsTransport *self, const gchar *what)
{
	g_autoptr(GError) error =
	    g_error_new(G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "WebSocket protocol error: %s", what);
	g_log("execserverd-protocol",
	      G_LOG_LEVEL_INFO,
	      "%s: %s",
	      erpc_transport_get_peer(ERPC_TRANSPORT(self)),
	      error->message);
	esd_ws_transport_finish(self, error);
}

static void
esd_ws_transport_message_done(EsdWsTransport *self)
{
	if (self->discarding) {
		g_autoptr(GError) error = NULL;
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "message of more than %" G_GSIZE_FORMAT
			    " bytes exceeds the limit of %" G_GSIZE_FORMAT " bytes",
			    self->discarded,
			    self->max_message_size);
		erpc_transport_emit_frame_error(ERPC_TRANSPORT(self), error);
	} else {
		/* handed over whole: file contents in it are not copied again */
		g_autoptr(GBytes) bytes = NULL;
		if (self->message == NULL)
			self->message = g_byte_array_new();
		bytes = esd_ws_buffer_to_bytes(g_steal_pointer(&self->message));
		erpc_transport_emit_message_bytes_mapped(ERPC_TRANSPORT(self), bytes, self->plain);
	}
	g_clear_pointer(&self->message, g_byte_array_unref);
	g_clear_pointer(&self->plain, erpc_json_plain_map_free);
	self->in_message = FALSE;
	self->discarding = FALSE;
	self->discarded = 0;
}

/* RFC 6455 7.4 and its registry: the codes a Close frame may carry (1004 is reserved,
 * 1005, 1006 and 1015 never go on the wire) */
static gboolean
esd_ws_close_code_is_valid(guint code)
{
	return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
	       (code >= 3000 && code <= 4999);
}

static void
esd_ws_transport_control(EsdWsTransport *self, guint8 opcode, guint8 *payload, gsize len)
{
	if (opcode == ESD_WS_OP_PING) {
		g_autoptr(GBytes) pong = g_bytes_new(payload, len);
		esd_ws_transport_queue(self, ESD_WS_OP_PONG, pong);
	} else if (opcode == ESD_WS_OP_CLOSE) {
		/* answer with the peer's code, then the connection ends; a body that holds
		 * no valid code is answered 1002, protocol error, a reason that is not
		 * UTF-8 1007, invalid payload data (RFC 6455 7.4.1); nothing after the
		 * Close is read */
		static const guint8 protocol_error[2] = {0x03, 0xea};
		static const guint8 invalid_data[2] = {0x03, 0xef};
		g_autoptr(GBytes) reply = NULL;

		if (len == 0)
			reply = g_bytes_new_static(NULL, 0);
		else if (len == 1 ||
			 !esd_ws_close_code_is_valid((guint)payload[0] << 8 | payload[1]))
			reply = g_bytes_new_static(protocol_error, 2);
		else if (!g_utf8_validate_len((const gchar *)payload + 2, len - 2, NULL))
			reply = g_bytes_new_static(invalid_data, 2);
		else
			reply = g_bytes_new(payload, 2);
		self->close_received = TRUE;
		if (self->in_source != NULL) {
			g_source_destroy(self->in_source);
			g_clear_pointer(&self->in_source, g_source_unref);
		}
		esd_ws_transport_queue(self, ESD_WS_OP_CLOSE, reply);
	}
}

static gsize
esd_ws_transport_message_len(EsdWsTransport *self)
{
	return self->message != NULL ? self->message->len : 0;
}

/* @frame_len: of the frame @data is from, which tells whether the message may be large */
static void
esd_ws_transport_append(EsdWsTransport *self, const guint8 *data, gsize len, guint64 frame_len)
{
	if (self->message == NULL) {
		self->message = esd_ws_buffer_take(frame_len);
		if (frame_len >= ESD_WS_PLAIN_MIN)
			self->plain = erpc_json_plain_map_new();
	}
	if (self->plain != NULL)
		erpc_json_plain_map_add(self->plain, self->message->len, (const gchar *)data, len);
	g_byte_array_append(self->message, data, (guint)len);
}

/* the rest of a large data frame, read from the socket into the message */
static void
esd_ws_transport_read_direct(EsdWsTransport *self)
{
	g_autoptr(GError) error = NULL;
	gsize want = (gsize)MIN(self->direct_remaining, (guint64)self->direct_block);
	gsize old_len = self->message->len;
	gssize n;

	g_byte_array_set_size(self->message, (guint)(old_len + want));
	n = g_pollable_input_stream_read_nonblocking(self->input,
						     self->message->data + old_len,
						     want,
						     NULL,
						     &error);
	if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
		g_byte_array_set_size(self->message, (guint)old_len);
		return;
	}
	if (n <= 0) {
		g_byte_array_set_size(self->message, (guint)old_len);
		esd_ws_transport_finish(self, n < 0 ? error : NULL);
		return;
	}
	esd_ws_buffer_note_read((gsize)n);
	g_byte_array_set_size(self->message, (guint)(old_len + (gsize)n));
	esd_ws_unmask(self->message->data + old_len,
		      (gsize)n,
		      self->direct_key,
		      self->direct_phase);
	if (self->plain != NULL)
		erpc_json_plain_map_add(self->plain,
					old_len,
					(const gchar *)self->message->data + old_len,
					(gsize)n);
	self->direct_phase = (self->direct_phase + (guint)n) & 3;
	self->direct_remaining -= (guint64)n;
	if (self->direct_remaining == 0 && self->direct_fin)
		esd_ws_transport_message_done(self);
}

/* the frames in @data, unmasked in place; returns how many bytes were used */
static gsize
esd_ws_transport_parse(EsdWsTransport *self, guint8 *data, gsize data_len)
{
	gsize pos = 0;

	while (!self->finished && !self->close_received &&
	       !erpc_transport_is_closed(ERPC_TRANSPORT(self))) {
		guint8 *p = data + pos;
		gsize avail = data_len - pos;
		gsize header_len = 2;
		guint64 len;
		guint8 opcode;
		gboolean fin;
		guint8 *payload;

		/* the rest of a frame of a message over the limit: dropped as it comes */
		if (self->skip_remaining > 0) {
			gsize n = (gsize)MIN(self->skip_remaining, (guint64)avail);
			self->skip_remaining -= n;
			self->discarded += n;
			pos += n;
			if (self->skip_remaining > 0)
				break;
			if (self->skip_fin)
				esd_ws_transport_message_done(self);
			continue;
		}
		if (avail < 2)
			break;
		fin = (p[0] & 0x80) != 0;
		opcode = p[0] & 0x0f;
		if ((p[0] & 0x70) != 0) {
			esd_ws_transport_protocol_error(self, "reserved bits set");
			break;
		}
		if ((p[1] & 0x80) == 0) {
			esd_ws_transport_protocol_error(self, "unmasked client frame");
			break;
		}
		len = p[1] & 0x7f;
		if (len == 126) {
			if (avail < 4)
				break;
			len = (guint64)p[2] << 8 | p[3];
			header_len = 4;
		} else if (len == 127) {
			if (avail < 10)
				break;
			len = 0;
			for (gint i = 0; i < 8; i++)
				len = len << 8 | p[2 + i];
			header_len = 10;
			/* RFC 6455 5.2: the most significant bit must be 0 */
			if ((len >> 63) != 0) {
				esd_ws_transport_protocol_error(self, "frame length out of range");
				break;
			}
		}
		header_len += 4;
		/* 3-7 and 0xb-0xf are reserved, data and control frames alike (RFC 6455 5.2) */
		if ((opcode > ESD_WS_OP_BINARY && opcode < ESD_WS_OP_CLOSE) ||
		    opcode > ESD_WS_OP_PONG) {
			esd_ws_transport_protocol_error(self, "unknown opcode");
			break;
		} else if (opcode >= 0x8) {
			if (!fin || len > 125) {
				esd_ws_transport_protocol_error(self, "bad control frame");
				break;
			}
		} else if ((opcode == ESD_WS_OP_CONTINUATION) != self->in_message) {
			esd_ws_transport_protocol_error(self, "bad fragmentation");
			break;
		}
		/* a data frame that would take the message over the limit is skipped */
		if (opcode < 0x8 && !self->discarding &&
		    len > self->max_message_size -
			      MIN(esd_ws_transport_message_len(self), self->max_message_size)) {
			self->discarding = TRUE;
			self->discarded = esd_ws_transport_message_len(self);
			g_clear_pointer(&self->message, g_byte_array_unref);
			g_clear_pointer(&self->plain, erpc_json_plain_map_free);
		}
		if (self->discarding && opcode < 0x8) {
			if (avail < header_len)
				break;
			pos += header_len;
			self->in_message = TRUE;
			self->skip_remaining = len;
			self->skip_fin = fin;
			if (len == 0 && fin)
				esd_ws_transport_message_done(self);
			continue;
		}
		if (avail < header_len)
			break;
		payload = p + header_len;
		if (avail - header_len < len) {
			gsize have = avail - header_len;
			if (opcode >= 0x8 || len < self->direct_min)
				break;
			/* a large data frame: the rest of it is read into the message directly */
			esd_ws_unmask(payload, have, p + header_len - 4, 0);
			esd_ws_transport_append(self, payload, have, len);
			memcpy(self->direct_key, p + header_len - 4, 4);
			self->direct_phase = (guint)(have & 3);
			self->direct_remaining = len - have;
			self->direct_fin = fin;
			self->in_message = TRUE;
			pos += header_len + have;
			break;
		}
		esd_ws_unmask(payload, len, p + header_len - 4, 0);
		pos += header_len + len;
		if (opcode >= 0x8) {
			esd_ws_transport_control(self, opcode, payload, len);
			continue;
		}
		esd_ws_transport_append(self, payload, len, len);
		self->in_message = TRUE;
		if (fin)
			esd_ws_transport_message_done(self);
	}
	return pos;
}

/* reads and parses a block of frames, after what is left of the last block */
static void
esd_ws_transport_read_frames(EsdWsTransport *self)
{
	g_autofree guint8 *own = NULL;
	g_autoptr(GError) error = NULL;
	gsize have = self->pending_len;
	guint8 *buf;
	gsize used;
	gssize n;

	buf = esd_ws_buffer_borrow(
	    MAX(have + self->read_block, ESD_WS_PENDING_MAX + ESD_WS_READ_BLOCK));
	/* lent out already (another connection is parsing): one of its own */
	if (buf == NULL)
		buf = own = g_malloc(have + self->read_block);
	if (have > 0)
		memcpy(buf, self->pending, have);
	n = g_pollable_input_stream_read_nonblocking(self->input,
						     buf + have,
						     self->read_block,
						     NULL,
						     &error);
	if (n <= 0) {
		if (own == NULL)
			esd_ws_buffer_give_back(buf);
		/* the peer went away: no Close frame is owed */
		if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
			esd_ws_transport_finish(self, n < 0 ? error : NULL);
		return;
	}
	esd_ws_buffer_note_read((gsize)n);
	g_clear_pointer(&self->pending, g_free);
	self->pending_len = 0;
	self->parsing = TRUE;
	used = esd_ws_transport_parse(self, buf, have + (gsize)n);
	self->parsing = FALSE;
	if (!g_queue_is_empty(&self->outq) && self->out_source == NULL)
		esd_ws_transport_flush(self);
	if (used < have + (gsize)n && !self->finished && !self->close_received) {
		self->pending_len = have + (gsize)n - used;
		self->pending = g_memdup2(buf + used, self->pending_len);
	}
	if (own == NULL)
		esd_ws_buffer_give_back(buf);
}

static gboolean
esd_ws_transport_readable_cb(GObject *stream, gpointer user_data)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(user_data);
	gboolean going;

	if (self->initial_read) {
		self->initial_read = FALSE;
		g_source_set_ready_time(self->in_source, -1);
	}
	/* not re-entered from a handler: what is in the socket waits for the next dispatch */
	if (self->parsing)
		return G_SOURCE_CONTINUE;
	g_object_ref(self);
	if (self->direct_remaining > 0)
		esd_ws_transport_read_direct(self);
	else
		esd_ws_transport_read_frames(self);
	/* read before letting go: the last reference may be this one */
	going = self->in_source != NULL;
	g_object_unref(self);
	return going ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static gboolean
esd_ws_transport_fd_readable_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	return esd_ws_transport_readable_cb(NULL, user_data);
}

/* libsoup hands over its own stream around the connection: is the connection plain TCP? */
static gboolean
esd_ws_transport_is_plain_socket(GIOStream *stream)
{
	g_autoptr(GIOStream) base = NULL;

	if (G_IS_SOCKET_CONNECTION(stream))
		return TRUE;
	if (g_object_class_find_property(G_OBJECT_GET_CLASS(stream), "base-iostream") == NULL)
		return FALSE;
	g_object_get(stream, "base-iostream", &base, NULL);
	return base != NULL && G_IS_SOCKET_CONNECTION(base) && !G_IS_TLS_CONNECTION(base);
}

static gboolean
esd_ws_transport_keepalive_cb(gpointer user_data)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(user_data);
	esd_ws_transport_queue(self, ESD_WS_OP_PING, NULL);
	return G_SOURCE_CONTINUE;
}

static void
esd_ws_transport_send(ErpcTransport *transport, GBytes *message)
{
	esd_ws_transport_queue(ESD_WS_TRANSPORT(transport), ESD_WS_OP_TEXT, message);
}

static void
esd_ws_transport_close(ErpcTransport *transport, gboolean abort)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(transport);
	guint8 going_away[2] = {0x03, 0xe9}; /* 1001 */
	g_autoptr(GBytes) payload = NULL;

	if (abort || self->finished) {
		esd_ws_transport_finish(self, NULL);
		return;
	}
	/* stop reading; the Close frame goes out after what is queued */
	if (self->in_source != NULL) {
		g_source_destroy(self->in_source);
		g_clear_pointer(&self->in_source, g_source_unref);
	}
	payload = g_bytes_new(going_away, sizeof(going_away));
	esd_ws_transport_queue(self, ESD_WS_OP_CLOSE, payload);
}

static gsize
esd_ws_transport_get_queued_bytes(ErpcTransport *transport)
{
	return ESD_WS_TRANSPORT(transport)->queued;
}

static gboolean
esd_ws_transport_is_congested(ErpcTransport *transport)
{
	return ESD_WS_TRANSPORT(transport)->queued > ESD_WS_CONGESTION_BYTES;
}

static void
esd_ws_transport_dispose(GObject *object)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(object);
	esd_ws_transport_stop(self);
	G_OBJECT_CLASS(esd_ws_transport_parent_class)->dispose(object);
}

static void
esd_ws_transport_finalize(GObject *object)
{
	EsdWsTransport *self = ESD_WS_TRANSPORT(object);
	esd_ws_transport_clear_queue(self);
	g_free(self->pending);
	if (self->message != NULL)
		g_byte_array_unref(self->message);
	erpc_json_plain_map_free(self->plain);
	if (!self->finished)
		g_io_stream_close(self->stream, NULL, NULL);
	g_clear_object(&self->stream);
	g_clear_object(&self->socket);
	G_OBJECT_CLASS(esd_ws_transport_parent_class)->finalize(object);
}

static void
esd_ws_transport_init(EsdWsTransport *self)
{
	self->read_block = ESD_WS_READ_BLOCK;
	self->direct_min = ESD_WS_DIRECT_MIN;
	self->direct_block = ESD_WS_DIRECT_BLOCK;
	g_queue_init(&self->outq);
}

static void
esd_ws_transport_class_init(EsdWsTransportClass *klass)
{
	ErpcTransportClass *transport_class = ERPC_TRANSPORT_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = esd_ws_transport_dispose;
	G_OBJECT_CLASS(klass)->finalize = esd_ws_transport_finalize;
	transport_class->send = esd_ws_transport_send;
	transport_class->close = esd_ws_transport_close;
	transport_class->get_queued_bytes = esd_ws_transport_get_queued_bytes;
	transport_class->is_congested = esd_ws_transport_is_congested;
	transport_class->frame_kind = "websocket";
}

EsdWsTransport *
esd_ws_transport_new(GIOStream *stream, GSocket *socket, const gchar *peer, gsize max_message_size)
{
	EsdWsTransport *self = g_object_new(ESD_TYPE_WS_TRANSPORT, "peer", peer, NULL);

	self->stream = g_object_ref(stream);
	self->socket = socket != NULL ? g_object_ref(socket) : NULL;
	self->input = G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(stream));
	self->output = G_POLLABLE_OUTPUT_STREAM(g_io_stream_get_output_stream(stream));
	/* a message is a GByteArray, whose length is a guint */
	self->max_message_size = MIN(max_message_size, (gsize)G_MAXUINT);
	/*
	 * A plain socket is watched by its descriptor: GLib takes a blocked
	 * source's descriptors (and a pollable source's child's) out of the poll
	 * set while it runs and puts them back after, waking the main context
	 * each time, which cost several eventfd writes per message. Nothing here
	 * iterates the main context recursively, so the source need not be
	 * blocked. Other streams (TLS) buffer data of their own and need their
	 * pollable source.
	 */
	if (self->socket != NULL && esd_ws_transport_is_plain_socket(stream)) {
		self->in_source = g_unix_fd_source_new(g_socket_get_fd(self->socket), G_IO_IN);
		g_source_set_callback(self->in_source,
				      G_SOURCE_FUNC(esd_ws_transport_fd_readable_cb),
				      self,
				      NULL);
	} else {
		self->in_source = g_pollable_input_stream_create_source(self->input, NULL);
		g_source_set_callback(self->in_source,
				      G_SOURCE_FUNC(esd_ws_transport_readable_cb),
				      self,
				      NULL);
	}
	g_source_set_can_recurse(self->in_source, TRUE);
	g_source_attach(self->in_source, NULL);
	/* what libsoup read beyond the upgrade request is in its buffer, not the socket */
	self->initial_read = TRUE;
	g_source_set_ready_time(self->in_source, 0);
	self->keepalive = g_timeout_source_new_seconds(ESD_WS_KEEPALIVE_SECONDS);
	g_source_set_callback(self->keepalive, esd_ws_transport_keepalive_cb, self, NULL);
	g_source_attach(self->keepalive, NULL);
	return self;
}

/**
 * esd_ws_transport_set_block_sizes:
 * @self: a #EsdWsTransport
 * @read_block: the most read at once, 1 to the default
 * @direct_min: the smallest data frame read straight into its message, 1 to the default
 * @direct_block: the most read at once into such a message, at least 1
 *
 * For the fuzzer: small blocks take every path of the parser with small
 * inputs. What the peer sees does not depend on them.
 */
void
esd_ws_transport_set_block_sizes(EsdWsTransport *self,
				 gsize read_block,
				 gsize direct_min,
				 gsize direct_block)
{
	g_return_if_fail(ESD_IS_WS_TRANSPORT(self));
	self->read_block = CLAMP(read_block, 1, ESD_WS_READ_BLOCK);
	self->direct_min = CLAMP(direct_min, 1, ESD_WS_DIRECT_MIN);
	self->direct_block = MAX(direct_block, 1);
}
