/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <fcntl.h>
#include <glib-unix.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <execrpc-plugin.h>

/*
 * A plugin for the launch hook and session tests, loaded alone with
 * --plugins-dir. Its hook claims the process/start member `esdTest`:
 *   {"env": {NAME: VALUE}, "unset": [NAME], "prefix": [ARG], "fdText": TEXT,
 *    "file": PATH, "netns": true, "fail": MESSAGE}
 * every member optional, anything else -32602. It prepares after a short
 * delay: sets and unsets variables, prefixes argv, passes a pipe holding
 * TEXT as $ESD_TEST_FD, binds PATH into the sandbox ($ESD_TEST_FILE), runs
 * the command in a fresh network namespace ($ESD_TEST_NETNS names it) or
 * fails with MESSAGE.
 *
 * `test/ask` {method, params?, timeoutMs, cancelAfterMs?} asks the caller's client and
 * answers {"answer": A} when the client's result is {"answer": A (string)};
 * any other failure is -32603 with data.kind detached, closed, timedOut,
 * remote, cancelled or malformed. `test/notify` {method, delayMs} notifies
 * the session after the delay. What happened outside a request (exiting,
 * exited, closed, the outcome of an ask or a notification) is kept as
 * events, returned and cleared by `test/events`; at exiting it also sends
 * `test/exiting` {processId}, which must reach the client before
 * `process/exited`.
 */

#define ESD_TYPE_LAUNCH_PLUGIN (esd_launch_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdLaunchPlugin, esd_launch_plugin, ESD, LAUNCH_PLUGIN, ErpcPlugin)

struct _EsdLaunchPlugin {
	ErpcPlugin parent_instance;
	JsonArray *events;
};

static void
esd_launch_plugin_hook_init(ErpcLaunchHookInterface *iface);

G_DEFINE_TYPE_WITH_CODE(EsdLaunchPlugin,
			esd_launch_plugin,
			ERPC_TYPE_PLUGIN,
			G_IMPLEMENT_INTERFACE(ERPC_TYPE_LAUNCH_HOOK, esd_launch_plugin_hook_init))

static void
esd_launch_plugin_event(EsdLaunchPlugin *self,
			const gchar *event,
			const gchar *process_id,
			const gchar *key,
			JsonNode *value)
{
	JsonObject *obj = json_object_new();

	json_object_set_string_member(obj, "event", event);
	if (process_id != NULL)
		json_object_set_string_member(obj, "processId", process_id);
	if (key != NULL)
		json_object_set_member(obj, key, value);
	json_array_add_object_element(self->events, obj);
}

static const gchar *const *
esd_launch_plugin_get_members(ErpcLaunchHook *hook)
{
	static const gchar *const members[] = {"esdTest", NULL};
	return members;
}

static gboolean
esd_launch_plugin_invalid(GError **error, const gchar *what)
{
	g_set_error(error, ERPC_ERROR, ERPC_ERROR_INVALID_PARAMS, "invalid esdTest: %s", what);
	return FALSE;
}

static gboolean
esd_launch_plugin_check_strings(JsonNode *node, gboolean map)
{
	g_autoptr(GList) values = NULL;

	if (map ? !JSON_NODE_HOLDS_OBJECT(node) : !JSON_NODE_HOLDS_ARRAY(node))
		return FALSE;
	values = map ? json_object_get_values(json_node_get_object(node))
		     : json_array_get_elements(json_node_get_array(node));
	for (GList *l = values; l != NULL; l = l->next) {
		JsonNode *value = l->data;
		if (!JSON_NODE_HOLDS_VALUE(value) ||
		    json_node_get_value_type(value) != G_TYPE_STRING)
			return FALSE;
	}
	return TRUE;
}

