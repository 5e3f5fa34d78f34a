/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

/* `proxy.credentialProviders`, parsed: an array of providers */
GPtrArray *
esd_np_creds_parse_providers(JsonNode *node, GError **error);

typedef struct _EsdNpCreds EsdNpCreds;

/* the environment a launch's secrets are read from and their placeholders put in */
typedef struct {
	const gchar *(*get)(gpointer data, const gchar *name);
	void (*set)(gpointer data, const gchar *name, const gchar *value);
	gpointer data;
} EsdNpCredsEnv;

EsdNpCreds *
esd_np_creds_new_full(GPtrArray *providers, const EsdNpCredsEnv *env);
EsdNpCreds *
esd_np_creds_new(GPtrArray *providers, ErpcLaunch *launch);
const gchar *
esd_np_creds_get_placeholder(const EsdNpCreds *self, const gchar *name);
guint
esd_np_creds_get_count(const EsdNpCreds *self);
gboolean
esd_np_creds_intercepts(const EsdNpCreds *self, const gchar *host, guint16 port);
guint
esd_np_creds_apply(const EsdNpCreds *self,
		   gboolean https,
		   const gchar *host,
		   guint16 port,
		   const gchar *path,
		   GPtrArray *headers);
void
esd_np_creds_free(EsdNpCreds *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpCreds, esd_np_creds_free)

G_END_DECLS
