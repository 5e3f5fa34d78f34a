/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-environment.h"
#include "esd-telemetry.h"

/*
 * Lifecycle records of processes, attributed to the session and to the
 * client's thread and tool call (`process/start` `metadata`). They are
 * structured log records: under systemd every member is a journal field
 * (documented in README.md), elsewhere the MESSAGE is a line on stderr.
 *
 * What a command was given or produced never goes into a record: no
 * arguments, paths, environment values, output or error text. The values
 * that come from the client (ids) are cut to a bounded length and stripped
 * of control characters, so that a record stays one line and cannot forge
 * another field.
 */

/* stable ids, one per kind of record (journalctl MESSAGE_ID=…) */
#define ESD_TELEMETRY_ID_STARTED	"c5a5ba5318ba4d4395351ce8abefc6fd"
#define ESD_TELEMETRY_ID_SPAWN_FAILED	"b6fa7b41db1842bcbd66dc7c3f866b31"
#define ESD_TELEMETRY_ID_SANDBOX_DENIED "09f9e501323d4d1692e11263c3457944"
#define ESD_TELEMETRY_ID_EXITED		"7de0aa6eb2dc469bb8529ad0cb775139"
#define ESD_TELEMETRY_ID_NETWORK	"d59f92eb6c3741f49b52ec226f0a10a1"

/* the longest client-chosen value a record carries */
#define ESD_TELEMETRY_MAX_VALUE 128
/* a host name: RFC 1035 */
#define ESD_TELEMETRY_MAX_HOST	 253
#define ESD_TELEMETRY_MAX_FIELDS 20

/* syslog priorities */
#define ESD_TELEMETRY_PRIORITY_NOTICE "5"
#define ESD_TELEMETRY_PRIORITY_INFO   "6"

typedef struct {
	GLogField fields[ESD_TELEMETRY_MAX_FIELDS];
	gsize n_fields;
	GPtrArray *strings;
} EsdTelemetryRecord;

/* printable UTF-8 of at most @max bytes; anything else becomes '?' */
static gchar *
esd_telemetry_clean(const gchar *value, gsize max)
{
	GString *out = g_string_sized_new(MIN(strlen(value), max));
	const gchar *p = value;

	while (*p != '\0') {
		gunichar c = g_utf8_get_char_validated(p, -1);
		const gchar *next;
		if (c == (gunichar)-1 || c == (gunichar)-2) {
			next = p + 1;
			c = '?';
		} else {
			next = g_utf8_next_char(p);
			if (!g_unichar_isprint(c))
				c = '?';
		}
		if (out->len + (gsize)g_unichar_to_utf8(c, NULL) > max)
			break;
		g_string_append_unichar(out, c);
		p = next;
	}
	return g_string_free(out, FALSE);
}

static void
esd_telemetry_add_owned(EsdTelemetryRecord *record, const gchar *key, gchar *value)
{
	g_return_if_fail(record->n_fields < ESD_TELEMETRY_MAX_FIELDS);
	g_ptr_array_add(record->strings, value);
	record->fields[record->n_fields].key = key;
	record->fields[record->n_fields].value = value;
	record->fields[record->n_fields].length = -1;
	record->n_fields++;
}

static void
esd_telemetry_add(EsdTelemetryRecord *record, const gchar *key, const gchar *value, gsize max)
{
	if (value != NULL)
		esd_telemetry_add_owned(record, key, esd_telemetry_clean(value, max));
}

static void
esd_telemetry_add_int(EsdTelemetryRecord *record, const gchar *key, gint64 value)
{
	esd_telemetry_add_owned(record, key, g_strdup_printf("%" G_GINT64_FORMAT, value));
}

static const gchar *
esd_telemetry_executor_id(void)
{
	static gchar *id = NULL;
	if (g_once_init_enter(&id))
		g_once_init_leave(&id, esd_environment_provider_id());
	return id;
}

