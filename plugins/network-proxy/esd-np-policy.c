/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-np-policy.h"

/*
 * The host rules of the proxy, as Codex's network proxy defines them: hosts
 * compare lowercase without a trailing dot or IPv6 brackets; a pattern is
 * `*` (any host), `**.example.com` (the apex and its subdomains),
 * `*.example.com` (subdomains only) or an exact host. Addresses count as
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

/**
 * esd_np_policy_pattern_is_valid:
 * @pattern: a normalized pattern
 *
 * Returns: whether @pattern names something: not empty, and a wildcard
 *   prefix has a domain after it
 */
gboolean
esd_np_policy_pattern_is_valid(const gchar *pattern)
{
	if (pattern[0] == '\0')
		return FALSE;
	if (g_str_has_prefix(pattern, "**."))
		return pattern[3] != '\0';
	if (g_str_has_prefix(pattern, "*."))
		return pattern[2] != '\0';
	return TRUE;
}

static gboolean
esd_np_policy_is_subdomain(const gchar *host, const gchar *domain)
{
	gsize hlen = strlen(host);
	gsize dlen = strlen(domain);

	return hlen > dlen + 1 && host[hlen - dlen - 1] == '.' &&
	       g_str_equal(host + hlen - dlen, domain);
}

/**
 * esd_np_policy_pattern_matches:
 * @pattern: a normalized pattern
 * @host: a normalized host
 *
 * Returns: whether @pattern covers @host
 */
gboolean
esd_np_policy_pattern_matches(const gchar *pattern, const gchar *host)
{
	if (g_str_equal(pattern, "*"))
		return TRUE;
	if (g_str_has_prefix(pattern, "**."))
		return g_str_equal(host, pattern + 3) ||
		       esd_np_policy_is_subdomain(host, pattern + 3);
	if (g_str_has_prefix(pattern, "*."))
		return esd_np_policy_is_subdomain(host, pattern + 2);
	return g_str_equal(pattern, host);
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
