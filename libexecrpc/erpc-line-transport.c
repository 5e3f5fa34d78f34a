/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <gio/gfiledescriptorbased.h>
#include <string.h>

#include "erpc-error.h"
#include "erpc-line-transport.h"

/**
 * ErpcLineTransport:
 *
 * Newline-delimited JSON over a pair of pollable streams: stdio, an accepted
 * socket, or the pipes of a spawned server. A line longer than the message
 * limit is skipped up to its newline and reported with
 * #ErpcTransport::frame-error; blank lines are ignored and a trailing `\r` is
 * dropped.
 *
 * Since: 0.1
 */

#define ERPC_LINE_READ_SIZE (256 * 1024)
#define ERPC_LINE_MAX_IOV   256
/* answers made while a read is split into lines go out together, up to this much */
#define ERPC_LINE_BATCH_BYTES (256 * 1024)
/* how long close() may spend flushing what is still queued */
#define ERPC_LINE_FLUSH_TIMEOUT_US (2 * G_USEC_PER_SEC)

struct _ErpcLineTransport {
	ErpcTransport parent_instance;
	GInputStream *input;
	GOutputStream *output;
	GSource *in_source;
	GSource *out_source;
	guint8 *readbuf;
	GByteArray *partial; /* start of a line split across reads */
	gsize partial_skipped;
	gboolean discarding; /* inside a line over the limit */
	gsize max_message_size;
	GQueue outq;	  /* of GBytes; each is followed by a newline */
	gsize out_offset; /* bytes of the head (and its newline) already written */
	gsize queued;
	gboolean write_failed;
	gboolean processing; /* lines of a read are being delivered */
};

G_DEFINE_TYPE(ErpcLineTransport, erpc_line_transport, ERPC_TYPE_TRANSPORT)

static void
erpc_line_transport_stop_reading(ErpcLineTransport *self)
{
	if (self->in_source != NULL) {
		g_source_destroy(self->in_source);
		g_clear_pointer(&self->in_source, g_source_unref);
	}
}

static void
erpc_line_transport_stop_writing(ErpcLineTransport *self)
{
	if (self->out_source != NULL) {
		g_source_destroy(self->out_source);
		g_clear_pointer(&self->out_source, g_source_unref);
	}
}

static gboolean
erpc_line_is_blank(const guint8 *data, gsize len)
{
	for (gsize i = 0; i < len; i++) {
		if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r')
			return FALSE;
	}
	return TRUE;
}

static void
erpc_line_transport_oversized(ErpcLineTransport *self, gsize len)
{
	g_autoptr(GError) error = NULL;
	g_set_error(&error,
		    ERPC_ERROR,
		    ERPC_ERROR_PARSE,
		    "message of more than %" G_GSIZE_FORMAT
		    " bytes exceeds the limit of %" G_GSIZE_FORMAT " bytes",
		    len,
		    self->max_message_size);
	erpc_transport_emit_frame_error(ERPC_TRANSPORT(self), error);
}

static void
erpc_line_transport_deliver(ErpcLineTransport *self, const guint8 *data, gsize len)
{
	if (len > 0 && data[len - 1] == '\r')
		len--;
	/* the line had room for a CR, which may turn out not to be one */
	if (len > self->max_message_size) {
		erpc_line_transport_oversized(self, len);
		return;
	}
	if (erpc_line_is_blank(data, len))
		return;
	erpc_transport_emit_message(ERPC_TRANSPORT(self), (const gchar *)data, len);
}

/* a message of the limit may end with \r\n, and the CR is no part of it */
static gsize
erpc_line_transport_room(ErpcLineTransport *self)
{
	return self->max_message_size < G_MAXSIZE ? self->max_message_size + 1 : G_MAXSIZE;
}

