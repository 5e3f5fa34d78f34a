/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "esd-np-policy.h"

/*
 * The host rules of the proxy, as Codex's network proxy defines them: hosts
 * compare lowercase without a trailing dot or IPv6 brackets; a pattern is
 * checked and turned into globs (esd_np_policy_pattern_compile()). Addresses count as
 * local or private (never public) in the ranges a sandbox must not reach
 * unless allowed.
 */

/**
 * esd_np_policy_normalize_host:
 * @host: a host as a request names it
 *
 * Returns: (transfer full) (nullable): @host lowercase without brackets or
 *   trailing dots, or %NULL if it is empty, too long or holds bytes no host
 *   name has
 */
gchar *
esd_np_policy_normalize_host(const gchar *host)
{
	g_autofree gchar *lower = NULL;
	gsize len = strlen(host);

	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		host++;
		len -= 2;
	}
	while (len > 0 && host[len - 1] == '.')
		len--;
	if (len == 0 || len > 253)
		return NULL;
	for (gsize i = 0; i < len; i++) {
		guchar c = (guchar)host[i];
		if (!g_ascii_isalnum(c) && c != '-' && c != '.' && c != '_' && c != ':' && c != '%')
			return NULL;
	}
	lower = g_ascii_strdown(host, (gssize)len);
	return g_steal_pointer(&lower);
}

/* whitespace as Unicode's White_Space property has it (Rust's char::is_whitespace) */
static gboolean
esd_np_policy_unichar_is_space(gunichar c)
{
	return c == 0x85 || g_unichar_isspace(c);
}

/* the next character of @s, or one byte of what is not UTF-8; @len its size */
static gunichar
esd_np_policy_next_char(const gchar *s, const gchar *end, gsize *len)
{
	gunichar c = g_utf8_get_char_validated(s, end - s);

	if (c == (gunichar)-1 || c == (gunichar)-2) {
		*len = 1;
		return 0xfffd;
	}
	*len = (gsize)(g_utf8_next_char(s) - s);
	return c;
}

/* @s without the whitespace around it (Rust's str::trim) */
static gchar *
esd_np_policy_trim(const gchar *s)
{
	const gchar *end = s + strlen(s);
	const gchar *first = s;
	const gchar *last = s; /* just past the last non-space */
	gsize len;

	while (first < end &&
	       esd_np_policy_unichar_is_space(esd_np_policy_next_char(first, end, &len)))
		first += len;
	last = first;
	for (const gchar *p = first; p < end; p += len) {
		if (!esd_np_policy_unichar_is_space(esd_np_policy_next_char(p, end, &len)))
			last = p + len;
	}
	return g_strndup(first, (gsize)(last - first));
}

static gboolean
esd_np_policy_has_space(const gchar *s)
{
	const gchar *end = s + strlen(s);
	gsize len;

	for (const gchar *p = s; p < end; p += len) {
		if (esd_np_policy_unichar_is_space(esd_np_policy_next_char(p, end, &len)))
			return TRUE;
	}
	return FALSE;
}

static gboolean
esd_np_policy_is_ip(const gchar *s, gboolean v6_only)
{
	guint8 buf[16];

	return inet_pton(AF_INET6, s, buf) == 1 || (!v6_only && inet_pton(AF_INET, s, buf) == 1);
}

/* lowercase, no trailing dots; an address with a zone keeps it after one `%` */
static gchar *
esd_np_policy_normalize_name(const gchar *host, gssize len)
{
	g_autofree gchar *lower = g_ascii_strdown(host, len);
	gsize n = strlen(lower);
	static const gchar *const delimiters[] = {"%25", "%"};

	while (n > 0 && lower[n - 1] == '.')
		lower[--n] = '\0';
	if (esd_np_policy_is_ip(lower, FALSE))
		return g_steal_pointer(&lower);
	for (guint i = 0; i < G_N_ELEMENTS(delimiters); i++) {
		const gchar *at = strstr(lower, delimiters[i]);
		g_autofree gchar *ip = NULL;

		if (at == NULL)
			continue;
		ip = g_strndup(lower, (gsize)(at - lower));
		if (esd_np_policy_is_ip(ip, FALSE))
			return g_strconcat(ip, "%", at + strlen(delimiters[i]), NULL);
	}
	return g_steal_pointer(&lower);
}

/* the host part of a pattern: brackets and a single `:port` taken off, then as above */
static gchar *
esd_np_policy_normalize_pattern_host(const gchar *remainder)
{
	g_autofree gchar *host = esd_np_policy_trim(remainder);
	const gchar *close = strchr(host, ']');
	const gchar *colon = strchr(host, ':');

	if (host[0] == '[' && close != NULL)
		return esd_np_policy_normalize_name(host + 1, close - host - 1);
	if (colon != NULL && strchr(colon + 1, ':') == NULL)
		return esd_np_policy_normalize_name(host, colon - host);
	return esd_np_policy_normalize_name(host, -1);
}

