/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GBytes *
erpc_base64_decode(const gchar *text, gsize len, gsize max_decoded, GError **error);
void
erpc_base64_append(GString *out, const guint8 *data, gsize len);

gchar *
erpc_base64_describe_error(const gchar *text, gsize len);

G_END_DECLS
