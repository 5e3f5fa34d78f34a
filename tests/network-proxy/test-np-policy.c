/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <string.h>

#include "esd-np-config.h"
#include "esd-np-http1.h"
#include "esd-np-policy.h"
#include "esd-np-request.h"

/*
 * The network proxy's pure parts: host normalization, Codex's domain
 * patterns, the local/private address ranges, the networkProxy checks and
 * the request head parser.
 */

static void
test_normalize(void)
{
	const struct {
		const gchar *in;
		const gchar *out;
	} cases[] = {
	    {"Example.COM", "example.com"},
	    {"example.com.", "example.com"},
	    {"[::1]", "::1"},
	    {"", NULL},
	    {".", NULL},
	    {"a b", NULL},
	    {"a/b", NULL},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *out = esd_np_policy_normalize_host(cases[i].in);
		g_assert_cmpstr(out, ==, cases[i].out);
	}
}

/* a pattern compiled as the allow list does, matched against a normalized host */
static gboolean
pattern_matches(const gchar *pattern, const gchar *host)
{
	g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *why = esd_np_policy_pattern_compile(pattern, NULL, globs, NULL);

	g_assert_null(why);
	for (guint i = 0; i < globs->len; i++) {
		if (esd_np_policy_glob_matches(g_ptr_array_index(globs, i), host))
			return TRUE;
	}
	return FALSE;
}

