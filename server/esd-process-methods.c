/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erpc-context-private.h"
#include "erpc-launch-private.h"
#include "esd-child-env.h"
#include "esd-dispatcher.h"
#include "esd-process-methods.h"
#include "esd-sandbox-host.h"
#include "esd-sandbox-launch.h"
#include "esd-sandbox-policy.h"
#include "esd-session.h"

/* the process methods: parse and check the params, then hand over to EsdProcess */

#define ESD_PTY_ROWS 24
#define ESD_PTY_COLS 80

static EsdSession *
esd_process_methods_session(ErpcCall *call)
{
	EsdDispatcher *dispatcher = erpc_call_get_context(call);
	return dispatcher != NULL ? esd_dispatcher_get_session(dispatcher) : NULL;
}

static void
esd_process_methods_spawn_error(ErpcCall *call, gint errnum, const gchar *kind)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) data = json_node_new(JSON_NODE_OBJECT);
	JsonObject *obj = json_object_new();

	json_object_set_string_member(obj, "kind", kind);
	json_node_take_object(data, obj);
	g_set_error(&error,
		    ERPC_ERROR,
		    ERPC_ERROR_INTERNAL,
		    "%s (os error %d)",
		    g_strerror(errnum),
		    errnum);
	erpc_call_return_error_full(call, error, g_steal_pointer(&data));
}

static void
esd_process_methods_error_kind(ErpcCall *call, GError *error, const gchar *kind)
{
	g_autoptr(JsonNode) data = json_node_new(JSON_NODE_OBJECT);
	JsonObject *obj = json_object_new();

	json_object_set_string_member(obj, "kind", kind);
	json_node_take_object(data, obj);
	erpc_call_return_error_full(call, error, g_steal_pointer(&data));
}

/* execvp's lookup, against a PATH of our choosing */
static gchar *
esd_process_methods_find_program(const gchar *program, const gchar *path)
{
	g_auto(GStrv) dirs = NULL;

	if (strchr(program, '/') != NULL)
		return g_strdup(program);
	if (path == NULL)
		return NULL;
	dirs = g_strsplit(path, ":", -1);
	for (guint i = 0; dirs[i] != NULL; i++) {
		g_autofree gchar *candidate =
		    g_build_filename(dirs[i][0] != '\0' ? dirs[i] : ".", program, NULL);
		struct stat st;
		if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(candidate, X_OK) == 0)
			return g_steal_pointer(&candidate);
	}
	return NULL;
}

static const gchar *
esd_process_methods_env_lookup(gchar **envp, const gchar *name)
{
	gsize len = strlen(name);
	for (guint i = 0; envp[i] != NULL; i++) {
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return envp[i] + len + 1;
	}
	return NULL;
}

typedef struct {
	gchar *id;
	gchar **argv;
	gchar *cwd;
	gchar **envp;
	gchar *program;
	gboolean tty;
	gboolean pipe_stdin;
	gboolean has_sandbox; /* a `sandbox` object was sent: sandboxType linuxSeccomp */
	ErpcSandboxPolicy *sandbox_policy; /* as launch hooks see it; NULL without one */
	const EsdSandboxPolicy *policy;	   /* its parsed form, owned by sandbox_policy */
	gchar *thread_id;		   /* metadata, for the lifecycle records */
	gchar *tool_call_id;
	gboolean enforce_managed_network;
} EsdStartParams;

