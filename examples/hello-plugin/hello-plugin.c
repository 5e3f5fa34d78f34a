/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
/* hello: a plugin of execserverd built against the installed SDK. It
 * registers the capability `hello` (version 1) and the method `hello/greet`
 * gated on it: {"name": "you"} is answered {"greeting": "Hello, you!"}.
 * As a launch hook, it sets HELLO to the same word in the environment of
 * every process/start. The word is set with --hello-greeting=WORD or
 * `greeting=` in the `[hello]` section of the daemon's config file; the
 * command line wins. */

#include <execrpc-plugin.h>

#define HELLO_TYPE_PLUGIN (hello_plugin_get_type())
G_DECLARE_FINAL_TYPE(HelloPlugin, hello_plugin, HELLO, PLUGIN, ErpcPlugin)

struct _HelloPlugin {
	ErpcPlugin parent_instance;
	gchar *option_greeting; /* --hello-greeting, set by GOption */
	gchar *config_greeting; /* greeting= of [hello] */
};

static void
hello_plugin_launch_hook_init(ErpcLaunchHookInterface *iface);

G_DEFINE_TYPE_WITH_CODE(HelloPlugin,
			hello_plugin,
			ERPC_TYPE_PLUGIN,
			G_IMPLEMENT_INTERFACE(ERPC_TYPE_LAUNCH_HOOK, hello_plugin_launch_hook_init))

static const gchar *
hello_plugin_get_word(HelloPlugin *self)
{
	if (self->option_greeting != NULL)
		return self->option_greeting;
	if (self->config_greeting != NULL)
		return self->config_greeting;
	return "Hello";
}

static void
hello_greet(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree gchar *greeting = NULL;
	HelloPlugin *self = HELLO_PLUGIN(user_data);
	const gchar *name = NULL;

	/* a missing or non-string `name` is the protocol's -32602 */
	if (!erpc_json_require_string(params, "name", &name, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	greeting = g_strdup_printf("%s, %s!", hello_plugin_get_word(self), name);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "greeting");
	json_builder_add_string_value(builder, greeting);
	json_builder_end_object(builder);
	/* the call takes the result */
	erpc_call_return(call, json_builder_get_root(builder));
}

/* a hook that claims no member takes part in every process/start; its
 * changes to the launch are applied once all hooks have prepared */
static void
hello_plugin_prepare_async(ErpcLaunchHook *hook,
			   ErpcLaunch *launch,
			   GCancellable *cancellable,
			   GAsyncReadyCallback callback,
			   gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(hook, cancellable, callback, user_data);

	erpc_launch_setenv(launch, "HELLO", hello_plugin_get_word(HELLO_PLUGIN(hook)));
	g_task_return_boolean(task, TRUE);
}

static gboolean
hello_plugin_prepare_finish(ErpcLaunchHook *hook, GAsyncResult *result, GError **error)
{
	return g_task_propagate_boolean(G_TASK(result), error);
}

static void
hello_plugin_launch_hook_init(ErpcLaunchHookInterface *iface)
{
	iface->prepare_async = hello_plugin_prepare_async;
	iface->prepare_finish = hello_plugin_prepare_finish;
}

static gboolean
hello_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo greet = {
	    .name = "hello/greet",
	    .family = "hello",
	    .params_type = "GreetParams",
	    .capability = "hello",
	    .since_version = 1,
	    .func = hello_greet,
	};

	if (!erpc_registry_add_capability(registry, "hello", 1, error))
		return FALSE;
	if (!erpc_registry_add_method(registry, &greet, plugin, NULL, error))
		return FALSE;
	return erpc_context_add_launch_hook(erpc_registry_get_context(registry),
					    ERPC_LAUNCH_HOOK(plugin),
					    error);
}

/* called once after setup, before the daemon parses its command line */
static GOptionGroup *
hello_plugin_get_option_group(ErpcPlugin *plugin)
{
	HelloPlugin *self = HELLO_PLUGIN(plugin);
	const GOptionEntry entries[] = {{"hello-greeting",
					 0,
					 0,
					 G_OPTION_ARG_STRING,
					 &self->option_greeting,
					 "The word hello/greet greets with (default Hello)",
					 "WORD"},
					{NULL}};
	GOptionGroup *group = g_option_group_new("hello",
						 "The hello plugin:",
						 "Show the hello plugin's options",
						 self,
						 NULL);

	g_option_group_add_entries(group, entries);
	return group;
}

/* the [hello] section of the config file, read before the command line */
static gboolean
hello_plugin_load_config(ErpcPlugin *plugin, GKeyFile *file, const gchar *group, GError **error)
{
	HelloPlugin *self = HELLO_PLUGIN(plugin);
	const ErpcConfigKey keys[] = {{"greeting", ERPC_CONFIG_KEY_STRING, &self->config_greeting},
				      {NULL}};

	return erpc_plugin_read_config_keys(plugin, file, group, keys, error);
}

static void
hello_plugin_finalize(GObject *object)
{
	HelloPlugin *self = HELLO_PLUGIN(object);

	g_free(self->option_greeting);
	g_free(self->config_greeting);
	G_OBJECT_CLASS(hello_plugin_parent_class)->finalize(object);
}

static void
hello_plugin_init(HelloPlugin *self)
{
}

static void
hello_plugin_class_init(HelloPluginClass *klass)
{
	ErpcPluginClass *plugin_class = ERPC_PLUGIN_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = hello_plugin_finalize;
	plugin_class->setup = hello_plugin_setup;
	plugin_class->get_option_group = hello_plugin_get_option_group;
	plugin_class->load_config = hello_plugin_load_config;
}

ERPC_PLUGIN_DEFINE("hello", "1.0", "says hello (the SDK's example plugin)", hello_plugin_get_type)
