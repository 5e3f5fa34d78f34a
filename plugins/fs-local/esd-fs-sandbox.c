/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "esd-fs-sandbox.h"

/*
 * The `sandbox` member of fs requests (PROTOCOL.md §6.4). It is checked for
 * shape like the reference deserialises it. Profiles that need no outer
 * sandbox (`disabled`, `external`, `managed` with an unrestricted file
 * system) run directly; a restricted file system runs in the sandboxed
 * helper (esd-fs-sandbox-run.c), and never unconfined.
 */

static const gchar *const esd_fs_sandbox_levels[] = {"disabled",
						     "restricted-token",
						     "elevated",
						     "mxc",
						     NULL};
static const gchar *const esd_fs_sandbox_profiles[] = {"managed", "disabled", "external", NULL};
static const gchar *const esd_fs_sandbox_networks[] = {"restricted", "enabled", NULL};
static const gchar *const esd_fs_sandbox_fs_types[] = {"unrestricted", "restricted", NULL};
static const gchar *const esd_fs_sandbox_access[] = {"read", "write", "deny", "none", NULL};
static const gchar *const esd_fs_sandbox_path_types[] = {"path", "glob_pattern", "special", NULL};
static const gchar *const esd_fs_sandbox_special[] = {"root",
						      "minimal",
						      "project_roots",
						      "current_working_directory",
						      "tmpdir",
						      "slash_tmp",
						      "unknown",
						      NULL};
static const gchar *const esd_fs_sandbox_missing[] = {"skip", NULL};
static const gchar *const esd_fs_sandbox_proxy_modes[] = {"reconcile", "preserve", NULL};
static const gchar *const esd_fs_sandbox_overrides[] = {"noOverride",
							"escalatedSandboxWithRestrictions",
							"bypassSandboxFirstAttempt",
							NULL};

enum { ESD_FS_SPECIAL_PROJECT_ROOTS = 2, ESD_FS_SPECIAL_CWD = 3, ESD_FS_SPECIAL_UNKNOWN = 6 };

static gboolean
esd_fs_sandbox_check_uri(JsonObject *obj, const gchar *member, gboolean *present, GError **error)
{
	g_autofree gchar *path = NULL;

	if (!erpc_json_get_path(obj, member, &path, error))
		return FALSE;
	if (present != NULL)
		*present = path != NULL;
	return TRUE;
}

static gboolean
esd_fs_sandbox_check_uris(JsonObject *obj, const gchar *member, GError **error)
{
	JsonArray *array = NULL;

	if (!erpc_json_get_array(obj, member, &array, error))
		return FALSE;
	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		JsonNode *node = json_array_get_element(array, i);
		g_autofree gchar *path = NULL;

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
	}
	return TRUE;
}

/* one FileSystemPath; sets *dynamic when it depends on the policy cwd */
static gboolean
esd_fs_sandbox_check_path(JsonObject *path, gboolean *dynamic, GError **error)
{
	gint type = 0;

	if (!erpc_json_get_enum(path, "type", esd_fs_sandbox_path_types, -1, &type, error))
		return FALSE;
	if (type == 0) {
		g_autofree gchar *local = NULL;
		return erpc_json_require_path(path, "path", &local, error);
	}
	if (type == 1) {
		const gchar *pattern = NULL;
		if (!erpc_json_require_string(path, "pattern", &pattern, error))
			return FALSE;
		if (!g_path_is_absolute(pattern))
			*dynamic = TRUE;
		return TRUE;
	}
	{
		JsonObject *value = NULL;
		const gchar *ignored = NULL;
		gint kind = 0;

		if (!erpc_json_require_object(path, "value", &value, error) ||
		    !erpc_json_get_enum(value, "kind", esd_fs_sandbox_special, -1, &kind, error) ||
		    !erpc_json_get_string(value, "subpath", NULL, &ignored, error))
			return FALSE;
		if (kind == ESD_FS_SPECIAL_UNKNOWN &&
		    !erpc_json_require_string(value, "path", &ignored, error))
			return FALSE;
		if (kind == ESD_FS_SPECIAL_PROJECT_ROOTS || kind == ESD_FS_SPECIAL_CWD)
			*dynamic = TRUE;
		return TRUE;
	}
}

static gboolean
esd_fs_sandbox_check_entries(JsonObject *fs, gboolean *dynamic, GError **error)
{
	JsonArray *entries = NULL;
	guint64 depth = 1;

	if (!erpc_json_require_array(fs, "entries", &entries, error) ||
	    !erpc_json_get_uint64(fs, "glob_scan_max_depth", 1, &depth, error))
		return FALSE;
	if (depth == 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid value: integer `0`, expected a nonzero usize");
		return FALSE;
	}
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *node = json_array_get_element(entries, i);
		JsonObject *entry = erpc_json_params_object(node, "FileSystemSandboxEntry", error);
		JsonObject *path = NULL;
		gint access = 0;
		gint missing = 0;

		if (entry == NULL || !erpc_json_require_object(entry, "path", &path, error) ||
		    !esd_fs_sandbox_check_path(path, dynamic, error) ||
		    !erpc_json_get_enum(entry,
					"access",
					esd_fs_sandbox_access,
					-1,
					&access,
					error) ||
		    !erpc_json_get_enum(entry,
					"missing_path_behavior",
					esd_fs_sandbox_missing,
					0,
					&missing,
					error))
			return FALSE;
	}
	return TRUE;
}

