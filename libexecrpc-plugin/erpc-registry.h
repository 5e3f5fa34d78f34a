/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-call.h"
#include "erpc-context.h"

G_BEGIN_DECLS

#define ERPC_TYPE_REGISTRY (erpc_registry_get_type())
G_DECLARE_FINAL_TYPE(ErpcRegistry, erpc_registry, ERPC, REGISTRY, GObject)

/**
 * ErpcMethodFlags:
 * @ERPC_METHOD_FLAG_NONE: a request, available after the handshake
 * @ERPC_METHOD_FLAG_PRE_INIT: callable before `initialized` (only `initialize`)
 * @ERPC_METHOD_FLAG_BLOBS: the handler reads its one large string member
 *   (file contents) with erpc_call_get_blob() before anything else in
 *   params, so that it is never copied
 *
 * How a method is dispatched, in #ErpcMethodInfo.
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_METHOD_FLAG_NONE = 0,
	ERPC_METHOD_FLAG_PRE_INIT = 1 << 0,
	ERPC_METHOD_FLAG_BLOBS = 1 << 1,
} ErpcMethodFlags;

/**
 * ErpcMethodFunc:
 * @call: the request; finish it exactly once
 * @params: (nullable): the params as sent; already checked to be an object
 *   for methods with a @params_type, and absent, `null` or `{}` otherwise
 * @user_data: what was given to erpc_registry_add_method()
 *
 * The handler of a method. It answers @call with erpc_call_return() or
 * erpc_call_return_error(), now or later, exactly once; reading @params
 * with the getters of `erpc-json.h` gives the protocol's `-32602` errors.
 *
 * Since: 0.1
 */
typedef void (*ErpcMethodFunc)(ErpcCall *call, JsonObject *params, gpointer user_data);

/**
 * ErpcMethodInfo:
 * @name: the method, e.g. `fs/readFile`
 * @family: the family named in handshake errors, e.g. `filesystem`
 * @params_type: (nullable): the name of the params type for type errors
 *   (`struct ReadFileParams`); %NULL for a method that takes no params
 * @capability: (nullable): the capability that gates the method
 * @since_version: the capability version from which the method exists
 * @flags: #ErpcMethodFlags
 * @func: the handler
 *
 * Describes one RPC method. A gated method is dispatched only while its
 * capability is registered with a version of at least @since_version, and
 * is otherwise answered exactly like an unknown method.
 *
 * Since: 0.1
 */
typedef struct {
	const gchar *name;
	const gchar *family;
	const gchar *params_type;
	const gchar *capability;
	guint since_version;
	ErpcMethodFlags flags;
	ErpcMethodFunc func;
	/*< private >*/
	gpointer padding[4];
} ErpcMethodInfo;

gboolean
erpc_registry_add_method(ErpcRegistry *self,
			 const ErpcMethodInfo *info,
			 gpointer user_data,
			 GDestroyNotify user_data_free,
			 GError **error);
gboolean
erpc_registry_add_capability(ErpcRegistry *self,
			     const gchar *capability,
			     guint version,
			     GError **error);
gboolean
erpc_registry_add_extension(ErpcRegistry *self,
			    const gchar *point,
			    const gchar *name,
			    GType gtype,
			    gint priority,
			    GError **error);

guint
erpc_registry_get_capability_version(ErpcRegistry *self, const gchar *capability);
GType
erpc_registry_lookup_extension(ErpcRegistry *self, const gchar *point, const gchar *name);
GPtrArray *
erpc_registry_list_methods(ErpcRegistry *self, const gchar *owner);
GPtrArray *
erpc_registry_list_capabilities(ErpcRegistry *self, const gchar *owner);
GPtrArray *
erpc_registry_list_extensions(ErpcRegistry *self, const gchar *point, const gchar *owner);

GVariant *
erpc_registry_get_option(ErpcRegistry *self, const gchar *name, const GVariantType *type);

ErpcContext *
erpc_registry_get_context(ErpcRegistry *self);

G_END_DECLS