static gboolean
esd_launch_plugin_claim(ErpcLaunchHook *hook,
			ErpcLaunch *launch,
			const gchar *member,
			JsonNode *value,
			GError **error)
{
	JsonObject *obj;
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *node;

	if (!JSON_NODE_HOLDS_OBJECT(value))
		return esd_launch_plugin_invalid(error, "expected an object");
	obj = json_node_get_object(value);
	json_object_iter_init(&iter, obj);
	while (json_object_iter_next(&iter, &name, &node)) {
		gboolean ok;
		if (g_str_equal(name, "env"))
			ok = esd_launch_plugin_check_strings(node, TRUE);
		else if (g_str_equal(name, "unset") || g_str_equal(name, "prefix"))
			ok = esd_launch_plugin_check_strings(node, FALSE);
		else if (g_str_equal(name, "fdText") || g_str_equal(name, "fail") ||
			 g_str_equal(name, "file") || g_str_equal(name, "policy"))
			ok = JSON_NODE_HOLDS_VALUE(node) &&
			     json_node_get_value_type(node) == G_TYPE_STRING;
		else if (g_str_equal(name, "netns"))
			ok = JSON_NODE_HOLDS_VALUE(node) &&
			     json_node_get_value_type(node) == G_TYPE_BOOLEAN;
		else
			return esd_launch_plugin_invalid(error, "unknown member");
		if (!ok)
			return esd_launch_plugin_invalid(error, name);
	}
	erpc_launch_set_hook_data(launch,
				  hook,
				  json_object_ref(obj),
				  (GDestroyNotify)json_object_unref);
	return TRUE;
}

/* a thread may enter a network namespace of its own; the daemon's threads stay */
static gpointer
esd_launch_plugin_netns_thread(gpointer data)
{
	if (unshare(CLONE_NEWNET) != 0)
		return GINT_TO_POINTER(-1);
	return GINT_TO_POINTER(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
}

static gboolean
esd_launch_plugin_apply(ErpcLaunchHook *hook, ErpcLaunch *launch, GError **error)
{
	JsonObject *obj = erpc_launch_get_hook_data(launch, hook);
	JsonNode *node;

	if (json_object_has_member(obj, "fail")) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "%s",
			    json_object_get_string_member(obj, "fail"));
		return FALSE;
	}
	if ((node = json_object_get_member(obj, "env")) != NULL) {
		JsonObjectIter iter;
		const gchar *name;
		JsonNode *value;
		json_object_iter_init(&iter, json_node_get_object(node));
		while (json_object_iter_next(&iter, &name, &value))
			erpc_launch_setenv(launch, name, json_node_get_string(value));
	}
	if ((node = json_object_get_member(obj, "unset")) != NULL) {
		JsonArray *names = json_node_get_array(node);
		for (guint i = 0; i < json_array_get_length(names); i++)
			erpc_launch_unsetenv(launch, json_array_get_string_element(names, i));
	}
	if ((node = json_object_get_member(obj, "prefix")) != NULL) {
		JsonArray *args = json_node_get_array(node);
		g_autoptr(GPtrArray) prefix = g_ptr_array_new();
		for (guint i = 0; i < json_array_get_length(args); i++)
			g_ptr_array_add(prefix, (gpointer)json_array_get_string_element(args, i));
		g_ptr_array_add(prefix, NULL);
		if (prefix->len > 1)
			erpc_launch_prefix_argv(launch, (const gchar *const *)prefix->pdata);
	}
	if (json_object_has_member(obj, "fdText")) {
		const gchar *text = json_object_get_string_member(obj, "fdText");
		g_autofree gchar *number = NULL;
		gint fds[2];
		gint fd;

		if (!g_unix_open_pipe(fds, FD_CLOEXEC, error))
			return FALSE;
		if (write(fds[1], text, strlen(text)) != (gssize)strlen(text)) {
			close(fds[0]);
			close(fds[1]);
			g_set_error_literal(error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "short write");
			return FALSE;
		}
		close(fds[1]);
		fd = erpc_launch_add_fd(launch, fds[0], error);
		if (fd < 0)
			return FALSE;
		number = g_strdup_printf("%d", fd);
		erpc_launch_setenv(launch, "ESD_TEST_FD", number);
	}
	if (json_object_has_member(obj, "file")) {
		const gchar *path = json_object_get_string_member(obj, "file");
		erpc_launch_add_sandbox_file(launch, path);
		erpc_launch_setenv(launch, "ESD_TEST_FILE", path);
	}
	/* what the request's policy allows at a path, as the hook sees it */
	if (json_object_has_member(obj, "policy")) {
		const gchar *const access[] = {"read", "write", "deny"};
		ErpcSandboxPolicy *policy = erpc_launch_get_policy(launch);
		g_autofree gchar *value = NULL;

		if (policy != NULL)
			value =
			    g_strdup_printf("%s %s",
					    access[erpc_sandbox_policy_get_access(
						policy,
						json_object_get_string_member(obj, "policy"))],
					    erpc_launch_is_sandboxed(launch) ? "isolated" : "open");
		erpc_launch_setenv(launch, "ESD_TEST_POLICY", value != NULL ? value : "none");
	}
	if (json_object_has_member(obj, "netns") && json_object_get_boolean_member(obj, "netns")) {
		GThread *thread = g_thread_new("netns", esd_launch_plugin_netns_thread, NULL);
		gint fd = GPOINTER_TO_INT(g_thread_join(thread));
		g_autofree gchar *name = NULL;
		struct stat st;

		if (fd < 0 || fstat(fd, &st) != 0) {
			if (fd >= 0)
				close(fd);
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_NOT_SUPPORTED,
					    "no network namespace for the test");
			return FALSE;
		}
		name = g_strdup_printf("net:[%" G_GUINT64_FORMAT "]", (guint64)st.st_ino);
		erpc_launch_set_network_namespace(launch, fd);
		erpc_launch_setenv(launch, "ESD_TEST_NETNS", name);
	}
	return TRUE;
}

