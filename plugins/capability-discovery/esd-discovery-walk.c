/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esd-discovery-cache.h"
#include "esd-discovery-util.h"
#include "esd-discovery-walk.h"

/*
 * The walk of a capability root, as the reference's walk does it:
 * breadth first, names in byte order, directories listed down to
 * max-depth levels below the root; symbolic links to directories are
 * followed (the reference follows them, out of the root too), links to
 * anything else are not reported. Each directory is listed once, by
 * device and inode, so a link loop or a second link to one directory ends
 * there. Only the types from the directory entries and lstat() are looked
 * at, so a FIFO or a device is never opened. Both limits make the walk
 * truncated: after max-entries entries it stops; past max-directories
 * directories no more are queued, and those queued are still listed.
 */

typedef struct {
	gchar *path;
	guint depth;
} EsdDiscoveryDir;

typedef struct {
	dev_t dev;
	ino_t ino;
} EsdDiscoveryInode;

static guint
esd_discovery_inode_hash(gconstpointer key)
{
	const EsdDiscoveryInode *inode = key;
	return (guint)(inode->ino ^ (inode->ino >> 32) ^ inode->dev);
}

static gboolean
esd_discovery_inode_equal(gconstpointer a, gconstpointer b)
{
	const EsdDiscoveryInode *x = a, *y = b;
	return x->dev == y->dev && x->ino == y->ino;
}

static void
esd_discovery_walk_error_free(gpointer data)
{
	EsdDiscoveryWalkError *error = data;
	g_free(error->path);
	g_free(error->message);
	g_free(error);
}

void
esd_discovery_walk_free(EsdDiscoveryWalk *walk)
{
	g_ptr_array_unref(walk->files);
	g_ptr_array_unref(walk->errors);
	g_free(walk);
}

static void
esd_discovery_walk_add_error(EsdDiscoveryWalk *walk, const gchar *path, gint errnum)
{
	EsdDiscoveryWalkError *error = g_new0(EsdDiscoveryWalkError, 1);
	error->path = g_strdup(path);
	error->message = esd_discovery_os_error(errnum);
	g_ptr_array_add(walk->errors, error);
}

/* whether the directory was not listed yet; marks it */
static gboolean
esd_discovery_walk_first_visit(GHashTable *seen, const struct stat *st)
{
	EsdDiscoveryInode key = {st->st_dev, st->st_ino};
	EsdDiscoveryInode *inode;

	if (g_hash_table_contains(seen, &key))
		return FALSE;
	inode = g_new(EsdDiscoveryInode, 1);
	*inode = key;
	g_hash_table_add(seen, inode);
	return TRUE;
}

/*
 * the entries of the directory @fd (a descriptor of its own, taken), each
 * its d_type byte followed by its name, at most @max_names; NULL with errno set
 */
static GPtrArray *
esd_discovery_list(gint fd, guint max_names)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	DIR *dir = fdopendir(fd);
	struct dirent *entry;
	gint saved;

	if (dir == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	for (;;) {
		gsize len;
		gchar *name;

		errno = 0;
		entry = readdir(dir);
		if (entry == NULL)
			break;
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		/* the walk ends before it gets further: what is read stays bounded */
		if (names->len >= max_names)
			break;
		len = strlen(entry->d_name);
		name = g_malloc(len + 2);
		name[0] = (gchar)entry->d_type;
		memcpy(name + 1, entry->d_name, len + 1);
		g_ptr_array_add(names, name);
	}
	saved = errno;
	closedir(dir);
	if (saved != 0) {
		errno = saved;
		return NULL;
	}
	return g_steal_pointer(&names);
}

static gint
esd_discovery_entry_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a + 1, *(const gchar *const *)b + 1);
}

/*
 * the type of @name in @dir_fd as the walk sees it: DT_REG, DT_DIR (a link
 * to a directory included, @st then filled) or DT_UNKNOWN for the rest
 */
