/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

#include "erpc-json.h"

G_BEGIN_DECLS

/**
 * ErpcMessageKind:
 * @ERPC_MESSAGE_KIND_REQUEST: `{"id", "method", "params"?}`
 * @ERPC_MESSAGE_KIND_NOTIFICATION: `{"method", "params"?}`
 * @ERPC_MESSAGE_KIND_RESPONSE: `{"id", "result"}`
 * @ERPC_MESSAGE_KIND_ERROR: `{"id", "error": {"code", "message", "data"?}}`
 *
 * The four shapes of the JSON-RPC envelope. There is no `"jsonrpc"` member.
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_MESSAGE_KIND_REQUEST,
	ERPC_MESSAGE_KIND_NOTIFICATION,
	ERPC_MESSAGE_KIND_RESPONSE,
	ERPC_MESSAGE_KIND_ERROR,
} ErpcMessageKind;

/**
 * ErpcMessage:
 *
 * One parsed JSON-RPC message. Reference counted and immutable.
 *
 * Since: 0.1
 */
typedef struct _ErpcMessage ErpcMessage;

#define ERPC_TYPE_MESSAGE (erpc_message_get_type())
GType
erpc_message_get_type(void);

ErpcMessage *
erpc_message_parse(const gchar *data, gsize len, gsize max_size, guint max_depth, GError **error);
ErpcMessage *
erpc_message_parse_bytes(GBytes *frame, gsize max_size, guint max_depth, GError **error);
ErpcMessage *
erpc_message_parse_bytes_mapped(GBytes *frame,
				const ErpcJsonPlainMap *plain,
				gsize max_size,
				guint max_depth,
				GError **error);
void
erpc_message_expand(ErpcMessage *self);
ErpcMessage *
erpc_message_ref(ErpcMessage *self);
void
erpc_message_unref(ErpcMessage *self);
ErpcMessageKind
erpc_message_get_kind(ErpcMessage *self);
JsonNode *
erpc_message_get_id(ErpcMessage *self);
const gchar *
erpc_message_get_method(ErpcMessage *self);
JsonNode *
erpc_message_get_params(ErpcMessage *self);
JsonNode *
erpc_message_get_result(ErpcMessage *self);
gint64
erpc_message_get_error_code(ErpcMessage *self);
const gchar *
erpc_message_get_error_message(ErpcMessage *self);
JsonNode *
erpc_message_get_error_data(ErpcMessage *self);

gboolean
erpc_id_is_valid(JsonNode *id);
void
erpc_id_append(GString *out, JsonNode *id);
JsonNode *
erpc_id_new_int(gint64 value);

GBytes *
erpc_message_new_result(JsonNode *id, JsonNode *result);
GBytes *
erpc_message_new_error(JsonNode *id, gint code, const gchar *message, JsonNode *data);
GBytes *
erpc_message_new_notification(const gchar *method, JsonNode *params);
GBytes *
erpc_message_new_request(JsonNode *id, const gchar *method, JsonNode *params);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcMessage, erpc_message_unref)

G_END_DECLS
