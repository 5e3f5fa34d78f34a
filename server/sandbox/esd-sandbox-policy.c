/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-sandbox-glob.h"
#include "esd-sandbox-policy.h"

/*
 * The `sandbox` member of process and fs requests (PROTOCOL.md §6.4), parsed
 * into resolved rules. The shape is checked in the order, and with the
 * messages, of the reference's deserialiser; every path becomes absolute here
 * so that the mount plan and the fs side never see a URI, a `~` or a special
 * token.
 *
 * Semantics, as in the reference: the most specific rule (most path
 * components) wins, and on a tie deny > write > read; a path no rule covers is
 * not accessible. `minimal` is the fixed list of platform directories below
 * (read-only even in a write entry, nothing in a deny entry); `/dev` and
 * `/proc` come from bwrap itself. `project_roots` expands to the workspace
 * roots, not to the cwd.
 */

GQuark
esd_sandbox_error_quark(void)
{
	/* written out: clang-format would space the dashes of G_DEFINE_QUARK() */
	return g_quark_from_static_string("esd-sandbox-error-quark");
}

/* the reference's platform read roots, plus /lib32 for multilib programs */
static const gchar *const esd_sandbox_minimal_paths[] = {"/bin",
							 "/sbin",
							 "/usr",
							 "/etc",
							 "/lib",
							 "/lib32",
							 "/lib64",
							 "/nix/store",
							 "/run/current-system/sw",
							 NULL};

static const gchar *const esd_sandbox_levels[] = {"disabled",
						  "restricted-token",
						  "elevated",
						  "mxc",
						  NULL};
static const gchar *const esd_sandbox_profiles[] = {"managed", "disabled", "external", NULL};
static const gchar *const esd_sandbox_networks[] = {"restricted", "enabled", NULL};
static const gchar *const esd_sandbox_fs_types[] = {"unrestricted", "restricted", NULL};
static const gchar *const esd_sandbox_access[] = {"read", "write", "deny", "none", NULL};
static const gchar *const esd_sandbox_path_types[] = {"path", "glob_pattern", "special", NULL};
static const gchar *const esd_sandbox_special[] = {"root",
						   "minimal",
						   "project_roots",
						   "current_working_directory",
						   "tmpdir",
						   "slash_tmp",
						   "unknown",
						   NULL};
static const gchar *const esd_sandbox_missing[] = {"skip", NULL};
static const gchar *const esd_sandbox_proxy_modes[] = {"reconcile", "preserve", NULL};
static const gchar *const esd_sandbox_overrides[] = {"noOverride",
						     "escalatedSandboxWithRestrictions",
						     "bypassSandboxFirstAttempt",
						     NULL};

enum { ESD_PATH_TYPE_PATH, ESD_PATH_TYPE_GLOB, ESD_PATH_TYPE_SPECIAL };
enum {
	ESD_SPECIAL_ROOT,
	ESD_SPECIAL_MINIMAL,
	ESD_SPECIAL_PROJECT_ROOTS,
	ESD_SPECIAL_CWD,
	ESD_SPECIAL_TMPDIR,
	ESD_SPECIAL_SLASH_TMP,
	ESD_SPECIAL_UNKNOWN,
};
enum { ESD_LEVEL_MXC = 3 };

/* one entry as sent: strings are borrowed from the request */
typedef struct {
	gint path_type;
	gchar *path;
	const gchar *pattern;
	gint kind;
	const gchar *subpath;
	EsdSandboxAccess access;
} EsdSandboxRawEntry;

static void
esd_sandbox_raw_entry_free(gpointer data)
{
	EsdSandboxRawEntry *raw = data;
	g_free(raw->path);
	g_free(raw);
}

/* the context members that the entries are resolved against */
typedef struct {
	gchar *cwd;
	gchar *policy_cwd;
	gchar *home;
	GPtrArray *workspace_roots;
	GPtrArray *policy_workspace_roots;
	GPtrArray *tmpdirs;
} EsdSandboxContext;

