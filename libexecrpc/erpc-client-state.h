/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client-private.h"
#include "erpc-connection.h"

G_BEGIN_DECLS

/* the instance struct, shared by erpc-client.c (the object) and erpc-client-session.c */

#define ERPC_CLIENT_DEFAULT_CONNECT_TIMEOUT_MS	  10000
#define ERPC_CLIENT_DEFAULT_RECOVERY_TIMEOUT_MS	  30000
#define ERPC_CLIENT_DEFAULT_INITIALIZE_TIMEOUT_MS 10000
#define ERPC_CLIENT_DEFAULT_KEEPALIVE_MS	  10000
#define ERPC_CLIENT_MAX_MESSAGE_SIZE		  (256 * 1024 * 1024)
/* pause between recovery attempts: doubles from the first to the last */
#define ERPC_CLIENT_RETRY_FIRST_MS 50
#define ERPC_CLIENT_RETRY_MAX_MS   1000

typedef enum {
	ERPC_CLIENT_KIND_URL,
	ERPC_CLIENT_KIND_COMMAND,
	ERPC_CLIENT_KIND_STREAM,
} ErpcClientKind;

struct _ErpcClient {
	GObject parent_instance;
	ErpcClientKind kind;
	gchar *url;
	gchar **argv;	   /* KIND_COMMAND */
	gchar **envp;	   /* KIND_COMMAND: NAME=value added to its environment */
	gchar *cwd;	   /* KIND_COMMAND: its working directory */
	GIOStream *stream; /* KIND_STREAM, until the first connection takes it */
	GSubprocess *subprocess;
	gchar *client_name;
	GPtrArray *headers; /* name, value, name, value… */
	gchar *bearer_token;
	GProxyResolver *proxy_resolver;
	GTlsDatabase *tls_database;
	guint connect_timeout_ms;
	guint recovery_timeout_ms;
	guint initialize_timeout_ms;
	guint keepalive_ms;
	gsize max_message_size;

	GMainContext *context; /* the thread-default context at construction */
	ErpcClientState state;
	gchar *session_id;
	JsonObject *environment_info;
	ErpcConnection *connection;
	gulong message_id;
	gulong closed_id;
	gulong malformed_id;

	gint64 next_id;
	GHashTable *pending;   /* request id → ErpcClientPending */
	GQueue order;	       /* ErpcClientPending in id order */
	GHashTable *processes; /* processId → ErpcClientProcess, not owned */
	GPtrArray *live;       /* started and not yet closed: owned */

	GTask *connect_task;
	gint64 connect_started;	       /* monotonic time connect_async() began */
	gboolean connect_observed;     /* the attempt is reported: not a refresh's */
	gboolean observe_next_connect; /* cleared by a refresh for its own connect */
	gboolean established;	       /* ready since the last connect_async() */
	gboolean quiet_disconnect;     /* close() and refresh are not a loss */
	gint64 last_ready_time;	       /* monotonic time of the last accepted ready */
	gulong connect_cancelled_id;
	guint attempt; /* generation of the current connection attempt */
	GCancellable *attempt_cancellable;
	guint retry_id;
	guint deadline_id;
	guint initialize_id;	     /* the initialize deadline */
	gboolean initialize_expired; /* the handshake failed because of it */
	guint retry_delay_ms;
};

/* sent while the handshake runs, never repeated */
#define ERPC_CLIENT_CALL_INTERNAL_HANDSHAKE (1u << 9)

/* erpc-client-call.c */
void
_erpc_client_flush(ErpcClient *self);
void
_erpc_client_fail_all(ErpcClient *self, const GError *error);
void
_erpc_client_handle_answer(ErpcClient *self, ErpcMessage *message);
void
_erpc_client_requeue(ErpcClient *self, gboolean keep);

/* erpc-client.c */
void
_erpc_client_emit_attempt(ErpcClient *self, ErpcClientAttemptOutcome outcome, const GError *error);
void
_erpc_client_emit_ready(ErpcClient *self);
void
_erpc_client_emit_disconnected(ErpcClient *self, const GError *error);
void
_erpc_client_set_state(ErpcClient *self, ErpcClientState state);
void
_erpc_client_set_session(ErpcClient *self, const gchar *session_id, JsonObject *info);
void
_erpc_client_emit_notification(ErpcClient *self, const gchar *method, JsonNode *params);
void
_erpc_client_catch_up_processes(ErpcClient *self);
ErpcClientWsOptions *
_erpc_client_ws_options_new(ErpcClient *self);

G_END_DECLS
