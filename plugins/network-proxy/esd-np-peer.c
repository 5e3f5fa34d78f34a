/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "esd-np-peer.h"

/*
 * Whose connection is it? A loopback TCP client has no peer credentials, so
 * the proxy finds the client's socket by its two ports (one sock_diag
 * netlink query for the exact tuple; /proc/net/tcp, a scan of every socket,
 * where netlink is not there) and
 * looks for that socket among the descriptors of the processes below the
 * launch's supervisor (a child subreaper: orphans of the tree stay below it).
 * Only the tree is searched, not every process of the host; a socket the
 * tree does not hold is another process's.
 *
 * A client makes its connections from one process, mostly, and a new socket
 * takes the descriptor number its last one freed: the holder found last is
 * kept (EsdNpPeerCache) with a pidfd, and its descriptor of that number is
 * looked at first, one readlink(). The pidfd says the process is still the
 * one found below the supervisor (a number is not taken again while its
 * process lives), and a process below the supervisor, a subreaper, stays
 * below it: no walk up the tree is needed then.
 */

#define ESD_NP_PEER_MAX_PROCESSES 4096

/* a sock_diag socket per connection thread, kept: two system calls less per connection */
static void
esd_np_peer_close_diag(gpointer data)
{
	close(GPOINTER_TO_INT(data) - 1);
}

static GPrivate esd_np_peer_diag_fd = G_PRIVATE_INIT(esd_np_peer_close_diag);

static gint
esd_np_peer_diag_socket(void)
{
	gint fd = GPOINTER_TO_INT(g_private_get(&esd_np_peer_diag_fd)) - 1;

	if (fd >= 0)
		return fd;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd >= 0)
		g_private_set(&esd_np_peer_diag_fd, GINT_TO_POINTER(fd + 1));
	return fd;
}

static void
esd_np_peer_drop_diag_socket(void)
{
	/* the notify closes it */
	g_private_replace(&esd_np_peer_diag_fd, NULL);
}

