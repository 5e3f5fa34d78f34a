/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

/*
 * Fuzzes the JSON-RPC envelope: bounded parse and classification, every
 * getter, the typed params getters, and the writer. Besides memory errors it
 * checks the properties the daemon relies on:
 *
 *  - a refused frame has an ERPC_ERROR_PARSE error with a UTF-8 message, and
 *    the `id:-1` reply carrying it parses back to the same message
 *  - an accepted frame nests no deeper than the limit, holds only UTF-8 (and
 *    ERPC_JSON_NUL for a NUL character), and parses into the same tree as
 *    plain json-glib makes of it, but for NUL characters, which json-glib
 *    ends strings at, and numbers no double holds, which we read as NaN
 *  - whatever the writer produces from a parsed tree parses back (through the
 *    same bounded parser) to an equal tree
 *  - the replies built from a message parse back to the same id, method,
 *    params, result and error
 *
 *  - a map of the frame's plain blocks (erpc_json_plain_map_new()) changes
 *    neither whether it is accepted, nor the error, nor the message
 *
 * A violated property aborts with a message on stderr.
 */

#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-message.h"

#define FUZZ_MAX_SIZE  (1024 * 1024)
#define FUZZ_MAX_DEPTH 64
/* replies nest params one or two levels deeper than the request did */
#define FUZZ_REPLY_DEPTH (FUZZ_MAX_DEPTH + 2)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

G_NORETURN static void
fuzz_fail(const gchar *what, const gchar *detail, const gchar *json, gsize json_len)
{
	fprintf(stderr, "fuzz-envelope: %s", what);
	if (detail != NULL)
		fprintf(stderr, ": %s", detail);
	fprintf(stderr, "\n");
	if (json != NULL) {
		g_autofree gchar *shown = g_strndup(json, MIN(json_len, 512));
		g_autofree gchar *escaped = g_strescape(shown, NULL);
		fprintf(stderr, "  json (%" G_GSIZE_FORMAT " bytes): %s\n", json_len, escaped);
	}
	abort();
}

static void
fuzz_init(void)
{
	static gboolean initialized = FALSE;

	if (initialized)
		return;
	initialized = TRUE;
	/* a critical or warning from GLib, json-glib or us is a finding */
	g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
}

/* UTF-8, where a NUL character is ERPC_JSON_NUL */
static gboolean
fuzz_text_valid(const gchar *text)
{
	const gchar *nul;

	while ((nul = strstr(text, ERPC_JSON_NUL)) != NULL) {
		if (!g_utf8_validate(text, nul - text, NULL))
			return FALSE;
		text = nul + strlen(ERPC_JSON_NUL);
	}
	return g_utf8_validate(text, -1, NULL);
}

/* @text with each ERPC_JSON_NUL as \x01, as fuzz_without_nul() makes json-glib read it */
static gchar *
fuzz_nul_as_one(const gchar *text)
{
	GString *out = g_string_new(NULL);
	const gchar *nul;

	while ((nul = strstr(text, ERPC_JSON_NUL)) != NULL) {
		g_string_append_len(out, text, nul - text);
		g_string_append_c(out, '\x01');
		text = nul + strlen(ERPC_JSON_NUL);
	}
	g_string_append(out, text);
	return g_string_free(out, FALSE);
}

/* accepted JSON with each \u0000 escape as \u0001: json-glib would end its string there */
static gchar *
fuzz_without_nul(const gchar *data, gsize size)
{
	GString *out = g_string_new_len(data, (gssize)size);

	for (gsize i = 0; i + 1 < out->len; i++) {
		if (out->str[i] != '\\')
			continue;
		if (i + 5 < out->len && strncmp(out->str + i + 1, "u0000", 5) == 0)
			out->str[i + 5] = '1';
		/* the escaped character is no escape of its own */
		i++;
	}
	return g_string_free(out, FALSE);
}

