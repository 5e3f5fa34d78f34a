/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>
#include <sys/random.h>

#include "esd-np-creds.h"
#include "esd-np-policy.h"

/*
 * Credential masking (`proxy.credentialMasking`), as Codex's credential
 * broker defines it: a secret in the command's environment is replaced by a
 * placeholder of the same shape before the command starts, and the proxy
 * puts the real secret back into the request, in place of the placeholder,
 * when the request goes to a destination the secret is bound to, and only
 * there. A placeholder sent anywhere else stays a placeholder.
 *
 * A placeholder keeps the secret's length and its kind of character at
 * each place, random otherwise, and of the secret itself only a known
 * prefix (esd_np_creds_keep()).
 *
 * The secrets: the built-in providers (GitHub's `GH_TOKEN`/`GITHUB_TOKEN`
 * for github.com, api.github.com and *.ghe.com; `GH_ENTERPRISE_TOKEN`/
 * `GITHUB_ENTERPRISE_TOKEN` for the host `GH_HOST` names; `OPENAI_API_KEY`
 * for api.openai.com) and the request's `credentialProviders`:
 *
 *   env                  the variables that hold the secret
 *   patterns             regular expressions; one must match the value
 *   url_prefixes         where it may go: `https://host[:port][/path]`, or
 *                        a bare host (HTTPS, HTTP for a loopback host)
 *   url_prefix_from_env  a variable naming one more prefix (or host)
 *   auth                 how it is presented: `bearer` (`Authorization:
 *                        Bearer`), `token` (`Authorization: token`), `basic`
 *                        (either half of `Authorization: Basic`), `header`
 *                        (the header `header` names, after `prefix`);
 *                        `bearer` when empty
 *
 * A secret with no destination, or whose value no pattern matches, is left
 * alone, as the reference does. Only the headers its `auth` names are
 * rewritten, and only where they hold the placeholder: the real value is
 * never put anywhere the command did not put the placeholder.
 */

#define ESD_NP_CREDS_MIN_RANDOM 16 /* random characters of a placeholder, at least */

typedef enum {
	ESD_NP_AUTH_BEARER = 1 << 0,
	ESD_NP_AUTH_TOKEN = 1 << 1,
	ESD_NP_AUTH_BASIC = 1 << 2,
	ESD_NP_AUTH_HEADER = 1 << 3,
} EsdNpAuth;

typedef struct {
	gboolean https;
	gboolean subdomains; /* `*.host`: the host's subdomains, not the host */
	gchar *host;
	guint16 port;
	gchar *path; /* "" for any */
} EsdNpDest;

typedef struct {
	gchar *id;
	GStrv env;
	GPtrArray *patterns; /* GRegex */
	GPtrArray *dests;    /* EsdNpDest */
	gchar *dest_env;
	guint auth;
	gchar *header;
	gchar *prefix;
	gboolean builtin_github; /* GH_HOST names no destination on github.com */
} EsdNpProvider;

typedef struct {
	const EsdNpProvider *provider;
	const gchar *name; /* the provider's */
	gchar *real;
	gchar *dummy;
	GPtrArray *dests; /* the provider's, then the one of its variable */
} EsdNpSecret;

struct _EsdNpCreds {
	GPtrArray *providers; /* the request's, then the built-in ones: secrets point into them */
	GPtrArray *secrets;
	GPtrArray *extra_dests; /* EsdNpDest, from url_prefix_from_env */
};

static void
esd_np_dest_free(gpointer data)
{
	EsdNpDest *dest = data;

	g_free(dest->host);
	g_free(dest->path);
	g_free(dest);
}

static void
esd_np_provider_free(gpointer data)
{
	EsdNpProvider *provider = data;

	if (provider == NULL)
		return;
	g_free(provider->id);
	g_strfreev(provider->env);
	g_ptr_array_unref(provider->patterns);
	g_ptr_array_unref(provider->dests);
	g_free(provider->dest_env);
	g_free(provider->header);
	g_free(provider->prefix);
	g_free(provider);
}

