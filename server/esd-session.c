/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-session-private.h"
#include "esd-expiry-queue.h"
#include "esd-session.h"

/*
 * A session outlives its connection: it is created by `initialize`, detached
 * when the connection goes, and may be resumed by a later `initialize` with
 * `resumeSessionId` until the server expires it. It owns the process table:
 * processes keep running and keep their output while detached, and a closed
 * process stays readable, with its id taken, for the retention time. When
 * the session goes, so does every process tree it started. Its id, its
 * connection and the requests plugins send its client are ErpcSession's.
 */
struct _EsdSession {
	ErpcSession parent_instance;
	GHashTable *processes;	   /* id → EsdProcess */
	EsdExpiryQueue *retention; /* closed processes, removed when they expire */
	guint process_retention;
	gsize max_retained_bytes;
	guint max_processes; /* 0: no limit */
};

G_DEFINE_TYPE(EsdSession, esd_session, ERPC_TYPE_SESSION)

const gchar *
esd_session_get_id(EsdSession *self)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), NULL);
	return erpc_session_get_id(ERPC_SESSION(self));
}

ErpcConnection *
esd_session_get_connection(EsdSession *self)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), NULL);
	return erpc_session_get_connection(ERPC_SESSION(self));
}

static ErpcConnection *
esd_session_sink_cb(gpointer user_data)
{
	return erpc_session_get_connection(ERPC_SESSION(user_data));
}

gboolean
esd_session_is_attached(EsdSession *self)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), FALSE);
	return erpc_session_get_connection(ERPC_SESSION(self)) != NULL;
}

void
esd_session_attach(EsdSession *self, ErpcConnection *connection)
{
	g_return_if_fail(ESD_IS_SESSION(self));
	g_return_if_fail(erpc_session_get_connection(ERPC_SESSION(self)) == NULL);
	erpc_session_set_connection(ERPC_SESSION(self), connection);
}

/*
 * notifications produced while detached are dropped; process/read catches
 * up; requests to the client fail
 */
void
esd_session_detach(EsdSession *self)
{
	g_return_if_fail(ESD_IS_SESSION(self));
	erpc_session_set_connection(ERPC_SESSION(self), NULL);
}

EsdProcess *
esd_session_lookup_process(EsdSession *self, const gchar *id)
{
	return g_hash_table_lookup(self->processes, id);
}

guint
esd_session_get_n_processes(EsdSession *self)
{
	return g_hash_table_size(self->processes);
}

static void
esd_session_retention_cb(gpointer item, gpointer user_data)
{
	EsdSession *self = ESD_SESSION(user_data);
	EsdProcess *process = ESD_PROCESS(item);
	g_autofree gchar *id = g_strdup(esd_process_get_id(process));

	/* the entry of a process that is gone may not remove a newer one */
	if (g_hash_table_lookup(self->processes, id) != process)
		return;
	g_debug("process %s: retention ended", id);
	g_hash_table_remove(self->processes, id);
}

static void
esd_session_process_closed_cb(EsdProcess *process, EsdSession *self)
{
	esd_expiry_queue_add(self->retention, process);
}

void
esd_session_set_max_processes(EsdSession *self, guint max_processes)
{
	g_return_if_fail(ESD_IS_SESSION(self));
	self->max_processes = max_processes;
}

/* whether another process fits: running and retained ones count */
gboolean
esd_session_check_process_limit(EsdSession *self, GError **error)
{
	g_return_val_if_fail(ESD_IS_SESSION(self), FALSE);
	if (self->max_processes == 0 || g_hash_table_size(self->processes) < self->max_processes)
		return TRUE;
	g_message("session %s: refusing a process beyond the limit of %u",
		  esd_session_get_id(self),
		  self->max_processes);
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_BUSY,
		    "too many processes in this session (limit %u)",
		    self->max_processes);
	return FALSE;
}

