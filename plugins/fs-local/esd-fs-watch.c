/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "esd-fs-watch.h"

/**
 * EsdFsWatch:
 *
 * One fs/watchMissing watch (PROTOCOL.md §11). It fires once, with
 * #EsdFsWatch::fired, when a missing path, or a missing ancestor of one,
 * comes into existence, or when `present` disappears.
 *
 * Each missing path is watched through the deepest ancestor that exists:
 * its directory is watched with inotify, and any event there leads to a
 * recheck of every path (shortly after, so that a burst of events costs one
 * recheck and the answer to the request that caused them goes out first).
 * An ancestor removed in the meantime moves the watch up; one that cannot be
 * watched falls back to polling.
 */

/* how long events are gathered before a recheck */
#define ESD_FS_WATCH_SETTLE_MS 10
/* the poll interval where a directory could not be watched */
#define ESD_FS_WATCH_POLL_MS 1000

typedef struct {
	gchar *path;
	guint depth; /* components of its deepest existing ancestor at the start */
} EsdFsWatchPath;

struct _EsdFsWatch {
	GObject parent_instance;
	EsdFsInotify *inotify;
	guint64 id;
	GPtrArray *candidates; /* gchar*, until started */
	GPtrArray *missing;    /* EsdFsWatchPath */
	gchar *present;
	GHashTable *subscriptions; /* directory → subscription id */
	guint recheck_id;
	guint poll_id;
	gboolean fired;
};

G_DEFINE_TYPE(EsdFsWatch, esd_fs_watch, G_TYPE_OBJECT)

enum { SIGNAL_FIRED, SIGNAL_LAST };
static guint esd_fs_watch_signals[SIGNAL_LAST] = {0};

static void
esd_fs_watch_path_free(gpointer data)
{
	EsdFsWatchPath *path = data;
	g_free(path->path);
	g_free(path);
}

static gboolean
esd_fs_watch_exists(const gchar *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static guint
esd_fs_watch_components(const gchar *path)
{
	guint n = 0;
	for (const gchar *p = path; *p != '\0'; p++) {
		if (*p != '/' && (p == path || p[-1] == '/'))
			n++;
	}
	return n;
}

/* the deepest ancestor of @path (or @path itself) that exists */
static gchar *
esd_fs_watch_ancestor(const gchar *path, guint *depth, gboolean *is_dir)
{
	g_autofree gchar *current = g_strdup(path);

	for (;;) {
		struct stat st;
		gchar *parent;

		if (stat(current, &st) == 0) {
			*depth = esd_fs_watch_components(current);
			*is_dir = S_ISDIR(st.st_mode);
			return g_steal_pointer(&current);
		}
		parent = g_path_get_dirname(current);
		if (g_strcmp0(parent, current) == 0) {
			g_free(parent);
			*depth = 0;
			*is_dir = FALSE;
			return g_steal_pointer(&current);
		}
		g_free(current);
		current = parent;
	}
}

EsdFsWatch *
esd_fs_watch_new(EsdFsInotify *inotify, guint64 id)
{
	EsdFsWatch *self = g_object_new(ESD_TYPE_FS_WATCH, NULL);
	self->inotify = g_object_ref(inotify);
	self->id = id;
	return self;
}

guint64
esd_fs_watch_get_id(EsdFsWatch *self)
{
	g_return_val_if_fail(ESD_IS_FS_WATCH(self), 0);
	return self->id;
}

void
esd_fs_watch_add_missing(EsdFsWatch *self, const gchar *path)
{
	g_return_if_fail(ESD_IS_FS_WATCH(self));
	g_ptr_array_add(self->candidates, g_strdup(path));
}

void
esd_fs_watch_set_present(EsdFsWatch *self, const gchar *path)
{
	g_return_if_fail(ESD_IS_FS_WATCH(self));
	g_free(self->present);
	self->present = g_strdup(path);
}

static void
esd_fs_watch_unsubscribe_all(EsdFsWatch *self)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, self->subscriptions);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		esd_fs_inotify_unsubscribe(self->inotify, GPOINTER_TO_UINT(value));
		g_hash_table_iter_remove(&iter);
	}
}

