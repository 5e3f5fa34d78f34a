/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "erpc-base64.h"
#include "erpc-client-process-private.h"
#include "erpc-error.h"
#include "erpc-json.h"
#include "erpc-uri.h"

/**
 * ErpcClientProcess:
 *
 * A process of an #ErpcClient's session. Its events (`process/output`,
 * `process/exited`, `process/closed`) share one `seq` counter; the wire may
 * deliver them in any order, and after a recovery some only come back
 * through `process/read`. The handle keeps early events until the ones
 * before them arrived, drops repeated ones, and emits
 * #ErpcClientProcess::output, #ErpcClientProcess::exited and
 * #ErpcClientProcess::closed strictly in `seq` order, `closed` last.
 *
 * Since: 0.1
 */

G_DEFINE_TYPE(ErpcClientProcess, erpc_client_process, G_TYPE_OBJECT)

enum { SIGNAL_OUTPUT, SIGNAL_EXITED, SIGNAL_CLOSED, SIGNAL_LAST };
static guint erpc_client_process_signals[SIGNAL_LAST] = {0};

void
_erpc_client_process_emit(ErpcClientProcess *self, ErpcClientProcessEvent *event)
{
	switch (event->kind) {
	case ERPC_CLIENT_PROCESS_EVENT_OUTPUT:
		g_signal_emit(self,
			      erpc_client_process_signals[SIGNAL_OUTPUT],
			      0,
			      event->stream,
			      event->data);
		break;
	case ERPC_CLIENT_PROCESS_EVENT_EXITED:
		if (self->exited)
			break;
		self->exited = TRUE;
		self->exit_code = event->exit_code;
		g_signal_emit(self,
			      erpc_client_process_signals[SIGNAL_EXITED],
			      0,
			      event->exit_code);
		break;
	case ERPC_CLIENT_PROCESS_EVENT_CLOSED:
		self->closed = TRUE;
		g_signal_emit(self, erpc_client_process_signals[SIGNAL_CLOSED], 0);
		/* the emitter holds a reference: the handle outlives this */
		_erpc_client_release_process(self->client, self);
		break;
	default:
		break;
	}
}

/* emits every event that is next in line */
/**
 * erpc_client_process_new:
 * @client: a connected #ErpcClient
 * @process_id: the `processId`, unique in the session
 * @argv: (array zero-terminated=1): the command and its arguments
 *
 * Creates a handle; set options, then call erpc_client_process_start_async().
 * Once started, the client keeps the handle (and the handle the client)
 * until #ErpcClientProcess::closed was emitted, the start failed, or the
 * client was closed or gave up recovering: the events of a running command
 * are not lost when the application drops its reference.
 *
 * Returns: (transfer full): a new process handle
 *
 * Since: 0.1
 */
ErpcClientProcess *
erpc_client_process_new(ErpcClient *client, const gchar *process_id, const gchar *const *argv)
{
	ErpcClientProcess *self;

	g_return_val_if_fail(ERPC_IS_CLIENT(client), NULL);
	self = g_object_new(ERPC_TYPE_CLIENT_PROCESS, NULL);
	self->client = g_object_ref(client);
	self->process_id = g_strdup(process_id);
	self->argv = g_strdupv((gchar **)argv);
	_erpc_client_register_process(client, self);
	return self;
}

/**
 * erpc_client_process_set_cwd:
 * @self: a #ErpcClientProcess
 * @cwd: (nullable): an absolute path on the server; %NULL for the
 *   server's own working directory
 *
 * Sets the working directory of the process; call it before starting it.
 *
 * Since: 0.1
 */
void
erpc_client_process_set_cwd(ErpcClientProcess *self, const gchar *cwd)
{
	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	g_free(self->cwd);
	self->cwd = g_strdup(cwd);
}

/**
 * erpc_client_process_set_env:
 * @self: a #ErpcClientProcess
 * @envp: (array zero-terminated=1) (nullable): `NAME=VALUE` strings
 *
 * Sets the `env` of `process/start`: without erpc_client_process_set_inherit_env()
 * it is the whole environment of the process.
 *
 * Since: 0.1
 */
void
erpc_client_process_set_env(ErpcClientProcess *self, const gchar *const *envp)
{
	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	g_strfreev(self->envp);
	self->envp = g_strdupv((gchar **)envp);
}

/**
 * erpc_client_process_set_inherit_env:
 * @self: a #ErpcClientProcess
 * @inherit: (nullable): `core`, `all` or `none`: which of the server's
 *   variables the process inherits before the `env` overlay; %NULL sends no
 *   `envPolicy`
 *
 * Sets the `envPolicy` of the process; call it before starting it.
 *
 * Since: 0.1
 */
