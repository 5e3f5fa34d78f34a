/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-np-config.h"
#include "esd-np-creds.h"
#include "esd-np-policy.h"

/*
 * `process/start.networkProxy` (RemoteNetworkProxyLaunchConfig), checked
 * with the reference's messages. What this proxy does not do (transparent
 * TCP) is refused rather than silently ignored; its capability flag is
 * false.
 */

#define ESD_NP_INVALID "invalid network proxy config: "

static gboolean
esd_np_config_invalid(GError **error, const gchar *message)
{
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "%s", message);
	return FALSE;
}

static gboolean
esd_np_config_is_string(JsonNode *node)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING;
}

/*
 * a required boolean of `proxy`, which the reference reads through a
 * generic JSON value: erpc_json_value_type_error()
 */
static gboolean
esd_np_config_flag(JsonObject *proxy, const gchar *name, gboolean *out, GError **error)
{
	JsonNode *node = json_object_get_member(proxy, name);

	if (node == NULL)
		return erpc_json_require_boolean(proxy, name, out, error);
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_BOOLEAN)
		return erpc_json_value_type_error(node, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

/* an optional boolean of `proxy`: absent or null is %FALSE */
static gboolean
esd_np_config_optional_flag(JsonObject *proxy, const gchar *name, gboolean *out, GError **error)
{
	JsonNode *node = json_object_get_member(proxy, name);

	*out = FALSE;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return esd_np_config_flag(proxy, name, out, error);
}

/*
 * A unit variant of an enum, as serde takes it: the name, or a map of the
 * name alone to a value that must be null, which @unit is set to (checked
 * after the name: esd_np_config_unit()). Returns the name, or %NULL with
 * the reference's error.
 */
static const gchar *
esd_np_config_variant(JsonNode *node, JsonNode **unit, GError **error)
{
	JsonObject *map;
	JsonNode *value;
	GList *names;
	const gchar *name;

	*unit = NULL;
	if (esd_np_config_is_string(node))
		return json_node_get_string(node);
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		erpc_json_value_type_error(node, "string or map", error);
		return NULL;
	}
	map = json_node_get_object(node);
	if (json_object_get_size(map) != 1) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid value: map, expected map with a single key");
		return NULL;
	}
	names = json_object_get_members(map);
	name = names->data;
	g_list_free(names);
	value = json_object_get_member(map, name);
	*unit = value;
	return name;
}

static gboolean
esd_np_config_unit(JsonNode *unit, GError **error)
{
	if (unit == NULL || JSON_NODE_HOLDS_NULL(unit))
		return TRUE;
	return erpc_json_value_type_error(unit, "unit", error);
}

static gint
esd_np_config_strcmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

/*
 * @patterns compiled into @globs (and the hosts they name without a
 * wildcard into @exact, if not %NULL), in byte order as the reference
 * checks them when @sort
 */
static gboolean
esd_np_config_compile(GPtrArray *patterns,
		      const gchar *reject_global,
		      GPtrArray *globs,
		      GPtrArray *exact,
		      gboolean sort,
		      GError **error)
{
	if (sort)
		g_ptr_array_sort(patterns, esd_np_config_strcmp);
	for (guint i = 0; i < patterns->len; i++) {
		g_autofree gchar *why =
		    esd_np_policy_pattern_compile(g_ptr_array_index(patterns, i),
						  reject_global,
						  globs,
						  exact);
		if (why != NULL) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    ESD_NP_INVALID "%s",
				    why);
			return FALSE;
		}
	}
	return TRUE;
}

/* `proxy.domains`, a map of pattern to `allow`, `deny` or `none`: the patterns of each rule */
static gboolean
esd_np_config_parse_domains(JsonObject *proxy, GPtrArray *allow, GPtrArray *deny, GError **error)
{
	JsonNode *node = json_object_get_member(proxy, "domains");
	JsonObjectIter iter;
	const gchar *pattern;
	JsonNode *value;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return erpc_json_value_type_error(node, "a map", error);
	json_object_iter_init(&iter, json_node_get_object(node));
	while (json_object_iter_next(&iter, &pattern, &value)) {
		JsonNode *unit = NULL;
		const gchar *rule = esd_np_config_variant(value, &unit, error);

		if (rule == NULL)
			return FALSE;
		if (g_str_equal(rule, "allow"))
			g_ptr_array_add(allow, (gpointer)pattern);
		else if (g_str_equal(rule, "deny"))
			g_ptr_array_add(deny, (gpointer)pattern);
		else if (!g_str_equal(rule, "none")) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "unknown variant `%s`, expected one of `none`, `allow`, `deny`",
				    rule);
			return FALSE;
		}
		if (!esd_np_config_unit(unit, error))
			return FALSE;
	}
	return TRUE;
}

