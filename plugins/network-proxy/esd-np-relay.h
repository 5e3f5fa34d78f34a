/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void
esd_np_relay_run(gint a, gint b, gint cancel_fd);
gboolean
esd_np_relay_splice(gint src, gint dst, guint64 count, gint cancel_fd);

G_END_DECLS
