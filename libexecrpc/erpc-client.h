/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ERPC_CLIENT_ERROR:
 *
 * Errors of the client side itself: the connection, not the server's
 * answers. Errors the server answered come in %ERPC_ERROR, their wire code
 * mapped back with erpc_error_from_wire_code(); a recovery that did not
 * finish in time is %ERPC_ERROR_TIMED_OUT.
 *
 * Since: 0.1
 */
#define ERPC_CLIENT_ERROR (erpc_client_error_quark())

/**
 * ErpcClientError:
 * @ERPC_CLIENT_ERROR_DISCONNECTED: the client is not connected, or was closed
 * @ERPC_CLIENT_ERROR_CONNECTION_LOST: the connection was lost while a request
 *   that cannot be repeated safely was in flight; it may or may not have run
 * @ERPC_CLIENT_ERROR_SESSION_LOST: the server no longer knows the session
 * @ERPC_CLIENT_ERROR_HANDSHAKE: the WebSocket upgrade was refused or invalid
 * @ERPC_CLIENT_ERROR_UNAUTHORIZED: the server refused the credentials (401)
 * @ERPC_CLIENT_ERROR_PROTOCOL: the server sent something the client cannot use
 * @ERPC_CLIENT_ERROR_INVALID_HEADER: a handshake header was refused
 * @ERPC_CLIENT_ERROR_INSECURE: credentials would cross the network unencrypted
 *
 * Error codes of %ERPC_CLIENT_ERROR.
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_CLIENT_ERROR_DISCONNECTED,
	ERPC_CLIENT_ERROR_CONNECTION_LOST,
	ERPC_CLIENT_ERROR_SESSION_LOST,
	ERPC_CLIENT_ERROR_HANDSHAKE,
	ERPC_CLIENT_ERROR_UNAUTHORIZED,
	ERPC_CLIENT_ERROR_PROTOCOL,
	ERPC_CLIENT_ERROR_INVALID_HEADER,
	ERPC_CLIENT_ERROR_INSECURE,
} ErpcClientError;

/**
 * ErpcClientState:
 * @ERPC_CLIENT_STATE_DISCONNECTED: not connected; requests fail at once
 * @ERPC_CLIENT_STATE_CONNECTING: the first connection and handshake are running
 * @ERPC_CLIENT_STATE_READY: connected; requests are sent
 * @ERPC_CLIENT_STATE_RECOVERING: the transport was lost and the client is
 *   resuming its session; requests wait
 *
 * The state of an #ErpcClient. %ERPC_CLIENT_STATE_DISCONNECTED is only
 * entered when no recovery is possible any more.
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_CLIENT_STATE_DISCONNECTED,
	ERPC_CLIENT_STATE_CONNECTING,
	ERPC_CLIENT_STATE_READY,
	ERPC_CLIENT_STATE_RECOVERING,
} ErpcClientState;

/**
 * ErpcClientCallFlags:
 * @ERPC_CLIENT_CALL_FLAGS_NONE: no flags
 * @ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT: the request may be sent again after a
 *   recovery when its answer was lost
 *
 * Flags of erpc_client_call_async().
 *
 * Since: 0.1
 */
typedef enum {
	ERPC_CLIENT_CALL_FLAGS_NONE = 0,
	ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT = 1 << 0,
} ErpcClientCallFlags;

/**
 * ErpcClientAttemptOutcome:
 * @ERPC_CLIENT_ATTEMPT_SUCCEEDED: the client became ready
 * @ERPC_CLIENT_ATTEMPT_FAILED: the connection or its handshake failed
 * @ERPC_CLIENT_ATTEMPT_CANCELLED: the attempt was cancelled
 *
 * How an initial connection attempt ended (#ErpcClient::connection-attempt).
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_CLIENT_ATTEMPT_SUCCEEDED,
	ERPC_CLIENT_ATTEMPT_FAILED,
	ERPC_CLIENT_ATTEMPT_CANCELLED,
} ErpcClientAttemptOutcome;

#define ERPC_TYPE_CLIENT_ATTEMPT_OUTCOME (erpc_client_attempt_outcome_get_type())
#define ERPC_TYPE_CLIENT_STATE		 (erpc_client_state_get_type())
#define ERPC_TYPE_CLIENT_CALL_FLAGS	 (erpc_client_call_flags_get_type())
#define ERPC_TYPE_CLIENT		 (erpc_client_get_type())
G_DECLARE_FINAL_TYPE(ErpcClient, erpc_client, ERPC, CLIENT, GObject)

GQuark
erpc_client_error_quark(void);
GType
erpc_client_state_get_type(void);
GType
erpc_client_call_flags_get_type(void);
GType
erpc_client_attempt_outcome_get_type(void);

ErpcClient *
erpc_client_new(const gchar *url);
ErpcClient *
erpc_client_new_for_command(const gchar *const *argv);
ErpcClient *
erpc_client_new_for_stream(GIOStream *stream);
ErpcClient *
erpc_client_new_for_fd(gint fd, GError **error);

void
erpc_client_set_client_name(ErpcClient *self, const gchar *client_name);
gboolean
erpc_client_add_header(ErpcClient *self, const gchar *name, const gchar *value, GError **error);
void
erpc_client_set_bearer_token(ErpcClient *self, const gchar *token);
void
erpc_client_set_proxy_resolver(ErpcClient *self, GProxyResolver *resolver);
void
erpc_client_set_tls_database(ErpcClient *self, GTlsDatabase *database);
void
erpc_client_set_connect_timeout(ErpcClient *self, guint timeout_ms);
void
erpc_client_set_recovery_timeout(ErpcClient *self, guint timeout_ms);
guint
erpc_client_get_recovery_timeout(ErpcClient *self);
void
erpc_client_set_initialize_timeout(ErpcClient *self, guint timeout_ms);
void
erpc_client_set_keepalive_interval(ErpcClient *self, guint interval_ms);
guint
erpc_client_get_initialize_timeout(ErpcClient *self);

void
erpc_client_connect_async(ErpcClient *self,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
gboolean
erpc_client_connect_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_close(ErpcClient *self);

void
erpc_client_refresh_async(ErpcClient *self,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
gboolean
erpc_client_refresh_finish(ErpcClient *self, GAsyncResult *result, GError **error);
gint64
erpc_client_get_last_ready_time(ErpcClient *self);
ErpcClientState
erpc_client_get_state(ErpcClient *self);
const gchar *
erpc_client_get_url(ErpcClient *self);
const gchar *
erpc_client_get_session_id(ErpcClient *self);
JsonObject *
erpc_client_get_environment_info(ErpcClient *self);

void
erpc_client_call_async(ErpcClient *self,
		       const gchar *method,
		       JsonNode *params,
		       ErpcClientCallFlags flags,
		       GCancellable *cancellable,
		       GAsyncReadyCallback callback,
		       gpointer user_data);
JsonNode *
erpc_client_call_finish(ErpcClient *self, GAsyncResult *result, GError **error);

void
erpc_client_get_info_async(ErpcClient *self,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data);
JsonObject *
erpc_client_get_info_finish(ErpcClient *self, GAsyncResult *result, GError **error);
void
erpc_client_get_status_async(ErpcClient *self,
			     GCancellable *cancellable,
			     GAsyncReadyCallback callback,
			     gpointer user_data);
gchar *
erpc_client_get_status_finish(ErpcClient *self, GAsyncResult *result, GError **error);

G_END_DECLS
