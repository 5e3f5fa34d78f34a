/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "erpc-context-private.h"
#include "erpc-launch-private.h"

/* the supervisor's descriptors are 3 to 6; the command's extra ones follow */
#define ERPC_LAUNCH_FIRST_FD 7
#define ERPC_LAUNCH_MAX_FDS  64

G_DEFINE_INTERFACE(ErpcLaunchHook, erpc_launch_hook, G_TYPE_OBJECT)

static void
erpc_launch_hook_default_init(ErpcLaunchHookInterface *iface)
{
}

typedef struct {
	gpointer data;
	GDestroyNotify destroy;
} ErpcLaunchHookData;

struct _ErpcLaunch {
	GObject parent_instance;
	ErpcSession *session;
	gchar *process_id;
	JsonObject *params;
	gchar *cwd;
	GPtrArray *argv;       /* NULL-terminated */
	gchar **envp;	       /* as the daemon built it */
	GPtrArray *env_names;  /* the overlay, in the order it was made */
	GHashTable *env;       /* name → value, or NULL to unset */
	GArray *fds;	       /* of gint, owned */
	GPtrArray *files;      /* NULL-terminated, or NULL */
	gint netns_fd;	       /* owned, or -1 */
	gint managed_fd;       /* owned, or -1: the channel of the managed network */
	GArray *managed_ports; /* of guint16, or NULL */
	guint managed_udp;     /* UDP sockets to make on the namespace's loopback */
	GPtrArray *hooks;      /* those that take part */
	GHashTable *hook_data; /* ErpcLaunchHook → ErpcLaunchHookData */
	guint next_prepare;
	gboolean tty;
	ErpcSandboxPolicy *policy; /* NULL without a `sandbox` object */
	gboolean argv_changed;
	gboolean exited;
	gboolean closed;
	gint pid; /* atomic: read from any thread */
};

G_DEFINE_FINAL_TYPE(ErpcLaunch, erpc_launch, G_TYPE_OBJECT)

static void
erpc_launch_hook_data_free(gpointer data)
{
	ErpcLaunchHookData *hook_data = data;
	if (hook_data->destroy != NULL)
		hook_data->destroy(hook_data->data);
	g_free(hook_data);
}

/**
 * erpc_launch_get_process_id:
 * @self: a #ErpcLaunch
 *
 * The id the client gave the process.
 *
 * Returns: the `processId` of the request
 *
 * Since: 0.2
 */
const gchar *
erpc_launch_get_process_id(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return self->process_id;
}

/**
 * erpc_launch_get_pid:
 * @self: a #ErpcLaunch
 *
 * The process that runs the command once it was spawned: the command's
 * parent, and a child subreaper, so that every process of the command's tree
 * stays below it while the command runs (orphans included). It is the pid in
 * the daemon's PID namespace. A hook can tell with it whether a process
 * belongs to the launch, e.g. a proxy its own command's connections.
 *
 * Unlike the rest of #ErpcLaunch, this may be called from any thread.
 *
 * Returns: the pid, or 0 before the spawn and when it failed
 *
 * Since: 0.2
 */
GPid
erpc_launch_get_pid(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), 0);
	return (GPid)g_atomic_int_get(&self->pid);
}

/**
 * erpc_launch_set_pid:
 * @self: a #ErpcLaunch
 * @pid: the supervisor of the spawned command
 *
 * Called by the daemon once the command was spawned.
 */
void
erpc_launch_set_pid(ErpcLaunch *self, GPid pid)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_atomic_int_set(&self->pid, (gint)pid);
}

/**
 * erpc_launch_get_session:
 * @self: a #ErpcLaunch
 *
 * The session that starts the process.
 *
 * Returns: (transfer none): the session the process belongs to, to ask or
 *   notify its client
 *
 * Since: 0.2
 */
ErpcSession *
erpc_launch_get_session(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return self->session;
}

/**
 * erpc_launch_get_params:
 * @self: a #ErpcLaunch
 *
 * The params of the `process/start` request.
 *
 * Returns: (transfer none): the params of `process/start` as sent; read
 *   only
 *
 * Since: 0.2
 */