/* nesting and encoding of an accepted tree; containers at @level (root: 1) */
static void
fuzz_check_tree(JsonNode *node, guint level)
{
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_OBJECT: {
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;

		if (level > FUZZ_MAX_DEPTH)
			fuzz_fail("accepted a tree nested deeper than the limit", NULL, NULL, 0);
		json_object_iter_init_ordered(&iter, json_node_get_object(node));
		while (json_object_iter_next_ordered(&iter, &name, &member)) {
			if (!fuzz_text_valid(name))
				fuzz_fail("accepted a member name that is not UTF-8",
					  NULL,
					  name,
					  strlen(name));
			fuzz_check_tree(member, level + 1);
		}
		break;
	}
	case JSON_NODE_ARRAY: {
		JsonArray *array = json_node_get_array(node);

		if (level > FUZZ_MAX_DEPTH)
			fuzz_fail("accepted a tree nested deeper than the limit", NULL, NULL, 0);
		for (guint i = 0; i < json_array_get_length(array); i++)
			fuzz_check_tree(json_array_get_element(array, i), level + 1);
		break;
	}
	case JSON_NODE_VALUE:
		if (json_node_get_value_type(node) == G_TYPE_STRING) {
			const gchar *str = json_node_get_string(node);
			if (!fuzz_text_valid(str))
				fuzz_fail("accepted a string that is not UTF-8",
					  NULL,
					  str,
					  strlen(str));
		}
		break;
	case JSON_NODE_NULL:
	default:
		break;
	}
}

/*
 * json_node_equal(), except for the intended differences: an integer between
 * 2^63 and 2^64-1 (a u64 member) is read as G_MAXINT64, where json-glib
 * wraps it around to a negative number, and a wider one is a float, where
 * json-glib has a wrapped integer; a number no double holds is NaN, where
 * json-glib has an infinity or zero; and @theirs was parsed from
 * fuzz_without_nul()
 */
static gboolean
fuzz_same_as_json_glib(JsonNode *ours, JsonNode *theirs)
{
	if (JSON_NODE_TYPE(ours) != JSON_NODE_TYPE(theirs))
		return FALSE;
	switch (JSON_NODE_TYPE(ours)) {
	case JSON_NODE_OBJECT: {
		JsonObject *a = json_node_get_object(ours);
		JsonObject *b = json_node_get_object(theirs);
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;

		if (json_object_get_size(a) != json_object_get_size(b))
			return FALSE;
		json_object_iter_init(&iter, a);
		while (json_object_iter_next(&iter, &name, &member)) {
			g_autofree gchar *their_name = fuzz_nul_as_one(name);
			JsonNode *other = json_object_get_member(b, their_name);
			if (other == NULL || !fuzz_same_as_json_glib(member, other))
				return FALSE;
		}
		return TRUE;
	}
	case JSON_NODE_ARRAY: {
		JsonArray *a = json_node_get_array(ours);
		JsonArray *b = json_node_get_array(theirs);

		if (json_array_get_length(a) != json_array_get_length(b))
			return FALSE;
		for (guint i = 0; i < json_array_get_length(a); i++) {
			if (!fuzz_same_as_json_glib(json_array_get_element(a, i),
						    json_array_get_element(b, i)))
				return FALSE;
		}
		return TRUE;
	}
	case JSON_NODE_VALUE:
		if (json_node_get_value_type(ours) == G_TYPE_INT64 &&
		    json_node_get_value_type(theirs) == G_TYPE_INT64 &&
		    json_node_get_int(ours) == G_MAXINT64 && json_node_get_int(theirs) < 0)
			return TRUE;
		if (json_node_get_value_type(ours) == G_TYPE_DOUBLE &&
		    isnan(json_node_get_double(ours)))
			return json_node_get_value_type(theirs) == G_TYPE_DOUBLE;
		/* an integer beyond 64 bits, which json-glib wraps around */
		if (json_node_get_value_type(ours) == G_TYPE_DOUBLE &&
		    json_node_get_value_type(theirs) == G_TYPE_INT64 &&
		    fabs(json_node_get_double(ours)) >= 9223372036854775808.0 &&
		    floor(json_node_get_double(ours)) == json_node_get_double(ours))
			return TRUE;
		if (json_node_get_value_type(ours) == G_TYPE_STRING &&
		    json_node_get_value_type(theirs) == G_TYPE_STRING) {
			g_autofree gchar *mine = fuzz_nul_as_one(json_node_get_string(ours));
			return g_strcmp0(mine, json_node_get_string(theirs)) == 0;
		}
		/* json_node_equal() takes 1 and 1.0 for equal, a handler does not */
		if (json_node_get_value_type(ours) != json_node_get_value_type(theirs))
			return FALSE;
		return json_node_equal(ours, theirs);
	case JSON_NODE_NULL:
	default:
		return json_node_equal(ours, theirs);
	}
}

