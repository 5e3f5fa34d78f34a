/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-np-creds.h"

/*
 * Credential masking's rules (plugins/network-proxy/esd-np-creds.c) without
 * a daemon: the placeholders a command gets, where a secret may go, and
 * which header values are rewritten, for what a hostile command may send.
 */

static const gchar *
env_get(gpointer data, const gchar *name)
{
	return g_hash_table_lookup(data, name);
}

static void
env_set(gpointer data, const gchar *name, const gchar *value)
{
	g_hash_table_replace(data, g_strdup(name), g_strdup(value));
}

typedef struct {
	GHashTable *env;
	EsdNpCreds *creds;
} Masked;

static void
masked_clear(Masked *m)
{
	g_clear_pointer(&m->creds, esd_np_creds_free);
	g_clear_pointer(&m->env, g_hash_table_unref);
}

/* @providers as JSON, @vars NAME=VALUE */
static void
masked_init(Masked *m, const gchar *providers, const gchar *const *vars)
{
	g_autoptr(JsonNode) node = json_from_string(providers, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) parsed = esd_np_creds_parse_providers(node, &error);
	EsdNpCredsEnv env = {env_get, env_set, NULL};

	g_assert_no_error(error);
	m->env = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; vars[i] != NULL; i++) {
		g_auto(GStrv) kv = g_strsplit(vars[i], "=", 2);
		g_hash_table_replace(m->env, g_strdup(kv[0]), g_strdup(kv[1]));
	}
	env.data = m->env;
	m->creds = esd_np_creds_new_full(parsed, &env);
}

/* the value @header gets on its way to the destination, or NULL if it is left */
static gchar *
rewrite(Masked *m,
	gboolean https,
	const gchar *host,
	guint16 port,
	const gchar *path,
	const gchar *name,
	const gchar *value)
{
	g_autoptr(GPtrArray) headers = g_ptr_array_new_with_free_func(g_free);
	guint n;

	g_ptr_array_add(headers, g_strdup(name));
	g_ptr_array_add(headers, g_strdup(value));
	n = esd_np_creds_apply(m->creds, https, host, port, path, headers);
	g_assert_cmpuint(n, <=, 1);
	return n == 1 ? g_strdup(headers->pdata[1]) : NULL;
}

static void
assert_rewrite(Masked *m,
	       gboolean https,
	       const gchar *host,
	       guint16 port,
	       const gchar *path,
	       const gchar *name,
	       const gchar *value,
	       const gchar *expected)
{
	g_autofree gchar *got = rewrite(m, https, host, port, path, name, value);
	g_assert_cmpstr(got, ==, expected);
}

#define VENDOR "vendor_abcdefghijklmnopqrstuvwx"
#define UUID   "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
#define GH     "ghp_0123456789abcdefghijABCDEFGHIJ012345"
#define OPENAI "sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUvWxYz0123456789ab"

