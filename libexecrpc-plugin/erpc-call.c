/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-call-private.h"
#include "erpc-error.h"
#include "erpc-json-writer.h"
#include "erpc-json.h"
#include "erpc-message-private.h"

#include <string.h>

/**
 * ErpcCall:
 *
 * One request being answered. A method handler finishes it exactly once,
 * at once or later, with erpc_call_return() or erpc_call_return_error().
 * If the connection has gone by then the answer is dropped.
 *
 * Since: 0.1
 */

struct _ErpcCall {
	GObject parent_instance;
	ErpcConnection *connection;
	ErpcMessage *request;
	GCancellable *cancellable;
	gulong cancel_id;
	gpointer context;
	ErpcSession *session; /* the caller's, once initialized */
	gboolean finished;
	ErpcCallFinishedFunc finished_func; /* the daemon's, cheaper than a signal handler */
	gpointer finished_data;
};

G_DEFINE_TYPE(ErpcCall, erpc_call, G_TYPE_OBJECT)

enum { SIGNAL_FINISHED, SIGNAL_LAST };
static guint erpc_call_signals[SIGNAL_LAST] = {0};

/**
 * erpc_call_get_connection:
 * @self: a #ErpcCall
 *
 * Gets the connection the request came from.
 *
 * Returns: (transfer none): the connection the request came from
 *
 * Since: 0.1
 */
ErpcConnection *
erpc_call_get_connection(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	return self->connection;
}

/**
 * erpc_call_get_method:
 * @self: a #ErpcCall
 *
 * Gets the method of the request.
 *
 * Returns: the method name
 *
 * Since: 0.1
 */
const gchar *
erpc_call_get_method(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	return erpc_message_get_method(self->request);
}

/**
 * erpc_call_get_id:
 * @self: a #ErpcCall
 *
 * Gets the id of the request, as sent.
 *
 * Returns: (transfer none): the request id
 *
 * Since: 0.1
 */
JsonNode *
erpc_call_get_id(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	return erpc_message_get_id(self->request);
}

/**
 * erpc_call_get_params:
 * @self: a #ErpcCall
 *
 * Gets the params of the request, as sent.
 *
 * Returns: (transfer none) (nullable): the params as sent
 *
 * Since: 0.1
 */
JsonNode *
erpc_call_get_params(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	return erpc_message_get_params(self->request);
}

/**
 * erpc_call_get_blob:
 * @self: a #ErpcCall
 * @params: the params object given to the handler
 * @member: a required string member
 * @len: (out): the length of the string
 * @error: return location for a #GError, or %NULL
 *
 * Reads a string that may be tens of megabytes without copying it: for a
 * method registered with %ERPC_METHOD_FLAG_BLOBS, a large string is read in
 * the received frame itself. The other large strings of the request are
 * then put into @params, so call this before reading anything else. The
 * text is valid as long as @self, is not terminated and holds no escapes.
 *
 * Returns: (transfer none): the text, or %NULL with
 *   %ERPC_ERROR_INVALID_PARAMS when the member is missing or not a string
 *
 * Since: 0.1
 */
const gchar *
erpc_call_get_blob(ErpcCall *self,
		   JsonObject *params,
		   const gchar *member,
		   gsize *len,
		   GError **error)
{
	const gchar *text = NULL;
	const gchar *data = NULL;
	gsize data_len = 0;

	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	g_return_val_if_fail(params != NULL && member != NULL && len != NULL, NULL);
	if (!erpc_json_require_string(params, member, &text, error))
		return NULL;
	if (_erpc_message_take_blob(self->request,
				    json_object_get_member(params, member),
				    &data,
				    &data_len)) {
		erpc_message_expand(self->request);
		*len = data_len;
		return data;
	}
	erpc_message_expand(self->request);
	/* the tree may have changed: read the member again */
	if (!erpc_json_require_string(params, member, &text, error))
		return NULL;
	*len = strlen(text);
	return text;
}

