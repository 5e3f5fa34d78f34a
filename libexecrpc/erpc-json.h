/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ERPC_JSON_MAX_DEPTH:
 *
 * The default nesting limit for peer input. json-glib 1.6 has no limit of its
 * own, so input is pre-scanned before it is parsed.
 *
 * Since: 0.1
 */
#define ERPC_JSON_MAX_DEPTH 64

/**
 * ERPC_JSON_NUL:
 *
 * How a parsed string carries a NUL character (`\u0000`): the overlong
 * sequence C0 80, as modified UTF-8 writes it. No valid input holds it and
 * no C function stops at it; erpc_json_append_string() writes it as
 * `\u0000` again.
 *
 * Since: 0.1
 */
#define ERPC_JSON_NUL "\xc0\x80"

gboolean
erpc_json_check(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error);

/**
 * ErpcJsonPlainMap: (skip)
 *
 * Which 64 KiB blocks of a message a transport saw holding only plain
 * string bytes; see erpc_json_plain_map_new(). Opaque.
 *
 * Since: 0.1
 */
typedef struct _ErpcJsonPlainMap ErpcJsonPlainMap;

ErpcJsonPlainMap *
erpc_json_plain_map_new(void);
void
erpc_json_plain_map_add(ErpcJsonPlainMap *self, gsize offset, const gchar *data, gsize len);
void
erpc_json_plain_map_free(ErpcJsonPlainMap *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcJsonPlainMap, erpc_json_plain_map_free)
JsonNode *
erpc_json_parse(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error);

gboolean
erpc_json_string_has_nul(const gchar *str);

gchar *
erpc_json_describe(JsonNode *node);
gboolean
erpc_json_value_type_error(JsonNode *node, const gchar *expected, GError **error);
gboolean
erpc_json_check_unit(JsonNode *params, GError **error);
JsonObject *
erpc_json_params_object(JsonNode *params, const gchar *struct_name, GError **error);

gboolean
erpc_json_require_string(JsonObject *obj, const gchar *member, const gchar **out, GError **error);
gboolean
erpc_json_get_string(JsonObject *obj,
		     const gchar *member,
		     const gchar *default_value,
		     const gchar **out,
		     GError **error);
gboolean
erpc_json_require_boolean(JsonObject *obj, const gchar *member, gboolean *out, GError **error);
gboolean
erpc_json_get_boolean(JsonObject *obj,
		      const gchar *member,
		      gboolean default_value,
		      gboolean *out,
		      GError **error);
gboolean
erpc_json_require_int64(JsonObject *obj, const gchar *member, gint64 *out, GError **error);
gboolean
erpc_json_get_int64(JsonObject *obj,
		    const gchar *member,
		    gint64 default_value,
		    gint64 *out,
		    GError **error);
gboolean
erpc_json_require_uint64(JsonObject *obj, const gchar *member, guint64 *out, GError **error);
gboolean
erpc_json_get_uint64(JsonObject *obj,
		     const gchar *member,
		     guint64 default_value,
		     guint64 *out,
		     GError **error);
gboolean
erpc_json_require_object(JsonObject *obj, const gchar *member, JsonObject **out, GError **error);
gboolean
erpc_json_get_object(JsonObject *obj, const gchar *member, JsonObject **out, GError **error);
gboolean
erpc_json_require_array(JsonObject *obj, const gchar *member, JsonArray **out, GError **error);
gboolean
erpc_json_get_array(JsonObject *obj, const gchar *member, JsonArray **out, GError **error);
gboolean
erpc_json_require_strv(JsonObject *obj, const gchar *member, gchar ***out, GError **error);
gboolean
erpc_json_get_enum(JsonObject *obj,
		   const gchar *member,
		   const gchar *const *variants,
		   gint default_value,
		   gint *out,
		   GError **error);

void
erpc_json_append_string(GString *out, const gchar *str, gssize len);
void
erpc_json_append_node(GString *out, JsonNode *node);
gchar *
erpc_json_to_string(JsonNode *node);

G_END_DECLS
