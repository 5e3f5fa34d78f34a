/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "esd-fs-connection-state.h"
#include "esd-fs-handle-methods.h"
#include "esd-fs-job.h"
#include "esd-fs-methods.h"
#include "esd-fs-ops.h"
#include "esd-fs-path.h"

/*
 * fs/open, fs/readBlock, fs/writeBlock, fs/close (PROTOCOL.md §10) and
 * fs/watchMissing (§11). A sandboxed fs/open is opened by the helper, inside
 * the sandbox, and the daemon adopts the descriptors it hands over; blocks
 * and fs/close then work on those descriptors here, so a replacement is put
 * in place relative to a directory of the sandbox's mounts. fs/watchMissing
 * takes no `sandbox` (§11); like any unknown member one is ignored.
 */

static EsdFsHandleTable *
esd_fs_methods_get_handles(ErpcCall *call)
{
	ErpcConnection *connection = erpc_call_get_connection(call);
	return esd_fs_connection_state_get_handles(esd_fs_connection_state_get(connection));
}

/*
 * A handle the sandboxed helper opened, on the main thread once it answered:
 * the id is checked again, as another request may have taken it meanwhile.
 */
static gboolean
esd_fs_handle_methods_adopt(ErpcCall *call, EsdFsHandle *handle, GError **error)
{
	ErpcConnection *connection = erpc_call_get_connection(call);
	JsonNode *params = erpc_call_get_params(call);
	EsdFsHandleTable *handles;
	const gchar *id = NULL;

	/* the answer is dropped and the handle discarded with it */
	if (erpc_connection_is_closed(connection))
		return TRUE;
	if (params == NULL || !JSON_NODE_HOLDS_OBJECT(params) ||
	    !erpc_json_require_string(json_node_get_object(params), "handleId", &id, error))
		return FALSE;
	handles = esd_fs_methods_get_handles(call);
	if (!esd_fs_handle_table_reserve(handles, id, error))
		return FALSE;
	esd_fs_handle_table_insert(handles, id, handle);
	return TRUE;
}

/* a handle of the kind @mode asks for, read (0) or replace (1) */
static EsdFsHandle *
esd_fs_methods_open_handle(const gchar *path, gint mode, GError **error)
{
	if (mode == 0) {
		struct stat st;
		gint fd = esd_fs_ops_open_regular(path, TRUE, &st, error);
		if (fd < 0)
			return NULL;
		return esd_fs_handle_new_read(fd);
	}
	{
		g_auto(EsdFsTarget) target = {.dirfd = -1};
		EsdFsReplace *replace;
		if (!esd_fs_target_resolve(path, TRUE, &target, error))
			return NULL;
		replace = esd_fs_replace_new(&target, error);
		if (replace == NULL)
			return NULL;
		return esd_fs_handle_new_replace(replace);
	}
}

