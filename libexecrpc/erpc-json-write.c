/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "erpc-base64.h"
#include "erpc-json-writer.h"
#include "erpc-json.h"

/*
 * g_string_append_len() without its checks for overlap and negative
 * lengths: the writer appends many short pieces, and GLib 2.74 has no
 * inline version
 */
static inline void
erpc_json_put(GString *out, const gchar *data, gsize len)
{
	if (G_LIKELY(out->len + len < out->allocated_len)) {
		memcpy(out->str + out->len, data, len);
		out->len += len;
		out->str[out->len] = '\0';
		return;
	}
	g_string_append_len(out, data, (gssize)len);
}

/* the decimal digits of @value, without printf: the writer's hot paths are full of integers */
static inline void
erpc_json_append_uint(GString *out, guint64 value)
{
	gchar buf[20];
	gsize pos = sizeof(buf);

	do {
		buf[--pos] = (gchar)('0' + value % 10);
		value /= 10;
	} while (value != 0);
	erpc_json_put(out, buf + pos, sizeof(buf) - pos);
}

static inline void
erpc_json_append_int(GString *out, gint64 value)
{
	if (value < 0) {
		g_string_append_c(out, '-');
		/* G_MININT64 too: negated as an unsigned number */
		erpc_json_append_uint(out, -(guint64)value);
		return;
	}
	erpc_json_append_uint(out, (guint64)value);
}

static void
erpc_json_append_double(GString *out, gdouble value)
{
	gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

	/* JSON has no infinities or NaN: written as null, as serde_json does */
	if (!isfinite(value)) {
		g_string_append(out, "null");
		return;
	}
	g_string_append(out, g_ascii_dtostr(buf, sizeof(buf), value));
}

/* the bytes written as they are: printable ASCII but the quote and the backslash */
static const guint8 erpc_json_plain[256] = {
    [0x20 ... 0x21] = 1,
    [0x23 ... 0x5b] = 1,
    [0x5d ... 0x7f] = 1,
};

#define ERPC_SWAR_ONES	  G_GUINT64_CONSTANT(0x0101010101010101)
#define ERPC_SWAR_HIGHS	  G_GUINT64_CONSTANT(0x8080808080808080)
#define ERPC_SWAR_ZERO(v) (((v)-ERPC_SWAR_ONES) & ~(v)&ERPC_SWAR_HIGHS)

/* eight bytes at a time: TRUE when all are plain (as the scanner's check) */
static inline gboolean
erpc_json_plain8(const gchar *p)
{
	guint64 w;
	memcpy(&w, p, 8);
	return ((w | (w - ERPC_SWAR_ONES * 0x20)) & ERPC_SWAR_HIGHS) == 0 &&
	       ERPC_SWAR_ZERO(w ^ (ERPC_SWAR_ONES * '"')) == 0 &&
	       ERPC_SWAR_ZERO(w ^ (ERPC_SWAR_ONES * '\\')) == 0;
}

/* @str as a quoted JSON string, from UTF-8 without ERPC_JSON_NUL */
static void
erpc_json_append_piece(GString *out, const gchar *str, gsize n)
{
	static const gchar hex[] = "0123456789abcdef";
	gsize start = 0;
	g_autofree gchar *valid = NULL;

	/* what we send is UTF-8 whatever we were given: bad sequences become U+FFFD */
	if (!g_utf8_validate_len(str, n, NULL)) {
		valid = g_utf8_make_valid(str, (gssize)n);
		str = valid;
		n = strlen(valid);
	}

	for (gsize i = 0; i < n; i++) {
		guchar c = (guchar)str[i];
		gchar esc[7];
		const gchar *rep;
		gsize rep_len = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		switch (c) {
		case '"':
			rep = "\\\"";
			break;
		case '\\':
			rep = "\\\\";
			break;
		case '\n':
			rep = "\\n";
			break;
		case '\r':
			rep = "\\r";
			break;
		case '\t':
			rep = "\\t";
			break;
		case '\b':
			rep = "\\b";
			break;
		case '\f':
			rep = "\\f";
			break;
		default:
			esc[0] = '\\';
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			esc[6] = '\0';
			rep = esc;
			rep_len = 6;
			break;
		}
		erpc_json_put(out, str + start, i - start);
		erpc_json_put(out, rep, rep_len);
		start = i + 1;
	}
	erpc_json_put(out, str + start, n - start);
}

