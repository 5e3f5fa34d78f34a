/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _ErpcClient ErpcClient;

#define ERPC_TYPE_CLIENT_PROCESS (erpc_client_process_get_type())
G_DECLARE_FINAL_TYPE(ErpcClientProcess, erpc_client_process, ERPC, CLIENT_PROCESS, GObject)

ErpcClientProcess *
erpc_client_process_new(ErpcClient *client, const gchar *process_id, const gchar *const *argv);
void
erpc_client_process_set_cwd(ErpcClientProcess *self, const gchar *cwd);
void
erpc_client_process_set_env(ErpcClientProcess *self, const gchar *const *envp);
void
erpc_client_process_set_inherit_env(ErpcClientProcess *self, const gchar *inherit);
void
erpc_client_process_set_tty(ErpcClientProcess *self, gboolean tty);
void
erpc_client_process_set_pipe_stdin(ErpcClientProcess *self, gboolean pipe_stdin);

const gchar *
erpc_client_process_get_id(ErpcClientProcess *self);
ErpcClient *
erpc_client_process_get_client(ErpcClientProcess *self);
gboolean
erpc_client_process_has_exited(ErpcClientProcess *self);
gint
erpc_client_process_get_exit_code(ErpcClientProcess *self);
gboolean
erpc_client_process_is_closed(ErpcClientProcess *self);
guint64
erpc_client_process_get_last_seq(ErpcClientProcess *self);

void
erpc_client_process_start_async(ErpcClientProcess *self,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data);
gboolean
erpc_client_process_start_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error);
void
erpc_client_process_write_async(ErpcClientProcess *self,
				GBytes *data,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data);
gchar *
erpc_client_process_write_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error);
void
erpc_client_process_interrupt_async(ErpcClientProcess *self,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data);
gboolean
erpc_client_process_interrupt_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error);
void
erpc_client_process_terminate_async(ErpcClientProcess *self,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data);
gboolean
erpc_client_process_terminate_finish(ErpcClientProcess *self,
				     GAsyncResult *result,
				     gboolean *running,
				     GError **error);
void
erpc_client_process_read_async(ErpcClientProcess *self,
			       guint64 after_seq,
			       guint64 max_bytes,
			       guint wait_ms,
			       GCancellable *cancellable,
			       GAsyncReadyCallback callback,
			       gpointer user_data);
JsonObject *
erpc_client_process_read_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error);

G_END_DECLS
