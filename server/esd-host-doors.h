/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The ways back out of a sandbox that a restricted file system must close
 * whatever its network: this daemon's listening sockets, the buses and
 * service managers that start processes on request, and the secrets that
 * authenticate to this daemon. Each is handed to the sandbox module, which
 * masks the paths and keeps abstract sockets and TCP listeners out with
 * Landlock.
 */
typedef struct {
	const gchar *const *secret_files; /* plugins' erpc_context_hide_path(), absolute */
	gboolean tcp_authenticated;	  /* every TCP listener requires a token */
} EsdHostDoorsConfig;

void
esd_host_doors_close(const EsdHostDoorsConfig *config);

gchar **
esd_host_doors_parse_bus_address(const gchar *address, gboolean *abstract);

G_END_DECLS
