/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

gboolean
esd_fs_sandbox_check(JsonObject *sandbox,
		     gboolean *isolated,
		     gboolean *unavailable,
		     GError **error);

G_END_DECLS
