/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-listener.h"

G_BEGIN_DECLS

/* for the daemon only: it starts and stops the listeners plugins provide */

gboolean
erpc_listener_listen(ErpcListener *self, const gchar *uri, GError **error);
void
erpc_listener_stop(ErpcListener *self);

G_END_DECLS