static void
esd_sandbox_context_clear(EsdSandboxContext *ctx)
{
	g_free(ctx->cwd);
	g_free(ctx->policy_cwd);
	g_free(ctx->home);
	g_clear_pointer(&ctx->workspace_roots, g_ptr_array_unref);
	g_clear_pointer(&ctx->policy_workspace_roots, g_ptr_array_unref);
	g_clear_pointer(&ctx->tmpdirs, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdSandboxContext, esd_sandbox_context_clear)

/**
 * esd_sandbox_error_convert:
 * @error: an error from this module
 *
 * Turns %ESD_SANDBOX_ERROR_UNAVAILABLE into %ERPC_ERROR_INVALID_PARAMS with
 * the same message; leaves any other error alone.
 *
 * Returns: %TRUE if the reply needs `data: {"kind": "sandboxUnavailable"}`
 */
gboolean
esd_sandbox_error_convert(GError **error)
{
	if (error == NULL || *error == NULL ||
	    !g_error_matches(*error, ESD_SANDBOX_ERROR, ESD_SANDBOX_ERROR_UNAVAILABLE))
		return FALSE;
	(*error)->domain = ERPC_ERROR;
	(*error)->code = ERPC_ERROR_INVALID_PARAMS;
	return TRUE;
}

static void
esd_sandbox_rule_free(gpointer data)
{
	EsdSandboxRule *rule = data;
	g_free(rule->path);
	g_free(rule->pattern);
	g_free(rule);
}

void
esd_sandbox_policy_free(EsdSandboxPolicy *policy)
{
	if (policy == NULL)
		return;
	g_ptr_array_unref(policy->rules);
	g_free(policy->cwd);
	g_free(policy->home);
	g_free(policy);
}

/* a string array of URIs, as paths; *out stays NULL when the member is absent */
static gboolean
esd_sandbox_get_uris(JsonObject *obj, const gchar *member, GPtrArray **out, GError **error)
{
	JsonArray *array = NULL;
	g_autoptr(GPtrArray) paths = NULL;

	if (!erpc_json_get_array(obj, member, &array, error))
		return FALSE;
	if (array == NULL)
		return TRUE;
	paths = g_ptr_array_new_with_free_func(g_free);
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
		g_ptr_array_add(paths, path);
	}
	*out = g_steal_pointer(&paths);
	return TRUE;
}

/* no path holds a NUL: an entry with one would match nothing, so it fails closed */
static gboolean
esd_sandbox_check_nul(const gchar *text, GError **error)
{
	if (!erpc_json_string_has_nul(text))
		return TRUE;
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "nul byte found in provided data");
	return FALSE;
}

/* one FileSystemPath; sets *dynamic when it depends on the policy cwd */
static gboolean
esd_sandbox_parse_path(JsonObject *path, EsdSandboxRawEntry *raw, gboolean *dynamic, GError **error)
{
	JsonObject *value = NULL;
	const gchar *ignored = NULL;

	if (!erpc_json_get_enum(path, "type", esd_sandbox_path_types, -1, &raw->path_type, error))
		return FALSE;
	if (raw->path_type == ESD_PATH_TYPE_PATH)
		return erpc_json_require_path(path, "path", &raw->path, error);
	if (raw->path_type == ESD_PATH_TYPE_GLOB) {
		if (!erpc_json_require_string(path, "pattern", &raw->pattern, error))
			return FALSE;
		if (!esd_sandbox_check_nul(raw->pattern, error))
			return FALSE;
		if (!g_path_is_absolute(raw->pattern))
			*dynamic = TRUE;
		return TRUE;
	}
	if (!erpc_json_require_object(path, "value", &value, error) ||
	    !erpc_json_get_enum(value, "kind", esd_sandbox_special, -1, &raw->kind, error) ||
	    !erpc_json_get_string(value, "subpath", NULL, &raw->subpath, error))
		return FALSE;
	if (raw->kind == ESD_SPECIAL_UNKNOWN &&
	    !erpc_json_require_string(value, "path", &ignored, error))
		return FALSE;
	if (!esd_sandbox_check_nul(raw->subpath, error))
		return FALSE;
	if (raw->kind == ESD_SPECIAL_PROJECT_ROOTS || raw->kind == ESD_SPECIAL_CWD)
		*dynamic = TRUE;
	return TRUE;
}