static guchar
esd_discovery_entry_type(gint dir_fd, const gchar *name, guchar d_type, struct stat *st)
{
	if (d_type == DT_UNKNOWN) {
		if (fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
			return DT_UNKNOWN;
		if (S_ISREG(st->st_mode))
			return DT_REG;
		if (S_ISDIR(st->st_mode))
			return DT_DIR;
		if (!S_ISLNK(st->st_mode))
			return DT_UNKNOWN;
		d_type = DT_LNK;
	}
	if (d_type == DT_REG)
		return DT_REG;
	if (d_type != DT_DIR && d_type != DT_LNK)
		return DT_UNKNOWN;
	if (fstatat(dir_fd, name, st, 0) != 0 || !S_ISDIR(st->st_mode))
		return DT_UNKNOWN;
	return DT_DIR;
}

static void
esd_discovery_dir_free(gpointer data)
{
	EsdDiscoveryDir *dir = data;
	g_free(dir->path);
	g_free(dir);
}

static void
esd_discovery_push(GQueue *queue, gchar *path, guint depth)
{
	EsdDiscoveryDir *dir = g_new0(EsdDiscoveryDir, 1);
	dir->path = path;
	dir->depth = depth;
	g_queue_push_tail(queue, dir);
}

/*
 * lists one directory: its files into @walk, its directories onto @queue;
 * FALSE when the entry limit is reached, which ends the walk (the
 * directory limit only stops more directories from being queued)
 */
static gboolean
esd_discovery_walk_dir(EsdDiscoveryWalk *walk,
		       GHashTable *seen,
		       GQueue *queue,
		       const EsdDiscoveryDir *dir,
		       const EsdDiscoveryLimits *limits,
		       guint *directories,
		       guint *entries)
{
	g_autoptr(GPtrArray) names = NULL;
	gint fd;
	gint list_fd;

	esd_discovery_cache_note_dir(dir->path);
	fd = open(dir->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		esd_discovery_walk_add_error(walk, dir->path, errno);
		return TRUE;
	}
	list_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	names =
	    list_fd >= 0 ? esd_discovery_list(list_fd, limits->max_entries - *entries + 1) : NULL;
	if (names == NULL) {
		esd_discovery_walk_add_error(walk, dir->path, errno);
		close(fd);
		return TRUE;
	}
	g_ptr_array_sort(names, esd_discovery_entry_cmp);
	for (guint i = 0; i < names->len; i++) {
		const gchar *entry = g_ptr_array_index(names, i);
		const gchar *name = entry + 1;
		struct stat st;
		guchar type;

		if (++*entries > limits->max_entries) {
			walk->truncated = TRUE;
			close(fd);
			return FALSE;
		}
		type = esd_discovery_entry_type(fd, name, (guchar)entry[0], &st);
		if (type == DT_REG) {
			g_ptr_array_add(walk->files, esd_discovery_join(dir->path, name));
			continue;
		}
		if (type != DT_DIR || dir->depth + 1 > limits->max_depth)
			continue;
		if (!esd_discovery_walk_first_visit(seen, &st))
			continue;
		if (*directories >= limits->max_directories) {
			walk->truncated = TRUE;
			continue;
		}
		++*directories;
		esd_discovery_push(queue, esd_discovery_join(dir->path, name), dir->depth + 1);
	}
	close(fd);
	return TRUE;
}

/**
 * esd_discovery_walk:
 * @root: an absolute path, a directory
 * @limits: the bounds of the walk
 *
 * Returns: (transfer full): the regular files under @root and the
 *   directories that could not be listed
 */
EsdDiscoveryWalk *
esd_discovery_walk(const gchar *root, const EsdDiscoveryLimits *limits)
{
	EsdDiscoveryWalk *walk = g_new0(EsdDiscoveryWalk, 1);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(esd_discovery_inode_hash,
							   esd_discovery_inode_equal,
							   g_free,
							   NULL);
	GQueue queue = G_QUEUE_INIT;
	guint directories = 1;
	guint entries = 0;
	struct stat st;

	walk->files = g_ptr_array_new_with_free_func(g_free);
	walk->errors = g_ptr_array_new_with_free_func(esd_discovery_walk_error_free);
	if (stat(root, &st) == 0)
		esd_discovery_walk_first_visit(seen, &st);
	esd_discovery_push(&queue, g_strdup(root), 0);
	while (!g_queue_is_empty(&queue)) {
		EsdDiscoveryDir *dir = g_queue_pop_head(&queue);
		gboolean more =
		    esd_discovery_walk_dir(walk, seen, &queue, dir, limits, &directories, &entries);
		esd_discovery_dir_free(dir);
		if (!more)
			break;
	}
	g_queue_clear_full(&queue, esd_discovery_dir_free);
	return walk;
}
