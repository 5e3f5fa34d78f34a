/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include "erpc-context.h"
#include "erpc-launch.h"

G_BEGIN_DECLS

/* for the daemon only: process/start makes the launch, lets the hooks claim
 * and prepare, reads their changes and tells them how the process ends */

ErpcLaunch *
erpc_launch_new(ErpcSession *session,
		const gchar *process_id,
		JsonObject *params,
		const gchar *cwd,
		const gchar *const *argv,
		const gchar *const *envp,
		gboolean tty,
		ErpcSandboxPolicy *policy);
gboolean
erpc_launch_claim(ErpcLaunch *self, ErpcContext *context, GError **error);
gboolean
erpc_launch_has_hooks(ErpcLaunch *self);
void
erpc_launch_prepare_async(ErpcLaunch *self,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data);
gboolean
erpc_launch_prepare_finish(ErpcLaunch *self, GAsyncResult *result, GError **error);
gboolean
erpc_launch_argv_changed(ErpcLaunch *self);
const gint *
erpc_launch_get_fds(ErpcLaunch *self, guint *n_fds);
const gchar *const *
erpc_launch_get_sandbox_files(ErpcLaunch *self);
gint
erpc_launch_get_network_namespace(ErpcLaunch *self);
const guint16 *
erpc_launch_get_managed_network(ErpcLaunch *self, gint *channel_fd, guint *n_ports);
guint
erpc_launch_get_managed_datagrams(ErpcLaunch *self);
void
erpc_launch_close_fds(ErpcLaunch *self);
void
erpc_launch_set_pid(ErpcLaunch *self, GPid pid);
void
erpc_launch_exiting(ErpcLaunch *self);
void
erpc_launch_exited(ErpcLaunch *self, gint exit_code);
void
erpc_launch_closed(ErpcLaunch *self);

G_END_DECLS
