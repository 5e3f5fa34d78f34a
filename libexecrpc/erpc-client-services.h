/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client.h"

G_BEGIN_DECLS

void
erpc_client_http_request_async(ErpcClient *self,
			       const gchar *method,
			       const gchar *url,
			       const gchar *const *headers,
			       GBytes *body,
			       guint timeout_ms,
			       gboolean follow_redirects,
			       GCancellable *cancellable,
			       GAsyncReadyCallback callback,
			       gpointer user_data);
JsonObject *
erpc_client_http_request_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_read_environment_config_async(ErpcClient *self,
					  const gchar *cwd,
					  const gchar *const *config_paths,
					  const gchar *const *requirements_paths,
					  GCancellable *cancellable,
					  GAsyncReadyCallback callback,
					  gpointer user_data);
JsonObject *
erpc_client_read_environment_config_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_discover_capability_roots_async(ErpcClient *self,
					    const gchar *const *ids,
					    const gchar *const *paths,
					    GCancellable *cancellable,
					    GAsyncReadyCallback callback,
					    gpointer user_data);
void
erpc_client_discover_capability_roots_sandboxed_async(ErpcClient *self,
						      const gchar *const *ids,
						      const gchar *const *paths,
						      JsonObject *sandbox,
						      GCancellable *cancellable,
						      GAsyncReadyCallback callback,
						      gpointer user_data);
gboolean
erpc_sandbox_context_reads_everything(JsonObject *sandbox);
JsonArray *
erpc_client_discover_capability_roots_finish(ErpcClient *self,
					     GAsyncResult *result,
					     GError **error);
void
erpc_client_discover_capabilities_async(ErpcClient *self,
					const gchar *cwd,
					GCancellable *cancellable,
					GAsyncReadyCallback callback,
					gpointer user_data);
void
erpc_client_discover_capabilities_sandboxed_async(ErpcClient *self,
						  const gchar *cwd,
						  JsonObject *sandbox,
						  GCancellable *cancellable,
						  GAsyncReadyCallback callback,
						  gpointer user_data);
JsonObject *
erpc_client_discover_capabilities_finish(ErpcClient *self, GAsyncResult *result, GError **error);

G_END_DECLS
