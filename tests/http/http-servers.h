/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The servers the http tests talk to, each in a thread of its own so that
 * they answer while the test waits for the daemon: a SoupServer over HTTP
 * (echo, redirects, gzip, a request that never gets an answer), the same
 * over HTTPS with a self-signed certificate, a forward proxy that answers
 * every absolute-form request itself, and a raw socket server for what
 * libsoup will not send (a body shorter than its Content-Length, a body
 * held back until the test releases it, 100 MB written as fast as the
 * daemon reads).
 */
typedef struct _HttpServers HttpServers;

HttpServers *
http_servers_start(void);
void
http_servers_stop(HttpServers *self);

guint
http_servers_get_port(HttpServers *self);
guint
http_servers_get_tls_port(HttpServers *self);
guint
http_servers_get_proxy_port(HttpServers *self);
guint
http_servers_get_raw_port(HttpServers *self);

/* requests the HTTP and HTTPS servers received, and the proxy */
guint
http_servers_get_requests(HttpServers *self);
guint
http_servers_get_proxied(HttpServers *self);

/* the raw server: bytes of body written so far, whether the peer went */
guint64
http_servers_get_raw_written(HttpServers *self);
gboolean
http_servers_get_raw_aborted(HttpServers *self);
void
http_servers_release_hold(HttpServers *self);

G_END_DECLS