/* the pre-scan may refuse input, but must never change what it means */
static void
fuzz_check_same_as_json_glib(JsonNode *root, const gchar *data, gsize size)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *without_nul = fuzz_without_nul(data, size);

	if (!json_parser_load_from_data(parser, without_nul, (gssize)size, &error))
		fuzz_fail("accepted what json-glib refuses", error->message, data, size);
	if (json_parser_get_root(parser) == NULL ||
	    !fuzz_same_as_json_glib(root, json_parser_get_root(parser)))
		fuzz_fail("parsed into another tree than json-glib's", NULL, data, size);
}

static gboolean
fuzz_is_nan(JsonNode *node)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_DOUBLE &&
	       isnan(json_node_get_double(node));
}

/* json_node_equal(), but a NaN (a number no double holds) is written as null */
static gboolean
fuzz_nodes_equal(JsonNode *a, JsonNode *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (fuzz_is_nan(a) || fuzz_is_nan(b))
		return (fuzz_is_nan(a) || JSON_NODE_HOLDS_NULL(a)) &&
		       (fuzz_is_nan(b) || JSON_NODE_HOLDS_NULL(b));
	if (JSON_NODE_TYPE(a) != JSON_NODE_TYPE(b))
		return FALSE;
	if (JSON_NODE_HOLDS_OBJECT(a)) {
		JsonObject *oa = json_node_get_object(a);
		JsonObject *ob = json_node_get_object(b);
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;

		if (json_object_get_size(oa) != json_object_get_size(ob))
			return FALSE;
		json_object_iter_init(&iter, oa);
		while (json_object_iter_next(&iter, &name, &member)) {
			if (!fuzz_nodes_equal(member, json_object_get_member(ob, name)))
				return FALSE;
		}
		return TRUE;
	}
	if (JSON_NODE_HOLDS_ARRAY(a)) {
		JsonArray *aa = json_node_get_array(a);
		JsonArray *ab = json_node_get_array(b);

		if (json_array_get_length(aa) != json_array_get_length(ab))
			return FALSE;
		for (guint i = 0; i < json_array_get_length(aa); i++) {
			if (!fuzz_nodes_equal(json_array_get_element(aa, i),
					      json_array_get_element(ab, i)))
				return FALSE;
		}
		return TRUE;
	}
	return json_node_equal(a, b);
}

