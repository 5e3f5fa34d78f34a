/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_SOCKET_LISTENER (esd_socket_listener_get_type())
G_DECLARE_FINAL_TYPE(EsdSocketListener, esd_socket_listener, ESD, SOCKET_LISTENER, ErpcListener)

G_END_DECLS
