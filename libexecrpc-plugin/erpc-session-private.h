/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-session.h"

G_BEGIN_DECLS

/* for the daemon only: its session type attaches and detaches
 * connections and hands over the client's answers */

ErpcConnection *
erpc_session_get_connection(ErpcSession *self);
void
erpc_session_set_connection(ErpcSession *self, ErpcConnection *connection);
gboolean
erpc_session_handle_response(ErpcSession *self, ErpcMessage *message);

typedef void (*ErpcSessionNotifyObserver)(ErpcSession *self, const gchar *method, JsonNode *params);
void
erpc_session_set_notify_observer(ErpcSession *self, ErpcSessionNotifyObserver observer);

G_END_DECLS
