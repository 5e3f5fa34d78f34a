/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * What one client may take of the daemon. Each has a flag; the defaults
 * leave room for an agent with many connections and long pipelines while a
 * misbehaving peer hits a limit long before it hurts the others.
 */
typedef struct {
	guint max_connections;		/* all transports at once */
	guint max_connections_per_peer; /* per IP address, loopback excepted */
	guint64 max_queued_bytes;	/* unsent output per connection before it is dropped */
	guint max_pending_requests;	/* requests waiting to run per connection */
	guint handshake_timeout;	/* seconds from connect to `initialized` */
	guint max_processes;		/* per session, running or retained */
	guint max_json_depth;		/* nesting of a message */
} EsdLimits;

#define ESD_LIMITS_DEFAULT                                                                         \
	{                                                                                          \
		.max_connections = 4096, .max_connections_per_peer = 128,                          \
		.max_queued_bytes = 512 * 1024 * 1024, .max_pending_requests = 4096,               \
		.handshake_timeout = 10, .max_processes = 1024, .max_json_depth = 64,              \
	}

G_END_DECLS
