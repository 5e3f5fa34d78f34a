/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean
esd_np_peer_in_tree(guint16 peer_port, guint16 proxy_port, GPid root, GPid hint, GPid *holder);

gboolean
esd_np_peer_udp_in_tree(guint16 peer_port, GPid root);

G_END_DECLS
