/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GStrv
esd_activation_listen_uris(const gchar *const *listen,
			   const gchar *const *requested,
			   gboolean dbus);

G_END_DECLS
