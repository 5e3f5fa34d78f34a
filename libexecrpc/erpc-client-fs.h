/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client.h"

G_BEGIN_DECLS

void
erpc_client_fs_read_file_async(ErpcClient *self,
			       const gchar *path,
			       GCancellable *cancellable,
			       GAsyncReadyCallback callback,
			       gpointer user_data);
GBytes *
erpc_client_fs_read_file_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_write_file_async(ErpcClient *self,
				const gchar *path,
				GBytes *data,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data);
gboolean
erpc_client_fs_write_file_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_create_directory_async(ErpcClient *self,
				      const gchar *path,
				      gboolean recursive,
				      GCancellable *cancellable,
				      GAsyncReadyCallback callback,
				      gpointer user_data);
gboolean
erpc_client_fs_create_directory_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_get_metadata_async(ErpcClient *self,
				  const gchar *path,
				  GCancellable *cancellable,
				  GAsyncReadyCallback callback,
				  gpointer user_data);
JsonObject *
erpc_client_fs_get_metadata_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_read_directory_async(ErpcClient *self,
				    const gchar *path,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data);
JsonArray *
erpc_client_fs_read_directory_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_canonicalize_async(ErpcClient *self,
				  const gchar *path,
				  GCancellable *cancellable,
				  GAsyncReadyCallback callback,
				  gpointer user_data);
gchar *
erpc_client_fs_canonicalize_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_remove_async(ErpcClient *self,
			    const gchar *path,
			    gboolean recursive,
			    gboolean force,
			    GCancellable *cancellable,
			    GAsyncReadyCallback callback,
			    gpointer user_data);
gboolean
erpc_client_fs_remove_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_copy_async(ErpcClient *self,
			  const gchar *source_path,
			  const gchar *destination_path,
			  gboolean recursive,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
gboolean
erpc_client_fs_copy_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_walk_async(ErpcClient *self,
			  const gchar *path,
			  guint max_depth,
			  guint max_entries,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
JsonObject *
erpc_client_fs_walk_finish(ErpcClient *self, GAsyncResult *result, GError **error);

void
erpc_client_fs_open_async(ErpcClient *self,
			  const gchar *path,
			  gboolean replace,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
gchar *
erpc_client_fs_open_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_read_block_async(ErpcClient *self,
				const gchar *handle_id,
				guint64 offset,
				gsize len,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data);
GBytes *
erpc_client_fs_read_block_finish(ErpcClient *self,
				 GAsyncResult *result,
				 gboolean *eof,
				 GError **error);
void
erpc_client_fs_write_block_async(ErpcClient *self,
				 const gchar *handle_id,
				 guint64 offset,
				 GBytes *data,
				 GCancellable *cancellable,
				 GAsyncReadyCallback callback,
				 gpointer user_data);
gboolean
erpc_client_fs_write_block_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_close_async(ErpcClient *self,
			   const gchar *handle_id,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data);
gboolean
erpc_client_fs_close_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_fs_watch_missing_async(ErpcClient *self,
				   guint64 watch_id,
				   const gchar *const *missing,
				   const gchar *present,
				   GCancellable *cancellable,
				   GAsyncReadyCallback callback,
				   gpointer user_data);
gboolean
erpc_client_fs_watch_missing_finish(ErpcClient *self,
				    GAsyncResult *result,
				    gboolean *watching,
				    GError **error);

G_END_DECLS
