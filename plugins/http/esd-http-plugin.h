/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

#define ESD_TYPE_HTTP_PLUGIN (esd_http_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdHttpPlugin, esd_http_plugin, ESD, HTTP_PLUGIN, ErpcPlugin)

/* defaults of the plugin's options */
#define ESD_HTTP_MAX_BODY_DEFAULT     (64 * 1024 * 1024)
#define ESD_HTTP_MAX_STREAMS_DEFAULT  64
#define ESD_HTTP_MAX_REQUESTS_DEFAULT 256

G_END_DECLS
