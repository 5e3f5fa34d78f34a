/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-error.h"
#include "erpc-json-private.h"
#include "erpc-json-writer.h"
#include "erpc-json.h"
#include "erpc-message-private.h"
#include "erpc-message.h"

struct _ErpcMessage {
	gint refcount;
	ErpcMessageKind kind;
	JsonNode *root;
	/* borrowed from root */
	JsonNode *id;
	const gchar *method;
	JsonNode *params;
	JsonNode *result;
	gint64 error_code;
	const gchar *error_message;
	JsonNode *error_data;
	GBytes *frame;	      /* nullable: the received bytes large strings are read from */
	ErpcJsonBlobs *blobs; /* nullable: large strings of params still in @frame */
};

G_DEFINE_BOXED_TYPE(ErpcMessage, erpc_message, erpc_message_ref, erpc_message_unref)

/**
 * erpc_id_is_valid:
 * @id: (nullable): a node
 *
 * Request ids are JSON strings or integers that fit in 64 signed bits.
 *
 * Returns: %TRUE if @id may be a request id
 *
 * Since: 0.1
 */
gboolean
erpc_id_is_valid(JsonNode *id)
{
	GType type;

	if (id == NULL || !JSON_NODE_HOLDS_VALUE(id))
		return FALSE;
	type = json_node_get_value_type(id);
	return type == G_TYPE_STRING || type == G_TYPE_INT64;
}

/**
 * erpc_id_append:
 * @out: a #GString
 * @id: a request id
 *
 * Appends @id with its JSON type.
 *
 * Since: 0.1
 */
void
erpc_id_append(GString *out, JsonNode *id)
{
	erpc_json_append_node(out, id);
}

/**
 * erpc_id_new_int:
 * @value: the id
 *
 * Makes a request id from an integer.
 *
 * Returns: (transfer full): an integer id node
 *
 * Since: 0.1
 */
JsonNode *
erpc_id_new_int(gint64 value)
{
	JsonNode *node = json_node_new(JSON_NODE_VALUE);
	json_node_set_int(node, value);
	return node;
}

static gboolean
erpc_message_check_trace(JsonNode *trace, GError **error)
{
	JsonObject *obj;
	const gchar *names[] = {"traceparent", "tracestate"};

	if (trace == NULL || JSON_NODE_HOLDS_NULL(trace))
		return TRUE;
	if (!JSON_NODE_HOLDS_OBJECT(trace)) {
		/* the reference reads the envelope untyped first: any number is just "number" */
		gboolean number = JSON_NODE_HOLDS_VALUE(trace) &&
				  (json_node_get_value_type(trace) == G_TYPE_INT64 ||
				   json_node_get_value_type(trace) == G_TYPE_DOUBLE);
		g_autofree gchar *what = number ? g_strdup("number") : erpc_json_describe(trace);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "invalid type: %s, expected struct W3cTraceContext",
			    what);
		return FALSE;
	}
	obj = json_node_get_object(trace);
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		const gchar *value = NULL;
		g_autoptr(GError) error_local = NULL;
		if (!erpc_json_get_string(obj, names[i], NULL, &value, &error_local)) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_PARSE,
					    error_local->message);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