JsonObject *
erpc_launch_get_params(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return self->params;
}

/**
 * erpc_launch_get_cwd:
 * @self: a #ErpcLaunch
 *
 * The directory the process will start in.
 *
 * Returns: the working directory of the command, a local path
 *
 * Since: 0.2
 */
const gchar *
erpc_launch_get_cwd(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return self->cwd;
}

/**
 * erpc_launch_get_argv:
 * @self: a #ErpcLaunch
 *
 * The command line the process will run, with what hooks changed so far.
 *
 * Returns: (transfer none) (array zero-terminated=1): the command as it
 *   stands, with the changes made so far; `argv[0]` is the program
 *
 * Since: 0.2
 */
const gchar *const *
erpc_launch_get_argv(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return (const gchar *const *)self->argv->pdata;
}

static const gchar *
erpc_launch_envp_lookup(gchar **envp, const gchar *name)
{
	gsize len = strlen(name);
	for (guint i = 0; envp != NULL && envp[i] != NULL; i++) {
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return envp[i] + len + 1;
	}
	return NULL;
}

/**
 * erpc_launch_getenv:
 * @self: a #ErpcLaunch
 * @name: a variable name
 *
 * Reads a variable of the environment the process will get.
 *
 * Returns: (nullable): the value the command gets, with the changes made so
 *   far
 *
 * Since: 0.2
 */
const gchar *
erpc_launch_getenv(ErpcLaunch *self, const gchar *name)
{
	gpointer value;

	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	g_return_val_if_fail(name != NULL, NULL);
	if (g_hash_table_lookup_extended(self->env, name, NULL, &value))
		return value;
	return erpc_launch_envp_lookup(self->envp, name);
}

/**
 * erpc_launch_is_sandboxed:
 * @self: a #ErpcLaunch
 *
 * Whether the process runs inside the sandbox.
 *
 * Returns: %TRUE if the command runs in the sandbox its `sandbox` policy
 *   asks for (then erpc_launch_add_sandbox_file() matters)
 *
 * Since: 0.2
 */
gboolean
erpc_launch_is_sandboxed(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), FALSE);
	return self->policy != NULL && erpc_sandbox_policy_is_isolated(self->policy);
}

/**
 * erpc_launch_get_policy:
 * @self: a #ErpcLaunch
 *
 * The sandbox policy of the request, parsed by the host's sandbox service
 * as for erpc_sandbox_parse_policy(). A policy that does not isolate
 * (erpc_sandbox_policy_is_isolated() is %FALSE) is returned too: the
 * command then runs unconfined.
 *
 * Returns: (transfer none) (nullable): the policy, or %NULL if the
 *   request has no `sandbox` object
 *
 * Since: 0.2
 */
ErpcSandboxPolicy *
erpc_launch_get_policy(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return self->policy;
}

/**
 * erpc_launch_is_tty:
 * @self: a #ErpcLaunch
 *
 * Whether the process runs on a terminal.
 *
 * Returns: %TRUE if the command gets a terminal
 *
 * Since: 0.2
 */
gboolean
erpc_launch_is_tty(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), FALSE);
	return self->tty;
}

static void
erpc_launch_overlay(ErpcLaunch *self, const gchar *name, const gchar *value)
{
	if (!g_hash_table_contains(self->env, name))
		g_ptr_array_add(self->env_names, g_strdup(name));
	g_hash_table_insert(self->env, g_strdup(name), g_strdup(value));
}

/**
 * erpc_launch_setenv:
 * @self: a #ErpcLaunch
 * @name: a variable name, without `=`
 * @value: its value
 *
 * Sets a variable of the command's environment, over what the client asked
 * for.
 *
 * Since: 0.2
 */
void
erpc_launch_setenv(ErpcLaunch *self, const gchar *name, const gchar *value)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(name != NULL && name[0] != '\0' && strchr(name, '=') == NULL);
	g_return_if_fail(value != NULL);
	erpc_launch_overlay(self, name, value);
}

