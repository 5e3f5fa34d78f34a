/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-session.h"

G_BEGIN_DECLS

#define ESD_TYPE_DISPATCHER (esd_dispatcher_get_type())
G_DECLARE_FINAL_TYPE(EsdDispatcher, esd_dispatcher, ESD, DISPATCHER, GObject)

/**
 * EsdDispatcherState:
 * @ESD_DISPATCHER_STATE_NEW: waiting for `initialize`
 * @ESD_DISPATCHER_STATE_INITIALIZING: `initialize` answered, waiting for `initialized`
 * @ESD_DISPATCHER_STATE_READY: every method may be called
 * @ESD_DISPATCHER_STATE_CLOSED: the connection has gone
 */
typedef enum {
	ESD_DISPATCHER_STATE_NEW,
	ESD_DISPATCHER_STATE_INITIALIZING,
	ESD_DISPATCHER_STATE_READY,
	ESD_DISPATCHER_STATE_CLOSED,
} EsdDispatcherState;

EsdDispatcher *
esd_dispatcher_new(ErpcConnection *connection, ErpcRegistry *registry, guint max_concurrent);
ErpcConnection *
esd_dispatcher_get_connection(EsdDispatcher *self);
EsdDispatcherState
esd_dispatcher_get_state(EsdDispatcher *self);
EsdSession *
esd_dispatcher_get_session(EsdDispatcher *self);
void
esd_dispatcher_set_session(EsdDispatcher *self, EsdSession *session);

void
esd_dispatcher_set_limits(EsdDispatcher *self, guint handshake_timeout, guint max_pending);

G_END_DECLS
