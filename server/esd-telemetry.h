/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* the log domain of the lifecycle records */
#define ESD_TELEMETRY_LOG_DOMAIN "execserverd-telemetry"

/* who a record is about; every member may be NULL */
typedef struct {
	const gchar *session_id;
	const gchar *process_id;
	const gchar *thread_id;
	const gchar *tool_call_id;
} EsdTelemetrySubject;

void
esd_telemetry_process_started(const EsdTelemetrySubject *subject, gboolean sandboxed, gboolean tty);
void
esd_telemetry_spawn_failed(const EsdTelemetrySubject *subject, const gchar *kind, gint error_code);
void
esd_telemetry_sandbox_denied(const EsdTelemetrySubject *subject, const gchar *stage);
void
esd_telemetry_process_exited(const EsdTelemetrySubject *subject,
			     gint exit_code,
			     gint signal_number,
			     gint64 duration_ms,
			     gboolean sandbox_denied);
void
esd_telemetry_network_decision(const EsdTelemetrySubject *subject,
			       const gchar *decision,
			       const gchar *source,
			       const gchar *reason,
			       const gchar *protocol,
			       const gchar *host,
			       gint64 port);

G_END_DECLS
