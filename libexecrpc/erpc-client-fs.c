/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-base64.h"
#include "erpc-client-fs-private.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/*
 * The fs requests. Paths are absolute paths on the server, sent as
 * file:// URIs. Everything but the file handles (per connection, so lost in
 * a recovery) may be repeated after a recovery.
 */

JsonBuilder *
_erpc_client_fs_builder(void)
{
	JsonBuilder *builder = json_builder_new();
	json_builder_begin_object(builder);
	return builder;
}

gboolean
_erpc_client_fs_add_path(JsonBuilder *builder,
			 const gchar *member,
			 const gchar *path,
			 GError **error)
{
	g_autofree gchar *uri = NULL;

	if (!g_path_is_absolute(path) || (uri = erpc_path_to_uri(path)) == NULL) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "%s is not an absolute path",
			    path);
		return FALSE;
	}
	json_builder_set_member_name(builder, member);
	json_builder_add_string_value(builder, uri);
	return TRUE;
}

void
_erpc_client_fs_add_boolean(JsonBuilder *builder, const gchar *member, gboolean value)
{
	json_builder_set_member_name(builder, member);
	json_builder_add_boolean_value(builder, value);
}

void
_erpc_client_fs_add_string(JsonBuilder *builder, const gchar *member, const gchar *value)
{
	json_builder_set_member_name(builder, member);
	json_builder_add_string_value(builder, value);
}

/* sends the request built in @builder, or fails it with @error (taken) */
void
_erpc_client_fs_send(ErpcClient *self,
		     const gchar *method,
		     JsonBuilder *builder,
		     guint flags,
		     GError *error,
		     GCancellable *cancellable,
		     GAsyncReadyCallback callback,
		     gpointer user_data)
{
	g_autoptr(JsonNode) params = NULL;

	g_return_if_fail(ERPC_IS_CLIENT(self));
	if (error != NULL) {
		g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);
		g_task_set_source_tag(task, erpc_client_call_async);
		g_task_return_error(task, error);
		return;
	}
	json_builder_end_object(builder);
	params = json_builder_get_root(builder);
	_erpc_client_call_full(self, method, params, flags, cancellable, callback, user_data);
}

JsonObject *
_erpc_client_fs_finish_object(ErpcClient *self,
			      GAsyncResult *result,
			      const gchar *method,
			      GError **error)
{
	g_autoptr(JsonNode) node = NULL;

	g_return_val_if_fail(ERPC_IS_CLIENT(self), NULL);
	node = erpc_client_call_finish(self, result, error);
	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    ERPC_CLIENT_ERROR_PROTOCOL,
			    "%s did not answer an object",
			    method);
		return NULL;
	}
	return json_object_ref(json_node_get_object(node));
}

gboolean
_erpc_client_fs_finish_boolean(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = erpc_client_call_finish(self, result, error);
	return node != NULL;
}

GBytes *
_erpc_client_fs_decode(JsonObject *obj, const gchar *member, GError **error)
{
	const gchar *text = NULL;
	GBytes *data;

	if (!erpc_json_require_string(obj, member, &text, error))
		return NULL;
	data = erpc_base64_decode(text, strlen(text), G_MAXSIZE, error);
	if (data == NULL)
		g_prefix_error(error, "invalid %s: ", member);
	return data;
}

gchar *
_erpc_client_fs_encode(GBytes *data)
{
	gsize len = 0;
	const guint8 *bytes = g_bytes_get_data(data, &len);
	return g_base64_encode(bytes, len);
}

/**
 * erpc_client_fs_read_file_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/readFile`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_read_file_async(ErpcClient *self,
			       const gchar *path,
			       GCancellable *cancellable,
			       GAsyncReadyCallback callback,
			       gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_send(self,
			     "fs/readFile",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_read_file_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_read_file_async().
 *
 * Returns: (transfer full): the file's content, or %NULL; a missing file is
 *   %ERPC_ERROR_NOT_FOUND
 *
 * Since: 0.1
 */
GBytes *
erpc_client_fs_read_file_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    _erpc_client_fs_finish_object(self, result, "fs/readFile", error);
	return obj != NULL ? _erpc_client_fs_decode(obj, "dataBase64", error) : NULL;
}

/**
 * erpc_client_fs_write_file_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @data: the new content
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/writeFile`: creates or replaces the file.
 *
 * Since: 0.1
 */
