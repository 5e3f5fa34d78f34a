/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <math.h>
#include <string.h>

#include "erpc-json.h"

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
		g_string_append_len(out, str + start, (gssize)(i - start));
		g_string_append_len(out, rep, (gssize)rep_len);
		start = i + 1;
	}
	g_string_append_len(out, str + start, (gssize)(n - start));
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
	gsize n = len < 0 ? strlen(str) : (gsize)len;
	const gchar *nul;

	g_string_append_c(out, '"');
	while ((nul = memmem(str, n, ERPC_JSON_NUL, 2)) != NULL) {
		erpc_json_append_piece(out, str, (gsize)(nul - str));
		g_string_append(out, "\\u0000");
		n -= (gsize)(nul - str) + 2;
		str = nul + 2;
	}
	erpc_json_append_piece(out, str, n);
	g_string_append_c(out, '"');
}

static void
erpc_json_append_value(GString *out, JsonNode *node)
{
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
		break;
	case G_TYPE_INT64:
		g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
		break;
	case G_TYPE_DOUBLE: {
		gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
		gdouble value = json_node_get_double(node);
		/* JSON has no infinities or NaN: written as null, as serde_json does */
		if (!isfinite(value)) {
			g_string_append(out, "null");
			break;
		}
		g_string_append(out, g_ascii_dtostr(buf, sizeof(buf), value));
		break;
	}
	case G_TYPE_STRING:
		erpc_json_append_string(out, json_node_get_string(node), -1);
		break;
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
			erpc_json_append_string(out, name, -1);
			g_string_append_c(out, ':');
			erpc_json_append_node(out, member);
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
			erpc_json_append_node(out, json_array_get_element(array, i));
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
 * erpc_json_to_string:
 * @node: (nullable): a node
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