/* a new process in the table; the caller spawns it */
EsdProcess *
esd_session_new_process(EsdSession *self, const gchar *id)
{
	EsdProcess *process = esd_process_new(id, self->max_retained_bytes);

	esd_process_set_sink(process, esd_session_sink_cb, self);
	esd_process_set_session(process, self);
	g_signal_connect(process, "closed", G_CALLBACK(esd_session_process_closed_cb), self);
	g_hash_table_insert(self->processes, g_strdup(id), process);
	return process;
}

static void
esd_session_process_free(gpointer data)
{
	EsdProcess *process = ESD_PROCESS(data);

	/* the process may outlive us until its supervisor is reaped */
	g_signal_handlers_disconnect_matched(process,
					     G_SIGNAL_MATCH_FUNC,
					     0,
					     0,
					     NULL,
					     esd_session_process_closed_cb,
					     NULL);
	esd_process_set_sink(process, NULL, NULL);
	esd_process_set_session(process, NULL);
	esd_process_terminate(process);
	g_object_run_dispose(G_OBJECT(process));
	g_object_unref(process);
}

void
esd_session_remove_process(EsdSession *self, const gchar *id)
{
	EsdProcess *process = g_hash_table_lookup(self->processes, id);
	if (process == NULL)
		return;
	esd_expiry_queue_remove(self->retention, process);
	g_hash_table_remove(self->processes, id);
}

/* kills every process tree of the session and forgets them */
void
esd_session_terminate_all(EsdSession *self)
{
	esd_expiry_queue_clear(self->retention);
	g_hash_table_remove_all(self->processes);
}

static void
esd_session_dispose(GObject *object)
{
	EsdSession *self = ESD_SESSION(object);
	if (self->processes != NULL)
		esd_session_terminate_all(self);
	G_OBJECT_CLASS(esd_session_parent_class)->dispose(object);
}

static void
esd_session_finalize(GObject *object)
{
	EsdSession *self = ESD_SESSION(object);
	esd_session_detach(self);
	g_object_unref(self->retention);
	g_hash_table_unref(self->processes);
	G_OBJECT_CLASS(esd_session_parent_class)->finalize(object);
}

static void
esd_session_init(EsdSession *self)
{
	self->processes =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, esd_session_process_free);
}

/* every network policy decision a plugin reports is a lifecycle record */
static void
esd_session_notify_observer(ErpcSession *session, const gchar *method, JsonNode *params)
{
	EsdSession *self = ESD_SESSION(session);
	JsonObject *object;
	const gchar *process_id;
	EsdProcess *process;
	EsdTelemetrySubject subject;

	if (!g_str_equal(method, "network/policyDecision") || params == NULL ||
	    !JSON_NODE_HOLDS_OBJECT(params))
		return;
	object = json_node_get_object(params);
	process_id = json_object_get_string_member_with_default(object, "processId", NULL);
	process = process_id != NULL ? esd_session_lookup_process(self, process_id) : NULL;
	if (process == NULL || !esd_process_count_network_record(process))
		return;
	esd_process_get_telemetry_subject(process, &subject);
	esd_telemetry_network_decision(
	    &subject,
	    json_object_get_string_member_with_default(object, "decision", NULL),
	    json_object_get_string_member_with_default(object, "source", NULL),
	    json_object_get_string_member_with_default(object, "reason", NULL),
	    json_object_get_string_member_with_default(object, "protocol", NULL),
	    json_object_get_string_member_with_default(object, "host", NULL),
	    json_object_get_int_member_with_default(object, "port", -1));
}

static void
esd_session_class_init(EsdSessionClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = esd_session_dispose;
	G_OBJECT_CLASS(klass)->finalize = esd_session_finalize;
}

EsdSession *
esd_session_new(guint process_retention_seconds, gsize max_retained_bytes)
{
	EsdSession *self = g_object_new(ESD_TYPE_SESSION, NULL);
	erpc_session_set_notify_observer(ERPC_SESSION(self), esd_session_notify_observer);
	self->process_retention = MAX(process_retention_seconds, 1);
	self->max_retained_bytes = MAX(max_retained_bytes, 1);
	self->retention =
	    esd_expiry_queue_new(self->process_retention * 1000, esd_session_retention_cb, self);
	return self;
}
