/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "esd-fs-ops.h"
#include "esd-fs-path.h"
#include "esd-fs-replace.h"

/**
 * esd_fs_ops_open_regular:
 * @path: an absolute path
 * @follow: follow symlinks, or refuse them (see esd_fs_open_nofollow())
 * @st: (out): the file's status
 * @error: return location for a #GError, or %NULL
 *
 * Opens a regular file for reading. O_NONBLOCK keeps a FIFO or a device
 * from blocking the open; the type is then checked on the descriptor.
 *
 * Returns: a descriptor, or -1 with @error set
 */
gint
esd_fs_ops_open_regular(const gchar *path, gboolean follow, struct stat *st, GError **error)
{
	const gint flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	esd_autofd gint fd = -1;

	if (follow) {
		fd = open(path, flags);
		if (fd < 0) {
			esd_fs_set_errno(error, errno);
			return -1;
		}
	} else {
		fd = esd_fs_open_nofollow(path, flags, error);
		if (fd < 0)
			return -1;
	}
	if (fstat(fd, st) != 0) {
		esd_fs_set_errno(error, errno);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		esd_fs_not_a_file(error, path);
		return -1;
	}
	return esd_fs_steal_fd(&fd);
}

static gboolean
esd_fs_ops_too_large(GError **error)
{
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_REQUEST,
		    "file is too large to read: limit is %" G_GSIZE_FORMAT " bytes",
		    ESD_FS_MAX_READ_FILE);
	return FALSE;
}

/* the read size: a multiple of 3, so that the chunks encode without padding */
#define ESD_FS_READ_CHUNK (3 * 256 * 1024)

/**
 * esd_fs_ops_read_file_result:
 * @fd: a regular file open for reading
 * @st: its status
 * @error: return location for a #GError, or %NULL
 *
 * Reads the file and encodes it straight into a result sized in advance
 * from its size. The file is read in chunks of %ESD_FS_READ_CHUNK bytes
 * through one small buffer that stays in the CPU cache: this saves both
 * the copy of the whole file and faulting in a buffer of its size. It is
 * read to its end, so a file that grew, or that never had a size (as in
 * /proc), is read whole too.
 *
 * Returns: (transfer full): `{"dataBase64":...}`, or %NULL with @error set
 */
GString *
esd_fs_ops_read_file_result(gint fd, const struct stat *st, GError **error)
{
	g_autoptr(GString) out = NULL;
	g_autofree guint8 *buf = NULL;
	ErpcJsonWriter writer;
	GString *text;
	gsize size = (gsize)st->st_size;
	gsize chunk;
	guint64 offset = 0;

	if ((guint64)st->st_size > ESD_FS_MAX_READ_FILE) {
		esd_fs_ops_too_large(error);
		return NULL;
	}
	out = erpc_call_result_string_new((size + 2) / 3 * 4 + 20);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "dataBase64");
	/* encoded as it is read */
	text = erpc_json_writer_begin_string(&writer);
	/* the first read asks for one byte more than the size, to see the end */
	chunk = MIN(size + 1, (gsize)ESD_FS_READ_CHUNK);
	buf = g_malloc(chunk);
	for (;;) {
		gsize got = 0;
		gsize whole;

		/* a short read is the end of the file */
		if (!esd_fs_read_all(fd, buf, chunk, offset, &got, error))
			return NULL;
		if (offset + got > ESD_FS_MAX_READ_FILE) {
			esd_fs_ops_too_large(error);
			return NULL;
		}
		if (got < chunk) {
			erpc_base64_append(text, buf, got);
			break;
		}
		/* the file goes on: encode whole groups of 3 and read on from there */
		whole = got / 3 * 3;
		erpc_base64_append(text, buf, whole);
		offset += whole;
		if (chunk != ESD_FS_READ_CHUNK) {
			chunk = ESD_FS_READ_CHUNK;
			buf = g_realloc(buf, chunk);
		}
	}
	erpc_json_writer_end_string(&writer);
	erpc_json_writer_end_object(&writer);
	return g_steal_pointer(&out);
}

