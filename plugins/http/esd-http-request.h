/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

#include "esd-http-impl.h"
#include "esd-http-params.h"

G_BEGIN_DECLS

#define ESD_TYPE_HTTP_REQUEST (esd_http_request_get_type())
G_DECLARE_FINAL_TYPE(EsdHttpRequest, esd_http_request, ESD, HTTP_REQUEST, GObject)

/* the most bytes of one http/request/bodyDelta, decoded */
#define ESD_HTTP_DELTA_MAX (1024 * 1024)

void
esd_http_request_start(EsdHttpContext *context, ErpcCall *call, EsdHttpParams *params);
void
esd_http_request_cancel(EsdHttpRequest *self);

G_END_DECLS