static gboolean
esd_sandbox_parse_entries(JsonObject *fs,
			  EsdSandboxPolicy *policy,
			  GPtrArray *raws,
			  gboolean *dynamic,
			  GError **error)
{
	JsonArray *entries = NULL;
	guint64 depth = ESD_SANDBOX_GLOB_SCAN_DEFAULT_DEPTH;

	if (!erpc_json_require_array(fs, "entries", &entries, error) ||
	    !erpc_json_get_uint64(fs,
				  "glob_scan_max_depth",
				  ESD_SANDBOX_GLOB_SCAN_DEFAULT_DEPTH,
				  &depth,
				  error))
		return FALSE;
	if (depth == 0) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid value: integer `0`, expected a nonzero usize");
		return FALSE;
	}
	policy->glob_scan_max_depth = (guint)MIN(depth, (guint64)G_MAXUINT);
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *node = json_array_get_element(entries, i);
		JsonObject *entry = erpc_json_params_object(node, "FileSystemSandboxEntry", error);
		EsdSandboxRawEntry *raw;
		JsonObject *path = NULL;
		gint access = 0;
		gint missing = 0;

		if (entry == NULL || !erpc_json_require_object(entry, "path", &path, error))
			return FALSE;
		raw = g_new0(EsdSandboxRawEntry, 1);
		g_ptr_array_add(raws, raw);
		if (!esd_sandbox_parse_path(path, raw, dynamic, error) ||
		    !erpc_json_get_enum(entry, "access", esd_sandbox_access, -1, &access, error) ||
		    !erpc_json_get_enum(entry,
					"missing_path_behavior",
					esd_sandbox_missing,
					0,
					&missing,
					error))
			return FALSE;
		/* `none` is the legacy spelling of `deny` */
		raw->access = access >= 2 ? ESD_SANDBOX_ACCESS_DENY : (EsdSandboxAccess)access;
	}
	return TRUE;
}

/* the PermissionProfile; *dynamic is set when a restricted profile needs the cwd */
static gboolean
esd_sandbox_parse_permissions(JsonObject *permissions,
			      EsdSandboxPolicy *policy,
			      GPtrArray *raws,
			      gboolean *dynamic,
			      GError **error)
{
	JsonObject *fs = NULL;
	gint type = 0;
	gint network = 0;
	gint fs_type = 0;

	if (!erpc_json_get_enum(permissions, "type", esd_sandbox_profiles, -1, &type, error))
		return FALSE;
	policy->profile = (EsdSandboxProfile)type;
	if (policy->profile == ESD_SANDBOX_PROFILE_DISABLED)
		return TRUE;
	if (policy->profile == ESD_SANDBOX_PROFILE_MANAGED &&
	    !erpc_json_require_object(permissions, "file_system", &fs, error))
		return FALSE;
	if (!erpc_json_get_enum(permissions, "network", esd_sandbox_networks, -1, &network, error))
		return FALSE;
	policy->network = (EsdSandboxNetwork)network;
	if (policy->profile == ESD_SANDBOX_PROFILE_EXTERNAL)
		return TRUE;
	if (!erpc_json_get_enum(fs, "type", esd_sandbox_fs_types, -1, &fs_type, error))
		return FALSE;
	policy->fs = (EsdSandboxFs)fs_type;
	if (policy->fs == ESD_SANDBOX_FS_UNRESTRICTED)
		return TRUE;
	return esd_sandbox_parse_entries(fs, policy, raws, dynamic, error);
}