static void
esd_telemetry_record_init(EsdTelemetryRecord *record,
			  const gchar *message_id,
			  const gchar *event,
			  const EsdTelemetrySubject *subject)
{
	record->n_fields = 0;
	record->strings = g_ptr_array_new_with_free_func(g_free);
	esd_telemetry_add(record, "MESSAGE_ID", message_id, 32);
	esd_telemetry_add(record, "GLIB_DOMAIN", ESD_TELEMETRY_LOG_DOMAIN, 64);
	esd_telemetry_add(record, "ESD_EVENT", event, 64);
	esd_telemetry_add(record, "ESD_EXECUTOR_ID", esd_telemetry_executor_id(), 80);
	esd_telemetry_add(record, "ESD_EXECUTOR_VERSION", PACKAGE_VERSION, 32);
	esd_telemetry_add(record, "ESD_SESSION", subject->session_id, ESD_TELEMETRY_MAX_VALUE);
	esd_telemetry_add(record, "ESD_PROCESS", subject->process_id, ESD_TELEMETRY_MAX_VALUE);
	esd_telemetry_add(record, "ESD_THREAD_ID", subject->thread_id, ESD_TELEMETRY_MAX_VALUE);
	esd_telemetry_add(record,
			  "ESD_TOOL_CALL_ID",
			  subject->tool_call_id,
			  ESD_TELEMETRY_MAX_VALUE);
}

/* the MESSAGE names the subject too, for logs without fields */
static void
esd_telemetry_record_emit(EsdTelemetryRecord *record,
			  const EsdTelemetrySubject *subject,
			  const gchar *priority,
			  const gchar *what)
{
	g_autoptr(GString) message = g_string_new(NULL);
	g_autofree gchar *process =
	    esd_telemetry_clean(subject->process_id != NULL ? subject->process_id : "?",
				ESD_TELEMETRY_MAX_VALUE);
	g_autofree gchar *session =
	    esd_telemetry_clean(subject->session_id != NULL ? subject->session_id : "?",
				ESD_TELEMETRY_MAX_VALUE);

	g_string_append_printf(message, "process %s %s in session %s", process, what, session);
	if (subject->thread_id != NULL) {
		g_autofree gchar *v =
		    esd_telemetry_clean(subject->thread_id, ESD_TELEMETRY_MAX_VALUE);
		g_string_append_printf(message, " (thread %s", v);
	}
	if (subject->tool_call_id != NULL) {
		g_autofree gchar *v =
		    esd_telemetry_clean(subject->tool_call_id, ESD_TELEMETRY_MAX_VALUE);
		g_string_append_printf(message,
				       "%stool call %s",
				       subject->thread_id != NULL ? ", " : " (",
				       v);
	}
	if (subject->thread_id != NULL || subject->tool_call_id != NULL)
		g_string_append_c(message, ')');
	esd_telemetry_add_owned(record, "MESSAGE", g_string_free(g_steal_pointer(&message), FALSE));
	/* g_log_structured_array() does not add it, journald wants it; a
	 * failure is a notice there, but every record is info for the filters
	 * of the text log: a client's failing command is not the daemon's */
	esd_telemetry_add(record, "PRIORITY", priority, 1);
	g_log_structured_array(G_LOG_LEVEL_INFO, record->fields, record->n_fields);
	g_ptr_array_unref(record->strings);
}

void
esd_telemetry_process_started(const EsdTelemetrySubject *subject, gboolean sandboxed, gboolean tty)
{
	EsdTelemetryRecord record;

	esd_telemetry_record_init(&record, ESD_TELEMETRY_ID_STARTED, "process-started", subject);
	esd_telemetry_add_int(&record, "ESD_SANDBOXED", sandboxed);
	esd_telemetry_add_int(&record, "ESD_TTY", tty);
	esd_telemetry_record_emit(&record, subject, ESD_TELEMETRY_PRIORITY_INFO, "started");
}

void
esd_telemetry_spawn_failed(const EsdTelemetrySubject *subject, const gchar *kind, gint error_code)
{
	EsdTelemetryRecord record;
	g_autofree gchar *what = g_strdup_printf("failed to start: %s", kind);

	esd_telemetry_record_init(&record,
				  ESD_TELEMETRY_ID_SPAWN_FAILED,
				  "process-spawn-failed",
				  subject);
	esd_telemetry_add(&record, "ESD_FAILURE_KIND", kind, 64);
	if (error_code > 0)
		esd_telemetry_add_int(&record, "ESD_ERRNO", error_code);
	esd_telemetry_record_emit(&record, subject, ESD_TELEMETRY_PRIORITY_NOTICE, what);
}

