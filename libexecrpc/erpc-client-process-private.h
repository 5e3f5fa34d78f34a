/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-client-private.h"

G_BEGIN_DECLS

/* the instance struct, shared by erpc-client-process.c and erpc-client-process-events.c */

typedef enum {
	ERPC_CLIENT_PROCESS_EVENT_OUTPUT,
	ERPC_CLIENT_PROCESS_EVENT_EXITED,
	ERPC_CLIENT_PROCESS_EVENT_CLOSED,
} ErpcClientProcessEventKind;

typedef struct {
	guint64 seq;
	ErpcClientProcessEventKind kind;
	gchar *stream;
	GBytes *data;
	gint exit_code;
} ErpcClientProcessEvent;

struct _ErpcClientProcess {
	GObject parent_instance;
	ErpcClient *client;
	gchar *process_id;
	gchar **argv;
	gchar *cwd;
	gchar **envp;
	gchar *inherit;
	gboolean tty;
	gboolean pipe_stdin;
	gboolean started;
	guint64 next_seq; /* the next seq to emit */
	GTree *waiting;	  /* seq → ErpcClientProcessEvent that arrived early */
	gboolean exited;
	gboolean closed;
	gint exit_code;
	gchar *write_prefix;
	guint64 writes;
};

void
_erpc_client_process_event_free(ErpcClientProcessEvent *event);
gint
_erpc_client_process_seq_cmp(gconstpointer a, gconstpointer b, gpointer user_data);
void
_erpc_client_process_emit(ErpcClientProcess *self, ErpcClientProcessEvent *event);
void
_erpc_client_process_params(ErpcClientProcess *self, JsonBuilder *builder);
void
_erpc_client_process_call(ErpcClientProcess *self,
			  const gchar *method,
			  JsonBuilder *builder,
			  guint flags,
			  gpointer source_tag,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
JsonNode *
_erpc_client_process_call_finish(ErpcClientProcess *self,
				 GAsyncResult *result,
				 gpointer source_tag,
				 GError **error);

G_END_DECLS
