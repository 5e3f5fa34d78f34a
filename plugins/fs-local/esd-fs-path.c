/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>

#include "esd-fs-path.h"

/*
 * No-follow resolution goes through descriptors only: the parent directory
 * is opened with openat2(RESOLVE_NO_SYMLINKS), or component by component with
 * O_NOFOLLOW on kernels without openat2, and the last component is then
 * reached relative to that descriptor. No path string is checked first and
 * opened afterwards.
 */

/* set once a kernel (or a seccomp policy) has answered ENOSYS */
static gint esd_fs_openat2_missing = 0;

/* the most symlinks followed while resolving a file to replace, as Linux */
#define ESD_FS_MAX_SYMLINKS 40

gboolean
esd_fs_symlink_in_path(GError **error)
{
	g_set_error_literal(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "path contains a symbolic link");
	return FALSE;
}

/**
 * esd_fs_error_is_symlink:
 * @error: an error of the no-follow resolution
 *
 * Returns: whether @error is a symbolic link the resolution refused: one on
 *   the way (esd_fs_symlink_in_path()) or at the end (ELOOP)
 */
gboolean
esd_fs_error_is_symlink(const GError *error)
{
	return error != NULL && error->domain == ERPC_ERROR &&
	       (g_strcmp0(error->message, "path contains a symbolic link") == 0 ||
		g_str_has_suffix(error->message, "(os error 40)"));
}

void
esd_fs_target_clear(EsdFsTarget *target)
{
	esd_fs_close_fdp(&target->dirfd);
	g_clear_pointer(&target->leaf, g_free);
}

/* the fallback: one O_NOFOLLOW open per component, from the root */
static gint
esd_fs_walk_dir_nofollow(const gchar *dir, GError **error)
{
	esd_autofd gint fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	g_auto(GStrv) parts = NULL;

	if (fd < 0) {
		esd_fs_set_errno(error, errno);
		return -1;
	}
	parts = g_strsplit(dir, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		gint next;

		if (parts[i][0] == '\0')
			continue;
		next = openat(fd, parts[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			gint saved = errno;
			struct stat st;
			if ((saved == ENOTDIR || saved == ELOOP) &&
			    fstatat(fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode)) {
				esd_fs_symlink_in_path(error);
				return -1;
			}
			esd_fs_set_errno(error, saved);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return esd_fs_steal_fd(&fd);
}

static gint
esd_fs_open_dir_nofollow(const gchar *dir, GError **error)
{
	if (!g_atomic_int_get(&esd_fs_openat2_missing)) {
		struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				       .resolve = RESOLVE_NO_SYMLINKS};
		gint fd = (gint)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ELOOP) {
			esd_fs_symlink_in_path(error);
			return -1;
		}
		/* EPERM may come from a seccomp policy that does not know openat2 */
		if (errno != ENOSYS && errno != EPERM) {
			esd_fs_set_errno(error, errno);
			return -1;
		}
		if (errno == ENOSYS)
			g_atomic_int_set(&esd_fs_openat2_missing, 1);
	}
	return esd_fs_walk_dir_nofollow(dir, error);
}

/**
 * esd_fs_open_parent_nofollow:
 * @path: an absolute, normalised path
 * @leaf: (out) (transfer none): the last component, pointing into @path;
 *   `.` for the root
 * @error: return location for a #GError, or %NULL
 *
 * Opens the directory holding @leaf without following any symlink; a
 * symlink on the way is refused with `path contains a symbolic link`.
 *
 * Returns: an `O_PATH` descriptor, or -1 with @error set
 */
gint
esd_fs_open_parent_nofollow(const gchar *path, const gchar **leaf, GError **error)
{
	const gchar *slash = strrchr(path, '/');
	g_autofree gchar *dir = NULL;

	if (slash == NULL) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_REQUEST,
				    "no-follow filesystem operations require an absolute path");
		return -1;
	}
	if (slash[1] == '\0') {
		*leaf = ".";
		dir = g_strndup(path, (gsize)(slash - path) + 1);
	} else {
		*leaf = slash + 1;
		dir = slash == path ? g_strdup("/") : g_strndup(path, (gsize)(slash - path));
	}
	return esd_fs_open_dir_nofollow(dir, error);
}

