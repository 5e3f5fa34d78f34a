/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/*
 * Paths travel as absolute file:// URIs. They are parsed the way the
 * reference's URL parser does: percent escapes decoded, `.` and `..`
 * segments resolved lexically, a host refused on Linux. A decoded NUL byte
 * is refused outright, since no path can contain one.
 */

static gboolean
erpc_uri_is_scheme_char(gchar c, gboolean first)
{
	if (g_ascii_isalpha(c))
		return TRUE;
	return !first && (g_ascii_isdigit(c) || c == '+' || c == '-' || c == '.');
}

/* lexical normalisation of an absolute path: no empty, `.` or `..` segments */
static gchar *
erpc_uri_normalize(const gchar *path)
{
	g_auto(GStrv) parts = g_strsplit(path, "/", -1);
	g_autoptr(GPtrArray) kept = g_ptr_array_new();
	GString *out = g_string_new(NULL);
	gboolean trailing = g_str_has_suffix(path, "/");

	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] == '\0' || g_strcmp0(parts[i], ".") == 0)
			continue;
		if (g_strcmp0(parts[i], "..") == 0) {
			if (kept->len > 0)
				g_ptr_array_remove_index(kept, kept->len - 1);
			continue;
		}
		g_ptr_array_add(kept, parts[i]);
	}
	for (guint i = 0; i < kept->len; i++) {
		g_string_append_c(out, '/');
		g_string_append(out, g_ptr_array_index(kept, i));
	}
	if (out->len == 0 || (trailing && kept->len == 0))
		g_string_assign(out, "/");
	return g_string_free(out, FALSE);
}

/**
 * erpc_uri_to_path:
 * @uri: a `file://` URI from a peer
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the absolute, normalised local path, or %NULL
 *   with %ERPC_ERROR_INVALID_PARAMS (or %ERPC_ERROR_INVALID_REQUEST for a
 *   URI with a host)
 *
 * Since: 0.1
 */
gchar *
erpc_uri_to_path(const gchar *uri, GError **error)
{
	const gchar *p = uri;
	const gchar *rest;
	g_autofree gchar *scheme = NULL;
	g_autofree gchar *decoded = NULL;
	const gchar *path;
	gsize scheme_len = 0;

	while (erpc_uri_is_scheme_char(p[scheme_len], scheme_len == 0))
		scheme_len++;
	if (scheme_len == 0 || p[scheme_len] != ':') {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid URI: relative URL without a base");
		return NULL;
	}
	scheme = g_ascii_strdown(p, (gssize)scheme_len);
	if (g_strcmp0(scheme, "file") != 0) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "unsupported path URI scheme `%s`",
			    scheme);
		return NULL;
	}
	rest = p + scheme_len + 1;
	if (g_str_has_prefix(rest, "//")) {
		const gchar *host = rest + 2;
		const gchar *slash = strchr(host, '/');
		gsize host_len = slash != NULL ? (gsize)(slash - host) : strlen(host);
		if (host_len > 0 &&
		    !(host_len == 9 && g_ascii_strncasecmp(host, "localhost", 9) == 0)) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "'%s' is invalid on 'linux'",
				    uri);
			return NULL;
		}
		path = slash != NULL ? slash : "/";
	} else {
		path = rest;
	}
	/* a query or fragment is not part of the path */
	decoded = g_strndup(path, strcspn(path, "?#"));
	if (decoded[0] != '/') {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid URI: %s is not absolute",
			    uri);
		return NULL;
	}
	{
		g_autofree gchar *unescaped = g_uri_unescape_segment(decoded, NULL, NULL);
		gsize raw_len = 0;
		/* g_uri_unescape_segment stops at an escaped NUL: compare lengths */
		if (unescaped == NULL || strstr(decoded, "%00") != NULL) {
			g_set_error_literal(
			    error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid URI: the path contains a NUL byte or a bad escape");
			return NULL;
		}
		raw_len = strlen(unescaped);
		if (raw_len == 0) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INVALID_PARAMS,
					    "invalid URI: empty path");
			return NULL;
		}
		return erpc_uri_normalize(unescaped);
	}
}

/**
 * erpc_path_to_uri:
 * @path: an absolute path
 *
 * Returns: (transfer full) (nullable): `file:///...` without a trailing slash
 *
 * Since: 0.1
 */
gchar *
erpc_path_to_uri(const gchar *path)
{
	g_autofree gchar *uri = g_filename_to_uri(path, NULL, NULL);
	gsize len;

	if (uri == NULL)
		return NULL;
	len = strlen(uri);
	if (len > strlen("file:///") && uri[len - 1] == '/')
		uri[len - 1] = '\0';
	return g_steal_pointer(&uri);
}

/**
 * erpc_json_require_path:
 * @obj: a params object
 * @member: the member holding a `file://` URI
 * @out: (out) (transfer full): the local path
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if @member is present and a valid file URI
 *
 * Since: 0.1
 */
gboolean
erpc_json_require_path(JsonObject *obj, const gchar *member, gchar **out, GError **error)
{
	const gchar *uri = NULL;

	if (!erpc_json_require_string(obj, member, &uri, error))
		return FALSE;
	*out = erpc_uri_to_path(uri, error);
	return *out != NULL;
}

/**
 * erpc_json_get_path:
 * @obj: a params object
 * @member: the member holding a `file://` URI
 * @out: (out) (transfer full) (nullable): the local path, %NULL when absent
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE if @member is present and not a valid file URI
 *
 * Since: 0.1
 */
gboolean
erpc_json_get_path(JsonObject *obj, const gchar *member, gchar **out, GError **error)
{
	const gchar *uri = NULL;

	*out = NULL;
	if (!erpc_json_get_string(obj, member, NULL, &uri, error))
		return FALSE;
	if (uri == NULL)
		return TRUE;
	*out = erpc_uri_to_path(uri, error);
	return *out != NULL;
}