static EsdNpProvider *
esd_np_provider_new(const gchar *id)
{
	EsdNpProvider *provider = g_new0(EsdNpProvider, 1);

	provider->id = g_strdup(id);
	provider->patterns = g_ptr_array_new_with_free_func((GDestroyNotify)g_regex_unref);
	provider->dests = g_ptr_array_new_with_free_func(esd_np_dest_free);
	return provider;
}

static gboolean
esd_np_creds_invalid(GError **error, const gchar *id, const gchar *format, ...) G_GNUC_PRINTF(3, 4);

static gboolean
esd_np_creds_invalid(GError **error, const gchar *id, const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *what = NULL;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid network proxy config: credential provider `%s`: %s",
		    id,
		    what);
	return FALSE;
}

/*
 * `https://host[:port][/path]`, `http://…`, or a bare `host[:port][/path]`:
 * HTTPS, or HTTP when the host is a loopback one. %NULL if it is none of them.
 */
static EsdNpDest *
esd_np_dest_parse(const gchar *text)
{
	g_autoptr(GUri) uri = NULL;
	g_autofree gchar *full = NULL;
	g_autofree gchar *host = NULL;
	gboolean bare = strstr(text, "://") == NULL;
	EsdNpDest *dest;
	const gchar *scheme;
	const gchar *path;
	gint port;

	if (text[0] == '\0' || strpbrk(text, " \t\r\n") != NULL)
		return NULL;
	full = bare ? g_strconcat("https://", text, NULL) : g_strdup(text);
	uri = g_uri_parse(full, G_URI_FLAGS_NONE, NULL);
	if (uri == NULL || g_uri_get_host(uri) == NULL || g_uri_get_userinfo(uri) != NULL ||
	    g_uri_get_query(uri) != NULL || g_uri_get_fragment(uri) != NULL)
		return NULL;
	scheme = g_uri_get_scheme(uri);
	if (g_ascii_strcasecmp(scheme, "https") != 0 && g_ascii_strcasecmp(scheme, "http") != 0)
		return NULL;
	if (g_str_has_prefix(g_uri_get_host(uri), "*.")) {
		host = esd_np_policy_normalize_host(g_uri_get_host(uri) + 2);
	} else {
		host = esd_np_policy_normalize_host(g_uri_get_host(uri));
	}
	if (host == NULL || host[0] == '\0' || strchr(host, '*') != NULL)
		return NULL;
	dest = g_new0(EsdNpDest, 1);
	dest->subdomains = g_str_has_prefix(g_uri_get_host(uri), "*.");
	dest->https = g_ascii_strcasecmp(scheme, "https") == 0;
	if (bare && esd_np_policy_host_is_local_literal(host))
		dest->https = FALSE;
	port = g_uri_get_port(uri);
	dest->port = port > 0 ? (guint16)port : (dest->https ? 443 : 80);
	path = g_uri_get_path(uri);
	/* `/v1/` and `/v1` both name what is under /v1 */
	dest->path = g_strdup(g_str_equal(path, "/") ? "" : path);
	if (g_str_has_suffix(dest->path, "/"))
		dest->path[strlen(dest->path) - 1] = '\0';
	dest->host = g_steal_pointer(&host);
	return dest;
}

static gboolean
esd_np_dest_matches(const EsdNpDest *dest,
		    gboolean https,
		    const gchar *host,
		    guint16 port,
		    const gchar *path)
{
	gsize len = strlen(dest->path);

	if (dest->https != https || dest->port != port)
		return FALSE;
	if (dest->subdomains) {
		gsize host_len = strlen(host);
		gsize want = strlen(dest->host);
		if (host_len <= want + 1 || host[host_len - want - 1] != '.' ||
		    !g_str_equal(host + host_len - want, dest->host))
			return FALSE;
	} else if (!g_str_equal(host, dest->host)) {
		return FALSE;
	}
	if (path == NULL)
		return TRUE;
	return strncmp(path, dest->path, len) == 0 &&
	       (path[len] == '\0' || path[len] == '/' || path[len] == '?');
}

