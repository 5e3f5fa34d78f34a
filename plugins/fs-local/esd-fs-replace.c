/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "esd-fs-replace.h"

/*
 * Nothing is lost: new content is first staged in a temporary file, and the
 * target changes only once all of it is there, so an invalid request, a
 * full disk or a dropped connection leaves the old content.
 *
 * The staging file is preferably an anonymous O_TMPFILE, which vanishes by
 * itself if the daemon dies, otherwise a hidden name created with O_EXCL.
 * Committing normally flushes it and renames it over the target in one
 * step, so a reader sees the old content or the new, never a mix; the new
 * file keeps the old one's mode (and owner where we may).
 *
 * Two cases are written in place instead, as open(O_TRUNC) would: a target
 * with other hard links, which must all see the new content, and a target
 * in a directory we may not change (no temporary file there). Its content
 * is then staged anonymously (in the temporary directory if need be),
 * space is reserved, and only then is it copied over the file.
 *
 * An existing target is opened for writing first in every case, so that a
 * read-only file is refused (EACCES) as with a plain open, not replaced
 * behind its owner's back.
 */

struct _EsdFsReplace {
	gint fd; /* the staged content, read-write */
	gint dirfd;
	gchar *leaf;
	gchar *tmpname; /* a named staging file in dirfd, until committed */
	gint target_fd; /* the existing target, for writing in place */
	gboolean in_place;
	gboolean target_existed;
	gboolean committed;
	mode_t mode;
	gboolean set_mode;
};

/* whether O_TMPFILE files can be given a name: needs /proc or CAP_DAC_READ_SEARCH */
static gboolean
esd_fs_replace_can_link_tmpfile(void)
{
	static gsize once = 0;
	static gboolean ok = FALSE;

	if (g_once_init_enter(&once)) {
		ok = g_file_test("/proc/self/fd", G_FILE_TEST_IS_DIR);
		g_once_init_leave(&once, 1);
	}
	return ok;
}

static gchar *
esd_fs_replace_tmpname(const gchar *leaf)
{
	return g_strdup_printf(".%.64s.%08x.esd-tmp", leaf, g_random_int());
}

/*
 * A staging file in @dirfd: anonymous where the file system can, else
 * named (*tmpname set), or named and unlinked at once when @anonymous.
 */
