/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-http-params.h"

/*
 * Everything of http/request that comes from the peer, checked before
 * anything goes to the network, with the reference's -32602 wordings.
 * Nothing here touches libsoup, so the fuzzer can drive it alone.
 */

void
esd_http_params_free(EsdHttpParams *self)
{
	if (self == NULL)
		return;
	g_free(self->method);
	g_clear_pointer(&self->uri, g_uri_unref);
	g_free(self->url);
	g_free(self->request_id);
	g_clear_pointer(&self->names, g_ptr_array_unref);
	g_clear_pointer(&self->values, g_ptr_array_unref);
	g_clear_pointer(&self->body, g_bytes_unref);
	g_free(self);
}

/* RFC 9110 tchar: what a method and a header name are made of */
static gboolean
esd_http_is_tchar(guchar c)
{
	return g_ascii_isalnum(c) || (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/**
 * esd_http_is_token:
 * @text: a method or a header name
 *
 * Returns: %TRUE if @text is a non-empty HTTP token
 */
gboolean
esd_http_is_token(const gchar *text)
{
	if (*text == '\0')
		return FALSE;
	for (const guchar *p = (const guchar *)text; *p != '\0'; p++) {
		if (!esd_http_is_tchar(*p))
			return FALSE;
	}
	return TRUE;
}

/**
 * esd_http_is_header_value:
 * @text: a header value
 *
 * Visible ASCII, space, tab and bytes from 0x80 on pass, as in the
 * reference's client; control characters (CR, LF, NUL) do not, so a value
 * cannot start another header.
 *
 * Returns: %TRUE if @text may be sent as a header value
 */
gboolean
esd_http_is_header_value(const gchar *text)
{
	for (const guchar *p = (const guchar *)text; *p != '\0'; p++) {
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return FALSE;
	}
	return TRUE;
}

/* the reference's credential variables, which a header must never carry */
static const gchar *const esd_http_denied_env[] = {
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "CODEX_ACCESS_TOKEN",
    "CODEX_CONNECTORS_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AZURE_CLIENT_SECRET",
    "AZURE_FEDERATED_TOKEN_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
};

/**
 * esd_http_env_var_is_denied:
 * @name: an environment variable name
 *
 * Returns: %TRUE if @name is a credential variable, in any case
 */
gboolean
esd_http_env_var_is_denied(const gchar *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(esd_http_denied_env); i++) {
		if (g_ascii_strcasecmp(name, esd_http_denied_env[i]) == 0)
			return TRUE;
	}
	return FALSE;
}

static gboolean
esd_http_url_fail(GError **error, const gchar *detail)
{
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "http/request url is invalid: %s",
		    detail);
	return FALSE;
}

/*
 * The URL as a WHATWG parser would take it: surrounding spaces and
 * controls dropped, tabs and newlines removed, other bytes that cannot
 * appear in a URL percent-encoded, so that what goes on the request line
 * is always one token.
 */
static gchar *
esd_http_url_clean(const gchar *text)
{
	GString *out = g_string_sized_new(strlen(text) + 8);
	const guchar *start = (const guchar *)text;
	const guchar *end = start + strlen(text);

	while (start < end && *start <= 0x20)
		start++;
	while (end > start && end[-1] <= 0x20)
		end--;
	for (const guchar *p = start; p < end; p++) {
		if (*p == '\t' || *p == '\n' || *p == '\r')
			continue;
		if (*p <= 0x20 || *p >= 0x7f || strchr("\"<>`{}|^\\", *p) != NULL)
			g_string_append_printf(out, "%%%02X", *p);
		else
			g_string_append_c(out, (gchar)*p);
	}
	return g_string_free(out, FALSE);
}

/**
 * esd_http_parse_url:
 * @text: the `url` member
 * @shown: (out) (optional): the URL as messages show it
 * @error: return location for a #GError, or %NULL
 *
 * Parses an absolute http or https URL; anything else is refused with
 * the reference's message.
 *
 * Returns: (transfer full): the URL, with its user info if any
 */