/* `proxy.reviewDomains`, a sequence of patterns */
static gboolean
esd_np_config_parse_review(JsonObject *proxy, GPtrArray *review, GError **error)
{
	JsonNode *node = json_object_get_member(proxy, "reviewDomains");
	JsonArray *array;

	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_value_type_error(node, "a sequence", error);
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *element = json_array_get_element(array, i);

		if (!esd_np_config_is_string(element))
			return erpc_json_value_type_error(element, "a string", error);
		g_ptr_array_add(review, (gpointer)json_node_get_string(element));
	}
	return TRUE;
}

/* a member this proxy does not implement, refused when it asks for something */
static gboolean
esd_np_config_check_unsupported(JsonObject *proxy, gboolean sandboxed, GError **error)
{
	gboolean flag = FALSE;

	if (!esd_np_config_optional_flag(proxy, "transparentTcp", &flag, error))
		return FALSE;
	if (flag)
		return esd_np_config_invalid(
		    error,
		    sandboxed ? ESD_NP_INVALID "transparent TCP is not supported"
			      : "transparent TCP requires a managed Linux sandbox");
	return TRUE;
}

/**
 * esd_np_config_parse:
 * @value: the `networkProxy` member
 * @sandboxed: whether the launch runs in a sandbox
 * @error: the -32602 error, with the reference's message
 *
 * Returns: (transfer full) (nullable): the configuration
 */
EsdNpConfig *
esd_np_config_parse(JsonNode *value, gboolean sandboxed, GError **error)
{
	static const gchar *const flags[] = {"enabled",
					     "enableSocks5",
					     "enableSocks5Udp",
					     "allowUpstreamProxy",
					     "dangerouslyAllowAllUnixSockets",
					     "allowLocalBinding",
					     NULL};
	g_autoptr(EsdNpConfig) self = g_new0(EsdNpConfig, 1);
	JsonObject *launch;
	JsonObject *proxy = NULL;
	gboolean values[G_N_ELEMENTS(flags)] = {FALSE};
	const gchar *mode = NULL;
	JsonNode *mode_unit = NULL;
	const gchar *unused = NULL;
	JsonObject *metadata = NULL;
	JsonNode *timeout;
	/* borrowed from @value */
	g_autoptr(GPtrArray) allow = g_ptr_array_new();
	g_autoptr(GPtrArray) deny = g_ptr_array_new();
	g_autoptr(GPtrArray) review = g_ptr_array_new();

	self->allow = g_ptr_array_new_with_free_func(g_free);
	self->deny = g_ptr_array_new_with_free_func(g_free);
	self->review = g_ptr_array_new_with_free_func(g_free);
	self->exact = g_ptr_array_new_with_free_func(g_free);
	if (!JSON_NODE_HOLDS_OBJECT(value)) {
		g_autofree gchar *what = erpc_json_describe(value);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid type: %s, expected struct RemoteNetworkProxyLaunchConfig",
			    what);
		return NULL;
	}
	launch = json_node_get_object(value);
	if (!erpc_json_require_object(launch, "proxy", &proxy, error))
		return NULL;
	for (guint i = 0; flags[i] != NULL; i++) {
		if (!esd_np_config_flag(proxy, flags[i], &values[i], error))
			return NULL;
	}
	if (!json_object_has_member(proxy, "mode")) {
		if (!erpc_json_require_string(proxy, "mode", &mode, error))
			return NULL;
	} else if ((mode = esd_np_config_variant(json_object_get_member(proxy, "mode"),
						 &mode_unit,
						 error)) == NULL) {
		return NULL;
	}
	if (!g_str_equal(mode, "limited") && !g_str_equal(mode, "full")) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unknown variant `%s`, expected `limited` or `full`",
			    mode);
		return NULL;
	}
	if (!esd_np_config_unit(mode_unit, error))
		return NULL;
	/* the types of the lists before any pattern, then deny, allow and review */
	if (!esd_np_config_parse_domains(proxy, allow, deny, error) ||
	    !esd_np_config_parse_review(proxy, review, error) ||
	    !esd_np_config_compile(deny, "network.denied_domains", self->deny, NULL, TRUE, error) ||
	    !esd_np_config_compile(allow, NULL, self->allow, self->exact, TRUE, error) ||
	    !esd_np_config_compile(review, NULL, self->review, NULL, FALSE, error) ||
	    !esd_np_config_check_unsupported(proxy, sandboxed, error) ||
	    !esd_np_config_optional_flag(proxy,
					 "credentialMasking",
					 &self->credential_masking,
					 error))
		return NULL;
	/* checked with masking off too: a provider that cannot work is refused */
	self->providers =
	    esd_np_creds_parse_providers(json_object_get_member(proxy, "credentialProviders"),
					 error);
	if (self->providers == NULL)
		return NULL;
	timeout = json_object_get_member(launch, "policyDecisionTimeoutMs");
	if (timeout != NULL && !JSON_NODE_HOLDS_NULL(timeout)) {
		if (!erpc_json_require_uint64(launch,
					      "policyDecisionTimeoutMs",
					      &self->decision_timeout_ms,
					      error))
			return NULL;
		if (self->decision_timeout_ms == 0) {
			esd_np_config_invalid(
			    error,
			    "network policy decision callback timeout must be nonzero");
			return NULL;
		}
	}
	if (!erpc_json_get_string(launch, "environmentId", NULL, &unused, error) ||
	    !erpc_json_get_string(launch, "executionId", NULL, &unused, error) ||
	    !erpc_json_get_object(launch, "auditMetadata", &metadata, error))
		return NULL;
	if (!values[0]) {
		esd_np_config_invalid(
		    error,
		    ESD_NP_INVALID "executor-local network proxy launch requires an enabled proxy");
		return NULL;
	}
	self->limited = g_str_equal(mode, "limited");
	self->socks5 = values[1];
	/* as on the reference, UDP associate is a command of the SOCKS5 listener */
	self->socks5_udp = values[1] && values[2];
	self->allow_upstream_proxy = values[3];
	self->allow_local_binding = values[5];
	return g_steal_pointer(&self);
}