/* splits one read into lines; the transport may close during any emission */
static void
erpc_line_transport_process(ErpcLineTransport *self, const guint8 *data, gsize len)
{
	while (len > 0 && !erpc_transport_is_closed(ERPC_TRANSPORT(self))) {
		const guint8 *nl = memchr(data, '\n', len);
		gsize seg = nl != NULL ? (gsize)(nl - data) : len;

		if (self->discarding) {
			self->partial_skipped += seg;
			if (nl != NULL) {
				erpc_line_transport_oversized(self, self->partial_skipped);
				self->discarding = FALSE;
				self->partial_skipped = 0;
			}
		} else if (self->partial->len + seg > erpc_line_transport_room(self)) {
			self->discarding = TRUE;
			self->partial_skipped = self->partial->len + seg;
			g_byte_array_set_size(self->partial, 0);
			if (nl != NULL) {
				erpc_line_transport_oversized(self, self->partial_skipped);
				self->discarding = FALSE;
				self->partial_skipped = 0;
			}
		} else if (nl == NULL) {
			g_byte_array_append(self->partial, data, (guint)seg);
		} else if (self->partial->len > 0) {
			g_byte_array_append(self->partial, data, (guint)seg);
			erpc_line_transport_deliver(self, self->partial->data, self->partial->len);
			g_byte_array_set_size(self->partial, 0);
		} else {
			erpc_line_transport_deliver(self, data, seg);
		}
		if (nl == NULL)
			break;
		data += seg + 1;
		len -= seg + 1;
	}
}

static void
erpc_line_transport_schedule_write(ErpcLineTransport *self);

static gboolean
erpc_line_transport_readable_cb(GObject *stream, gpointer user_data)
{
	ErpcLineTransport *self = ERPC_LINE_TRANSPORT(user_data);
	g_autoptr(GError) error = NULL;
	gssize n;

	g_object_ref(self);
	n = g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(self->input),
						     self->readbuf,
						     ERPC_LINE_READ_SIZE,
						     NULL,
						     &error);
	if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
		g_object_unref(self);
		return G_SOURCE_CONTINUE;
	}
	if (n > 0) {
		self->processing = TRUE;
		erpc_line_transport_process(self, self->readbuf, (gsize)n);
		self->processing = FALSE;
		if (!g_queue_is_empty(&self->outq) && self->out_source == NULL)
			erpc_line_transport_schedule_write(self);
		g_object_unref(self);
		return G_SOURCE_CONTINUE;
	}
	/* end of input: a final line without a newline still counts */
	if (n == 0 && self->partial->len > 0 && !self->discarding) {
		g_autoptr(GByteArray) last = g_steal_pointer(&self->partial);
		self->partial = g_byte_array_new();
		erpc_line_transport_deliver(self, last->data, last->len);
	}
	g_clear_pointer(&self->in_source, g_source_unref);
	if (!erpc_transport_is_closed(ERPC_TRANSPORT(self)))
		erpc_transport_close(ERPC_TRANSPORT(self), FALSE);
	g_object_unref(self);
	return G_SOURCE_REMOVE;
}

static void
erpc_line_transport_dequeue(ErpcLineTransport *self, gsize n)
{
	while (n > 0) {
		GBytes *head = g_queue_peek_head(&self->outq);
		gsize total = g_bytes_get_size(head) + 1 - self->out_offset;
		if (n < total) {
			self->out_offset += n;
			self->queued -= n;
			return;
		}
		n -= total;
		self->queued -= total;
		self->out_offset = 0;
		g_bytes_unref(g_queue_pop_head(&self->outq));
	}
}