/* the body of erpc_json_append_string(): called directly, not through the PLT */
static void
erpc_json_write_string(GString *out, const gchar *str, gssize len)
{
	gsize i = 0;
	gsize n;
	const gchar *nul;

	g_string_append_c(out, '"');
	/* the usual text, printable ASCII, is copied in one go */
	n = len < 0 ? strlen(str) : (gsize)len;
	while (i + 8 <= n && erpc_json_plain8(str + i))
		i += 8;
	while (i < n && erpc_json_plain[(guchar)str[i]])
		i++;
	erpc_json_put(out, str, i);
	/* the rest starts at a character: what follows is as if it were the whole */
	str += i;
	n -= i;
	while (n > 0 && (nul = memmem(str, n, ERPC_JSON_NUL, 2)) != NULL) {
		erpc_json_append_piece(out, str, (gsize)(nul - str));
		erpc_json_put(out, "\\u0000", 6);
		n -= (gsize)(nul - str) + 2;
		str = nul + 2;
	}
	if (n > 0)
		erpc_json_append_piece(out, str, n);
	g_string_append_c(out, '"');
}

/**
 * erpc_json_append_string:
 * @out: a #GString
 * @str: UTF-8 text
 * @len: length of @str, or -1 if it is NUL-terminated
 *
 * Appends @str as a quoted JSON string, escaping quotes, backslashes and
 * control characters; %ERPC_JSON_NUL is written as `\u0000`.
 *
 * Since: 0.1
 */
void
erpc_json_append_string(GString *out, const gchar *str, gssize len)
{
	erpc_json_write_string(out, str, len);
}

static void
erpc_json_append_value(GString *out, JsonNode *node)
{
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
		break;
	case G_TYPE_INT64:
		erpc_json_append_int(out, json_node_get_int(node));
		break;
	case G_TYPE_DOUBLE:
		erpc_json_append_double(out, json_node_get_double(node));
		break;
	case G_TYPE_STRING:
		erpc_json_write_string(out, json_node_get_string(node), -1);
		break;
	default:
		g_string_append(out, "null");
		break;
	}
}

static void
erpc_json_write_node(GString *out, JsonNode *node)
{
	if (node == NULL) {
		g_string_append(out, "null");
		return;
	}
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_OBJECT: {
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;
		gboolean first = TRUE;

		g_string_append_c(out, '{');
		json_object_iter_init_ordered(&iter, json_node_get_object(node));
		while (json_object_iter_next_ordered(&iter, &name, &member)) {
			if (!first)
				g_string_append_c(out, ',');
			first = FALSE;
			erpc_json_write_string(out, name, -1);
			g_string_append_c(out, ':');
			erpc_json_write_node(out, member);
		}
		g_string_append_c(out, '}');
		break;
	}
	case JSON_NODE_ARRAY: {
		JsonArray *array = json_node_get_array(node);
		guint len = json_array_get_length(array);

		g_string_append_c(out, '[');
		for (guint i = 0; i < len; i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			erpc_json_write_node(out, json_array_get_element(array, i));
		}
		g_string_append_c(out, ']');
		break;
	}
	case JSON_NODE_VALUE:
		erpc_json_append_value(out, node);
		break;
	case JSON_NODE_NULL:
	default:
		g_string_append(out, "null");
		break;
	}
}

/**
 * erpc_json_append_node:
 * @out: a #GString
 * @node: (nullable): a node; %NULL is written as `null`
 *
 * Appends @node as compact JSON, object members in insertion order.
 *
 * Since: 0.1
 */
void
erpc_json_append_node(GString *out, JsonNode *node)
{
	erpc_json_write_node(out, node);
}

