/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <libsoup/soup.h>

#include "esd-http-impl.h"

G_BEGIN_DECLS

/* what every request of one plugin instance shares: the session, limits, counts */
struct _EsdHttpContext {
	const EsdHttpLimits *limits; /* the plugin's, which outlives the context */
	SoupSession *session;
	guint in_flight;
};

SoupSession *
esd_http_context_get_session(EsdHttpContext *self, GError **error);
gboolean
esd_http_context_take_request(EsdHttpContext *self, GError **error);
void
esd_http_context_release_request(EsdHttpContext *self);

G_END_DECLS