/**
 * erpc_launch_unsetenv:
 * @self: a #ErpcLaunch
 * @name: a variable name
 *
 * Removes a variable from the command's environment.
 *
 * Since: 0.2
 */
void
erpc_launch_unsetenv(ErpcLaunch *self, const gchar *name)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(name != NULL);
	erpc_launch_overlay(self, name, NULL);
}

/**
 * erpc_launch_prefix_argv:
 * @self: a #ErpcLaunch
 * @prefix: (array zero-terminated=1): a wrapper and its arguments, not empty
 *
 * Runs the command through a wrapper: @prefix, then the program (as its
 * path was given, not the request's `arg0`) and its arguments. The wrapper
 * is looked up as the program would have been.
 *
 * Since: 0.2
 */
void
erpc_launch_prefix_argv(ErpcLaunch *self, const gchar *const *prefix)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(prefix != NULL && prefix[0] != NULL);
	for (guint i = 0; prefix[i] != NULL; i++)
		g_ptr_array_insert(self->argv, i, g_strdup(prefix[i]));
	self->argv_changed = TRUE;
}

/**
 * erpc_launch_set_argv:
 * @self: a #ErpcLaunch
 * @argv: (array zero-terminated=1): the command to run instead, not empty
 *
 * Replaces the command; `argv[0]` is looked up as the program would have
 * been.
 *
 * Since: 0.2
 */
void
erpc_launch_set_argv(ErpcLaunch *self, const gchar *const *argv)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(argv != NULL && argv[0] != NULL);
	g_ptr_array_set_size(self->argv, 0);
	for (guint i = 0; argv[i] != NULL; i++)
		g_ptr_array_add(self->argv, g_strdup(argv[i]));
	g_ptr_array_add(self->argv, NULL);
	self->argv_changed = TRUE;
}

/**
 * erpc_launch_add_fd:
 * @self: a #ErpcLaunch
 * @fd: a descriptor, taken over (closed here, also on error)
 * @error: return location for a #GError, or %NULL
 *
 * The command inherits @fd, under the number returned (at least 7): tell
 * the command, e.g. with erpc_launch_setenv(). Inside a sandbox it is
 * inherited just the same. The daemon closes its copy once the command
 * was spawned.
 *
 * Returns: the descriptor number in the command, or -1 with @error set
 *
 * Since: 0.2
 */
gint
erpc_launch_add_fd(ErpcLaunch *self, gint fd, GError **error)
{
	gint moved;

	g_return_val_if_fail(ERPC_IS_LAUNCH(self), -1);
	g_return_val_if_fail(fd >= 0, -1);
	if (self->fds->len >= ERPC_LAUNCH_MAX_FDS) {
		close(fd);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_BUSY,
			    "too many descriptors for one command (limit %d)",
			    ERPC_LAUNCH_MAX_FDS);
		return -1;
	}
	moved = fcntl(fd, F_DUPFD_CLOEXEC, ERPC_LAUNCH_FIRST_FD);
	if (moved < 0) {
		gint saved = errno;
		close(fd);
		g_set_error(error,
			    G_IO_ERROR,
			    g_io_error_from_errno(saved),
			    "cannot pass a descriptor: %s",
			    g_strerror(saved));
		return -1;
	}
	close(fd);
	g_array_append_val(self->fds, moved);
	return moved;
}

/**
 * erpc_launch_add_sandbox_file:
 * @self: a #ErpcLaunch
 * @path: an absolute path of the host
 *
 * When the command is sandboxed, @path is bound read-only into the sandbox
 * at the same path, whatever the policy says (a helper program, a snapshot
 * the command sources). Paths under `/dev` and `/proc` are not bound.
 * Without a sandbox it changes nothing.
 *
 * Since: 0.2
 */
void
erpc_launch_add_sandbox_file(ErpcLaunch *self, const gchar *path)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(path != NULL && g_path_is_absolute(path));
	if (self->files == NULL) {
		self->files = g_ptr_array_new_with_free_func(g_free);
		g_ptr_array_add(self->files, NULL);
	}
	g_ptr_array_insert(self->files, self->files->len - 1, g_strdup(path));
}

