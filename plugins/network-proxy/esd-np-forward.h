/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

#include "esd-np-http1.h"

G_BEGIN_DECLS

/* one plain HTTP request through the proxy, its head already sent upstream */
typedef struct {
	gint client;   /* non-blocking */
	gint upstream; /* non-blocking */
	const gchar *method;
	gboolean upgrade;    /* the request asks for one: a 101 may answer it */
	EsdNpBody body;	     /* the request's, from its headers */
	const guint8 *early; /* what the client sent after the head */
	gsize early_len;
	gint cancel_fd;
	gint timeout_ms; /* for each write */
} EsdNpForward;

void
esd_np_forward_run(EsdNpForward *forward);

G_END_DECLS
