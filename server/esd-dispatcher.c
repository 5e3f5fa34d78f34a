/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "erpc-call-private.h"
#include "erpc-registry-private.h"
#include "erpc-session-private.h"
#include "esd-dispatcher.h"

/* everything a peer can cause is logged under this domain, at most as info */
#define PROTOCOL_LOG_DOMAIN "execserverd-protocol"

/*
 * One dispatcher per connection. It enforces the handshake (initialize, then
 * the initialized notification, then everything else), closes the connection
 * on the events the protocol makes fatal, and runs requests in arrival order
 * with at most max_concurrent of them unanswered at once. Requests beyond
 * that wait in a queue; notifications from the server are never held back.
 */
struct _EsdDispatcher {
	GObject parent_instance;
	ErpcConnection *connection;
	ErpcRegistry *registry;
	EsdSession *session;
	EsdDispatcherState state;
	GQueue pending;	     /* of ErpcMessage */
	GHashTable *running; /* of ErpcCall */
	guint max_concurrent;
	gboolean pumping;
	guint max_pending;	  /* 0: no limit */
	GSource *handshake_timer; /* until `initialized` */
};

G_DEFINE_TYPE(EsdDispatcher, esd_dispatcher, G_TYPE_OBJECT)

enum { SIGNAL_CLOSED, SIGNAL_LAST };
static guint esd_dispatcher_signals[SIGNAL_LAST] = {0};

ErpcConnection *
esd_dispatcher_get_connection(EsdDispatcher *self)
{
	return self->connection;
}

EsdDispatcherState
esd_dispatcher_get_state(EsdDispatcher *self)
{
	return self->state;
}

EsdSession *
esd_dispatcher_get_session(EsdDispatcher *self)
{
	return self->session;
}

/* called by the initialize handler once it succeeded */
void
esd_dispatcher_set_session(EsdDispatcher *self, EsdSession *session)
{
	g_return_if_fail(self->state == ESD_DISPATCHER_STATE_NEW);
	g_set_object(&self->session, session);
	self->state = ESD_DISPATCHER_STATE_INITIALIZING;
}

static void
esd_dispatcher_fatal(EsdDispatcher *self, const gchar *reason)
{
	g_log(PROTOCOL_LOG_DOMAIN,
	      G_LOG_LEVEL_INFO,
	      "connection %" G_GUINT64_FORMAT " (%s): closing: %s",
	      erpc_connection_get_id(self->connection),
	      erpc_connection_get_peer(self->connection),
	      reason);
	/* the protocol drops the connection without a closing handshake */
	erpc_connection_close(self->connection, TRUE);
}

static void
esd_dispatcher_pump(EsdDispatcher *self);

static void
esd_dispatcher_call_finished_cb(ErpcCall *call, gpointer user_data)
{
	EsdDispatcher *self = ESD_DISPATCHER(user_data);

	g_hash_table_remove(self->running, call);
	esd_dispatcher_pump(self);
}

static void
esd_dispatcher_reply_error(EsdDispatcher *self, ErpcMessage *request, const GError *error)
{
	g_autoptr(GBytes) reply = NULL;

	g_log(PROTOCOL_LOG_DOMAIN,
	      G_LOG_LEVEL_DEBUG,
	      "connection %" G_GUINT64_FORMAT ": %s refused: %s",
	      erpc_connection_get_id(self->connection),
	      erpc_message_get_method(request),
	      error->message);
	reply = erpc_message_new_error(erpc_message_get_id(request),
				       erpc_error_to_wire_code(error),
				       error->message,
				       NULL);
	erpc_connection_send(self->connection, reply);
}

/* checks everything the envelope allows before a handler runs */
static const ErpcMethodInfo *
esd_dispatcher_check_request(EsdDispatcher *self,
			     ErpcMessage *request,
			     JsonObject **params,
			     gpointer *user_data,
			     GError **error)
{
	const gchar *method = erpc_message_get_method(request);
	const ErpcMethodInfo *info = erpc_registry_lookup_method(self->registry, method, user_data);
	JsonNode *params_node = erpc_message_get_params(request);

	if (info == NULL) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_METHOD_NOT_FOUND,
			    "exec-server stub does not implement `%s` yet",
			    method);
		return NULL;
	}
	if ((info->flags & ERPC_METHOD_FLAG_PRE_INIT) == 0) {
		if (self->state == ESD_DISPATCHER_STATE_NEW) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "client must call initialize before using %s methods",
				    info->family);
			return NULL;
		}
		if (self->state == ESD_DISPATCHER_STATE_INITIALIZING) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "client must send initialized before using %s methods",
				    info->family);
			return NULL;
		}
	}
	*params = NULL;
	if (info->params_type == NULL) {
		if (!erpc_json_check_unit(params_node, error))
			return NULL;
	} else {
		*params = erpc_json_params_object(params_node, info->params_type, error);
		if (*params == NULL)
			return NULL;
	}
	return info;
}

