/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "esd-ws-input.h"

/*
 * A pollable input stream that reads its base in large blocks. libsoup 3.2
 * reads a WebSocket 1 KiB at a time, so a 64 MiB message would take 64,000
 * system calls; through this stream it takes a few hundred, and libsoup's
 * small reads are served from memory.
 */

#define ESD_WS_INPUT_BLOCK (256 * 1024)

struct _EsdWsInput {
	GInputStream parent_instance;
	GInputStream *base;
	guint8 *buf;
	gsize start;
	gsize end;
};

static void esd_ws_input_pollable_iface_init(GPollableInputStreamInterface *iface);

G_DEFINE_TYPE_WITH_CODE(EsdWsInput,
			esd_ws_input,
			G_TYPE_INPUT_STREAM,
			G_IMPLEMENT_INTERFACE(G_TYPE_POLLABLE_INPUT_STREAM,
					      esd_ws_input_pollable_iface_init))

static gsize
esd_ws_input_take(EsdWsInput *self, void *buffer, gsize count)
{
	gsize n = MIN(count, self->end - self->start);
	memcpy(buffer, self->buf + self->start, n);
	self->start += n;
	return n;
}

static gssize
esd_ws_input_read_nonblocking(GPollableInputStream *pollable,
			      void *buffer,
			      gsize count,
			      GError **error)
{
	EsdWsInput *self = ESD_WS_INPUT(pollable);
	gssize n;

	if (self->start < self->end)
		return (gssize)esd_ws_input_take(self, buffer, count);
	/* a large caller reads straight through */
	if (count >= ESD_WS_INPUT_BLOCK)
		return g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(self->base),
								buffer,
								count,
								NULL,
								error);
	n = g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(self->base),
						     self->buf,
						     ESD_WS_INPUT_BLOCK,
						     NULL,
						     error);
	if (n <= 0)
		return n;
	self->start = 0;
	self->end = (gsize)n;
	return (gssize)esd_ws_input_take(self, buffer, count);
}

static gboolean
esd_ws_input_is_readable(GPollableInputStream *pollable)
{
	EsdWsInput *self = ESD_WS_INPUT(pollable);
	if (self->start < self->end)
		return TRUE;
	return g_pollable_input_stream_is_readable(G_POLLABLE_INPUT_STREAM(self->base));
}

static gboolean
esd_ws_input_can_poll(GPollableInputStream *pollable)
{
	return TRUE;
}

static GSource *
esd_ws_input_create_source(GPollableInputStream *pollable, GCancellable *cancellable)
{
	EsdWsInput *self = ESD_WS_INPUT(pollable);
	g_autoptr(GSource) child = NULL;

	/* buffered data is ready now; otherwise wait for the socket */
	if (self->start < self->end)
		child = g_timeout_source_new(0);
	else
		child = g_pollable_input_stream_create_source(G_POLLABLE_INPUT_STREAM(self->base),
							      cancellable);
	return g_pollable_source_new_full(self, child, cancellable);
}

static gssize
esd_ws_input_read(GInputStream *stream,
		  void *buffer,
		  gsize count,
		  GCancellable *cancellable,
		  GError **error)
{
	EsdWsInput *self = ESD_WS_INPUT(stream);
	if (self->start < self->end)
		return (gssize)esd_ws_input_take(self, buffer, count);
	return g_input_stream_read(self->base, buffer, count, cancellable, error);
}

static gboolean
esd_ws_input_close(GInputStream *stream, GCancellable *cancellable, GError **error)
{
	EsdWsInput *self = ESD_WS_INPUT(stream);
	return g_input_stream_close(self->base, cancellable, error);
}

static void
esd_ws_input_finalize(GObject *object)
{
	EsdWsInput *self = ESD_WS_INPUT(object);
	g_object_unref(self->base);
	g_free(self->buf);
	G_OBJECT_CLASS(esd_ws_input_parent_class)->finalize(object);
}

static void
esd_ws_input_pollable_iface_init(GPollableInputStreamInterface *iface)
{
	iface->can_poll = esd_ws_input_can_poll;
	iface->is_readable = esd_ws_input_is_readable;
	iface->create_source = esd_ws_input_create_source;
	iface->read_nonblocking = esd_ws_input_read_nonblocking;
}

static void
esd_ws_input_init(EsdWsInput *self)
{
}

static void
esd_ws_input_class_init(EsdWsInputClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_ws_input_finalize;
	G_INPUT_STREAM_CLASS(klass)->read_fn = esd_ws_input_read;
	G_INPUT_STREAM_CLASS(klass)->close_fn = esd_ws_input_close;
}

GInputStream *
esd_ws_input_new(GInputStream *base)
{
	EsdWsInput *self;

	g_return_val_if_fail(G_IS_POLLABLE_INPUT_STREAM(base), NULL);
	self = g_object_new(ESD_TYPE_WS_INPUT, NULL);
	self->base = g_object_ref(base);
	self->buf = g_malloc(ESD_WS_INPUT_BLOCK);
	return G_INPUT_STREAM(self);
}
