/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GByteArray *
esd_ws_buffer_take(guint64 first_frame_len);
GBytes *
esd_ws_buffer_to_bytes(GByteArray *array);
void
esd_ws_buffer_note_read(gsize len);
guint8 *
esd_ws_buffer_borrow(gsize size);
void
esd_ws_buffer_give_back(guint8 *buf);

G_END_DECLS
