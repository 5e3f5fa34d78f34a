/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The options of the ws plugin (WebSocket authentication and TLS), as given
 * on the command line or in the `[ws]` section of the config file;
 * esd_ws_options_to_variant() checks them and turns them into the dictionary
 * its listeners read (esd-ws-auth.c).
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
	guint from_file; /* bit i: value i came from the config file */
} EsdWsOptions;

/* the keys of the dictionary */
#define ESD_WS_OPTION_WS_AUTH	       "ws-auth"		   /* s */
#define ESD_WS_OPTION_WS_TOKEN_SHA256  "ws-token-sha256"	   /* ay, 32 bytes */
#define ESD_WS_OPTION_WS_SHARED_SECRET "ws-shared-secret"	   /* ay */
#define ESD_WS_OPTION_WS_ISSUER	       "ws-issuer"		   /* s */
#define ESD_WS_OPTION_WS_AUDIENCE      "ws-audience"		   /* s */
#define ESD_WS_OPTION_WS_CLOCK_SKEW    "ws-max-clock-skew-seconds" /* x */
#define ESD_WS_OPTION_TLS_CERTIFICATE  "tls-certificate"	   /* s, absolute */
#define ESD_WS_OPTION_TLS_KEY	       "tls-key"		   /* s, absolute */

GOptionGroup *
esd_ws_options_new_group(EsdWsOptions *options);
gboolean
esd_ws_options_load_config(EsdWsOptions *options,
			   GKeyFile *file,
			   const gchar *group,
			   GError **error);
const gchar *const *
esd_ws_options_get_config_keys(void);
GVariant *
esd_ws_options_to_variant(EsdWsOptions *options,
			  const gchar *const *listen,
			  GError **error) G_GNUC_WARN_UNUSED_RESULT;
void
esd_ws_options_clear(EsdWsOptions *options);

G_END_DECLS
