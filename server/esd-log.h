/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* what a log record is about: journal fields ESD_CONNECTION, ESD_PEER,
 * ESD_SESSION and ESD_PROCESS; 0 and NULL members are left out */
typedef struct {
	guint64 connection;
	const gchar *peer;
	const gchar *session;
	const gchar *process;
} EsdLogSubject;

void
esd_log(GLogLevelFlags level, const EsdLogSubject *subject, const gchar *format, ...)
    G_GNUC_PRINTF(3, 4);

G_END_DECLS
