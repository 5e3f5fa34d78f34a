/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-client-private.h"

/*
 * Extra headers of the WebSocket upgrade. They usually carry credentials
 * for a reverse proxy, so a value is never logged, and the handshake's own
 * headers cannot be replaced through them.
 */

#define ERPC_CLIENT_HEADER_NAME_MAX  256
#define ERPC_CLIENT_HEADER_VALUE_MAX 8192

/* set by the handshake itself, or meaningless on an upgrade */
static const gchar *const erpc_client_reserved_headers[] = {
    "host",
    "upgrade",
    "connection",
    "authorization",
    "origin",
    "content-length",
    "transfer-encoding",
    "te",
    "trailer",
    "keep-alive",
    "expect",
    "proxy-connection",
    "proxy-authorization",
    NULL,
};

static gboolean
erpc_client_is_tchar(gchar c)
{
	return g_ascii_isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

gboolean
_erpc_client_header_validate(const gchar *name, const gchar *value, GError **error)
{
	gsize name_len = strlen(name);
	gsize value_len = strlen(value);

	if (name_len == 0 || name_len > ERPC_CLIENT_HEADER_NAME_MAX) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_INVALID_HEADER,
				    "a header name must have 1 to 256 characters");
		return FALSE;
	}
	for (gsize i = 0; i < name_len; i++) {
		if (!erpc_client_is_tchar(name[i])) {
			g_set_error(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_INVALID_HEADER,
				    "invalid character in header name at offset %" G_GSIZE_FORMAT,
				    i);
			return FALSE;
		}
	}
	for (guint i = 0; erpc_client_reserved_headers[i] != NULL; i++) {
		if (g_ascii_strcasecmp(name, erpc_client_reserved_headers[i]) == 0 ||
		    g_ascii_strncasecmp(name, "sec-websocket-", 14) == 0) {
			g_set_error(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_INVALID_HEADER,
				    "header %s is controlled by the WebSocket handshake",
				    name);
			return FALSE;
		}
	}
	if (value_len > ERPC_CLIENT_HEADER_VALUE_MAX) {
		g_set_error(error,
			    ERPC_CLIENT_ERROR,
			    ERPC_CLIENT_ERROR_INVALID_HEADER,
			    "the value of header %s is longer than %u bytes",
			    name,
			    (guint)ERPC_CLIENT_HEADER_VALUE_MAX);
		return FALSE;
	}
	/* no control characters but tab: no CR/LF injection, no NUL */
	for (gsize i = 0; i < value_len; i++) {
		guchar c = (guchar)value[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			g_set_error(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_INVALID_HEADER,
				    "the value of header %s contains a control character",
				    name);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
_erpc_client_url_is_loopback(const gchar *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	g_autoptr(GInetAddress) address = NULL;
	const gchar *host;

	if (uri == NULL || (host = g_uri_get_host(uri)) == NULL)
		return FALSE;
	if (g_ascii_strcasecmp(host, "localhost") == 0)
		return TRUE;
	address = g_inet_address_new_from_string(host);
	return address != NULL && g_inet_address_get_is_loopback(address);
}

/* for debug output: the names, never the values */
gchar *
_erpc_client_headers_describe(GPtrArray *headers)
{
	GString *out = g_string_new(NULL);
	for (guint i = 0; i + 1 < headers->len; i += 2) {
		if (out->len > 0)
			g_string_append(out, ", ");
		g_string_append_printf(out, "%s: <redacted>", (const gchar *)headers->pdata[i]);
	}
	return g_string_free(out, FALSE);
}