static gboolean
esd_np_creds_string_list(JsonObject *object, const gchar *member, GPtrArray *out, GError **error)
{
	JsonNode *node = json_object_get_member(object, member);
	JsonArray *array;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_value_type_error(node, "a sequence", error);
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *element = json_array_get_element(array, i);
		if (!JSON_NODE_HOLDS_VALUE(element) ||
		    json_node_get_value_type(element) != G_TYPE_STRING)
			return erpc_json_value_type_error(element, "a string", error);
		g_ptr_array_add(out, (gpointer)json_node_get_string(element));
	}
	return TRUE;
}

static gboolean
esd_np_creds_optional_string(JsonObject *object,
			     const gchar *member,
			     const gchar **out,
			     GError **error)
{
	JsonNode *node = json_object_get_member(object, member);

	*out = NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return erpc_json_value_type_error(node, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

/* an HTTP token: a header name */
static gboolean
esd_np_creds_is_token(const gchar *s)
{
	if (s[0] == '\0')
		return FALSE;
	for (const gchar *p = s; *p != '\0'; p++) {
		if ((guchar)*p <= ' ' || (guchar)*p >= 0x7f || strchr("()<>@,;:\\\"/[]?={}", *p))
			return FALSE;
	}
	return TRUE;
}

static EsdNpProvider *
esd_np_creds_parse_provider(const gchar *id, JsonNode *node, GError **error)
{
	static const gchar *const members[] = {"env",
					       "patterns",
					       "url_prefixes",
					       "url_prefix_from_env",
					       "auth",
					       "header",
					       "prefix",
					       NULL};
	static const gchar *const methods[] = {"bearer", "token", "basic", "header", NULL};
	g_autoptr(GPtrArray) env = g_ptr_array_new();
	g_autoptr(GPtrArray) patterns = g_ptr_array_new();
	g_autoptr(GPtrArray) prefixes = g_ptr_array_new();
	g_autoptr(GPtrArray) auth = g_ptr_array_new();
	EsdNpProvider *provider;
	JsonObject *object;
	g_autoptr(GList) names = NULL;
	const gchar *dest_env = NULL;
	const gchar *header = NULL;
	const gchar *prefix = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_autofree gchar *what = erpc_json_describe(node);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid type: %s, expected struct CredentialProviderConfig",
			    what);
		return NULL;
	}
	object = json_node_get_object(node);
	names = json_object_get_members(object);
	for (GList *l = names; l != NULL; l = l->next) {
		if (!g_strv_contains(members, l->data)) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "unknown field `%s`, expected one of `env`, `patterns`, "
				    "`url_prefixes`, `url_prefix_from_env`, `auth`, `header`, "
				    "`prefix`",
				    (const gchar *)l->data);
			return NULL;
		}
	}
	if (!esd_np_creds_string_list(object, "env", env, error) ||
	    !esd_np_creds_string_list(object, "patterns", patterns, error) ||
	    !esd_np_creds_string_list(object, "url_prefixes", prefixes, error) ||
	    !esd_np_creds_optional_string(object, "url_prefix_from_env", &dest_env, error) ||
	    !esd_np_creds_string_list(object, "auth", auth, error) ||
	    !esd_np_creds_optional_string(object, "header", &header, error) ||
	    !esd_np_creds_optional_string(object, "prefix", &prefix, error))
		return NULL;
	for (guint i = 0; i < auth->len; i++) {
		if (!g_strv_contains(methods, auth->pdata[i])) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "unknown variant `%s`, expected one of `bearer`, `token`, "
				    "`basic`, `header`",
				    (const gchar *)auth->pdata[i]);
			return NULL;
		}
	}
	provider = esd_np_provider_new(id);
	g_ptr_array_add(env, NULL);
	provider->env = g_strdupv((gchar **)env->pdata);
	for (guint i = 0; provider->env[i] != NULL; i++) {
		if (provider->env[i][0] == '\0' || strchr(provider->env[i], '=') != NULL) {
			esd_np_creds_invalid(error,
					     id,
					     "invalid variable name `%s`",
					     provider->env[i]);
			goto failed;
		}
	}
	for (guint i = 0; i < patterns->len; i++) {
		g_autoptr(GError) local = NULL;
		GRegex *regex = g_regex_new(patterns->pdata[i], G_REGEX_DOLLAR_ENDONLY, 0, &local);
		if (regex == NULL) {
			esd_np_creds_invalid(error, id, "invalid pattern: %s", local->message);
			goto failed;
		}
		g_ptr_array_add(provider->patterns, regex);
	}
	for (guint i = 0; i < prefixes->len; i++) {
		EsdNpDest *dest = esd_np_dest_parse(prefixes->pdata[i]);
		if (dest == NULL) {
			esd_np_creds_invalid(error,
					     id,
					     "invalid URL prefix `%s`",
					     (const gchar *)prefixes->pdata[i]);
			goto failed;
		}
		g_ptr_array_add(provider->dests, dest);
	}
	for (guint i = 0; i < auth->len; i++) {
		for (guint m = 0; methods[m] != NULL; m++) {
			if (g_str_equal(auth->pdata[i], methods[m]))
				provider->auth |= 1u << m;
		}
	}
	if (provider->auth == 0)
		provider->auth = ESD_NP_AUTH_BEARER;
	if ((provider->auth & ESD_NP_AUTH_HEADER) != 0 && header == NULL) {
		esd_np_creds_invalid(error, id, "auth `header` requires `header`");
		goto failed;
	}
	if (header != NULL && !esd_np_creds_is_token(header)) {
		esd_np_creds_invalid(error, id, "invalid header name `%s`", header);
		goto failed;
	}
	if (prefix != NULL && strpbrk(prefix, "\r\n") != NULL) {
		esd_np_creds_invalid(error, id, "invalid prefix");
		goto failed;
	}
	if (dest_env != NULL && (dest_env[0] == '\0' || strchr(dest_env, '=') != NULL)) {
		esd_np_creds_invalid(error, id, "invalid variable name `%s`", dest_env);
		goto failed;
	}
	provider->dest_env = g_strdup(dest_env);
	provider->header = g_strdup(header);
	provider->prefix = g_strdup(prefix != NULL ? prefix : "");
	return provider;
