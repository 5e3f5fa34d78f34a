/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "esd-ws-transport.h"

G_BEGIN_DECLS

void
esd_ws_transport_set_block_sizes(EsdWsTransport *self,
				 gsize read_block,
				 gsize direct_min,
				 gsize direct_block);

G_END_DECLS