/* the decoding step: a multiple of 4 characters, 768 KiB of data, which stay in the L2 cache
 * from the decoder to the write */
#define ESD_FS_DECODE_CHUNK (1024 * 1024)

/* the error for invalid base64, which the reference reports before any other */
static gboolean
esd_fs_ops_base64_error(const gchar *text, gsize len, const GError *fallback, GError **error)
{
	g_autofree gchar *detail = esd_fs_base64_describe_error(text, len);

	if (detail == NULL && fallback == NULL)
		return TRUE;
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_REQUEST,
		    "fs/writeFile requires valid base64 dataBase64: %s",
		    detail != NULL ? detail : fallback->message);
	return FALSE;
}

/* an operation error, unless the text was not valid base64 in the first place */
static gboolean
esd_fs_ops_write_failed(const gchar *text, gsize len, GError *error_local, GError **error)
{
	if (esd_fs_ops_base64_error(text, len, NULL, error))
		g_propagate_error(error, error_local);
	else
		g_error_free(error_local);
	return FALSE;
}

/* decodes @text piece by piece into @fd: the pieces stay in the CPU cache */
static gboolean
esd_fs_ops_decode_into(gint fd, const gchar *text, gsize len, GError **error)
{
	g_autofree guint8 *buf = NULL;
	guint64 offset = 0;

	if (len == 0)
		return TRUE;
	/* one buffer for every piece */
	buf = g_malloc(erpc_base64_decode_room(MIN(len, (gsize)ESD_FS_DECODE_CHUNK)));
	for (gsize done = 0; done < len;) {
		g_autoptr(GError) error_local = NULL;
		gsize piece = MIN(len - done, (gsize)ESD_FS_DECODE_CHUNK);
		gsize size = 0;

		/* padding may only end the whole text, not a piece of it */
		if (done + piece < len &&
		    (text[done + piece - 1] == '=' || text[done + piece - 2] == '='))
			return esd_fs_ops_base64_error(text, len, NULL, error);
		if (!erpc_base64_decode_to(text + done, piece, buf, &size, &error_local))
			return esd_fs_ops_base64_error(text, len, error_local, error);
		if (!esd_fs_write_all(fd, buf, size, offset, &error_local))
			return esd_fs_ops_write_failed(text,
						       len,
						       g_steal_pointer(&error_local),
						       error);
		offset += size;
		done += piece;
	}
	return TRUE;
}

/* the content replaces the resolved target */
static gboolean
esd_fs_ops_write_target(EsdFsTarget *target, const gchar *text, gsize len, GError **error)
{
	g_autoptr(EsdFsReplace) replace = NULL;
	g_autoptr(GError) error_local = NULL;

	replace = esd_fs_replace_new(target, &error_local);
	if (replace == NULL)
		return esd_fs_ops_write_failed(text, len, g_steal_pointer(&error_local), error);
	if (!esd_fs_ops_decode_into(esd_fs_replace_get_fd(replace), text, len, error))
		return FALSE;
	/* atomic (rename), not flushed: the protocol promises no durability */
	return esd_fs_replace_commit(replace, FALSE, error);
}

