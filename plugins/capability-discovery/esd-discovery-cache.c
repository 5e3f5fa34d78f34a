/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-discovery-cache.h"

/*
 * Answers kept until the file system they were read from changes. While an
 * answer is computed (between esd_discovery_cache_begin() and _commit(), in
 * one thread), every directory the walk lists is watched with inotify before
 * it is listed, and for every file read the directory that holds it (or the
 * nearest one that exists) is watched for that one name before the read. So
 * any change after a listing or a read shows as an event, and an answer is
 * served only while no event touched what it was made of: events are read
 * at each lookup, under the lock, and make the answers they touch stale;
 * one arriving while an answer is computed makes it stale before it is
 * kept. At most 64 MiB of answers are kept (none over 16 MiB). A queue
 * overflow or a full cache (entries, half the bytes, or 16384 directories
 * watched: the user's inotify watches are shared with all they run) drop
 * everything; an answer whose watch cannot be added is not kept. Inotify does not see changes made
 * on another machine (NFS): README.md says so.
 */

#define ESD_DISCOVERY_CACHE_MASK                                                                   \
	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |             \
	 IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)
#define ESD_DISCOVERY_CACHE_MAX_WATCHERS 1000000
/* bytes of answers kept at most; a larger answer is not kept */
#define ESD_DISCOVERY_CACHE_MAX_BYTES (64 * 1024 * 1024)
/* directories watched at most: the user's inotify watches are shared with everything they run */
#define ESD_DISCOVERY_CACHE_MAX_WATCHES 16384

typedef struct {
	gchar *key;
	gchar *answer; /* NULL while it is computed */
	guint64 serial;
	gboolean stale;
} EsdDiscoveryEntry;

/* an answer that depends on what a watched directory holds (all of it, or one name) */
typedef struct {
	guint64 serial;
	gchar *name; /* or NULL: any change */
} EsdDiscoveryWatcher;

struct _EsdDiscoveryCache {
	GMutex lock;
	gint fd;
	guint max_entries;
	guint64 next_serial;
	guint watchers;
	gsize bytes;	       /* of the answers kept */
	GHashTable *entries;   /* key → EsdDiscoveryEntry */
	GHashTable *by_serial; /* serial → EsdDiscoveryEntry, unowned */
	GHashTable *by_wd;     /* wd → GPtrArray of EsdDiscoveryWatcher */
};

/* what the current thread is computing */
typedef struct {
	EsdDiscoveryCache *cache;
	guint64 serial; /* of its entry, which a reset may drop meanwhile */
	gboolean failed;
} EsdDiscoveryRecording;

static GPrivate esd_discovery_recording = G_PRIVATE_INIT(g_free);

static void
esd_discovery_entry_free(gpointer data)
{
	EsdDiscoveryEntry *entry = data;
	g_free(entry->key);
	g_free(entry->answer);
	g_free(entry);
}

static void
esd_discovery_watcher_free(gpointer data)
{
	EsdDiscoveryWatcher *watcher = data;
	g_free(watcher->name);
	g_free(watcher);
}

/* drops every answer and watch; with the lock held */
static void
esd_discovery_cache_reset(EsdDiscoveryCache *cache)
{
	/* the next answer to keep makes a new instance */
	if (cache->fd >= 0)
		close(cache->fd);
	cache->fd = -1;
	g_hash_table_remove_all(cache->by_serial);
	g_hash_table_remove_all(cache->entries);
	g_hash_table_remove_all(cache->by_wd);
	cache->watchers = 0;
	cache->bytes = 0;
}

/**
 * esd_discovery_cache_new:
 * @max_entries: answers kept at most
 *
 * Returns: (transfer full): an empty cache
 */
EsdDiscoveryCache *
esd_discovery_cache_new(guint max_entries)
{
	EsdDiscoveryCache *cache = g_new0(EsdDiscoveryCache, 1);

	g_mutex_init(&cache->lock);
	cache->fd = -1;
	cache->max_entries = max_entries;
	cache->entries =
	    g_hash_table_new_full(g_str_hash, g_str_equal, NULL, esd_discovery_entry_free);
	cache->by_serial = g_hash_table_new(g_int64_hash, g_int64_equal);
	cache->by_wd = g_hash_table_new_full(g_direct_hash,
					     g_direct_equal,
					     NULL,
					     (GDestroyNotify)g_ptr_array_unref);
	esd_discovery_cache_reset(cache);
	return cache;
}

