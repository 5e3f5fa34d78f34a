/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "esd-fs-ops.h"
#include "esd-fs-path.h"
#include "esd-fs-replace.h"
#include "esd-fs-tree.h"

/* the operations on whole trees: fs/walk, recursive fs/remove, fs/copy */

typedef struct {
	gchar *name;
	guchar type;
} EsdFsEntry;

static void
esd_fs_entry_free(gpointer data)
{
	EsdFsEntry *entry = data;
	g_free(entry->name);
	g_free(entry);
}

static gint
esd_fs_entry_compare(gconstpointer a, gconstpointer b)
{
	const EsdFsEntry *ea = *(EsdFsEntry *const *)a;
	const EsdFsEntry *eb = *(EsdFsEntry *const *)b;
	return strcmp(ea->name, eb->name);
}

static DIR *
esd_fs_tree_opendir_at(gint dirfd, const gchar *path, gint flags, GError **error)
{
	gint fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	DIR *dir;

	if (fd < 0) {
		esd_fs_set_errno(error, errno);
		return NULL;
	}
	dir = fdopendir(fd);
	if (dir == NULL) {
		esd_fs_set_errno(error, errno);
		close(fd);
	}
	return dir;
}

/* every entry but `.` and `..`, in raw order */
static GPtrArray *
esd_fs_tree_read_entries(DIR *dir, GError **error)
{
	g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func(esd_fs_entry_free);

	for (;;) {
		struct dirent *d;
		EsdFsEntry *entry;

		errno = 0;
		d = readdir(dir);
		if (d == NULL) {
			if (errno != 0) {
				esd_fs_set_errno(error, errno);
				return NULL;
			}
			return g_steal_pointer(&entries);
		}
		if (d->d_name[0] == '.' &&
		    (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0')))
			continue;
		entry = g_new0(EsdFsEntry, 1);
		entry->name = g_strdup(d->d_name);
		entry->type = d->d_type;
		g_ptr_array_add(entries, entry);
	}
}

/* the d_type of a file mode, for entries whose type the directory did not give */
static guchar
esd_fs_tree_dtype(mode_t mode)
{
	if (S_ISDIR(mode))
		return DT_DIR;
	if (S_ISREG(mode))
		return DT_REG;
	if (S_ISLNK(mode))
		return DT_LNK;
	return DT_UNKNOWN;
}

static gchar *
esd_fs_tree_join(const gchar *dir, const gchar *name)
{
	if (dir[0] == '/' && dir[1] == '\0')
		return g_strconcat("/", name, NULL);
	return g_strconcat(dir, "/", name, NULL);
}

/* a directory's identity, for not entering it twice through symlinks */
static guint
esd_fs_file_id_hash(gconstpointer key)
{
	const guint64 *id = key;
	return g_int64_hash(&id[0]) ^ g_int64_hash(&id[1]);
}

static gboolean
esd_fs_file_id_equal(gconstpointer a, gconstpointer b)
{
	const guint64 *ia = a;
	const guint64 *ib = b;
	return ia[0] == ib[0] && ia[1] == ib[1];
}

/* TRUE if the directory was not seen before */
static gboolean
esd_fs_tree_visit(GHashTable *visited, const struct stat *st)
{
	guint64 *id = g_new(guint64, 2);
	id[0] = (guint64)st->st_dev;
	id[1] = (guint64)st->st_ino;
	return g_hash_table_add(visited, id);
}

typedef struct {
	const EsdFsWalkOptions *options;
	GQueue queue; /* EsdFsWalkDir */
	GHashTable *visited;
	ErpcJsonWriter entries; /* the elements of the two arrays of the result */
	ErpcJsonWriter errors;
	guint64 directories;
	guint64 seen;
	gboolean truncated;
} EsdFsWalk;

typedef struct {
	gchar *path;
	guint64 depth;
} EsdFsWalkDir;

static void
esd_fs_walk_dir_free(gpointer data)
{
	EsdFsWalkDir *dir = data;
	g_free(dir->path);
	g_free(dir);
}

static void
esd_fs_walk_add_error(EsdFsWalk *walk, const gchar *path, const gchar *message)
{
	erpc_json_writer_begin_object(&walk->errors);
	erpc_json_writer_member(&walk->errors, "path");
	esd_fs_append_uri(erpc_json_writer_begin_string(&walk->errors), path);
	erpc_json_writer_end_string(&walk->errors);
	erpc_json_writer_member_string(&walk->errors, "message", message);
	erpc_json_writer_end_object(&walk->errors);
}

static void
esd_fs_walk_add_entry(EsdFsWalk *walk, const gchar *path, gboolean is_dir)
{
	erpc_json_writer_begin_object(&walk->entries);
	erpc_json_writer_member(&walk->entries, "path");
	esd_fs_append_uri(erpc_json_writer_begin_string(&walk->entries), path);
	erpc_json_writer_end_string(&walk->entries);
	erpc_json_writer_member_string(&walk->entries, "kind", is_dir ? "directory" : "file");
	erpc_json_writer_end_object(&walk->entries);
}

/*
 * Classifies one entry as a file or a directory to list; FALSE skips it.
 * Symlinks count only as directories when following them; a dangling one
 * is skipped silently, as by the reference. @st is filled when known.
 */
static gboolean
esd_fs_walk_classify(EsdFsWalk *walk,
		     gint dirfd,
		     const EsdFsEntry *entry,
		     gboolean *is_dir,
		     struct stat *st,
		     gboolean *have_st)
{
	guchar type = entry->type;

	*have_st = FALSE;
	if (type == DT_UNKNOWN) {
		if (fstatat(dirfd, entry->name, st, AT_SYMLINK_NOFOLLOW) != 0)
			return FALSE;
		type = esd_fs_tree_dtype(st->st_mode);
	}
	switch (type) {
	case DT_DIR:
		*is_dir = TRUE;
		return TRUE;
	case DT_REG:
		*is_dir = FALSE;
		return TRUE;
	case DT_LNK:
		if (!walk->options->follow_directory_symlinks)
			return FALSE;
		if (fstatat(dirfd, entry->name, st, 0) != 0 || !S_ISDIR(st->st_mode))
			return FALSE;
		*have_st = TRUE;
		*is_dir = TRUE;
		return TRUE;
	default:
		return FALSE;
	}
}

/* queues a listed directory for descent, within the limits; a stat error becomes a walk error */
static void
esd_fs_walk_descend(EsdFsWalk *walk,
		    gint dirfd,
		    const EsdFsEntry *entry,
		    const gchar *path,
		    guint64 depth,
		    struct stat *st,
		    gboolean have_st)
{
	EsdFsWalkDir *next;

	if (depth >= walk->options->max_depth)
		return;
	if (walk->options->prune_hidden_directories && entry->name[0] == '.')
		return;
	if (walk->visited != NULL) {
		if (!have_st && fstatat(dirfd, entry->name, st, 0) != 0) {
			g_autoptr(GError) error = NULL;
			esd_fs_set_errno(&error, errno);
			esd_fs_walk_add_error(walk, path, error->message);
			return;
		}
		if (!esd_fs_tree_visit(walk->visited, st))
			return;
	}
	if (walk->directories == walk->options->max_directories) {
		walk->truncated = TRUE;
		return;
	}
	walk->directories++;
	next = g_new0(EsdFsWalkDir, 1);
	next->path = g_strdup(path);
	next->depth = depth + 1;
	g_queue_push_tail(&walk->queue, next);
}

/* lists one directory; FALSE once the entry limit is reached */
static gboolean
esd_fs_walk_one(EsdFsWalk *walk, EsdFsWalkDir *current)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(DIR) dir = esd_fs_tree_opendir_at(AT_FDCWD, current->path, 0, &error);
	g_autoptr(GPtrArray) entries = NULL;

	if (dir != NULL)
		entries = esd_fs_tree_read_entries(dir, &error);
	if (entries == NULL) {
		esd_fs_walk_add_error(walk, current->path, error->message);
		return TRUE;
	}
	g_ptr_array_sort(entries, esd_fs_entry_compare);
	for (guint i = 0; i < entries->len; i++) {
		const EsdFsEntry *entry = g_ptr_array_index(entries, i);
		g_autofree gchar *path = NULL;
		struct stat st;
		gboolean is_dir = FALSE;
		gboolean have_st = FALSE;

		if (walk->seen == walk->options->max_entries) {
			walk->truncated = TRUE;
			return FALSE;
		}
		walk->seen++;
		if (!esd_fs_walk_classify(walk, dirfd(dir), entry, &is_dir, &st, &have_st))
			continue;
		path = esd_fs_tree_join(current->path, entry->name);
		esd_fs_walk_add_entry(walk, path, is_dir);
		if (is_dir)
			esd_fs_walk_descend(walk,
					    dirfd(dir),
					    entry,
					    path,
					    current->depth,
					    &st,
					    have_st);
	}
	return TRUE;
}

/**
 * esd_fs_tree_walk:
 * @root: an absolute path
 * @options: the limits, already checked
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError, or %NULL
 *
 * Breadth-first listing of files and directories below @root, each
 * directory's entries sorted by name. Unreadable directories become
 * `errors`; hitting a limit sets `truncated`.
 *
 * Returns: (transfer full): the result object, or %NULL with @error set
 */
GString *
esd_fs_tree_walk(const gchar *root,
		 const EsdFsWalkOptions *options,
		 GCancellable *cancellable,
		 GError **error)
{
	EsdFsWalk walk = {.options = options};
	g_autoptr(GString) entries = g_string_new(NULL);
	g_autoptr(GString) errors = g_string_new(NULL);
	g_autoptr(GHashTable) visited = NULL;
	struct stat st;
	struct stat lst;
	ErpcJsonWriter writer;
	GString *out;

	if (stat(root, &st) != 0 || lstat(root, &lst) != 0) {
		esd_fs_set_errno(error, errno);
		return NULL;
	}
	erpc_json_writer_init(&walk.entries, entries);
	erpc_json_writer_begin_array(&walk.entries);
	erpc_json_writer_init(&walk.errors, errors);
	erpc_json_writer_begin_array(&walk.errors);
	g_queue_init(&walk.queue);
	if (S_ISDIR(st.st_mode) && (!S_ISLNK(lst.st_mode) || options->follow_directory_symlinks)) {
		EsdFsWalkDir *first = g_new0(EsdFsWalkDir, 1);
		if (options->follow_directory_symlinks) {
			visited = g_hash_table_new_full(esd_fs_file_id_hash,
							esd_fs_file_id_equal,
							g_free,
							NULL);
			esd_fs_tree_visit(visited, &st);
		}
		walk.visited = visited;
		walk.directories = 1;
		first->path = g_strdup(root);
		g_queue_push_tail(&walk.queue, first);
	}
	while (!g_queue_is_empty(&walk.queue)) {
		EsdFsWalkDir *current = g_queue_pop_head(&walk.queue);
		gboolean more;

		if (g_cancellable_set_error_if_cancelled(cancellable, error)) {
			esd_fs_walk_dir_free(current);
			g_queue_clear_full(&walk.queue, esd_fs_walk_dir_free);
			return NULL;
		}
		more = esd_fs_walk_one(&walk, current);
		esd_fs_walk_dir_free(current);
		if (!more)
			break;
	}
	g_queue_clear_full(&walk.queue, esd_fs_walk_dir_free);
	erpc_json_writer_end_array(&walk.entries);
	erpc_json_writer_end_array(&walk.errors);
	out = g_string_sized_new(entries->len + errors->len + 64);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "entries");
	erpc_json_writer_raw(&writer, entries->str, (gssize)entries->len);
	erpc_json_writer_member(&writer, "errors");
	erpc_json_writer_raw(&writer, errors->str, (gssize)errors->len);
	erpc_json_writer_member_boolean(&writer, "truncated", walk.truncated);
	erpc_json_writer_end_object(&writer);
	return out;
}