/**
 * erpc_launch_set_network_namespace:
 * @self: a #ErpcLaunch
 * @netns_fd: a descriptor of a network namespace (`/proc/PID/ns/net`), taken
 *   over
 *
 * The command runs in that network namespace: the supervisor of the
 * command joins it (setns()) before it forks the command, so no code of
 * the plugin runs in the child. The daemon must be allowed to join it
 * (CAP_SYS_ADMIN over the namespace's user namespace); if it is not, the
 * launch fails as a spawn failure. A sandbox whose policy restricts the
 * network still gets a namespace of its own inside it.
 *
 * Since: 0.2
 */
void
erpc_launch_set_network_namespace(ErpcLaunch *self, gint netns_fd)
{
	gint moved;

	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(netns_fd >= 0);
	/* numbered as an extra descriptor, so that spawning moves it in place */
	moved = fcntl(netns_fd, F_DUPFD_CLOEXEC, ERPC_LAUNCH_FIRST_FD);
	close(netns_fd);
	if (moved < 0) {
		g_warning("cannot keep a network namespace: %s", g_strerror(errno));
		return;
	}
	if (self->netns_fd >= 0)
		close(self->netns_fd);
	self->netns_fd = moved;
}

/**
 * erpc_launch_set_managed_network:
 * @self: a #ErpcLaunch
 * @channel_fd: an `AF_UNIX` stream socket, taken over: one end of a
 *   socketpair() whose other end the plugin keeps
 * @ports: (array length=n_ports): loopback ports, as the command's
 *   variables name them
 * @n_ports: how many, 1 to 8
 *
 * Gives a sandboxed command whose policy restricts the network a managed
 * network: the sandbox's own network namespace, whose loopback holds a
 * listener on `127.0.0.1:PORT` for each of @ports, made inside the
 * namespace before the command starts. The listening sockets arrive on
 * the plugin's end of @channel_fd in one message of one byte, their
 * descriptors (`SCM_RIGHTS`) in the order of @ports; the plugin accepts the
 * command's connections on them. Only processes of that namespace, which
 * are the sandbox's, can connect to them.
 *
 * The command's seccomp filter then allows IPv4 and IPv6 stream sockets
 * and connect(2), which reach nothing but the namespace's loopback, and
 * refuses new Unix sockets, so that a path-named socket of the host stays
 * out of reach. If a listener cannot be made, the command does not run:
 * it exits with 101 and `sandboxDenied`, as `enforceManagedNetwork` without
 * a managed network does.
 *
 * Without a sandbox, or when the policy shares the host's network, nothing
 * changes: @channel_fd is closed once the command was spawned, and the
 * plugin's end reads end of file.
 *
 * Since: 0.2
 */
void
erpc_launch_set_managed_network(ErpcLaunch *self,
				gint channel_fd,
				const guint16 *ports,
				guint n_ports)
{
	gint moved;

	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(channel_fd >= 0);
	g_return_if_fail(ports != NULL && n_ports > 0 && n_ports <= ERPC_LAUNCH_MAX_MANAGED_PORTS);
	moved = fcntl(channel_fd, F_DUPFD_CLOEXEC, ERPC_LAUNCH_FIRST_FD);
	close(channel_fd);
	if (moved < 0) {
		g_warning("cannot keep the managed network's channel: %s", g_strerror(errno));
		return;
	}
	if (self->managed_fd >= 0)
		close(self->managed_fd);
	self->managed_fd = moved;
	if (self->managed_ports == NULL)
		self->managed_ports = g_array_new(FALSE, FALSE, sizeof(guint16));
	g_array_set_size(self->managed_ports, 0);
	g_array_append_vals(self->managed_ports, ports, n_ports);
}