static void
esd_start_params_clear(EsdStartParams *params)
{
	g_free(params->id);
	g_strfreev(params->argv);
	g_free(params->cwd);
	g_strfreev(params->envp);
	g_free(params->program);
	g_free(params->thread_id);
	g_free(params->tool_call_id);
	g_clear_pointer(&params->sandbox_policy, erpc_sandbox_policy_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(EsdStartParams, esd_start_params_clear)

/* the service plugins use: process/start parses its policies the same way */
static EsdSandboxHost *
esd_process_methods_sandbox(ErpcContext *context)
{
	static ErpcSandbox *own = NULL;
	ErpcSandbox *sandbox = context != NULL ? erpc_context_get_sandbox(context) : NULL;

	if (sandbox != NULL && ESD_IS_SANDBOX_HOST(sandbox))
		return ESD_SANDBOX_HOST(sandbox);
	/* methods registered without the daemon's context: a service of their own */
	if (g_once_init_enter(&own))
		g_once_init_leave(&own, esd_sandbox_host_new());
	return ESD_SANDBOX_HOST(own);
}

/* the daemon checks a member itself unless a launch hook claims it */
static gboolean
esd_process_methods_owns(ErpcContext *context, const gchar *member)
{
	return context == NULL || !erpc_context_claims_member(context, member);
}

/*
 * `metadata.threadId` is a UUID as the reference's uuid crate reads one:
 * 32 hex digits, or hyphenated (8-4-4-4-12), also in braces or after
 * `urn:uuid:`. The errors are that crate's, word for word.
 */
static gboolean
esd_process_methods_check_uuid(const gchar *text, GError **error)
{
	static const guint starts[5] = {0, 9, 14, 19, 24};
	gsize len = strlen(text);
	const gchar *uuid = text;
	gsize uuid_len = len;
	gboolean simple = TRUE;
	guint hyphens = 0;
	gsize bounds[4] = {0};
	gboolean valid = TRUE;

	if (len >= 2 && text[0] == '{' && text[len - 1] == '}') {
		uuid = text + 1;
		uuid_len = len - 2;
		simple = FALSE;
	} else if (g_str_has_prefix(text, "urn:uuid:")) {
		uuid = text + 9;
		uuid_len = len - 9;
		simple = FALSE;
	}
	/* the shapes the parser accepts */
	if (len == 32 && simple) {
		for (gsize i = 0; i < 32; i++)
			valid = valid && g_ascii_isxdigit(text[i]);
	} else if (uuid_len == 36 && (len == 36 || len == 38 || len == 45)) {
		for (gsize i = 0; i < 36; i++) {
			gboolean dash = i == 8 || i == 13 || i == 18 || i == 23;
			valid = valid && (dash ? uuid[i] == '-' : g_ascii_isxdigit(uuid[i]));
		}
	} else {
		valid = FALSE;
	}
	if (valid)
		return TRUE;
	/* why not, as the crate tells it */
	for (const gchar *p = uuid; p < uuid + uuid_len; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		gsize index = (gsize)(p - uuid);
		if (c == '-') {
			if (hyphens < 4)
				bounds[hyphens] = index;
			hyphens++;
		} else if (c > 0x7f || !g_ascii_isxdigit((gchar)c)) {
			gchar utf8[7] = {0};
			g_unichar_to_utf8(c, utf8);
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid character: expected an optional prefix of `urn:uuid:` "
				    "followed by [0-9a-fA-F-], found `%s` at %" G_GSIZE_FORMAT,
				    utf8,
				    index + 1);
			return FALSE;
		}
	}
	if (hyphens == 0 && simple) {
		g_set_error(
		    error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid length: expected length 32 for simple format, found %" G_GSIZE_FORMAT,
		    len);
		return FALSE;
	}
	if (hyphens != 4) {
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid group count: expected 5, found %u",
			    hyphens + 1);
		return FALSE;
	}
	for (guint i = 0; i < 4; i++) {
		if (bounds[i] != starts[i + 1] - 1) {
			g_set_error(
			    error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid group length in group %u: expected %u, found %" G_GSIZE_FORMAT,
			    i,
			    (guint[]){8, 4, 4, 4, 12}[i],
			    bounds[i] - starts[i]);
			return FALSE;
		}
	}
	g_set_error(error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid group length in group 4: expected 12, found %" G_GSIZE_FORMAT,
		    len - starts[4]);
	return FALSE;
}

/* serde's words for a JSON value of the wrong type, read from a generic value */
static gchar *
esd_process_methods_unexpected(JsonNode *node)
{
	if (JSON_NODE_HOLDS_ARRAY(node))
		return g_strdup("sequence");
	if (JSON_NODE_HOLDS_OBJECT(node))
		return g_strdup("map");
	if (json_node_get_value_type(node) == G_TYPE_BOOLEAN)
		return g_strdup(json_node_get_boolean(node) ? "boolean `true`" : "boolean `false`");
	if (json_node_get_value_type(node) == G_TYPE_STRING) {
		g_autofree gchar *escaped = g_strescape(json_node_get_string(node), NULL);
		return g_strdup_printf("string \"%s\"", escaped);
	}
	return g_strdup("number");
}

/* one string member of the metadata: NULL when absent or null */
static gboolean
esd_process_methods_metadata_string(JsonNode *node, gchar **out, GError **error)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (json_node_get_value_type(node) != G_TYPE_STRING || JSON_NODE_HOLDS_ARRAY(node) ||
	    JSON_NODE_HOLDS_OBJECT(node)) {
		g_autofree gchar *what = esd_process_methods_unexpected(node);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid type: %s, expected a string",
			    what);
		return FALSE;
	}
	*out = g_strdup(json_node_get_string(node));
	return TRUE;
}

/*
 * process/start `metadata` {threadId?, toolCallId?}: telemetry only. As the
 * reference reads it, a struct may also come as an array of its members in
 * order, and null is no metadata.
 */
static gboolean
esd_process_methods_parse_metadata(JsonNode *metadata, EsdStartParams *out, GError **error)
{
	JsonNode *thread = NULL;
	JsonNode *tool_call = NULL;

	if (metadata == NULL || JSON_NODE_HOLDS_NULL(metadata))
		return TRUE;
	if (JSON_NODE_HOLDS_OBJECT(metadata)) {
		thread = json_object_get_member(json_node_get_object(metadata), "threadId");
		tool_call = json_object_get_member(json_node_get_object(metadata), "toolCallId");
	} else if (JSON_NODE_HOLDS_ARRAY(metadata)) {
		JsonArray *array = json_node_get_array(metadata);
		guint n = json_array_get_length(array);
		if (n > 2) {
			g_set_error(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "invalid length %u, expected fewer elements in array",
				    n);
			return FALSE;
		}
		thread = n > 0 ? json_array_get_element(array, 0) : NULL;
		tool_call = n > 1 ? json_array_get_element(array, 1) : NULL;
	} else {
		g_autofree gchar *what = esd_process_methods_unexpected(metadata);
		g_set_error(error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "invalid type: %s, expected struct ExecMetadata",
			    what);
		return FALSE;
	}
	if (!esd_process_methods_metadata_string(thread, &out->thread_id, error))
		return FALSE;
	if (out->thread_id != NULL && !esd_process_methods_check_uuid(out->thread_id, error))
		return FALSE;
	return esd_process_methods_metadata_string(tool_call, &out->tool_call_id, error);
}