static void
erpc_call_connection_cancelled_cb(GCancellable *connection_cancellable, ErpcCall *self)
{
	g_cancellable_cancel(self->cancellable);
}

/**
 * erpc_call_get_cancellable:
 * @self: a #ErpcCall
 *
 * Gets the cancellable of the request, for the work done to answer it.
 *
 * Returns: (transfer none): cancelled when the connection closes
 *
 * Since: 0.1
 */
GCancellable *
erpc_call_get_cancellable(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	if (self->cancellable == NULL) {
		GCancellable *parent = erpc_connection_get_cancellable(self->connection);
		self->cancellable = g_cancellable_new();
		self->cancel_id =
		    g_cancellable_connect(parent,
					  G_CALLBACK(erpc_call_connection_cancelled_cb),
					  self,
					  NULL);
	}
	return self->cancellable;
}

/**
 * erpc_call_is_finished:
 * @self: a #ErpcCall
 *
 * Tells whether the request has been answered.
 *
 * Returns: %TRUE once an answer was given
 *
 * Since: 0.1
 */
gboolean
erpc_call_is_finished(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), TRUE);
	return self->finished;
}

/**
 * erpc_call_get_context:
 * @self: a #ErpcCall
 *
 * Gets what the daemon attached to the request with
 * erpc_call_set_context().
 *
 * Returns: (transfer none) (nullable): what the daemon attached, e.g. the session
 *
 * Since: 0.1
 */
gpointer
erpc_call_get_context(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	return self->context;
}

/**
 * erpc_call_get_session:
 * @self: a #ErpcCall
 *
 * The session the call came in on.
 *
 * Returns: (transfer none) (nullable): the session of the client that sent
 *   the request; %NULL before `initialize` succeeded
 *
 * Since: 0.2
 */
ErpcSession *
erpc_call_get_session(ErpcCall *self)
{
	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	return self->session;
}

/**
 * erpc_call_set_session:
 * @self: a #ErpcCall
 * @session: (nullable): the caller's session
 */
void
erpc_call_set_session(ErpcCall *self, ErpcSession *session)
{
	g_return_if_fail(ERPC_IS_CALL(self));
	g_set_object(&self->session, session);
}

/**
 * erpc_call_set_context:
 * @self: a #ErpcCall
 * @context: (nullable): borrowed; must outlive the call
 *
 * For the daemon.
 *
 * Since: 0.1
 */
void
erpc_call_set_context(ErpcCall *self, gpointer context)
{
	g_return_if_fail(ERPC_IS_CALL(self));
	self->context = context;
}

static void
erpc_call_finish(ErpcCall *self, GBytes *message)
{
	if (self->finished) {
		g_critical("%s: request answered twice", erpc_call_get_method(self));
		return;
	}
	self->finished = TRUE;
	erpc_connection_send(self->connection, message);
	g_object_ref(self);
	if (self->finished_func != NULL)
		self->finished_func(self, self->finished_data);
	g_signal_emit(self, erpc_call_signals[SIGNAL_FINISHED], 0);
	g_object_unref(self);
}

/**
 * erpc_call_set_finished_func:
 * @self: a #ErpcCall
 * @func: (nullable): called once the answer was queued, before ::finished
 * @user_data: for @func
 *
 * For the daemon's dispatcher, which runs every request through a call:
 * connecting a signal handler per request cost a closure each time.
 */
void
erpc_call_set_finished_func(ErpcCall *self, ErpcCallFinishedFunc func, gpointer user_data)
{
	g_return_if_fail(ERPC_IS_CALL(self));
	self->finished_func = func;
	self->finished_data = user_data;
}

/**
 * erpc_call_return:
 * @self: a #ErpcCall
 * @result: (transfer full) (nullable): the result; %NULL sends `{}`
 *
 * Answers the request.
 *
 * Since: 0.1
 */