GUri *
esd_http_parse_url(const gchar *text, gchar **shown, GError **error)
{
	const GUriFlags flags = G_URI_FLAGS_HAS_PASSWORD | G_URI_FLAGS_ENCODED_PATH |
				G_URI_FLAGS_ENCODED_QUERY | G_URI_FLAGS_ENCODED_FRAGMENT |
				G_URI_FLAGS_SCHEME_NORMALIZE;
	g_autofree gchar *clean = esd_http_url_clean(text);
	const gchar *scheme = g_uri_peek_scheme(clean);
	g_autoptr(GError) error_local = NULL;
	g_autoptr(GUri) uri = NULL;
	const gchar *host;

	if (scheme == NULL) {
		esd_http_url_fail(error, "relative URL without a base");
		return NULL;
	}
	if (g_strcmp0(scheme, "http") != 0 && g_strcmp0(scheme, "https") != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "http/request only supports http and https URLs, got %s",
			    scheme);
		return NULL;
	}
	uri = g_uri_parse(clean, flags, &error_local);
	if (uri == NULL) {
		if (g_error_matches(error_local, G_URI_ERROR, G_URI_ERROR_BAD_PORT))
			esd_http_url_fail(error, "invalid port number");
		else if (g_error_matches(error_local, G_URI_ERROR, G_URI_ERROR_BAD_HOST))
			esd_http_url_fail(error, "invalid domain character");
		else
			esd_http_url_fail(error, error_local->message);
		return NULL;
	}
	host = g_uri_get_host(uri);
	if (host == NULL || *host == '\0') {
		esd_http_url_fail(error, "empty host");
		return NULL;
	}
	if (shown != NULL) {
		const gchar *path = g_uri_get_path(uri);
		g_autoptr(GUri) bare = g_uri_build(flags,
						   scheme,
						   NULL,
						   host,
						   g_uri_get_port(uri),
						   *path == '\0' ? "/" : path,
						   g_uri_get_query(uri),
						   g_uri_get_fragment(uri));
		*shown = g_uri_to_string(bare);
	}
	return g_steal_pointer(&uri);
}

/* one entry of `headers`: its value with the daemon's variable appended */
static gboolean
esd_http_params_header(JsonNode *node,
		       EsdHttpGetenvFunc getenv_func,
		       const gchar **name,
		       gchar **value,
		       GError **error)
{
	JsonObject *obj;
	const gchar *text = NULL;
	const gchar *var = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_autofree gchar *what = erpc_json_describe(node);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid type: %s, expected struct HttpHeader",
			    what);
		return FALSE;
	}
	obj = json_node_get_object(node);
	if (!erpc_json_require_string(obj, "name", name, error) ||
	    !erpc_json_require_string(obj, "value", &text, error) ||
	    !erpc_json_get_string(obj, "valueEnvVar", NULL, &var, error))
		return FALSE;
	if (!esd_http_is_token(*name)) {
		g_set_error_literal(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "http/request header name is invalid: invalid HTTP header name");
		return FALSE;
	}
	if (var != NULL) {
		const gchar *env;

		/* before the presence check: a denied name is not even looked up */
		if (esd_http_env_var_is_denied(var)) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "http/request header %s cannot use executor environment "
				    "variable %s",
				    *name,
				    var);
			return FALSE;
		}
		env = *var != '\0' ? getenv_func(var) : NULL;
		if (env == NULL) {
			g_set_error(
			    error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "http/request header %s requires executor environment variable %s",
			    *name,
			    var);
			return FALSE;
		}
		if (*env == '\0') {
			g_set_error(
			    error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "http/request header %s requires a non-empty executor environment "
			    "variable %s",
			    *name,
			    var);
			return FALSE;
		}
		*value = g_strconcat(text, env, NULL);
	} else {
		*value = g_strdup(text);
	}
	if (!esd_http_is_header_value(*value)) {
		g_set_error(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "http/request header value is invalid for %s: failed to parse header value",
		    *name);
		g_clear_pointer(value, g_free);
		return FALSE;
	}
	return TRUE;
}

/*
 * `headers`, grouped by name in the order each name first appears, repeats
 * kept in order: the reference sends them so (a map of lists)
 */