static gboolean
esd_process_methods_check_list(JsonObject *obj, const gchar *member, gboolean ports, GError **error)
{
	JsonNode *node = json_object_get_member(obj, member);
	JsonArray *array;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return erpc_json_value_type_error(node, "a sequence", error);
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *item = json_array_get_element(array, i);
		gboolean is_value = JSON_NODE_HOLDS_VALUE(item);

		if (!ports && (!is_value || json_node_get_value_type(item) != G_TYPE_STRING))
			return erpc_json_value_type_error(item, "a string", error);
		if (ports && is_value && json_node_get_value_type(item) == G_TYPE_INT64) {
			gint64 port = json_node_get_int(item);
			if (port >= 0 && port <= G_MAXUINT16)
				continue;
		}
		if (ports && is_value &&
		    (json_node_get_value_type(item) == G_TYPE_INT64 ||
		     json_node_get_value_type(item) == G_TYPE_DOUBLE)) {
			g_set_error_literal(error,
					    ERPC_ERROR,
					    ERPC_ERROR_INVALID_PARAMS,
					    "invalid number");
			return FALSE;
		}
		if (ports)
			return erpc_json_value_type_error(item, "u16", error);
	}
	return TRUE;
}

/*
 * ManagedNetworkSandboxContext, checked as the reference checks it. Its
 * members describe a proxy of the client's; this daemon routes a managed
 * sandbox to its own proxy only, so they are accepted and not followed.
 */
static gboolean
esd_process_methods_check_managed(JsonNode *node, GError **error)
{
	JsonObject *obj;
	gboolean flag = FALSE;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return erpc_json_value_type_error(node,
						  "struct ManagedNetworkSandboxContext",
						  error);
	obj = json_node_get_object(node);
	if (!esd_process_methods_check_list(obj, "loopbackPorts", TRUE, error) ||
	    !erpc_json_get_boolean(obj, "allowLocalBinding", FALSE, &flag, error) ||
	    !esd_process_methods_check_list(obj, "allowUnixSockets", FALSE, error) ||
	    !erpc_json_get_boolean(obj, "dangerouslyAllowAllUnixSockets", FALSE, &flag, error) ||
	    !erpc_json_get_boolean(obj, "transparentTcp", FALSE, &flag, error))
		return FALSE;
	if (flag) {
		g_set_error_literal(error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "transparent TCP requires an executor-local managed proxy");
		return FALSE;
	}
	return TRUE;
}

static gboolean
esd_process_methods_parse_start(JsonObject *params,
				EsdStartParams *out,
				ErpcCall *call,
				ErpcContext *context)
{
	g_autoptr(GError) error = NULL;
	const gchar *id = NULL;
	const gchar *arg0 = NULL;
	JsonObject *env = NULL;
	JsonObject *policy = NULL;
	JsonObject *sandbox = NULL;
	JsonObject *snapshot = NULL;
	JsonObject *proxy = NULL;
	gboolean enforce = FALSE;

	if (!erpc_json_require_string(params, "processId", &id, &error) ||
	    !erpc_json_require_strv(params, "argv", &out->argv, &error) ||
	    !erpc_json_require_path(params, "cwd", &out->cwd, &error) ||
	    !erpc_json_require_object(params, "env", &env, &error) ||
	    !erpc_json_require_boolean(params, "tty", &out->tty, &error) ||
	    !erpc_json_get_boolean(params, "pipeStdin", FALSE, &out->pipe_stdin, &error) ||
	    !erpc_json_get_string(params, "arg0", NULL, &arg0, &error) ||
	    !erpc_json_get_object(params, "envPolicy", &policy, &error) ||
	    (esd_process_methods_owns(context, "shellSnapshot") &&
	     !erpc_json_get_object(params, "shellSnapshot", &snapshot, &error)) ||
	    !erpc_json_get_object(params, "sandbox", &sandbox, &error) ||
	    (esd_process_methods_owns(context, "enforceManagedNetwork") &&
	     !erpc_json_get_boolean(params, "enforceManagedNetwork", FALSE, &enforce, &error)) ||
	    (esd_process_methods_owns(context, "managedNetwork") &&
	     !esd_process_methods_check_managed(json_object_get_member(params, "managedNetwork"),
						&error)) ||
	    (esd_process_methods_owns(context, "networkProxy") &&
	     !erpc_json_get_object(params, "networkProxy", &proxy, &error)))
		goto invalid;
	out->id = g_strdup(id);
	if (!esd_process_methods_parse_metadata(json_object_get_member(params, "metadata"),
						out,
						&error))
		goto invalid;
	if (out->argv[0] == NULL) {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "argv must not be empty");
		goto invalid;
	}
	if (snapshot != NULL) {
		const gchar *scope = NULL;
		if (!erpc_json_require_string(snapshot, "scopeId", &scope, &error))
			goto invalid;
		if (scope[0] == '\0' || strlen(scope) > 256) {
			g_set_error_literal(
			    &error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_PARAMS,
			    "shell snapshot scope must be non-empty and at most 256 bytes");
			goto invalid;
		}
	}
	out->enforce_managed_network = enforce;
	if (proxy != NULL) {
		g_set_error_literal(
		    &error,
		    ERPC_ERROR,
		    ERPC_ERROR_INVALID_PARAMS,
		    "invalid network proxy config: this executor does not launch a managed "
		    "network proxy");
		goto invalid;
	}
	if (sandbox != NULL) {
		EsdSandboxHost *host = esd_process_methods_sandbox(context);

		out->has_sandbox = TRUE;
		out->sandbox_policy =
		    erpc_sandbox_parse_policy(ERPC_SANDBOX(host), sandbox, out->cwd, &error);
		if (out->sandbox_policy == NULL) {
			if (error->domain == ERPC_SANDBOX_ERROR) {
				erpc_call_return_sandbox_error(call, error);
				return FALSE;
			}
			goto invalid;
		}
		out->policy = esd_sandbox_host_get_policy(host, out->sandbox_policy);
	}
	out->envp = esd_child_env_build(env, policy, out->tty, &error);
	if (out->envp == NULL)
		goto invalid;
	if (arg0 != NULL) {
		g_free(out->program);
		out->program = g_strdup(out->argv[0]);
		g_free(out->argv[0]);
		out->argv[0] = g_strdup(arg0);
	} else {
		out->program = g_strdup(out->argv[0]);
	}
	return TRUE;
