/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "esd-ws-input.h"
#include "esd-ws-stream.h"

/* an accepted connection whose input is read in large blocks (EsdWsInput) */

struct _EsdWsStream {
	GIOStream parent_instance;
	GIOStream *base;
	GInputStream *input;
};

G_DEFINE_TYPE(EsdWsStream, esd_ws_stream, G_TYPE_IO_STREAM)

static GInputStream *
esd_ws_stream_get_input_stream(GIOStream *stream)
{
	return ESD_WS_STREAM(stream)->input;
}

static GOutputStream *
esd_ws_stream_get_output_stream(GIOStream *stream)
{
	return g_io_stream_get_output_stream(ESD_WS_STREAM(stream)->base);
}

static gboolean
esd_ws_stream_close(GIOStream *stream, GCancellable *cancellable, GError **error)
{
	return g_io_stream_close(ESD_WS_STREAM(stream)->base, cancellable, error);
}

static void
esd_ws_stream_finalize(GObject *object)
{
	EsdWsStream *self = ESD_WS_STREAM(object);
	g_object_unref(self->input);
	g_object_unref(self->base);
	G_OBJECT_CLASS(esd_ws_stream_parent_class)->finalize(object);
}

static void
esd_ws_stream_init(EsdWsStream *self)
{
}

static void
esd_ws_stream_class_init(EsdWsStreamClass *klass)
{
	GIOStreamClass *stream_class = G_IO_STREAM_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = esd_ws_stream_finalize;
	stream_class->get_input_stream = esd_ws_stream_get_input_stream;
	stream_class->get_output_stream = esd_ws_stream_get_output_stream;
	stream_class->close_fn = esd_ws_stream_close;
}

GIOStream *
esd_ws_stream_new(GIOStream *base)
{
	EsdWsStream *self = g_object_new(ESD_TYPE_WS_STREAM, NULL);
	self->base = g_object_ref(base);
	self->input = esd_ws_input_new(g_io_stream_get_input_stream(base));
	return G_IO_STREAM(self);
}