void
esd_telemetry_sandbox_denied(const EsdTelemetrySubject *subject, const gchar *stage)
{
	EsdTelemetryRecord record;
	g_autofree gchar *what = g_strdup_printf("was denied by its sandbox (%s)", stage);

	esd_telemetry_record_init(&record,
				  ESD_TELEMETRY_ID_SANDBOX_DENIED,
				  "process-sandbox-denied",
				  subject);
	esd_telemetry_add(&record, "ESD_SANDBOX_STAGE", stage, 64);
	esd_telemetry_record_emit(&record, subject, ESD_TELEMETRY_PRIORITY_NOTICE, what);
}

void
esd_telemetry_process_exited(const EsdTelemetrySubject *subject,
			     gint exit_code,
			     gint signal_number,
			     gint64 duration_ms,
			     gboolean sandbox_denied)
{
	EsdTelemetryRecord record;
	g_autofree gchar *what = NULL;

	esd_telemetry_record_init(&record, ESD_TELEMETRY_ID_EXITED, "process-exited", subject);
	esd_telemetry_add_int(&record, "ESD_EXIT_CODE", exit_code);
	if (signal_number > 0)
		esd_telemetry_add_int(&record, "ESD_EXIT_SIGNAL", signal_number);
	esd_telemetry_add_int(&record, "ESD_DURATION_MS", duration_ms);
	esd_telemetry_add_int(&record, "ESD_SANDBOX_DENIED", sandbox_denied);
	if (signal_number > 0)
		what = g_strdup_printf("was killed by signal %d after %" G_GINT64_FORMAT " ms",
				       signal_number,
				       duration_ms);
	else
		what = g_strdup_printf("exited with code %d after %" G_GINT64_FORMAT " ms",
				       exit_code,
				       duration_ms);
	esd_telemetry_record_emit(&record, subject, ESD_TELEMETRY_PRIORITY_INFO, what);
}

/* a reason is a code such as `not_allowed_local`; free text from a decider is not logged */
static const gchar *
esd_telemetry_reason_code(const gchar *reason)
{
	if (reason == NULL || reason[0] == '\0' || strlen(reason) > 64)
		return reason != NULL ? "other" : NULL;
	for (const gchar *p = reason; *p != '\0'; p++) {
		if (!g_ascii_islower(*p) && !g_ascii_isdigit(*p) && *p != '_')
			return "other";
	}
	return reason;
}

void
esd_telemetry_network_decision(const EsdTelemetrySubject *subject,
			       const gchar *decision,
			       const gchar *source,
			       const gchar *reason,
			       const gchar *protocol,
			       const gchar *host,
			       gint64 port)
{
	EsdTelemetryRecord record;
	g_autofree gchar *clean_decision = esd_telemetry_clean(decision, 16);
	g_autofree gchar *clean_host = esd_telemetry_clean(host != NULL ? host : "?", 64);
	g_autofree gchar *what = g_strdup_printf("network request to %s:%" G_GINT64_FORMAT ": %s",
						 clean_host,
						 port,
						 clean_decision);

	esd_telemetry_record_init(&record, ESD_TELEMETRY_ID_NETWORK, "network-decision", subject);
	esd_telemetry_add(&record, "ESD_NETWORK_DECISION", decision, 16);
	esd_telemetry_add(&record, "ESD_NETWORK_SOURCE", source, 32);
	esd_telemetry_add(&record, "ESD_NETWORK_REASON", esd_telemetry_reason_code(reason), 64);
	esd_telemetry_add(&record, "ESD_NETWORK_PROTOCOL", protocol, 32);
	esd_telemetry_add(&record, "ESD_NETWORK_HOST", host, ESD_TELEMETRY_MAX_HOST);
	if (port >= 0 && port <= G_MAXUINT16)
		esd_telemetry_add_int(&record, "ESD_NETWORK_PORT", port);
	esd_telemetry_record_emit(&record, subject, ESD_TELEMETRY_PRIORITY_INFO, what);
}
