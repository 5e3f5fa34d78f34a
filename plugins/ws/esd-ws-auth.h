/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/* the outcome of an upgrade's authentication, PROTOCOL.md §2 */
typedef enum {
	ESD_WS_AUTH_OK,
	ESD_WS_AUTH_MISSING,
	ESD_WS_AUTH_BAD_HEADER,
	ESD_WS_AUTH_BAD_TOKEN,
	ESD_WS_AUTH_BAD_JWT,
	ESD_WS_AUTH_EXPIRED,
	ESD_WS_AUTH_NOT_YET_VALID,
	ESD_WS_AUTH_ISSUER_MISMATCH,
	ESD_WS_AUTH_AUDIENCE_MISMATCH,
} EsdWsAuthResult;

#define ESD_TYPE_WS_AUTH (esd_ws_auth_get_type())
G_DECLARE_FINAL_TYPE(EsdWsAuth, esd_ws_auth, ESD, WS_AUTH, GObject)

EsdWsAuth *
esd_ws_auth_new(GVariant *options, GError **error);
gboolean
esd_ws_auth_is_enabled(EsdWsAuth *self);
EsdWsAuthResult
esd_ws_auth_check(EsdWsAuth *self, SoupMessageHeaders *headers, gint64 now);
const gchar *
esd_ws_auth_result_to_string(EsdWsAuthResult result);

G_END_DECLS