/**
 * erpc_launch_set_managed_datagrams:
 * @self: a #ErpcLaunch
 * @n_sockets: how many, 0 to %ERPC_LAUNCH_MAX_MANAGED_DATAGRAMS
 *
 * Asks the managed network of erpc_launch_set_managed_network() for
 * @n_sockets UDP sockets as well, each bound to `127.0.0.1` at a port of
 * the kernel's choice on the namespace's loopback: a SOCKS5 proxy's UDP
 * relays. They arrive in the same message as the listeners, after them.
 *
 * With at least one, the command's seccomp filter also allows IPv4 and IPv6
 * datagram sockets and sendto(2) with an address; like its stream sockets
 * they reach nothing but the namespace's loopback. Without a managed
 * network this does nothing.
 *
 * Since: 0.2
 */
void
erpc_launch_set_managed_datagrams(ErpcLaunch *self, guint n_sockets)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(n_sockets <= ERPC_LAUNCH_MAX_MANAGED_DATAGRAMS);
	self->managed_udp = n_sockets;
}

/**
 * erpc_launch_set_hook_data:
 * @self: a #ErpcLaunch
 * @hook: the hook the data belongs to
 * @data: (nullable): what the hook keeps for this launch
 * @destroy: (nullable): frees @data, at the latest after the hook's
 *   `closed`
 *
 * A slot per hook for what it prepared (a proxy, a temporary file), so
 * that `exited` and `closed` find it.
 *
 * Since: 0.2
 */
void
erpc_launch_set_hook_data(ErpcLaunch *self,
			  ErpcLaunchHook *hook,
			  gpointer data,
			  GDestroyNotify destroy)
{
	ErpcLaunchHookData *hook_data;

	g_return_if_fail(ERPC_IS_LAUNCH(self));
	g_return_if_fail(ERPC_IS_LAUNCH_HOOK(hook));
	hook_data = g_new0(ErpcLaunchHookData, 1);
	hook_data->data = data;
	hook_data->destroy = destroy;
	g_hash_table_insert(self->hook_data, hook, hook_data);
}

/**
 * erpc_launch_get_hook_data:
 * @self: a #ErpcLaunch
 * @hook: a hook
 *
 * What the calling hook stored for this launch.
 *
 * Returns: (transfer none) (nullable): what @hook set with
 *   erpc_launch_set_hook_data()
 *
 * Since: 0.2
 */
gpointer
erpc_launch_get_hook_data(ErpcLaunch *self, ErpcLaunchHook *hook)
{
	ErpcLaunchHookData *hook_data;

	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	hook_data = g_hash_table_lookup(self->hook_data, hook);
	return hook_data != NULL ? hook_data->data : NULL;
}

/**
 * erpc_launch_new:
 * @session: the session of the process
 * @process_id: its id
 * @params: the params of `process/start`
 * @cwd: the working directory
 * @argv: the command, `argv[0]` the program
 * @envp: the environment built from the request
 * @tty: whether the command gets a terminal
 * @policy: (nullable): the policy of its `sandbox` object, if one was sent
 *
 * Returns: (transfer full): a launch no hook takes part in yet
 */
ErpcLaunch *
erpc_launch_new(ErpcSession *session,
		const gchar *process_id,
		JsonObject *params,
		const gchar *cwd,
		const gchar *const *argv,
		const gchar *const *envp,
		gboolean tty,
		ErpcSandboxPolicy *policy)
{
	ErpcLaunch *self = g_object_new(ERPC_TYPE_LAUNCH, NULL);

	self->session = g_object_ref(session);
	self->process_id = g_strdup(process_id);
	self->params = json_object_ref(params);
	self->cwd = g_strdup(cwd);
	for (guint i = 0; argv[i] != NULL; i++)
		g_ptr_array_add(self->argv, g_strdup(argv[i]));
	g_ptr_array_add(self->argv, NULL);
	self->envp = g_strdupv((gchar **)envp);
	self->tty = tty;
	self->policy = policy != NULL ? erpc_sandbox_policy_ref(policy) : NULL;
	return self;
}

/**
 * erpc_launch_claim:
 * @self: a #ErpcLaunch
 * @context: the context whose hooks may take part
 * @error: return location for a #GError, or %NULL
 *
 * Finds the hooks that take part and lets each check its members.
 *
 * Returns: %FALSE with the first hook's error on a bad member
 */
