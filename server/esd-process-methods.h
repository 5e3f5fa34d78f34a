/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

gboolean
esd_process_methods_register(ErpcRegistry *registry, GError **error);

G_END_DECLS