/* the map of plain blocks a transport hands over must never change the message */
static void
fuzz_check_plain_map(const uint8_t *data, size_t size)
{
	g_autoptr(GBytes) frame = g_bytes_new_static(data, size);
	g_autoptr(ErpcJsonPlainMap) plain = erpc_json_plain_map_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) mapped_error = NULL;
	g_autoptr(ErpcMessage) msg = NULL;
	g_autoptr(ErpcMessage) mapped = NULL;

	/* in two pieces, as two reads would add them */
	erpc_json_plain_map_add(plain, 0, (const gchar *)data, size / 2);
	erpc_json_plain_map_add(plain, size / 2, (const gchar *)data + size / 2, size - size / 2);
	msg = erpc_message_parse_bytes(frame, FUZZ_MAX_SIZE, FUZZ_MAX_DEPTH, &error);
	mapped = erpc_message_parse_bytes_mapped(frame,
						 plain,
						 FUZZ_MAX_SIZE,
						 FUZZ_MAX_DEPTH,
						 &mapped_error);
	if ((msg == NULL) != (mapped == NULL))
		fuzz_fail("the plain map changed whether the message is accepted",
			  msg == NULL ? error->message : mapped_error->message,
			  (const gchar *)data,
			  size);
	if (msg == NULL) {
		if (g_strcmp0(error->message, mapped_error->message) != 0)
			fuzz_fail("the plain map changed the error",
				  mapped_error->message,
				  (const gchar *)data,
				  size);
		return;
	}
	erpc_message_expand(msg);
	erpc_message_expand(mapped);
	if (erpc_message_get_kind(msg) != erpc_message_get_kind(mapped) ||
	    g_strcmp0(erpc_message_get_method(msg), erpc_message_get_method(mapped)) != 0 ||
	    !fuzz_nodes_equal(erpc_message_get_id(msg), erpc_message_get_id(mapped)) ||
	    !fuzz_nodes_equal(erpc_message_get_params(msg), erpc_message_get_params(mapped)) ||
	    !fuzz_nodes_equal(erpc_message_get_result(msg), erpc_message_get_result(mapped)))
		fuzz_fail("the plain map changed the message", NULL, (const gchar *)data, size);
}

/* write → bounded parse → compare */
static void
fuzz_roundtrip(JsonNode *node)
{
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) again = NULL;
	g_autofree gchar *str = NULL;

	if (node == NULL)
		return;
	erpc_json_append_node(out, node);
	again = erpc_json_parse(out->str, out->len, G_MAXSIZE, FUZZ_REPLY_DEPTH, &error);
	if (again == NULL)
		fuzz_fail("written JSON does not parse", error->message, out->str, out->len);
	if (!fuzz_nodes_equal(node, again))
		fuzz_fail("written JSON parses to a different tree", NULL, out->str, out->len);
	str = erpc_json_to_string(node);
	if (g_strcmp0(str, out->str) != 0)
		fuzz_fail("erpc_json_to_string() differs from erpc_json_append_node()",
			  NULL,
			  str,
			  strlen(str));
}

/* a reply built by the daemon must parse as what it claims to be */
static ErpcMessage *
fuzz_parse_reply(GBytes *reply, ErpcMessageKind kind)
{
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(reply, &len);
	ErpcMessage *msg;

	if (memchr(data, '\n', len) != NULL)
		fuzz_fail("a reply contains a raw newline", NULL, data, len);
	msg = erpc_message_parse(data, len, G_MAXSIZE, FUZZ_REPLY_DEPTH, &error);
	if (msg == NULL)
		fuzz_fail("a reply does not parse", error->message, data, len);
	if (erpc_message_get_kind(msg) != kind)
		fuzz_fail("a reply parses as another kind", NULL, data, len);
	return msg;
}

/* an error message reaches the peer inside an error reply */
static void
fuzz_check_error_message(const gchar *message)
{
	g_autoptr(GBytes) reply = NULL;
	g_autoptr(ErpcMessage) msg = NULL;

	if (message == NULL || message[0] == '\0')
		fuzz_fail("an error has no message", NULL, NULL, 0);
	if (!fuzz_text_valid(message))
		fuzz_fail("an error message is not UTF-8", NULL, message, strlen(message));
	reply = erpc_message_new_error(NULL, ERPC_WIRE_INVALID_PARAMS, message, NULL);
	msg = fuzz_parse_reply(reply, ERPC_MESSAGE_KIND_ERROR);
	if (g_strcmp0(erpc_message_get_error_message(msg), message) != 0)
		fuzz_fail("an error message changed on the way", NULL, message, strlen(message));
	if (erpc_message_get_error_code(msg) != ERPC_WIRE_INVALID_PARAMS)
		fuzz_fail("an error code changed on the way", NULL, message, strlen(message));
}

