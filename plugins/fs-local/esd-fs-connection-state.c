/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-fs-connection-state.h"
#include "esd-fs-sandbox-warm.h"
#include "esd-fs-watch.h"

/**
 * EsdFsConnectionState:
 *
 * What the plugin keeps per connection, in its slot of the #ErpcConnection
 * and dropped when it closes: the open file handles and the missing-path
 * watch with its generation. Nothing of it survives a session resume.
 */

/* the slot is keyed by this type, which only this plugin has */
#define ESD_FS_CONNECTION_STATE_KEY GSIZE_TO_POINTER(ESD_TYPE_FS_CONNECTION_STATE)

struct _EsdFsConnectionState {
	GObject parent_instance;
	ErpcConnection *connection; /* not a reference: it owns us */
	EsdFsHandleTable *handles;
	EsdFsWatch *watch;
	guint64 generation;
	gboolean has_generation;
	EsdFsWarmPool *warm;
};

G_DEFINE_TYPE(EsdFsConnectionState, esd_fs_connection_state, G_TYPE_OBJECT)

/**
 * esd_fs_connection_state_get:
 * @connection: a connection
 *
 * Returns: (transfer none): the state of @connection, created on first use
 */
EsdFsConnectionState *
esd_fs_connection_state_get(ErpcConnection *connection)
{
	EsdFsConnectionState *self;

	self = erpc_connection_get_plugin_state(connection, ESD_FS_CONNECTION_STATE_KEY);
	if (self != NULL)
		return self;
	self = g_object_new(ESD_TYPE_FS_CONNECTION_STATE, NULL);
	self->connection = connection;
	erpc_connection_set_plugin_state(connection,
					 ESD_FS_CONNECTION_STATE_KEY,
					 self,
					 g_object_unref);
	return self;
}

/* closes every handle (discarding unfinished replacements) and cancels the watch */
void
esd_fs_connection_state_drop(ErpcConnection *connection)
{
	erpc_connection_set_plugin_state(connection, ESD_FS_CONNECTION_STATE_KEY, NULL, NULL);
}

EsdFsHandleTable *
esd_fs_connection_state_get_handles(EsdFsConnectionState *self)
{
	g_return_val_if_fail(ESD_IS_FS_CONNECTION_STATE(self), NULL);
	return self->handles;
}

/**
 * esd_fs_connection_state_get_warm:
 * @self: the connection's state
 *
 * Returns: (transfer none): the connection's warm sandboxed helpers
 */
EsdFsWarmPool *
esd_fs_connection_state_get_warm(EsdFsConnectionState *self)
{
	g_return_val_if_fail(ESD_IS_FS_CONNECTION_STATE(self), NULL);
	if (self->warm == NULL)
		self->warm = esd_fs_warm_pool_new();
	return self->warm;
}

static void
esd_fs_connection_state_clear_watch(EsdFsConnectionState *self)
{
	if (self->watch == NULL)
		return;
	g_signal_handlers_disconnect_by_data(self->watch, self);
	g_clear_object(&self->watch);
}

static void
esd_fs_connection_state_fired_cb(EsdFsWatch *watch, EsdFsConnectionState *self)
{
	GString *text = g_string_sized_new(80);
	g_autoptr(GBytes) message = NULL;
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, text);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "method", "fs/missingChanged");
	erpc_json_writer_member(&writer, "params");
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_uint(&writer, "watchId", esd_fs_watch_get_id(watch));
	erpc_json_writer_end_object(&writer);
	erpc_json_writer_end_object(&writer);
	g_debug("connection %" G_GUINT64_FORMAT ": watch %" G_GUINT64_FORMAT " fired",
		erpc_connection_get_id(self->connection),
		esd_fs_watch_get_id(watch));
	message = g_string_free_to_bytes(text);
	erpc_connection_send(self->connection, message);
	/* one-shot */
	esd_fs_connection_state_clear_watch(self);
}

/**
 * esd_fs_connection_state_watch:
 * @self: the connection's state
 * @inotify: the plugin's inotify instance
 * @watch_id: the generation of the request
 * @missing: (element-type utf8): local paths expected to appear
 * @present: (nullable): a local path expected to stay
 *
 * A request whose id is not above every id seen on this connection is
 * stale and ignored; a newer one replaces the active watch, even when it
 * has nothing to watch itself.
 *
 * Returns: whether the new watch is active
 */
gboolean
esd_fs_connection_state_watch(EsdFsConnectionState *self,
			      EsdFsInotify *inotify,
			      guint64 watch_id,
			      GPtrArray *missing,
			      const gchar *present)
{
	g_autoptr(EsdFsWatch) watch = NULL;

	g_return_val_if_fail(ESD_IS_FS_CONNECTION_STATE(self), FALSE);
	if (self->has_generation && watch_id <= self->generation)
		return FALSE;
	self->generation = watch_id;
	self->has_generation = TRUE;
	esd_fs_connection_state_clear_watch(self);
	watch = esd_fs_watch_new(inotify, watch_id);
	for (guint i = 0; i < missing->len; i++)
		esd_fs_watch_add_missing(watch, g_ptr_array_index(missing, i));
	if (present != NULL)
		esd_fs_watch_set_present(watch, present);
	if (!esd_fs_watch_start(watch))
		return FALSE;
	g_signal_connect(watch, "fired", G_CALLBACK(esd_fs_connection_state_fired_cb), self);
	self->watch = g_steal_pointer(&watch);
	return TRUE;
}

static void
esd_fs_connection_state_dispose(GObject *object)
{
	EsdFsConnectionState *self = ESD_FS_CONNECTION_STATE(object);

	esd_fs_connection_state_clear_watch(self);
	g_clear_object(&self->handles);
	g_clear_pointer(&self->warm, esd_fs_warm_pool_free);
	G_OBJECT_CLASS(esd_fs_connection_state_parent_class)->dispose(object);
}

static void
esd_fs_connection_state_init(EsdFsConnectionState *self)
{
	self->handles = esd_fs_handle_table_new();
}

static void
esd_fs_connection_state_class_init(EsdFsConnectionStateClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = esd_fs_connection_state_dispose;
}