static gboolean
esd_launch_plugin_prepared_cb(gpointer user_data)
{
	GTask *task = G_TASK(user_data);
	g_autoptr(GError) error = NULL;

	if (g_task_return_error_if_cancelled(task))
		return G_SOURCE_REMOVE;
	if (!esd_launch_plugin_apply(g_task_get_source_object(task),
				     g_task_get_task_data(task),
				     &error))
		g_task_return_error(task, g_steal_pointer(&error));
	else
		g_task_return_boolean(task, TRUE);
	return G_SOURCE_REMOVE;
}

/* asynchronous as a hook that starts a proxy would be */
static void
esd_launch_plugin_prepare_async(ErpcLaunchHook *hook,
				ErpcLaunch *launch,
				GCancellable *cancellable,
				GAsyncReadyCallback callback,
				gpointer user_data)
{
	GTask *task = g_task_new(hook, cancellable, callback, user_data);

	g_task_set_task_data(task, g_object_ref(launch), g_object_unref);
	g_timeout_add_full(G_PRIORITY_DEFAULT,
			   10,
			   esd_launch_plugin_prepared_cb,
			   task,
			   g_object_unref);
}

static gboolean
esd_launch_plugin_prepare_finish(ErpcLaunchHook *hook, GAsyncResult *result, GError **error)
{
	return g_task_propagate_boolean(G_TASK(result), error);
}

static void
esd_launch_plugin_exiting(ErpcLaunchHook *hook, ErpcLaunch *launch)
{
	g_autoptr(JsonNode) params = json_node_init_object(json_node_alloc(), json_object_new());

	json_object_set_string_member(json_node_get_object(params),
				      "processId",
				      erpc_launch_get_process_id(launch));
	erpc_session_notify(erpc_launch_get_session(launch), "test/exiting", params);
	esd_launch_plugin_event(ESD_LAUNCH_PLUGIN(hook),
				"exiting",
				erpc_launch_get_process_id(launch),
				NULL,
				NULL);
}

static void
esd_launch_plugin_exited(ErpcLaunchHook *hook, ErpcLaunch *launch, gint exit_code)
{
	esd_launch_plugin_event(ESD_LAUNCH_PLUGIN(hook),
				"exited",
				erpc_launch_get_process_id(launch),
				"exitCode",
				json_node_init_int(json_node_alloc(), exit_code));
}

