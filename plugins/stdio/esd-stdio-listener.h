/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_STDIO_LISTENER (esd_stdio_listener_get_type())
G_DECLARE_FINAL_TYPE(EsdStdioListener, esd_stdio_listener, ESD, STDIO_LISTENER, ErpcListener)

G_END_DECLS