/*
 * Recursive removal: a stack of open directories, each removed (by its
 * name in the one below) once it is empty. Symlinks are removed, never
 * followed; iterative, so depth costs heap, not stack.
 */
typedef struct {
	DIR *dir;
	gchar *name;
} EsdFsRemoveFrame;

static gboolean
esd_fs_tree_remove_frame_done(GArray *stack, GError **error)
{
	EsdFsRemoveFrame *frame = &g_array_index(stack, EsdFsRemoveFrame, stack->len - 1);
	g_autofree gchar *name = g_steal_pointer(&frame->name);
	gint parent;

	closedir(frame->dir);
	frame->dir = NULL;
	g_array_set_size(stack, stack->len - 1);
	parent = stack->len > 0 ? dirfd(g_array_index(stack, EsdFsRemoveFrame, stack->len - 1).dir)
				: AT_FDCWD;
	if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		return esd_fs_set_errno(error, errno);
	return TRUE;
}

static void
esd_fs_tree_remove_frame_clear(gpointer data)
{
	EsdFsRemoveFrame *frame = data;
	if (frame->dir != NULL)
		closedir(frame->dir);
	g_free(frame->name);
}

static gboolean
esd_fs_tree_remove_all(const gchar *path, GCancellable *cancellable, GError **error)
{
	g_autoptr(GArray) stack = g_array_new(FALSE, TRUE, sizeof(EsdFsRemoveFrame));
	EsdFsRemoveFrame root = {NULL, NULL};
	guint count = 0;

	g_array_set_clear_func(stack, esd_fs_tree_remove_frame_clear);
	root.dir = esd_fs_tree_opendir_at(AT_FDCWD, path, O_NOFOLLOW, error);
	if (root.dir == NULL)
		return FALSE;
	root.name = g_strdup(path);
	g_array_append_val(stack, root);
	while (stack->len > 0) {
		EsdFsRemoveFrame *top = &g_array_index(stack, EsdFsRemoveFrame, stack->len - 1);
		EsdFsRemoveFrame child = {NULL, NULL};
		g_autoptr(GError) error_local = NULL;
		struct dirent *d;

		if ((++count & 0xff) == 0 &&
		    g_cancellable_set_error_if_cancelled(cancellable, error))
			return FALSE;
		errno = 0;
		d = readdir(top->dir);
		if (d == NULL) {
			if (errno != 0)
				return esd_fs_set_errno(error, errno);
			if (!esd_fs_tree_remove_frame_done(stack, error))
				return FALSE;
			continue;
		}
		if (d->d_name[0] == '.' &&
		    (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0')))
			continue;
		/* anything but a known directory is first tried as a file */
		if (d->d_type != DT_DIR) {
			if (unlinkat(dirfd(top->dir), d->d_name, 0) == 0 || errno == ENOENT)
				continue;
			if (errno != EISDIR)
				return esd_fs_set_errno(error, errno);
		}
		child.dir =
		    esd_fs_tree_opendir_at(dirfd(top->dir), d->d_name, O_NOFOLLOW, &error_local);
		if (child.dir == NULL) {
			if (g_error_matches(error_local, ERPC_ERROR, ERPC_ERROR_NOT_FOUND))
				continue;
			g_propagate_error(error, g_steal_pointer(&error_local));
			return FALSE;
		}
		child.name = g_strdup(d->d_name);
		g_array_append_val(stack, child);
	}
	return TRUE;
}

static gboolean
esd_fs_tree_remove_nofollow(const gchar *path, gboolean force, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	const gchar *leaf = NULL;
	esd_autofd gint dirfd = esd_fs_open_parent_nofollow(path, &leaf, &error_local);
	struct stat st;

	if (dirfd < 0) {
		if (force && g_error_matches(error_local, ERPC_ERROR, ERPC_ERROR_NOT_FOUND))
			return TRUE;
		g_propagate_error(error, g_steal_pointer(&error_local));
		return FALSE;
	}
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (force && errno == ENOENT)
			return TRUE;
		return esd_fs_set_errno(error, errno);
	}
	if (S_ISLNK(st.st_mode))
		return esd_fs_symlink_in_path(error);
	if (unlinkat(dirfd, leaf, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0)
		return esd_fs_set_errno(error, errno);
	return TRUE;
}

/**
 * esd_fs_tree_remove:
 * @path: an absolute path
 * @recursive: remove a directory with its contents
 * @force: a missing path is not an error
 * @follow: %FALSE refuses symlinks on the way (not with @recursive)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError, or %NULL
 *
 * A symlink at @path is removed itself, never what it points to.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_tree_remove(const gchar *path,
		   gboolean recursive,
		   gboolean force,
		   gboolean follow,
		   GCancellable *cancellable,
		   GError **error)
{
	struct stat st;

	if (!follow) {
		if (recursive) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_NOT_SUPPORTED,
					    "recursive no-follow removal is unsupported");
			return FALSE;
		}
		return esd_fs_tree_remove_nofollow(path, force, error);
	}
	if (lstat(path, &st) != 0) {
		if (force && errno == ENOENT)
			return TRUE;
		return esd_fs_set_errno(error, errno);
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) != 0)
			return esd_fs_set_errno(error, errno);
		return TRUE;
	}
	if (!recursive) {
		if (rmdir(path) != 0)
			return esd_fs_set_errno(error, errno);
		return TRUE;
	}
	return esd_fs_tree_remove_all(path, cancellable, error);
}

static gboolean
esd_fs_tree_invalid(GError **error, const gchar *message)
{
	g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INVALID_REQUEST, message);
	return FALSE;
}

/* copies the bytes of @in to @out, in the kernel where it can */
static gboolean
esd_fs_tree_copy_data(gint in, gint out, GCancellable *cancellable, GError **error)
{
	gboolean kernel = TRUE;
	g_autofree guint8 *buf = NULL;
	guint64 offset = 0;

	for (;;) {
		gssize n;

		if (g_cancellable_set_error_if_cancelled(cancellable, error))
			return FALSE;
		if (kernel) {
			n = copy_file_range(in, NULL, out, NULL, 64 * 1024 * 1024, 0);
			if (n < 0 && offset == 0 &&
			    (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			     errno == EOPNOTSUPP || errno == EPERM)) {
				kernel = FALSE;
				continue;
			}
		} else {
			gsize got = 0;
			if (buf == NULL)
				buf = g_malloc(1024 * 1024);
			if (!esd_fs_read_all(in, buf, 1024 * 1024, offset, &got, error))
				return FALSE;
			if (got > 0 && !esd_fs_write_all(out, buf, got, offset, error))
				return FALSE;
			n = (gssize)got;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return esd_fs_set_errno(error, errno);
		}
		if (n == 0)
			return TRUE;
		offset += (guint64)n;
	}
}

/* std::fs::copy through a replacement: the destination changes whole or not at all */
static gboolean
esd_fs_tree_copy_file(const gchar *source,
		      const gchar *destination,
		      gboolean sync,
		      GCancellable *cancellable,
		      GError **error)
{
	esd_autofd gint in = open(source, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	g_auto(EsdFsTarget) target = {.dirfd = -1};
	g_autoptr(EsdFsReplace) replace = NULL;
	struct stat st;

	if (in < 0 || fstat(in, &st) != 0)
		return esd_fs_set_errno(error, errno);
	if (!S_ISREG(st.st_mode))
		return esd_fs_tree_invalid(
		    error,
		    "fs/copy only supports regular files, directories, and symlinks");
	if (!esd_fs_target_resolve(destination, TRUE, &target, error))
		return FALSE;
	replace = esd_fs_replace_new(&target, error);
	if (replace == NULL)
		return FALSE;
	/* the copy gets the source's permissions, as with std::fs::copy */
	if (!esd_fs_replace_set_mode(replace, st.st_mode & 07777, error))
		return FALSE;
	if (!esd_fs_tree_copy_data(in, esd_fs_replace_get_fd(replace), cancellable, error))
		return FALSE;
	return esd_fs_replace_commit(replace, sync, error);
}

static gboolean
esd_fs_tree_copy_symlink(const gchar *source, const gchar *destination, GError **error)
{
	g_autofree gchar *target = esd_fs_readlinkat(AT_FDCWD, source, error);

	if (target == NULL)
		return FALSE;
	if (symlink(target, destination) != 0)
		return esd_fs_set_errno(error, errno);
	return TRUE;
}

/* copy_dir_recursive of the reference: merges into an existing directory */
static gboolean
esd_fs_tree_copy_dir(const gchar *source,
		     const gchar *destination,
		     GCancellable *cancellable,
		     GError **error)
{
	g_autoptr(GPtrArray) entries = NULL;

	if (!esd_fs_ops_create_directory(destination, TRUE, TRUE, error))
		return FALSE;
	{
		/* read the whole directory first: one open descriptor per level at most */
		g_autoptr(DIR) dir = esd_fs_tree_opendir_at(AT_FDCWD, source, 0, error);
		if (dir == NULL)
			return FALSE;
		entries = esd_fs_tree_read_entries(dir, error);
		if (entries == NULL)
			return FALSE;
	}
	for (guint i = 0; i < entries->len; i++) {
		const EsdFsEntry *entry = g_ptr_array_index(entries, i);
		g_autofree gchar *from = esd_fs_tree_join(source, entry->name);
		g_autofree gchar *to = esd_fs_tree_join(destination, entry->name);
		guchar type = entry->type;

		if (type == DT_UNKNOWN) {
			struct stat st;
			if (lstat(from, &st) != 0)
				return esd_fs_set_errno(error, errno);
			type = esd_fs_tree_dtype(st.st_mode);
		}
		if (type == DT_DIR) {
			if (!esd_fs_tree_copy_dir(from, to, cancellable, error))
				return FALSE;
		} else if (type == DT_REG) {
			if (!esd_fs_tree_copy_file(from, to, FALSE, cancellable, error))
				return FALSE;
		} else if (type == DT_LNK) {
			if (!esd_fs_tree_copy_symlink(from, to, error))
				return FALSE;
		}
		/* FIFOs, sockets and devices inside a tree are skipped */
	}
	return TRUE;
}

/* resolve_existing_path of the reference: the real path of the longest existing prefix */
static gchar *
esd_fs_tree_resolve_existing(const gchar *path, GError **error)
{
	g_autoptr(GPtrArray) suffix = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *existing = g_strdup(path);
	g_autofree gchar *real = NULL;
	GString *out;

	while (!g_file_test(existing, G_FILE_TEST_EXISTS) && g_strcmp0(existing, "/") != 0) {
		gchar *parent = g_path_get_dirname(existing);
		g_ptr_array_add(suffix, g_path_get_basename(existing));
		g_free(existing);
		existing = parent;
	}
	real = realpath(existing, NULL);
	if (real == NULL) {
		esd_fs_set_errno(error, errno);
		return NULL;
	}
	out = g_string_new(real);
	for (guint i = suffix->len; i > 0; i--) {
		if (out->len == 0 || out->str[out->len - 1] != '/')
			g_string_append_c(out, '/');
		g_string_append(out, g_ptr_array_index(suffix, i - 1));
	}
	return g_string_free(out, FALSE);
}

static gboolean
esd_fs_tree_is_same_or_below(const gchar *ancestor, const gchar *path)
{
	gsize len = strlen(ancestor);

	if (len == 1 && ancestor[0] == '/')
		return TRUE;
	return strncmp(path, ancestor, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/**
 * esd_fs_tree_copy:
 * @source: an absolute path
 * @destination: an absolute path
 * @recursive: whether a directory may be copied
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError, or %NULL
 *
 * Copies a regular file (replacing the destination whole), a symlink (as a
 * symlink) or, with @recursive, a directory tree merged into the destination.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_tree_copy(const gchar *source,
		 const gchar *destination,
		 gboolean recursive,
		 GCancellable *cancellable,
		 GError **error)
{
	struct stat st;

	if (lstat(source, &st) != 0)
		return esd_fs_set_errno(error, errno);
	if (S_ISDIR(st.st_mode)) {
		g_autofree gchar *real_source = NULL;
		g_autofree gchar *real_destination = NULL;

		if (!recursive)
			return esd_fs_tree_invalid(
			    error,
			    "fs/copy requires recursive: true when sourcePath is a directory");
		real_source = realpath(source, NULL);
		if (real_source == NULL)
			return esd_fs_set_errno(error, errno);
		real_destination = esd_fs_tree_resolve_existing(destination, error);
		if (real_destination == NULL)
			return FALSE;
		if (esd_fs_tree_is_same_or_below(real_source, real_destination))
			return esd_fs_tree_invalid(
			    error,
			    "fs/copy cannot copy a directory to itself or one of its descendants");
		return esd_fs_tree_copy_dir(source, destination, cancellable, error);
	}
	if (S_ISLNK(st.st_mode))
		return esd_fs_tree_copy_symlink(source, destination, error);
	if (S_ISREG(st.st_mode))
		return esd_fs_tree_copy_file(source, destination, TRUE, cancellable, error);
	return esd_fs_tree_invalid(
	    error,
	    "fs/copy only supports regular files, directories, and symlinks");
}
