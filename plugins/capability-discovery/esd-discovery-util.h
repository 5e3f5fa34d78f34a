/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

const gchar *
esd_discovery_strerror(gint errnum);
gchar *
esd_discovery_os_error(gint errnum);
gchar *
esd_discovery_utf8_error(const gchar *data, gsize len);
gchar *
esd_discovery_path_uri(const gchar *path);
gchar *
esd_discovery_join(const gchar *dir, const gchar *rel);

G_END_DECLS

#include <execrpc.h>

#include "esd-discovery-limits.h"

G_BEGIN_DECLS

void
esd_discovery_write_limits(ErpcJsonWriter *writer, const EsdDiscoveryLimits *limits);
void
esd_discovery_read_limits(JsonObject *obj, EsdDiscoveryLimits *limits);
gboolean
esd_discovery_answer_check(const gchar *answer, GError **error);

G_END_DECLS
