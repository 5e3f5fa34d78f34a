/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* one descriptor handed to the daemon, wrapped */
typedef struct {
	GSocket *socket;
	gint source_fd; /* the number it was passed as, for logs */
	gboolean listening;
} EsdSocketFd;

void
esd_socket_fd_free(EsdSocketFd *item);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdSocketFd, esd_socket_fd_free)

GPtrArray *
esd_socket_fds_take(const gchar *uri, GError **error);
gchar *
esd_socket_fds_peer_name(GSocket *socket);

G_END_DECLS
