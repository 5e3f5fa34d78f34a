/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client.h"

G_BEGIN_DECLS

/**
 * ERPC_ENVIRONMENT_LOCAL:
 *
 * The reserved id of the local environment: a private `execserverd
 * --listen stdio` started on demand.
 *
 * Since: 0.1
 */
#define ERPC_ENVIRONMENT_LOCAL "local"

/**
 * ErpcEnvironmentStatus:
 * @ERPC_ENVIRONMENT_STATUS_IDLE: configured, never connected
 * @ERPC_ENVIRONMENT_STATUS_CONNECTING: the first connection is being made
 * @ERPC_ENVIRONMENT_STATUS_READY: connected
 * @ERPC_ENVIRONMENT_STATUS_RECOVERING: the connection was lost and is being resumed
 * @ERPC_ENVIRONMENT_STATUS_DISCONNECTED: connecting failed, or recovery gave up
 *
 * What is known of an environment without connecting to it.
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_ENVIRONMENT_STATUS_IDLE,
	ERPC_ENVIRONMENT_STATUS_CONNECTING,
	ERPC_ENVIRONMENT_STATUS_READY,
	ERPC_ENVIRONMENT_STATUS_RECOVERING,
	ERPC_ENVIRONMENT_STATUS_DISCONNECTED,
} ErpcEnvironmentStatus;

#define ERPC_TYPE_ENVIRONMENT_STATUS (erpc_environment_status_get_type())
GType
erpc_environment_status_get_type(void);

#define ERPC_TYPE_ENVIRONMENT_MANAGER (erpc_environment_manager_get_type())
G_DECLARE_FINAL_TYPE(ErpcEnvironmentManager,
		     erpc_environment_manager,
		     ERPC,
		     ENVIRONMENT_MANAGER,
		     GObject)

ErpcEnvironmentManager *
erpc_environment_manager_new(void);
gboolean
erpc_environment_manager_load_file(ErpcEnvironmentManager *self, const gchar *path, GError **error);
gboolean
erpc_environment_manager_load_data(ErpcEnvironmentManager *self,
				   const gchar *data,
				   gssize len,
				   GError **error);
gchar *
erpc_environment_manager_get_codex_home(void);
gboolean
erpc_environment_manager_load_codex_home(ErpcEnvironmentManager *self,
					 const gchar *codex_home,
					 GError **error);
void
erpc_environment_manager_set_local_command(ErpcEnvironmentManager *self, const gchar *const *argv);
void
erpc_environment_manager_set_include_local(ErpcEnvironmentManager *self, gboolean include_local);
gboolean
erpc_environment_manager_upsert(ErpcEnvironmentManager *self,
				const gchar *id,
				GVariant *options,
				GError **error);
gboolean
erpc_environment_manager_remove(ErpcEnvironmentManager *self, const gchar *id, GError **error);
gchar **
erpc_environment_manager_list_ids(ErpcEnvironmentManager *self);
const gchar *
erpc_environment_manager_get_default_id(ErpcEnvironmentManager *self);
ErpcClient *
erpc_environment_manager_get_environment(ErpcEnvironmentManager *self,
					 const gchar *id,
					 GError **error);
ErpcEnvironmentStatus
erpc_environment_manager_get_status(ErpcEnvironmentManager *self, const gchar *id, GError **error);
JsonObject *
erpc_environment_manager_get_last_ready(ErpcEnvironmentManager *self,
					const gchar *id,
					gint64 *ready_time,
					GError **error);
void
erpc_environment_manager_wait_until_ready_async(ErpcEnvironmentManager *self,
						const gchar *id,
						GCancellable *cancellable,
						GAsyncReadyCallback callback,
						gpointer user_data);
ErpcClient *
erpc_environment_manager_wait_until_ready_finish(ErpcEnvironmentManager *self,
						 GAsyncResult *result,
						 GError **error);

G_END_DECLS