/* the matches of Codex's patterns, each checked against the live reference */
static void
test_patterns(void)
{
	const struct {
		const gchar *pattern;
		const gchar *host;
		gboolean match;
	} cases[] = {
	    {"*", "anything.test", TRUE},
	    {"[*]", "anything.test", TRUE},
	    {"example.com", "example.com", TRUE},
	    {"example.com", "www.example.com", FALSE},
	    {"*.example.com", "www.example.com", TRUE},
	    {"*.example.com", "a.b.example.com", TRUE},
	    {"*.example.com", "example.com", FALSE},
	    {"*.example.com", "badexample.com", FALSE},
	    {"**.example.com", "example.com", TRUE},
	    {"**.example.com", "www.example.com", TRUE},
	    {"**.example.com", "wwwexample.com", FALSE},
	    /* globs anywhere: `?` one character, `*` any run, dots included */
	    {"ap?.x.test", "api.x.test", TRUE},
	    {"ap?.x.test", "ap.x.test", FALSE},
	    {"ap?.x.test", "apii.x.test", FALSE},
	    {"a*b.test", "axxb.test", TRUE},
	    {"a*b.test", "ab.test", TRUE},
	    {"a*b.test", "a.c.b.test", TRUE},
	    {"a*b.test", "axxc.test", FALSE},
	    {"*x.test", "ax.test", TRUE},
	    {"*.*.test", "a.b.test", TRUE},
	    {"*.*.test", "a.test", FALSE},
	    {"a.*.test", "a.b.c.test", TRUE},
	    /* normalized: trimmed, lowercase, no trailing dot, no port, no brackets */
	    {" X.Test. ", "x.test", TRUE},
	    {"x.test:80", "x.test", TRUE},
	    {"[::1]:80", "::1", TRUE},
	    {"[::1]..", "::1", TRUE},
	    {"::1", "::1", TRUE},
	    {"fe80::1%25eth0", "fe80::1%eth0", TRUE},
	    {"*.Example.COM.", "www.example.com", TRUE},
	    /* the retry of a star is bounded: this fails without backtracking blowing up */
	    {"*a*a*a*a*a*a*a*a*a*a*b",
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	     FALSE},
	};
	const struct {
		const gchar *pattern;
		const gchar *reject_global;
		const gchar *why;
	} refused[] = {
	    {"", NULL, "domain pattern is empty"},
	    {".", NULL, "domain pattern is empty"},
	    {":80", NULL, "domain pattern is empty"},
	    {"*.", NULL, "domain pattern is empty"},
	    {"**.", NULL, "domain pattern is empty"},
	    {"a b", NULL, "unsupported domain pattern syntax: a b"},
	    {"a\tb", NULL, "unsupported domain pattern syntax: a\tb"},
	    {"a\xc2\xa0"
	     "b",
	     NULL,
	     "unsupported domain pattern syntax: a\xc2\xa0"
	     "b"},
	    {"http://a.com", NULL, "unsupported domain pattern syntax: http://a.com"},
	    {"1.2.3.4/24", NULL, "unsupported domain pattern syntax: 1.2.3.4/24"},
	    {"a\\b", NULL, "unsupported domain pattern syntax: a\\b"},
	    {"a{b}", NULL, "unsupported domain pattern syntax: a{b}"},
	    {"***.a", NULL, "unsupported repeated wildcard: ***.a"},
	    {"a**", NULL, "unsupported repeated wildcard: a**"},
	    {"*.**", NULL, "unsupported repeated wildcard: *.**"},
	    {"**.a**b", NULL, "unsupported repeated wildcard: **.a**b"},
	    {"a[b", NULL, "brackets are only supported for IPv6 literals or [*]: a[b"},
	    {"a]b", NULL, "brackets are only supported for IPv6 literals or [*]: a]b"},
	    {"[::1]x", NULL, "brackets are only supported for IPv6 literals or [*]: [::1]x"},
	    {"[1.2.3.4]", NULL, "brackets are only supported for IPv6 literals or [*]: [1.2.3.4]"},
	    {"*",
	     "network.denied_domains",
	     "invalid value for network.denied_domains: * (allowed exact hosts or scoped "
	     "wildcards like *.example.com or **.example.com)"},
	    {" * ",
	     "network.denied_domains",
	     "invalid value for network.denied_domains: * (allowed exact hosts or scoped "
	     "wildcards like *.example.com or **.example.com)"},
	    {"[*]",
	     "network.denied_domains",
	     "invalid value for network.denied_domains: [*] (allowed exact hosts or scoped "
	     "wildcards like *.example.com or **.example.com)"},
	    {"**.*",
	     "network.denied_domains",
	     "invalid value for network.denied_domains: **.* (allowed exact hosts or scoped "
	     "wildcards like *.example.com or **.example.com)"},
	};
	/* what the reference takes, odd as some of it is */
	const gchar *accepted[] = {"a_b",
				   "a@b",
				   "a:b:c",
				   "-a.com",
				   "a..b",
				   "\xc3\xa9.com",
				   "a?b",
				   "a%b",
				   "a,b",
				   " a.com",
				   "a!b",
				   "a:",
				   "*.*",
				   "[fe80::1%eth0]"};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s ~ %s", cases[i].pattern, cases[i].host);
		g_assert_cmpint(pattern_matches(cases[i].pattern, cases[i].host),
				==,
				cases[i].match);
	}
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func(g_free);
		g_autofree gchar *why = esd_np_policy_pattern_compile(refused[i].pattern,
								      refused[i].reject_global,
								      globs,
								      NULL);
		g_test_message("%s", refused[i].pattern);
		g_assert_cmpstr(why, ==, refused[i].why);
		g_assert_cmpuint(globs->len, ==, 0);
	}
	for (guint i = 0; i < G_N_ELEMENTS(accepted); i++) {
		g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func(g_free);
		g_autofree gchar *why =
		    esd_np_policy_pattern_compile(accepted[i], NULL, globs, NULL);
		g_test_message("%s", accepted[i]);
		g_assert_null(why);
		g_assert_cmpuint(globs->len, >, 0);
	}
	/* the deny list takes a scoped wildcard, and the allow list the global one */
	g_assert_true(pattern_matches("*", "x.test"));
	{
		g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func(g_free);
		g_autofree gchar *why =
		    esd_np_policy_pattern_compile("*.*", "network.denied_domains", globs, NULL);
		g_assert_null(why);
	}
	/* only a pattern without a wildcard names a host, normalized */
	{
		const gchar *named[][2] = {{" LocalHost. ", "localhost"},
					   {"[::1]:80", "::1"},
					   {"**.localhost", NULL},
					   {"localhos?", NULL},
					   {"*", NULL}};
		for (guint i = 0; i < G_N_ELEMENTS(named); i++) {
			g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func(g_free);
			g_autoptr(GPtrArray) exact = g_ptr_array_new_with_free_func(g_free);
			g_autofree gchar *why =
			    esd_np_policy_pattern_compile(named[i][0], NULL, globs, exact);
			g_assert_null(why);
			g_assert_cmpuint(exact->len, ==, named[i][1] != NULL ? 1 : 0);
			if (named[i][1] != NULL)
				g_assert_cmpstr(g_ptr_array_index(exact, 0), ==, named[i][1]);
		}
	}
}