static gboolean
esd_http_params_headers(EsdHttpParams *self,
			JsonArray *headers,
			EsdHttpGetenvFunc getenv_func,
			GError **error)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) groups = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	guint n = headers != NULL ? json_array_get_length(headers) : 0;

	for (guint i = 0; i < n; i++) {
		const gchar *name = NULL;
		gchar *value = NULL;

		if (!esd_http_params_header(json_array_get_element(headers, i),
					    getenv_func,
					    &name,
					    &value,
					    error))
			return FALSE;
		g_ptr_array_add(names, g_ascii_strdown(name, -1));
		g_ptr_array_add(values, value);
	}
	self->names = g_ptr_array_new_full(n, g_free);
	self->values = g_ptr_array_new_full(n, g_free);
	for (guint i = 0; i < n; i++) {
		GPtrArray *group = g_hash_table_lookup(groups, names->pdata[i]);
		if (group == NULL) {
			group = g_ptr_array_new();
			g_hash_table_insert(groups, names->pdata[i], group);
			g_ptr_array_add(order, group);
		}
		g_ptr_array_add(group, GUINT_TO_POINTER(i));
	}
	for (guint g = 0; g < order->len; g++) {
		GPtrArray *group = order->pdata[g];
		for (guint j = 0; j < group->len; j++) {
			guint i = GPOINTER_TO_UINT(group->pdata[j]);
			g_ptr_array_add(self->names, g_steal_pointer(&names->pdata[i]));
			g_ptr_array_add(self->values, g_steal_pointer(&values->pdata[i]));
		}
		g_ptr_array_unref(group);
	}
	return TRUE;
}

/**
 * esd_http_params_parse:
 * @params: the params object
 * @getenv_func: how to read the daemon's environment (g_getenv)
 * @error: return location for a #GError, or %NULL
 *
 * Reads and checks the params of http/request: first their shape, then the
 * method, the URL and the headers, in the reference's order.
 *
 * Returns: (transfer full): the request, or %NULL with a -32602 error
 */
EsdHttpParams *
esd_http_params_parse(JsonObject *params, EsdHttpGetenvFunc getenv_func, GError **error)
{
	static const gchar *const policies[] = {"follow", "stop", NULL};
	g_autoptr(EsdHttpParams) self = g_new0(EsdHttpParams, 1);
	const gchar *method = NULL;
	const gchar *url = NULL;
	const gchar *request_id = NULL;
	const gchar *body = NULL;
	JsonArray *headers = NULL;
	JsonNode *timeout;
	gint policy = 0;

	if (!erpc_json_require_string(params, "method", &method, error) ||
	    !erpc_json_require_string(params, "url", &url, error) ||
	    !erpc_json_require_string(params, "requestId", &request_id, error) ||
	    !erpc_json_get_array(params, "headers", &headers, error) ||
	    !erpc_json_get_string(params, "bodyBase64", NULL, &body, error) ||
	    !erpc_json_get_enum(params, "redirectPolicy", policies, 0, &policy, error) ||
	    !erpc_json_get_boolean(params, "streamResponse", FALSE, &self->stream, error))
		return NULL;
	timeout = json_object_get_member(params, "timeoutMs");
	if (timeout != NULL && !JSON_NODE_HOLDS_NULL(timeout)) {
		guint64 ms = 0;
		if (!erpc_json_get_uint64(params, "timeoutMs", 0, &ms, error))
			return NULL;
		self->timeout_ms = (gint64)MIN(ms, (guint64)G_MAXINT64 / 1000);
	} else {
		self->timeout_ms = -1;
	}
	if (body != NULL) {
		self->body = erpc_base64_decode(body, strlen(body), G_MAXSIZE, error);
		if (self->body == NULL)
			return NULL;
	}
	self->follow = policy == 0;
	self->request_id = g_strdup(request_id);

	if (!esd_http_is_token(method)) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "http/request method is invalid: invalid HTTP method");
		return NULL;
	}
	self->method = g_strdup(method);
	self->uri = esd_http_parse_url(url, &self->url, error);
	if (self->uri == NULL)
		return NULL;
	if (!esd_http_params_headers(self, headers, getenv_func, error))
		return NULL;
	return g_steal_pointer(&self);
}
