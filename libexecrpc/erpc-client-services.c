/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-client-fs-private.h"
#include "erpc-client-services.h"
#include "erpc-client-state.h"
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
	erpc_client_discover_capability_roots_sandboxed_async(self,
							      ids,
							      paths,
							      NULL,
							      cancellable,
							      callback,
							      user_data);
}

static const gchar *
erpc_client_json_type(JsonObject *object, const gchar *member)
{
	JsonNode *node = object != NULL ? json_object_get_member(object, member) : NULL;
	JsonNode *type = NULL;

	if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node))
		return NULL;
	type = json_object_get_member(json_node_get_object(node), "type");
	if (type == NULL || !JSON_NODE_HOLDS_VALUE(type) ||
	    json_node_get_value_type(type) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(type);
}

/**
 * erpc_sandbox_context_reads_everything:
 * @sandbox: (nullable): a FileSystemSandboxContext (the `sandbox` member of
 *   fs, process and discovery requests)
 *
 * Tells whether @sandbox lets its holder read the whole file system: no
 * sandbox, a `disabled` or `external` profile, an `unrestricted` one, or a
 * `restricted` one that reads the `root` special path and denies nothing.
 * Only such contexts may go to an executor without
 * `capabilityDiscoverySandbox`, which would not apply them.
 *
 * Returns: %TRUE if nothing would be hidden from reads
 *
 * Since: 0.2
 */
gboolean
erpc_sandbox_context_reads_everything(JsonObject *sandbox)
{
	JsonNode *permissions;
	JsonObject *profile;
	JsonObject *file_system;
	JsonArray *entries = NULL;
	const gchar *type;
	gboolean root_read = FALSE;

	if (sandbox == NULL)
		return TRUE;
	type = erpc_client_json_type(sandbox, "permissions");
	if (g_strcmp0(type, "disabled") == 0 || g_strcmp0(type, "external") == 0)
		return TRUE;
	if (g_strcmp0(type, "managed") != 0)
		return FALSE;
	permissions = json_object_get_member(sandbox, "permissions");
	profile = json_node_get_object(permissions);
	type = erpc_client_json_type(profile, "file_system");
	if (g_strcmp0(type, "unrestricted") == 0)
		return TRUE;
	if (g_strcmp0(type, "restricted") != 0)
		return FALSE;
	file_system = json_object_get_object_member(profile, "file_system");
	if (!erpc_json_get_array(file_system, "entries", &entries, NULL) || entries == NULL)
		return FALSE;
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *node = json_array_get_element(entries, i);
		JsonObject *entry;
		JsonObject *path;
		const gchar *access = NULL;
		JsonObject *value = NULL;
		const gchar *kind = NULL;

		if (!JSON_NODE_HOLDS_OBJECT(node))
			return FALSE;
		entry = json_node_get_object(node);
		if (!erpc_json_get_string(entry, "access", NULL, &access, NULL) || access == NULL)
			return FALSE;
		/* a denied path, even a glob, hides something */
		if (g_strcmp0(access, "read") != 0 && g_strcmp0(access, "write") != 0)
			return FALSE;
		if (g_strcmp0(erpc_client_json_type(entry, "path"), "special") != 0)
			continue;
		path = json_object_get_object_member(entry, "path");
		if (erpc_json_get_object(path, "value", &value, NULL) && value != NULL &&
		    erpc_json_get_string(value, "kind", NULL, &kind, NULL) &&
		    g_strcmp0(kind, "root") == 0)
			root_read = TRUE;
	}
	return root_read;
}

static gboolean
erpc_client_capability(ErpcClient *self, const gchar *name)
{
	JsonObject *capabilities = NULL;
	gboolean value = FALSE;

	if (self->environment_info == NULL ||
	    !erpc_json_get_object(self->environment_info, "capabilities", &capabilities, NULL) ||
	    capabilities == NULL || !erpc_json_get_boolean(capabilities, name, FALSE, &value, NULL))
		return FALSE;
	return value;
}

/* what the executor told in initialize; before that, nothing is known */
static gboolean
erpc_client_check_capability(ErpcClient *self,
			     const gchar *name,
			     const gchar *message,
			     GError **error)
{
	if (self->environment_info == NULL) {
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    ERPC_CLIENT_ERROR_DISCONNECTED,
			    "the capabilities of %s are not known before it is connected",
			    self->url);
		return FALSE;
	}
	if (!erpc_client_capability(self, name)) {
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, message);
		return FALSE;
	}
	return TRUE;
}

/**
 * erpc_client_discover_capability_roots_sandboxed_async:
 * @self: a #ErpcClient
 * @ids: (array zero-terminated=1): an id for each root
 * @paths: (array zero-terminated=1): the roots, absolute paths on the server,
 *   as many as @ids
 * @sandbox: (nullable): the FileSystemSandboxContext the roots are read in
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `capabilityRoots/discoverV1` with @sandbox on every root. As
 * Codex's client, a sandbox that hides part of the file system (see
 * erpc_sandbox_context_reads_everything()) goes only to an executor that
 * reports `capabilityDiscoverySandbox`; otherwise nothing is sent and the
 * call fails with %G_IO_ERROR_NOT_SUPPORTED. Sandboxes that read
 * everything are sent unchanged to any executor. The request is repeated
 * after a recovery.
 *
 * Finish with erpc_client_discover_capability_roots_finish().
 *
 * Since: 0.2
 */
void
erpc_client_discover_capability_roots_sandboxed_async(ErpcClient *self,
						      const gchar *const *ids,
						      const gchar *const *paths,
						      JsonObject *sandbox,
						      GCancellable *cancellable,
						      GAsyncReadyCallback callback,
						      gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	g_return_if_fail(ERPC_IS_CLIENT(self));
	g_return_if_fail(ids != NULL && paths != NULL);
	if (!erpc_sandbox_context_reads_everything(sandbox))
		erpc_client_check_capability(
		    self,
		    "capabilityDiscoverySandbox",
		    "exec-server does not support sandboxed capability discovery",
		    &error);

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
		if (sandbox != NULL) {
			g_autoptr(JsonNode) node =
			    json_node_init_object(json_node_alloc(), sandbox);
			json_builder_set_member_name(builder, "sandbox");
			json_builder_add_value(builder, json_node_copy(node));
		}
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
 * erpc_client_discover_capabilities_sandboxed_async:
 * @self: a #ErpcClient
 * @cwd: an absolute path on the server
 * @sandbox: (nullable): a strict FileSystemSandboxContext (with `cwd`)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `capabilities/discoverV2` with @sandbox, only to an executor that
 * reports `capabilityDiscoveryV2` (else %G_IO_ERROR_NOT_SUPPORTED, as
 * Codex's client). The request is repeated after a recovery.
 *
 * Finish with erpc_client_discover_capabilities_finish().
 *
 * Since: 0.2
 */
void
erpc_client_discover_capabilities_sandboxed_async(ErpcClient *self,
						  const gchar *cwd,
						  JsonObject *sandbox,
						  GCancellable *cancellable,
						  GAsyncReadyCallback callback,
						  gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = _erpc_client_fs_builder();
	GError *error = NULL;

	g_return_if_fail(ERPC_IS_CLIENT(self));
	if (erpc_client_check_capability(
		self,
		"capabilityDiscoveryV2",
		"capabilities/discoverV2 is unavailable in this environment session",
		&error))
		_erpc_client_fs_add_path(builder, "cwd", cwd, &error);
	if (error == NULL && sandbox != NULL) {
		g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), sandbox);
		json_builder_set_member_name(builder, "sandbox");
		json_builder_add_value(builder, json_node_copy(node));
	}
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