static void
test_addresses(void)
{
	const gchar *local[] = {"127.0.0.1",
				"127.8.9.1",
				"10.1.2.3",
				"172.16.0.1",
				"172.31.255.1",
				"192.168.1.1",
				"169.254.169.254",
				"100.64.0.1",
				"0.0.0.0",
				"192.0.2.1",
				"198.51.100.7",
				"203.0.113.9",
				"224.0.0.1",
				"255.255.255.255",
				"::1",
				"::",
				"fc00::1",
				"fd12::1",
				"fe80::1",
				"ff02::1",
				"::ffff:127.0.0.1",
				"::ffff:10.0.0.1",
				"2001:db8::1",
				NULL};
	const gchar *public[] = {"1.1.1.1",
				 "8.8.8.8",
				 "172.32.0.1",
				 "192.169.0.1",
				 "100.128.0.1",
				 "2606:4700::1111",
				 "::ffff:8.8.8.8",
				 NULL};

	for (guint i = 0; local[i] != NULL; i++) {
		g_autoptr(GInetAddress) address = g_inet_address_new_from_string(local[i]);
		g_test_message("%s", local[i]);
		g_assert_nonnull(address);
		g_assert_false(esd_np_policy_address_is_public(address));
		g_assert_true(esd_np_policy_host_is_local_literal(local[i]));
	}
	for (guint i = 0; public[i] != NULL; i++) {
		g_autoptr(GInetAddress) address = g_inet_address_new_from_string(public[i]);
		g_test_message("%s", public[i]);
		g_assert_true(esd_np_policy_address_is_public(address));
		g_assert_false(esd_np_policy_host_is_local_literal(public[i]));
	}
	g_assert_true(esd_np_policy_host_is_local_literal("localhost"));
	g_assert_true(esd_np_policy_host_is_local_literal("a.localhost"));
	g_assert_false(esd_np_policy_host_is_local_literal("example.com"));
}

static EsdNpConfig *
parse(const gchar *json, GError **error)
{
	g_autoptr(JsonNode) node = json_from_string(json, NULL);
	return esd_np_config_parse(node, FALSE, error);
}

#define PROXY                                                                                      \
	"\"enabled\":true,\"enableSocks5\":false,\"enableSocks5Udp\":false,"                       \
	"\"allowUpstreamProxy\":false,\"dangerouslyAllowAllUnixSockets\":false,"                   \
	"\"allowLocalBinding\":false"