failed:
	esd_np_provider_free(provider);
	return NULL;
}

/**
 * esd_np_creds_parse_providers:
 * @node: (nullable): the `credentialProviders` member
 * @error: the -32602 error
 *
 * Returns: (transfer full) (nullable): the providers, in byte order of
 *   their names
 */
GPtrArray *
esd_np_creds_parse_providers(JsonNode *node, GError **error)
{
	g_autoptr(GPtrArray) providers = g_ptr_array_new_with_free_func(esd_np_provider_free);
	g_autoptr(GList) names = NULL;
	JsonObject *object;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_steal_pointer(&providers);
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		erpc_json_value_type_error(node, "a map", error);
		return NULL;
	}
	object = json_node_get_object(node);
	names = g_list_sort(json_object_get_members(object), (GCompareFunc)strcmp);
	for (GList *l = names; l != NULL; l = l->next) {
		EsdNpProvider *provider =
		    esd_np_creds_parse_provider(l->data,
						json_object_get_member(object, l->data),
						error);
		if (provider == NULL)
			return NULL;
		g_ptr_array_add(providers, provider);
	}
	return g_steal_pointer(&providers);
}

/* the built-in providers, after the request's own */
static void
esd_np_creds_add_builtins(GPtrArray *providers)
{
	static const gchar *const github[] = {"GH_TOKEN", "GITHUB_TOKEN", NULL};
	static const gchar *const enterprise[] = {"GH_ENTERPRISE_TOKEN",
						  "GITHUB_ENTERPRISE_TOKEN",
						  NULL};
	static const gchar *const openai[] = {"OPENAI_API_KEY", NULL};
	static const gchar *const github_hosts[] = {"https://github.com",
						    "https://api.github.com",
						    "https://*.ghe.com",
						    NULL};
	EsdNpProvider *provider;

	provider = esd_np_provider_new("github");
	provider->env = g_strdupv((gchar **)github);
	for (guint i = 0; github_hosts[i] != NULL; i++)
		g_ptr_array_add(provider->dests, esd_np_dest_parse(github_hosts[i]));
	/* git sends a token as the password of Basic, the API takes both schemes */
	provider->auth = ESD_NP_AUTH_BEARER | ESD_NP_AUTH_TOKEN | ESD_NP_AUTH_BASIC;
	provider->prefix = g_strdup("");
	g_ptr_array_add(providers, provider);

	provider = esd_np_provider_new("github-enterprise");
	provider->env = g_strdupv((gchar **)enterprise);
	provider->dest_env = g_strdup("GH_HOST");
	provider->builtin_github = TRUE;
	provider->auth = ESD_NP_AUTH_BEARER | ESD_NP_AUTH_TOKEN | ESD_NP_AUTH_BASIC;
	provider->prefix = g_strdup("");
	g_ptr_array_add(providers, provider);

	provider = esd_np_provider_new("openai");
	provider->env = g_strdupv((gchar **)openai);
	g_ptr_array_add(provider->dests, esd_np_dest_parse("https://api.openai.com"));
	provider->auth = ESD_NP_AUTH_BEARER;
	provider->prefix = g_strdup("");
	g_ptr_array_add(providers, provider);
}