erpc_message_classify(ErpcMessage *self, GError **error)
{
	JsonObject *obj = json_node_get_object(self->root);
	JsonNode *method = json_object_get_member(obj, "method");
	JsonNode *id = json_object_get_member(obj, "id");

	if (id != NULL && !erpc_id_is_valid(id)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "data did not match any variant of untagged enum RequestId");
		return FALSE;
	}
	self->id = id;
	if (method != NULL) {
		JsonNode *trace = json_object_get_member(obj, "trace");
		if (!JSON_NODE_HOLDS_VALUE(method) ||
		    json_node_get_value_type(method) != G_TYPE_STRING) {
			g_autofree gchar *what = erpc_json_describe(method);
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "invalid type: %s, expected a string",
				    what);
			return FALSE;
		}
		self->method = json_node_get_string(method);
		self->params = json_object_get_member(obj, "params");
		if (id != NULL) {
			if (!erpc_message_check_trace(trace, error))
				return FALSE;
			self->kind = ERPC_MESSAGE_KIND_REQUEST;
		} else {
			self->kind = ERPC_MESSAGE_KIND_NOTIFICATION;
		}
		return TRUE;
	}
	if (id != NULL && json_object_has_member(obj, "result")) {
		self->kind = ERPC_MESSAGE_KIND_RESPONSE;
		self->result = json_object_get_member(obj, "result");
		return TRUE;
	}
	if (id != NULL && json_object_has_member(obj, "error")) {
		JsonNode *error_node = json_object_get_member(obj, "error");
		JsonObject *error_obj;
		if (!JSON_NODE_HOLDS_OBJECT(error_node))
			goto invalid;
		error_obj = json_node_get_object(error_node);
		if (!erpc_json_require_int64(error_obj, "code", &self->error_code, NULL) ||
		    !erpc_json_require_string(error_obj, "message", &self->error_message, NULL))
			goto invalid;
		self->error_data = json_object_get_member(error_obj, "data");
		self->kind = ERPC_MESSAGE_KIND_ERROR;
		return TRUE;
	}
invalid:
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_PARSE,
			    "data did not match any variant of untagged enum JSONRPCMessage");
	return FALSE;
}

/*
 * With @refused_id, a request whose envelope can be read is refused with
 * its own id when something inside it cannot be (see _erpc_json_parse_full()):
 * *@refused_id is then set, and the error says what.
 */
static ErpcMessage *
erpc_message_parse_internal(GBytes *frame,
			    const gchar *data,
			    gsize len,
			    gsize max_size,
			    guint max_depth,
			    const ErpcJsonPlainMap *plain,
			    JsonNode **refused_id,
			    GError **error)
{
	g_autoptr(ErpcMessage) self = NULL;
	g_autoptr(ErpcJsonBlobs) blobs = NULL;
	g_autoptr(GError) soft = NULL;
	gboolean clamped = FALSE;
	gboolean id_bad = FALSE;
	JsonNode *root;

	if (refused_id != NULL)
		*refused_id = NULL;
	root = _erpc_json_parse_full(data,
				     len,
				     max_size,
				     max_depth,
				     plain,
				     &clamped,
				     frame != NULL ? &blobs : NULL,
				     refused_id != NULL ? &soft : NULL,
				     &id_bad,
				     error);
	if (root == NULL)
		return NULL;
	self = g_new0(ErpcMessage, 1);
	self->refcount = 1;
	self->root = root;
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "expected a JSON-RPC object");
		return NULL;
	}
	/* only params may keep placeholders: the envelope is read as it is */
	if (blobs != NULL) {
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *member;
		json_object_iter_init(&iter, json_node_get_object(root));
		while (json_object_iter_next(&iter, &name, &member)) {
			if (g_strcmp0(name, "params") != 0)
				_erpc_json_blobs_expand(blobs, member);
		}
	}
	if (!erpc_message_classify(self, soft != NULL ? NULL : error)) {
		if (soft != NULL)
			g_propagate_error(error, g_steal_pointer(&soft));
		return NULL;
	}
	/* an id beyond i64 was read as G_MAXINT64: it must not be echoed as that */
	if (clamped && self->id != NULL && json_node_get_value_type(self->id) == G_TYPE_INT64 &&
	    json_node_get_int(self->id) == G_MAXINT64) {
		if (soft != NULL) {
			g_propagate_error(error, g_steal_pointer(&soft));
			return NULL;
		}
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_PARSE,
				    "data did not match any variant of untagged enum RequestId");
		return NULL;
	}
	if (soft != NULL) {
		/* a request is answered with its id, if that could be read */
		if (self->kind == ERPC_MESSAGE_KIND_REQUEST && !id_bad)
			*refused_id = json_node_copy(self->id);
		g_propagate_error(error, g_steal_pointer(&soft));
		return NULL;
	}
	/* placeholders outside a request's params object would never be put back */
	if (blobs != NULL && self->params != NULL && self->kind == ERPC_MESSAGE_KIND_REQUEST &&
	    JSON_NODE_HOLDS_OBJECT(self->params)) {
		self->frame = g_bytes_ref(frame);
		self->blobs = g_steal_pointer(&blobs);
	} else if (blobs != NULL && self->params != NULL) {
		_erpc_json_blobs_expand(blobs, self->params);
	}
	return g_steal_pointer(&self);
}

