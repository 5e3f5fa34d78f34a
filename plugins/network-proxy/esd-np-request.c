/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "esd-np-request.h"

/*
 * A bounded parser of what a proxy client sends: `CONNECT host:port` or an
 * absolute `http://` URI, then header lines up to a blank line, at most
 * ESD_NP_REQUEST_MAX_HEAD bytes in all. Anything else is refused; the head
 * sent upstream is rebuilt from the parsed parts, never passed through.
 */

#define ESD_NP_REQUEST_MAX_HEADERS 128

/**
 * esd_np_request_find_end:
 * @data: bytes received so far
 * @len: their length
 *
 * Returns: the length of the head (through its blank line), or -1 if it is
 *   not complete yet
 */
gssize
esd_np_request_find_end(const gchar *data, gsize len)
{
	const gchar *end = len > 0 ? g_strstr_len(data, (gssize)len, "\r\n\r\n") : NULL;
	return end != NULL ? (end - data) + 4 : -1;
}

static gboolean
esd_np_request_is_token(const gchar *s, gsize len)
{
	if (len == 0)
		return FALSE;
	for (gsize i = 0; i < len; i++) {
		guchar c = (guchar)s[i];
		if (c <= ' ' || c >= 0x7f || strchr("()<>@,;:\\\"/[]?={}", c) != NULL)
			return FALSE;
	}
	return TRUE;
}

/* host[:port] or [v6][:port]; the port is required when @default_port is 0 */
static gboolean
esd_np_request_split_authority(const gchar *authority,
			       guint16 default_port,
			       gchar **host,
			       guint16 *port)
{
	const gchar *colon;
	const gchar *host_end;
	guint64 value;
	gchar *end = NULL;

	if (authority[0] == '[') {
		host_end = strchr(authority, ']');
		if (host_end == NULL)
			return FALSE;
		host_end++;
		colon = host_end[0] == ':' ? host_end : NULL;
		if (colon == NULL && host_end[0] != '\0')
			return FALSE;
	} else {
		colon = strrchr(authority, ':');
		host_end = colon != NULL ? colon : authority + strlen(authority);
	}
	if (host_end == authority)
		return FALSE;
	if (colon == NULL) {
		if (default_port == 0)
			return FALSE;
		*port = default_port;
	} else {
		if (colon[1] < '0' || colon[1] > '9')
			return FALSE;
		value = g_ascii_strtoull(colon + 1, &end, 10);
		if (*end != '\0' || value == 0 || value > 65535)
			return FALSE;
		*port = (guint16)value;
	}
	*host = g_strndup(authority, (gsize)(host_end - authority));
	return TRUE;
}

static gboolean
esd_np_request_parse_target(EsdNpRequest *self, const gchar *target)
{
	g_autofree gchar *authority = NULL;
	const gchar *rest;
	const gchar *at;
	gsize len;

	if (self->connect)
		return esd_np_request_split_authority(target, 0, &self->host, &self->port);
	if (g_ascii_strncasecmp(target, "http://", 7) != 0)
		return FALSE;
	target += 7;
	len = strcspn(target, "/?#");
	authority = g_strndup(target, len);
	rest = target + len;
	/* userinfo is no part of the host */
	at = strrchr(authority, '@');
	if (!esd_np_request_split_authority(at != NULL ? at + 1 : authority,
					    80,
					    &self->host,
					    &self->port))
		return FALSE;
	if (rest[0] == '/')
		self->path = g_strdup(rest);
	else
		self->path = g_strconcat("/", rest, NULL);
	if (strchr(self->path, '#') != NULL)
		*strchr(self->path, '#') = '\0';
	return TRUE;
}

/* the origin-form target of a request inside a TLS tunnel to @host:@port */
static gboolean
esd_np_request_parse_origin_target(EsdNpRequest *self,
				   const gchar *target,
				   const gchar *host,
				   guint16 port)
{
	if (self->connect || target[0] != '/')
		return FALSE;
	self->host = g_strdup(host);
	self->port = port;
	self->default_port = 443;
	self->path = g_strdup(target);
	if (strchr(self->path, '#') != NULL)
		*strchr(self->path, '#') = '\0';
	return TRUE;
}

/**
 * esd_np_request_parse_header_lines:
 * @lines: the header lines of a head, %NULL-terminated, without their CRLF
 * @headers: where each name and value go (name, value, name, value...)
 *
 * A request's or a response's header lines: `NAME: VALUE`, the name a
 * token, the value trimmed, at most ESD_NP_REQUEST_MAX_HEADERS of them.
 *
 * Returns: %FALSE if a line is malformed
 */
