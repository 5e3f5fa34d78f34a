/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ESD_DISCOVERY_CACHE_ENTRIES_DEFAULT 1024

typedef struct _EsdDiscoveryCache EsdDiscoveryCache;

EsdDiscoveryCache *
esd_discovery_cache_new(guint max_entries);
void
esd_discovery_cache_free(EsdDiscoveryCache *cache);
void
esd_discovery_cache_set_max_entries(EsdDiscoveryCache *cache, guint max_entries);
gchar *
esd_discovery_cache_lookup(EsdDiscoveryCache *cache, const gchar *key);
gboolean
esd_discovery_cache_begin(EsdDiscoveryCache *cache, const gchar *key);
void
esd_discovery_cache_commit(EsdDiscoveryCache *cache, const gchar *answer);

/* called by the walk and the reads; no-ops outside a esd_discovery_cache_begin() */
void
esd_discovery_cache_note_dir(const gchar *path);
void
esd_discovery_cache_note_path(const gchar *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdDiscoveryCache, esd_discovery_cache_free)

G_END_DECLS