static void
esd_fs_watch_fire(EsdFsWatch *self)
{
	self->fired = TRUE;
	esd_fs_watch_unsubscribe_all(self);
	g_clear_handle_id(&self->recheck_id, g_source_remove);
	g_clear_handle_id(&self->poll_id, g_source_remove);
	g_object_ref(self);
	g_signal_emit(self, esd_fs_watch_signals[SIGNAL_FIRED], 0);
	g_object_unref(self);
}

static gboolean
esd_fs_watch_recheck_cb(gpointer user_data);

static void
esd_fs_watch_changed_cb(gpointer user_data)
{
	EsdFsWatch *self = ESD_FS_WATCH(user_data);

	if (self->fired || self->recheck_id != 0)
		return;
	self->recheck_id = g_timeout_add(ESD_FS_WATCH_SETTLE_MS, esd_fs_watch_recheck_cb, self);
}

static gboolean
esd_fs_watch_poll_cb(gpointer user_data)
{
	esd_fs_watch_changed_cb(user_data);
	return G_SOURCE_CONTINUE;
}

/* the directories that must be watched now */
static GHashTable *
esd_fs_watch_wanted_dirs(EsdFsWatch *self)
{
	GHashTable *dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < self->missing->len; i++) {
		EsdFsWatchPath *path = g_ptr_array_index(self->missing, i);
		guint depth = 0;
		gboolean is_dir = FALSE;
		gchar *ancestor = esd_fs_watch_ancestor(path->path, &depth, &is_dir);
		/* an ancestor that is not a directory can only change in its parent */
		if (!is_dir) {
			gchar *parent = g_path_get_dirname(ancestor);
			g_free(ancestor);
			ancestor = parent;
		}
		g_hash_table_add(dirs, ancestor);
	}
	if (self->present != NULL && g_strcmp0(self->present, "/") != 0)
		g_hash_table_add(dirs, g_path_get_dirname(self->present));
	return dirs;
}

static void
esd_fs_watch_update_subscriptions(EsdFsWatch *self)
{
	g_autoptr(GHashTable) wanted = esd_fs_watch_wanted_dirs(self);
	GHashTableIter iter;
	gpointer key;
	gpointer value;
	gboolean failed = FALSE;

	g_hash_table_iter_init(&iter, self->subscriptions);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (g_hash_table_contains(wanted, key))
			continue;
		esd_fs_inotify_unsubscribe(self->inotify, GPOINTER_TO_UINT(value));
		g_hash_table_iter_remove(&iter);
	}
	g_hash_table_iter_init(&iter, wanted);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		g_autoptr(GError) error = NULL;
		guint id;

		if (g_hash_table_contains(self->subscriptions, key))
			continue;
		id = esd_fs_inotify_subscribe(self->inotify,
					      key,
					      esd_fs_watch_changed_cb,
					      self,
					      &error);
		if (id == 0) {
			g_debug("watch %" G_GUINT64_FORMAT ": polling %s: %s",
				self->id,
				(const gchar *)key,
				error->message);
			failed = TRUE;
			continue;
		}
		g_hash_table_insert(self->subscriptions, g_strdup(key), GUINT_TO_POINTER(id));
	}
	if (failed && self->poll_id == 0)
		self->poll_id = g_timeout_add(ESD_FS_WATCH_POLL_MS, esd_fs_watch_poll_cb, self);
}

/* TRUE when something the client waits for has happened */
static gboolean
esd_fs_watch_changed(EsdFsWatch *self)
{
	for (guint i = 0; i < self->missing->len; i++) {
		EsdFsWatchPath *path = g_ptr_array_index(self->missing, i);
		guint depth = 0;
		gboolean is_dir = FALSE;
		g_autofree gchar *ancestor = esd_fs_watch_ancestor(path->path, &depth, &is_dir);
		if (depth > path->depth || g_strcmp0(ancestor, path->path) == 0)
			return TRUE;
	}
	return self->present != NULL && !esd_fs_watch_exists(self->present);
}