/**
 * erpc_json_to_string:
 * @node: (nullable): a node
 *
 * Writes a node as JSON text.
 *
 * Returns: (transfer full): @node as compact JSON
 *
 * Since: 0.1
 */
gchar *
erpc_json_to_string(JsonNode *node)
{
	GString *out = g_string_new(NULL);
	erpc_json_append_node(out, node);
	return g_string_free(out, FALSE);
}

/**
 * erpc_json_writer_init:
 * @self: a #ErpcJsonWriter, usually on the stack
 * @out: the string to append to; not owned, it must outlive @self
 *
 * Prepares @self to write one JSON value at the end of @out. A writer
 * needs no clean-up.
 *
 * Since: 0.2
 */
void
erpc_json_writer_init(ErpcJsonWriter *self, GString *out)
{
	g_return_if_fail(out != NULL);
	memset(self, 0, sizeof(*self));
	self->out = out;
}

/**
 * erpc_json_writer_get_string:
 * @self: a #ErpcJsonWriter
 *
 * The text written so far.
 *
 * Returns: (transfer none): the string @self appends to
 *
 * Since: 0.2
 */
GString *
erpc_json_writer_get_string(ErpcJsonWriter *self)
{
	return self->out;
}

/* before a value: the comma, unless it is the first of its container or follows its name */
static inline void
erpc_json_writer_separate(ErpcJsonWriter *self)
{
	guint64 bit = G_GUINT64_CONSTANT(1) << self->depth;

	if (self->after_name) {
		self->after_name = FALSE;
		return;
	}
	if ((self->filled & bit) != 0)
		g_string_append_c(self->out, ',');
	else
		self->filled |= bit;
}

static void
erpc_json_writer_open(ErpcJsonWriter *self, gchar c)
{
	g_return_if_fail(self->depth < ERPC_JSON_WRITER_MAX_DEPTH);
	erpc_json_writer_separate(self);
	g_string_append_c(self->out, c);
	self->depth++;
	self->filled &= ~(G_GUINT64_CONSTANT(1) << self->depth);
}

static void
erpc_json_writer_close(ErpcJsonWriter *self, gchar c)
{
	g_return_if_fail(self->depth > 0);
	g_return_if_fail(!self->after_name);
	self->depth--;
	g_string_append_c(self->out, c);
}

/* a member name: the next value written is its value */
static inline void
erpc_json_writer_name(ErpcJsonWriter *self, const gchar *name)
{
	GString *out = self->out;
	gsize n = strlen(name);
	gsize i = 0;

	g_return_if_fail(self->depth > 0);
	g_return_if_fail(!self->after_name);
	erpc_json_writer_separate(self);
	self->after_name = TRUE;
	while (i + 8 <= n && erpc_json_plain8(name + i))
		i += 8;
	while (i < n && erpc_json_plain[(guchar)name[i]])
		i++;
	/* a plain name, as the names in code are: "name": in one go */
	if (i == n && out->len + n + 3 < out->allocated_len) {
		gchar *p = out->str + out->len;
		p[0] = '"';
		memcpy(p + 1, name, n);
		p[n + 1] = '"';
		p[n + 2] = ':';
		p[n + 3] = '\0';
		out->len += n + 3;
		return;
	}
	erpc_json_write_string(out, name, (gssize)n);
	g_string_append_c(out, ':');
}

static inline void
erpc_json_writer_put_boolean(ErpcJsonWriter *self, gboolean value)
{
	erpc_json_writer_separate(self);
	if (value)
		erpc_json_put(self->out, "true", 4);
	else
		erpc_json_put(self->out, "false", 5);
}

static inline void
erpc_json_writer_put_string(ErpcJsonWriter *self, const gchar *str, gssize len)
{
	erpc_json_writer_separate(self);
	if (str == NULL)
		erpc_json_put(self->out, "null", 4);
	else
		erpc_json_write_string(self->out, str, len);
}

/**
 * erpc_json_writer_begin_object:
 * @self: a #ErpcJsonWriter
 *
 * Starts an object: write each member with erpc_json_writer_member() and
 * its value, then call erpc_json_writer_end_object().
 *
 * Since: 0.2
 */
