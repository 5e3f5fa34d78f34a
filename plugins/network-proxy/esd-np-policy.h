/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gchar *
esd_np_policy_normalize_host(const gchar *host);
gchar *
esd_np_policy_pattern_compile(const gchar *pattern,
			      const gchar *reject_global,
			      GPtrArray *globs,
			      GPtrArray *exact);
gboolean
esd_np_policy_glob_matches(const gchar *glob, const gchar *host);
gboolean
esd_np_policy_address_is_public(GInetAddress *address);
gboolean
esd_np_policy_host_is_local_literal(const gchar *host);

G_END_DECLS
