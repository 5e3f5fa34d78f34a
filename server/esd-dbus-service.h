/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-server.h"

G_BEGIN_DECLS

#define ESD_DBUS_SERVICE_NAME "dev.execserverd.ExecServer1"
#define ESD_DBUS_SERVICE_PATH "/dev/execserverd/ExecServer1"

#define ESD_TYPE_DBUS_SERVICE (esd_dbus_service_get_type())
G_DECLARE_FINAL_TYPE(EsdDBusService, esd_dbus_service, ESD, DBUS_SERVICE, GObject)

EsdDBusService *
esd_dbus_service_new(EsdServer *server, guint idle_timeout);
void
esd_dbus_service_set_allow_sandboxed(EsdDBusService *self, gboolean allow);
void
esd_dbus_service_start(EsdDBusService *self);

G_END_DECLS
