/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_WS_LISTENER (esd_ws_listener_get_type())
G_DECLARE_FINAL_TYPE(EsdWsListener, esd_ws_listener, ESD, WS_LISTENER, ErpcListener)

G_END_DECLS
