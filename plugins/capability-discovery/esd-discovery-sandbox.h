/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc-plugin.h>

G_BEGIN_DECLS

GBytes *
esd_discovery_sandbox_run(ErpcSandbox *service,
			  ErpcSandboxPolicy *policy,
			  const gchar *request,
			  gsize max_output,
			  GCancellable *cancellable,
			  GError **error);

G_END_DECLS