static void
test_config(void)
{
	const struct {
		const gchar *json;
		const gchar *message;
	} bad[] = {
	    {"{}", "missing field `proxy`"},
	    {"{\"proxy\":{}}", "missing field `enabled`"},
	    {"{\"proxy\":{" PROXY "}}", "missing field `mode`"},
	    {"{\"proxy\":{" PROXY ",\"mode\":\"x\"}}",
	     "unknown variant `x`, expected `limited` or `full`"},
	    {"{\"proxy\":{" PROXY ",\"mode\":\"full\"},\"policyDecisionTimeoutMs\":0}",
	     "network policy decision callback timeout must be nonzero"},
	    {"{\"proxy\":{" PROXY ",\"mode\":\"full\",\"domains\":[]}}",
	     "invalid type: sequence, expected a map"},
	    {"{\"proxy\":{" PROXY ",\"mode\":\"full\",\"domains\":{\"a\":\"maybe\"}}}",
	     "unknown variant `maybe`, expected one of `none`, `allow`, `deny`"},
	    {"{\"proxy\":{" PROXY ",\"mode\":\"full\",\"domains\":{\" \":\"allow\"}}}",
	     "invalid network proxy config: domain pattern is empty"},
	    {"{\"proxy\":{" PROXY ",\"mode\":\"full\",\"transparentTcp\":true}}",
	     "transparent TCP requires a managed Linux sandbox"},
	    {"{\"proxy\":{\"enabled\":false,\"enableSocks5\":false,\"enableSocks5Udp\":false,"
	     "\"allowUpstreamProxy\":false,\"dangerouslyAllowAllUnixSockets\":false,"
	     "\"allowLocalBinding\":false,\"mode\":\"full\"}}",
	     "invalid network proxy config: executor-local network proxy launch requires an "
	     "enabled "
	     "proxy"},
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdNpConfig) config = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) e = NULL;
		g_autoptr(EsdNpConfig) c = parse(bad[i].json, &e);
		g_test_message("%s", bad[i].json);
		g_assert_null(c);
		g_assert_error(e, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS);
		g_assert_cmpstr(e->message, ==, bad[i].message);
	}
	config = parse("{\"proxy\":{" PROXY ",\"mode\":\"limited\",\"domains\":{\"*.A.test.\":"
		       "\"allow\",\"b.a.test\":\"deny\",\"c.test\":\"none\"}},"
		       "\"policyDecisionTimeoutMs\":1500}",
		       &error);
	g_assert_no_error(error);
	g_assert_true(config->limited);
	g_assert_cmpuint(config->decision_timeout_ms, ==, 1500);
	g_assert_cmpint(esd_np_config_match(config, "x.a.test"), ==, ESD_NP_RULE_ALLOW);
	/* deny wins */
	g_assert_cmpint(esd_np_config_match(config, "b.a.test"), ==, ESD_NP_RULE_DENY);
	g_assert_cmpint(esd_np_config_match(config, "a.test"), ==, ESD_NP_RULE_NONE);
	g_assert_cmpint(esd_np_config_match(config, "c.test"), ==, ESD_NP_RULE_NONE);
}

static EsdNpRequest *
request(const gchar *head)
{
	return esd_np_request_parse(head, strlen(head));
}