/**
 * esd_fs_open_nofollow:
 * @path: an absolute, normalised path
 * @flags: open(2) flags for the last component
 * @error: return location for a #GError, or %NULL
 *
 * Opens @path without following symlinks: one on the way is refused with
 * `path contains a symbolic link`, the last component being a symlink fails
 * like O_NOFOLLOW does (ELOOP).
 *
 * Returns: a descriptor, or -1 with @error set
 */
gint
esd_fs_open_nofollow(const gchar *path, gint flags, GError **error)
{
	const gchar *leaf = NULL;
	esd_autofd gint dirfd = esd_fs_open_parent_nofollow(path, &leaf, error);
	gint fd;

	if (dirfd < 0)
		return -1;
	fd = openat(dirfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		esd_fs_set_errno(error, errno);
	return fd;
}

gchar *
esd_fs_readlinkat(gint dirfd, const gchar *name, GError **error)
{
	gsize size = 256;

	for (;;) {
		g_autofree gchar *buf = g_malloc(size);
		gssize n = readlinkat(dirfd, name, buf, size);
		if (n < 0) {
			esd_fs_set_errno(error, errno);
			return NULL;
		}
		if ((gsize)n < size) {
			buf[n] = '\0';
			return g_steal_pointer(&buf);
		}
		size *= 2;
	}
}

/* moves @target to what the symlink at its leaf points to */
static gboolean
esd_fs_target_follow(EsdFsTarget *target, GError **error)
{
	g_autofree gchar *link = esd_fs_readlinkat(target->dirfd, target->leaf, error);
	g_autofree gchar *dir = NULL;
	gsize len;
	gint fd;

	if (link == NULL)
		return FALSE;
	/* `dir/` names the directory itself */
	len = strlen(link);
	while (len > 1 && link[len - 1] == '/')
		link[--len] = '\0';
	dir = g_path_get_dirname(link);
	fd = openat(target->dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return esd_fs_set_errno(error, errno);
	close(target->dirfd);
	target->dirfd = fd;
	g_free(target->leaf);
	target->leaf = g_path_get_basename(link);
	return TRUE;
}

/**
 * esd_fs_target_resolve:
 * @path: an absolute, normalised path
 * @follow: whether a symlink at @path is followed (to its target, which may
 *   not exist yet) or refused (ELOOP, as O_NOFOLLOW)
 * @target: (out caller-allocates): the result; clear with esd_fs_target_clear()
 * @error: return location for a #GError, or %NULL
 *
 * Resolves where a regular file is to be written, for replacement by rename:
 * the parent must exist, an existing directory fails with EISDIR and any
 * other existing non-file with `path ... is not a file`.
 *
 * Returns: %TRUE on success
 */
gboolean
esd_fs_target_resolve(const gchar *path, gboolean follow, EsdFsTarget *target, GError **error)
{
	memset(target, 0, sizeof(*target));
	target->dirfd = -1;
	if (follow) {
		g_autofree gchar *dir = g_path_get_dirname(path);
		target->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (target->dirfd < 0)
			return esd_fs_set_errno(error, errno);
		target->leaf = g_path_get_basename(path);
	} else {
		const gchar *leaf = NULL;
		target->dirfd = esd_fs_open_parent_nofollow(path, &leaf, error);
		if (target->dirfd < 0)
			return FALSE;
		target->leaf = g_strdup(leaf);
	}
	for (guint hops = 0;; hops++) {
		if (fstatat(target->dirfd, target->leaf, &target->st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				return esd_fs_set_errno(error, errno);
			target->exists = FALSE;
			return TRUE;
		}
		if (!S_ISLNK(target->st.st_mode))
			break;
		if (!follow || hops == ESD_FS_MAX_SYMLINKS)
			return esd_fs_set_errno(error, ELOOP);
		if (!esd_fs_target_follow(target, error))
			return FALSE;
	}
	target->exists = TRUE;
	if (S_ISDIR(target->st.st_mode))
		return esd_fs_set_errno(error, EISDIR);
	if (!S_ISREG(target->st.st_mode))
		return esd_fs_not_a_file(error, path);
	return TRUE;
}