static void
esd_dispatcher_run(EsdDispatcher *self, ErpcMessage *request)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcCall) call = NULL;
	const ErpcMethodInfo *info;
	JsonObject *params = NULL;
	gpointer user_data = NULL;

	info = esd_dispatcher_check_request(self, request, &params, &user_data, &error);
	if (info == NULL) {
		esd_dispatcher_reply_error(self, request, error);
		return;
	}
	call = erpc_call_new(self->connection, request);
	erpc_call_set_context(call, self);
	erpc_call_set_session(call, self->session != NULL ? ERPC_SESSION(self->session) : NULL);
	g_hash_table_add(self->running, g_object_ref(call));
	erpc_call_set_finished_func(call, esd_dispatcher_call_finished_cb, self);
	/* large strings stay in the frame only for handlers that read them so */
	if ((info->flags & ERPC_METHOD_FLAG_BLOBS) == 0)
		erpc_message_expand(request);
	info->func(call, params, user_data);
}

static void
esd_dispatcher_stop_handshake_timer(EsdDispatcher *self)
{
	if (self->handshake_timer == NULL)
		return;
	g_source_destroy(self->handshake_timer);
	g_clear_pointer(&self->handshake_timer, g_source_unref);
}

static gboolean
esd_dispatcher_handshake_timeout_cb(gpointer user_data)
{
	EsdDispatcher *self = ESD_DISPATCHER(user_data);

	g_clear_pointer(&self->handshake_timer, g_source_unref);
	g_message("connection %" G_GUINT64_FORMAT " (%s): no handshake in time; disconnecting",
		  erpc_connection_get_id(self->connection),
		  erpc_transport_get_peer(erpc_connection_get_transport(self->connection)));
	erpc_connection_close(self->connection, TRUE);
	return G_SOURCE_REMOVE;
}

/**
 * esd_dispatcher_set_limits:
 * @handshake_timeout: seconds until `initialized` must have arrived, 0 for none
 * @max_pending: requests that may wait to run, 0 for no limit
 */
void
esd_dispatcher_set_limits(EsdDispatcher *self, guint handshake_timeout, guint max_pending)
{
	g_return_if_fail(ESD_IS_DISPATCHER(self));
	self->max_pending = max_pending;
	esd_dispatcher_stop_handshake_timer(self);
	if (handshake_timeout == 0 || self->state == ESD_DISPATCHER_STATE_READY)
		return;
	/* to the millisecond: a seconds timer may fire up to a second early */
	self->handshake_timer =
	    g_timeout_source_new(MIN(handshake_timeout, G_MAXUINT / 1000) * 1000);
	g_source_set_callback(self->handshake_timer,
			      esd_dispatcher_handshake_timeout_cb,
			      self,
			      NULL);
	g_source_attach(self->handshake_timer, NULL);
}

/* runs queued requests while slots are free; never recurses */
static void
esd_dispatcher_pump(EsdDispatcher *self)
{
	if (self->pumping)
		return;
	self->pumping = TRUE;
	g_object_ref(self);
	while (self->state != ESD_DISPATCHER_STATE_CLOSED && !g_queue_is_empty(&self->pending) &&
	       g_hash_table_size(self->running) < self->max_concurrent) {
		g_autoptr(ErpcMessage) request = g_queue_pop_head(&self->pending);
		esd_dispatcher_run(self, request);
	}
	self->pumping = FALSE;
	g_object_unref(self);
}

static void
esd_dispatcher_notification(EsdDispatcher *self, ErpcMessage *message)
{
	const gchar *method = erpc_message_get_method(message);

	if (g_strcmp0(method, "initialized") != 0) {
		g_autofree gchar *reason = g_strdup_printf("unexpected notification %s", method);
		esd_dispatcher_fatal(self, reason);
		return;
	}
	switch (self->state) {
	case ESD_DISPATCHER_STATE_NEW:
		esd_dispatcher_fatal(self, "initialized before initialize");
		break;
	case ESD_DISPATCHER_STATE_INITIALIZING:
		self->state = ESD_DISPATCHER_STATE_READY;
		esd_dispatcher_stop_handshake_timer(self);
		break;
	case ESD_DISPATCHER_STATE_READY:
	case ESD_DISPATCHER_STATE_CLOSED:
	default:
		break;
	}
}

