/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define ESD_TYPE_WS_INPUT (esd_ws_input_get_type())
G_DECLARE_FINAL_TYPE(EsdWsInput, esd_ws_input, ESD, WS_INPUT, GInputStream)

GInputStream *
esd_ws_input_new(GInputStream *base);

G_END_DECLS