static void
test_placeholders(void)
{
	const gchar *vars[] = {"VENDOR=" VENDOR,
			       "UUID=" UUID,
			       "GH_TOKEN=" GH,
			       "OPENAI_API_KEY=" OPENAI,
			       "SHORT=ab",
			       "EMPTY=",
			       "SPACES=   ",
			       NULL};
	Masked m = {0};
	const gchar *p;

	masked_init(&m,
		    "{\"v\":{\"env\":[\"VENDOR\"],\"patterns\":[\"^vendor_[a-z]{24}$\"],"
		    "\"url_prefixes\":[\"a.test\"]},"
		    "\"u\":{\"env\":[\"UUID\",\"SHORT\",\"EMPTY\",\"SPACES\"],"
		    "\"url_prefixes\":[\"b.test\"]}}",
		    vars);
	/* the tag, because the pattern wants it */
	p = esd_np_creds_get_placeholder(m.creds, "VENDOR");
	g_assert_true(g_regex_match_simple("^vendor_[a-z]{24}$", p, 0, 0));
	g_assert_cmpstr(p, !=, VENDOR);
	g_assert_cmpstr(g_hash_table_lookup(m.env, "VENDOR"), ==, p);
	/* nothing of a secret without a known prefix */
	p = esd_np_creds_get_placeholder(m.creds, "UUID");
	g_assert_true(g_regex_match_simple("^[0-9a-z]{8}(-[0-9a-z]{4}){3}-[0-9a-z]{12}$", p, 0, 0));
	g_assert_false(g_str_has_prefix(p, "1b4e"));
	/* a short secret gets at least 16 random characters */
	p = esd_np_creds_get_placeholder(m.creds, "SHORT");
	g_assert_cmpuint(strlen(p), ==, 16);
	/* nothing to mask */
	g_assert_null(esd_np_creds_get_placeholder(m.creds, "EMPTY"));
	g_assert_null(esd_np_creds_get_placeholder(m.creds, "SPACES"));
	/* the built-in ones keep their vendor's prefix */
	p = esd_np_creds_get_placeholder(m.creds, "GH_TOKEN");
	g_assert_true(g_str_has_prefix(p, "ghp_"));
	g_assert_cmpuint(strlen(p), ==, strlen(GH));
	g_assert_cmpstr(p, !=, GH);
	p = esd_np_creds_get_placeholder(m.creds, "OPENAI_API_KEY");
	g_assert_true(g_str_has_prefix(p, "sk-proj-"));
	g_assert_false(g_str_has_prefix(p, "sk-proj-AbCd"));
	g_assert_cmpuint(esd_np_creds_get_count(m.creds), ==, 5);
	masked_clear(&m);
}

static void
test_destinations(void)
{
	const gchar *vars[] = {"T=" VENDOR, "HOST_OF_T=https://c.test:8443/x/", NULL};
	Masked m = {0};
	g_autofree gchar *bearer = NULL;
	const gchar *dummy;

	masked_init(&m,
		    "{\"t\":{\"env\":[\"T\"],\"url_prefixes\":[\"https://a.test/v1\","
		    "\"http://127.0.0.1:8080\",\"localhost\",\"https://*.b.test\"],"
		    "\"url_prefix_from_env\":\"HOST_OF_T\"}}",
		    vars);
	dummy = esd_np_creds_get_placeholder(m.creds, "T");
	bearer = g_strdup_printf("Bearer %s", dummy);
	/* scheme, host, port and path prefix */
	assert_rewrite(&m, TRUE, "a.test", 443, "/v1", "Authorization", bearer, "Bearer " VENDOR);
	assert_rewrite(&m,
		       TRUE,
		       "a.test",
		       443,
		       "/v1/x?y",
		       "Authorization",
		       bearer,
		       "Bearer " VENDOR);
	assert_rewrite(&m, TRUE, "a.test", 443, "/v1?y", "Authorization", bearer, "Bearer " VENDOR);
	assert_rewrite(&m, TRUE, "a.test", 443, "/v10", "Authorization", bearer, NULL);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", bearer, NULL);
	assert_rewrite(&m, TRUE, "a.test", 444, "/v1", "Authorization", bearer, NULL);
	assert_rewrite(&m, FALSE, "a.test", 443, "/v1", "Authorization", bearer, NULL);
	assert_rewrite(&m, TRUE, "xa.test", 443, "/v1", "Authorization", bearer, NULL);
	/* plain HTTP where it says so; a bare loopback host means HTTP */
	assert_rewrite(&m,
		       FALSE,
		       "127.0.0.1",
		       8080,
		       "/",
		       "Authorization",
		       bearer,
		       "Bearer " VENDOR);
	assert_rewrite(&m, FALSE, "localhost", 80, "/", "Authorization", bearer, "Bearer " VENDOR);
	assert_rewrite(&m, TRUE, "localhost", 443, "/", "Authorization", bearer, NULL);
	/* subdomains, not the domain */
	assert_rewrite(&m, TRUE, "x.b.test", 443, "/", "Authorization", bearer, "Bearer " VENDOR);
	assert_rewrite(&m, TRUE, "b.test", 443, "/", "Authorization", bearer, NULL);
	assert_rewrite(&m, TRUE, "xb.test", 443, "/", "Authorization", bearer, NULL);
	/* the variable's */
	assert_rewrite(&m, TRUE, "c.test", 8443, "/x/y", "Authorization", bearer, "Bearer " VENDOR);
	assert_rewrite(&m, TRUE, "c.test", 443, "/x/y", "Authorization", bearer, NULL);
	/* tunnels read for a secret: HTTPS destinations only */
	g_assert_true(esd_np_creds_intercepts(m.creds, "a.test", 443));
	g_assert_true(esd_np_creds_intercepts(m.creds, "y.b.test", 443));
	g_assert_true(esd_np_creds_intercepts(m.creds, "c.test", 8443));
	g_assert_false(esd_np_creds_intercepts(m.creds, "127.0.0.1", 8080));
	g_assert_false(esd_np_creds_intercepts(m.creds, "d.test", 443));
	masked_clear(&m);
}

