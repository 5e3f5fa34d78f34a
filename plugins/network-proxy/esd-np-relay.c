/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "esd-np-relay.h"

/*
 * Both directions of a tunnel on one thread: bytes move socket → pipe →
 * socket with splice(2), never through user space; where the kernel cannot
 * splice a descriptor the direction falls back to read/write through a
 * buffer. A direction that reaches end of file half-closes its
 * destination; the relay ends when both are done, on an error of either
 * side, or when @cancel_fd becomes readable.
 *
 * A thread keeps its two pipes for its next connection when both were left
 * empty: a small request would otherwise spend more system calls making
 * and closing them than moving its bytes.
 *
 * A pipe starts at the kernel's default size and grows to
 * ESD_NP_RELAY_PIPE_BULK once its direction has moved
 * ESD_NP_RELAY_BULK_AFTER bytes: a bulk transfer then takes fewer, larger
 * splices (about half the CPU per MB), while the many small and idle
 * connections keep small pipes. The size of every pipe counts against the
 * user's pipe budget (pipe-user-pages-soft), which the user's own programs
 * share, so a grown pipe is never kept for another connection.
 */

#define ESD_NP_RELAY_CHUNK	(256 * 1024)  /* the copying fallback's buffer */
#define ESD_NP_RELAY_PIPE_BULK	(1024 * 1024) /* a bulk direction's pipe, best effort */
#define ESD_NP_RELAY_BULK_AFTER (1024 * 1024)

typedef struct {
	gint src;
	gint dst;
	gint pipe[2];
	gsize pending; /* bytes in the pipe or the buffer */
	gsize offset;  /* buffer only */
	guint8 *buffer;
	guint64 moved;	/* into the pipe */
	guint64 limit;	/* bytes still to take from the source; G_MAXUINT64: all of them */
	gboolean grown; /* the pipe's size was set */
	gboolean eof;
	gboolean done;
	gboolean want_in;
	gboolean want_out;
} EsdNpDirection;

static gboolean
esd_np_relay_would_block(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK;
}

