/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <string.h>

#include "esd-discovery-limits.h"
#include "esd-discovery-util.h"

void
esd_discovery_limits_init(EsdDiscoveryLimits *limits)
{
	limits->max_roots = ESD_DISCOVERY_MAX_ROOTS_DEFAULT;
	limits->max_depth = ESD_DISCOVERY_MAX_DEPTH_DEFAULT;
	limits->max_directories = ESD_DISCOVERY_MAX_DIRECTORIES_DEFAULT;
	limits->max_entries = ESD_DISCOVERY_MAX_ENTRIES_DEFAULT;
	limits->max_file_bytes = ESD_DISCOVERY_MAX_FILE_BYTES_DEFAULT;
	limits->max_root_bytes = ESD_DISCOVERY_MAX_ROOT_BYTES_DEFAULT;
	limits->max_answer_bytes = ESD_DISCOVERY_MAX_ANSWER_BYTES_DEFAULT;
}

/*
 * The reference is a musl build, so its OS error texts are musl's: where
 * glibc words an errno differently the musl text is used, everything else
 * comes from strerrordesc_np(), which is never translated.
 */
static const struct {
	gint errnum;
	const gchar *text;
} esd_discovery_musl_texts[] = {
    {ELOOP, "Symbolic link loop"},
    {ENAMETOOLONG, "Filename too long"},
    {EMFILE, "No file descriptors available"},
    {EBUSY, "Resource busy"},
    {EIO, "I/O error"},
    {ENOMEM, "Out of memory"},
    {EOVERFLOW, "Value too large for data type"},
    {EOPNOTSUPP, "Not supported"},
    {ETIMEDOUT, "Operation timed out"},
    {EILSEQ, "Illegal byte sequence"},
};

const gchar *
esd_discovery_strerror(gint errnum)
{
	const gchar *text;

	for (guint i = 0; i < G_N_ELEMENTS(esd_discovery_musl_texts); i++) {
		if (esd_discovery_musl_texts[i].errnum == errnum)
			return esd_discovery_musl_texts[i].text;
	}
	text = strerrordesc_np(errnum);
	return text != NULL ? text : "Unknown error";
}

/* an io::Error as Rust prints it: `Permission denied (os error 13)` */
gchar *
esd_discovery_os_error(gint errnum)
{
	return g_strdup_printf("%s (os error %d)", esd_discovery_strerror(errnum), errnum);
}

/* the length of a valid UTF-8 sequence at @p, 0 when invalid; *@bad is how many bytes are bad */
static gsize
esd_discovery_utf8_step(const guchar *p, gsize left, gsize *bad, gboolean *incomplete)
{
	guchar c = p[0];
	guchar lo = 0x80, hi = 0xbf;
	gsize width;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		width = 2;
	else if (c >= 0xe0 && c <= 0xef)
		width = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		width = 4;
	else {
		*bad = 1;
		return 0;
	}
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (gsize i = 1; i < width; i++) {
		guchar lower = i == 1 ? lo : 0x80;
		guchar upper = i == 1 ? hi : 0xbf;
		if (i >= left) {
			*incomplete = TRUE;
			return 0;
		}
		if (p[i] < lower || p[i] > upper) {
			*bad = i;
			return 0;
		}
	}
	return width;
}

/**
 * esd_discovery_utf8_error:
 * @data: bytes
 * @len: their length
 *
 * Returns: (transfer full) (nullable): %NULL for valid UTF-8, else the text
 *   of Rust's `Utf8Error` (`invalid utf-8 sequence of 1 bytes from index 0`)
 */
gchar *
esd_discovery_utf8_error(const gchar *data, gsize len)
{
	const guchar *p = (const guchar *)data;
	gsize i = 0;

	while (i < len) {
		gsize bad = 0;
		gboolean incomplete = FALSE;
		gsize step = esd_discovery_utf8_step(p + i, len - i, &bad, &incomplete);

		if (step == 0 && incomplete)
			return g_strdup_printf(
			    "incomplete utf-8 byte sequence from index %" G_GSIZE_FORMAT,
			    i);
		if (step == 0)
			return g_strdup_printf("invalid utf-8 sequence of %" G_GSIZE_FORMAT
					       " bytes from index %" G_GSIZE_FORMAT,
					       bad,
					       i);
		i += step;
	}
	return NULL;
}

