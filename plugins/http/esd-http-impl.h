/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/*
 * What the http plugin (libesd-plugin-http.so, registration and options
 * only) loads on the first http/request: libesd-http-request.so next to
 * it, which holds the requests and libsoup, and exports one symbol,
 * ESD_HTTP_IMPL_SYMBOL. A daemon that makes no request maps neither.
 */
#define ESD_HTTP_IMPL_MODULE "libesd-http-request.so"
#define ESD_HTTP_IMPL_SYMBOL "esd_http_impl_get"

/* the plugin's options, read by the requests on every use */
typedef struct {
	gint64 max_body;   /* --http-max-body-bytes */
	gint max_streams;  /* --http-max-streams */
	gint max_requests; /* --http-max-requests */
} EsdHttpLimits;

typedef struct _EsdHttpContext EsdHttpContext;

typedef struct {
	const gchar *build_id; /* ERPC_BUILD_ID, which must equal the plugin's */
	EsdHttpContext *(*context_new)(const EsdHttpLimits *limits);
	void (*context_free)(EsdHttpContext *context);
	void (*request)(EsdHttpContext *context, ErpcCall *call, JsonObject *params);
	void (*connection_closed)(EsdHttpContext *context, ErpcConnection *connection);
} EsdHttpImpl;

typedef const EsdHttpImpl *(*EsdHttpImplGetFunc)(void);

G_END_DECLS
