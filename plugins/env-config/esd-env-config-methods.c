/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <gio/gio.h>

#include "esd-env-config-layers.h"
#include "esd-env-config-methods.h"
#include "esd-env-toml-module.h"

/* a required array of key paths: [["mcp_servers"], ["a", "b"]] */
static GPtrArray *
esd_env_config_get_paths(JsonObject *params, const gchar *member, GError **error)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	JsonNode *node = json_object_get_member(params, member);
	JsonArray *array;

	if (node == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "missing field `%s`",
			    member);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		erpc_json_value_type_error(node, "a sequence", error);
		return NULL;
	}
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *path_node = json_array_get_element(array, i);
		JsonArray *path;
		GStrvBuilder *builder;

		if (!JSON_NODE_HOLDS_ARRAY(path_node)) {
			erpc_json_value_type_error(path_node, "a sequence", error);
			return NULL;
		}
		path = json_node_get_array(path_node);
		builder = g_strv_builder_new();
		for (guint j = 0; j < json_array_get_length(path); j++) {
			JsonNode *key = json_array_get_element(path, j);
			if (!JSON_NODE_HOLDS_VALUE(key) ||
			    json_node_get_value_type(key) != G_TYPE_STRING) {
				g_strv_builder_unref(builder);
				erpc_json_value_type_error(key, "a string", error);
				return NULL;
			}
			g_strv_builder_add(builder, json_node_get_string(key));
		}
		g_ptr_array_add(paths, g_strv_builder_end(builder));
		g_strv_builder_unref(builder);
	}
	return g_steal_pointer(&paths);
}

static gboolean
esd_env_config_check_paths(GPtrArray *config, GPtrArray *requirements, GError **error)
{
	GPtrArray *all[] = {config, requirements};

	if (config->len == 0 && requirements->len == 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "at least one config or requirements path is required");
		return FALSE;
	}
	for (guint i = 0; i < G_N_ELEMENTS(all); i++) {
		for (guint j = 0; j < all[i]->len; j++) {
			gchar **path = g_ptr_array_index(all[i], j);
			if (path[0] == NULL) {
				g_set_error_literal(
				    error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "TOML paths must contain at least one key segment");
				return FALSE;
			}
		}
	}
	return TRUE;
}

static void
esd_env_config_string_free(gpointer data)
{
	g_string_free(data, TRUE);
}

static void
esd_env_config_read_thread(GTask *task,
			   gpointer source_object,
			   gpointer task_data,
			   GCancellable *cancellable)
{
	EsdEnvConfigRequest *request = task_data;
	GError *error = NULL;
	const EsdEnvTomlFuncs *toml = esd_env_toml_module_get(&error);
	GString *result = NULL;

	if (toml != NULL)
		result = esd_env_config_read(toml, request, &error);
	if (result == NULL) {
		g_task_return_error(task, error);
		return;
	}
	g_task_return_pointer(task, result, esd_env_config_string_free);
}

static void
esd_env_config_read_done_cb(GObject *source_object, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(ErpcCall) call = user_data;
	g_autoptr(GError) error = NULL;
	GString *result = g_task_propagate_pointer(G_TASK(res), &error);

	if (result == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	erpc_call_return_gstring(call, result);
}

static void
esd_env_config_read_method(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	const EsdEnvConfigSettings *settings = user_data;
	g_autoptr(EsdEnvConfigRequest) request = g_new0(EsdEnvConfigRequest, 1);
	g_autoptr(GError) error = NULL;
	g_autoptr(GTask) task = NULL;

	/* the fields in the order of the reference's struct, then the checks of
	 * the paths, then the Codex home */
	if (!erpc_json_require_path(params, "cwd", &request->cwd, &error) ||
	    (request->config_paths = esd_env_config_get_paths(params, "configPaths", &error)) ==
		NULL ||
	    (request->requirements_paths =
		 esd_env_config_get_paths(params, "requirementsPaths", &error)) == NULL ||
	    !esd_env_config_check_paths(request->config_paths,
					request->requirements_paths,
					&error) ||
	    (request->codex_home = esd_env_config_find_codex_home(&error)) == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	request->system_dir = g_strdup(settings->system_dir);
	request->max_bytes = (gsize)settings->max_bytes;

	task = g_task_new(NULL,
			  erpc_call_get_cancellable(call),
			  esd_env_config_read_done_cb,
			  g_object_ref(call));
	g_task_set_source_tag(task, esd_env_config_read_method);
	g_task_set_task_data(task,
			     g_steal_pointer(&request),
			     (GDestroyNotify)esd_env_config_request_free);
	g_task_run_in_thread(task, esd_env_config_read_thread);
}

gboolean
esd_env_config_methods_register(ErpcRegistry *registry,
				const EsdEnvConfigSettings *settings,
				GError **error)
{
	const ErpcMethodInfo info = {
	    .name = "environmentConfig/read",
	    .family = "environment config",
	    .params_type = "EnvironmentConfigReadParams",
	    .capability = "environmentConfigRead",
	    .func = esd_env_config_read_method,
	};

	return erpc_registry_add_method(registry, &info, (gpointer)settings, NULL, error);
}