/*
 * for ErpcConnection: as erpc_message_parse_bytes() (or erpc_message_parse()
 * without @frame), but a request that cannot be read past its envelope sets
 * *@refused_id to its id, to be answered with
 */
ErpcMessage *
_erpc_message_parse_refusable(GBytes *frame,
			      const gchar *data,
			      gsize len,
			      gsize max_size,
			      guint max_depth,
			      const ErpcJsonPlainMap *plain,
			      JsonNode **refused_id,
			      GError **error)
{
	if (frame != NULL) {
		gsize frame_len = 0;
		const gchar *frame_data = g_bytes_get_data(frame, &frame_len);
		return erpc_message_parse_internal(frame,
						   frame_data != NULL ? frame_data : "",
						   frame_len,
						   max_size,
						   max_depth,
						   plain,
						   refused_id,
						   error);
	}
	return erpc_message_parse_internal(NULL,
					   data,
					   len,
					   max_size,
					   max_depth,
					   NULL,
					   refused_id,
					   error);
}

/**
 * erpc_message_parse:
 * @data: one frame received from a peer
 * @len: length of @data
 * @max_size: the largest message accepted, in bytes
 * @max_depth: the deepest nesting accepted
 * @error: return location for a #GError, or %NULL
 *
 * Parses and classifies one message. Batches (top-level arrays), scalars,
 * ids that are neither strings nor integers, request `trace` members that
 * are not objects and strings holding what cannot be read (a lone
 * surrogate, an unknown escape, a raw control character) are refused with
 * %ERPC_ERROR_PARSE. Strings may hold %ERPC_JSON_NUL for `\u0000`.
 *
 * Returns: (transfer full): a message, or %NULL
 *
 * Since: 0.1
 */
ErpcMessage *
erpc_message_parse(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error)
{
	return erpc_message_parse_internal(NULL, data, len, max_size, max_depth, NULL, NULL, error);
}

/**
 * erpc_message_parse_bytes:
 * @frame: one frame received from a peer
 * @max_size: the largest message accepted, in bytes
 * @max_depth: the deepest nesting accepted
 * @error: return location for a #GError, or %NULL
 *
 * Like erpc_message_parse(), but large strings inside `params` (file
 * contents in base64) are not copied: the message keeps a reference to
 * @frame, and they stay there until erpc_message_expand() puts them into
 * the tree or a handler reads one with erpc_call_get_blob(). Until then,
 * such a string reads as a placeholder.
 *
 * Returns: (transfer full): a message, or %NULL
 *
 * Since: 0.1
 */
ErpcMessage *
erpc_message_parse_bytes(GBytes *frame, gsize max_size, guint max_depth, GError **error)
{
	return erpc_message_parse_bytes_mapped(frame, NULL, max_size, max_depth, error);
}

/**
 * erpc_message_parse_bytes_mapped: (skip)
 * @frame: the bytes of one message
 * @plain: (nullable): the plain blocks of @frame, see erpc_json_plain_map_new()
 * @max_size: the largest message accepted, in bytes
 * @max_depth: the deepest nesting accepted
 * @error: return location for a #GError, or %NULL
 *
 * erpc_message_parse_bytes(), stepping over the blocks @plain knows are plain
 * inside strings. The result is the same as without the map.
 *
 * Returns: (transfer full): the message, or %NULL with %ERPC_ERROR_PARSE set
 *
 * Since: 0.1
 */
ErpcMessage *
erpc_message_parse_bytes_mapped(GBytes *frame,
				const ErpcJsonPlainMap *plain,
				gsize max_size,
				guint max_depth,
				GError **error)
{
	gsize len = 0;
	const gchar *data;

	g_return_val_if_fail(frame != NULL, NULL);
	data = g_bytes_get_data(frame, &len);
	return erpc_message_parse_internal(frame,
					   data != NULL ? data : "",
					   len,
					   max_size,
					   max_depth,
					   plain,
					   NULL,
					   error);
}