/*
 * The length of the prefix a placeholder keeps, so that it looks the part:
 * a known one (`ghp_`, `github_pat_`, `sk-`, `sk-proj-`), or with @tag a
 * vendor's tag (up to 12 lowercase letters and a `_` or `-`: `vendor_`).
 * Anything else of a secret could be part of it: nothing more is kept.
 */
static gsize
esd_np_creds_keep(const gchar *value, gboolean tag)
{
	static const gchar *const known[] =
	    {"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", NULL};
	gsize len = strlen(value);
	gsize i = 0;

	for (guint k = 0; known[k] != NULL; k++) {
		if (g_str_has_prefix(value, known[k]))
			return strlen(known[k]);
	}
	if (g_str_has_prefix(value, "sk-")) {
		const gchar *dash = strchr(value + 3, '-');
		/* `sk-proj-`: a word, not a piece of the key */
		if (dash != NULL && dash - value <= 12) {
			for (const gchar *p = value + 3; p < dash; p++) {
				if (!g_ascii_islower(*p))
					return 3;
			}
			return (gsize)(dash - value) + 1;
		}
		return 3;
	}
	if (!tag)
		return 0;
	while (i < len && i < 12 && g_ascii_islower(value[i]))
		i++;
	if (i > 0 && (value[i] == '_' || value[i] == '-') &&
	    len - (i + 1) >= ESD_NP_CREDS_MIN_RANDOM)
		return i + 1;
	return 0;
}

/* random characters in the shape of @value: letters for letters, digits for digits */
static gchar *
esd_np_creds_shape(const gchar *value, gsize keep)
{
	gsize len = strlen(value);
	gsize target = MAX(len, keep + ESD_NP_CREDS_MIN_RANDOM);
	g_autofree guint8 *random = g_malloc(target);
	GString *out = g_string_new_len(value, (gssize)keep);

	/* getrandom() of a few bytes does not fail once the pool is ready */
	if (getrandom(random, target, 0) != (gssize)target)
		g_error("getrandom failed");
	for (gsize i = keep; i < target; i++) {
		gchar c = i < len ? value[i] : 'a';
		guint8 r = random[i];

		if (g_ascii_isdigit(c))
			c = (gchar)('0' + r % 10);
		else if (g_ascii_isupper(c))
			c = (gchar)('A' + r % 26);
		else if (g_ascii_islower(c) || !g_ascii_isprint(c) || c == ' ')
			c = (gchar)('a' + r % 26);
		g_string_append_c(out, c);
	}
	return g_string_free(out, FALSE);
}

static gboolean
esd_np_creds_value_matches(const EsdNpProvider *provider, const gchar *value);

/*
 * The placeholder of @value: its shape, a known prefix kept; a vendor's tag
 * only if the provider's patterns refuse the placeholder without it. One
 * they refuse all the same is used: the command may fail, the secret stays.
 */
static gchar *
esd_np_creds_placeholder(const EsdNpProvider *provider, const gchar *value)
{
	gchar *dummy = esd_np_creds_shape(value, esd_np_creds_keep(value, FALSE));

	if (esd_np_creds_value_matches(provider, dummy))
		return dummy;
	g_free(dummy);
	return esd_np_creds_shape(value, esd_np_creds_keep(value, TRUE));
}

