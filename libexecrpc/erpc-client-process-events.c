/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-base64.h"
#include "erpc-client-process-private.h"
#include "erpc-json.h"

/*
 * The events of an ErpcClientProcess, put back in seq order: early ones
 * wait in a tree keyed by seq, repeated ones are dropped, and after a
 * recovery process/read fills in what the lost connection never delivered.
 */

void
_erpc_client_process_event_free(ErpcClientProcessEvent *event)
{
	g_free(event->stream);
	g_clear_pointer(&event->data, g_bytes_unref);
	g_free(event);
}

gint
_erpc_client_process_seq_cmp(gconstpointer a, gconstpointer b, gpointer user_data)
{
	guint64 sa = *(const guint64 *)a;
	guint64 sb = *(const guint64 *)b;
	return sa < sb ? -1 : sa > sb ? 1 : 0;
}

static void
erpc_client_process_drain(ErpcClientProcess *self)
{
	g_object_ref(self);
	while (!self->closed) {
		ErpcClientProcessEvent *event = g_tree_lookup(self->waiting, &self->next_seq);
		if (event == NULL)
			break;
		g_tree_steal(self->waiting, &self->next_seq);
		self->next_seq++;
		_erpc_client_process_emit(self, event);
		_erpc_client_process_event_free(event);
	}
	if (self->closed)
		g_tree_remove_all(self->waiting);
	g_object_unref(self);
}

static void
erpc_client_process_push(ErpcClientProcess *self, ErpcClientProcessEvent *event)
{
	if (self->closed || event->seq < self->next_seq ||
	    g_tree_lookup(self->waiting, &event->seq) != NULL) {
		_erpc_client_process_event_free(event);
		return;
	}
	g_tree_insert(self->waiting, &event->seq, event);
	erpc_client_process_drain(self);
}

static ErpcClientProcessEvent *
erpc_client_process_output_new(guint64 seq, JsonObject *obj, const gchar *member)
{
	g_autoptr(GError) error = NULL;
	const gchar *stream = NULL;
	const gchar *chunk = NULL;
	ErpcClientProcessEvent *event;
	GBytes *data;

	if (!erpc_json_get_string(obj, "stream", "stdout", &stream, &error) ||
	    !erpc_json_require_string(obj, member, &chunk, &error)) {
		g_debug("ignoring process output seq %" G_GUINT64_FORMAT ": %s",
			seq,
			error->message);
		return NULL;
	}
	data = erpc_base64_decode(chunk, strlen(chunk), G_MAXSIZE, &error);
	if (data == NULL) {
		g_debug("ignoring process output seq %" G_GUINT64_FORMAT ": %s",
			seq,
			error->message);
		return NULL;
	}
	event = g_new0(ErpcClientProcessEvent, 1);
	event->seq = seq;
	event->kind = ERPC_CLIENT_PROCESS_EVENT_OUTPUT;
	event->stream = g_strdup(stream);
	event->data = data;
	return event;
}

static ErpcClientProcessEvent *
erpc_client_process_event_new(guint64 seq, ErpcClientProcessEventKind kind, gint exit_code)
{
	ErpcClientProcessEvent *event = g_new0(ErpcClientProcessEvent, 1);
	event->seq = seq;
	event->kind = kind;
	event->exit_code = exit_code;
	return event;
}

void
_erpc_client_process_notify(ErpcClientProcess *self, const gchar *method, JsonObject *params)
{
	ErpcClientProcessEvent *event = NULL;
	guint64 seq = 0;
	gint64 exit_code = -1;

	if (!erpc_json_require_uint64(params, "seq", &seq, NULL))
		return;
	if (g_strcmp0(method, "process/output") == 0) {
		event = erpc_client_process_output_new(seq, params, "chunk");
	} else if (g_strcmp0(method, "process/exited") == 0) {
		if (!erpc_json_get_int64(params, "exitCode", -1, &exit_code, NULL))
			exit_code = -1;
		event = erpc_client_process_event_new(seq,
						      ERPC_CLIENT_PROCESS_EVENT_EXITED,
						      (gint)exit_code);
	} else if (g_strcmp0(method, "process/closed") == 0) {
		event = erpc_client_process_event_new(seq, ERPC_CLIENT_PROCESS_EVENT_CLOSED, 0);
	}
	if (event != NULL)
		erpc_client_process_push(self, event);
}

/*
 * A process/read result: chunks after @after_seq, then `nextSeq` (the next
 * seq the server will use) and whether the process exited and closed. The
 * seqs below nextSeq that hold no chunk are the exit, the close (always the
 * last) and chunks no longer retained (always the oldest).
 */
