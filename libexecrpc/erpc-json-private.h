/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

#include "erpc-json.h"

G_BEGIN_DECLS

/* erpc-json-scan.c: the bounded pre-scan */

/* strings at least this long are kept out of json-glib, which is slow on them */
#define ERPC_JSON_BIG_STRING (256 * 1024)

typedef struct {
	gsize start; /* first byte after the opening quote, or of the number */
	gsize len;
	guint clamp; /* ERPC_JSON_SPAN_* */
} ErpcJsonSpan;

/* what a span stands for */
enum {
	ERPC_JSON_SPAN_STRING = 0, /* a big string, kept out of json-glib */
	ERPC_JSON_SPAN_CLAMP = 1,  /* an unsigned integer beyond i64, read as G_MAXINT64 */
	ERPC_JSON_SPAN_FLOAT = 2,  /* an integer beyond 64 bits, read as a float, as serde does */
};

/* erpc_json_plain_map_*(): which blocks of a message hold only plain string bytes */
#define ERPC_JSON_PLAIN_SHIFT 16

struct _ErpcJsonPlainMap {
	GByteArray *special; /* per block: TRUE once a byte that is not plain was added */
	gsize end;	     /* bytes added, from offset 0 on, without a gap */
	gboolean broken;     /* bytes were added out of order: the map says nothing */
};

/* what the scan found besides hard errors */
typedef struct {
	const ErpcJsonPlainMap *plain; /* nullable: of the data scanned, whole */
	GArray *spans;		       /* big strings and wide numbers, when wanted */
	gboolean want_spans;
	gboolean want_big; /* big strings too */
	GError *soft;	   /* the first problem inside a string: the message is still read */
	gsize soft_pos;
	gboolean rewrite; /* escaped NULs, soft problems or numbers beyond a double */
} ErpcJsonScan;

void
_erpc_json_scan_clear(ErpcJsonScan *scan);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ErpcJsonScan, _erpc_json_scan_clear)

gboolean
_erpc_json_scan(const gchar *data,
		gsize len,
		gsize max_size,
		guint max_depth,
		ErpcJsonScan *scan,
		GError **error);

/* erpc-json-parse.c */
typedef struct _ErpcJsonBlobs ErpcJsonBlobs;

JsonNode *
_erpc_json_parse_full(const gchar *data,
		      gsize len,
		      gsize max_size,
		      guint max_depth,
		      const ErpcJsonPlainMap *plain,
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
