/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>

#include "erpc-session.h"

G_BEGIN_DECLS

#define ERPC_TYPE_CALL (erpc_call_get_type())
G_DECLARE_FINAL_TYPE(ErpcCall, erpc_call, ERPC, CALL, GObject)

ErpcConnection *
erpc_call_get_connection(ErpcCall *self);
const gchar *
erpc_call_get_method(ErpcCall *self);
JsonNode *
erpc_call_get_id(ErpcCall *self);
JsonNode *
erpc_call_get_params(ErpcCall *self);
const gchar *
erpc_call_get_blob(ErpcCall *self,
		   JsonObject *params,
		   const gchar *member,
		   gsize *len,
		   GError **error);
GCancellable *
erpc_call_get_cancellable(ErpcCall *self);
gboolean
erpc_call_is_finished(ErpcCall *self);
gpointer
erpc_call_get_context(ErpcCall *self);
void
erpc_call_set_context(ErpcCall *self, gpointer context);
ErpcSession *
erpc_call_get_session(ErpcCall *self);

void
erpc_call_return(ErpcCall *self, JsonNode *result);
void
erpc_call_return_raw(ErpcCall *self, const gchar *result_json);
GString *
erpc_call_result_string_new(gsize size_hint);
void
erpc_call_return_gstring(ErpcCall *self, GString *result);
GString *
erpc_call_result_begin(ErpcCall *self, gsize size_hint);
void
erpc_call_result_end(ErpcCall *self, GString *result);
void
erpc_call_return_error(ErpcCall *self, const GError *error);
void
erpc_call_return_error_full(ErpcCall *self, const GError *error, JsonNode *data);

G_END_DECLS