/* before any call: 0 keeps nothing */
void
esd_discovery_cache_set_max_entries(EsdDiscoveryCache *cache, guint max_entries)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&cache->lock);
	cache->max_entries = max_entries;
	esd_discovery_cache_reset(cache);
}

void
esd_discovery_cache_free(EsdDiscoveryCache *cache)
{
	if (cache == NULL)
		return;
	if (cache->fd >= 0)
		close(cache->fd);
	g_hash_table_unref(cache->by_serial);
	g_hash_table_unref(cache->entries);
	g_hash_table_unref(cache->by_wd);
	g_mutex_clear(&cache->lock);
	g_free(cache);
}

static void
esd_discovery_cache_mark(EsdDiscoveryCache *cache, gint wd, const gchar *name)
{
	GPtrArray *watchers = g_hash_table_lookup(cache->by_wd, GINT_TO_POINTER(wd));

	if (watchers == NULL)
		return;
	for (guint i = 0; i < watchers->len; i++) {
		EsdDiscoveryWatcher *watcher = g_ptr_array_index(watchers, i);
		EsdDiscoveryEntry *entry;

		if (watcher->name != NULL && name != NULL && strcmp(watcher->name, name) != 0)
			continue;
		entry = g_hash_table_lookup(cache->by_serial, &watcher->serial);
		if (entry != NULL)
			entry->stale = TRUE;
	}
}

/* reads the pending events; with the lock held */
static void
esd_discovery_cache_drain(EsdDiscoveryCache *cache)
{
	gchar buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		gssize n = read(cache->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (gchar *p = buf; p < buf + n;) {
			const struct inotify_event *event = (const struct inotify_event *)p;

			if ((event->mask & IN_Q_OVERFLOW) != 0) {
				esd_discovery_cache_reset(cache);
				return;
			}
			esd_discovery_cache_mark(cache,
						 event->wd,
						 event->len > 0 ? event->name : NULL);
			p += sizeof(struct inotify_event) + event->len;
		}
	}
}

/**
 * esd_discovery_cache_lookup:
 * @cache: a cache
 * @key: what was asked
 *
 * Returns: (transfer full) (nullable): the answer, if nothing it was read
 *   from has changed since
 */
gchar *
esd_discovery_cache_lookup(EsdDiscoveryCache *cache, const gchar *key)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&cache->lock);
	EsdDiscoveryEntry *entry;

	if (cache->fd < 0)
		return NULL;
	esd_discovery_cache_drain(cache);
	entry = g_hash_table_lookup(cache->entries, key);
	if (entry == NULL || entry->stale || entry->answer == NULL)
		return NULL;
	return g_strdup(entry->answer);
}

/**
 * esd_discovery_cache_begin:
 * @cache: a cache
 * @key: what is about to be computed in this thread
 *
 * Starts recording what the computation reads; finish with
 * esd_discovery_cache_commit() in the same thread.
 *
 * Returns: %FALSE when nothing can be cached (no inotify)
 */
gboolean
esd_discovery_cache_begin(EsdDiscoveryCache *cache, const gchar *key)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&cache->lock);
	EsdDiscoveryRecording *recording;
	EsdDiscoveryEntry *entry;

	if (cache->max_entries == 0)
		return FALSE;
	if (g_hash_table_size(cache->entries) >= cache->max_entries ||
	    cache->bytes >= ESD_DISCOVERY_CACHE_MAX_BYTES / 2 ||
	    g_hash_table_size(cache->by_wd) >= ESD_DISCOVERY_CACHE_MAX_WATCHES ||
	    cache->watchers > ESD_DISCOVERY_CACHE_MAX_WATCHERS)
		esd_discovery_cache_reset(cache);
	if (cache->fd < 0)
		cache->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (cache->fd < 0)
		return FALSE;
	entry = g_new0(EsdDiscoveryEntry, 1);
	entry->key = g_strdup(key);
	entry->serial = ++cache->next_serial;
	/* replaces an older answer, whose watchers then match nothing */
	{
		EsdDiscoveryEntry *old = g_hash_table_lookup(cache->entries, key);
		if (old != NULL) {
			g_hash_table_remove(cache->by_serial, &old->serial);
			if (old->answer != NULL)
				cache->bytes -= strlen(old->answer);
		}
	}
	g_hash_table_replace(cache->entries, entry->key, entry);
	g_hash_table_insert(cache->by_serial, &entry->serial, entry);
	recording = g_new0(EsdDiscoveryRecording, 1);
	recording->cache = cache;
	recording->serial = entry->serial;
	g_private_replace(&esd_discovery_recording, recording);
	return TRUE;
}