/* sock_diag's answer for the one socket 127.0.0.1:@local → 127.0.0.1:@remote; -1 if unavailable */
static gint64
esd_np_peer_diag_inode(guint16 local, guint16 remote)
{
	struct {
		struct nlmsghdr header;
		struct inet_diag_req_v2 request;
	} message = {
	    .header = {.nlmsg_len = sizeof(message),
		       .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST},
	    .request = {.sdiag_family = AF_INET,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = ~0u,
			.id = {.idiag_sport = htons(local),
			       .idiag_dport = htons(remote),
			       .idiag_src = {htonl(INADDR_LOOPBACK)},
			       .idiag_dst = {htonl(INADDR_LOOPBACK)},
			       .idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	/* an answer for one socket is about 130 bytes; a longer one fails NLMSG_OK below. Small: a
	 * tunnel thread keeps every stack page it touched */
	guint32 buffer[256];
	struct nlmsghdr *reply = (struct nlmsghdr *)buffer;
	gssize n;
	gint fd = esd_np_peer_diag_socket();

	if (fd < 0)
		return -1;
	if (sendto(fd, &message, sizeof(message), 0, (struct sockaddr *)&kernel, sizeof(kernel)) !=
	    (gssize)sizeof(message)) {
		esd_np_peer_drop_diag_socket();
		return -1;
	}
	n = recv(fd, buffer, sizeof(buffer), 0);
	/* one answer per request; a short or odd one leaves the socket in doubt */
	if (n < (gssize)sizeof(*reply) || !NLMSG_OK(reply, (guint)n)) {
		esd_np_peer_drop_diag_socket();
		return -1;
	}
	if (reply->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *err = NLMSG_DATA(reply);
		/* no such socket, or no sock_diag for TCP here */
		return err->error == -ENOENT ? 0 : -1;
	}
	if (reply->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    reply->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
		return -1;
	return ((const struct inet_diag_msg *)NLMSG_DATA(reply))->idiag_inode;
}

/* the inode of the socket 127.0.0.1:@local → 127.0.0.1:@remote, or 0 */
static guint64
esd_np_peer_find_inode(guint16 local, guint16 remote)
{
	gint64 diag = esd_np_peer_diag_inode(local, remote);
	g_autofree gchar *want = g_strdup_printf("0100007F:%04X 0100007F:%04X", local, remote);
	FILE *file = NULL;
	gchar line[512];
	guint64 inode = 0;

	if (diag >= 0)
		return (guint64)diag;
	file = fopen("/proc/net/tcp", "re");
	if (file == NULL)
		return 0;
	while (fgets(line, sizeof(line), file) != NULL) {
		const gchar *p = strchr(line, ':');
		g_auto(GStrv) fields = NULL;

		/* "  N: LOCAL REMOTE st tx:rx tr:when retr uid timeout inode ..." */
		if (p == NULL || strncmp(p + 2, want, strlen(want)) != 0)
			continue;
		fields = g_strsplit_set(p + 2, " ", -1);
		for (guint i = 0, n = 0; fields[i] != NULL; i++) {
			if (fields[i][0] == '\0')
				continue;
			if (n++ == 8) {
				inode = g_ascii_strtoull(fields[i], NULL, 10);
				break;
			}
		}
		break;
	}
	fclose(file);
	return inode;
}

/*
 * whether @pid holds the socket @target; the newest descriptors first, as a
 * client's connection is most often the last one it opened
 */
static gboolean
esd_np_peer_holds(GPid pid, const gchar *target, gint *fd_found)
{
	gchar path[64];
	DIR *dir;
	struct dirent *entry;
	g_autoptr(GArray) fds = g_array_new(FALSE, FALSE, sizeof(gint));
	gboolean found = FALSE;

	g_snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (dir == NULL)
		return FALSE;
	while ((entry = readdir(dir)) != NULL) {
		gint fd;

		if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
			continue;
		fd = (gint)g_ascii_strtoll(entry->d_name, NULL, 10);
		g_array_append_val(fds, fd);
	}
	for (guint i = fds->len; !found && i > 0; i--) {
		gchar name[16];
		gchar link[64];
		gssize n;

		g_snprintf(name, sizeof(name), "%d", g_array_index(fds, gint, i - 1));
		n = readlinkat(dirfd(dir), name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = g_str_equal(link, target);
		if (found && fd_found != NULL)
			*fd_found = g_array_index(fds, gint, i - 1);
	}
	closedir(dir);
	return found;
}

/* the parent of @pid from /proc/PID/stat, 0 if it is gone */
static GPid
esd_np_peer_parent(GPid pid)
{
	gchar path[64];
	gchar stat[1024];
	const gchar *p;
	gssize n;
	gint fd;

	g_snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	/* "PID (COMM) S PPID ...": the name may hold anything, ")" too */
	p = strrchr(stat, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return 0;
	return (GPid)g_ascii_strtoll(p + 4, NULL, 10);
}

/*
 * whether @pid is below @root now: orphans of the tree are reparented to
 * @root, a subreaper, so a process once in the tree stays there until it exits
 */
static gboolean
esd_np_peer_below(GPid pid, GPid root)
{
	for (guint depth = 0; depth < 256 && pid > 1; depth++) {
		pid = esd_np_peer_parent(pid);
		if (pid == root)
			return TRUE;
	}
	return FALSE;
}

/* the children of every thread of @pid */
static void
esd_np_peer_add_children(GPid pid, GArray *queue)
{
	gchar path[64];
	DIR *dir;
	struct dirent *entry;

	g_snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (dir == NULL)
		return;
	while ((entry = readdir(dir)) != NULL) {
		g_autoptr(GByteArray) children = NULL;
		gchar file[128];
		gchar chunk[1024];
		const gchar *p;
		gssize n;
		gint fd;

		if (entry->d_name[0] == '.')
			continue;
		g_snprintf(file, sizeof(file), "%s/%s/children", path, entry->d_name);
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* "PID PID ... " */
		children = g_byte_array_new();
		while ((n = read(fd, chunk, sizeof(chunk))) > 0)
			g_byte_array_append(children, (const guint8 *)chunk, (guint)n);
		close(fd);
		g_byte_array_append(children, (const guint8 *)"", 1);
		for (p = (const gchar *)children->data;
		     *p != '\0' && queue->len < ESD_NP_PEER_MAX_PROCESSES;) {
			gchar *next;
			GPid child = (GPid)g_ascii_strtoll(p, &next, 10);

			if (next == p)
				break;
			if (child > 0)
				g_array_append_val(queue, child);
			p = next;
			while (*p == ' ' || *p == '\n')
				p++;
		}
	}
	closedir(dir);
}

/*
 * whether a process at or below @root holds the socket @inode: @hint, the
 * holder of the last socket found, first (a client makes its connections
 * from one process, mostly), then the whole tree, breadth first; the
 * holder found goes to @holder
 */
static gboolean
esd_np_peer_tree_holds(guint64 inode, GPid root, GPid hint, GPid *holder, gint *fd_found)
{
	gchar target[64];
	g_autoptr(GArray) queue = NULL;
	GPid skip = 0;

	if (root <= 0 || inode == 0)
		return FALSE;
	g_snprintf(target, sizeof(target), "socket:[%" G_GUINT64_FORMAT "]", inode);
	/*
	 * the hint's membership is checked after its descriptors: a process
	 * that held the socket and is below @root afterwards was the same
	 * process throughout, as its number cannot be taken again meanwhile
	 */
	if (hint > 0 && hint != root) {
		if (!esd_np_peer_holds(hint, target, fd_found)) {
			/* read already: the walk below need not read it again */
			skip = hint;
		} else if (esd_np_peer_below(hint, root)) {
			if (holder != NULL)
				*holder = hint;
			return TRUE;
		}
	}
	queue = g_array_new(FALSE, FALSE, sizeof(GPid));
	g_array_append_val(queue, root);
	/* breadth first: the command itself comes early */
	for (guint i = 0; i < queue->len; i++) {
		GPid pid = g_array_index(queue, GPid, i);
		if (pid != skip && esd_np_peer_holds(pid, target, fd_found)) {
			if (holder != NULL)
				*holder = pid;
			return TRUE;
		}
		esd_np_peer_add_children(pid, queue);
	}
	return FALSE;
}

/* whether the process of @pidfd has not exited */
static gboolean
esd_np_peer_alive(gint pidfd)
{
	struct pollfd fds = {.fd = pidfd, .events = POLLIN};
	return poll(&fds, 1, 0) == 0;
}

static gint
esd_np_peer_pidfd_open(GPid pid)
{
#ifdef SYS_pidfd_open
	return (gint)syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

struct _EsdNpPeerCache {
	GMutex lock;
	GPid pid;   /* the holder found last, or 0 */
	gint pidfd; /* its pidfd, or -1 */
	gint fd;    /* the descriptor it held the socket on */
};

EsdNpPeerCache *
esd_np_peer_cache_new(void)
{
	EsdNpPeerCache *self = g_new0(EsdNpPeerCache, 1);

	g_mutex_init(&self->lock);
	self->pidfd = -1;
	return self;
}

void
esd_np_peer_cache_free(EsdNpPeerCache *self)
{
	if (self == NULL)
		return;
	if (self->pidfd >= 0)
		close(self->pidfd);
	g_mutex_clear(&self->lock);
	g_free(self);
}

/* whether the cached holder holds @target on its cached descriptor; else its pid as a hint */
static gboolean
esd_np_peer_cache_holds(EsdNpPeerCache *self, const gchar *target, GPid *hint)
{
	gboolean found = FALSE;

	g_mutex_lock(&self->lock);
	if (self->pidfd >= 0) {
		gchar path[64];
		gchar link[64];
		gssize n;

		g_snprintf(path, sizeof(path), "/proc/%d/fd/%d", self->pid, self->fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			/* alive after the readlink: the process that held it is the one kept */
			found = g_str_equal(link, target) && esd_np_peer_alive(self->pidfd);
		}
		*hint = self->pid;
	}
	g_mutex_unlock(&self->lock);
	return found;
}

/* keeps @pid, found holding a client socket on @fd, if it is below @root */
static void
esd_np_peer_cache_set(EsdNpPeerCache *self, GPid pid, gint fd, GPid root)
{
	gint pidfd;

	g_mutex_lock(&self->lock);
	if (self->pidfd >= 0 && self->pid == pid) {
		self->fd = fd;
		g_mutex_unlock(&self->lock);
		return;
	}
	g_mutex_unlock(&self->lock);
	pidfd = esd_np_peer_pidfd_open(pid);
	if (pidfd < 0)
		return;
	/* below @root after the pidfd was made, and still alive: the pidfd's process is */
	if (pid == root || !esd_np_peer_below(pid, root) || !esd_np_peer_alive(pidfd)) {
		close(pidfd);
		return;
	}
	g_mutex_lock(&self->lock);
	if (self->pidfd >= 0)
		close(self->pidfd);
	self->pid = pid;
	self->pidfd = pidfd;
	self->fd = fd;
	g_mutex_unlock(&self->lock);
}

/**
 * esd_np_peer_in_tree:
 * @peer_port: the client's port on 127.0.0.1
 * @proxy_port: the proxy's port on 127.0.0.1
 * @root: the launch's supervisor
 * @cache: the holder found last, looked at first, and updated
 *
 * Returns: whether a process at or below @root holds the client's socket
 */
gboolean
esd_np_peer_in_tree(guint16 peer_port, guint16 proxy_port, GPid root, EsdNpPeerCache *cache)
{
	guint64 inode;
	gchar target[64];
	GPid hint = 0;
	GPid holder = 0;
	gint fd = -1;

	if (root <= 0)
		return FALSE;
	inode = esd_np_peer_find_inode(peer_port, proxy_port);
	if (inode == 0)
		return FALSE;
	g_snprintf(target, sizeof(target), "socket:[%" G_GUINT64_FORMAT "]", inode);
	if (esd_np_peer_cache_holds(cache, target, &hint))
		return TRUE;
	if (!esd_np_peer_tree_holds(inode, root, hint, &holder, &fd))
		return FALSE;
	if (fd >= 0)
		esd_np_peer_cache_set(cache, holder, fd, root);
	return TRUE;
}

/* the inode of the IPv4 UDP socket bound at 127.0.0.1:@port or *:@port, or 0 */
static guint64
esd_np_peer_find_udp_inode(guint16 port)
{
	g_autofree gchar *loopback = g_strdup_printf("0100007F:%04X ", port);
	g_autofree gchar *any = g_strdup_printf("00000000:%04X ", port);
	FILE *file = fopen("/proc/net/udp", "re");
	gchar line[512];
	guint64 inode = 0;

	if (file == NULL)
		return 0;
	while (inode == 0 && fgets(line, sizeof(line), file) != NULL) {
		const gchar *p = strchr(line, ':');
		g_auto(GStrv) fields = NULL;

		/* "  N: LOCAL REMOTE st tx:rx tr:when retr uid timeout inode ..." */
		if (p == NULL || (strncmp(p + 2, loopback, strlen(loopback)) != 0 &&
				  strncmp(p + 2, any, strlen(any)) != 0))
			continue;
		fields = g_strsplit_set(p + 2, " ", -1);
		for (guint i = 0, n = 0; fields[i] != NULL; i++) {
			if (fields[i][0] == '\0')
				continue;
			if (n++ == 8) {
				inode = g_ascii_strtoull(fields[i], NULL, 10);
				break;
			}
		}
	}
	fclose(file);
	return inode;
}

/**
 * esd_np_peer_udp_in_tree:
 * @peer_port: the port a datagram came from, on 127.0.0.1
 * @root: the launch's supervisor
 *
 * The datagram counterpart of esd_np_peer_in_tree(): a datagram has no
 * connection, so its sender is the socket bound at its source port (one
 * scan of /proc/net/udp; a port is bound by one socket only, unless
 * SO_REUSEPORT, which the first such socket's owner must allow).
 *
 * Returns: whether a process at or below @root holds the sending socket
 */
gboolean
esd_np_peer_udp_in_tree(guint16 peer_port, GPid root)
{
	if (root <= 0)
		return FALSE;
	return esd_np_peer_tree_holds(esd_np_peer_find_udp_inode(peer_port), root, 0, NULL, NULL);
}
