/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * What a sandbox that shares the host's network must still not reach: the
 * daemon's own abstract Unix sockets and unauthenticated TCP listeners,
 * and an abstract session bus. Mounts cannot hide those; Landlock can
 * (abstract scoping, Linux 6.12; TCP connect rules, Linux 6.7).
 */
void
esd_landlock_hide_abstract_sockets(void);
void
esd_landlock_hide_tcp_port(guint16 port);
void
esd_landlock_reset(void);

gint
esd_landlock_abi(void);

/* a ruleset for landlock_restrict_self(), built once and owned by this module (do
 * not close it); -1 without error when nothing is to be hidden, -1 with @error when
 * this kernel cannot hide it */
gint
esd_landlock_get_ruleset(GError **error);

/* in the child, before exec: async-signal-safe; returns 0 or an errno */
gint
esd_landlock_restrict_self(gint ruleset_fd);

G_END_DECLS
