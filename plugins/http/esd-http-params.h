/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* what an http/request asks for, checked; see esd_http_params_parse() */
typedef struct {
	gchar *method;
	GUri *uri;  /* absolute http or https, without user info */
	gchar *url; /* the URL as error messages show it */
	gchar *request_id;
	GPtrArray *names;  /* lower-case request header names, grouped */
	GPtrArray *values; /* the values, index by index */
	GBytes *body;	   /* nullable */
	gint64 timeout_ms; /* -1: none */
	gboolean follow;   /* redirectPolicy follow */
	gboolean stream;   /* streamResponse */
} EsdHttpParams;

void
esd_http_params_free(EsdHttpParams *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdHttpParams, esd_http_params_free)

/* how the parser reads the daemon's environment, so that tests and the fuzzer can fake it */
typedef const gchar *(*EsdHttpGetenvFunc)(const gchar *name);

gboolean
esd_http_is_token(const gchar *text);
gboolean
esd_http_is_header_value(const gchar *text);
gboolean
esd_http_env_var_is_denied(const gchar *name);
GUri *
esd_http_parse_url(const gchar *text, gchar **shown, GError **error);
EsdHttpParams *
esd_http_params_parse(JsonObject *params, EsdHttpGetenvFunc getenv_func, GError **error);

G_END_DECLS
