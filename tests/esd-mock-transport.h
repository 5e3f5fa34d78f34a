/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>

G_BEGIN_DECLS

/* a transport that records what the server sends, for in-process tests */
#define ESD_TYPE_MOCK_TRANSPORT (esd_mock_transport_get_type())
G_DECLARE_FINAL_TYPE(EsdMockTransport, esd_mock_transport, ESD, MOCK_TRANSPORT, ErpcTransport)

EsdMockTransport *
esd_mock_transport_new(void);
void
esd_mock_transport_inject(EsdMockTransport *self, const gchar *data, gssize len);
GPtrArray *
esd_mock_transport_get_sent(EsdMockTransport *self);
const gchar *
esd_mock_transport_get_last(EsdMockTransport *self);
gboolean
esd_mock_transport_get_closed(EsdMockTransport *self);
gboolean
esd_mock_transport_get_aborted(EsdMockTransport *self);
gboolean
esd_mock_transport_wait_for(EsdMockTransport *self, guint n_sent, guint timeout_ms);

G_END_DECLS
