/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_CAPABILITY_DISCOVERY_PLUGIN (esd_capability_discovery_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdCapabilityDiscoveryPlugin,
		     esd_capability_discovery_plugin,
		     ESD,
		     CAPABILITY_DISCOVERY_PLUGIN,
		     ErpcPlugin)

G_END_DECLS
