/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _EsdNpPeerCache EsdNpPeerCache;

EsdNpPeerCache *
esd_np_peer_cache_new(void);
void
esd_np_peer_cache_free(EsdNpPeerCache *self);

gboolean
esd_np_peer_in_tree(guint16 peer_port, guint16 proxy_port, GPid root, EsdNpPeerCache *cache);

gboolean
esd_np_peer_udp_in_tree(guint16 peer_port, GPid root);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpPeerCache, esd_np_peer_cache_free)

G_END_DECLS
