/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <glib-unix.h>
#include <sys/inotify.h>

#include "esd-fs-inotify.h"
#include "esd-fs-util.h"

/**
 * EsdFsInotify:
 *
 * One inotify instance for the whole plugin: instances are a scarce
 * per-user resource (128 by default), watches are not. Directories are
 * watched for entries appearing or disappearing and for going away
 * themselves; several subscribers may share one kernel watch.
 */

#define ESD_FS_INOTIFY_MASK                                                                        \
	(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF |     \
	 IN_ONLYDIR)

typedef struct {
	guint id;
	gint wd; /* -1 once the kernel dropped the watch */
	EsdFsInotifyFunc func;
	gpointer user_data;
} EsdFsInotifySub;

struct _EsdFsInotify {
	GObject parent_instance;
	gint fd;
	guint source_id;
	guint next_id;
	GHashTable *subs;  /* id → EsdFsInotifySub */
	GHashTable *by_wd; /* wd → GPtrArray of EsdFsInotifySub (borrowed) */
};

G_DEFINE_TYPE(EsdFsInotify, esd_fs_inotify, G_TYPE_OBJECT)

EsdFsInotify *
esd_fs_inotify_new(void)
{
	return g_object_new(ESD_TYPE_FS_INOTIFY, NULL);
}

static void
esd_fs_inotify_collect(EsdFsInotify *self, gint wd, GArray *ids)
{
	GPtrArray *subs = g_hash_table_lookup(self->by_wd, GINT_TO_POINTER(wd));

	for (guint i = 0; subs != NULL && i < subs->len; i++) {
		EsdFsInotifySub *sub = g_ptr_array_index(subs, i);
		g_array_append_val(ids, sub->id);
	}
}

/* the kernel removed @wd (its directory is gone): nobody may remove it again */
static void
esd_fs_inotify_forget_wd(EsdFsInotify *self, gint wd)
{
	GPtrArray *subs = g_hash_table_lookup(self->by_wd, GINT_TO_POINTER(wd));

	for (guint i = 0; subs != NULL && i < subs->len; i++) {
		EsdFsInotifySub *sub = g_ptr_array_index(subs, i);
		sub->wd = -1;
	}
	g_hash_table_remove(self->by_wd, GINT_TO_POINTER(wd));
}

static gboolean
esd_fs_inotify_readable_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	EsdFsInotify *self = ESD_FS_INOTIFY(user_data);
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint));
	gboolean overflow = FALSE;
	gchar buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		gssize n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (gssize off = 0; off < n;) {
			const struct inotify_event *event =
			    (const struct inotify_event *)(buf + off);
			if (event->mask & IN_Q_OVERFLOW)
				overflow = TRUE;
			else
				esd_fs_inotify_collect(self, event->wd, ids);
			if (event->mask & IN_IGNORED)
				esd_fs_inotify_forget_wd(self, event->wd);
			off += (gssize)(sizeof(struct inotify_event) + event->len);
		}
	}
	if (overflow) {
		GHashTableIter iter;
		gpointer key;
		g_array_set_size(ids, 0);
		g_hash_table_iter_init(&iter, self->subs);
		while (g_hash_table_iter_next(&iter, &key, NULL)) {
			guint id = GPOINTER_TO_UINT(key);
			g_array_append_val(ids, id);
		}
	}
	/* a callback may unsubscribe others: look each one up again */
	g_object_ref(self);
	for (guint i = 0; i < ids->len; i++) {
		EsdFsInotifySub *sub =
		    g_hash_table_lookup(self->subs, GUINT_TO_POINTER(g_array_index(ids, guint, i)));
		if (sub != NULL)
			sub->func(sub->user_data);
	}
	g_object_unref(self);
	return G_SOURCE_CONTINUE;
}

static gboolean
esd_fs_inotify_ensure_open(EsdFsInotify *self, GError **error)
{
	if (self->fd >= 0)
		return TRUE;
	self->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (self->fd < 0)
		return esd_fs_set_errno(error, errno);
	/* below default priority: the answer to a request that caused a change goes first */
	self->source_id = g_unix_fd_add_full(G_PRIORITY_DEFAULT + 10,
					     self->fd,
					     G_IO_IN,
					     esd_fs_inotify_readable_cb,
					     self,
					     NULL);
	return TRUE;
}

/**
 * esd_fs_inotify_subscribe:
 * @self: a #EsdFsInotify
 * @dir: a directory
 * @func: called on the main thread when @dir changes
 * @user_data: for @func
 * @error: return location for a #GError, or %NULL
 *
 * Returns: a subscription id, or 0 with @error set
 */
guint
esd_fs_inotify_subscribe(EsdFsInotify *self,
			 const gchar *dir,
			 EsdFsInotifyFunc func,
			 gpointer user_data,
			 GError **error)
{
	EsdFsInotifySub *sub;
	GPtrArray *subs;
	gint wd;

	g_return_val_if_fail(ESD_IS_FS_INOTIFY(self), 0);
	if (!esd_fs_inotify_ensure_open(self, error))
		return 0;
	wd = inotify_add_watch(self->fd, dir, ESD_FS_INOTIFY_MASK);
	if (wd < 0) {
		esd_fs_set_errno(error, errno);
		return 0;
	}
	sub = g_new0(EsdFsInotifySub, 1);
	sub->id = ++self->next_id;
	sub->wd = wd;
	sub->func = func;
	sub->user_data = user_data;
	g_hash_table_insert(self->subs, GUINT_TO_POINTER(sub->id), sub);
	subs = g_hash_table_lookup(self->by_wd, GINT_TO_POINTER(wd));
	if (subs == NULL) {
		subs = g_ptr_array_new();
		g_hash_table_insert(self->by_wd, GINT_TO_POINTER(wd), subs);
	}
	g_ptr_array_add(subs, sub);
	return sub->id;
}

void
esd_fs_inotify_unsubscribe(EsdFsInotify *self, guint id)
{
	EsdFsInotifySub *sub;

	g_return_if_fail(ESD_IS_FS_INOTIFY(self));
	sub = g_hash_table_lookup(self->subs, GUINT_TO_POINTER(id));
	if (sub == NULL)
		return;
	if (sub->wd >= 0) {
		GPtrArray *subs = g_hash_table_lookup(self->by_wd, GINT_TO_POINTER(sub->wd));
		if (subs != NULL) {
			g_ptr_array_remove(subs, sub);
			if (subs->len == 0) {
				inotify_rm_watch(self->fd, sub->wd);
				g_hash_table_remove(self->by_wd, GINT_TO_POINTER(sub->wd));
			}
		}
	}
	g_hash_table_remove(self->subs, GUINT_TO_POINTER(id));
}

static void
esd_fs_inotify_finalize(GObject *object)
{
	EsdFsInotify *self = ESD_FS_INOTIFY(object);

	if (self->source_id != 0)
		g_source_remove(self->source_id);
	esd_fs_close_fdp(&self->fd);
	g_hash_table_unref(self->by_wd);
	g_hash_table_unref(self->subs);
	G_OBJECT_CLASS(esd_fs_inotify_parent_class)->finalize(object);
}

static void
esd_fs_inotify_init(EsdFsInotify *self)
{
	self->fd = -1;
	self->subs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	self->by_wd = g_hash_table_new_full(g_direct_hash,
					    g_direct_equal,
					    NULL,
					    (GDestroyNotify)g_ptr_array_unref);
}

static void
esd_fs_inotify_class_init(EsdFsInotifyClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_fs_inotify_finalize;
}