gboolean
erpc_launch_claim(ErpcLaunch *self, ErpcContext *context, GError **error)
{
	GPtrArray *hooks = erpc_context_get_launch_hooks(context);

	for (guint i = 0; i < hooks->len; i++) {
		ErpcLaunchHook *hook = g_ptr_array_index(hooks, i);
		ErpcLaunchHookInterface *iface = ERPC_LAUNCH_HOOK_GET_IFACE(hook);
		const gchar *const *members =
		    iface->get_members != NULL ? iface->get_members(hook) : NULL;
		gboolean takes_part = members == NULL || members[0] == NULL;

		for (guint j = 0; members != NULL && members[j] != NULL; j++) {
			JsonNode *value = json_object_get_member(self->params, members[j]);
			if (value == NULL || JSON_NODE_HOLDS_NULL(value))
				continue;
			takes_part = TRUE;
			if (iface->claim != NULL &&
			    !iface->claim(hook, self, members[j], value, error))
				return FALSE;
		}
		if (takes_part)
			g_ptr_array_add(self->hooks, g_object_ref(hook));
	}
	return TRUE;
}

/**
 * erpc_launch_has_hooks:
 * @self: a #ErpcLaunch
 *
 * Returns: %TRUE if a hook takes part
 */
gboolean
erpc_launch_has_hooks(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), FALSE);
	return self->hooks->len > 0;
}

static void
erpc_launch_prepare_next(GTask *task);

static void
erpc_launch_prepared_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	ErpcLaunchHook *hook = ERPC_LAUNCH_HOOK(source);
	g_autoptr(GError) error = NULL;

	if (!ERPC_LAUNCH_HOOK_GET_IFACE(hook)->prepare_finish(hook, result, &error)) {
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	erpc_launch_prepare_next(g_steal_pointer(&task));
}

/* one hook after the other; takes the task */
static void
erpc_launch_prepare_next(GTask *task)
{
	ErpcLaunch *self = g_task_get_source_object(task);

	while (self->next_prepare < self->hooks->len) {
		ErpcLaunchHook *hook = g_ptr_array_index(self->hooks, self->next_prepare++);
		ErpcLaunchHookInterface *iface = ERPC_LAUNCH_HOOK_GET_IFACE(hook);

		if (iface->prepare_async == NULL)
			continue;
		if (g_task_return_error_if_cancelled(task)) {
			g_object_unref(task);
			return;
		}
		g_return_if_fail(iface->prepare_finish != NULL);
		iface->prepare_async(hook,
				     self,
				     g_task_get_cancellable(task),
				     erpc_launch_prepared_cb,
				     task);
		return;
	}
	g_task_return_boolean(task, TRUE);
	g_object_unref(task);
}

/**
 * erpc_launch_prepare_async:
 * @self: a #ErpcLaunch
 * @cancellable: (nullable): cancelled when the launch is abandoned
 * @callback: called once every hook has prepared, or one failed
 * @user_data: for @callback
 *
 * Lets each hook that takes part prepare, in order.
 */
void
erpc_launch_prepare_async(ErpcLaunch *self,
			  GCancellable *cancellable,
			  GAsyncReadyCallback callback,
			  gpointer user_data)
{
	GTask *task = g_task_new(self, cancellable, callback, user_data);

	g_task_set_source_tag(task, erpc_launch_prepare_async);
	self->next_prepare = 0;
	erpc_launch_prepare_next(task);
}

/**
 * erpc_launch_prepare_finish:
 * @self: a #ErpcLaunch
 * @result: the result given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE if every hook prepared
 */
gboolean
erpc_launch_prepare_finish(ErpcLaunch *self, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, self), FALSE);
	return g_task_propagate_boolean(G_TASK(result), error);
}

/**
 * erpc_launch_argv_changed:
 * @self: a #ErpcLaunch
 *
 * Returns: %TRUE if a hook changed the command: its program must be
 *   looked up again
 */
gboolean
erpc_launch_argv_changed(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), FALSE);
	return self->argv_changed;
}

