/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <execrpc.h>

G_BEGIN_DECLS

gchar *
esd_environment_build_info(ErpcRegistry *registry);
gchar *
esd_environment_path_to_uri(const gchar *path);

G_END_DECLS