invalid:
	erpc_call_return_error(call, error);
	return FALSE;
}

static void
esd_process_methods_started_cb(EsdProcess *process, const GError *error, ErpcCall *call)
{
	EsdSession *session = esd_process_get_session(process);
	g_autofree gchar *result = NULL;
	ErpcJsonWriter writer;
	GString *out;

	g_signal_handlers_disconnect_by_data(process, call);
	if (error != NULL) {
		const gchar *kind = esd_process_get_failure_kind(process);
		g_autofree gchar *id = g_strdup(esd_process_get_id(process));
		esd_process_methods_error_kind(call,
					       (GError *)error,
					       kind != NULL ? kind : "spawnFailed");
		/* a process that never ran leaves no trace */
		if (session != NULL)
			esd_session_remove_process(session, id);
		g_object_unref(call);
		return;
	}
	out = g_string_new(NULL);
	erpc_json_writer_init(&writer, out);
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "processId", esd_process_get_id(process));
	erpc_json_writer_member_string(&writer,
				       "sandboxType",
				       esd_process_get_sandbox_type(process));
	erpc_json_writer_end_object(&writer);
	result = g_string_free(out, FALSE);
	erpc_call_return_raw(call, result);
	g_object_unref(call);
}

/*
 * The command runs as bwrap's, prepared as every sandboxed command is
 * (esd_sandbox_launch_prepare()); the supervisor maps bwrap's descriptors
 * and enters the launch's Landlock ruleset. Fails closed.
 */
/*
 * The managed network's first step inside the sandbox (esd-supervise
 * --managed-network): the proxy's listeners on the namespace's loopback,
 * or, with enforceManagedNetwork and no proxy, a refusal that exits 101.
 */
static gboolean
esd_process_methods_managed_network(EsdStartParams *start,
				    ErpcLaunch *launch,
				    GPtrArray *argv,
				    GPtrArray *strings,
				    gint *channel_fd,
				    guint *n_datagrams)
{
	const guint16 *ports = NULL;
	guint n_ports = 0;
	GString *list;

	*channel_fd = -1;
	*n_datagrams = 0;
	/* enforceManagedNetwork takes the host's network away too, as on the reference */
	if (start->policy->network != ESD_SANDBOX_NETWORK_RESTRICTED &&
	    !start->enforce_managed_network)
		return FALSE;
	if (launch != NULL)
		ports = erpc_launch_get_managed_network(launch, channel_fd, &n_ports);
	if (ports == NULL && !start->enforce_managed_network)
		return FALSE;
	g_ptr_array_add(argv, (gpointer)esd_spawn_get_supervisor());
	g_ptr_array_add(argv, (gpointer) "--managed-network");
	if (ports == NULL) {
		*channel_fd = -1;
		g_ptr_array_add(argv, (gpointer) "-");
		g_ptr_array_add(argv, (gpointer) "-");
		g_ptr_array_add(argv, (gpointer) "0");
	} else {
		*n_datagrams = erpc_launch_get_managed_datagrams(launch);
		list = g_string_new(NULL);
		for (guint i = 0; i < n_ports; i++)
			g_string_append_printf(list, "%s%u", i > 0 ? "," : "", ports[i]);
		g_ptr_array_add(strings, g_strdup_printf("%d", *channel_fd));
		g_ptr_array_add(argv, g_ptr_array_index(strings, strings->len - 1));
		g_ptr_array_add(strings, g_string_free(list, FALSE));
		g_ptr_array_add(argv, g_ptr_array_index(strings, strings->len - 1));
		g_ptr_array_add(strings, g_strdup_printf("%u", *n_datagrams));
		g_ptr_array_add(argv, g_ptr_array_index(strings, strings->len - 1));
	}
	g_ptr_array_add(argv, (gpointer) "--");
	return TRUE;
}

