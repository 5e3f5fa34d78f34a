/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hello: a plugin of execserverd built against the installed SDK. It
 * registers the capability `hello` (version 1) and the method `hello/greet`
 * gated on it: {"name": "you"} is answered {"greeting": "Hello, you!"}. */

#include <execrpc-plugin.h>

#define HELLO_TYPE_PLUGIN (hello_plugin_get_type())
G_DECLARE_FINAL_TYPE(HelloPlugin, hello_plugin, HELLO, PLUGIN, ErpcPlugin)

struct _HelloPlugin {
	ErpcPlugin parent_instance;
};

G_DEFINE_TYPE(HelloPlugin, hello_plugin, ERPC_TYPE_PLUGIN)

static void
hello_greet(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree gchar *greeting = NULL;
	const gchar *name = NULL;

	/* a missing or non-string `name` is the protocol's -32602 */
	if (!erpc_json_require_string(params, "name", &name, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	greeting = g_strdup_printf("Hello, %s!", name);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "greeting");
	json_builder_add_string_value(builder, greeting);
	json_builder_end_object(builder);
	/* the call takes the result */
	erpc_call_return(call, json_builder_get_root(builder));
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
	return erpc_registry_add_method(registry, &greet, plugin, NULL, error);
}

static void
hello_plugin_init(HelloPlugin *self)
{
}

static void
hello_plugin_class_init(HelloPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = hello_plugin_setup;
}

ERPC_PLUGIN_DEFINE("hello", "1.0", "says hello (the SDK's example plugin)", hello_plugin_get_type)