/* `file://` URI of an absolute path, without a trailing slash */
gchar *
esd_discovery_path_uri(const gchar *path)
{
	g_autofree gchar *uri = g_filename_to_uri(path, NULL, NULL);
	gsize len;

	if (uri == NULL)
		return g_strconcat("file://", path, NULL);
	len = strlen(uri);
	if (len > strlen("file:///") && uri[len - 1] == '/')
		uri[len - 1] = '\0';
	return g_steal_pointer(&uri);
}

/* @dir/@rel, for an absolute @dir; `/` is not doubled */
gchar *
esd_discovery_join(const gchar *dir, const gchar *rel)
{
	if (rel == NULL || rel[0] == '\0')
		return g_strdup(dir);
	if (g_str_has_suffix(dir, "/"))
		return g_strconcat(dir, rel, NULL);
	return g_strconcat(dir, "/", rel, NULL);
}

/* the limits as the helper gets them: `"limits":{...}` */
void
esd_discovery_write_limits(ErpcJsonWriter *writer, const EsdDiscoveryLimits *limits)
{
	erpc_json_writer_member(writer, "limits");
	erpc_json_writer_begin_object(writer);
	erpc_json_writer_member_uint(writer, "maxDepth", limits->max_depth);
	erpc_json_writer_member_uint(writer, "maxDirectories", limits->max_directories);
	erpc_json_writer_member_uint(writer, "maxEntries", limits->max_entries);
	erpc_json_writer_member_uint(writer, "maxFileBytes", limits->max_file_bytes);
	erpc_json_writer_member_uint(writer, "maxRootBytes", limits->max_root_bytes);
	erpc_json_writer_end_object(writer);
}

static guint64
esd_discovery_read_uint(JsonObject *obj, const gchar *member, guint64 fallback)
{
	JsonNode *node = json_object_get_member(obj, member);

	if (node == NULL || json_node_get_value_type(node) != G_TYPE_INT64 ||
	    json_node_get_int(node) < 0)
		return fallback;
	return (guint64)json_node_get_int(node);
}

/* the limits of a helper request; what is missing keeps its default */
void
esd_discovery_read_limits(JsonObject *obj, EsdDiscoveryLimits *limits)
{
	esd_discovery_limits_init(limits);
	if (obj == NULL)
		return;
	limits->max_depth =
	    (guint)MIN(esd_discovery_read_uint(obj, "maxDepth", limits->max_depth), G_MAXUINT);
	limits->max_directories =
	    (guint)MIN(esd_discovery_read_uint(obj, "maxDirectories", limits->max_directories),
		       G_MAXUINT);
	limits->max_entries =
	    (guint)MIN(esd_discovery_read_uint(obj, "maxEntries", limits->max_entries), G_MAXUINT);
	limits->max_file_bytes =
	    esd_discovery_read_uint(obj, "maxFileBytes", limits->max_file_bytes);
	limits->max_root_bytes =
	    esd_discovery_read_uint(obj, "maxRootBytes", limits->max_root_bytes);
}

/*
 * whether a line of the helper's answer is one JSON object, so that it can
 * be spliced into the reply as it is: the helper reads hostile files, so
 * its answer is checked like peer input before it goes out
 */
gboolean
esd_discovery_answer_check(const gchar *answer, GError **error)
{
	gsize len = strlen(answer);

	if (len < 2 || answer[0] != '{' || answer[len - 1] != '}') {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "the sandboxed discovery helper gave a malformed answer");
		return FALSE;
	}
	if (!erpc_json_check(answer, len, len + 1, ERPC_JSON_MAX_DEPTH, error)) {
		g_prefix_error(error, "the sandboxed discovery helper gave a malformed answer: ");
		return FALSE;
	}
	return TRUE;
}
