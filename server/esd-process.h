/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-spawn.h"
#include "esd-telemetry.h"

G_BEGIN_DECLS

#define ESD_TYPE_PROCESS (esd_process_get_type())
G_DECLARE_FINAL_TYPE(EsdProcess, esd_process, ESD, PROCESS, GObject)

/* esd-session.h includes this header */
typedef struct _EsdSession EsdSession;

/* where a process sends its notifications: the session's current connection */
typedef ErpcConnection *(*EsdProcessSinkFunc)(gpointer user_data);

EsdProcess *
esd_process_new(const gchar *id, gsize max_retained_bytes);
void
esd_process_set_sink(EsdProcess *self, EsdProcessSinkFunc func, gpointer user_data);
void
esd_process_set_sandbox(EsdProcess *self, gpointer data, GDestroyNotify release);
gboolean
esd_process_spawn(EsdProcess *self, const EsdSpawnRequest *request, GError **error);
const gchar *
esd_process_get_id(EsdProcess *self);
void
esd_process_set_attribution(EsdProcess *self,
			    const gchar *thread_id,
			    const gchar *tool_call_id,
			    gboolean tty);
void
esd_process_get_telemetry_subject(EsdProcess *self, EsdTelemetrySubject *subject);
gboolean
esd_process_count_network_record(EsdProcess *self);
void
esd_process_set_session(EsdProcess *self, EsdSession *session);
EsdSession *
esd_process_get_session(EsdProcess *self);
GPid
esd_process_get_pid(EsdProcess *self);
const gchar *
esd_process_get_failure_kind(EsdProcess *self);
void
esd_process_set_sandbox_type(EsdProcess *self, const gchar *sandbox_type);
const gchar *
esd_process_get_sandbox_type(EsdProcess *self);
gboolean
esd_process_is_starting(EsdProcess *self);
gboolean
esd_process_is_closed(EsdProcess *self);
void
esd_process_read(EsdProcess *self,
		 ErpcCall *call,
		 guint64 after_seq,
		 gboolean has_max_bytes,
		 guint64 max_bytes,
		 guint64 wait_ms);
const gchar *
esd_process_write(EsdProcess *self, const gchar *write_id, GBytes *data);
void
esd_process_interrupt(EsdProcess *self);
gboolean
esd_process_terminate(EsdProcess *self);
guint
esd_process_get_n_running(void);

G_END_DECLS
