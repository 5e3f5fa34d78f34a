/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-np-config.h"
#include "esd-np-policy.h"

/*
 * `process/start.networkProxy` (RemoteNetworkProxyLaunchConfig), checked
 * with the reference's messages. What this proxy does not do (transparent
 * TCP, review domains, credential masking) is refused rather than silently
 * ignored; its capability flags are false.
 */

#define ESD_NP_INVALID "invalid network proxy config: "

static gboolean
esd_np_config_invalid(GError **error, const gchar *message)
{
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "%s", message);
	return FALSE;
}

static gboolean
esd_np_config_parse_domains(EsdNpConfig *self, JsonObject *proxy, GError **error)
{
	JsonNode *node = json_object_get_member(proxy, "domains");
	JsonObjectIter iter;
	const gchar *pattern;
	JsonNode *value;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_autofree gchar *what = erpc_json_describe(node);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid type: %s, expected a map",
			    what);
		return FALSE;
	}
	json_object_iter_init(&iter, json_node_get_object(node));
	while (json_object_iter_next(&iter, &pattern, &value)) {
		g_autofree gchar *trimmed = g_strstrip(g_ascii_strdown(pattern, -1));
		const gchar *rule;
		gsize len = strlen(trimmed);

		if (!JSON_NODE_HOLDS_VALUE(value) ||
		    json_node_get_value_type(value) != G_TYPE_STRING) {
			g_autofree gchar *what = erpc_json_describe(value);
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid type: %s, expected a string",
				    what);
			return FALSE;
		}
		rule = json_node_get_string(value);
		if (!g_str_equal(rule, "none") && !g_str_equal(rule, "allow") &&
		    !g_str_equal(rule, "deny")) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "unknown variant `%s`, expected one of `none`, `allow`, `deny`",
				    rule);
			return FALSE;
		}
		while (len > 0 && trimmed[len - 1] == '.')
			trimmed[--len] = '\0';
		if (len >= 2 && trimmed[0] == '[' && trimmed[len - 1] == ']') {
			memmove(trimmed, trimmed + 1, len - 2);
			trimmed[len - 2] = '\0';
		}
		if (!esd_np_policy_pattern_is_valid(trimmed))
			return esd_np_config_invalid(error,
						     ESD_NP_INVALID "domain pattern is empty");
		if (g_str_equal(rule, "allow"))
			g_ptr_array_add(self->allow, g_steal_pointer(&trimmed));
		else if (g_str_equal(rule, "deny"))
			g_ptr_array_add(self->deny, g_steal_pointer(&trimmed));
	}
	return TRUE;
}

/* a member this proxy does not implement, refused when it asks for something */
static gboolean
esd_np_config_check_unsupported(JsonObject *proxy, gboolean sandboxed, GError **error)
{
	gboolean flag = FALSE;
	JsonNode *node;

	if (!erpc_json_get_boolean(proxy, "transparentTcp", FALSE, &flag, error))
		return FALSE;
	if (flag)
		return esd_np_config_invalid(
		    error,
		    sandboxed ? ESD_NP_INVALID "transparent TCP is not supported"
			      : "transparent TCP requires a managed Linux sandbox");
	if (!erpc_json_get_boolean(proxy, "credentialMasking", FALSE, &flag, error))
		return FALSE;
	if (flag)
		return esd_np_config_invalid(error,
					     ESD_NP_INVALID "credential masking is not supported");
	node = json_object_get_member(proxy, "reviewDomains");
	if (node != NULL && JSON_NODE_HOLDS_ARRAY(node) &&
	    json_array_get_length(json_node_get_array(node)) > 0)
		return esd_np_config_invalid(error,
					     ESD_NP_INVALID "review domains are not supported");
	node = json_object_get_member(proxy, "credentialProviders");
	if (node != NULL && JSON_NODE_HOLDS_OBJECT(node) &&
	    json_object_get_size(json_node_get_object(node)) > 0)
		return esd_np_config_invalid(error,
					     ESD_NP_INVALID
					     "credential providers are not supported");
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
	const gchar *unused = NULL;
	JsonObject *metadata = NULL;
	JsonNode *timeout;

	self->allow = g_ptr_array_new_with_free_func(g_free);
	self->deny = g_ptr_array_new_with_free_func(g_free);
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
		if (!erpc_json_require_boolean(proxy, flags[i], &values[i], error))
			return NULL;
	}
	if (!erpc_json_require_string(proxy, "mode", &mode, error))
		return NULL;
	if (!g_str_equal(mode, "limited") && !g_str_equal(mode, "full")) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unknown variant `%s`, expected `limited` or `full`",
			    mode);
		return NULL;
	}
	if (!esd_np_config_parse_domains(self, proxy, error) ||
	    !esd_np_config_check_unsupported(proxy, sandboxed, error))
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

/**
 * esd_np_config_match:
 * @self: the configuration
 * @host: a normalized host
 *
 * Returns: the rule for @host; a deny pattern wins over an allow one
 */
EsdNpRule
esd_np_config_match(const EsdNpConfig *self, const gchar *host)
{
	for (guint i = 0; i < self->deny->len; i++) {
		if (esd_np_policy_pattern_matches(g_ptr_array_index(self->deny, i), host))
			return ESD_NP_RULE_DENY;
	}
	for (guint i = 0; i < self->allow->len; i++) {
		if (esd_np_policy_pattern_matches(g_ptr_array_index(self->allow, i), host))
			return ESD_NP_RULE_ALLOW;
	}
	return ESD_NP_RULE_NONE;
}

void
esd_np_config_free(EsdNpConfig *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->allow, g_ptr_array_unref);
	g_clear_pointer(&self->deny, g_ptr_array_unref);
	g_free(self);
}
