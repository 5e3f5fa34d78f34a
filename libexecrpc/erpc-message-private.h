/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-json.h"
#include "erpc-message.h"

G_BEGIN_DECLS

gboolean
_erpc_message_take_blob(ErpcMessage *self, JsonNode *node, const gchar **data, gsize *len);

ErpcMessage *
_erpc_message_parse_refusable(GBytes *frame,
			      const gchar *data,
			      gsize len,
			      gsize max_size,
			      guint max_depth,
			      const ErpcJsonPlainMap *plain,
			      JsonNode **refused_id,
			      GError **error);

G_END_DECLS
