/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include <execrpc.h>

#include "esd-child-env.h"

/*
 * The environment of a command. Without a policy it is exactly what the
 * client sent; with one it is built from the daemon's own environment
 * (inherit, default and custom excludes, set, include-only) and the client's
 * variables are laid on top. Either way the daemon's own credentials never
 * reach a child, whatever case the client writes their names in.
 */

static const gchar *const esd_child_env_denied[] = {
    "CODEX_EXEC_SERVER_NOISE_AUTH_TOKEN",
    "CODEX_EXEC_SERVER_EXIT_ON_STDIN_CLOSE",
    "NODE_REPL_AUTH_TOKEN",
    "CODEX_GUARDIAN_DECISIONS_API_KEY",
    "OPENAI_FEDERATION_RULE_ID",
    "OPENAI_IDENTITY_TOKEN_FILE",
    "OPENAI_WORKLOAD_IDENTITY_CONTEXT",
    NULL,
};

static const gchar *const esd_child_env_core[] = {
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "USER",
    "USERNAME",
    "TMPDIR",
    "TEMP",
    "TMP",
    "LANG",
    NULL,
};

static const gchar *const esd_child_env_default_excludes[] = {"*KEY*", "*SECRET*", "*TOKEN*", NULL};

gboolean
esd_child_env_is_non_inheritable(const gchar *name)
{
	for (guint i = 0; esd_child_env_denied[i] != NULL; i++) {
		if (g_ascii_strcasecmp(name, esd_child_env_denied[i]) == 0)
			return TRUE;
	}
	return FALSE;
}

static gboolean
esd_child_env_name_valid(const gchar *name)
{
	return name[0] != '\0' && strchr(name, '=') == NULL;
}

/* case-insensitive glob match, as the reference's policy patterns are */
static gboolean
esd_child_env_matches_any(const gchar *name, GPtrArray *patterns)
{
	g_autofree gchar *upper = g_ascii_strup(name, -1);
	for (guint i = 0; i < patterns->len; i++) {
		if (g_pattern_spec_match_string(g_ptr_array_index(patterns, i), upper))
			return TRUE;
	}
	return FALSE;
}

static void
esd_child_env_add_patterns(GPtrArray *patterns, const gchar *pattern)
{
	g_autofree gchar *upper = g_ascii_strup(pattern, -1);
	g_ptr_array_add(patterns, g_pattern_spec_new(upper));
}

static gboolean
esd_child_env_patterns(JsonObject *policy, const gchar *member, GPtrArray **out, GError **error)
{
	g_auto(GStrv) strv = NULL;
	g_autoptr(GPtrArray) patterns =
	    g_ptr_array_new_with_free_func((GDestroyNotify)g_pattern_spec_free);

	if (!erpc_json_require_strv(policy, member, &strv, error))
		return FALSE;
	for (guint i = 0; strv[i] != NULL; i++)
		esd_child_env_add_patterns(patterns, strv[i]);
	*out = g_steal_pointer(&patterns);
	return TRUE;
}

static gboolean
esd_child_env_overlay(GHashTable *vars, JsonObject *map, const gchar *what, GError **error)
{
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;

	json_object_iter_init(&iter, map);
	while (json_object_iter_next(&iter, &name, &value)) {
		if (!JSON_NODE_HOLDS_VALUE(value) ||
		    json_node_get_value_type(value) != G_TYPE_STRING) {
			g_autofree gchar *desc = erpc_json_describe(value);
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid type: %s, expected a string",
				    desc);
			return FALSE;
		}
		if (!esd_child_env_name_valid(name)) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "%s contains an invalid variable name",
				    what);
			return FALSE;
		}
		g_hash_table_replace(vars, g_strdup(name), g_strdup(json_node_get_string(value)));
	}
	return TRUE;
}

static gboolean
esd_child_env_apply_policy(GHashTable *vars, JsonObject *policy, GError **error)
{
	const gchar *const inherit_values[] = {"core", "all", "none", NULL};
	gint inherit = 0;
	gboolean ignore_default_excludes = FALSE;
	g_autoptr(GPtrArray) exclude = NULL;
	g_autoptr(GPtrArray) include_only = NULL;
	g_autoptr(GPtrArray) defaults =
	    g_ptr_array_new_with_free_func((GDestroyNotify)g_pattern_spec_free);
	JsonObject *set = NULL;
	g_auto(GStrv) server_env = g_get_environ();
	GHashTableIter iter;
	gpointer key;

	if (!erpc_json_get_enum(policy, "inherit", inherit_values, -1, &inherit, error) ||
	    !erpc_json_require_boolean(policy,
				       "ignoreDefaultExcludes",
				       &ignore_default_excludes,
				       error) ||
	    !esd_child_env_patterns(policy, "exclude", &exclude, error) ||
	    !erpc_json_require_object(policy, "set", &set, error) ||
	    !esd_child_env_patterns(policy, "includeOnly", &include_only, error))
		return FALSE;

	for (guint i = 0; server_env[i] != NULL; i++) {
		const gchar *eq = strchr(server_env[i], '=');
		g_autofree gchar *name = NULL;
		if (eq == NULL || eq == server_env[i])
			continue;
		name = g_strndup(server_env[i], eq - server_env[i]);
		if (inherit == 2 || (inherit == 0 && !g_strv_contains(esd_child_env_core, name)))
			continue;
		g_hash_table_replace(vars, g_steal_pointer(&name), g_strdup(eq + 1));
	}
	for (guint i = 0; esd_child_env_default_excludes[i] != NULL; i++)
		esd_child_env_add_patterns(defaults, esd_child_env_default_excludes[i]);
	g_hash_table_iter_init(&iter, vars);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		if ((!ignore_default_excludes && esd_child_env_matches_any(key, defaults)) ||
		    esd_child_env_matches_any(key, exclude))
			g_hash_table_iter_remove(&iter);
	}
	if (!esd_child_env_overlay(vars, set, "envPolicy.set", error))
		return FALSE;
	if (include_only->len > 0) {
		g_hash_table_iter_init(&iter, vars);
		while (g_hash_table_iter_next(&iter, &key, NULL)) {
			if (!esd_child_env_matches_any(key, include_only))
				g_hash_table_iter_remove(&iter);
		}
	}
	return TRUE;
}

/* returns a NULL-terminated envp, or NULL with an invalid-params error */
gchar **
esd_child_env_build(JsonObject *env, JsonObject *policy, gboolean tty, GError **error)
{
	g_autoptr(GHashTable) vars = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autoptr(GPtrArray) envp = g_ptr_array_new_with_free_func(g_free);
	GHashTableIter iter;
	gpointer key;
	gpointer value;

	if (policy != NULL && !esd_child_env_apply_policy(vars, policy, error))
		return NULL;
	if (!esd_child_env_overlay(vars, env, "env", error))
		return NULL;
	/* a terminal's programs expect to know the login shell */
	if (tty && !g_hash_table_contains(vars, "SHELL")) {
		struct passwd *pw = getpwuid(getuid());
		g_hash_table_insert(
		    vars,
		    g_strdup("SHELL"),
		    g_strdup(pw != NULL && pw->pw_shell != NULL ? pw->pw_shell : "/bin/sh"));
	}
	g_hash_table_iter_init(&iter, vars);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (esd_child_env_is_non_inheritable(key))
			continue;
		g_ptr_array_add(envp, g_strdup_printf("%s=%s", (gchar *)key, (gchar *)value));
	}
	g_ptr_array_add(envp, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&envp), FALSE);
}
