/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "erpc-error.h"
#include "erpc-json.h"

/* longest string value quoted back in an error message */
#define ERPC_JSON_DESCRIBE_MAX 64

/*
 * A float the way serde's type errors show one: the shortest digits that
 * read back to the same value, in plain decimal notation, with a ".0" when
 * the value is integral (`1.0`, `18446744073709552000.0`, `0.0001`).
 */
static gchar *
erpc_json_float_display(gdouble value)
{
	gchar digits[64];
	g_autoptr(GString) out = g_string_new(NULL);
	const gchar *mantissa;
	gchar *e;
	gint exponent;
	gint n_digits;
	gint point;

	if (!isfinite(value))
		return g_strdup(isnan(value) ? "NaN" : value > 0 ? "inf" : "-inf");
	/* the shortest precision that round-trips */
	for (gint precision = 0; precision < 17; precision++) {
		g_snprintf(digits, sizeof(digits), "%.*e", precision, value);
		if (g_ascii_strtod(digits, NULL) == value)
			break;
	}
	if (digits[0] == '-') {
		g_string_append_c(out, '-');
		mantissa = digits + 1;
	} else {
		mantissa = digits;
	}
	e = strchr(mantissa, 'e');
	exponent = (gint)g_ascii_strtoll(e + 1, NULL, 10);
	*e = '\0';
	/* the significant digits without the point: d.ddd */
	{
		g_autoptr(GString) sig = g_string_new(NULL);
		for (const gchar *c = mantissa; *c != '\0'; c++) {
			if (*c != '.')
				g_string_append_c(sig, *c);
		}
		n_digits = (gint)sig->len;
		point = exponent + 1; /* digits before the point */
		if (point <= 0) {
			g_string_append(out, "0.");
			for (gint k = 0; k < -point; k++)
				g_string_append_c(out, '0');
			g_string_append(out, sig->str);
		} else if (point >= n_digits) {
			g_string_append(out, sig->str);
			for (gint k = n_digits; k < point; k++)
				g_string_append_c(out, '0');
			g_string_append(out, ".0");
		} else {
			g_string_append_len(out, sig->str, point);
			g_string_append_c(out, '.');
			g_string_append(out, sig->str + point);
		}
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* @str (@len bytes) as Rust's Debug shows a string, without the quotes */
static void
erpc_json_append_debug(GString *out, const gchar *str, gsize len)
{
	g_autofree gchar *valid = NULL;

	for (gsize i = 0; i < len; i++) {
		guchar c = (guchar)str[i];
		if (c == 0xc0 && i + 1 < len && (guchar)str[i + 1] == 0x80) {
			g_string_append(out, "\\0");
			i++;
		} else if (c == '"' || c == '\\') {
			g_string_append_c(out, '\\');
			g_string_append_c(out, (gchar)c);
		} else if (c == '\n') {
			g_string_append(out, "\\n");
		} else if (c == '\r') {
			g_string_append(out, "\\r");
		} else if (c == '\t') {
			g_string_append(out, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			g_string_append_printf(out, "\\u{%x}", c);
		} else {
			g_string_append_c(out, (gchar)c);
		}
	}
	/* what we send is UTF-8 whatever we were given */
	if (!g_utf8_validate(out->str, (gssize)out->len, NULL)) {
		valid = g_utf8_make_valid(out->str, (gssize)out->len);
		g_string_assign(out, valid);
	}
}

/**
 * erpc_json_describe:
 * @node: (nullable): a node
 *
 * Describes a value the way type errors on the wire name it, for example
 * `integer `5``, `string "x"`, `map` or `null`.
 *
 * Returns: (transfer full): a description
 *
 * Since: 0.1
 */
gchar *
erpc_json_describe(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_strdup("null");
	if (JSON_NODE_HOLDS_OBJECT(node))
		return g_strdup("map");
	if (JSON_NODE_HOLDS_ARRAY(node))
		return g_strdup("sequence");
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		return g_strdup_printf("boolean `%s`",
				       json_node_get_boolean(node) ? "true" : "false");
	case G_TYPE_INT64:
		return g_strdup_printf("integer `%" G_GINT64_FORMAT "`", json_node_get_int(node));
	case G_TYPE_DOUBLE: {
		g_autofree gchar *text = NULL;
		/* a number no double holds: the reference names no value */
		if (isnan(json_node_get_double(node)))
			return g_strdup("number");
		text = erpc_json_float_display(json_node_get_double(node));
		return g_strdup_printf("floating point `%s`", text);
	}
	case G_TYPE_STRING: {
		const gchar *str = json_node_get_string(node);
		g_autoptr(GString) out = g_string_new("string \"");
		gsize len = strlen(str);
		if (len > ERPC_JSON_DESCRIBE_MAX) {
			gsize cut = ERPC_JSON_DESCRIBE_MAX;
			/* back to the start of a character */
			while (cut > 0 && ((guchar)str[cut] & 0xc0) == 0x80)
				cut--;
			erpc_json_append_debug(out, str, cut);
			g_string_append(out, "...");
		} else {
			erpc_json_append_debug(out, str, len);
		}
		g_string_append_c(out, '"');
		return g_string_free(g_steal_pointer(&out), FALSE);
	}
	default:
		return g_strdup("value");
	}
}

/* the type error for a value described as @what (taken) */
static gboolean
erpc_json_set_type_error(gchar *what, const gchar *expected, GError **error)
{
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid type: %s, expected %s",
		    what,
		    expected);
	g_free(what);
	return FALSE;
}

/**
 * erpc_json_value_type_error:
 * @node: the value of the wrong type
 * @expected: what was expected, in serde's words, for example `a boolean`
 * @error: return location for a #GError, or %NULL
 *
 * Sets the protocol's `-32602` type error for a member the reference reads
 * through a generic JSON value (`serde_json::Value`), where every number is
 * just `number`: `invalid type: number, expected a boolean`. Other values
 * are described as erpc_json_describe() does.
 *
 * Returns: %FALSE, to be returned by the caller
 *
 * Since: 0.1
 */
gboolean
erpc_json_value_type_error(JsonNode *node, const gchar *expected, GError **error)
{
	if (node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
	    (json_node_get_value_type(node) == G_TYPE_INT64 ||
	     json_node_get_value_type(node) == G_TYPE_DOUBLE))
		return erpc_json_set_type_error(g_strdup("number"), expected, error);
	return erpc_json_set_type_error(erpc_json_describe(node), expected, error);
}

static gboolean
erpc_json_type_error(JsonNode *node, const gchar *expected, GError **error)
{
	return erpc_json_set_type_error(erpc_json_describe(node), expected, error);
}

static gboolean
erpc_json_missing(const gchar *member, GError **error)
{
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "missing field `%s`", member);
	return FALSE;
}

