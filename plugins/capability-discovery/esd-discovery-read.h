/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-discovery-limits.h"

G_BEGIN_DECLS

/* a file read for a discovery: the TextFile of the protocol */
typedef struct {
	gchar *uri;
	gchar *contents; /* valid UTF-8, NUL-terminated */
	gsize len;
} EsdDiscoveryText;

void
esd_discovery_text_free(EsdDiscoveryText *text);
EsdDiscoveryText *
esd_discovery_text_copy(const EsdDiscoveryText *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdDiscoveryText, esd_discovery_text_free)

EsdDiscoveryText *
esd_discovery_read_text(const gchar *path,
			const EsdDiscoveryLimits *limits,
			gsize *budget,
			GPtrArray *warnings);

G_END_DECLS