/* brackets only around an IPv6 literal or `*`, followed by dots or a port */
static gboolean
esd_np_policy_brackets_are_valid(const gchar *host)
{
	const gchar *close;
	g_autofree gchar *inside = NULL;
	g_autofree gchar *normalized = NULL;
	g_autofree gchar *unscoped = NULL;
	const gchar *suffix;

	if (host[0] != '[' || (close = strchr(host + 1, ']')) == NULL)
		return FALSE;
	inside = g_strndup(host + 1, (gsize)(close - host - 1));
	suffix = close + 1;
	if (strchr(inside, '[') != NULL || strpbrk(suffix, "[]") != NULL)
		return FALSE;
	if (suffix[0] != ':' && suffix[strspn(suffix, ".")] != '\0')
		return FALSE;
	normalized = esd_np_policy_normalize_name(inside, -1);
	if (g_str_equal(normalized, "*"))
		return TRUE;
	unscoped = g_strndup(normalized, strcspn(normalized, "%"));
	return esd_np_policy_is_ip(unscoped, TRUE);
}

/* the globs a normalized pattern stands for: `**.d` is d and `?*.d`, `*.d` is `?*.d` */
static void
esd_np_policy_expand(const gchar *pattern, GPtrArray *out)
{
	const gchar *domain = NULL;
	g_autofree gchar *trimmed = NULL;

	if (g_str_has_prefix(pattern, "**."))
		domain = pattern + 3;
	else if (g_str_has_prefix(pattern, "*."))
		domain = pattern + 2;
	if (domain == NULL) {
		g_ptr_array_add(out, g_strdup(pattern));
		return;
	}
	trimmed = esd_np_policy_trim(domain);
	if (trimmed[0] == '\0') {
		g_ptr_array_add(out, g_strdup(""));
		return;
	}
	if (g_str_has_prefix(pattern, "**."))
		g_ptr_array_add(out, g_strdup(trimmed));
	g_ptr_array_add(out, g_strconcat("?*.", trimmed, NULL));
}

/* @pattern normalized: trimmed, then the host after any wildcard prefix */
static gchar *
esd_np_policy_normalize_pattern(const gchar *pattern)
{
	g_autofree gchar *trimmed = esd_np_policy_trim(pattern);
	const gchar *prefix = "";
	const gchar *remainder = trimmed;
	g_autofree gchar *host = NULL;

	if (g_str_equal(trimmed, "*"))
		return g_strdup("*");
	if (g_str_has_prefix(trimmed, "**.")) {
		prefix = "**.";
		remainder = trimmed + 3;
	} else if (g_str_has_prefix(trimmed, "*.")) {
		prefix = "*.";
		remainder = trimmed + 2;
	}
	host = esd_np_policy_normalize_pattern_host(remainder);
	return g_strconcat(prefix, host, NULL);
}

/**
 * esd_np_policy_pattern_compile:
 * @pattern: a domain pattern as the client sent it
 * @reject_global: the list this pattern is in may not match every host
 *   (the denied domains), or %NULL if it may
 * @globs: (element-type utf8): where the pattern's globs are appended
 * @exact: (element-type utf8) (nullable): where the host is appended when
 *   the pattern names one without a wildcard: only such a pattern lets a
 *   local destination through
 *
 * Checks @pattern as Codex's network proxy does and appends what it
 * matches as globs for esd_np_policy_glob_matches(): `example.com` the
 * host, `*.example.com` its subdomains, `**.example.com` both, `?` one
 * character and `*` any run of them anywhere, `*` alone every host.
 * Hosts and patterns compare lowercase without trailing dots, brackets
 * or a port.
 *
 * Returns: (transfer full) (nullable): %NULL, or why @pattern is refused,
 *   in the reference's words
 */
gchar *
esd_np_policy_pattern_compile(const gchar *pattern,
			      const gchar *reject_global,
			      GPtrArray *globs,
			      GPtrArray *exact)
{
	g_autofree gchar *raw = esd_np_policy_trim(pattern);
	g_autofree gchar *normalized = esd_np_policy_normalize_pattern(pattern);
	g_autoptr(GPtrArray) expanded = g_ptr_array_new_with_free_func(g_free);
	const gchar *host;

	esd_np_policy_expand(normalized, expanded);
	/* a global wildcard in the deny list is named before any syntax error */
	if (reject_global != NULL) {
		for (guint i = 0; i < expanded->len; i++) {
			if (g_str_equal(g_ptr_array_index(expanded, i), "*"))
				return g_strdup_printf(
				    "invalid value for %s: %s (allowed exact hosts "
				    "or scoped wildcards like *.example.com or "
				    "**.example.com)",
				    reject_global,
				    raw);
		}
	}
	if (strpbrk(raw, "{}\\/") != NULL || esd_np_policy_has_space(raw))
		return g_strdup_printf("unsupported domain pattern syntax: %s", pattern);
	host = g_str_has_prefix(raw, "**.") ? raw + 3 : g_str_has_prefix(raw, "*.") ? raw + 2 : raw;
	if (strstr(host, "**") != NULL)
		return g_strdup_printf("unsupported repeated wildcard: %s", pattern);
	if (strpbrk(host, "[]") != NULL && !esd_np_policy_brackets_are_valid(host))
		return g_strdup_printf("brackets are only supported for IPv6 literals or [*]: %s",
				       pattern);
	for (guint i = 0; i < expanded->len; i++) {
		if (((const gchar *)g_ptr_array_index(expanded, i))[0] == '\0')
			return g_strdup("domain pattern is empty");
	}
	for (guint i = 0; i < expanded->len; i++) {
		if (!g_ptr_array_find_with_equal_func(globs,
						      g_ptr_array_index(expanded, i),
						      g_str_equal,
						      NULL))
			g_ptr_array_add(globs, g_strdup(g_ptr_array_index(expanded, i)));
	}
	if (exact != NULL && strpbrk(normalized, "*?") == NULL)
		g_ptr_array_add(exact, g_steal_pointer(&normalized));
	return NULL;
}