gboolean
esd_np_request_parse_header_lines(gchar **lines, GPtrArray *headers)
{
	guint count = 0;

	for (guint i = 0; lines[i] != NULL; i++) {
		const gchar *colon = strchr(lines[i], ':');

		if (colon == NULL || !esd_np_request_is_token(lines[i], (gsize)(colon - lines[i])))
			return FALSE;
		if (strchr(lines[i], '\r') != NULL || strchr(lines[i], '\n') != NULL ||
		    ++count > ESD_NP_REQUEST_MAX_HEADERS)
			return FALSE;
		g_ptr_array_add(headers, g_strndup(lines[i], (gsize)(colon - lines[i])));
		g_ptr_array_add(headers, g_strstrip(g_strdup(colon + 1)));
	}
	return TRUE;
}

/*
 * A plain request with `x-unix-socket` asks for a Unix socket of the
 * proxy's host instead of its target, whatever form that has: as the
 * reference on Linux, the proxy refuses it (501), so only whether the first
 * such header is visible ASCII (else 400) is kept. FALSE without one.
 */
static gboolean
esd_np_request_parse_unix_socket(EsdNpRequest *self, const gchar *target)
{
	for (guint i = 0; i + 1 < self->headers->len; i += 2) {
		const guchar *value = g_ptr_array_index(self->headers, i + 1);

		if (g_ascii_strcasecmp(g_ptr_array_index(self->headers, i), "x-unix-socket") != 0)
			continue;
		self->unix_socket = TRUE;
		for (const guchar *p = value; *p != '\0'; p++) {
			if ((*p < 0x20 && *p != '\t') || *p >= 0x7f)
				self->unix_socket_invalid = TRUE;
		}
		self->host = g_strdup("unix-socket");
		self->port = 0;
		self->path = g_strdup(target);
		return TRUE;
	}
	return FALSE;
}

static EsdNpRequest *
esd_np_request_parse_full(const gchar *data, gsize len, const gchar *host, guint16 port)
{
	g_autoptr(EsdNpRequest) self = g_new0(EsdNpRequest, 1);
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;
	g_auto(GStrv) parts = NULL;

	if (len < 4 || len > ESD_NP_REQUEST_MAX_HEAD || memchr(data, '\0', len) != NULL)
		return NULL;
	self->head_len = len;
	self->headers = g_ptr_array_new_with_free_func(g_free);
	text = g_strndup(data, len - 4);
	lines = g_strsplit(text, "\r\n", ESD_NP_REQUEST_MAX_HEADERS + 2);
	if (g_strv_length(lines) > ESD_NP_REQUEST_MAX_HEADERS + 1)
		return NULL;
	parts = g_strsplit(lines[0], " ", 4);
	if (g_strv_length(parts) != 3 || !esd_np_request_is_token(parts[0], strlen(parts[0])) ||
	    (!g_str_equal(parts[2], "HTTP/1.1") && !g_str_equal(parts[2], "HTTP/1.0")))
		return NULL;
	/* the target goes upstream as the path: no space, control character or 8-bit byte */
	for (const gchar *p = parts[1]; *p != '\0'; p++) {
		if ((guchar)*p <= ' ' || (guchar)*p >= 0x7f)
			return NULL;
	}
	self->method = g_strdup(parts[0]);
	self->version = g_strdup(parts[2]);
	self->connect = g_str_equal(self->method, "CONNECT");
	self->default_port = 80;
	if (!esd_np_request_parse_header_lines(lines + 1, self->headers))
		return NULL;
	if (host == NULL && !self->connect && esd_np_request_parse_unix_socket(self, parts[1]))
		return g_steal_pointer(&self);
	if (host != NULL ? !esd_np_request_parse_origin_target(self, parts[1], host, port)
			 : !esd_np_request_parse_target(self, parts[1]))
		return NULL;
	return g_steal_pointer(&self);
}

/**
 * esd_np_request_parse:
 * @data: a complete head (see esd_np_request_find_end())
 * @len: its length, through the blank line
 *
 * Returns: (transfer full) (nullable): the request, or %NULL if the head
 *   is malformed or not one a forward proxy serves
 */
EsdNpRequest *
esd_np_request_parse(const gchar *data, gsize len)
{
	return esd_np_request_parse_full(data, len, NULL, 0);
}

/**
 * esd_np_request_parse_origin:
 * @data: a complete head, read inside a TLS tunnel
 * @len: its length, through the blank line
 * @host: the tunnel's destination
 * @port: its port
 *
 * A request as an origin server gets it: an origin-form target (`/path`),
 * on its way to @host:@port; `Host` defaults to port 443.
 *
 * Returns: (transfer full) (nullable): the request, or %NULL if the head
 *   is malformed or has another form
 */
EsdNpRequest *
esd_np_request_parse_origin(const gchar *data, gsize len, const gchar *host, guint16 port)
{
	return esd_np_request_parse_full(data, len, host, port);
}

