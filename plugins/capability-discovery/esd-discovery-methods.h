/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-discovery-cache.h"
#include "esd-discovery-limits.h"

G_BEGIN_DECLS

gboolean
esd_discovery_methods_register(ErpcRegistry *registry,
			       ErpcPlugin *plugin,
			       const EsdDiscoveryLimits *limits,
			       EsdDiscoveryCache *cache,
			       GError **error);

G_END_DECLS
