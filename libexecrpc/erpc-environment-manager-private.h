/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "erpc-environment-manager.h"

G_BEGIN_DECLS

/* shared by erpc-environment-manager.c (clients, status) and
 * erpc-environment-manager-config.c (the object, config, upsert) */

#define ERPC_ENVIRONMENT_ID_MAX 64

typedef struct {
	ErpcEnvironmentManager *manager; /* not owned */
	gchar *id;
	gchar *url;	       /* NULL for local */
	gint connect_timeout;  /* seconds, -1 for the client's default */
	gint recovery_timeout; /* seconds, -1 for the client's default */
	gchar **headers;       /* "Name: value" */
	gchar *token_file;
	gchar *ca_file;
	ErpcClient *client;
	gboolean attempted; /* the client left its first disconnected state */
} ErpcEnvironmentEntry;

struct _ErpcEnvironmentManager {
	GObject parent_instance;
	GHashTable *entries; /* id → ErpcEnvironmentEntry */
	gchar *default_id;
	gchar **local_argv;
	gboolean include_local;
};

void
_erpc_environment_entry_free(ErpcEnvironmentEntry *entry);
gboolean
_erpc_environment_id_validate(const gchar *id, gboolean allow_local, GError **error);
gboolean
_erpc_environment_entry_validate(ErpcEnvironmentEntry *entry, GError **error);
void
_erpc_environment_manager_emit_status(ErpcEnvironmentManager *self,
				      const gchar *id,
				      ErpcEnvironmentStatus status);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcEnvironmentEntry, _erpc_environment_entry_free)

G_END_DECLS
