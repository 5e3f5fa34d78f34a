/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-environment-manager.h"

G_BEGIN_DECLS

/* shared by erpc-environment-manager.c (clients, status) and
 * erpc-environment-manager-config.c (the object, config, upsert) */

#define ERPC_ENVIRONMENT_ID_MAX 64
#define ERPC_ENVIRONMENTS_TOML	"environments.toml"
/* CODEX_EXEC_SERVER_URL's environment, as Codex names it */
#define ERPC_ENVIRONMENT_REMOTE "remote"

typedef struct {
	ErpcEnvironmentManager *manager; /* not owned */
	gchar *id;
	gchar *url;		    /* NULL for local and programs */
	gchar **argv;		    /* a `program` environment: program and args */
	gchar **envp;		    /* "NAME=value" added to its environment */
	gchar *cwd;		    /* its working directory */
	gint connect_timeout_ms;    /* -1 for the client's default */
	gint initialize_timeout_ms; /* -1 for the client's default */
	gint recovery_timeout_ms;   /* -1 for the client's default */
	gchar **headers;	    /* "Name: value" */
	gchar *bearer_token;	    /* auth_bearer_token */
	gchar *token_file;
	gchar *ca_file;
	ErpcClient *client;
	gboolean attempted; /* the client left its first disconnected state */
} ErpcEnvironmentEntry;

struct _ErpcEnvironmentManager {
	GObject parent_instance;
	GHashTable *entries; /* id → ErpcEnvironmentEntry */
	GPtrArray *retired;  /* ErpcClient of removed or replaced environments */
	gchar *default_id;
	gboolean default_set; /* default_id came from a config, NULL meaning none */
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

void
_erpc_environment_manager_emit_attempt(ErpcEnvironmentManager *self,
				       const gchar *id,
				       guint64 elapsed_us,
				       ErpcClientAttemptOutcome outcome,
				       const GError *error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcEnvironmentEntry, _erpc_environment_entry_free)

G_END_DECLS