/**
 * esd_np_policy_glob_matches:
 * @glob: a glob of esd_np_policy_pattern_compile()
 * @host: a normalized host (ASCII: esd_np_policy_normalize_host())
 *
 * `*` matches any run of characters, dots included, `?` one character, the
 * rest itself ignoring ASCII case. Only the latest `*` is ever retried, and
 * its retry point only moves forward: time is bounded by the product of
 * the lengths, not exponential.
 *
 * Returns: whether @glob covers @host
 */
gboolean
esd_np_policy_glob_matches(const gchar *glob, const gchar *host)
{
	const gchar *p = glob;
	const gchar *h = host;
	const gchar *star_p = NULL; /* just past the latest star */
	const gchar *star_h = NULL; /* what that star has consumed up to */

	while (*h != '\0') {
		if (*p == '*') {
			star_p = ++p;
			star_h = h;
		} else if (*p != '\0' &&
			   (*p == '?' || g_ascii_tolower(*p) == g_ascii_tolower(*h))) {
			/* a normalized host is ASCII: one byte is one character */
			p++;
			h++;
		} else if (star_p != NULL) {
			p = star_p;
			h = ++star_h;
		} else {
			return FALSE;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static gboolean
esd_np_policy_ipv4_is_public(const guint8 *b)
{
	if (b[0] == 0 || b[0] == 10 || b[0] == 127)
		return FALSE; /* this network, RFC 1918, loopback */
	if (b[0] == 100 && (b[1] & 0xc0) == 64)
		return FALSE; /* shared address space (CGNAT) */
	if (b[0] == 169 && b[1] == 254)
		return FALSE; /* link-local */
	if (b[0] == 172 && (b[1] & 0xf0) == 16)
		return FALSE;
	if (b[0] == 192 && b[1] == 168)
		return FALSE;
	if (b[0] == 192 && b[1] == 0 && (b[2] == 0 || b[2] == 2))
		return FALSE; /* IETF assignments, TEST-NET-1 */
	if (b[0] == 198 && (b[1] & 0xfe) == 18)
		return FALSE; /* benchmarking */
	if (b[0] == 198 && b[1] == 51 && b[2] == 100)
		return FALSE; /* TEST-NET-2 */
	if (b[0] == 203 && b[1] == 0 && b[2] == 113)
		return FALSE; /* TEST-NET-3 */
	if (b[0] >= 224)
		return FALSE; /* multicast, reserved, broadcast */
	return TRUE;
}

/**
 * esd_np_policy_address_is_public:
 * @address: an address
 *
 * Returns: %FALSE for loopback, unspecified, private (RFC 1918, ULA),
 *   link-local, shared, documentation, benchmarking, multicast and reserved
 *   addresses, and for IPv6 forms of IPv4 ones
 */
gboolean
esd_np_policy_address_is_public(GInetAddress *address)
{
	const guint8 *b = g_inet_address_to_bytes(address);
	static const guint8 mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (g_inet_address_get_family(address) == G_SOCKET_FAMILY_IPV4)
		return esd_np_policy_ipv4_is_public(b);
	/* ::ffff:a.b.c.d and ::a.b.c.d (deprecated compatible form, ::1 and :: included) */
	if (memcmp(b, mapped, 12) == 0)
		return esd_np_policy_ipv4_is_public(b + 12);
	if (memcmp(b, mapped, 10) == 0 && b[10] == 0 && b[11] == 0)
		return FALSE;
	if ((b[0] & 0xfe) == 0xfc)
		return FALSE; /* ULA */
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return FALSE; /* link-local */
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
		return FALSE; /* site-local */
	if (b[0] == 0xff)
		return FALSE; /* multicast */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8)
		return FALSE; /* documentation */
	if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b)
		return esd_np_policy_ipv4_is_public(b + 12); /* NAT64 */
	return TRUE;
}

/**
 * esd_np_policy_host_is_local_literal:
 * @host: a normalized host
 *
 * Returns: whether @host is local without a lookup: `localhost`, a name
 *   under `.localhost`, or a non-public address literal
 */
gboolean
esd_np_policy_host_is_local_literal(const gchar *host)
{
	g_autoptr(GInetAddress) address = NULL;

	if (g_str_equal(host, "localhost") || g_str_has_suffix(host, ".localhost"))
		return TRUE;
	address = g_inet_address_new_from_string(host);
	return address != NULL && !esd_np_policy_address_is_public(address);
}