static void
fuzz_check_getter(gboolean ret, GError *error, const gchar *getter)
{
	if (ret) {
		if (error != NULL)
			fuzz_fail("a getter succeeded and set an error", getter, NULL, 0);
		return;
	}
	if (error == NULL)
		fuzz_fail("a getter failed without an error", getter, NULL, 0);
	if (!g_error_matches(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS))
		fuzz_fail("a getter failed with another error than invalid params",
			  error->message,
			  NULL,
			  0);
	if (erpc_error_to_wire_code(error) != ERPC_WIRE_INVALID_PARAMS)
		fuzz_fail("invalid params is not -32602", error->message, NULL, 0);
	fuzz_check_error_message(error->message);
}

static const gchar *const fuzz_variants_0[] = {NULL};
static const gchar *const fuzz_variants_1[] = {"utf8", NULL};
static const gchar *const fuzz_variants_2[] = {"utf8", "base64", NULL};
static const gchar *const fuzz_variants_3[] = {"stdout", "stderr", "pty", NULL};
static const gchar *const *const fuzz_variants[] = {
    fuzz_variants_0,
    fuzz_variants_1,
    fuzz_variants_2,
    fuzz_variants_3,
};

/* every typed getter on one member */
static void
fuzz_getters(JsonObject *obj, const gchar *member)
{
	const gchar *str = NULL;
	gboolean boolean = FALSE;
	gint64 i64 = 0;
	guint64 u64 = 0;
	JsonObject *object = NULL;
	JsonArray *array = NULL;
	g_auto(GStrv) strv = NULL;
	gboolean ret;
	GError *error = NULL;

#define FUZZ_GETTER(call)                                                                          \
	G_STMT_START                                                                               \
	{                                                                                          \
		ret = call;                                                                        \
		fuzz_check_getter(ret, error, #call);                                              \
		g_clear_error(&error);                                                             \
	}                                                                                          \
	G_STMT_END

	FUZZ_GETTER(erpc_json_require_string(obj, member, &str, &error));
	if (ret && (str == NULL || !fuzz_text_valid(str)))
		fuzz_fail("erpc_json_require_string() returned no UTF-8", member, NULL, 0);
	FUZZ_GETTER(erpc_json_get_string(obj, member, "default", &str, &error));
	if (ret && str == NULL)
		fuzz_fail("erpc_json_get_string() returned NULL", member, NULL, 0);
	FUZZ_GETTER(erpc_json_require_boolean(obj, member, &boolean, &error));
	FUZZ_GETTER(erpc_json_get_boolean(obj, member, TRUE, &boolean, &error));
	FUZZ_GETTER(erpc_json_require_int64(obj, member, &i64, &error));
	FUZZ_GETTER(erpc_json_get_int64(obj, member, -1, &i64, &error));
	FUZZ_GETTER(erpc_json_require_uint64(obj, member, &u64, &error));
	FUZZ_GETTER(erpc_json_get_uint64(obj, member, 1, &u64, &error));
	if (ret && u64 > G_MAXINT64)
		fuzz_fail("erpc_json_get_uint64() returned more than any JSON integer",
			  member,
			  NULL,
			  0);
	FUZZ_GETTER(erpc_json_require_object(obj, member, &object, &error));
	FUZZ_GETTER(erpc_json_get_object(obj, member, &object, &error));
	FUZZ_GETTER(erpc_json_require_array(obj, member, &array, &error));
	FUZZ_GETTER(erpc_json_get_array(obj, member, &array, &error));
	FUZZ_GETTER(erpc_json_require_strv(obj, member, &strv, &error));
	if (ret) {
		if (strv == NULL)
			fuzz_fail("erpc_json_require_strv() returned NULL", member, NULL, 0);
		for (guint i = 0; strv[i] != NULL; i++) {
			if (!fuzz_text_valid(strv[i]))
				fuzz_fail("erpc_json_require_strv() returned no UTF-8",
					  member,
					  NULL,
					  0);
		}
	}
	for (guint i = 0; i < G_N_ELEMENTS(fuzz_variants); i++) {
		gint index = -1;
		guint n = g_strv_length((gchar **)fuzz_variants[i]);

		FUZZ_GETTER(erpc_json_get_enum(obj, member, fuzz_variants[i], -1, &index, &error));
		if (ret && (index < 0 || (guint)index >= n))
			fuzz_fail("erpc_json_get_enum() returned an index out of range",
				  member,
				  NULL,
				  0);
		if (n > 0) {
			FUZZ_GETTER(erpc_json_get_enum(obj,
						       member,
						       fuzz_variants[i],
						       (gint)n - 1,
						       &index,
						       &error));
		}
	}
#undef FUZZ_GETTER
}

static void
fuzz_params(JsonNode *params)
{
	static const gchar *const members[] = {
	    "processId",
	    "argv",
	    "cwd",
	    "env",
	    "tty",
	    "path",
	    "mode",
	    "encoding",
	    "id",
	    "",
	};
	g_autofree gchar *described = erpc_json_describe(params);
	GError *error = NULL;
	JsonObject *obj;
	gboolean ret;

	if (!fuzz_text_valid(described))
		fuzz_fail("erpc_json_describe() is not UTF-8", NULL, described, strlen(described));
	ret = erpc_json_check_unit(params, &error);
	fuzz_check_getter(ret, error, "erpc_json_check_unit");
	g_clear_error(&error);

	obj = erpc_json_params_object(params, "FuzzParams", &error);
	fuzz_check_getter(obj != NULL, error, "erpc_json_params_object");
	g_clear_error(&error);
	if (obj == NULL)
		return;
	for (guint i = 0; i < G_N_ELEMENTS(members); i++)
		fuzz_getters(obj, members[i]);
	/* and the first few members that were actually sent */
	{
		g_autoptr(GList) names = json_object_get_members(obj);
		guint n = 0;
		for (GList *l = names; l != NULL && n < 4; l = l->next, n++)
			fuzz_getters(obj, l->data);
	}
}

static void
fuzz_request_replies(ErpcMessage *msg)
{
	JsonNode *id = erpc_message_get_id(msg);
	const gchar *method = erpc_message_get_method(msg);
	JsonNode *params = erpc_message_get_params(msg);
	g_autoptr(GBytes) result = erpc_message_new_result(id, params);
	g_autoptr(GBytes) error =
	    erpc_message_new_error(id, ERPC_WIRE_METHOD_NOT_FOUND, method, params);
	g_autoptr(GBytes) request = erpc_message_new_request(id, method, params);
	g_autoptr(ErpcMessage) result_msg = fuzz_parse_reply(result, ERPC_MESSAGE_KIND_RESPONSE);
	g_autoptr(ErpcMessage) error_msg = fuzz_parse_reply(error, ERPC_MESSAGE_KIND_ERROR);
	g_autoptr(ErpcMessage) request_msg = fuzz_parse_reply(request, ERPC_MESSAGE_KIND_REQUEST);
	g_autoptr(JsonNode) null_node = json_node_new(JSON_NODE_NULL);

	if (!fuzz_nodes_equal(erpc_message_get_id(result_msg), id) ||
	    !fuzz_nodes_equal(erpc_message_get_id(error_msg), id) ||
	    !fuzz_nodes_equal(erpc_message_get_id(request_msg), id))
		fuzz_fail("a reply does not echo the id", NULL, NULL, 0);
	if (!fuzz_nodes_equal(erpc_message_get_result(result_msg),
			      params != NULL ? params : null_node))
		fuzz_fail("a result reply changed the result", NULL, NULL, 0);
	if (g_strcmp0(erpc_message_get_error_message(error_msg), method) != 0)
		fuzz_fail("an error reply changed the message", method, NULL, 0);
	if (!fuzz_nodes_equal(erpc_message_get_error_data(error_msg), params))
		fuzz_fail("an error reply changed the data", NULL, NULL, 0);
	if (g_strcmp0(erpc_message_get_method(request_msg), method) != 0 ||
	    !fuzz_nodes_equal(erpc_message_get_params(request_msg), params))
		fuzz_fail("a request changed on the way", method, NULL, 0);
}

static void
fuzz_notification_replies(ErpcMessage *msg)
{
	const gchar *method = erpc_message_get_method(msg);
	JsonNode *params = erpc_message_get_params(msg);
	g_autoptr(GBytes) notification = erpc_message_new_notification(method, params);
	g_autoptr(ErpcMessage) again =
	    fuzz_parse_reply(notification, ERPC_MESSAGE_KIND_NOTIFICATION);

	if (g_strcmp0(erpc_message_get_method(again), method) != 0 ||
	    !fuzz_nodes_equal(erpc_message_get_params(again), params))
		fuzz_fail("a notification changed on the way", method, NULL, 0);
}

static void
fuzz_response_replies(ErpcMessage *msg)
{
	JsonNode *id = erpc_message_get_id(msg);
	g_autoptr(GBytes) bytes = erpc_message_new_result(id, erpc_message_get_result(msg));
	g_autoptr(ErpcMessage) again = fuzz_parse_reply(bytes, ERPC_MESSAGE_KIND_RESPONSE);

	if (!fuzz_nodes_equal(erpc_message_get_id(again), id) ||
	    !fuzz_nodes_equal(erpc_message_get_result(again), erpc_message_get_result(msg)))
		fuzz_fail("a response changed on the way", NULL, NULL, 0);
}

static void
fuzz_error_replies(ErpcMessage *msg)
{
	JsonNode *id = erpc_message_get_id(msg);
	gint code = (gint)erpc_message_get_error_code(msg);
	const gchar *message = erpc_message_get_error_message(msg);
	JsonNode *data = erpc_message_get_error_data(msg);
	g_autoptr(GBytes) bytes = erpc_message_new_error(id, code, message, data);
	g_autoptr(ErpcMessage) again = fuzz_parse_reply(bytes, ERPC_MESSAGE_KIND_ERROR);

	if (!fuzz_nodes_equal(erpc_message_get_id(again), id) ||
	    erpc_message_get_error_code(again) != code ||
	    g_strcmp0(erpc_message_get_error_message(again), message) != 0 ||
	    !fuzz_nodes_equal(erpc_message_get_error_data(again), data))
		fuzz_fail("an error response changed on the way", message, NULL, 0);
}

static void
fuzz_accepted(ErpcMessage *msg, const gchar *data, gsize size)
{
	ErpcMessageKind kind = erpc_message_get_kind(msg);
	JsonNode *id = erpc_message_get_id(msg);
	const gchar *method = erpc_message_get_method(msg);
	g_autoptr(JsonNode) root = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcMessage) ref = erpc_message_ref(msg);

	if (ref != msg || erpc_message_get_kind(ref) != kind)
		fuzz_fail("erpc_message_ref() returned something else", NULL, data, size);

	/* the same bytes through the plain parser */
	root = erpc_json_parse(data, size, FUZZ_MAX_SIZE, FUZZ_MAX_DEPTH, &error);
	if (root == NULL)
		fuzz_fail("a message parses but its JSON does not", error->message, data, size);
	if (!JSON_NODE_HOLDS_OBJECT(root))
		fuzz_fail("a message that is not an object", NULL, data, size);
	fuzz_check_tree(root, 1);
	fuzz_check_same_as_json_glib(root, data, size);

	if (method != NULL && !fuzz_text_valid(method))
		fuzz_fail("a method that is not UTF-8", NULL, data, size);
	switch (kind) {
	case ERPC_MESSAGE_KIND_REQUEST:
		if (!erpc_id_is_valid(id) || method == NULL)
			fuzz_fail("a request without id or method", NULL, data, size);
		fuzz_request_replies(msg);
		break;
	case ERPC_MESSAGE_KIND_NOTIFICATION:
		if (id != NULL || method == NULL)
			fuzz_fail("a notification with an id or without method", NULL, data, size);
		fuzz_notification_replies(msg);
		break;
	case ERPC_MESSAGE_KIND_RESPONSE:
		if (!erpc_id_is_valid(id) || erpc_message_get_result(msg) == NULL)
			fuzz_fail("a response without id or result", NULL, data, size);
		fuzz_response_replies(msg);
		break;
	case ERPC_MESSAGE_KIND_ERROR:
		if (!erpc_id_is_valid(id) || erpc_message_get_error_message(msg) == NULL)
			fuzz_fail("an error without id or message", NULL, data, size);
		fuzz_error_replies(msg);
		break;
	default:
		fuzz_fail("an unknown message kind", NULL, data, size);
	}

	fuzz_roundtrip(root);
	fuzz_roundtrip(id);
	fuzz_roundtrip(erpc_message_get_params(msg));
	fuzz_roundtrip(erpc_message_get_result(msg));
	fuzz_roundtrip(erpc_message_get_error_data(msg));
	if (method != NULL)
		fuzz_params(erpc_message_get_params(msg));
}

