/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The command-line flags that configure listeners (WebSocket authentication
 * and TLS), as given; esd_listener_flags_to_options() checks them and turns
 * them into the ErpcListener:options dictionary.
 */
typedef struct {
	gchar *ws_auth;
	gchar *ws_token_file;
	gchar *ws_token_sha256;
	gchar *ws_shared_secret_file;
	gchar *ws_issuer;
	gchar *ws_audience;
	gchar *ws_max_clock_skew_seconds;
	gchar *tls_certificate;
	gchar *tls_key;
	/* a value was refused while parsing: a usage error, exit status 2 */
	gboolean usage_error;
} EsdListenerFlags;

/* option keys, read by the ws plugin */
#define ESD_LISTENER_OPTION_WS_AUTH	     "ws-auth"			 /* s */
#define ESD_LISTENER_OPTION_WS_TOKEN_SHA256  "ws-token-sha256"		 /* ay, 32 bytes */
#define ESD_LISTENER_OPTION_WS_SHARED_SECRET "ws-shared-secret"		 /* ay */
#define ESD_LISTENER_OPTION_WS_ISSUER	     "ws-issuer"		 /* s */
#define ESD_LISTENER_OPTION_WS_AUDIENCE	     "ws-audience"		 /* s */
#define ESD_LISTENER_OPTION_WS_CLOCK_SKEW    "ws-max-clock-skew-seconds" /* x */
#define ESD_LISTENER_OPTION_TLS_CERTIFICATE  "tls-certificate"		 /* s, absolute */
#define ESD_LISTENER_OPTION_TLS_KEY	     "tls-key"			 /* s, absolute */

const GOptionEntry *
esd_listener_flags_get_entries(void);
GVariant *
esd_listener_flags_to_options(EsdListenerFlags *flags,
			      const gchar *const *listen,
			      GError **error) G_GNUC_WARN_UNUSED_RESULT;
void
esd_listener_flags_clear(EsdListenerFlags *flags);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdListenerFlags, esd_listener_flags_clear)

G_END_DECLS
