/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * A WebSocket proxy in this process in front of a real server, as Codex's
 * environment-manager tests use: it rewrites the capabilities the server
 * reports (in initialize and environment/info), counts and records the
 * discovery requests that reach it, and can drop the connection on one.
 */

typedef struct {
	GHashTable *capabilities; /* name → GINT_TO_POINTER(value + 1) */
	guint drop_discovers;	  /* close both sides on the next N discoveries */
	guint discovers;	  /* discovery requests received */
	guint connections;
	JsonObject *last_params;
	/* private */
	gpointer server;
	gpointer session;
	gchar *upstream_url;
	GPtrArray *pairs;
	guint16 port;
} ErpcTestWsProxy;

ErpcTestWsProxy *
erpc_test_ws_proxy_new(const gchar *upstream_url);
void
erpc_test_ws_proxy_free(ErpcTestWsProxy *self);
gchar *
erpc_test_ws_proxy_get_url(ErpcTestWsProxy *self);
void
erpc_test_ws_proxy_rewrite(ErpcTestWsProxy *self, const gchar *capability, gboolean value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcTestWsProxy, erpc_test_ws_proxy_free)

G_END_DECLS