/**
 * erpc_message_expand:
 * @self: a #ErpcMessage
 *
 * Puts the large strings that erpc_message_parse_bytes() left in the frame
 * into the tree, except those already read with erpc_call_get_blob().
 * Does nothing for other messages or when called again.
 *
 * Since: 0.1
 */
void
erpc_message_expand(ErpcMessage *self)
{
	g_return_if_fail(self != NULL);
	if (self->blobs == NULL)
		return;
	if (self->params != NULL)
		_erpc_json_blobs_expand(self->blobs, self->params);
	g_clear_pointer(&self->blobs, _erpc_json_blobs_free);
}

/* for erpc_call_get_blob(): the text @node stands for, if it is a large string left in the frame */
gboolean
_erpc_message_take_blob(ErpcMessage *self, JsonNode *node, const gchar **data, gsize *len)
{
	if (self->blobs == NULL || node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return FALSE;
	return _erpc_json_blobs_lookup(self->blobs, json_node_get_string(node), data, len);
}

/**
 * erpc_message_ref:
 * @self: a #ErpcMessage
 *
 * Takes a reference on a message.
 *
 * Returns: (transfer full): @self
 *
 * Since: 0.1
 */
ErpcMessage *
erpc_message_ref(ErpcMessage *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	g_atomic_int_inc(&self->refcount);
	return self;
}

/**
 * erpc_message_unref:
 * @self: (transfer full): a #ErpcMessage
 *
 * Drops a reference on a message, freeing it with the last one.
 *
 * Since: 0.1
 */
void
erpc_message_unref(ErpcMessage *self)
{
	g_return_if_fail(self != NULL);
	if (!g_atomic_int_dec_and_test(&self->refcount))
		return;
	json_node_unref(self->root);
	_erpc_json_blobs_free(self->blobs);
	if (self->frame != NULL)
		g_bytes_unref(self->frame);
	g_free(self);
}

/**
 * erpc_message_get_kind:
 * @self: a #ErpcMessage
 *
 * Tells a request, a notification, a result and an error response apart.
 *
 * Returns: the kind of message
 *
 * Since: 0.1
 */
ErpcMessageKind
erpc_message_get_kind(ErpcMessage *self)
{
	return self->kind;
}

/**
 * erpc_message_get_id:
 * @self: a #ErpcMessage
 *
 * Gets the id of a request or response.
 *
 * Returns: (transfer none) (nullable): the id, a string or integer node
 *
 * Since: 0.1
 */
JsonNode *
erpc_message_get_id(ErpcMessage *self)
{
	return self->id;
}

/**
 * erpc_message_get_method:
 * @self: a #ErpcMessage
 *
 * Gets the method of a request or notification.
 *
 * Returns: (nullable): the method of a request or notification
 *
 * Since: 0.1
 */
const gchar *
erpc_message_get_method(ErpcMessage *self)
{
	return self->method;
}

/**
 * erpc_message_get_params:
 * @self: a #ErpcMessage
 *
 * Gets the params of a request or notification.
 *
 * Returns: (transfer none) (nullable): the params, %NULL when absent
 *
 * Since: 0.1
 */
JsonNode *
erpc_message_get_params(ErpcMessage *self)
{
	return self->params;
}

/**
 * erpc_message_get_result:
 * @self: a #ErpcMessage
 *
 * Gets the result of a response.
 *
 * Returns: (transfer none) (nullable): the result of a response
 *
 * Since: 0.1
 */
JsonNode *
erpc_message_get_result(ErpcMessage *self)
{
	return self->result;
}

/**
 * erpc_message_get_error_code:
 * @self: a #ErpcMessage
 *
 * Gets the code of an error response.
 *
 * Returns: the code of an error response
 *
 * Since: 0.1
 */
gint64
erpc_message_get_error_code(ErpcMessage *self)
{
	return self->error_code;
}

/**
 * erpc_message_get_error_message:
 * @self: a #ErpcMessage
 *
 * Gets the message of an error response.
 *
 * Returns: (nullable): the message of an error response
 *
 * Since: 0.1
 */
const gchar *
erpc_message_get_error_message(ErpcMessage *self)
{
	return self->error_message;
}

/**
 * erpc_message_get_error_data:
 * @self: a #ErpcMessage
 *
 * Gets the data of an error response.
 *
 * Returns: (transfer none) (nullable): the `data` of an error response
 *
 * Since: 0.1
 */
JsonNode *
erpc_message_get_error_data(ErpcMessage *self)
{
	return self->error_data;
}

/**
 * erpc_message_new_result:
 * @id: the request id
 * @result: (nullable): the result; %NULL is sent as `null`
 *
 * Writes a result response as the text to send.
 *
 * Returns: (transfer full): `{"id":ID,"result":RESULT}`
 *
 * Since: 0.1
 */
GBytes *
erpc_message_new_result(JsonNode *id, JsonNode *result)
{
	GString *out = g_string_sized_new(64);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "id");
	erpc_json_writer_node(&writer, id);
	erpc_json_writer_member(&writer, "result");
	erpc_json_writer_node(&writer, result);
	erpc_json_writer_end_object(&writer);
	return g_string_free_to_bytes(out);
}

