/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-call.h"

G_BEGIN_DECLS

/* for the daemon only: its dispatcher makes one call per request */

ErpcCall *
erpc_call_new(ErpcConnection *connection, ErpcMessage *request);
void
erpc_call_set_session(ErpcCall *self, ErpcSession *session);

typedef void (*ErpcCallFinishedFunc)(ErpcCall *call, gpointer user_data);
void
erpc_call_set_finished_func(ErpcCall *self, ErpcCallFinishedFunc func, gpointer user_data);

G_END_DECLS
