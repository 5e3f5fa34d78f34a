/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-client-fs-private.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/*
 * File handles (fs/open, fs/readBlock, fs/writeBlock, fs/close), which
 * belong to one connection and are never repeated after a recovery, and
 * fs/watchMissing.
 */

/**
 * erpc_client_fs_open_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @replace: open for writing a new content (`replace`) instead of reading
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/open` with a new handle id. Handles belong to the connection:
 * after a recovery they are gone and their requests fail.
 *
 * Since: 0.1
 */
void
erpc_client_fs_open_async(ErpcClient *self,
			  const gchar *path,
			  gboolean replace,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	static gint handles = 0;
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	g_autofree gchar *handle_id =
	    g_strdup_printf("h%u", (guint)g_atomic_int_add(&handles, 1) + 1);
	GError *error = NULL;

	_erpc_client_fs_add_string(builder, "handleId", handle_id);
	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_add_string(builder, "mode", replace ? "replace" : "read");
	_erpc_client_fs_send(self, "fs/open", builder, 0, error, cancellable, callback, user_data);
}

/**
 * erpc_client_fs_open_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_open_async().
 *
 * Returns: (transfer full): the handle id, or %NULL
 *
 * Since: 0.1
 */
gchar *
erpc_client_fs_open_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj = _erpc_client_fs_finish_object(self, result, "fs/open", error);
	const gchar *handle_id = NULL;

	if (obj == NULL || !erpc_json_require_string(obj, "handleId", &handle_id, error))
		return NULL;
	return g_strdup(handle_id);
}

/**
 * erpc_client_fs_read_block_async:
 * @self: a #ErpcClient
 * @handle_id: a handle opened for reading
 * @offset: where to read
 * @len: bytes to read, 1 to 1048576
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/readBlock`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_read_block_async(ErpcClient *self,
				const gchar *handle_id,
				guint64 offset,
				gsize len,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();

	_erpc_client_fs_add_string(builder, "handleId", handle_id);
	json_builder_set_member_name(builder, "offset");
	json_builder_add_int_value(builder, (gint64)offset);
	json_builder_set_member_name(builder, "len");
	json_builder_add_int_value(builder, (gint64)len);
	_erpc_client_fs_send(self,
			     "fs/readBlock",
			     builder,
			     0,
			     NULL,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_read_block_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @eof: (out) (optional): whether the block reached the end of the file
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_read_block_async().
 *
 * Returns: (transfer full): the bytes read, or %NULL
 *
 * Since: 0.1
 */
GBytes *
erpc_client_fs_read_block_finish(ErpcClient *self,
				 GAsyncResult *result,
				 gboolean *eof,
				 GError **error)
{
	g_autoptr(JsonObject) obj =
	    _erpc_client_fs_finish_object(self, result, "fs/readBlock", error);
	gboolean at_end = FALSE;

	if (obj == NULL || !erpc_json_get_boolean(obj, "eof", FALSE, &at_end, error))
		return NULL;
	if (eof != NULL)
		*eof = at_end;
	return _erpc_client_fs_decode(obj, "chunk", error);
}

/**
 * erpc_client_fs_write_block_async:
 * @self: a #ErpcClient
 * @handle_id: a handle opened with @replace
 * @offset: where to write
 * @data: 1 to 1048576 bytes
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/writeBlock`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_write_block_async(ErpcClient *self,
				 const gchar *handle_id,
				 guint64 offset,
				 GBytes *data,
				 GCancellable *cancellable,
				 GAsyncReadyCallback callback,
				 gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	g_autofree gchar *text = _erpc_client_fs_encode(data);

	_erpc_client_fs_add_string(builder, "handleId", handle_id);
	json_builder_set_member_name(builder, "offset");
	json_builder_add_int_value(builder, (gint64)offset);
	_erpc_client_fs_add_string(builder, "chunk", text);
	_erpc_client_fs_send(self,
			     "fs/writeBlock",
			     builder,
			     0,
			     NULL,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_write_block_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_write_block_async().
 *
 * Returns: %TRUE if every byte was written
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_write_block_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_boolean(self, result, error);
}

/**
 * erpc_client_fs_close_async:
 * @self: a #ErpcClient
 * @handle_id: a handle
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/close`; closing a `replace` handle puts the new content in place.
 *
 * Since: 0.1
 */
void
erpc_client_fs_close_async(ErpcClient *self,
			   const gchar *handle_id,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();

	_erpc_client_fs_add_string(builder, "handleId", handle_id);
	_erpc_client_fs_send(self, "fs/close", builder, 0, NULL, cancellable, callback, user_data);
}

/**
 * erpc_client_fs_close_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_close_async().
 *
 * Returns: %TRUE if the handle is closed
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_close_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_boolean(self, result, error);
}

/**
 * erpc_client_fs_watch_missing_async:
 * @self: a #ErpcClient
 * @watch_id: a generation number, larger than the last one
 * @missing: (array zero-terminated=1): absolute paths expected to appear
 * @present: (nullable): an absolute path expected to disappear
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/watchMissing`; #ErpcClient::missing-changed tells when it fired.
 *
 * Since: 0.1
 */
void
erpc_client_fs_watch_missing_async(ErpcClient *self,
				   guint64 watch_id,
				   const gchar *const *missing,
				   const gchar *present,
				   GCancellable *cancellable,
				   GAsyncReadyCallback callback,
				   gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	json_builder_set_member_name(builder, "watchId");
	json_builder_add_int_value(builder, (gint64)watch_id);
	json_builder_set_member_name(builder, "missing");
	json_builder_begin_array(builder);
	for (guint i = 0; missing[i] != NULL && error == NULL; i++) {
		g_autofree gchar *uri = NULL;
		if (!g_path_is_absolute(missing[i]) ||
		    (uri = erpc_path_to_uri(missing[i])) == NULL) {
			g_set_error(&error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_ARGUMENT,
				    "%s is not an absolute path",
				    missing[i]);
			break;
		}
		json_builder_add_string_value(builder, uri);
	}
	json_builder_end_array(builder);
	if (present != NULL && error == NULL)
		_erpc_client_fs_add_path(builder, "present", present, &error);
	_erpc_client_fs_send(self,
			     "fs/watchMissing",
			     builder,
			     0,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_watch_missing_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @watching: (out) (optional): whether a path is being watched
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_watch_missing_async().
 *
 * Returns: %TRUE if the server answered
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_watch_missing_finish(ErpcClient *self,
				    GAsyncResult *result,
				    gboolean *watching,
				    GError **error)
{
	g_autoptr(JsonObject) obj =
	    _erpc_client_fs_finish_object(self, result, "fs/watchMissing", error);
	gboolean value = FALSE;

	if (obj == NULL)
		return FALSE;
	erpc_json_get_boolean(obj, "watching", FALSE, &value, NULL);
	if (watching != NULL)
		*watching = value;
	return TRUE;
}