static EsdSandboxLaunch *
esd_process_methods_prepare_sandbox(ErpcCall *call,
				    EsdStartParams *start,
				    const gchar *path,
				    ErpcLaunch *hooks,
				    EsdSpawnRequest *request,
				    GArray *managed_fds)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdSandboxLaunch) launch = NULL;
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(ErpcSandboxCommand) command = NULL;
	const gchar *const *extra_files =
	    hooks != NULL ? erpc_launch_get_sandbox_files(hooks) : NULL;
	const gint *fds;
	guint n_fds = 0;
	gint channel_fd = -1;
	guint n_datagrams = 0;
	gboolean managed;
	const EsdSandboxPolicy *policy = start->policy;
	EsdSandboxPolicy managed_policy;

	managed = esd_process_methods_managed_network(start,
						      hooks,
						      argv,
						      strings,
						      &channel_fd,
						      &n_datagrams);
	/* bwrap 0.8 cannot set argv[0]: the command sees its path there */
	g_ptr_array_add(argv, (gpointer)path);
	for (guint i = 1; start->argv[i] != NULL; i++)
		g_ptr_array_add(argv, start->argv[i]);
	g_ptr_array_add(argv, NULL);
	command = erpc_sandbox_command_new((const gchar *const *)argv->pdata);
	erpc_sandbox_command_set_envp(command, (const gchar *const *)start->envp);
	erpc_sandbox_command_set_cwd(command, start->cwd);
	for (guint i = 0; extra_files != NULL && extra_files[i] != NULL; i++)
		erpc_sandbox_command_add_ro_file(command, extra_files[i]);
	if (managed)
		erpc_sandbox_command_add_ro_file(command, esd_spawn_get_supervisor());
	if (channel_fd >= 0)
		g_array_append_val(managed_fds, channel_fd);
	if (managed && policy->network != ESD_SANDBOX_NETWORK_RESTRICTED) {
		managed_policy = *policy;
		managed_policy.network = ESD_SANDBOX_NETWORK_RESTRICTED;
		policy = &managed_policy;
	}
	launch =
	    esd_sandbox_launch_prepare_managed(policy, command, managed, n_datagrams > 0, &error);
	if (launch == NULL) {
		if (g_error_matches(error, ERPC_SANDBOX_ERROR, ERPC_SANDBOX_ERROR_UNAVAILABLE)) {
			EsdTelemetrySubject subject = {
			    .session_id = erpc_session_get_id(erpc_call_get_session(call)),
			    .process_id = start->id,
			    .thread_id = start->thread_id,
			    .tool_call_id = start->tool_call_id,
			};
			g_info("sandboxed process refused: %s", error->message);
			esd_telemetry_sandbox_denied(&subject, "unavailable");
			erpc_call_return_sandbox_error(call, error);
			return NULL;
		}
		goto preparation;
	}
	fds = esd_sandbox_launch_get_fds(launch, &n_fds);
	if (n_fds > ESD_SPAWN_MAX_EXTRA_FDS) {
		g_set_error(&error,
			    ERPC_SANDBOX_ERROR,
			    ERPC_SANDBOX_ERROR_PREPARATION,
			    "too many descriptors for bwrap");
		goto preparation;
	}
	request->path = esd_sandbox_launch_get_argv(launch)[0];
	request->argv = (gchar *const *)esd_sandbox_launch_get_argv(launch);
	request->envp = (gchar *const *)esd_sandbox_launch_get_envp(launch);
	request->extra_fds = fds;
	request->n_extra_fds = n_fds;
	request->landlock_fd = esd_sandbox_launch_get_landlock_fd(launch);
	request->landlock = request->landlock_fd >= 0;
	return g_steal_pointer(&launch);
preparation:
	g_warning("cannot prepare the sandbox of process %s: %s", start->id, error->message);
	erpc_call_return_sandbox_error(call, error);
	return NULL;
}

/* TRUE if a member name or string value of @obj holds a NUL character */
static gboolean
esd_process_methods_env_has_nul(JsonObject *obj)
{
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;

	if (obj == NULL)
		return FALSE;
	json_object_iter_init(&iter, obj);
	while (json_object_iter_next(&iter, &name, &value)) {
		if (erpc_json_string_has_nul(name))
			return TRUE;
		if (JSON_NODE_HOLDS_VALUE(value) &&
		    json_node_get_value_type(value) == G_TYPE_STRING &&
		    erpc_json_string_has_nul(json_node_get_string(value)))
			return TRUE;
	}
	return FALSE;
}

/*
 * No argument or environment entry may hold a NUL character, which
 * exec would cut it at: refused as the reference's spawn refuses them,
 * the arguments first
 */
static gboolean
esd_process_methods_check_nul(ErpcCall *call, EsdStartParams *start, JsonObject *params)
{
	g_autoptr(GError) error = NULL;
	JsonObject *env = NULL;
	JsonObject *policy = NULL;
	JsonObject *set = NULL;
	gboolean nul = erpc_json_string_has_nul(start->program);

	/* a terminal looks the program up on PATH first, where no name holds a NUL */
	if (nul && start->tty && strchr(start->program, '/') == NULL) {
		const gchar *path = esd_process_methods_env_lookup(start->envp, "PATH");
		if (path == NULL)
			g_set_error(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "Unable to spawn %s because:\nUnable to resolve the PATH",
				    start->program);
		else
			g_set_error(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "Unable to spawn %s because:\nNo viable candidates found in "
				    "PATH \"%s\"",
				    start->program,
				    path);
		esd_process_methods_error_kind(call, error, "spawnFailed");
		return FALSE;
	}
	for (guint i = 0; !nul && start->argv[i] != NULL; i++)
		nul = erpc_json_string_has_nul(start->argv[i]);
	if (nul) {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "nul byte found in provided data");
		esd_process_methods_error_kind(call, error, "spawnFailed");
		return FALSE;
	}
	/* the types were checked when the environment was built */
	if (!erpc_json_get_object(params, "env", &env, NULL) ||
	    !erpc_json_get_object(params, "envPolicy", &policy, NULL) ||
	    (policy != NULL && !erpc_json_get_object(policy, "set", &set, NULL)) ||
	    esd_process_methods_env_has_nul(env) || esd_process_methods_env_has_nul(set)) {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "data provided contains a nul byte");
		esd_process_methods_error_kind(call, error, "spawnFailed");
		return FALSE;
	}
	return TRUE;
}