static void
esd_launch_plugin_closed(ErpcLaunchHook *hook, ErpcLaunch *launch)
{
	esd_launch_plugin_event(ESD_LAUNCH_PLUGIN(hook),
				"closed",
				erpc_launch_get_process_id(launch),
				NULL,
				NULL);
}

static void
esd_launch_plugin_hook_init(ErpcLaunchHookInterface *iface)
{
	iface->get_members = esd_launch_plugin_get_members;
	iface->claim = esd_launch_plugin_claim;
	iface->prepare_async = esd_launch_plugin_prepare_async;
	iface->prepare_finish = esd_launch_plugin_prepare_finish;
	iface->exiting = esd_launch_plugin_exiting;
	iface->exited = esd_launch_plugin_exited;
	iface->closed = esd_launch_plugin_closed;
}

static const gchar *
esd_launch_plugin_error_kind(const GError *error)
{
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
		return "cancelled";
	if (error->domain != ERPC_SESSION_ERROR)
		return "other";
	switch (error->code) {
	case ERPC_SESSION_ERROR_DETACHED:
		return "detached";
	case ERPC_SESSION_ERROR_CLOSED:
		return "closed";
	case ERPC_SESSION_ERROR_TIMED_OUT:
		return "timedOut";
	case ERPC_SESSION_ERROR_REMOTE:
		return "remote";
	default:
		return "other";
	}
}

static void
esd_launch_plugin_answered_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(ErpcCall) call = user_data;
	EsdLaunchPlugin *self = ESD_LAUNCH_PLUGIN(g_object_get_data(G_OBJECT(call), "plugin"));
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) answer =
	    erpc_session_request_finish(ERPC_SESSION(source), result, &error);
	g_autoptr(GError) wire = NULL;
	const gchar *kind = NULL;
	JsonObject *obj;
	JsonNode *data;

	if (answer == NULL) {
		kind = esd_launch_plugin_error_kind(error);
	} else if (!JSON_NODE_HOLDS_OBJECT(answer) ||
		   !json_object_has_member(json_node_get_object(answer), "answer") ||
		   json_node_get_value_type(json_object_get_member(json_node_get_object(answer),
								   "answer")) != G_TYPE_STRING) {
		kind = "malformed";
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "malformed answer from the client");
	}
	esd_launch_plugin_event(
	    self,
	    "ask",
	    NULL,
	    "outcome",
	    json_node_init_string(json_node_alloc(), kind != NULL ? kind : "ok"));
	if (erpc_call_is_finished(call))
		return;
	if (kind == NULL) {
		erpc_call_return(call, g_steal_pointer(&answer));
		return;
	}
	data = json_node_new(JSON_NODE_OBJECT);
	obj = json_object_new();
	json_object_set_string_member(obj, "kind", kind);
	json_node_take_object(data, obj);
	wire = g_error_new_literal(ERPC_ERROR, ERPC_ERROR_INTERNAL, error->message);
	erpc_call_return_error_full(call, wire, data);
}

static gboolean
esd_launch_plugin_cancel_cb(gpointer user_data)
{
	g_cancellable_cancel(G_CANCELLABLE(user_data));
	return G_SOURCE_REMOVE;
}