void
erpc_client_process_set_inherit_env(ErpcClientProcess *self, const gchar *inherit)
{
	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	g_free(self->inherit);
	self->inherit = g_strdup(inherit);
}

/**
 * erpc_client_process_set_tty:
 * @self: a #ErpcClientProcess
 * @tty: run the process on a pseudo-terminal (output stream `pty`)
 *
 * Sets whether the process runs on a terminal; call it before starting it.
 *
 * Since: 0.1
 */
void
erpc_client_process_set_tty(ErpcClientProcess *self, gboolean tty)
{
	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	self->tty = tty;
}

/**
 * erpc_client_process_set_pipe_stdin:
 * @self: a #ErpcClientProcess
 * @pipe_stdin: give a non-tty process a writable stdin instead of `/dev/null`
 *
 * Sets whether the process gets a stdin to write to; call it before
 * starting it.
 *
 * Since: 0.1
 */
void
erpc_client_process_set_pipe_stdin(ErpcClientProcess *self, gboolean pipe_stdin)
{
	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	self->pipe_stdin = pipe_stdin;
}

/**
 * erpc_client_process_get_id:
 * @self: a #ErpcClientProcess
 *
 * Gets the id of the process in its session.
 *
 * Returns: the `processId`
 *
 * Since: 0.1
 */
const gchar *
erpc_client_process_get_id(ErpcClientProcess *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), NULL);
	return self->process_id;
}

/**
 * erpc_client_process_get_client:
 * @self: a #ErpcClientProcess
 *
 * Gets the client the process runs through.
 *
 * Returns: (transfer none): the client
 *
 * Since: 0.1
 */
ErpcClient *
erpc_client_process_get_client(ErpcClientProcess *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), NULL);
	return self->client;
}

/**
 * erpc_client_process_has_exited:
 * @self: a #ErpcClientProcess
 *
 * Tells whether the process has exited.
 *
 * Returns: %TRUE once #ErpcClientProcess::exited was emitted
 *
 * Since: 0.1
 */
gboolean
erpc_client_process_has_exited(ErpcClientProcess *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), FALSE);
	return self->exited;
}

/**
 * erpc_client_process_get_exit_code:
 * @self: a #ErpcClientProcess
 *
 * Gets the exit code of the process.
 *
 * Returns: the exit code (128 + N for signal N), -1 before the exit
 *
 * Since: 0.1
 */
gint
erpc_client_process_get_exit_code(ErpcClientProcess *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), -1);
	return self->exited ? self->exit_code : -1;
}

/**
 * erpc_client_process_is_closed:
 * @self: a #ErpcClientProcess
 *
 * Tells whether the process is closed: it has exited and every output has
 * been emitted.
 *
 * Returns: %TRUE once #ErpcClientProcess::closed was emitted
 *
 * Since: 0.1
 */
gboolean
erpc_client_process_is_closed(ErpcClientProcess *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), FALSE);
	return self->closed;
}

/**
 * erpc_client_process_get_last_seq:
 * @self: a #ErpcClientProcess
 *
 * Gets how far the events of the process have been emitted.
 *
 * Returns: the `seq` of the last event emitted, 0 before the first
 *
 * Since: 0.1
 */
guint64
erpc_client_process_get_last_seq(ErpcClientProcess *self)
{
	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), 0);
	return self->next_seq - 1;
}

static void
erpc_client_process_add_env(ErpcClientProcess *self, JsonBuilder *builder)
{
	json_builder_set_member_name(builder, "env");
	json_builder_begin_object(builder);
	for (guint i = 0; self->envp != NULL && self->envp[i] != NULL; i++) {
		const gchar *eq = strchr(self->envp[i], '=');
		g_autofree gchar *name = NULL;
		if (eq == NULL || eq == self->envp[i])
			continue;
		name = g_strndup(self->envp[i], eq - self->envp[i]);
		json_builder_set_member_name(builder, name);
		json_builder_add_string_value(builder, eq + 1);
	}
	json_builder_end_object(builder);
	if (self->inherit == NULL)
		return;
	json_builder_set_member_name(builder, "envPolicy");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "inherit");
	json_builder_add_string_value(builder, self->inherit);
	json_builder_set_member_name(builder, "ignoreDefaultExcludes");
	json_builder_add_boolean_value(builder, FALSE);
	json_builder_set_member_name(builder, "exclude");
	json_builder_begin_array(builder);
	json_builder_end_array(builder);
	json_builder_set_member_name(builder, "set");
	json_builder_begin_object(builder);
	json_builder_end_object(builder);
	json_builder_set_member_name(builder, "includeOnly");
	json_builder_begin_array(builder);
	json_builder_end_array(builder);
	json_builder_end_object(builder);
}