/* FALSE on an error that ends the tunnel */
static gboolean
esd_np_relay_pump_buffer(EsdNpDirection *d)
{
	while (TRUE) {
		gssize n;

		if (!d->eof && d->pending == 0 && d->limit == 0)
			d->eof = TRUE;
		if (!d->eof && d->pending == 0) {
			n = read(d->src,
				 d->buffer,
				 (gsize)MIN((guint64)ESD_NP_RELAY_CHUNK, d->limit));
			if (n > 0) {
				d->pending = (gsize)n;
				d->offset = 0;
				if (d->limit != G_MAXUINT64)
					d->limit -= (guint64)n;
			} else if (n == 0) {
				d->eof = TRUE;
			} else if (esd_np_relay_would_block()) {
				d->want_in = TRUE;
			} else if (errno != EINTR) {
				return FALSE;
			}
		}
		if (d->pending == 0)
			return TRUE;
		n = write(d->dst, d->buffer + d->offset, d->pending);
		if (n > 0) {
			d->offset += (gsize)n;
			d->pending -= (gsize)n;
			continue;
		}
		if (n < 0 && esd_np_relay_would_block()) {
			d->want_out = TRUE;
			return TRUE;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return FALSE;
	}
}

static gboolean
esd_np_relay_pump(EsdNpDirection *d)
{
	d->want_in = FALSE;
	d->want_out = FALSE;
	if (d->buffer != NULL)
		return esd_np_relay_pump_buffer(d);
	while (TRUE) {
		gboolean moved = FALSE;
		gssize n;

		if (!d->eof && d->limit == 0)
			d->eof = TRUE;
		if (!d->eof && d->pending < ESD_NP_RELAY_PIPE_BULK) {
			/* the kernel moves what the pipe has room for */
			n = splice(
			    d->src,
			    NULL,
			    d->pipe[1],
			    NULL,
			    (gsize)MIN((guint64)(ESD_NP_RELAY_PIPE_BULK - d->pending), d->limit),
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->pending += (gsize)n;
				d->moved += (guint64)n;
				if (d->limit != G_MAXUINT64)
					d->limit -= (guint64)n;
				moved = TRUE;
				if (!d->grown && d->moved >= ESD_NP_RELAY_BULK_AFTER) {
					d->grown = TRUE;
					(void)fcntl(d->pipe[1],
						    F_SETPIPE_SZ,
						    ESD_NP_RELAY_PIPE_BULK);
				}
			} else if (n == 0) {
				d->eof = TRUE;
			} else if (esd_np_relay_would_block()) {
				/*
				 * with bytes in the pipe this may be the pipe that is full
				 * (it counts slots, not bytes): waiting for the source to be
				 * readable would spin; the destination's POLLOUT comes first
				 */
				d->want_in = d->pending == 0;
			} else if (d->pending == 0 && (errno == EINVAL || errno == ENOSYS)) {
				/* not spliceable: fall back to copying */
				d->buffer = g_malloc(ESD_NP_RELAY_CHUNK);
				return esd_np_relay_pump_buffer(d);
			} else if (errno != EINTR) {
				return FALSE;
			}
		}
		if (d->pending > 0) {
			n = splice(d->pipe[0],
				   NULL,
				   d->dst,
				   NULL,
				   d->pending,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->pending -= (gsize)n;
				moved = TRUE;
			} else if (n < 0 && esd_np_relay_would_block()) {
				d->want_out = TRUE;
			} else if (n < 0 && errno != EINTR) {
				return FALSE;
			}
		}
		if (!moved)
			return TRUE;
	}
}

/* the pipes of the thread's last relay, both empty: read end, write end, read end, write end;
 * -1 for one a transfer took */
static void
esd_np_relay_close_pipes(gpointer data)
{
	gint *fds = data;

	for (guint i = 0; i < 4; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	g_free(fds);
}

static GPrivate esd_np_relay_pipes = G_PRIVATE_INIT(esd_np_relay_close_pipes);

static void
esd_np_relay_direction_init(EsdNpDirection *d, gint src, gint dst, const gint *kept)
{
	d->src = src;
	d->dst = dst;
	d->limit = G_MAXUINT64;
	d->pipe[0] = d->pipe[1] = -1;
	if (kept != NULL) {
		d->pipe[0] = kept[0];
		d->pipe[1] = kept[1];
		return;
	}
	if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		d->buffer = g_malloc(ESD_NP_RELAY_CHUNK);
}

static void
esd_np_relay_direction_clear(EsdNpDirection *d)
{
	if (d->pipe[0] >= 0)
		close(d->pipe[0]);
	if (d->pipe[1] >= 0)
		close(d->pipe[1]);
	g_free(d->buffer);
}

static void
esd_np_relay_add_events(struct pollfd *fds, gint a, const EsdNpDirection *d)
{
	if (d->done)
		return;
	if (d->want_in)
		fds[d->src == a ? 0 : 1].events |= POLLIN;
	if (d->want_out)
		fds[d->dst == a ? 0 : 1].events |= POLLOUT;
}

/*
 * waits for what @fds ask of the two sockets, or for @cancel_fd (fds[2]);
 * FALSE to stop. A side nobody waits on is left out, so that its hang-up
 * does not spin
 */
static gboolean
esd_np_relay_wait(struct pollfd *fds, gint cancel_fd)
{
	for (guint i = 0; i < 2; i++) {
		if (fds[i].events == 0)
			fds[i].fd = -1;
	}
	if (poll(fds, cancel_fd >= 0 ? 3 : 2, -1) < 0 && errno != EINTR)
		return FALSE;
	return cancel_fd < 0 || !(fds[2].revents & POLLIN);
}

/**
 * esd_np_relay_run:
 * @a: a connected, non-blocking socket
 * @b: another one
 * @cancel_fd: a descriptor that becomes readable to stop the relay, or -1
 *
 * Moves bytes both ways between @a and @b until both directions ended.
 * Blocks the calling thread; neither socket is closed.
 */
void
esd_np_relay_run(gint a, gint b, gint cancel_fd)
{
	EsdNpDirection dirs[2] = {{0}};
	/* taken: a nested relay of this thread, if any, would make its own */
	g_autofree gint *kept = g_private_get(&esd_np_relay_pipes);

	g_private_set(&esd_np_relay_pipes, NULL);
	esd_np_relay_direction_init(&dirs[0], a, b, kept);
	esd_np_relay_direction_init(&dirs[1], b, a, kept != NULL ? kept + 2 : NULL);
	while (!dirs[0].done || !dirs[1].done) {
		struct pollfd fds[3] = {{.fd = a}, {.fd = b}, {.fd = cancel_fd, .events = POLLIN}};
		gboolean failed = FALSE;

		for (guint i = 0; i < 2; i++) {
			EsdNpDirection *d = &dirs[i];
			if (d->done)
				continue;
			if (!esd_np_relay_pump(d)) {
				failed = TRUE;
				break;
			}
			if (d->eof && d->pending == 0) {
				shutdown(d->dst, SHUT_WR);
				d->done = TRUE;
			}
		}
		if (failed || (dirs[0].done && dirs[1].done))
			break;
		esd_np_relay_add_events(fds, a, &dirs[0]);
		esd_np_relay_add_events(fds, a, &dirs[1]);
		if (!esd_np_relay_wait(fds, cancel_fd))
			break;
	}
	if (dirs[0].pending == 0 && dirs[1].pending == 0 && dirs[0].buffer == NULL &&
	    dirs[1].buffer == NULL && dirs[0].pipe[0] >= 0 && dirs[1].pipe[0] >= 0 &&
	    !dirs[0].grown && !dirs[1].grown) {
		gint *fds = kept != NULL ? g_steal_pointer(&kept) : g_new(gint, 4);

		fds[0] = dirs[0].pipe[0];
		fds[1] = dirs[0].pipe[1];
		fds[2] = dirs[1].pipe[0];
		fds[3] = dirs[1].pipe[1];
		dirs[0].pipe[0] = dirs[0].pipe[1] = dirs[1].pipe[0] = dirs[1].pipe[1] = -1;
		g_private_set(&esd_np_relay_pipes, fds);
	}
	esd_np_relay_direction_clear(&dirs[0]);
	esd_np_relay_direction_clear(&dirs[1]);
}

/**
 * esd_np_relay_splice:
 * @src: a connected, non-blocking socket
 * @dst: another one
 * @count: how many bytes to move, or %G_MAXUINT64 for all until @src ends
 * @cancel_fd: a descriptor that becomes readable to stop, or -1
 *
 * Moves @count bytes from @src to @dst, spliced as esd_np_relay_run() does,
 * one way only: the body of one message. A pipe the thread kept from its
 * last relay is used, and kept again when it is left empty. Blocks the calling thread;
 * neither socket is closed or shut down.
 *
 * Returns: whether all of them arrived (with %G_MAXUINT64: @src ended)
 */
gboolean
esd_np_relay_splice(gint src, gint dst, guint64 count, gint cancel_fd)
{
	EsdNpDirection d = {0};
	gboolean ok = FALSE;
	/* the thread's kept pipes, the first of them used here, as by esd_np_relay_run() */
	gint *kept = g_private_get(&esd_np_relay_pipes);

	esd_np_relay_direction_init(&d, src, dst, kept);
	d.limit = count;
	while (TRUE) {
		struct pollfd fds[3] = {{.fd = src},
					{.fd = dst},
					{.fd = cancel_fd, .events = POLLIN}};

		if (!esd_np_relay_pump(&d))
			break;
		if (d.eof && d.pending == 0) {
			ok = count == G_MAXUINT64 || d.limit == 0;
			break;
		}
		fds[0].events = d.want_in ? POLLIN : 0;
		fds[1].events = d.want_out ? POLLOUT : 0;
		if (!esd_np_relay_wait(fds, cancel_fd))
			break;
	}
	if (kept != NULL && d.pending == 0 && d.buffer == NULL && !d.grown) {
		/* left empty: still the thread's */
		d.pipe[0] = d.pipe[1] = -1;
	} else if (kept != NULL) {
		/* it goes with this transfer, and the other with it */
		kept[0] = kept[1] = -1;
		g_private_replace(&esd_np_relay_pipes, NULL);
	}
	esd_np_relay_direction_clear(&d);
	return ok;
}