static gboolean
esd_np_config_any_matches(GPtrArray *globs, const gchar *host)
{
	for (guint i = 0; i < globs->len; i++) {
		if (esd_np_policy_glob_matches(g_ptr_array_index(globs, i), host))
			return TRUE;
	}
	return FALSE;
}

/**
 * esd_np_config_match:
 * @self: the configuration
 * @host: a normalized host
 *
 * Returns: the rule for @host; a deny pattern wins over an allow one, and
 *   a review pattern turns an allow into %ESD_NP_RULE_REVIEW
 */
EsdNpRule
esd_np_config_match(const EsdNpConfig *self, const gchar *host)
{
	if (esd_np_config_any_matches(self->deny, host))
		return ESD_NP_RULE_DENY;
	if (!esd_np_config_any_matches(self->allow, host))
		return ESD_NP_RULE_NONE;
	/* an allowed host the client reviews is not allowed by the list alone */
	if (esd_np_config_any_matches(self->review, host))
		return ESD_NP_RULE_REVIEW;
	return ESD_NP_RULE_ALLOW;
}

/**
 * esd_np_config_names:
 * @self: the configuration
 * @host: a normalized host
 *
 * Returns: whether an allow pattern without a wildcard names @host: what
 *   lets a local destination through (`*.localhost` or `*` does not)
 */
gboolean
esd_np_config_names(const EsdNpConfig *self, const gchar *host)
{
	return g_ptr_array_find_with_equal_func(self->exact, host, g_str_equal, NULL);
}

void
esd_np_config_free(EsdNpConfig *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->allow, g_ptr_array_unref);
	g_clear_pointer(&self->deny, g_ptr_array_unref);
	g_clear_pointer(&self->review, g_ptr_array_unref);
	g_clear_pointer(&self->providers, g_ptr_array_unref);
	g_clear_pointer(&self->exact, g_ptr_array_unref);
	g_free(self);
}
