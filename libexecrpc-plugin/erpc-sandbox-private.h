/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-sandbox.h"

G_BEGIN_DECLS

/* for the daemon only: its ErpcSandbox makes the policies and children */

ErpcSandboxPolicy *
erpc_sandbox_policy_new(ErpcSandbox *owner,
			gpointer data,
			GDestroyNotify destroy,
			gboolean isolated,
			gboolean fs_restricted,
			ErpcSandboxNetwork network);
gpointer
erpc_sandbox_policy_get_data(ErpcSandboxPolicy *self, ErpcSandbox *owner);
ErpcSandboxChild *
erpc_sandbox_child_new(GPid pid, gpointer data, GDestroyNotify cleanup);
void
erpc_sandbox_child_set_host_mount_points(ErpcSandboxChild *self, gboolean host_mount_points);

G_END_DECLS
