/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "esd-fs-handoff.h"

/*
 * A file handle opened by the sandboxed helper goes back to the daemon as
 * its descriptors (SCM_RIGHTS) over a SOCK_SEQPACKET socketpair, in one
 * message: a mode byte, a flags byte, then the target's name and the name
 * of a staging file, each NUL-terminated. The descriptors keep what the
 * sandbox gave them: the mount they were opened on, read-only binds
 * included, so a replacement put in place later, relative to its directory
 * descriptor, is refused as it would be inside the sandbox. The daemon
 * trusts nothing of the message: every descriptor is checked for its type
 * and access mode, and the names for being one plain component.
 */

#define ESD_FS_HANDOFF_MAX_FDS	 3
#define ESD_FS_HANDOFF_MAX_BYTES 1024

enum {
	ESD_FS_HANDOFF_IN_PLACE = 1 << 0,
	ESD_FS_HANDOFF_TARGET_EXISTED = 1 << 1,
	ESD_FS_HANDOFF_TARGET_FD = 1 << 2,
	ESD_FS_HANDOFF_TMPNAME = 1 << 3,
	ESD_FS_HANDOFF_FLAGS_ALL = (1 << 4) - 1,
};

static gboolean
esd_fs_handoff_fail(GError **error, const gchar *what)
{
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "the sandboxed file system helper handed over no usable file handle: %s",
		    what);
	return FALSE;
}

static gboolean
esd_fs_handoff_sendmsg(gint socket_fd, GString *data, const gint *fds, guint n_fds, GError **error)
{
	union {
		struct cmsghdr align;
		gchar buf[CMSG_SPACE(sizeof(gint) * ESD_FS_HANDOFF_MAX_FDS)];
	} control;
	struct iovec iov = {data->str, data->len};
	struct msghdr msg = {0};
	struct cmsghdr *cmsg;

	memset(&control, 0, sizeof(control));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = CMSG_SPACE(sizeof(gint) * n_fds);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(gint) * n_fds);
	memcpy(CMSG_DATA(cmsg), fds, sizeof(gint) * n_fds);
	while (sendmsg(socket_fd, &msg, MSG_NOSIGNAL) < 0) {
		if (errno != EINTR)
			return esd_fs_set_errno(error, errno);
	}
	return TRUE;
}

/**
 * esd_fs_handoff_send:
 * @socket_fd: the helper's end of the socketpair
 * @handle: a handle just opened; a replacement is disowned once sent, so
 *   that freeing it here leaves its staging file to the daemon
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE once the message is queued on the socket
 */
gboolean
esd_fs_handoff_send(gint socket_fd, EsdFsHandle *handle, GError **error)
{
	g_autoptr(GString) data = g_string_new(NULL);
	EsdFsReplace *replace = esd_fs_handle_get_replace(handle);
	EsdFsReplaceParts parts = {0};
	gint fds[ESD_FS_HANDOFF_MAX_FDS];
	guint n_fds = 0;
	guint8 flags = 0;

	if (replace == NULL) {
		fds[n_fds++] = esd_fs_handle_get_fd(handle);
		g_string_append_c(data, 'r');
		g_string_append_c(data, 0);
		return esd_fs_handoff_sendmsg(socket_fd, data, fds, n_fds, error);
	}
	esd_fs_replace_get_parts(replace, &parts);
	fds[n_fds++] = parts.fd;
	fds[n_fds++] = parts.dirfd;
	if (parts.target_fd >= 0) {
		fds[n_fds++] = parts.target_fd;
		flags |= ESD_FS_HANDOFF_TARGET_FD;
	}
	if (parts.in_place)
		flags |= ESD_FS_HANDOFF_IN_PLACE;
	if (parts.target_existed)
		flags |= ESD_FS_HANDOFF_TARGET_EXISTED;
	if (parts.tmpname != NULL)
		flags |= ESD_FS_HANDOFF_TMPNAME;
	g_string_append_c(data, 'w');
	g_string_append_c(data, (gchar)flags);
	g_string_append_len(data, parts.leaf, (gssize)strlen(parts.leaf) + 1);
	if (parts.tmpname != NULL)
		g_string_append_len(data, parts.tmpname, (gssize)strlen(parts.tmpname) + 1);
	if (data->len > ESD_FS_HANDOFF_MAX_BYTES)
		return esd_fs_set_errno(error, ENAMETOOLONG);
	if (!esd_fs_handoff_sendmsg(socket_fd, data, fds, n_fds, error))
		return FALSE;
	esd_fs_replace_disown(replace);
	return TRUE;
}

/* the descriptors a message carried; closed unless stolen */
typedef struct {
	gint fds[ESD_FS_HANDOFF_MAX_FDS];
	guint n_fds;
} EsdFsHandoffFds;

static void
esd_fs_handoff_fds_clear(EsdFsHandoffFds *received)
{
	for (guint i = 0; i < received->n_fds; i++)
		esd_fs_close_fdp(&received->fds[i]);
	received->n_fds = 0;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdFsHandoffFds, esd_fs_handoff_fds_clear)

/* every descriptor of every SCM_RIGHTS message; FALSE when there are too many */
static gboolean
esd_fs_handoff_collect(struct msghdr *msg, EsdFsHandoffFds *received)
{
	gboolean ok = TRUE;

	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(msg); cmsg != NULL;
	     cmsg = CMSG_NXTHDR(msg, cmsg)) {
		guint n;
		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(gint);
		for (guint i = 0; i < n; i++) {
			gint fd;
			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(gint), sizeof(gint));
			if (received->n_fds < ESD_FS_HANDOFF_MAX_FDS) {
				received->fds[received->n_fds++] = fd;
			} else {
				close(fd);
				ok = FALSE;
			}
		}
	}
	return ok;
}