void
esd_fs_methods_open(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	static const gchar *const modes[] = {"read", "replace", NULL};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_autoptr(EsdFsHandle) handle = NULL;
	g_autoptr(GString) out = NULL;
	ErpcJsonWriter writer;
	EsdFsHandleTable *handles;
	const gchar *id = NULL;
	gint mode = 0;

	if (!erpc_json_require_string(params, "handleId", &id, &error) ||
	    !esd_fs_methods_parse_path(call, params, &path, NULL, &error) ||
	    !erpc_json_get_enum(params, "mode", modes, 0, &mode, &error) ||
	    !esd_fs_handle_table_check_id(id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	handles = esd_fs_methods_get_handles(call);
	if (!esd_fs_handle_table_reserve(handles, id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_fs_methods_check_sandbox(user_data,
					  call,
					  params,
					  NULL,
					  esd_fs_handle_methods_adopt))
		return;
	handle = esd_fs_methods_open_handle(path, mode, &error);
	if (handle == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	esd_fs_handle_table_insert(handles, id, handle);
	out = g_string_new(NULL);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "handleId", id);
	erpc_json_writer_end_object(&writer);
	erpc_call_return_raw(call, out->str);
}

typedef struct {
	ErpcConnection *connection;
	gchar *id;
	EsdFsHandle *handle;
	guint64 offset;
	gsize len;
	GBytes *data;
} EsdFsBlockJob;

static void
esd_fs_block_job_free(gpointer data)
{
	EsdFsBlockJob *job = data;
	g_object_unref(job->connection);
	g_free(job->id);
	g_object_unref(job->handle);
	g_clear_pointer(&job->data, g_bytes_unref);
	g_free(job);
}

static EsdFsBlockJob *
esd_fs_block_job_new(ErpcCall *call, const gchar *id, EsdFsHandle *handle, guint64 offset)
{
	EsdFsBlockJob *job = g_new0(EsdFsBlockJob, 1);
	job->connection = g_object_ref(erpc_call_get_connection(call));
	job->id = g_strdup(id);
	job->handle = g_object_ref(handle);
	job->offset = offset;
	return job;
}

/* a read that failed closes its handle, as the reference does; main thread */
static void
esd_fs_methods_read_failed(ErpcConnection *connection, const gchar *id, EsdFsHandle *handle)
{
	EsdFsHandleTable *handles;
	EsdFsHandle *current;

	if (erpc_connection_is_closed(connection) || esd_fs_handle_is_writable(handle))
		return;
	handles = esd_fs_connection_state_get_handles(esd_fs_connection_state_get(connection));
	current = esd_fs_handle_table_lookup(handles, id, NULL);
	if (current == handle)
		g_object_unref(esd_fs_handle_table_steal(handles, id));
}

static GString *
esd_fs_methods_read_block_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsBlockJob *job = data;
	return esd_fs_handle_read_block(job->handle, job->offset, job->len, error);
}

static void
esd_fs_methods_read_block_done(gpointer data, const GError *error)
{
	EsdFsBlockJob *job = data;
	if (error != NULL)
		esd_fs_methods_read_failed(job->connection, job->id, job->handle);
}

void
esd_fs_methods_read_block(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	const gchar *id = NULL;
	guint64 offset = 0;
	guint64 len = 0;
	EsdFsHandle *handle;
	EsdFsBlockJob *job;

	if (!erpc_json_require_string(params, "handleId", &id, &error) ||
	    !erpc_json_require_uint64(params, "offset", &offset, &error) ||
	    !erpc_json_require_uint64(params, "len", &len, &error) ||
	    !esd_fs_handle_table_check_id(id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (len < 1 || len > ESD_FS_BLOCK_MAX) {
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "file read block length must be between 1 and %d",
			    ESD_FS_BLOCK_MAX);
		erpc_call_return_error(call, error);
		return;
	}
	handle = esd_fs_handle_table_lookup(esd_fs_methods_get_handles(call), id, &error);
	if (handle == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	if (len <= ESD_FS_SYNC_BYTES) {
		g_autoptr(EsdFsHandle) keep = g_object_ref(handle);
		GString *result = esd_fs_handle_read_block(handle, offset, (gsize)len, &error);
		if (result == NULL)
			esd_fs_methods_read_failed(erpc_call_get_connection(call), id, keep);
		esd_fs_methods_finish(call, result, error);
		return;
	}
	job = esd_fs_block_job_new(call, id, handle, offset);
	job->len = (gsize)len;
	esd_fs_job_run_full(call,
			    esd_fs_methods_read_block_thread,
			    esd_fs_methods_read_block_done,
			    job,
			    esd_fs_block_job_free);
}

static GString *
esd_fs_methods_write_block_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	EsdFsBlockJob *job = data;
	if (!esd_fs_handle_write_block(job->handle, job->offset, job->data, error))
		return NULL;
	return g_string_new("{}");
}

static gboolean
esd_fs_methods_check_write_block(guint64 offset, gsize len, GError **error)
{
	if (len < 1 || len > ESD_FS_BLOCK_MAX) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "file write block length must be between 1 and %d",
			    ESD_FS_BLOCK_MAX);
		return FALSE;
	}
	/* file offsets are signed */
	if (offset > (guint64)G_MAXINT64 - len) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "file write range exceeds the signed 64-bit file offset limit");
		return FALSE;
	}
	return TRUE;
}

