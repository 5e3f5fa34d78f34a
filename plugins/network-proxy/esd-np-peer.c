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
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
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
 */

#define ESD_NP_PEER_MAX_PROCESSES 4096

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
	guint32 buffer[2048];
	struct nlmsghdr *reply = (struct nlmsghdr *)buffer;
	gssize n;
	gint fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return -1;
	if (sendto(fd, &message, sizeof(message), 0, (struct sockaddr *)&kernel, sizeof(kernel)) !=
	    (gssize)sizeof(message)) {
		close(fd);
		return -1;
	}
	n = recv(fd, buffer, sizeof(buffer), 0);
	close(fd);
	if (n < (gssize)sizeof(*reply) || !NLMSG_OK(reply, (guint)n))
		return -1;
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

static gboolean
esd_np_peer_holds(GPid pid, const gchar *target)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/fd", pid);
	DIR *dir = opendir(path);
	struct dirent *entry;
	gboolean found = FALSE;

	if (dir == NULL)
		return FALSE;
	while (!found && (entry = readdir(dir)) != NULL) {
		gchar link[64];
		gssize n;

		if (entry->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(dir), entry->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = g_str_equal(link, target);
	}
	closedir(dir);
	return found;
}

/* the children of every thread of @pid */
static void
esd_np_peer_add_children(GPid pid, GArray *queue)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/task", pid);
	DIR *dir = opendir(path);
	struct dirent *entry;

	if (dir == NULL)
		return;
	while ((entry = readdir(dir)) != NULL) {
		g_autofree gchar *children = NULL;
		g_autofree gchar *file = NULL;
		g_auto(GStrv) pids = NULL;

		if (entry->d_name[0] == '.')
			continue;
		file = g_strdup_printf("%s/%s/children", path, entry->d_name);
		if (!g_file_get_contents(file, &children, NULL, NULL))
			continue;
		pids = g_strsplit(g_strstrip(children), " ", -1);
		for (guint i = 0; pids[i] != NULL && queue->len < ESD_NP_PEER_MAX_PROCESSES; i++) {
			GPid child = (GPid)g_ascii_strtoll(pids[i], NULL, 10);
			if (child > 0)
				g_array_append_val(queue, child);
		}
	}
	closedir(dir);
}

/* whether a process at or below @root holds the socket @inode */
static gboolean
esd_np_peer_tree_holds(guint64 inode, GPid root)
{
	g_autofree gchar *target = NULL;
	g_autoptr(GArray) queue = NULL;

	if (root <= 0 || inode == 0)
		return FALSE;
	target = g_strdup_printf("socket:[%" G_GUINT64_FORMAT "]", inode);
	queue = g_array_new(FALSE, FALSE, sizeof(GPid));
	g_array_append_val(queue, root);
	/* breadth first: the command itself comes early */
	for (guint i = 0; i < queue->len; i++) {
		GPid pid = g_array_index(queue, GPid, i);
		if (esd_np_peer_holds(pid, target))
			return TRUE;
		esd_np_peer_add_children(pid, queue);
	}
	return FALSE;
}

/**
 * esd_np_peer_in_tree:
 * @peer_port: the client's port on 127.0.0.1
 * @proxy_port: the proxy's port on 127.0.0.1
 * @root: the launch's supervisor
 *
 * Returns: whether a process at or below @root holds the client's socket
 */
gboolean
esd_np_peer_in_tree(guint16 peer_port, guint16 proxy_port, GPid root)
{
	if (root <= 0)
		return FALSE;
	return esd_np_peer_tree_holds(esd_np_peer_find_inode(peer_port, proxy_port), root);
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
	return esd_np_peer_tree_holds(esd_np_peer_find_udp_inode(peer_port), root);
}