/**
 * erpc_json_check_unit:
 * @params: (nullable): the params of a request
 *
 * Accepts what a method without params accepts: no params, `null` or `{}`.
 *
 * Returns: %TRUE if @params is empty
 *
 * Since: 0.1
 */
gboolean
erpc_json_check_unit(JsonNode *params, GError **error)
{
	if (params == NULL || JSON_NODE_HOLDS_NULL(params))
		return TRUE;
	if (JSON_NODE_HOLDS_OBJECT(params) &&
	    json_object_get_size(json_node_get_object(params)) == 0)
		return TRUE;
	/* the reference names any number just "number" here */
	if (JSON_NODE_HOLDS_VALUE(params) && (json_node_get_value_type(params) == G_TYPE_INT64 ||
					      json_node_get_value_type(params) == G_TYPE_DOUBLE)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid type: number, expected unit");
		return FALSE;
	}
	return erpc_json_type_error(params, "unit", error);
}

/**
 * erpc_json_params_object:
 * @params: (nullable): the params of a request
 * @struct_name: the name of the params type, for the error message
 * @error: return location for a #GError, or %NULL
 *
 * Checks that the params of a request are an object, as a method with a
 * params type expects.
 *
 * Returns: (transfer none): the params object, or %NULL with
 *   %ERPC_ERROR_INVALID_PARAMS set when @params is missing or not an object
 *
 * Since: 0.1
 */
JsonObject *
erpc_json_params_object(JsonNode *params, const gchar *struct_name, GError **error)
{
	g_autofree gchar *expected = NULL;

	if (params != NULL && JSON_NODE_HOLDS_OBJECT(params))
		return json_node_get_object(params);
	expected = g_strdup_printf("struct %s", struct_name);
	erpc_json_type_error(params, expected, error);
	return NULL;
}

/* returns the member, NULL when absent or null */
static JsonNode *
erpc_json_member(JsonObject *obj, const gchar *member)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return NULL;
	return node;
}

static gboolean
erpc_json_node_is(JsonNode *node, GType type)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == type;
}

