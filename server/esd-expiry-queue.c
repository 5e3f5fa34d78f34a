/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include "esd-expiry-queue.h"

/*
 * Items that expire a fixed time after they were added: closed processes,
 * detached sessions. One timer serves the whole queue, because GLib walks
 * every source on every main loop iteration: a source per item would make
 * each wakeup cost as much as there are items waiting.
 */

typedef struct {
	gint64 deadline;
	gpointer item;
} EsdExpiryEntry;

struct _EsdExpiryQueue {
	GObject parent_instance;
	GQueue entries; /* deadline order, since the timeout is fixed */
	GSource *timer;
	guint timeout_ms;
	EsdExpiryFunc func;
	gpointer user_data;
};

G_DEFINE_TYPE(EsdExpiryQueue, esd_expiry_queue, G_TYPE_OBJECT)

static void
esd_expiry_queue_schedule(EsdExpiryQueue *self);

static gboolean
esd_expiry_queue_timer_cb(gpointer user_data)
{
	EsdExpiryQueue *self = ESD_EXPIRY_QUEUE(user_data);
	gint64 now = g_get_monotonic_time();

	g_object_ref(self);
	g_source_destroy(self->timer);
	g_clear_pointer(&self->timer, g_source_unref);
	while (!g_queue_is_empty(&self->entries)) {
		EsdExpiryEntry *entry = g_queue_peek_head(&self->entries);
		gpointer item;
		if (entry->deadline > now)
			break;
		item = entry->item;
		g_free(g_queue_pop_head(&self->entries));
		self->func(item, self->user_data);
	}
	esd_expiry_queue_schedule(self);
	g_object_unref(self);
	return G_SOURCE_REMOVE;
}

static void
esd_expiry_queue_schedule(EsdExpiryQueue *self)
{
	EsdExpiryEntry *head = g_queue_peek_head(&self->entries);
	gint64 delay_us;

	if (self->timer != NULL || head == NULL)
		return;
	delay_us = MAX(head->deadline - g_get_monotonic_time(), 0);
	self->timer = g_timeout_source_new((guint)((delay_us + 999) / 1000));
	g_source_set_callback(self->timer, esd_expiry_queue_timer_cb, self, NULL);
	g_source_attach(self->timer, NULL);
}

void
esd_expiry_queue_add(EsdExpiryQueue *self, gpointer item)
{
	EsdExpiryEntry *entry = g_new0(EsdExpiryEntry, 1);
	entry->deadline = g_get_monotonic_time() + (gint64)self->timeout_ms * 1000;
	entry->item = item;
	g_queue_push_tail(&self->entries, entry);
	esd_expiry_queue_schedule(self);
}

void
esd_expiry_queue_remove(EsdExpiryQueue *self, gpointer item)
{
	for (GList *l = self->entries.head; l != NULL; l = l->next) {
		EsdExpiryEntry *entry = l->data;
		if (entry->item == item) {
			g_free(entry);
			g_queue_delete_link(&self->entries, l);
			return;
		}
	}
}

void
esd_expiry_queue_clear(EsdExpiryQueue *self)
{
	g_queue_clear_full(&self->entries, g_free);
	if (self->timer != NULL) {
		g_source_destroy(self->timer);
		g_clear_pointer(&self->timer, g_source_unref);
	}
}

guint
esd_expiry_queue_get_length(EsdExpiryQueue *self)
{
	return self->entries.length;
}

static void
esd_expiry_queue_finalize(GObject *object)
{
	esd_expiry_queue_clear(ESD_EXPIRY_QUEUE(object));
	G_OBJECT_CLASS(esd_expiry_queue_parent_class)->finalize(object);
}

static void
esd_expiry_queue_init(EsdExpiryQueue *self)
{
	g_queue_init(&self->entries);
}

static void
esd_expiry_queue_class_init(EsdExpiryQueueClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_expiry_queue_finalize;
}

EsdExpiryQueue *
esd_expiry_queue_new(guint timeout_ms, EsdExpiryFunc func, gpointer user_data)
{
	EsdExpiryQueue *self = g_object_new(ESD_TYPE_EXPIRY_QUEUE, NULL);
	self->timeout_ms = timeout_ms;
	self->func = func;
	self->user_data = user_data;
	return self;
}
