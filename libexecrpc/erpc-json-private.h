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
		      GError **soft,
		      gboolean *id_bad,
		      GError **error);
void
_erpc_json_blobs_expand(ErpcJsonBlobs *blobs, JsonNode *node);
gboolean
_erpc_json_blobs_lookup(ErpcJsonBlobs *blobs, const gchar *text, const gchar **data, gsize *len);
void
_erpc_json_blobs_free(ErpcJsonBlobs *blobs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcJsonBlobs, _erpc_json_blobs_free)

/* erpc-json-rewrite.c: what json-glib cannot carry */
typedef enum {
	ERPC_JSON_ESCAPE_PLAIN, /* any other valid escape, a surrogate pair too */
	ERPC_JSON_ESCAPE_NUL,	/* \u0000 */
	ERPC_JSON_ESCAPE_MARK,	/* \ufdd0, the rewrite's own escape character */
	ERPC_JSON_ESCAPE_BAD,	/* unknown escape, short \u, lone surrogate */
	ERPC_JSON_ESCAPE_EOF,	/* the input ends inside the escape */
} ErpcJsonEscape;

ErpcJsonEscape
_erpc_json_read_escape(const gchar *data,
		       gsize len,
		       gsize pos,
		       gsize *end,
		       const gchar **why,
		       gsize *where);
gboolean
_erpc_json_number_fits(const gchar *token, gsize len);
GString *
_erpc_json_rewrite(const gchar *data, gsize len);
void
_erpc_json_decode(JsonNode *root, gboolean *id_bad);

G_END_DECLS