void
erpc_call_return(ErpcCall *self, JsonNode *result)
{
	g_autoptr(JsonNode) owned = result;
	g_autoptr(GBytes) message = NULL;

	g_return_if_fail(ERPC_IS_CALL(self));
	if (owned == NULL) {
		/* the node takes its own reference */
		g_autoptr(JsonObject) empty = json_object_new();
		owned = json_node_init_object(json_node_alloc(), empty);
	}
	message = erpc_message_new_result(erpc_call_get_id(self), owned);
	erpc_call_finish(self, message);
}

/* the start of the envelope, `{"id":ID,"result":`, that the result and `}` complete */
static void
erpc_call_append_result_head(ErpcCall *self, GString *out)
{
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "id");
	erpc_json_writer_node(&writer, erpc_call_get_id(self));
	erpc_json_writer_member(&writer, "result");
}

/**
 * erpc_call_return_raw:
 * @self: a #ErpcCall
 * @result_json: the result, already serialized as compact JSON
 *
 * Answers the request with a result built by the caller, for hot paths.
 *
 * Since: 0.1
 */
void
erpc_call_return_raw(ErpcCall *self, const gchar *result_json)
{
	GString *out;
	g_autoptr(GBytes) message = NULL;

	g_return_if_fail(ERPC_IS_CALL(self));
	out = g_string_sized_new(32 + strlen(result_json));
	erpc_call_append_result_head(self, out);
	g_string_append(out, result_json);
	g_string_append_c(out, '}');
	message = g_string_free_to_bytes(out);
	erpc_call_finish(self, message);
}

/**
 * erpc_call_result_begin:
 * @self: a #ErpcCall
 * @size_hint: the expected size of the result, in bytes
 *
 * Starts an answer that the caller writes straight into the message, for
 * large results: append the result's JSON to the returned string and pass
 * it to erpc_call_result_end(). Nothing is copied on the way.
 *
 * Returns: (transfer full): a string holding the start of the envelope
 *
 * Since: 0.1
 */
GString *
erpc_call_result_begin(ErpcCall *self, gsize size_hint)
{
	GString *out;

	g_return_val_if_fail(ERPC_IS_CALL(self), NULL);
	out = g_string_sized_new(size_hint + 64);
	erpc_call_append_result_head(self, out);
	return out;
}

/**
 * erpc_call_result_end:
 * @self: a #ErpcCall
 * @result: (transfer full): the string from erpc_call_result_begin() with
 *   the result appended
 *
 * Answers the request with what was written into @result.
 *
 * Since: 0.1
 */
void
erpc_call_result_end(ErpcCall *self, GString *result)
{
	g_autoptr(GBytes) message = NULL;

	g_return_if_fail(ERPC_IS_CALL(self));
	g_return_if_fail(result != NULL);
	g_string_append_c(result, '}');
	message = g_string_free_to_bytes(result);
	erpc_call_finish(self, message);
}

/*
 * Large results are tens of megabytes: fresh memory for each costs page
 * faults and zeroing that dominate a file read, so the last few buffers are
 * kept and handed out again.
 */
#define ERPC_CALL_POOL_MIN (4 * 1024 * 1024)
/* beyond this a buffer is freed: the pool must not pin a huge read's memory */
#define ERPC_CALL_POOL_MAX   (96 * 1024 * 1024)
#define ERPC_CALL_POOL_SLOTS 2
#define ERPC_CALL_ENVELOPE   256

/* kept buffers unused for this long are freed: an idle daemon gives the memory back */
#define ERPC_CALL_POOL_IDLE_SECONDS 30

static GMutex erpc_call_pool_lock;
static gpointer erpc_call_pool[ERPC_CALL_POOL_SLOTS];
static gsize erpc_call_pool_size[ERPC_CALL_POOL_SLOTS];
static gint64 erpc_call_pool_used = 0; /* monotonic time of the last return */
static guint erpc_call_pool_trim_id = 0;

