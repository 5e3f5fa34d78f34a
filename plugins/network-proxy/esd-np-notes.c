/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "esd-np-io.h"
#include "esd-np-notes.h"

/*
 * The network/policyDecision notifications on their way from the
 * connection threads to the main context, which sends them.
 *
 * Waking the main context for each one put its work, and the client's
 * reading of the notification, into the request the decision is about: on
 * a 2-core machine a small request added 137 µs that way, 84 with this
 * queue (scripts/bench-network-proxy.py --only latency).
 * So a thread queues its note without waking anybody, and the first note
 * into an empty queue arms a timer: the main context sends what has queued
 * once it fires, ESD_NP_NOTES_DELAY_MS later, in one go. A full queue arms it
 * to fire at once. The plugin flushes the queue itself where order matters:
 * before a process's exit is reported, before a question to the client, and
 * when a proxy stops, so that a client has every decision its command made
 * before its process/exited; the proxy sends those made after at once
 * (esd_np_proxy_exiting()).
 */

#define ESD_NP_NOTES_DELAY_MS 5
#define ESD_NP_NOTES_MAX      256 /* queued before the timer fires at once */

struct _EsdNpNotes {
	gint refs; /* atomic */
	GMutex lock;
	GQueue queue; /* of notes, under lock */
	gint timer_fd;
	GSource *source;
	GFunc deliver;
	GDestroyNotify free_func;
};

/* @delay_ns: 0 disarms */
static void
esd_np_notes_arm(EsdNpNotes *self, gint64 delay_ns)
{
	struct itimerspec spec = {
	    .it_value = {.tv_sec = delay_ns / G_GINT64_CONSTANT(1000000000),
			 .tv_nsec = delay_ns % G_GINT64_CONSTANT(1000000000)},
	};

	if (timerfd_settime(self->timer_fd, 0, &spec, NULL) != 0)
		g_warning("timerfd_settime: %s", g_strerror(errno));
}

static gboolean
esd_np_notes_timer_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	EsdNpNotes *self = user_data;
	guint64 ticks;

	/* read before the queue is taken: a note queued after arms the timer anew */
	if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		g_warning("timerfd: %s", g_strerror(errno));
	esd_np_notes_flush(self);
	return G_SOURCE_CONTINUE;
}

/**
 * esd_np_notes_new:
 * @context: the main context, which delivers the notes
 * @deliver: sends a note, in @context, with the note and %NULL
 * @free_func: frees a note, delivered or not
 * @error: why no timer could be made
 *
 * Returns: (transfer full) (nullable): the queue
 */
EsdNpNotes *
esd_np_notes_new(GMainContext *context, GFunc deliver, GDestroyNotify free_func, GError **error)
{
	EsdNpNotes *self;
	gint fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0) {
		esd_np_io_set_error(error, errno, "timerfd_create");
		return NULL;
	}
	self = g_new0(EsdNpNotes, 1);
	self->refs = 1;
	g_mutex_init(&self->lock);
	g_queue_init(&self->queue);
	self->timer_fd = fd;
	self->deliver = deliver;
	self->free_func = free_func;
	self->source = g_unix_fd_source_new(fd, G_IO_IN);
	/* above the default priority, as the process's own events are sent */
	g_source_set_priority(self->source, G_PRIORITY_HIGH);
	g_source_set_callback(self->source, G_SOURCE_FUNC(esd_np_notes_timer_cb), self, NULL);
	g_source_attach(self->source, context);
	return self;
}

EsdNpNotes *
esd_np_notes_ref(EsdNpNotes *self)
{
	g_atomic_int_inc(&self->refs);
	return self;
}

/*
 * Any thread. Nothing is queued by then: a note holds its proxy, which holds
 * the queue; what might be is freed, not delivered.
 */
void
esd_np_notes_unref(EsdNpNotes *self)
{
	if (!g_atomic_int_dec_and_test(&self->refs))
		return;
	g_queue_clear_full(&self->queue, self->free_func);
	g_source_destroy(self->source);
	g_source_unref(self->source);
	close(self->timer_fd);
	g_mutex_clear(&self->lock);
	g_free(self);
}

/**
 * esd_np_notes_post:
 * @self: the queue
 * @note: (transfer full): what to deliver
 *
 * Queues @note; any thread. It is delivered within ESD_NP_NOTES_DELAY_MS,
 * or at the next esd_np_notes_flush().
 */
void
esd_np_notes_post(EsdNpNotes *self, gpointer note)
{
	g_mutex_lock(&self->lock);
	g_queue_push_tail(&self->queue, note);
	/* armed under the lock, so that the first note's arming cannot undo the full queue's */
	if (self->queue.length == 1)
		esd_np_notes_arm(self, ESD_NP_NOTES_DELAY_MS * G_GINT64_CONSTANT(1000000));
	else if (self->queue.length == ESD_NP_NOTES_MAX)
		esd_np_notes_arm(self, 1);
	g_mutex_unlock(&self->lock);
}

/**
 * esd_np_notes_flush:
 * @self: the queue
 *
 * Delivers what is queued, in order. Main context only.
 */
void
esd_np_notes_flush(EsdNpNotes *self)
{
	GQueue taken;
	gpointer note;

	g_mutex_lock(&self->lock);
	taken = self->queue;
	g_queue_init(&self->queue);
	g_mutex_unlock(&self->lock);
	while ((note = g_queue_pop_head(&taken)) != NULL) {
		self->deliver(note, NULL);
		self->free_func(note);
	}
}
