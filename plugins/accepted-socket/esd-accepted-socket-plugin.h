/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_ACCEPTED_SOCKET_PLUGIN (esd_accepted_socket_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdAcceptedSocketPlugin,
		     esd_accepted_socket_plugin,
		     ESD,
		     ACCEPTED_SOCKET_PLUGIN,
		     ErpcPlugin)

G_END_DECLS
