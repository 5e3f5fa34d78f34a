/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define ESD_TYPE_WS_PEER_ADDRESS (esd_ws_peer_address_get_type())
G_DECLARE_FINAL_TYPE(EsdWsPeerAddress,
		     esd_ws_peer_address,
		     ESD,
		     WS_PEER_ADDRESS,
		     GInetSocketAddress)

EsdWsPeerAddress *
esd_ws_peer_address_new(GSocket *socket, GError **error);
GSocket *
esd_ws_peer_address_get_socket(EsdWsPeerAddress *self);

G_END_DECLS
