/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-mock-transport.h"

struct _EsdMockTransport {
	ErpcTransport parent_instance;
	GPtrArray *sent;
	gboolean closed;
	gboolean aborted;
};

G_DEFINE_TYPE(EsdMockTransport, esd_mock_transport, ERPC_TYPE_TRANSPORT)

static void
esd_mock_transport_send(ErpcTransport *transport, GBytes *message)
{
	EsdMockTransport *self = ESD_MOCK_TRANSPORT(transport);
	gsize len = 0;
	const gchar *data = g_bytes_get_data(message, &len);
	g_ptr_array_add(self->sent, g_strndup(data, len));
}

static void
esd_mock_transport_close(ErpcTransport *transport, gboolean abort)
{
	EsdMockTransport *self = ESD_MOCK_TRANSPORT(transport);
	self->closed = TRUE;
	self->aborted = abort;
}

/* delivers one frame as if the peer had sent it */
void
esd_mock_transport_inject(EsdMockTransport *self, const gchar *data, gssize len)
{
	erpc_transport_emit_message(ERPC_TRANSPORT(self),
				    data,
				    len < 0 ? strlen(data) : (gsize)len);
}

GPtrArray *
esd_mock_transport_get_sent(EsdMockTransport *self)
{
	return self->sent;
}

const gchar *
esd_mock_transport_get_last(EsdMockTransport *self)
{
	if (self->sent->len == 0)
		return NULL;
	return g_ptr_array_index(self->sent, self->sent->len - 1);
}

gboolean
esd_mock_transport_get_closed(EsdMockTransport *self)
{
	return self->closed;
}

gboolean
esd_mock_transport_get_aborted(EsdMockTransport *self)
{
	return self->aborted;
}

/* iterates the default main context until n_sent messages were sent */
gboolean
esd_mock_transport_wait_for(EsdMockTransport *self, guint n_sent, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	while (self->sent->len < n_sent && g_get_monotonic_time() < deadline)
		g_main_context_iteration(NULL, FALSE);
	return self->sent->len >= n_sent;
}

static void
esd_mock_transport_finalize(GObject *object)
{
	g_ptr_array_unref(ESD_MOCK_TRANSPORT(object)->sent);
	G_OBJECT_CLASS(esd_mock_transport_parent_class)->finalize(object);
}

static void
esd_mock_transport_init(EsdMockTransport *self)
{
	self->sent = g_ptr_array_new_with_free_func(g_free);
}

static void
esd_mock_transport_class_init(EsdMockTransportClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_mock_transport_finalize;
	ERPC_TRANSPORT_CLASS(klass)->send = esd_mock_transport_send;
	ERPC_TRANSPORT_CLASS(klass)->close = esd_mock_transport_close;
	ERPC_TRANSPORT_CLASS(klass)->frame_kind = "mock";
}

EsdMockTransport *
esd_mock_transport_new(void)
{
	return g_object_new(ESD_TYPE_MOCK_TRANSPORT, "peer", "mock peer", NULL);
}
