/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "esd-np-listen.h"

/*
 * The proxy's listeners, served by the threads that serve their
 * connections: a thread waiting on a listener accepts a connection and
 * serves it itself, with no hand-off from the main context to a pool thread
 * (two context switches less, the largest cost of a small request on a
 * small machine). When the last thread waiting on a listener takes a
 * connection, it first queues another one to wait in its place; a thread
 * done with its connection waits on the listener again unless two others
 * already do. So one thread loops accept, serve, accept for requests one
 * after the other, and a long tunnel never holds up the next connection.
 * The pool's limit bounds the connections served at once; beyond it
 * connections wait in the backlog, as with GThreadedSocketService.
 *
 * Stopping shuts the listening sockets down: their ports refuse at once and
 * the threads waiting in accept() return; the descriptors are closed with
 * the last reference, when no thread can look at them any more.
 */

#define ESD_NP_LISTEN_MAX_IDLE 2 /* threads waiting on one listener */

typedef struct {
	gint fd;
	EsdNpListenKind kind;
	gint idle; /* atomic: threads waiting on it */
} EsdNpListenSocket;

struct _EsdNpListen {
	gint refs; /* atomic */
	GThreadPool *pool;
	gint stopped; /* atomic */
	GMutex lock;
	GPtrArray *sockets; /* of EsdNpListenSocket, under lock */
	EsdNpListenServeFunc serve;
	gpointer user_data;
	GBoxedCopyFunc ref_func; /* each queued thread holds @user_data */
	GDestroyNotify unref_func;
};

static void
esd_np_listen_socket_free(EsdNpListenSocket *sock)
{
	close(sock->fd);
	g_free(sock);
}

/*
 * the next connection of @sock, or -1 once stopped. A blocking accept():
 * the kernel wakes one of the threads waiting in it per connection (a poll()
 * would wake them all), and shutdown() wakes them all at the end
 */
static gint
esd_np_listen_accept(EsdNpListen *self, EsdNpListenSocket *sock)
{
	while (!g_atomic_int_get(&self->stopped)) {
		/* non-blocking already: each wait of a connection thread polls, with a timeout */
		gint fd = accept4(sock->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd >= 0)
			return fd;
		switch (errno) {
		case EINTR:
		case ECONNABORTED:
		case EPROTO:
			/* the client went first */
			break;
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			/* the backlog keeps it; a full descriptor table may drain */
			g_usleep(100 * 1000);
			break;
		default:
			/* EINVAL: shut down */
			return -1;
		}
	}
	return -1;
}

static void
esd_np_listen_queue(EsdNpListen *self, EsdNpListenSocket *sock)
{
	esd_np_listen_ref(self);
	if (self->ref_func != NULL)
		self->ref_func(self->user_data);
	/* not exclusive: the push itself cannot fail */
	g_thread_pool_push(self->pool, sock, NULL);
}

static void
esd_np_listen_serve(EsdNpListen *self, EsdNpListenSocket *sock, gint fd)
{
	self->serve(fd, sock->kind, self->user_data);
	close(fd);
}

static void
esd_np_listen_run(gpointer data, gpointer user_data)
{
	EsdNpListenSocket *sock = data;
	EsdNpListen *self = user_data;

	while (TRUE) {
		gint fd;

		g_atomic_int_inc(&sock->idle);
		fd = esd_np_listen_accept(self, sock);
		/* the last one waiting: another waits in its place while this one serves */
		if (g_atomic_int_dec_and_test(&sock->idle) && fd >= 0)
			esd_np_listen_queue(self, sock);
		if (fd < 0)
			break;
		esd_np_listen_serve(self, sock, fd);
		if (g_atomic_int_get(&sock->idle) >= ESD_NP_LISTEN_MAX_IDLE)
			break;
	}
	if (self->unref_func != NULL)
		self->unref_func(self->user_data);
	esd_np_listen_unref(self);
}

/**
 * esd_np_listen_new:
 * @max_connections: connections served at once; more wait in the backlog
 * @serve: called in a pool thread for each connection, whose descriptor is closed after
 * @user_data: for @serve, held by each pool thread with @ref_func
 * @ref_func: (nullable): takes a reference on @user_data
 * @unref_func: (nullable): drops it
 *
 * Returns: (transfer full): a set of listeners, none yet
 */
EsdNpListen *
esd_np_listen_new(guint max_connections,
		  EsdNpListenServeFunc serve,
		  gpointer user_data,
		  GBoxedCopyFunc ref_func,
		  GDestroyNotify unref_func)
{
	EsdNpListen *self = g_new0(EsdNpListen, 1);

	self->refs = 1;
	g_mutex_init(&self->lock);
	self->sockets = g_ptr_array_new_with_free_func((GDestroyNotify)esd_np_listen_socket_free);
	self->serve = serve;
	self->user_data = user_data;
	self->ref_func = ref_func;
	self->unref_func = unref_func;
	/* and the threads waiting on the listeners, a few per listener */
	self->pool = g_thread_pool_new(esd_np_listen_run,
				       self,
				       (gint)max_connections + 4 * ESD_NP_LISTEN_MAX_IDLE,
				       FALSE,
				       NULL);
	return self;
}

EsdNpListen *
esd_np_listen_ref(EsdNpListen *self)
{
	g_atomic_int_inc(&self->refs);
	return self;
}

void
esd_np_listen_unref(EsdNpListen *self)
{
	if (!g_atomic_int_dec_and_test(&self->refs))
		return;
	/* the last thread may be the one dropping this: the pool frees itself after */
	g_thread_pool_free(self->pool, FALSE, FALSE);
	g_ptr_array_unref(self->sockets);
	g_mutex_clear(&self->lock);
	g_free(self);
}

/**
 * esd_np_listen_add:
 * @self: the listeners
 * @fd: (transfer full): a listening stream socket
 * @kind: what its connections are
 *
 * Serves @fd's connections from now on; once stopped, closes it.
 */
void
esd_np_listen_add(EsdNpListen *self, gint fd, EsdNpListenKind kind)
{
	EsdNpListenSocket *sock = g_new0(EsdNpListenSocket, 1);
	gint flags = fcntl(fd, F_GETFL);

	/* the threads wait in accept() */
	if (flags >= 0 && (flags & O_NONBLOCK) != 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	sock->fd = fd;
	sock->kind = kind;
	g_mutex_lock(&self->lock);
	g_ptr_array_add(self->sockets, sock);
	if (g_atomic_int_get(&self->stopped))
		(void)shutdown(fd, SHUT_RDWR);
	else
		esd_np_listen_queue(self, sock);
	g_mutex_unlock(&self->lock);
}

/**
 * esd_np_listen_stop:
 * @self: the listeners
 *
 * Refuses new connections at once and ends the waiting threads; the
 * connections being served go on until their own end. Idempotent.
 */
void
esd_np_listen_stop(EsdNpListen *self)
{
	g_mutex_lock(&self->lock);
	if (!g_atomic_int_get(&self->stopped)) {
		g_atomic_int_set(&self->stopped, TRUE);
		for (guint i = 0; i < self->sockets->len; i++) {
			EsdNpListenSocket *sock = g_ptr_array_index(self->sockets, i);
			(void)shutdown(sock->fd, SHUT_RDWR);
		}
	}
	g_mutex_unlock(&self->lock);
}
