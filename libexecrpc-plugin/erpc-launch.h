/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <execrpc.h>
#include <gio/gio.h>

#include "erpc-sandbox.h"
#include "erpc-session.h"

G_BEGIN_DECLS

/**
 * ErpcLaunch:
 *
 * A `process/start` being prepared, as the launch hooks that take part in
 * it see it: the request's params, the process id, the session, and the
 * command as the daemon would run it. A hook changes it (environment, argv,
 * descriptors, files in the sandbox, network namespace) while it prepares;
 * the changes are applied once every hook has prepared, before the
 * command is resolved and spawned. The daemon makes one per launch and keeps
 * it until the process closes; a hook may keep a reference.
 *
 * Since: 0.2
 */
#define ERPC_TYPE_LAUNCH (erpc_launch_get_type())
G_DECLARE_FINAL_TYPE(ErpcLaunch, erpc_launch, ERPC, LAUNCH, GObject)

/**
 * ErpcLaunchHook:
 *
 * A plugin object that takes part in `process/start`, added with
 * erpc_context_add_launch_hook(). See #ErpcLaunchHookInterface.
 *
 * Since: 0.2
 */
#define ERPC_TYPE_LAUNCH_HOOK (erpc_launch_hook_get_type())
G_DECLARE_INTERFACE(ErpcLaunchHook, erpc_launch_hook, ERPC, LAUNCH_HOOK, GObject)

/**
 * ErpcLaunchHookInterface:
 * @get_members: (nullable): the `process/start` members the hook claims, a
 *   %NULL-terminated array that lives as long as the hook. A member is
 *   claimed by one hook only; the daemon's own checks of a claimed member
 *   (`shellSnapshot`, `networkProxy`, `managedNetwork`,
 *   `enforceManagedNetwork`) give way to the hook's. A hook without members
 *   takes part in every launch; one with members only in the launches whose
 *   params hold at least one of them (a member set to `null` is absent).
 * @claim: (nullable): checks the value of one claimed member and keeps what
 *   it needs, after the daemon checked the members it owns. A bad value fails
 *   the request: set %ERPC_ERROR_INVALID_PARAMS (wire -32602) and the
 *   message the protocol gives for it.
 * @prepare_async: (nullable): prepares the launch, e.g. starts a proxy, and
 *   makes its changes to @launch. Hooks prepare one after the other, in the
 *   order they were added; an error fails the request with that error, as
 *   erpc_call_return_error() maps it. The daemon cancels @cancellable when
 *   the session goes during the preparation.
 * @prepare_finish: (nullable): finishes @prepare_async
 * @exiting: (nullable): the command has exited and `process/exited` is
 *   about to be sent: what a hook still has to tell the client about the
 *   process (a notification it held back) goes out now, and so before it
 * @exited: (nullable): the command exited with @exit_code (a negative
 *   signal number when killed), as `process/exited` says; it has been sent
 * @closed: (nullable): the launch is over: its process closed, or it never
 *   ran (a later check, a hook or the spawn failed, or the session ended).
 *   Called once, for every hook that took part; release what the launch
 *   holds here.
 *
 * Every function runs in the daemon's main context.
 *
 * Since: 0.2
 */
struct _ErpcLaunchHookInterface {
	GTypeInterface g_iface;
	const gchar *const *(*get_members)(ErpcLaunchHook *self);
	gboolean (*claim)(ErpcLaunchHook *self,
			  ErpcLaunch *launch,
			  const gchar *member,
			  JsonNode *value,
			  GError **error);
	void (*prepare_async)(ErpcLaunchHook *self,
			      ErpcLaunch *launch,
			      GCancellable *cancellable,
			      GAsyncReadyCallback callback,
			      gpointer user_data);
	gboolean (*prepare_finish)(ErpcLaunchHook *self, GAsyncResult *result, GError **error);
	void (*exited)(ErpcLaunchHook *self, ErpcLaunch *launch, gint exit_code);
	void (*closed)(ErpcLaunchHook *self, ErpcLaunch *launch);
	void (*exiting)(ErpcLaunchHook *self, ErpcLaunch *launch);
	/*< private >*/
	gpointer padding[7];
};

const gchar *
erpc_launch_get_process_id(ErpcLaunch *self);
GPid
erpc_launch_get_pid(ErpcLaunch *self);
ErpcSession *
erpc_launch_get_session(ErpcLaunch *self);
JsonObject *
erpc_launch_get_params(ErpcLaunch *self);
const gchar *
erpc_launch_get_cwd(ErpcLaunch *self);
const gchar *const *
erpc_launch_get_argv(ErpcLaunch *self);
const gchar *
erpc_launch_getenv(ErpcLaunch *self, const gchar *name);
gchar **
erpc_launch_dup_envp(ErpcLaunch *self);
gboolean
erpc_launch_is_sandboxed(ErpcLaunch *self);
ErpcSandboxPolicy *
erpc_launch_get_policy(ErpcLaunch *self);
gboolean
erpc_launch_is_tty(ErpcLaunch *self);

void
erpc_launch_setenv(ErpcLaunch *self, const gchar *name, const gchar *value);
void
erpc_launch_unsetenv(ErpcLaunch *self, const gchar *name);
void
erpc_launch_prefix_argv(ErpcLaunch *self, const gchar *const *prefix);
void
erpc_launch_set_argv(ErpcLaunch *self, const gchar *const *argv);
gint
erpc_launch_add_fd(ErpcLaunch *self, gint fd, GError **error);
void
erpc_launch_add_sandbox_file(ErpcLaunch *self, const gchar *path);
void
erpc_launch_set_network_namespace(ErpcLaunch *self, gint netns_fd);

/**
 * ERPC_LAUNCH_MAX_MANAGED_PORTS:
 *
 * The most loopback ports erpc_launch_set_managed_network() takes.
 *
 * Since: 0.2
 */
#define ERPC_LAUNCH_MAX_MANAGED_PORTS 8

void
erpc_launch_set_managed_network(ErpcLaunch *self,
				gint channel_fd,
				const guint16 *ports,
				guint n_ports);

/**
 * ERPC_LAUNCH_MAX_MANAGED_DATAGRAMS:
 *
 * The most UDP sockets erpc_launch_set_managed_datagrams() takes.
 *
 * Since: 0.2
 */
#define ERPC_LAUNCH_MAX_MANAGED_DATAGRAMS 16

void
erpc_launch_set_managed_datagrams(ErpcLaunch *self, guint n_sockets);
void
erpc_launch_set_hook_data(ErpcLaunch *self,
			  ErpcLaunchHook *hook,
			  gpointer data,
			  GDestroyNotify destroy);
gpointer
erpc_launch_get_hook_data(ErpcLaunch *self, ErpcLaunchHook *hook);

G_END_DECLS
