/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "esd-shell-snapshot-cache.h"
#include "esd-shell-snapshot-capture.h"

/**
 * EsdShellSnapshotCache:
 *
 * The shell snapshots of one session, one per (scopeId, cwd): captured
 * once, by the first command of the key, and shared by the later ones,
 * which wait while it is captured. A failed capture is kept as such: the
 * key's commands then run as sent. At most max_entries keys; the commands
 * of a key beyond them run as sent. Everything goes with the cache, which
 * goes with its session (a capture still running is killed).
 */

typedef enum {
	ESD_SHELL_SNAPSHOT_CAPTURING,
	ESD_SHELL_SNAPSHOT_READY,
	ESD_SHELL_SNAPSHOT_FAILED,
} EsdShellSnapshotState;

typedef struct {
	EsdShellSnapshotState state;
	EsdShellSnapshotImage *image; /* when ready */
	GPtrArray *waiters;	      /* of GTask, while capturing */
} EsdShellSnapshotEntry;

struct _EsdShellSnapshotCache {
	GObject parent_instance;
	ErpcSandbox *sandbox;
	GHashTable *entries; /* key → EsdShellSnapshotEntry, an rc box */
	GCancellable *cancellable;
	guint max_entries;
	gsize max_bytes;
	guint timeout_ms;
};

G_DEFINE_FINAL_TYPE(EsdShellSnapshotCache, esd_shell_snapshot_cache, G_TYPE_OBJECT)

static void
esd_shell_snapshot_entry_clear(gpointer data)
{
	EsdShellSnapshotEntry *entry = data;

	esd_shell_snapshot_image_free(entry->image);
	g_ptr_array_unref(entry->waiters);
}

static void
esd_shell_snapshot_entry_unref(gpointer data)
{
	g_rc_box_release_full(data, esd_shell_snapshot_entry_clear);
}

/* a copy for one command: a read-only descriptor of its own */
static EsdShellSnapshotImage *
esd_shell_snapshot_entry_open(EsdShellSnapshotEntry *entry)
{
	g_autofree gchar *path = g_strdup_printf("/proc/self/fd/%d", entry->image->fd);
	gint fd = open(path, O_RDONLY | O_CLOEXEC);
	EsdShellSnapshotImage *copy;

	if (fd < 0) {
		g_debug("cannot open a shell snapshot: %s", g_strerror(errno));
		return NULL;
	}
	copy = g_new0(EsdShellSnapshotImage, 1);
	copy->fd = fd;
	copy->names = g_strdupv(entry->image->names);
	return copy;
}

/* finishes a waiting lookup: a copy, or NULL to run the command as sent */
static void
esd_shell_snapshot_cache_answer(GTask *task, EsdShellSnapshotEntry *entry)
{
	EsdShellSnapshotImage *copy = NULL;

	if (g_task_return_error_if_cancelled(task))
		return;
	if (entry->state == ESD_SHELL_SNAPSHOT_READY)
		copy = esd_shell_snapshot_entry_open(entry);
	g_task_return_pointer(task, copy, (GDestroyNotify)esd_shell_snapshot_image_free);
}

static void
esd_shell_snapshot_cache_captured_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	EsdShellSnapshotEntry *entry = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) waiters = NULL;

	entry->image = esd_shell_snapshot_capture_finish(result, &error);
	entry->state = entry->image != NULL ? ESD_SHELL_SNAPSHOT_READY : ESD_SHELL_SNAPSHOT_FAILED;
	if (error != NULL)
		g_debug("no shell snapshot: %s", error->message);
	waiters = g_steal_pointer(&entry->waiters);
	entry->waiters = g_ptr_array_new_with_free_func(g_object_unref);
	for (guint i = 0; i < waiters->len; i++)
		esd_shell_snapshot_cache_answer(g_ptr_array_index(waiters, i), entry);
	esd_shell_snapshot_entry_unref(entry);
}

/* the shell as the capture runs it: an absolute path, looked up in the
 * command's PATH (or the daemon's) when the request named it bare */
static gchar *
esd_shell_snapshot_cache_resolve(const gchar *program, ErpcLaunch *launch)
{
	const gchar *path = erpc_launch_getenv(launch, "PATH");
	g_auto(GStrv) dirs = NULL;

	if (program[0] == '\0')
		return NULL;
	if (strchr(program, '/') != NULL) {
		g_autofree gchar *full =
		    g_path_is_absolute(program)
			? g_strdup(program)
			: g_build_filename(erpc_launch_get_cwd(launch), program, NULL);
		return g_file_test(full, G_FILE_TEST_IS_EXECUTABLE) ? g_steal_pointer(&full) : NULL;
	}
	if (path == NULL)
		path = g_getenv("PATH");
	if (path == NULL)
		return NULL;
	dirs = g_strsplit(path, ":", -1);
	for (guint i = 0; dirs[i] != NULL; i++) {
		g_autofree gchar *full = NULL;
		if (!g_path_is_absolute(dirs[i]))
			continue;
		full = g_build_filename(dirs[i], program, NULL);
		if (g_file_test(full, G_FILE_TEST_IS_EXECUTABLE) &&
		    !g_file_test(full, G_FILE_TEST_IS_DIR))
			return g_steal_pointer(&full);
	}
	return NULL;
}

/**
 * esd_shell_snapshot_cache_lookup_async:
 * @self: the session's cache
 * @request: the launch's `shellSnapshot`, one it applies to
 * @launch: the launch
 * @cancellable: (nullable): the launch's preparation is abandoned
 * @callback: called with the snapshot
 * @user_data: for @callback
 *
 * Finds the snapshot of the launch's key, capturing it first with the
 * launch's environment, directory and sandbox if the key is new.
 */