/**
 * esd_fs_ops_write_file:
 * @path: an absolute path
 * @follow: write through a symlink at @path, or refuse it
 * @text: the new content, strict padded base64
 * @len: the length of @text
 * @error: return location for a #GError, or %NULL
 *
 * Replaces the file with the decoded @text through a flushed temporary
 * file renamed into place: a failure leaves the old content. Invalid base64
 * is reported as `fs/writeFile requires valid base64 dataBase64: ...` ahead
 * of any file system error, as by the reference, which decodes first.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_ops_write_file(const gchar *path,
		      gboolean follow,
		      const gchar *text,
		      gsize len,
		      GError **error)
{
	g_auto(EsdFsTarget) target = {.dirfd = -1};
	g_autoptr(GError) error_local = NULL;

	if (!esd_fs_target_resolve(path, follow, &target, &error_local))
		return esd_fs_ops_write_failed(text, len, g_steal_pointer(&error_local), error);
	return esd_fs_ops_write_target(&target, text, len, error);
}

/**
 * esd_fs_ops_write_file_direct:
 * @path: an absolute path
 * @text: the new content, strict padded base64
 * @len: the length of @text
 * @fallback: (out): set when the sandbox must decide instead: a symbolic
 *   link on the way or at @path, or a directory that cannot be written
 *   (where the content would be staged elsewhere)
 * @error: return location for a #GError, or %NULL
 *
 * esd_fs_ops_write_file() for a sandboxed request run outside the sandbox
 * (esd-fs-sandbox-direct.c): where it does not fall back, the outcome is
 * the one a following write in the sandbox has.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_ops_write_file_direct(const gchar *path,
			     const gchar *text,
			     gsize len,
			     gboolean *fallback,
			     GError **error)
{
	g_auto(EsdFsTarget) target = {.dirfd = -1};
	g_autoptr(GError) error_local = NULL;

	*fallback = FALSE;
	if (!esd_fs_target_resolve(path, FALSE, &target, &error_local)) {
		if (esd_fs_error_is_symlink(error_local)) {
			*fallback = TRUE;
			return FALSE;
		}
		return esd_fs_ops_write_failed(text, len, g_steal_pointer(&error_local), error);
	}
	if (faccessat(target.dirfd, ".", W_OK, AT_EACCESS) != 0) {
		*fallback = TRUE;
		return FALSE;
	}
	return esd_fs_ops_write_target(&target, text, len, error);
}

static gboolean
esd_fs_ops_is_dir(const gchar *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* std::fs::create_dir_all: an existing directory anywhere is fine */
static gboolean
esd_fs_ops_mkdir_all(const gchar *path, GError **error)
{
	g_autofree gchar *parent = NULL;

	if (mkdir(path, 0777) == 0)
		return TRUE;
	if (errno != ENOENT) {
		gint saved = errno;
		if (esd_fs_ops_is_dir(path))
			return TRUE;
		return esd_fs_set_errno(error, saved);
	}
	parent = g_path_get_dirname(path);
	if (g_strcmp0(parent, path) == 0)
		return esd_fs_set_errno(error, ENOENT);
	if (!esd_fs_ops_mkdir_all(parent, error))
		return FALSE;
	if (mkdir(path, 0777) == 0)
		return TRUE;
	{
		gint saved = errno;
		if (esd_fs_ops_is_dir(path))
			return TRUE;
		return esd_fs_set_errno(error, saved);
	}
}

/* the no-follow recursive variant: component by component, relative to descriptors */
static gboolean
esd_fs_ops_mkdir_all_nofollow(const gchar *path, GError **error)
{
	esd_autofd gint fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	g_auto(GStrv) parts = g_strsplit(path, "/", -1);
	guint last = 0;

	if (fd < 0)
		return esd_fs_set_errno(error, errno);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] != '\0')
			last = i;
	}
	for (guint i = 0; parts[i] != NULL; i++) {
		const gint flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		gint next;

		if (parts[i][0] == '\0')
			continue;
		next = openat(fd, parts[i], flags);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, parts[i], 0777) != 0 && errno != EEXIST)
				return esd_fs_set_errno(error, errno);
			next = openat(fd, parts[i], flags);
		}
		if (next < 0) {
			gint saved = errno;
			struct stat st;
			if (fstatat(fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
				if (S_ISLNK(st.st_mode))
					return esd_fs_symlink_in_path(error);
				if (i == last)
					return esd_fs_set_errno(error, EEXIST);
			}
			return esd_fs_set_errno(error, saved);
		}
		close(fd);
		fd = next;
	}
	return TRUE;
}

