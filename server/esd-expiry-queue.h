/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define ESD_TYPE_EXPIRY_QUEUE (esd_expiry_queue_get_type())
G_DECLARE_FINAL_TYPE(EsdExpiryQueue, esd_expiry_queue, ESD, EXPIRY_QUEUE, GObject)

typedef void (*EsdExpiryFunc)(gpointer item, gpointer user_data);

EsdExpiryQueue *
esd_expiry_queue_new(guint timeout_ms, EsdExpiryFunc func, gpointer user_data);
void
esd_expiry_queue_add(EsdExpiryQueue *self, gpointer item);
void
esd_expiry_queue_remove(EsdExpiryQueue *self, gpointer item);
void
esd_expiry_queue_clear(EsdExpiryQueue *self);
guint
esd_expiry_queue_get_length(EsdExpiryQueue *self);

G_END_DECLS