/* the program's path: a terminal resolves it on the child's PATH, pipes on ours */
static gchar *
esd_process_methods_resolve(ErpcCall *call, EsdStartParams *start)
{
	g_autoptr(GError) error = NULL;
	gchar *path;

	if (start->tty) {
		const gchar *child_path = esd_process_methods_env_lookup(start->envp, "PATH");
		if (child_path == NULL && strchr(start->program, '/') == NULL) {
			g_set_error(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INTERNAL,
				    "Unable to spawn %s because:\nUnable to resolve the PATH",
				    start->program);
			esd_process_methods_error_kind(call, error, "spawnFailed");
			return NULL;
		}
		path = esd_process_methods_find_program(start->program, child_path);
	} else {
		const gchar *server_path = g_getenv("PATH");
		path = esd_process_methods_find_program(
		    start->program,
		    server_path != NULL ? server_path : "/usr/local/bin:/usr/bin:/bin");
	}
	if (path == NULL)
		esd_process_methods_spawn_error(call, ENOENT, "spawnNotFound");
	return path;
}

/* a process/start between its checks and its spawn, while launch hooks prepare */
typedef struct {
	EsdStartParams start;
	ErpcCall *call;
	EsdSession *session;
	EsdProcess *process;
	ErpcLaunch *launch; /* NULL without hooks */
	GCancellable *cancellable;
	gchar *path;
} EsdStartJob;

static void
esd_start_job_free(EsdStartJob *job)
{
	esd_start_params_clear(&job->start);
	g_clear_object(&job->call);
	g_clear_object(&job->session);
	g_clear_object(&job->process);
	g_clear_object(&job->launch);
	g_clear_object(&job->cancellable);
	g_free(job->path);
	g_free(job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EsdStartJob, esd_start_job_free)

/* what tells the hooks of a launch how its process ends */
typedef struct {
	ErpcLaunch *launch;
	GCancellable *cancellable;
} EsdLaunchWatch;

static void
esd_process_methods_launch_exiting_cb(EsdProcess *process, EsdLaunchWatch *watch)
{
	erpc_launch_exiting(watch->launch);
}

static void
esd_process_methods_launch_exited_cb(EsdProcess *process, gint exit_code, EsdLaunchWatch *watch)
{
	erpc_launch_exited(watch->launch, exit_code);
}

static void
esd_process_methods_launch_closed_cb(EsdProcess *process, EsdLaunchWatch *watch)
{
	erpc_launch_closed(watch->launch);
}

/* the process is gone, closed or not: a preparation still running is abandoned */
static void
esd_process_methods_launch_watch_free(gpointer data, GClosure *closure)
{
	EsdLaunchWatch *watch = data;

	g_cancellable_cancel(watch->cancellable);
	erpc_launch_closed(watch->launch);
	g_object_unref(watch->launch);
	g_object_unref(watch->cancellable);
	g_free(watch);
}

static void
esd_process_methods_watch_launch(EsdStartJob *job)
{
	EsdLaunchWatch *watch = g_new0(EsdLaunchWatch, 1);

	watch->launch = g_object_ref(job->launch);
	watch->cancellable = g_object_ref(job->cancellable);
	g_signal_connect(job->process,
			 "exiting",
			 G_CALLBACK(esd_process_methods_launch_exiting_cb),
			 watch);
	g_signal_connect(job->process,
			 "exited",
			 G_CALLBACK(esd_process_methods_launch_exited_cb),
			 watch);
	g_signal_connect_data(job->process,
			      "closed",
			      G_CALLBACK(esd_process_methods_launch_closed_cb),
			      watch,
			      esd_process_methods_launch_watch_free,
			      0);
}

/* a launch that does not go ahead leaves no process */
static void
esd_process_methods_abandon(EsdStartJob *job)
{
	if (esd_session_lookup_process(job->session, job->start.id) == job->process)
		esd_session_remove_process(job->session, job->start.id);
}

/* the hooks' changes: the command, its program and its environment */
static gboolean
esd_process_methods_apply_launch(EsdStartJob *job)
{
	if (erpc_launch_argv_changed(job->launch)) {
		g_strfreev(job->start.argv);
		job->start.argv = g_strdupv((gchar **)erpc_launch_get_argv(job->launch));
		g_free(job->start.program);
		job->start.program = g_strdup(job->start.argv[0]);
	}
	g_strfreev(job->start.envp);
	job->start.envp = erpc_launch_dup_envp(job->launch);
	if (erpc_launch_argv_changed(job->launch)) {
		g_free(job->path);
		job->path = esd_process_methods_resolve(job->call, &job->start);
		if (job->path == NULL)
			return FALSE;
	}
	return TRUE;
}

static void
esd_process_methods_spawn(EsdStartJob *job)
{
	EsdStartParams *start = &job->start;
	ErpcCall *call = job->call;
	g_autoptr(GError) error = NULL;
	g_autoptr(EsdSandboxLaunch) launch = NULL;
	g_autoptr(GArray) fds = g_array_new(FALSE, FALSE, sizeof(gint));
	g_autoptr(GArray) managed_fds = g_array_new(FALSE, FALSE, sizeof(gint));
	EsdSandboxLaunch *sandbox;
	gboolean ok;
	EsdSpawnRequest request = {0};

	if (job->launch != NULL && !esd_process_methods_apply_launch(job)) {
		esd_process_methods_abandon(job);
		return;
	}
	request.path = job->path;
	request.argv = start->argv;
	request.envp = start->envp;
	request.cwd = start->cwd;
	request.tty = start->tty;
	request.pipe_stdin = start->pipe_stdin;
	request.rows = ESD_PTY_ROWS;
	request.cols = ESD_PTY_COLS;
	/* enforceManagedNetwork sandboxes the network of any `sandbox`, as the reference does */
	if (start->policy != NULL &&
	    (esd_sandbox_policy_is_isolated(start->policy) || start->enforce_managed_network)) {
		launch = esd_process_methods_prepare_sandbox(call,
							     start,
							     job->path,
							     job->launch,
							     &request,
							     managed_fds);
		if (launch == NULL) {
			esd_process_methods_abandon(job);
			return;
		}
	}
	if (job->launch != NULL) {
		guint n_fds = 0;
		const gint *hook_fds = erpc_launch_get_fds(job->launch, &n_fds);

		g_array_append_vals(fds, request.extra_fds, request.n_extra_fds);
		g_array_append_vals(fds, hook_fds, n_fds);
		g_array_append_vals(fds, managed_fds->data, managed_fds->len);
		request.extra_fds = (const gint *)fds->data;
		request.n_extra_fds = fds->len;
		request.netns_fd = erpc_launch_get_network_namespace(job->launch);
		request.netns = request.netns_fd >= 0;
	}
	if (request.n_extra_fds > ESD_SPAWN_MAX_EXTRA_FDS) {
		g_set_error(&error, ERPC_ERROR, ERPC_ERROR_INTERNAL, "too many descriptors");
		esd_process_methods_abandon(job);
		esd_process_methods_error_kind(call, error, "spawnFailed");
		return;
	}
	/* as the reference on Linux: whenever a sandbox object was sent */
	esd_process_set_sandbox_type(job->process, start->has_sandbox ? "linuxSeccomp" : "none");
	/* the process releases the launch once the sandbox has exited */
	sandbox = g_steal_pointer(&launch);
	if (sandbox != NULL)
		esd_process_set_sandbox(job->process,
					sandbox,
					(GDestroyNotify)esd_sandbox_launch_free);
	g_signal_connect(job->process,
			 "started",
			 G_CALLBACK(esd_process_methods_started_cb),
			 g_object_ref(call));
	ok = esd_process_spawn(job->process, &request, &error);
	/* the supervisor has its copies */
	if (sandbox != NULL)
		esd_sandbox_launch_spawned(sandbox);
	if (job->launch != NULL) {
		erpc_launch_close_fds(job->launch);
		if (ok)
			erpc_launch_set_pid(job->launch, esd_process_get_pid(job->process));
	}
	if (!ok) {
		g_signal_handlers_disconnect_by_data(job->process, call);
		g_object_unref(call);
		esd_process_methods_abandon(job);
		esd_process_methods_error_kind(call, error, "spawnFailed");
		return;
	}
}

static void
esd_process_methods_prepared_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autoptr(EsdStartJob) job = user_data;
	g_autoptr(GError) error = NULL;

	if (!erpc_launch_prepare_finish(job->launch, result, &error)) {
		g_info("process %s: a launch hook failed: %s", job->start.id, error->message);
		esd_process_methods_abandon(job);
		erpc_call_return_error(job->call, error);
		return;
	}
	/* the session ended while the hooks prepared */
	if (esd_session_lookup_process(job->session, job->start.id) != job->process) {
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_INTERNAL,
			    "process %s was removed before it started",
			    job->start.id);
		erpc_call_return_error(job->call, error);
		return;
	}
	esd_process_methods_spawn(job);
}

