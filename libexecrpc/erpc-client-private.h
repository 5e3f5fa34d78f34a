/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client-process.h"
#include "erpc-client.h"
#include "erpc-transport.h"

G_BEGIN_DECLS

/* a retried process/start that meets "already exists" started the first time */
#define ERPC_CLIENT_CALL_INTERNAL_START (1u << 8)

/* erpc-client.c */
void
_erpc_client_call_full(ErpcClient *self,
		       const gchar *method,
		       JsonNode *params,
		       guint flags,
		       GCancellable *cancellable,
		       GAsyncReadyCallback callback,
		       gpointer user_data);
void
_erpc_client_register_process(ErpcClient *self, ErpcClientProcess *process);
void
_erpc_client_unregister_process(ErpcClient *self, ErpcClientProcess *process);
void
_erpc_client_keep_process(ErpcClient *self, ErpcClientProcess *process);
void
_erpc_client_release_process(ErpcClient *self, ErpcClientProcess *process);

void
_erpc_client_set_command_environment(ErpcClient *self, const gchar *const *envp, const gchar *cwd);

/* erpc-client-process.c */
void
_erpc_client_process_notify(ErpcClientProcess *self, const gchar *method, JsonObject *params);
void
_erpc_client_process_catch_up(ErpcClientProcess *self);

/* erpc-client-headers.c */
gboolean
_erpc_client_header_validate(const gchar *name, const gchar *value, GError **error);
gboolean
_erpc_client_url_is_loopback(const gchar *url);
gchar *
_erpc_client_headers_describe(GPtrArray *headers);

/* erpc-client-ws.c: the WebSocket handshake, through a proxy if one applies */
typedef struct {
	gchar *url;
	GPtrArray *headers; /* name, value, name, value… */
	gchar *bearer_token;
	GProxyResolver *proxy_resolver;
	GTlsDatabase *tls_database;
	guint timeout_ms;
	gsize max_message_size;
	guint keepalive_ms;
} ErpcClientWsOptions;

void
_erpc_client_ws_options_free(ErpcClientWsOptions *options);
void
_erpc_client_ws_connect_async(ErpcClientWsOptions *options,
			      GCancellable *cancellable,
			      GAsyncReadyCallback callback,
			      gpointer user_data);
ErpcTransport *
_erpc_client_ws_connect_finish(GAsyncResult *result, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcClientWsOptions, _erpc_client_ws_options_free)

G_END_DECLS