static gboolean
esd_sandbox_parse_context(JsonObject *sandbox, EsdSandboxContext *ctx, GError **error)
{
	JsonObject *policy = NULL;
	gboolean legacy = FALSE;
	gint mode = 0;
	gint override = 0;

	if (!erpc_json_get_path(sandbox, "cwd", &ctx->cwd, error) ||
	    !esd_sandbox_get_uris(sandbox, "workspaceRoots", &ctx->workspace_roots, error) ||
	    !erpc_json_get_object(sandbox, "policyContext", &policy, error) ||
	    !erpc_json_get_path(sandbox, "userHomeDir", &ctx->home, error) ||
	    !esd_sandbox_get_uris(sandbox, "temporaryDirectories", &ctx->tmpdirs, error) ||
	    !erpc_json_get_enum(sandbox,
				"windowsSandboxProxySettingsMode",
				esd_sandbox_proxy_modes,
				0,
				&mode,
				error) ||
	    !erpc_json_get_boolean(sandbox, "useLegacyLandlock", FALSE, &legacy, error) ||
	    !erpc_json_get_enum(sandbox,
				"sandboxOverride",
				esd_sandbox_overrides,
				0,
				&override,
				error))
		return FALSE;
	if (policy != NULL &&
	    (!erpc_json_get_path(policy, "cwd", &ctx->policy_cwd, error) ||
	     !esd_sandbox_get_uris(policy, "workspaceRoots", &ctx->policy_workspace_roots, error)))
		return FALSE;
	return TRUE;
}

static void
esd_sandbox_policy_add_rule(EsdSandboxPolicy *policy,
			    const gchar *path,
			    EsdSandboxAccess access,
			    gboolean special)
{
	EsdSandboxRule *rule = g_new0(EsdSandboxRule, 1);
	rule->path = g_canonicalize_filename(path, "/");
	rule->access = access;
	rule->special = special;
	g_ptr_array_add(policy->rules, rule);
}

/* a relative subpath that stays inside the project root */
static gboolean
esd_sandbox_check_subpath(const gchar *subpath, GError **error)
{
	g_auto(GStrv) parts = NULL;

	if (g_path_is_absolute(subpath)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "project_roots subpath must be relative to the project root: %s",
			    subpath);
		return FALSE;
	}
	parts = g_strsplit(subpath, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (g_strcmp0(parts[i], "..") == 0) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "project_roots subpath must not leave the project root: %s",
				    subpath);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
esd_sandbox_resolve_glob(EsdSandboxPolicy *policy, const EsdSandboxRawEntry *raw, GError **error)
{
	EsdSandboxRule *rule;
	g_autofree gchar *joined = NULL;
	const gchar *pattern = raw->pattern;

	if (g_strcmp0(pattern, "~") == 0 || g_str_has_prefix(pattern, "~/")) {
		if (policy->home == NULL) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "glob pattern %s needs userHomeDir",
				    pattern);
			return FALSE;
		}
		joined = g_strconcat(policy->home, "/", pattern + 1, NULL);
	} else if (!g_path_is_absolute(pattern)) {
		joined = g_strconcat(policy->cwd, "/", pattern, NULL);
	} else {
		joined = g_strdup(pattern);
	}
	rule = g_new0(EsdSandboxRule, 1);
	rule->is_glob = TRUE;
	rule->access = raw->access;
	rule->pattern = g_canonicalize_filename(joined, "/");
	g_ptr_array_add(policy->rules, rule);
	return TRUE;
}

