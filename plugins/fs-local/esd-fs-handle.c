/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-fs-handle.h"

/**
 * EsdFsHandle:
 *
 * One open file of fs/open: a file read at explicit offsets, or the
 * replacement of a file written at explicit offsets and put in place by
 * fs/close. Reads and writes may run in worker threads while the handle is
 * closed on the main thread: the descriptor lives as long as the object,
 * and a replacement that was never committed is discarded when it dies.
 *
 * A replacement one of whose writes failed holds a hole or a partial block,
 * so it is never put in place: the commit waits for the writes still
 * running, then discards the staged file and reports the first failure.
 */

struct _EsdFsHandle {
	GObject parent_instance;
	gint fd;	       /* read handles */
	EsdFsReplace *replace; /* write handles */
	GRWLock lock;	       /* writes share it, the commit takes it alone */
	gboolean committed;
	GMutex error_mutex;  /* between writes */
	GError *write_error; /* the first write that failed */
};

G_DEFINE_TYPE(EsdFsHandle, esd_fs_handle, G_TYPE_OBJECT)

EsdFsHandle *
esd_fs_handle_new_read(gint fd)
{
	EsdFsHandle *self = g_object_new(ESD_TYPE_FS_HANDLE, NULL);
	self->fd = fd;
	return self;
}

EsdFsHandle *
esd_fs_handle_new_replace(EsdFsReplace *replace)
{
	EsdFsHandle *self = g_object_new(ESD_TYPE_FS_HANDLE, NULL);
	self->replace = replace;
	return self;
}

/* the descriptor of a read handle, or -1 */
gint
esd_fs_handle_get_fd(EsdFsHandle *self)
{
	g_return_val_if_fail(ESD_IS_FS_HANDLE(self), -1);
	return self->fd;
}

/* the replacement of a write handle, or %NULL; (transfer none) */
EsdFsReplace *
esd_fs_handle_get_replace(EsdFsHandle *self)
{
	g_return_val_if_fail(ESD_IS_FS_HANDLE(self), NULL);
	return self->replace;
}

gboolean
esd_fs_handle_is_writable(EsdFsHandle *self)
{
	g_return_val_if_fail(ESD_IS_FS_HANDLE(self), FALSE);
	return self->replace != NULL;
}

/**
 * esd_fs_handle_read_block:
 * @self: a read handle
 * @offset: where to read
 * @len: how much, 1..%ESD_FS_BLOCK_MAX
 * @error: return location for a #GError, or %NULL
 *
 * `eof` is true when fewer than @len bytes were left.
 *
 * Returns: (transfer full): `{"chunk":...,"eof":...}`, or %NULL with @error set
 */
GString *
esd_fs_handle_read_block(EsdFsHandle *self, guint64 offset, gsize len, GError **error)
{
	g_autofree guint8 *buf = NULL;
	gsize got = 0;
	ErpcJsonWriter writer;
	GString *out;

	g_return_val_if_fail(ESD_IS_FS_HANDLE(self), NULL);
	/* what pread on a write-only descriptor says */
	if (self->replace != NULL) {
		esd_fs_set_errno(error, EBADF);
		return NULL;
	}
	buf = g_malloc(len);
	if (!esd_fs_read_all(self->fd, buf, len, offset, &got, error))
		return NULL;
	out = g_string_sized_new((got + 2) / 3 * 4 + 32);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "chunk");
	erpc_json_writer_base64(&writer, buf, got);
	erpc_json_writer_member_boolean(&writer, "eof", got < len);
	erpc_json_writer_end_object(&writer);
	return out;
}

/**
 * esd_fs_handle_write_block:
 * @self: a write handle
 * @offset: where to write; a hole before it reads as zeros
 * @data: the bytes, all of which are written
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_handle_write_block(EsdFsHandle *self, guint64 offset, GBytes *data, GError **error)
{
	gsize len = 0;
	const guint8 *buf = g_bytes_get_data(data, &len);
	g_autoptr(GError) error_local = NULL;
	g_autoptr(GRWLockReaderLocker) locker = NULL;

	g_return_val_if_fail(ESD_IS_FS_HANDLE(self), FALSE);
	locker = g_rw_lock_reader_locker_new(&self->lock);
	/* committed or discarded already: what a closed descriptor says */
	if (self->replace == NULL || self->committed)
		return esd_fs_set_errno(error, EBADF);
	if (esd_fs_write_all(esd_fs_replace_get_fd(self->replace), buf, len, offset, &error_local))
		return TRUE;
	g_mutex_lock(&self->error_mutex);
	if (self->write_error == NULL)
		self->write_error = g_error_copy(error_local);
	g_mutex_unlock(&self->error_mutex);
	g_propagate_error(error, g_steal_pointer(&error_local));
	return FALSE;
}

/**
 * esd_fs_handle_commit:
 * @self: a handle
 * @error: return location for a #GError, or %NULL
 *
 * Flushes a write handle's file and renames it over its target; a read
 * handle has nothing to do. Only the first call commits. After a write
 * failed, the staged file is discarded instead and the target kept.
 *
 * Returns: %TRUE on success; %FALSE with the first failed write's error
 */
gboolean
esd_fs_handle_commit(EsdFsHandle *self, GError **error)
{
	g_autoptr(GRWLockWriterLocker) locker = NULL;

	g_return_val_if_fail(ESD_IS_FS_HANDLE(self), FALSE);
	if (!esd_fs_handle_is_writable(self))
		return TRUE;
	locker = g_rw_lock_writer_locker_new(&self->lock);
	if (self->committed)
		return TRUE;
	self->committed = TRUE;
	/* no write runs now: write_error is ours */
	if (self->write_error != NULL) {
		esd_fs_replace_discard(self->replace);
		g_propagate_error(error, g_steal_pointer(&self->write_error));
		return FALSE;
	}
	return esd_fs_replace_commit(self->replace, FALSE, error);
}

static void
esd_fs_handle_finalize(GObject *object)
{
	EsdFsHandle *self = ESD_FS_HANDLE(object);

	esd_fs_close_fdp(&self->fd);
	g_clear_pointer(&self->replace, esd_fs_replace_free);
	g_clear_error(&self->write_error);
	g_mutex_clear(&self->error_mutex);
	g_rw_lock_clear(&self->lock);
	G_OBJECT_CLASS(esd_fs_handle_parent_class)->finalize(object);
}

static void
esd_fs_handle_init(EsdFsHandle *self)
{
	self->fd = -1;
	g_rw_lock_init(&self->lock);
	g_mutex_init(&self->error_mutex);
}

static void
esd_fs_handle_class_init(EsdFsHandleClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_fs_handle_finalize;
}
