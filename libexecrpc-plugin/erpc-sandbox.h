/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "erpc-call.h"

G_BEGIN_DECLS

/**
 * ERPC_SANDBOX_ERROR:
 *
 * The error domain of the sandbox service. erpc_call_return_sandbox_error()
 * turns its errors into the wire errors the protocol names.
 *
 * Since: 0.2
 */
#define ERPC_SANDBOX_ERROR (erpc_sandbox_error_quark())

/**
 * ErpcSandboxError:
 * @ERPC_SANDBOX_ERROR_UNAVAILABLE: the sandbox asked for is well-formed but
 *   cannot be had on this executor (no usable bwrap, `windowsSandboxLevel`,
 *   a missing helper); on the wire -32602 with `data.kind`
 *   `sandboxUnavailable`
 * @ERPC_SANDBOX_ERROR_PREPARATION: the sandbox could not be set up (the
 *   seccomp filter, bwrap's mounts); on the wire -32603 with `data.kind`
 *   `sandboxPreparation`
 *
 * The errors of the sandbox service, %ERPC_SANDBOX_ERROR.
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_SANDBOX_ERROR_UNAVAILABLE,
	ERPC_SANDBOX_ERROR_PREPARATION,
} ErpcSandboxError;

/**
 * ErpcSandboxAccess:
 * @ERPC_SANDBOX_ACCESS_READ: the path can be read, not changed
 * @ERPC_SANDBOX_ACCESS_WRITE: the path can be read and changed
 * @ERPC_SANDBOX_ACCESS_DENY: the path cannot be reached
 *
 * What a policy allows on one path.
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_SANDBOX_ACCESS_READ,
	ERPC_SANDBOX_ACCESS_WRITE,
	ERPC_SANDBOX_ACCESS_DENY,
} ErpcSandboxAccess;

/**
 * ErpcSandboxNetwork:
 * @ERPC_SANDBOX_NETWORK_RESTRICTED: no network but Unix stream sockets
 * @ERPC_SANDBOX_NETWORK_ENABLED: the host's network
 *
 * The network of a sandboxed command.
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_SANDBOX_NETWORK_RESTRICTED,
	ERPC_SANDBOX_NETWORK_ENABLED,
} ErpcSandboxNetwork;

/**
 * ErpcSandboxDirectFlags:
 * @ERPC_SANDBOX_DIRECT_NONE: the request reaches the path itself only
 * @ERPC_SANDBOX_DIRECT_TREE: the request also reaches what is below the
 *   path (a listing, a walk, a recursive remove or copy)
 *
 * What a request reaches, for erpc_sandbox_check_direct().
 *
 * Since: 0.2
 */
typedef enum {
	ERPC_SANDBOX_DIRECT_NONE = 0,
	ERPC_SANDBOX_DIRECT_TREE = 1 << 0,
} ErpcSandboxDirectFlags;

GQuark
erpc_sandbox_error_quark(void);

/**
 * ErpcSandboxPolicy:
 *
 * A wire `sandbox` object as the daemon reads it, with the daemon's rules
 * and defaults; made by erpc_sandbox_parse_policy(). Immutable and
 * reference counted; may be used from any thread.
 *
 * Since: 0.2
 */
typedef struct _ErpcSandboxPolicy ErpcSandboxPolicy;

#define ERPC_TYPE_SANDBOX_POLICY (erpc_sandbox_policy_get_type())
GType
erpc_sandbox_policy_get_type(void) G_GNUC_CONST;
ErpcSandboxPolicy *
erpc_sandbox_policy_ref(ErpcSandboxPolicy *self);
void
erpc_sandbox_policy_unref(ErpcSandboxPolicy *self);
gboolean
erpc_sandbox_policy_is_isolated(ErpcSandboxPolicy *self);
gboolean
erpc_sandbox_policy_is_file_system_restricted(ErpcSandboxPolicy *self);
ErpcSandboxNetwork
erpc_sandbox_policy_get_network(ErpcSandboxPolicy *self);
ErpcSandboxAccess
erpc_sandbox_policy_get_access(ErpcSandboxPolicy *self, const gchar *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcSandboxPolicy, erpc_sandbox_policy_unref)

/**
 * ErpcSandboxCommand:
 *
 * What to run in a sandbox: its argv, environment, working directory,
 * the descriptors it gets and the host files it needs to start. Built by
 * the plugin, then given to erpc_sandbox_spawn(); reference counted, not
 * thread-safe while it is being built.
 *
 * Since: 0.2
 */
typedef struct _ErpcSandboxCommand ErpcSandboxCommand;

#define ERPC_TYPE_SANDBOX_COMMAND (erpc_sandbox_command_get_type())
GType
erpc_sandbox_command_get_type(void) G_GNUC_CONST;
ErpcSandboxCommand *
erpc_sandbox_command_new(const gchar *const *argv);
ErpcSandboxCommand *
erpc_sandbox_command_ref(ErpcSandboxCommand *self);
void
erpc_sandbox_command_unref(ErpcSandboxCommand *self);
void
erpc_sandbox_command_set_envp(ErpcSandboxCommand *self, const gchar *const *envp);
void
erpc_sandbox_command_set_cwd(ErpcSandboxCommand *self, const gchar *cwd);
void
erpc_sandbox_command_take_fd(ErpcSandboxCommand *self, gint fd, gint target_fd);
void
erpc_sandbox_command_add_ro_file(ErpcSandboxCommand *self, const gchar *path);
const gchar *const *
erpc_sandbox_command_get_argv(ErpcSandboxCommand *self);
const gchar *const *
erpc_sandbox_command_get_envp(ErpcSandboxCommand *self);
const gchar *
erpc_sandbox_command_get_cwd(ErpcSandboxCommand *self);
const gint *
erpc_sandbox_command_get_fds(ErpcSandboxCommand *self, const gint **target_fds, guint *n_fds);
const gchar *const *
erpc_sandbox_command_get_ro_files(ErpcSandboxCommand *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcSandboxCommand, erpc_sandbox_command_unref)