static gboolean
esd_sandbox_resolve_special(EsdSandboxPolicy *policy,
			    const EsdSandboxRawEntry *raw,
			    GPtrArray *workspace_roots,
			    GPtrArray *tmpdirs,
			    GError **error)
{
	switch (raw->kind) {
	case ESD_SPECIAL_ROOT:
		esd_sandbox_policy_add_rule(policy, "/", raw->access, TRUE);
		return TRUE;
	case ESD_SPECIAL_MINIMAL:
		/* platform defaults are only ever readable; denying them changes nothing */
		if (raw->access == ESD_SANDBOX_ACCESS_DENY)
			return TRUE;
		for (guint i = 0; esd_sandbox_minimal_paths[i] != NULL; i++)
			esd_sandbox_policy_add_rule(policy,
						    esd_sandbox_minimal_paths[i],
						    ESD_SANDBOX_ACCESS_READ,
						    TRUE);
		return TRUE;
	case ESD_SPECIAL_PROJECT_ROOTS:
	case ESD_SPECIAL_CWD:
		if (raw->subpath != NULL && !esd_sandbox_check_subpath(raw->subpath, error))
			return FALSE;
		for (guint i = 0; workspace_roots != NULL && i < workspace_roots->len; i++) {
			g_autofree gchar *path =
			    g_build_filename(g_ptr_array_index(workspace_roots, i),
					     raw->subpath,
					     NULL);
			esd_sandbox_policy_add_rule(policy, path, raw->access, TRUE);
		}
		return TRUE;
	case ESD_SPECIAL_TMPDIR:
		for (guint i = 0; tmpdirs != NULL && i < tmpdirs->len; i++)
			esd_sandbox_policy_add_rule(policy,
						    g_ptr_array_index(tmpdirs, i),
						    raw->access,
						    TRUE);
		return TRUE;
	case ESD_SPECIAL_SLASH_TMP:
		esd_sandbox_policy_add_rule(policy, "/tmp", raw->access, TRUE);
		return TRUE;
	case ESD_SPECIAL_UNKNOWN:
	default:
		/* a token from a newer protocol: ignored, as the reference does */
		return TRUE;
	}
}

/* the caller's temporary directories when the request names none */
static GPtrArray *
esd_sandbox_default_tmpdirs(const EsdSandboxDefaults *defaults)
{
	GPtrArray *tmpdirs = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; defaults->tmpdirs != NULL && defaults->tmpdirs[i] != NULL; i++) {
		if (g_path_is_absolute(defaults->tmpdirs[i]))
			g_ptr_array_add(tmpdirs,
					g_canonicalize_filename(defaults->tmpdirs[i], "/"));
	}
	return tmpdirs;
}

static gboolean
esd_sandbox_resolve(EsdSandboxPolicy *policy,
		    GPtrArray *raws,
		    EsdSandboxContext *ctx,
		    const EsdSandboxDefaults *defaults,
		    GError **error)
{
	GPtrArray *roots = ctx->policy_workspace_roots != NULL ? ctx->policy_workspace_roots
							       : ctx->workspace_roots;
	g_autoptr(GPtrArray) default_tmpdirs = NULL;
	GPtrArray *tmpdirs = ctx->tmpdirs;

	if (tmpdirs == NULL || tmpdirs->len == 0) {
		default_tmpdirs = esd_sandbox_default_tmpdirs(defaults);
		tmpdirs = default_tmpdirs;
	}
	for (guint i = 0; i < raws->len; i++) {
		EsdSandboxRawEntry *raw = g_ptr_array_index(raws, i);
		switch (raw->path_type) {
		case ESD_PATH_TYPE_PATH:
			esd_sandbox_policy_add_rule(policy, raw->path, raw->access, FALSE);
			break;
		case ESD_PATH_TYPE_GLOB:
			if (!esd_sandbox_resolve_glob(policy, raw, error))
				return FALSE;
			break;
		case ESD_PATH_TYPE_SPECIAL:
		default:
			if (!esd_sandbox_resolve_special(policy, raw, roots, tmpdirs, error))
				return FALSE;
			break;
		}
	}
	return TRUE;
}

/**
 * esd_sandbox_policy_new_from_json:
 * @sandbox: the `sandbox` object of a request (wire flavour)
 * @defaults: what to use for members the request leaves out
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the policy, or %NULL with %ERPC_ERROR_INVALID_PARAMS
 *   (a malformed object, a bad URI, a subpath that escapes, a dynamic profile
 *   without a cwd) or %ESD_SANDBOX_ERROR_UNAVAILABLE (`mxc`)
 */
