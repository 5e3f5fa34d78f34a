/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "erpc-base64.h"
#include "erpc-client-fs.h"
#include "erpc-client-private.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/*
 * The fs requests. Paths are absolute paths on the server, sent as
 * file:// URIs. Everything but the file handles (per connection, so lost in
 * a recovery) may be repeated after a recovery.
 */

#define ERPC_CLIENT_FS_REPEAT ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT

static JsonBuilder *
erpc_client_fs_builder(void)
{
	JsonBuilder *builder = json_builder_new();
	json_builder_begin_object(builder);
	return builder;
}

static gboolean
erpc_client_fs_add_path(JsonBuilder *builder,
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

static void
erpc_client_fs_add_boolean(JsonBuilder *builder, const gchar *member, gboolean value)
{
	json_builder_set_member_name(builder, member);
	json_builder_add_boolean_value(builder, value);
}

static void
erpc_client_fs_add_string(JsonBuilder *builder, const gchar *member, const gchar *value)
{
	json_builder_set_member_name(builder, member);
	json_builder_add_string_value(builder, value);
}

/* sends the request built in @builder, or fails it with @error (taken) */
static void
erpc_client_fs_send(ErpcClient *self,
		    const gchar *method,
		    JsonBuilder *builder,
		    guint flags,
		    GError *error,
		    GCancellable *cancellable,
		    GAsyncReadyCallback callback,
		    gpointer user_data)
{
	g_autoptr(JsonNode) params = NULL;

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

static JsonObject *
erpc_client_fs_finish_object(ErpcClient *self,
			     GAsyncResult *result,
			     const gchar *method,
			     GError **error)
{
	g_autoptr(JsonNode) node = erpc_client_call_finish(self, result, error);

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

static gboolean
erpc_client_fs_finish_boolean(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = erpc_client_call_finish(self, result, error);
	return node != NULL;
}

static GBytes *
erpc_client_fs_decode(JsonObject *obj, const gchar *member, GError **error)
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

static gchar *
erpc_client_fs_encode(GBytes *data)
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_send(self,
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
 * Returns: (transfer full): the file's content, or %NULL; a missing file is
 *   %ERPC_ERROR_NOT_FOUND
 *
 * Since: 0.1
 */
GBytes *
erpc_client_fs_read_file_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    erpc_client_fs_finish_object(self, result, "fs/readFile", error);
	return obj != NULL ? erpc_client_fs_decode(obj, "dataBase64", error) : NULL;
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	g_autofree gchar *text = erpc_client_fs_encode(data);
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_add_string(builder, "dataBase64", text);
	erpc_client_fs_send(self,
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
 * Returns: %TRUE if the file was written
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_write_file_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_boolean(self, result, error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_add_boolean(builder, "recursive", recursive);
	erpc_client_fs_send(self,
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
 * Returns: %TRUE if the directory exists now
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_create_directory_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_boolean(self, result, error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_send(self,
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
 * Returns: (transfer full): `isDirectory`, `isFile`, `isSymlink`, `size`,
 *   `createdAtMs` and `modifiedAtMs`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_fs_get_metadata_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_object(self, result, "fs/getMetadata", error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_send(self,
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
 * Returns: (transfer full): the entries, objects with `fileName`,
 *   `isDirectory` and `isFile`, in the server's order; or %NULL
 *
 * Since: 0.1
 */
JsonArray *
erpc_client_fs_read_directory_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    erpc_client_fs_finish_object(self, result, "fs/readDirectory", error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_send(self,
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
 * Returns: (transfer full): the resolved absolute path, or %NULL
 *
 * Since: 0.1
 */
gchar *
erpc_client_fs_canonicalize_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    erpc_client_fs_finish_object(self, result, "fs/canonicalize", error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_add_boolean(builder, "recursive", recursive);
	erpc_client_fs_add_boolean(builder, "force", force);
	erpc_client_fs_send(self,
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
 * Returns: %TRUE if the path is gone
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_remove_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_boolean(self, result, error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	if (erpc_client_fs_add_path(builder, "sourcePath", source_path, &error))
		erpc_client_fs_add_path(builder, "destinationPath", destination_path, &error);
	erpc_client_fs_add_boolean(builder, "recursive", recursive);
	erpc_client_fs_send(self,
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
 * Returns: %TRUE if the copy was made
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_copy_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_boolean(self, result, error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	GError *error = NULL;

	erpc_client_fs_add_path(builder, "path", path, &error);
	json_builder_set_member_name(builder, "options");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "maxDepth");
	json_builder_add_int_value(builder, max_depth);
	json_builder_set_member_name(builder, "maxDirectories");
	json_builder_add_int_value(builder, 10000);
	json_builder_set_member_name(builder, "maxEntries");
	json_builder_add_int_value(builder, max_entries);
	erpc_client_fs_add_boolean(builder, "followDirectorySymlinks", FALSE);
	json_builder_end_object(builder);
	erpc_client_fs_send(self,
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
 * Returns: (transfer full): `entries`, `errors` and `truncated`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_fs_walk_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_object(self, result, "fs/walk", error);
}

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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	g_autofree gchar *handle_id =
	    g_strdup_printf("h%u", (guint)g_atomic_int_add(&handles, 1) + 1);
	GError *error = NULL;

	erpc_client_fs_add_string(builder, "handleId", handle_id);
	erpc_client_fs_add_path(builder, "path", path, &error);
	erpc_client_fs_add_string(builder, "mode", replace ? "replace" : "read");
	erpc_client_fs_send(self, "fs/open", builder, 0, error, cancellable, callback, user_data);
}

/**
 * erpc_client_fs_open_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the handle id, or %NULL
 *
 * Since: 0.1
 */
gchar *
erpc_client_fs_open_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj = erpc_client_fs_finish_object(self, result, "fs/open", error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();

	erpc_client_fs_add_string(builder, "handleId", handle_id);
	json_builder_set_member_name(builder, "offset");
	json_builder_add_int_value(builder, (gint64)offset);
	json_builder_set_member_name(builder, "len");
	json_builder_add_int_value(builder, (gint64)len);
	erpc_client_fs_send(self,
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
	    erpc_client_fs_finish_object(self, result, "fs/readBlock", error);
	gboolean at_end = FALSE;

	if (obj == NULL || !erpc_json_get_boolean(obj, "eof", FALSE, &at_end, error))
		return NULL;
	if (eof != NULL)
		*eof = at_end;
	return erpc_client_fs_decode(obj, "chunk", error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
	g_autofree gchar *text = erpc_client_fs_encode(data);

	erpc_client_fs_add_string(builder, "handleId", handle_id);
	json_builder_set_member_name(builder, "offset");
	json_builder_add_int_value(builder, (gint64)offset);
	erpc_client_fs_add_string(builder, "chunk", text);
	erpc_client_fs_send(self,
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
 * Returns: %TRUE if every byte was written
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_write_block_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_boolean(self, result, error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();

	erpc_client_fs_add_string(builder, "handleId", handle_id);
	erpc_client_fs_send(self, "fs/close", builder, 0, NULL, cancellable, callback, user_data);
}

/**
 * erpc_client_fs_close_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if the handle is closed
 *
 * Since: 0.1
 */
gboolean
erpc_client_fs_close_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return erpc_client_fs_finish_boolean(self, result, error);
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
	g_autoptr(JsonBuilder) builder = erpc_client_fs_builder();
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
		erpc_client_fs_add_path(builder, "present", present, &error);
	erpc_client_fs_send(self,
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
	    erpc_client_fs_finish_object(self, result, "fs/watchMissing", error);
	gboolean value = FALSE;

	if (obj == NULL)
		return FALSE;
	erpc_json_get_boolean(obj, "watching", FALSE, &value, NULL);
	if (watching != NULL)
		*watching = value;
	return TRUE;
}