static void
erpc_client_process_apply_read(ErpcClientProcess *self, JsonObject *result, guint64 after_seq)
{
	g_autoptr(GHashTable) present = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autoptr(GArray) seqs = g_array_new(FALSE, FALSE, sizeof(guint64));
	JsonArray *chunks = NULL;
	guint64 next = 0;
	guint64 exit_seq = 0;
	gboolean exited = FALSE;
	gboolean closed = FALSE;
	gint64 exit_code = -1;

	if (!erpc_json_get_array(result, "chunks", &chunks, NULL) ||
	    !erpc_json_get_uint64(result, "nextSeq", 0, &next, NULL) ||
	    !erpc_json_get_boolean(result, "exited", FALSE, &exited, NULL) ||
	    !erpc_json_get_boolean(result, "closed", FALSE, &closed, NULL))
		return;
	if (!erpc_json_get_int64(result, "exitCode", -1, &exit_code, NULL))
		exit_code = -1;
	for (guint i = 0; chunks != NULL && i < json_array_get_length(chunks); i++) {
		JsonNode *node = json_array_get_element(chunks, i);
		ErpcClientProcessEvent *event;
		guint64 seq = 0;
		if (!JSON_NODE_HOLDS_OBJECT(node) ||
		    !erpc_json_require_uint64(json_node_get_object(node), "seq", &seq, NULL))
			continue;
		g_array_append_val(seqs, seq);
		event = erpc_client_process_output_new(seq, json_node_get_object(node), "chunk");
		if (event != NULL)
			erpc_client_process_push(self, event);
	}
	for (guint i = 0; i < seqs->len; i++)
		g_hash_table_add(present, &g_array_index(seqs, guint64, i));
	if (next == 0)
		return;
	if (exited && !self->exited && next > (closed ? 2u : 1u)) {
		for (guint64 s = closed ? next - 2 : next - 1; s > after_seq; s--) {
			if (!g_hash_table_contains(present, &s)) {
				exit_seq = s;
				break;
			}
		}
		if (exit_seq > 0)
			erpc_client_process_push(
			    self,
			    erpc_client_process_event_new(exit_seq,
							  ERPC_CLIENT_PROCESS_EVENT_EXITED,
							  (gint)exit_code));
	}
	if (closed)
		erpc_client_process_push(
		    self,
		    erpc_client_process_event_new(next - 1, ERPC_CLIENT_PROCESS_EVENT_CLOSED, 0));
	/* what is still missing below nextSeq is gone for good */
	while (!self->closed && self->next_seq < next &&
	       g_tree_lookup(self->waiting, &self->next_seq) == NULL) {
		g_debug("process %s: seq %" G_GUINT64_FORMAT " is no longer retained",
			self->process_id,
			self->next_seq);
		self->next_seq++;
		erpc_client_process_drain(self);
	}
}

typedef struct {
	ErpcClientProcess *process;
	guint64 after_seq;
} ErpcClientProcessCatchUp;

static void
erpc_client_process_catch_up_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	ErpcClientProcessCatchUp *data = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = erpc_client_call_finish(ERPC_CLIENT(source), res, &error);

	if (result == NULL)
		g_debug("process %s: catching up failed: %s",
			data->process->process_id,
			error->message);
	else if (JSON_NODE_HOLDS_OBJECT(result))
		erpc_client_process_apply_read(data->process,
					       json_node_get_object(result),
					       data->after_seq);
	g_object_unref(data->process);
	g_free(data);
}

/* opens the params object with the processId; the caller closes it */
void
_erpc_client_process_params(ErpcClientProcess *self, JsonBuilder *builder)
{
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "processId");
	json_builder_add_string_value(builder, self->process_id);
}

/* after a recovery: fetch what was sent while no connection was attached */
void
_erpc_client_process_catch_up(ErpcClientProcess *self)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) params = NULL;
	ErpcClientProcessCatchUp *data;

	if (!self->started || self->closed)
		return;
	data = g_new0(ErpcClientProcessCatchUp, 1);
	data->process = g_object_ref(self);
	data->after_seq = self->next_seq - 1;
	_erpc_client_process_params(self, builder);
	json_builder_set_member_name(builder, "afterSeq");
	json_builder_add_int_value(builder, (gint64)data->after_seq);
	json_builder_end_object(builder);
	params = json_builder_get_root(builder);
	_erpc_client_call_full(self->client,
			       "process/read",
			       params,
			       ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
			       NULL,
			       erpc_client_process_catch_up_cb,
			       data);
}

/**
 * erpc_client_process_read_async:
 * @self: a #ErpcClientProcess
 * @after_seq: return events after this seq
 * @max_bytes: the most output to return, 0 for no limit
 * @wait_ms: how long to wait for new output, 0 to answer at once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `process/read`, the retained output of the process. The handle's
 * signals do not depend on it.
 *
 * Since: 0.1
 */
void
erpc_client_process_read_async(ErpcClientProcess *self,
			       guint64 after_seq,
			       guint64 max_bytes,
			       guint wait_ms,
			       GCancellable *cancellable,
			       GAsyncReadyCallback callback,
			       gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	_erpc_client_process_params(self, builder);
	json_builder_set_member_name(builder, "afterSeq");
	json_builder_add_int_value(builder, (gint64)after_seq);
	if (max_bytes > 0) {
		json_builder_set_member_name(builder, "maxBytes");
		json_builder_add_int_value(builder, (gint64)MIN(max_bytes, (guint64)G_MAXINT64));
	}
	if (wait_ms > 0) {
		json_builder_set_member_name(builder, "waitMs");
		json_builder_add_int_value(builder, wait_ms);
	}
	_erpc_client_process_call(self,
				  "process/read",
				  builder,
				  ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
				  erpc_client_process_read_async,
				  cancellable,
				  callback,
				  user_data);
}

/**
 * erpc_client_process_read_finish:
 * @self: a #ErpcClientProcess
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_process_read_async().
 *
 * Returns: (transfer full): the `process/read` result: `chunks`, `nextSeq`,
 *   `exited`, `exitCode`, `closed`…
 *
 * Since: 0.1
 */
JsonObject *
erpc_client_process_read_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = NULL;

	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), NULL);
	node =
	    _erpc_client_process_call_finish(self, result, erpc_client_process_read_async, error);
	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_PROTOCOL,
				    "process/read did not answer an object");
		return NULL;
	}
	return json_object_ref(json_node_get_object(node));
}