/* the answer of a request made for a process: its GTask belongs to the
 * process, so that a binding finds the finish function on the source object */
static void
erpc_client_process_call_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = G_TASK(user_data);
	GError *error = NULL;
	JsonNode *node = erpc_client_call_finish(ERPC_CLIENT(source), result, &error);

	if (node == NULL)
		g_task_return_error(task, error);
	else
		g_task_return_pointer(task, node, (GDestroyNotify)json_node_unref);
}

static void
erpc_client_process_send(ErpcClientProcess *self,
			 const gchar *method,
			 JsonNode *params,
			 guint flags,
			 gpointer source_tag,
			 GCancellable *cancellable,
			 GAsyncReadyCallback callback,
			 gpointer user_data)
{
	GTask *task = g_task_new(self, cancellable, callback, user_data);

	g_task_set_source_tag(task, source_tag);
	_erpc_client_call_full(self->client,
			       method,
			       params,
			       flags,
			       cancellable,
			       erpc_client_process_call_cb,
			       task);
}

void
_erpc_client_process_call(ErpcClientProcess *self,
			  const gchar *method,
			  JsonBuilder *builder,
			  guint flags,
			  gpointer source_tag,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	g_autoptr(JsonNode) params = NULL;

	json_builder_end_object(builder);
	params = json_builder_get_root(builder);
	erpc_client_process_send(self,
				 method,
				 params,
				 flags,
				 source_tag,
				 cancellable,
				 callback,
				 user_data);
}

/* the `result` of the answer, or %NULL with @error set */
JsonNode *
_erpc_client_process_call_finish(ErpcClientProcess *self,
				 GAsyncResult *result,
				 gpointer source_tag,
				 GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, self), NULL);
	g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == source_tag, NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

/* a start that failed frees the handle the client kept for its events */
static void
erpc_client_process_start_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = G_TASK(user_data);
	ErpcClientProcess *self = g_task_get_source_object(task);
	GError *error = NULL;
	JsonNode *node = erpc_client_call_finish(ERPC_CLIENT(source), result, &error);

	if (node != NULL) {
		g_task_return_pointer(task, node, (GDestroyNotify)json_node_unref);
		return;
	}
	self->started = FALSE;
	g_task_return_error(task, error);
	_erpc_client_release_process(self->client, self);
}

/**
 * erpc_client_process_start_async:
 * @self: a #ErpcClientProcess
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `process/start`. A start whose answer was lost in a recovery is
 * sent again; the server's "already exists" then counts as started.
 *
 * Since: 0.1
 */
void
erpc_client_process_start_async(ErpcClientProcess *self,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) params = NULL;
	g_autofree gchar *cwd = NULL;
	GTask *task;
	JsonObject *info = erpc_client_get_environment_info(self->client);
	const gchar *info_cwd = NULL;

	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	if (self->cwd != NULL)
		cwd = erpc_path_to_uri(self->cwd);
	else if (info != NULL && erpc_json_get_string(info, "cwd", NULL, &info_cwd, NULL) &&
		 info_cwd != NULL)
		cwd = g_strdup(info_cwd);
	else
		cwd = g_strdup("file:///");
	_erpc_client_process_params(self, builder);
	json_builder_set_member_name(builder, "argv");
	json_builder_begin_array(builder);
	for (guint i = 0; self->argv[i] != NULL; i++)
		json_builder_add_string_value(builder, self->argv[i]);
	json_builder_end_array(builder);
	json_builder_set_member_name(builder, "cwd");
	json_builder_add_string_value(builder, cwd);
	json_builder_set_member_name(builder, "tty");
	json_builder_add_boolean_value(builder, self->tty);
	json_builder_set_member_name(builder, "pipeStdin");
	json_builder_add_boolean_value(builder, self->pipe_stdin);
	erpc_client_process_add_env(self, builder);
	json_builder_end_object(builder);
	params = json_builder_get_root(builder);
	self->started = TRUE;
	/* the events of a started command reach the handle until it closed */
	_erpc_client_keep_process(self->client, self);
	task = g_task_new(self, cancellable, callback, user_data);
	g_task_set_source_tag(task, erpc_client_process_start_async);
	_erpc_client_call_full(self->client,
			       "process/start",
			       params,
			       ERPC_CLIENT_CALL_INTERNAL_START,
			       cancellable,
			       erpc_client_process_start_cb,
			       task);
}