void
esd_fs_methods_write_block(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) data = NULL;
	const gchar *id = NULL;
	const gchar *chunk = NULL;
	guint64 offset = 0;
	EsdFsHandle *handle;
	EsdFsBlockJob *job;
	gsize len;

	if (!erpc_json_require_string(params, "handleId", &id, &error) ||
	    !erpc_json_require_uint64(params, "offset", &offset, &error) ||
	    !erpc_json_require_string(params, "chunk", &chunk, &error) ||
	    (data = esd_fs_base64_decode(chunk, strlen(chunk), &error)) == NULL ||
	    !esd_fs_handle_table_check_id(id, &error) ||
	    !esd_fs_methods_check_write_block(offset, g_bytes_get_size(data), &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	handle = esd_fs_handle_table_lookup(esd_fs_methods_get_handles(call), id, &error);
	if (handle == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	len = g_bytes_get_size(data);
	if (len <= ESD_FS_SYNC_BYTES) {
		gboolean ok = esd_fs_handle_write_block(handle, offset, data, &error);
		esd_fs_methods_finish_empty(call, ok, error);
		return;
	}
	job = esd_fs_block_job_new(call, id, handle, offset);
	job->data = g_steal_pointer(&data);
	esd_fs_job_run(call, esd_fs_methods_write_block_thread, job, esd_fs_block_job_free);
}

static GString *
esd_fs_methods_commit_thread(gpointer data, GCancellable *cancellable, GError **error)
{
	if (!esd_fs_handle_commit(ESD_FS_HANDLE(data), error))
		return NULL;
	return g_string_new("{}");
}

void
esd_fs_methods_close(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdFsHandle) handle = NULL;
	const gchar *id = NULL;

	if (!erpc_json_require_string(params, "handleId", &id, &error) ||
	    !esd_fs_handle_table_check_id(id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	/* closing is idempotent; the id is free again at once */
	handle = esd_fs_handle_table_steal(esd_fs_methods_get_handles(call), id);
	if (handle == NULL || !esd_fs_handle_is_writable(handle)) {
		erpc_call_return_raw(call, "{}");
		return;
	}
	/* a replacement is flushed and renamed into place: worth a worker */
	esd_fs_job_run(call,
		       esd_fs_methods_commit_thread,
		       g_steal_pointer(&handle),
		       g_object_unref);
}

static gboolean
esd_fs_methods_parse_missing(JsonObject *params, GPtrArray *missing, GError **error)
{
	JsonArray *array = NULL;

	if (!erpc_json_require_array(params, "missing", &array, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *node = json_array_get_element(array, i);
		gchar *path;

		if (!JSON_NODE_HOLDS_VALUE(node) ||
		    json_node_get_value_type(node) != G_TYPE_STRING) {
			g_autofree gchar *what = erpc_json_describe(node);
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid type: %s, expected a string",
				    what);
			return FALSE;
		}
		path = erpc_uri_to_path(json_node_get_string(node), error);
		if (path == NULL)
			return FALSE;
		g_ptr_array_add(missing, path);
	}
	return TRUE;
}

void
esd_fs_methods_watch_missing(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdFsLocalPlugin *plugin = ESD_FS_LOCAL_PLUGIN(user_data);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *present = NULL;
	EsdFsConnectionState *state;
	guint64 watch_id = 0;
	gboolean watching;

	if (!erpc_json_require_uint64(params, "watchId", &watch_id, &error) ||
	    !esd_fs_methods_parse_missing(params, missing, &error) ||
	    !erpc_json_get_path(params, "present", &present, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	state = esd_fs_connection_state_get(erpc_call_get_connection(call));
	watching = esd_fs_connection_state_watch(state,
						 esd_fs_local_plugin_get_inotify(plugin),
						 watch_id,
						 missing,
						 present);
	erpc_call_return_raw(call, watching ? "{\"watching\":true}" : "{\"watching\":false}");
}
