/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _ErpcJsonBlobs ErpcJsonBlobs;

JsonNode *
_erpc_json_parse_full(const gchar *data,
		      gsize len,
		      gsize max_size,
		      guint max_depth,
		      gboolean *clamped,
		      ErpcJsonBlobs **blobs,
		      GError **error);
void
_erpc_json_blobs_expand(ErpcJsonBlobs *blobs, JsonNode *node);
gboolean
_erpc_json_blobs_lookup(ErpcJsonBlobs *blobs, const gchar *text, const gchar **data, gsize *len);
void
_erpc_json_blobs_free(ErpcJsonBlobs *blobs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcJsonBlobs, _erpc_json_blobs_free)

G_END_DECLS
