/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <execrpc-plugin.h>
#include <unistd.h>

G_BEGIN_DECLS

/* the reference refuses to read larger files whole */
#define ESD_FS_MAX_READ_FILE ((gsize)512 * 1024 * 1024)

/* closes a descriptor at scope exit and keeps errno (GLib 2.74 has no g_autofd) */
static inline void
esd_fs_close_fdp(gint *fd)
{
	if (*fd >= 0) {
		gint saved = errno;
		close(*fd);
		errno = saved;
		*fd = -1;
	}
}
#define esd_autofd __attribute__((cleanup(esd_fs_close_fdp)))

/* hands a descriptor over, like g_steal_fd() of GLib 2.70 but usable with esd_autofd */
static inline gint
esd_fs_steal_fd(gint *fd)
{
	gint ret = *fd;
	*fd = -1;
	return ret;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DIR, closedir)

const gchar *
esd_fs_strerror(gint errnum);
gboolean
esd_fs_set_errno(GError **error, gint errnum);
gboolean
esd_fs_not_a_file(GError **error, const gchar *path);
void
esd_fs_append_uri(GString *out, const gchar *path);
gchar *
esd_fs_path_to_uri(const gchar *path);
gchar *
esd_fs_base64_describe_error(const gchar *text, gsize len);
GBytes *
esd_fs_base64_decode(const gchar *text, gsize len, GError **error);
gboolean
esd_fs_read_all(gint fd, guint8 *buf, gsize len, guint64 offset, gsize *out_len, GError **error);
gboolean
esd_fs_write_all(gint fd, const guint8 *buf, gsize len, guint64 offset, GError **error);

G_END_DECLS
