/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-discovery-cache.h"
#include "esd-discovery-read.h"
#include "esd-discovery-util.h"

/*
 * One optional file of a capability root, read as the reference reads it:
 * a missing file is no file and no warning; what is not a regular file is
 * skipped without being opened (so a FIFO or a device never blocks the
 * walk); a file over max-file-bytes, a root over max-root-bytes, a read
 * error or bytes that are not UTF-8 are a warning in the reference's words.
 * The file is opened non-blocking and checked again after the open, so a
 * file swapped for a FIFO after the stat is not waited on either; the read
 * stops at the limit whatever the size said.
 */

void
esd_discovery_text_free(EsdDiscoveryText *text)
{
	if (text == NULL)
		return;
	g_free(text->uri);
	g_free(text->contents);
	g_free(text);
}

EsdDiscoveryText *
esd_discovery_text_copy(const EsdDiscoveryText *text)
{
	EsdDiscoveryText *copy = g_new0(EsdDiscoveryText, 1);
	copy->uri = g_strdup(text->uri);
	copy->contents = g_memdup2(text->contents, text->len + 1);
	copy->len = text->len;
	return copy;
}

static void
esd_discovery_warn_errno(GPtrArray *warnings, const gchar *what, const gchar *path, gint errnum)
{
	g_autofree gchar *uri = esd_discovery_path_uri(path);
	g_autofree gchar *message = esd_discovery_os_error(errnum);
	g_ptr_array_add(warnings,
			g_strdup_printf("failed to %s capability file %s: %s", what, uri, message));
}

/* at most @max + 1 bytes of @fd, so that a longer file shows as too long; NULL with errno */
static GByteArray *
esd_discovery_read_fd(gint fd, gsize size_hint, gsize max)
{
	g_autoptr(GByteArray) data = g_byte_array_sized_new((guint)MIN(size_hint, max) + 1);

	for (;;) {
		guint8 buf[65536];
		gsize want = MIN(sizeof(buf), max + 1 - data->len);
		gssize n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		if (n == 0)
			break;
		g_byte_array_append(data, buf, (guint)n);
		if (data->len > max)
			break;
	}
	return g_steal_pointer(&data);
}

/**
 * esd_discovery_read_text:
 * @path: an absolute path
 * @limits: max-file-bytes and max-root-bytes
 * @budget: (inout): the bytes read for the root so far
 * @warnings: (element-type utf8): where the warnings go
 *
 * Returns: (transfer full) (nullable): the file, or %NULL when there is none to give
 */
EsdDiscoveryText *
esd_discovery_read_text(const gchar *path,
			const EsdDiscoveryLimits *limits,
			gsize *budget,
			GPtrArray *warnings)
{
	g_autoptr(GByteArray) data = NULL;
	g_autofree gchar *utf8_error = NULL;
	EsdDiscoveryText *text;
	struct stat st;
	gint fd;

	esd_discovery_cache_note_path(path);
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			esd_discovery_warn_errno(warnings, "inspect", path, errno);
		return NULL;
	}
	if (!S_ISREG(st.st_mode))
		return NULL;
	if ((guint64)st.st_size > limits->max_file_bytes) {
		g_autofree gchar *uri = esd_discovery_path_uri(path);
		g_ptr_array_add(warnings,
				g_strdup_printf("capability file %s exceeds the %" G_GSIZE_FORMAT
						"-byte limit",
						uri,
						limits->max_file_bytes));
		return NULL;
	}
	if (*budget + (gsize)st.st_size > limits->max_root_bytes) {
		g_ptr_array_add(
		    warnings,
		    g_strdup_printf("capability root bundle exceeds the %" G_GSIZE_FORMAT
				    "-byte limit",
				    limits->max_root_bytes));
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		esd_discovery_warn_errno(warnings, "read", path, errno);
		return NULL;
	}
	/* swapped for something else since the stat: not a file to read */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	data = esd_discovery_read_fd(fd, (gsize)st.st_size, limits->max_file_bytes);
	if (data == NULL) {
		gint saved = errno;
		close(fd);
		esd_discovery_warn_errno(warnings, "read", path, saved);
		return NULL;
	}
	close(fd);
	if (data->len > limits->max_file_bytes || *budget + data->len > limits->max_root_bytes) {
		g_autofree gchar *uri = esd_discovery_path_uri(path);
		g_ptr_array_add(warnings,
				g_strdup_printf("capability file %s exceeded its read limit", uri));
		return NULL;
	}
	utf8_error = esd_discovery_utf8_error((const gchar *)data->data, data->len);
	if (utf8_error != NULL) {
		g_autofree gchar *uri = esd_discovery_path_uri(path);
		g_ptr_array_add(
		    warnings,
		    g_strdup_printf("capability file %s is not UTF-8: %s", uri, utf8_error));
		return NULL;
	}
	*budget += data->len;
	text = g_new0(EsdDiscoveryText, 1);
	text->uri = esd_discovery_path_uri(path);
	text->len = data->len;
	g_byte_array_append(data, (const guint8 *)"", 1);
	text->contents = (gchar *)g_byte_array_free(g_steal_pointer(&data), FALSE);
	return text;
}