static gboolean
esd_np_creds_value_matches(const EsdNpProvider *provider, const gchar *value)
{
	if (provider->patterns->len == 0)
		return TRUE;
	for (guint i = 0; i < provider->patterns->len; i++) {
		if (g_regex_match(provider->patterns->pdata[i], value, 0, NULL))
			return TRUE;
	}
	return FALSE;
}

static void
esd_np_secret_free(gpointer data)
{
	EsdNpSecret *secret = data;

	/* the real value does not linger in freed memory */
	memset(secret->real, 0, strlen(secret->real));
	g_free(secret->real);
	g_free(secret->dummy);
	g_ptr_array_unref(secret->dests);
	g_free(secret);
}

/* the destinations of @provider for this launch: its prefixes and its variable's */
static GPtrArray *
esd_np_creds_dests(EsdNpCreds *self, const EsdNpProvider *provider, const EsdNpCredsEnv *env)
{
	GPtrArray *dests = g_ptr_array_new();
	const gchar *named =
	    provider->dest_env != NULL ? env->get(env->data, provider->dest_env) : NULL;

	for (guint i = 0; i < provider->dests->len; i++)
		g_ptr_array_add(dests, provider->dests->pdata[i]);
	if (named != NULL && named[0] != '\0') {
		EsdNpDest *dest = esd_np_dest_parse(named);
		/* GH_HOST=github.com binds no enterprise token to the cloud */
		if (dest != NULL && provider->builtin_github &&
		    (g_str_equal(dest->host, "github.com") ||
		     g_str_equal(dest->host, "api.github.com") ||
		     g_str_has_suffix(dest->host, ".ghe.com"))) {
			esd_np_dest_free(dest);
			dest = NULL;
		}
		if (dest != NULL) {
			g_ptr_array_add(self->extra_dests, dest);
			g_ptr_array_add(dests, dest);
		} else {
			g_debug("credential provider %s: %s=%s names no destination",
				provider->id,
				provider->dest_env,
				named);
		}
	}
	return dests;
}

/**
 * esd_np_creds_new_full:
 * @providers: the request's providers (esd_np_creds_parse_providers()),
 *   which are moved out of the array
 * @env: the environment to mask
 *
 * Replaces each secret of @env by its placeholder.
 *
 * Returns: (transfer full): the secrets
 */
EsdNpCreds *
esd_np_creds_new_full(GPtrArray *providers, const EsdNpCredsEnv *env)
{
	EsdNpCreds *self = g_new0(EsdNpCreds, 1);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	self->providers = g_ptr_array_new_with_free_func(esd_np_provider_free);
	self->secrets = g_ptr_array_new_with_free_func(esd_np_secret_free);
	self->extra_dests = g_ptr_array_new_with_free_func(esd_np_dest_free);
	/* the configuration is not used again: its providers move here */
	if (providers != NULL) {
		for (guint i = 0; i < providers->len; i++)
			g_ptr_array_add(self->providers, g_steal_pointer(&providers->pdata[i]));
		g_ptr_array_set_size(providers, 0);
	}
	esd_np_creds_add_builtins(self->providers);
	for (guint p = 0; p < self->providers->len; p++) {
		const EsdNpProvider *provider = self->providers->pdata[p];

		for (guint i = 0; provider->env[i] != NULL; i++) {
			const gchar *name = provider->env[i];
			g_autofree gchar *value = g_strdup(env->get(env->data, name));
			EsdNpSecret *secret;
			GPtrArray *dests;

			/* a variable is masked once, by the first provider that takes it */
			if (g_hash_table_contains(seen, name) || value == NULL)
				continue;
			g_strstrip(value);
			if (value[0] == '\0' || !esd_np_creds_value_matches(provider, value))
				continue;
			dests = esd_np_creds_dests(self, provider, env);
			if (dests->len == 0) {
				g_ptr_array_unref(dests);
				continue;
			}
			g_hash_table_add(seen, (gpointer)name);
			secret = g_new0(EsdNpSecret, 1);
			secret->provider = provider;
			secret->name = name;
			secret->real = g_steal_pointer(&value);
			secret->dummy = esd_np_creds_placeholder(provider, secret->real);
			secret->dests = dests;
			env->set(env->data, name, secret->dummy);
			g_ptr_array_add(self->secrets, secret);
			g_debug("credential provider %s masks %s", provider->id, name);
		}
	}
	return self;
}

