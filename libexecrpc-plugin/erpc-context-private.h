/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "erpc-context.h"

G_BEGIN_DECLS

/* for the daemon only: it makes the one context and sets its services */
ErpcContext *
erpc_context_new(void);

/* the sandbox service */
void
erpc_context_set_sandbox(ErpcContext *self, ErpcSandbox *sandbox);

G_END_DECLS
