/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-discovery-limits.h"

G_BEGIN_DECLS

/* a directory the walk could not list */
typedef struct {
	gchar *path;	/* absolute, as reached from the root */
	gchar *message; /* `Permission denied (os error 13)` */
} EsdDiscoveryWalkError;

typedef struct {
	GPtrArray *files;  /* absolute paths of the regular files seen, in walk order */
	GPtrArray *errors; /* of EsdDiscoveryWalkError */
	gboolean truncated;
} EsdDiscoveryWalk;

EsdDiscoveryWalk *
esd_discovery_walk(const gchar *root, const EsdDiscoveryLimits *limits);
void
esd_discovery_walk_free(EsdDiscoveryWalk *walk);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdDiscoveryWalk, esd_discovery_walk_free)

G_END_DECLS