/**
 * esd_fs_ops_create_directory:
 * @path: an absolute path
 * @recursive: create missing parents; an existing directory is then fine
 * @follow: follow symlinks on the way, or refuse them
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_ops_create_directory(const gchar *path, gboolean recursive, gboolean follow, GError **error)
{
	if (follow && recursive)
		return esd_fs_ops_mkdir_all(path, error);
	if (follow) {
		if (mkdir(path, 0777) != 0)
			return esd_fs_set_errno(error, errno);
		return TRUE;
	}
	if (recursive)
		return esd_fs_ops_mkdir_all_nofollow(path, error);
	{
		const gchar *leaf = NULL;
		esd_autofd gint dirfd = esd_fs_open_parent_nofollow(path, &leaf, error);
		if (dirfd < 0)
			return FALSE;
		if (mkdirat(dirfd, leaf, 0777) != 0)
			return esd_fs_set_errno(error, errno);
		return TRUE;
	}
}

static gint64
esd_fs_ops_time_ms(const struct timespec *ts)
{
	/* the reference reports times before the epoch as 0 */
	if (ts->tv_sec < 0)
		return 0;
	if (ts->tv_sec > G_MAXINT64 / 1000 - 1)
		return G_MAXINT64;
	return (gint64)ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
}

static void
esd_fs_ops_append_metadata(GString *out, const struct stat *st, gboolean is_symlink)
{
	ErpcJsonWriter writer;

	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_boolean(&writer, "isDirectory", S_ISDIR(st->st_mode));
	erpc_json_writer_member_boolean(&writer, "isFile", S_ISREG(st->st_mode));
	erpc_json_writer_member_boolean(&writer, "isSymlink", is_symlink);
	erpc_json_writer_member_uint(&writer, "size", (guint64)st->st_size);
	/* createdAtMs is 0 on Linux, as the reference reports it */
	erpc_json_writer_member_int(&writer, "createdAtMs", 0);
	erpc_json_writer_member_int(&writer, "modifiedAtMs", esd_fs_ops_time_ms(&st->st_mtim));
	erpc_json_writer_end_object(&writer);
}

/**
 * esd_fs_ops_get_metadata:
 * @path: an absolute path
 * @follow: report the symlink's target (flagging `isSymlink`), or refuse
 *   any symlink in the path
 * @out: where the result object is appended
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_ops_get_metadata(const gchar *path, gboolean follow, GString *out, GError **error)
{
	struct stat st;

	if (follow) {
		gboolean is_symlink;
		/* one call unless the path is a symlink */
		if (lstat(path, &st) != 0)
			return esd_fs_set_errno(error, errno);
		is_symlink = S_ISLNK(st.st_mode);
		if (is_symlink && stat(path, &st) != 0)
			return esd_fs_set_errno(error, errno);
		esd_fs_ops_append_metadata(out, &st, is_symlink);
		return TRUE;
	}
	{
		const gchar *leaf = NULL;
		esd_autofd gint dirfd = esd_fs_open_parent_nofollow(path, &leaf, error);
		if (dirfd < 0)
			return FALSE;
		if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return esd_fs_set_errno(error, errno);
		if (S_ISLNK(st.st_mode))
			return esd_fs_symlink_in_path(error);
		esd_fs_ops_append_metadata(out, &st, FALSE);
		return TRUE;
	}
}

/**
 * esd_fs_ops_canonicalize:
 * @path: an absolute path
 * @out: where `{"path":URI}` is appended
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_ops_canonicalize(const gchar *path, GString *out, GError **error)
{
	g_autofree gchar *real = realpath(path, NULL);
	ErpcJsonWriter writer;

	if (real == NULL)
		return esd_fs_set_errno(error, errno);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "path");
	esd_fs_append_uri(erpc_json_writer_begin_string(&writer), real);
	erpc_json_writer_end_string(&writer);
	erpc_json_writer_end_object(&writer);
	return TRUE;
}

/* the flags of one entry, following symlinks; FALSE to leave the entry out */
static gboolean
esd_fs_ops_entry_kind(DIR *dir, struct dirent *entry, gboolean *is_dir, gboolean *is_file)
{
	struct stat st;

	switch (entry->d_type) {
	case DT_DIR:
		*is_dir = TRUE;
		*is_file = FALSE;
		return TRUE;
	case DT_REG:
		*is_dir = FALSE;
		*is_file = TRUE;
		return TRUE;
	case DT_LNK:
	case DT_UNKNOWN:
		/* a dangling symlink is left out, as by the reference */
		if (fstatat(dirfd(dir), entry->d_name, &st, 0) != 0)
			return FALSE;
		*is_dir = S_ISDIR(st.st_mode);
		*is_file = S_ISREG(st.st_mode);
		return TRUE;
	default:
		*is_dir = FALSE;
		*is_file = FALSE;
		return TRUE;
	}
}