static gboolean
erpc_call_pool_trim_cb(gpointer user_data)
{
	gpointer stale[ERPC_CALL_POOL_SLOTS] = {NULL};
	gboolean again = FALSE;

	g_mutex_lock(&erpc_call_pool_lock);
	if (g_get_monotonic_time() - erpc_call_pool_used >=
	    ERPC_CALL_POOL_IDLE_SECONDS * G_USEC_PER_SEC) {
		for (guint i = 0; i < ERPC_CALL_POOL_SLOTS; i++) {
			stale[i] = erpc_call_pool[i];
			erpc_call_pool[i] = NULL;
		}
	}
	for (guint i = 0; i < ERPC_CALL_POOL_SLOTS; i++)
		again |= erpc_call_pool[i] != NULL;
	if (!again)
		erpc_call_pool_trim_id = 0;
	g_mutex_unlock(&erpc_call_pool_lock);
	for (guint i = 0; i < ERPC_CALL_POOL_SLOTS; i++)
		g_free(stale[i]);
	return again ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

typedef struct {
	gpointer data;
	gsize size;
} ErpcCallBuffer;

static void
erpc_call_pool_release(gpointer user_data)
{
	ErpcCallBuffer *buffer = user_data;

	g_mutex_lock(&erpc_call_pool_lock);
	for (guint i = 0;
	     i < ERPC_CALL_POOL_SLOTS && buffer->data != NULL && buffer->size <= ERPC_CALL_POOL_MAX;
	     i++) {
		if (erpc_call_pool[i] == NULL) {
			erpc_call_pool[i] = buffer->data;
			erpc_call_pool_size[i] = buffer->size;
			buffer->data = NULL;
		}
	}
	erpc_call_pool_used = g_get_monotonic_time();
	/* the default main context is the daemon's; attaching to it is thread-safe */
	if (erpc_call_pool_trim_id == 0)
		erpc_call_pool_trim_id = g_timeout_add_seconds(ERPC_CALL_POOL_IDLE_SECONDS,
							       erpc_call_pool_trim_cb,
							       NULL);
	g_mutex_unlock(&erpc_call_pool_lock);
	g_free(buffer->data);
	g_free(buffer);
}

/**
 * erpc_call_result_string_new:
 * @size_hint: the expected size of the result, in bytes
 *
 * Returns a string to build a result in for erpc_call_return_gstring().
 * Large ones reuse the memory of earlier large answers, so that a big file
 * read does not pay for fresh pages each time. Safe in any thread.
 *
 * Returns: (transfer full): an empty string
 *
 * Since: 0.1
 */
GString *
erpc_call_result_string_new(gsize size_hint)
{
	gsize want = size_hint + ERPC_CALL_ENVELOPE;
	GString *out;
	gpointer data = NULL;
	gsize size = 0;

	if (want < ERPC_CALL_POOL_MIN)
		return g_string_sized_new(want);
	g_mutex_lock(&erpc_call_pool_lock);
	for (guint i = 0; i < ERPC_CALL_POOL_SLOTS; i++) {
		if (erpc_call_pool[i] != NULL && erpc_call_pool_size[i] >= want) {
			data = erpc_call_pool[i];
			size = erpc_call_pool_size[i];
			erpc_call_pool[i] = NULL;
			break;
		}
	}
	g_mutex_unlock(&erpc_call_pool_lock);
	if (data == NULL) {
		data = g_malloc(want);
		size = want;
	}
	/* GString's fields are public: give it the buffer */
	out = g_string_sized_new(1);
	g_free(out->str);
	out->str = data;
	out->allocated_len = size;
	out->len = 0;
	out->str[0] = '\0';
	return out;
}

/**
 * erpc_call_return_gstring:
 * @self: a #ErpcCall
 * @result: (transfer full): the result, serialized as compact JSON
 *
 * Answers the request with a result built by the caller, wrapping it in the
 * envelope in place: a large result is moved once, never copied.
 *
 * Since: 0.1
 */
void
erpc_call_return_gstring(ErpcCall *self, GString *result)
{
	g_autoptr(GString) prefix = g_string_sized_new(32);
	g_autoptr(GBytes) message = NULL;

	g_return_if_fail(ERPC_IS_CALL(self));
	g_return_if_fail(result != NULL);
	erpc_call_append_result_head(self, prefix);
	g_string_prepend_len(result, prefix->str, (gssize)prefix->len);
	g_string_append_c(result, '}');
	if (result->allocated_len >= ERPC_CALL_POOL_MIN) {
		ErpcCallBuffer *buffer = g_new0(ErpcCallBuffer, 1);
		gsize len = result->len;
		buffer->size = result->allocated_len;
		buffer->data = g_string_free(result, FALSE);
		message =
		    g_bytes_new_with_free_func(buffer->data, len, erpc_call_pool_release, buffer);
	} else {
		message = g_string_free_to_bytes(result);
	}
	erpc_call_finish(self, message);
}

/**
 * erpc_call_return_error_full:
 * @self: a #ErpcCall
 * @error: what went wrong; converted with erpc_error_convert()
 * @data: (transfer full) (nullable): the `data` member of the error
 *
 * Answers the request with an error.
 *
 * Since: 0.1
 */
void
erpc_call_return_error_full(ErpcCall *self, const GError *error, JsonNode *data)
{
	g_autoptr(JsonNode) owned = data;
	g_autoptr(GError) copy = NULL;
	g_autoptr(GBytes) message = NULL;

	g_return_if_fail(ERPC_IS_CALL(self));
	g_return_if_fail(error != NULL);
	copy = g_error_copy(error);
	erpc_error_convert(&copy);
	g_debug("connection %" G_GUINT64_FORMAT ": %s failed: %s",
		erpc_connection_get_id(self->connection),
		erpc_call_get_method(self),
		copy->message);
	message = erpc_message_new_error(erpc_call_get_id(self),
					 erpc_error_to_wire_code(copy),
					 copy->message,
					 owned);
	erpc_call_finish(self, message);
}

/**
 * erpc_call_return_error:
 * @self: a #ErpcCall
 * @error: what went wrong; converted with erpc_error_convert()
 *
 * Answers the request with an error.
 *
 * Since: 0.1
 */
void
erpc_call_return_error(ErpcCall *self, const GError *error)
{
	erpc_call_return_error_full(self, error, NULL);
}

static void
erpc_call_finalize(GObject *object)
{
	ErpcCall *self = ERPC_CALL(object);

	if (self->cancellable != NULL) {
		g_cancellable_disconnect(erpc_connection_get_cancellable(self->connection),
					 self->cancel_id);
		g_object_unref(self->cancellable);
	}
	g_clear_object(&self->session);
	g_object_unref(self->connection);
	erpc_message_unref(self->request);
	G_OBJECT_CLASS(erpc_call_parent_class)->finalize(object);
}

static void
erpc_call_init(ErpcCall *self)
{
}

static void
erpc_call_class_init(ErpcCallClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->finalize = erpc_call_finalize;

	/**
	 * ErpcCall::finished:
	 * @self: the call
	 *
	 * Emitted once, after the answer was queued.
	 *
	 * Since: 0.1
	 */
	erpc_call_signals[SIGNAL_FINISHED] = g_signal_new("finished",
							  G_TYPE_FROM_CLASS(klass),
							  G_SIGNAL_RUN_LAST,
							  0,
							  NULL,
							  NULL,
							  NULL,
							  G_TYPE_NONE,
							  0);
}

/**
 * erpc_call_new:
 * @connection: where the request came from
 * @request: a request message
 *
 * Returns: (transfer full): a new call
 *
 * Since: 0.1
 */
ErpcCall *
erpc_call_new(ErpcConnection *connection, ErpcMessage *request)
{
	ErpcCall *self;

	g_return_val_if_fail(ERPC_IS_CONNECTION(connection), NULL);
	g_return_val_if_fail(request != NULL, NULL);
	self = g_object_new(ERPC_TYPE_CALL, NULL);
	self->connection = g_object_ref(connection);
	self->request = erpc_message_ref(request);
	return self;
}