static void
test_request(void)
{
	const gchar *bad[] = {
	    "GET /x HTTP/1.1\r\nHost: a\r\n\r\n", /* origin form: not a proxy request */
	    "GET https://a/ HTTP/1.1\r\n\r\n",	  /* only http:// is forwarded */
	    "CONNECT a HTTP/1.1\r\n\r\n",	  /* CONNECT needs a port */
	    "CONNECT a:0 HTTP/1.1\r\n\r\n",
	    "CONNECT a:65536 HTTP/1.1\r\n\r\n",
	    "GET http://a/ HTTP/2\r\n\r\n",
	    "GET http://a/ HTTP/1.1\r\nno colon\r\n\r\n",
	    "GET http://a/ HTTP/1.1\r\nBad Name: x\r\n\r\n",
	    "G(T http://a/ HTTP/1.1\r\n\r\n",
	    "GET  http://a/ HTTP/1.1\r\n\r\n",
	    "GET http://a/\nX HTTP/1.1\r\n\r\n", /* a line break smuggled into the path */
	    "GET http://a/\x01 HTTP/1.1\r\n\r\n",
	    "GET http://a/ HTTP/1.1\r\nX: a\rb\r\n\r\n",
	};
	g_autoptr(EsdNpRequest) get = NULL;
	g_autoptr(EsdNpRequest) connect = NULL;
	g_autoptr(EsdNpRequest) v6 = NULL;
	g_autofree gchar *head = NULL;
	const gchar *text;

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(EsdNpRequest) r = request(bad[i]);
		g_test_message("%s", bad[i]);
		g_assert_null(r);
	}
	g_assert_cmpint(esd_np_request_find_end("GET ", 4), ==, -1);
	text = "GET http://user@Example.com:8080/p?q=1#frag HTTP/1.1\r\nHost: example.com:8080\r\n"
	       "Proxy-Connection: keep-alive\r\nProxy-Authorization: x\r\nConnection: keep-alive, "
	       "X-Hop\r\nX-Hop: 1\r\nKeep-Alive: 5\r\nAccept: */*\r\n\r\nBODY";
	g_assert_cmpint(esd_np_request_find_end(text, strlen(text)), ==, strlen(text) - 4);
	get = esd_np_request_parse(text, strlen(text) - 4);
	g_assert_nonnull(get);
	g_assert_false(get->connect);
	g_assert_cmpstr(get->host, ==, "Example.com");
	g_assert_cmpuint(get->port, ==, 8080);
	g_assert_cmpstr(get->path, ==, "/p?q=1");
	g_assert_true(esd_np_request_host_matches(get));
	head = esd_np_request_forward_head(get, FALSE);
	g_assert_cmpstr(head,
			==,
			"GET /p?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\n"
			"Connection: close\r\n\r\n");
	g_clear_pointer(&head, g_free);

	{
		/* a Host other than the target's would route elsewhere at a virtual host */
		const gchar *hosts[] = {"evil.test",
					"example.com",
					"example.com:80",
					"example.com:x"};
		for (guint i = 0; i < G_N_ELEMENTS(hosts); i++) {
			g_autofree gchar *h = g_strdup_printf(
			    "GET http://example.com:8080/ HTTP/1.1\r\nHost: %s\r\n\r\n",
			    hosts[i]);
			g_autoptr(EsdNpRequest) r = request(h);
			g_assert_nonnull(r);
			g_assert_false(esd_np_request_host_matches(r));
		}
	}

	{
		/* x-unix-socket: any target, to be refused; its first value checked */
		static const struct {
			const gchar *head;
			gboolean invalid;
		} unix_sockets[] = {
		    {"GET /x HTTP/1.1\r\nx-unix-socket: /run/a.sock\r\n\r\n", FALSE},
		    {"GET ftp://a/ HTTP/1.1\r\nX-Unix-Socket:\r\n\r\n", FALSE},
		    {"GET http://a/ HTTP/1.1\r\nx-unix-socket: /\xc3\xa9\r\nx-unix-socket: "
		     "/b\r\n\r\n",
		     TRUE},
		    {"GET http://a/ HTTP/1.1\r\nx-unix-socket: /b\r\nx-unix-socket: /\x7f\r\n\r\n",
		     FALSE},
		    {"GET http://a/ HTTP/1.1\r\nx-unix-socket: a\tb\r\n\r\n", FALSE},
		};
		g_autoptr(EsdNpRequest) tunnel = NULL;
		g_autoptr(EsdNpRequest) plain = NULL;

		for (guint i = 0; i < G_N_ELEMENTS(unix_sockets); i++) {
			g_autoptr(EsdNpRequest) r = request(unix_sockets[i].head);
			g_assert_nonnull(r);
			g_assert_true(r->unix_socket);
			g_assert_cmpint(r->unix_socket_invalid, ==, unix_sockets[i].invalid);
			g_assert_cmpstr(r->host, ==, "unix-socket");
			g_assert_cmpuint(r->port, ==, 0);
		}
		/* still a line break may not be smuggled, and CONNECT and tunnels ignore it */
		g_assert_null(request("GET /x HTTP/1.1\r\nx-unix-socket: a\rb\r\n\r\n"));
		plain = request("CONNECT a:443 HTTP/1.1\r\nx-unix-socket: /a\r\n\r\n");
		g_assert_nonnull(plain);
		g_assert_false(plain->unix_socket);
		text = "GET /x HTTP/1.1\r\nHost: a.test\r\nx-unix-socket: /a\r\n\r\n";
		tunnel = esd_np_request_parse_origin(text, strlen(text), "a.test", 443);
		g_assert_nonnull(tunnel);
		g_assert_false(tunnel->unix_socket);
	}

	connect = request("CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n");
	g_assert_nonnull(connect);
	g_assert_true(connect->connect);
	g_assert_cmpstr(connect->host, ==, "[::1]");
	g_assert_cmpuint(connect->port, ==, 443);

	/* no Host: one is added; an upgrade keeps its headers */
	v6 = request(
	    "GET http://a.test HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
	g_assert_nonnull(v6);
	g_assert_cmpstr(v6->path, ==, "/");
	head = esd_np_request_forward_head(v6, FALSE);
	g_assert_cmpstr(head,
			==,
			"GET / HTTP/1.1\r\nUpgrade: websocket\r\nHost: a.test\r\n"
			"Connection: upgrade\r\n\r\n");
}