/**
 * ErpcSandboxChild:
 *
 * A command started in a sandbox by erpc_sandbox_spawn(). Wait for it
 * with erpc_sandbox_child_wait() or erpc_sandbox_child_wait_async(); what
 * the sandbox left on the host is removed once it has been reaped. A child
 * dropped without being waited for is killed and reaped.
 *
 * Since: 0.2
 */
typedef struct _ErpcSandboxChild ErpcSandboxChild;

#define ERPC_TYPE_SANDBOX_CHILD (erpc_sandbox_child_get_type())
GType
erpc_sandbox_child_get_type(void) G_GNUC_CONST;
ErpcSandboxChild *
erpc_sandbox_child_ref(ErpcSandboxChild *self);
void
erpc_sandbox_child_unref(ErpcSandboxChild *self);
GPid
erpc_sandbox_child_get_pid(ErpcSandboxChild *self);
gboolean
erpc_sandbox_child_has_host_mount_points(ErpcSandboxChild *self);
void
erpc_sandbox_child_kill(ErpcSandboxChild *self);
gboolean
erpc_sandbox_child_wait(ErpcSandboxChild *self,
			GCancellable *cancellable,
			gint *wait_status,
			GError **error);
void
erpc_sandbox_child_wait_async(ErpcSandboxChild *self,
			      GCancellable *cancellable,
			      GAsyncReadyCallback callback,
			      gpointer user_data);
gboolean
erpc_sandbox_child_wait_finish(ErpcSandboxChild *self,
			       GAsyncResult *result,
			       gint *wait_status,
			       GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ErpcSandboxChild, erpc_sandbox_child_unref)

/**
 * ErpcSandbox:
 *
 * The host's sandbox, reached with erpc_context_get_sandbox(): it reads
 * `sandbox` objects as process/start does and runs commands in the sandbox
 * a process with that policy gets (namespaces, mounts, the seccomp filter).
 * It fails closed: what cannot be sandboxed is never run.
 *
 * Since: 0.2
 */
#define ERPC_TYPE_SANDBOX (erpc_sandbox_get_type())
G_DECLARE_DERIVABLE_TYPE(ErpcSandbox, erpc_sandbox, ERPC, SANDBOX, GObject)

/**
 * ErpcSandboxClass:
 * @parse_policy: reads a `sandbox` object; @cwd is the default policy cwd
 * @get_access: the access of an absolute path under a policy of this sandbox
 * @spawn: starts a command under a policy of this sandbox; thread-safe
 * @check_direct: whether a sandboxed command under a policy of this sandbox
 *   sees an absolute path exactly as the host does, with the access asked
 *   for; thread-safe (Since: 0.2)
 *
 * Implemented by the daemon only.
 *
 * Since: 0.2
 */
struct _ErpcSandboxClass {
	GObjectClass parent_class;
	ErpcSandboxPolicy *(*parse_policy)(ErpcSandbox *self,
					   JsonObject *sandbox,
					   const gchar *cwd,
					   GError **error);
	ErpcSandboxAccess (*get_access)(ErpcSandbox *self,
					ErpcSandboxPolicy *policy,
					const gchar *path);
	ErpcSandboxChild *(*spawn)(ErpcSandbox *self,
				   ErpcSandboxPolicy *policy,
				   ErpcSandboxCommand *command,
				   GError **error);
	gboolean (*check_direct)(ErpcSandbox *self,
				 ErpcSandboxPolicy *policy,
				 const gchar *path,
				 ErpcSandboxAccess access,
				 ErpcSandboxDirectFlags flags,
				 const gchar *const *ro_files);
	/*< private >*/
	gpointer padding[11];
};

ErpcSandboxPolicy *
erpc_sandbox_parse_policy(ErpcSandbox *self, JsonObject *sandbox, const gchar *cwd, GError **error)
    G_GNUC_WARN_UNUSED_RESULT;
ErpcSandboxChild *
erpc_sandbox_spawn(ErpcSandbox *self,
		   ErpcSandboxPolicy *policy,
		   ErpcSandboxCommand *command,
		   GError **error) G_GNUC_WARN_UNUSED_RESULT;
gboolean
erpc_sandbox_check_direct(ErpcSandbox *self,
			  ErpcSandboxPolicy *policy,
			  const gchar *path,
			  ErpcSandboxAccess access,
			  ErpcSandboxDirectFlags flags,
			  const gchar *const *ro_files);
void
erpc_sandbox_run_async(ErpcSandbox *self,
		       ErpcSandboxPolicy *policy,
		       ErpcSandboxCommand *command,
		       GCancellable *cancellable,
		       GAsyncReadyCallback callback,
		       gpointer user_data);
gboolean
erpc_sandbox_run_finish(ErpcSandbox *self, GAsyncResult *result, gint *wait_status, GError **error);

void
erpc_call_return_sandbox_error(ErpcCall *call, const GError *error);

G_END_DECLS