/* the listing of an open directory; @strict refuses entries that are links (*fallback) */
static GString *
esd_fs_ops_list(gint fd,
		gboolean strict,
		gboolean *fallback,
		GCancellable *cancellable,
		GError **error)
{
	g_autoptr(DIR) dir = NULL;
	g_autoptr(GString) out = NULL;
	ErpcJsonWriter writer;
	guint count = 0;

	dir = fdopendir(fd);
	if (dir == NULL) {
		esd_fs_set_errno(error, errno);
		close(fd);
		return NULL;
	}
	out = g_string_sized_new(4096);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member(&writer, "entries");
	erpc_json_writer_begin_array(&writer);
	for (;;) {
		struct dirent *entry;
		gboolean is_dir = FALSE;
		gboolean is_file = FALSE;

		errno = 0;
		entry = readdir(dir);
		if (entry == NULL) {
			if (errno != 0) {
				esd_fs_set_errno(error, errno);
				return NULL;
			}
			break;
		}
		if (entry->d_name[0] == '.' &&
		    (entry->d_name[1] == '\0' ||
		     (entry->d_name[1] == '.' && entry->d_name[2] == '\0')))
			continue;
		if ((++count & 0x3ff) == 0 &&
		    g_cancellable_set_error_if_cancelled(cancellable, error))
			return NULL;
		if (strict && entry->d_type == DT_LNK) {
			*fallback = TRUE;
			return NULL;
		}
		if (strict && entry->d_type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			    S_ISLNK(st.st_mode)) {
				*fallback = TRUE;
				return NULL;
			}
		}
		if (!esd_fs_ops_entry_kind(dir, entry, &is_dir, &is_file))
			continue;
		erpc_json_writer_begin_object(&writer);
		erpc_json_writer_member_string(&writer, "fileName", entry->d_name);
		erpc_json_writer_member_boolean(&writer, "isDirectory", is_dir);
		erpc_json_writer_member_boolean(&writer, "isFile", is_file);
		erpc_json_writer_end_object(&writer);
	}
	erpc_json_writer_end_array(&writer);
	erpc_json_writer_end_object(&writer);
	return g_steal_pointer(&out);
}

/**
 * esd_fs_ops_read_directory:
 * @path: an absolute path
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError, or %NULL
 *
 * Lists a directory in its raw order, without `.` and `..`. The kind comes
 * from the directory entry where it can; only symlinks (and file systems
 * that do not say) cost a stat.
 *
 * Returns: (transfer full): `{"entries":[...]}`, or %NULL with @error set
 */
GString *
esd_fs_ops_read_directory(const gchar *path, GCancellable *cancellable, GError **error)
{
	gint fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		esd_fs_set_errno(error, errno);
		return NULL;
	}
	return esd_fs_ops_list(fd, FALSE, NULL, cancellable, error);
}

/**
 * esd_fs_ops_read_directory_direct:
 * @path: an absolute path
 * @fallback: (out): set when the sandbox must decide instead: a symbolic
 *   link on the way, at @path or among the entries (whose flags follow it)
 * @cancellable: (nullable): stops a long listing
 * @error: return location for a #GError, or %NULL
 *
 * esd_fs_ops_read_directory() for a sandboxed request run outside the
 * sandbox (esd-fs-sandbox-direct.c), following no link.
 *
 * Returns: (transfer full): the result, or %NULL
 */
GString *
esd_fs_ops_read_directory_direct(const gchar *path,
				 gboolean *fallback,
				 GCancellable *cancellable,
				 GError **error)
{
	struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	gint fd;

	*fallback = FALSE;
	fd = (gint)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOSYS || errno == EPERM || errno == EXDEV) {
			*fallback = TRUE;
			return NULL;
		}
		esd_fs_set_errno(error, errno);
		return NULL;
	}
	return esd_fs_ops_list(fd, TRUE, fallback, cancellable, error);
}