/* a response as the forward proxy passes it on: its hop-by-hop headers out, closing */
static void
test_close_head(void)
{
	const gchar *head =
	    "HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\n"
	    "Content-Length: 2\r\nproxy-connection: x\r\nx-hop: 1\r\nConnectionX: kept\r\n\r\n";
	g_autofree gchar *closing = esd_np_response_close_head(head, strlen(head));

	g_assert_cmpstr(closing,
			==,
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnectionX: kept\r\n"
			"Connection: close\r\n\r\n");
}

/* the RFC 1928 header of a datagram to the SOCKS5 UDP relay */
static void
test_udp_header(void)
{
	static const struct {
		const gchar *data;
		gsize len;
		const gchar *host; /* NULL: refused */
		guint16 port;
		gsize offset;
	} cases[] = {
	    {"\0\0\0\1\x7f\0\0\1\x01\xbbhi", 12, "127.0.0.1", 443, 10},
	    {"\xff\xff\0\1\x7f\0\0\1\0\x35", 10, "127.0.0.1", 53, 10}, /* RSV ignored */
	    {"\0\0\0\3\x07"
	     "example\0\x35q",
	     15,
	     "example",
	     53,
	     14},
	    {"\0\0\0\4\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1\0\x35", 22, "::1", 53, 22},
	    {"\0\0\1\1\x7f\0\0\1\0\x35", 10, NULL, 0, 0}, /* a fragment */
	    {"\0\0\0\1\x7f\0\0\1\0", 9, NULL, 0, 0},	  /* short */
	    {"\0\0\0\3\0\0\x35", 7, NULL, 0, 0},	  /* an empty name */
	    {"\0\0\0\3\x03"
	     "a\0b\0\x35",
	     10,
	     NULL,
	     0,
	     0},					 /* a NUL in the name */
	    {"\0\0\0\3\x09short\0\x35", 12, NULL, 0, 0}, /* the name runs out */
	    {"\0\0\0\4\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1\0", 21, NULL, 0, 0},
	    {"\0\0\0\5\x7f\0\0\1\0\x35", 10, NULL, 0, 0}, /* no such address type */
	    {"\0\0\0", 3, NULL, 0, 0},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		guint16 port = 0;
		gsize offset = 0;
		g_autofree gchar *host = esd_np_request_parse_udp((const guint8 *)cases[i].data,
								  cases[i].len,
								  &port,
								  &offset);

		g_assert_cmpstr(host, ==, cases[i].host);
		if (host == NULL)
			continue;
		g_assert_cmpuint(port, ==, cases[i].port);
		g_assert_cmpuint(offset, ==, cases[i].offset);
	}
}

/* the address of a SOCKS5 request, shared by CONNECT and the datagram headers */
static void
test_socks_host(void)
{
	const struct {
		guint8 atyp;
		const gchar *address;
		gsize len;
		const gchar *host; /* NULL: refused */
	} cases[] = {
	    {1, "\x7f\0\0\1", 4, "127.0.0.1"},
	    {4, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16, "::1"},
	    {3, "example.com", 11, "example.com"},
	    {3, "a\0b", 3, NULL}, /* a NUL in the name */
	    {3, "", 0, NULL},
	    {1, "\x7f\0\0", 3, NULL},
	    {4, "\x7f\0\0\1", 4, NULL},
	    {2, "\x7f\0\0\1", 4, NULL},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *host = esd_np_request_socks_host(cases[i].atyp,
								   (const guint8 *)cases[i].address,
								   cases[i].len);
		g_assert_cmpstr(host, ==, cases[i].host);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/network-proxy/normalize", test_normalize);
	g_test_add_func("/network-proxy/patterns", test_patterns);
	g_test_add_func("/network-proxy/addresses", test_addresses);
	g_test_add_func("/network-proxy/config", test_config);
	g_test_add_func("/network-proxy/request", test_request);
	g_test_add_func("/network-proxy/close-head", test_close_head);
	g_test_add_func("/network-proxy/udp-header", test_udp_header);
	g_test_add_func("/network-proxy/socks-host", test_socks_host);
	return g_test_run();
}
