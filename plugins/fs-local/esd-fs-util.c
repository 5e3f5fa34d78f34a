/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>
#include <sys/mman.h>

#include "esd-fs-util.h"

/*
 * The reference is a musl build, so its OS error texts are musl's. Where
 * glibc words an errno differently, the musl text is used; everything else
 * comes from strerrordesc_np(), which is never translated.
 */
static const struct {
	gint errnum;
	const gchar *text;
} esd_fs_musl_texts[] = {
    {ELOOP, "Symbolic link loop"},
    {ENAMETOOLONG, "Filename too long"},
    {EMFILE, "No file descriptors available"},
    {EBUSY, "Resource busy"},
    {EXDEV, "Cross-device link"},
    {EIO, "I/O error"},
    {ENOMEM, "Out of memory"},
    {EOVERFLOW, "Value too large for data type"},
    {EDQUOT, "Quota exceeded"},
    {EOPNOTSUPP, "Not supported"},
    {ETIMEDOUT, "Operation timed out"},
    {ENOTTY, "Not a tty"},
    {ESPIPE, "Invalid seek"},
    {EILSEQ, "Illegal byte sequence"},
    {ECHILD, "No child process"},
    {EDOM, "Domain error"},
    {ERANGE, "Result not representable"},
};

const gchar *
esd_fs_strerror(gint errnum)
{
	const gchar *text;

	for (guint i = 0; i < G_N_ELEMENTS(esd_fs_musl_texts); i++) {
		if (esd_fs_musl_texts[i].errnum == errnum)
			return esd_fs_musl_texts[i].text;
	}
	text = strerrordesc_np(errnum);
	return text != NULL ? text : "Unknown error";
}

/*
 * The protocol's classification of OS errors: not-found, invalid input or
 * permission (both -32600), everything else internal. Always returns FALSE.
 */
gboolean
esd_fs_set_errno(GError **error, gint errnum)
{
	ErpcError code;

	switch (errnum) {
	case ENOENT:
		code = ERPC_ERROR_NOT_FOUND;
		break;
	case EACCES:
	case EPERM:
		code = ERPC_ERROR_PERMISSION_DENIED;
		break;
	case EINVAL:
		code = ERPC_ERROR_INVALID_REQUEST;
		break;
	default:
		code = ERPC_ERROR_INTERNAL;
		break;
	}
	g_set_error(error, ERPC_ERROR, code, "%s (os error %d)", esd_fs_strerror(errnum), errnum);
	return FALSE;
}

gboolean
esd_fs_not_a_file(GError **error, const gchar *path)
{
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST, "path `%s` is not a file", path);
	return FALSE;
}

/* what the reference's URL serializer escapes in a file path, plus `\` for JSON */
static gboolean
esd_fs_uri_escaped(guchar c)
{
	if (c <= 0x20 || c >= 0x7f)
		return TRUE;
	return strchr("\"#%<>?`{}\\", c) != NULL;
}

/* appends `file://` + the percent-encoded path, JSON-safe without quoting */
void
esd_fs_append_uri(GString *out, const gchar *path)
{
	static const gchar hex[] = "0123456789ABCDEF";
	const guchar *p = (const guchar *)path;
	gsize run = 0;

	g_string_append(out, "file://");
	for (gsize i = 0; p[i] != '\0'; i++) {
		if (!esd_fs_uri_escaped(p[i]))
			continue;
		g_string_append_len(out, path + run, (gssize)(i - run));
		g_string_append_c(out, '%');
		g_string_append_c(out, hex[p[i] >> 4]);
		g_string_append_c(out, hex[p[i] & 0xf]);
		run = i + 1;
	}
	g_string_append(out, path + run);
}

gchar *
esd_fs_path_to_uri(const gchar *path)
{
	GString *out = g_string_sized_new(strlen(path) + 16);
	esd_fs_append_uri(out, path);
	return g_string_free(out, FALSE);
}

/* the reference's words for invalid base64, or NULL when @text is valid */
gchar *
esd_fs_base64_describe_error(const gchar *text, gsize len)
{
	return erpc_base64_describe_error(text, len);
}

/*
 * Strict decoding with libexecrpc's decoder; its error texts are replaced by
 * the reference's when they differ. -32602, as a ByteChunk type error.
 */
GBytes *
esd_fs_base64_decode(const gchar *text, gsize len, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	g_autofree gchar *detail = NULL;
	GBytes *bytes;

	bytes = erpc_base64_decode(text, len, G_MAXSIZE, &error_local);
	if (bytes != NULL)
		return bytes;
	detail = esd_fs_base64_describe_error(text, len);
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    detail != NULL ? detail : error_local->message);
	return NULL;
}

/* reads up to @len bytes at @offset, stopping early only at end of file */
gboolean
esd_fs_read_all(gint fd, guint8 *buf, gsize len, guint64 offset, gsize *out_len, GError **error)
{
	gsize done = 0;

	while (done < len) {
		gssize n = pread(fd, buf + done, len - done, (off_t)(offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return esd_fs_set_errno(error, errno);
		}
		if (n == 0)
			break;
		done += (gsize)n;
	}
	*out_len = done;
	return TRUE;
}

/* writes all of @buf at @offset */
gboolean
esd_fs_write_all(gint fd, const guint8 *buf, gsize len, guint64 offset, GError **error)
{
	gsize done = 0;

	while (done < len) {
		gssize n = pwrite(fd, buf + done, len - done, (off_t)(offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return esd_fs_set_errno(error, errno);
		}
		if (n == 0) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INTERNAL,
					    "failed to write whole buffer");
			return FALSE;
		}
		done += (gsize)n;
	}
	return TRUE;
}