/**
 * erpc_launch_dup_envp:
 * @self: a #ErpcLaunch
 *
 * The whole environment the process will get, e.g. to run a helper (a
 * shell snapshot's capture) with the command's own environment. See
 * erpc_launch_getenv() for one variable.
 *
 * Returns: (transfer full) (array zero-terminated=1): the environment
 *   built from the request, with the changes made so far, as `NAME=VALUE`
 *   strings
 *
 * Since: 0.2
 */
gchar **
erpc_launch_dup_envp(ErpcLaunch *self)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();

	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	for (guint i = 0; self->envp != NULL && self->envp[i] != NULL; i++) {
		const gchar *eq = strchr(self->envp[i], '=');
		g_autofree gchar *name =
		    eq != NULL ? g_strndup(self->envp[i], eq - self->envp[i]) : NULL;
		if (name == NULL || !g_hash_table_contains(self->env, name))
			g_strv_builder_add(builder, self->envp[i]);
	}
	for (guint i = 0; i < self->env_names->len; i++) {
		const gchar *name = g_ptr_array_index(self->env_names, i);
		const gchar *value = g_hash_table_lookup(self->env, name);
		if (value != NULL) {
			g_autofree gchar *entry = g_strconcat(name, "=", value, NULL);
			g_strv_builder_add(builder, entry);
		}
	}
	return g_strv_builder_end(builder);
}

/**
 * erpc_launch_get_fds:
 * @self: a #ErpcLaunch
 * @n_fds: (out): how many
 *
 * Returns: (array length=n_fds): the descriptors the command inherits at
 *   their own numbers
 */
const gint *
erpc_launch_get_fds(ErpcLaunch *self, guint *n_fds)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	*n_fds = self->fds->len;
	return (const gint *)self->fds->data;
}

/**
 * erpc_launch_get_sandbox_files:
 * @self: a #ErpcLaunch
 *
 * Returns: (nullable) (array zero-terminated=1): paths to bind read-only
 *   into the sandbox, %NULL for none
 */
const gchar *const *
erpc_launch_get_sandbox_files(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	return self->files != NULL ? (const gchar *const *)self->files->pdata : NULL;
}

/**
 * erpc_launch_get_network_namespace:
 * @self: a #ErpcLaunch
 *
 * Returns: the descriptor of the namespace to join, or -1
 */
gint
erpc_launch_get_network_namespace(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), -1);
	return self->netns_fd;
}

/**
 * erpc_launch_get_managed_network:
 * @self: a #ErpcLaunch
 * @channel_fd: (out): the channel the listeners are sent over
 * @n_ports: (out): how many ports
 *
 * Returns: (nullable) (array length=n_ports): the loopback ports of the
 *   managed network, or %NULL when no hook asked for one
 */
const guint16 *
erpc_launch_get_managed_network(ErpcLaunch *self, gint *channel_fd, guint *n_ports)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), NULL);
	*channel_fd = self->managed_fd;
	*n_ports = self->managed_ports != NULL ? self->managed_ports->len : 0;
	if (self->managed_fd < 0 || self->managed_ports == NULL)
		return NULL;
	return (const guint16 *)self->managed_ports->data;
}

/**
 * erpc_launch_get_managed_datagrams:
 * @self: a #ErpcLaunch
 *
 * Returns: how many UDP sockets the managed network makes after its
 *   listeners (erpc_launch_set_managed_datagrams())
 */
guint
erpc_launch_get_managed_datagrams(ErpcLaunch *self)
{
	g_return_val_if_fail(ERPC_IS_LAUNCH(self), 0);
	return self->managed_fd >= 0 ? self->managed_udp : 0;
}

/**
 * erpc_launch_close_fds:
 * @self: a #ErpcLaunch
 *
 * Closes the daemon's copies once the command has its own, so that a pipe
 * the command holds sees its end when the command's end goes.
 */
void
erpc_launch_close_fds(ErpcLaunch *self)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	for (guint i = 0; i < self->fds->len; i++)
		close(g_array_index(self->fds, gint, i));
	g_array_set_size(self->fds, 0);
	if (self->netns_fd >= 0) {
		close(self->netns_fd);
		self->netns_fd = -1;
	}
	if (self->managed_fd >= 0) {
		close(self->managed_fd);
		self->managed_fd = -1;
	}
}