/**
 * erpc_message_new_error:
 * @id: (nullable): the request id; %NULL is sent as -1
 * @code: the JSON-RPC error code
 * @message: the error message
 * @data: (nullable): the `data` member, omitted when %NULL
 *
 * Writes an error response as the text to send.
 *
 * Returns: (transfer full): `{"error":{"code":C,"data":D,"message":M},"id":ID}`
 *
 * Since: 0.1
 */
GBytes *
erpc_message_new_error(JsonNode *id, gint code, const gchar *message, JsonNode *data)
{
	GString *out = g_string_sized_new(128);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	/* member order as the reference writes it: code, data, message */
	erpc_json_writer_member(&writer, "error");
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_int(&writer, "code", code);
	if (data != NULL) {
		erpc_json_writer_member(&writer, "data");
		erpc_json_writer_node(&writer, data);
	}
	erpc_json_writer_member_string(&writer, "message", message);
	erpc_json_writer_end_object(&writer);
	erpc_json_writer_member(&writer, "id");
	if (id != NULL)
		erpc_json_writer_node(&writer, id);
	else
		erpc_json_writer_int(&writer, -1);
	erpc_json_writer_end_object(&writer);
	return g_string_free_to_bytes(out);
}

/**
 * erpc_message_new_notification:
 * @method: the method
 * @params: (nullable): the params, omitted when %NULL
 *
 * Writes a notification as the text to send.
 *
 * Returns: (transfer full): `{"method":M,"params":P}`
 *
 * Since: 0.1
 */
GBytes *
erpc_message_new_notification(const gchar *method, JsonNode *params)
{
	GString *out = g_string_sized_new(128);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "method", method);
	if (params != NULL) {
		erpc_json_writer_member(&writer, "params");
		erpc_json_writer_node(&writer, params);
	}
	erpc_json_writer_end_object(&writer);
	return g_string_free_to_bytes(out);
}

/**
 * erpc_message_new_request:
 * @id: the request id
 * @method: the method
 * @params: (nullable): the params, omitted when %NULL
 *
 * Writes a request as the text to send.
 *
 * Returns: (transfer full): `{"id":ID,"method":M,"params":P}`
 *
 * Since: 0.1
 */
GBytes *
erpc_message_new_request(JsonNode *id, const gchar *method, JsonNode *params)
{
	GString *out = g_string_sized_new(128);
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "id");
	erpc_json_writer_node(&writer, id);
	erpc_json_writer_member_string(&writer, "method", method);
	if (params != NULL) {
		erpc_json_writer_member(&writer, "params");
		erpc_json_writer_node(&writer, params);
	}
	erpc_json_writer_end_object(&writer);
	return g_string_free_to_bytes(out);
}
