/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "esd-fs-local-plugin.h"

G_BEGIN_DECLS

gboolean
esd_fs_methods_register(ErpcRegistry *registry, EsdFsLocalPlugin *plugin, GError **error);

G_END_DECLS
