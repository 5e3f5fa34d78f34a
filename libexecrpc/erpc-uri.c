/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/*
 * Paths travel as absolute file:// URIs. They are parsed the way the
 * reference's URL parser does: C0 controls and spaces around the URI
 * dropped, percent escapes decoded (a malformed one is kept as it is), `.`
 * and `..` segments resolved lexically, a host refused on Linux. No path
 * can hold a NUL byte, escaped (%00) or not (ERPC_JSON_NUL), so such a path
 * is refused in the reference's words, unless `..` removed its segment.
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
	gsize len = strlen(path);
	/* "/" and every kept segment after a slash: never longer than the path plus one */
	gchar *out = g_malloc(len + 2);
	gsize out_len = 0;

	for (const gchar *seg = path; seg <= path + len;) {
		const gchar *end = strchr(seg, '/');
		gsize seg_len;

		if (end == NULL)
			end = path + len;
		seg_len = (gsize)(end - seg);
		if (seg_len == 2 && seg[0] == '.' && seg[1] == '.') {
			/* back to the slash that starts the last kept segment */
			while (out_len > 0 && out[--out_len] != '/')
				;
		} else if (seg_len > 0 && !(seg_len == 1 && seg[0] == '.')) {
			out[out_len++] = '/';
			memcpy(out + out_len, seg, seg_len);
			out_len += seg_len;
		}
		seg = end + 1;
	}
	if (out_len == 0)
		out[out_len++] = '/';
	out[out_len] = '\0';
	return out;
}

/* C0 controls and the space, NUL (as ERPC_JSON_NUL) included */
static gsize
erpc_uri_control_len(const gchar *p, const gchar *end)
{
	if (p < end && (guchar)*p <= 0x20)
		return 1;
	if (end - p >= 2 && memcmp(p, ERPC_JSON_NUL, 2) == 0)
		return 2;
	return 0;
}

/* @uri without the C0 controls and spaces around it, which the URL standard drops */
static gchar *
erpc_uri_trim(const gchar *uri)
{
	const gchar *start = uri;
	const gchar *end = uri + strlen(uri);
	gsize n;

	while ((n = erpc_uri_control_len(start, end)) > 0)
		start += n;
	while (end > start) {
		if ((guchar)end[-1] <= 0x20)
			end--;
		else if (end - start >= 2 && memcmp(end - 2, ERPC_JSON_NUL, 2) == 0)
			end -= 2;
		else
			break;
	}
	return g_strndup(start, (gsize)(end - start));
}

/* percent escapes decoded, %00 as ERPC_JSON_NUL; a malformed escape stays as it is */
static gchar *
erpc_uri_unescape(const gchar *path)
{
	GString *out = g_string_sized_new(strlen(path));

	for (const gchar *p = path; *p != '\0'; p++) {
		gint hi;
		gint lo;
		if (*p != '%' || (hi = g_ascii_xdigit_value(p[1])) < 0 ||
		    (lo = g_ascii_xdigit_value(p[2])) < 0) {
			g_string_append_c(out, *p);
			continue;
		}
		if (hi == 0 && lo == 0)
			g_string_append(out, ERPC_JSON_NUL);
		else
			g_string_append_c(out, (gchar)(hi * 16 + lo));
		p += 2;
	}
	return g_string_free(out, FALSE);
}

/* whether a raw path segment is `.` or `..`, escaped dots included */
static guint
erpc_uri_dots(const gchar *segment)
{
	g_autofree gchar *lower = g_ascii_strdown(segment, -1);
	if (g_strcmp0(lower, ".") == 0 || g_strcmp0(lower, "%2e") == 0)
		return 1;
	if (g_strcmp0(lower, "..") == 0 || g_strcmp0(lower, ".%2e") == 0 ||
	    g_strcmp0(lower, "%2e.") == 0 || g_strcmp0(lower, "%2e%2e") == 0)
		return 2;
	return 0;
}

/*
 * The URI with @path (raw, before decoding) as the reference's URL parser
 * writes it back: dot segments resolved, and C0 controls, the space,
 * `"<>`{}`, DEL and non-ASCII bytes percent-encoded
 */
static gchar *
erpc_uri_serialize(const gchar *path)
{
	g_auto(GStrv) parts = g_strsplit(path + 1, "/", -1);
	g_autoptr(GPtrArray) kept = g_ptr_array_new();
	GString *out = g_string_new("file://");
	guint n = g_strv_length(parts);

	for (guint i = 0; i < n; i++) {
		guint dots = erpc_uri_dots(parts[i]);
		if (dots == 2 && kept->len > 0)
			g_ptr_array_remove_index(kept, kept->len - 1);
		/* a last dot segment leaves an empty one behind: /a/. is /a/ */
		if (dots > 0 && i + 1 == n)
			g_ptr_array_add(kept, (gpointer) "");
		else if (dots == 0)
			g_ptr_array_add(kept, parts[i]);
	}
	for (guint i = 0; i < kept->len; i++) {
		const gchar *segment = g_ptr_array_index(kept, i);
		g_string_append_c(out, '/');
		for (const gchar *p = segment; *p != '\0'; p++) {
			guchar c = (guchar)*p;
			if (c == 0xc0 && (guchar)p[1] == 0x80) {
				g_string_append(out, "%00");
				p++;
			} else if (c <= 0x20 || c >= 0x7f || strchr("\"<>`{}", c) != NULL) {
				g_string_append_printf(out, "%%%02X", c);
			} else {
				g_string_append_c(out, (gchar)c);
			}
		}
	}
	if (kept->len == 0)
		g_string_append_c(out, '/');
	return g_string_free(out, FALSE);
}

/**
 * erpc_uri_to_path:
 * @uri: a `file://` URI from a peer
 * @error: return location for a #GError, or %NULL
 *
 * Reads a `file://` URI of the protocol as a local path.
 *
 * Returns: (transfer full): the absolute, normalised local path, or %NULL
 *   with %ERPC_ERROR_INVALID_PARAMS (or %ERPC_ERROR_INVALID_REQUEST for a
 *   URI with a host)
 *
 * Since: 0.1
 */
gchar *
erpc_uri_to_path(const gchar *uri_in, GError **error)
{
	g_autofree gchar *uri = erpc_uri_trim(uri_in);
	const gchar *p = uri;
	const gchar *rest;
	g_autofree gchar *scheme = NULL;
	g_autofree gchar *raw = NULL;
	g_autofree gchar *unescaped = NULL;
	g_autofree gchar *normal = NULL;
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
		g_autofree gchar *host_name = g_strndup(host, host_len);
		if (erpc_json_string_has_nul(host_name)) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INVALID_PARAMS,
					    "invalid URI: invalid international domain name");
			return NULL;
		}
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
	raw = g_strndup(path, strcspn(path, "?#"));
	if (raw[0] != '/') {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid URI: %s is not absolute",
			    uri);
		return NULL;
	}
	unescaped = erpc_uri_unescape(raw);
	normal = erpc_uri_normalize(unescaped);
	if (erpc_json_string_has_nul(normal)) {
		g_autofree gchar *shown = erpc_uri_serialize(raw);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "'%s' is invalid on 'linux'",
			    shown);
		return NULL;
	}
	return g_steal_pointer(&normal);
}

/**
 * erpc_path_to_uri:
 * @path: an absolute path
 *
 * Makes the `file://` URI of a local path, as the protocol sends paths.
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
 * Reads a required `file://` URI member of a params object as a local path.
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
 * Reads an optional `file://` URI member of a params object as a local
 * path.
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