/**
 * erpc_client_process_start_finish:
 * @self: a #ErpcClientProcess
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_process_start_async().
 *
 * Returns: %TRUE if the process started; a command that cannot be found
 *   is %ERPC_ERROR_NOT_FOUND
 *
 * Since: 0.1
 */
gboolean
erpc_client_process_start_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = NULL;

	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), FALSE);
	node =
	    _erpc_client_process_call_finish(self, result, erpc_client_process_start_async, error);
	return node != NULL;
}

/**
 * erpc_client_process_write_async:
 * @self: a #ErpcClientProcess
 * @data: bytes for the process's stdin
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `process/write` with a fresh `writeId`. After a recovery the same
 * write is sent again with the same `writeId`, which the server carries out
 * at most once.
 *
 * Since: 0.1
 */
void
erpc_client_process_write_async(ErpcClientProcess *self,
				GBytes *data,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree gchar *write_id = NULL;
	g_autofree gchar *chunk = NULL;
	gsize len = 0;
	const guint8 *bytes;

	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	bytes = g_bytes_get_data(data, &len);
	chunk = g_base64_encode(bytes, len);
	write_id = g_strdup_printf("%s-%" G_GUINT64_FORMAT, self->write_prefix, ++self->writes);
	_erpc_client_process_params(self, builder);
	json_builder_set_member_name(builder, "chunk");
	json_builder_add_string_value(builder, chunk);
	json_builder_set_member_name(builder, "writeId");
	json_builder_add_string_value(builder, write_id);
	_erpc_client_process_call(self,
				  "process/write",
				  builder,
				  ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
				  erpc_client_process_write_async,
				  cancellable,
				  callback,
				  user_data);
}

/**
 * erpc_client_process_write_finish:
 * @self: a #ErpcClientProcess
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_process_write_async().
 *
 * Returns: (transfer full): the status: `accepted`, `unknownProcess`,
 *   `stdinClosed` or `starting`; %NULL on error
 *
 * Since: 0.1
 */
gchar *
erpc_client_process_write_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = NULL;
	const gchar *status = NULL;

	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), NULL);
	node =
	    _erpc_client_process_call_finish(self, result, erpc_client_process_write_async, error);
	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node) ||
	    !erpc_json_require_string(json_node_get_object(node), "status", &status, NULL)) {
		g_set_error_literal(error,
				    ERPC_CLIENT_ERROR,
				    ERPC_CLIENT_ERROR_PROTOCOL,
				    "process/write answered no status");
		return NULL;
	}
	return g_strdup(status);
}

/**
 * erpc_client_process_interrupt_async:
 * @self: a #ErpcClientProcess
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `process/signal` `interrupt` (SIGINT to the process group). It is
 * not repeated after a lost connection.
 *
 * Since: 0.1
 */
void
erpc_client_process_interrupt_async(ErpcClientProcess *self,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	_erpc_client_process_params(self, builder);
	json_builder_set_member_name(builder, "signal");
	json_builder_add_string_value(builder, "interrupt");
	_erpc_client_process_call(self,
				  "process/signal",
				  builder,
				  ERPC_CLIENT_CALL_FLAGS_NONE,
				  erpc_client_process_interrupt_async,
				  cancellable,
				  callback,
				  user_data);
}

/**
 * erpc_client_process_interrupt_finish:
 * @self: a #ErpcClientProcess
 * @result: the #GAsyncResult
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_process_interrupt_async().
 *
 * Returns: %TRUE if the server accepted the signal
 *
 * Since: 0.1
 */
gboolean
erpc_client_process_interrupt_finish(ErpcClientProcess *self, GAsyncResult *result, GError **error)
{
	g_autoptr(JsonNode) node = NULL;

	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), FALSE);
	node = _erpc_client_process_call_finish(self,
						result,
						erpc_client_process_interrupt_async,
						error);
	return node != NULL;
}

/**
 * erpc_client_process_terminate_async:
 * @self: a #ErpcClientProcess
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Sends `process/terminate`: the process group is killed at once.
 *
 * Since: 0.1
 */
