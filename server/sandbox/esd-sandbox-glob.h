/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* a deny glob that matches more paths than this fails the launch, as in the reference */
#define ESD_SANDBOX_GLOB_MAX_MATCHES 8192
/* and so does a scan that has to look at more directory entries than this */
#define ESD_SANDBOX_GLOB_MAX_VISITS 262144

gboolean
esd_sandbox_glob_match(const gchar *pattern, const gchar *path);
GPtrArray *
esd_sandbox_glob_expand(const gchar *pattern, guint max_depth, GError **error);

G_END_DECLS
