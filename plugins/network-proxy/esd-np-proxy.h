/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-np-ca.h"
#include "esd-np-config.h"
#include "esd-np-creds.h"
#include "esd-np-notes.h"

G_BEGIN_DECLS

#define ESD_TYPE_NP_PROXY (esd_np_proxy_get_type())
G_DECLARE_FINAL_TYPE(EsdNpProxy, esd_np_proxy, ESD, NP_PROXY, GObject)

EsdNpProxy *
esd_np_proxy_new(EsdNpConfig *config,
		 ErpcLaunch *launch,
		 EsdNpNotes *notes,
		 EsdNpCa *ca,
		 EsdNpCreds *creds,
		 GError **error);
guint16
esd_np_proxy_get_port(EsdNpProxy *self);
guint16
esd_np_proxy_get_socks_port(EsdNpProxy *self);
void
esd_np_proxy_attach_channel(EsdNpProxy *self, gint fd);
guint
esd_np_proxy_get_udp_relays(EsdNpProxy *self);
void
esd_np_proxy_exiting(EsdNpProxy *self);
void
esd_np_proxy_stop(EsdNpProxy *self);
void
esd_np_proxy_deliver_note(gpointer data, gpointer unused);
void
esd_np_proxy_free_note(gpointer data);

G_END_DECLS
