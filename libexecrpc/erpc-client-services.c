/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "erpc-client-fs-private.h"
#include "erpc-client-services.h"
#include "erpc-json.h"

/*
 * The requests that are neither processes nor files: http/request (without
 * streamed bodies), environmentConfig/read and capability discovery.
 */

/**
 * erpc_client_http_request_async:
 * @self: a #ErpcClient
 * @method: an HTTP method, e.g. `GET`
 * @url: an absolute http:// or https:// URL, fetched by the server
 * @headers: (array zero-terminated=1) (nullable): `Name: value` strings, in order
 * @body: (nullable): the request body
 * @timeout_ms: the longest the request may take, 0 for no limit
 * @follow_redirects: follow redirects instead of returning the 3xx answer
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `http/request`; the whole response body comes in the answer. An
 * HTTP request is never repeated after a recovery.
 *
 * Since: 0.1
 */
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
			       gpointer user_data)
{
	static gint requests = 0;
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	g_autofree gchar *request_id =
	    g_strdup_printf("r%u", (guint)g_atomic_int_add(&requests, 1) + 1);
	GError *error = NULL;

	_erpc_client_fs_add_string(builder, "method", method);
	_erpc_client_fs_add_string(builder, "url", url);
	_erpc_client_fs_add_string(builder, "requestId", request_id);
	json_builder_set_member_name(builder, "headers");
	json_builder_begin_array(builder);
	for (guint i = 0; headers != NULL && headers[i] != NULL && error == NULL; i++) {
		const gchar *colon = strchr(headers[i], ':');
		g_autofree gchar *name = NULL;
		g_autofree gchar *value = NULL;
		if (colon == NULL) {
			g_set_error_literal(&error,
					    G_IO_ERROR,
					    G_IO_ERROR_INVALID_ARGUMENT,
					    "a header must look like \"Name: value\"");
			break;
		}
		name = g_strstrip(g_strndup(headers[i], colon - headers[i]));
		value = g_strstrip(g_strdup(colon + 1));
		json_builder_begin_object(builder);
		_erpc_client_fs_add_string(builder, "name", name);
		_erpc_client_fs_add_string(builder, "value", value);
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	if (body != NULL) {
		g_autofree gchar *text = _erpc_client_fs_encode(body);
		_erpc_client_fs_add_string(builder, "bodyBase64", text);
	}
	if (timeout_ms > 0) {
		json_builder_set_member_name(builder, "timeoutMs");
		json_builder_add_int_value(builder, timeout_ms);
	}
	_erpc_client_fs_add_string(builder, "redirectPolicy", follow_redirects ? "follow" : "stop");
	_erpc_client_fs_add_boolean(builder, "streamResponse", FALSE);
	_erpc_client_fs_send(self,
			     "http/request",
			     builder,
			     0,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_http_request_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_http_request_async().
 *
 * Returns: (transfer full): `status`, `headers` (objects with `name` and
 *   `value`) and `bodyBase64`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_http_request_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_object(self, result, "http/request", error);
}

/* ["a.b", "c"] as [["a", "b"], ["c"]] */
static void
erpc_client_add_key_paths(JsonBuilder *builder, const gchar *member, const gchar *const *paths)
{
	json_builder_set_member_name(builder, member);
	json_builder_begin_array(builder);
	for (guint i = 0; paths != NULL && paths[i] != NULL; i++) {
		g_auto(GStrv) keys = g_strsplit(paths[i], ".", -1);
		json_builder_begin_array(builder);
		for (guint j = 0; keys[j] != NULL; j++)
			json_builder_add_string_value(builder, keys[j]);
		json_builder_end_array(builder);
	}
	json_builder_end_array(builder);
}

/**
 * erpc_client_read_environment_config_async:
 * @self: a #ErpcClient
 * @cwd: an absolute path on the server
 * @config_paths: (array zero-terminated=1) (nullable): TOML key paths of the
 *   config to read, keys separated by dots, e.g. `sandbox_workspace_write.writable_roots`
 * @requirements_paths: (array zero-terminated=1) (nullable): the same for the
 *   requirements
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `environmentConfig/read`.
 *
 * Since: 0.1
 */
void
erpc_client_read_environment_config_async(ErpcClient *self,
					  const gchar *cwd,
					  const gchar *const *config_paths,
					  const gchar *const *requirements_paths,
					  GCancellable *cancellable,
					  GAsyncReadyCallback callback,
					  gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "cwd", cwd, &error);
	erpc_client_add_key_paths(builder, "configPaths", config_paths);
	erpc_client_add_key_paths(builder, "requirementsPaths", requirements_paths);
	_erpc_client_fs_send(self,
			     "environmentConfig/read",
			     builder,
			     ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_read_environment_config_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_read_environment_config_async().
 *
 * Returns: (transfer full): `userHomeDir`, `codexHomeDir`, `hostname`,
 *   `config` and `requirements`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_read_environment_config_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_object(self, result, "environmentConfig/read", error);
}

/**
 * erpc_client_discover_capability_roots_async:
 * @self: a #ErpcClient
 * @ids: (array zero-terminated=1): an id for each root
 * @paths: (array zero-terminated=1): the roots, absolute paths on the server,
 *   as many as @ids
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `capabilityRoots/discoverV1`: plugins and skills under each root.
 *
 * Since: 0.1
 */
void
erpc_client_discover_capability_roots_async(ErpcClient *self,
					    const gchar *const *ids,
					    const gchar *const *paths,
					    GCancellable *cancellable,
					    GAsyncReadyCallback callback,
					    gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	if (g_strv_length((gchar **)ids) != g_strv_length((gchar **)paths))
		g_set_error_literal(&error,
				    G_IO_ERROR,
				    G_IO_ERROR_INVALID_ARGUMENT,
				    "one id is needed for each root");
	json_builder_set_member_name(builder, "roots");
	json_builder_begin_array(builder);
	for (guint i = 0; error == NULL && ids[i] != NULL; i++) {
		json_builder_begin_object(builder);
		_erpc_client_fs_add_string(builder, "id", ids[i]);
		_erpc_client_fs_add_path(builder, "path", paths[i], &error);
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	_erpc_client_fs_send(self,
			     "capabilityRoots/discoverV1",
			     builder,
			     ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_discover_capability_roots_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_discover_capability_roots_async().
 *
 * Returns: (transfer full): one discovery object per root, in order, or %NULL
 *
 * Since: 0.1
 */
JsonArray *
erpc_client_discover_capability_roots_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonObject) obj =
	    _erpc_client_fs_finish_object(self, result, "capabilityRoots/discoverV1", error);
	JsonArray *roots = NULL;

	if (obj == NULL || !erpc_json_require_array(obj, "roots", &roots, error))
		return NULL;
	return json_array_ref(roots);
}

/**
 * erpc_client_discover_capabilities_async:
 * @self: a #ErpcClient
 * @cwd: an absolute path on the server
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `capabilities/discoverV2`: the installed plugins and skills.
 *
 * Since: 0.1
 */
void
erpc_client_discover_capabilities_async(ErpcClient *self,
					const gchar *cwd,
					GCancellable *cancellable,
					GAsyncReadyCallback callback,
					gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	_erpc_client_fs_add_path(builder, "cwd", cwd, &error);
	_erpc_client_fs_send(self,
			     "capabilities/discoverV2",
			     builder,
			     ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			     error,
			     cancellable,
			     callback,
			     user_data);
}

/**
 * erpc_client_discover_capabilities_finish:
 * @self: a #ErpcClient
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_discover_capabilities_async().
 *
 * Returns: (transfer full): `plugins`, `skills` and `warnings`, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_discover_capabilities_finish(ErpcClient *self, GAsyncResult *result, GError **error)
{
	return _erpc_client_fs_finish_object(self, result, "capabilities/discoverV2", error);
}
