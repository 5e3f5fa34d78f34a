/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GBytes *
erpc_base64_decode(const gchar *text, gsize len, gsize max_decoded, GError **error);
gboolean
erpc_base64_decode_to(const gchar *text, gsize len, guint8 *out, gsize *out_len, GError **error);
gsize
erpc_base64_decode_room(gsize len);
void
erpc_base64_append(GString *out, const guint8 *data, gsize len);

gchar *
erpc_base64_describe_error(const gchar *text, gsize len);

G_END_DECLS
