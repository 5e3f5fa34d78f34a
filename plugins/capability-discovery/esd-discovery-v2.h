/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-discovery-limits.h"

G_BEGIN_DECLS

void
esd_discovery_v2(const gchar *codex_home,
		 const gchar *home,
		 const EsdDiscoveryLimits *limits,
		 GString *out);

G_END_DECLS
