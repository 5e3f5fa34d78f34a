/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-limits.h"
#include "esd-plugin-loader.h"

G_BEGIN_DECLS

#define ESD_TYPE_SERVER (esd_server_get_type())
G_DECLARE_FINAL_TYPE(EsdServer, esd_server, ESD, SERVER, GObject)

EsdServer *
esd_server_new(void);
ErpcRegistry *
esd_server_get_registry(EsdServer *self);
EsdPluginLoader *
esd_server_get_loader(EsdServer *self);
gboolean
esd_server_load_plugins(EsdServer *self, GError **error);
gboolean
esd_server_setup(EsdServer *self, GError **error);
void
esd_server_load_transports(EsdServer *self, const gchar *const *uris);
void
esd_server_set_listener_options(EsdServer *self, GVariant *options);
ErpcListener *
esd_server_listen(EsdServer *self, const gchar *uri, GError **error);
void
esd_server_add_transport(EsdServer *self, ErpcTransport *transport);

/**
 * EsdServerConnectionFlags:
 * @ESD_SERVER_CONNECTION_FLAG_NONE: the session stays resumable for
 *   `--session-grace` after the connection closes
 * @ESD_SERVER_CONNECTION_FLAG_END_SESSION: the session ends with the
 *   connection, and its processes with it (D-Bus connections)
 */
typedef enum {
	ESD_SERVER_CONNECTION_FLAG_NONE = 0,
	ESD_SERVER_CONNECTION_FLAG_END_SESSION = 1 << 0,
} EsdServerConnectionFlags;

ErpcConnection *
esd_server_add_transport_full(EsdServer *self,
			      ErpcTransport *transport,
			      EsdServerConnectionFlags flags);
gboolean
esd_server_is_idle(EsdServer *self);
void
esd_server_shutdown(EsdServer *self);

void
esd_server_set_limits(EsdServer *self, const EsdLimits *limits);

G_END_DECLS
