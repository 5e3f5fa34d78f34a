/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gunixfdlist.h>

G_BEGIN_DECLS

typedef enum {
	ESD_DBUS_CALLER_HOST,
	ESD_DBUS_CALLER_FLATPAK,
	ESD_DBUS_CALLER_SNAP,
} EsdDBusCallerKind;

/* who sent a D-Bus call, as far as the bus and /proc tell */
typedef struct {
	guint32 uid; /* the bus's UnixUserID */
	guint32 pid; /* in the daemon's PID namespace */
	EsdDBusCallerKind kind;
	gchar *app_id; /* flatpak application id or snap name; NULL on the host or if unknown */
} EsdDBusCaller;

void
esd_dbus_caller_free(EsdDBusCaller *caller);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdDBusCaller, esd_dbus_caller_free)

EsdDBusCaller *
esd_dbus_caller_identify(GVariant *credentials,
			 GUnixFDList *fd_list,
			 gint64 called_at,
			 GError **error) G_GNUC_WARN_UNUSED_RESULT;
gchar *
esd_dbus_caller_describe(const EsdDBusCaller *caller);
gint64
esd_dbus_caller_now(void);

gchar *
esd_dbus_caller_snap_from_cgroup(const gchar *contents);
gchar *
esd_dbus_caller_snap_from_label(const gchar *label);

G_END_DECLS
