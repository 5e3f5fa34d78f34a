/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean
esd_activation_has_systemd_sockets(void);
GStrv
esd_activation_listen_uris(const gchar *const *listen, gboolean dbus);

G_END_DECLS