/* the PermissionProfile; *restricted and *dynamic describe a managed file system */
static gboolean
esd_fs_sandbox_check_permissions(JsonObject *permissions,
				 gboolean *restricted,
				 gboolean *dynamic,
				 GError **error)
{
	JsonObject *fs = NULL;
	gint type = 0;
	gint network = 0;
	gint fs_type = 0;

	if (!erpc_json_get_enum(permissions, "type", esd_fs_sandbox_profiles, -1, &type, error))
		return FALSE;
	if (type == 1) /* disabled */
		return TRUE;
	if (type == 0 && !erpc_json_require_object(permissions, "file_system", &fs, error))
		return FALSE;
	if (!erpc_json_get_enum(permissions,
				"network",
				esd_fs_sandbox_networks,
				-1,
				&network,
				error))
		return FALSE;
	if (type == 2) /* external */
		return TRUE;
	if (!erpc_json_get_enum(fs, "type", esd_fs_sandbox_fs_types, -1, &fs_type, error))
		return FALSE;
	if (fs_type == 0)
		return TRUE;
	*restricted = TRUE;
	return esd_fs_sandbox_check_entries(fs, dynamic, error);
}

static gboolean
esd_fs_sandbox_unavailable(gboolean *unavailable, GError **error, const gchar *message)
{
	*unavailable = TRUE;
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, message);
	return FALSE;
}

/**
 * esd_fs_sandbox_check:
 * @sandbox: the `sandbox` object of a request
 * @isolated: (out): set when the request must run in the sandboxed helper
 * @unavailable: (out): set when the sandbox is valid but cannot be provided
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if the request may run, directly or (@isolated) in the
 *   helper; otherwise %FALSE with a -32602 @error, and @unavailable set when
 *   the answer needs `{"kind":"sandboxUnavailable"}`
 */
gboolean
esd_fs_sandbox_check(JsonObject *sandbox, gboolean *isolated, gboolean *unavailable, GError **error)
{
	JsonObject *permissions = NULL;
	JsonObject *policy = NULL;
	gboolean restricted = FALSE;
	gboolean dynamic = FALSE;
	gboolean has_cwd = FALSE;
	gboolean has_policy_cwd = FALSE;
	gboolean legacy = FALSE;
	gint level = 0;
	gint mode = 0;
	gint override = 0;

	*isolated = FALSE;
	*unavailable = FALSE;
	if (!erpc_json_require_object(sandbox, "permissions", &permissions, error) ||
	    !esd_fs_sandbox_check_permissions(permissions, &restricted, &dynamic, error) ||
	    !erpc_json_get_enum(sandbox,
				"windowsSandboxLevel",
				esd_fs_sandbox_levels,
				-1,
				&level,
				error) ||
	    !esd_fs_sandbox_check_uri(sandbox, "cwd", &has_cwd, error) ||
	    !esd_fs_sandbox_check_uris(sandbox, "workspaceRoots", error) ||
	    !erpc_json_get_object(sandbox, "policyContext", &policy, error) ||
	    !esd_fs_sandbox_check_uri(sandbox, "userHomeDir", NULL, error) ||
	    !esd_fs_sandbox_check_uris(sandbox, "temporaryDirectories", error) ||
	    !erpc_json_get_enum(sandbox,
				"windowsSandboxProxySettingsMode",
				esd_fs_sandbox_proxy_modes,
				0,
				&mode,
				error) ||
	    !erpc_json_get_boolean(sandbox, "useLegacyLandlock", FALSE, &legacy, error) ||
	    !erpc_json_get_enum(sandbox,
				"sandboxOverride",
				esd_fs_sandbox_overrides,
				0,
				&override,
				error))
		return FALSE;
	if (policy != NULL && (!esd_fs_sandbox_check_uri(policy, "cwd", &has_policy_cwd, error) ||
			       !esd_fs_sandbox_check_uris(policy, "workspaceRoots", error)))
		return FALSE;
	if (level == 3)
		return esd_fs_sandbox_unavailable(unavailable,
						  error,
						  "native MXC is unavailable on this executor");
	if (!restricted)
		return TRUE;
	if (dynamic && !has_cwd && !has_policy_cwd) {
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "file system sandbox context with dynamic permissions requires cwd");
		return FALSE;
	}
	*isolated = TRUE;
	return TRUE;
}