static void
test_headers(void)
{
	const gchar *vars[] = {"T=" VENDOR, "H=" UUID, NULL};
	Masked m = {0};
	const gchar *t;
	const gchar *h;
	g_autofree gchar *bearer = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *basic_user = NULL;
	g_autofree gchar *basic_password = NULL;
	g_autofree gchar *basic_inside = NULL;
	g_autofree gchar *real_password = g_base64_encode((const guchar *)"git:" VENDOR, 35);
	g_autofree gchar *real_user = g_base64_encode((const guchar *)VENDOR ":x", 33);
	g_autofree gchar *expected = NULL;
	g_autofree gchar *key = NULL;
	g_autofree gchar *twice = NULL;

	masked_init(&m,
		    "{\"t\":{\"env\":[\"T\"],\"url_prefixes\":[\"a.test\"],"
		    "\"auth\":[\"bearer\",\"token\",\"basic\"]},"
		    "\"h\":{\"env\":[\"H\"],\"url_prefixes\":[\"a.test\"],\"auth\":[\"header\"],"
		    "\"header\":\"X-Key\",\"prefix\":\"key=\"}}",
		    vars);
	t = esd_np_creds_get_placeholder(m.creds, "T");
	h = esd_np_creds_get_placeholder(m.creds, "H");
	bearer = g_strdup_printf("bearer %s", t);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "authorization", bearer, "bearer " VENDOR);
	token = g_strdup_printf("token %s", t);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", token, "token " VENDOR);
	/* Basic: a whole user or password, never a part of one */
	{
		g_autofree gchar *pair = g_strdup_printf("git:%s", t);
		g_autofree gchar *b64 = g_base64_encode((const guchar *)pair, strlen(pair));
		basic_password = g_strdup_printf("Basic %s", b64);
	}
	{
		g_autofree gchar *pair = g_strdup_printf("%s:x", t);
		g_autofree gchar *b64 = g_base64_encode((const guchar *)pair, strlen(pair));
		basic_user = g_strdup_printf("Basic %s", b64);
	}
	{
		g_autofree gchar *pair = g_strdup_printf("git:a%sb", t);
		g_autofree gchar *b64 = g_base64_encode((const guchar *)pair, strlen(pair));
		basic_inside = g_strdup_printf("Basic %s", b64);
	}
	expected = g_strdup_printf("Basic %s", real_password);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", basic_password, expected);
	g_free(expected);
	expected = g_strdup_printf("Basic %s", real_user);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", basic_user, expected);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", basic_inside, NULL);
	/* what does not decode, or holds a NUL, is left */
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", "Basic !!!", NULL);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", "Basic ", NULL);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", "Basic AAAA", NULL);
	/* another scheme, another header */
	{
		g_autofree gchar *digest = g_strdup_printf("Digest %s", t);
		g_autofree gchar *other = g_strdup_printf("%s", t);
		assert_rewrite(&m, TRUE, "a.test", 443, "/", "Authorization", digest, NULL);
		assert_rewrite(&m, TRUE, "a.test", 443, "/", "X-Other", other, NULL);
		assert_rewrite(&m, TRUE, "a.test", 443, "/", "X-Key", other, NULL);
	}
	/* the header auth: after its prefix; every placeholder in it */
	key = g_strdup_printf("key=%s", h);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "x-key", key, "key=" UUID);
	twice = g_strdup_printf("key=%s,%s", h, h);
	assert_rewrite(&m, TRUE, "a.test", 443, "/", "X-Key", twice, "key=" UUID "," UUID);
	/* the bearer provider's placeholder in the header provider's header is left */
	{
		g_autofree gchar *other = g_strdup_printf("key=%s", t);
		assert_rewrite(&m, TRUE, "a.test", 443, "/", "X-Key", other, NULL);
	}
	masked_clear(&m);
}

