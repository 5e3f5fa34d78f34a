/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

gboolean
esd_process_methods_register(ErpcRegistry *registry, GError **error);

G_END_DECLS