EsdSandboxPolicy *
esd_sandbox_policy_new_from_json(JsonObject *sandbox,
				 const EsdSandboxDefaults *defaults,
				 GError **error)
{
	g_autoptr(EsdSandboxPolicy) policy = g_new0(EsdSandboxPolicy, 1);
	g_autoptr(GPtrArray) raws = g_ptr_array_new_with_free_func(esd_sandbox_raw_entry_free);
	g_auto(EsdSandboxContext) ctx = {NULL};
	JsonObject *permissions = NULL;
	gboolean dynamic = FALSE;
	gint level = 0;

	g_return_val_if_fail(sandbox != NULL, NULL);
	g_return_val_if_fail(defaults != NULL, NULL);

	policy->rules = g_ptr_array_new_with_free_func(esd_sandbox_rule_free);
	policy->network = ESD_SANDBOX_NETWORK_ENABLED;
	policy->glob_scan_max_depth = ESD_SANDBOX_GLOB_SCAN_DEFAULT_DEPTH;
	if (!erpc_json_require_object(sandbox, "permissions", &permissions, error) ||
	    !esd_sandbox_parse_permissions(permissions, policy, raws, &dynamic, error) ||
	    !erpc_json_get_enum(sandbox,
				"windowsSandboxLevel",
				esd_sandbox_levels,
				-1,
				&level,
				error) ||
	    !esd_sandbox_parse_context(sandbox, &ctx, error))
		return NULL;
	if (level == ESD_LEVEL_MXC) {
		g_set_error_literal(error,
				    ESD_SANDBOX_ERROR,
				    ESD_SANDBOX_ERROR_UNAVAILABLE,
				    "native MXC is unavailable on this executor");
		return NULL;
	}
	if (dynamic && ctx.cwd == NULL && ctx.policy_cwd == NULL) {
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "file system sandbox context with dynamic permissions requires cwd");
		return NULL;
	}
	if (ctx.policy_cwd != NULL)
		policy->cwd = g_steal_pointer(&ctx.policy_cwd);
	else if (ctx.cwd != NULL)
		policy->cwd = g_steal_pointer(&ctx.cwd);
	else
		policy->cwd =
		    g_canonicalize_filename(defaults->cwd != NULL ? defaults->cwd : "/", "/");
	if (ctx.home != NULL)
		policy->home = g_steal_pointer(&ctx.home);
	else if (defaults->home != NULL && g_path_is_absolute(defaults->home))
		policy->home = g_canonicalize_filename(defaults->home, "/");
	if (!esd_sandbox_resolve(policy, raws, &ctx, defaults, error))
		return NULL;
	return g_steal_pointer(&policy);
}

/**
 * esd_sandbox_policy_is_isolated:
 * @policy: a policy
 *
 * Returns: %TRUE when commands need bwrap: a managed profile that restricts
 *   the file system or the network
 */
gboolean
esd_sandbox_policy_is_isolated(const EsdSandboxPolicy *policy)
{
	g_return_val_if_fail(policy != NULL, FALSE);
	return policy->profile == ESD_SANDBOX_PROFILE_MANAGED &&
	       (policy->fs == ESD_SANDBOX_FS_RESTRICTED ||
		policy->network == ESD_SANDBOX_NETWORK_RESTRICTED);
}

gboolean
esd_sandbox_is_protected_name(const gchar *name)
{
	const gchar *const names[] = ESD_SANDBOX_PROTECTED_NAMES;
	return g_strv_contains(names, name);
}

/* "/" is 1, "/a" is 2: the number of components, the root included */
guint
esd_sandbox_path_depth(const gchar *abs_path)
{
	guint depth = 1;
	for (const gchar *p = abs_path; *p != '\0'; p++) {
		if (*p == '/' && p[1] != '\0' && p[1] != '/')
			depth++;
	}
	return depth;
}

