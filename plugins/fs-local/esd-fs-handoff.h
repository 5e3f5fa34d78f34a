/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-fs-handle.h"

G_BEGIN_DECLS

gboolean
esd_fs_handoff_send(gint socket_fd, EsdFsHandle *handle, GError **error);
EsdFsHandle *
esd_fs_handoff_receive(gint socket_fd, GError **error);

G_END_DECLS