void
erpc_json_writer_begin_object(ErpcJsonWriter *self)
{
	erpc_json_writer_open(self, '{');
}

/**
 * erpc_json_writer_end_object:
 * @self: a #ErpcJsonWriter
 *
 * Ends the object erpc_json_writer_begin_object() started.
 *
 * Since: 0.2
 */
void
erpc_json_writer_end_object(ErpcJsonWriter *self)
{
	erpc_json_writer_close(self, '}');
}

/**
 * erpc_json_writer_begin_array:
 * @self: a #ErpcJsonWriter
 *
 * Starts an array: write its elements, then call erpc_json_writer_end_array().
 *
 * Since: 0.2
 */
void
erpc_json_writer_begin_array(ErpcJsonWriter *self)
{
	erpc_json_writer_open(self, '[');
}

/**
 * erpc_json_writer_end_array:
 * @self: a #ErpcJsonWriter
 *
 * Ends the array erpc_json_writer_begin_array() started.
 *
 * Since: 0.2
 */
void
erpc_json_writer_end_array(ErpcJsonWriter *self)
{
	erpc_json_writer_close(self, ']');
}

/**
 * erpc_json_writer_member:
 * @self: a #ErpcJsonWriter inside an object
 * @name: the member name, UTF-8; escaped as erpc_json_append_string() does
 *
 * Writes the name of the next member; the next value written is its value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_member(ErpcJsonWriter *self, const gchar *name)
{
	erpc_json_writer_name(self, name);
}

/**
 * erpc_json_writer_string:
 * @self: a #ErpcJsonWriter
 * @str: (nullable): UTF-8 text; %NULL is written as `null`
 * @len: length of @str, or -1 if it is NUL-terminated
 *
 * Writes @str as erpc_json_append_string() does: quotes, backslashes and
 * control characters escaped, %ERPC_JSON_NUL as `\u0000`, `/` and
 * non-ASCII characters as they are, invalid UTF-8 as U+FFFD.
 *
 * Since: 0.2
 */
void
erpc_json_writer_string(ErpcJsonWriter *self, const gchar *str, gssize len)
{
	erpc_json_writer_put_string(self, str, len);
}

/**
 * erpc_json_writer_begin_string:
 * @self: a #ErpcJsonWriter
 *
 * Opens a string whose text the caller appends to the returned #GString
 * itself, for text that needs no escaping and is produced in pieces
 * (base64, a percent-encoded URI): nothing appended is checked. Close it
 * with erpc_json_writer_end_string().
 *
 * Returns: (transfer none): the string to append the text to
 *
 * Since: 0.2
 */
GString *
erpc_json_writer_begin_string(ErpcJsonWriter *self)
{
	erpc_json_writer_separate(self);
	g_string_append_c(self->out, '"');
	return self->out;
}

/**
 * erpc_json_writer_end_string:
 * @self: a #ErpcJsonWriter
 *
 * Closes the string erpc_json_writer_begin_string() opened.
 *
 * Since: 0.2
 */
void
erpc_json_writer_end_string(ErpcJsonWriter *self)
{
	g_string_append_c(self->out, '"');
}

/**
 * erpc_json_writer_base64:
 * @self: a #ErpcJsonWriter
 * @data: (array length=len): bytes
 * @len: length of @data
 *
 * Writes @data as a string in standard base64 with padding, encoded
 * straight into the output.
 *
 * Since: 0.2
 */
void
erpc_json_writer_base64(ErpcJsonWriter *self, const guint8 *data, gsize len)
{
	erpc_json_writer_separate(self);
	g_string_append_c(self->out, '"');
	erpc_base64_append(self->out, data, len);
	g_string_append_c(self->out, '"');
}