/* whether @path is @prefix or lies below it, by whole components */
gboolean
esd_sandbox_path_has_prefix(const gchar *path, const gchar *prefix)
{
	gsize len = strlen(prefix);

	if (g_strcmp0(prefix, "/") == 0)
		return path[0] == '/';
	return strncmp(path, prefix, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* a deny glob that matches @path, as a rule at the depth of @path */
static gboolean
esd_sandbox_policy_glob_denies(const EsdSandboxPolicy *policy, const gchar *path)
{
	for (guint i = 0; i < policy->rules->len; i++) {
		const EsdSandboxRule *rule = g_ptr_array_index(policy->rules, i);
		if (rule->is_glob && rule->access == ESD_SANDBOX_ACCESS_DENY &&
		    esd_sandbox_glob_match(rule->pattern, path))
			return TRUE;
	}
	return FALSE;
}

/**
 * esd_sandbox_policy_access_for:
 * @policy: a policy
 * @abs_path: an absolute, normalised path
 *
 * The access a sandboxed command has to @abs_path, as the mount plan grants
 * it: the most specific rule wins, deny > write > read on a tie, and deny
 * globs count as rules at the depth of each path they match. Inside a
 * writable rule the protected names (`.git`, `.codex`, ...) stay read-only;
 * the target of a `.git` file is not considered here.
 *
 * Returns: the effective access; %ESD_SANDBOX_ACCESS_WRITE when the file
 *   system is not restricted, %ESD_SANDBOX_ACCESS_DENY when no rule applies
 */
EsdSandboxAccess
esd_sandbox_policy_access_for(const EsdSandboxPolicy *policy, const gchar *abs_path)
{
	const gchar *best_path = NULL;
	EsdSandboxAccess best = ESD_SANDBOX_ACCESS_DENY;
	guint best_depth = 0;
	g_autofree gchar *path = NULL;
	g_autofree gchar *candidate = NULL;

	g_return_val_if_fail(policy != NULL, ESD_SANDBOX_ACCESS_DENY);
	g_return_val_if_fail(abs_path != NULL && g_path_is_absolute(abs_path),
			     ESD_SANDBOX_ACCESS_DENY);

	if (policy->profile != ESD_SANDBOX_PROFILE_MANAGED ||
	    policy->fs != ESD_SANDBOX_FS_RESTRICTED)
		return ESD_SANDBOX_ACCESS_WRITE;
	path = g_canonicalize_filename(abs_path, "/");
	for (guint i = 0; i < policy->rules->len; i++) {
		const EsdSandboxRule *rule = g_ptr_array_index(policy->rules, i);
		guint depth;

		if (rule->is_glob || !esd_sandbox_path_has_prefix(path, rule->path))
			continue;
		depth = esd_sandbox_path_depth(rule->path);
		if (best_path == NULL || depth > best_depth ||
		    (depth == best_depth && rule->access > best)) {
			best_path = rule->path;
			best = rule->access;
			best_depth = depth;
		}
	}
	/* deny globs: the path itself and each ancestor below the best rule */
	candidate = g_strdup(path);
	for (;;) {
		gchar *slash;
		if (best_path != NULL && esd_sandbox_path_depth(candidate) < best_depth)
			break;
		if (esd_sandbox_policy_glob_denies(policy, candidate))
			return ESD_SANDBOX_ACCESS_DENY;
		slash = strrchr(candidate, '/');
		if (slash == NULL || slash == candidate)
			break;
		*slash = '\0';
	}
	if (best == ESD_SANDBOX_ACCESS_WRITE && g_strcmp0(path, best_path) != 0) {
		/* the component right below the writable rule */
		const gchar *rest =
		    path + (g_strcmp0(best_path, "/") == 0 ? 1 : strlen(best_path) + 1);
		g_autofree gchar *name = g_strndup(rest, strcspn(rest, "/"));
		if (esd_sandbox_is_protected_name(name))
			return ESD_SANDBOX_ACCESS_READ;
	}
	return best;
}
