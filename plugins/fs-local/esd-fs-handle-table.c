/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>

#include "esd-fs-handle-table.h"

/**
 * EsdFsHandleTable:
 *
 * The file handles of one connection, by the client's id. Used on the main
 * thread only; the handles themselves may be busy in workers.
 */

struct _EsdFsHandleTable {
	GObject parent_instance;
	GHashTable *handles; /* id → EsdFsHandle */
};

G_DEFINE_TYPE(EsdFsHandleTable, esd_fs_handle_table, G_TYPE_OBJECT)

EsdFsHandleTable *
esd_fs_handle_table_new(void)
{
	return g_object_new(ESD_TYPE_FS_HANDLE_TABLE, NULL);
}

/* every fs/open, fs/readBlock, fs/writeBlock and fs/close checks the id first */
gboolean
esd_fs_handle_table_check_id(const gchar *id, GError **error)
{
	if (strlen(id) <= ESD_FS_HANDLE_ID_MAX_LEN)
		return TRUE;
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_REQUEST,
		    "file handle ID must not exceed %d bytes",
		    ESD_FS_HANDLE_ID_MAX_LEN);
	return FALSE;
}

static guint esd_fs_handles_max = ESD_FS_HANDLES_MAX;

/* for every connection's table, from the daemon's option; set once at setup */
void
esd_fs_handle_table_set_limit(guint max_handles)
{
	esd_fs_handles_max = max_handles;
}

/* refuses a duplicate id or a full table before any file is touched */
gboolean
esd_fs_handle_table_reserve(EsdFsHandleTable *self, const gchar *id, GError **error)
{
	g_return_val_if_fail(ESD_IS_FS_HANDLE_TABLE(self), FALSE);
	if (g_hash_table_contains(self->handles, id)) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "file handle `%s` already exists",
			    id);
		return FALSE;
	}
	if (g_hash_table_size(self->handles) >= esd_fs_handles_max) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "at most %u file handles may be open per connection",
			    esd_fs_handles_max);
		return FALSE;
	}
	return TRUE;
}

void
esd_fs_handle_table_insert(EsdFsHandleTable *self, const gchar *id, EsdFsHandle *handle)
{
	g_return_if_fail(ESD_IS_FS_HANDLE_TABLE(self));
	g_hash_table_replace(self->handles, g_strdup(id), g_object_ref(handle));
}

/**
 * esd_fs_handle_table_lookup:
 *
 * Returns: (transfer none): the handle, or %NULL with a -32004 @error
 */
EsdFsHandle *
esd_fs_handle_table_lookup(EsdFsHandleTable *self, const gchar *id, GError **error)
{
	EsdFsHandle *handle;

	g_return_val_if_fail(ESD_IS_FS_HANDLE_TABLE(self), NULL);
	handle = g_hash_table_lookup(self->handles, id);
	if (handle == NULL)
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_NOT_FOUND,
			    "unknown file handle `%s`",
			    id);
	return handle;
}

/**
 * esd_fs_handle_table_steal:
 *
 * Returns: (transfer full) (nullable): the handle, now out of the table
 */
EsdFsHandle *
esd_fs_handle_table_steal(EsdFsHandleTable *self, const gchar *id)
{
	gpointer key = NULL;
	gpointer value = NULL;

	g_return_val_if_fail(ESD_IS_FS_HANDLE_TABLE(self), NULL);
	if (!g_hash_table_steal_extended(self->handles, id, &key, &value))
		return NULL;
	g_free(key);
	return value;
}

static void
esd_fs_handle_table_finalize(GObject *object)
{
	EsdFsHandleTable *self = ESD_FS_HANDLE_TABLE(object);

	g_hash_table_unref(self->handles);
	G_OBJECT_CLASS(esd_fs_handle_table_parent_class)->finalize(object);
}

static void
esd_fs_handle_table_init(EsdFsHandleTable *self)
{
	self->handles = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
}

static void
esd_fs_handle_table_class_init(EsdFsHandleTableClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_fs_handle_table_finalize;
}
