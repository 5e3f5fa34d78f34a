/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gchar *
esd_np_policy_normalize_host(const gchar *host);
gboolean
esd_np_policy_pattern_is_valid(const gchar *pattern);
gboolean
esd_np_policy_pattern_matches(const gchar *pattern, const gchar *host);
gboolean
esd_np_policy_address_is_public(GInetAddress *address);
gboolean
esd_np_policy_host_is_local_literal(const gchar *host);

G_END_DECLS
