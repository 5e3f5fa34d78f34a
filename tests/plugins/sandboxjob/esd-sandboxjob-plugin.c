/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <execrpc-plugin.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * A plugin written as a third party would write it, against the installed
 * SDK only: `test/sandboxRun` runs `argv` in the sandbox of its `sandbox`
 * object through the host's sandbox service and answers its exit status
 * and output. Refusals of the policy and of the sandbox reach the client
 * as the daemon's own (erpc_call_return_sandbox_error()).
 */

#define ESD_TYPE_SANDBOXJOB_PLUGIN (esd_sandboxjob_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdSandboxjobPlugin, esd_sandboxjob_plugin, ESD, SANDBOXJOB_PLUGIN, ErpcPlugin)

struct _EsdSandboxjobPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(EsdSandboxjobPlugin, esd_sandboxjob_plugin, ERPC_TYPE_PLUGIN)

typedef struct {
	ErpcCall *call;
	gint out_fd; /* a memfd the command's stdout went to */
} EsdSandboxjob;

static void
esd_sandboxjob_free(EsdSandboxjob *job)
{
	g_object_unref(job->call);
	if (job->out_fd >= 0)
		close(job->out_fd);
	g_free(job);
}

static gchar *
esd_sandboxjob_read_output(gint fd)
{
	g_autoptr(GString) out = g_string_new(NULL);
	gchar buf[4096];
	gssize n;
	off_t offset = 0;

	while ((n = pread(fd, buf, sizeof(buf), offset)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		g_string_append_len(out, buf, n);
		offset += n;
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static void
esd_sandboxjob_done_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	EsdSandboxjob *job = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree gchar *output = NULL;
	gint status = 0;

	if (!erpc_sandbox_run_finish(ERPC_SANDBOX(source), res, &status, &error)) {
		erpc_call_return_sandbox_error(job->call, error);
		esd_sandboxjob_free(job);
		return;
	}
	output = esd_sandboxjob_read_output(job->out_fd);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "exitStatus");
	json_builder_add_int_value(builder, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_builder_set_member_name(builder, "stdout");
	json_builder_add_string_value(builder, output);
	json_builder_end_object(builder);
	erpc_call_return(job->call, json_builder_get_root(builder));
	esd_sandboxjob_free(job);
}

static void
esd_sandboxjob_plugin_run(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	ErpcContext *context = erpc_plugin_get_context(ERPC_PLUGIN(user_data));
	ErpcSandbox *sandbox = context != NULL ? erpc_context_get_sandbox(context) : NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(ErpcSandboxPolicy) policy = NULL;
	g_autoptr(ErpcSandboxCommand) command = NULL;
	g_auto(GStrv) argv = NULL;
	JsonObject *object = NULL;
	EsdSandboxjob *job;
	gint out_fd;

	if (!erpc_json_require_strv(params, "argv", &argv, &error) ||
	    !erpc_json_require_object(params, "sandbox", &object, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	if (sandbox == NULL || argv[0] == NULL) {
		g_set_error_literal(&error,
				    ERPC_SANDBOX_ERROR,
				    ERPC_SANDBOX_ERROR_UNAVAILABLE,
				    "no sandbox service or no command");
		erpc_call_return_sandbox_error(call, error);
		return;
	}
	policy = erpc_sandbox_parse_policy(sandbox, object, NULL, &error);
	if (policy == NULL) {
		erpc_call_return_sandbox_error(call, error);
		return;
	}
	if (!erpc_sandbox_policy_is_isolated(policy)) {
		g_set_error_literal(&error,
				    ERPC_ERROR,
				    ERPC_ERROR_INVALID_PARAMS,
				    "the sandbox must isolate the command");
		erpc_call_return_error(call, error);
		return;
	}
	out_fd = memfd_create("sandboxjob-stdout", MFD_CLOEXEC);
	if (out_fd < 0) {
		g_set_error_literal(&error, ERPC_ERROR, ERPC_ERROR_INTERNAL, g_strerror(errno));
		erpc_call_return_error(call, error);
		return;
	}
	command = erpc_sandbox_command_new((const gchar *const *)argv);
	erpc_sandbox_command_set_envp(command, (const gchar *[]){"PATH=/usr/bin:/bin", NULL});
	erpc_sandbox_command_take_fd(command, dup(out_fd), 1);
	job = g_new0(EsdSandboxjob, 1);
	job->call = g_object_ref(call);
	job->out_fd = out_fd;
	erpc_sandbox_run_async(sandbox,
			       policy,
			       command,
			       erpc_call_get_cancellable(call),
			       esd_sandboxjob_done_cb,
			       job);
}

static gboolean
esd_sandboxjob_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo method = {.name = "test/sandboxRun",
				       .family = "test",
				       .params_type = "SandboxRunParams",
				       .func = esd_sandboxjob_plugin_run};

	return erpc_registry_add_method(registry, &method, plugin, NULL, error);
}

static void
esd_sandboxjob_plugin_init(EsdSandboxjobPlugin *self)
{
}

static void
esd_sandboxjob_plugin_class_init(EsdSandboxjobPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = esd_sandboxjob_plugin_setup;
}

ERPC_PLUGIN_DEFINE("sandboxjob",
		   PACKAGE_VERSION,
		   "runs a command in the host's sandbox (tests)",
		   esd_sandboxjob_plugin_get_type)
