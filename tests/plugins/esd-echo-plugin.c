/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <execrpc-plugin.h>

/*
 * A well-formed plugin for the tests: `test/echo` returns its params,
 * `test/sleep` answers after `ms` milliseconds (to observe request
 * concurrency), and `test/future` is gated on a capability version the
 * plugin does not have, so it must look unknown.
 */

#define ESD_TYPE_ECHO_PLUGIN (esd_echo_plugin_get_type())
G_DECLARE_FINAL_TYPE(EsdEchoPlugin, esd_echo_plugin, ESD, ECHO_PLUGIN, ErpcPlugin)

struct _EsdEchoPlugin {
	ErpcPlugin parent_instance;
	guint connections_closed;
};

G_DEFINE_TYPE(EsdEchoPlugin, esd_echo_plugin, ERPC_TYPE_PLUGIN)

static void
esd_echo_plugin_echo(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	JsonNode *node = json_node_init_object(json_node_alloc(), params);
	erpc_call_return(call, node);
}

static gboolean
esd_echo_plugin_sleep_done_cb(gpointer user_data)
{
	ErpcCall *call = ERPC_CALL(user_data);
	erpc_call_return(call, NULL);
	return G_SOURCE_REMOVE;
}

static void
esd_echo_plugin_sleep(ErpcCall *call, JsonObject *params, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	guint64 ms = 0;

	if (!erpc_json_require_uint64(params, "ms", &ms, &error)) {
		erpc_call_return_error(call, error);
		return;
	}
	g_timeout_add_full(G_PRIORITY_DEFAULT,
			   (guint)MIN(ms, 10000),
			   esd_echo_plugin_sleep_done_cb,
			   g_object_ref(call),
			   g_object_unref);
}

static gboolean
esd_echo_plugin_setup(ErpcPlugin *plugin, ErpcRegistry *registry, GError **error)
{
	const ErpcMethodInfo methods[] = {
	    {.name = "test/echo",
	     .family = "test",
	     .params_type = "EchoParams",
	     .capability = "testEcho",
	     .since_version = 1,
	     .func = esd_echo_plugin_echo},
	    {.name = "test/sleep",
	     .family = "test",
	     .params_type = "SleepParams",
	     .func = esd_echo_plugin_sleep},
	    {.name = "test/future",
	     .family = "test",
	     .params_type = "FutureParams",
	     .capability = "testEcho",
	     .since_version = 2,
	     .func = esd_echo_plugin_echo},
	};

	if (!erpc_registry_add_capability(registry, "testEcho", 1, error))
		return FALSE;
	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (!erpc_registry_add_method(registry, &methods[i], plugin, NULL, error))
			return FALSE;
	}
	return TRUE;
}

static void
esd_echo_plugin_connection_closed(ErpcPlugin *plugin, ErpcConnection *connection)
{
	ESD_ECHO_PLUGIN(plugin)->connections_closed++;
}

static void
esd_echo_plugin_init(EsdEchoPlugin *self)
{
}

static void
esd_echo_plugin_class_init(EsdEchoPluginClass *klass)
{
	ERPC_PLUGIN_CLASS(klass)->setup = esd_echo_plugin_setup;
	ERPC_PLUGIN_CLASS(klass)->connection_closed = esd_echo_plugin_connection_closed;
}

ERPC_PLUGIN_DEFINE("echo", "1.2.3", "test plugin: echo and sleep", esd_echo_plugin_get_type)