void
esd_shell_snapshot_cache_lookup_async(EsdShellSnapshotCache *self,
				      EsdShellSnapshotRequest *request,
				      ErpcLaunch *launch,
				      GCancellable *cancellable,
				      GAsyncReadyCallback callback,
				      gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, cancellable, callback, user_data);
	const gchar *cwd = erpc_launch_get_cwd(launch);
	g_autofree gchar *key =
	    g_strdup_printf("%zu:%s\n%s", strlen(request->scope_id), request->scope_id, cwd);
	g_autofree gchar *program = NULL;
	g_auto(GStrv) envp = NULL;
	EsdShellSnapshotEntry *entry = g_hash_table_lookup(self->entries, key);

	g_task_set_source_tag(task, esd_shell_snapshot_cache_lookup_async);
	if (entry != NULL) {
		if (entry->state == ESD_SHELL_SNAPSHOT_CAPTURING)
			g_ptr_array_add(entry->waiters, g_steal_pointer(&task));
		else
			esd_shell_snapshot_cache_answer(task, entry);
		return;
	}
	if (g_hash_table_size(self->entries) >= self->max_entries) {
		g_task_return_pointer(task, NULL, NULL);
		return;
	}
	entry = g_rc_box_new0(EsdShellSnapshotEntry);
	entry->waiters = g_ptr_array_new_with_free_func(g_object_unref);
	g_hash_table_insert(self->entries, g_steal_pointer(&key), entry);
	program = esd_shell_snapshot_cache_resolve(request->shell_path, launch);
	if (program == NULL) {
		entry->state = ESD_SHELL_SNAPSHOT_FAILED;
		g_task_return_pointer(task, NULL, NULL);
		return;
	}
	g_ptr_array_add(entry->waiters, g_steal_pointer(&task));
	envp = erpc_launch_dup_envp(launch);
	esd_shell_snapshot_capture_async(
	    request->shell,
	    program,
	    (const gchar *const *)envp,
	    cwd,
	    self->sandbox,
	    erpc_launch_is_sandboxed(launch) ? erpc_launch_get_policy(launch) : NULL,
	    self->max_bytes,
	    self->timeout_ms,
	    self->cancellable,
	    esd_shell_snapshot_cache_captured_cb,
	    g_rc_box_acquire(entry));
}

/**
 * esd_shell_snapshot_cache_lookup_finish:
 * @self: the session's cache
 * @result: the result given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the snapshot with a read-only
 *   descriptor of its own; %NULL without error when the command runs as
 *   sent (no snapshot), %NULL with @error when the lookup was cancelled
 */
EsdShellSnapshotImage *
esd_shell_snapshot_cache_lookup_finish(EsdShellSnapshotCache *self,
				       GAsyncResult *result,
				       GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, self), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

/**
 * esd_shell_snapshot_cache_get_size:
 * @self: a cache
 *
 * Returns: the number of keys, captured, failed or being captured
 */
guint
esd_shell_snapshot_cache_get_size(EsdShellSnapshotCache *self)
{
	g_return_val_if_fail(ESD_IS_SHELL_SNAPSHOT_CACHE(self), 0);
	return g_hash_table_size(self->entries);
}

static void
esd_shell_snapshot_cache_dispose(GObject *object)
{
	EsdShellSnapshotCache *self = ESD_SHELL_SNAPSHOT_CACHE(object);

	g_cancellable_cancel(self->cancellable);
	g_hash_table_remove_all(self->entries);
	G_OBJECT_CLASS(esd_shell_snapshot_cache_parent_class)->dispose(object);
}

static void
esd_shell_snapshot_cache_finalize(GObject *object)
{
	EsdShellSnapshotCache *self = ESD_SHELL_SNAPSHOT_CACHE(object);

	g_hash_table_unref(self->entries);
	g_object_unref(self->cancellable);
	g_clear_object(&self->sandbox);
	G_OBJECT_CLASS(esd_shell_snapshot_cache_parent_class)->finalize(object);
}

static void
esd_shell_snapshot_cache_init(EsdShellSnapshotCache *self)
{
	self->entries =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, esd_shell_snapshot_entry_unref);
	self->cancellable = g_cancellable_new();
}

static void
esd_shell_snapshot_cache_class_init(EsdShellSnapshotCacheClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = esd_shell_snapshot_cache_dispose;
	G_OBJECT_CLASS(klass)->finalize = esd_shell_snapshot_cache_finalize;
}

/**
 * esd_shell_snapshot_cache_new:
 * @sandbox: (nullable): the host's sandbox service, for sandboxed captures
 * @max_entries: the most keys kept
 * @max_bytes: the largest snapshot kept
 * @timeout_ms: how long a capture may take
 *
 * Returns: (transfer full): an empty cache
 */
EsdShellSnapshotCache *
esd_shell_snapshot_cache_new(ErpcSandbox *sandbox,
			     guint max_entries,
			     gsize max_bytes,
			     guint timeout_ms)
{
	EsdShellSnapshotCache *self = g_object_new(ESD_TYPE_SHELL_SNAPSHOT_CACHE, NULL);

	self->sandbox = sandbox != NULL ? g_object_ref(sandbox) : NULL;
	self->max_entries = max_entries;
	self->max_bytes = max_bytes;
	self->timeout_ms = timeout_ms;
	return self;
}