static const gchar *
esd_np_creds_launch_get(gpointer data, const gchar *name)
{
	return erpc_launch_getenv(data, name);
}

static void
esd_np_creds_launch_set(gpointer data, const gchar *name, const gchar *value)
{
	erpc_launch_setenv(data, name, value);
}

/**
 * esd_np_creds_new:
 * @providers: as for esd_np_creds_new_full()
 * @launch: the launch whose environment is masked
 *
 * Returns: (transfer full): the launch's secrets
 */
EsdNpCreds *
esd_np_creds_new(GPtrArray *providers, ErpcLaunch *launch)
{
	EsdNpCredsEnv env = {esd_np_creds_launch_get, esd_np_creds_launch_set, launch};

	return esd_np_creds_new_full(providers, &env);
}

/**
 * esd_np_creds_get_count:
 * @self: the secrets of a launch
 *
 * Returns: how many variables were masked
 */
guint
esd_np_creds_get_count(const EsdNpCreds *self)
{
	return self->secrets->len;
}

/**
 * esd_np_creds_get_placeholder:
 * @self: the secrets of a launch
 * @name: a variable
 *
 * Returns: (nullable): the placeholder that replaced @name, or %NULL if it
 *   was not masked
 */
const gchar *
esd_np_creds_get_placeholder(const EsdNpCreds *self, const gchar *name)
{
	for (guint s = 0; s < self->secrets->len; s++) {
		const EsdNpSecret *secret = self->secrets->pdata[s];
		if (g_str_equal(secret->name, name))
			return secret->dummy;
	}
	return NULL;
}

/**
 * esd_np_creds_intercepts:
 * @self: the secrets of a launch
 * @host: a tunnel's destination, as the policy normalised it
 * @port: its port
 *
 * Returns: whether a secret may go to @host over HTTPS, so that the
 *   tunnel's requests are read to put it in
 */
gboolean
esd_np_creds_intercepts(const EsdNpCreds *self, const gchar *host, guint16 port)
{
	for (guint s = 0; s < self->secrets->len; s++) {
		const EsdNpSecret *secret = self->secrets->pdata[s];
		for (guint d = 0; d < secret->dests->len; d++) {
			if (esd_np_dest_matches(secret->dests->pdata[d], TRUE, host, port, NULL))
				return TRUE;
		}
	}
	return FALSE;
}