static void
esd_process_methods_start(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	ErpcRegistry *registry = user_data;
	ErpcContext *context = registry != NULL ? erpc_registry_get_context(registry) : NULL;
	EsdSession *session = esd_process_methods_session(call);
	g_autoptr(EsdStartJob) job = g_new0(EsdStartJob, 1);
	g_autoptr(GError) error = NULL;
	EsdStartParams *start = &job->start;
	ErpcLaunch *launch;
	GCancellable *cancellable;
	struct stat st;

	if (!esd_process_methods_parse_start(params, start, call, context))
		return;
	/* the members launch hooks claim are checked with the daemon's */
	if (context != NULL && erpc_context_get_launch_hooks(context)->len > 0) {
		g_autoptr(GPtrArray) argv = g_ptr_array_new();

		g_ptr_array_add(argv, start->program);
		for (guint i = 1; start->argv[i] != NULL; i++)
			g_ptr_array_add(argv, start->argv[i]);
		g_ptr_array_add(argv, NULL);
		job->launch = erpc_launch_new(ERPC_SESSION(session),
					      start->id,
					      params,
					      start->cwd,
					      (const gchar *const *)argv->pdata,
					      (const gchar *const *)start->envp,
					      start->tty,
					      start->sandbox_policy);
		if (!erpc_launch_claim(job->launch, context, &error)) {
			erpc_call_return_error(call, error);
			return;
		}
		if (!erpc_launch_has_hooks(job->launch))
			g_clear_object(&job->launch);
	}
	if (esd_session_lookup_process(session, start->id) != NULL) {
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "process %s already exists",
			    start->id);
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_session_check_process_limit(session, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (!esd_process_methods_check_nul(call, start, params))
		return;
	if (stat(start->cwd, &st) != 0) {
		esd_process_methods_spawn_error(call, errno, "spawnNotFound");
		return;
	}
	job->path = esd_process_methods_resolve(call, start);
	if (job->path == NULL)
		return;

	job->call = g_object_ref(call);
	job->session = g_object_ref(session);
	/* the id is taken while hooks prepare: a second start with it is refused */
	job->process = g_object_ref(esd_session_new_process(session, start->id));
	esd_process_set_attribution(job->process,
				    start->thread_id,
				    start->tool_call_id,
				    start->tty);
	if (job->launch == NULL) {
		esd_process_methods_spawn(job);
		return;
	}
	job->cancellable = g_cancellable_new();
	esd_process_methods_watch_launch(job);
	launch = job->launch;
	cancellable = job->cancellable;
	erpc_launch_prepare_async(launch,
				  cancellable,
				  esd_process_methods_prepared_cb,
				  g_steal_pointer(&job));
}

static void
esd_process_methods_read(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdSession *session = esd_process_methods_session(call);
	g_autoptr(GError) error = NULL;
	const gchar *id = NULL;
	guint64 after_seq = 0;
	guint64 max_bytes = 0;
	guint64 wait_ms = 0;
	EsdProcess *process;

	if (!erpc_json_require_string(params, "processId", &id, &error) ||
	    !erpc_json_get_uint64(params, "afterSeq", 0, &after_seq, &error) ||
	    !erpc_json_get_uint64(params, "maxBytes", G_MAXUINT64, &max_bytes, &error) ||
	    !erpc_json_get_uint64(params, "waitMs", 0, &wait_ms, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	process = esd_session_lookup_process(session, id);
	if (process == NULL) {
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "unknown process id %s",
			    id);
		erpc_call_return_error(call, error);
		return;
	}
	if (esd_process_is_starting(process)) {
		g_set_error(&error,
			    ERPC_ERROR,
			    ERPC_ERROR_INVALID_REQUEST,
			    "process id %s is starting",
			    id);
		erpc_call_return_error(call, error);
		return;
	}
	esd_process_read(process, call, after_seq, max_bytes != G_MAXUINT64, max_bytes, wait_ms);
}

static void
esd_process_methods_write(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdSession *session = esd_process_methods_session(call);
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) data = NULL;
	ErpcJsonWriter writer;
	const gchar *id = NULL;
	const gchar *chunk = NULL;
	const gchar *write_id = NULL;
	const gchar *status;
	EsdProcess *process;

	if (!erpc_json_require_string(params, "processId", &id, &error) ||
	    !erpc_json_require_string(params, "chunk", &chunk, &error) ||
	    !erpc_json_require_string(params, "writeId", &write_id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (write_id[0] == '\0') {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "writeId must not be empty");
		erpc_call_return_error(call, error);
		return;
	}
	data = erpc_base64_decode(chunk, strlen(chunk), 16 * 1024 * 1024, &error);
	if (data == NULL) {
		erpc_call_return_error(call, error);
		return;
	}
	process = esd_session_lookup_process(session, id);
	status = process != NULL ? esd_process_write(process, write_id, data) : "unknownProcess";
	erpc_json_writer_init(&writer, erpc_call_result_begin(call, 32));
	erpc_json_writer_begin_object(&writer);
	erpc_json_writer_member_string(&writer, "status", status);
	erpc_json_writer_end_object(&writer);
	erpc_call_result_end(call, erpc_json_writer_get_string(&writer));
}

static void
esd_process_methods_signal(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	const gchar *const signals[] = {"interrupt", NULL};
	EsdSession *session = esd_process_methods_session(call);
	g_autoptr(GError) error = NULL;
	const gchar *id = NULL;
	gint sig = 0;
	EsdProcess *process;

	if (!erpc_json_require_string(params, "processId", &id, &error) ||
	    !erpc_json_get_enum(params, "signal", signals, -1, &sig, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	process = esd_session_lookup_process(session, id);
	if (process != NULL)
		esd_process_interrupt(process);
	erpc_call_return_raw(call, "{}");
}

static void
esd_process_methods_terminate(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	EsdSession *session = esd_process_methods_session(call);
	g_autoptr(GError) error = NULL;
	const gchar *id = NULL;
	EsdProcess *process;
	gboolean running = FALSE;

	if (!erpc_json_require_string(params, "processId", &id, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	process = esd_session_lookup_process(session, id);
	if (process != NULL)
		running = esd_process_terminate(process);
	erpc_call_return_raw(call, running ? "{\"running\":true}" : "{\"running\":false}");
}

gboolean
esd_process_methods_register(ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo methods[] = {
	    {.name = "process/start",
	     .family = "exec",
	     .params_type = "ExecParams",
	     .func = esd_process_methods_start},
	    {.name = "process/read",
	     .family = "exec",
	     .params_type = "ReadParams",
	     .func = esd_process_methods_read},
	    {.name = "process/write",
	     .family = "exec",
	     .params_type = "WriteParams",
	     .func = esd_process_methods_write},
	    {.name = "process/signal",
	     .family = "exec",
	     .params_type = "SignalParams",
	     .func = esd_process_methods_signal},
	    {.name = "process/terminate",
	     .family = "exec",
	     .params_type = "TerminateParams",
	     .func = esd_process_methods_terminate},
	};

	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		/* the registry outlives its methods; process/start finds the hooks through it */
		if (!erpc_registry_add_method(registry, &methods[i], registry, NULL, error))
			return FALSE;
	}
	return TRUE;
}
