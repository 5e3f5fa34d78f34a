/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-transport.h"

G_BEGIN_DECLS

#define ERPC_TYPE_LINE_TRANSPORT (erpc_line_transport_get_type())
G_DECLARE_FINAL_TYPE(ErpcLineTransport, erpc_line_transport, ERPC, LINE_TRANSPORT, ErpcTransport)

ErpcLineTransport *
erpc_line_transport_new(GInputStream *input,
			GOutputStream *output,
			const gchar *peer,
			gsize max_message_size);

G_END_DECLS
