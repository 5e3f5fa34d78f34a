/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_WS_TRANSPORT (esd_ws_transport_get_type())
G_DECLARE_FINAL_TYPE(EsdWsTransport, esd_ws_transport, ESD, WS_TRANSPORT, ErpcTransport)

EsdWsTransport *
esd_ws_transport_new(GIOStream *stream, GSocket *socket, const gchar *peer, gsize max_message_size);

G_END_DECLS