static gboolean
esd_fs_watch_recheck_cb(gpointer user_data)
{
	EsdFsWatch *self = ESD_FS_WATCH(user_data);

	self->recheck_id = 0;
	if (self->fired)
		return G_SOURCE_REMOVE;
	if (esd_fs_watch_changed(self)) {
		esd_fs_watch_fire(self);
		return G_SOURCE_REMOVE;
	}
	esd_fs_watch_update_subscriptions(self);
	return G_SOURCE_REMOVE;
}

/**
 * esd_fs_watch_start:
 * @self: a #EsdFsWatch with its paths set
 *
 * Returns: %TRUE when at least one missing path does not exist, and the
 *   watch is now active; %FALSE when there is nothing to wait for
 */
gboolean
esd_fs_watch_start(EsdFsWatch *self)
{
	g_return_val_if_fail(ESD_IS_FS_WATCH(self), FALSE);

	for (guint i = 0; i < self->candidates->len; i++) {
		const gchar *candidate = g_ptr_array_index(self->candidates, i);
		g_autofree gchar *ancestor = NULL;
		EsdFsWatchPath *path;
		gboolean is_dir = FALSE;
		guint depth = 0;

		ancestor = esd_fs_watch_ancestor(candidate, &depth, &is_dir);
		if (g_strcmp0(ancestor, candidate) == 0)
			continue;
		path = g_new0(EsdFsWatchPath, 1);
		path->path = g_strdup(candidate);
		path->depth = depth;
		g_ptr_array_add(self->missing, path);
	}
	g_ptr_array_set_size(self->candidates, 0);
	if (self->missing->len == 0)
		return FALSE;
	esd_fs_watch_update_subscriptions(self);
	/* whatever changed before the watches were in place, and a `present`
	 * that is already gone, are noticed by this first recheck */
	esd_fs_watch_changed_cb(self);
	return TRUE;
}

static void
esd_fs_watch_dispose(GObject *object)
{
	EsdFsWatch *self = ESD_FS_WATCH(object);

	if (self->subscriptions != NULL)
		esd_fs_watch_unsubscribe_all(self);
	g_clear_handle_id(&self->recheck_id, g_source_remove);
	g_clear_handle_id(&self->poll_id, g_source_remove);
	G_OBJECT_CLASS(esd_fs_watch_parent_class)->dispose(object);
}

static void
esd_fs_watch_finalize(GObject *object)
{
	EsdFsWatch *self = ESD_FS_WATCH(object);

	g_hash_table_unref(self->subscriptions);
	g_ptr_array_unref(self->candidates);
	g_ptr_array_unref(self->missing);
	g_free(self->present);
	g_clear_object(&self->inotify);
	G_OBJECT_CLASS(esd_fs_watch_parent_class)->finalize(object);
}

static void
esd_fs_watch_init(EsdFsWatch *self)
{
	self->candidates = g_ptr_array_new_with_free_func(g_free);
	self->missing = g_ptr_array_new_with_free_func(esd_fs_watch_path_free);
	self->subscriptions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

static void
esd_fs_watch_class_init(EsdFsWatchClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = esd_fs_watch_dispose;
	object_class->finalize = esd_fs_watch_finalize;

	/**
	 * EsdFsWatch::fired:
	 * @self: the watch
	 *
	 * Emitted once, when what the client waits for has happened.
	 */
	esd_fs_watch_signals[SIGNAL_FIRED] = g_signal_new("fired",
							  G_TYPE_FROM_CLASS(klass),
							  G_SIGNAL_RUN_LAST,
							  0,
							  NULL,
							  NULL,
							  NULL,
							  G_TYPE_NONE,
							  0);
}