/* writes what it can without blocking; FALSE on a write error */
static gboolean
erpc_line_transport_flush(ErpcLineTransport *self, GError **error)
{
	while (!g_queue_is_empty(&self->outq)) {
		GOutputVector iov[ERPC_LINE_MAX_IOV];
		gsize n_iov = 0;
		gsize offset = self->out_offset;
		gsize written = 0;
		GPollableReturn ret;

		for (GList *l = self->outq.head; l != NULL && n_iov + 2 <= ERPC_LINE_MAX_IOV;
		     l = l->next) {
			gsize size = 0;
			const guint8 *data = g_bytes_get_data(l->data, &size);
			if (offset < size) {
				iov[n_iov].buffer = data + offset;
				iov[n_iov].size = size - offset;
				n_iov++;
			}
			iov[n_iov].buffer = "\n";
			iov[n_iov].size = 1;
			n_iov++;
			offset = 0;
		}
		ret = g_pollable_output_stream_writev_nonblocking(
		    G_POLLABLE_OUTPUT_STREAM(self->output),
		    iov,
		    n_iov,
		    &written,
		    NULL,
		    error);
		if (ret == G_POLLABLE_RETURN_WOULD_BLOCK)
			return TRUE;
		if (ret == G_POLLABLE_RETURN_FAILED)
			return FALSE;
		erpc_line_transport_dequeue(self, written);
	}
	return TRUE;
}

static gboolean
erpc_line_transport_writable_cb(GObject *stream, gpointer user_data);

static void
erpc_line_transport_schedule_write(ErpcLineTransport *self)
{
	g_autoptr(GError) error = NULL;

	if (self->write_failed)
		return;
	if (!erpc_line_transport_flush(self, &error)) {
		self->write_failed = TRUE;
		g_debug("write to %s failed: %s",
			erpc_transport_get_peer(ERPC_TRANSPORT(self)),
			error->message);
		erpc_line_transport_stop_writing(self);
		erpc_transport_close(ERPC_TRANSPORT(self), TRUE);
		return;
	}
	if (g_queue_is_empty(&self->outq)) {
		erpc_line_transport_stop_writing(self);
		return;
	}
	if (self->out_source == NULL) {
		self->out_source =
		    g_pollable_output_stream_create_source(G_POLLABLE_OUTPUT_STREAM(self->output),
							   NULL);
		g_source_set_callback(self->out_source,
				      G_SOURCE_FUNC(erpc_line_transport_writable_cb),
				      self,
				      NULL);
		g_source_attach(self->out_source, g_main_context_get_thread_default());
	}
}

static gboolean
erpc_line_transport_writable_cb(GObject *stream, gpointer user_data)
{
	ErpcLineTransport *self = ERPC_LINE_TRANSPORT(user_data);
	g_object_ref(self);
	erpc_line_transport_schedule_write(self);
	g_object_unref(self);
	return G_SOURCE_CONTINUE;
}

static void
erpc_line_transport_send(ErpcTransport *transport, GBytes *message)
{
	ErpcLineTransport *self = ERPC_LINE_TRANSPORT(transport);
	g_queue_push_tail(&self->outq, g_bytes_ref(message));
	self->queued += g_bytes_get_size(message) + 1;
	/* the answers to the lines of one read wait for one write at its end */
	if (self->processing && self->queued < ERPC_LINE_BATCH_BYTES)
		return;
	/* write at once; only wait for the stream when it is full */
	if (self->out_source == NULL)
		erpc_line_transport_schedule_write(self);
}

/* bounded, blocking flush of what is left, so that the last answers arrive */
static void
erpc_line_transport_flush_final(ErpcLineTransport *self)
{
	gint64 deadline = g_get_monotonic_time() + ERPC_LINE_FLUSH_TIMEOUT_US;

	while (!g_queue_is_empty(&self->outq) && !self->write_failed) {
		g_autoptr(GError) error = NULL;
		gint64 now;
		GPollFD pfd = {0};

		if (!erpc_line_transport_flush(self, &error))
			break;
		if (g_queue_is_empty(&self->outq))
			break;
		now = g_get_monotonic_time();
		if (now >= deadline)
			break;
		if (!G_IS_FILE_DESCRIPTOR_BASED(self->output))
			break;
		pfd.fd = g_file_descriptor_based_get_fd(G_FILE_DESCRIPTOR_BASED(self->output));
		pfd.events = G_IO_OUT;
		if (g_poll(&pfd, 1, (gint)((deadline - now) / 1000) + 1) <= 0)
			break;
	}
}