/**
 * erpc_json_writer_int:
 * @self: a #ErpcJsonWriter
 * @value: a number
 *
 * Writes a signed integer value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_int(ErpcJsonWriter *self, gint64 value)
{
	erpc_json_writer_separate(self);
	erpc_json_append_int(self->out, value);
}

/**
 * erpc_json_writer_uint:
 * @self: a #ErpcJsonWriter
 * @value: a number, all 64 bits of it
 *
 * Writes an unsigned integer value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_uint(ErpcJsonWriter *self, guint64 value)
{
	erpc_json_writer_separate(self);
	erpc_json_append_uint(self->out, value);
}

/**
 * erpc_json_writer_double:
 * @self: a #ErpcJsonWriter
 * @value: a number
 *
 * Writes @value as erpc_json_append_node() does: the shortest text that
 * reads back to the same double, `null` for infinities and NaN.
 *
 * Since: 0.2
 */
void
erpc_json_writer_double(ErpcJsonWriter *self, gdouble value)
{
	erpc_json_writer_separate(self);
	erpc_json_append_double(self->out, value);
}

/**
 * erpc_json_writer_boolean:
 * @self: a #ErpcJsonWriter
 * @value: a truth value
 *
 * Writes a boolean value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_boolean(ErpcJsonWriter *self, gboolean value)
{
	erpc_json_writer_put_boolean(self, value);
}

/**
 * erpc_json_writer_null:
 * @self: a #ErpcJsonWriter
 *
 * Writes `null`.
 *
 * Since: 0.2
 */
void
erpc_json_writer_null(ErpcJsonWriter *self)
{
	erpc_json_writer_separate(self);
	erpc_json_put(self->out, "null", 4);
}

/**
 * erpc_json_writer_node:
 * @self: a #ErpcJsonWriter
 * @node: (nullable): a tree; %NULL is written as `null`
 *
 * Writes @node as erpc_json_append_node() does.
 *
 * Since: 0.2
 */
void
erpc_json_writer_node(ErpcJsonWriter *self, JsonNode *node)
{
	erpc_json_writer_separate(self);
	erpc_json_write_node(self->out, node);
}

/**
 * erpc_json_writer_raw:
 * @self: a #ErpcJsonWriter
 * @json: one value, already serialized as compact JSON
 * @len: length of @json, or -1 if it is NUL-terminated
 *
 * Writes @json as it is, for a value another writer produced.
 *
 * Since: 0.2
 */
void
erpc_json_writer_raw(ErpcJsonWriter *self, const gchar *json, gssize len)
{
	erpc_json_writer_separate(self);
	g_string_append_len(self->out, json, len);
}

/**
 * erpc_json_writer_member_string:
 * @self: a #ErpcJsonWriter inside an object
 * @name: the member name
 * @value: (nullable): its value; %NULL is written as `null`
 *
 * Writes a member whose value is a string, as erpc_json_writer_string().
 *
 * Since: 0.2
 */
void
erpc_json_writer_member_string(ErpcJsonWriter *self, const gchar *name, const gchar *value)
{
	erpc_json_writer_name(self, name);
	erpc_json_writer_put_string(self, value, -1);
}

/**
 * erpc_json_writer_member_int:
 * @self: a #ErpcJsonWriter inside an object
 * @name: the member name
 * @value: its value
 *
 * Writes a member with a signed integer value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_member_int(ErpcJsonWriter *self, const gchar *name, gint64 value)
{
	erpc_json_writer_name(self, name);
	erpc_json_writer_separate(self);
	erpc_json_append_int(self->out, value);
}

/**
 * erpc_json_writer_member_uint:
 * @self: a #ErpcJsonWriter inside an object
 * @name: the member name
 * @value: its value
 *
 * Writes a member with an unsigned integer value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_member_uint(ErpcJsonWriter *self, const gchar *name, guint64 value)
{
	erpc_json_writer_name(self, name);
	erpc_json_writer_separate(self);
	erpc_json_append_uint(self->out, value);
}

/**
 * erpc_json_writer_member_boolean:
 * @self: a #ErpcJsonWriter inside an object
 * @name: the member name
 * @value: its value
 *
 * Writes a member with a boolean value.
 *
 * Since: 0.2
 */
void
erpc_json_writer_member_boolean(ErpcJsonWriter *self, const gchar *name, gboolean value)
{
	erpc_json_writer_name(self, name);
	erpc_json_writer_put_boolean(self, value);
}
