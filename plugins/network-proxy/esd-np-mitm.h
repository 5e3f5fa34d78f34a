/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

#include "esd-np-ca.h"
#include "esd-np-creds.h"

G_BEGIN_DECLS

/* where a tunnel goes, and how it may wait */
typedef struct {
	const gchar *host;	/* as the policy normalised it */
	const gchar *authority; /* the host as the CONNECT named it */
	guint16 port;
	gboolean limited; /* limited mode: read-only methods */
	gint cancel_fd;
	gint timeout_ms;
	const gchar *process_id; /* for the log */
} EsdNpMitmTarget;

void
esd_np_mitm_serve(EsdNpCa *ca,
		  const EsdNpCreds *creds,
		  const EsdNpMitmTarget *target,
		  gint client,
		  gint upstream,
		  const GByteArray *early);

G_END_DECLS