void
erpc_client_process_terminate_async(ErpcClientProcess *self,
				    GCancellable *cancellable,
				    GAsyncReadyCallback callback,
				    gpointer user_data)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	g_return_if_fail(ERPC_IS_CLIENT_PROCESS(self));
	_erpc_client_process_params(self, builder);
	_erpc_client_process_call(self,
				  "process/terminate",
				  builder,
				  ERPC_CLIENT_CALL_FLAGS_IDEMPOTENT,
				  erpc_client_process_terminate_async,
				  cancellable,
				  callback,
				  user_data);
}

/**
 * erpc_client_process_terminate_finish:
 * @self: a #ErpcClientProcess
 * @result: the #GAsyncResult
 * @running: (out) (optional): whether a running process was signalled
 * @error: return location for a #GError, or %NULL
 *
 * Finishes erpc_client_process_terminate_async().
 *
 * Returns: %TRUE if the server answered
 *
 * Since: 0.1
 */
gboolean
erpc_client_process_terminate_finish(ErpcClientProcess *self,
				     GAsyncResult *result,
				     gboolean *running,
				     GError **error)
{
	g_autoptr(JsonNode) node = NULL;
	gboolean value = FALSE;

	g_return_val_if_fail(ERPC_IS_CLIENT_PROCESS(self), FALSE);
	node = _erpc_client_process_call_finish(self,
						result,
						erpc_client_process_terminate_async,
						error);
	if (node == NULL)
		return FALSE;
	if (JSON_NODE_HOLDS_OBJECT(node))
		erpc_json_get_boolean(json_node_get_object(node), "running", FALSE, &value, NULL);
	if (running != NULL)
		*running = value;
	return TRUE;
}

static void
erpc_client_process_dispose(GObject *object)
{
	ErpcClientProcess *self = ERPC_CLIENT_PROCESS(object);
	if (self->client != NULL) {
		_erpc_client_unregister_process(self->client, self);
		g_clear_object(&self->client);
	}
	G_OBJECT_CLASS(erpc_client_process_parent_class)->dispose(object);
}

static void
erpc_client_process_finalize(GObject *object)
{
	ErpcClientProcess *self = ERPC_CLIENT_PROCESS(object);
	g_tree_unref(self->waiting);
	g_free(self->process_id);
	g_strfreev(self->argv);
	g_strfreev(self->envp);
	g_free(self->cwd);
	g_free(self->inherit);
	g_free(self->write_prefix);
	G_OBJECT_CLASS(erpc_client_process_parent_class)->finalize(object);
}

static void
erpc_client_process_init(ErpcClientProcess *self)
{
	self->next_seq = 1;
	self->exit_code = -1;
	self->waiting = g_tree_new_full(_erpc_client_process_seq_cmp,
					NULL,
					NULL,
					(GDestroyNotify)_erpc_client_process_event_free);
	self->write_prefix = g_uuid_string_random();
}

static void
erpc_client_process_class_init(ErpcClientProcessClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = erpc_client_process_dispose;
	object_class->finalize = erpc_client_process_finalize;

	/**
	 * ErpcClientProcess::output:
	 * @self: the process
	 * @stream: `stdout`, `stderr` or `pty`
	 * @data: the bytes
	 *
	 * Emitted for each output chunk, in `seq` order.
	 *
	 * Since: 0.1
	 */
	erpc_client_process_signals[SIGNAL_OUTPUT] = g_signal_new("output",
								  G_TYPE_FROM_CLASS(klass),
								  G_SIGNAL_RUN_LAST,
								  0,
								  NULL,
								  NULL,
								  NULL,
								  G_TYPE_NONE,
								  2,
								  G_TYPE_STRING,
								  G_TYPE_BYTES);
	/**
	 * ErpcClientProcess::exited:
	 * @self: the process
	 * @exit_code: the exit code, 128 + N for signal N
	 *
	 * Emitted once, in `seq` order: output may still follow.
	 *
	 * Since: 0.1
	 */
	erpc_client_process_signals[SIGNAL_EXITED] = g_signal_new("exited",
								  G_TYPE_FROM_CLASS(klass),
								  G_SIGNAL_RUN_LAST,
								  0,
								  NULL,
								  NULL,
								  NULL,
								  G_TYPE_NONE,
								  1,
								  G_TYPE_INT);
	/**
	 * ErpcClientProcess::closed:
	 * @self: the process
	 *
	 * Emitted once, last: the process exited and its output ended.
	 *
	 * Since: 0.1
	 */
	erpc_client_process_signals[SIGNAL_CLOSED] = g_signal_new("closed",
								  G_TYPE_FROM_CLASS(klass),
								  G_SIGNAL_RUN_LAST,
								  0,
								  NULL,
								  NULL,
								  NULL,
								  G_TYPE_NONE,
								  0);
}