static gint
esd_fs_replace_stage(gint dirfd,
		     const gchar *leaf,
		     mode_t mode,
		     gboolean anonymous,
		     gchar **tmpname)
{
	gint fd = -1;

	if (anonymous || esd_fs_replace_can_link_tmpfile()) {
		fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
		if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
			return fd;
	}
	for (guint tries = 0; tries < 100; tries++) {
		g_autofree gchar *name = esd_fs_replace_tmpname(leaf);
		fd = openat(dirfd, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			if (anonymous)
				unlinkat(dirfd, name, 0);
			else
				*tmpname = g_steal_pointer(&name);
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* the content goes over the existing file: stage it anonymously, wherever we may */
static gboolean
esd_fs_replace_stage_in_place(EsdFsReplace *self, gint errnum, GError **error)
{
	esd_autofd gint tmpdir = -1;

	self->in_place = TRUE;
	if (errnum == 0) {
		self->fd = esd_fs_replace_stage(self->dirfd, self->leaf, 0600, TRUE, NULL);
		if (self->fd >= 0)
			return TRUE;
		errnum = errno;
	}
	if (errnum != EACCES && errnum != EPERM && errnum != EROFS)
		return esd_fs_set_errno(error, errnum);
	tmpdir = open(g_get_tmp_dir(), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (tmpdir >= 0)
		self->fd = esd_fs_replace_stage(tmpdir, self->leaf, 0600, TRUE, NULL);
	if (self->fd < 0)
		return esd_fs_set_errno(error, errnum);
	return TRUE;
}

/**
 * esd_fs_replace_new:
 * @target: where the file goes; its directory descriptor is taken over
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): a replacement whose descriptor is open for
 *   writing (and reading)
 */
EsdFsReplace *
esd_fs_replace_new(EsdFsTarget *target, GError **error)
{
	g_autoptr(EsdFsReplace) self = g_new0(EsdFsReplace, 1);
	mode_t mode = target->exists ? (target->st.st_mode & 07777) : 0666;

	self->fd = -1;
	self->target_fd = -1;
	self->dirfd = esd_fs_steal_fd(&target->dirfd);
	self->leaf = g_strdup(target->leaf);
	self->target_existed = target->exists;
	if (target->exists) {
		self->target_fd = openat(self->dirfd,
					 self->leaf,
					 O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (self->target_fd < 0) {
			esd_fs_set_errno(error, errno);
			return NULL;
		}
		if (target->st.st_nlink > 1) {
			if (!esd_fs_replace_stage_in_place(self, 0, error))
				return NULL;
			return g_steal_pointer(&self);
		}
	}
	self->fd = esd_fs_replace_stage(self->dirfd, self->leaf, mode, FALSE, &self->tmpname);
	if (self->fd < 0) {
		if (self->target_fd >= 0) {
			if (!esd_fs_replace_stage_in_place(self, errno, error))
				return NULL;
			return g_steal_pointer(&self);
		}
		esd_fs_set_errno(error, errno);
		return NULL;
	}
	/* the rename replaces the file: the check for write access was all it was for */
	esd_fs_close_fdp(&self->target_fd);
	if (target->exists) {
		/* the umask applied at creation must not narrow the old mode */
		if (fchmod(self->fd, mode) != 0) {
			esd_fs_set_errno(error, errno);
			return NULL;
		}
		if ((target->st.st_uid != geteuid() || target->st.st_gid != getegid()) &&
		    fchown(self->fd, target->st.st_uid, target->st.st_gid) != 0)
			g_debug("cannot keep the owner of %s: %s", self->leaf, g_strerror(errno));
	}
	return g_steal_pointer(&self);
}

/**
 * esd_fs_replace_new_from_parts:
 * @parts: a replacement another process prepared; its descriptors are taken
 *   over (and set to -1), the strings copied
 *
 * Returns: (transfer full): the replacement, committed and freed as if it
 *   had been made here
 */
EsdFsReplace *
esd_fs_replace_new_from_parts(EsdFsReplaceParts *parts)
{
	EsdFsReplace *self = g_new0(EsdFsReplace, 1);

	self->fd = esd_fs_steal_fd(&parts->fd);
	self->dirfd = esd_fs_steal_fd(&parts->dirfd);
	self->target_fd = esd_fs_steal_fd(&parts->target_fd);
	self->leaf = g_strdup(parts->leaf);
	self->tmpname = g_strdup(parts->tmpname);
	self->in_place = parts->in_place;
	self->target_existed = parts->target_existed;
	return self;
}

/**
 * esd_fs_replace_get_parts:
 * @self: a replacement that was neither committed nor given a mode
 * @parts: (out caller-allocates): its descriptors and names, borrowed
 *
 * What another process needs to finish @self: see
 * esd_fs_replace_new_from_parts() and esd_fs_replace_disown().
 */
void
esd_fs_replace_get_parts(EsdFsReplace *self, EsdFsReplaceParts *parts)
{
	g_return_if_fail(!self->committed && !self->set_mode);
	parts->fd = self->fd;
	parts->dirfd = self->dirfd;
	parts->target_fd = self->target_fd;
	parts->leaf = self->leaf;
	parts->tmpname = self->tmpname;
	parts->in_place = self->in_place;
	parts->target_existed = self->target_existed;
}

/* another process finishes the replacement: freeing it must leave its staging file */
void
esd_fs_replace_disown(EsdFsReplace *self)
{
	g_clear_pointer(&self->tmpname, g_free);
	self->committed = TRUE;
}

gint
esd_fs_replace_get_fd(EsdFsReplace *self)
{
	return self->fd;
}

/* the permission bits the result gets, as std::fs::copy gives the source's */
gboolean
esd_fs_replace_set_mode(EsdFsReplace *self, mode_t mode, GError **error)
{
	if (self->in_place) {
		self->mode = mode;
		self->set_mode = TRUE;
		return TRUE;
	}
	if (fchmod(self->fd, mode) != 0)
		return esd_fs_set_errno(error, errno);
	return TRUE;
}

/* gives the anonymous file the name @name in the target directory */
static gint
esd_fs_replace_link(EsdFsReplace *self, const gchar *name)
{
	g_autofree gchar *proc = NULL;

	if (linkat(self->fd, "", self->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM && errno != EINVAL)
		return -1;
	proc = g_strdup_printf("/proc/self/fd/%d", self->fd);
	return linkat(AT_FDCWD, proc, self->dirfd, name, AT_SYMLINK_FOLLOW);
}

static gboolean
esd_fs_replace_name_tmpfile(EsdFsReplace *self, GError **error)
{
	for (guint tries = 0; tries < 100; tries++) {
		g_autofree gchar *name = esd_fs_replace_tmpname(self->leaf);
		if (esd_fs_replace_link(self, name) == 0) {
			self->tmpname = g_steal_pointer(&name);
			return TRUE;
		}
		if (errno != EEXIST)
			break;
	}
	return esd_fs_set_errno(error, errno);
}

/* copies the staged content over the target: reserve, overwrite, cut, flush */
static gboolean
esd_fs_replace_write_back(EsdFsReplace *self, GError **error)
{
	g_autofree guint8 *buf = NULL;
	struct stat st;
	guint64 offset = 0;

	if (fstat(self->fd, &st) != 0)
		return esd_fs_set_errno(error, errno);
	/* a full disk shows here, before the old content is touched */
	if (st.st_size > 0 && fallocate(self->target_fd, FALLOC_FL_KEEP_SIZE, 0, st.st_size) != 0 &&
	    errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
		return esd_fs_set_errno(error, errno);
	while (offset < (guint64)st.st_size) {
		gsize got = 0;
		if (buf == NULL)
			buf = g_malloc(1024 * 1024);
		if (!esd_fs_read_all(self->fd, buf, 1024 * 1024, offset, &got, error))
			return FALSE;
		if (got == 0)
			break;
		if (!esd_fs_write_all(self->target_fd, buf, got, offset, error))
			return FALSE;
		offset += got;
	}
	if (ftruncate(self->target_fd, (off_t)offset) != 0)
		return esd_fs_set_errno(error, errno);
	if (self->set_mode && fchmod(self->target_fd, self->mode) != 0)
		return esd_fs_set_errno(error, errno);
	return TRUE;
}

/**
 * esd_fs_replace_commit:
 * @self: a replacement
 * @sync: flush the data to disk first
 * @error: return location for a #GError, or %NULL
 *
 * Puts the new content in place of the target. Call once.
 *
 * Returns: %TRUE on success; on failure the target is unchanged, except
 *   for an I/O error while a file is written in place
 */
gboolean
esd_fs_replace_commit(EsdFsReplace *self, gboolean sync, GError **error)
{
	g_return_val_if_fail(!self->committed, FALSE);

	self->committed = TRUE;
	if (self->in_place)
		return esd_fs_replace_write_back(self, error);
	if (sync && fdatasync(self->fd) != 0)
		return esd_fs_set_errno(error, errno);
	if (self->tmpname == NULL) {
		/* a new file can simply be linked into place, atomically too */
		if (!self->target_existed && esd_fs_replace_link(self, self->leaf) == 0)
			return TRUE;
		if (!self->target_existed && errno != EEXIST)
			return esd_fs_set_errno(error, errno);
		if (!esd_fs_replace_name_tmpfile(self, error))
			return FALSE;
	}
	if (renameat(self->dirfd, self->tmpname, self->dirfd, self->leaf) != 0) {
		gint saved = errno;
		unlinkat(self->dirfd, self->tmpname, 0);
		g_clear_pointer(&self->tmpname, g_free);
		return esd_fs_set_errno(error, saved);
	}
	g_clear_pointer(&self->tmpname, g_free);
	return TRUE;
}

/* drops the staged content of a replacement not committed: the target stays as it was */
void
esd_fs_replace_discard(EsdFsReplace *self)
{
	g_return_if_fail(!self->committed);
	self->committed = TRUE;
	if (self->tmpname != NULL)
		unlinkat(self->dirfd, self->tmpname, 0);
	g_clear_pointer(&self->tmpname, g_free);
	esd_fs_close_fdp(&self->fd);
	esd_fs_close_fdp(&self->target_fd);
}

/* closes the replacement; a staging file never renamed into place is removed */
void
esd_fs_replace_free(EsdFsReplace *self)
{
	if (self->tmpname != NULL)
		unlinkat(self->dirfd, self->tmpname, 0);
	esd_fs_close_fdp(&self->fd);
	esd_fs_close_fdp(&self->target_fd);
	esd_fs_close_fdp(&self->dirfd);
	g_free(self->tmpname);
	g_free(self->leaf);
	g_free(self);
}
