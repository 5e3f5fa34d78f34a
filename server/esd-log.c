/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-log.h"

/*
 * The daemon's records about connections and sessions, with the subject as
 * fields of their own, so that the journal can select them
 * (`journalctl ESD_SESSION=…`). The message says the same for text logs.
 * Callers pass ids and peer addresses only: never a credential.
 */

/* syslog's priority of a GLib level, which g_log_structured_array() leaves to us */
static const gchar *
esd_log_priority(GLogLevelFlags level)
{
	switch (level & G_LOG_LEVEL_MASK) {
	case G_LOG_LEVEL_ERROR:
		return "3";
	case G_LOG_LEVEL_CRITICAL:
		return "4";
	case G_LOG_LEVEL_WARNING:
		return "4";
	case G_LOG_LEVEL_MESSAGE:
		return "5";
	case G_LOG_LEVEL_INFO:
		return "6";
	case G_LOG_LEVEL_DEBUG:
	default:
		return "7";
	}
}

void
esd_log(GLogLevelFlags level, const EsdLogSubject *subject, const gchar *format, ...)
{
	g_autofree gchar *message = NULL;
	g_autofree gchar *connection = NULL;
	GLogField fields[8];
	gsize n = 0;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	fields[n++] = (GLogField){"MESSAGE", message, -1};
	fields[n++] = (GLogField){"PRIORITY", esd_log_priority(level), -1};
	fields[n++] = (GLogField){"GLIB_DOMAIN", G_LOG_DOMAIN, -1};
	if (subject->connection > 0) {
		connection = g_strdup_printf("%" G_GUINT64_FORMAT, subject->connection);
		fields[n++] = (GLogField){"ESD_CONNECTION", connection, -1};
	}
	if (subject->peer != NULL)
		fields[n++] = (GLogField){"ESD_PEER", subject->peer, -1};
	if (subject->session != NULL)
		fields[n++] = (GLogField){"ESD_SESSION", subject->session, -1};
	if (subject->process != NULL)
		fields[n++] = (GLogField){"ESD_PROCESS", subject->process, -1};
	g_log_structured_array(level, fields, n);
}