void
erpc_client_fs_write_file_async(ErpcClient *self,
				const gchar *path,
				GBytes *data,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	g_autofree gchar *text = _erpc_client_fs_encode(data);
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_add_string(builder, "dataBase64", text);
	_erpc_client_fs_send(self,
			     "fs/writeFile",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_write_file_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_write_file_async().
 *
 * Returns: %TRUE if the file was written
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_write_file_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_boolean(self, result, error);
}

/**
 * erpc_client_fs_create_directory_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @recursive: create missing parents, and accept an existing directory
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/createDirectory`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_create_directory_async(ErpcClient *self,
				      const gchar *path,
				      gboolean recursive,
				      GCancellable *cancellable,
				      GAsyncReadyCallback callback,
				      gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_add_boolean(builder, "recursive", recursive);
	_erpc_client_fs_send(self,
			     "fs/createDirectory",
			     builder,
			     recursive ? ERPC_CLIENT_FS_REPEAT : 0,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_create_directory_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_create_directory_async().
 *
 * Returns: %TRUE if the directory exists now
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_create_directory_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_boolean(self, result, error);
}

/**
 * erpc_client_fs_get_metadata_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/getMetadata`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_get_metadata_async(ErpcClient *self,
				  const gchar *path,
				  GCancellable *cancellable,
				  GAsyncReadyCallback callback,
				  gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_send(self,
			     "fs/getMetadata",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_get_metadata_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_get_metadata_async().
 *
 * Returns: (transfer full): `isDirectory`, `isFile`, `isSymlink`, `size`,
 *   `createdAtMs` and `modifiedAtMs`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_fs_get_metadata_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_object(self, result, "fs/getMetadata", error);
}

/**
 * erpc_client_fs_read_directory_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/readDirectory`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_read_directory_async(ErpcClient *self,
				    const gchar *path,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_send(self,
			     "fs/readDirectory",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_read_directory_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_read_directory_async().
 *
 * Returns: (transfer full): the entries, objects with `fileName`,
 *   `isDirectory` and `isFile`, in the server's order; or %NULL
 *
 * Since: 0.1
 */
JsonArray *
erpc_client_fs_read_directory_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    _erpc_client_fs_finish_object(self, result, "fs/readDirectory", error);
	JsonArray *entries = NULL;

	if (obj == NULL || !erpc_json_require_array(obj, "entries", &entries, error))
		return NULL;
	return json_array_ref(entries);
}

/**
 * erpc_client_fs_canonicalize_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/canonicalize`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_canonicalize_async(ErpcClient *self,
				  const gchar *path,
				  GCancellable *cancellable,
				  GAsyncReadyCallback callback,
				  gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_send(self,
			     "fs/canonicalize",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_canonicalize_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_canonicalize_async().
 *
 * Returns: (transfer full): the resolved absolute path, or %NULL
 *
 * Since: 0.1
 */
gchar *
erpc_client_fs_canonicalize_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    _erpc_client_fs_finish_object(self, result, "fs/canonicalize", error);
	gchar *path = NULL;

	if (obj == NULL || !erpc_json_require_path(obj, "path", &path, error))
		return NULL;
	return path;
}

/**
 * erpc_client_fs_remove_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @recursive: remove a directory with its content
 * @force: a missing path is not an error
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/remove`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_remove_async(ErpcClient *self,
			    const gchar *path,
			    gboolean recursive,
			    gboolean force,
			    GCancellable *cancellable,
			    GAsyncReadyCallback callback,
			    gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	_erpc_client_fs_add_boolean(builder, "recursive", recursive);
	_erpc_client_fs_add_boolean(builder, "force", force);
	_erpc_client_fs_send(self,
			     "fs/remove",
			     builder,
			     force ? ERPC_CLIENT_FS_REPEAT : 0,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_remove_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_remove_async().
 *
 * Returns: %TRUE if the path is gone
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_remove_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_boolean(self, result, error);
}

/**
 * erpc_client_fs_copy_async:
 * @self: a #ErpcClient
 * @source_path: an absolute path on the server
 * @destination_path: an absolute path on the server
 * @recursive: copy a directory with its content
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/copy`.
 *
 * Since: 0.1
 */
void
erpc_client_fs_copy_async(ErpcClient *self,
			  const gchar *source_path,
			  const gchar *destination_path,
			  gboolean recursive,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	if (_erpc_client_fs_add_path(builder, "sourcePath", source_path, &error))
		_erpc_client_fs_add_path(builder, "destinationPath", destination_path, &error);
	_erpc_client_fs_add_boolean(builder, "recursive", recursive);
	_erpc_client_fs_send(self,
			     "fs/copy",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_copy_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_copy_async().
 *
 * Returns: %TRUE if the copy was made
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_copy_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_boolean(self, result, error);
}

/**
 * erpc_client_fs_walk_async:
 * @self: a #ErpcClient
 * @path: an absolute path on the server
 * @max_depth: levels below @path to descend (at most 64)
 * @max_entries: entries to return at most (1 to 50000)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `fs/walk`, breadth first, without following directory symlinks.
 *
 * Since: 0.1
 */
void
erpc_client_fs_walk_async(ErpcClient *self,
			  const gchar *path,
			  guint max_depth,
			  guint max_entries,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "path", path, &error);
	json_builder_set_member_name(builder, "options");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "maxDepth");
	json_builder_add_int_value(builder, max_depth);
	json_builder_set_member_name(builder, "maxDirectories");
	json_builder_add_int_value(builder, 10000);
	json_builder_set_member_name(builder, "maxEntries");
	json_builder_add_int_value(builder, max_entries);
	_erpc_client_fs_add_boolean(builder, "followDirectorySymlinks", FALSE);
	json_builder_end_object(builder);
	_erpc_client_fs_send(self,
			     "fs/walk",
			     builder,
			     ERPC_CLIENT_FS_REPEAT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_fs_walk_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_fs_walk_async().
 *
 * Returns: (transfer full): `entries`, `errors` and `truncated`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_fs_walk_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_object(self, result, "fs/walk", error);
}