/**
 * erpc_json_require_string:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none): the value, owned by @obj
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required string member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is present and a string
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_string(JsonObject *obj, const gchar *member, const gchar **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!erpc_json_node_is(node, G_TYPE_STRING))
		return erpc_json_type_error(node, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

/**
 * erpc_json_get_string:
 * @obj: a params object
 * @member: the member name
 * @default_value: (nullable): the value when @member is absent or null
 * @out: (out) (transfer none): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads an optional string member of a params object; a wrong type sets the
 * protocol's `-32602` error.
 *
 * Returns: %FALSE if @member is present with another type
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_string(JsonObject *obj,
		     const gchar *member,
		     const gchar *default_value,
		     const gchar **out,
		     GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	if (!erpc_json_node_is(node, G_TYPE_STRING))
		return erpc_json_type_error(node, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

/**
 * erpc_json_require_boolean:
 * @obj: a params object
 * @member: the member name
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required boolean member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is present and a boolean
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_boolean(JsonObject *obj, const gchar *member, gboolean *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!erpc_json_node_is(node, G_TYPE_BOOLEAN))
		return erpc_json_type_error(node, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

/**
 * erpc_json_get_boolean:
 * @obj: a params object
 * @member: the member name
 * @default_value: the value when @member is absent or null
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads an optional boolean member of a params object; a wrong type sets
 * the protocol's `-32602` error.
 *
 * Returns: %FALSE if @member is present with another type
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_boolean(JsonObject *obj,
		      const gchar *member,
		      gboolean default_value,
		      gboolean *out,
		      GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	if (!erpc_json_node_is(node, G_TYPE_BOOLEAN))
		return erpc_json_type_error(node, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

/* a number no double holds, which the parser reads as NaN */
static gboolean
erpc_json_node_is_wide(JsonNode *node, GError **error)
{
	if (!erpc_json_node_is(node, G_TYPE_DOUBLE) || !isnan(json_node_get_double(node)))
		return FALSE;
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "invalid number");
	return TRUE;
}

static gboolean
erpc_json_node_to_int64(JsonNode *node, gint64 *out, GError **error)
{
	if (erpc_json_node_is_wide(node, error))
		return FALSE;
	if (!erpc_json_node_is(node, G_TYPE_INT64))
		return erpc_json_type_error(node, "i64", error);
	*out = json_node_get_int(node);
	return TRUE;
}

static gboolean
erpc_json_node_to_uint64(JsonNode *node, guint64 *out, GError **error)
{
	gint64 value;

	if (erpc_json_node_is_wide(node, error))
		return FALSE;
	if (!erpc_json_node_is(node, G_TYPE_INT64))
		return erpc_json_type_error(node, "u64", error);
	value = json_node_get_int(node);
	if (value < 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid value: integer `%" G_GINT64_FORMAT "`, expected u64",
			    value);
		return FALSE;
	}
	*out = (guint64)value;
	return TRUE;
}

