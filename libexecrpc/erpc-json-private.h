/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

JsonNode *
_erpc_json_parse_full(const gchar *data,
		      gsize len,
		      gsize max_size,
		      guint max_depth,
		      gboolean *clamped,
		      GError **error);

G_END_DECLS
