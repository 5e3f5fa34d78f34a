/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* what a plugin manifest says about its other files */
typedef struct {
	gchar *mcp_config;   /* the declared `mcpServers` file, relative to the root, or NULL */
	gboolean mcp_inline; /* `mcpServers` is an object: no file at all */
	gchar *apps_config;  /* the declared `apps` file, relative to the root, or NULL */
	gchar *name;	     /* `name`, or NULL */
	gchar *display_name; /* `interface.displayName`, or NULL */
	gchar *skills;	     /* the declared `skills` directory, relative to the root, or NULL */
} EsdDiscoveryManifest;

void
esd_discovery_manifest_parse(const gchar *contents,
			     gsize len,
			     const gchar *manifest_uri,
			     EsdDiscoveryManifest *manifest,
			     GPtrArray *warnings);
void
esd_discovery_manifest_clear(EsdDiscoveryManifest *manifest);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdDiscoveryManifest, esd_discovery_manifest_clear)

G_END_DECLS
