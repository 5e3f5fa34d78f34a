/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-process.h"

G_BEGIN_DECLS

#define ESD_TYPE_SESSION (esd_session_get_type())
G_DECLARE_FINAL_TYPE(EsdSession, esd_session, ESD, SESSION, ErpcSession)

EsdSession *
esd_session_new(guint process_retention_seconds, gsize max_retained_bytes);
const gchar *
esd_session_get_id(EsdSession *self);
ErpcConnection *
esd_session_get_connection(EsdSession *self);
void
esd_session_attach(EsdSession *self, ErpcConnection *connection);
void
esd_session_detach(EsdSession *self);
gboolean
esd_session_is_attached(EsdSession *self);

EsdProcess *
esd_session_lookup_process(EsdSession *self, const gchar *id);
EsdProcess *
esd_session_new_process(EsdSession *self, const gchar *id);
void
esd_session_set_max_processes(EsdSession *self, guint max_processes);
gboolean
esd_session_check_process_limit(EsdSession *self, GError **error);
void
esd_session_remove_process(EsdSession *self, const gchar *id);
guint
esd_session_get_n_processes(EsdSession *self);
void
esd_session_terminate_all(EsdSession *self);

G_END_DECLS