static void
esd_launch_plugin_ask(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	const gchar *method = NULL;
	JsonObject *ask_params = NULL;
	guint64 timeout_ms = 0;
	guint64 cancel_ms = 0;
	g_autoptr(JsonNode) node = NULL;
	g_autoptr(GCancellable) cancellable = g_cancellable_new();

	if (!erpc_json_require_string(params, "method", &method, &error) ||
	    !erpc_json_get_object(params, "params", &ask_params, &error) ||
	    !erpc_json_require_uint64(params, "timeoutMs", &timeout_ms, &error) ||
	    !erpc_json_get_uint64(params, "cancelAfterMs", 0, &cancel_ms, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (ask_params != NULL)
		node = json_node_init_object(json_node_alloc(), ask_params);
	if (cancel_ms > 0)
		g_timeout_add_full(G_PRIORITY_DEFAULT,
				   (guint)MIN(cancel_ms, 10000),
				   esd_launch_plugin_cancel_cb,
				   g_object_ref(cancellable),
				   g_object_unref);
	/* the test's own key on its own call object */
	g_object_set_data(G_OBJECT(call), "plugin", user_data);
	erpc_session_request_async(erpc_call_get_session(call),
				   method,
				   node,
				   (guint)MIN(timeout_ms, 60000),
				   cancellable,
				   esd_launch_plugin_answered_cb,
				   g_object_ref(call));
}

typedef struct {
	EsdLaunchPlugin *plugin;
	ErpcSession *session;
	gchar *method;
} EsdLaunchNotify;

static void
esd_launch_notify_free(gpointer data)
{
	EsdLaunchNotify *notify = data;
	g_object_unref(notify->session);
	g_free(notify->method);
	g_free(notify);
}

static gboolean
esd_launch_plugin_notify_cb(gpointer user_data)
{
	EsdLaunchNotify *notify = user_data;
	g_autoptr(JsonNode) params = json_node_new(JSON_NODE_OBJECT);
	gboolean sent;

	json_node_take_object(params, json_object_new());
	json_object_set_string_member(json_node_get_object(params), "from", "esd-test");
	sent = erpc_session_notify(notify->session, notify->method, params);
	esd_launch_plugin_event(notify->plugin,
				"notify",
				NULL,
				"sent",
				json_node_init_boolean(json_node_alloc(), sent));
	return G_SOURCE_REMOVE;
}

static void
esd_launch_plugin_notify(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	const gchar *method = NULL;
	guint64 delay_ms = 0;
	EsdLaunchNotify *notify;

	if (!erpc_json_require_string(params, "method", &method, &error) ||
	    !erpc_json_require_uint64(params, "delayMs", &delay_ms, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	notify = g_new0(EsdLaunchNotify, 1);
	notify->plugin = user_data;
	notify->session = g_object_ref(erpc_call_get_session(call));
	notify->method = g_strdup(method);
	g_timeout_add_full(G_PRIORITY_DEFAULT,
			   (guint)MIN(delay_ms, 10000),
			   esd_launch_plugin_notify_cb,
			   notify,
			   esd_launch_notify_free);
	erpc_call_return_raw(call, "{}");
}

static void
esd_launch_plugin_events(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdLaunchPlugin *self = ESD_LAUNCH_PLUGIN(user_data);
	g_autoptr(JsonNode) result = json_node_new(JSON_NODE_OBJECT);

	json_node_take_object(result, json_object_new());
	json_object_set_array_member(json_node_get_object(result), "events", self->events);
	self->events = json_array_new();
	erpc_call_return(call, g_steal_pointer(&result));
}

static gboolean
esd_launch_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo methods[] = {
	    {.name = "test/ask",
	     .family = "test",
	     .params_type = "AskParams",
	     .func = esd_launch_plugin_ask},
	    {.name = "test/notify",
	     .family = "test",
	     .params_type = "NotifyParams",
	     .func = esd_launch_plugin_notify},
	    {.name = "test/events", .family = "test", .func = esd_launch_plugin_events},
	};

	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (!erpc_registry_add_method(registry, &methods[i], plugin, NULL, error))
			return FALSE;
	}
	return erpc_context_add_launch_hook(erpc_registry_get_context(registry),
					    ERPC_LAUNCH_HOOK(plugin),
					    error);
}

static void
esd_launch_plugin_finalize(GObject *object)
{
	json_array_unref(ESD_LAUNCH_PLUGIN(object)->events);
	G_OBJECT_CLASS(esd_launch_plugin_parent_class)->finalize(object);
}

static void
esd_launch_plugin_init(EsdLaunchPlugin *self)
{
	self->events = json_array_new();
}

static void
esd_launch_plugin_class_init(EsdLaunchPluginClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = esd_launch_plugin_finalize;
	ERPC_PLUGIN_CLASS(klass)->setup = esd_launch_plugin_setup;
}

ERPC_PLUGIN_DEFINE("launch",
		   "0.2",
		   "test plugin: a launch hook and requests to the client",
		   esd_launch_plugin_get_type)