/**
 * erpc_launch_exiting:
 * @self: a #ErpcLaunch
 *
 * Tells the hooks that take part that `process/exited` is about to be sent.
 */
void
erpc_launch_exiting(ErpcLaunch *self)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	if (self->exited || self->closed)
		return;
	for (guint i = 0; i < self->hooks->len; i++) {
		ErpcLaunchHook *hook = g_ptr_array_index(self->hooks, i);
		if (ERPC_LAUNCH_HOOK_GET_IFACE(hook)->exiting != NULL)
			ERPC_LAUNCH_HOOK_GET_IFACE(hook)->exiting(hook, self);
	}
}

/**
 * erpc_launch_exited:
 * @self: a #ErpcLaunch
 * @exit_code: as `process/exited` reports it
 *
 * Tells the hooks that take part; once.
 */
void
erpc_launch_exited(ErpcLaunch *self, gint exit_code)
{
	g_return_if_fail(ERPC_IS_LAUNCH(self));
	if (self->exited || self->closed)
		return;
	self->exited = TRUE;
	for (guint i = 0; i < self->hooks->len; i++) {
		ErpcLaunchHook *hook = g_ptr_array_index(self->hooks, i);
		if (ERPC_LAUNCH_HOOK_GET_IFACE(hook)->exited != NULL)
			ERPC_LAUNCH_HOOK_GET_IFACE(hook)->exited(hook, self, exit_code);
	}
}

/**
 * erpc_launch_closed:
 * @self: a #ErpcLaunch
 *
 * Tells the hooks that take part that the launch is over; once. Their data
 * goes after.
 */
void
erpc_launch_closed(ErpcLaunch *self)
{
	g_autoptr(ErpcLaunch) hold = NULL;

	g_return_if_fail(ERPC_IS_LAUNCH(self));
	if (self->closed)
		return;
	self->closed = TRUE;
	hold = g_object_ref(self);
	for (guint i = 0; i < self->hooks->len; i++) {
		ErpcLaunchHook *hook = g_ptr_array_index(self->hooks, i);
		if (ERPC_LAUNCH_HOOK_GET_IFACE(hook)->closed != NULL)
			ERPC_LAUNCH_HOOK_GET_IFACE(hook)->closed(hook, self);
	}
	g_hash_table_remove_all(self->hook_data);
	erpc_launch_close_fds(self);
}

static void
erpc_launch_finalize(GObject *object)
{
	ErpcLaunch *self = ERPC_LAUNCH(object);

	erpc_launch_close_fds(self);
	g_hash_table_unref(self->hook_data);
	g_ptr_array_unref(self->hooks);
	g_clear_pointer(&self->files, g_ptr_array_unref);
	g_array_unref(self->fds);
	g_clear_pointer(&self->managed_ports, g_array_unref);
	g_hash_table_unref(self->env);
	g_ptr_array_unref(self->env_names);
	g_strfreev(self->envp);
	g_ptr_array_unref(self->argv);
	g_clear_pointer(&self->policy, erpc_sandbox_policy_unref);
	g_free(self->cwd);
	g_clear_pointer(&self->params, json_object_unref);
	g_free(self->process_id);
	g_clear_object(&self->session);
	G_OBJECT_CLASS(erpc_launch_parent_class)->finalize(object);
}

static void
erpc_launch_class_init(ErpcLaunchClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = erpc_launch_finalize;
}

static void
erpc_launch_init(ErpcLaunch *self)
{
	self->argv = g_ptr_array_new_with_free_func(g_free);
	self->env_names = g_ptr_array_new_with_free_func(g_free);
	self->env = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	self->fds = g_array_new(FALSE, FALSE, sizeof(gint));
	self->netns_fd = -1;
	self->managed_fd = -1;
	self->hooks = g_ptr_array_new_with_free_func(g_object_unref);
	self->hook_data =
	    g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, erpc_launch_hook_data_free);
}
