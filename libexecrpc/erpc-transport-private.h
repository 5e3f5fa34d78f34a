/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-transport.h"

G_BEGIN_DECLS

GBytes *
_erpc_transport_get_delivering(ErpcTransport *self);
const ErpcJsonPlainMap *
_erpc_transport_get_delivering_plain(ErpcTransport *self);

G_END_DECLS