/* @value with each @dummy replaced by @real; %NULL if it holds none */
static gchar *
esd_np_creds_replace(const gchar *value, const gchar *dummy, const gchar *real)
{
	g_autoptr(GString) out = NULL;
	const gchar *at = strstr(value, dummy);

	if (at == NULL)
		return NULL;
	out = g_string_new(value);
	g_string_replace(out, dummy, real, 0);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* a header value of the scheme @scheme (`Bearer`), from its credentials on */
static const gchar *
esd_np_creds_after_scheme(const gchar *value, const gchar *scheme)
{
	gsize len = strlen(scheme);

	if (g_ascii_strncasecmp(value, scheme, len) != 0 || value[len] != ' ')
		return NULL;
	return value + len + 1;
}

/* the new value of one header for @secret, or %NULL to leave it */
static gchar *
esd_np_creds_rewrite(const EsdNpSecret *secret, const gchar *name, const gchar *value)
{
	const EsdNpProvider *provider = secret->provider;
	static const struct {
		guint auth;
		const gchar *scheme;
	} schemes[] = {{ESD_NP_AUTH_BEARER, "Bearer"}, {ESD_NP_AUTH_TOKEN, "token"}};

	if (g_ascii_strcasecmp(name, "authorization") == 0) {
		const gchar *rest;

		for (guint i = 0; i < G_N_ELEMENTS(schemes); i++) {
			g_autofree gchar *replaced = NULL;

			if ((provider->auth & schemes[i].auth) == 0 ||
			    (rest = esd_np_creds_after_scheme(value, schemes[i].scheme)) == NULL)
				continue;
			replaced = esd_np_creds_replace(rest, secret->dummy, secret->real);
			if (replaced != NULL)
				return g_strdup_printf("%.*s%s",
						       (gint)(rest - value),
						       value,
						       replaced);
		}
		if ((provider->auth & ESD_NP_AUTH_BASIC) != 0 &&
		    (rest = esd_np_creds_after_scheme(value, "Basic")) != NULL) {
			gsize len = 0;
			g_autofree gchar *text = NULL;
			g_autofree guchar *raw = NULL;
			g_autofree gchar *replaced = NULL;
			g_autofree gchar *encoded = NULL;

			if (rest[0] == '\0')
				return NULL;
			raw = g_base64_decode(rest, &len);
			if (raw == NULL || memchr(raw, '\0', len) != NULL)
				return NULL;
			text = g_strndup((const gchar *)raw, len);
			/* the user or the password: never in the middle of either */
			if (strchr(text, ':') == NULL)
				return NULL;
			{
				g_auto(GStrv) halves = g_strsplit(text, ":", 2);
				gboolean user = g_str_equal(halves[0], secret->dummy);
				gboolean password = g_str_equal(halves[1], secret->dummy);

				if (!user && !password)
					return NULL;
				replaced = g_strdup_printf("%s:%s",
							   user ? secret->real : halves[0],
							   password ? secret->real : halves[1]);
			}
			encoded = g_base64_encode((const guchar *)replaced, strlen(replaced));
			memset(replaced, 0, strlen(replaced));
			return g_strdup_printf("%.*s%s", (gint)(rest - value), value, encoded);
		}
	}
	if ((provider->auth & ESD_NP_AUTH_HEADER) != 0 &&
	    g_ascii_strcasecmp(name, provider->header) == 0 &&
	    g_str_has_prefix(value, provider->prefix)) {
		gsize len = strlen(provider->prefix);
		g_autofree gchar *replaced =
		    esd_np_creds_replace(value + len, secret->dummy, secret->real);
		if (replaced != NULL)
			return g_strdup_printf("%s%s", provider->prefix, replaced);
	}
	return NULL;
}

/**
 * esd_np_creds_apply:
 * @self: the secrets of a launch
 * @https: whether the request came through a tunnel (else plain HTTP)
 * @host: the request's destination, as the policy normalised it
 * @port: its port
 * @path: its origin-form target
 * @headers: (element-type utf8): names and values, rewritten in place
 *
 * Puts each real secret bound to the destination where the request has its
 * placeholder, in the headers its provider names.
 *
 * Returns: how many headers were rewritten
 */
guint
esd_np_creds_apply(const EsdNpCreds *self,
		   gboolean https,
		   const gchar *host,
		   guint16 port,
		   const gchar *path,
		   GPtrArray *headers)
{
	guint count = 0;

	for (guint s = 0; s < self->secrets->len; s++) {
		const EsdNpSecret *secret = self->secrets->pdata[s];
		gboolean bound = FALSE;

		for (guint d = 0; d < secret->dests->len && !bound; d++)
			bound =
			    esd_np_dest_matches(secret->dests->pdata[d], https, host, port, path);
		if (!bound)
			continue;
		for (guint i = 0; i + 1 < headers->len; i += 2) {
			gchar *value =
			    esd_np_creds_rewrite(secret, headers->pdata[i], headers->pdata[i + 1]);
			if (value == NULL)
				continue;
			g_free(headers->pdata[i + 1]);
			headers->pdata[i + 1] = value;
			count++;
		}
	}
	return count;
}

void
esd_np_creds_free(EsdNpCreds *self)
{
	if (self == NULL)
		return;
	g_ptr_array_unref(self->secrets);
	g_ptr_array_unref(self->extra_dests);
	g_ptr_array_unref(self->providers);
	g_free(self);
}