static void
erpc_line_transport_close(ErpcTransport *transport, gboolean abort)
{
	ErpcLineTransport *self = ERPC_LINE_TRANSPORT(transport);

	erpc_line_transport_stop_reading(self);
	if (!abort) {
		erpc_line_transport_flush_final(self);
	} else if (self->processing && !self->write_failed) {
		g_autoptr(GError) error = NULL;
		/* the answers held back for one write go out as they would have before */
		erpc_line_transport_flush(self, &error);
	}
	erpc_line_transport_stop_writing(self);
	g_queue_clear_full(&self->outq, (GDestroyNotify)g_bytes_unref);
	self->queued = 0;
	g_input_stream_close(self->input, NULL, NULL);
	g_output_stream_close(self->output, NULL, NULL);
}

static gsize
erpc_line_transport_get_queued_bytes(ErpcTransport *transport)
{
	return ERPC_LINE_TRANSPORT(transport)->queued;
}

static void
erpc_line_transport_finalize(GObject *object)
{
	ErpcLineTransport *self = ERPC_LINE_TRANSPORT(object);

	erpc_line_transport_stop_reading(self);
	erpc_line_transport_stop_writing(self);
	g_queue_clear_full(&self->outq, (GDestroyNotify)g_bytes_unref);
	g_byte_array_unref(self->partial);
	g_free(self->readbuf);
	g_clear_object(&self->input);
	g_clear_object(&self->output);
	G_OBJECT_CLASS(erpc_line_transport_parent_class)->finalize(object);
}

static void
erpc_line_transport_init(ErpcLineTransport *self)
{
	self->partial = g_byte_array_new();
	self->readbuf = g_malloc(ERPC_LINE_READ_SIZE);
	g_queue_init(&self->outq);
}

static void
erpc_line_transport_class_init(ErpcLineTransportClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	ErpcTransportClass *transport_class = ERPC_TRANSPORT_CLASS(klass);

	object_class->finalize = erpc_line_transport_finalize;
	transport_class->send = erpc_line_transport_send;
	transport_class->close = erpc_line_transport_close;
	transport_class->get_queued_bytes = erpc_line_transport_get_queued_bytes;
	transport_class->frame_kind = NULL;
}

/**
 * erpc_line_transport_new:
 * @input: a #GPollableInputStream to read lines from
 * @output: a #GPollableOutputStream to write lines to
 * @peer: a description of the peer, e.g. `stdio`
 * @max_message_size: the longest line accepted, in bytes
 *
 * Starts reading from @input at once, in the thread-default main context.
 *
 * Returns: (transfer full): a new transport
 *
 * Since: 0.1
 */
ErpcLineTransport *
erpc_line_transport_new(GInputStream *input,
			GOutputStream *output,
			const gchar *peer,
			gsize max_message_size)
{
	ErpcLineTransport *self;

	g_return_val_if_fail(G_IS_POLLABLE_INPUT_STREAM(input), NULL);
	g_return_val_if_fail(G_IS_POLLABLE_OUTPUT_STREAM(output), NULL);

	self = g_object_new(ERPC_TYPE_LINE_TRANSPORT, "peer", peer, NULL);
	self->input = g_object_ref(input);
	self->output = g_object_ref(output);
	self->max_message_size = max_message_size;
	self->in_source =
	    g_pollable_input_stream_create_source(G_POLLABLE_INPUT_STREAM(input), NULL);
	g_source_set_callback(self->in_source,
			      G_SOURCE_FUNC(erpc_line_transport_readable_cb),
			      self,
			      NULL);
	g_source_attach(self->in_source, g_main_context_get_thread_default());
	return self;
}
