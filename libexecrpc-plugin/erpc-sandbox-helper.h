/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-call.h"
#include "erpc-plugin.h"

G_BEGIN_DECLS

GBytes *
erpc_sandbox_helper_run_request(ErpcPlugin *plugin,
				ErpcMessage *request,
				gsize max_message_size,
				guint max_depth,
				ErpcCall **call,
				GError **error) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