/**
 * esd_np_request_host_matches:
 * @self: a plain HTTP request
 *
 * An origin that routes by `Host` (a virtual host, a CDN) would serve the
 * host the header names, not the one the policy checked: as the reference,
 * the proxy refuses a `Host` other than the target's. No `Host` is fine (one
 * is added).
 *
 * Returns: whether every `Host` header names the target's host and port
 */
gboolean
esd_np_request_host_matches(const EsdNpRequest *self)
{
	g_autofree gchar *want = g_ascii_strdown(self->host, -1);

	for (guint i = 0; i + 1 < self->headers->len; i += 2) {
		const gchar *value = g_ptr_array_index(self->headers, i + 1);
		g_autofree gchar *host = NULL;
		g_autofree gchar *lower = NULL;
		guint16 port = 0;

		if (g_ascii_strcasecmp(g_ptr_array_index(self->headers, i), "host") != 0)
			continue;
		if (!esd_np_request_split_authority(value, self->default_port, &host, &port))
			return FALSE;
		lower = g_ascii_strdown(host, -1);
		if (!g_str_equal(lower, want) || port != self->port)
			return FALSE;
	}
	return TRUE;
}

/**
 * esd_np_request_method_is_read:
 * @method: a request's method
 *
 * Returns: whether limited mode lets it through: `GET`, `HEAD`, `OPTIONS`
 */
gboolean
esd_np_request_method_is_read(const gchar *method)
{
	return g_str_equal(method, "GET") || g_str_equal(method, "HEAD") ||
	       g_str_equal(method, "OPTIONS");
}

static gboolean
esd_np_request_has_token(const gchar *list, const gchar *token)
{
	g_auto(GStrv) items = g_strsplit(list, ",", -1);

	for (guint i = 0; items[i] != NULL; i++) {
		if (g_ascii_strcasecmp(g_strstrip(items[i]), token) == 0)
			return TRUE;
	}
	return FALSE;
}

/* the value of the last header @name, or NULL */
static const gchar *
esd_np_request_get_header(const EsdNpRequest *self, const gchar *name)
{
	const gchar *value = NULL;

	for (guint i = 0; i + 1 < self->headers->len; i += 2) {
		if (g_ascii_strcasecmp(g_ptr_array_index(self->headers, i), name) == 0)
			value = g_ptr_array_index(self->headers, i + 1);
	}
	return value;
}

/**
 * esd_np_request_is_upgrade:
 * @self: a request
 *
 * Returns: whether it asks to upgrade the connection (WebSocket): an
 *   `Upgrade` header that its `Connection` names, which the head sent on keeps
 */
gboolean
esd_np_request_is_upgrade(const EsdNpRequest *self)
{
	const gchar *connection = esd_np_request_get_header(self, "connection");

	return connection != NULL && esd_np_request_has_token(connection, "upgrade") &&
	       esd_np_request_get_header(self, "upgrade") != NULL;
}

/**
 * esd_np_request_forward_head:
 * @self: a plain HTTP request
 *
 * The head to send the origin server: origin-form target, the client's
 * headers without the hop-by-hop ones (the proxy's own, `Connection` and
 * what it names), a `Host` if the client sent none, and
 * `Connection: close` so that the origin ends the exchange after one
 * response: a connection carries one request, the one the policy checked.
 * An upgrade (WebSocket) keeps its `Upgrade`. With @absolute the target
 * stays in absolute form, for an upstream proxy.
 *
 * Returns: (transfer full): the head, through its blank line
 */
gchar *
esd_np_request_forward_head(const EsdNpRequest *self, gboolean absolute)
{
	return esd_np_request_forward_head_full(self, absolute, FALSE);
}

/**
 * esd_np_request_forward_head_full:
 * @self: a request
 * @absolute: whether the target stays in absolute form
 * @persistent: whether the connection may carry more requests
 *
 * As esd_np_request_forward_head(); with @persistent, the connection's
 * persistence is the client's (its `Connection: close` or `keep-alive`
 * kept, none added), for an intercepted tunnel that frames each message.
 *
 * Returns: (transfer full): the head, through its blank line
 */
