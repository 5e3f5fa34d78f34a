/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "erpc-call.h"

G_BEGIN_DECLS

/* for the daemon only: its dispatcher makes one call per request */

ErpcCall *
erpc_call_new(ErpcConnection *connection, ErpcMessage *request);
void
erpc_call_set_session(ErpcCall *self, ErpcSession *session);

G_END_DECLS