/* a regular file open for reading (@write FALSE) or writing */
static gboolean
esd_fs_handoff_check_file(gint fd, gboolean write)
{
	struct stat st;
	gint flags = fcntl(fd, F_GETFL);
	gint mode = flags & O_ACCMODE;

	if (flags < 0 || (flags & O_PATH) != 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return FALSE;
	if (write)
		return mode == O_WRONLY || mode == O_RDWR;
	return mode == O_RDONLY || mode == O_RDWR;
}

static gboolean
esd_fs_handoff_check_dir(gint fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* one plain component */
static gboolean
esd_fs_handoff_check_name(const gchar *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL && g_strcmp0(name, ".") != 0 &&
	       g_strcmp0(name, "..") != 0 && strlen(name) <= 255;
}

/* the next NUL-terminated string of @data at *offset */
static const gchar *
esd_fs_handoff_next_string(const gchar *data, gsize len, gsize *offset)
{
	const gchar *start = data + *offset;
	const gchar *nul;

	if (*offset >= len)
		return NULL;
	nul = memchr(start, '\0', len - *offset);
	if (nul == NULL)
		return NULL;
	*offset += (gsize)(nul - start) + 1;
	return start;
}

static EsdFsHandle *
esd_fs_handoff_import_replace(const gchar *data,
			      gsize len,
			      EsdFsHandoffFds *received,
			      GError **error)
{
	guint8 flags = (guint8)data[1];
	gboolean has_target = (flags & ESD_FS_HANDOFF_TARGET_FD) != 0;
	EsdFsReplaceParts parts = {.fd = -1, .dirfd = -1, .target_fd = -1};
	gsize offset = 2;

	if ((flags & ~ESD_FS_HANDOFF_FLAGS_ALL) != 0) {
		esd_fs_handoff_fail(error, "unknown flags");
		return NULL;
	}
	parts.leaf = esd_fs_handoff_next_string(data, len, &offset);
	if ((flags & ESD_FS_HANDOFF_TMPNAME) != 0)
		parts.tmpname = esd_fs_handoff_next_string(data, len, &offset);
	if (parts.leaf == NULL || !esd_fs_handoff_check_name(parts.leaf) ||
	    ((flags & ESD_FS_HANDOFF_TMPNAME) != 0 &&
	     (parts.tmpname == NULL || !esd_fs_handoff_check_name(parts.tmpname))) ||
	    offset != len) {
		esd_fs_handoff_fail(error, "bad names");
		return NULL;
	}
	if (received->n_fds != (has_target ? 3u : 2u) ||
	    !esd_fs_handoff_check_file(received->fds[0], TRUE) ||
	    !esd_fs_handoff_check_dir(received->fds[1]) ||
	    (has_target && !esd_fs_handoff_check_file(received->fds[2], TRUE))) {
		esd_fs_handoff_fail(error, "bad descriptors");
		return NULL;
	}
	parts.fd = esd_fs_steal_fd(&received->fds[0]);
	parts.dirfd = esd_fs_steal_fd(&received->fds[1]);
	if (has_target)
		parts.target_fd = esd_fs_steal_fd(&received->fds[2]);
	parts.in_place = (flags & ESD_FS_HANDOFF_IN_PLACE) != 0;
	parts.target_existed = (flags & ESD_FS_HANDOFF_TARGET_EXISTED) != 0;
	return esd_fs_handle_new_replace(esd_fs_replace_new_from_parts(&parts));
}

/**
 * esd_fs_handoff_receive:
 * @socket_fd: the daemon's end of the socketpair, after the helper exited
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full): the handle the helper handed over, or %NULL
 *   with an internal @error if there is none or it is not what was asked
 */
EsdFsHandle *
esd_fs_handoff_receive(gint socket_fd, GError **error)
{
	g_auto(EsdFsHandoffFds) received = {{-1, -1, -1}, 0};
	union {
		struct cmsghdr align;
		gchar buf[CMSG_SPACE(sizeof(gint) * ESD_FS_HANDOFF_MAX_FDS)];
	} control;
	gchar data[ESD_FS_HANDOFF_MAX_BYTES];
	struct iovec iov = {data, sizeof(data)};
	struct msghdr msg = {0};
	gssize len;

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	do
		len = recvmsg(socket_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (len < 0 && errno == EINTR);
	if (len < 0) {
		g_autofree gchar *what = g_strdup_printf("recvmsg: %s", g_strerror(errno));
		esd_fs_handoff_fail(error, what);
		return NULL;
	}
	if (!esd_fs_handoff_collect(&msg, &received) ||
	    (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || len < 2) {
		esd_fs_handoff_fail(error, len == 0 ? "nothing was sent" : "a malformed message");
		return NULL;
	}
	if (data[0] == 'w')
		return esd_fs_handoff_import_replace(data, (gsize)len, &received, error);
	if (data[0] != 'r' || data[1] != 0 || len != 2 || received.n_fds != 1 ||
	    !esd_fs_handoff_check_file(received.fds[0], FALSE)) {
		esd_fs_handoff_fail(error, "a malformed read handle");
		return NULL;
	}
	return esd_fs_handle_new_read(esd_fs_steal_fd(&received.fds[0]));
}
