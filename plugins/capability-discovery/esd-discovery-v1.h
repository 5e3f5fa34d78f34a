/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-discovery-limits.h"

G_BEGIN_DECLS

void
esd_discovery_v1_root(const gchar *path,
		      const gchar *uri,
		      const EsdDiscoveryLimits *limits,
		      GString *out);
void
esd_discovery_v1_error(const gchar *error, GString *out);

G_END_DECLS