gchar *
esd_np_request_forward_head_full(const EsdNpRequest *self, gboolean absolute, gboolean persistent)
{
	GString *out = g_string_new(NULL);
	const gchar *connection = NULL;
	gboolean upgrade = FALSE;
	gboolean host = FALSE;

	connection = esd_np_request_get_header(self, "connection");
	if (absolute) {
		gboolean v6 = strchr(self->host, ':') != NULL && self->host[0] != '[';
		/* the default port left out, as the reference sends it upstream */
		g_autofree gchar *port =
		    self->port != 80 ? g_strdup_printf(":%u", self->port) : g_strdup("");

		g_string_append_printf(out,
				       "%s http://%s%s%s%s%s %s\r\n",
				       self->method,
				       v6 ? "[" : "",
				       self->host,
				       v6 ? "]" : "",
				       port,
				       self->path,
				       self->version);
	} else {
		g_string_append_printf(out,
				       "%s %s %s\r\n",
				       self->method,
				       self->path,
				       self->version);
	}
	for (guint i = 0; i + 1 < self->headers->len; i += 2) {
		const gchar *name = g_ptr_array_index(self->headers, i);
		const gchar *value = g_ptr_array_index(self->headers, i + 1);

		if (g_ascii_strcasecmp(name, "proxy-connection") == 0 ||
		    g_ascii_strcasecmp(name, "proxy-authorization") == 0 ||
		    g_ascii_strcasecmp(name, "connection") == 0 ||
		    g_ascii_strcasecmp(name, "keep-alive") == 0)
			continue;
		if (g_ascii_strcasecmp(name, "upgrade") == 0 && esd_np_request_is_upgrade(self)) {
			upgrade = TRUE;
		} else if (connection != NULL && esd_np_request_has_token(connection, name)) {
			continue;
		}
		if (g_ascii_strcasecmp(name, "host") == 0)
			host = TRUE;
		g_string_append_printf(out, "%s: %s\r\n", name, value);
	}
	if (!host) {
		gboolean v6 = strchr(self->host, ':') != NULL && self->host[0] != '[';
		g_string_append_printf(out,
				       "Host: %s%s%s",
				       v6 ? "[" : "",
				       self->host,
				       v6 ? "]" : "");
		if (self->port != self->default_port)
			g_string_append_printf(out, ":%u", self->port);
		g_string_append(out, "\r\n");
	}
	if (upgrade)
		g_string_append(out, "Connection: upgrade\r\n\r\n");
	else if (!persistent ||
		 (connection != NULL && esd_np_request_has_token(connection, "close")))
		g_string_append(out, "Connection: close\r\n\r\n");
	else if (connection != NULL && esd_np_request_has_token(connection, "keep-alive"))
		g_string_append(out, "Connection: keep-alive\r\n\r\n");
	else
		g_string_append(out, "\r\n");
	return g_string_free(out, FALSE);
}

void
esd_np_request_free(EsdNpRequest *self)
{
	if (self == NULL)
		return;
	g_free(self->method);
	g_free(self->host);
	g_free(self->path);
	g_free(self->version);
	if (self->headers != NULL)
		g_ptr_array_unref(self->headers);
	g_free(self);
}

/**
 * esd_np_request_socks_host:
 * @atyp: the address type of RFC 1928: 1 IPv4, 3 a name, 4 IPv6
 * @address: the address: 4 or 16 bytes, or the name without its length byte
 * @len: the size of @address
 *
 * Returns: (transfer full) (nullable): the host as text, or %NULL for
 *   another type, another size, or an empty name or one with a NUL in it
 */
gchar *
esd_np_request_socks_host(guint8 atyp, const guint8 *address, gsize len)
{
	g_autoptr(GInetAddress) inet = NULL;

	switch (atyp) {
	case 1:
	case 4:
		if (len != (atyp == 1 ? 4u : 16u))
			return NULL;
		inet = g_inet_address_new_from_bytes(address,
						     atyp == 1 ? G_SOCKET_FAMILY_IPV4
							       : G_SOCKET_FAMILY_IPV6);
		return g_inet_address_to_string(inet);
	case 3:
		/* a name with a NUL in it is no name */
		if (len == 0 || memchr(address, '\0', len) != NULL)
			return NULL;
		return g_strndup((const gchar *)address, len);
	default:
		return NULL;
	}
}

/**
 * esd_np_request_parse_udp:
 * @data: a datagram a SOCKS5 client sent to its UDP relay
 * @len: its size
 * @port: (out): the destination's port
 * @offset: (out): where the payload starts
 *
 * Parses the RFC 1928 §7 header: RSV (ignored), FRAG, ATYP IPv4, name or
 * IPv6, the address and the port. A fragment (FRAG != 0) is not supported.
 *
 * Returns: (transfer full) (nullable): the destination host (an address
 *   as text, or a name without NUL), or %NULL if the header does not parse
 */
gchar *
esd_np_request_parse_udp(const guint8 *data, gsize len, guint16 *port, gsize *offset)
{
	gsize start = 4;
	gsize size;
	gchar *host;

	if (len < 5 || data[2] != 0)
		return NULL;
	switch (data[3]) {
	case 1:
		size = 4;
		break;
	case 3:
		start = 5;
		size = data[4];
		break;
	case 4:
		size = 16;
		break;
	default:
		return NULL;
	}
	if (len < start + size + 2)
		return NULL;
	host = esd_np_request_socks_host(data[3], data + start, size);
	if (host == NULL)
		return NULL;
	*port = (guint16)((data[start + size] << 8) | data[start + size + 1]);
	*offset = start + size + 2;
	return host;
}
