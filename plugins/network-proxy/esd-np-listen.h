/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* which listener a connection came in on */
typedef enum {
	ESD_NP_LISTEN_HTTP,
	ESD_NP_LISTEN_SOCKS,
	ESD_NP_LISTEN_NAMESPACE_HTTP, /* the sandbox's own loopback */
	ESD_NP_LISTEN_NAMESPACE_SOCKS,
} EsdNpListenKind;

/* @fd: the connection, non-blocking; closed once this returns */
typedef void (*EsdNpListenServeFunc)(gint fd, EsdNpListenKind kind, gpointer user_data);

typedef struct _EsdNpListen EsdNpListen;

EsdNpListen *
esd_np_listen_new(guint max_connections,
		  EsdNpListenServeFunc serve,
		  gpointer user_data,
		  GBoxedCopyFunc ref_func,
		  GDestroyNotify unref_func);
EsdNpListen *
esd_np_listen_ref(EsdNpListen *self);
void
esd_np_listen_unref(EsdNpListen *self);
void
esd_np_listen_add(EsdNpListen *self, gint fd, EsdNpListenKind kind);
void
esd_np_listen_stop(EsdNpListen *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdNpListen, esd_np_listen_unref)

G_END_DECLS