/* GH_HOST names the enterprise tokens' destination, never GitHub's cloud */
static void
test_github_enterprise(void)
{
	const gchar *cloud[] = {"GH_ENTERPRISE_TOKEN=" GH, "GH_HOST=github.com", NULL};
	const gchar *own[] = {"GH_ENTERPRISE_TOKEN=" GH, "GH_HOST=ghe.example.test", NULL};
	const gchar *none[] = {"GH_ENTERPRISE_TOKEN=" GH, NULL};
	Masked m = {0};

	masked_init(&m, "{}", cloud);
	g_assert_null(esd_np_creds_get_placeholder(m.creds, "GH_ENTERPRISE_TOKEN"));
	g_assert_cmpstr(g_hash_table_lookup(m.env, "GH_ENTERPRISE_TOKEN"), ==, GH);
	masked_clear(&m);
	masked_init(&m, "{}", none);
	g_assert_null(esd_np_creds_get_placeholder(m.creds, "GH_ENTERPRISE_TOKEN"));
	masked_clear(&m);
	masked_init(&m, "null", own);
	g_assert_nonnull(esd_np_creds_get_placeholder(m.creds, "GH_ENTERPRISE_TOKEN"));
	g_assert_true(esd_np_creds_intercepts(m.creds, "ghe.example.test", 443));
	g_assert_false(esd_np_creds_intercepts(m.creds, "api.github.com", 443));
	masked_clear(&m);
}

static void
test_invalid(void)
{
	const struct {
		const gchar *json;
		const gchar *message;
	} cases[] = {
	    {"[]", "invalid type: sequence, expected a map"},
	    {"{\"v\":{\"env\":[1]}}", "invalid type: number, expected a string"},
	    {"{\"v\":{\"env\":[\"A=B\"]}}",
	     "invalid network proxy config: credential provider `v`: invalid variable name `A=B`"},
	    {"{\"v\":{\"url_prefixes\":[\"https://u:p@a.test\"]}}",
	     "invalid network proxy config: credential provider `v`: invalid URL prefix "
	     "`https://u:p@a.test`"},
	    {"{\"v\":{\"url_prefixes\":[\"https://a.test/?q\"]}}",
	     "invalid network proxy config: credential provider `v`: invalid URL prefix "
	     "`https://a.test/?q`"},
	    {"{\"v\":{\"url_prefixes\":[\"https://*\"]}}",
	     "invalid network proxy config: credential provider `v`: invalid URL prefix "
	     "`https://*`"},
	    {"{\"v\":{\"prefix\":\"a\\r\\nb\"}}",
	     "invalid network proxy config: credential provider `v`: invalid prefix"},
	    {"{\"v\":{\"url_prefix_from_env\":\"\"}}",
	     "invalid network proxy config: credential provider `v`: invalid variable name ``"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(JsonNode) node = json_from_string(cases[i].json, NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) parsed = esd_np_creds_parse_providers(node, &error);

		g_assert_null(parsed);
		g_assert_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
		g_assert_cmpstr(error->message, ==, cases[i].message);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/execserverd/network-proxy/creds/placeholders", test_placeholders);
	g_test_add_func("/execserverd/network-proxy/creds/destinations", test_destinations);
	g_test_add_func("/execserverd/network-proxy/creds/headers", test_headers);
	g_test_add_func("/execserverd/network-proxy/creds/github-enterprise",
			test_github_enterprise);
	g_test_add_func("/execserverd/network-proxy/creds/invalid", test_invalid);
	return g_test_run();
}