/**
 * erpc_json_require_int64:
 * @obj: a params object
 * @member: the member name
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required integer member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is present and an integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_int64(JsonObject *obj, const gchar *member, gint64 *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	return erpc_json_node_to_int64(node, out, error);
}

/**
 * erpc_json_get_int64:
 * @obj: a params object
 * @member: the member name
 * @default_value: the value when @member is absent or null
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads an optional integer member of a params object; a wrong type sets
 * the protocol's `-32602` error.
 *
 * Returns: %FALSE if @member is present and not an integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_int64(JsonObject *obj,
		    const gchar *member,
		    gint64 default_value,
		    gint64 *out,
		    GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	return erpc_json_node_to_int64(node, out, error);
}

/**
 * erpc_json_require_uint64:
 * @obj: a params object
 * @member: the member name
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required non-negative integer member of a params object; a
 * missing member or a wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is present and a non-negative integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_uint64(JsonObject *obj, const gchar *member, guint64 *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	return erpc_json_node_to_uint64(node, out, error);
}

/**
 * erpc_json_get_uint64:
 * @obj: a params object
 * @member: the member name
 * @default_value: the value when @member is absent or null
 * @out: (out): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads an optional non-negative integer member of a params object; a wrong
 * type sets the protocol's `-32602` error.
 *
 * Returns: %FALSE if @member is present and not a non-negative integer
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_uint64(JsonObject *obj,
		     const gchar *member,
		     guint64 default_value,
		     guint64 *out,
		     GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	if (node == NULL) {
		*out = default_value;
		return TRUE;
	}
	return erpc_json_node_to_uint64(node, out, error);
}

/**
 * erpc_json_require_object:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required object member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is present and an object
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_object(JsonObject *obj, const gchar *member, JsonObject **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return erpc_json_type_error(node, "a map", error);
	*out = json_node_get_object(node);
	return TRUE;
}

/**
 * erpc_json_get_object:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none) (nullable): the value, %NULL when absent or null
 * @error: return location for a #GError, or %NULL
 *
 * Reads an optional object member of a params object; a wrong type sets the
 * protocol's `-32602` error.
 *
 * Returns: %FALSE if @member is present and not an object
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_object(JsonObject *obj, const gchar *member, JsonObject **out, GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	*out = NULL;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return erpc_json_type_error(node, "a map", error);
	*out = json_node_get_object(node);
	return TRUE;
}

/**
 * erpc_json_require_array:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none): the value
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required array member of a params object; a missing member or a
 * wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is present and an array
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_array(JsonObject *obj, const gchar *member, JsonArray **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	if (node == NULL)
		return erpc_json_missing(member, error);
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_type_error(node, "a sequence", error);
	*out = json_node_get_array(node);
	return TRUE;
}

/**
 * erpc_json_get_array:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer none) (nullable): the value, %NULL when absent or null
 * @error: return location for a #GError, or %NULL
 *
 * Reads an optional array member of a params object.
 *
 * Returns: %FALSE if @member is present and not an array
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_array(JsonObject *obj, const gchar *member, JsonArray **out, GError **error)
{
	JsonNode *node = erpc_json_member(obj, member);
	*out = NULL;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_type_error(node, "a sequence", error);
	*out = json_node_get_array(node);
	return TRUE;
}

/**
 * erpc_json_require_strv:
 * @obj: a params object
 * @member: the member name
 * @out: (out) (transfer full): the strings
 * @error: return location for a #GError, or %NULL
 *
 * Reads a required array of strings of a params object; a missing member or
 * a wrong type sets the protocol's `-32602` error.
 *
 * Returns: %TRUE if @member is an array of strings
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_strv(JsonObject *obj, const gchar *member, gchar ***out, GError **error)
{
	JsonArray *array = NULL;
	g_autoptr(GPtrArray) strv = NULL;
	guint len;

	if (!erpc_json_require_array(obj, member, &array, error))
		return FALSE;
	len = json_array_get_length(array);
	strv = g_ptr_array_new_full(len + 1, g_free);
	for (guint i = 0; i < len; i++) {
		JsonNode *node = json_array_get_element(array, i);
		if (!erpc_json_node_is(node, G_TYPE_STRING))
			return erpc_json_type_error(node, "a string", error);
		g_ptr_array_add(strv, g_strdup(json_node_get_string(node)));
	}
	g_ptr_array_add(strv, NULL);
	*out = (gchar **)g_ptr_array_free(g_steal_pointer(&strv), FALSE);
	return TRUE;
}

static void
erpc_json_append_expected(GString *out, const gchar *const *variants)
{
	guint n = g_strv_length((gchar **)variants);

	if (n == 0) {
		g_string_append(out, "there are no variants");
		return;
	}
	if (n == 1) {
		g_string_append_printf(out, "expected `%s`", variants[0]);
		return;
	}
	if (n == 2) {
		g_string_append_printf(out, "expected `%s` or `%s`", variants[0], variants[1]);
		return;
	}
	g_string_append(out, "expected one of ");
	for (guint i = 0; i < n; i++)
		g_string_append_printf(out, "%s`%s`", i > 0 ? ", " : "", variants[i]);
}

/**
 * erpc_json_get_enum:
 * @obj: a params object
 * @member: the member name
 * @variants: (array zero-terminated=1): the accepted strings
 * @default_value: the index when @member is absent or null; -1 to require it
 * @out: (out): the index of the value in @variants
 * @error: return location for a #GError, or %NULL
 *
 * Unknown strings are refused with the protocol's `unknown variant` error.
 *
 * Returns: %TRUE if @member names one of @variants
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_enum(JsonObject *obj,
		   const gchar *member,
		   const gchar *const *variants,
		   gint default_value,
		   gint *out,
		   GError **error)
{
	JsonNode *node =
	    default_value < 0 ? json_object_get_member(obj, member) : erpc_json_member(obj, member);
	const gchar *value;
	g_autoptr(GString) msg = NULL;
	g_autofree gchar *shown = NULL;

	if (node == NULL) {
		if (default_value < 0)
			return erpc_json_missing(member, error);
		*out = default_value;
		return TRUE;
	}
	if (!erpc_json_node_is(node, G_TYPE_STRING))
		return erpc_json_type_error(node, "a string", error);
	value = json_node_get_string(node);
	for (guint i = 0; variants[i] != NULL; i++) {
		if (g_strcmp0(variants[i], value) == 0) {
			*out = (gint)i;
			return TRUE;
		}
	}
	/* cut on a character boundary: the message must stay UTF-8 */
	shown = g_utf8_strlen(value, -1) > ERPC_JSON_DESCRIBE_MAX
		    ? g_utf8_substring(value, 0, ERPC_JSON_DESCRIBE_MAX)
		    : g_strdup(value);
	msg = g_string_new(NULL);
	g_string_append_printf(msg, "unknown variant `%s`, ", shown);
	erpc_json_append_expected(msg, variants);
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, msg->str);
	return FALSE;
}