/**
 * esd_discovery_cache_commit:
 * @cache: the cache of esd_discovery_cache_begin()
 * @answer: what was computed
 *
 * Keeps @answer unless something it was read from changed meanwhile.
 */
void
esd_discovery_cache_commit(EsdDiscoveryCache *cache, const gchar *answer)
{
	EsdDiscoveryRecording *recording = g_private_get(&esd_discovery_recording);
	g_autoptr(GMutexLocker) locker = NULL;
	EsdDiscoveryEntry *entry;

	if (recording == NULL || recording->cache != cache)
		return;
	locker = g_mutex_locker_new(&cache->lock);
	if (cache->fd >= 0)
		esd_discovery_cache_drain(cache);
	/* still the cache's entry for its key, unless a reset dropped it */
	entry = g_hash_table_lookup(cache->by_serial, &recording->serial);
	if (entry != NULL) {
		gsize len = strlen(answer);

		if (recording->failed || entry->stale || len > ESD_DISCOVERY_CACHE_MAX_BYTES / 4 ||
		    cache->bytes + len > ESD_DISCOVERY_CACHE_MAX_BYTES) {
			g_hash_table_remove(cache->by_serial, &entry->serial);
			g_hash_table_remove(cache->entries, entry->key);
		} else {
			entry->answer = g_strdup(answer);
			cache->bytes += len;
		}
	}
	g_private_replace(&esd_discovery_recording, NULL);
}

/* watches @dir for @name (NULL: anything) on behalf of the recording */
static void
esd_discovery_cache_watch(EsdDiscoveryRecording *recording, const gchar *dir, const gchar *name)
{
	EsdDiscoveryCache *cache = recording->cache;
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&cache->lock);
	EsdDiscoveryWatcher *watcher;
	GPtrArray *watchers;
	gint wd;

	if (recording->failed)
		return;
	if (cache->fd < 0 || g_hash_table_size(cache->by_wd) >= ESD_DISCOVERY_CACHE_MAX_WATCHES) {
		recording->failed = TRUE;
		return;
	}
	wd = inotify_add_watch(cache->fd, dir, ESD_DISCOVERY_CACHE_MASK);
	if (wd < 0) {
		/* ENOENT: the directory went away, which an event on its parent tells */
		if (errno != ENOENT && errno != ENOTDIR)
			recording->failed = TRUE;
		return;
	}
	watchers = g_hash_table_lookup(cache->by_wd, GINT_TO_POINTER(wd));
	if (watchers == NULL) {
		watchers = g_ptr_array_new_with_free_func(esd_discovery_watcher_free);
		g_hash_table_insert(cache->by_wd, GINT_TO_POINTER(wd), watchers);
	}
	/* the last watcher is often this answer's already */
	if (watchers->len > 0) {
		EsdDiscoveryWatcher *last = g_ptr_array_index(watchers, watchers->len - 1);
		if (last->serial == recording->serial && g_strcmp0(last->name, name) == 0)
			return;
	}
	watcher = g_new0(EsdDiscoveryWatcher, 1);
	watcher->serial = recording->serial;
	watcher->name = g_strdup(name);
	g_ptr_array_add(watchers, watcher);
	cache->watchers++;
}

/**
 * esd_discovery_cache_note_dir:
 * @path: a directory about to be listed
 */
void
esd_discovery_cache_note_dir(const gchar *path)
{
	EsdDiscoveryRecording *recording = g_private_get(&esd_discovery_recording);

	if (recording != NULL)
		esd_discovery_cache_watch(recording, path, NULL);
}

/**
 * esd_discovery_cache_note_path:
 * @path: an absolute path about to be looked at
 *
 * Watches the nearest existing directory above @path for the name that
 * leads to @path.
 */
void
esd_discovery_cache_note_path(const gchar *path)
{
	EsdDiscoveryRecording *recording = g_private_get(&esd_discovery_recording);
	g_autofree gchar *child = NULL;
	g_autofree gchar *dir = NULL;

	if (recording == NULL)
		return;
	child = g_strdup(path);
	dir = g_path_get_dirname(path);
	for (;;) {
		struct stat st;
		g_autofree gchar *name = g_path_get_basename(child);

		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			esd_discovery_cache_watch(recording, dir, name);
			return;
		}
		if (strcmp(dir, "/") == 0)
			return;
		g_free(child);
		child = g_steal_pointer(&dir);
		dir = g_path_get_dirname(child);
	}
}
