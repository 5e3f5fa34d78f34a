/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define ESD_TYPE_WS_STREAM (esd_ws_stream_get_type())
G_DECLARE_FINAL_TYPE(EsdWsStream, esd_ws_stream, ESD, WS_STREAM, GIOStream)

GIOStream *
esd_ws_stream_new(GIOStream *base);

G_END_DECLS
