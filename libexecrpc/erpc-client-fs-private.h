/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client-fs.h"
#include "erpc-client-private.h"

G_BEGIN_DECLS

/* helpers shared by erpc-client-fs.c and erpc-client-fs-handles.c */

#define ERPC_CLIENT_FS_REPEAT ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT

JsonBuilder *
_erpc_client_fs_builder(void);
gboolean
_erpc_client_fs_add_path(JsonBuilder *builder,
			 const gchar *member,
			 const gchar *path,
			 GError **error);
void
_erpc_client_fs_add_boolean(JsonBuilder *builder, const gchar *member, gboolean value);
void
_erpc_client_fs_add_string(JsonBuilder *builder, const gchar *member, const gchar *value);
void
_erpc_client_fs_send(ErpcClient *self,
		     const gchar *method,
		     JsonBuilder *builder,
		     guint flags,
		     GError *error,
		     GCancellable *cancellable,
		     GAsyncReadyCallback callback,
		     gpointer user_data);
JsonObject *
_erpc_client_fs_finish_object(ErpcClient *self,
			      GAsyncResult *result,
			      const gchar *method,
			      GError **error);
gboolean
_erpc_client_fs_finish_boolean(ErpcClient *self, GAsyncResult *result, GError **error);
GBytes *
_erpc_client_fs_decode(JsonObject *obj, const gchar *member, GError **error);
gchar *
_erpc_client_fs_encode(GBytes *data);

G_END_DECLS