static void
fuzz_refused(GError *error, const gchar *data, gsize size)
{
	g_autoptr(GBytes) reply = NULL;
	g_autoptr(ErpcMessage) msg = NULL;

	if (error == NULL)
		fuzz_fail("a message was refused without an error", NULL, data, size);
	if (!g_error_matches(error, ERPC_ERROR, ERPC_ERROR_PARSE))
		fuzz_fail("a message was refused with another error than parse",
			  error->message,
			  data,
			  size);
	if (erpc_error_to_wire_code(error) != ERPC_WIRE_INVALID_REQUEST)
		fuzz_fail("a parse error is not -32600", error->message, data, size);
	if (!g_utf8_validate(error->message, -1, NULL))
		fuzz_fail("a parse error message is not UTF-8", NULL, data, size);
	/* what the daemon sends back, with id -1 */
	reply = erpc_message_new_error(NULL, erpc_error_to_wire_code(error), error->message, NULL);
	msg = fuzz_parse_reply(reply, ERPC_MESSAGE_KIND_ERROR);
	if (g_strcmp0(erpc_message_get_error_message(msg), error->message) != 0)
		fuzz_fail("a parse error message changed on the way", error->message, data, size);
	if (json_node_get_int(erpc_message_get_id(msg)) != -1)
		fuzz_fail("a parse error reply without id -1", NULL, data, size);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcMessage) msg = NULL;
	g_autoptr(ErpcMessage) quiet = NULL;

	fuzz_init();
	fuzz_check_plain_map(data, size);
	msg = erpc_message_parse((const gchar *)data, size, FUZZ_MAX_SIZE, FUZZ_MAX_DEPTH, &error);
	/* the same without an error location must give the same answer */
	quiet = erpc_message_parse((const gchar *)data, size, FUZZ_MAX_SIZE, FUZZ_MAX_DEPTH, NULL);
	if ((msg == NULL) != (quiet == NULL))
		fuzz_fail("the result depends on the error location", NULL, NULL, 0);
	if (msg == NULL) {
		fuzz_refused(error, (const gchar *)data, size);
		return 0;
	}
	if (error != NULL)
		fuzz_fail("a message was accepted with an error", error->message, NULL, 0);
	fuzz_accepted(msg, (const gchar *)data, size);
	return 0;
}
