/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gshort
esd_np_io_wait(gint fd, gshort events, gint cancel_fd, gint timeout_ms);
gssize
esd_np_io_read(gint fd, gpointer buffer, gsize len, gint cancel_fd, gint timeout_ms);
gboolean
esd_np_io_write_all(gint fd, gconstpointer buffer, gsize len, gint cancel_fd, gint timeout_ms);
gint
esd_np_io_dial(GInetAddress *address, guint16 port, gint cancel_fd, gint timeout_ms);
gchar *
esd_np_io_peer(gint fd, guint16 *port);
void
esd_np_io_set_error(GError **error, gint errnum, const gchar *what);

G_END_DECLS
