/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ErpcJsonWriter:
 *
 * Writes compact JSON into a #GString as it goes, with the separators in
 * place: the way every message of the daemon is built, without a tree.
 * It lives on the stack and owns nothing; initialize it with
 * erpc_json_writer_init(). Strings are written as erpc_json_append_string()
 * writes them, doubles as erpc_json_append_node() does.
 *
 * |[<!-- language="C" -->
 * ErpcJsonWriter writer;
 * erpc_json_writer_init(&writer, out);
 * erpc_json_writer_begin_object(&writer);
 * erpc_json_writer_member_string(&writer, "path", path);
 * erpc_json_writer_member_boolean(&writer, "truncated", FALSE);
 * erpc_json_writer_end_object(&writer);
 * ]|
 *
 * Since: 0.2
 */
typedef struct {
	/*< private >*/
	GString *out;
	guint64 filled; /* bit n: the container at depth n holds a value */
	guint depth;
	gboolean after_name;
	gpointer padding[2];
} ErpcJsonWriter;

/**
 * ERPC_JSON_WRITER_MAX_DEPTH:
 *
 * The deepest nesting of containers a #ErpcJsonWriter writes itself
 * (erpc_json_writer_node() has no limit).
 *
 * Since: 0.2
 */
#define ERPC_JSON_WRITER_MAX_DEPTH 63

void
erpc_json_writer_init(ErpcJsonWriter *self, GString *out);
GString *
erpc_json_writer_get_string(ErpcJsonWriter *self);

void
erpc_json_writer_begin_object(ErpcJsonWriter *self);
void
erpc_json_writer_end_object(ErpcJsonWriter *self);
void
erpc_json_writer_begin_array(ErpcJsonWriter *self);
void
erpc_json_writer_end_array(ErpcJsonWriter *self);
void
erpc_json_writer_member(ErpcJsonWriter *self, const gchar *name);

void
erpc_json_writer_string(ErpcJsonWriter *self, const gchar *str, gssize len);
GString *
erpc_json_writer_begin_string(ErpcJsonWriter *self);
void
erpc_json_writer_end_string(ErpcJsonWriter *self);
void
erpc_json_writer_base64(ErpcJsonWriter *self, const guint8 *data, gsize len);
void
erpc_json_writer_int(ErpcJsonWriter *self, gint64 value);
void
erpc_json_writer_uint(ErpcJsonWriter *self, guint64 value);
void
erpc_json_writer_double(ErpcJsonWriter *self, gdouble value);
void
erpc_json_writer_boolean(ErpcJsonWriter *self, gboolean value);
void
erpc_json_writer_null(ErpcJsonWriter *self);
void
erpc_json_writer_node(ErpcJsonWriter *self, JsonNode *node);
void
erpc_json_writer_raw(ErpcJsonWriter *self, const gchar *json, gssize len);

void
erpc_json_writer_member_string(ErpcJsonWriter *self, const gchar *name, const gchar *value);
void
erpc_json_writer_member_int(ErpcJsonWriter *self, const gchar *name, gint64 value);
void
erpc_json_writer_member_uint(ErpcJsonWriter *self, const gchar *name, guint64 value);
void
erpc_json_writer_member_boolean(ErpcJsonWriter *self, const gchar *name, gboolean value);

G_END_DECLS