static void
esd_dispatcher_message_cb(ErpcConnection *connection, ErpcMessage *message, EsdDispatcher *self)
{
	switch (erpc_message_get_kind(message)) {
	case ERPC_MESSAGE_KIND_REQUEST:
		/* a peer that pipelines without end gets errors, not memory */
		if (self->max_pending > 0 && self->pending.length >= self->max_pending) {
			g_autoptr(GError) error = NULL;
			g_set_error(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_BUSY,
				    "too many requests waiting on this connection (limit %u)",
				    self->max_pending);
			g_debug("connection %" G_GUINT64_FORMAT ": %s",
				erpc_connection_get_id(connection),
				error->message);
			esd_dispatcher_reply_error(self, message, error);
			break;
		}
		g_queue_push_tail(&self->pending, erpc_message_ref(message));
		esd_dispatcher_pump(self);
		break;
	case ERPC_MESSAGE_KIND_NOTIFICATION:
		esd_dispatcher_notification(self, message);
		break;
	case ERPC_MESSAGE_KIND_RESPONSE:
	case ERPC_MESSAGE_KIND_ERROR:
	default:
		/* answers to plugins' requests, late ones dropped; an id never issued is fatal */
		if (self->session != NULL &&
		    erpc_session_get_connection(ERPC_SESSION(self->session)) == connection &&
		    erpc_session_handle_response(ERPC_SESSION(self->session), message))
			break;
		esd_dispatcher_fatal(self, "response to no outstanding request");
		break;
	}
}

static void
esd_dispatcher_malformed_cb(ErpcConnection *connection, const GError *error, EsdDispatcher *self)
{
	g_log(PROTOCOL_LOG_DOMAIN,
	      G_LOG_LEVEL_DEBUG,
	      "connection %" G_GUINT64_FORMAT ": malformed frame: %s",
	      erpc_connection_get_id(connection),
	      error->message);
	erpc_connection_send_parse_error(connection, error);
}

static void
esd_dispatcher_closed_cb(ErpcConnection *connection, EsdDispatcher *self)
{
	self->state = ESD_DISPATCHER_STATE_CLOSED;
	g_queue_clear_full(&self->pending, (GDestroyNotify)erpc_message_unref);
	g_signal_emit(self, esd_dispatcher_signals[SIGNAL_CLOSED], 0);
}

static void
esd_dispatcher_dispose(GObject *object)
{
	esd_dispatcher_stop_handshake_timer(ESD_DISPATCHER(object));
	EsdDispatcher *self = ESD_DISPATCHER(object);

	if (self->connection != NULL) {
		g_signal_handlers_disconnect_by_data(self->connection, self);
		g_clear_object(&self->connection);
	}
	if (self->running != NULL) {
		GHashTableIter iter;
		ErpcCall *call;
		g_hash_table_iter_init(&iter, self->running);
		while (g_hash_table_iter_next(&iter, (gpointer *)&call, NULL)) {
			erpc_call_set_finished_func(call, NULL, NULL);
			erpc_call_set_context(call, NULL);
		}
		g_clear_pointer(&self->running, g_hash_table_unref);
	}
	g_queue_clear_full(&self->pending, (GDestroyNotify)erpc_message_unref);
	g_clear_object(&self->session);
	g_clear_object(&self->registry);
	G_OBJECT_CLASS(esd_dispatcher_parent_class)->dispose(object);
}

static void
esd_dispatcher_init(EsdDispatcher *self)
{
	g_queue_init(&self->pending);
	self->running = g_hash_table_new_full(g_direct_hash, g_direct_equal, g_object_unref, NULL);
}

static void
esd_dispatcher_class_init(EsdDispatcherClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = esd_dispatcher_dispose;
	esd_dispatcher_signals[SIGNAL_CLOSED] = g_signal_new("closed",
							     G_TYPE_FROM_CLASS(klass),
							     G_SIGNAL_RUN_LAST,
							     0,
							     NULL,
							     NULL,
							     NULL,
							     G_TYPE_NONE,
							     0);
}

EsdDispatcher *
esd_dispatcher_new(ErpcConnection *connection, ErpcRegistry *registry, guint max_concurrent)
{
	EsdDispatcher *self = g_object_new(ESD_TYPE_DISPATCHER, NULL);
	self->connection = g_object_ref(connection);
	self->registry = g_object_ref(registry);
	self->max_concurrent = MAX(max_concurrent, 1);
	g_signal_connect(connection, "message", G_CALLBACK(esd_dispatcher_message_cb), self);
	g_signal_connect(connection, "malformed", G_CALLBACK(esd_dispatcher_malformed_cb), self);
	g_signal_connect(connection, "closed", G_CALLBACK(esd_dispatcher_closed_cb), self);
	return self;
}
